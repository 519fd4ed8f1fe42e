"""The global step of the HDP topic model (:class:`topicvb.HDP`): the document-topic concentration alpha0,
the stick-breaking topic weights beta and the stick concentration gamma, from the expected counts of a
collapsed (CVB0) sweep.

Model (a truncated direct-assignment HDP, Teh, Kurihara & Welling 2008): T topics; global weights
beta_k = v_k prod_{j<k} (1 - v_j), k < T, and beta_T = prod_{j<T} (1 - v_j) (the truncation sets v_T = 1),
with v_k ~ Beta(1, gamma) (the GEM(gamma) stick-breaking prior); each document's topic proportions
theta_d ~ Dirichlet(alpha0 beta); tokens as in LDA, topics phi_k ~ Dirichlet(eta). With theta and phi
integrated out, the mean-field distribution over the topic assignments is CVB0's with the asymmetric prior
alpha_k = alpha0 beta_k, and the global parameters are point estimates (MAP) of

    F(alpha0, v, gamma) = sum_d [lnG(alpha0) - lnG(alpha0 + N_d)]
                          + sum_dk E[lnG(alpha0 beta_k + n_dk) - lnG(alpha0 beta_k)]
                          + sum_{k<T} [ln gamma + (gamma - 1) ln(1 - v_k)]
                          + ln Gamma(alpha0 | s, r) + ln Gamma(gamma | s, r)

(the Polya likelihood of the document-topic counts, as ``models/_priors.py`` learns CollapsedLDA's alpha,
plus the log stick-breaking prior and weak Gamma hyperpriors), the expectation over the counts' mean-field
law (:func:`topicvb.models._priors.expected_digamma_gain`).

The step is one minorise-maximise (MM) step. Minka's bounds (2000, Estimating a Dirichlet distribution,
eqs. 54-55): u -> lnG(n + e^u) - lnG(e^u) = sum_{j<n} ln(e^u + j) is convex in u = ln a, so it lies above its
tangent at the current a', lnG(n + a) - lnG(a) >= c + t ln a with t = a' [psi(n + a') - psi(a')] (the expected
number of "tables" of the Chinese restaurant franchise); lnG(A) - lnG(A + N) is convex in A, so it lies above
its tangent, c - A [psi(A' + N) - psi(A')]. Both survive the expectation over n. With ln(alpha0 beta_k) =
ln alpha0 + ln v_k + sum_{j<k} ln(1 - v_j) the minoriser separates:

    Q = (sum_k t_k + s - 1) ln alpha0 - (S + r) alpha0
        + sum_{k<T} [t_k ln v_k + (U_k + gamma - 1) ln(1 - v_k)] + (T - 1) ln gamma + (s - 1) ln gamma - r gamma

with t_k = sum_d a'_k E[psi(n_dk + a'_k) - psi(a'_k)], S = sum_d [psi(N_d + alpha0') - psi(alpha0')] and
U_k = sum_{l>k} t_l. Its maximiser: alpha0 = (sum t + s - 1) / (S + r) (Minka's fixed point for the total),
v_k = t_k / (t_k + U_k + gamma - 1) (the mode of Beta(1 + t_k, gamma + U_k), as Sato, Kurihara & Nakagawa 2012
update the sticks from the expected table counts) and gamma = (T - 2 + s) / (r - sum_{k<T} ln(1 - v_k)), the
last two coordinate-wise (a few rounds, each raising Q). Raising Q raises F: F never decreases through a
global step (exactly so for the binomial / Poisson laws of the small counts; the Taylor form used for means
of 8 and more is convex in ln a up to a term of order v / m^2).

The sticks are kept in [V_MIN, 1 - V_MIN] and gamma >= 1 (with gamma < 1 the MAP of a stick whose tail holds
fewer than 1 - gamma tables is v = 1, and F has no maximum): Q is concave in each, so the clipped coordinate
maximisers are the constrained ones. With gamma > 1 the last topic's weight keeps the stick's rest,
about (gamma - 1) / (sum t + gamma - 1): the mass of a new topic in the Chinese restaurant franchise, where a
topic can be born. In v the GEM term telescopes to (T - 1) ln gamma + (gamma - 1) ln beta_T: it depends on the
order of the topics only through the last one.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma

from ._priors import _gain_sums

V_MIN = 1e-10  # the sticks stay in [V_MIN, 1 - V_MIN]
GAMMA_MIN = 1.0  # the stick concentration stays >= 1 (see the module docstring)
INNER_ROUNDS = 5  # coordinate rounds (sticks, then gamma) on the minoriser per global step
# the priors alpha0 beta_k the global step and objective read are at least this. beta is a product of up to T
# sticks: on a corpus of negligible weights (say 1e-20 a cell) the tables t_k are as small, the sticks go to
# their bounds and beta_k underflowed to 0 (or a subnormal), whose E[psi(n + a)] - psi(a) (a series in 1 / a)
# and lnG(a) are infinite: alpha0 went NaN, then every count. t_k = a E[psi(n + a) - psi(a)] tends to P(n > 0)
# as a -> 0, so the floor changes the step by a negligible amount where it applies. Fits of real counts do not
# come near it (their results are unchanged to the bit); it is above 1 / (the largest float) by a margin for
# the sums of the gains of many documents (each below P(n > 0) / a).
MIN_ALPHA = 1e-250


def stick_weights(v):
    """beta (T,) of sticks v (T,) (the last stick is taken as 1: the truncation)."""
    v = np.asarray(v, dtype=np.float64)
    rest = np.concatenate(([1.0], np.cumprod(1.0 - v[:-1])))
    beta = rest * v
    beta[-1] = rest[-1]
    return beta


def topic_priors(alpha0, v):
    """alpha_k = alpha0 beta_k (T,) of sticks v, at least MIN_ALPHA (see there): the priors the global step and
    objective evaluate their expectations at."""
    return np.maximum(alpha0 * stick_weights(v), MIN_ALPHA)


def sticks(beta):
    """The sticks v (T,) of weights beta (T,) summing to 1 (inverse of :func:`stick_weights`; v_T = 1)."""
    beta = np.asarray(beta, dtype=np.float64)
    rest = 1.0 - np.concatenate(([0.0], np.cumsum(beta[:-1])))
    v = beta / np.maximum(rest, 1e-300)
    v[-1] = 1.0
    return np.clip(v, V_MIN, 1.0 - V_MIN) if v.shape[0] == 1 else np.concatenate(
        (np.clip(v[:-1], V_MIN, 1.0 - V_MIN), [1.0]))


def expected_tables(alpha, counts, variances):
    """t_k = sum_d alpha_k E[psi(n_dk + alpha_k) - psi(alpha_k)] (T,), the minoriser's statistic."""
    alpha = np.asarray(alpha, dtype=np.float64)
    return alpha * _gain_sums(counts, variances, alpha)


