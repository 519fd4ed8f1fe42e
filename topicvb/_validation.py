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
    """Raise unless ``encoding`` names a codec Python knows (``TypeError`` if it is not a str)."""
    if not isinstance(encoding, str):
        raise TypeError(f"{name} must be a codec name (str), got {type(encoding).__name__}.")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ValueError(f"{name} must be a known codec name, got {encoding!r}.") from None


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


def check_matrix_type(X, caller: str) -> None:
    """Raise ``TypeError`` naming X when it cannot be a document-term count matrix at all."""
    what = ("a document-term count matrix X (a SciPy sparse matrix or a 2-D array of non-negative counts, "
            "documents in rows)")
    if X is None or isinstance(X, (str, bytes, dict, set, frozenset)):
        raise TypeError(f"{caller} expects {what}, got {type(X).__name__}.")
    if sp.issparse(X):
        return
    try:
        arr = np.asarray(X)
    except Exception:  # ragged or otherwise unconvertible: let the array checks explain
        return
    texty = arr.dtype.kind in "US" or (arr.dtype == object and any(isinstance(v, (str, bytes)) for v in arr.flat))
    if texty:
        raise TypeError(f"{caller} expects {what}, but X holds text; turn texts into counts with "
                        "topicvb.Vectorizer (or a Pipeline that starts with one) first.")
    if arr.ndim > 2:
        raise ValueError(f"{caller} expects {what}, got an array of dim {arr.ndim} (shape {arr.shape}); a "
                         "document-term matrix needs dim <= 2: documents in rows, terms in columns.")


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


