"""Collapsed variational Bayes for LDA: CVB0 (Asuncion et al. 2009) and CVB (Teh, Newman & Welling 2006).

Notation:

==========  ==========  ======================================================================
symbol      shape       meaning
==========  ==========  ======================================================================
D, V, K                 documents, terms, topics; nnz non-zero (document, term) cells
gamma       (nnz, K)    q(z = k) shared by the c_dw tokens of one non-zero cell (rows sum to 1)
n_dk        (D, K)      expected document-topic counts  sum_w c_dw gamma_dwk
n_wk        (V, K)      expected topic-term counts, term-major  sum_d c_dw gamma_dwk
n_k         (K,)        expected topic totals  sum_w n_wk
v_dk, ...               the matching variances sum c gamma (1 - gamma), used by CVB only
alpha       (K,)        Dirichlet prior on document-topic proportions
eta         scalar      symmetric Dirichlet prior on topic-term distributions
eta_t       (V, K)      a matrix prior instead, term-major (0 = the term is excluded from the
                        topic), with its column sums eta_sum (K,) = sum_w eta_wk
==========  ==========  ======================================================================

Update of one cell (d, w) with count c, for one of its tokens, excluding that token's own
contribution (the "minus ij" counts n^- = n - gamma_old, which still hold the other c - 1 tokens):

  CVB0:  gamma_k  propto  (n_dk^- + alpha_k) (n_wk^- + eta) / (n_k^- + V eta)
  CVB:   the same times exp(- v_dk^- / (2 (n_dk^- + alpha_k)^2) - v_wk^- / (2 (n_wk^- + eta)^2)
                            + v_k^- / (2 (n_k^- + V eta)^2))

after which every count moves by c (gamma_new - gamma_old). With a matrix prior eta and V eta
become eta_wk and eta_sum_k: gamma_k propto (n_dk^- + alpha_k) (n_wk^- + eta_wk) / (n_k^- + eta_sum_k);
a pair with eta_wk = 0 and n_wk = 0 gets exactly 0, so an excluded term never enters its topic
(n_wk stays exactly 0 there: every move of it is c (0 - 0)).

One kernel serves both kinds of prior (:func:`prior_rows`): the prior comes as rows of K values, a matrix
prior's term rows eta_t (V, K) and its column sums eta_sum, or a scalar prior's single row (1, K) filled with
eta and totals filled with V eta (computed as V * eta, so the arithmetic is that of a scalar eta); a cell of
term w reads row w * step (step 1 for a matrix, 0 for a scalar), so the topic loop has no branch on the kind
of prior. Counts below one token (fractional weights) can make n^- negative (CVB0 takes g out of a cell of
weight c < 1, which holds only c g); it is clamped at zero. CVB takes out min(c, 1) tokens, c g from such a
cell (:func:`_second_order_counts`): its variance correction exp(v / (2 (n^- + prior)^2)) cannot take a count
clamped at zero whose variance stays positive (with tiny priors it overflowed, and the cell went NaN).
Updates are in place and sequential within a document, so the totals sum_k n_k always equal the total count
of X.
"""

import numpy as np
from numba import njit

from .workers import run_units

CHUNK = 64


def is_matrix(eta):
    """Whether ``eta`` is a matrix topic-word prior (an ndarray of 2 dimensions) rather than a number."""
    return isinstance(eta, np.ndarray) and eta.ndim == 2


def prior_arrays(eta, n_topics):
    """(eta, eta_t, eta_sum), the prior in one form for kernels that take either kind (a runtime test of
    ``eta_t.shape[0] > 0``; :mod:`.cvb0_counts`): a float gives (eta, empty (0, 0), empty (0,)); a
    term-major (V, K) matrix gives (0.0, it as C-contiguous float64, its column sums)."""
    if is_matrix(eta):
        eta_t = np.ascontiguousarray(eta, dtype=np.float64)
        if eta_t.shape[1] != n_topics:
            raise ValueError(f"a matrix topic-word prior must be term-major, (V, {n_topics}); got {eta_t.shape}.")
        return 0.0, eta_t, eta_t.sum(axis=0)
    return float(eta), NO_MATRIX, NO_SUMS


NO_MATRIX = np.empty((0, 0))  # (a scalar prior's arrays in that form: never read)
NO_SUMS = np.empty(0)


