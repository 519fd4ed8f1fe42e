"""Tests of the MatrixMarket reader (topicvb/datasets/_matrix_market.py)."""

from __future__ import annotations

import gzip
import io
import re

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


@pytest.mark.parametrize(
    ("header", "body", "line", "got", "expected"),
    [
        # scipy's reader parses the leading number of a token and ignores the rest of the line: these read as
        # 1, 2, 3 and [[3]] before, silently wrong counts
        ("coordinate integer", "2 3 3\n1 1 1e3\n1 3 1\n2 2 2.5\n", 4, "1 1 1e3", r"'row column count', three integers"),
        ("coordinate integer", "2 3 3\n1 1 1\n1 3 1\n2 2 2.5\n", 6, "2 2 2.5", r"'row column count', three integers"),
        ("coordinate integer", "2 3 1\n1 1 3abc\n", 4, "1 1 3abc", r"'row column count'"),
        ("coordinate integer", "2 3 2\n1 1 3\n\n2 2 3 4\n", 6, "2 2 3 4", r"'row column count'"),
        ("coordinate integer", "2 3 1\n1 1 1-2\n", 4, "1 1 1-2", r"'row column count'"),
        ("coordinate real", "2 3 1\n1 1 2.5abc\n", 4, "1 1 2.5abc",
         r"'row column value', two integers and a real number"),
        ("coordinate real", "2 3 1\n1 1 2,5\n", 4, "1 1 2,5", r"'row column value'"),
        ("coordinate real", "2 3 1\n1 1 0x10\n", 4, "1 1 0x10", r"'row column value'"),
        ("coordinate real", "2 3 1\n1 1 1e\n", 4, "1 1 1e", r"'row column value'"),
        ("coordinate real", "2 3 1\n1 1 1.5.2\n", 4, "1 1 1.5.2", r"'row column value'"),
        ("coordinate real", "2 3 1\n1 1 2 3\n", 4, "1 1 2 3", r"'row column value'"),
        ("coordinate pattern", "2 3 2\n1 1\n2 2 7\n", 5, "2 2 7", r"'row column', two integers and no value"),
        ("array integer", "2 1\n1\n2.5\n", 5, "2.5", r"one integer per line"),
        ("array real", "2 1\n1\n3x\n", 5, "3x", r"one real number per line"),
    ],
)
def test_read_matrix_market_refuses_malformed_entries(tmp_path, header, body, line, got, expected):
    path = _write(tmp_path / "m.mtx", f"%%MatrixMarket matrix {header} general\n% a comment\n" + body)
    with pytest.raises(ValueError, match=rf"^MatrixMarket file '.*m\.mtx', line {line}: expected {expected}.*"
                                         rf"\(the header says '{header}'\), got '{re.escape(got)}'\.$"):
        read_matrix_market(path)


def test_read_matrix_market_reports_the_line_of_a_malformed_entry_in_a_later_chunk(tmp_path, monkeypatch):
    from topicvb.datasets import _matrix_market

    monkeypatch.setattr(_matrix_market, "_CHECK_CHUNK_BYTES", 8)  # a line or two per chunk
    lines = ["%%MatrixMarket matrix coordinate integer general", "%", "", "3 3 6"]
    lines += [f"{i} {j} {i + j}" for i in (1, 2, 3) for j in (1, 3)]
    path = _write(tmp_path / "m.mtx", "\n".join(lines) + "\n")
    assert read_matrix_market(path).X.toarray().tolist() == [[2, 0, 4], [3, 0, 5], [4, 0, 6]]
    lines[8] = "3 1 4.0"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"m\.mtx', line 9: expected .*got '3 1 4\.0'"):
        read_matrix_market(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # valid files read as before: comments, blank lines, CRLF, tabs, signs, no final line break, real forms,
        # symmetric and array layouts
        ("%%MatrixMarket matrix coordinate integer general\n%c\n\n 2 3 3\n1 1 1\n\n1\t3\t2 \r\n2 2 007",
         [[1, 0, 2], [0, 7, 0]]),
        ("%%MatrixMarket matrix coordinate real general\n2 3 5\n1 1 .5\n1 2 5.\n1 3 1E+2\n2 1 5.e-1\n2 2 -0.0\n",
         [[0.5, 5.0, 100.0], [0.5, 0.0, 0.0]]),
        ("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2\n", [[1, 0], [0, 1]]),
        ("%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 3\n2 1 4\n", [[3, 4], [4, 0]]),
        ("%%MatrixMarket matrix array integer general\n2 2\n1\n0\n\n3\n4\n", [[1, 3], [0, 4]]),
        ("%%MatrixMarket matrix array real general\n1 2\n1.5\n2e0\n", [[1.5, 2.0]]),
    ],
)
def test_read_matrix_market_reads_valid_layouts(tmp_path, text, expected):
    path = _write(tmp_path / "m.mtx", text)
    assert read_matrix_market(path).X.toarray().tolist() == expected


def test_read_matrix_market_entry_checks_agree_with_a_regular_expression(tmp_path):
    """The vectorised token checks accept exactly the integers and reals of the reference grammar."""
    from topicvb.datasets import _matrix_market

    integer = re.compile(rb"[+-]?[0-9]+")
    real = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
    rng = np.random.default_rng(0)
    alphabet = np.frombuffer(b"0123456789+-.eE", dtype=np.uint8)
    tokens = {bytes(rng.choice(alphabet, size=n)) for n in rng.integers(1, 7, size=20000)}
    for field, grammar in (("integer", integer), ("real", real)):
        for token in sorted(tokens):
            line = np.frombuffer(b"1 1 " + token + b"\n", dtype=np.uint8)
            assert _matrix_market._lines_look_valid(line, 3, field == "real") == bool(grammar.fullmatch(token)), token