def check_count_range(X, caller: str) -> None:
    """Raise ``ValueError`` for counts so large that products of counts would overflow float64."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.size and float(data.max()) > MAX_COUNT:
        raise ValueError(f"{caller} got a count of {float(data.max()):.3g} in X; counts above {MAX_COUNT:.0e} are "
                         "not supported (products of counts overflow float64). Rescale X.")


MIN_COUNT = 1e-200  # smaller positive weights count as 0 (see drop_negligible_counts)


def drop_negligible_counts(X: sp.csr_matrix) -> sp.csr_matrix:
    """Treat positive weights below ``MIN_COUNT`` (subnormal numbers among them) as 0.

    Next to any usable prior such a weight changes nothing (alpha + 1e-200 == alpha in float64 for
    alpha above 1e-184), but a corpus made only of them has initial topics that underflow to 0 and
    per-token quantities (1 / total weight) that overflow, which turns a fit into NaN. ``X`` is
    returned as is when it has none (one pass over ``X.data``), else a copy without them.
    """
    data = X.data
    if not data.size or float(data.min()) >= MIN_COUNT:
        return X
    negligible = (data > 0) & (data < MIN_COUNT)
    if not negligible.any():
        return X
    X = X.copy()
    X.data[negligible] = 0
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

    Returns ``indptr`` (int64), ``indices`` (int32) and ``data`` (float32 or float64, unchanged).
    Keeping these fixed means one compiled specialisation per data dtype.
    """
    indptr = np.ascontiguousarray(X.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(X.indices, dtype=np.int32)
    data = np.ascontiguousarray(X.data)
    return indptr, indices, data


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



# ------------------------------------------------------------------------------ parameter constraints
# The one validation layer for parameters (issue #19): every estimator declares what each parameter
# accepts in a ``_parameter_constraints`` table, as scikit-learn's estimators do (a list per parameter,
# any one of whose entries may be met; ``None`` stands for the value None), and
# :func:`validate_params` checks a dict of values against it. ``fit_distributed``'s options and the
# command line's numeric options go through the same objects. A refusal is a ``TypeError`` when the
# value has a type no entry accepts (a bool or a str where a number belongs, a list where a choice
# belongs), else a ``ValueError``; either way one sentence naming the parameter, everything it
# accepts and what arrived: "max_iter must be an int in [1, 2147483647], got 0."
#
# Own classes rather than ``sklearn.utils._param_validation`` (private, and laxer: it lets a bool
# through as an int, 10**30 through an unbounded int interval and NaN through a real one).

RANDOM_SEED_MAX = 2**32 - 1  # numpy.random.RandomState's seeds
# The size of a corpus a stochastic fit may be told it samples from (OnlineLDA's total_samples,
# StochasticCollapsedLDA's total_tokens): far beyond any real corpus, and small enough that the topic
# weights scaled by it stay within what a float32 model holds (models/_registry.py's VALUE_LIMITS).
MAX_TOTAL_SAMPLES = 1e12
MAX_TOTAL_TOKENS = 1e14


class Constraint:
    """A kind of value a parameter accepts. ``description`` completes "<name> must be ..."."""

    description = ""

    def is_satisfied_by(self, value) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def matches_type(self, value) -> bool:
        """Whether ``value`` has a type this constraint is about (so a refusal is a ValueError)."""
        return self.is_satisfied_by(value)

    def detail(self, value) -> str | None:
        """Why a value of the right type is refused, when the description alone does not say."""
        return None

    def __repr__(self):
        return f"<{type(self).__name__}: {self.description}>"


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


def _num(x) -> str:
    """A bound as written in a description: ints in full, reals in %g."""
    if isinstance(x, numbers.Integral):
        return str(int(x))
    return f"{x:g}"


class _NoneConstraint(Constraint):
    description = "None"

    def is_satisfied_by(self, value) -> bool:
        return value is None


class Interval(Constraint):
    """A number of ``type`` (``numbers.Integral`` or ``numbers.Real``) between ``left`` and ``right``.

    ``closed`` is "both", "left", "right" or "neither". Integers: never a bool, and ``left`` and
    ``right`` default to -MAX_INT and MAX_INT (2**31 - 1: beyond it a count only overflows somewhere
    later), so every integer parameter has both bounds. Reals: any real number but a bool (ints and
    numpy scalars included), always finite (NaN and infinities are refused whatever the bounds); a
    ``None`` bound means unbounded on that side.
    """

    def __init__(self, type, left=None, right=None, *, closed="both"):
        if type not in (numbers.Integral, numbers.Real):
            raise ValueError("Interval type must be numbers.Integral or numbers.Real")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
        if type is numbers.Integral:
            left = -MAX_INT if left is None else left
            right = MAX_INT if right is None else right
        self.type, self.left, self.right, self.closed = type, left, right, closed
        self.description = self._describe()

    @property
    def left_closed(self) -> bool:
        return self.closed in ("left", "both")

    @property
    def right_closed(self) -> bool:
        return self.closed in ("right", "both")

    def _describe(self) -> str:
        what = "an int" if self.type is numbers.Integral else "a finite number"
        lo, hi = self.left, self.right
        if lo is not None and hi is not None:
            left, right = "[" if self.left_closed else "(", "]" if self.right_closed else ")"
            return f"{what} in {left}{_num(lo)}, {_num(hi)}{right}"
        if lo is not None:
            return f"{what} {'>=' if self.left_closed else '>'} {_num(lo)}"
        if hi is not None:
            return f"{what} {'<=' if self.right_closed else '<'} {_num(hi)}"
        return what

    def matches_type(self, value) -> bool:
        return isinstance(value, self.type) and not _is_bool(value)

    def is_satisfied_by(self, value) -> bool:
        if not self.matches_type(value):
            return False
        if self.type is numbers.Integral:
            v = int(value)
        else:
            try:
                v = float(value)
            except (OverflowError, ValueError):  # an int beyond float64, a Fraction of them
                return False
            if not math.isfinite(v):
                return False
        lo, hi = self.left, self.right
        if lo is not None and (v < lo if self.left_closed else v <= lo):
            return False
        if hi is not None and (v > hi if self.right_closed else v >= hi):
            return False
        return True


class Options(Constraint):
    """One of a few values, compared with their type: ``1`` is not ``True``, ``"1"`` not ``1``, and an
    unhashable value (a list) is simply not one of them. A numpy bool counts as a bool."""

    def __init__(self, options):
        self.options = frozenset(options)
        shown = sorted(self.options, key=lambda o: (not isinstance(o, bool), str(o)))
        self.description = (repr(shown[0]) if len(shown) == 1 else
                            "one of {" + ", ".join(repr(o) for o in shown) + "}")

    @staticmethod
    def _kind(value):
        return bool if _is_bool(value) else type(value)

    def matches_type(self, value) -> bool:
        return any(self._kind(value) is self._kind(o) or isinstance(value, type(o)) for o in self.options)

    def is_satisfied_by(self, value) -> bool:
        if _is_bool(value):
            return any(isinstance(o, bool) and o == bool(value) for o in self.options)
        return any(not isinstance(o, bool) and isinstance(value, type(o)) and value == o for o in self.options)


class StrOptions(Options):
    """One of a few strings (scikit-learn's name for it)."""

    def __init__(self, options):
        if not all(isinstance(o, str) for o in options):
            raise ValueError("StrOptions takes strings; use Options for other values")
        super().__init__(options)


class Boolean(Constraint):
    """True or False (a numpy bool too); never a str such as "no", nor 0 or 1."""

    description = "True or False"

    def is_satisfied_by(self, value) -> bool:
        return _is_bool(value)


class InstanceOf(Constraint):
    """An instance of one of ``types``, described as ``description``."""

    def __init__(self, types, description):
        self.types, self.description = tuple(types) if isinstance(types, (tuple, list)) else (types,), description

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, self.types)


class Path(Constraint):
    """A non-empty file-system path: a str or an ``os.PathLike``."""

    description = "a non-empty path (str or os.PathLike)"

    def matches_type(self, value) -> bool:
        import os

        return isinstance(value, (str, os.PathLike))

    def is_satisfied_by(self, value) -> bool:
        import os

        if not self.matches_type(value):
            return False
        try:
            return len(os.fspath(value)) > 0
        except TypeError:
            return False


