"""Checks shared by every public entry point: choices, count matrices, widths.

Every message names the parameter or input, states what is allowed and shows what arrived, so a
user never meets a numba traceback or a silent NaN. Kernels assume these checks have passed.
"""

from __future__ import annotations

import codecs
import math
import numbers
import re

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_scalar


def check_choice(value, name: str, choices) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``choices`` (an unhashable value is not one)."""
    try:
        known = value in choices
    except TypeError:  # e.g. a list tested against a set
        known = False
    if not known:
        allowed = "{" + ", ".join(repr(c) for c in sorted(choices, key=str)) + "}"
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}.")


MAX_INT = 2**31 - 1  # integer parameters (iterations, sizes) beyond this only overflow somewhere later


def check_int(value, name: str, *, min_val=None, max_val=MAX_INT) -> int:
    """``sklearn.utils.check_scalar`` for an integer parameter that is not a bool and stays below
    ``max_val`` (2**31 - 1 by default, so that no later conversion overflows). Returns ``value``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an instance of int, not bool.")
    check_scalar(value, name, numbers.Integral, min_val=min_val, max_val=max_val)
    return value


def check_bool(value, name: str) -> bool:
    """Raise ``TypeError`` unless ``value`` is True or False (a string such as "no" is not)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


# Dirichlet priors a user may set: within what a saved model of either dtype may hold (models/_registry.py)
PRIOR_RANGE = (1e-12, 1e12)


def check_positive_prior(value, name: str, *, allow_none: bool = True, length: int | None = None):
    """Check a Dirichlet prior: ``None`` (when allowed), a positive number or a positive vector.

    Returns ``None``, a float, or a float64 vector of the given ``length``.
    """
    if value is None:
        if allow_none:
            return None
        raise TypeError(f"{name} must be a positive number, got None.")
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a positive number, got {value!r}.")
    if isinstance(value, numbers.Real):
        v = float(value)
        if not np.isfinite(v) or v <= 0:
            raise ValueError(f"{name} must be a positive finite number, got {value!r}.")
        if not PRIOR_RANGE[0] <= v <= PRIOR_RANGE[1]:
            raise ValueError(f"{name} must lie in [{PRIOR_RANGE[0]:g}, {PRIOR_RANGE[1]:g}] (beyond, the model's "
                             f"arithmetic overflows or underflows), got {value!r}.")
        return v
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a positive number or a vector of them, got {type(value).__name__}.") from None
    if arr.ndim != 1 or (length is not None and arr.shape[0] != length):
        want = f"a vector of length {length}" if length is not None else "a 1-D vector"
        raise ValueError(f"{name} must be a positive number or {want}, got shape {arr.shape}.")
    bad = ~np.isfinite(arr) | (arr <= 0)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must have positive finite entries; entry {i} is {float(arr[i])!r}.")
    out = (arr < PRIOR_RANGE[0]) | (arr > PRIOR_RANGE[1])
    if np.any(out):
        i = int(np.argmax(out))
        raise ValueError(f"{name} must have entries in [{PRIOR_RANGE[0]:g}, {PRIOR_RANGE[1]:g}] (beyond, the model's "
                         f"arithmetic overflows or underflows); entry {i} is {float(arr[i])!r}.")
    return arr


def check_topic_word_prior(value, n_components: int, n_features: int):
    """Check ``topic_word_prior``: ``None``, a positive number, or a matrix of shape
    ``(n_components, n_features)`` (dense, scipy sparse, or any object with ``__array__``, such as
    :class:`topicvb.SeededPrior`).

    A matrix entry is a topic's Dirichlet weight on a term: positive (within :data:`PRIOR_RANGE`) or
    exactly 0, which excludes the term from the topic. Every topic must allow some term and every term
    some topic. Returns ``None``, a float, or a new C-contiguous float64 array of shape (K, V).
    """
    name = "topic_word_prior"
    if value is None or (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))):
        return check_positive_prior(value, name)
    if sp.issparse(value):
        arr = np.asarray(value.toarray(), dtype=np.float64)
    else:
        try:
            arr = np.array(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a positive number or an array of shape (n_components, n_features) = "
                            f"({n_components}, {n_features}), got {type(value).__name__}.") from None
    if arr.shape != (n_components, n_features):
        raise ValueError(f"{name} must be a positive number or an array of shape (n_components, n_features) = "
                         f"({n_components}, {n_features}), got shape {arr.shape}.")
    bad = ~np.isfinite(arr) | (arr < 0) | ((arr > 0) & (arr < PRIOR_RANGE[0])) | (arr > PRIOR_RANGE[1])
    if np.any(bad):
        k, w = np.unravel_index(int(np.argmax(bad)), arr.shape)
        raise ValueError(f"{name} must have entries that are 0 (term excluded from the topic) or in "
                         f"[{PRIOR_RANGE[0]:g}, {PRIOR_RANGE[1]:g}]; entry ({k}, {w}) is {float(arr[k, w])!r}.")
    empty_rows = np.flatnonzero(arr.sum(axis=1) <= 0)
    if empty_rows.size:
        raise ValueError(f"{name} gives topic {int(empty_rows[0])} a zero weight on every term; each topic needs "
                         "some positive entry.")
    empty_cols = np.flatnonzero(arr.sum(axis=0) <= 0)
    if empty_cols.size:
        raise ValueError(f"{name} excludes term {int(empty_cols[0])} from every topic; each term needs a positive "
                         "entry in some topic.")
    return np.ascontiguousarray(arr)


def check_topic_labels(labels, n_components: int, name: str = "topic_word_prior.labels"):
    """Topic names: ``None`` gives ``topic_0``, ``topic_1``, ...; otherwise ``n_components`` distinct,
    non-empty strings (``None`` entries get the default name of their position). Returns a list."""
    default = [f"topic_{k}" for k in range(n_components)]
    if labels is None:
        return default
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of {n_components} strings, got a single string.")
    try:
        labels = list(labels)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of {n_components} strings, got {type(labels).__name__}.") from None
    if len(labels) != n_components:
        raise ValueError(f"{name} must name each of the {n_components} topics, got {len(labels)} names.")
    out = []
    for k, label in enumerate(labels):
        if label is None:
            label = default[k]
        if not isinstance(label, str) or not label.strip():
            raise ValueError(f"{name}[{k}] must be a non-empty string, got {label!r}.")
        out.append(label)
    seen = set()
    for label in out:
        if label in seen:
            raise ValueError(f"{name} names two topics {label!r}; topic names must be distinct.")
        seen.add(label)
    return out


def check_finite_real(value, name: str, *, min_val=None, max_val=None, include_boundaries="both",
                      allow_none: bool = False):
    """``sklearn.utils.check_scalar`` for a real number that must also be finite.

    check_scalar lets NaN through its bounds (every comparison with NaN is False), and infinities
    where a side is unbounded; this refuses both. Returns ``value``.
    """
    if value is None and allow_none:
        return value
    check_scalar(value, name, numbers.Real, min_val=min_val, max_val=max_val, include_boundaries=include_boundaries)
    if not math.isfinite(value):
        if min_val is not None and max_val is not None:
            left = "[" if include_boundaries in ("left", "both") else "("
            right = "]" if include_boundaries in ("right", "both") else ")"
            bounds = f" in {left}{min_val:g}, {max_val:g}{right}"
        elif min_val is not None:
            bounds = f" {'>=' if include_boundaries in ('left', 'both') else '>'} {min_val:g}"
        elif max_val is not None:
            bounds = f" {'<=' if include_boundaries in ('right', 'both') else '<'} {max_val:g}"
        else:
            bounds = ""
        raise ValueError(f"{name} must be a finite number{bounds}{' or None' if allow_none else ''}, "
                         f"got {float(value)!r}.")
    return value


def check_encoding(encoding, name: str = "encoding") -> None:
    """Raise unless ``encoding`` names a text encoding Python knows (``TypeError`` if it is not a str). Codecs that
    are not text encodings (bz2, zlib, base64, hex, rot13) are refused here: Python's own error for them, raised
    later while reading, is a LookupError that advises codecs.open()."""
    if not isinstance(encoding, str):
        raise TypeError(f"{name} must be a codec name (str), got {type(encoding).__name__}.")
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise ValueError(f"{name} must be a known codec name, got {encoding!r}.") from None
    if not getattr(info, "_is_text_encoding", True):  # (CodecInfo's flag that str.encode/bytes.decode check)
        raise ValueError(f"{name} must be a text encoding such as utf-8 or latin-1, got {encoding!r}, which is not "
                         "one (compressed .gz, .bz2 and .xz files are recognised by their content).")


def check_positive_int(value, name: str, *, allow_none: bool = False):
    """Raise unless ``value`` is a positive int (or None, when allowed); returns it as an int (or None)."""
    if value is None and allow_none:
        return None
    expected = "a positive int or None" if allow_none else "a positive int"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {expected}, got {value!r}.")
    if value < 1:
        raise ValueError(f"{name} must be {expected}, got {value!r}.")
    return int(value)


def check_not_single_str(value, name: str, expected: str, *, caller: str = "") -> None:
    """Raise ``TypeError`` when one str (or bytes) arrives where ``expected``, a sequence of them, is due."""
    if isinstance(value, (str, bytes)):
        prefix = f"{caller}: " if caller else ""
        raise TypeError(f"{prefix}{name} must be {expected}, got a single {type(value).__name__}.")


def check_nonnegative_counts(X, caller: str) -> None:
    """Raise ``ValueError`` if the (already finite, numeric) matrix ``X`` has negative entries."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    n_neg = int(np.count_nonzero(data < 0))
    if n_neg:
        raise ValueError(
            f"Negative values in data passed to {caller}: term counts must be non-negative, but X has "
            f"{n_neg} negative entr{'y' if n_neg == 1 else 'ies'}."
        )


