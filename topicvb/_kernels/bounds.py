"""Pieces of the LDA evidence lower bound (ELBO), computed exactly.

With the per-token variational distributions phi optimised out analytically given gamma and lam,
the ELBO of smoothed LDA (Blei, Ng & Jordan 2003, appendix A; Hoffman, Blei & Bach 2010, eq. 3) is

  L(gamma, lam) = sum_d sum_w c_dw log sum_k exp(E[log theta_dk] + E[log beta_kw])
               + sum_d ( lnG(sum alpha) - sum_k lnG(alpha_k)
                         + sum_k (alpha_k - gamma_dk) E[log theta_dk]
                         + sum_k lnG(gamma_dk) - lnG(sum_k gamma_dk) )
               + sum_k ( lnG(V eta) - V lnG(eta)
                         + sum_w (eta - lam_kw) E[log beta_kw]
                         + sum_w lnG(lam_kw) - lnG(sum_w lam_kw) )

``lda_doc_bound`` returns the first two lines per document, ``lda_topic_bound`` the third.
Notation as in :mod:`topicvb._kernels.estep`.

For OnlineLDA, ``svi_topic_update`` makes the stochastic step of lam and, in the same pass over
blocks of terms, what the next mini-batch needs of the new lam: the rescaled exp(E[log beta]) of
``topic_expectations`` and the topic part of the ELBO, split as
``lda_topic_bound(lam, elog_beta, eta) = lnG(V eta) - V lnG(eta) + eta * elog_sum + rest``
(``topic_terms``), so that a prior eta learned afterwards still gives the exact bound.
A matrix topic-word prior eta_kw (guided topics) has its own kernels, :func:`prior_topic_terms` and
:func:`lda_topic_bound` with a matrix: an entry with eta_kw = 0 excludes term w from topic k (lam_kw
= 0 there too), is left out of every sum of the topic part, and has E[log beta_kw] = -inf, so its
exp(E[log beta]) is exactly 0 and the E-step gives it no responsibility.

These kernels work on blocks of TERM_BLOCK terms with all K topics. Their inner loops run over
the terms of one topic through 1-D views, call no libm function (``special.small_parts`` for the
common lam < 10, a polynomial exp) and are compiled with ``error_model="numpy"`` (division without a
ZeroDivisionError branch), so LLVM vectorises them; the rare other entries are redone one at a time.
"""

import math

import numpy as np
from numba import njit

from .special import (LOG_9_FACTORIAL, digamma, digamma_lgamma, digamma_row, dirichlet_expectation_row,
                      small_parts, sum4, sum_logs)
from .vec import dot
from .workers import n_workers, run_items, run_units

CHUNK = 64
TERM_BLOCK = 256  # terms per block in the dense K x V passes (a block of all K topics stays in L1/L2)

# exp(t) for t <= 0 as 2^n exp(r), n = round(t / log 2), |r| <= log(2) / 2 (Cody & Waite's split of
# log 2), exp(r) by its Taylor polynomial to degree 13 (relative error below 1e-17): within 1 ulp
# of libm's exp. The vectorised form builds 2^(n + 100) from its bits and multiplies by 2^-100,
# which rounds a subnormal result once, as ldexp does, so both forms give the same bits.
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_TWO_M100 = 2.0 ** -100


@njit(cache=True, nogil=True, inline="always")
def _exp_parts(t):
    """(p, n) with exp(t) = p * 2^n for a float t <= 0 (t below -746 is treated as -746, exp 0)."""
    x = max(t, -746.0)
    n = math.floor(x * _LOG2E + 0.5)
    r = (x - n * _LN2_HI) - n * _LN2_LO
    p = 1.0 + r * (1.0 + r * (1.0 / 2.0 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (
        1.0 / 5040.0 + r * (1.0 / 40320.0 + r * (1.0 / 362880.0 + r * (1.0 / 3628800.0 + r * (1.0 / 39916800.0 + r * (
            1.0 / 479001600.0 + r * (1.0 / 6227020800.0)))))))))))))
    return p, n


@njit(cache=True, nogil=True)
def exp_nonpositive(t):
    """exp(t) for a float t <= 0 (float64), bit for bit the value the term-block kernels store."""
    p, n = _exp_parts(t)
    return math.ldexp(p, int(n))


