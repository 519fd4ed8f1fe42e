"""Phrases: what a hunt at scale found (session 19). Each behaviour test fails on the code before it."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from topicvb.text import PhraseDetector, Vectorizer
from topicvb.text import phrases as phrases_module


def _docs(n_docs=300, seed=0):
    """Token lists with a few collocations among random words."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(60)]
    out = []
    for _ in range(n_docs):
        doc = list(rng.choice(words, 20))
        for a, b in (("new", "york"), ("machine", "learning"), ("hot", "dog")):
            if rng.random() < 0.5:
                at = int(rng.integers(0, len(doc)))
                doc[at:at] = [a, b]
        out.append(doc)
    return out


def test_a_stream_of_small_calls_scores_once_when_read(monkeypatch):
    """partial_fit re-merged and re-scored every pair at every call: 600 calls of 20 documents took 16.6 s against
    0.3 s for fit on the same 12,000 documents. The phrases are now scored when read, and equal fit's."""
    docs = _docs()
    whole = PhraseDetector().fit(docs)
    finished = []
    original = PhraseDetector._finish

    def counted(self, keep_counts):
        finished.append(keep_counts)
        return original(self, keep_counts)

    monkeypatch.setattr(PhraseDetector, "_finish", counted)
    det = PhraseDetector()
    for i in range(0, len(docs), 10):
        det.partial_fit(docs[i:i + 10])
    assert finished == []
    assert det.phrases_ == whole.phrases_ and det.scores_ == whole.scores_ and det.threshold_ == whole.threshold_
    assert finished == [True]
    assert det.transform([["i", "love", "new", "york"]]) == [["i", "love", "new_york"]]
    det.partial_fit(docs[:10])  # new counts: scored again when next read
    assert det.n_docs_ == len(docs) + 10 and len(finished) == 1
    det.apply(["new", "york"])
    assert len(finished) == 2