def matrix_prior(eta, n_terms, n_topics):
    """(eta_t, eta_sum): a term-major (V, K) matrix prior as the matrix kernels take it (C-contiguous
    float64) and its column sums (K,), each topic's total prior."""
    eta_t = np.ascontiguousarray(eta, dtype=np.float64)
    if eta_t.shape != (n_terms, n_topics):
        raise ValueError(f"a matrix topic-word prior must be term-major, ({n_terms}, {n_topics}); got {eta_t.shape}.")
    return eta_t, eta_t.sum(axis=0)


def prior_rows(eta, n_terms, n_topics):
    """(eta_t, eta_sum, step): the prior as the kernels take it, a cell of term w reading eta_t[w * step].
    A term-major (V, K) matrix gives (it as C-contiguous float64, its column sums, 1); a float eta gives
    (a (1, K) row of eta, a (K,) row of n_terms * eta, 0), the same arithmetic as a scalar eta and V eta."""
    if is_matrix(eta):
        return (*matrix_prior(eta, n_terms, n_topics), 1)
    eta = float(eta)
    return np.full((1, n_topics), eta), np.full(n_topics, n_terms * eta), 0


# inlined in numba's IR into the sweeps (no reference counting in the work items): measured on KOS (K = 20, one
# thread, a matrix prior) a pass of sweep_documents took 18 ms, against 55 ms calling the compiled function.
# The topic loops are split (weights; their sum; the moves; the change) and the runtime flags tested outside
# them, so that the elementwise loops have no branch and no reduction and LLVM vectorises them (with
# error_model="numpy" in the calling kernel: no ZeroDivisionError branch); each sum is still taken in topic
# order, so the arithmetic is that of one loop per cell.
@njit(cache=True, nogil=True, inline="always")
def _update_cell(p, d, w, c, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum, step, second_order,
                 new, exclude, write_topics):
    """Update gamma[p] in place and move the counts; returns the L1 change of gamma[p].

    ``eta_t``, ``eta_sum``, ``step``: the prior (:func:`prior_rows`), the cell's row eta_t[w * step].
    ``exclude``: the topic counts hold this cell's old gamma, to be taken out (fitting); False for
    new documents scored against fixed topics. ``write_topics``: move n_wk, n_k (serial sweeps).
    An excluded pair (eta_wk = 0, n_wk = 0) gets weight 0; when no topic has weight, the topics the
    term may be in share the cell. ``new``: (K,) scratch.
    """
    n_topics = alpha.shape[0]
    row = w * step
    if second_order:
        _second_order_weights(p, d, w, row, c, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum, new,
                              exclude)
    elif exclude:
        for k in range(n_topics):
            g = gamma[p, k]
            new[k] = ((max(n_dk[d, k] - g, 0.0) + alpha[k]) * (max(n_wk[w, k] - g, 0.0) + eta_t[row, k])
                      / (max(n_k[k] - g, 0.0) + eta_sum[k]))
    else:  # new documents: the topic counts do not hold this token
        for k in range(n_topics):
            new[k] = ((max(n_dk[d, k] - gamma[p, k], 0.0) + alpha[k]) * (n_wk[w, k] + eta_t[row, k])
                      / (n_k[k] + eta_sum[k]))
    total = 0.0
    for k in range(n_topics):
        total += new[k]
    if not total > 0.0:  # every term underflowed (tiny priors far from this token's counts): no preference
        for k in range(n_topics):  # among the topics the term may be in (a scalar prior: all, total = K)
            new[k] = 1.0 if eta_t[row, k] > 0.0 else 0.0
            total += new[k]
    if second_order or write_topics:  # (CVB; the serial CVB0 sweep writes its case out itself: see _sweep)
        for k in range(n_topics):
            g_new = new[k] / total
            g_old = gamma[p, k]
            delta = c * (g_new - g_old)
            new[k] = abs(g_new - g_old)
            n_dk[d, k] += delta
            if write_topics:
                n_wk[w, k] += delta
                n_k[k] += delta
            if second_order:
                dv = c * (g_new * (1.0 - g_new) - g_old * (1.0 - g_old))
                v_dk[d, k] += dv
                if write_topics:
                    v_wk[w, k] += dv
                    v_k[k] += dv
            gamma[p, k] = g_new
    else:  # first order, the topics frozen (documents swept in parallel, inference): a loop that vectorises
        for k in range(n_topics):
            g_new = new[k] / total
            g_old = gamma[p, k]
            new[k] = abs(g_new - g_old)
            n_dk[d, k] += c * (g_new - g_old)
            gamma[p, k] = g_new
    change = 0.0
    for k in range(n_topics):
        change += new[k]
    return change


