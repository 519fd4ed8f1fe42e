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
"""

import math

import numpy as np
from numba import njit, prange

from .special import digamma, dirichlet_expectation_row

CHUNK = 64


@njit(cache=True, nogil=True, parallel=True)
def topic_expectations(lam, ebeta_t, log_scale):
    """E[log beta] for every topic, and its rescaled exponential in term-major layout.

    lam : float array of shape (K, V), positive
    ebeta_t : float array of shape (V, K), overwritten with exp(E[log beta_kw] - s_w)
    log_scale : float64 array of shape (V,), overwritten with s_w = max_k E[log beta_kw]
    Returns elog_beta, float64 array of shape (K, V).
    """
    n_topics, n_terms = lam.shape
    elog = np.empty((n_topics, n_terms), dtype=np.float64)
    for k in prange(n_topics):
        total = 0.0
        for w in range(n_terms):
            total += lam[k, w]
        psi_total = digamma(total)
        for w in range(n_terms):
            elog[k, w] = digamma(lam[k, w]) - psi_total
    for w in prange(n_terms):
        m = elog[0, w]
        for k in range(1, n_topics):
            if elog[k, w] > m:
                m = elog[k, w]
        log_scale[w] = m
        for k in range(n_topics):
            ebeta_t[w, k] = np.exp(elog[k, w] - m)
    return elog


@njit(cache=True, nogil=True, parallel=True)
def lda_doc_bound(indptr, indices, data, gamma, alpha, ebeta_t, log_scale):
    """Per-document part of the ELBO (float64 array of shape (D,)).

    indptr, indices, data : CSR arrays of the batch; gamma : float array (D, K)
    alpha : float64 array (K,); ebeta_t : float array (V, K); log_scale : float64 array (V,)
    """
    n_docs = indptr.shape[0] - 1
    n_topics = alpha.shape[0]
    out = np.empty(n_docs, dtype=np.float64)
    alpha_sum = 0.0
    lg_alpha = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
        lg_alpha += math.lgamma(alpha[k])
    prior_const = math.lgamma(alpha_sum) - lg_alpha
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    scratch = np.empty((n_chunks, 2, n_topics), dtype=np.float64)
    for c in prange(n_chunks):
        elog = scratch[c, 0]
        et = scratch[c, 1]
        for d in range(c, n_docs, n_chunks):  # strided: see _kernels/__init__.py
            g = gamma[d]
            dirichlet_expectation_row(g, elog)
            m = elog[0]
            for k in range(1, n_topics):
                if elog[k] > m:
                    m = elog[k]
            for k in range(n_topics):
                et[k] = np.exp(elog[k] - m)
            words = 0.0
            for p in range(indptr[d], indptr[d + 1]):
                w = indices[p]
                s = 0.0
                for k in range(n_topics):
                    s += et[k] * ebeta_t[w, k]
                if s < 1e-300:
                    s = 1e-300
                words += data[p] * (math.log(s) + m + log_scale[w])
            gsum = 0.0
            theta_part = 0.0
            for k in range(n_topics):
                gsum += g[k]
                theta_part += (alpha[k] - g[k]) * elog[k] + math.lgamma(g[k])
            out[d] = words + prior_const + theta_part - math.lgamma(gsum)
    return out


@njit(cache=True, nogil=True, parallel=True)
def lda_topic_bound(lam, elog_beta, eta):
    """Topic part of the ELBO for a symmetric topic-word prior ``eta`` (float64 array (K,)).

    lam : float array of shape (K, V); elog_beta : float64 array of shape (K, V); eta : float
    """
    n_topics, n_terms = lam.shape
    out = np.empty(n_topics, dtype=np.float64)
    const = math.lgamma(n_terms * eta) - n_terms * math.lgamma(eta)
    for k in prange(n_topics):
        total = 0.0
        acc = 0.0
        for w in range(n_terms):
            lkw = lam[k, w]
            total += lkw
            acc += (eta - lkw) * elog_beta[k, w] + math.lgamma(lkw)
        out[k] = const + acc - math.lgamma(total)
    return out
