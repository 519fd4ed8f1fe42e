"""EM for probabilistic latent semantic analysis (Hofmann 1999), on sparse counts.

Notation:

=========  =========  ==================================================================
symbol     shape      meaning
=========  =========  ==================================================================
theta      (D, K)     P(z | d), rows sum to 1
phi_t      (V, K)     P(w | z) stored term-major: phi_t[w, k] = P(w | z = k)
beta       scalar     tempering exponent (1 = plain EM, < 1 = tempered EM)
r_dwk      implicit   responsibilities P(z = k | d, w) proportional to (theta_dk phi_t[w, k])^beta
n_dk       (D, K)     sum_w c_dw r_dwk
n_wk       (V, K)     sum_d c_dw r_dwk (term-major)
=========  =========  ==================================================================

The responsibilities of a non-zero are computed on the fly and never stored: the document pass
accumulates n_dk and the per-non-zero weight c_dw / norm_dw, and the column pass of
:mod:`topicvb._kernels.sparse` turns those into n_wk without data races. The M-step (normalising,
with optional Dirichlet smoothing) is a few array operations done by the estimator.
"""

import math

import numpy as np
from numba import njit, prange

from .sparse import column_accumulate, column_index
from .vec import axpy, dot

CHUNK = 64
ROW_BLOCK = 256  # rows per block of the column sums in normalise_columns (a fixed order)


@njit(cache=True, nogil=True, parallel=True)
def _doc_pass(indptr, indices, data, theta, phi_t, theta_b, phi_t_b, tempered, n_dk, weight, loglik):
    n_docs = indptr.shape[0] - 1
    n_topics = theta.shape[1]
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    for c in prange(n_chunks):
        for d in range(c, n_docs, n_chunks):  # strided: see _kernels/__init__.py
            ll = 0.0
            for k in range(n_topics):
                n_dk[d, k] = 0.0
            for p in range(indptr[d], indptr[d + 1]):
                w = indices[p]
                s = dot(theta[d], phi_t[w])
                if s < 1e-300:
                    s = 1e-300
                ll += data[p] * math.log(s)
                if tempered:
                    s = dot(theta_b[d], phi_t_b[w])
                    if s < 1e-300:
                        s = 1e-300
                r = data[p] / s
                weight[p] = r
                axpy(n_dk[d], phi_t_b[w], r)
            for k in range(n_topics):
                n_dk[d, k] *= theta_b[d, k]
            loglik[d] = ll


@njit(cache=True, nogil=True)
def em_step(indptr, indices, data, theta, phi_t, theta_b, phi_t_b, tempered):
    """One E-step of (tempered) EM: expected counts, and the log-likelihood of the current model.

    indptr : int64 (D + 1,); indices : int32 (nnz,); data : float (nnz,) counts or weights
    theta : float (D, K); phi_t : float (V, K); theta_b, phi_t_b : the same raised to beta (pass
    theta and phi_t themselves when ``tempered`` is False)
    Returns n_dk (D, K), n_wk (V, K) in the dtype of theta / phi_t, and the per-document
    log-likelihood sum_w c_dw log sum_k theta_dk phi_t[w, k] (float64, (D,)) of the *given* model.
    """
    colptr, positions, rows = column_index(indptr, indices, phi_t.shape[0])
    return em_step_indexed(indptr, indices, data, colptr, positions, rows, theta, phi_t, theta_b, phi_t_b, tempered)


@njit(cache=True, nogil=True)
def em_step_indexed(indptr, indices, data, colptr, positions, rows, theta, phi_t, theta_b, phi_t_b, tempered):
    """:func:`em_step` given the matrix's column index (``sparse.column_index(indptr, indices, V)``),
    which the fit computes once rather than in every iteration."""
    n_docs = indptr.shape[0] - 1
    n_dk = np.empty_like(theta)
    weight = np.empty(indices.shape[0], dtype=np.float64)
    loglik = np.empty(n_docs, dtype=np.float64)
    _doc_pass(indptr, indices, data, theta, phi_t, theta_b, phi_t_b, tempered, n_dk, weight, loglik)
    n_wk = np.empty_like(phi_t)
    column_accumulate(colptr, positions, rows, weight, theta_b, phi_t_b, n_wk)
    return n_dk, n_wk, loglik


@njit(cache=True, nogil=True, parallel=True)
def log_likelihood(indptr, indices, data, theta, phi_t):
    """Per-document log-likelihood sum_w c_dw log sum_k theta_dk phi_t[w, k] (float64, (D,))."""
    n_docs = indptr.shape[0] - 1
    out = np.empty(n_docs, dtype=np.float64)
    for d in prange(n_docs):
        ll = 0.0
        for p in range(indptr[d], indptr[d + 1]):
            s = dot(theta[d], phi_t[indices[p]])
            if s < 1e-300:
                s = 1e-300
            ll += data[p] * math.log(s)
        out[d] = ll
    return out


