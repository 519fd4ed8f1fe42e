"""Tests of topicvb.datasets: Corpus, readers and writers, 20 Newsgroups, NLTK, synthetic and built-in corpora."""

from __future__ import annotations

import gzip
import io
import json
import logging
import re
import tarfile
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from topicvb import datasets
from topicvb.datasets import (
    Corpus,
    SyntheticCorpus,
    _bow,
    collect_docstrings,
    find_corpora_dir,
    load_20newsgroups,
    load_builtin_corpus,
    make_lda_corpus,
    nltk_corpus,
    read_csv,
    read_jsonl,
    read_ldac,
    read_matrix_market,
    read_text_dir,
    read_uci,
    write_ldac,
    write_uci,
)

CORPORA = find_corpora_dir()


def _shared(*parts) -> Path:
    """Path of a shared corpus file, skipping the test when it is not there."""
    if CORPORA is None:
        pytest.skip(
            "No shared corpora folder (set TOPICVB_CORPORA to the folder holding uci-kos/, 20news-bydate/, ...)."
        )
    path = CORPORA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"Shared corpus file {path} is absent.")
    return path


def _have_text_vectorizer() -> bool:
    try:
        from topicvb.text import Vectorizer  # noqa: F401
    except ImportError:
        return False
    return True


needs_text = pytest.mark.skipif(not _have_text_vectorizer(), reason="topicvb.text.Vectorizer is not available yet.")


@pytest.fixture
def stub_vectorizer():
    """A fast, known vectorizer, so reader tests do not depend on topicvb.text."""
    return CountVectorizer(token_pattern=r"(?u)\b\w+\b")


@pytest.fixture
def counts():
    """Counts with empty documents at the start, middle and end, and an unused term."""
    X = np.array(
        [
            [0, 0, 0, 0, 0],
            [1, 0, 3, 0, 0],
            [0, 0, 0, 0, 0],
            [2, 5, 0, 0, 1],
            [0, 0, 0, 0, 0],
        ]
    )
    return sp.csr_matrix(X), ["alpha", "beta", "café", "unused term", "z"]


@pytest.fixture
def corpus(counts):
    X, vocab = counts
    return Corpus(X, vocab, doc_ids=[f"d{i}" for i in range(5)], name="tiny")


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------- Corpus


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


# --------------------------------------------------------------------------- UCI


def _write(path: Path, text: str) -> Path:
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_uci_handwritten(tmp_path, suffix):
    docword = _write(tmp_path / f"docword.txt{suffix}", "3\n4\n4\n1 1 2\n1 4 1\n3 2 5\n3 3 1\n")
    vocab = _write(tmp_path / f"vocab.txt{suffix}", "apple\nbanana\ncherry\ndate\n")
    c = read_uci(docword, vocab)
    assert c.X.toarray().tolist() == [[2, 0, 0, 1], [0, 0, 0, 0], [0, 5, 1, 0]]
    assert c.vocabulary == ["apple", "banana", "cherry", "date"]
    assert c.X.dtype == np.int64


def test_read_uci_without_vocabulary_and_crlf(tmp_path):
    docword = _write(tmp_path / "docword.txt", "1\r\n2\r\n1\r\n1 2 7\r\n")
    c = read_uci(docword)
    assert c.vocabulary == ["w0000", "w0001"]
    assert c.X.toarray().tolist() == [[0, 7]]


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_uci_round_trip(tmp_path, corpus, suffix):
    docword, vocab = tmp_path / f"docword.txt{suffix}", tmp_path / f"vocab.txt{suffix}"
    write_uci(corpus, docword_path=docword, vocab_path=vocab)
    assert _listing(tmp_path) == sorted([docword.name, vocab.name])
    assert (docword.read_bytes()[:2] == b"\x1f\x8b") == (suffix == ".gz")
    back = read_uci(docword, vocab)
    assert back.X.shape == corpus.X.shape
    assert (back.X != corpus.X).nnz == 0
    assert back.vocabulary == corpus.vocabulary
    if not suffix:
        assert docword.read_text().splitlines()[:4] == ["5", "5", "5", "2 1 1"]


def test_uci_write_from_matrix_with_positional_vocabulary(tmp_path, counts):
    X, vocab = counts
    write_uci(X.astype(np.float64), vocab, tmp_path / "d.txt", tmp_path / "v.txt")
    back = read_uci(tmp_path / "d.txt", tmp_path / "v.txt")
    assert np.array_equal(back.X.toarray(), X.toarray())


