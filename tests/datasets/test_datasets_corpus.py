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
