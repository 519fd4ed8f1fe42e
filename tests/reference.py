"""Slow, obvious NumPy versions of every kernel, written straight from the formulas.

They work on dense matrices and explicit per-token-type responsibility arrays, with none of the
kernels' tricks (rescaling, implicit phi, column passes), so agreement is a real check.
"""

import numpy as np
from scipy.special import digamma, gammaln, logsumexp


def dirichlet_expectation(a):
    """E[log p] under Dirichlet(a) for each row of a."""
    a = np.atleast_2d(a)
    return digamma(a) - digamma(a.sum(axis=1, keepdims=True))


def _vb_map(g, c, elog_beta_w, alpha):
    """One coordinate-ascent update of a document: explicit phi from g, then gamma = alpha + sum c phi."""
    logits = dirichlet_expectation(g)[0][None, :] + elog_beta_w  # (n_words, K)
    phi = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    return alpha + (c[:, None] * phi).sum(axis=0)


def _vb_doc_objective(g, c, elog_beta_w, alpha):
    """The document's ELBO terms at g with the optimal phi (up to a constant of g)."""
    elog_theta = dirichlet_expectation(g)[0]
    words = np.sum(c * logsumexp(elog_theta[None, :] + elog_beta_w, axis=1))
    return words + np.sum((alpha - g) * elog_theta + gammaln(g)) - gammaln(g.sum())


def _squarem_doc(g, c, elog_beta_w, alpha, max_iter, tol, safe, counts):
    """SQUAREM (scheme S3) around _vb_map, as described in topicvb._kernels.estep."""
    done = 0
    while done < max_iter:
        g1 = _vb_map(g, c, elog_beta_w, alpha)
        done += 1
        if np.mean(np.abs(g1 - g)) < tol or done == max_iter:
            return g1, done
        g2 = _vb_map(g1, c, elog_beta_w, alpha)
        done += 1
        if np.mean(np.abs(g2 - g1)) < tol or done == max_iter:
            return g2, done
        r, v = g1 - g, g2 - 2 * g1 + g
        step = min(-np.sqrt(np.sum(r * r) / np.sum(v * v)), -1.0) if np.sum(v * v) > 0 else -1.0
        while step < -1.0 and not np.all(g - 2 * step * r + step ** 2 * v > 0.5 * alpha):
            counts["shortened"] += 1
            step = 0.5 * (step - 1.0)
            if step > -1.01:
                step = -1.0
        if step == -1.0:
            g = g2
            continue
        new = g - 2 * step * r + step ** 2 * v
        if safe and _vb_doc_objective(new, c, elog_beta_w, alpha) < _vb_doc_objective(g1, c, elog_beta_w, alpha):
            counts["rejected"] += 1
            g = g2
        else:
            counts["extrapolated"] += 1
            g = new
    return g, done


def vb_e_step(X, elog_beta, alpha, gamma0, max_iter, tol, accelerate=False, safe=False, counts=None):
    """LDA VE step: for each document alternate phi (explicit) and gamma updates.

    X dense (D, V); elog_beta (K, V); alpha (K,); gamma0 (D, K).
    ``accelerate``: SQUAREM around the same update; ``safe`` (a bool or one per document): keep an
    extrapolated point only when its document objective is at least that of the cycle's first update.
    ``counts``: a dict to which the SQUAREM branches taken are added.
    Returns gamma (D, K) and sstats (K, V) = sum_d c_dw phi_dwk.
    """
    X = np.asarray(X, dtype=float)
    D, V = X.shape
    K = elog_beta.shape[0]
    gamma = np.array(gamma0, dtype=float)
    sstats = np.zeros((K, V))
    safe = np.broadcast_to(np.asarray(safe, dtype=bool), (D,))
    counts = {} if counts is None else counts
    for key in ("extrapolated", "shortened", "rejected"):
        counts.setdefault(key, 0)
    for d in range(D):
        words = np.flatnonzero(X[d])
        if words.size == 0:
            gamma[d] = alpha
            continue
        c = X[d, words]
        g = gamma[d].copy()
        if accelerate:
            g, _ = _squarem_doc(g, c, elog_beta[:, words].T, alpha, max_iter, tol, safe[d], counts)
        else:
            for _ in range(max_iter):
                new = _vb_map(g, c, elog_beta[:, words].T, alpha)
                change = np.mean(np.abs(new - g))
                g = new
                if change < tol:
                    break
        elog_theta = dirichlet_expectation(g)[0]
        logits = elog_theta[None, :] + elog_beta[:, words].T
        phi = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
        sstats[:, words] += (c[:, None] * phi).T
        gamma[d] = g
    return gamma, sstats