def test_uci_reader_streams_chunks(tmp_path, corpus, monkeypatch):
    write_uci(corpus, docword_path=tmp_path / "d.txt", vocab_path=tmp_path / "v.txt")
    monkeypatch.setattr(_bow, "_CHUNK_BYTES", 8)  # a few lines per chunk
    back = read_uci(tmp_path / "d.txt", tmp_path / "v.txt")
    assert (back.X != corpus.X).nnz == 0
    lines = (tmp_path / "d.txt").read_text().splitlines()
    lines[7] = "4 9 1"  # last data line, in a later chunk: wordID out of range
    (tmp_path / "d.txt").write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"line 8: wordID must be between 1 and W=5, got '4 9 1'"):
        read_uci(tmp_path / "d.txt", tmp_path / "v.txt")


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("", r"ends before line 1; expected the number of documents D"),
        ("2\n3\n", r"ends before line 3; expected the number of data lines NNZ"),
        (
            "2\nthree\n1\n1 1 1\n",
            r"line 2: expected the vocabulary size W as a single non-negative integer, got 'three'",
        ),
        ("2\n3\n-1\n", r"line 3: expected the number of data lines NNZ as a single non-negative integer"),
        ("2\n3\n2\n1 1 1\n1 2\n", r"line 5: expected 'docID wordID count' \(three integers\), got '1 2'"),
        ("2\n3\n2\n1 1 1\n1 2 x\n", r"line 5: expected 'docID wordID count' \(three integers\), got '1 2 x'"),
        ("2\n3\n2\n1 1 1 1\n1 2 1 1\n", r"line 4: expected 'docID wordID count' \(three integers\), got '1 1 1 1'"),
        ("2\n3\n2\n1 1 1\n3 2 1\n", r"line 5: docID must be between 1 and D=2, got '3 2 1'"),
        ("2\n3\n2\n1 1 1\n2 0 1\n", r"line 5: wordID must be between 1 and W=3, got '2 0 1'"),
        ("2\n3\n2\n1 1 -4\n2 1 1\n", r"line 4: count must be non-negative, got '1 1 -4'"),
        ("2\n3\n3\n1 1 1\n2 1 1\n", r"header says NNZ=3 data lines, but the file has 2"),
        ("2\n3\n1\n1 1 1\n2 1 1\n", r"header says NNZ=1 data lines, but the file has 2"),
        ("0\n3\n0\n", r"describes an empty corpus \(D=0 documents, W=3 terms\)"),
    ],
)
def test_read_uci_errors(tmp_path, content, match):
    path = _write(tmp_path / "docword.txt", content)
    with pytest.raises(ValueError, match=match):
        read_uci(path)


def test_read_uci_file_errors(tmp_path):
    docword = _write(tmp_path / "docword.txt", "1\n3\n1\n1 1 1\n")
    with pytest.raises(FileNotFoundError, match=r"docword_path '.*nope.txt' does not exist"):
        read_uci(tmp_path / "nope.txt")
    with pytest.raises(FileNotFoundError, match=r"vocab_path '.*nope.txt' does not exist"):
        read_uci(docword, tmp_path / "nope.txt")
    with pytest.raises(ValueError, match=r"docword_path '.*' is a folder; expected a file"):
        read_uci(tmp_path)
    vocab = _write(tmp_path / "vocab.txt", "a\nb\n")
    with pytest.raises(ValueError, match=r"vocab_path '.*vocab.txt' has 2 terms, but the header of .* says W=3"):
        read_uci(docword, vocab)
    bad_vocab = tmp_path / "latin1.txt"
    bad_vocab.write_bytes(b"a\nb\n\xe9t\xe9\n")
    with pytest.raises(ValueError, match=r"is not valid utf-8 text .*pass the right encoding="):
        read_uci(docword, bad_vocab)
    assert read_uci(docword, bad_vocab, encoding="latin-1").vocabulary == ["a", "b", "été"]


def test_read_uci_sums_duplicates(tmp_path, caplog):
    path = _write(tmp_path / "docword.txt", "1\n2\n3\n1 1 1\n1 1 2\n1 2 0\n")
    with caplog.at_level(logging.WARNING, logger="topicvb.datasets"):
        c = read_uci(path)
    assert c.X.toarray().tolist() == [[3, 0]]
    assert c.X.nnz == 1
    assert "1 duplicate (docID, wordID) pairs were summed" in caplog.text


def test_read_uci_kos():
    docword = _shared("uci-kos", "docword.kos.txt.gz")
    vocab = _shared("uci-kos", "vocab.kos.txt.gz")
    c = read_uci(docword, vocab)
    assert c.X.shape == (3430, 6906)
    assert c.X.nnz == 353160
    assert c.n_tokens == 467714
    assert len(set(c.vocabulary)) == 6906
    lengths = c.doc_lengths
    assert (lengths.min(), lengths.max()) == (25, 670)


# --------------------------------------------------------------------------- LDA-C


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_ldac_round_trip(tmp_path, corpus, suffix):
    dat, vocab = tmp_path / f"corpus.dat{suffix}", tmp_path / f"vocab.txt{suffix}"
    write_ldac(corpus, path=dat, vocab_path=vocab)
    if not suffix:
        assert dat.read_text().splitlines() == ["0", "2 0:1 2:3", "0", "3 0:2 1:5 4:1", "0"]
    back = read_ldac(dat, vocab)
    assert back.X.shape == corpus.X.shape
    assert (back.X != corpus.X).nnz == 0
    assert back.vocabulary == corpus.vocabulary


def test_read_ldac_without_vocabulary(tmp_path):
    dat = _write(tmp_path / "c.dat", "2 0:1 3:2\n0\n1 1:4\n")
    c = read_ldac(dat)
    assert c.X.toarray().tolist() == [[1, 0, 0, 2], [0, 0, 0, 0], [0, 4, 0, 0]]
    assert c.vocabulary == ["w0000", "w0001", "w0002", "w0003"]
    assert read_ldac(dat, n_terms=6).X.shape == (3, 6)
    trailing = _write(tmp_path / "t.dat", "1 0:1\n\n  \n")
    assert read_ldac(trailing).X.shape == (1, 1)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (
            "1 0:1\n\n1 1:1\n",
            r"line 2 is blank; expected 'M id:count id:count \.\.\.'.*Write '0' for an empty document",
        ),
        ("2 0:1\n", r"line 1: the leading count M=2 disagrees with the 1 id:count pairs that follow"),
        ("1 0:1\n1 2-1\n", r"line 2: expected 'M id:count id:count \.\.\.' .*got '1 2-1'"),
        ("1 0:1:2\n", r"line 1: expected 'M id:count"),
        ("x 0:1\n", r"line 1: expected 'M id:count"),
        ("1 a:1\n", r"line 1: expected 'M id:count"),
        (
            "1 0:1\n2 0:1 3:1\n",
            r"line 2: term id 3 is out of range; 0-based ids must be between 0 and 2 \(3 terms in vocab_path\)",
        ),
        ("1 -1:1\n", r"line 1: term id -1 is out of range"),
        ("1 0:-2\n", r"line 1: counts must be non-negative, got -2"),
        ("", r"is empty; expected one line 'M id:count \.\.\.' per document"),
    ],
)
def test_read_ldac_errors(tmp_path, content, match):
    dat = _write(tmp_path / "c.dat", content)
    vocab = _write(tmp_path / "vocab.txt", "a\nb\nc\n")
    with pytest.raises(ValueError, match=match):
        read_ldac(dat, vocab)


