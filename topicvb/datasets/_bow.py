"""Readers and writers for bag-of-words formats: UCI Bag of Words, Blei's LDA-C, MatrixMarket.

All readers accept gzip-compressed files transparently (detected by content, not by name), and the
writers compress when the output name ends in ``.gz``. Writers are atomic: they write temporary
files next to the destinations and move them into place only when everything was written.
"""

from __future__ import annotations

import io

import logging
import os
from array import array
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

from .._validation import check_positive_int
from ._corpus import Corpus
from ._files import atomic_paths, check_input_file, open_binary, open_text, open_text_for_write

logger = logging.getLogger(__name__)

# Bytes of text read (and parsed with numpy) at a time by the streaming UCI reader.
_CHUNK_BYTES = 8 * 1024 * 1024
_MAX_COUNT = np.iinfo(np.int64).max  # counts are stored as int64
_MAX_TERMS = np.iinfo(np.int32).max  # column ids are stored as int32


# --------------------------------------------------------------------------- helpers


def _placeholder_vocabulary(n_terms: int) -> list[str]:
    """Names ``w0000``, ``w0001``, ... for a corpus read without a vocabulary file."""
    width = max(4, len(str(max(n_terms - 1, 0))))
    return [f"w{j:0{width}d}" for j in range(n_terms)]


def read_vocabulary(path, what: str = "vocab_path", encoding: str = "utf-8") -> list[str]:
    """Read a vocabulary file: one term per line, line ``i`` (counting from 0) is term id ``i``.

    Lines are kept exactly, except for the line break (``\\n`` or ``\\r\\n``); a final line break
    does not start another term. Gzip-compressed files are read transparently.

    Parameters
    ----------
    path : str or os.PathLike
        The vocabulary file.
    what : str, default="vocab_path"
        Name of the argument, used in error messages.
    encoding : str, default="utf-8"
        Text encoding of the file.

    Returns
    -------
    vocabulary : list of str

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the file cannot be decoded with ``encoding``.
    """
    p = check_input_file(path, what)
    try:
        with open_binary(p) as f:
            text = f.read().decode(encoding)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{what} {str(p)!r} is not valid {encoding} text ({exc.reason} at byte {exc.start}); "
            "pass the right encoding=."
        ) from None
    except (OSError, EOFError) as exc:
        raise ValueError(f"Could not read {what} {str(p)!r}: {exc}.") from exc
    terms = text.split("\n")
    if terms and terms[-1] == "":
        terms.pop()
    terms = [t.removesuffix("\r") for t in terms]
    n_unique = len(set(terms))
    if n_unique != len(terms):
        logger.warning("%s %s has %d duplicate terms.", what, p, len(terms) - n_unique)
    return terms


def _as_counts(corpus_or_X, vocabulary, caller: str):
    """Resolve the ``(corpus_or_X, vocabulary)`` pair of the writers into a CSR int64 matrix and terms."""
    if isinstance(corpus_or_X, Corpus):
        X = corpus_or_X.X
        if vocabulary is None:
            vocabulary = corpus_or_X.vocabulary
    else:
        X = corpus_or_X
        if X is None:
            raise TypeError(f"{caller} needs a Corpus or a count matrix X, got None.")
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"{caller} expects a 2-D count matrix (n_docs, n_terms), got shape {X.shape}.")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{caller} expects numeric term counts, got dtype {X.dtype}.")
    X = sp.csr_matrix(X, copy=True)
    if X.dtype.kind == "f":
        if not np.all(np.isfinite(X.data)):
            raise ValueError(f"{caller} expects finite term counts; X has NaN or infinite entries.")
        n_frac = int(np.count_nonzero(X.data != np.round(X.data)))
        if n_frac:
            raise ValueError(
                f"{caller} writes integer term counts; X has {n_frac} non-integer entries. "
                "Round X or write it with scipy.io.mmwrite instead."
            )
    X.sum_duplicates()
    X.eliminate_zeros()
    n_neg = int(np.count_nonzero(X.data < 0))
    if n_neg:
        raise ValueError(f"{caller} expects non-negative term counts; X has {n_neg} negative entries.")
    X = sp.csr_matrix((X.data.astype(np.int64), X.indices, X.indptr), shape=X.shape)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"{caller} received an empty corpus of shape {X.shape}; expected at least one document and one term."
        )
    if vocabulary is not None:
        vocabulary = [str(t) for t in vocabulary]
        if len(vocabulary) != X.shape[1]:
            raise ValueError(
                f"{caller}: vocabulary has {len(vocabulary)} terms, but X has {X.shape[1]} columns; they must match."
            )
        bad = [t for t in vocabulary if "\n" in t or "\r" in t]
        if bad:
            raise ValueError(
                f"{caller}: vocabulary terms must not contain line breaks (one term per line); "
                f"found {len(bad)}, e.g. {bad[0]!r}."
            )
    return X, vocabulary


