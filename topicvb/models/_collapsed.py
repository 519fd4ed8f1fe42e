"""The collapsed family's shared core (CollapsedLDA's CVB0/CVB, StochasticCollapsedLDA's SCVB0):
point estimates from expected counts, and inference of new documents with the topic counts fixed.

The cell updates themselves are numba kernels (:mod:`topicvb._kernels.cvb0`); the drivers decide
which cells in what order and how the topic counts move (a full sweep, or a stochastic step).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._config import threads
from .._kernels.cvb0 import document_counts, is_matrix, prior_rows, sweep_documents
from .._kernels.plsa import log_likelihood
from .._validation import MAX_INT, csr_arrays, used_columns, writable
from .._constraints import Interval


def term_major(eta):
    """A topic-word prior as the collapsed code keeps it: a float as is, a (K, V) matrix as a new
    C-contiguous term-major (V, K) float64 array."""
    if isinstance(eta, np.ndarray) and eta.ndim == 2:
        return np.ascontiguousarray(eta.T, dtype=np.float64)
    return eta


def topic_major(eta_t):
    """The inverse of :func:`term_major`, as the estimators expose the prior (``topic_word_prior_``)."""
    if isinstance(eta_t, np.ndarray) and eta_t.ndim == 2:
        return np.ascontiguousarray(eta_t.T)
    return eta_t


def point_estimates(n_dk, n_wk, alpha, eta):
    """theta_hat (D, K) and phi_hat term-major (V, K) from expected counts plus priors; ``eta`` a float
    or a term-major (V, K) matrix (phi_hat_kw = (n_wk + eta_wk) / (n_k + sum_w eta_wk), 0 where both are 0)."""
    theta = n_dk + alpha[None, :]
    theta /= theta.sum(axis=1, keepdims=True)
    phi_t = n_wk + eta
    phi_t /= phi_t.sum(axis=0, keepdims=True)
    return theta, phi_t


# The cells' responsibilities of new documents are held for a block of documents at a time, about this many bytes
# (a document with more cells than that alone in its block): with the topics fixed each document converges on its
# own, so the blocks give exactly the counts of one call over all of them, in memory that does not grow with X.
INFER_BLOCK_BYTES = 64 * 2**20


def infer_doc_counts(X, n_wk, alpha, eta, max_iter, tol, n_k=None, prior=None):
    """Expected document-topic counts n_dk of CSR ``X`` by CVB0 updates of its cells with the topic-term
    counts ``n_wk`` (V, K) fixed (the collapsed models' ``transform``); ``eta`` a float or a term-major
    (V, K) matrix. The documents are inferred a block at a time (:data:`INFER_BLOCK_BYTES`).

    ``n_k`` (the topic totals) and ``prior`` (``prior_rows``, ``eta`` then ignored): given when ``n_wk`` holds
    the rows of X's terms only, X's columns numbering them (:meth:`CollapsedInferenceMixin._infer`)."""
    K = n_wk.shape[1]
    dtype = n_wk.dtype
    indptr, indices, data = csr_arrays(X)
    n_wk = np.ascontiguousarray(np.maximum(n_wk, 0), dtype=dtype)
    n_k = n_wk.sum(axis=0) if n_k is None else n_k
    n_dk = np.empty((X.shape[0], K), dtype=dtype)
    empty = np.empty((0, K), dtype=dtype)
    alpha = np.asarray(alpha, dtype=np.float64)
    eta = eta if isinstance(eta, np.ndarray) or prior is not None else float(eta)
    budget = max(1, INFER_BLOCK_BYTES // (K * dtype.itemsize))  # cells of a block
    buffer = np.empty((min(X.nnz, budget), K), dtype=dtype)
    start = 0
    while start < X.shape[0]:
        # the documents whose cells fit the budget (at least one)
        stop = max(start + 1, int(np.searchsorted(indptr, indptr[start] + budget, side="right")) - 1)
        stop = min(stop, X.shape[0])
        first, last = indptr[start], indptr[stop]
        block_indptr = indptr[start:stop + 1] - first
        gamma = buffer[:last - first] if last - first <= buffer.shape[0] else np.empty((last - first, K), dtype=dtype)
        gamma.fill(1.0 / K)
        block = n_dk[start:stop]
        document_counts(block_indptr, data[first:last], gamma, block, empty, False)
        sweep_documents(block_indptr, indices[first:last], data[first:last], gamma, block, n_wk, n_k, empty, empty,
                        np.zeros(K, dtype=dtype), alpha, eta, False, True, int(max_iter), float(tol), prior)
        start = stop
    # (the sweeps add each cell's change in place: with counts of about 1e12 a cell and more, the rounding can leave
    # a count of a topic the document does not use slightly below 0, which would make its proportion negative)
    return np.maximum(n_dk, 0, out=n_dk)


class CollapsedInferenceMixin:
    """Inference of new documents with the topic-term counts fixed, shared by the collapsed models."""

    # the parameters of that inference (see TopicModelBase._parameter_constraints)
    _parameter_constraints: dict = {
        "transform_max_iter": [Interval(Integral, 1, MAX_INT)],
        "mean_change_tol": [Interval(Real, 0, None)],
    }

    def _infer(self, X):
        """CVB0 updates of new documents' cells with the fitted topic counts fixed; returns n_dk.

        The topic totals and the prior's are taken over the whole vocabulary, the term counts and the
        prior's rows for the terms X uses only (all of them for a large X: ``used_columns``), so a few
        documents cost a pass over the K x V counts, not a term-major copy of them."""
        eta = self.topic_word_prior_
        counts = np.subtract(self.components_, eta).astype(self._fitted_float, copy=False)
        np.maximum(counts, 0, out=counts)
        n_topics, n_terms = counts.shape
        n_k = counts.sum(axis=1)
        columns, X = used_columns(X, n_terms)
        if columns is not None:
            counts = counts[:, columns]
        if is_matrix(eta):
            eta_t = np.ascontiguousarray((eta if columns is None else eta[:, columns]).T, dtype=np.float64)
            prior = (eta_t, np.asarray(eta, dtype=np.float64).sum(axis=1), 1)
        else:
            prior = prior_rows(float(eta), n_terms, n_topics)
        with threads(self.n_jobs):
            return infer_doc_counts(X, counts.T, writable(self.doc_topic_prior_), None, self.transform_max_iter,
                                    self.mean_change_tol, n_k=n_k, prior=prior)

    def _doc_topic(self, X):
        return self._infer(X) + self.doc_topic_prior_[None, :]

    def _score(self, X):
        n_dk = self._infer(X)
        theta, _ = point_estimates(n_dk, np.zeros((1, self.n_components)), self.doc_topic_prior_, 1.0)
        phi_t = np.ascontiguousarray(self.topic_word_distribution().T)
        indptr, indices, data = csr_arrays(X)
        with threads(self.n_jobs):
            return float(np.sum(log_likelihood(indptr, indices, data, theta, phi_t)))

    def bound(self, X):
        """Log-likelihood of ``X`` at the point estimates, theta inferred with the topics fixed.

        A total, higher is better. theta is fitted to the scored documents themselves, so it tends
        to grow with K and is optimistic on new documents; :meth:`score` (document completion, per
        token) compares models.
        """
        return super().bound(X)
