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
from .workers import run_items

SMALL_MEAN = 8.0  # below this mean: a shifted binomial law of the same mean and variance, summed exactly
MAX_TERMS = 256  # a cap on that sum; it stops once P(n > j) falls below the unit roundoff
BLOCK = 1024  # entries per work item


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


def digamma_gain(mean, var, a, out):
    """out[i] = E[psi(n_i + a_i)] - psi(a_i) for counts of mean ``mean[i]`` and variance ``var[i]``.

    mean, var, a, out : float64 arrays of shape (n,); out is overwritten; 0 <= var.
    For m < SMALL_MEAN the count is taken as an integer shift plus a binomial or Poisson part with
    the count's mean and nearly its variance (:func:`shifted_law`; exact for identical indicators), and
    E[psi(s + k + a)] - psi(a) = psi(s + a) - psi(a) + sum_{j >= 0} P(k > j) / (s + a + j), from
    psi(x + k) - psi(x) = sum_{j < k} 1 / (x + j); otherwise the second-order Taylor expansion
    psi(m + a) - psi(a) + psi''(m + a) v / 2 (next term of order v^2 / m^5).
    """
    arrays = [np.require(x, np.float64, ("C", "W")) for x in (mean, var, a)]  # (one compiled specialisation)
    n_blocks = (out.shape[0] + BLOCK - 1) // BLOCK
    run_items(_gain_blocks, n_blocks, n_blocks, *arrays, out, work=30 * out.shape[0])


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _gain_blocks(worker, workers, n_blocks, mean, var, a, out):
    """:func:`digamma_gain` of the entries of the blocks in this worker's share (BLOCK entries each)."""
    n = mean.shape[0]
    for blk in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        for i in range(blk * BLOCK, min(n, (blk + 1) * BLOCK)):  # (elementwise: no dependence on the threads)
            m = mean[i]
            v = var[i]
            b = a[i]
            if m <= 0.0:
                out[i] = 0.0
            elif m < SMALL_MEAN:
                out[i] = _small_gain(m, v, b)
            else:
                x = m + b
                out[i] = digamma(x) - digamma(b) + 0.5 * trigamma_prime(x) * v
