"""CVB0 / CVB sweeps that store counts only: each document recomputes its responsibilities (issue #22).

The stored-responsibility sweeps (:mod:`.cvb0`) keep gamma, a K-vector per non-zero cell: 8 K bytes
per cell, 800 MB for a million cells at K = 100. Here the state is the counts alone, n_dk (D, K),
n_wk (V, K) (and CVB's variances v_dk, v_wk): a sweep freezes the topic-term counts, and each
document, on its own (so documents run in parallel), rebuilds its cells' responsibilities from its
counts, makes one sequential CVB pass over its cells, and adds its new responsibilities into the next
sweep's topic-term counts.

One document d, cells (d, w) with counts c (notation of :mod:`.cvb0`; eta_wk and eta_sum_k are the
prior of the pair and the topic's total, V eta for a scalar prior):

1. *Rebuild.* The frozen n_wk hold each cell's contribution c gamma_dw from the last sweep, which is
   not stored. It is estimated by the CVB0 fixed point it satisfied: first
   g0_k propto (n_dk + alpha_k)(n_wk + eta_wk)/(n_k + eta_sum_k), then ``refine`` steps
   g_k propto (n_dk - g_k + alpha_k)(n_wk - g_k + eta_wk)/(n_k - g_k + eta_sum_k) (own token excluded),
   all cells of the document against the same counts. At a fixed point of the sweep this is the
   responsibility the cell had, so the scheme's fixed points are CVB0's; away from one the estimate
   errs by about the change of gamma in a sweep.
2. The document's counts are reset to sum_w c g (and CVB's v_dk to sum_w c g (1 - g)), so that they
   agree exactly with the document's rebuilt responsibilities.
3. *Pass.* In order, each cell: the CVB0 (CVB) update of :mod:`.cvb0` with the document counts less
   the cell's current g (exact: they are the document's own running counts) and the topic counts less
   the rebuilt g (the estimate of the cell's share of the frozen counts); the document counts move by
   c (g_new - g).
4. The final g of each cell is added, c g (and c g (1 - g)), into the next sweep's topic-term counts.

Thread-count independence: the additions of step 4 go into one int64 array per thread in fixed point
(2^-``shift`` of a token: integer sums do not depend on their order), summed and converted once
after the sweep. So the new counts are the same for any number of threads, and sum_k n_wk equals the
term's total count to within 2^-shift per cell. Memory: the counts, one (V, K) int64 array per thread
(two for CVB) and per-thread scratch of the longest document (2 x cells x K floats).
"""

import numpy as np
from numba import njit

from .workers import n_workers, run_items

CHUNK = 64


def fixed_point_shift(total_count: float) -> int:
    """Bits after the binary point of the fixed-point sums: as many as leave room for ``total_count``
    tokens (plus a factor of 4 of headroom) in an int64, at most 52 (a float64's precision)."""
    need = int(np.ceil(np.log2(max(float(total_count), 1.0) + 1.0))) + 2
    return int(max(8, min(52, 62 - need)))


def counts_sweep(indptr, indices, data, n_dk, v_dk, n_wk, v_wk, alpha, eta, eta_t, eta_sum, second_order, refine,
                 shift, max_cells=None, variances=None):
    """One sweep of the counts-only CVB0 (CVB with ``second_order``), updating every count in place.

    indptr : int64 (D + 1,); indices : int32 (nnz,); data : float64 (nnz,)
    n_dk, v_dk : (D, K) (v_dk: (0, K) unless variances are kept); n_wk, v_wk : (V, K) likewise
    variances : keep v_dk, v_wk up to date (default: ``second_order``; CVB0 keeps them for learned priors)
    alpha : float64 (K,); eta, eta_t, eta_sum : the prior as :func:`.cvb0.prior_arrays` gives it
    refine : exclusion steps of the rebuild (>= 0); shift : the fixed-point bits (:func:`fixed_point_shift`)
    max_cells : the largest number of cells of a document (computed when None)
    Returns the mean absolute change of the responsibilities per cell and topic (rebuilt to final).
    """
    n_docs = indptr.shape[0] - 1
    n_terms, n_topics = n_wk.shape
    variances = bool(second_order) if variances is None else bool(variances) or bool(second_order)
    if max_cells is None:
        max_cells = int(np.max(np.diff(indptr))) if n_docs else 0
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    workers = n_workers(n_chunks, work=(2 + refine) * 4 * indices.shape[0] * n_topics)
    acc = np.zeros((workers, n_terms, n_topics), dtype=np.int64)
    vacc = np.zeros((workers if variances else 0, n_terms, n_topics), dtype=np.int64)
    scratch = np.empty((workers, 2 * max_cells + 1, n_topics), dtype=np.float64)
    change = np.zeros(workers, dtype=np.float64)
    run_items(_counts_chunks, n_chunks, n_chunks, indptr, indices, data, n_dk, v_dk, n_wk, v_wk,
              n_wk.sum(axis=0, dtype=np.float64), v_wk.sum(axis=0, dtype=np.float64) if second_order else eta_sum,
              np.ascontiguousarray(alpha, dtype=np.float64), float(eta), eta_t, eta_sum, bool(second_order), variances,
              int(refine), float(2.0 ** shift), acc, vacc, scratch, change, workers=workers)
    unit = 2.0 ** -shift
    n_wk[...] = acc.sum(axis=0) * unit
    if variances:
        v_wk[...] = vacc.sum(axis=0) * unit
    return float(change.sum()) / max(1, indices.shape[0] * n_topics)


