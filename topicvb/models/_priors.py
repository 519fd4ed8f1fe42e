"""Learning the Dirichlet priors: Minka's fixed-point iterations (Minka 2000, Estimating a Dirichlet
distribution).

Two settings occur:

* VB (BatchLDA, OnlineLDA). The ELBO depends on alpha through
  n [lnG(sum a) - sum_k lnG(a_k)] + sum_k (a_k - 1) s_k, with s_k = sum_d E[log theta_dk] over n
  documents: the Dirichlet log-likelihood with sufficient statistics s / n. Its maximiser solves
  psi(a_k) = psi(sum a) + s_k / n, which Minka's fixed point a_k <- psi^-1(psi(sum a_old) + s_k / n)
  reaches, increasing the objective at every step. For the symmetric topic-word prior eta over V
  terms and K topics the same holds with psi(eta) = psi(V eta) + S / (K V), S = sum_kw E[log beta_kw].
* Collapsed (CollapsedLDA). The Dirichlet-multinomial (Polya) likelihood of counts n_dk is
  maximised by the fixed point
  a_k <- a_k sum_d [psi(n_dk + a_k) - psi(a_k)] / sum_d [psi(N_d + sum a) - psi(sum a)]
  (Minka eq. 55; Asuncion et al. 2009 use it for CVB0), and likewise for a symmetric eta. The counts
  are random under the mean-field distribution, so the step takes E[psi(n_dk + a_k)]
  (:func:`expected_digamma_gain`), one step per sweep (:func:`polya_step`). A matrix prior eta = s b
  (guided topics) keeps its shape b and learns its scale s by the same fixed point for the scale
  (:func:`scaled_polya_step`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, polygamma

from .._kernels.priors import digamma_gain, gain_column_sums


def inverse_digamma(y, n_newton: int = 5):
    """x > 0 with digamma(x) = y (Minka's initialisation, then Newton steps); works elementwise."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(divide="ignore"):
        x = np.where(y >= -2.22, np.exp(y) + 0.5, -1.0 / (y - digamma(1.0)))
    for _ in range(n_newton):
        x = x - (digamma(x) - y) / polygamma(1, x)
        x = np.maximum(x, 1e-300)
    return x


def dirichlet_from_mean_log(alpha, mean_log, n_iter: int = 200, tol: float = 1e-10):
    """Maximise the Dirichlet likelihood given the mean of log p per component (VB statistics)."""
    a = np.array(alpha, dtype=np.float64)
    for _ in range(n_iter):
        new = inverse_digamma(digamma(a.sum()) + mean_log)
        done = np.max(np.abs(new - a) / a) < tol
        a = new
        if done:
            break
    return a


def symmetric_dirichlet_from_mean_log(eta: float, mean_log: float, dim: int, n_iter: int = 200, tol: float = 1e-10):
    """The symmetric case: solve psi(eta) = psi(dim eta) + mean_log by the same fixed point."""
    e = float(eta)
    for _ in range(n_iter):
        new = float(inverse_digamma(digamma(dim * e) + mean_log))
        done = abs(new - e) / e < tol
        e = new
        if done:
            break
    return e


def expected_digamma_gain(mean, var, a):
    """E[psi(n + a)] - psi(a) for random counts n >= 0 of the given means and variances (broadcast
    with ``a``); ``var`` of None gives the plug-in psi(E[n] + a) - psi(a).

    The plug-in is biased upward, grossly so for small counts and small a: for a count that is 1
    with probability m and 0 otherwise, the truth is m / a but the plug-in is about m psi'(a), near
    m / a^2 (Jensen: psi is concave). Fed to Minka's fixed point, that bias inflates learned priors,
    which then inflate each other. An expected count under the collapsed mean-field distribution is a
    sum of independent token indicators; below a mean of 8 the expectation is summed exactly under a
    Poisson law of that mean (the limit of many small indicators), using psi(n + a) - psi(a) =
    sum_{j < n} 1 / (a + j), so E[psi(n + a)] - psi(a) = sum_{j >= 0} P(n > j) / (a + j); above it,
    the second-order Taylor expansion psi(m + a) - psi(a) + psi''(m + a) var / 2 (Teh et al. 2006
    expand CVB the same way) with the counts' own variance (its next term is of order 1 / m^3).
    The kernel is :func:`topicvb._kernels.priors.digamma_gain`.
    """
    mean = np.asarray(mean, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    if var is None:
        return digamma(mean + a) - digamma(a)
    shape = np.broadcast_shapes(mean.shape, np.shape(var), a.shape)
    flat = [kernel_array(x, shape).ravel() for x in (mean, var, a)]
    out = np.empty(flat[0].shape[0])
    digamma_gain(*flat, out)
    return out.reshape(shape)


def polya_step(alpha, counts, variances, lengths, shape: float = 1.0, rate: float = 0.0):
    """One step of Minka's fixed point for an asymmetric Dirichlet-multinomial (Polya) prior from
    *expected* counts, with a Gamma(shape, rate) hyperprior on each alpha_k:

        a_k <- (a_k sum_d [E psi(n_dk + a_k) - psi(a_k)] + shape - 1) / (sum_d [psi(N_d + A) - psi(A)] + rate)

    where A = sum_k a_k, N_d the document lengths (fixed) and E psi(n + a) from the counts' means and
    variances (:func:`expected_digamma_gain`; ``variances`` None uses the plug-in psi(E[n] + a)). Minka's
    step maximises a lower bound of the Polya likelihood that touches it at the current alpha, so
    for exact counts a step never decreases the likelihood (plus the log hyperprior); a single step
    per sweep lets alpha follow the counts instead of racing ahead of them.
    """
    a = np.array(alpha, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.float64)
    if not np.any(lengths > 0):
        return a
    total = a.sum()
    # (an empty document adds psi(0 + A) - psi(A) = 0 to the denominator and zero gains to the numerator)
    denom = np.sum(digamma(lengths + total) - digamma(total)) + rate
    numer = _gain_sums(counts, variances, a)
    return np.maximum((a * numer + (shape - 1.0)) / denom, 1e-10)


def kernel_array(x, shape):
    """``x`` broadcast to ``shape`` as a C-contiguous, writable float64 array for a kernel. Writable: a
    read-only array (``np.broadcast_to`` of an array already of that shape returns a read-only view) is
    another type to numba, which would compile the kernel again for it."""
    x = np.asarray(x, dtype=np.float64)
    x = np.ascontiguousarray(x if x.shape == tuple(shape) else np.broadcast_to(x, shape))
    return x if x.flags.writeable else x.copy()


def _gain_sums(counts, variances, prior):
    """sum over the rows of ``counts`` (n, K) of E[psi(n_ik + prior_k)] - psi(prior_k), a (K,) array
    (:func:`topicvb._kernels.priors.gain_column_sums`; the plug-in when ``variances`` is None)."""
    if variances is None:
        counts = np.ascontiguousarray(counts, dtype=np.float64)
        prior = kernel_array(prior, counts.shape[1:])
        return np.sum(digamma(counts + prior) - digamma(prior), axis=0)
    prior = kernel_array(prior, np.shape(counts)[1:])
    if _float32_rows(counts) and _float32_rows(variances):  # (the kernel reads float32 as float64: no copies)
        return gain_column_sums(counts, variances, prior)
    return gain_column_sums(np.ascontiguousarray(counts, dtype=np.float64),
                            np.ascontiguousarray(variances, dtype=np.float64), prior)


def _float32_rows(x):
    """A C-contiguous float32 array (CollapsedLDA's float32 counts and variances), which the gain kernel reads
    as it is: a float64 copy of each would be a (D, K) or (V, K) temporary per prior step."""
    return isinstance(x, np.ndarray) and x.dtype == np.float32 and x.flags.c_contiguous


def symmetric_polya_step(eta: float, counts, variances, shape: float = 1.0, rate: float = 0.0) -> float:
    """:func:`polya_step` for a symmetric prior eta on the rows of ``counts`` (K, V) (topic-term counts):

        eta <- (eta [sum_kw E psi(n_kw + eta) - K V psi(eta)] + shape - 1)
               / (V sum_k [E psi(n_k + V eta) - psi(V eta)] + rate)

    with n_k = sum_w n_kw, whose variance is taken as sum_w var(n_kw) (the tokens of a topic are
    assigned independently under the mean-field distribution).
    """
    # (float32 counts and variances as they are: their sums in float64, the gain kernel reads them as float64)
    keep = _float32_rows(np.transpose(counts)) and (variances is None or _float32_rows(np.transpose(variances)))
    counts = counts if keep else np.asarray(counts, dtype=np.float64)
    n_topics, dim = counts.shape
    e = float(eta)
    var = None if variances is None else (variances if keep else np.asarray(variances, dtype=np.float64))
    totals = counts.sum(axis=1, dtype=np.float64)
    total_var = None if var is None else var.sum(axis=1, dtype=np.float64)
    # over the (V, K) transpose: the model passes n_wk.T, whose transpose is C-contiguous (no copy)
    numer = float(np.sum(_gain_sums(counts.T, None if var is None else var.T, e)))
    denom = dim * float(np.sum(expected_digamma_gain(totals, total_var, dim * e)))
    return max((e * numer + (shape - 1.0)) / (denom + rate), 1e-10)


def scaled_polya_step(scale: float, base, counts, variances, shape: float = 1.0, rate: float = 0.0) -> float:
    """:func:`symmetric_polya_step` for a matrix prior eta = s b whose scale s is learned and shape b kept
    (guided topics): one step of Minka's fixed point for the scale of the Polya likelihood of the
    topic-term counts,

        s <- s sum_kw b_kw E[psi(n_kw + s b_kw) - psi(s b_kw)] / sum_k B_k E[psi(n_k + s B_k) - psi(s B_k)],

    B_k = sum_w b_kw, with the expectation over the counts' mean-field law as in the symmetric step and
    the Gamma(shape, rate) hyperprior on u = s m, m the mean of b's positive entries (the typical prior
    value, the quantity the symmetric step's hyperprior is on): with u in place of s and b / m in place
    of b the step reads

        u <- (sum_kw eta_kw E[psi(n_kw + eta_kw) - psi(eta_kw)] + shape - 1)
             / (sum_k E_k E[psi(n_k + E_k) - psi(E_k)] / u + rate),   E_k = sum_w eta_kw,

    which for a constant b is the symmetric step (so a constant matrix learns what a scalar does).
    Entries with b_kw = 0 (excluded terms, whose counts are 0) add nothing.

    base : (V, K) float64, b term-major; counts : (V, K), n_wk; variances : (V, K) or None (the plug-in).
    Returns the new scale s.
    """
    base = np.asarray(base, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    var = None if variances is None else np.asarray(variances, dtype=np.float64)
    eta = scale * base
    positive = base > 0
    mean_base = float(base[positive].mean())
    u = scale * mean_base
    if np.all(positive):
        gains = expected_digamma_gain(counts, var, eta)
        numer = float(np.sum(eta * gains))
    else:
        gains = expected_digamma_gain(counts[positive], None if var is None else var[positive], eta[positive])
        numer = float(np.sum(eta[positive] * gains))
    totals = eta.sum(axis=0)
    denom = float(np.sum(totals * expected_digamma_gain(counts.sum(axis=0), None if var is None else var.sum(axis=0),
                                                        totals))) / u
    return max((numer + (shape - 1.0)) / (denom + rate), 1e-10) / mean_base


def learn_flags(value, owner: str):
    """Resolve the ``learn_priors`` parameter into (learn alpha, learn eta)."""
    if isinstance(value, np.bool_):
        value = bool(value)
    if value is False or value is None:
        return False, False
    if value is True:
        return True, True
    if value == "doc_topic":
        return True, False
    if value == "topic_word":
        return False, True
    raise ValueError(
        f"learn_priors must be one of {{False, True, 'doc_topic', 'topic_word'}}, got {value!r} ({owner})."
    )
