"""What the bag-of-words formats share: vocabulary files, checks on counts to write, atomic output.

The formats themselves live in :mod:`._uci` (UCI Bag of Words), :mod:`._ldac` (Blei's LDA-C) and
:mod:`._matrix_market` (MatrixMarket). All readers accept gzip-, bz2- and xz-compressed files transparently
(detected by content, not by name), and the writers gzip when the output name ends in ``.gz``.
Writers are atomic: they write temporary files next to the destinations and move them into place
only when everything was written.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from ._corpus import Corpus
from ._files import READ_ERRORS, atomic_paths, check_input_file, open_binary, open_text_for_write, without_bom

logger = logging.getLogger(__name__)

# Terms written per call when writing a vocabulary file.
_VOCAB_WRITE_BLOCK = 100_000
# The largest count the writers write: counts are written (and read back) as 64-bit integers.
_MAX_COUNT = np.iinfo(np.int64).max


# --------------------------------------------------------------------------- vocabulary files


def placeholder_vocabulary(n_terms: int) -> list[str]:
    """Names ``w0000``, ``w0001``, ... for a corpus read without a vocabulary file."""
    width = max(4, len(str(max(n_terms - 1, 0))))
    return [f"w{j:0{width}d}" for j in range(n_terms)]


def read_vocabulary(path, what: str = "vocab_path", encoding: str = "utf-8") -> list[str]:
    """Read a vocabulary file: one term per line, line ``i`` (counting from 0) is term id ``i``.

    Lines are kept exactly, except for the line break (``\\n`` or ``\\r\\n``) and, in UTF-8, a leading
    byte-order mark (not part of the first term); a final line break
    does not start another term. Gzip-, bz2- and xz-compressed files are read transparently.

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
            text = f.read().decode(without_bom(encoding))  # (a leading byte-order mark is not part of a term)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{what} {str(p)!r} is not valid {encoding} text ({exc.reason} at byte {exc.start}); "
            "pass the right encoding=."
        ) from None
    except READ_ERRORS as exc:
        raise ValueError(f"Could not read {what} {str(p)!r}: {exc}.") from exc
    terms = text.split("\n")
    if terms and terms[-1] == "":
        terms.pop()
    terms = [t.removesuffix("\r") for t in terms]
    n_unique = len(set(terms))
    if n_unique != len(terms):
        logger.warning("%s %s has %d duplicate terms.", what, p, len(terms) - n_unique)
    return terms


def read_optional_vocabulary(vocab_path, encoding: str) -> list[str] | None:
    """The vocabulary file ``vocab_path`` read with :func:`read_vocabulary`, or None when not given."""
    return read_vocabulary(vocab_path, "vocab_path", encoding) if vocab_path is not None else None


def check_vocab_size(vocabulary, n_terms: int, vocab_path, source: str) -> None:
    """Raise unless the vocabulary file has the ``n_terms`` terms that ``source`` announces."""
    if len(vocabulary) != n_terms:
        raise ValueError(
            f"vocab_path {str(vocab_path)!r} has {len(vocabulary)} terms, but {source} says W={n_terms}; "
            "they must match (one term per line)."
        )


def write_vocabulary(f, vocabulary) -> None:
    """Write one term per line to the open text file ``f`` (ValueError for a first term that starts with U+FEFF:
    the readers take a leading byte-order mark as the file's, so it would come back without it)."""
    if len(vocabulary) and str(vocabulary[0]).startswith("\ufeff"):
        raise ValueError(f"vocabulary: the first term {str(vocabulary[0])!r} starts with U+FEFF, which a vocabulary "
                         "file cannot give back (it is read as the file's byte-order mark).")
    for start in range(0, len(vocabulary), _VOCAB_WRITE_BLOCK):
        f.write("".join(t + "\n" for t in vocabulary[start : start + _VOCAB_WRITE_BLOCK]))


# --------------------------------------------------------------------------- writing counts


def _integer_counts(X, caller: str) -> sp.csr_matrix:
    """``X`` as a CSR int64 copy without zeros, or an error naming ``caller`` if it is not counts."""
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
    # (a float at or above 2**63 is beyond int64, and float(_MAX_COUNT) rounds up to 2**63)
    too_large = X.data >= 2.0**63 if X.dtype.kind == "f" else X.data > _MAX_COUNT
    if np.any(too_large):
        n_big, big = int(np.count_nonzero(too_large)), X.data[int(np.argmax(too_large))].item()
        raise ValueError(
            f"{caller} writes counts as 64-bit integers, at most {_MAX_COUNT}; X has {n_big} larger "
            f"entr{'y' if n_big == 1 else 'ies'}, e.g. a count of {big!r}."
        )
    X = sp.csr_matrix((X.data.astype(np.int64), X.indices, X.indptr), shape=X.shape)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(
            f"{caller} received an empty corpus of shape {X.shape}; expected at least one document and one term."
        )
    return X


def _writable_terms(vocabulary, n_terms: int, caller: str) -> list[str]:
    """The terms as str, checked to be one per column and free of line breaks."""
    vocabulary = [str(t) for t in vocabulary]
    if len(vocabulary) != n_terms:
        raise ValueError(
            f"{caller}: vocabulary has {len(vocabulary)} terms, but X has {n_terms} columns; they must match."
        )
    bad = [t for t in vocabulary if "\n" in t or "\r" in t]
    if bad:
        raise ValueError(
            f"{caller}: vocabulary terms must not contain line breaks (one term per line); "
            f"found {len(bad)}, e.g. {bad[0]!r}."
        )
    return vocabulary


def as_counts(corpus_or_X, vocabulary, caller: str):
    """Resolve the ``(corpus_or_X, vocabulary)`` pair of the writers into a CSR int64 matrix and terms."""
    if isinstance(corpus_or_X, Corpus):
        X = corpus_or_X.X
        if vocabulary is None:
            vocabulary = corpus_or_X.vocabulary
    else:
        X = corpus_or_X
        if X is None:
            raise TypeError(f"{caller} needs a Corpus or a count matrix X, got None.")
    X = _integer_counts(X, caller)
    if vocabulary is not None:
        vocabulary = _writable_terms(vocabulary, X.shape[1], caller)
    return X, vocabulary


def writer_counts(corpus_or_X, vocabulary, vocab_path, caller: str):
    """:func:`as_counts`, then check that a vocabulary exists when ``vocab_path`` asks for one."""
    X, vocabulary = as_counts(corpus_or_X, vocabulary, caller)
    if vocab_path is not None and vocabulary is None:
        raise ValueError(f"{caller} got vocab_path but no vocabulary; pass a Corpus or vocabulary=.")
    return X, vocabulary


def write_with_vocabulary(path, vocab_path, vocabulary, write_counts: Callable) -> None:
    """Write the counts file with ``write_counts(f)`` and, when ``vocab_path`` is given, the vocabulary.

    Both go to temporary files first and are moved into place together only when both are complete,
    so a failure leaves the destinations untouched.
    """
    targets = [path] + ([vocab_path] if vocab_path is not None else [])
    with atomic_paths(targets) as tmps:
        with open_text_for_write(tmps[0], os.fspath(path), encoding="ascii") as f:
            write_counts(f)
        if vocab_path is not None:
            with open_text_for_write(tmps[1], os.fspath(vocab_path)) as f:
                write_vocabulary(f, vocabulary)
