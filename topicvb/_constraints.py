"""The one validation layer for parameters (issue #19).

Every estimator declares what each parameter accepts in a ``_parameter_constraints`` table, as
scikit-learn's estimators do (a list per parameter, any one of whose entries may be met; ``None``
stands for the value None), and :func:`validate_params` checks a dict of values against it.
``fit_distributed``'s options and the command line's numeric options go through the same objects.
A refusal is a ``TypeError`` when the value has a type no entry accepts (a bool or a str where a number belongs, a list where a choice
belongs), else a ``ValueError``; either way one sentence naming the parameter, everything it
accepts and what arrived: "max_iter must be an int in [1, 2147483647], got 0."

Own classes rather than ``sklearn.utils._param_validation`` (private, and laxer: it lets a bool
through as an int, 10**30 through an unbounded int interval and NaN through a real one).
"""

from __future__ import annotations

import math
import numbers
import re

import numpy as np

from ._validation import MAX_INT, PRIOR_RANGE

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


class PriorMatrix(Constraint):
    """A 2-D prior matrix (array-like, scipy sparse, or an object with ``__array__`` such as
    :class:`topicvb.SeededPrior`); its shape and entries are checked in ``fit``, where the number of
    terms is known (:func:`topicvb._validation.check_topic_word_prior`)."""

    description = "an array of shape (n_components, n_features)"

    def is_satisfied_by(self, value) -> bool:
        if isinstance(value, (str, bytes, dict, set, frozenset, numbers.Number)) or value is None:
            return False
        if hasattr(value, "toarray") and getattr(value, "ndim", None) == 2:  # scipy sparse
            return True
        try:
            arr = np.asarray(value)
        except Exception:  # ragged, or an object numpy cannot read
            return False
        return arr.ndim == 2 and (arr.dtype.kind in "iuf" or (arr.dtype.kind == "O" and arr.size == 0))


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
