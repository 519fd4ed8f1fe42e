"""Document completion, the core shared by the estimators' ``score`` and :mod:`topicvb.evaluation`.

Each test document's tokens are split into an observed part, from which its topic proportions theta_d
are inferred with the topics fixed, and a held-out part, scored under P(w | d) = sum_k theta_dk phi_kw
(Wallach et al. 2009's document completion). Both the models' ``score`` (a mean log-probability per
held-out token) and :func:`topicvb.evaluation.heldout_perplexity` use these two functions, so the two
agree; this module sits below both (it sees a model only through a ``doc_topic`` function and its
topic-word matrix), so that models need not import the evaluation layer above them.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ._config import threads
from ._kernels.plsa import log_likelihood
from ._validation import csr_arrays


#: Cells with this many whole tokens or more are split by a normal draw (numpy's binomial takes int64 counts).
_BINOMIAL_LIMIT = 2.0 ** 62


def split_cells(X: sp.csr_matrix, observed_fraction: float, random_state):
    """The observed and held-out parts of a checked CSR ``X`` (float64, explicit zeros removed).

    The whole part of each cell is split token by token (one binomial draw per cell, so each token is
    observed with probability ``observed_fraction``; a cell of 2**62 tokens or more, beyond numpy's int64
    binomial, takes instead a normal draw with the binomial's mean and variance, after the binomial draws); a
    fractional remainder, where there is one, goes whole to the observed part with probability
    ``observed_fraction`` (one uniform draw per such cell, after those). So the expected observed weight is
    ``observed_fraction`` of every cell, integer counts are split token by token, and the two parts add up to ``X``.
    """
    rng = check_random_state(random_state)
    whole = np.floor(X.data)
    huge = whole >= _BINOMIAL_LIMIT  # (beyond int64: a normal draw, whose relative error is negligible at such counts)
    observed = rng.binomial(np.where(huge, 0.0, whole).astype(np.int64), float(observed_fraction)).astype(np.float64)
    if huge.any():
        n, p = whole[huge], float(observed_fraction)
        observed[huge] = np.clip(np.round(n * p + np.sqrt(n * p * (1.0 - p)) * rng.standard_normal(n.size)), 0.0, n)
    remainder = X.data - whole
    partial = np.flatnonzero(remainder > 0)
    if partial.size:
        kept = rng.random_sample(partial.size) < float(observed_fraction)
        observed[partial[kept]] += remainder[partial[kept]]
    X_obs = sp.csr_matrix((observed, X.indices.copy(), X.indptr.copy()), shape=X.shape)
    X_held = sp.csr_matrix((X.data - observed, X.indices.copy(), X.indptr.copy()), shape=X.shape)
    X_obs.eliminate_zeros()
    X_held.eliminate_zeros()
    return X_obs, X_held


def completion_log_likelihoods(doc_topic, phi, X_obs: sp.csr_matrix, X_held: sp.csr_matrix, n_jobs=None) -> np.ndarray:
    """Per-document log-likelihood of the held-out tokens given the observed ones (natural log).

    ``doc_topic(X)`` gives row-normalised topic proportions of the documents of ``X`` (the model's
    ``transform``, topics fixed); ``phi`` is the (K, V) topic-word distribution. Documents without
    held-out tokens score 0 (and are not inferred); one without observed tokens is scored under the
    proportions the model gives an empty document.
    """
    out = np.zeros(X_obs.shape[0], dtype=np.float64)
    rows = np.flatnonzero(np.diff(X_held.indptr) > 0)
    if rows.size == 0:
        return out
    theta = doc_topic(X_obs[rows])
    phi_t = np.ascontiguousarray(np.asarray(phi, dtype=np.float64).T)
    indptr, indices, data = csr_arrays(X_held[rows])
    with threads(n_jobs):
        out[rows] = log_likelihood(indptr, indices, np.asarray(data, dtype=np.float64), theta, phi_t)
    return out


def normalised_rows(weights, n_topics, dtype):
    """Rows of non-negative ``weights`` normalised to sum to 1 (a row summing to 0 becomes uniform). Proportions
    that underflow (below float32's range, or subnormal) become 0 as meant, also under ``np.seterr(all="raise")``
    (PLSA's rows raised FloatingPointError there)."""
    weights = np.asarray(weights, dtype=np.float64)
    totals = weights.sum(axis=1, keepdims=True)
    with np.errstate(under="ignore"):
        out = weights / np.where(totals > 0, totals, 1.0)
        bad = totals[:, 0] <= 0
        if np.any(bad):
            out[bad] = 1.0 / n_topics
        return out.astype(dtype, copy=False)