def length_term(alpha0, lengths):
    """S = sum_d [psi(N_d + alpha0) - psi(alpha0)]."""
    lengths = np.asarray(lengths, dtype=np.float64)
    return float(np.sum(digamma(lengths + alpha0) - digamma(alpha0)))


def global_step(alpha0, v, gamma, counts, variances, lengths, *, learn_alpha0=True, learn_gamma=True,
                shape=1.0, rate=1.0, rounds=INNER_ROUNDS):
    """One MM step of (alpha0, v, gamma) (see the module docstring); returns the new (alpha0, v, gamma).

    alpha0 : float; v : float64 (T,), the sticks (v[-1] = 1); gamma : float >= 1
    counts, variances : (D, T) expected document-topic counts and their variances (None: the plug-in)
    lengths : (D,) document lengths N_d
    shape, rate : the Gamma hyperprior on alpha0 and gamma
    """
    v = np.array(v, dtype=np.float64)
    alpha = topic_priors(alpha0, v)
    t = expected_tables(alpha, counts, variances)
    if learn_alpha0:
        alpha0 = max((float(t.sum()) + shape - 1.0) / (length_term(alpha0, lengths) + rate), 1e-10)
    T = v.shape[0]
    if T == 1:
        return alpha0, v, gamma
    after = np.concatenate((np.cumsum(t[::-1])[::-1][1:], [0.0]))[:-1]  # U_k = sum_{l>k} t_l, k < T - 1
    head = t[:-1]
    for _ in range(rounds):
        c = after + gamma - 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            new = np.where(c > 0, head / (head + c), 1.0)
        v[:-1] = np.clip(np.nan_to_num(new, nan=V_MIN), V_MIN, 1.0 - V_MIN)
        if not learn_gamma:
            break
        gamma = max((T - 2.0 + shape) / (rate - float(np.sum(np.log1p(-v[:-1])))), GAMMA_MIN)
    return alpha0, v, gamma