@njit(nogil=True, inline="always")  # (inlined in numba's IR, as cvb0._weight)
def _weight(ndk, nwk, nk, alpha_k, eta_wk, eta_k, vd, vw, vk, second_order):
    """Unnormalised responsibility of one topic from counts that already exclude the token (clamped at 0)."""
    if ndk < 0.0:
        ndk = 0.0
    if nwk < 0.0:
        nwk = 0.0
    if nk < 0.0:
        nk = 0.0
    a = ndk + alpha_k
    b = nwk + eta_wk
    z = nk + eta_k
    val = a * b / z
    if second_order and b > 0.0:
        if vd < 0.0:
            vd = 0.0
        if vw < 0.0:
            vw = 0.0
        if vk < 0.0:
            vk = 0.0
        val *= np.exp(-vd / (2.0 * a * a) - vw / (2.0 * b * b) + vk / (2.0 * z * z))
    return val


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
def _cell(out, d, w, n_dk, v_dk, n_wk, v_wk, n_k, v_k, alpha, eta, eta_t, eta_sum, matrix, second_order,
          own_d, own_w, exclude):
    """out[:] = the normalised update of cell (d, w): the document counts less ``own_d`` (its current
    responsibilities), the topic counts less ``own_w`` (its share of the frozen counts), each one token;
    with ``exclude`` False nothing is taken out (the rebuild's first guess)."""
    n_topics = out.shape[0]
    v_eta = eta_sum[0] if matrix else eta * n_wk.shape[0]
    total = 0.0
    for k in range(n_topics):
        xd = own_d[k] if exclude else 0.0
        xw = own_w[k] if exclude else 0.0
        e_wk = eta_t[w, k] if matrix else eta
        e_k = eta_sum[k] if matrix else v_eta
        vd = vw = vk = 0.0
        if second_order:
            vd = v_dk[d, k] - xd * (1.0 - xd)
            vw = v_wk[w, k] - xw * (1.0 - xw)
            vk = v_k[k] - xw * (1.0 - xw)
        val = _weight(n_dk[d, k] - xd, n_wk[w, k] - xw, n_k[k] - xw, alpha[k], e_wk, e_k, vd, vw, vk, second_order)
        out[k] = val
        total += val
    if not total > 0.0:  # every weight underflowed: no preference among the topics the term may be in
        total = 0.0
        for k in range(n_topics):
            out[k] = 1.0 if not matrix or eta_t[w, k] > 0.0 else 0.0
            total += out[k]
    for k in range(n_topics):
        out[k] /= total


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _counts_chunks(worker, workers, n_chunks, indptr, indices, data, n_dk, v_dk, n_wk, v_wk, n_k, v_k, alpha, eta,
                   eta_t, eta_sum, second_order, variances, refine, scale, acc, vacc, scratch, change):
    """:func:`counts_sweep` of the chunks in this worker's share (CHUNK documents each)."""
    n_docs = indptr.shape[0] - 1
    n_topics = n_wk.shape[1]
    matrix = eta_t.shape[0] > 0
    work = scratch[worker]
    half = (work.shape[0] - 1) // 2
    tmp = work[2 * half]
    for ch in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        for d in range(ch * CHUNK, min(n_docs, (ch + 1) * CHUNK)):
            start, end = indptr[d], indptr[d + 1]
            if start == end:
                continue
            # 1. rebuild: rows 0..m-1 of ``work`` hold the rebuilt g (the cells' shares of the frozen counts)
            for p in range(start, end):
                _cell(work[p - start], d, indices[p], n_dk, v_dk, n_wk, v_wk, n_k, v_k, alpha, eta, eta_t, eta_sum,
                      matrix, second_order, tmp, tmp, False)
            for _ in range(refine):
                for p in range(start, end):
                    own = work[p - start]
                    _cell(tmp, d, indices[p], n_dk, v_dk, n_wk, v_wk, n_k, v_k, alpha, eta, eta_t, eta_sum,
                          matrix, second_order, own, own, True)
                    for k in range(n_topics):
                        own[k] = tmp[k]
            # 2. the document's counts from the rebuilt g; rows half.. of ``work`` hold the running g
            for k in range(n_topics):
                n_dk[d, k] = 0.0
                if variances:
                    v_dk[d, k] = 0.0
            for p in range(start, end):
                c = data[p]
                for k in range(n_topics):
                    g = work[p - start, k]
                    work[half + p - start, k] = g
                    n_dk[d, k] += c * g
                    if variances:
                        v_dk[d, k] += c * g * (1.0 - g)
            # 3. one sequential pass
            for p in range(start, end):
                c = data[p]
                cur = work[half + p - start]
                _cell(tmp, d, indices[p], n_dk, v_dk, n_wk, v_wk, n_k, v_k, alpha, eta, eta_t, eta_sum, matrix,
                      second_order, cur, work[p - start], True)
                for k in range(n_topics):
                    g_old, g_new = cur[k], tmp[k]
                    n_dk[d, k] += c * (g_new - g_old)
                    if variances:
                        v_dk[d, k] += c * (g_new * (1.0 - g_new) - g_old * (1.0 - g_old))
                    cur[k] = g_new
            # 4. into the next sweep's topic-term counts, in fixed point
            for p in range(start, end):
                c = data[p]
                w = indices[p]
                for k in range(n_topics):
                    g = work[half + p - start, k]
                    change[worker] += abs(g - work[p - start, k])
                    acc[worker, w, k] += np.int64(np.rint(c * g * scale))
                    if variances:
                        vacc[worker, w, k] += np.int64(np.rint(c * g * (1.0 - g) * scale))


