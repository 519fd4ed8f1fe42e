"""The UCI Bag of Words format: a ``docword`` file of ``docID wordID count`` lines and a vocabulary file.

The docword file has three header lines, the number of documents ``D``, the vocabulary size ``W``
and the number of data lines ``NNZ``, followed by ``NNZ`` lines ``docID wordID count`` with 1-based
ids. The data lines are read in chunks of text and parsed with NumPy; the streaming reader
(:func:`topicvb.datasets.iter_uci`) parses them with the same helpers.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._bow import (
    check_vocab_size,
    placeholder_vocabulary,
    read_optional_vocabulary,
    write_with_vocabulary,
    writer_counts,
)
from ._corpus import Corpus
from ._files import READ_ERRORS, check_input_file, open_text

logger = logging.getLogger(__name__)

# Bytes of text read (and parsed with numpy) at a time by the UCI readers. A chunk's list of lines takes about 6
# times its text (a str object per line), and NumPy parses 256 KB chunks as fast as 8 MB ones.
_CHUNK_BYTES = 256 * 1024
# Data lines formatted per write call by write_uci.
_WRITE_BLOCK = 500_000
# A data-line token NumPy reads as an integer (an optional sign and ASCII digits), and the int64 range.
_INT_TOKEN = re.compile(r"[+-]?[0-9]+")
_MIN_INT64, _MAX_INT64 = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
# The largest 1-based docID or wordID read_uci stores: the matrix holds 0-based int32 ids.
_MAX_ID = int(np.iinfo(np.int32).max) + 1
# The fewest bytes a data line takes ("1 1 1\n"), and a bound on how much larger than its compressed file the text of
# a gzip, bz2 or xz docword file is, for the room read_uci makes at first (it grows beyond, up to NNZ, if needed).
_MIN_LINE_BYTES = 6
_COMPRESSION_RATIO = 16


# --------------------------------------------------------------------------- parsing


def _read_header_int(f, path: Path, line_no: int, what: str) -> int:
    line = f.readline()
    if not line:
        raise ValueError(
            f"UCI file {str(path)!r} ends before line {line_no}; expected {what} there "
            "(the header is three lines: D, W, NNZ)."
        )
    s = line.strip()
    try:
        value = int(s)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(
            f"UCI file {str(path)!r}, line {line_no}: expected {what} as a single non-negative integer, got {s[:80]!r}."
        )
    return value


def read_uci_header(f, path: Path) -> tuple[int, int, int]:
    """Read the three header lines ``(D, W, NNZ)`` from the open docword file ``f``."""
    return (
        _read_header_int(f, path, 1, "the number of documents D"),
        _read_header_int(f, path, 2, "the vocabulary size W"),
        _read_header_int(f, path, 3, "the number of data lines NNZ"),
    )


def _nonblank_line(lines: list[str], row: int, first_line_no: int) -> tuple[int, str]:
    """Line number and text of the ``row``-th non-blank line of ``lines`` (the error path only)."""
    seen = -1
    for i, line in enumerate(lines):
        if line.strip():
            seen += 1
            if seen == row:
                return first_line_no + i, line.strip()
    return first_line_no + len(lines) - 1, lines[-1].strip()  # pragma: no cover


def _is_int64(token: str) -> bool:
    """Whether ``token`` is an integer, as NumPy reads one, that fits in int64."""
    return _INT_TOKEN.fullmatch(token) is not None and _MIN_INT64 <= int(token) <= _MAX_INT64


def _first_malformed_uci_line(lines: list[str], first_line_no: int) -> tuple[int, str]:
    """Line number and text of the first non-blank line of ``lines`` that is not three int64 integers."""
    for i, line in enumerate(lines):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3 or not all(_is_int64(p) for p in parts):  # (an overflowing count too)
            return first_line_no + i, line.strip()
    return first_line_no, lines[0].strip() if lines else ""  # pragma: no cover


def _malformed_chunk_error(lines, first_line_no, path) -> ValueError:
    line_no, text = _first_malformed_uci_line(lines, first_line_no)
    return ValueError(
        f"UCI file {str(path)!r}, line {line_no}: expected 'docID wordID count' (three integers), "
        f"got {text[:80]!r}."
    )


def _parse_uci_chunk(lines, first_line_no, path, n_docs, n_terms):
    """Parse one chunk of ``docID wordID count`` lines into an (n, 3) int64 array (or None if blank)."""
    try:
        with warnings.catch_warnings():
            # NumPy < 2.3 only warns (DeprecationWarning) when it truncates "1.5" or wraps an overflowing
            # integer; NumPy >= 2.3 raises ValueError. Both are a malformed line here.
            warnings.simplefilter("error", DeprecationWarning)
            arr = np.loadtxt(lines, dtype=np.int64, comments=None, ndmin=2)
    except (ValueError, OverflowError, DeprecationWarning):
        raise _malformed_chunk_error(lines, first_line_no, path) from None
    if arr.size == 0:
        return None
    if arr.shape[1] != 3:
        raise _malformed_chunk_error(lines, first_line_no, path)
    checks = (
        ((arr[:, 0] < 1) | (arr[:, 0] > n_docs), f"docID must be between 1 and D={n_docs}"),
        ((arr[:, 1] < 1) | (arr[:, 1] > n_terms), f"wordID must be between 1 and W={n_terms}"),
        (arr[:, 2] < 0, "count must be non-negative"),
    )
    for mask, expected in checks:
        if mask.any():
            line_no, text = _nonblank_line(lines, int(np.argmax(mask)), first_line_no)
            raise ValueError(f"UCI file {str(path)!r}, line {line_no}: {expected}, got {text[:80]!r}.")
    return arr


def uci_line_no(lines: list[str], row: int, first_line_no: int) -> int:
    """The file line of row ``row`` of the array of a chunk (blank lines have no row), for error messages."""
    return _nonblank_line(lines, row, first_line_no)[0]


def iter_uci_chunks(f, path: Path, n_docs: int, n_terms: int) -> Iterator[tuple[int, list[str], np.ndarray]]:
    """Yield ``(line number of the chunk's first line, its lines, (n, 3) int64 array)`` for the data lines of ``f``.

    ``f`` is positioned after the header; chunks holding only blank lines are skipped. The ids are
    checked against ``D`` and ``W`` but stay 1-based. Blank lines have no row in the array:
    :func:`uci_line_no` finds the line of a row. The generator lets go of a chunk before it reads the next one; the
    caller should too (``del``), so that two chunks are never held at once.
    """
    line_no = 4
    while True:
        lines = f.readlines(_CHUNK_BYTES)
        if not lines:
            return
        n_lines = len(lines)
        chunk = _parse_uci_chunk(lines, line_no, path, n_docs, n_terms)
        if chunk is not None:
            yield line_no, lines, chunk
        del lines, chunk
        line_no += n_lines


def check_uci_nnz(n_rows: int, nnz: int, path: Path) -> None:
    """Raise unless the file had the ``NNZ`` data lines its header announced."""
    if n_rows != nnz:
        raise ValueError(
            f"UCI file {str(path)!r}: the header says NNZ={nnz} data lines, but the file has {n_rows}. "
            "The file may be truncated or the header wrong."
        )


# --------------------------------------------------------------------------- reading


def _read_uci_shape(p: Path) -> tuple[int, int, int]:
    """The ``(D, W, NNZ)`` header of a docword file, checked to describe a corpus with documents and terms."""
    try:
        with open_text(p, encoding="ascii", errors="replace") as f:
            n_docs, n_terms, nnz = read_uci_header(f, p)
    except READ_ERRORS as exc:
        raise ValueError(f"Could not read docword_path {str(p)!r}: {exc}.") from exc
    if n_docs == 0 or n_terms == 0:
        raise ValueError(
            f"UCI file {str(p)!r} describes an empty corpus (D={n_docs} documents, W={n_terms} terms); "
            "expected at least one document and one term."
        )
    return n_docs, n_terms, nnz


def _first_capacity(f, nnz: int) -> int:
    """Room for the data lines at first: ``NNZ``, unless the file is too small to hold that many lines (a wrong header
    must not allocate beyond what the file can hold; the arrays grow, up to ``NNZ``, if a guess was short)."""
    raw = f.buffer
    try:
        size = os.fstat(raw.fileno()).st_size
    except (AttributeError, OSError, io.UnsupportedOperation):  # pragma: no cover - (no file descriptor)
        return min(nnz, 1 << 16)
    if not isinstance(raw, io.BufferedReader):  # a compressed file: its text is rarely much larger
        size *= _COMPRESSION_RATIO
    return min(nnz, size // _MIN_LINE_BYTES + 1)


def _grown(a: np.ndarray, n: int, size: int) -> np.ndarray:
    """A larger array of ``size`` entries that starts with the first ``n`` of ``a``."""
    b = np.empty(size, dtype=a.dtype)
    b[:n] = a[:n]
    return b


def _check_id_fits(chunk, lines, first_line_no, p, n_docs, n_terms) -> None:
    """Raise naming the line of the first docID or wordID beyond ``_MAX_ID`` (only a header's D or W beyond it lets
    one through the range check): read_uci stores 0-based ids as 32-bit integers."""
    for col, what, n in ((0, "docID", n_docs), (1, "wordID", n_terms)):
        if n > _MAX_ID:
            big = chunk[:, col] > _MAX_ID
            if big.any():
                row = int(np.argmax(big))
                line_no = uci_line_no(lines, row, first_line_no)
                raise ValueError(
                    f"UCI file {str(p)!r}, line {line_no}: {what} {int(chunk[row, col])} "
                    f"is too large; read_uci stores ids as 32-bit integers, so they must be at most {_MAX_ID} "
                    f"(the header says {'D' if col == 0 else 'W'}={n})."
                )


def _read_uci_matrix(p: Path, n_docs: int, n_terms: int, nnz: int) -> sp.csr_matrix:
    """The CSR int64 matrix of the data lines, duplicates summed (with a warning) and zeros dropped.

    The ids (0-based int32) and counts (int64) of the data lines go straight into arrays of ``NNZ`` entries, chunk by
    chunk; when the lines are sorted by docID (as the format says they are) these arrays become the matrix's own (no
    row-to-CSR conversion), so memory peaks near 1.4 times the matrix, else near 2.4 times.
    """
    docs = words = counts = None
    n_rows = 0  # data lines read (beyond capacity too, to report a wrong NNZ after reading the whole file)
    in_order, last_doc = True, 0
    try:
        with open_text(p, encoding="ascii", errors="replace") as f:
            read_uci_header(f, p)
            capacity = _first_capacity(f, nnz)
            docs = np.empty(capacity, dtype=np.int32)
            words = np.empty(capacity, dtype=np.int32)
            counts = np.empty(capacity, dtype=np.int64)
            for line_no, lines, chunk in iter_uci_chunks(f, p, n_docs, n_terms):
                _check_id_fits(chunk, lines, line_no, p, n_docs, n_terms)
                del lines
                k = chunk.shape[0]
                n, n_rows = n_rows, n_rows + k
                if n_rows > capacity and capacity < nnz:
                    capacity = min(nnz, max(2 * capacity, n_rows))
                    docs = _grown(docs, n, capacity)  # (one at a time)
                    words = _grown(words, n, capacity)
                    counts = _grown(counts, n, capacity)
                if n_rows > capacity:  # more lines than NNZ: read on (for the errors of later lines), keep none
                    del chunk
                    continue
                d = chunk[:, 0]
                in_order = in_order and int(d[0]) >= last_doc and bool(np.all(d[1:] >= d[:-1]))
                last_doc = int(d[-1])
                np.subtract(d, 1, out=docs[n:n_rows], casting="unsafe")
                np.subtract(chunk[:, 1], 1, out=words[n:n_rows], casting="unsafe")
                counts[n:n_rows] = chunk[:, 2]
                del d, chunk
    except READ_ERRORS as exc:
        raise ValueError(f"Could not read docword_path {str(p)!r}: {exc}.") from exc
    check_uci_nnz(n_rows, nnz, p)  # (so the arrays hold n_rows = NNZ = capacity entries)
    shape = (n_docs, n_terms)
    if in_order and n_rows:  # rows already in CSR order: the arrays are the matrix's (as coo_tocsr would make them)
        # (keys of the ids' own dtype: np.bincount or mixed dtypes would copy the ids as int64)
        starts = np.arange(n_docs + 1, dtype=np.int32 if n_docs < _MAX_ID - 1 else np.int64)
        indptr = np.searchsorted(docs, starts)
        docs = starts = None
        X = sp.csr_matrix((counts, words, indptr), shape=shape)
        del words, counts, indptr
        X.sum_duplicates()
    else:
        X = sp.coo_matrix((counts, (docs, words)), shape=shape, dtype=np.int64)
        del docs, words, counts
        X = X.tocsr()
    n_dup = n_rows - X.nnz
    X.eliminate_zeros()
    if n_dup > 0:
        logger.warning("UCI file %s: %d duplicate (docID, wordID) pairs were summed.", p, n_dup)
    return X


def read_uci(docword_path, vocab_path=None, *, encoding: str = "utf-8", name: str | None = None) -> Corpus:
    """Read a corpus in the UCI Bag of Words format (``docword.*.txt`` and ``vocab.*.txt``).

    The docword file has three header lines, the number of documents ``D``, the vocabulary size
    ``W`` and the number of data lines ``NNZ``, followed by ``NNZ`` lines ``docID wordID count``
    with 1-based ids. Line ``i`` of the vocabulary file is ``wordID`` ``i`` (1-based). Gzip, bz2
    and xz files are read transparently. The file is streamed and parsed in chunks with NumPy, straight into
    arrays of ``NNZ`` entries, so memory peaks near 1.4 times the size of the resulting sparse matrix (data,
    indices and index pointers) for lines sorted by docID, as the format has them, and near 2.4 times otherwise.
    The vocabulary file is read, and checked against ``W``, before the data lines.

    Parameters
    ----------
    docword_path : str or os.PathLike
        The docword file (plain, or gzip-, bz2- or xz-compressed).
    vocab_path : str or os.PathLike, default=None
        The vocabulary file. When None, terms are named ``w0000``, ``w0001``, ...
    encoding : str, default="utf-8"
        Encoding of the vocabulary file.
    name : str, default=None
        Name of the corpus; defaults to the docword file name.

    Returns
    -------
    corpus : Corpus
        ``X`` has shape ``(D, W)`` and int64 counts; documents without data lines are empty rows.

    Raises
    ------
    FileNotFoundError
        If a file does not exist.
    ValueError
        If the header is malformed, a data line does not hold three integers, an id is out of
        range (or beyond 2**31, which 32-bit indices cannot hold), a count is negative, the number of data
        lines differs from ``NNZ``, or the vocabulary size differs from ``W``.

    Examples
    --------
    >>> corpus = read_uci("docword.kos.txt.gz", "vocab.kos.txt.gz")  # doctest: +SKIP
    >>> corpus.X.shape  # doctest: +SKIP
    (3430, 6906)
    """
    p = check_input_file(docword_path, "docword_path")
    n_docs, n_terms, nnz = _read_uci_shape(p)
    vocabulary = read_optional_vocabulary(vocab_path, encoding)
    if vocabulary is not None:
        check_vocab_size(vocabulary, n_terms, vocab_path, f"the header of {str(p)!r}")
    X = _read_uci_matrix(p, n_docs, n_terms, nnz)
    if vocabulary is None:
        vocabulary = placeholder_vocabulary(n_terms)
    logger.info("Read UCI corpus %s: %d documents, %d terms, %d non-zeros.", p, n_docs, n_terms, X.nnz)
    return Corpus(X=X, vocabulary=vocabulary, name=name or p.name, description=f"UCI bag of words read from {p.name}.")


# --------------------------------------------------------------------------- writing


def _write_docword(f, X: sp.csr_matrix, coo: sp.coo_matrix) -> None:
    """The header and the 1-based ``docID wordID count`` lines of ``X`` (``coo`` is ``X.tocoo()``)."""
    f.write(f"{X.shape[0]}\n{X.shape[1]}\n{X.nnz}\n")
    for start in range(0, X.nnz, _WRITE_BLOCK):
        rows = (coo.row[start : start + _WRITE_BLOCK] + 1).tolist()
        cols = (coo.col[start : start + _WRITE_BLOCK] + 1).tolist()
        vals = coo.data[start : start + _WRITE_BLOCK].tolist()
        f.write("".join(f"{r} {c} {v}\n" for r, c, v in zip(rows, cols, vals)))


def write_uci(corpus_or_X, vocabulary=None, docword_path=None, vocab_path=None) -> None:
    """Write counts in the UCI Bag of Words format, atomically.

    Parameters
    ----------
    corpus_or_X : Corpus or sparse matrix of shape (n_docs, n_terms)
        Integer-valued, non-negative counts.
    vocabulary : list of str, default=None
        One term per column; taken from the Corpus when None.
    docword_path : str or os.PathLike
        Destination of the docword file; gzip-compressed when the name ends in ``.gz``.
    vocab_path : str or os.PathLike, default=None
        Destination of the vocabulary file (``.gz`` compresses); not written when None.

    Raises
    ------
    ValueError
        If the counts are negative or not integers, the vocabulary does not match ``X`` or a term
        contains a line break.

    Notes
    -----
    Both files are first written to temporary files in their folders and moved into place only
    after both are complete, so a failure leaves the destinations untouched.

    Examples
    --------
    >>> write_uci(corpus, docword_path="docword.txt.gz", vocab_path="vocab.txt")  # doctest: +SKIP
    """
    if docword_path is None:
        raise TypeError("write_uci needs docword_path, the file to write.")
    X, vocabulary = writer_counts(corpus_or_X, vocabulary, vocab_path, "write_uci")
    coo = X.tocoo()
    write_with_vocabulary(docword_path, vocab_path, vocabulary, functools.partial(_write_docword, X=X, coo=coo))
    logger.info("Wrote UCI corpus (%d documents, %d terms) to %s.", X.shape[0], X.shape[1], docword_path)
