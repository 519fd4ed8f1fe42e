"""Distances between topics: the Jensen-Shannon divergences between the rows of a topic-word matrix
(the report's inter-topic map).

For rows p and q with m = (p + q) / 2, JSD(p, q) = (KL(p || m) + KL(q || m)) / 2 in bits, each KL
summed term by term as p_w (log2 p_w - log2 m_w) (no cancellation between two large entropies when p
and q are close). A pair costs one log2 per term: K (K - 1) / 2 x V in all, made by a work-item kernel
(:mod:`.workers`) with no (K, V) temporary beside the input and its log2.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .workers import run_units

_TINY = 1e-300  # (the log2 of m where p_w = q_w = 0: multiplied by zeros only)


def js_divergences(phi):
    """Jensen-Shannon divergences in bits (float64 (K, K), symmetric, zero diagonal, in [0, 1]) between the rows
    of ``phi`` (float (K, V), rows probability distributions, entries >= 0)."""
    phi = np.ascontiguousarray(phi, dtype=np.float64)
    n_topics, n_terms = phi.shape
    log_phi = np.zeros_like(phi)
    np.log2(phi, out=log_phi, where=phi > 0)  # (0 where p_w = 0: p_w log2 p_w is 0 there)
    out = np.zeros((n_topics, n_topics), dtype=np.float64)
    run_units(_js_rows, n_topics, n_topics, phi, log_phi, out, work=2.0 * n_topics * n_topics * n_terms)
    out += out.T
    return np.clip(out, 0.0, 1.0, out=out)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _js_rows(worker, workers, n_topics, phi, log_phi, out):
    """out[k, l] for l > k, the rows k of this worker's share (the lower triangle left 0)."""
    n_terms = phi.shape[1]
    for k in range(worker * n_topics // workers, (worker + 1) * n_topics // workers):
        p = phi[k]
        lp = log_phi[k]
        for j in range(k + 1, n_topics):
            q = phi[j]
            lq = log_phi[j]
            acc = 0.0
            for w in range(n_terms):
                m = 0.5 * (p[w] + q[w])
                lm = math.log2(max(m, _TINY))
                acc += p[w] * (lp[w] - lm) + q[w] * (lq[w] - lm)
            out[k, j] = 0.5 * acc
