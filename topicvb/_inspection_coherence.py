"""Per-topic coherence given to :func:`topicvb.inspection.summary` and :func:`topicvb.report.report`: precomputed
values or a reference corpus, told apart and checked with messages naming the parameter (shared by both)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from .evaluation.coherence import MEASURES, CoherenceScores, ReferenceCorpus, as_reference

_MEASURE_NAMES = "{" + ", ".join(repr(m) for m in sorted(MEASURES)) + "}"


def check_coherence_measure(measure, caller: str) -> str:
    """``measure`` when it is one of the coherence measures, else ``ValueError`` naming ``coherence_measure``."""
    if not (isinstance(measure, str) and measure in MEASURES):
        raise ValueError(f"{caller}: coherence_measure must be one of {_MEASURE_NAMES}, got {measure!r}.")
    return measure


def is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def coherence_values(coherence, n_topics: int, caller: str, name: str = "coherence"):
    """``(values, measure name)`` when ``coherence`` holds precomputed values (a CoherenceScores, or a 1-D array-like
    of numbers: list, tuple, ndarray, pandas Series), None when it is (or may be) a reference corpus; errors name
    the parameter, ``name``."""
    if isinstance(coherence, CoherenceScores):
        values, measure = coherence.per_topic, coherence.measure
    elif (isinstance(coherence, (str, bytes, ReferenceCorpus)) or sp.issparse(coherence)
          or (hasattr(coherence, "X") and hasattr(coherence, "vocabulary"))):
        return None
    elif hasattr(coherence, "__array__"):  # an ndarray, a pandas Series, ...
        try:
            arr = np.asarray(coherence)
        except (TypeError, ValueError):
            return None
        if arr.dtype.kind == "O":
            try:
                arr = arr.astype(np.float64)
            except (TypeError, ValueError):
                return None  # token lists in an object array: a reference corpus
        if arr.dtype.kind not in "iuf":
            if arr.ndim >= 2 and arr.dtype.kind in "US":
                return None  # tokenised documents of equal length
            raise TypeError(f"{caller}: {name} must be per-topic values (numbers) or a reference corpus, got an "
                            f"array of dtype {arr.dtype}.")
        values, measure = arr, "coherence"
    elif isinstance(coherence, Sequence):
        items = list(coherence)
        if items and not all(is_number(v) for v in items):
            return None  # token lists, an (X, vocabulary) pair: a reference corpus
        values, measure = items, "coherence"
    else:
        return None
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        raise ValueError(f"{caller}: {name} is empty; give one value per topic ({n_topics}) or a reference corpus.")
    if values.ndim != 1:
        raise ValueError(f"{caller}: {name} must be 1-D, one value per topic ({n_topics}), got shape "
                         f"{values.shape}.")
    if values.shape[0] != n_topics:
        raise ValueError(f"{caller}: {name} has {values.shape[0]} values, but the model has {n_topics} topics; give "
                         "one value per topic (or a reference corpus).")
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:  # (topicvb's measures never give one: a NaN would sort and chart as no number can)
        raise ValueError(f"{caller}: {name} must hold finite values, but topic {int(bad[0])}'s is {values[bad[0]]}.")
    return values, measure


def reference_of(coherence, caller: str, name: str = "coherence"):
    """``coherence`` as a reference corpus (:func:`topicvb.evaluation.coherence`'s ``as_reference``); its errors
    name the parameter, ``name``."""
    try:
        return as_reference(coherence)
    except (TypeError, ValueError) as exc:
        kind = TypeError if isinstance(exc, TypeError) else ValueError
        raise kind(f"{caller}: {name} must be per-topic values (one number per topic) or a reference corpus: "
                   f"{exc}") from None