def lda_elbo(X, gamma, lam, alpha, eta):
    """Full LDA ELBO E_q[log p(w, z, theta, beta)] - E_q[log q] with the optimal explicit phi."""
    X = np.asarray(X, dtype=float)
    D, V = X.shape
    K = lam.shape[0]
    elog_theta = dirichlet_expectation(gamma)
    elog_beta = dirichlet_expectation(lam)
    total = 0.0
    for d in range(D):
        words = np.flatnonzero(X[d])
        c = X[d, words]
        logits = elog_theta[d][None, :] + elog_beta[:, words].T
        phi = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
        # E[log p(z|theta)] + E[log p(w|z,beta)] - E[log q(z)]
        with np.errstate(divide="ignore", invalid="ignore"):
            ent = np.where(phi > 0, phi * np.log(phi), 0.0)
        total += np.sum(c[:, None] * (phi * logits - ent))
        # E[log p(theta|alpha)] - E[log q(theta|gamma)]
        total += gammaln(alpha.sum()) - gammaln(alpha).sum() + np.sum((alpha - 1) * elog_theta[d])
        total -= gammaln(gamma[d].sum()) - gammaln(gamma[d]).sum() + np.sum((gamma[d] - 1) * elog_theta[d])
    for k in range(K):
        total += gammaln(V * eta) - V * gammaln(eta) + np.sum((eta - 1) * elog_beta[k])
        total -= gammaln(lam[k].sum()) - gammaln(lam[k]).sum() + np.sum((lam[k] - 1) * elog_beta[k])
    return total


def plsa_em_step(X, theta, phi, beta=1.0):
    """One (tempered) EM E-step for pLSA with explicit responsibilities.

    X dense (D, V); theta (D, K) = P(z|d); phi (K, V) = P(w|z).
    Returns n_dk (D, K), n_kw (K, V) and the log-likelihood of the given model.
    """
    X = np.asarray(X, dtype=float)
    joint = theta[:, :, None] * phi[None, :, :]  # (D, K, V)
    tempered = joint ** beta
    sums = tempered.sum(axis=1, keepdims=True)
    resp = np.divide(tempered, sums, out=np.zeros_like(tempered), where=sums > 0)  # 0 where P(w|d) = 0
    n_dk = np.einsum("dv,dkv->dk", X, resp)
    n_kw = np.einsum("dv,dkv->kv", X, resp)
    loglik = np.sum(X[X > 0] * np.log(joint.sum(axis=1)[X > 0]))
    return n_dk, n_kw, loglik


def plsa_iteration(X, theta, phi, update="alternating", beta=1.0, doc_offset=0.0, term_offset=0.0):
    """One EM iteration for pLSA from explicit responsibilities.

    "simultaneous": both M-steps from the responsibilities of (theta, phi) (Hofmann's EM);
    "alternating": theta from the responsibilities of (theta, phi), then phi from those of
    (new theta, phi). The M-steps normalise max(expected counts + offset, 0); a row (document) or a
    column (topic) that sums to zero becomes uniform. Returns the new (theta, phi) and the
    log-likelihood of the given model.
    """
    def normalise(counts, offset, axis):
        counts = np.maximum(counts + offset, 0.0)
        sums = counts.sum(axis=axis, keepdims=True)
        return np.where(sums > 0, counts / np.where(sums > 0, sums, 1.0), 1.0 / counts.shape[axis])

    n_dk, n_kw, loglik = plsa_em_step(X, theta, phi, beta)
    theta_new = normalise(n_dk, doc_offset, 1)
    if update == "alternating":
        _, n_kw, _ = plsa_em_step(X, theta_new, phi, beta)
    return theta_new, normalise(n_kw, term_offset, 1), loglik