def _write_vocabulary(f, vocabulary) -> None:
    for start in range(0, len(vocabulary), 100_000):
        f.write("".join(t + "\n" for t in vocabulary[start : start + 100_000]))


def _check_vocab_size(vocabulary, n_terms: int, vocab_path, source: str) -> None:
    if len(vocabulary) != n_terms:
        raise ValueError(
            f"vocab_path {str(vocab_path)!r} has {len(vocabulary)} terms, but {source} says W={n_terms}; "
            "they must match (one term per line)."
        )


# --------------------------------------------------------------------------- UCI


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


def _nonblank_line(lines: list[str], row: int, first_line_no: int) -> tuple[int, str]:
    """Line number and text of the ``row``-th non-blank line of ``lines`` (the error path only)."""
    seen = -1
    for i, line in enumerate(lines):
        if line.strip():
            seen += 1
            if seen == row:
                return first_line_no + i, line.strip()
    return first_line_no + len(lines) - 1, lines[-1].strip()  # pragma: no cover


def _first_malformed_uci_line(lines: list[str], first_line_no: int) -> tuple[int, str]:
    for i, line in enumerate(lines):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3 or not all(p.lstrip("+-").isdigit() for p in parts):
            return first_line_no + i, line.strip()
    return first_line_no, lines[0].strip() if lines else ""  # pragma: no cover


