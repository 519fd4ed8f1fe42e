"""Document-term matrices stored in MatrixMarket format (``.mtx``, optionally gzip-, bz2- or xz-compressed)."""

from __future__ import annotations

import io
import re

import numpy as np
import scipy.io
import scipy.sparse as sp

from .._validation import check_bool
from ._bow import placeholder_vocabulary, read_optional_vocabulary
from ._corpus import Corpus
from ._files import check_input_file, open_binary

_MAX_COUNT = np.iinfo(np.int64).max  # integer counts are stored as int64
# Bytes of data lines checked at a time by _check_entries (whole lines; the last chunk may be longer). The check's
# temporaries take about 9 times a chunk, and 256 KB chunks check as fast as 8 MB ones.
_CHECK_CHUNK_BYTES = 256 * 1024

# The data lines of each layout (header format and field) that _check_entries checks, as regular expressions
# (the reference: the vectorised check only decides quickly that a chunk of lines matches), and what the message
# says is expected. Blank lines are allowed, as scipy allows them; complex files are refused later anyway.
_SPACE = rb"[ \t\r\f\v]"
_INT = rb"[+-]?[0-9]+"
_REAL = rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?i:inf|infinity|nan)"
_LAYOUTS = {
    ("coordinate", "integer"): ((_INT, _INT, _INT), "'row column count', three integers"),
    ("coordinate", "real"): ((_INT, _INT, _REAL), "'row column value', two integers and a real number"),
    ("coordinate", "pattern"): ((_INT, _INT), "'row column', two integers and no value"),
    ("array", "integer"): ((_INT,), "one integer per line"),
    ("array", "real"): ((_REAL,), "one real number per line"),
}
# Byte classes of the vectorised check: separators (space, tab, CR, FF, VT), the line break, digits, signs,
# the decimal point, the exponent marker, and everything else.
_SEP, _NL, _DIGIT, _SIGN, _POINT, _EXP, _OTHER = range(7)
_CLASS = np.full(256, _OTHER, dtype=np.uint8)
_CLASS[list(b" \t\r\f\v")] = _SEP
_CLASS[ord("\n")] = _NL
_CLASS[list(b"0123456789")] = _DIGIT
_CLASS[list(b"+-")] = _SIGN
_CLASS[ord(".")] = _POINT
_CLASS[list(b"eE")] = _EXP


def _read_mtx(p) -> sp.csr_matrix:
    """The matrix in the file as CSR, or a ValueError naming the file (and the line of a malformed entry)."""
    try:
        with open_binary(p) as f:  # scipy's fast reader aborts the interpreter on some binary file objects;
            raw = f.read()  # an in-memory buffer makes it raise instead
        M = scipy.io.mmread(io.BytesIO(raw))
    except Exception as exc:
        raise ValueError(f"Could not read path {str(p)!r} as MatrixMarket: {exc}.") from exc
    _check_entries(raw, p)
    del raw  # (before the COO arrays are converted: not the text, the COO and the CSR arrays at once)
    X = sp.csr_matrix(M)
    del M
    return X


def _header_shape(p) -> tuple[int, int] | None:
    """The (rows, columns) that the header of the file announces, read from its first lines only; None unless the
    banner and the size line are plainly what the format says (scipy then tells what is wrong as it reads them)."""
    try:
        with open_binary(p) as f:
            banner = f.readline().lower().split()
            if len(banner) != 5 or banner[:2] != [b"%%matrixmarket", b"matrix"]:
                return None
            n_sizes = {b"coordinate": 3, b"array": 2}.get(banner[2])
            line = b"%"
            while line.startswith(b"%") or not line:  # (comment and blank lines before the size line)
                line = f.readline()
                if not line:
                    return None
                line = line.strip()
            sizes = line.split()
            if n_sizes is None or len(sizes) != n_sizes or not all(s.isdigit() for s in sizes):
                return None
            return int(sizes[0]), int(sizes[1])
    except Exception:  # (a damaged compressed file: left to the reader, which names the problem)
        return None


def _check_vocabulary(vocabulary, shape, vocab_path, p) -> None:
    """Raise unless the vocabulary has a term per column of a (documents, terms) matrix of ``shape``."""
    if len(vocabulary) != shape[1]:
        hint = " Did you mean transpose=True?" if len(vocabulary) == shape[0] else ""
        raise ValueError(
            f"vocab_path {str(vocab_path)!r} has {len(vocabulary)} terms, but the matrix in {str(p)!r} has "
            f"{shape[1]} columns (terms); they must match.{hint}"
        )


def _data_start(raw: bytes) -> tuple[int, int]:
    """Byte offset and line number of the first data line: after the banner, comment or blank lines, the size line."""
    pos, line_no = raw.find(b"\n") + 1, 2  # (scipy read the file: the banner is line 1 and a size line follows)
    while pos:
        end = raw.find(b"\n", pos)
        text = raw[pos:end if end >= 0 else len(raw)].strip()
        pos, line_no = end + 1, line_no + 1
        if text and not text.startswith(b"%"):
            break  # the size line
    return (pos if pos else len(raw)), line_no


