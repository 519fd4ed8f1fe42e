"""Checks shared by evaluation, inspection and plotting: models, count matrices, vocabularies, seeds.

Evaluation sees a model only through ``components_`` (K x V), ``transform`` and, where present,
``topic_word_distribution()`` and the priors, so every topicvb estimator, scikit-learn's
``LatentDirichletAllocation`` and a wrapped peer topic-word matrix are measured the same way.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Set

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from .._completion import normalised_rows  # (the models' score reads their rows through it too)
from .._config import quiet_convergence
from .._validation import as_csr, check_matrix_type, check_not_single_str, drop_negligible_counts


def check_model(model, caller: str) -> None:
    """Raise ``TypeError`` unless ``model`` looks like a topic model, ``NotFittedError`` if unfitted."""
    if model is None or isinstance(model, (np.ndarray, list, tuple)) or sp.issparse(model):
        raise TypeError(
            f"{caller} expects a fitted topic model (with components_ and transform), got "
            f"{type(model).__name__}. Wrap a bare topic-word matrix in topicvb.evaluation.FixedTopicModel."
        )
    from sklearn.pipeline import Pipeline

    if isinstance(model, Pipeline):
        raise TypeError(
            f"{caller} expects a fitted topic model, got a {type(model).__name__} (a vectorizer and a model, such as "
            f"topicvb.load returns for a model saved with its vectorizer); pass its model, pipe.model, with counts "
            f"from its vectorizer, pipe.vectorizer.transform(texts) (or use pipe.summary(), pipe.top_words())."
        )
    if not callable(getattr(model, "transform", None)):
        raise TypeError(
            f"{caller} expects a topic model with a transform method, got {type(model).__name__}. "
            "Wrap a bare topic-word matrix in topicvb.evaluation.FixedTopicModel."
        )
    if callable(getattr(model, "fit", None)) and isinstance(model, BaseEstimator):  # (a duck-typed peer: components_)
        try:
            check_is_fitted(model)
        except NotFittedError:
            raise NotFittedError(
                f"This {type(model).__name__} instance is not fitted yet; {caller} needs a fitted model. "
                "Call fit first."
            ) from None
    comp = getattr(model, "components_", None)
    if comp is None:
        raise NotFittedError(
            f"{caller} needs the topics of the model, but this {type(model).__name__} has no components_. "
            "Call fit first."
        )
    if np.ndim(comp) != 2:
        raise ValueError(f"{caller}: model.components_ must be 2-D (n_topics, n_terms), got shape {np.shape(comp)}.")


def n_terms_of(model) -> int:
    return int(np.shape(model.components_)[1])


def n_topics_of(model) -> int:
    return int(np.shape(model.components_)[0])


def _dense(value, what: str) -> np.ndarray:
    """A model's array output (a sparse matrix too) as a new float64 ndarray (:func:`numeric_array`)."""
    arr = numeric_array(value.toarray() if sp.issparse(value) else value, what, "", "an array of real numbers")
    return np.array(arr, dtype=np.float64)  # (a copy: never the model's own array)


def topic_word(model) -> np.ndarray:
    """P(term | topic) as float64 (K, V): ``topic_word_distribution()`` when the model has it (its rows normalised
    when they do not sum to 1), else the rows of ``components_`` normalised; both checked."""
    method = getattr(model, "topic_word_distribution", None)
    what = "model.topic_word_distribution()" if callable(method) else "model.components_"
    phi = _dense(method() if callable(method) else model.components_, what)
    totals = phi.sum(axis=1, keepdims=True)
    if phi.ndim != 2 or np.any(~np.isfinite(phi)) or np.any(phi < 0) or np.any(~(totals > 0)) \
            or np.any(~np.isfinite(totals)):
        bad = np.flatnonzero(~(np.all(np.isfinite(phi) & (phi >= 0), axis=1) & (totals[:, 0] > 0)
                               & np.isfinite(totals[:, 0]))) if phi.ndim == 2 else []
        where = f" (topic {int(bad[0])})" if len(bad) else ""
        raise ValueError(f"{what} must hold non-negative finite weights with a positive sum in every topic "
                         f"row{where}.")
    if np.any(np.abs(totals - 1.0) > 1e-9):  # (a model's own distribution is used as it is)
        phi = phi / totals
    return phi


