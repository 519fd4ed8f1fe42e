"""Document-term matrices stored in MatrixMarket format (``.mtx``, optionally gzipped)."""

from __future__ import annotations

import io

import numpy as np
import scipy.io
import scipy.sparse as sp

from ._bow import placeholder_vocabulary, read_optional_vocabulary
from ._corpus import Corpus
from ._files import check_input_file, open_binary


def _read_mtx(p) -> sp.csr_matrix:
    """The matrix in the file as CSR, or a ValueError naming the file."""
    try:
        with open_binary(p) as f:  # scipy's fast reader aborts the interpreter on some binary file objects;
            M = scipy.io.mmread(io.BytesIO(f.read()))  # an in-memory buffer makes it raise instead
    except Exception as exc:
        raise ValueError(f"Could not read path {str(p)!r} as MatrixMarket: {exc}.") from exc
    return sp.csr_matrix(M)


def _as_term_counts(X: sp.csr_matrix, p) -> sp.csr_matrix:
    """Check that ``X`` holds finite non-negative counts; int64 when every entry is an integer."""
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
    FileNotFoundError
        If a file does not exist.
    ValueError
        If the file is not valid MatrixMarket, has negative entries, or its number of columns
        differs from the vocabulary size.
    """
    p = check_input_file(path, "path")
    X = _read_mtx(p)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"MatrixMarket file {str(p)!r} holds an empty matrix of shape {X.shape}; "
            "expected at least one document and one term."
        )
    if transpose:
        X = X.T.tocsr()
    X = _as_term_counts(X, p)
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
