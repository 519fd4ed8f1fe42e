"""Blei's LDA-C format: one document per line, ``M id:count id:count ...`` with 0-based term ids.

``M`` is the number of ``id:count`` pairs on the line; a line ``0`` is an empty document. The
format does not record the number of terms, so it comes from the vocabulary file, from
``n_terms=``, or from the largest id.
"""

from __future__ import annotations

import functools
import logging
from array import array
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._validation import check_positive_int
from ._bow import placeholder_vocabulary, read_optional_vocabulary, write_with_vocabulary, writer_counts
from ._corpus import Corpus
from ._files import READ_ERRORS, check_input_file, open_text

logger = logging.getLogger(__name__)

_MAX_COUNT = np.iinfo(np.int64).max  # counts are stored as int64
_MAX_TERMS = np.iinfo(np.int32).max  # column ids are stored as int32
_EXPECTED = "'M id:count id:count ...' (M integer pairs, 0-based ids)"
# Lines formatted per write call by write_ldac.
_WRITE_BLOCK = 10_000
# Bytes of text read at a time by read_ldac (whole lines), and the most digits of a number it parses with NumPy
# (10**18 - 1 fits in int64; longer numbers, as any line not written plainly, are read by the line-by-line parser).
_CHUNK_BYTES = 256 * 1024
_MAX_DIGITS = 18
_DIGIT, _SPACE, _COLON, _NEWLINE = range(4)
_CLASS = np.full(256, 4, dtype=np.uint8)  # (4: anything else)
_CLASS[list(b"0123456789")] = _DIGIT
_CLASS[ord(" ")], _CLASS[ord(":")], _CLASS[ord("\n")] = _SPACE, _COLON, _NEWLINE


# --------------------------------------------------------------------------- reading


def _split_ldac_line(parts: list[str], line: str, line_no: int, p: Path) -> tuple[list[int], list[int]]:
    """The term ids and counts of one non-blank line, checked against its leading count ``M``."""
    try:
        m = int(parts[0])
        if m < 0:
            raise ValueError
        if ":" in parts[0] or any(q.count(":") != 1 for q in parts[1:]):
            raise ValueError
        pairs = [int(v) for q in parts[1:] for v in q.split(":")]
    except ValueError:
        raise ValueError(
            f"LDA-C file {str(p)!r}, line {line_no}: expected {_EXPECTED}, got {line.strip()[:80]!r}."
        ) from None
    if m != len(parts) - 1:
        raise ValueError(
            f"LDA-C file {str(p)!r}, line {line_no}: the leading count M={m} disagrees with the "
            f"{len(parts) - 1} id:count pairs that follow."
        )
    return pairs[0::2], pairs[1::2]


def _check_ldac_values(ids, cnts, line_no: int, p: Path, n_terms: int | None, has_vocab: bool) -> None:
    """Raise if a term id is out of range or a count is negative or too large for int64."""
    if ids:
        lo, hi = min(ids), max(ids)
        if lo < 0 or hi >= (_MAX_TERMS if n_terms is None else n_terms):
            bad = lo if lo < 0 else hi
            if n_terms is None:
                allowed = f"between 0 and {_MAX_TERMS - 1}"
            else:
                where = " in vocab_path" if has_vocab else ""
                allowed = f"between 0 and {n_terms - 1} ({n_terms} terms{where})"
            raise ValueError(
                f"LDA-C file {str(p)!r}, line {line_no}: term id {bad} is out of range; "
                f"0-based ids must be {allowed}."
            )
    if cnts and min(cnts) < 0:
        raise ValueError(f"LDA-C file {str(p)!r}, line {line_no}: counts must be non-negative, got {min(cnts)}.")
    if cnts and max(cnts) > _MAX_COUNT:
        raise ValueError(
            f"LDA-C file {str(p)!r}, line {line_no}: count {max(cnts)} is too large; counts must "
            f"fit in a 64-bit integer (at most {_MAX_COUNT})."
        )