def test_read_ldac_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"path '.*ap.dat' does not exist"):
        read_ldac(tmp_path / "ap.dat")


def test_read_ldac_ap_corpus(tmp_path):
    archive = _shared("ap-blei", "ap.tgz")
    with tarfile.open(archive) as tar:
        for member in ("ap/ap.dat", "ap/vocab.txt"):
            (tmp_path / Path(member).name).write_bytes(tar.extractfile(member).read())
    c = read_ldac(tmp_path / "ap.dat", tmp_path / "vocab.txt")
    assert c.X.shape == (2246, 10473)
    assert c.X.nnz == 302031
    assert c.n_tokens == 435838


# --------------------------------------------------------------------------- writers: checks and atomicity


def test_writers_leave_nothing_when_they_fail(tmp_path, corpus, monkeypatch):
    (tmp_path / "docword.txt").write_text("previous\n")

    def broken(f, vocabulary):
        f.write("partial\n")
        raise RuntimeError("interrupted")

    # The docword file is complete by then; the vocabulary write fails half-way.
    monkeypatch.setattr(_bow, "_write_vocabulary", broken)
    with pytest.raises(RuntimeError, match="interrupted"):
        write_uci(corpus, docword_path=tmp_path / "docword.txt", vocab_path=tmp_path / "vocab.txt")
    with pytest.raises(RuntimeError, match="interrupted"):
        write_ldac(corpus, path=tmp_path / "c.dat.gz", vocab_path=tmp_path / "vocab.txt")
    assert _listing(tmp_path) == ["docword.txt"]
    assert (tmp_path / "docword.txt").read_text() == "previous\n"


def test_writer_input_errors(tmp_path, counts):
    X, vocab = counts
    out = tmp_path / "d.txt"
    with pytest.raises(ValueError, match="write_uci writes integer term counts; X has 1 non-integer entries"):
        write_uci(sp.csr_matrix([[0.5, 1.0]]), ["a", "b"], out)
    with pytest.raises(ValueError, match="write_ldac expects non-negative term counts; X has 1 negative entries"):
        write_ldac(sp.csr_matrix([[-1, 1]]), ["a", "b"], out)
    with pytest.raises(ValueError, match="write_uci: vocabulary has 4 terms, but X has 5 columns"):
        write_uci(X, vocab[:4], out)
    with pytest.raises(ValueError, match=r"must not contain line breaks .*'a\\nb'"):
        write_uci(sp.csr_matrix([[1, 1]]), ["a\nb", "c"], out, tmp_path / "v.txt")
    with pytest.raises(TypeError, match="write_uci needs docword_path"):
        write_uci(X, vocab)
    with pytest.raises(ValueError, match="got vocab_path but no vocabulary"):
        write_ldac(X, None, out, tmp_path / "v.txt")
    with pytest.raises(FileNotFoundError, match="folder .*no_such_dir' does not exist"):
        write_uci(X, vocab, tmp_path / "no_such_dir" / "d.txt")
    with pytest.raises(ValueError, match=r"write_uci received an empty corpus of shape \(0, 5\)"):
        write_uci(X[:0], vocab, out)
    assert not out.exists()


# --------------------------------------------------------------------------- MatrixMarket


@pytest.mark.parametrize("compress", [False, True])
def test_read_matrix_market(tmp_path, counts, compress):
    X, vocab = counts
    buf = io.BytesIO()
    scipy.io.mmwrite(buf, X.astype(np.float64))
    path = tmp_path / ("m.mtx.gz" if compress else "m.mtx")
    path.write_bytes(gzip.compress(buf.getvalue()) if compress else buf.getvalue())
    vocab_path = _write(tmp_path / "vocab.txt", "".join(t + "\n" for t in vocab))
    c = read_matrix_market(path, vocab_path)
    assert c.X.dtype == np.int64
    assert np.array_equal(c.X.toarray(), X.toarray())
    assert c.vocabulary == vocab


def test_read_matrix_market_transpose_and_errors(tmp_path):
    XT = sp.csr_matrix(np.array([[1, 0], [2, 3], [0, 1]]))  # 3 terms x 2 docs
    path = tmp_path / "m.mtx"
    scipy.io.mmwrite(path, XT)
    vocab = _write(tmp_path / "vocab.txt", "a\nb\nc\n")
    with pytest.raises(ValueError, match=r"has 3 terms, but the matrix in .* has 2 columns.*transpose=True"):
        read_matrix_market(path, vocab)
    c = read_matrix_market(path, vocab, transpose=True)
    assert c.X.toarray().tolist() == [[1, 2, 0], [0, 3, 1]]
    neg = tmp_path / "neg.mtx"
    scipy.io.mmwrite(neg, sp.csr_matrix(np.array([[1, -2]])))
    with pytest.raises(ValueError, match="it has 1 negative entries"):
        read_matrix_market(neg)
    bad = _write(tmp_path / "bad.mtx", "this is not matrix market\n")
    with pytest.raises(ValueError, match=r"Could not read path '.*bad.mtx' as MatrixMarket"):
        read_matrix_market(bad)
    empty = tmp_path / "empty.mtx"
    scipy.io.mmwrite(empty, sp.csr_matrix((0, 3)))
    with pytest.raises(ValueError, match=r"holds an empty matrix of shape \(0, 3\)"):
        read_matrix_market(empty)
    real = tmp_path / "real.mtx"
    scipy.io.mmwrite(real, sp.csr_matrix(np.array([[0.5, 1.0]])))
    assert read_matrix_market(real).X.dtype == np.float64