def _lines_look_valid(b: np.ndarray, n_tokens: int, real: bool) -> bool:
    """True when the bytes ``b`` of whole data lines are blank lines or ``n_tokens`` integer tokens (the last
    one a real number when ``real``) apart by separators, decided with array operations; False when one may be
    malformed or holds a word such as ``nan`` (then the caller checks the lines one by one)."""
    if b.size == 0:
        return True
    c = np.take(_CLASS, b)
    sep = c <= _NL
    start = np.empty(c.size, dtype=bool)  # the first byte of each token
    start[0] = not sep[0]
    np.greater(sep[:-1], sep[1:], out=start[1:])
    starts = np.flatnonzero(start)
    per_line = np.diff(np.searchsorted(starts, np.flatnonzero(c == _NL)), prepend=0, append=starts.size)
    if not np.all((per_line == 0) | (per_line == n_tokens)):
        return False
    at = np.flatnonzero(c >= _SIGN)  # the signs, points, exponents and other bytes, with their neighbours
    if at.size == 0:
        return True
    here = c[at]
    prev = np.where(at > 0, c[at - 1], _NL)
    nxt = np.where(at + 1 < c.size, c[np.minimum(at + 1, c.size - 1)], _NL)
    sign, point, exp = here == _SIGN, here == _POINT, here == _EXP
    digit_next = nxt == _DIGIT
    if not real:  # [+-]?[0-9]+: a sign only first in a token and before a digit
        return bool(np.all(sign & (prev <= _NL) & digit_next))
    # [+-]?([0-9]+.?[0-9]*|.[0-9]+)([eE][+-]?[0-9]+)?, by the neighbours of each sign, point and exponent
    ok = (
        (sign & (((prev <= _NL) & (digit_next | (nxt == _POINT))) | ((prev == _EXP) & digit_next)))
        | (exp & ((prev == _DIGIT) | (prev == _POINT)) & (digit_next | (nxt == _SIGN)))
        | (point & ((prev == _DIGIT) | digit_next))  # (so the mantissa has a digit)
    )
    if not np.all(ok):  # (this also refuses the other bytes, such as the letters of nan)
        return False
    marks = at[point | exp]
    token = np.searchsorted(starts, marks, side="right")  # the (1-based) token of each point and exponent
    # only the value, the last token of a line, may be a real number: the row and column are integers (scipy reads
    # '1 2.5 7' as column 2 with the value .5, and drops the 7). Every non-blank line has n_tokens tokens (checked
    # above), so a token is the last of its line when its number is a multiple of n_tokens.
    if np.any(token % n_tokens):
        return False
    # at most one point then one exponent within a token: a point or exponent and the next one in the same token
    # (no token start between them) must be a point and then an exponent
    same = token[:-1] == token[1:]
    return not np.any(same & ~((c[marks[:-1]] == _POINT) & (c[marks[1:]] == _EXP)))


def _check_entries(raw: bytes, p) -> None:
    """Raise naming the line of the first data line that is not what the header announces.

    scipy's reader parses the leading number of each token and ignores the rest of a line, so an ``integer``
    file with ``1e3``, ``2.5`` or ``3abc`` (or a fourth column) read as 1, 2, 3 without a word. Each chunk of
    lines is checked with array operations, and only a chunk that fails is read line by line, for the message.
    """
    banner = raw[: raw.find(b"\n")].lower().split()
    layout = _LAYOUTS.get(tuple(t.decode("ascii", "replace") for t in banner[2:4]))
    if layout is None:
        return
    tokens, expected = layout
    real = _REAL in tokens
    columns = (_SPACE + b"+").join(b"(?:" + t + b")" for t in tokens)
    line = re.compile(_SPACE + b"*(?:" + columns + b")?" + _SPACE + b"*")  # (or a blank line)
    pos, line_no = _data_start(raw)
    while pos < len(raw):
        end = raw.find(b"\n", pos + _CHECK_CHUNK_BYTES)
        end = len(raw) if end < 0 else end + 1
        b = np.frombuffer(raw, dtype=np.uint8, count=end - pos, offset=pos)
        if not _lines_look_valid(b, len(tokens), real):
            for i, text in enumerate(raw[pos:end].split(b"\n")):
                if not line.fullmatch(text):
                    shown = text.decode("ascii", "replace").strip()
                    raise ValueError(
                        f"MatrixMarket file {str(p)!r}, line {line_no + i}: expected {expected} (the header says "
                        f"'{' '.join(t.decode('ascii', 'replace') for t in banner[2:4])}'), got {shown[:80]!r}."
                    )
        line_no += raw.count(b"\n", pos, end)
        pos = end


