"""Reading a ``.npz`` corpus: one written by :meth:`Corpus.save`, or a plain SciPy sparse matrix.

Its own module, below both :mod:`._corpus` and :mod:`._bow` (it reads a vocabulary file), so that
neither imports the other back.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._bow import read_optional_vocabulary
from ._corpus import Corpus
from ._files import check_input_file, is_npy, not_pickled


def numbered_vocabulary(n_terms: int) -> list[str]:
    """The terms ``"0"``, ``"1"``, ... of a matrix read without a vocabulary (column ``j`` is ``str(j)``)."""
    return [str(j) for j in range(n_terms)]


def read_npz(path, vocab_path=None, *, encoding: str = "utf-8", name: str | None = None) -> Corpus:
    """Read a ``.npz`` corpus: one written by :meth:`Corpus.save`, or a plain :func:`scipy.sparse.save_npz` matrix.

    :meth:`Corpus.load` reads only files written by :meth:`Corpus.save`; this reader also takes
    the file :func:`scipy.sparse.save_npz` writes (any of its formats: CSR, CSC, COO, BSR, DIA),
    a ``(n_docs, n_terms)`` matrix of term counts, with its terms from ``vocab_path`` or, without
    one, numbered ``"0"``, ``"1"``, ... (column ``j`` is the term ``str(j)``). Nothing is
    unpickled, and the matrix is checked (index structure, real, finite, non-negative values).

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` file.
    vocab_path : str or os.PathLike, default=None
        For a plain matrix: a vocabulary file, one term per line, line ``j`` naming column ``j``
        (see :func:`read_vocabulary`). A corpus written by :meth:`Corpus.save` has its own
        vocabulary, so giving one for it is an error.
    encoding : str, default="utf-8"
        Encoding of the vocabulary file.
    name : str, default=None
        The corpus name for a plain matrix (default: the file name).

    Returns
    -------
    corpus : Corpus

    Raises
    ------
    FileNotFoundError
        If ``path`` (or ``vocab_path``) does not exist.
    ValueError
        If the file is neither a saved corpus nor a SciPy sparse matrix, if the matrix is not a
        valid count matrix, or if the vocabulary does not have one term per column.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> sp.save_npz("counts.npz", sp.csr_matrix([[1, 0, 2], [0, 3, 0]]))  # doctest: +SKIP
    >>> read_npz("counts.npz").vocabulary  # doctest: +SKIP
    ['0', '1', '2']
    """
    p = check_input_file(path, "path")
    if is_npy(p):  # np.load would give the single array, not an archive, whatever the file's name
        raise ValueError(f"{str(p)!r} is a single NumPy array (.npy), not a .npz corpus or SciPy sparse matrix.")
    try:
        with np.load(p, allow_pickle=False) as npz:  # lazy: only the archive's directory is read here
            entries = set(npz.files)
    except Exception as exc:
        raise ValueError(f"Could not read {str(p)!r} as a .npz file: {not_pickled(exc)}.") from None
    is_matrix = "meta_json" not in entries and {"format", "shape"} <= entries
    if not is_matrix and "meta_json" not in entries:
        shown = ", ".join(repr(e) for e in sorted(entries)[:6]) + (", ..." if len(entries) > 6 else "")
        raise ValueError(f"{str(p)!r} is a .npz file but neither a topicvb corpus (written by Corpus.save or "
                         f"'topicvb vectorize') nor a SciPy sparse matrix (scipy.sparse.save_npz); its entries "
                         f"are {shown or 'none'}.")
    if not is_matrix:
        corpus = Corpus.load(p)  # a saved corpus: Corpus.load checks it strictly
        if vocab_path is not None:
            raise ValueError(f"{str(p)!r} is a topicvb corpus with its own vocabulary; vocab_path "
                             f"{str(vocab_path)!r} applies only to a plain SciPy matrix. Leave it out.")
        return corpus
    X = _read_scipy_matrix(p)
    vocabulary = read_optional_vocabulary(vocab_path, encoding)
    if vocabulary is None:
        vocabulary = numbered_vocabulary(X.shape[1])
    elif len(vocabulary) != X.shape[1]:
        hint = " It has one per row: was the matrix saved transposed (terms x documents)?" \
            if len(vocabulary) == X.shape[0] else ""
        raise ValueError(
            f"vocab_path {str(vocab_path)!r} has {len(vocabulary)} terms, but the matrix in {str(p)!r} has "
            f"{X.shape[1]} columns; give one term per line, one line per column.{hint}"
        )
    try:
        return Corpus(X=X, vocabulary=vocabulary, name=name or p.name,
                      description=f"SciPy sparse matrix read from {p.name}.")
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{str(p)!r} holds a SciPy sparse matrix that is not a document-term count matrix: "
                        f"{exc}") from None


def _read_scipy_matrix(p) -> sp.csr_matrix:
    """The matrix of a :func:`scipy.sparse.save_npz` file as canonical CSR, its index structure checked."""
    try:
        M = sp.load_npz(p)  # reads with allow_pickle=False
    except Exception as exc:
        raise ValueError(f"{str(p)!r} is not a readable SciPy sparse matrix ({type(exc).__name__}: {exc}).") from None
    try:
        if M.ndim != 2:
            raise ValueError(f"it has {M.ndim} dimensions, expected 2 (documents x terms)")
        if M.format in ("csr", "csc", "bsr"):
            M.check_format(full_check=True)  # indices in range before any conversion touches them
        X = sp.csr_matrix(M)
        X.check_format(full_check=True)
    except MemoryError:
        raise ValueError(f"{str(p)!r} holds a SciPy sparse matrix of shape {M.shape}, too large to read.") from None
    except (TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"{str(p)!r} holds an invalid SciPy sparse matrix ({exc}).") from None
    return X