def top_columns(scores, n: int) -> np.ndarray:
    """The columns of the ``n`` largest entries of each row of ``scores`` (K, V), largest first and ties in column
    order: the first ``n`` of a stable argsort of ``-scores``, found row by row without sorting whole rows (an
    argsort of a large (K, V) matrix makes a (K, V) int64 array beside its negated copy)."""
    scores = np.asarray(scores)
    K, V = scores.shape
    n = min(int(n), V)
    if n * 8 >= V:  # (a large share of each row: the full sort costs little more)
        return np.argsort(-scores, axis=1, kind="stable")[:, :n]
    out = np.empty((K, n), dtype=np.intp)
    for k in range(K):
        neg = -scores[k]
        threshold = np.partition(neg, n - 1)[n - 1]
        if np.isnan(threshold):  # (fewer than n comparable entries: sort the row as argsort does)
            out[k] = np.argsort(neg, kind="stable")[:n]
            continue
        candidates = np.flatnonzero(neg <= threshold)  # (in column order: the stable sort keeps ties so)
        out[k] = candidates[np.argsort(neg[candidates], kind="stable")[:n]]
    return out


def check_counts(X, model, *, name: str = "X", caller: str) -> sp.csr_matrix:
    """Validate a document-term count matrix against ``model``'s vocabulary width; canonical CSR float64 without
    stored zeros."""
    if X is None:
        raise TypeError(f"{caller} needs {name}, a document-term count matrix; got None.")
    check_matrix_type(X, caller, name)  # (texts, a Corpus, tokens: said so, not as a failed conversion to float)
    columns, fitted = getattr(X, "columns", None), getattr(model, "feature_names_in_", None)
    if columns is not None and fitted is not None and [str(c) for c in columns] != [str(c) for c in fitted]:
        raise ValueError(f"{caller}: the columns of {name} are not the feature names the model was fitted with (in "
                         "that order); select them as at fit, e.g. X[list(model.feature_names_in_)].")
    try:
        X = check_array(X, accept_sparse=("csr", "csc", "coo", "lil", "dok", "bsr", "dia"), dtype=np.float64,
                        ensure_min_samples=1, ensure_min_features=1, input_name=name)
    except ValueError as exc:
        raise ValueError(f"{caller}: {name} is not a valid count matrix: {exc}") from None
    if model is not None:
        expected = n_terms_of(model)
        if X.shape[1] != expected:
            raise ValueError(
                f"{name} has {X.shape[1]} terms (columns), but this {type(model).__name__} was fitted on "
                f"{expected}. Transform with the vectorizer used for fit."
            )
    X = as_csr(X, dtype=np.float64)
    n_neg = int(np.count_nonzero(X.data < 0))
    if n_neg:
        raise ValueError(
            f"{caller} expects non-negative term counts; {name} has {n_neg} negative "
            f"entr{'y' if n_neg == 1 else 'ies'}."
        )
    return drop_negligible_counts(X)  # (stored zeros dropped: the held-out split is then that of model.score)


def fit_quietly(model, X):
    """``model.fit(X)`` without its ``ConvergenceWarning`` (a capped ``max_iter`` on purpose, or one candidate of
    many). topicvb's estimators are quietened in this thread only (:func:`topicvb._config.quiet_convergence`);
    for another library's, the process-wide filters are swapped for the call (``warnings.catch_warnings``, which
    is not thread-safe: the only way to silence them)."""
    if type(model).__module__.startswith("topicvb."):  # (its fit asks _config whether to warn)
        with quiet_convergence():
            return model.fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)


def doc_topic(model, X: sp.csr_matrix) -> np.ndarray:
    """``model.transform(X)`` as float64 with rows normalised to sum to 1 (for any peer model)."""
    if getattr(model, "feature_names_in_", None) is None:
        theta = _dense(model.transform(X), "model.transform(X)")
    else:  # (X is CSR now: its columns were checked against feature_names_in_ before; the filters are swapped only
        # here, where the model would warn: warnings.catch_warnings is not thread-safe)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            theta = _dense(model.transform(X), "model.transform(X)")
    if theta.shape != (X.shape[0], n_topics_of(model)):
        raise ValueError(
            f"model.transform returned shape {theta.shape}; expected ({X.shape[0]}, {n_topics_of(model)})."
        )
    if not np.all(np.isfinite(theta)) or np.any(theta < 0):
        raise ValueError("model.transform(X) returned " + ("NaN or infinite values" if not np.all(np.isfinite(theta))
                         else "negative values") + "; topic proportions must be non-negative and finite.")
    return normalised_rows(theta, theta.shape[1], np.float64)


