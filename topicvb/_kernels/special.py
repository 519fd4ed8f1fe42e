"""Special functions for nopython mode: digamma and lgamma, plus Dirichlet expectations.

Notation: ``psi`` is the digamma function d/dx log Gamma(x). For a Dirichlet with parameter
vector ``a``, E[log p_k] = psi(a_k) - psi(sum(a)).

digamma(x) for x > 0 uses the recurrence psi(x) = psi(x + 1) - 1/x to shift the argument to
x >= 10, then the asymptotic series psi(x) ~ log x - 1/(2x) - sum_n B_2n / (2n x^2n) to n = 7,
whose truncation error at x = 10 is below 1e-19. lgamma wraps libm's lgamma (``math.lgamma``),
which numba supports in nopython mode.
"""

import math

import numpy as np
from numba import njit

# B_2n / (2n) for n = 1..7 (Bernoulli numbers B2=1/6, B4=-1/30, B6=1/42, B8=-1/30, B10=5/66,
# B12=-691/2730, B14=7/6)
_C1 = 1.0 / 12.0
_C2 = -1.0 / 120.0
_C3 = 1.0 / 252.0
_C4 = -1.0 / 240.0
_C5 = 1.0 / 132.0
_C6 = -691.0 / 32760.0
_C7 = 1.0 / 12.0


@njit(cache=True, nogil=True)
def digamma(x):
    """Digamma of a positive float (float64 result); NaN for x <= 0 or NaN input."""
    x = float(x)
    if not (x > 0.0):
        return np.nan
    if x == np.inf:
        return np.inf
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (_C1 + inv2 * (_C2 + inv2 * (_C3 + inv2 * (_C4 + inv2 * (_C5 + inv2 * (_C6 + inv2 * _C7))))))
    return result + math.log(x) - 0.5 * inv - series


@njit(cache=True, nogil=True)
def lgamma(x):
    """log Gamma(x) for a positive float (float64 result)."""
    return math.lgamma(float(x))


@njit(cache=True, nogil=True)
def dirichlet_expectation_row(a, out):
    """E[log p] under Dirichlet(a) for one parameter vector.

    a : float array of shape (K,), positive
    out : float64 array of shape (K,), overwritten with psi(a_k) - psi(sum(a))
    """
    total = 0.0
    for k in range(a.shape[0]):
        total += a[k]
    psi_total = digamma(total)
    for k in range(a.shape[0]):
        out[k] = digamma(a[k]) - psi_total


@njit(cache=True, nogil=True)
def digamma_array(x):
    """Element-wise digamma of a 1-D float array (float64 result), for tests and small vectors."""
    out = np.empty(x.shape[0], dtype=np.float64)
    for i in range(x.shape[0]):
        out[i] = digamma(x[i])
    return out


@njit(cache=True, nogil=True)
def lgamma_array(x):
    """Element-wise lgamma of a 1-D float array (float64 result)."""
    out = np.empty(x.shape[0], dtype=np.float64)
    for i in range(x.shape[0]):
        out[i] = math.lgamma(float(x[i]))
    return out