@njit(cache=True, nogil=True, parallel=True)
def fold_in(indptr, indices, data, phi_t, theta, prior, max_iter, tol):
    """Folding-in: EM on P(z | d) with P(w | z) fixed, for each document independently.

    phi_t : float (V, K); theta : float (D, K) initial values (not modified)
    prior : float, Dirichlet parameter minus one added to the expected counts (0 for plain EM),
    with negative results clamped at zero as in the MAP estimator of the fit
    Returns theta (new array, rows sum to 1; an empty document keeps its initial row) and the
    per-document log-likelihood of the returned theta (float64, (D,)).
    """
    n_docs = indptr.shape[0] - 1
    n_topics = phi_t.shape[1]
    theta = theta.copy()
    out_ll = np.empty(n_docs, dtype=np.float64)
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    scratch = np.empty((n_chunks, n_topics), dtype=np.float64)
    for c in prange(n_chunks):
        acc = scratch[c]
        for d in range(c, n_docs, n_chunks):  # strided: see _kernels/__init__.py
            start = indptr[d]
            end = indptr[d + 1]
            if start == end:
                out_ll[d] = 0.0
                continue
            for it in range(max_iter):
                for k in range(n_topics):
                    acc[k] = 0.0
                for p in range(start, end):
                    w = indices[p]
                    s = dot(theta[d], phi_t[w])
                    if s < 1e-300:
                        s = 1e-300
                    axpy(acc, phi_t[w], data[p] / s)
                total = 0.0
                for k in range(n_topics):
                    v = theta[d, k] * acc[k] + prior
                    if v < 0.0:
                        v = 0.0
                    acc[k] = v
                    total += v
                change = 0.0
                if total > 0.0:
                    for k in range(n_topics):
                        v = acc[k] / total
                        change += abs(v - theta[d, k])
                        theta[d, k] = v
                if change / n_topics < tol:
                    break
            ll = 0.0
            for p in range(start, end):
                s = dot(theta[d], phi_t[indices[p]])
                if s < 1e-300:
                    s = 1e-300
                ll += data[p] * math.log(s)
            out_ll[d] = ll
    return theta, out_ll


@njit(cache=True, nogil=True, parallel=True)
def normalise_rows(counts, offset, fallback):
    """The M-step for P(z | d), in place: each row of max(counts + offset, 0) divided by its sum.

    counts : float (D, K), overwritten and returned; offset : float64 (K,), the prior minus one (zeros
    for plain EM); fallback : float64 (K,), the row given to rows whose sum is not positive.
    """
    n_rows, n_cols = counts.shape
    for d in prange(n_rows):
        row = counts[d]
        total = 0.0
        for k in range(n_cols):
            v = max(row[k] + offset[k], 0.0)
            row[k] = v
            total += v
        if total > 0.0:
            for k in range(n_cols):
                row[k] = row[k] / total
        else:
            for k in range(n_cols):
                row[k] = fallback[k]
    return counts


@njit(cache=True, nogil=True, parallel=True)
def normalise_columns(counts, offset, fallback):
    """The M-step for P(w | z) in term-major layout, in place: each column of max(counts + offset, 0)
    divided by its sum; a column whose sum is not positive becomes ``fallback`` (1 / V).

    counts : float (V, K), overwritten and returned; offset, fallback : floats. The column sums are
    taken by blocks of rows in one fixed order, so the result does not depend on the thread count.
    """
    n_rows, n_cols = counts.shape
    n_blocks = (n_rows + ROW_BLOCK - 1) // ROW_BLOCK
    parts = np.zeros((n_blocks, n_cols), dtype=np.float64)
    for b in prange(n_blocks):
        part = parts[b]
        for w in range(b * ROW_BLOCK, min(n_rows, (b + 1) * ROW_BLOCK)):
            row = counts[w]
            for k in range(n_cols):
                v = max(row[k] + offset, 0.0)
                row[k] = v
                part[k] += v
    scale = np.zeros(n_cols, dtype=np.float64)
    for b in range(n_blocks):
        for k in range(n_cols):
            scale[k] += parts[b, k]
    for k in range(n_cols):
        scale[k] = 1.0 / scale[k] if scale[k] > 0.0 else 0.0
    for b in prange(n_blocks):
        for w in range(b * ROW_BLOCK, min(n_rows, (b + 1) * ROW_BLOCK)):
            row = counts[w]
            for k in range(n_cols):
                row[k] = row[k] * scale[k] if scale[k] > 0.0 else fallback
    return counts