def check_n_terms(X, n_expected: int, owner: str) -> None:
    """Raise ``ValueError`` if ``X`` (anything with a 2-D shape) has the wrong number of columns."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2 and shape[1] != n_expected:
        raise ValueError(
            f"X has {shape[1]} features, but {owner} is expecting {n_expected} features as input "
            f"(the terms of the vocabulary it was fitted on). Transform with the vectorizer used for fit."
        )


def check_matrix_type(X, caller: str, name: str = "X") -> None:
    """Raise ``TypeError`` naming X (``name``) when it cannot be a document-term count matrix at all."""
    what = (f"a document-term count matrix {name} (a SciPy sparse matrix or a 2-D array of non-negative counts, "
            "documents in rows)")
    if sp.issparse(X):  # (first: a DOK matrix is a dict)
        if X.ndim != 2:
            raise ValueError(f"{caller} expects {what}, got a sparse array of dim {X.ndim} (shape {X.shape}); a "
                             "document-term matrix has dim 2: documents in rows, terms in columns.")
        return
    if X is None or isinstance(X, (str, bytes, dict, set, frozenset)):
        raise TypeError(f"{caller} expects {what}, got {type(X).__name__}.")
    if hasattr(X, "X") and hasattr(X, "vocabulary") and not hasattr(X, "__array__"):  # a topicvb Corpus
        raise TypeError(f"{caller} expects {what}, got a {type(X).__name__}; pass its counts, {type(X).__name__}.X "
                        "(e.g. model.fit(corpus.X)).")
    texts = ("turn texts into counts with topicvb.Vectorizer (or a Pipeline that starts with one, "
             "topicvb.make_topic_pipeline) first")
    try:
        arr = np.asarray(X)
    except Exception:  # ragged or otherwise unconvertible
        if isinstance(X, (list, tuple)) and any(isinstance(d, (list, tuple)) and any(isinstance(t, (str, bytes))
                                                                                     for t in d) for d in X):
            raise TypeError(f"{caller} expects {what}, but {name} holds lists of tokens (tokenised documents); "
                            f"join each into a text and {texts}.") from None
        return  # (let the array checks explain)
    texty = arr.dtype.kind in "US" or (arr.dtype == object and any(isinstance(v, (str, bytes)) for v in arr.flat))
    if texty:
        raise TypeError(f"{caller} expects {what}, but {name} holds text; {texts}.")
    if arr.ndim > 2:
        raise ValueError(f"{caller} expects {what}, got an array of dim {arr.ndim} (shape {arr.shape}); a "
                         "document-term matrix needs dim <= 2: documents in rows, terms in columns.")



def non_finite_counts_error(exc: ValueError, caller: str) -> ValueError | None:
    """topicvb's error for scikit-learn's "Input X contains NaN / infinity" (whose advice is an imputer or a
    supervised estimator), or None for another error: a count matrix holds finite counts, and a finite count beyond
    a float32 model's 3.4e38 asks for rescaling or float64."""
    bad = re.match(r"Input X contains (NaN|infinity)( or a value too large for dtype\('(\w+)'\))?", str(exc))
    if bad is None:
        return None
    if bad[2] and bad[3] != "float64":
        return ValueError(f"{caller}: Input X contains infinity or a value too large for dtype('{bad[3]}'), the "
                          "model's dtype; rescale X or use dtype='float64'.")
    return ValueError(f"{caller}: Input X contains {bad[1]}; a document-term matrix holds finite, non-negative counts "
                      "(a term a document does not use counts 0).")