def minoriser_objective(alpha0, v, gamma, t, S, *, shape=1.0, rate=1.0):
    """Q of the module docstring up to its constant (tests: each coordinate update raises it)."""
    v = np.asarray(v, dtype=np.float64)
    beta = stick_weights(v)
    with np.errstate(divide="ignore"):
        q = float(np.sum(t * np.log(alpha0 * beta)) - alpha0 * S)
    q += (shape - 1.0) * np.log(alpha0) - rate * alpha0
    q += gem_log_prior(v, gamma) + (shape - 1.0) * np.log(gamma) - rate * gamma
    return q


def gem_log_prior(v, gamma):
    """sum_{k<T} ln Beta(v_k | 1, gamma) = sum_{k<T} [ln gamma + (gamma - 1) ln(1 - v_k)]."""
    v = np.asarray(v, dtype=np.float64)[:-1]
    return float(v.shape[0] * np.log(gamma) + (gamma - 1.0) * np.sum(np.log1p(-v)))


def size_order(n_k):
    """The topics by decreasing expected size (a stable order: ties keep their places)."""
    return np.argsort(-np.asarray(n_k, dtype=np.float64), kind="stable")


def global_objective(alpha0, v, gamma, counts, variances, lengths, *, shape=1.0, rate=1.0):
    """F(alpha0, v, gamma) of the module docstring (up to a constant), the expectations under the counts'
    mean-field law (:mod:`topicvb._kernels.hdp`; ``variances`` of zeros: the counts taken as exact)."""
    from scipy.special import gammaln

    from .._kernels.hdp import loggamma_gain_sums

    lengths = np.asarray(lengths, dtype=np.float64)
    alpha = np.ascontiguousarray(topic_priors(alpha0, v))
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    variances = np.zeros_like(counts) if variances is None else np.ascontiguousarray(variances, dtype=np.float64)
    f = float(np.sum(gammaln(alpha0) - gammaln(alpha0 + lengths)))
    f += float(np.sum(loggamma_gain_sums(counts, variances, alpha)))
    f += gem_log_prior(v, gamma) + (shape - 1.0) * (np.log(alpha0) + np.log(gamma)) - rate * (alpha0 + gamma)
    return f


# ---------------------------------------------------------------------------- merge moves
# CVB0 from a start with more topics than the corpus supports tends to split a true topic over several (each
# holding the topic's tokens in a group of documents); the Polya likelihood of the counts alone keeps them. A
# merge of two topics is judged by the change of the collapsed variational bound (Teh, Newman & Welling 2006;
# Hughes, Kim & Sudderth 2015 judge HDP merges by the bound likewise):
#
#   L = E_q[log p(z | alpha)] + E_q[log p(w | z, eta)] + H(q),
#   E_q[log p(z | alpha)] = sum_d [lnG(A) - lnG(A + N_d) + sum_k E lnG(a_k + n_dk) - lnG(a_k)],
#   E_q[log p(w | z, eta)] = sum_k [lnG(V eta) - E lnG(V eta + n_k) + sum_w E lnG(eta + n_kw) - lnG(eta)],
#   H(q) = - sum_cells c_dw sum_k q_dwk ln q_dwk,
#
# with the expectations under the counts' mean-field laws (:mod:`topicvb._kernels.hdp`). Merging k into j
# (q_dwj <- q_dwj + q_dwk, beta_j <- beta_j + beta_k) changes only the terms of j and k.