def counts_log_likelihood(indptr, indices, data, n_dk, n_wk, alpha, eta, eta_t, eta_sum):
    """sum_dw c_dw log sum_k theta_dk phi_kw of the point estimates theta_dk = (n_dk + alpha_k) /
    (N_d + sum alpha), phi_kw = (n_wk + eta_wk) / (n_k + eta_sum_k), computed from the counts on the fly
    (no (D, K) or (V, K) copy); per-document sums, so the result does not depend on the thread count."""
    n_docs = indptr.shape[0] - 1
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    out = np.zeros(n_docs, dtype=np.float64)
    inv_total = 1.0 / (n_wk.sum(axis=0, dtype=np.float64) + (eta_sum if eta_t.shape[0] else eta * n_wk.shape[0]))
    run_items(_log_likelihood_chunks, n_chunks, n_chunks, indptr, indices, data, n_dk, n_wk,
              np.ascontiguousarray(alpha, dtype=np.float64), float(eta), eta_t, inv_total, out,
              work=indices.shape[0] * n_wk.shape[1])
    return float(out.sum())


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _log_likelihood_chunks(worker, workers, n_chunks, indptr, indices, data, n_dk, n_wk, alpha, eta, eta_t, inv_total,
                           out):
    """:func:`counts_log_likelihood` of the documents of the chunks in this worker's share."""
    n_docs = indptr.shape[0] - 1
    n_topics = n_wk.shape[1]
    matrix = eta_t.shape[0] > 0
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    for ch in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        for d in range(ch * CHUNK, min(n_docs, (ch + 1) * CHUNK)):
            start, end = indptr[d], indptr[d + 1]
            if start == end:
                continue
            length = 0.0
            for k in range(n_topics):
                length += n_dk[d, k]
            norm = 1.0 / (length + alpha_sum)
            total = 0.0
            for p in range(start, end):
                w = indices[p]
                s = 0.0
                for k in range(n_topics):
                    e = eta_t[w, k] if matrix else eta
                    s += (n_dk[d, k] + alpha[k]) * (n_wk[w, k] + e) * inv_total[k]
                total += data[p] * np.log(s * norm)
            out[d] = total
