"""CollapsedLDA's start: the initial responsibilities (stored, block by block) or, with storage="counts", the
counts and variances they give without an (n_nonzero, K) array."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._start import prior_informed_start, seeded_topics

# Responsibilities per block of a start (cells x K): no n_nonzero x K temporary is made in float64.
_BLOCK = 1 << 18


def seeded_weights(X, rng, n_topics, eta):
    """(V, K): lam_kw / sum_w lam_kw of the seeded start (:func:`._start.seeded_topics`, shaped by a matrix
    prior ``eta``: :func:`._start.prior_informed_start`); a cell's start is its term's row, normalised."""
    lam = prior_informed_start(seeded_topics(X, n_topics, rng, np.float64), eta, X)
    lam /= lam.sum(axis=1, keepdims=True)  # (in place: one (K, V) array fewer at the peak)
    return np.ascontiguousarray(lam.T)


def start_blocks(X, rng, n_topics, init, eta=None):
    """The start's responsibilities, block by block of cells: yields (first cell, float64 block (B, K) whose rows
    sum to 1). "seeded": q(z_dw = k) proportional to lam_kw of the seeded start (:func:`._start.seeded_topics`,
    shaped by a matrix prior ``eta`` (K, V): :func:`._start.prior_informed_start`, 0 on excluded pairs);
    "random": Dirichlet(1) draws that break the symmetry (0 on excluded pairs), the same stream as one big
    draw."""
    indices, n_cells = X.indices, X.nnz
    size = max(1, _BLOCK // n_topics)  # cells per block
    if init == "seeded":
        weights = seeded_weights(X, rng, n_topics, eta)
        for start in range(0, n_cells, size):
            block = weights[indices[start:start + size]]
            block /= block.sum(axis=1, keepdims=True)
            yield start, block
        return
    allowed = np.ascontiguousarray((eta > 0).T) if isinstance(eta, np.ndarray) else None  # (V, K)
    for start in range(0, n_cells, size):
        block = rng.standard_gamma(1.0, size=(min(size, n_cells - start), n_topics)) + 1e-3
        if allowed is not None:
            block *= allowed[indices[start:start + block.shape[0]]]
        block /= block.sum(axis=1, keepdims=True)
        yield start, block


def start_responsibilities(X, rng, n_topics, dtype, init, eta=None):
    """The (n_nonzero, K) responsibilities of the start (:func:`start_blocks`)."""
    gamma = np.empty((X.nnz, n_topics), dtype=dtype)
    for start, block in start_blocks(X, rng, n_topics, init, eta):
        gamma[start:start + block.shape[0]] = block
    return gamma


def seeded_responsibilities(X, rng, n_topics, dtype, eta=None):
    """The seeded start's responsibilities (:func:`start_blocks`)."""
    return start_responsibilities(X, rng, n_topics, dtype, "seeded", eta)


def random_responsibilities(X, rng, n_topics, dtype, eta=None):
    """The random start's responsibilities (:func:`start_blocks`)."""
    return start_responsibilities(X, rng, n_topics, dtype, "random", eta)


def start_counts(X, rng, n_topics, dtype, init, eta, variances):
    """The counts (n_dk, n_wk) and variances (v_dk, v_wk; (0, K) unless ``variances``) of the start's
    responsibilities (``storage="counts"``: no (n_nonzero, K) array). The seeded start gives every cell of
    a term the same responsibilities W[w] (:func:`start_blocks`), so its counts are X W and the term
    totals times W; the random start's are summed block by block of cells (each block's documents are a
    contiguous range). Memory: beyond the outputs, the seeding's (:func:`._start.seeded_topics`) and one
    (V, K) array (W, which becomes n_wk, or v_wk with the variances), all in float64; the numbers are
    those of the plain NumPy/SciPy expressions."""
    D, V = X.shape
    X = sp.csr_matrix(X, dtype=np.float64)
    if init == "seeded":
        weights = seeded_weights(X, rng, n_topics, eta)
        totals = weights.sum(axis=1, keepdims=True)
        np.divide(weights, totals, out=weights, where=totals > 0)
        weights[~(totals[:, 0] > 0)] = 0.0
        term_totals = np.asarray(X.sum(axis=0)).ravel()[:, None]
        n_dk = np.ascontiguousarray(X @ weights, dtype=dtype)
        if variances:
            n_wk = np.ascontiguousarray(term_totals * weights, dtype=dtype)
            step = max(1, _BLOCK // n_topics)
            for r in range(0, V, step):  # the spread W (1 - W), in place
                block = weights[r:r + step]
                np.multiply(block, 1.0 - block, out=block)
            v_dk = np.ascontiguousarray(X @ weights, dtype=dtype)
            v_wk = np.multiply(term_totals, weights, out=weights)
        else:
            n_wk = np.multiply(term_totals, weights, out=weights)
            v_dk, v_wk = np.zeros((0, n_topics)), np.zeros((0, n_topics))
        return tuple(np.ascontiguousarray(a, dtype=dtype) for a in (n_dk, n_wk, v_dk, v_wk))
    indptr = X.indptr
    n_dk, n_wk = np.zeros((D, n_topics)), np.zeros((V, n_topics))
    v_dk, v_wk = np.zeros((D if variances else 0, n_topics)), np.zeros((V if variances else 0, n_topics))
    for start, block in start_blocks(X, rng, n_topics, init, eta):
        end = start + block.shape[0]
        rows = np.searchsorted(indptr, np.arange(start, end), side="right") - 1  # the cells' documents
        first, last = rows[0], rows[-1]
        cells = np.arange(block.shape[0])
        by_doc = sp.csr_matrix((np.ones(cells.size), (rows - first, cells)), shape=(last - first + 1, cells.size))
        terms, where = np.unique(X.indices[start:end], return_inverse=True)
        by_term = sp.csr_matrix((np.ones(cells.size), (where, cells)), shape=(terms.size, cells.size))
        if variances:
            spread = block * (1.0 - block)
            spread *= X.data[start:end, None]
            v_dk[first:last + 1] += by_doc @ spread
            v_wk[terms] += by_term @ spread
        block *= X.data[start:end, None]  # (the block is this loop's own)
        n_dk[first:last + 1] += by_doc @ block
        n_wk[terms] += by_term @ block
    out = [n_dk, n_wk, v_dk, v_wk]
    del n_dk, n_wk, v_dk, v_wk
    for i, a in enumerate(out):  # (one float64 array at a time converted)
        out[i] = a.astype(dtype, copy=False)
        del a
    return tuple(out)
