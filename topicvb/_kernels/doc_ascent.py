"""One document's coordinate ascent in the VB E-step: the pieces :mod:`.estep`'s document loop calls.

Gathering a document's rows of ebeta_t into a topic-major block, E[log theta] and its exponential
with the psi/exp work only where gamma is not alpha, phinorm over the active topics (topics whose
share is below the unit roundoff are left out, checked after every evaluation), the document's
objective, one plain update F(g), and the ascent itself: plain, or SQUAREM-accelerated with the
monotonicity check. The notation and the reasoning behind each piece are in :mod:`.estep`'s notes.
"""

import math

import numpy as np
from numba import njit

from .bounds import exp_shifted_row
from .special import digamma, digamma_row, lgamma_sum
from .vec import matvec_add, matvec_t

UNIT = 2.0 ** -53  # the unit roundoff of float64


@njit(cache=True, nogil=True)
def gather(ebeta_t, indices, p0, p1, block):
    """block[k, i] = ebeta_t[indices[p0 + i], k] for i < p1 - p0 (the document's rows, topic-major)."""
    n_topics = block.shape[0]
    n = p1 - p0
    i = 0
    while i + 4 <= n:  # four rows at a time: each column of block gets four neighbouring entries
        r0 = ebeta_t[indices[p0 + i]]
        r1 = ebeta_t[indices[p0 + i + 1]]
        r2 = ebeta_t[indices[p0 + i + 2]]
        r3 = ebeta_t[indices[p0 + i + 3]]
        for k in range(n_topics):
            block[k, i] = r0[k]
            block[k, i + 1] = r1[k]
            block[k, i + 2] = r2[k]
            block[k, i + 3] = r3[k]
        i += 4
    while i < n:
        r0 = ebeta_t[indices[p0 + i]]
        for k in range(n_topics):
            block[k, i] = r0[k]
        i += 1


@njit(cache=True, nogil=True, inline="always")
def ensure_gathered(ebeta_t, indices, start, end, block, have, missing, rows, n_rows):
    """Gather the columns of the topics rows[:n_rows] that the resident block does not hold yet
    (``have``: int64 flags per topic, have[K] the number held; missing: int64 scratch of shape (K,))."""
    n_topics = block.shape[0]
    if have[n_topics] == n_topics:
        return
    n_missing = 0
    for j in range(n_rows):
        k = rows[j]
        if have[k] == 0:
            missing[n_missing] = k
            n_missing += 1
            have[k] = 1
    if n_missing == 0:
        return
    have[n_topics] += n_missing
    if n_missing == n_topics:
        gather(ebeta_t, indices, start, end, block)
        return
    for i in range(end - start):
        row = ebeta_t[indices[start + i]]
        for j in range(n_missing):
            k = missing[j]
            block[k, i] = row[k]


@njit(cache=True, nogil=True, error_model="numpy", inline="always")  # (the loops over topics vectorise)
def theta_row(g, alpha, psi_alpha, symmetric, elog, et, work, idx):
    """elog = E[log theta] = psi(g_k) - psi(sum g) and et = exp(elog - max elog) for one document, bit
    for bit ``dirichlet_expectation_row`` and ``exp_shifted_row``, evaluating psi and exp only where
    g_k != alpha_k when those are few: the other entries take psi_alpha[k] = psi(alpha_k), and with a
    ``symmetric`` alpha share one exp. (A topic left out of the updates stays at exactly alpha_k.)

    work : float64 scratch of shape (>= 2 K,); idx : int64 scratch of shape (K,).

    One path for both cases (with many entries away from alpha, all K are evaluated), so that each leaf
    (``digamma_row``, ``digamma``, ``exp_shifted_row``) has one call site; inlined into its one caller
    (:func:`evaluate`). (``exp_shifted_row`` is bit for bit ``bounds.exp_nonpositive`` of each entry.)
    """
    n_topics = g.shape[0]
    n = 0
    for k in range(n_topics):  # (SIMD) count first; the list only when it is used
        n += g[k] != alpha[k]
    dense = 2 * n > n_topics
    total = 0.0
    for k in range(n_topics):
        total += float(g[k])  # (float64 sum, the order of dirichlet_expectation_row's)
    psi_total = digamma(total)
    n -= n  # (0, but not the literal 0: digamma_row would be compiled a second time for it)
    for k in range(n_topics):
        if dense or g[k] != alpha[k]:
            idx[n] = k
            n += 1
    vals = work[:n]
    dgs = work[n:2 * n]
    for j in range(n):
        vals[j] = g[idx[j]]
    digamma_row(vals, n, dgs)
    if not dense:
        for k in range(n_topics):
            elog[k] = psi_alpha[k] - psi_total
    for j in range(n):
        elog[idx[j]] = dgs[j] - psi_total
    m = elog[0]
    for k in range(1, n_topics):
        m = max(m, elog[k])
    # with a symmetric alpha the alpha entries share one exp (that of entry k0, put last in the list; k0 < K:
    # at least half the entries are alpha's): exp of the n + 1 values only, when the scratch holds 3 (n + 1)
    shared = not dense and symmetric and 3 * (n + 1) <= 2 * n_topics
    if shared:
        k0 = 0
        while k0 < n_topics and g[k0] != alpha[k0]:
            k0 += 1
        for j in range(n):
            vals[j] = elog[idx[j]]
        vals = work[:n + 1]
        vals[n] = elog[k0]
        src, dst, tmp = vals, work[n + 1:2 * n + 2], work[2 * n + 2:]
    else:
        src, dst, tmp = elog, et, work
    exp_shifted_row(src, m, dst, tmp)  # (one call site: each is compiled in again)
    if shared:
        for k in range(n_topics):
            et[k] = dst[n]
        for j in range(n):
            et[idx[j]] = dst[j]