@njit(cache=True, nogil=True, inline="always")
def _second_order_weights(p, d, w, row, c, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum, new,
                          exclude):
    """CVB's unnormalised weights of cell p (count ``c``) into ``new`` (:func:`_update_cell`), from the counts
    less the token updated (:func:`_second_order_counts`). Where they overflow (tiny priors and a topic of
    almost no tokens: the correction exp(v_k / (2 (n_k + V eta)^2)) grows as 1 / prior; inf, or NaN from inf
    times 0, would make the cell's responsibilities NaN), they are recomputed in logs
    (:func:`_second_order_logs`)."""
    total = 0.0
    for k in range(alpha.shape[0]):
        a, b, z, vd, vw, vk = _second_order_counts(p, d, w, k, row, c, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k,
                                                   alpha, eta_t, eta_sum, exclude)
        val = a * b / z
        if b > 0.0:  # (b = 0: an excluded pair, whose weight stays 0)
            val *= np.exp(-vd / (2.0 * a * a) - vw / (2.0 * b * b) + vk / (2.0 * z * z))
        new[k] = val
        total += val
    if not total < np.inf:
        _second_order_logs(p, d, w, row, c, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum, new,
                           exclude)


@njit(cache=True, nogil=True, inline="always")
def _second_order_counts(p, d, w, k, row, c, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum,
                         exclude):
    """(a, b, z, vd, vw, vk) of topic k for CVB's update of cell p, count ``c``: the counts plus their priors,
    n_dk^- + alpha_k, n_wk^- + eta_wk, n_k^- + eta_sum_k, and the variances v^-, less the token updated
    (the topic counts only when ``exclude``).

    The cell's c tokens share q(z) = g, so it holds c g of each count and c g (1 - g) of each variance. One
    token out leaves its other c - 1 tokens: n - g, v - g (1 - g), for c >= 1. A fractional cell (c < 1)
    holds less than a token, and the token updated is all of it: n - c g, v - c g (1 - g) (so min(c, 1)
    tokens out in both cases). Taking a whole token out of such a cell drove its counts below zero (clamped
    to 0) while their variances stayed positive, and with tiny priors exp(v / (2 (n + prior)^2)) overflowed:
    NaN. Each count is clamped at 0 and, for a fractional cell, each variance within [0, its count] (a sum of
    c g (1 - g) <= c g; only rounding drift breaks it). A cell of c >= 1 keeps the arithmetic it always had
    (variances clamped at 0 only), so that fits of integer counts are unchanged to the bit."""
    g = gamma[p, k]
    var = g * (1.0 - g)
    if c >= 1.0:
        ndk = max(n_dk[d, k] - g, 0.0)
        vd = max(v_dk[d, k] - var, 0.0)
        if exclude:
            nwk, vw = max(n_wk[w, k] - g, 0.0), max(v_wk[w, k] - var, 0.0)
            nk, vk = max(n_k[k] - g, 0.0), max(v_k[k] - var, 0.0)
        else:  # (new documents: the topic counts do not hold the cell)
            nwk, vw, nk, vk = n_wk[w, k], v_wk[w, k], n_k[k], v_k[k]
    else:
        x, var = c * g, c * var
        ndk = max(n_dk[d, k] - x, 0.0)
        vd = min(max(v_dk[d, k] - var, 0.0), ndk)
        if exclude:
            nwk, nk = max(n_wk[w, k] - x, 0.0), max(n_k[k] - x, 0.0)
            vw, vk = min(max(v_wk[w, k] - var, 0.0), nwk), min(max(v_k[k] - var, 0.0), nk)
        else:
            nwk, nk = n_wk[w, k], n_k[k]
            vw, vk = min(v_wk[w, k], nwk), min(v_k[k], nk)
    return ndk + alpha[k], nwk + eta_t[row, k], nk + eta_sum[k], vd, vw, vk