# --------------------------------------------------------------------------- text readers


@pytest.fixture
def text_dir(tmp_path):
    root = tmp_path / "reviews"
    (root / "pos").mkdir(parents=True)
    (root / "neg").mkdir()
    (root / ".git").mkdir()
    (root / "pos" / "a.txt").write_text("good great film")
    (root / "pos" / "b.txt").write_text("great acting")
    (root / "neg" / "c.txt").write_bytes(b"bad \xff\xfe film")
    (root / "neg" / "notes.md").write_text("ignored by pattern")
    (root / "pos" / ".hidden.txt").write_text("hidden")
    (root / ".git" / "x.txt").write_text("hidden folder")
    return root


def test_read_text_dir(text_dir, stub_vectorizer, caplog):
    with caplog.at_level(logging.WARNING, logger="topicvb.datasets"):
        c = read_text_dir(text_dir, vectorizer=stub_vectorizer, pattern="*.txt")
    assert c.doc_ids == ["neg/c.txt", "pos/a.txt", "pos/b.txt"]
    assert c.label_names == ["neg", "pos"]
    assert c.labels.tolist() == [0, 1, 1]
    assert c.texts[0] == "bad \ufffd\ufffd film"
    assert "1 of 3 files" in caplog.text
    assert c.vocabulary == ["acting", "bad", "film", "good", "great"]
    assert c.X.sum() == 7
    assert c.name == "reviews"
    every = read_text_dir(text_dir, vectorizer=stub_vectorizer)
    assert every.doc_ids == ["neg/c.txt", "neg/notes.md", "pos/a.txt", "pos/b.txt"]


def test_read_text_dir_flat_has_no_labels(tmp_path, stub_vectorizer):
    (tmp_path / "1.txt").write_text("one two")
    (tmp_path / "2.txt").write_text("two three", encoding="latin-1")
    c = read_text_dir(tmp_path, vectorizer=stub_vectorizer)
    assert c.labels is None and c.label_names is None
    assert c.doc_ids == ["1.txt", "2.txt"]


def test_read_text_dir_errors(tmp_path, stub_vectorizer):
    with pytest.raises(FileNotFoundError, match=r"read_text_dir: folder '.*nowhere' does not exist"):
        read_text_dir(tmp_path / "nowhere", vectorizer=stub_vectorizer)
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(ValueError, match=r"expects a folder, but '.*f.txt' is a file"):
        read_text_dir(tmp_path / "f.txt", vectorizer=stub_vectorizer)
    with pytest.raises(ValueError, match=r"found no files matching pattern '\*.csv' under"):
        read_text_dir(tmp_path, vectorizer=stub_vectorizer, pattern="*.csv")
    with pytest.raises(TypeError, match="vectorizer must have a fit_transform"):
        read_text_dir(tmp_path, vectorizer=object())


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_csv(tmp_path, stub_vectorizer, suffix):
    content = 'id,text,label\n7,"first doc, with a comma",spam\n8,"second\ndoc",ham\n\n9,third,spam\n'
    path = _write(tmp_path / f"docs.csv{suffix}", content)
    c = read_csv(path, "text", "label", id_column="id", vectorizer=stub_vectorizer)
    assert c.texts == ["first doc, with a comma", "second\ndoc", "third"]
    assert c.doc_ids == ["7", "8", "9"]
    assert c.label_strings() == ["spam", "ham", "spam"]
    assert c.n_docs == 3
    by_index = read_csv(path, 1, vectorizer=stub_vectorizer)
    assert by_index.texts == c.texts and by_index.labels is None


def test_read_csv_tsv_without_header(tmp_path, stub_vectorizer):
    path = _write(tmp_path / "docs.tsv", "a\tone text\nb\tanother text\n")
    c = read_csv(path, 1, 0, delimiter="\t", header=False, vectorizer=stub_vectorizer)
    assert c.texts == ["one text", "another text"]
    assert c.label_strings() == ["a", "b"]