def _plain_chunk(lines: list[str], limit: int):
    """The ``(pairs per line, term ids, counts)`` of a chunk of lines written plainly, as :func:`write_ldac` writes
    them (``M id:count ...``: digits, single spaces and colons, no blank line, numbers of at most 18 digits), with
    ``M`` right and ids below ``limit``; None for any other chunk, which the line-by-line parser then reads (for
    its messages, or for what it also accepts: signs, tabs, repeated spaces, blank lines at the end)."""
    text = "".join(lines)
    if not text.isascii():
        return None
    if not text.endswith("\n"):  # (the last line of a file without a final line break)
        text += "\n"
    c = np.take(_CLASS, np.frombuffer(text.encode("ascii"), dtype=np.uint8))
    seps = np.flatnonzero(c != _DIGIT)  # the byte after each number: every byte that is not a digit
    kind = c[seps]
    if kind.max() > _NEWLINE or seps[0] == 0:
        return None
    length = np.diff(seps, prepend=-1) - 1  # of the number before each separator
    if length.min() < 1 or length.max() > _MAX_DIGITS:  # (an empty number: a separator first or twice in a row)
        return None
    # within each line, the k-th separator is a colon exactly when k is odd: "M id:count id:count\n"
    ends = np.flatnonzero(kind == _NEWLINE)
    first = np.concatenate(([0], ends[:-1] + 1))  # the index of each line's first separator
    k = np.arange(kind.size) - np.repeat(first, ends - first + 1)
    if np.any((kind == _COLON) != (k % 2 == 1)):
        return None
    n_pairs = (ends - first) // 2  # (the line break is separator 2 * pairs)
    numbers = np.fromstring(text.replace(":", " "), dtype=np.int64, sep=" ")  # (every number checked above)
    if numbers.size != seps.size:  # pragma: no cover - (cannot happen for text checked as above)
        return None
    is_m = np.zeros(numbers.size, dtype=bool)
    is_m[first] = True  # (a line's number of separators before it is the index of its first number)
    if np.any(numbers[is_m] != n_pairs):
        return None
    pairs = numbers[~is_m]
    ids, counts = pairs[0::2], pairs[1::2]
    if ids.size and ids.max() >= limit:
        return None
    return n_pairs, np.ascontiguousarray(ids), np.ascontiguousarray(counts)


def _append(a: array, values: np.ndarray) -> None:
    """Append the int64 ``values`` to the int64 array ``a``."""
    a.frombytes(memoryview(np.ascontiguousarray(values, dtype=np.int64)).cast("B"))


def _read_ldac_arrays(p: Path, n_terms: int | None, has_vocab: bool) -> list[array]:
    """The CSR arrays ``[indptr, indices, data]`` of an LDA-C file, as int64 :class:`array.array`.

    Chunks of lines written plainly are parsed with NumPy (:func:`_plain_chunk`); any other chunk line by line, which
    says what is wrong with a line.
    """
    indptr = array("q", [0])
    indices = array("q")
    data = array("q")
    limit = _MAX_TERMS if n_terms is None else n_terms
    try:
        with open_text(p, encoding="ascii", errors="replace") as f:
            first_blank = None  # blank lines are allowed only at the end of the file
            line_no = 1  # of the first line of the chunk
            while True:
                lines = f.readlines(_CHUNK_BYTES)
                if not lines:
                    break
                plain = _plain_chunk(lines, limit) if first_blank is None else None
                if plain is not None:
                    n_pairs, ids, cnts = plain
                    _append(indptr, np.cumsum(n_pairs) + len(indices))
                    _append(indices, ids)
                    _append(data, cnts)
                    del plain, n_pairs, ids, cnts
                else:
                    first_blank = _read_ldac_lines(lines, line_no, first_blank, p, n_terms, has_vocab,
                                                   (indptr, indices, data))
                line_no += len(lines)
                del lines
    except READ_ERRORS as exc:
        raise ValueError(f"Could not read path {str(p)!r}: {exc}.") from exc
    return [indptr, indices, data]


def _read_ldac_lines(lines, line_no, first_blank, p, n_terms, has_vocab, arrays) -> int | None:
    """Add the lines (the first is line ``line_no``) to the arrays, one by one; the line number of the first blank
    line so far (``first_blank`` before these lines)."""
    indptr, indices, data = arrays
    for line_no, line in enumerate(lines, start=line_no):
        parts = line.split()
        if not parts:
            first_blank = first_blank or line_no
            continue
        if first_blank is not None:
            raise ValueError(
                f"LDA-C file {str(p)!r}, line {first_blank} is blank; expected {_EXPECTED}. "
                "Write '0' for an empty document."
            )
        ids, cnts = _split_ldac_line(parts, line, line_no, p)
        _check_ldac_values(ids, cnts, line_no, p, n_terms, has_vocab)
        indices.extend(ids)
        data.extend(cnts)
        indptr.append(len(indices))
    return first_blank


def _ldac_matrix(arrays: list, n_terms: int | None, p: Path, vocab_path, has_vocab: bool) -> sp.csr_matrix:
    """The CSR int64 matrix of the arrays, ``n_terms`` columns (the largest id plus one when None).

    ``arrays`` (``[indptr, indices, data]``) is emptied: each array is let go once copied, so that memory peaks
    near 1.75 times the matrix rather than 2.5 times.
    """
    indptr, indices, data = arrays
    arrays.clear()
    if len(indptr) == 1:
        raise ValueError(f"LDA-C file {str(p)!r} is empty; expected one line 'M id:count ...' per document.")
    indices_a = np.frombuffer(indices, dtype=np.int64)
    if n_terms is None:
        n_terms = int(indices_a.max()) + 1 if indices_a.size else 0
    if n_terms == 0:
        if has_vocab:
            raise ValueError(f"vocab_path {str(vocab_path)!r} is empty; expected at least one term.")
        raise ValueError(
            f"LDA-C file {str(p)!r} describes a corpus with no terms (every document is empty); expected at "
            "least one term. Pass n_terms= or vocab_path= to give the vocabulary size."
        )
    indices_a = indices_a.astype(np.int32)
    del indices
    indptr_a = np.frombuffer(indptr, dtype=np.int64).copy()
    del indptr
    data_a = np.frombuffer(data, dtype=np.int64).copy()
    del data
    X = sp.csr_matrix((data_a, indices_a, indptr_a), shape=(indptr_a.size - 1, n_terms))
    del data_a, indices_a, indptr_a
    nnz_before = X.nnz
    X.sum_duplicates()
    if X.nnz < nnz_before:
        logger.warning("LDA-C file %s: %d repeated term ids within a line were summed.", p, nnz_before - X.nnz)
    X.eliminate_zeros()
    return X