@njit(cache=True, nogil=True, error_model="numpy")  # (not inlined: it runs only where the weights overflow)
def _second_order_logs(p, d, w, row, c, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum, new,
                       exclude):
    """:func:`_second_order_weights`'s weights where they overflowed: each weight's log less the largest, then
    exp (the same weights up to a common factor, hence the same normalised update; finite, the largest 1).
    The logs are finite for positive priors: a variance over its (count + prior) squared is at most
    1 / (4 prior) where the variance is within its count, and rounding drift beyond it is small."""
    n_topics = alpha.shape[0]
    top = -np.inf
    for k in range(n_topics):
        a, b, z, vd, vw, vk = _second_order_counts(p, d, w, k, row, c, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k,
                                                   alpha, eta_t, eta_sum, exclude)
        log = -np.inf  # (b = 0: an excluded pair)
        if b > 0.0:
            log = (np.log(a) + np.log(b) - np.log(z) - vd / (2.0 * a * a) - vw / (2.0 * b * b)
                   + vk / (2.0 * z * z))
        new[k] = log
        top = max(top, log)
    for k in range(n_topics):
        new[k] = np.exp(new[k] - top) if new[k] > -np.inf else 0.0


def sweep(indptr, indices, data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta, second_order):
    """One serial sweep over all documents, updating every array in place (exact CVB0 / CVB).

    indptr : int64 (D + 1,); indices : int32 (nnz,); data : float (nnz,)
    gamma : float (nnz, K); n_dk : float (D, K); n_wk : float (V, K); n_k : float (K,)
    v_dk, v_wk, v_k : the variance arrays of the same shapes (used when ``second_order``)
    alpha : float64 (K,); second_order : bool (True for CVB, False for CVB0)
    eta : a float, or a matrix prior as a term-major (V, K) array (:func:`matrix_prior`)
    Returns nothing (the fits judge convergence by their objective, so the sweep does not measure the change of
    gamma: that cost a store, a load and a sum per cell and topic, 14% of the CVB0 sweep).
    """
    eta_t, eta_sum, step = prior_rows(eta, *n_wk.shape)
    if second_order:  # (two kernels: a CVB0 fit compiles only its own, the smaller)
        _cvb_sweep(indptr, indices, data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum, step)
    else:
        _sweep(indptr, indices, data, gamma, n_dk, n_wk, n_k, alpha, eta_t, eta_sum, step)


@njit(cache=True, nogil=True, error_model="numpy")  # (no ZeroDivisionError branch: the topic loops vectorise)
def _cvb_sweep(indptr, indices, data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum, step):
    """:func:`sweep` of CVB (second order), the prior as :func:`prior_rows` gives it."""
    n_docs = indptr.shape[0] - 1
    n_topics = n_wk.shape[1]
    new = np.empty(n_topics, dtype=np.float64)
    yes = n_docs >= 0  # (runtime flags, not literals: _sweep_chunks passes a runtime False)
    for d in range(n_docs):
        for p in range(indptr[d], indptr[d + 1]):
            _update_cell(p, d, indices[p], data[p], gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta_t, eta_sum,
                         step, yes, new, yes, yes)


@njit(cache=True, nogil=True, error_model="numpy")  # (no ZeroDivisionError branch: the topic loops vectorise)
def _sweep(indptr, indices, data, gamma, n_dk, n_wk, n_k, alpha, eta_t, eta_sum, step):
    """:func:`sweep` of CVB0, the prior as :func:`prior_rows` gives it: :func:`_update_cell`'s arithmetic, in
    the same order, written out (about 1.7x faster than inlined)."""
    n_docs = indptr.shape[0] - 1
    n_topics = n_wk.shape[1]
    new = np.empty(n_topics, dtype=np.float64)
    for d in range(n_docs):
        for p in range(indptr[d], indptr[d + 1]):
            w = indices[p]
            c = data[p]
            row = w * step
            for k in range(n_topics):
                g = gamma[p, k]
                new[k] = ((max(n_dk[d, k] - g, 0.0) + alpha[k]) * (max(n_wk[w, k] - g, 0.0) + eta_t[row, k])
                          / (max(n_k[k] - g, 0.0) + eta_sum[k]))
            total = 0.0
            for k in range(n_topics):
                total += new[k]
            if not total > 0.0:
                for k in range(n_topics):
                    new[k] = 1.0 if eta_t[row, k] > 0.0 else 0.0
                    total += new[k]
            for k in range(n_topics):
                g_new = new[k] / total
                delta = c * (g_new - gamma[p, k])
                n_dk[d, k] += delta
                n_wk[w, k] += delta
                n_k[k] += delta
                gamma[p, k] = g_new