def test_read_csv_errors(tmp_path, stub_vectorizer):
    path = _write(tmp_path / "docs.csv", "text,label\nhello,x\nworld\n")
    with pytest.raises(
        ValueError, match=r"text_column='body' is not a column of .*its columns are \['text', 'label'\]"
    ):
        read_csv(path, "body", vectorizer=stub_vectorizer)
    with pytest.raises(ValueError, match=r"line 3 has 1 fields; expected at least 2"):
        read_csv(path, "text", "label", vectorizer=stub_vectorizer)
    with pytest.raises(ValueError, match=r"label_column=5 is out of range; .* has 2 columns"):
        read_csv(path, "text", 5, vectorizer=stub_vectorizer)
    with pytest.raises(ValueError, match=r"is a column name, but header=False"):
        read_csv(path, "text", header=False, vectorizer=stub_vectorizer)
    empty = _write(tmp_path / "empty.csv", "")
    with pytest.raises(ValueError, match=r"'.*empty.csv' is empty; expected a header row"):
        read_csv(empty, "text", vectorizer=stub_vectorizer)
    header_only = _write(tmp_path / "header.csv", "text,label\n")
    with pytest.raises(ValueError, match=r"'.*header.csv' has no data rows"):
        read_csv(header_only, "text", vectorizer=stub_vectorizer)
    with pytest.raises(FileNotFoundError, match=r"path '.*missing.csv' does not exist"):
        read_csv(tmp_path / "missing.csv", "text", vectorizer=stub_vectorizer)


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_jsonl(tmp_path, stub_vectorizer, suffix):
    rows = [{"id": 1, "body": "alpha beta", "stars": 5}, {"id": 2, "body": "beta gamma", "stars": 1}]
    content = (
        "\n".join(json.dumps(r) for r in rows) + "\n\n" + json.dumps({"id": 3, "body": "日本 text", "stars": 5}) + "\n"
    )
    path = _write(tmp_path / f"docs.jsonl{suffix}", content)
    c = read_jsonl(path, "body", "stars", id_field="id", vectorizer=stub_vectorizer)
    assert c.texts == ["alpha beta", "beta gamma", "日本 text"]
    assert c.doc_ids == ["1", "2", "3"]
    assert c.label_names == [1, 5]
    assert c.labels.tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ('{"text": "a"}\n{"text": "b"\n', r"line 2 is not valid JSON"),
        ('{"text": "a"}\n["text"]\n', r"line 2: expected a JSON object, got list"),
        ('{"text": "a"}\n{"body": "b"}\n', r"line 2 has no field 'text'; its fields are \['body'\]"),
        ('{"text": 3}\n', r"line 1: field 'text' must be a string, got int"),
        ("\n\n", r"has no documents"),
    ],
)
def test_read_jsonl_errors(tmp_path, stub_vectorizer, content, match):
    path = _write(tmp_path / "docs.jsonl", content)
    with pytest.raises(ValueError, match=match):
        read_jsonl(path, "text", vectorizer=stub_vectorizer)


@needs_text
def test_text_readers_default_vectorizer(text_dir):
    c = read_text_dir(text_dir, pattern="*.txt")
    assert c.n_docs == 3
    assert c.X.shape[1] == len(c.vocabulary) > 0
    assert "great" in c.vocabulary


# --------------------------------------------------------------------------- 20 Newsgroups

_POSTS = {
    ("train", "sci.space", "101"): "From: a@b\nSubject: orbit\n\nThe orbit of the moon.\n> quoted line\n--\nsig text\n",
    ("train", "rec.autos", "55"): "From: c@d\nSubject: cars\n\nFast red cars \xe9\n",
    ("train", "rec.autos", "7"): "From: e@f\nSubject: engines\n\nEngines and wheels\n",
    ("test", "sci.space", "300"): "From: g@h\nSubject: rockets\n\nRockets to orbit\n",
}


def _make_20ng(tmp_path: Path, as_tar: bool) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    if as_tar:
        with tarfile.open(home / "20news-bydate.tar.gz", "w:gz") as tar:
            for (split, group, name), text in _POSTS.items():
                data = text.encode("latin-1")
                info = tarfile.TarInfo(f"20news-bydate-{split}/{group}/{name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    else:
        for (split, group, name), text in _POSTS.items():
            folder = home / "20news-bydate" / f"20news-bydate-{split}" / group
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(text.encode("latin-1"))
    return home


@pytest.fixture
def no_shared_corpora(monkeypatch, tmp_path):
    """Hide the shared corpora and scikit-learn's data folder, so only data_home is searched."""
    monkeypatch.setenv("TOPICVB_CORPORA", "")
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "sklearn_home"))


@pytest.mark.parametrize("as_tar", [True, False])
def test_load_20newsgroups_local_copy(tmp_path, stub_vectorizer, no_shared_corpora, as_tar):
    home = _make_20ng(tmp_path, as_tar)
    c = load_20newsgroups("train", data_home=home, vectorizer=stub_vectorizer)
    assert c.doc_ids == ["train/rec.autos/55", "train/rec.autos/7", "train/sci.space/101"]
    assert c.label_names == ["rec.autos", "sci.space"]
    assert c.labels.tolist() == [0, 0, 1]
    assert "Fast red cars \xe9" in c.texts[0]
    assert c.name == "20newsgroups-train"
    both = load_20newsgroups("all", data_home=home, vectorizer=stub_vectorizer)
    assert both.doc_ids[-1] == "test/sci.space/300" and both.n_docs == 4
    only = load_20newsgroups("all", data_home=home, vectorizer=stub_vectorizer, categories=["sci.space"])
    assert only.doc_ids == ["train/sci.space/101", "test/sci.space/300"]


def test_load_20newsgroups_remove_and_env(tmp_path, stub_vectorizer, monkeypatch):
    home = _make_20ng(tmp_path, as_tar=True)
    monkeypatch.setenv("TOPICVB_CORPORA", str(home))
    c = load_20newsgroups("train", vectorizer=stub_vectorizer, remove=("headers", "footers", "quotes"))
    space = c.texts[c.doc_ids.index("train/sci.space/101")]
    assert space == "The orbit of the moon."
    assert "Subject" not in " ".join(c.texts)


def test_load_20newsgroups_errors(tmp_path, stub_vectorizer, no_shared_corpora):
    with pytest.raises(ValueError, match=r"subset must be one of \{'all', 'test', 'train'\}, got 'dev'"):
        load_20newsgroups("dev")
    with pytest.raises(
        ValueError, match=r"remove may contain only \['footers', 'headers', 'quotes'\], got \['signatures'\]"
    ):
        load_20newsgroups(remove=("signatures",))
    home = _make_20ng(tmp_path, as_tar=True)
    with pytest.raises(ValueError, match=r"categories has unknown newsgroups \['sci.med'\]"):
        load_20newsgroups(data_home=home, vectorizer=stub_vectorizer, categories=["sci.med"])
    empty = tmp_path / "empty_home"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"found no local copy of 20news-bydate"):
        load_20newsgroups(data_home=empty, vectorizer=stub_vectorizer, download_if_missing=False)


