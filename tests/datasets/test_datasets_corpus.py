"""Tests of topicvb.datasets.Corpus: sizes, checks, subsets, saving and loading."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from datasets_support import _listing

from topicvb.datasets import Corpus


def test_corpus_sizes_repr_and_summary(corpus):
    assert (corpus.n_docs, corpus.n_terms, corpus.n_tokens, len(corpus)) == (5, 5, 12, 5)
    assert sp.isspmatrix_csr(corpus.X)
    assert repr(corpus) == "Corpus(name='tiny', n_docs=5, n_terms=5, n_tokens=12, texts=no)"
    text = corpus.summary()
    assert "documents        5" in text
    assert "terms            5" in text
    assert "tokens           12" in text
    assert "empty documents  3" in text
    assert "mean 2.4" in text


def test_corpus_accepts_dense_and_checks_inputs(counts):
    X, vocab = counts
    assert Corpus(X.toarray(), vocab).X.nnz == X.nnz
    with pytest.raises(ValueError, match="vocabulary has 4 terms, but X has 5 columns"):
        Corpus(X, vocab[:4])
    with pytest.raises(ValueError, match="labels has 2 entries, but X has 5 documents"):
        Corpus(X, vocab, labels=[0, 1])
    with pytest.raises(ValueError, match=r"Corpus.*non-negative.*X has 1 negative entry"):
        Corpus(sp.csr_matrix([[1, -1]]), ["a", "b"])
    with pytest.raises(ValueError, match="must be 2-D"):
        Corpus(np.array([1, 2]), ["a", "b"])


def test_corpus_subset_and_label_strings(counts):
    X, vocab = counts
    c = Corpus(X, vocab, labels=[0, 1, 0, 1, 0], label_names=["x", "y"], texts=list("abcde"))
    sub = c.subset([3, 1])
    assert sub.X.toarray().tolist() == [X.toarray()[3].tolist(), X.toarray()[1].tolist()]
    assert sub.texts == ["d", "b"]
    assert sub.label_strings() == ["y", "y"]
    assert "n_labels=2" in repr(c)


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"labels": [2, 0, 1, 0, 2], "label_names": ["neg", "pos", "mixed"]},
        {"labels": ["b", "a", "b", "é", "a"]},
        {"texts": ["", "naïve text\nwith lines", "x", "日本語", " "], "doc_ids": list("vwxyz")},
    ],
)
def test_corpus_save_load_round_trip(tmp_path, counts, extra):
    X, vocab = counts
    c = Corpus(X, vocab, name="tiny", description="A tiny corpus.", **extra)
    path = tmp_path / "corpus.bin"  # no .npz suffix: written exactly at path
    c.save(path)
    assert _listing(tmp_path) == ["corpus.bin"]
    d = Corpus.load(path)
    assert (d.X != c.X).nnz == 0 and d.X.shape == c.X.shape and d.X.dtype == c.X.dtype
    assert d.vocabulary == vocab
    assert (d.name, d.description) == ("tiny", "A tiny corpus.")
    assert d.texts == c.texts and d.doc_ids == c.doc_ids and d.label_names == c.label_names
    if c.labels is None:
        assert d.labels is None
    else:
        assert list(d.labels) == list(c.labels)


def test_corpus_save_is_atomic(tmp_path, corpus, monkeypatch):
    path = tmp_path / "corpus.npz"
    path.write_bytes(b"old content")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        corpus.save(path)
    assert _listing(tmp_path) == ["corpus.npz"]
    assert path.read_bytes() == b"old content"


def test_corpus_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="path .*missing.npz' does not exist"):
        Corpus.load(tmp_path / "missing.npz")
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    with pytest.raises(ValueError, match="not a topicvb corpus"):
        Corpus.load(other)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="could not read .*garbage.npz' as a .npz file"):
        Corpus.load(garbage)


def test_text_options_are_kept_checked_and_optional(tmp_path, counts):
    X, vocab = counts
    options = {"stop_words": "english", "stem": "porter", "phrases": False, "clean_email": False}
    c = Corpus(X=X, vocabulary=vocab, text_options=options)
    c.save(tmp_path / "c.npz")
    assert Corpus.load(tmp_path / "c.npz").text_options == options
    assert c.subset([0, 1]).text_options == options and c.subset([0, 1]).text_options is not c.text_options
    plain = Corpus(X=X, vocabulary=vocab)
    plain.save(tmp_path / "p.npz")  # (and files written before the record: none)
    assert Corpus.load(tmp_path / "p.npz").text_options is None
    for bad in (["stem"], {"stem": ["porter"]}, {1: "x"}):
        with pytest.raises(TypeError, match="Corpus text_options must"):
            Corpus(X=X, vocabulary=vocab, text_options=bad)


def test_corpus_texts_must_be_strings(counts):
    # A None text was accepted and Corpus.save then failed with an AttributeError.
    X, vocab = counts
    with pytest.raises(TypeError, match=r"Corpus texts must be str .*; texts\[2\] is NoneType: None"):
        Corpus(X, vocab, texts=["a", "b", None, "d", "e"])
    with pytest.raises(TypeError, match=r"texts\[0\] is bytes: b'a'"):
        Corpus(X, vocab, texts=[b"a", "b", "c", "d", "e"])
    assert Corpus(X, vocab, texts=np.array(list("abcde"))).texts == list("abcde")


@pytest.mark.parametrize(
    ("labels", "match"),
    [
        ([1, None, 2, 3, 4], r"labels\[1\] is NoneType: None"),
        (np.array([1, "a", 2, "b", 3], dtype=object), r"labels\[0\] is int: 1"),
        (np.array([b"a", b"b", b"a", b"b", b"a"]), r"got an array of dtype \|S1"),
        (np.array([2**70, 1, 2, 3, 4], dtype=object), "integers beyond 64 bits"),
    ],
    ids=["none", "mixed", "bytes", "huge-int"],
)
def test_corpus_save_refuses_labels_it_cannot_store_faithfully(tmp_path, counts, labels, match):
    # [1, None, 2] was saved as strings and loaded back as ['1', 'None', '2'].
    X, vocab = counts
    path = tmp_path / "c.npz"
    with pytest.raises(TypeError, match=r"Corpus.save stores labels that are numbers \(bool, int, float\) or "
                                        r"strings.*" + match):
        Corpus(X, vocab, labels=labels).save(path)
    assert _listing(tmp_path) == []


@pytest.mark.parametrize(
    ("labels", "dtype_kind"),
    [
        ([3, 1, 2, 3, 1], "i"),
        (np.array([3, 1, 2, 3, 1], dtype=np.uint8), "u"),
        ([0.5, 1.0, 2.0, np.nan, 1.0], "f"),
        ([True, False, True, True, False], "b"),
        (["b", "a", "b", "é", "a"], "O"),
        (np.array(["b", "a", "b", "é", "a"], dtype=object), "O"),
        (np.array([3, 1, 2, 3, 1], dtype=object), "i"),
        (np.ones((5, 2)), "f"),
    ],
)
def test_corpus_save_keeps_the_supported_label_kinds(tmp_path, counts, labels, dtype_kind):
    X, vocab = counts
    c = Corpus(X, vocab, labels=labels)
    c.save(tmp_path / "c.npz")
    d = Corpus.load(tmp_path / "c.npz")
    assert d.labels.dtype.kind == dtype_kind
    assert d.labels.shape == np.shape(labels)
    assert np.array_equal(d.labels, np.asarray(labels), equal_nan=dtype_kind == "f")
    d.save(tmp_path / "again.npz")  # (loaded string labels are an object array of str)
    assert np.array_equal(Corpus.load(tmp_path / "again.npz").labels, d.labels, equal_nan=dtype_kind == "f")