def sweep_documents(indptr, indices, data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta, second_order,
                    fixed_topics, max_iter, tol, prior=None):
    """Sweep documents in parallel with the topic-term counts frozen during the call.

    Each document updates its own cells and document counts in place, sequentially, up to
    ``max_iter`` passes or until the mean change of its gamma is below ``tol``.
    With ``fixed_topics`` False the frozen counts still hold the document's own old
    contributions, which the update excludes (the per-sweep approximation of CVB0 used for
    multi-threaded fitting); the caller recomputes n_wk and n_k from gamma afterwards.
    With ``fixed_topics`` True (inference on new documents) they are the fitted topics.
    ``eta``: a float, or a matrix prior as a term-major (V, K) array (:func:`matrix_prior`); ``prior``: the
    :func:`prior_rows` to use instead (``eta`` ignored), for n_wk holding some terms of a larger vocabulary.
    Returns the per-document number of passes (int64, (D,)).
    """
    n_docs = indptr.shape[0] - 1
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    scratch = np.empty((n_chunks, n_wk.shape[1]), dtype=np.float64)
    passes = np.zeros(n_docs, dtype=np.int64)
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    run_units(_sweep_chunks, n_chunks, n_chunks, indptr, indices, data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k,
              alpha, *(prior_rows(eta, *n_wk.shape) if prior is None else prior), bool(second_order),
              bool(fixed_topics), int(max_iter), float(tol), scratch, passes, work=4 * gamma.size)
    return passes


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _sweep_chunks(worker, workers, n_chunks, indptr, indices, data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha,
                  eta_t, eta_sum, step, second_order, fixed_topics, max_iter, tol, scratch, passes):
    """:func:`sweep_documents` of the chunks in this worker's share (CHUNK documents each)."""
    n_docs = indptr.shape[0] - 1
    n_topics = n_wk.shape[1]
    no = n_docs < 0  # (a runtime False: see _sweep)
    for c in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        new = scratch[c]
        for d in range(c * CHUNK, min(n_docs, (c + 1) * CHUNK)):
            start = indptr[d]
            end = indptr[d + 1]
            if start == end:
                continue
            for it in range(max_iter):
                change = 0.0
                for p in range(start, end):
                    change += _update_cell(p, d, indices[p], data[p], gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k,
                                           alpha, eta_t, eta_sum, step, second_order, new, not fixed_topics, no)
                passes[d] = it + 1
                if change / ((end - start) * n_topics) < tol:
                    break


def document_counts(indptr, data, gamma, n_dk, v_dk, second_order):
    """n_dk (and v_dk) recomputed from gamma: sum over each row's cells of c gamma (c gamma (1 - gamma))."""
    n_chunks = (indptr.shape[0] - 1 + CHUNK - 1) // CHUNK
    run_units(_document_count_chunks, n_chunks, n_chunks, indptr, data, gamma, n_dk, v_dk, bool(second_order),
              work=gamma.size)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _document_count_chunks(worker, workers, n_chunks, indptr, data, gamma, n_dk, v_dk, second_order):
    """:func:`document_counts` of the chunks in this worker's share (CHUNK documents each)."""
    n_docs = indptr.shape[0] - 1
    n_topics = gamma.shape[1]
    for c in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        for d in range(c * CHUNK, min(n_docs, (c + 1) * CHUNK)):
            for k in range(n_topics):
                n_dk[d, k] = 0.0
                if second_order:
                    v_dk[d, k] = 0.0
            for p in range(indptr[d], indptr[d + 1]):
                c_dw = data[p]
                for k in range(n_topics):
                    g = gamma[p, k]
                    n_dk[d, k] += c_dw * g
                    if second_order:
                        v_dk[d, k] += c_dw * g * (1.0 - g)


