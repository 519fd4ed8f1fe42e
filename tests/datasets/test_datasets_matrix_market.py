"""Tests of the MatrixMarket reader (topicvb/datasets/_matrix_market.py)."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from datasets_support import _write

from topicvb.datasets import read_matrix_market


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


@pytest.mark.parametrize("transpose", [False, True])
def test_read_matrix_market_refuses_integer_counts_beyond_int64(tmp_path, transpose):
    # 1e19 was cast to int64, wrapped, and reported as a negative entry the file does not have; the
    # other readers (read_uci, read_ldac) refuse counts beyond int64 too.
    path = _write(tmp_path / "m.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1e19\n2 1 1\n")
    row, col = (1, 2)
    with pytest.raises(ValueError, match=rf"m.mtx': the entry at row {row}, column {col} is 1e\+19, too large "
                                         r"for a term count; integer counts must fit in a 64-bit integer"):
        read_matrix_market(path, transpose=transpose)
    fractional = _write(tmp_path / "f.mtx", "%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 1e19\n1 2 0.5\n")
    assert read_matrix_market(fractional).X.toarray().tolist() == [[1e19, 0.5]]  # (float counts stay floats)


@pytest.mark.parametrize("transpose", ["no", 1, None])
def test_read_matrix_market_transpose_must_be_a_bool(tmp_path, transpose):
    path = tmp_path / "m.mtx"
    scipy.io.mmwrite(path, sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]])))
    with pytest.raises(TypeError, match=f"transpose must be True or False, got {transpose!r}"):
        read_matrix_market(path, transpose=transpose)
    assert read_matrix_market(path, transpose=np.True_).X.shape == (3, 2)
