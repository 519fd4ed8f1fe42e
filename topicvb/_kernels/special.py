"""Special functions for nopython mode: digamma and lgamma, plus Dirichlet expectations.

Notation: ``psi`` is the digamma function d/dx log Gamma(x). For a Dirichlet with parameter
vector ``a``, E[log p_k] = psi(a_k) - psi(sum(a)).

digamma(x) for x > 0 uses the recurrence psi(x) = psi(x + 1) - 1/x to shift the argument to
y >= 10, then the asymptotic series psi(y) ~ log y - 1/(2y) - sum_n B_2n / (2n y^2n) to n = 7,
whose truncation error at y = 10 is below 1e-19. For 0 < x < 10 (almost every entry of a
document's gamma and of a topic-word lam) the shift is by exactly 10 and its sum
sum_{i<10} 1 / (x + i) is evaluated as a shallow tree: pairs 1/a + 1/(a + 1) = (2a + 1) / (a (a + 1))
for a = x, x + 2, ..., x + 8, added over a common denominator, one division in all (all terms are
positive, so a few ulp), and log y by a series (``small_parts``): no libm call and no branch, so
loops over many values vectorise. Larger x need no shift (libm's log).
lgamma wraps libm's lgamma (``math.lgamma``), which numba supports in nopython mode.

digamma_lgamma(x) returns both for the dense K x V passes over lam (OnlineLDA): its digamma is
bit for bit :func:`digamma`, and its lgamma reuses the same shift (the product p = prod (x + i)
of the shifted terms, lgamma(x) = lgamma(y) - log p) and Stirling's series at y, to absolute
accuracy 1e-14 (near its roots 1 and 2 relatively worse than ``math.lgamma``), which is what a sum
over many terms (the ELBO) needs.
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

# B_2n / (2n (2n - 1)) for n = 1..7: Stirling's series for lgamma
_S1 = 1.0 / 12.0
_S2 = -1.0 / 360.0
_S3 = 1.0 / 1260.0
_S4 = -1.0 / 1680.0
_S5 = 1.0 / 1188.0
_S6 = -691.0 / 360360.0
_S7 = 1.0 / 156.0
_HALF_LOG_2PI = 0.9189385332046727418


LOG_9_FACTORIAL = 12.80182748008146961  # log(362880)


_LOG_15 = 2.708050201102210065  # log(15)


@njit(cache=True, nogil=True, inline="always")
def small_parts(x):
    """(digamma(x), g, q) for 0 < x < 10 without calls to libm, so that loops over it vectorise.

    The shift is by 10 to y = x + 10: digamma(x) = psi(y) - sum_{i<10} 1 / (x + i), the sum as
    d / p over the common denominator p = prod_{i<10} (x + i) (pairs 1/a + 1/(a+1) = (2a+1) / (a (a+1))
    for a = x, x + 2, ..., x + 8, added in a tree), psi(y) by the asymptotic series, and
    log y = log 15 + log(1 + t), t = (y - 15) / 15, by the series log(1 + t) = 2 atanh(u),
    u = (y - 15) / (y + 15) in (-0.2, 0.15) (twelve terms reach 1e-19). One division gives 1 / p,
    1 / y and u. Also returned: g = lgamma(y) (Stirling's series) and q = prod_{i=1..9} (1 + x / i),
    so that lgamma(x) = g - log x - log 9! - log q.

    Inlined by numba (``inline="always"``) wherever it is called: as a function of its own LLVM does not
    inline it and the loops over it stop vectorising (``digamma_row`` 9 times slower). Each call site
    compiles it again, so each caller has one (``digamma``: one call for both of its small-x branches).
    """
    a0, a1, a2, a3, a4 = x, x + 2.0, x + 4.0, x + 6.0, x + 8.0
    n0, n1, n2, n3, n4 = 2.0 * a0 + 1.0, 2.0 * a1 + 1.0, 2.0 * a2 + 1.0, 2.0 * a3 + 1.0, 2.0 * a4 + 1.0
    d0, d1, d2, d3, d4 = a0 * (a0 + 1.0), a1 * (a1 + 1.0), a2 * (a2 + 1.0), a3 * (a3 + 1.0), a4 * (a4 + 1.0)
    n01 = n0 * d1 + n1 * d0
    d01 = d0 * d1
    n23 = n2 * d3 + n3 * d2
    d23 = d2 * d3
    n03 = n01 * d23 + n23 * d01
    d03 = d01 * d23
    p = d03 * d4
    d = n03 * d4 + n4 * d03
    y = x + 10.0
    z = y + 15.0
    yz = y * z
    r = 1.0 / (p * yz)
    s = d * yz * r  # sum_{i<10} 1 / (x + i)
    inv = p * z * r  # 1 / y
    u = (x - 5.0) * p * y * r  # (y - 15) / (y + 15)
    u2 = u * u
    h = 1.0 / 23.0
    h = 1.0 / 21.0 + u2 * h
    h = 1.0 / 19.0 + u2 * h
    h = 1.0 / 17.0 + u2 * h
    h = 1.0 / 15.0 + u2 * h
    h = 1.0 / 13.0 + u2 * h
    h = 1.0 / 11.0 + u2 * h
    h = 1.0 / 9.0 + u2 * h
    h = 1.0 / 7.0 + u2 * h
    h = 1.0 / 5.0 + u2 * h
    h = 1.0 / 3.0 + u2 * h
    log_y = _LOG_15 + 2.0 * u * (1.0 + u2 * h)
    inv2 = inv * inv
    series = inv2 * (_C1 + inv2 * (_C2 + inv2 * (_C3 + inv2 * (_C4 + inv2 * (_C5 + inv2 * (_C6 + inv2 * _C7))))))
    stirling = inv * (_S1 + inv2 * (_S2 + inv2 * (_S3 + inv2 * (_S4 + inv2 * (_S5 + inv2 * (_S6 + inv2 * _S7))))))
    g = (y - 0.5) * log_y - y + _HALF_LOG_2PI + stirling
    q = ((x + 1.0) * d1) * (d23 * d4) * (1.0 / 362880.0)
    return -s + log_y - 0.5 * inv - series, g, q


@njit(cache=True, nogil=True)
def digamma(x):
    """Digamma of a positive float (float64 result); NaN for x <= 0 or NaN input."""
    x = np.float64(x)  # (float() keeps a float32 argument float32 in numba)
    tiny = not (x > 1e-300)
    if x < 10.0 and x > 0.0:  # (one call of the inlined small_parts: each call site compiles it again)
        y = x + 1.0 if tiny else x  # 0 < x <= 1e-300: one step of the recurrence (1 / x dominates)
        dg = small_parts(y)[0]
        return dg - 1.0 / x if tiny else dg
    if not (x > 0.0):
        return np.nan
    if x == np.inf:
        return np.inf
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (_C1 + inv2 * (_C2 + inv2 * (_C3 + inv2 * (_C4 + inv2 * (_C5 + inv2 * (_C6 + inv2 * _C7))))))
    return math.log(x) - 0.5 * inv - series


@njit(cache=True, nogil=True)
def digamma_lgamma(x):
    """(digamma(x), lgamma(x)) of a positive finite float (float64 results), sharing one argument shift.

    The digamma is bit for bit :func:`digamma`; the lgamma is accurate to absolute 1e-14.
    """
    x = np.float64(x)
    if 1e-300 < x < 10.0:
        dg, g, q = small_parts(x)
        return dg, g - (math.log(x) + LOG_9_FACTORIAL + math.log(q))
    if x < 10.0:  # 0 < x <= 1e-300
        return digamma(x), math.lgamma(x)
    inv = 1.0 / x
    inv2 = inv * inv
    log_x = math.log(x)
    series = inv2 * (_C1 + inv2 * (_C2 + inv2 * (_C3 + inv2 * (_C4 + inv2 * (_C5 + inv2 * (_C6 + inv2 * _C7))))))
    stirling = inv * (_S1 + inv2 * (_S2 + inv2 * (_S3 + inv2 * (_S4 + inv2 * (_S5 + inv2 * (_S6 + inv2 * _S7))))))
    lg = (x - 0.5) * log_x - x + _HALF_LOG_2PI + stirling
    return log_x - 0.5 * inv - series, lg


@njit(cache=True, nogil=True)
def lgamma(x):
    """log Gamma(x) for a positive float (float64 result)."""
    return math.lgamma(np.float64(x))


@njit(cache=True, nogil=True, error_model="numpy")  # no ZeroDivisionError branch: the first loop vectorises
def digamma_row(a, n, out):
    """out[j] = digamma(a[j]) for j < n, bit for bit :func:`digamma`: a branch-free first pass evaluates
    the 0 < x < 10 formula for every entry (SIMD), and a second pass redoes the entries outside that
    range (where the first pass's value is discarded) with :func:`digamma`."""
    for j in range(n):
        out[j] = small_parts(np.float64(a[j]))[0]
    for j in range(n):
        x = np.float64(a[j])
        if not (1e-300 < x < 10.0):
            out[j] = digamma(x)


@njit(cache=True, nogil=True, error_model="numpy")
def dirichlet_expectation_row(a, out):
    """E[log p] under Dirichlet(a) for one parameter vector.

    a : float array of shape (K,), positive
    out : float64 array of shape (K,), overwritten with psi(a_k) - psi(sum(a))

    Bit for bit ``digamma(a_k) - digamma(sum(a))`` (:func:`digamma_row`, SIMD). In the VB E-step
    almost every entry of gamma is below 10 (near alpha, or a few tokens).
    """
    total = 0.0
    for k in range(a.shape[0]):
        total += float(a[k])  # float(): a float64 sum also without the JIT
    digamma_row(a, a.shape[0], out)
    psi_total = digamma(total)
    for k in range(a.shape[0]):
        out[k] -= psi_total


@njit(cache=True, nogil=True, error_model="numpy")  # no ZeroDivisionError branch: the first loop vectorises
def lgamma_sum(a, work):
    """sum_k lgamma(a_k) for a positive 1-D float array a (float64 result), each term to absolute 1e-14.

    work : float64 array of shape (>= 2 K,), scratch. The common 1e-100 < a_k < 10 go through
    :func:`small_parts` in one branch-free pass (SIMD): lgamma(x) = g - log 9! - log(x q), and the
    logs of the products x q are summed as the log of their running product (taken before it leaves
    [1e-200, 1e200]), so the row costs a few libm calls instead of one per entry; other entries call
    ``math.lgamma``.
    """
    n = a.shape[0]
    part = work[:n]
    xq = work[n:2 * n]
    for k in range(n):
        x = np.float64(a[k])
        _, g, q = small_parts(x)
        part[k] = g
        xq[k] = x * q  # in (1e-100, 1e7)
    n_small = n
    for k in range(n):
        x = np.float64(a[k])
        if not (1e-100 < x < 10.0):
            part[k] = math.lgamma(x)
            xq[k] = 1.0
            n_small -= 1
    return sum4(part, n - n, n) - (sum_logs(xq, n) + n_small * LOG_9_FACTORIAL)  # (n - n: see bounds._topic_block)


@njit(cache=True, nogil=True)
def sum4(x, lo, hi):
    """sum of x[lo:hi] (float64) in one fixed order: four interleaved partial sums, so no long chain of
    dependent additions."""
    s0 = s1 = s2 = s3 = 0.0
    i = lo
    while i + 4 <= hi:
        s0 += x[i]
        s1 += x[i + 1]
        s2 += x[i + 2]
        s3 += x[i + 3]
        i += 4
    while i < hi:
        s0 += x[i]
        i += 1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, nogil=True)
def sum_logs(x, n):
    """sum_{i < n} log x_i for positive x, as the logs of running products taken before they leave
    [1e-200, 1e200]: a few libm calls instead of n."""
    logs = 0.0
    pp = 1.0
    for i in range(n):
        pp *= x[i]
        if not (1e-200 < pp < 1e200):
            logs += math.log(pp)
            pp = 1.0
    return logs + math.log(pp)


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
        out[i] = math.lgamma(np.float64(x[i]))
    return out