MAX_COUNT = 1e100  # products and squares of counts (CVB variances) must stay far below float64's 1.8e308


def check_sparse_structure(X, caller: str) -> None:
    """Raise ``ValueError`` naming X if a sparse matrix has indices outside its shape."""
    if not sp.issparse(X):
        return
    try:
        if X.format in ("csr", "csc", "bsr"):
            X.check_format(full_check=True)
        elif X.format == "coo":
            rows, cols = X.coords if hasattr(X, "coords") else (X.row, X.col)
            if rows.size and (rows.min() < 0 or rows.max() >= X.shape[0] or cols.min() < 0
                              or cols.max() >= X.shape[1]):
                raise ValueError("row or column index out of range")
    except ValueError as exc:
        raise ValueError(f"X passed to {caller} is not a valid sparse matrix (bad index structure: {exc}).") from None


# The most tokens a model of each float dtype holds in all: its topic-word weights and totals must stay far
# from overflow (float32: squares of totals below its 3.4e38). A saved model's weights are checked against the
# same limits on load (topicvb.models._registry.VALUE_LIMITS).
MAX_TOTAL_COUNT = {np.dtype(np.float64): MAX_COUNT, np.dtype(np.float32): 1e15}


def check_count_range(X, caller: str, dtype=np.float64) -> None:
    """Raise ``ValueError`` for counts so large that products of counts would overflow float64, or whose sum
    a model of ``dtype`` cannot hold (:data:`MAX_TOTAL_COUNT`)."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    if not data.size:
        return
    if float(data.max()) > MAX_COUNT:
        raise ValueError(f"{caller} got a count of {float(data.max()):.3g} in X; counts above {MAX_COUNT:.0e} are "
                         "not supported (products of counts overflow float64). Rescale X.")
    dtype = np.dtype(dtype)
    limit = MAX_TOTAL_COUNT.get(dtype, MAX_COUNT)
    total = float(np.sum(data, dtype=np.float64))
    if total > limit:
        advice = "use dtype='float64' or rescale X" if dtype == np.float32 else "rescale X"
        raise ValueError(f"{caller} got counts summing to {total:.3g} in X; a {dtype.name} model holds at most "
                         f"{limit:.0e} tokens in all (its topic-word weights would overflow); {advice}.")


MIN_COUNT = 1e-200  # smaller positive weights count as 0 (see drop_negligible_counts)


def drop_negligible_counts(X: sp.csr_matrix) -> sp.csr_matrix:
    """Treat positive weights below ``MIN_COUNT`` (subnormal numbers among them) as 0, and drop the
    stored zeros (``X`` checked non-negative).

    Next to any usable prior such a weight changes nothing (alpha + 1e-200 == alpha in float64 for
    alpha above 1e-184), but a corpus made only of them has initial topics that underflow to 0 and
    per-token quantities (1 / total weight) that overflow, which turns a fit into NaN. A stored zero is
    no cell of the document, but the kernels would visit it (the collapsed sweeps test each visited
    cell's change, and ``score`` splits cells): a matrix with stored zeros must give what the same
    matrix without them gives. ``X`` is returned as is when it has neither (one pass over ``X.data``),
    else a copy without them.
    """
    data = X.data
    if not data.size or float(data.min()) >= MIN_COUNT:
        return X
    X = X.copy()
    X.data[X.data < MIN_COUNT] = 0
    X.eliminate_zeros()
    return X


def as_csr(X, dtype=np.float64) -> sp.csr_matrix:
    """Return ``X`` (sparse or dense, already validated) as canonical CSR of ``dtype``.

    Canonical means duplicates summed and column indices sorted within each row.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=dtype, copy=False)
    else:
        X = sp.csr_matrix(np.asarray(X, dtype=dtype))
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def csr_arrays(X: sp.csr_matrix):
    """The CSR arrays in the fixed dtypes the kernels are compiled for.

    Returns ``indptr`` (int64), ``indices`` (int32) and ``data`` (float32 or float64, unchanged), all
    writable (see :func:`writable`). Keeping these fixed means one compiled specialisation per data dtype.
    """
    indptr = writable(np.ascontiguousarray(X.indptr, dtype=np.int64))
    indices = writable(np.ascontiguousarray(X.indices, dtype=np.int32))
    data = writable(np.ascontiguousarray(X.data))
    return indptr, indices, data