@njit(cache=True, nogil=True, inline="always")
def phinorm_of(et, rows, n_rows, indices, start, end, ebeta_t, block, resident, out):
    """out[p - start] = max(sum_{k in rows} et_k ebeta_t[w_p, k], 1e-300) for the positions p of one
    document; returns the smallest value. ``block`` holds the document's rows of ebeta_t
    (``resident``) or is refilled piece by piece."""
    width = block.shape[1]
    smallest = np.inf
    for p0 in range(start, end, width):
        p1 = min(end, p0 + width)
        if not resident:
            gather(ebeta_t, indices, p0, p1, block)
        piece = out[p0 - start:p1 - start]
        matvec_t(block, et, rows, n_rows, p1 - p0, piece)
        for i in range(p1 - p0):
            v = max(piece[i], 1e-300)
            piece[i] = v
            smallest = min(smallest, v)
    return smallest


@njit(cache=True, nogil=True, inline="always")
def objective_from(g, elog, words, alpha, work):
    """Document part of the ELBO given elog = E[log theta] for g and words = sum_w c_dw (log
    phinorm_dw + max_k elog_k), up to the term sum_w c_dw s_w (the same for every g). work: float64
    scratch of shape (>= 2 K,)."""
    n_topics = g.shape[0]
    s0 = s1 = s2 = s3 = 0.0
    gsum = 0.0
    k = 0
    while k + 4 <= n_topics:  # four partial sums: no long chain of dependent additions
        s0 += (alpha[k] - g[k]) * elog[k]
        s1 += (alpha[k + 1] - g[k + 1]) * elog[k + 1]
        s2 += (alpha[k + 2] - g[k + 2]) * elog[k + 2]
        s3 += (alpha[k + 3] - g[k + 3]) * elog[k + 3]
        gsum += (g[k] + g[k + 1]) + (g[k + 2] + g[k + 3])
        k += 4
    while k < n_topics:
        s0 += (alpha[k] - g[k]) * elog[k]
        gsum += g[k]
        k += 1
    return words + ((s0 + s1) + (s2 + s3)) + lgamma_sum(g, work) - math.lgamma(gsum)