def test_fit_counts_a_stream_a_chunk_at_a_time(monkeypatch):
    """fit turned the whole corpus into one list of token ids (625 MiB for 8M tokens of a 50-word vocabulary); it
    now counts chunks of documents, with the same result, and a bad document names its place in the whole."""
    docs = _docs()
    whole = PhraseDetector().fit(docs)
    calls = []
    original = PhraseDetector._count_chunk

    def counted(self, chunk, *args, **kwargs):
        calls.append(len(chunk))
        return original(self, chunk, *args, **kwargs)

    monkeypatch.setattr(PhraseDetector, "_count_chunk", counted)
    monkeypatch.setattr(phrases_module, "_FIT_CHUNK", 7)
    chunked = PhraseDetector().fit(iter(docs))
    assert len(calls) == -(-len(docs) // 7) and max(calls) == 7
    assert chunked.phrases_ == whole.phrases_ and chunked.scores_ == whole.scores_
    assert (chunked.n_docs_, chunked.n_tokens_) == (whole.n_docs_, whole.n_tokens_)
    bad = docs[:20] + [["a", 5, "b"]] + docs[20:]
    with pytest.raises(TypeError, match=r"PhraseDetector expects each token to be a str; document 20 has 5"):
        chunked.fit(bad)
    assert chunked.phrases_ == whole.phrases_  # a failed fit leaves the detector as it was


def test_merged_counts_equal_the_counts_of_all_keys():
    rng = np.random.default_rng(0)
    det = PhraseDetector()
    det._reset()
    batches = [rng.integers(0, 500, size=int(rng.integers(0, 400))).astype(np.int64) for _ in range(12)]
    for keys in batches:
        if keys.size:
            det._pending.append(keys)
            det._n_pending += keys.size
        det._merge()
    expected_keys, expected_counts = np.unique(np.concatenate(batches), return_counts=True)
    np.testing.assert_array_equal(det._pair_keys, expected_keys)
    np.testing.assert_array_equal(det._pair_counts, expected_counts)
    assert det._pair_counts.dtype == np.int64 and det._pair_keys.dtype == np.int64


def test_partial_fit_after_fit_is_refused_not_a_silent_restart():
    """fit keeps no pair counts; partial_fit after it started over from nothing (the fit's 15 documents gone)."""
    docs = _docs(60)
    det = PhraseDetector(min_count=2).fit(docs)
    before = det.phrases_
    with pytest.raises(ValueError, match=r"PhraseDetector.partial_fit: this detector was fitted by fit"):
        det.partial_fit(docs[:10])
    assert det.phrases_ == before and det.n_docs_ == 60
    fresh = PhraseDetector(min_count=2).partial_fit(docs[:30]).partial_fit(docs[30:])
    assert fresh.phrases_ == before


def test_a_fixed_vocabulary_keeps_the_words_of_phrases_it_lacks():
    """With vocabulary=["new", "york", "city"], phrases=True joined new york into new_york, a term outside the
    vocabulary: both words were counted 0 times. Only phrases that are terms of the vocabulary are joined now."""
    texts = ["new york city is big", "i love new york", "new york new york", "a city in new york"] * 4
    plain = Vectorizer(vocabulary=["new", "york", "city"]).fit_transform(texts)
    phrased = Vectorizer(vocabulary=["new", "york", "city"], phrases=PhraseDetector(min_count=2))
    np.testing.assert_array_equal(phrased.fit_transform(texts).toarray(), plain.toarray())
    assert phrased.phrase_detector_.phrases_ == []
    with_phrase = Vectorizer(vocabulary=["new_york", "city", "new"], phrases=PhraseDetector(min_count=2))
    counts = with_phrase.fit_transform(texts).toarray()
    assert with_phrase.phrase_detector_.phrases_ == [("new", "york")]
    assert counts[:, 0].sum() == 20 and counts[:, 2].sum() == 0  # every "new" was in "new york"


def test_delimiters_that_make_joined_terms_ambiguous():
    with pytest.raises(ValueError, match="delimiter must not be empty"):
        PhraseDetector(delimiter="").fit([["a", "b"]])
    docs = [["new", "york", "x"], ["new_york", "y"]] * 10
    with pytest.warns(UserWarning, match=r"1 joined phrase\(s\) are also tokens of the documents \('new_york'\)"):
        PhraseDetector(min_count=5, threshold=0.0).fit(docs)


def test_npmi_scores_stay_in_their_range_and_the_threshold_too():
    docs = [["kem", "pmp"]] * 5 + [["a", "b", "c"]] * 50
    det = PhraseDetector(min_count=1, threshold=-1.0).fit(docs)
    assert max(det.scores_.values()) <= 1.0
    for bad in (1.0, 5.0, -1.5):
        with pytest.raises(ValueError, match=r"threshold must lie in \[-1, 1\) for scoring='npmi'"):
            PhraseDetector(threshold=bad).fit(docs)
    PhraseDetector(scoring="pmi", threshold=5.0).fit(docs)  # (other scores have other ranges)
    with pytest.raises(TypeError, match="threshold must be a number or None, got bool"):
        PhraseDetector(threshold=True).fit(docs)


def test_the_vectorizer_names_a_bad_token_by_its_document_and_itself():
    """A tokenizer's int token in document 1500 was reported as 'PhraseDetector ... document 500' (the place in a
    chunk of 1,000)."""
    texts = [f"some words here {i}" for i in range(2000)]

    def tokens(text):
        words = text.split()
        return words if words[-1] != "1500" else words[:-1] + [42]

    with pytest.raises(TypeError, match=r"Vectorizer.fit expects each token to be a str; document 1500 has 42"):
        Vectorizer(tokenizer=tokens, phrases=True).fit(texts)


@pytest.mark.parametrize("phrases", [False, True])
def test_a_tokenizer_that_returns_none_is_refused_with_or_without_phrases(phrases):
    """Without phrases such a document was counted as empty, with phrases a raw 'NoneType' error."""
    def tokens(text):
        return None if "two" in text else text.split()

    with pytest.raises(TypeError, match=r"the tokenizer returned NoneType for the document 'doc two'; a tokenizer "
                                        r"must return the document's tokens"):
        Vectorizer(tokenizer=tokens, phrases=phrases).fit(["doc one", "doc two", "doc three"])


def test_numpy_booleans_work_as_phrases():
    texts = ["new york city", "i love new york", "new york state"] * 5
    on = Vectorizer(phrases=np.bool_(True)).fit(texts)
    assert "new_york" in on.get_feature_names_out()
    off = Vectorizer(phrases=np.bool_(False)).fit(texts)
    assert off.phrase_detector_ is None and "new_york" not in off.get_feature_names_out()


def test_detectors_pickle_mid_stream_and_old_pickles_load():
    docs = _docs(80)
    det = PhraseDetector(min_count=2).partial_fit(docs[:40])
    again = pickle.loads(pickle.dumps(det))  # (counted, not yet scored)
    again.partial_fit(docs[40:])
    assert again.phrases_ == PhraseDetector(min_count=2).fit(docs).phrases_
    old = PhraseDetector(min_count=2)  # a detector pickled when its results were plain attributes
    old.__setstate__({"scoring": "npmi", "min_count": 2, "threshold": None, "delimiter": "_",
                      "phrases_": [("new", "york")], "scores_": {("new", "york"): 0.9}, "threshold_": 0.5,
                      "n_docs_": 3, "n_tokens_": 9})
    assert old.phrases_ == [("new", "york")] and old.threshold_ == 0.5
    assert old.apply(["new", "york"]) == ["new_york"]


def test_threads_reading_a_stream_score_it_once(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    docs = _docs()
    det = PhraseDetector()
    for i in range(0, len(docs), 50):
        det.partial_fit(docs[i:i + 50])
    finished = []
    original = PhraseDetector._finish

    def slow(self, keep_counts):
        finished.append(1)
        import time

        time.sleep(0.05)  # (a window for a second thread)
        return original(self, keep_counts)

    monkeypatch.setattr(PhraseDetector, "_finish", slow)
    with ThreadPoolExecutor(4) as pool:
        out = list(pool.map(lambda _: det.apply(["new", "york"]), range(8)))
    assert out == [["new_york"]] * 8 and len(finished) == 1
    assert det.phrases_ == PhraseDetector().fit(docs).phrases_


def test_joining_phrases_over_ids_equals_apply():
    """The Vectorizer joins the learned phrases in arrays of token ids (no Python work per token); the result is
    apply's, token for token: runs of overlapping phrases, phrases at document ends, empty documents."""
    from topicvb.text.phrases import join_phrase_ids

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(8)]
    for trial in range(200):
        docs = [list(rng.choice(words, int(rng.integers(0, 12)))) for _ in range(int(rng.integers(1, 8)))]
        n_phrases = int(rng.integers(0, 10))
        pairs = sorted({(str(a), str(b)) for a, b in rng.choice(words, (n_phrases, 2))})
        det = PhraseDetector()
        det.phrases_, det.scores_, det.threshold_ = pairs, {p: 1.0 for p in pairs}, 0.5
        index = {w: i for i, w in enumerate(words)}
        ids = np.array([index[t] for d in docs for t in d], dtype=np.int32)
        lengths = np.array([len(d) for d in docs], dtype=np.int64)
        order = sorted(pairs, key=lambda p: (index[p[0]] << 32) | index[p[1]])
        keys = np.array([(index[a] << 32) | index[b] for a, b in order], dtype=np.int64)
        terms = words + ["_".join(p) for p in order]
        joined, new_lengths = join_phrase_ids(ids, lengths, keys, np.arange(len(words), len(words) + len(order)))
        got, start = [], 0
        for n in new_lengths.tolist():
            got.append([terms[j] for j in joined[start:start + n]])
            start += n
        assert got == [det.apply(d) for d in docs], (docs, pairs)


@pytest.mark.parametrize("tokenizer", ["native", "callable"])
def test_the_vectorizer_with_phrases_counts_as_before_in_one_or_two_processes(tokenizer):
    from topicvb.text import Tokenizer
    from topicvb.text import _vectorize_pool

    rng = np.random.default_rng(1)
    base = [" ".join(d) for d in _docs(400)]
    texts = [t + " " + " ".join(rng.choice(["alpha", "beta", "gamma"], 5)) for t in base]
    tok = Tokenizer(alphabetic=False) if tokenizer == "native" else str.split
    one = Vectorizer(tokenizer=tok, phrases=PhraseDetector(min_count=3), n_jobs=1)
    X1 = one.fit_transform(texts)
    assert "new_york" in one.get_feature_names_out()
    # the reference: apply on each document's tokens, counted by hand
    det = one.phrase_detector_
    rows = [det.apply(list(Tokenizer(alphabetic=False)(t)) if tokenizer == "native" else t.split()) for t in texts]
    terms = list(one.get_feature_names_out())
    col = {t: j for j, t in enumerate(terms)}
    dense = np.zeros((len(texts), len(terms)))
    for d, toks in enumerate(rows):
        for t in toks:
            dense[d, col[t]] += 1
    np.testing.assert_array_equal(X1.toarray(), dense)
    two = Vectorizer(tokenizer=tok, phrases=PhraseDetector(min_count=3), n_jobs=2, chunk_size=50)
    import unittest.mock

    with unittest.mock.patch.object(_vectorize_pool, "_PARALLEL_MIN_CHARS", 0):  # (workers for a small corpus)
        X2 = two.fit_transform(texts)
    assert list(two.get_feature_names_out()) == terms
    np.testing.assert_array_equal(X2.toarray(), X1.toarray())
    # transform: the fitted phrases joined in new texts, in one process or two
    new = texts[::-1][:150] + ["new york new york york new"]
    rows = [det.apply(list(Tokenizer(alphabetic=False)(t)) if tokenizer == "native" else t.split()) for t in new]
    dense = np.zeros((len(new), len(terms)))
    for d, toks in enumerate(rows):
        for t in toks:
            if t in col:
                dense[d, col[t]] += 1
    np.testing.assert_array_equal(one.transform(new).toarray(), dense)
    with unittest.mock.patch.object(_vectorize_pool, "_PARALLEL_MIN_CHARS", 0):
        np.testing.assert_array_equal(two.transform(new).toarray(), dense)


def test_parameters_set_before_the_phrases_are_read_are_checked():
    """(A review.) The phrases are scored when read, with the parameters of that moment: a bad one is refused as
    partial_fit refuses it, not a KeyError from the scoring."""
    docs = _docs(60)
    det = PhraseDetector(min_count=2).partial_fit(docs)
    det.set_params(scoring="bogus")
    with pytest.raises(ValueError, match="scoring"):
        det.phrases_
    det.set_params(scoring="npmi", threshold=1.5)
    with pytest.raises(ValueError, match=r"threshold must lie in \[-1, 1\)"):
        det.phrases_
    det.set_params(threshold=None)
    assert det.phrases_ == PhraseDetector(min_count=2).fit(docs).phrases_


def test_a_chunk_joined_over_its_ids_equals_apply_also_where_a_phrase_is_spelled_as_a_token():
    from topicvb.text.phrases import joined_chunk

    det = PhraseDetector()
    det.phrases_, det.scores_, det.threshold_ = [("new", "york"), ("york", "city")], {}, 0.5
    docs = [["new", "york", "city", "new_york"], [], ["york", "city", "new", "york", "york"], ["new"]]
    terms = sorted({t for d in docs for t in d})
    ids = np.array([terms.index(t) for d in docs for t in d], dtype=np.int32)
    out_terms, out_ids, lengths = joined_chunk(det, terms, ids, np.array([len(d) for d in docs]))
    got, start = [], 0
    for n in lengths.tolist():
        got.append([out_terms[j] for j in out_ids[start:start + n]])
        start += n
    assert got == [det.apply(d) for d in docs]
    assert out_terms.count("new_york") == 1  # the phrase and the token of its spelling: one term
