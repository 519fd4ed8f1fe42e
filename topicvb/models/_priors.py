"""Learning the Dirichlet priors: Minka's fixed-point iterations (Minka 2000, Estimating a Dirichlet
distribution).

Two settings occur:

* VB (BatchLDA, OnlineLDA). The ELBO depends on alpha through
  n [lnG(sum a) - sum_k lnG(a_k)] + sum_k (a_k - 1) s_k, with s_k = sum_d E[log theta_dk] over n
  documents: the Dirichlet log-likelihood with sufficient statistics s / n. Its maximiser solves
  psi(a_k) = psi(sum a) + s_k / n, which Minka's fixed point a_k <- psi^-1(psi(sum a_old) + s_k / n)
  reaches, increasing the objective at every step. For the symmetric topic-word prior eta over V
  terms and K topics the same holds with psi(eta) = psi(V eta) + S / (K V), S = sum_kw E[log beta_kw].
* Collapsed (CollapsedLDA). With expected counts n_dk in place of counts, the Dirichlet-multinomial
  (Polya) likelihood is maximised by the fixed point
  a_k <- a_k sum_d [psi(n_dk + a_k) - psi(a_k)] / sum_d [psi(N_d + sum a) - psi(sum a)]
  (Minka eq. 55; Asuncion et al. 2009 use it for CVB0), and likewise for a symmetric eta.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, polygamma

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


def polya_fixed_point(alpha, counts, lengths, n_iter: int = 200, tol: float = 1e-8):
    """Dirichlet-multinomial maximum likelihood of alpha from (expected) counts of shape (n, K)."""
    a = np.array(alpha, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.float64)
    keep = lengths > 0
    counts, lengths = counts[keep], lengths[keep]
    if counts.shape[0] == 0:
        return a
    for _ in range(n_iter):
        total = a.sum()
        denom = np.sum(digamma(lengths + total) - digamma(total))
        numer = np.sum(digamma(counts + a[None, :]) - digamma(a)[None, :], axis=0)
        new = np.maximum(a * numer / denom, 1e-10)
        done = np.max(np.abs(new - a) / a) < tol
        a = new
        if done:
            break
    return a


def symmetric_polya_fixed_point(eta: float, counts, n_iter: int = 200, tol: float = 1e-8):
    """Symmetric Dirichlet-multinomial maximum likelihood of eta from topic-term counts (K, V)."""
    counts = np.asarray(counts, dtype=np.float64)
    n_topics, dim = counts.shape
    totals = counts.sum(axis=1)
    e = float(eta)
    for _ in range(n_iter):
        numer = np.sum(digamma(counts + e)) - counts.size * digamma(e)
        denom = dim * (np.sum(digamma(totals + dim * e)) - n_topics * digamma(dim * e))
        new = max(e * numer / denom, 1e-10)
        done = abs(new - e) / e < tol
        e = new
        if done:
            break
    return e


def learn_flags(value, owner: str):
    """Resolve the ``learn_priors`` parameter into (learn alpha, learn eta)."""
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