def test_load_20newsgroups_shared_copy():
    _shared("20news-bydate", "20news-bydate.tar.gz")

    class Lengths:
        """A near-free vectorizer: one column holding each post's length in characters."""

        def fit_transform(self, texts):
            return sp.csr_matrix(np.array([[len(t)] for t in texts]))

        def get_feature_names_out(self):
            return np.array(["length"])

    c = load_20newsgroups("train", vectorizer=Lengths())
    assert c.n_docs == 11314
    assert len(c.label_names) == 20
    counts = dict(zip(c.label_names, np.bincount(c.labels)))
    assert counts["alt.atheism"] == 480 and counts["talk.religion.misc"] == 377
    assert len(set(c.doc_ids)) == c.n_docs


# --------------------------------------------------------------------------- NLTK


def test_nltk_corpus_missing_data_names_download(tmp_path, monkeypatch):
    import nltk.data

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(FileNotFoundError, match=r"nltk\.download\('movie_reviews'\)"):
        nltk_corpus("movie_reviews")
    with pytest.raises(ValueError, match=r"name='not_a_corpus' is not a corpus of nltk.corpus"):
        nltk_corpus("not_a_corpus")


def test_nltk_corpus_from_reader(tmp_path, stub_vectorizer, monkeypatch):
    import nltk.data
    from nltk.corpus.reader import CategorizedPlaintextCorpusReader

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])  # NLTK reads only below its data paths

    for cat, name, text in [("neg", "n1.txt", "dull plot"), ("pos", "p1.txt", "fine plot"), ("pos", "p2.txt", "fun")]:
        (tmp_path / cat).mkdir(exist_ok=True)
        (tmp_path / cat / name).write_text(text)
    reader = CategorizedPlaintextCorpusReader(str(tmp_path), r"(neg|pos)/.*\.txt", cat_pattern=r"(neg|pos)/.*")
    c = nltk_corpus(reader, vectorizer=stub_vectorizer)
    assert c.doc_ids == ["neg/n1.txt", "pos/p1.txt", "pos/p2.txt"]
    assert c.label_strings() == ["neg", "pos", "pos"]
    assert c.texts == ["dull plot", "fine plot", "fun"]


# --------------------------------------------------------------------------- find_corpora_dir


def test_find_corpora_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPICVB_CORPORA", str(tmp_path))
    assert find_corpora_dir() == tmp_path
    monkeypatch.setenv("TOPICVB_CORPORA", str(tmp_path / "missing"))
    assert find_corpora_dir() is None
    monkeypatch.delenv("TOPICVB_CORPORA")
    found = find_corpora_dir()
    assert found is None or (found.is_dir() and found.name == "corpora")


# --------------------------------------------------------------------------- synthetic LDA corpora


def test_make_lda_corpus_shapes_and_normalisation():
    result = make_lda_corpus(300, 80, 4, random_state=0)
    assert isinstance(result, SyntheticCorpus)
    corpus, topic_word, doc_topic = result
    assert corpus.X.shape == (300, 80) and corpus.X.dtype == np.int64
    assert topic_word.shape == (4, 80) and doc_topic.shape == (300, 4)
    np.testing.assert_allclose(topic_word.sum(axis=1), 1.0)
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0)
    assert corpus.vocabulary[:2] == ["w0000", "w0001"]
    assert (topic_word >= 0).all() and (doc_topic >= 0).all()


def test_make_lda_corpus_is_deterministic():
    a = make_lda_corpus(200, 50, 3, random_state=7)
    b = make_lda_corpus(200, 50, 3, random_state=7)
    c = make_lda_corpus(200, 50, 3, random_state=8)
    assert (a.corpus.X != b.corpus.X).nnz == 0
    np.testing.assert_array_equal(a.topic_word, b.topic_word)
    np.testing.assert_array_equal(a.doc_topic, b.doc_topic)
    assert (a.corpus.X != c.corpus.X).nnz > 0
    gen = make_lda_corpus(10, 5, 2, random_state=np.random.default_rng(1))
    assert gen.corpus.n_docs == 10


def test_make_lda_corpus_doc_lengths():
    corpus = make_lda_corpus(4000, 100, 5, doc_length=60, random_state=0).corpus
    assert abs(corpus.doc_lengths.mean() - 60) < 1.0
    ranged = make_lda_corpus(500, 100, 5, doc_length=(10, 20), random_state=0).corpus
    assert ranged.doc_lengths.min() >= 10 and ranged.doc_lengths.max() <= 20
    assert set(np.unique(ranged.doc_lengths)) == set(range(10, 21))


def test_make_lda_corpus_counts_follow_the_model():
    corpus, topic_word, doc_topic = make_lda_corpus(3000, 40, 3, doc_length=200, random_state=1)
    expected = (corpus.doc_lengths[:, None] * doc_topic).sum(axis=0) @ topic_word
    observed = np.asarray(corpus.X.sum(axis=0)).ravel()
    np.testing.assert_allclose(observed, expected, rtol=0.05, atol=50)


def test_make_lda_corpus_asymmetric_prior_and_separation():
    alpha = np.array([5.0, 1.0, 1.0, 1.0])
    _, topic_word, doc_topic = make_lda_corpus(3000, 40, 4, doc_topic_prior=alpha, separated=True, random_state=0)
    np.testing.assert_allclose(doc_topic.mean(axis=0), alpha / alpha.sum(), atol=0.02)
    for k in range(4):
        assert topic_word[k, 10 * k : 10 * (k + 1)].sum() >= 0.9
    _, tw, _ = make_lda_corpus(100, 40, 4, separated=0.99, random_state=0)
    assert min(tw[k, 10 * k : 10 * (k + 1)].sum() for k in range(4)) >= 0.99