def plsa_fold_in(X, phi, theta0, prior, n_iter):
    """Folding-in by EM with phi fixed: n_iter plain iterations from theta0."""
    X = np.asarray(X, dtype=float)
    theta = np.array(theta0, dtype=float)
    for _ in range(n_iter):
        for d in range(X.shape[0]):
            if X[d].sum() == 0:
                continue
            joint = theta[d][:, None] * phi  # (K, V)
            resp = joint / joint.sum(axis=0, keepdims=True)
            counts = np.maximum((resp * X[d]).sum(axis=1) + prior, 0.0)
            theta[d] = counts / counts.sum()
    return theta


def cvb_sweep(X, gamma, alpha, eta, second_order=False):
    """One serial CVB0 (or CVB) sweep, cells in CSR order, counts recomputed from scratch per cell.

    X dense (D, V); gamma dict {(d, w): vector (K,)} for the non-zero cells; eta a float or a matrix
    prior (K, V) (then eta[:, w] and its row sums in place of eta and V eta; a pair with b = 0, an
    excluded term, gets 0). Returns the new dict.
    Deliberately naive: before each cell update every count is recomputed from all gammas.
    """
    X = np.asarray(X, dtype=float)
    D, V = X.shape
    gamma = {key: np.array(val, dtype=float) for key, val in gamma.items()}
    matrix = np.ndim(eta) == 2
    eta_k = np.asarray(eta).sum(axis=1) if matrix else V * eta
    for d in range(D):
        for w in np.flatnonzero(X[d]):
            g_old = gamma[(d, w)]
            n_dk = sum(X[d, w2] * gamma[(d, w2)] for w2 in np.flatnonzero(X[d]))
            n_wk = sum(X[d2, w] * gamma[(d2, w)] for d2 in np.flatnonzero(X[:, w]))
            n_k = sum(X[key] * val for key, val in gamma.items())
            m_dk, m_wk, m_k = (np.maximum(n - g_old, 0) for n in (n_dk, n_wk, n_k))
            a, b, z = m_dk + alpha, m_wk + (eta[:, w] if matrix else eta), m_k + eta_k
            val = a * b / z
            if second_order:
                var = lambda keys: sum(X[key] * gamma[key] * (1 - gamma[key]) for key in keys) - g_old * (1 - g_old)
                v_dk = np.maximum(var([(d, w2) for w2 in np.flatnonzero(X[d])]), 0)
                v_wk = np.maximum(var([(d2, w) for d2 in np.flatnonzero(X[:, w])]), 0)
                v_k = np.maximum(var(list(gamma)), 0)
                with np.errstate(divide="ignore", invalid="ignore"):
                    corr = np.exp(-v_dk / (2 * a ** 2) - v_wk / (2 * b ** 2) + v_k / (2 * z ** 2))
                val = np.where(b > 0, val * corr, 0.0)
            gamma[(d, w)] = val / val.sum()
    return gamma


def scvb0_documents(X, n_phi, n_z, alpha, eta, n_theta, burn_in, tau=10.0, kappa=0.9):
    """Stochastic CVB0 document updates (Foulds et al. 2013), token by token.

    X dense (B, V) of integer counts; n_phi (K, V); n_z (K,); n_theta (B, K) initial values.
    Each of a cell's c tokens is updated separately with its own step size (the kernel applies a
    cell's c updates at once with one step size: equal when c = 1). Returns n_theta and the
    final pass's responsibilities as {(d, w): gamma}.
    """
    X = np.asarray(X)
    B, V = X.shape
    n_theta = np.array(n_theta, dtype=float)
    gammas = {}
    for d in range(B):
        length = X[d].sum()
        t = 0
        for _ in range(burn_in + 1):
            for w in np.flatnonzero(X[d]):
                g = (n_phi[:, w] + eta) / (n_z + V * eta) * (n_theta[d] + alpha)
                g = g / g.sum()
                for _ in range(int(X[d, w])):
                    rho = (tau + t) ** -kappa
                    n_theta[d] = (1 - rho) * n_theta[d] + rho * length * g
                    t += 1
                gammas[(d, w)] = g
    return n_theta, gammas