def prevalence_and_doc_topic(model, X: sp.csr_matrix,
                             caller: str = "topic_prevalence") -> tuple[np.ndarray, np.ndarray]:
    """Each topic's share of the tokens of X (sum_d N_d theta_dk / N), and theta = :func:`doc_topic`.

    Shared by :func:`topicvb.inspection.topic_prevalence`, :func:`topicvb.inspection.summary` and the report (which
    also need theta); ``caller`` names the function in the error for an X without tokens.
    """
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    total = lengths.sum()
    if total <= 0:
        raise ValueError(f"{caller} needs at least one token in X; every document is empty.")
    theta = doc_topic(model, X)
    return lengths @ theta / total, theta


def resolve_vocabulary(model, vocabulary, *, caller: str) -> list[str]:
    """Column names as a list of str: ``vocabulary`` (see :func:`ordered_terms`), else the model's own."""
    n = n_terms_of(model)
    if vocabulary is None:
        vocabulary = getattr(model, "feature_names_in_", None)
        if vocabulary is None:
            return [str(j) for j in range(n)]
    terms = ordered_terms(vocabulary, "vocabulary", caller)
    if len(terms) != n:
        raise ValueError(
            f"{caller}: vocabulary has {len(terms)} terms, but the model has {n} (columns of components_). "
            "Pass the vocabulary of the vectorizer used for fit."
        )
    return terms


_ORDERED_HINT = "an ordered sequence of terms, one per column (e.g. vectorizer.get_feature_names_out())"


def ordered_terms(vocabulary, name: str = "vocabulary", caller: str = "") -> list[str]:
    """The terms of ``vocabulary`` in column order, as a list of str.

    Accepted: a sequence of terms (list, tuple, array, pandas Index, ...), a topicvb ``Vocabulary``,
    and a mapping ``{term: column}`` whose values are exactly the ints 0, ..., V - 1, each once (such
    as scikit-learn's ``CountVectorizer.vocabulary_``), which is ordered by column. Any other mapping,
    and any set (whose order is arbitrary), raises ``TypeError``, as does a single str.
    """
    prefix = f"{caller}: " if caller else ""
    check_not_single_str(vocabulary, name, "a sequence of terms", caller=caller)
    to_list = getattr(vocabulary, "to_list", None)
    if callable(to_list):
        return [str(t) for t in to_list()]
    if isinstance(vocabulary, Mapping):
        n = len(vocabulary)
        terms = [None] * n
        for term, j in vocabulary.items():
            if (isinstance(j, (bool, np.bool_)) or not isinstance(j, numbers.Integral) or not 0 <= j < n
                    or terms[j] is not None):
                raise TypeError(
                    f"{prefix}{name} must be {_ORDERED_HINT}; got a {type(vocabulary).__name__} whose values are "
                    f"not the column ids 0..{n - 1} each once ({term!r}: {j!r})."
                )
            terms[int(j)] = str(term)
        return terms
    if isinstance(vocabulary, Set):
        raise TypeError(
            f"{prefix}{name} must be {_ORDERED_HINT}; got a {type(vocabulary).__name__}, whose order is arbitrary."
        )
    try:
        return [str(t) for t in vocabulary]
    except TypeError:
        raise TypeError(f"{prefix}{name} must be {_ORDERED_HINT}; got {type(vocabulary).__name__}.") from None


def numeric_array(value, name: str, caller: str, expected: str) -> np.ndarray:
    """``value`` as a float64 array; ``TypeError`` naming ``name`` unless it holds numbers (bool included)."""
    try:
        arr = np.asarray(value)
        if arr.dtype.kind == "O":
            arr = arr.astype(np.float64)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":
        what = type(value).__name__ if arr is None else f"an array of dtype {arr.dtype}"
        raise TypeError(f"{caller + ': ' if caller else ''}{name} must be {expected}, got {what}.")
    return arr.astype(np.float64, copy=False)


def check_positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive int, got {type(value).__name__} {value!r}.")
    if value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}.")
    return int(value)
