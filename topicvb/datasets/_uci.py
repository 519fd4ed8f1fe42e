"""The UCI Bag of Words format: a ``docword`` file of ``docID wordID count`` lines and a vocabulary file.

The docword file has three header lines, the number of documents ``D``, the vocabulary size ``W``
and the number of data lines ``NNZ``, followed by ``NNZ`` lines ``docID wordID count`` with 1-based
ids. The data lines are read in chunks of text and parsed with NumPy; the streaming reader
(:func:`topicvb.datasets.iter_uci`) parses them with the same helpers.
"""

from __future__ import annotations

import functools
import logging
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

# Bytes of text read (and parsed with numpy) at a time by the UCI readers.
_CHUNK_BYTES = 8 * 1024 * 1024
# Data lines formatted per write call by write_uci.
_WRITE_BLOCK = 500_000
# A data-line token NumPy reads as an integer (an optional sign and ASCII digits), and the int64 range.
_INT_TOKEN = re.compile(r"[+-]?[0-9]+")
_MIN_INT64, _MAX_INT64 = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


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
    :func:`uci_line_no` finds the line of a row.
    """
    line_no = 4
    while True:
        lines = f.readlines(_CHUNK_BYTES)
        if not lines:
            return
        chunk = _parse_uci_chunk(lines, line_no, path, n_docs, n_terms)
        if chunk is not None:
            yield line_no, lines, chunk
        line_no += len(lines)


def check_uci_nnz(n_rows: int, nnz: int, path: Path) -> None:
    """Raise unless the file had the ``NNZ`` data lines its header announced."""
    if n_rows != nnz:
        raise ValueError(
            f"UCI file {str(path)!r}: the header says NNZ={nnz} data lines, but the file has {n_rows}. "
            "The file may be truncated or the header wrong."
        )


# --------------------------------------------------------------------------- reading


def _read_uci_triples(p: Path):
    """Shape and data lines of a docword file: ``((D, W), (docs, words, counts))``.

    ``docs`` and ``words`` are lists of 0-based int32 id arrays and ``counts`` of int64 arrays, one
    per chunk, so memory stays close to the size of the resulting sparse matrix.
    """
    docs, words, counts = [], [], []
    n_rows = 0
    try:
        with open_text(p, encoding="ascii", errors="replace") as f:
            n_docs, n_terms, nnz = read_uci_header(f, p)
            if n_docs == 0 or n_terms == 0:
                raise ValueError(
                    f"UCI file {str(p)!r} describes an empty corpus (D={n_docs} documents, W={n_terms} terms); "
                    "expected at least one document and one term."
                )
            for _, _, chunk in iter_uci_chunks(f, p, n_docs, n_terms):
                n_rows += chunk.shape[0]
                docs.append((chunk[:, 0] - 1).astype(np.int32))
                words.append((chunk[:, 1] - 1).astype(np.int32))
                counts.append(chunk[:, 2])
    except READ_ERRORS as exc:
        raise ValueError(f"Could not read docword_path {str(p)!r}: {exc}.") from exc
    check_uci_nnz(n_rows, nnz, p)
    return (n_docs, n_terms), (docs, words, counts)


def _uci_matrix(docs, words, counts, shape, p: Path) -> sp.csr_matrix:
    """The CSR int64 matrix of the triples, duplicates summed (with a warning) and zeros dropped."""
    cat = lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    counts_arr = cat(counts, np.int64)
    n_rows = counts_arr.size
    X = sp.coo_matrix((counts_arr, (cat(docs, np.int32), cat(words, np.int32))), shape=shape, dtype=np.int64).tocsr()
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
    and xz files are read transparently. The file is streamed and parsed in chunks with NumPy, so memory stays
    close to the size of the resulting sparse matrix.

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
        range, a count is negative, the number of data lines differs from ``NNZ``, or the
        vocabulary size differs from ``W``.

    Examples
    --------
    >>> corpus = read_uci("docword.kos.txt.gz", "vocab.kos.txt.gz")  # doctest: +SKIP
    >>> corpus.X.shape  # doctest: +SKIP
    (3430, 6906)
    """
    p = check_input_file(docword_path, "docword_path")
    (n_docs, n_terms), triples = _read_uci_triples(p)
    vocabulary = read_optional_vocabulary(vocab_path, encoding)
    if vocabulary is not None:
        check_vocab_size(vocabulary, n_terms, vocab_path, f"the header of {str(p)!r}")
    X = _uci_matrix(*triples, (n_docs, n_terms), p)
    del triples
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
