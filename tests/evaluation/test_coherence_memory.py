"""Sliding-window coherence counts: exact, and in memory that does not grow with a document's length.

The window counts (units, D(w), D(w, w')) are compared with a slow, obvious enumeration of every
window, and the blocked computation with the former dense one (a (words x tokens) matrix per
document), on long documents and with blocks forced small so that many block boundaries are crossed.
"""

import importlib
import itertools
import tracemalloc

import numpy as np
import pytest

from topicvb.evaluation import MEASURES, ReferenceCorpus, coherence

# the module, not the function of the same name that topicvb.evaluation exports
coh = importlib.import_module("topicvb.evaluation.coherence")


def _reference_window_counts(ref, words, window_size):
    """Enumerate every window of every document and count the words and pairs it contains."""
    index = {w: i for i, w in enumerate(words)}
    T = len(words)
    single = np.zeros(T)
    joint = np.zeros((T, T))
    n_units = 0.0
    for doc in ref.texts:
        if not doc:
            continue
        if len(doc) <= window_size:
            windows = [doc]
        else:
            windows = [doc[s:s + window_size] for s in range(len(doc) - window_size + 1)]
        for window in windows:
            n_units += 1
            present = sorted({index[t] for t in window if t in index})
            for a in present:
                single[a] += 1
            for a, b in itertools.product(present, present):
                joint[a, b] += 1
    return n_units, single, joint


def _dense_window_counts(ref, words, window_size):
    """The former computation: per document, a dense (present words x tokens) window indicator."""
    index = {w: i for i, w in enumerate(words)}
    T = len(words)
    single = np.zeros(T)
    joint = np.zeros((T, T))
    n_units = 0.0
    for doc in ref.texts:
        L = len(doc)
        if L == 0:
            continue
        ids = np.fromiter((index.get(t, -1) for t in doc), dtype=np.int64, count=L)
        hit = np.flatnonzero(ids >= 0)
        if L <= window_size:
            n_units += 1
            present = np.unique(ids[hit])
            single[present] += 1
            joint[np.ix_(present, present)] += 1
            continue
        n_win = L - window_size + 1
        n_units += n_win
        if hit.size == 0:
            continue
        present, pos = np.unique(ids[hit], return_inverse=True)
        occ = np.zeros((present.size, L + 1))
        occ[pos, hit + 1] = 1.0
        cum = np.cumsum(occ, axis=1)
        P = ((cum[:, window_size:] - cum[:, :n_win]) > 0).astype(np.float64)
        single[present] += P.sum(axis=1)
        joint[np.ix_(present, present)] += P @ P.T
    return n_units, single, joint


def _assert_same_counts(got, want):
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])


def _zipf_doc(rng, n_tokens, n_vocab=2000):
    """Tokens ``w0, w1, ...`` drawn with a Zipf-like law: many repeats, duplicates within a window."""
    p = 1.0 / (np.arange(n_vocab) + 5.0)
    p /= p.sum()
    return [f"w{i}" for i in rng.choice(n_vocab, size=n_tokens, p=p)]


@pytest.mark.parametrize("block_elements", [1, 2, 3, 7, 64, 1 << 20])
@pytest.mark.parametrize("seed", range(4))
def test_window_counts_match_enumerating_every_window(monkeypatch, seed, block_elements):
    monkeypatch.setattr(coh, "_WINDOW_BLOCK_ELEMENTS", block_elements)
    rng = np.random.default_rng(seed)
    for _ in range(25):
        W = int(rng.integers(1, 12))
        V = int(rng.integers(1, 12))  # few distinct tokens: words repeat within a window
        lengths = [0, 1, max(W - 1, 0), W, W + 1, W + 2, 2 * W + 3, int(rng.integers(0, 80))]
        docs = [[f"w{i}" for i in rng.integers(0, V, size=n)] for n in rng.permutation(lengths)]
        # top words: some in the documents, some absent from every document (w{V}, w{V + 1}, ...)
        words = sorted({f"w{i}" for i in rng.integers(0, V + 4, size=int(rng.integers(1, 10)))})
        ref = ReferenceCorpus(texts=docs)
        want = _reference_window_counts(ref, words, W)
        _assert_same_counts(coh._window_counts(ref, words, W), want)
        _assert_same_counts(_dense_window_counts(ref, words, W), want)  # (the reference itself)


