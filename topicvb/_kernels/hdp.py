"""The HDP's global objective: expectations of log-gamma of random counts (:class:`topicvb.HDP`).

Notation: m the mean and v the variance of a count n >= 0 under the collapsed mean-field distribution, b > 0 a
prior value. The quantity is E[lnG(n + b) - lnG(b)] under the same law of n as
:func:`topicvb._kernels.priors.gain` takes for E[psi(n + b)] - psi(b), so that the latter is the derivative in b
of the former (the global step's statistic is the gradient of the objective it raises): below a mean of
SMALL_MEAN an integer shift s plus a binomial or Poisson part (:func:`topicvb._kernels.priors.shifted_law`),
lnG(s + b) - lnG(b) + sum_j P(k > j) ln(s + b + j); above it the second-order Taylor form
lnG(m + b) - lnG(b) + psi'(m + b) v / 2.
"""

import math

import numpy as np
from numba import njit

from .priors import ROWS, SMALL_MEAN, shifted_law
from .workers import run_units

MAX_TERMS = 4096


@njit(cache=True, nogil=True)
def _trigamma(x):
    """psi'(x) for x > 0 (recurrence to x >= 8, then the asymptotic series)."""
    out = 0.0
    while x < 8.0:
        out += 1.0 / (x * x)
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    return out + inv + 0.5 * inv2 + inv * inv2 * (1.0 / 6.0 - inv2 * (1.0 / 30.0 - inv2 * (1.0 / 42.0 - inv2 / 30.0)))


@njit(cache=True, nogil=True)
def loggamma_gain(m, v, b):
    """E[lnG(n + b) - lnG(b)] for a count n of mean m and variance v (the module's law)."""
    if m <= 0.0:
        return 0.0
    if m >= SMALL_MEAN:
        x = m + b
        return math.lgamma(x) - math.lgamma(b) + 0.5 * _trigamma(x) * v
    s, n_trials, p = shifted_law(m, v)
    x = s + b
    total = math.lgamma(x) - math.lgamma(b) if s > 0.0 else 0.0
    r = m - s
    if r <= 0.0:
        return total
    if n_trials > 0.0 and 1.0 - p < 1e-12:  # the rest is (nearly) fixed
        return total + math.lgamma(x + r) - math.lgamma(x)
    pmf = math.exp(-r) if n_trials < 0.0 else math.exp(n_trials * math.log1p(-p))
    cdf = pmf
    j = 0
    while j < MAX_TERMS:
        tail = 1.0 - cdf
        if tail <= 1.1e-16:
            break
        total += tail * math.log(x + j)
        if n_trials < 0.0:
            pmf *= r / (j + 1)
        else:
            if j + 1 > n_trials:
                break
            pmf *= (n_trials - j) / (j + 1) * p / (1.0 - p)
        cdf += pmf
        j += 1
    return total


def loggamma_gain_sums(mean, var, a):
    """out[k] = sum_i E[lnG(n_ik + a_k) - lnG(a_k)] over the rows of ``mean`` (n, K), ``var`` (n, K) (float
    arrays of any layout), a (K,) float64; returns a new float64 (K,) array. Blocks of ROWS rows on the
    threads, each summed into its own row of a (blocks, K) array, then summed in a fixed order: the result
    does not depend on the thread count."""
    n_blocks = max(1, (mean.shape[0] + ROWS - 1) // ROWS)
    partial = np.zeros((n_blocks, mean.shape[1]))
    a = np.ascontiguousarray(a, dtype=np.float64)
    run_units(_loggamma_sum_blocks, n_blocks, n_blocks, mean, var, a, partial, work=60 * mean.size)
    return partial.sum(axis=0)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _loggamma_sum_blocks(worker, workers, n_blocks, mean, var, a, partial):
    """:func:`loggamma_gain_sums` of the row blocks in this worker's share."""
    n, n_topics = mean.shape
    for blk in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        for i in range(blk * ROWS, min(n, (blk + 1) * ROWS)):
            for k in range(n_topics):
                partial[blk, k] += loggamma_gain(np.float64(mean[i, k]), np.float64(var[i, k]), a[k])