def _column_terms(n, var, prior):
    """sum_i E[lnG(n_i + prior) - lnG(prior)] for one column n (m,), its variances var (m,)."""
    from .._kernels.hdp import loggamma_gain_sums

    return float(loggamma_gain_sums(np.ascontiguousarray(n, dtype=np.float64)[:, None],
                                    np.ascontiguousarray(var, dtype=np.float64)[:, None],
                                    np.array([float(prior)]))[0])


def _topic_terms(n_d, v_d, n_w, v_w, a, eta, n_terms):
    """The bound's terms of one topic: its documents' Polya terms and its words' (see above)."""
    from .._kernels.hdp import loggamma_gain

    total, total_var = float(np.sum(n_w)), float(np.sum(v_w))
    words = _column_terms(n_w, v_w, eta) - loggamma_gain(total, total_var, n_terms * eta) \
        if total > 0 else 0.0
    return _column_terms(n_d, v_d, a) + words


def merge_gain(j, k, gamma, data, rows, indices, n_dk, v_dk, n_wk, v_wk, alpha, eta, *, by_topic=None, cache=None):
    """The change of the collapsed bound when topic k is merged into topic j (see above).

    gamma : (nnz, T) responsibilities; data : (nnz,) counts; rows, indices : (nnz,) document and term of each
    cell; n_dk, v_dk (D, T), n_wk, v_wk (V, T): counts and variances; alpha : (T,); eta : float;
    by_topic : None or gamma's topic-major copy (T, nnz) (read instead of gamma's strided columns);
    cache : None or a dict kept while the state does not change (one round of candidate pairs), holding each
    topic's own terms (its Polya terms and its cells' sum of c q ln q), which every pair it is in shares.
    """
    source = gamma.T if by_topic is None else by_topic
    gj, gk = source[j].astype(np.float64), source[k].astype(np.float64)
    V = n_wk.shape[0]

    def alone(t, g):
        if cache is not None and t in cache:
            return cache[t]
        value = (_topic_terms(n_dk[:, t], v_dk[:, t], n_wk[:, t], v_wk[:, t], alpha[t], eta, V),
                 float(np.sum(data * _xlogx(g))))
        if cache is not None:
            cache[t] = value
        return value

    (terms_j, ent_j), (terms_k, ent_k) = alone(j, gj), alone(k, gk)
    g = gj + gk
    cross = data * gj * gk
    D = n_dk.shape[0]
    n_d = n_dk[:, j] + n_dk[:, k]
    v_d = np.maximum(v_dk[:, j] + v_dk[:, k] - 2.0 * np.bincount(rows, cross, minlength=D), 0.0)
    n_w = n_wk[:, j] + n_wk[:, k]
    v_w = np.maximum(v_wk[:, j] + v_wk[:, k] - 2.0 * np.bincount(indices, cross, minlength=V), 0.0)
    after = _topic_terms(n_d, v_d, n_w, v_w, alpha[j] + alpha[k], eta, V)
    # the entropy's change: sum of c (q_j ln q_j + q_k ln q_k - q ln q), q = q_j + q_k
    return after - (terms_j + terms_k) + ent_j + ent_k - float(np.sum(data * _xlogx(g)))


def _xlogx(x):
    return np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0)


def merge_candidates(n_wk, eta, topics, limit, min_similarity=0.0):
    """Pairs (j, k) of ``topics`` (column indices of n_wk (V, T)), at most ``limit``, by decreasing cosine
    similarity of their topic-term distributions, down to ``min_similarity``; j is the larger topic of a pair
    (the one merged into)."""
    topics = np.asarray(topics)
    counts = n_wk[:, topics].astype(np.float64)
    sizes = counts.sum(axis=0)
    phi = (counts + eta) / (sizes + n_wk.shape[0] * eta)
    phi = phi / np.linalg.norm(phi, axis=0, keepdims=True)
    sim = phi.T @ phi
    a, b = np.triu_indices(topics.shape[0], 1)
    order = np.argsort(-sim[a, b], kind="stable")[:limit]
    order = order[sim[a[order], b[order]] >= min_similarity]
    a, b = a[order], b[order]
    swap = sizes[b] > sizes[a]
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    return list(zip(topics[a].tolist(), topics[b].tolist()))