@njit(cache=True, nogil=True, error_model="numpy")
def evaluate(g, elog, et, indices, data, start, end, ebeta_t, block, resident, phinorm, rows, limit, state, alpha,
             th, objective, refresh):
    """Refresh et = exp(E[log theta] - max) from g, the active topics (``rows``) and phinorm over the
    document's non-zeros from them (``phinorm``: the document's slice, position p at p - start); returns
    the number of active topics and, when ``objective``, the document objective of g (else 0).

    Topic k is left out when et_k < UNIT * min_w phinorm_w * limit_k, limit_k = min(alpha_k / N_d, 1 / K)
    (N_d the document's tokens): together such topics add less than one unit roundoff to every
    phinorm, and alpha_k + et_k sum_w c_dw ebeta_t[w, k] / phinorm_dw rounds to alpha_k. The minimum
    is that of the previous call (``state[0]``; 0 for none: all topics), checked against the new one.
    ``state[1] > 0`` with no minimum yet: first try the topics on which g is not alpha (a solution to
    continue from). With ``state`` zeros, every topic is used (the objective from scratch). Without
    ``refresh``, only the objective of g from the values elog, phinorm already hold (the number of active
    topics returned is then meaningless).

    The one compiled function of a document's evaluation: E[log theta], the gathering, phinorm and the
    objective are inlined here, each from one call site (every compiled level re-optimises and generates
    machine code for all it calls again: ``benchmarks/results/coldstart_notes.md``).
    """
    n_topics = g.shape[0]
    psi_alpha, symmetric, lgw, idx, have, missing = th
    n_rows = n_topics
    if refresh:
        theta_row(g, alpha, psi_alpha, symmetric, elog, et, lgw, idx)
        if state[0] > 0.0:
            cut = UNIT * state[0]
            lowest = np.inf
            for k in range(n_topics):  # (SIMD) whether any topic could be left out at all
                lowest = min(lowest, et[k] - cut * limit[k])
            if lowest < 0.0:
                n_rows = 0
                for k in range(n_topics):
                    if et[k] >= cut * limit[k]:
                        rows[n_rows] = k
                        n_rows += 1
        elif state[1] > 0.0:  # no minimum yet, but a solution to continue from: try the topics it uses
            n_rows = 0
            for k in range(n_topics):
                if g[k] != alpha[k]:
                    rows[n_rows] = k
                    n_rows += 1
            if 2 * n_rows > n_topics:
                n_rows = n_topics
        while True:  # at most twice: the active topics, then all of them if a left-out one fails the test
            if n_rows == n_topics:
                for k in range(n_topics):
                    rows[k] = k
            if resident:
                ensure_gathered(ebeta_t, indices, start, end, block, have, missing, rows, n_rows)
            smallest = phinorm_of(et, rows, n_rows, indices, start, end, ebeta_t, block, resident, phinorm)
            state[0] = smallest
            if n_rows == n_topics:
                break
            cut = UNIT * smallest
            j = 0
            for k in range(n_topics):  # a left-out topic must pass the test with the new minimum too
                if j < n_rows and rows[j] == k:
                    j += 1
                elif et[k] >= cut * limit[k]:
                    n_rows = n_topics
                    break
            if n_rows < n_topics:
                break
    if not objective:
        return n_rows, 0.0
    m = elog[0]
    for k in range(1, n_topics):
        if elog[k] > m:
            m = elog[k]
    words = 0.0
    for p in range(start, end):
        words += data[p] * (np.log(phinorm[p - start]) + m)
    return n_rows, objective_from(g, elog, words, alpha, lgw)


@njit(cache=True, nogil=True)
def update_once(g, out, et, acc, indices, data, start, end, ebeta_t, block, resident, phinorm, r, rows, n_rows,
                alpha):
    """One coordinate-ascent update out = F(g) = alpha + et * sum_w c_dw ebeta_t[w] / phinorm_dw, with et,
    phinorm (the document's slice) and the active topics (``rows[:n_rows]``; the others stay at alpha)
    holding g's values; returns the mean absolute change |F(g) - g| (out may be g). r: scratch of shape
    (>= min(end - start, block width),)."""
    n_topics = g.shape[0]
    for k in range(n_topics):
        acc[k] = 0.0
    width = block.shape[1]
    for p0 in range(start, end, width):
        p1 = min(end, p0 + width)
        if not resident:
            gather(ebeta_t, indices, p0, p1, block)
        for i in range(p1 - p0):
            r[i] = data[p0 + i] / phinorm[p0 - start + i]
        matvec_add(block, r, rows, n_rows, p1 - p0, acc)
    change = 0.0
    for k in range(n_topics):
        new = alpha[k] + et[k] * acc[k]
        change += abs(new - g[k])
        out[k] = new
    return change / n_topics