def read_uci(docword_path, vocab_path=None, *, encoding: str = "utf-8", name: str | None = None) -> Corpus:
    """Read a corpus in the UCI Bag of Words format (``docword.*.txt`` and ``vocab.*.txt``).

    The docword file has three header lines, the number of documents ``D``, the vocabulary size
    ``W`` and the number of data lines ``NNZ``, followed by ``NNZ`` lines ``docID wordID count``
    with 1-based ids. Line ``i`` of the vocabulary file is ``wordID`` ``i`` (1-based). Gzip files
    are read transparently. The file is streamed and parsed in chunks with NumPy, so memory stays
    close to the size of the resulting sparse matrix.

    Parameters
    ----------
    docword_path : str or os.PathLike
        The docword file (plain or gzip-compressed).
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
    docs, words, counts = [], [], []
    n_rows = 0
    try:
        with open_text(p, encoding="ascii", errors="replace") as f:
            n_docs = _read_header_int(f, p, 1, "the number of documents D")
            n_terms = _read_header_int(f, p, 2, "the vocabulary size W")
            nnz = _read_header_int(f, p, 3, "the number of data lines NNZ")
            if n_docs == 0 or n_terms == 0:
                raise ValueError(
                    f"UCI file {str(p)!r} describes an empty corpus (D={n_docs} documents, W={n_terms} terms); "
                    "expected at least one document and one term."
                )
            line_no = 4
            while True:
                lines = f.readlines(_CHUNK_BYTES)
                if not lines:
                    break
                chunk = _parse_uci_chunk(lines, line_no, p, n_docs, n_terms)
                line_no += len(lines)
                if chunk is None:
                    continue
                n_rows += chunk.shape[0]
                docs.append((chunk[:, 0] - 1).astype(np.int32))
                words.append((chunk[:, 1] - 1).astype(np.int32))
                counts.append(chunk[:, 2])
    except (OSError, EOFError) as exc:
        raise ValueError(f"Could not read docword_path {str(p)!r}: {exc}.") from exc
    if n_rows != nnz:
        raise ValueError(
            f"UCI file {str(p)!r}: the header says NNZ={nnz} data lines, but the file has {n_rows}. "
            "The file may be truncated or the header wrong."
        )
    vocabulary = read_vocabulary(vocab_path, "vocab_path", encoding) if vocab_path is not None else None
    if vocabulary is not None:
        _check_vocab_size(vocabulary, n_terms, vocab_path, f"the header of {str(p)!r}")
    cat = lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
    counts_arr = cat(counts, np.int64)
    X = sp.coo_matrix(
        (counts_arr, (cat(docs, np.int32), cat(words, np.int32))), shape=(n_docs, n_terms), dtype=np.int64
    ).tocsr()
    del docs, words, counts
    n_dup = n_rows - X.nnz
    X.eliminate_zeros()
    if n_dup > 0:
        logger.warning("UCI file %s: %d duplicate (docID, wordID) pairs were summed.", p, n_dup)
    if vocabulary is None:
        vocabulary = _placeholder_vocabulary(n_terms)
    logger.info("Read UCI corpus %s: %d documents, %d terms, %d non-zeros.", p, n_docs, n_terms, X.nnz)
    return Corpus(X=X, vocabulary=vocabulary, name=name or p.name, description=f"UCI bag of words read from {p.name}.")


def _parse_uci_chunk(lines, first_line_no, path, n_docs, n_terms):
    """Parse one chunk of ``docID wordID count`` lines into an (n, 3) int64 array (or None if blank)."""
    try:
        arr = np.loadtxt(lines, dtype=np.int64, comments=None, ndmin=2)
    except ValueError:
        line_no, text = _first_malformed_uci_line(lines, first_line_no)
        raise ValueError(
            f"UCI file {str(path)!r}, line {line_no}: expected 'docID wordID count' (three integers), "
            f"got {text[:80]!r}."
        ) from None
    if arr.size == 0:
        return None
    if arr.shape[1] != 3:
        line_no, text = _first_malformed_uci_line(lines, first_line_no)
        raise ValueError(
            f"UCI file {str(path)!r}, line {line_no}: expected 'docID wordID count' (three integers), "
            f"got {text[:80]!r}."
        )
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
    X, vocabulary = _as_counts(corpus_or_X, vocabulary, "write_uci")
    if vocab_path is not None and vocabulary is None:
        raise ValueError("write_uci got vocab_path but no vocabulary; pass a Corpus or vocabulary=.")
    targets = [docword_path] + ([vocab_path] if vocab_path is not None else [])
    coo = X.tocoo()
    with atomic_paths(targets) as tmps:
        with open_text_for_write(tmps[0], os.fspath(docword_path), encoding="ascii") as f:
            f.write(f"{X.shape[0]}\n{X.shape[1]}\n{X.nnz}\n")
            step = 500_000
            for start in range(0, X.nnz, step):
                rows = (coo.row[start : start + step] + 1).tolist()
                cols = (coo.col[start : start + step] + 1).tolist()
                vals = coo.data[start : start + step].tolist()
                f.write("".join(f"{r} {c} {v}\n" for r, c, v in zip(rows, cols, vals)))
        if vocab_path is not None:
            with open_text_for_write(tmps[1], os.fspath(vocab_path)) as f:
                _write_vocabulary(f, vocabulary)
    logger.info("Wrote UCI corpus (%d documents, %d terms) to %s.", X.shape[0], X.shape[1], docword_path)


# --------------------------------------------------------------------------- LDA-C


def read_ldac(
    path, vocab_path=None, *, n_terms: int | None = None, encoding: str = "utf-8", name: str | None = None
) -> Corpus:
    """Read a corpus in Blei's LDA-C format (``M id:count id:count ...``, one document per line).

    ``M`` is the number of ``id:count`` pairs on the line and the term ids are 0-based indices
    into the vocabulary file. A line ``0`` is an empty document. Gzip files are read transparently.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.dat`` file (plain or gzip-compressed).
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
    vocabulary = read_vocabulary(vocab_path, "vocab_path", encoding) if vocab_path is not None else None
    if vocabulary is not None:
        n_terms = len(vocabulary)
    indptr = array("q", [0])
    indices = array("q")
    data = array("q")
    expected = "'M id:count id:count ...' (M integer pairs, 0-based ids)"
    try:
        with open_text(p, encoding="ascii", errors="replace") as f:
            first_blank = None  # blank lines are allowed only at the end of the file
            for line_no, line in enumerate(f, start=1):
                parts = line.split()
                if not parts:
                    first_blank = first_blank or line_no
                    continue
                if first_blank is not None:
                    raise ValueError(
                        f"LDA-C file {str(p)!r}, line {first_blank} is blank; expected {expected}. "
                        "Write '0' for an empty document."
                    )
                try:
                    m = int(parts[0])
                    if m < 0:
                        raise ValueError
                    if ":" in parts[0] or any(q.count(":") != 1 for q in parts[1:]):
                        raise ValueError
                    pairs = [int(v) for q in parts[1:] for v in q.split(":")]
                except ValueError:
                    raise ValueError(
                        f"LDA-C file {str(p)!r}, line {line_no}: expected {expected}, got {line.strip()[:80]!r}."
                    ) from None
                if m != len(parts) - 1:
                    raise ValueError(
                        f"LDA-C file {str(p)!r}, line {line_no}: the leading count M={m} disagrees with the "
                        f"{len(parts) - 1} id:count pairs that follow."
                    )
                ids, cnts = pairs[0::2], pairs[1::2]
                if ids:
                    lo, hi = min(ids), max(ids)
                    if lo < 0 or hi >= (_MAX_TERMS if n_terms is None else n_terms):
                        bad = lo if lo < 0 else hi
                        if n_terms is None:
                            allowed = f"between 0 and {_MAX_TERMS - 1}"
                        else:
                            where = " in vocab_path" if vocabulary is not None else ""
                            allowed = f"between 0 and {n_terms - 1} ({n_terms} terms{where})"
                        raise ValueError(
                            f"LDA-C file {str(p)!r}, line {line_no}: term id {bad} is out of range; "
                            f"0-based ids must be {allowed}."
                        )
                if cnts and min(cnts) < 0:
                    raise ValueError(
                        f"LDA-C file {str(p)!r}, line {line_no}: counts must be non-negative, got {min(cnts)}."
                    )
                if cnts and max(cnts) > _MAX_COUNT:
                    raise ValueError(
                        f"LDA-C file {str(p)!r}, line {line_no}: count {max(cnts)} is too large; counts must "
                        f"fit in a 64-bit integer (at most {_MAX_COUNT})."
                    )
                indices.extend(ids)
                data.extend(cnts)
                indptr.append(len(indices))
    except (OSError, EOFError) as exc:
        raise ValueError(f"Could not read path {str(p)!r}: {exc}.") from exc
    if len(indptr) == 1:
        raise ValueError(f"LDA-C file {str(p)!r} is empty; expected one line 'M id:count ...' per document.")
    indptr_a = np.frombuffer(indptr, dtype=np.int64)
    indices_a = np.frombuffer(indices, dtype=np.int64)
    if n_terms is None:
        n_terms = int(indices_a.max()) + 1 if indices_a.size else 0
    if n_terms == 0:
        if vocabulary is not None:
            raise ValueError(f"vocab_path {str(vocab_path)!r} is empty; expected at least one term.")
        raise ValueError(
            f"LDA-C file {str(p)!r} describes a corpus with no terms (every document is empty); expected at "
            "least one term. Pass n_terms= or vocab_path= to give the vocabulary size."
        )
    X = sp.csr_matrix(
        (np.frombuffer(data, dtype=np.int64).copy(), indices_a.astype(np.int32), indptr_a.copy()),
        shape=(indptr_a.size - 1, n_terms),
    )
    nnz_before = X.nnz
    X.sum_duplicates()
    if X.nnz < nnz_before:
        logger.warning("LDA-C file %s: %d repeated term ids within a line were summed.", p, nnz_before - X.nnz)
    X.eliminate_zeros()
    if vocabulary is None:
        vocabulary = _placeholder_vocabulary(n_terms)
    logger.info("Read LDA-C corpus %s: %d documents, %d terms.", p, X.shape[0], n_terms)
    return Corpus(X=X, vocabulary=vocabulary, name=name or p.name, description=f"LDA-C corpus read from {p.name}.")


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
    X, vocabulary = _as_counts(corpus_or_X, vocabulary, "write_ldac")
    if vocab_path is not None and vocabulary is None:
        raise ValueError("write_ldac got vocab_path but no vocabulary; pass a Corpus or vocabulary=.")
    targets = [path] + ([vocab_path] if vocab_path is not None else [])
    indptr, indices, data = X.indptr, X.indices.tolist(), X.data.tolist()
    with atomic_paths(targets) as tmps:
        with open_text_for_write(tmps[0], os.fspath(path), encoding="ascii") as f:
            buf = []
            for d in range(X.shape[0]):
                a, b = indptr[d], indptr[d + 1]
                buf.append(" ".join([str(b - a)] + [f"{w}:{c}" for w, c in zip(indices[a:b], data[a:b])]) + "\n")
                if len(buf) >= 10_000:
                    f.write("".join(buf))
                    buf = []
            f.write("".join(buf))
        if vocab_path is not None:
            with open_text_for_write(tmps[1], os.fspath(vocab_path)) as f:
                _write_vocabulary(f, vocabulary)
    logger.info("Wrote LDA-C corpus (%d documents) to %s.", X.shape[0], path)


