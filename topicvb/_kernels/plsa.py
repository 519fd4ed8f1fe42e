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

The responsibilities of a non-zero are computed on the fly and never stored. An EM iteration is two
:func:`sweep` calls over the non-zeros, one by documents (n_dk, and the log-likelihood of the current
model, over the CSR arrays) and one by terms (n_wk, over the same matrix in CSC form, rows ascending),
each followed by its M-step (:func:`normalise_rows`, :func:`normalise_columns`: normalising, with
optional Dirichlet smoothing). The term sweep is given the new P(z | d) (alternating EM) or the old one
(Hofmann's simultaneous EM).
"""

import math

import numpy as np
from numba import njit

from .vec import axpy, axpy4, dot, dot4
from .workers import run_items

CHUNK = 64
ROW_BLOCK = 256  # rows per block of the column sums in normalise_columns (a fixed order)


@njit(cache=True, nogil=True)
def balanced_bounds(ptr, n_parts):
    """Split the rows of a compressed matrix (row pointer ``ptr``) into ``n_parts`` contiguous ranges of
    about equal non-zeros: range i is rows bounds[i]:bounds[i + 1] (int64, (n_parts + 1,))."""
    n_rows = ptr.shape[0] - 1
    total = ptr[n_rows]
    bounds = np.empty(n_parts + 1, dtype=np.int64)
    bounds[0] = 0
    row = 0
    for i in range(1, n_parts):
        target = (total * i) // n_parts
        while row < n_rows and ptr[row] < target:
            row += 1
        bounds[i] = row
    bounds[n_parts] = n_rows
    return bounds


@njit(cache=True, nogil=True, inline="always")
def _ratio(c, s):
    # s == 0: the model gives the entry probability 0 (every theta_k phi_kw is 0: an excluded term, or a MAP
    # estimate with a prior below 1 that zeroed it), so it adds nothing to any topic; a huge ratio would add
    # huge / 0 * x terms that the final own_b factor only cancels in float64 (in float32 they overflow to inf,
    # and inf * 0 is NaN)
    if s <= 0:
        return c * 0.0
    if s < 1e-300:
        s = 1e-300
    return c / s


@njit(cache=True, nogil=True, inline="always")
def _log_term(c, s):
    if s < 1e-300:
        s = 1e-300
    return c * math.log(s)


def sweep(ptr, idx, vals, own, other, own_b, other_b, tempered, want_loglik, block_rows, n_parts, acc, loglik):
    """One half of an EM iteration, on a compressed matrix with sorted indices:

        acc[i, k] = own_b[i, k] * sum_j vals[j] other_b[idx[j], k] / (own_b[i] . other_b[idx[j]])
        loglik[i] = sum_j vals[j] log(own[i] . other[idx[j]])          (when want_loglik)

    over the entries j of row i (``ptr[i]:ptr[i + 1]``). Rows by documents (``ptr, idx, vals`` = CSR,
    ``own`` = theta, ``other`` = phi_t) give the expected counts n_dk for the theta update; rows by
    terms (the CSC arrays of the same matrix, ``own`` = phi_t, ``other`` = theta) give
    n_wk for the phi update. ``own_b``/``other_b`` are the arrays raised to the tempering exponent
    (the arrays themselves, and ``tempered`` False, for plain EM). Scalars s below 1e-300 count as
    1e-300 (in the logarithm too); an entry with s = 0 adds nothing to acc (its ratio is 0). acc
    (n_rows, K; the dtype of ``own``) and loglik (float64, (n_rows,)) are overwritten.

    Cache blocking: ``other`` is visited in blocks of ``block_rows`` rows (sized to half a core's L2
    cache by the caller), each block by every row of the part before the next block, so the gathered
    rows come from L2 more often (``benchmarks/profile_plsa.py``; results in BENCHMARKS.md). Four entries are taken at a time (``vec.dot4``/``vec.axpy4``), so four
    rows are in flight and the accumulator row is loaded and stored once for four. Each row of ``own``
    keeps a cursor into its entries; they must be in increasing index order for the blocking to work
    (any order gives the same sums, visited in worse order). Threads take ``n_parts`` contiguous row
    ranges of equal non-zeros; every row is summed in its own entry order, so the results do not depend
    on the number of parts or threads. They do depend, in the last bits, on ``block_rows`` (groups of four
    restart at block edges), which the caller derives from the L2 size.
    """
    n_rows = ptr.shape[0] - 1
    n_other = other.shape[0]
    block_rows = max(1, int(block_rows))
    n_parts = max(1, int(n_parts))
    n_blocks = max(1, (n_other + block_rows - 1) // block_rows)
    bounds = balanced_bounds(ptr, n_parts)
    cursor = ptr[:-1].copy()
    # the block of each row's next entry (n_blocks when none is left): the block loop skips a row by
    # reading 4 bytes of a sequential array, not its cursor, end and next index
    next_block = np.empty(n_rows, dtype=np.int32)
    run_items(_sweep_parts, n_parts, n_parts, ptr, idx, vals, own, other, own_b, other_b, tempered, want_loglik,
              block_rows, n_blocks, bounds, cursor, next_block, acc, loglik, work=2 * idx.shape[0] * own.shape[1])


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _sweep_parts(worker, workers, n_parts, ptr, idx, vals, own, other, own_b, other_b, tempered, want_loglik,
                 block_rows, n_blocks, bounds, cursor, next_block, acc, loglik):
    """:func:`sweep` of the row ranges (parts) in this worker's share"""
    # One long kernel on purpose: the block loop, the per-row cursors and the four-entry steps share
    # the part's state (cursor, next_block, accumulator rows) inside one work item; split up,
    # that state would cross function boundaries in the innermost loop.
    n_topics = own.shape[1]
    for part in range(worker * n_parts // workers, (worker + 1) * n_parts // workers):
        r0 = bounds[part]
        r1 = bounds[part + 1]
        for i in range(r0, r1):
            loglik[i] = 0.0
            for k in range(n_topics):
                acc[i, k] = 0.0
            next_block[i] = idx[ptr[i]] // block_rows if ptr[i] < ptr[i + 1] else n_blocks
        for b in range(n_blocks):
            hi = (b + 1) * block_rows
            for i in range(r0, r1):
                if next_block[i] != b:
                    continue
                j = cursor[i]
                end = ptr[i + 1]
                o = own[i]
                ob = own_b[i]
                a = acc[i]
                ll = 0.0
                while j + 4 <= end and idx[j + 3] < hi:
                    c0, c1, c2, c3 = vals[j], vals[j + 1], vals[j + 2], vals[j + 3]
                    if tempered:
                        if want_loglik:
                            s0, s1, s2, s3 = dot4(o, other[idx[j]], other[idx[j + 1]], other[idx[j + 2]],
                                                  other[idx[j + 3]])
                            ll += (_log_term(c0, s0) + _log_term(c1, s1)) + (_log_term(c2, s2) + _log_term(c3, s3))
                        x0 = other_b[idx[j]]
                        x1 = other_b[idx[j + 1]]
                        x2 = other_b[idx[j + 2]]
                        x3 = other_b[idx[j + 3]]
                        s0, s1, s2, s3 = dot4(ob, x0, x1, x2, x3)
                    else:
                        x0 = other[idx[j]]
                        x1 = other[idx[j + 1]]
                        x2 = other[idx[j + 2]]
                        x3 = other[idx[j + 3]]
                        s0, s1, s2, s3 = dot4(o, x0, x1, x2, x3)
                        if want_loglik:
                            ll += (_log_term(c0, s0) + _log_term(c1, s1)) + (_log_term(c2, s2) + _log_term(c3, s3))
                    axpy4(a, x0, x1, x2, x3, _ratio(c0, s0), _ratio(c1, s1), _ratio(c2, s2), _ratio(c3, s3))
                    j += 4
                while j < end and idx[j] < hi:
                    c0 = vals[j]
                    if tempered:
                        if want_loglik:
                            ll += _log_term(c0, dot(o, other[idx[j]]))
                        x0 = other_b[idx[j]]
                        s0 = dot(ob, x0)
                    else:
                        x0 = other[idx[j]]
                        s0 = dot(o, x0)
                        if want_loglik:
                            ll += _log_term(c0, s0)
                    axpy(a, x0, _ratio(c0, s0))
                    j += 1
                cursor[i] = j
                next_block[i] = idx[j] // block_rows if j < end else n_blocks
                loglik[i] += ll
        for i in range(r0, r1):
            for k in range(n_topics):
                acc[i, k] *= own_b[i, k]


def log_likelihood(indptr, indices, data, theta, phi_t):
    """Per-document log-likelihood sum_w c_dw log sum_k theta_dk phi_t[w, k] (float64, (D,))."""
    n_docs = indptr.shape[0] - 1
    out = np.empty(n_docs, dtype=np.float64)
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    run_items(_log_likelihoods, n_chunks, n_chunks, indptr, indices, data, theta, phi_t, out,
              work=indices.shape[0] * theta.shape[1])
    return out


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _log_likelihoods(worker, workers, n_chunks, indptr, indices, data, theta, phi_t, out):
    """:func:`log_likelihood` of the documents of the chunks in this worker's share (CHUNK each)."""
    n_docs = indptr.shape[0] - 1
    for c in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        for d in range(c * CHUNK, min(n_docs, (c + 1) * CHUNK)):
            ll = 0.0
            for p in range(indptr[d], indptr[d + 1]):
                s = dot(theta[d], phi_t[indices[p]])
                if s < 1e-300:
                    s = 1e-300
                ll += data[p] * math.log(s)
            out[d] = ll


def fold_in(indptr, indices, data, phi_t, theta, prior, max_iter, tol):
    """Folding-in: EM on P(z | d) with P(w | z) fixed, for each document independently.

    phi_t : float (V, K); theta : float (D, K) initial values (not modified)
    prior : float64 (K,), Dirichlet parameter minus one of each topic, added to the expected counts
    (0 for plain EM), with negative results clamped at zero as in the MAP estimator of the fit
    Returns theta (new array, rows sum to 1; an empty document keeps its initial row) and the
    per-document log-likelihood of the returned theta (float64, (D,)).
    """
    n_docs = indptr.shape[0] - 1
    theta = np.array(theta, copy=True, order="C")
    out_ll = np.empty(n_docs, dtype=np.float64)
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    scratch = np.empty((n_chunks, phi_t.shape[1]), dtype=np.float64)
    prior = np.ascontiguousarray(prior, dtype=np.float64)
    run_items(_fold_in_chunks, n_chunks, n_chunks, indptr, indices, data, phi_t, theta, prior, int(max_iter),
              float(tol), scratch, out_ll, work=8 * indices.shape[0] * phi_t.shape[1])
    return theta, out_ll


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _fold_in_chunks(worker, workers, n_chunks, indptr, indices, data, phi_t, theta, prior, max_iter, tol, scratch,
                    out_ll):
    """:func:`fold_in` of the documents of the work items in this worker's share (item c holds the
    documents c, c + n_chunks, ...: strided, see _kernels/__init__.py)."""
    n_docs = indptr.shape[0] - 1
    n_topics = phi_t.shape[1]
    for c in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
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
                    v = theta[d, k] * acc[k] + prior[k]
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


def normalise_rows(counts, offset, fallback):
    """The M-step for P(z | d), in place: each row of max(counts + offset, 0) divided by its sum.

    counts : float (D, K), overwritten and returned; offset : float64 (K,), the prior minus one (zeros
    for plain EM); fallback : float64 (K,), the row given to rows whose sum is not positive.
    """
    n_chunks = (counts.shape[0] + CHUNK - 1) // CHUNK
    run_items(_normalise_row_chunks, n_chunks, n_chunks, counts, np.ascontiguousarray(offset, dtype=np.float64),
              np.ascontiguousarray(fallback, dtype=np.float64), work=counts.size)
    return counts


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _normalise_row_chunks(worker, workers, n_chunks, counts, offset, fallback):
    """:func:`normalise_rows` of the rows of the chunks in this worker's share (CHUNK rows each)."""
    n_rows, n_cols = counts.shape
    for c in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        for d in range(c * CHUNK, min(n_rows, (c + 1) * CHUNK)):
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


def column_prior_rows(offset, fallback, n_cols):
    """(offset_rows, fallback_rows, step): the M-step's offset and fallback of :func:`normalise_columns` as rows
    of K values, row w of the counts reading row w * step. Floats give (1, K) rows filled with them and step 0
    (the arithmetic of a scalar); a matrix prior's (V, K) arrays give themselves (C-contiguous float64) and
    step 1. One kernel then serves both kinds of prior, with no branch on the kind (as :func:`.cvb0.prior_rows`)."""
    if isinstance(offset, np.ndarray):
        return np.ascontiguousarray(offset, dtype=np.float64), np.ascontiguousarray(fallback, dtype=np.float64), 1
    return np.full((1, n_cols), float(offset)), np.full((1, n_cols), float(fallback)), 0


def normalise_columns(counts, offset, fallback, step=None):
    """The M-step for P(w | z) in term-major layout, in place: each column of max(counts + offset, 0)
    divided by its sum; a column whose sum is not positive becomes ``fallback`` (1 / V).

    counts : float (V, K), overwritten and returned; offset, fallback : floats, or both float64 arrays
    of counts' shape (a matrix topic-word prior: the prior minus one per entry, -inf where the prior
    excludes the term, and each column's fallback, uniform over the terms its topic allows); or, with
    ``step``, both already as rows (:func:`column_prior_rows`). The column sums are taken by blocks of
    rows in one fixed order, so the result does not depend on the thread count.
    """
    n_rows, n_cols = counts.shape
    if step is None:
        offset, fallback, step = column_prior_rows(offset, fallback, n_cols)
    n_prior_rows = n_rows if step else 1
    if offset.shape != (n_prior_rows, n_cols) or fallback.shape != (n_prior_rows, n_cols):
        raise ValueError(f"offset and fallback must have shape {(n_prior_rows, n_cols)} (step {step}); got "
                         f"{offset.shape} and {fallback.shape}.")
    n_blocks = (n_rows + ROW_BLOCK - 1) // ROW_BLOCK
    parts = np.zeros((n_blocks, n_cols), dtype=np.float64)
    run_items(_clamp_blocks, n_blocks, n_blocks, counts, offset, int(step), parts, work=counts.size)
    scale = _inverse_sums(parts)
    run_items(_scale_blocks, n_blocks, n_blocks, counts, scale, fallback, int(step), work=counts.size)
    return counts


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _clamp_blocks(worker, workers, n_blocks, counts, offset, step, parts):
    """counts <- max(counts + offset, 0) in the row blocks in this worker's share, row w of counts taking
    offset[w * step] (:func:`column_prior_rows`; -inf gives 0); parts[b] = the column sums of block b."""
    n_rows, n_cols = counts.shape
    for b in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        part = parts[b]
        for w in range(b * ROW_BLOCK, min(n_rows, (b + 1) * ROW_BLOCK)):
            row = counts[w]
            off = offset[w * step]
            for k in range(n_cols):
                v = max(row[k] + off[k], 0.0)
                row[k] = v
                part[k] += v


@njit(cache=True, nogil=True)
def _inverse_sums(parts):
    """1 / (sum_b parts[b, k]) summed in block order, 0 where the sum is not positive (float64, (K,))."""
    n_blocks, n_cols = parts.shape
    scale = np.zeros(n_cols, dtype=np.float64)
    for b in range(n_blocks):
        for k in range(n_cols):
            scale[k] += parts[b, k]
    for k in range(n_cols):
        scale[k] = 1.0 / scale[k] if scale[k] > 0.0 else 0.0
    return scale


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _scale_blocks(worker, workers, n_blocks, counts, scale, fallback, step):
    """counts[w, k] *= scale[k] (fallback[w * step, k] where scale[k] is 0) in the row blocks in this worker's
    share"""
    n_rows, n_cols = counts.shape
    for b in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        for w in range(b * ROW_BLOCK, min(n_rows, (b + 1) * ROW_BLOCK)):
            row = counts[w]
            fb = fallback[w * step]
            for k in range(n_cols):
                row[k] = row[k] * scale[k] if scale[k] > 0.0 else fb[k]