def used_columns(X: sp.csr_matrix, n_terms: int):
    """``(columns, X_used)``: the columns X's documents use (sorted) and X over them alone, when they are
    at most a quarter of the ``n_terms``; else ``(None, X)``.

    The inference of a few documents (``transform`` of one document, say) needs the model's per-term
    arrays at those columns only: computing them for every term of a large vocabulary would cost
    K x V for a document of a few hundred terms. A document's arithmetic reads its own terms, so the
    result is the same, bit for bit, over the columns used as over all of them.
    """
    if 4 * X.nnz > n_terms:  # (more cells than a quarter of the terms: the whole vocabulary, without a sort)
        return None, X
    columns = np.unique(X.indices)
    if 4 * columns.shape[0] > n_terms:
        return None, X
    indices = np.searchsorted(columns, X.indices).astype(np.int32)
    return columns, sp.csr_matrix((X.data, indices, X.indptr), shape=(X.shape[0], columns.shape[0]))


def writable(a):
    """``a`` itself when it may be written or is no array (a prior given as a number), else a writable copy
    (a plain ndarray).

    numba types a read-only array (a model loaded with joblib's ``mmap_mode="r"``, an input or fitted
    array marked read-only) apart from a writable one, so every kernel it reached would be compiled
    again for it (seconds for the VB E-step, once per machine and kernel). The kernels never write
    their inputs: the copy only keeps them to one compiled specialisation per dtype.
    """
    return a if not isinstance(a, np.ndarray) or a.flags.writeable else np.array(a, copy=True, subok=False)


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` that points at the first caller outside topicvb.

    Called from the function that warns; counts that function's frame as level 1 (as
    ``warnings.warn`` does) and skips every frame of the package and of scikit-learn (whose
    ``fit_transform`` and ``Pipeline`` call ours), so a warning names the user's line whichever public
    entry point (``fit``, ``fit_transform``, ``fit_distributed``) led to it.
    """
    import sys

    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] in ("topicvb", "sklearn"):
        frame, level = frame.f_back, level + 1
    return level


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with each lone surrogate as U+FFFD, so that it can be written as UTF-8. Python keeps bytes that
    were not UTF-8 as lone surrogates (a file name from ``os.listdir``, a JSON ``"\\ud800"`` escape), and a strict
    UTF-8 writer refuses them; the text readers replace such bytes in a file's contents with U+FFFD already."""
    return _LONE_SURROGATE.sub("\ufffd", text)