def term_counts(colptr, positions, data, gamma, n_wk, v_wk, second_order):
    """n_wk (and v_wk) recomputed from gamma by a column pass (thread-count independent)."""
    n_chunks = (colptr.shape[0] - 1 + CHUNK - 1) // CHUNK
    run_units(_term_count_chunks, n_chunks, n_chunks, colptr, positions, data, gamma, n_wk, v_wk, bool(second_order),
              work=gamma.size)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _term_count_chunks(worker, workers, n_chunks, colptr, positions, data, gamma, n_wk, v_wk, second_order):
    """:func:`term_counts` of the chunks in this worker's share (CHUNK terms each)."""
    n_terms = colptr.shape[0] - 1
    n_topics = gamma.shape[1]
    for c in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        for w in range(c * CHUNK, min(n_terms, (c + 1) * CHUNK)):
            for k in range(n_topics):
                n_wk[w, k] = 0.0
                if second_order:
                    v_wk[w, k] = 0.0
            for q in range(colptr[w], colptr[w + 1]):
                p = positions[q]
                c_dw = data[p]
                for k in range(n_topics):
                    g = gamma[p, k]
                    n_wk[w, k] += c_dw * g
                    if second_order:
                        v_wk[w, k] += c_dw * g * (1.0 - g)


def scvb0_documents(indptr, indices, data, n_phi_t, n_z, alpha, eta, n_theta, gamma, burn_in, tau_theta,
                    kappa_theta):
    """Document updates of stochastic CVB0 (Foulds et al. 2013) for one mini-batch, topics frozen.

    For each cell (d, w) with count c, gamma_dw propto (n_phi_t[w] + eta) / (n_z + V eta) *
    (n_theta_d + alpha), then n_theta_d <- (1 - r) n_theta_d + r C_d gamma_dw with
    r = 1 - (1 - rho)^c (c token updates with the same gamma at once), rho = (tau_theta + t)^-kappa_theta
    and t counting the document's token updates. ``burn_in`` passes over the document precede the
    final pass whose gamma is kept.

    indptr, indices, data : CSR arrays of the mini-batch; n_phi_t : float (V, K); n_z : float (K,)
    n_theta : float (B, K), initial document counts, updated in place
    gamma : float (nnz, K), overwritten with the final pass's responsibilities
    eta : a float, or a matrix prior as a term-major (V, K) array (:func:`matrix_prior`): then
    (n_phi_t[w, k] + eta_wk) / (n_z[k] + sum_w eta_wk), 0 for an excluded pair
    """
    n_docs = indptr.shape[0] - 1
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    scratch = np.empty((n_chunks, n_phi_t.shape[1]), dtype=np.float64)
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    run_units(_scvb0_chunks, n_chunks, n_chunks, indptr, indices, data, n_phi_t, n_z, alpha,
              *prior_rows(eta, *n_phi_t.shape), n_theta, gamma, int(burn_in), float(tau_theta), float(kappa_theta),
              scratch, work=4 * (int(burn_in) + 1) * gamma.size)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _scvb0_chunks(worker, workers, n_chunks, indptr, indices, data, n_phi_t, n_z, alpha, eta_t, eta_sum, step, n_theta,
                  gamma, burn_in, tau_theta, kappa_theta, scratch):
    """:func:`scvb0_documents` of the chunks in this worker's share (CHUNK documents each); the prior as
    :func:`prior_rows` gives it."""
    n_docs = indptr.shape[0] - 1
    n_topics = n_phi_t.shape[1]
    for ch in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        new = scratch[ch]
        for d in range(ch * CHUNK, min(n_docs, (ch + 1) * CHUNK)):
            start = indptr[d]
            end = indptr[d + 1]
            length = 0.0
            for p in range(start, end):
                length += data[p]
            t = 0.0
            for _ in range(burn_in + 1):
                for p in range(start, end):
                    w = indices[p]
                    row = w * step
                    c = data[p]
                    total = 0.0
                    for k in range(n_topics):
                        v = (n_phi_t[w, k] + eta_t[row, k]) / (n_z[k] + eta_sum[k]) * (n_theta[d, k] + alpha[k])
                        new[k] = v
                        total += v
                    if not total > 0.0:  # every term underflowed: the topics the term may be in share it
                        for k in range(n_topics):  # (a scalar prior: all, as _update_cell)
                            new[k] = 1.0 if eta_t[row, k] > 0.0 else 0.0
                            total += new[k]
                    rho = (tau_theta + t) ** (-kappa_theta)
                    r = 1.0 - (1.0 - rho) ** c if rho < 1.0 else 1.0
                    t += c
                    for k in range(n_topics):
                        g = new[k] / total
                        gamma[p, k] = g
                        n_theta[d, k] = (1.0 - r) * n_theta[d, k] + r * length * g