def _check_int64_range(X: sp.csr_matrix, p, transposed: bool) -> None:
    """Raise naming the first entry of the (integer-valued) ``X`` that does not fit in int64."""
    # (a float at or above 2**63 is beyond int64, and float(_MAX_COUNT) rounds up to 2**63)
    too_large = X.data >= 2.0**63 if X.dtype.kind == "f" else X.data > _MAX_COUNT
    if not np.any(too_large):
        return
    k = int(np.argmax(too_large))
    row = int(np.searchsorted(X.indptr, k, side="right")) - 1
    col = int(X.indices[k])
    if transposed:
        row, col = col, row
    raise ValueError(
        f"MatrixMarket file {str(p)!r}: the entry at row {row + 1}, column {col + 1} is {X.data[k].item()!r}, "
        f"too large for a term count; integer counts must fit in a 64-bit integer (at most {_MAX_COUNT})."
    )


def _as_term_counts(X: sp.csr_matrix, p, transposed: bool = False) -> sp.csr_matrix:
    """Check that ``X`` holds finite non-negative counts; int64 when every entry is an integer.

    Integer counts beyond int64 are refused, as :func:`read_uci` and :func:`read_ldac` refuse them
    (``transposed`` says that ``X`` is the transpose of the file's matrix, for the error message).
    """
    if X.dtype.kind == "c":
        raise ValueError(f"MatrixMarket file {str(p)!r} holds complex values; expected non-negative term counts.")
    if X.dtype.kind == "f" and not np.all(np.isfinite(X.data)):
        raise ValueError(f"MatrixMarket file {str(p)!r} holds NaN or infinite values; expected finite, "
                         "non-negative term counts.")
    X.sum_duplicates()
    negative = X.data < 0
    n_neg = int(np.count_nonzero(negative))
    if n_neg:
        at = np.flatnonzero(negative)
        rows, cols = np.searchsorted(X.indptr, at, side="right") - 1, X.indices[at]
        if transposed:
            rows, cols = cols, rows
        k = np.lexsort((cols, rows))[0]  # the first by row, then column, of the file's matrix
        raise ValueError(
            f"MatrixMarket file {str(p)!r} expects non-negative term counts; it has {n_neg} negative entries; the "
            f"first, in row order, is {X.data[at[k]].item()!r} at row {rows[k] + 1}, column {cols[k] + 1}."
        )
    del negative
    if (
        X.dtype.kind == "f"
        and np.all(np.isfinite(X.data))
        and np.all(X.data == np.round(X.data))
        or X.dtype.kind in "iu"
    ):
        _check_int64_range(X, p, transposed)
        X = X.astype(np.int64, copy=False)  # (scipy reads integer files as int64 already)
    X.eliminate_zeros()
    return X


def read_matrix_market(
    path, vocab_path=None, *, transpose: bool = False, encoding: str = "utf-8", name: str | None = None
) -> Corpus:
    """Read a document-term matrix stored in MatrixMarket format (``.mtx``, optionally compressed).

    The data lines are checked against the header: an ``integer`` file holds integers, a ``real`` file
    real numbers, a ``pattern`` file no values, and each line has exactly its columns (scipy alone would
    read ``2.5`` or ``3abc`` in an ``integer`` file as 2 or 3, and ignore an extra column).
    The vocabulary file is read, and checked against the size line of the header, before the data lines.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.mtx`` file, read with :func:`scipy.io.mmread`; gzip, bz2 and xz are detected by content.
    vocab_path : str or os.PathLike, default=None
        The vocabulary file, one term per line. When None, terms are named ``w0000``, ...
    transpose : bool, default=False
        Set to True when the file stores terms as rows and documents as columns.
    encoding : str, default="utf-8"
        Encoding of the vocabulary file.
    name : str, default=None
        Name of the corpus; defaults to the file name.

    Returns
    -------
    corpus : Corpus
        Counts are int64 when every entry is an integer, float64 otherwise.

    Raises
    ------
    TypeError
        If ``transpose`` is not a bool.
    FileNotFoundError
        If a file does not exist.
    ValueError
        If the file is not valid MatrixMarket, a data line is not what the header announces (the line
        is named), it has negative entries or integer entries that do not fit in 64 bits, or its
        number of columns differs from the vocabulary size.
    """
    transpose = check_bool(transpose, "transpose")
    p = check_input_file(path, "path")
    vocabulary = read_optional_vocabulary(vocab_path, encoding)
    shape = _header_shape(p) if vocabulary is not None else None
    if shape is not None and min(shape) > 0:  # (the vocabulary against the header, before the data lines are read)
        _check_vocabulary(vocabulary, shape[::-1] if transpose else shape, vocab_path, p)
    X = _read_mtx(p)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"MatrixMarket file {str(p)!r} holds an empty matrix of shape {X.shape}; "
            "expected at least one document and one term."
        )
    if transpose:
        X = X.T.tocsr()
    X = _as_term_counts(X, p, transpose)
    if vocabulary is None:
        vocabulary = placeholder_vocabulary(X.shape[1])
    else:
        _check_vocabulary(vocabulary, X.shape, vocab_path, p)
    return Corpus(
        X=X, vocabulary=vocabulary, name=name or p.name, description=f"MatrixMarket matrix read from {p.name}."
    )
