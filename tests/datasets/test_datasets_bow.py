"""Tests of what the bag-of-words writers share: input checks and atomic output (_bow.py)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from datasets_support import _listing

from topicvb.datasets import _bow, read_uci, write_ldac, write_uci


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


@pytest.mark.parametrize(
    "X",
    [sp.csr_matrix([[1e19, 1.0]]), sp.csr_matrix(np.array([[2**63 + 5, 1]], dtype=np.uint64))],
    ids=["float-1e19", "uint64-2**63+5"],
)
def test_writers_refuse_counts_beyond_int64(tmp_path, X):
    # They were cast to int64 and written as negative counts, which no reader reads back.
    for write, kwargs, name in ((write_uci, {"docword_path": tmp_path / "d.txt"}, "write_uci"),
                                (write_ldac, {"path": tmp_path / "c.dat"}, "write_ldac")):
        with pytest.raises(ValueError, match=rf"{name} writes counts as 64-bit integers, at most 9223372036854775807; "
                                             r"X has 1 larger entry, e.g. a count of (1e\+19|9223372036854775813)"):
            write(X, ["a", "b"], vocab_path=tmp_path / "v.txt", **kwargs)
    assert _listing(tmp_path) == []
    # the largest count that fits is written and read back
    top = sp.csr_matrix(np.array([[2**63 - 1, 1]], dtype=np.uint64))
    write_uci(top, docword_path=tmp_path / "d.txt")
    assert read_uci(tmp_path / "d.txt").X.toarray().tolist() == [[2**63 - 1, 1]]
