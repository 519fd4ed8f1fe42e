"""The one list of topic-model estimators: class, command-line name and the fitted state a saved file needs.

The command line (``topicvb fit --model``), :func:`topicvb.load`, :func:`topicvb.evaluation.select_n_topics`
and the report read this list, so a new estimator is registered once and every entry point offers it.
Classes are imported lazily (``import topicvb`` stays light).

Each entry also lists the fitted arrays (:class:`ArraySpec`) and scalars (:class:`ScalarSpec`) a saved
model may hold, with their dtype, shape and range: :func:`topicvb.load` accepts those names only and
checks each value with :func:`check_state_array` / :func:`check_state_scalar`, which the checkpoint
reader (:mod:`topicvb.models._checkpoint`) shares.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

import numpy as np

from .._validation import MAX_TOTAL_COUNT

# Fitted attributes every LDA-type model needs beyond components_ and n_features_in_.
_LDA_STATE = ("doc_topic_prior_", "topic_word_prior_")


# ---------------------------------------------------------------------------- what fitted state may hold
# The values a loaded model (or a resumed checkpoint) may hold, per float dtype of the model: every
# positive quantity (priors, LDA topic-word weights, variational parameters, counts) must lie in
# [low, high]. Found by trying transform and score on models with one extreme entry, row, column or
# array: float64 models stay finite from about 1e-300 (subnormal entries give -inf from digamma) to about
# 1e300 (1e307 gives NaN: sums overflow), float32 ones up to about 1e35. The limits keep a margin for the
# products and sums of two extremes (digamma(low) ~ -1 / low times a prior of `high`, summed over 1e10
# topic-term cells: 1e150 x 1e100 x 1e10 for float64, 1e15 x 1e15 x 1e6 in float32's 3.4e38).
# (the upper limits are the most tokens a fit of each dtype accepts in all: _validation.MAX_TOTAL_COUNT)
VALUE_LIMITS = {np.dtype(np.float64): (1e-150, MAX_TOTAL_COUNT[np.dtype(np.float64)]),
                np.dtype(np.float32): (1e-15, MAX_TOTAL_COUNT[np.dtype(np.float32)])}
MAX_INT = 2**62  # iteration and document counters (an int64 with room to grow)


@dataclass(frozen=True)
class ArraySpec:
    """A fitted array attribute of a saved model, or an array of a checkpoint, and what it may hold.

    Attributes
    ----------
    name : str
        The attribute (``components_``) or checkpoint array (``lam``) name.
    shape : tuple
        One entry per axis: ``"K"`` (n_components), ``"V"`` (n_features_in_, the terms), ``"D"``
        (documents), ``"N"`` (non-zeros of X), another symbol bound by the first array that uses it, an
        int, or None (any length). ``()`` is a 0-d array.
    dtype : {"model", "float64", "int", "str"}
        ``"model"``: float32 or float64 in the file, cast to the model's float dtype; ``"float64"``:
        float32 or float64, cast to float64; ``"int"``: an integer dtype, cast to int64; ``"str"``: a
        unicode string array, returned with dtype object (``values`` is then ``"labels"`` or ``"names"``).
    values : {"finite", "positive", "zero_or_positive", "nonnegative", "probabilities", "count", "labels", "names"}
        ``"finite"``: finite reals; ``"positive"``: within :data:`VALUE_LIMITS` of the model's dtype;
        ``"zero_or_positive"``: exactly 0 or within the limits (a matrix topic-word prior, where 0
        excludes a term from a topic, and the LDA topics fitted with one); ``"nonnegative"``: 0 or at
        most the upper limit; ``"probabilities"``: in [0, 1], summing to 1 along ``sum_axis``;
        ``"count"``: integers in [0, :data:`MAX_INT`]; ``"labels"``: distinct, non-empty strings; ``"names"``: any
        strings (column names, as scikit-learn takes them).
    sum_axis : int, default=1
        The axis along which ``"probabilities"`` sum to 1 (1: rows, 0: columns).
    required : bool, default=True
        Whether a file must hold it.
    """

    name: str
    shape: tuple
    dtype: str = "model"
    values: str = "finite"
    sum_axis: int = 1
    required: bool = True


@dataclass(frozen=True)
class ScalarSpec:
    """A fitted scalar attribute of a saved model (the ``scalars`` record of its metadata).

    ``kind`` is ``"count"`` (an int in [0, :data:`MAX_INT`]), ``"features"`` (an int of at least 1),
    ``"positive"`` (a real number within :data:`VALUE_LIMITS`), ``"positive_or_none"`` (the same, or
    None) or ``"array_or_none"`` (None here; an array, described by the entry's :class:`ArraySpec` of
    the same name, otherwise). An attribute with both a ScalarSpec and an ArraySpec (``topic_word_prior_``:
    a number, or a matrix) may be stored as either.
    """

    name: str
    kind: str
    required: bool = True


# The fitted state of every estimator (beyond its own): the vocabulary width and iteration count, the
# topics and the objective's history.
_COMMON_SCALARS = (ScalarSpec("n_features_in_", "features"), ScalarSpec("n_iter_", "count"))
_HISTORY = ArraySpec("bound_history_", (None,), "float64", "finite")
# The topic names every fit sets (topicvb.models._base): files written before them have none.
_LABELS = ArraySpec("topic_labels_", ("K",), "str", "labels", required=False)
# The column names of a DataFrame the model was fitted on (scikit-learn's check of later inputs' columns):
# files written before they were saved have none.
_FEATURE_NAMES = ArraySpec("feature_names_in_", ("V",), "str", "names", required=False)
# A matrix topic-word prior (issue #21): topic_word_prior_ is then a (K, V) array, 0 where a term is excluded
# from a topic, and the LDA topics components_ are 0 exactly there (topicvb.persistence checks that they agree).
_PRIOR_MATRIX = ArraySpec("topic_word_prior_", ("K", "V"), "float64", "zero_or_positive", required=False)
_LDA_ARRAYS = (
    ArraySpec("components_", ("K", "V"), "model", "zero_or_positive"),
    ArraySpec("doc_topic_prior_", ("K",), "float64", "positive"),
    _PRIOR_MATRIX,
    _HISTORY,
    _LABELS,
    _FEATURE_NAMES,
)
_LDA_SCALARS = _COMMON_SCALARS + (ScalarSpec("topic_word_prior_", "positive"),)
_STREAM_SCALARS = (ScalarSpec("n_batch_iter_", "count"), ScalarSpec("n_docs_seen_", "count"))
_PLSA_ARRAYS = (
    ArraySpec("components_", ("K", "V"), "model", "probabilities", sum_axis=1),
    ArraySpec("doc_topic_", ("D", "K"), "model", "probabilities", sum_axis=1, required=False),
    # each topic's expected training tokens (the seed-word check, topicvb.guided.seed_holding): files written
    # before PLSA kept them have none
    ArraySpec("topic_tokens_", ("K",), "float64", "nonnegative", required=False),
    # the fit's prior on P(z | d), which transform folds in with: files written before PLSA kept it use the parameter
    ArraySpec("doc_topic_prior_", ("K",), "float64", "positive", required=False),
    _HISTORY,
    ArraySpec("validation_history_", (None,), "float64", "finite", required=False),
    _PRIOR_MATRIX,
    _LABELS,
    _FEATURE_NAMES,
)
_PLSA_SCALARS = _COMMON_SCALARS + (ScalarSpec("validation_history_", "array_or_none", required=False),
                                   ScalarSpec("topic_word_prior_", "positive_or_none", required=False))
# HDP (issue #23): the LDA state of its used topics (K = n_components_) and the fit's T topics.
_HDP_ARRAYS = _LDA_ARRAYS + (
    ArraySpec("all_components_", ("T", "V"), "model", "positive", required=False),
    ArraySpec("topic_weights_", ("T",), "float64", "nonnegative", required=False),
    ArraySpec("topic_shares_", ("T",), "float64", "nonnegative", required=False),
    ArraySpec("objective_history_", (None,), "float64", "finite", required=False),
)
_HDP_SCALARS = _LDA_SCALARS + (ScalarSpec("n_components_", "features"),
                               ScalarSpec("doc_topic_concentration_", "positive", required=False),
                               ScalarSpec("stick_concentration_", "positive", required=False),
                               ScalarSpec("refit_sweeps_", "count", required=False))


@dataclass(frozen=True)
class Entry:
    """One estimator: its command-line name, class name, defining module, the fitted attributes
    (beyond ``components_`` and ``n_features_in_``) that a saved model must hold, and the fitted
    arrays and scalars a saved model may hold (:class:`ArraySpec`, :class:`ScalarSpec`: every other
    name is refused on load)."""

    cli_name: str
    class_name: str
    module: str
    required_state: tuple = ()
    summary: str = ""
    arrays: tuple = ()
    scalars: tuple = ()
    keeps_random_state: bool = False  # random_state_, a generator that partial_fit continues (its state in meta)

    @property
    def cls(self):
        """The estimator class (imported on first use)."""
        return getattr(import_module(self.module), self.class_name)

    def array_spec(self, name: str) -> ArraySpec | None:
        """The :class:`ArraySpec` of a fitted array attribute, or None for a name this estimator lacks."""
        return next((a for a in self.arrays if a.name == name), None)

    def scalar_spec(self, name: str) -> ScalarSpec | None:
        """The :class:`ScalarSpec` of a fitted scalar attribute, or None for a name this estimator lacks."""
        return next((a for a in self.scalars if a.name == name), None)

    @property
    def known_state(self) -> tuple:
        """The names of every fitted attribute a saved model may hold."""
        return tuple(dict.fromkeys([a.name for a in self.arrays] + [s.name for s in self.scalars]))

    @property
    def required(self) -> tuple:
        """The names of the fitted attributes a saved model must hold (``required_state`` among them)."""
        names = [a.name for a in self.arrays if a.required] + [s.name for s in self.scalars if s.required]
        return tuple(dict.fromkeys(names + list(self.required_state)))


ENTRIES = (
    Entry("plsa", "PLSA", "topicvb.models.plsa", (), "pLSA by (alternating) EM", _PLSA_ARRAYS, _PLSA_SCALARS),
    Entry("batch", "BatchLDA", "topicvb.models.batch_lda", _LDA_STATE, "batch variational Bayes LDA",
          _LDA_ARRAYS, _LDA_SCALARS),
    Entry("collapsed", "CollapsedLDA", "topicvb.models.collapsed_lda", _LDA_STATE,
          "collapsed variational Bayes LDA (CVB0 / CVB)", _LDA_ARRAYS, _LDA_SCALARS),
    Entry("online", "OnlineLDA", "topicvb.models.online_lda", _LDA_STATE + ("n_batch_iter_", "n_docs_seen_"),
          "online (stochastic variational) LDA", _LDA_ARRAYS, _LDA_SCALARS + _STREAM_SCALARS, True),
    Entry("scvb0", "StochasticCollapsedLDA", "topicvb.models.stochastic_cvb0",
          _LDA_STATE + ("n_batch_iter_", "n_docs_seen_", "total_tokens_"), "stochastic collapsed VB LDA (SCVB0)",
          _LDA_ARRAYS, _LDA_SCALARS + _STREAM_SCALARS + (ScalarSpec("total_tokens_", "positive"),), True),
    Entry("hdp", "HDP", "topicvb.models.hdp", _LDA_STATE + ("n_components_",),
          "hierarchical Dirichlet process by CVB0: infers the number of topics (--k: the truncation level)",
          _HDP_ARRAYS, _HDP_SCALARS),
)

_BY_CLI = {e.cli_name: e for e in ENTRIES}
_BY_CLASS = {e.class_name: e for e in ENTRIES}


def cli_names() -> list[str]:
    """The command-line names, in registry order."""
    return [e.cli_name for e in ENTRIES]


def class_names() -> list[str]:
    """The class names, in registry order."""
    return [e.class_name for e in ENTRIES]


def entry(name: str) -> Entry:
    """The entry of a command-line name (``"batch"``) or a class name (``"BatchLDA"``).

    Raises
    ------
    ValueError
        If ``name`` is neither.
    """
    found = _BY_CLI.get(name) or _BY_CLASS.get(name)
    if found is None:
        raise ValueError(f"Unknown topic model {name!r}; expected one of {cli_names()} (or the class names "
                         f"{class_names()}).")
    return found


def estimator_class(name: str):
    """The estimator class of a command-line name or a class name (see :func:`entry`)."""
    return entry(name).cls


# The estimator the package picks where the user does not name one (``make_topic_pipeline``,
# ``topicvb fit`` and ``topicvb demo``, ``select_n_topics``): the best held-out perplexity on every
# corpus of the quality benchmark (benchmarks/bench_quality.py, issue #17), with its moves on; on a corpus
# large enough for storage="auto" to keep only the counts, its sweeps in SQUAREM cycles (issue #18).
RECOMMENDED = "collapsed"
RECOMMENDED_PARAMS = {"learn_priors": True, "acceleration": "squarem"}


def recommended_estimator(**params):
    """A new instance of the recommended estimator, :class:`topicvb.CollapsedLDA` with
    ``learn_priors=True`` (and its default moves) and ``acceleration="squarem"`` (which applies where
    ``storage="auto"`` keeps only the counts), with ``params`` set on top.

    Its memory is n_nonzero x n_components floats for the responsibilities (half with
    ``dtype="float32"``), and up to three times that while a move is proposed (see
    :class:`topicvb.CollapsedLDA`); :class:`topicvb.BatchLDA` needs memory independent of K per non-zero.
    """
    return estimator_class(RECOMMENDED)(**{**RECOMMENDED_PARAMS, **params})


def entry_of(model) -> Entry | None:
    """The entry of an estimator instance or class (exact class name match), or None."""
    cls = model if isinstance(model, type) else type(model)
    return _BY_CLASS.get(cls.__name__)


# ---------------------------------------------------------------------------- checking loaded state
_SYMBOL_NAMES = {"K": "n_components", "V": "n_features_in_", "D": "n_docs", "N": "the non-zeros of X"}
# How far from 1 the sums of stored probabilities may be (rounding of a float32 or float64 normalisation).
PROBABILITY_TOLERANCE = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 1e-3}


def _entry_text(index) -> str:
    return str(index[0]) if len(index) == 1 else str(tuple(int(i) for i in index))


def _first_bad(arr: np.ndarray, bad: np.ndarray, original: np.ndarray) -> str:
    """``"entry (i, j) is v"`` for the first True of ``bad`` (``"its value is v"`` for a 0-d array)."""
    if arr.ndim == 0:
        return f"its value is {_show(original[()].item())}"
    index = np.unravel_index(int(np.argmax(bad)), arr.shape)
    return f"entry {_entry_text(index)} is {_show(original[index].item())}"


def _show(value) -> str:
    """A short repr for messages (an int of thousands of digits has none)."""
    try:
        text = repr(value)
    except ValueError:
        return "an integer too long to print"
    return text if len(text) <= 60 else text[:57] + "..."


def value_limits(float_dtype) -> tuple:
    """(smallest, largest) positive value that loaded state of a model of this float dtype may hold."""
    return VALUE_LIMITS.get(np.dtype(float_dtype), VALUE_LIMITS[np.dtype(np.float64)])


def check_state_array(value, spec: ArraySpec, dims: dict, float_dtype) -> np.ndarray:
    """``value`` as a checked array of the dtype ``spec`` names, or ValueError naming ``spec.name``.

    Parameters
    ----------
    value : ndarray
        The array read from a file.
    spec : ArraySpec
        What it must be.
    dims : dict
        Known lengths of the shape symbols (``{"K": 10, "V": 5000}``); a symbol not in it is bound
        here to this array's length (so later arrays must agree), which is why ``dims`` is modified.
    float_dtype : dtype
        The model's float dtype (float32 or float64): the cast of ``"model"`` arrays and the value limits.

    Returns
    -------
    ndarray
        A new array of float_dtype, float64 or int64.

    Raises
    ------
    ValueError
        A message (without the file, which the caller adds) naming the array and what is wrong with
        its dtype, shape or values.
    """
    name, float_dtype = spec.name, np.dtype(float_dtype)
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{name} must be an array, got {type(value).__name__}.")
    if spec.dtype == "str":
        return _check_labels(value, spec, dims)
    if spec.dtype == "int":
        if value.dtype.kind not in "iu":
            raise ValueError(f"{name} must hold integers, got dtype {value.dtype}.")
        target = np.dtype(np.int64)
    else:
        if value.dtype not in (np.float32, np.float64):
            raise ValueError(f"{name} must hold float32 or float64 numbers, got dtype {value.dtype}.")
        target = float_dtype if spec.dtype == "model" else np.dtype(np.float64)
    _check_shape(value, spec, dims)
    if spec.dtype == "int":
        bad = (value < 0) | (value > MAX_INT)
        if np.any(bad):
            raise ValueError(f"{name} must hold integers from 0 to {MAX_INT}; {_first_bad(value, bad, value)}.")
        return value.astype(np.int64)
    with np.errstate(over="ignore"):
        arr = value.astype(target)
    bad = ~np.isfinite(arr)
    if np.any(bad):
        in_dtype = f" as {target} (the model's dtype)" if target != value.dtype else ""
        raise ValueError(f"{name} must be finite{in_dtype}; {_first_bad(arr, bad, value)}.")
    _check_float_values(arr, value, spec, float_dtype)
    return arr


def _check_float_values(arr: np.ndarray, value: np.ndarray, spec: ArraySpec, float_dtype: np.dtype) -> None:
    """The value rule ``spec.values`` of a finite float array ``arr`` (``value`` before its cast, for the
    message): ValueError naming ``spec.name`` and the first value that breaks it."""
    name = spec.name
    low, high = value_limits(float_dtype)
    if spec.values == "positive":
        bad = (arr < low) | (arr > high)
        if np.any(bad):
            raise ValueError(f"{name} must be positive, from {low:g} to {high:g} for a {float_dtype} model; "
                             f"{_first_bad(arr, bad, value)}.")
    elif spec.values == "zero_or_positive":
        bad = (arr != 0) & ((arr < low) | (arr > high))
        if np.any(bad):
            raise ValueError(f"{name} must hold 0 or positive values from {low:g} to {high:g} for a {float_dtype} "
                             f"model; {_first_bad(arr, bad, value)}.")
    elif spec.values == "nonnegative":
        bad = (arr < 0) | (arr > high)
        if np.any(bad):
            raise ValueError(f"{name} must be non-negative, at most {high:g} for a {float_dtype} model; "
                             f"{_first_bad(arr, bad, value)}.")
    elif spec.values == "probabilities":
        tol = PROBABILITY_TOLERANCE.get(float_dtype, 1e-6)
        bad = (arr < 0) | (arr > 1 + tol)
        if np.any(bad):
            raise ValueError(f"{name} must hold probabilities (from 0 to 1); {_first_bad(arr, bad, value)}.")
        if arr.ndim == 2 and arr.shape[spec.sum_axis] > 0:
            sums = arr.sum(axis=spec.sum_axis, dtype=np.float64)
            off = np.abs(sums - 1.0) > tol
            if np.any(off):
                i = int(np.argmax(off))
                what = "row" if spec.sum_axis == 1 else "column"
                raise ValueError(f"{name} must hold probability distributions (each {what} summing to 1); {what} "
                                 f"{i} sums to {sums[i].item()!r}.")


def _check_labels(value: np.ndarray, spec: ArraySpec, dims: dict) -> np.ndarray:
    """Topic names: a unicode array of distinct, non-empty strings (any strings for ``"names"``), returned with
    dtype object."""
    name = spec.name
    if value.dtype.kind != "U":
        raise ValueError(f"{name} must hold strings, got dtype {value.dtype}.")
    _check_shape(value, spec, dims)
    labels = value.tolist()
    if spec.values == "names":
        return np.asarray(labels, dtype=object)
    for i, label in enumerate(labels if value.ndim == 1 else []):
        if not label.strip():
            raise ValueError(f"{name} must hold non-empty names; entry {i} is {_show(label)}.")
    if value.ndim == 1 and len(set(labels)) != len(labels):
        dup = next(label for i, label in enumerate(labels) if label in labels[:i])
        raise ValueError(f"{name} must hold distinct names; {_show(dup)} appears more than once.")
    return np.asarray(labels, dtype=object)


def _check_shape(value, spec: ArraySpec, dims: dict) -> None:
    want = spec.shape
    ok = value.ndim == len(want)
    bound = {}
    if ok:
        for axis, symbol in enumerate(want):
            n = value.shape[axis]
            if symbol is None:
                continue
            if isinstance(symbol, int):
                ok = ok and n == symbol
            elif dims.get(symbol, bound.get(symbol)) is None:
                bound[symbol] = n
            elif dims.get(symbol, bound.get(symbol)) != n:
                ok = False
    if not ok:
        known = {**{k: v for k, v in dims.items() if v is not None}, **bound}
        expected = tuple(s if isinstance(s, int) else known.get(s, "?") for s in want)
        described = " x ".join(_SYMBOL_NAMES.get(s, str(s)) if not isinstance(s, int) and s is not None
                               else "any" if s is None else str(s) for s in want) or "a single number"
        raise ValueError(f"{spec.name} does not match {described} ({spec.name} is {value.shape}, expected "
                         f"{_shape_text(expected)}).")
    dims.update(bound)


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def check_state_scalar(value, spec: ScalarSpec, float_dtype):
    """``value`` (from a file's JSON record) checked and converted (int or float), or ValueError naming it."""
    name = spec.name
    if isinstance(value, np.generic):
        value = value.item()
    if spec.kind == "array_or_none":
        if value is not None:
            raise ValueError(f"{name} must be an array or null, got {type(value).__name__} {_show(value)}.")
        return None
    if spec.kind in ("count", "features"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer, got {type(value).__name__} {_show(value)}.")
        low = 1 if spec.kind == "features" else 0
        if not low <= value <= MAX_INT:
            raise ValueError(f"{name} must be an integer from {low} to {MAX_INT}, got {_show(value)}.")
        return int(value)
    if spec.kind == "positive_or_none" and value is None:
        return None
    if spec.kind in ("positive", "positive_or_none"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a positive number, got {type(value).__name__} {_show(value)}.")
        low, high = value_limits(float_dtype)
        try:
            number = float(value)
        except OverflowError:  # an int beyond float's range
            number = float("inf")
        if not low <= number <= high:  # also False for NaN
            raise ValueError(f"{name} must be positive and finite, from {low:g} to {high:g} for a "
                             f"{np.dtype(float_dtype)} model; got {_show(value)}.")
        return number
    raise ValueError(f"{name}: unknown kind {spec.kind!r} in the registry.")  # pragma: no cover
