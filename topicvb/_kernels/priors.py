"""Expectations of digamma of random counts, for learning Dirichlet priors from expected counts.

Notation: m the mean and v the variance of a count n >= 0 (a sum of independent token indicators
under the collapsed mean-field distribution, so 0 <= v <= m), a > 0 a prior value; the quantity is
E[psi(n + a)] - psi(a), the statistic of Minka's fixed point (``models/_priors.py`` explains why the
plug-in psi(m + a) - psi(a) will not do).
"""

import math

import numpy as np
from numba import njit

from .special import digamma
from .workers import n_workers, run_claimed, run_items, run_units, unit_starts

SMALL_MEAN = 8.0  # below this mean: a shifted binomial law of the same mean and variance, summed exactly
SERIES_MEAN = 1.0  # below this mean (no shift): that sum by its Newton series (:func:`_series_gain`)
MAX_TERMS = 256  # a cap on those sums; they stop once the rest is below the unit roundoff
BLOCK = 1024  # entries per work item
ROWS = 64  # rows of a (rows, K) array per work item of :func:`gain_column_sums`


@njit(cache=True, nogil=True)
def trigamma_prime(x):
    """psi''(x) for x >= 8 by its asymptotic series (absolute error below 1e-12 there)."""
    inv = 1.0 / x
    inv2 = inv * inv
    return -inv2 * (1.0 + inv + inv2 * (0.5 + inv2 * (-1.0 / 6.0 + inv2 * (1.0 / 6.0 + inv2 * (-0.3 + inv2 * (5.0 / 6.0))))))


@njit(cache=True, nogil=True)
def _law_variance(m, v, s):
    """(variance, trials, p) of the law shift_binomial picks for shift s: the rest r = m - s is
    Poisson(r) when v >= r (trials = -1), else Binomial(N, r / N), N = max(round(r^2 / (r - v)), ceil r)."""
    r = m - s
    if r <= 0.0:
        return 0.0, 0.0, 0.0
    if v >= r:
        return r, -1.0, 0.0
    n_trials = float(max(math.floor(r * r / (r - v) + 0.5), math.ceil(r)))
    p = r / n_trials
    return r * (1.0 - p), n_trials, p


@njit(cache=True, nogil=True)
def shifted_law(m, v):
    """(shift s, trials N, p): n = s + Binomial(N, p) (or s + Poisson(m - s) when N = -1), an integer
    shift s in {0, floor(m - v), floor(m - v) + 1} (at most m) with the mean m and the variance nearest v.

    A sum of identical indicators is binomial (s = 0); a count of near-certain tokens plus rare ones
    is a near-integer plus a Poisson part (s near m - v).
    """
    best_s, best_gap = 0.0, math.inf
    base = float(math.floor(max(m - v, 0.0)))
    for s in (0.0, base, base + 1.0):
        if s > m:
            continue
        var, _, _ = _law_variance(m, v, s)
        gap = abs(var - v)
        if gap < best_gap - 1e-12:
            best_s, best_gap = s, gap
    _, n_trials, p = _law_variance(m, v, best_s)
    return best_s, n_trials, p


@njit(cache=True, nogil=True)
def _small_gain(m, v, b):
    """E[psi(n + b)] - psi(b) under :func:`shifted_law`: psi(s + b) - psi(b) + sum_j P(k > j) / (s + b + j)."""
    s, n_trials, p = shifted_law(m, v)
    x = s + b
    total = digamma(x) - digamma(b) if s > 0.0 else 0.0
    r = m - s
    if r <= 0.0:
        return total
    if n_trials > 0.0 and 1.0 - p < 1e-12:  # the rest is (nearly) fixed
        return total + digamma(x + r) - digamma(x)
    pmf = math.exp(-r) if n_trials < 0.0 else math.exp(n_trials * math.log1p(-p))
    cdf = pmf
    j = 0
    while j < MAX_TERMS:
        tail = 1.0 - cdf
        if tail <= 1.1e-16:
            break
        total += tail / (x + j)
        if n_trials < 0.0:
            pmf *= r / (j + 1)
        else:
            if j + 1 > n_trials:
                break
            pmf *= (n_trials - j) / (j + 1) * p / (1.0 - p)
        cdf += pmf
        j += 1
    return total