def read_ldac(
    path, vocab_path=None, *, n_terms: int | None = None, encoding: str = "utf-8", name: str | None = None
) -> Corpus:
    """Read a corpus in Blei's LDA-C format (``M id:count id:count ...``, one document per line).

    ``M`` is the number of ``id:count`` pairs on the line and the term ids are 0-based indices
    into the vocabulary file. A line ``0`` is an empty document. Gzip, bz2 and xz files are read transparently.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.dat`` file (plain, or gzip-, bz2- or xz-compressed).
    vocab_path : str or os.PathLike, default=None
        The vocabulary file, one term per line. When None, terms are named ``w0000``, ...
    n_terms : int, default=None
        Number of terms when no vocabulary is given; by default the largest id plus one (ids must
        then be below 2**31 - 1).
    encoding : str, default="utf-8"
        Encoding of the vocabulary file.
    name : str, default=None
        Name of the corpus; defaults to the file name.

    Returns
    -------
    corpus : Corpus
        ``X`` has one row per line and int64 counts.

    Raises
    ------
    FileNotFoundError
        If a file does not exist.
    TypeError
        If ``n_terms`` is not an int or None.
    ValueError
        If ``n_terms`` is not positive, a line is malformed or blank (blank lines are ignored only
        at the end of the file), ``M`` disagrees with the pairs that follow, an id is out of range,
        a count is negative or does not fit in 64 bits, or the corpus has no terms.
    """
    check_positive_int(n_terms, "n_terms", allow_none=True)
    p = check_input_file(path, "path")
    vocabulary = read_optional_vocabulary(vocab_path, encoding)
    has_vocab = vocabulary is not None
    if has_vocab:
        n_terms = len(vocabulary)
    X = _ldac_matrix(_read_ldac_arrays(p, n_terms, has_vocab), n_terms, p, vocab_path, has_vocab)
    n_terms = X.shape[1]
    if vocabulary is None:
        vocabulary = placeholder_vocabulary(n_terms)
    logger.info("Read LDA-C corpus %s: %d documents, %d terms.", p, X.shape[0], n_terms)
    return Corpus(X=X, vocabulary=vocabulary, name=name or p.name, description=f"LDA-C corpus read from {p.name}.")


# --------------------------------------------------------------------------- writing


def _write_ldac_lines(f, X: sp.csr_matrix) -> None:
    """One line ``M id:count ...`` per row of ``X``, written in blocks of lines."""
    indptr, indices, data = X.indptr, X.indices.tolist(), X.data.tolist()
    buf = []
    for d in range(X.shape[0]):
        a, b = indptr[d], indptr[d + 1]
        buf.append(" ".join([str(b - a)] + [f"{w}:{c}" for w, c in zip(indices[a:b], data[a:b])]) + "\n")
        if len(buf) >= _WRITE_BLOCK:
            f.write("".join(buf))
            buf = []
    f.write("".join(buf))


def write_ldac(corpus_or_X, vocabulary=None, path=None, vocab_path=None) -> None:
    """Write counts in Blei's LDA-C format (``M id:count ...`` per document, 0-based ids), atomically.

    Parameters
    ----------
    corpus_or_X : Corpus or sparse matrix of shape (n_docs, n_terms)
        Integer-valued, non-negative counts. Empty documents are written as ``0``.
    vocabulary : list of str, default=None
        One term per column; taken from the Corpus when None.
    path : str or os.PathLike
        Destination of the ``.dat`` file; gzip-compressed when the name ends in ``.gz``.
    vocab_path : str or os.PathLike, default=None
        Destination of the vocabulary file; not written when None.

    Raises
    ------
    ValueError
        If the counts are negative or not integers, the vocabulary does not match ``X`` or a term
        contains a line break.

    Notes
    -----
    LDA-C files do not record the number of terms; terms that no document uses are kept only
    through the vocabulary file.
    """
    if path is None:
        raise TypeError("write_ldac needs path, the file to write.")
    X, vocabulary = writer_counts(corpus_or_X, vocabulary, vocab_path, "write_ldac")
    write_with_vocabulary(path, vocab_path, vocabulary, functools.partial(_write_ldac_lines, X=X))
    logger.info("Wrote LDA-C corpus (%d documents) to %s.", X.shape[0], path)