@njit(cache=True, nogil=True, inline="always")
def iterate(g, elog, et, acc, indices, data, start, end, ebeta_t, block, resident, phinorm, r, rows, limit, state,
            alpha, max_iter, tol, ready, n_rows, th):
    """Plain coordinate ascent on one document from g (updated in place); returns the updates made and
    the number of active topics. ``ready``: elog, et, phinorm and the active topics (``n_rows``) already
    hold g's values."""
    never = ready and not ready  # (runtime booleans: literal ones would compile evaluate once more)
    always = not never
    if not ready:
        n_rows = evaluate(g, elog, et, indices, data, start, end, ebeta_t, block, resident, phinorm, rows, limit,
                          state, alpha, th, never, always)[0]
    done = 0
    for it in range(max_iter):
        change = update_once(g, g, et, acc, indices, data, start, end, ebeta_t, block, resident, phinorm, r, rows,
                             n_rows, alpha)
        n_rows = evaluate(g, elog, et, indices, data, start, end, ebeta_t, block, resident, phinorm, rows, limit,
                          state, alpha, th, never, always)[0]
        done = it + 1
        if change < tol:
            break
    return done, n_rows


@njit(cache=True, nogil=True)
def copy_into(src, dst):
    for k in range(src.shape[0]):
        dst[k] = src[k]


@njit(cache=True, nogil=True, inline="always")
def squarem(g, elog, et, acc, g1, g2, indices, data, start, end, ebeta_t, block, resident, phinorm, r, rows, limit,
            state, alpha, max_iter, tol, safe, ready, n_rows, th):
    """Coordinate ascent on one document accelerated by SQUAREM (see the module notes), from g
    (updated in place); returns the updates (evaluations of F) made and the number of active topics.
    ``safe``: never end below the start's objective (each cycle's extrapolated point is kept only if it
    beats the cycle's first update). g1, g2: scratch of shape (K,). ``ready``: elog, et, phinorm and the
    active topics (``n_rows``) already hold g's values."""
    n_topics = g.shape[0]
    never = ready and not ready  # (runtime booleans: literal ones would compile evaluate once more)
    always = not never
    if not ready:
        n_rows = evaluate(g, elog, et, indices, data, start, end, ebeta_t, block, resident, phinorm, rows, limit,
                          state, alpha, th, never, always)[0]
    done = 0
    while done < max_iter:
        change = update_once(g, g1, et, acc, indices, data, start, end, ebeta_t, block, resident, phinorm, r, rows,
                             n_rows, alpha)  # g1 = F(g)
        done += 1
        last = change < tol or done == max_iter
        # (the objective of g1 only when the cycle goes on and must not lose ground)
        n_rows, base = evaluate(g1, elog, et, indices, data, start, end, ebeta_t, block, resident, phinorm, rows,
                                limit, state, alpha, th, safe and not last, always)
        if last:
            copy_into(g1, g)
            break
        change = update_once(g1, g2, et, acc, indices, data, start, end, ebeta_t, block, resident, phinorm, r, rows,
                             n_rows, alpha)  # g2 = F(g1)
        done += 1
        if change < tol or done == max_iter:
            copy_into(g2, g)
            n_rows = evaluate(g, elog, et, indices, data, start, end, ebeta_t, block, resident, phinorm, rows, limit,
                              state, alpha, th, never, always)[0]
            break
        rr = 0.0
        vv = 0.0
        for k in range(n_topics):
            rk = g1[k] - g[k]
            v = g2[k] - 2.0 * g1[k] + g[k]
            rr += rk * rk
            vv += v * v
        step = -math.sqrt(rr / vv) if vv > 0.0 else -1.0
        while step < -1.0:  # extrapolate into acc; shorten the step while a component falls below alpha / 2
            inside = True
            for k in range(n_topics):
                rk = g1[k] - g[k]
                v = g2[k] - 2.0 * g1[k] + g[k]
                x = g[k] - 2.0 * step * rk + step * step * v
                if not (x > 0.5 * alpha[k]):  # also catches NaN
                    inside = False
                    break
                acc[k] = x
            if inside:
                break
            step = 0.5 * (step - 1.0)
            if step > -1.01:
                step = -1.0
        if step < -1.0:
            copy_into(acc, g)
        else:  # the plain double update
            copy_into(g2, g)
        check = safe and step < -1.0
        n_rows, now = evaluate(g, elog, et, indices, data, start, end, ebeta_t, block, resident, phinorm, rows, limit,
                               state, alpha, th, check, always)
        if check and now < base:
            copy_into(g2, g)  # the extrapolation lost ground: keep the plain double update
            n_rows = evaluate(g, elog, et, indices, data, start, end, ebeta_t, block, resident, phinorm, rows, limit,
                              state, alpha, th, never, always)[0]
    return done, n_rows
