"""Tests of the UCI Bag of Words reader and writer (topicvb/datasets/_uci.py)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from datasets_support import _listing, _shared, _write

from topicvb.datasets import _uci, read_uci, write_uci


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
    monkeypatch.setattr(_uci, "_CHUNK_BYTES", 8)  # a few lines per chunk
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
        # an overflowing count was reported on the first line of its chunk (line 4)
        ("2\n3\n3\n1 1 1\n2 1 1\n2 2 99999999999999999999\n",
         r"line 6: expected 'docID wordID count' \(three integers\), got '2 2 99999999999999999999'"),
        ("2\n3\n3\n1 1 1\n\n2 1 +-1\n", r"line 6: expected 'docID wordID count' \(three integers\), got '2 1 \+-1'"),
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