# --------------------------------------------------------------------------- MatrixMarket


def read_matrix_market(
    path, vocab_path=None, *, transpose: bool = False, encoding: str = "utf-8", name: str | None = None
) -> Corpus:
    """Read a document-term matrix stored in MatrixMarket format (``.mtx``, optionally gzipped).

    Parameters
    ----------
    path : str or os.PathLike
        The ``.mtx`` file, read with :func:`scipy.io.mmread`; gzip is detected by content.
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
    FileNotFoundError
        If a file does not exist.
    ValueError
        If the file is not valid MatrixMarket, has negative entries, or its number of columns
        differs from the vocabulary size.
    """
    p = check_input_file(path, "path")
    try:
        with open_binary(p) as f:  # scipy's fast reader aborts the interpreter on some binary file objects;
            M = scipy.io.mmread(io.BytesIO(f.read()))  # an in-memory buffer makes it raise instead
    except Exception as exc:
        raise ValueError(f"Could not read path {str(p)!r} as MatrixMarket: {exc}.") from exc
    X = sp.csr_matrix(M)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"MatrixMarket file {str(p)!r} holds an empty matrix of shape {X.shape}; "
            "expected at least one document and one term."
        )
    if transpose:
        X = X.T.tocsr()
    if X.dtype.kind == "c":
        raise ValueError(f"MatrixMarket file {str(p)!r} holds complex values; expected non-negative term counts.")
    if X.dtype.kind == "f" and not np.all(np.isfinite(X.data)):
        raise ValueError(f"MatrixMarket file {str(p)!r} holds NaN or infinite values; expected finite, "
                         "non-negative term counts.")
    X.sum_duplicates()
    n_neg = int(np.count_nonzero(X.data < 0))
    if n_neg:
        raise ValueError(
            f"MatrixMarket file {str(p)!r} expects non-negative term counts; it has {n_neg} negative entries."
        )
    if (
        X.dtype.kind == "f"
        and np.all(np.isfinite(X.data))
        and np.all(X.data == np.round(X.data))
        or X.dtype.kind in "iu"
    ):
        X = X.astype(np.int64)
    X.eliminate_zeros()
    vocabulary = read_vocabulary(vocab_path, "vocab_path", encoding) if vocab_path is not None else None
    if vocabulary is None:
        vocabulary = _placeholder_vocabulary(X.shape[1])
    elif len(vocabulary) != X.shape[1]:
        hint = " Did you mean transpose=True?" if len(vocabulary) == X.shape[0] else ""
        raise ValueError(
            f"vocab_path {str(vocab_path)!r} has {len(vocabulary)} terms, but the matrix in {str(p)!r} has "
            f"{X.shape[1]} columns (terms); they must match.{hint}"
        )
    return Corpus(
        X=X, vocabulary=vocabulary, name=name or p.name, description=f"MatrixMarket matrix read from {p.name}."
    )
