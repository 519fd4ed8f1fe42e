"""Tests of the LDA-C reader and writer (topicvb/datasets/_ldac.py)."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from datasets_support import _shared, _write

from topicvb.datasets import read_ldac, write_ldac


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
