"""Document-term matrices stored in MatrixMarket format (``.mtx``, optionally gzipped)."""

from __future__ import annotations

import io

import numpy as np
import scipy.io
import scipy.sparse as sp

from .._validation import check_bool
from ._bow import placeholder_vocabulary, read_optional_vocabulary
from ._corpus import Corpus
from ._files import check_input_file, open_binary

_MAX_COUNT = np.iinfo(np.int64).max  # integer counts are stored as int64


def _read_mtx(p) -> sp.csr_matrix:
    """The matrix in the file as CSR, or a ValueError naming the file."""
    try:
        with open_binary(p) as f:  # scipy's fast reader aborts the interpreter on some binary file objects;
            M = scipy.io.mmread(io.BytesIO(f.read()))  # an in-memory buffer makes it raise instead
    except Exception as exc:
        raise ValueError(f"Could not read path {str(p)!r} as MatrixMarket: {exc}.") from exc
    return sp.csr_matrix(M)


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
        _check_int64_range(X, p, transposed)
        X = X.astype(np.int64)
    X.eliminate_zeros()
    return X


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
    TypeError
        If ``transpose`` is not a bool.
    FileNotFoundError
        If a file does not exist.
    ValueError
        If the file is not valid MatrixMarket, has negative entries or integer entries that do not
        fit in 64 bits, or its number of columns differs from the vocabulary size.
    """
    transpose = check_bool(transpose, "transpose")
    p = check_input_file(path, "path")
    X = _read_mtx(p)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"MatrixMarket file {str(p)!r} holds an empty matrix of shape {X.shape}; "
            "expected at least one document and one term."
        )
    if transpose:
        X = X.T.tocsr()
    X = _as_term_counts(X, p, transpose)
    vocabulary = read_optional_vocabulary(vocab_path, encoding)
    if vocabulary is None:
        vocabulary = placeholder_vocabulary(X.shape[1])
    elif len(vocabulary) != X.shape[1]:
        hint = " Did you mean transpose=True?" if len(vocabulary) == X.shape[0] else ""
        raise ValueError(
            f"vocab_path {str(vocab_path)!r} has {len(vocabulary)} terms, but the matrix in {str(p)!r} has "
            f"{X.shape[1]} columns (terms); they must match.{hint}"
        )
    return Corpus(
        X=X, vocabulary=vocabulary, name=name or p.name, description=f"MatrixMarket matrix read from {p.name}."
    )