def test_make_lda_corpus_large_is_fast():
    corpus = make_lda_corpus(20000, 2000, 10, doc_length=50, random_state=0).corpus
    assert corpus.n_docs == 20000 and abs(corpus.doc_lengths.mean() - 50) < 0.5


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_topics": 0}, ValueError, "n_topics == 0, must be >= 1"),
        ({"n_docs": 2.5}, TypeError, "n_docs must be an instance of"),
        ({"doc_topic_prior": -1.0}, ValueError, "doc_topic_prior must be a positive finite number, got -1.0"),
        (
            {"doc_topic_prior": [1.0, 1.0]},
            ValueError,
            r"doc_topic_prior must be a positive number or a vector of length 3",
        ),
        ({"topic_word_prior": 0}, ValueError, "topic_word_prior must be a positive finite number"),
        ({"doc_length": -5}, ValueError, "doc_length must be a non-negative mean length"),
        ({"doc_length": (9, 3)}, ValueError, r"0 <= low <= high, got \(9, 3\)"),
        ({"doc_length": "long"}, TypeError, "doc_length must be a number"),
        ({"separated": 1.5}, ValueError, r"separated must be a bool or a fraction in \(0, 1\], got 1.5"),
        ({"separated": True, "n_terms": 2}, ValueError, "n_terms=2 < n_topics=3"),
        ({"random_state": "seed"}, TypeError, "random_state must be None, an int"),
    ],
)
def test_make_lda_corpus_errors(kwargs, error, match):
    args = {"n_docs": 10, "n_terms": 20, "n_topics": 3} | kwargs
    with pytest.raises(error, match=match):
        make_lda_corpus(args.pop("n_docs"), args.pop("n_terms"), args.pop("n_topics"), **args)


# --------------------------------------------------------------------------- built-in corpus


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TOPICVB_CACHE", str(folder))
    return folder


def test_collect_docstrings_small(cache_dir):
    texts, labels, ids = collect_docstrings(["json", "csv"], min_words=20)
    assert len(texts) >= 10
    assert set(labels) == {"csv", "json"}
    assert labels == sorted(labels)  # modules in sorted order
    assert "json" in ids and "json.dumps" in ids
    assert not any(line.lstrip().startswith(">>>") for t in texts for line in t.splitlines())
    assert len(set(texts)) == len(texts)
    assert all(len(re.findall(r"[A-Za-z]{2,}", t)) >= 20 for t in texts)
    again = collect_docstrings(["csv", "json"], min_words=20, cache=False)
    assert again == (texts, labels, ids)


def test_builtin_corpus_cache(cache_dir, monkeypatch, stub_vectorizer):
    first = load_builtin_corpus(stub_vectorizer, packages=["json"], min_words=20)
    assert len(list(cache_dir.glob("builtin-corpus-*.json.gz"))) == 1

    def fail(*args, **kwargs):
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(datasets._builtin, "_docstrings", fail)
    second = load_builtin_corpus(stub_vectorizer, packages=["json"], min_words=20)
    assert second.texts == first.texts and second.doc_ids == first.doc_ids
    assert second.label_names == ["json"] and second.name == "builtin-docstrings"
    assert (second.X != first.X).nnz == 0


def test_builtin_corpus_without_writable_cache(tmp_path, monkeypatch, stub_vectorizer):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TOPICVB_CACHE", str(blocker / "sub"))
    c = load_builtin_corpus(stub_vectorizer, packages=["json"], min_words=20)
    assert c.n_docs > 0


def test_builtin_corpus_limits(cache_dir, stub_vectorizer, caplog):
    c = load_builtin_corpus(stub_vectorizer, packages=["json", "csv"], min_words=20, max_docs=3)
    assert c.n_docs == 3
    cached = sorted(cache_dir.iterdir())
    with caplog.at_level(logging.WARNING, logger="topicvb.datasets"):
        partial = collect_docstrings(["json"], min_words=20, time_limit=0.0)
    assert partial == ([], [], [])
    assert "stopped after time_limit" in caplog.text
    assert sorted(cache_dir.iterdir()) == cached  # a partial result is not cached
    with pytest.raises(ValueError, match=r"found no docstrings with at least min_words=100000 words"):
        load_builtin_corpus(stub_vectorizer, packages=["json"], min_words=100_000)
    with pytest.raises(ValueError, match=r"packages must hold top-level module names or 'stdlib', got 'a b'"):
        load_builtin_corpus(stub_vectorizer, packages=["a b"])


@pytest.mark.slow
def test_builtin_corpus_full(cache_dir):
    texts, labels, ids = collect_docstrings()
    assert len(texts) >= 3000
    assert {"numpy", "json", "collections"} <= set(labels)
    assert not {"antigravity", "this", "tkinter", "idlelib"} & set(labels)
    assert not any(".tests." in q or q.startswith("test.") for q in ids)
    assert len(set(ids)) == len(ids)


@needs_text
def test_builtin_corpus_default_vectorizer(cache_dir):
    c = load_builtin_corpus(packages=["json", "csv"], min_words=20)
    assert c.n_docs > 10 and c.n_terms > 50
    assert c.X.shape == (len(c.texts), len(c.vocabulary))


# --------------------------------------------------------------------------- corpora/ fixtures and recipes

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "corpora" / "tiny"
RECIPES = REPO / "corpora" / "recipes"