class PositivePrior(Constraint):
    """A Dirichlet prior: a positive finite number within :data:`PRIOR_RANGE` or, with
    ``vector=True``, a 1-D vector of them (its length is checked against n_components elsewhere)."""

    def __init__(self, vector: bool = False):
        self.vector = vector
        number = f"a positive finite number in [{PRIOR_RANGE[0]:g}, {PRIOR_RANGE[1]:g}]"
        self.description = f"{number} or a vector of such numbers" if vector else number

    @staticmethod
    def _scalar_ok(v: float) -> bool:
        return math.isfinite(v) and PRIOR_RANGE[0] <= v <= PRIOR_RANGE[1]

    @staticmethod
    def _as_vector(value):
        """The float64 array of a vector-like value, or None when it is no array of real numbers."""
        if isinstance(value, (str, bytes, dict, set, frozenset)) or _is_bool(value):
            return None
        try:
            arr = np.asarray(value)
        except Exception:  # ragged, or an object numpy cannot read
            return None
        if arr.dtype.kind in "iuf":
            return arr.astype(np.float64)
        if arr.dtype.kind == "O" and all(isinstance(v, numbers.Real) and not _is_bool(v) for v in arr.flat):
            out = np.empty(arr.shape, dtype=np.float64)
            for i, v in enumerate(arr.flat):
                try:
                    out.flat[i] = float(v)
                except OverflowError:
                    out.flat[i] = np.inf
            return out
        return None

    def matches_type(self, value) -> bool:
        if isinstance(value, numbers.Real) and not _is_bool(value):
            return True
        return self.vector and self._as_vector(value) is not None

    def is_satisfied_by(self, value) -> bool:
        if isinstance(value, numbers.Real) and not _is_bool(value):
            try:
                return self._scalar_ok(float(value))
            except OverflowError:
                return False
        if not self.vector:
            return False
        arr = self._as_vector(value)
        return arr is not None and arr.ndim == 1 and arr.size > 0 and all(self._scalar_ok(v) for v in arr)

    def detail(self, value) -> str | None:
        if isinstance(value, numbers.Real) or not self.vector:
            return None
        arr = self._as_vector(value)
        if arr is None:
            return None
        if arr.ndim != 1 or arr.size == 0:
            return f"an array of shape {arr.shape}"
        i = next(i for i, v in enumerate(arr) if not self._scalar_ok(v))
        return f"entry {i} is {float(arr[i])!r}"


def make_constraint(entry) -> Constraint:
    """A table entry as a :class:`Constraint`: ``None`` stands for the value None."""
    if entry is None:
        return _NoneConstraint()
    if isinstance(entry, Constraint):
        return entry
    raise TypeError(f"not a parameter constraint: {entry!r}")


def show_value(value, limit: int = 60) -> str:
    """``value`` for a message: numpy scalars as plain numbers, long reprs shortened."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**limit:
        return f"an int of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + " ..."


def describe_constraints(constraints) -> str:
    """"an int in [1, 10] or None": the descriptions of a table entry, None last."""
    made = [make_constraint(c) for c in constraints]
    descriptions = [c.description for c in made if not isinstance(c, _NoneConstraint)]
    if any(isinstance(c, _NoneConstraint) for c in made):
        descriptions.append("None")
    if len(descriptions) == 1:
        return descriptions[0]
    head = ", ".join(descriptions[:-1])
    bare = re.sub(r"\([^)]*\)", "", head)  # an "or" inside parentheses does not join alternatives
    return head + (", or " if " or " in bare else " or ") + descriptions[-1]


def check_param(value, name: str, constraints):
    """Raise unless ``value`` meets one of ``constraints`` (a table entry); return ``value``.

    ``TypeError`` when no constraint is about a value of its type, else ``ValueError``; the message
    names ``name``, all that is accepted and the value (and, for a prior vector, the bad entry).
    """
    made = [make_constraint(c) for c in constraints]
    if any(c.is_satisfied_by(value) for c in made):
        return value
    right_type = [c for c in made if c.matches_type(value)]
    details = [d for d in (c.detail(value) for c in right_type) if d]
    shown = show_value(value)
    if not right_type and value is not None and not isinstance(value, str):
        kind = type(value)
        what = "bool" if _is_bool(value) else kind.__name__ if kind.__module__ == "builtins" else \
            f"{kind.__module__.split('.')[0]}.{kind.__name__}"
        shown += f" ({'an' if what[0] in 'aeiou' else 'a'} {what})"
    message = f"{name} must be {describe_constraints(made)}, got {shown}" + (f"; {details[0]}" if details else "") + "."
    raise (ValueError if right_type else TypeError)(message)


def validate_params(params: dict, constraints: dict, *, labels: dict | None = None) -> None:
    """Check each value of ``params`` that ``constraints`` has an entry for (:func:`check_param`).

    ``labels`` may give a parameter another name in messages (the command line names its option).
    """
    labels = labels or {}
    for name, entry in constraints.items():
        if name in params:
            check_param(params[name], labels.get(name, name), entry)


# Entries several tables share.
N_JOBS_CONSTRAINT = [Interval(numbers.Integral, 1, MAX_INT), Interval(numbers.Integral, -MAX_INT, -1), None]
RANDOM_STATE_CONSTRAINT = [Interval(numbers.Integral, 0, RANDOM_SEED_MAX),
                           InstanceOf(np.random.RandomState, "a numpy.random.RandomState"), None]