@njit(cache=True, nogil=True, error_model="numpy")  # the loops vectorise (see rescaled_exp_block)
def exp_shifted_row(x, shift, out, work):
    """out[k] = exp(x[k] - shift) for a 1-D float array x with x[k] <= shift, bit for bit
    :func:`exp_nonpositive`; work : float64 array of shape (>= K,), scratch."""
    n = x.shape[0]
    pow2 = work[:n]
    pow2_bits = pow2.view(np.int64)
    for k in range(n):
        p, e2 = _exp_parts(x[k] - shift)
        out[k] = p
        pow2_bits[k] = (np.int64(e2) + 1123) << 52  # 2^(e2 + 100)
    for k in range(n):
        out[k] = out[k] * pow2[k] * _TWO_M100


@njit(cache=True, nogil=True, error_model="numpy")  # no ZeroDivisionError branches: the loops vectorise
def rescaled_exp_block(elog, c0, n, work, ebeta_t, log_scale, w0):
    """Columns c0..c0+n-1 of E[log beta] (terms w0..w0+n-1) to their max and rescaled exponential.

    elog : float64 array of shape (K, >= c0 + n); work : float64 array of shape (>= 2, >= n), scratch
    ebeta_t : float array (V, K), rows w0..w0+n-1 overwritten with exp(elog - max_k elog)
    log_scale : float64 array (V,), entries w0..w0+n-1 overwritten with max_k elog
    """
    n_topics = elog.shape[0]
    top = log_scale[w0:w0 + n]  # 1-D views in the loops: indexing a 2-D array there blocks SIMD
    first = elog[0, c0:c0 + n]
    for i in range(n):
        top[i] = first[i]
    for k in range(1, n_topics):  # the max over k, for n terms at once
        row = elog[k, c0:c0 + n]
        for i in range(n):
            if row[i] > top[i]:
                top[i] = row[i]
    mant = work[0]
    pow2 = work[1]
    pow2_bits = pow2.view(np.int64)
    for k in range(n_topics):
        row = elog[k, c0:c0 + n]
        for i in range(n):
            p, e2 = _exp_parts(row[i] - top[i])
            mant[i] = p
            pow2_bits[i] = (np.int64(e2) + 1123) << 52  # 2^(e2 + 100)
        for i in range(n):
            ebeta_t[w0 + i, k] = mant[i] * pow2[i] * _TWO_M100  # = ldexp(p, e2), one rounding


@njit(cache=True, nogil=True)
def _block_sums(lam, w0, w1, out):
    """out[k] = sum_{w0 <= w < w1} lam[k, w] (float64), in one fixed order: four interleaved partial sums."""
    for k in range(lam.shape[0]):
        out[k] = sum4(lam[k], w0, w1)


@njit(cache=True, nogil=True)
def _totals_from(parts):
    """totals[k] = sum_b parts[b, k], in block order (float64, (K,))."""
    totals = np.zeros(parts.shape[1], dtype=np.float64)
    for b in range(parts.shape[0]):
        for k in range(parts.shape[1]):
            totals[k] += parts[b, k]
    return totals


def _n_blocks(n_terms):
    return (n_terms + TERM_BLOCK - 1) // TERM_BLOCK


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _row_block_sums(worker, workers, n_blocks, lam, parts):
    """parts[b] = the row sums of lam over the terms of block b, for the blocks in this worker's share"""
    n_terms = lam.shape[1]
    for b in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        _block_sums(lam, b * TERM_BLOCK, min(n_terms, (b + 1) * TERM_BLOCK), parts[b])