def _recipe(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"recipe_{name}", RECIPES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Lengths:
    """A near-free vectorizer: one column holding each text's length in characters."""

    def fit_transform(self, texts):
        return sp.csr_matrix(np.array([[len(t)] for t in texts]))

    def get_feature_names_out(self):
        return np.array(["length"])


def test_tiny_fixtures_agree(stub_vectorizer):
    uci = read_uci(TINY / "docword.tiny.txt", TINY / "vocab.tiny.txt")
    ldac = read_ldac(TINY / "tiny.dat", TINY / "vocab.tiny.txt")
    assert uci.X.shape == (40, 24) and (uci.doc_lengths == 0).sum() == 2
    assert (uci.X != ldac.X).nnz == 0 and uci.vocabulary == ldac.vocabulary
    topic_word = np.loadtxt(TINY / "tiny_topics.txt")
    assert topic_word.shape == (3, 24)
    np.testing.assert_allclose(topic_word.sum(axis=1), 1.0, atol=1e-4)
    from_csv = read_csv(TINY / "tiny.csv", "text", "label", id_column="id", vectorizer=stub_vectorizer)
    from_jsonl = read_jsonl(TINY / "tiny.jsonl", "text", "label", id_field="id", vectorizer=stub_vectorizer)
    from_dir = read_text_dir(TINY / "texts", vectorizer=stub_vectorizer)
    assert from_csv.n_docs == from_jsonl.n_docs == from_dir.n_docs == 12
    assert from_csv.texts == from_jsonl.texts
    assert from_csv.label_names == from_dir.label_names == ["cooking", "music", "space"]
    by_id = dict(zip(from_csv.doc_ids, from_csv.texts))
    assert all(by_id[Path(p).stem] + "\n" == t for p, t in zip(from_dir.doc_ids, from_dir.texts))


def test_make_tiny_recipe_reproduces_the_files(tmp_path):
    _recipe("make_tiny").make_tiny(tmp_path)
    for name in ("tiny.csv", "tiny.jsonl", "texts/music/m1.txt"):
        assert (tmp_path / name).read_bytes() == (TINY / name).read_bytes()
    again = read_uci(tmp_path / "docword.tiny.txt", tmp_path / "vocab.tiny.txt")
    assert again.X.shape == (40, 24)


def test_recipe_reuters21578():
    archive = _shared("reuters21578", "reuters21578.tar.gz")
    articles = _recipe("reuters21578").read_articles(str(archive))
    assert len(articles) == 21578
    assert [a["newid"] for a in articles] == list(range(1, 21579))
    modapte = [a for a in articles if a["topics_attr"] == "YES"]
    assert sum(a["lewissplit"] == "TRAIN" for a in modapte) == 9603
    assert sum(a["lewissplit"] == "TEST" for a in modapte) == 3299
    assert articles[0]["topics"] == ["cocoa"] and articles[0]["text"].startswith("BAHIA COCOA REVIEW")


def test_recipe_ap_blei():
    archive = _shared("ap-blei", "ap.tgz")
    ap = _recipe("ap_blei").load_ap(str(archive))
    assert ap.n_docs == 2246 and ap.n_tokens == 435838
    assert len(set(ap.doc_ids)) == 2246 and all(d.startswith("AP") for d in ap.doc_ids)


# ---------------------------------------------------------------- streaming


def test_iter_uci_batches_stack_to_read_uci(tmp_path):
    import scipy.sparse as _sp

    from topicvb.datasets import iter_uci, make_lda_corpus, read_uci, write_uci

    data = make_lda_corpus(53, 17, 3, random_state=1, doc_length=6)
    X = data.corpus.X.tolil()
    X[10] = 0  # empty documents, also at the end
    X[52] = 0
    X = X.tocsr()
    X.eliminate_zeros()
    path = tmp_path / "docword.test.txt.gz"
    write_uci(X, None, path)
    batches = list(iter_uci(path, batch_size=10))
    assert [b.shape[0] for b in batches] == [10, 10, 10, 10, 10, 3]
    stacked = _sp.vstack(batches).tocsr()
    expected = read_uci(path).X
    assert (stacked != expected).nnz == 0 and stacked.shape == expected.shape


def test_iter_uci_refuses_unsorted_and_truncated_files(tmp_path):
    from topicvb.datasets import iter_uci

    unsorted = tmp_path / "docword.unsorted.txt"
    unsorted.write_text("3\n4\n3\n2 1 1\n1 2 1\n3 4 2\n")
    with pytest.raises(ValueError, match="sorted by docID for streaming; line 5 goes back"):
        list(iter_uci(unsorted, batch_size=1))
    short = tmp_path / "docword.short.txt"
    short.write_text("3\n4\n5\n1 1 1\n2 2 1\n")
    with pytest.raises(ValueError, match="the header says NNZ=5 data lines, but the file has 2"):
        list(iter_uci(short, batch_size=2))
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        list(iter_uci(short, batch_size=0))


def test_online_lda_trains_out_of_core_from_a_stream(tmp_path):
    import warnings

    from topicvb import OnlineLDA
    from topicvb.datasets import iter_uci, make_lda_corpus, uci_header, write_uci

    data = make_lda_corpus(600, 60, 4, separated=True, random_state=2, doc_length=50)
    path = tmp_path / "docword.stream.txt"
    write_uci(data.corpus.X, None, path)
    n_docs, _, _ = uci_header(path)
    model = OnlineLDA(4, batch_size=100, total_samples=n_docs, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(5):
            for batch in iter_uci(path, batch_size=100):
                model.partial_fit(batch)
    assert model.n_docs_seen_ == 3000 and model.n_batch_iter_ == 30
    a = data.topic_word / np.linalg.norm(data.topic_word, axis=1, keepdims=True)
    b = model.topic_word_distribution()
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    assert (a @ b.T).max(axis=1).mean() >= 0.9