def svi_lambda_step(lam, eta, sstats, rho, scale):
    """The stochastic variational step of lambda: (1 - rho) lam + rho (eta + scale sstats), sstats (K, V)."""
    return (1.0 - rho) * lam + rho * (eta + scale * sstats)


def poisson_binomial_digamma_gain(probs, counts, a):
    """E[psi(n + a)] - psi(a) exactly for n = sum of independent Binomial(counts[i], probs[i]) token
    groups: the pmf of n by convolution, then the expectation (slow, obvious)."""
    from scipy.special import digamma
    from scipy.stats import binom

    pmf = np.array([1.0])
    for p, c in zip(probs, counts):
        pmf = np.convolve(pmf, binom.pmf(np.arange(c + 1), c, p))
    n = np.arange(pmf.shape[0])
    return float(np.sum(pmf * (digamma(n + a) - digamma(a))))


def moment_matched_digamma_gain(m, v, a, small_mean=8.0):
    """The kernel's approximation, slowly: for m < small_mean, n = s + k with an integer shift s in
    {0, floor(m - v), floor(m - v) + 1} (at most m) and k binomial (or Poisson) with mean m - s,
    choosing the s whose variance is nearest v; the expectation summed over the pmf. Otherwise the
    second-order Taylor expansion with scipy's polygamma."""
    from scipy.special import digamma, polygamma
    from scipy.stats import binom, poisson

    if m <= 0:
        return 0.0
    if m >= small_mean:
        return float(digamma(m + a) - digamma(a) + 0.5 * polygamma(2, m + a) * v)

    def law(s):
        r = m - s
        if r <= 0:
            return 0.0, None
        if v >= r:
            return r, ("poisson", r)
        N = max(np.floor(r * r / (r - v) + 0.5), np.ceil(r))
        return r * (1 - r / N), ("binom", N, r / N)

    base = np.floor(max(m - v, 0.0))
    candidates = [s for s in (0.0, base, base + 1.0) if s <= m]
    s = min(candidates, key=lambda s: (abs(law(s)[0] - v), candidates.index(s)))
    _, spec = law(s)
    k = np.arange(0, 400)
    if spec is None:
        pmf = (k == 0).astype(float)
    elif spec[0] == "poisson":
        pmf = poisson.pmf(k, spec[1])
    else:
        pmf = binom.pmf(k, spec[1], spec[2])
    return float(np.sum(pmf * (digamma(s + k + a) - digamma(a))))


def squarem_step(x0, x1, x2):
    """SQUAREM S3's step length on the concatenated states x0, x1, x2 (sequences of arrays), by the formula
    (topicvb.models._squarem.step_length)."""
    r = np.concatenate([(b - a).ravel() for a, b in zip(x0, x1)])
    v = np.concatenate([(c - 2 * b + a).ravel() for a, b, c in zip(x0, x1, x2)])
    return min(-np.linalg.norm(r) / np.linalg.norm(v), -1.0)


def squarem_extrapolation(a0, a1, a2, s):
    """theta0 - 2 s r + s^2 v projected onto counts with a2's row sums, row by row
    (topicvb.models._squarem.extrapolate)."""
    new = a0 - 2 * s * (a1 - a0) + s * s * (a2 - 2 * a1 + a0)
    new = np.maximum(new, 0.0)
    out = a2.copy()
    for i in range(new.shape[0]):
        if new[i].sum() > 0:
            out[i] = new[i] * a2[i].sum() / new[i].sum()
    return out
