"""Tests of what the bag-of-words writers share: input checks and atomic output (_bow.py)."""

from __future__ import annotations

import pytest
import scipy.sparse as sp

from datasets_support import _listing

from topicvb.datasets import _bow, write_ldac, write_uci


def test_writers_leave_nothing_when_they_fail(tmp_path, corpus, monkeypatch):
    (tmp_path / "docword.txt").write_text("previous\n")

    def broken(f, vocabulary):
        f.write("partial\n")
        raise RuntimeError("interrupted")

    # The docword file is complete by then; the vocabulary write fails half-way.
    monkeypatch.setattr(_bow, "write_vocabulary", broken)
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