@njit(cache=True, nogil=True)
def _series_gain(m, v, b):
    """:func:`_small_gain` for 0 < m < 1, without its loop over P(k > j), its shift or exp / log1p.

    Below a mean of one :func:`shifted_law` always picks the shift 0 (its candidates are 0,
    floor(m - v) = 0 and 1 > m), so k is Poisson(m) (v >= m) or Binomial(N, p), N = max(round(m^2 /
    (m - v)), 1), p = m / N. Newton's forward-difference series of f(k) = psi(k + b) - psi(b) =
    sum_{j<k} 1 / (b + j) is f(k) = sum_{i>=1} C(k, i) D^i f(0) with D^i f(0) = (-1)^(i-1) (i-1)! /
    prod_{j<i} (b + j), and E C(k, i) = C(N, i) p^i (binomial; m^i / i! for Poisson(m)), so

        E f(k) = sum_{i>=1} (-1)^(i-1) t_i,   t_i = (1 / i) prod_{j<i} q_j / (b + j),

    q_j = (N - j) p (binomial: the series ends at i = N) or m (Poisson). For i >= 1 the ratio
    t_(i+1) / t_i = i q_i / ((i + 1) (b + i)) is at most m / i < 1: the terms alternate and
    decrease, so the sum is at least t_1 / 2 (no cancellation) and the rest after t_i is below
    t_(i+1) <= t_i. It stops once t_i is below the unit roundoff of the sum: about as many terms as
    digits, e.g. 5 for m = 0.01, 14 for m = 0.5 (measured: 25 ns an entry at K = 50 on KOS, against
    60 ns for the sum over P(k > j); a Horner form with one division was slower, 33 ns).
    """
    poisson = v >= m
    n_trials = 0.0
    p = 0.0
    if not poisson:
        n_trials = max(math.floor(m * m / (m - v) + 0.5), 1.0)
        p = m / n_trials
    total = 0.0
    prod = 1.0
    j = 0
    while j < MAX_TERMS:
        if poisson:
            prod *= m / (b + j)
        else:
            if j >= n_trials:
                break
            prod *= (n_trials - j) * p / (b + j)
        term = prod / (j + 1)
        if j % 2 == 0:
            total += term
        else:
            total -= term
        j += 1
        if term <= 1.1e-16 * total:
            break
    return total


@njit(cache=True, nogil=True)
def gain(m, v, b):
    """E[psi(n + b)] - psi(b) for a count n of mean m and variance v (see :func:`digamma_gain`)."""
    if m <= 0.0:
        return 0.0
    if m < SERIES_MEAN:
        return _series_gain(m, v, b)
    if m < SMALL_MEAN:
        return _small_gain(m, v, b)
    x = m + b
    return digamma(x) - digamma(b) + 0.5 * trigamma_prime(x) * v


def digamma_gain(mean, var, a, out):
    """out[i] = E[psi(n_i + a_i)] - psi(a_i) for counts of mean ``mean[i]`` and variance ``var[i]``.

    mean, var, a, out : float64 arrays of shape (n,); out is overwritten; 0 <= var.
    For m < SMALL_MEAN the count is taken as an integer shift plus a binomial or Poisson part with
    the count's mean and nearly its variance (:func:`shifted_law`; exact for identical indicators), and
    E[psi(s + k + a)] - psi(a) = psi(s + a) - psi(a) + sum_{j >= 0} P(k > j) / (s + a + j), from
    psi(x + k) - psi(x) = sum_{j < k} 1 / (x + j); otherwise the second-order Taylor expansion
    psi(m + a) - psi(a) + psi''(m + a) v / 2 (next term of order v^2 / m^5). Below a mean of one the
    same law's expectation is summed by :func:`_series_gain` (a few multiply-adds, where the sum over
    P(k > j) needed exp and log1p and took 50-60 ns an entry).
    """
    arrays = [np.require(x, np.float64, ("C", "W")) for x in (mean, var, a)]  # (one compiled specialisation)
    n_blocks = (out.shape[0] + BLOCK - 1) // BLOCK
    run_units(_gain_blocks, n_blocks, n_blocks, *arrays, out, work=30 * out.shape[0])


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _gain_blocks(worker, workers, n_blocks, mean, var, a, out):
    """:func:`digamma_gain` of the entries of the blocks in this worker's share (BLOCK entries each)."""
    n = mean.shape[0]
    for blk in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        for i in range(blk * BLOCK, min(n, (blk + 1) * BLOCK)):  # (elementwise: no dependence on the threads)
            out[i] = gain(mean[i], var[i], a[i])