@pytest.mark.parametrize("n_tokens", [0, 1, 4, 5, 6, 7, 50])
def test_window_counts_at_the_window_length(monkeypatch, n_tokens):
    """Documents shorter than, as long as and just longer than the window (5), one word repeated."""
    monkeypatch.setattr(coh, "_WINDOW_BLOCK_ELEMENTS", 2)
    rng = np.random.default_rng(n_tokens)
    doc = [["a", "b", "a", "c"][i] for i in rng.integers(0, 4, size=n_tokens)]
    ref = ReferenceCorpus(texts=[doc, ["a"]])
    words = ["a", "b", "c", "zzz"]
    _assert_same_counts(coh._window_counts(ref, words, 5), _reference_window_counts(ref, words, 5))


def test_window_counts_of_a_document_without_top_words_are_windows_only():
    ref = ReferenceCorpus(texts=[["x"] * 30, ["a", "x", "b"]])
    n_units, single, joint = coh._window_counts(ref, ["a", "b"], 4)
    assert n_units == 27 + 1
    np.testing.assert_array_equal(single, [1, 1])
    np.testing.assert_array_equal(joint, [[1, 1], [1, 1]])


def test_window_counts_of_a_medium_document_match_enumerating_every_window(monkeypatch):
    monkeypatch.setattr(coh, "_WINDOW_BLOCK_ELEMENTS", 997)  # a block boundary every few dozen windows
    rng = np.random.default_rng(11)
    doc = _zipf_doc(rng, 3000, n_vocab=300)
    words = sorted({f"w{i}" for i in rng.choice(60, size=40)} | {"absent"})
    ref = ReferenceCorpus(texts=[doc])
    _assert_same_counts(coh._window_counts(ref, words, 10), _reference_window_counts(ref, words, 10))


@pytest.mark.parametrize("block_elements", [5003, 1 << 20])
def test_window_counts_of_long_documents_match_the_dense_counts(monkeypatch, block_elements):
    monkeypatch.setattr(coh, "_WINDOW_BLOCK_ELEMENTS", block_elements)
    rng = np.random.default_rng(3)
    docs = [_zipf_doc(rng, 20_001), _zipf_doc(rng, 200), [], _zipf_doc(rng, 111)]
    words = sorted({f"w{i}" for i in rng.choice(200, size=60)} | {"absent", "also-absent"})
    ref = ReferenceCorpus(texts=docs)
    for W in (110, 3):
        _assert_same_counts(coh._window_counts(ref, words, W), _dense_window_counts(ref, words, W))


@pytest.mark.parametrize("measure", MEASURES)
def test_windowed_scores_equal_those_from_enumerated_windows(monkeypatch, measure):
    rng = np.random.default_rng(5)
    texts = [_zipf_doc(rng, int(n), n_vocab=80) for n in rng.integers(0, 400, size=12)] + [[]]
    topics = [[f"w{i}" for i in rng.choice(100, size=6, replace=False)] for _ in range(5)]
    for W in (1, 7, 110):
        monkeypatch.setattr(coh, "_WINDOW_BLOCK_ELEMENTS", 13)
        got = coherence(topics, texts, measure=measure, window_size=W)
        monkeypatch.setattr(coh, "_window_counts", _reference_window_counts)
        want = coherence(topics, texts, measure=measure, window_size=W)
        monkeypatch.undo()
        np.testing.assert_array_equal(got.per_topic, want.per_topic)
        assert got.mean == want.mean


def test_window_counts_of_a_long_document_take_bounded_memory():
    """A 200,000-token document: the dense indicator needed 40 words x 200,001 x 8 bytes (64 MB) per
    work array, four of them; the blocked count stays within a few blocks of ~2**20 numbers."""
    rng = np.random.default_rng(0)
    doc = _zipf_doc(rng, 200_000, n_vocab=500)
    words = sorted({f"w{i}" for i in range(0, 80, 2)})
    ref = ReferenceCorpus(texts=[doc])
    tracemalloc.start()
    try:
        n_units, single, joint = coh._window_counts(ref, words, 110)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n_units == 200_000 - 110 + 1
    assert np.all(np.diag(joint) == single) and single.max() <= n_units
    assert peak < 40 * 2**20, f"peak {peak / 2**20:.0f} MB"