def row_totals(lam):
    """sum_w lam[k, w] for every topic (float64, (K,)), summed by blocks of TERM_BLOCK terms in one fixed
    order, the order in which ``svi_topic_update`` sums the lam it writes: every kernel that needs psi(sum_w
    lam_kw) gets the same bits, for any number of threads."""
    n_topics, n_terms = lam.shape
    n_blocks = _n_blocks(n_terms)
    parts = np.empty((n_blocks, n_topics), dtype=np.float64)
    run_units(_row_block_sums, n_blocks, n_blocks, lam, parts, work=lam.size)
    return _totals_from(parts)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _elog_rows(worker, workers, n_topics, lam, totals, elog):
    """elog[k] = E[log beta_k] (float64) for the topics in this worker's share"""
    n_terms = lam.shape[1]
    for k in range(worker * n_topics // workers, (worker + 1) * n_topics // workers):
        row = elog[k]
        digamma_row(lam[k], n_terms, row)
        psi_total = digamma(totals[k])
        for w in range(n_terms):
            row[w] -= psi_total


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _rescaled_blocks(worker, workers, n_blocks, elog, ebeta_t, log_scale, work):
    """:func:`rescaled_exp_block` of the term blocks in this worker's share (work[worker]: this thread's scratch)."""
    n_terms = elog.shape[1]
    work = work[worker]
    for b in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        w0 = b * TERM_BLOCK
        rescaled_exp_block(elog, w0, min(n_terms, w0 + TERM_BLOCK) - w0, work, ebeta_t, log_scale, w0)


def topic_expectations(lam, ebeta_t, log_scale, totals=None):
    """E[log beta] for every topic, and its rescaled exponential in term-major layout.

    lam : float array of shape (K, V), positive
    ebeta_t : float array of shape (V, K), overwritten with exp(E[log beta_kw] - s_w)
        (by ``rescaled_exp_block``, as ``topic_terms``)
    log_scale : float64 array of shape (V,), overwritten with s_w = max_k E[log beta_kw]
    totals : float64 array of shape (K,), or None for :func:`row_totals` of lam: the row totals of the
        whole lam when lam holds some of its columns only (E[log beta] of those terms)
    Returns elog_beta, float64 array of shape (K, V).
    """
    n_topics, n_terms = lam.shape
    elog = np.empty((n_topics, n_terms), dtype=np.float64)
    totals = row_totals(lam) if totals is None else totals
    run_units(_elog_rows, n_topics, n_topics, lam, totals, elog, work=8 * lam.size)
    n_blocks = _n_blocks(n_terms)
    workers = n_workers(n_blocks, 4 * lam.size)
    run_items(_rescaled_blocks, n_blocks, n_blocks, elog, ebeta_t, log_scale,
              np.empty((workers, 2, TERM_BLOCK), dtype=np.float64), workers=workers)
    return elog


def lda_doc_bound(indptr, indices, data, gamma, alpha, ebeta_t, log_scale):
    """Per-document part of the ELBO (float64 array of shape (D,)).

    indptr, indices, data : CSR arrays of the batch; gamma : float array (D, K)
    alpha : float64 array (K,); ebeta_t : float array (V, K); log_scale : float64 array (V,)
    """
    n_docs = indptr.shape[0] - 1
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    out = np.empty(n_docs, dtype=np.float64)
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    scratch = np.empty((n_chunks, 3, alpha.shape[0]), dtype=np.float64)
    run_units(_doc_bounds, n_chunks, n_chunks, indptr, indices, data, gamma, alpha, ebeta_t, log_scale, scratch, out,
              work=indices.shape[0] * alpha.shape[0])
    return out


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _doc_bounds(worker, workers, n_chunks, indptr, indices, data, gamma, alpha, ebeta_t, log_scale, scratch, out):
    """:func:`lda_doc_bound` of the documents of the work items in this worker's share (item c holds the
    documents c, c + n_chunks, ...: strided, see _kernels/__init__.py)."""
    n_docs = indptr.shape[0] - 1
    n_topics = alpha.shape[0]
    alpha_sum = 0.0
    lg_alpha = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
        lg_alpha += math.lgamma(alpha[k])
    prior_const = math.lgamma(alpha_sum) - lg_alpha
    for c in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        elog = scratch[c, 0]
        et = scratch[c, 1]
        work = scratch[c, 2]
        for d in range(c, n_docs, n_chunks):
            g = gamma[d]
            dirichlet_expectation_row(g, elog)
            m = elog[0]
            for k in range(1, n_topics):
                if elog[k] > m:
                    m = elog[k]
            exp_shifted_row(elog, m, et, work)  # as the E-step computes it
            words = 0.0
            for p in range(indptr[d], indptr[d + 1]):
                w = indices[p]
                s = dot(et, ebeta_t[w])
                if s < 1e-300:
                    s = 1e-300
                words += data[p] * (math.log(s) + m + log_scale[w])
            gsum = 0.0
            theta_part = 0.0
            for k in range(n_topics):
                gsum += g[k]
                theta_part += (alpha[k] - g[k]) * elog[k] + math.lgamma(g[k])
            out[d] = words + prior_const + theta_part - math.lgamma(gsum)


def lda_topic_bound(lam, elog_beta, eta):
    """Topic part of the ELBO per topic (float64 array (K,)), for a symmetric topic-word prior ``eta``
    (a float) or a matrix one (a float64 array (K, V), entries 0 excluding their term: left out of
    every sum, as :func:`prior_topic_terms` leaves them).

    lam : float array of shape (K, V); elog_beta : float64 array of shape (K, V)
    """
    n_topics = lam.shape[0]
    out = np.empty(n_topics, dtype=np.float64)
    if isinstance(eta, np.ndarray):
        eta = np.ascontiguousarray(eta, dtype=np.float64)
        run_units(_topic_bounds_matrix, n_topics, n_topics, lam, elog_beta, eta, out, work=8 * lam.size)
        return out
    run_units(_topic_bounds, n_topics, n_topics, lam, elog_beta, float(eta), out, work=8 * lam.size)
    return out


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _topic_bounds_matrix(worker, workers, n_topics, lam, elog_beta, eta, out):
    """:func:`lda_topic_bound` with a matrix prior, for the topics in this worker's share: the entries
    with eta_kw = 0 are left out"""
    n_terms = lam.shape[1]
    for k in range(worker * n_topics // workers, (worker + 1) * n_topics // workers):
        eta_total = 0.0
        lg_eta = 0.0
        total = 0.0
        acc = 0.0
        for w in range(n_terms):
            e = eta[k, w]
            if e > 0.0:
                lkw = np.float64(lam[k, w])
                eta_total += e
                lg_eta += math.lgamma(e)
                total += lkw
                acc += (e - lkw) * elog_beta[k, w] + math.lgamma(lkw)
        out[k] = math.lgamma(eta_total) - lg_eta + acc - math.lgamma(total)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _masked_elog_rows(worker, workers, n_topics, lam, eta, totals, elog, elog_sum, rest):
    """:func:`prior_topic_terms`'s E[log beta] and per-topic sums for the topics in this worker's share"""
    n_terms = lam.shape[1]
    for k in range(worker * n_topics // workers, (worker + 1) * n_topics // workers):
        total = totals[k]
        psi_total = digamma(total)
        lg_total = math.lgamma(total)
        e_sum = 0.0
        r = 0.0
        for w in range(n_terms):
            if eta[k, w] > 0.0:
                x = np.float64(lam[k, w])
                dg, lg = digamma_lgamma(x)
                e = dg - psi_total
                elog[k, w] = e
                e_sum += e
                r += lg - x * e
            else:
                elog[k, w] = -np.inf
        elog_sum[k] = e_sum
        rest[k] = r - lg_total


def prior_topic_terms(lam, eta, ebeta_t, log_scale, totals=None):
    """:func:`topic_terms` for a matrix topic-word prior ``eta`` (float64 (K, V), entries 0 excluding their term).

    lam : float array of shape (K, V), positive where eta is and 0 where it is not (as the fits keep it)
    ebeta_t : float array of shape (V, K), overwritten with exp(E[log beta_kw] - s_w): exactly 0 for an
        excluded entry (every term must have a topic that allows it, so s_w is finite)
    log_scale : float64 array of shape (V,), overwritten with s_w = max_k E[log beta_kw]
    Returns elog_beta (float64 (K, V), -inf at the excluded entries), elog_sum and rest (float64 (K,)):
    sum_w E[log beta_kw] and sum_w (lnG(lam_kw) - lam_kw E[log beta_kw]) - lnG(sum_w lam_kw), every sum
    over the allowed terms only. The topic part of the ELBO is then
    sum_k (lnG(sum_w eta_kw) - sum_w lnG(eta_kw)) + sum_kw eta_kw E[log beta_kw] + sum_k rest_k (allowed entries).
    The row sums of lam are those of :func:`row_totals` and the digammas those of :func:`topic_expectations`,
    so with a constant matrix eta the E[log beta], ebeta_t and log_scale are bit for bit those of a float eta.
    ``totals``: as :func:`topic_expectations`'s, for lam and eta holding some columns of the whole (elog_sum
    and rest are then sums over those columns only).
    """
    n_topics, n_terms = lam.shape
    eta = np.ascontiguousarray(eta, dtype=np.float64)
    elog = np.empty((n_topics, n_terms), dtype=np.float64)
    elog_sum = np.empty(n_topics, dtype=np.float64)
    rest = np.empty(n_topics, dtype=np.float64)
    totals = row_totals(lam) if totals is None else totals
    run_units(_masked_elog_rows, n_topics, n_topics, lam, eta, totals, elog, elog_sum, rest, work=16 * lam.size)
    n_blocks = _n_blocks(n_terms)
    workers = n_workers(n_blocks, 4 * lam.size)
    run_items(_rescaled_blocks, n_blocks, n_blocks, elog, ebeta_t, log_scale,
              np.empty((workers, 2, TERM_BLOCK), dtype=np.float64), workers=workers)
    return elog, elog_sum, rest


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _topic_bounds(worker, workers, n_topics, lam, elog_beta, eta, out):
    """:func:`lda_topic_bound` of the topics in this worker's share"""
    n_terms = lam.shape[1]
    const = math.lgamma(n_terms * eta) - n_terms * math.lgamma(eta)
    for k in range(worker * n_topics // workers, (worker + 1) * n_topics // workers):
        total = 0.0
        acc = 0.0
        for w in range(n_terms):
            lkw = lam[k, w]
            total += lkw
            acc += (eta - lkw) * elog_beta[k, w] + math.lgamma(lkw)
        out[k] = const + acc - math.lgamma(total)


# Inlined into its one caller, _term_blocks (error_model="numpy" there too: the first loop vectorises): a separately
# compiled level would optimise and generate its callees' machine code once more on a cold first fit.
@njit(cache=True, nogil=True, error_model="numpy", inline="always")
def _topic_block(lam, w0, w1, psi_total, scratch, ebeta_t, log_scale, elog_sum, rest, b):
    """E[log beta] of terms w0..w1-1 of every topic, into ebeta_t/log_scale and the sums of block b.

    scratch : float64 array of shape (K + 2, TERM_BLOCK); elog_sum, rest : float64 arrays (n_blocks, K),
    row b overwritten with sum_w E[log beta_kw] and sum_w (lnG(lam_kw) - lam_kw E[log beta_kw]).
    The values written to ebeta_t and log_scale are bit for bit those of ``topic_expectations``.
    """
    n_topics = lam.shape[0]
    n = w1 - w0
    part = scratch[n_topics]
    xq = scratch[n_topics + 1]
    for k in range(n_topics):
        ps = psi_total[k]
        elog = scratch[k]
        row = lam[k, w0:w1]  # 1-D views in the loops: indexing a 2-D array there blocks SIMD
        for i in range(n):  # the common case 1e-100 < lam < 10 for all terms, without branches or calls (SIMD)
            x = np.float64(row[i])  # (float() would keep float32 in numba)
            dg, g, q = small_parts(x)
            e = dg - ps
            elog[i] = e
            part[i] = g - x * e  # + lnG(lam) - lnG(lam + 10) = -log(9! x q)
            xq[i] = x * q  # in (1e-100, 1e7)
        n_small = n
        for i in range(n):  # the other entries, one at a time
            x = np.float64(row[i])
            if not (1e-100 < x < 10.0):
                dg, lg = digamma_lgamma(x)
                e = dg - ps
                elog[i] = e
                part[i] = lg - x * e
                xq[i] = 1.0
                n_small -= 1
        elog_sum[b, k] = sum4(elog, n - n, n)
        rest[b, k] = sum4(part, n - n, n) - (sum_logs(xq, n) + n_small * LOG_9_FACTORIAL)
    rescaled_exp_block(scratch[:n_topics], w0 - w0, n, scratch[n_topics:], ebeta_t, log_scale, w0)  # (w0 - w0: a
    # literal 0 would compile a second specialisation)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _term_blocks(worker, workers, n_blocks, lam, psi_total, ebeta_t, log_scale, elog_parts, rest_parts, scratch):
    """:func:`_topic_block` of the term blocks in this worker's share (scratch[worker]: this thread's)."""
    n_terms = lam.shape[1]
    scratch = scratch[worker]
    for b in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        _topic_block(lam, b * TERM_BLOCK, min(n_terms, (b + 1) * TERM_BLOCK), psi_total, scratch, ebeta_t,
                     log_scale, elog_parts, rest_parts, b)


@njit(cache=True, nogil=True)
def _sum_blocks(elog_parts, rest_parts, totals):
    """(elog_sum, rest) of :func:`topic_terms` from the per-block sums, in block order."""
    n_blocks, n_topics = elog_parts.shape
    elog_sum = np.empty(n_topics, dtype=np.float64)
    rest = np.empty(n_topics, dtype=np.float64)
    for k in range(n_topics):
        a = 0.0
        r = 0.0
        for b in range(n_blocks):
            a += elog_parts[b, k]
            r += rest_parts[b, k]
        elog_sum[k] = a
        rest[k] = r - math.lgamma(totals[k])
    return elog_sum, rest


def _block_terms(lam, totals, ebeta_t, log_scale):
    """Second pass of ``topic_terms`` over blocks of terms, given the row sums ``totals`` (K,) of lam."""
    n_topics, n_terms = lam.shape
    n_blocks = _n_blocks(n_terms)
    psi_total = np.empty(n_topics, dtype=np.float64)
    digamma_row(totals, n_topics, psi_total)  # (bit for bit digamma of each)
    elog_parts = np.empty((n_blocks, n_topics), dtype=np.float64)
    rest_parts = np.empty((n_blocks, n_topics), dtype=np.float64)
    workers = n_workers(n_blocks, 8 * lam.size)
    scratch = np.empty((workers, n_topics + 2, TERM_BLOCK), dtype=np.float64)
    run_items(_term_blocks, n_blocks, n_blocks, lam, psi_total, ebeta_t, log_scale, elog_parts, rest_parts, scratch,
              workers=workers)
    return _sum_blocks(elog_parts, rest_parts, totals)


def topic_terms(lam, ebeta_t, log_scale):
    """Rescaled exp(E[log beta]) as ``topic_expectations``, plus the topic part of the ELBO in two pieces.

    lam : float array of shape (K, V), positive
    ebeta_t : float array of shape (V, K), overwritten with exp(E[log beta_kw] - s_w)
    log_scale : float64 array of shape (V,), overwritten with s_w = max_k E[log beta_kw]
    Returns elog_sum and rest, float64 arrays of shape (K,): sum_w E[log beta_kw] and
    sum_w (lnG(lam_kw) - lam_kw E[log beta_kw]) - lnG(sum_w lam_kw), so that up to rounding
    ``lda_topic_bound(lam, elog_beta, eta) == lnG(V eta) - V lnG(eta) + eta * elog_sum + rest``.
    ebeta_t and log_scale are bit for bit those of ``topic_expectations``.
    """
    return _block_terms(lam, row_totals(lam), ebeta_t, log_scale)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _svi_blocks(worker, workers, n_blocks, lam, sstats_t, rho, eta, scale, parts, blocks):
    """The step of :func:`svi_topic_update` on the term blocks in this worker's share, with their row sums
    (blocks[worker]: this thread's (K, TERM_BLOCK) copy of a block of sstats_t, topic-major)."""
    n_topics, n_terms = lam.shape
    keep = 1.0 - rho
    block = blocks[worker]
    for b in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        w0 = b * TERM_BLOCK
        w1 = min(n_terms, w0 + TERM_BLOCK)
        for i in range(w1 - w0):
            srow = sstats_t[w0 + i]
            for k in range(n_topics):
                block[k, i] = srow[k]
        for k in range(n_topics):  # contiguous rows of lam and of the block: the loop vectorises
            lrow = lam[k]
            brow = block[k]
            for i in range(w1 - w0):
                lrow[w0 + i] = keep * lrow[w0 + i] + rho * (eta + scale * brow[i])
        _block_sums(lam, w0, w1, parts[b])


def svi_topic_update(lam, sstats_t, rho, eta, scale, ebeta_t, log_scale):
    """One stochastic variational step of lam, in place, then ``topic_terms`` of the new lam.

    lam : float array of shape (K, V), overwritten with (1 - rho) lam + rho (eta + scale sstats_t.T),
        computed in float64 and stored in lam's dtype
    sstats_t : float array of shape (V, K), the mini-batch's expected topic-term counts
    rho, eta, scale : floats, the step size, topic-word prior and D / |B|
    ebeta_t, log_scale : overwritten as in ``topic_terms``
    Returns elog_sum and rest as ``topic_terms`` does, for the new lam.
    """
    n_topics, n_terms = lam.shape
    n_blocks = _n_blocks(n_terms)
    parts = np.empty((n_blocks, n_topics), dtype=np.float64)
    workers = n_workers(n_blocks, 2 * lam.size)
    blocks = np.empty((workers, n_topics, TERM_BLOCK), dtype=sstats_t.dtype)
    run_items(_svi_blocks, n_blocks, n_blocks, lam, sstats_t, float(rho), float(eta), float(scale), parts, blocks,
              workers=workers)
    return _block_terms(lam, _totals_from(parts), ebeta_t, log_scale)