def gain_column_sums(mean, var, a):
    """sum_i (E[psi(n_ik + a_k)] - psi(a_k)) for each column k: the statistic of Minka's step, with no
    (rows, K) temporary.

    mean, var : float64 arrays of shape (n, K), C-contiguous; a : float64 (K,). Returns (K,) float64.
    Blocks of ROWS rows are summed by the threads into their own rows of a (blocks, K) array, which is
    then summed in a fixed order: the result does not depend on the thread count. The entries below
    a mean of one (most of a sparse corpus's counts) take :func:`_series_gain`'s Newton series with a
    fixed number of terms and its coefficients for the column's a_k computed once, evaluated for a
    whole row at a time (:func:`_gain_sum_blocks`).
    """
    n_blocks = max(1, (mean.shape[0] + ROWS - 1) // ROWS)
    partial = np.zeros((n_blocks, mean.shape[1]))
    coef = series_coefficients(a)
    scratch = np.empty((n_blocks, 3, mean.shape[1]))
    # the blocks in units that the threads claim one at a time (run_claimed; a small array: one contiguous share
    # per thread); each block sums into its own row of partial, so which thread takes which unit changes nothing
    work = 30 * mean.size
    workers = n_workers(n_blocks, work=work)
    units = unit_starts(n_blocks, workers, work)
    run_claimed(_gain_sum_blocks, units.shape[0] - 1, units, mean, var, a, coef, scratch, partial, workers=workers)
    return partial.sum(axis=0)


TINY = 1e-200  # a product of the series below this is taken as 0 (its term is below 1e-180 of the sum)
SERIES_TERMS = 24  # terms of the series below a mean of one: t_i <= t_1 / i!, so the last is below 1e-23 t_1


def series_coefficients(a):
    """coef[i - 1, k] = (-1)^(i-1) (1 / i) prod_{j < i} 1 / (a_k + j), i = 1..SERIES_TERMS: the series of
    :func:`_series_gain` is sum_i coef_i Q_i with Q_i = prod_{j < i} q_j."""
    a = np.asarray(a, dtype=np.float64)
    coef = np.empty((SERIES_TERMS, a.shape[0]))
    prod = np.ones(a.shape[0])
    for i in range(1, SERIES_TERMS + 1):
        prod = prod / (a + (i - 1))
        coef[i - 1] = (prod if i % 2 == 1 else -prod) / i
    return coef


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a claimed-unit kernel: see workers.run_claimed)
def _gain_sum_blocks(slot, first, stop, units, mean, var, a, coef, scratch, partial):
    """:func:`gain_column_sums` of the row blocks units[first] to units[stop] (excluded), each into its own row of
    ``partial`` (so that which thread takes which unit changes nothing).

    Below a mean of one, q_j = m - j p with p = 0 for the Poisson law (v >= m) and p = m / N for the
    binomial (:func:`_series_gain`), whose q_N = 0 ends the series by itself; the SERIES_TERMS terms of
    a row are summed topic by topic in loops without a branch, which vectorise (a product below TINY,
    whose term is negligible, is set to 0 rather than carried into subnormal numbers). The other entries
    (the row's values there are discarded) take :func:`gain`.
    """
    n, n_topics = mean.shape
    n_terms = coef.shape[0]
    for blk in range(units[first], units[stop]):
        step, q, total = scratch[blk, 0], scratch[blk, 1], scratch[blk, 2]
        for i in range(blk * ROWS, min(n, (blk + 1) * ROWS)):
            for k in range(n_topics):
                m = mean[i, k]
                v = var[i, k]
                step[k] = 0.0 if v >= m else m / max(math.floor(m * m / (m - v) + 0.5), 1.0)
                q[k] = m
                total[k] = m * coef[0, k]
            for j in range(1, n_terms):
                for k in range(n_topics):
                    x = q[k] * (mean[i, k] - j * step[k])
                    q[k] = x if abs(x) > TINY else 0.0  # (no subnormal products after the first term)
                    total[k] += q[k] * coef[j, k]
            for k in range(n_topics):
                m = mean[i, k]
                if 0.0 < m < SERIES_MEAN:
                    partial[blk, k] += total[k]
                else:
                    partial[blk, k] += gain(m, var[i, k], a[k])


VARIANCE_PARTS = 2  # document ranges of cell_variances, each with its own (V, K) sums: fixed, not the thread count


def cell_variances(indptr, indices, data, gamma, v_dk, v_wk):
    """The variances of the mean-field counts, v_dk = sum_w c_dw gamma_dwk (1 - gamma_dwk) and v_wk =
    sum_d c_dw gamma_dwk (1 - gamma_dwk) (each of a cell's c tokens an independent indicator), by
    VARIANCE_PARTS ranges of documents on the threads, each in document order (v_wk gathered by
    scattered adds into the range's own (V, K) sums, added in range order: the result does not depend
    on the thread count; reading gamma in its own order costs about a third of a pass over each term's
    cells). v_dk, v_wk: float64 (D, K), (V, K), overwritten.
    """
    n_parts = VARIANCE_PARTS
    parts = np.empty((n_parts - 1, *v_wk.shape)) if n_parts > 1 else v_wk[None]
    run_items(_cell_variance_parts, n_parts, n_parts, indptr, indices, data, gamma, v_dk, v_wk, parts,
              work=3 * gamma.size)
    for part in parts[: n_parts - 1]:
        v_wk += part


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _cell_variance_parts(worker, workers, n_parts, indptr, indices, data, gamma, v_dk, v_wk, parts):
    """:func:`cell_variances` of the document ranges in this worker's share: range 0 sums into v_wk,
    range r > 0 into parts[r - 1]."""
    n_docs = indptr.shape[0] - 1
    n_topics = gamma.shape[1]
    for part in range(worker * n_parts // workers, (worker + 1) * n_parts // workers):
        out = v_wk if part == 0 else parts[part - 1]
        out[:] = 0.0
        for d in range(part * n_docs // n_parts, (part + 1) * n_docs // n_parts):
            for k in range(n_topics):
                v_dk[d, k] = 0.0
            for p in range(indptr[d], indptr[d + 1]):
                c = np.float64(data[p])
                w = indices[p]
                for k in range(n_topics):
                    g = np.float64(gamma[p, k])
                    x = c * g * (1.0 - g)
                    v_dk[d, k] += x
                    out[w, k] += x
