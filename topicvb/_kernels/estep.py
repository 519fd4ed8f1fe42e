"""The variational E-step of LDA (Blei, Ng & Jordan 2003), shared by BatchLDA, OnlineLDA and the
distributed runner.

Notation (literature symbols):

============  ===============  =====================================================================
symbol        shape            meaning
============  ===============  =====================================================================
D, V, K                        documents in the batch, terms, topics
alpha         (K,)             Dirichlet prior on document-topic proportions
gamma         (D, K)           variational Dirichlet parameters of theta_d
lam           (K, V)           variational Dirichlet parameters of beta_k (not seen here)
ebeta_t       (V, K)           exp(E[log beta_kw]) stored term-major and rescaled per term:
                               ebeta_t[w, k] = exp(E[log beta_kw] - s_w), s_w = max_k E[log beta_kw]
etheta        (D, K)           exp(E[log theta_dk] - m_d), m_d = max_k E[log theta_dk]
phinorm       (nnz,)           sum_k etheta_dk ebeta_t[w, k] for each non-zero (d, w)
sstats_t      (V, K)           sum_d c_dw phi_dwk, the expected topic-term counts (term-major)
============  ===============  =====================================================================

phi_dwk = etheta_dk ebeta_t[w, k] / phinorm_dw is unchanged by the per-term and per-document
rescaling, which keeps every factor in (0, 1] and so avoids underflow in float32 and for tiny
priors. The loops run over the non-zeros of each row weighted by their counts c_dw (counts may be
fractional weights), never over individual tokens, and never hold an nnz x K array.

Each document iterates gamma_d <- alpha + etheta_d * sum_w c_dw ebeta_t[w] / phinorm_dw (the
gamma and phi updates of coordinate ascent, phi kept implicit) until the mean absolute change of
gamma_d is below ``tol`` or ``max_iter`` updates were made. phinorm is always recomputed from the
latest gamma, so the returned statistics are those of the phi that is optimal for the returned
gamma.

With ``accelerate`` the same map F(g) = alpha + etheta(g) * sum_w c_dw ebeta_t[w] / phinorm_dw(g) is
run under SQUAREM (Varadhan & Roland 2008, scheme S3), which extrapolates along the last two
updates: g1 = F(g), g2 = F(g1), r = g1 - g, v = g2 - 2 g1 + g, step s = -|r| / |v| (at most -1),
g' = g - 2 s r + s^2 v, the step halved towards -1 while a component of g' falls below alpha / 2 (s
= -1 gives g' = g2, the plain double update); the next cycle starts from g'. Every update still
counts towards ``max_iter`` and the stopping rule is the plain one (mean absolute change of one
update below ``tol``). A document that must not end below its start (one continuing from
``gamma_prev``) keeps g' only when its document bound is at least that of g1, so the bound never
goes down within a cycle or across cycles; the others accept g' unchecked (a restarted document's
result is compared with ``gamma_prev`` as below). On 20 Newsgroups (K = 20, the topics of a
10-iteration fit) the accelerated ascent needed 3.4 instead of 8.5 updates per document from the
previous iteration's solution and 19 instead of 29 from a random start, to slightly higher
document bounds.

Starting points are the caller's ``gamma``. BatchLDA passes, per E-step, random draws of mean 1 and
standard deviation 0.1 (``batch_lda.random_start``) for a rotating share of the documents (restarts
explore far better than warm starts alone, whose early commitments stick: on a synthetic corpus warm
starts reached a bound 20% worse) and the previous iteration's solution for the others. To keep the
batch ELBO monotone it also passes that previous solution as ``gamma_prev``: when a restarted
document's solution has a lower document-level bound than ``gamma_prev`` under the same topics, the
document continues from ``gamma_prev`` instead, so no document's bound term ever goes down. A
document whose start is its ``gamma_prev`` needs no comparison: each plain update maximises the
bound over phi and then over gamma, and SQUAREM keeps only extrapolations that did not lose, so the
ascent from ``gamma_prev`` never ends below it. Either way the E-step evaluates the bound of
``gamma_prev`` under the current topics, and ``e_step_indexed`` returns it: BatchLDA's bound of the
previous iteration. OnlineLDA passes no ``gamma_prev`` (a mini-batch's documents keep whatever their
E-step reaches).
"""

import math

import numpy as np
from numba import njit, prange

from .sparse import column_accumulate, column_index
from .bounds import exp_shifted_row
from .special import dirichlet_expectation_row
from .vec import axpy, axpy2, dot

CHUNK = 64  # documents per parallel work item (scratch buffers are allocated per item)


@njit(cache=True, nogil=True)
def _etheta_and_phinorm(g, elog, et, work, indices, start, end, ebeta_t, phinorm):
    """Refresh et = exp(E[log theta] - max) from g, then phinorm over the row's non-zeros (work:
    scratch of shape (K,))."""
    n_topics = g.shape[0]
    dirichlet_expectation_row(g, elog)
    m = elog[0]
    for k in range(1, n_topics):
        if elog[k] > m:
            m = elog[k]
    exp_shifted_row(elog, m, et, work)
    for p in range(start, end):
        s = dot(et, ebeta_t[indices[p]])
        phinorm[p] = s if s > 1e-300 else 1e-300


@njit(cache=True, nogil=True)
def _objective_from(g, elog, words, alpha):
    """Document part of the ELBO given elog = E[log theta] for g and words = sum_w c_dw (log
    phinorm_dw + max_k elog_k), up to the term sum_w c_dw s_w (the same for every g)."""
    total = words
    gsum = 0.0
    for k in range(g.shape[0]):
        gsum += g[k]
        total += (alpha[k] - g[k]) * elog[k] + math.lgamma(g[k])
    return total - math.lgamma(gsum)


@njit(cache=True, nogil=True)
def _max(x):
    m = x[0]
    for k in range(1, x.shape[0]):
        if x[k] > m:
            m = x[k]
    return m


@njit(cache=True, nogil=True)
def _current_objective(g, elog, data, start, end, phinorm, alpha):
    """The document objective of g when elog and phinorm already hold g's values (after _iterate)."""
    m = _max(elog)
    words = 0.0
    for p in range(start, end):
        words += data[p] * (np.log(phinorm[p]) + m)
    return _objective_from(g, elog, words, alpha)


@njit(cache=True, nogil=True)
def _fresh_objective(g, elog, et, work, indices, data, start, end, ebeta_t, alpha):
    """The document objective of g, computed from scratch into elog and et (phinorm not stored)."""
    dirichlet_expectation_row(g, elog)
    m = _max(elog)
    exp_shifted_row(elog, m, et, work)
    words = 0.0
    for p in range(start, end):
        s = dot(et, ebeta_t[indices[p]])
        words += data[p] * (np.log(s if s > 1e-300 else 1e-300) + m)
    return _objective_from(g, elog, words, alpha)


@njit(cache=True, nogil=True)
def _update(g, out, et, acc, indices, data, start, end, ebeta_t, alpha, phinorm):
    """One coordinate-ascent update out = F(g) = alpha + et * sum_w c_dw ebeta_t[w] / phinorm_dw, with et
    and phinorm holding g's values; returns the mean absolute change |F(g) - g| (out may be g)."""
    n_topics = g.shape[0]
    for k in range(n_topics):
        acc[k] = 0.0
    p = start
    while p + 1 < end:  # two rows per pass over acc
        axpy2(acc, ebeta_t[indices[p]], data[p] / phinorm[p],
              ebeta_t[indices[p + 1]], data[p + 1] / phinorm[p + 1])
        p += 2
    if p < end:
        axpy(acc, ebeta_t[indices[p]], data[p] / phinorm[p])
    change = 0.0
    for k in range(n_topics):
        new = alpha[k] + et[k] * acc[k]
        change += abs(new - g[k])
        out[k] = new
    return change / n_topics


@njit(cache=True, nogil=True)
def _iterate(g, elog, et, acc, indices, data, start, end, ebeta_t, alpha, phinorm, max_iter, tol, ready):
    """Plain coordinate ascent on one document from g (updated in place); returns the updates made.
    ``ready``: elog, et and phinorm already hold g's values."""
    if not ready:
        _etheta_and_phinorm(g, elog, et, acc, indices, start, end, ebeta_t, phinorm)
    done = 0
    for it in range(max_iter):
        change = _update(g, g, et, acc, indices, data, start, end, ebeta_t, alpha, phinorm)
        _etheta_and_phinorm(g, elog, et, acc, indices, start, end, ebeta_t, phinorm)
        done = it + 1
        if change < tol:
            break
    return done


@njit(cache=True, nogil=True)
def _copy(src, dst):
    for k in range(src.shape[0]):
        dst[k] = src[k]


@njit(cache=True, nogil=True)
def _squarem(g, elog, et, acc, g1, g2, indices, data, start, end, ebeta_t, alpha, phinorm, max_iter, tol, safe,
             ready):
    """Coordinate ascent on one document accelerated by SQUAREM (see the module notes), from g
    (updated in place); returns the updates (evaluations of F) made. ``safe``: never end below the
    start's objective (each cycle's extrapolated point is kept only if it beats the cycle's first
    update). g1, g2: scratch of shape (K,). ``ready``: elog, et and phinorm already hold g's values."""
    n_topics = g.shape[0]
    if not ready:
        _etheta_and_phinorm(g, elog, et, acc, indices, start, end, ebeta_t, phinorm)
    done = 0
    while done < max_iter:
        change = _update(g, g1, et, acc, indices, data, start, end, ebeta_t, alpha, phinorm)  # g1 = F(g)
        done += 1
        _etheta_and_phinorm(g1, elog, et, acc, indices, start, end, ebeta_t, phinorm)
        if change < tol or done == max_iter:
            _copy(g1, g)
            break
        base = _current_objective(g1, elog, data, start, end, phinorm, alpha) if safe else 0.0
        change = _update(g1, g2, et, acc, indices, data, start, end, ebeta_t, alpha, phinorm)  # g2 = F(g1)
        done += 1
        if change < tol or done == max_iter:
            _copy(g2, g)
            _etheta_and_phinorm(g, elog, et, acc, indices, start, end, ebeta_t, phinorm)
            break
        rr = 0.0
        vv = 0.0
        for k in range(n_topics):
            r = g1[k] - g[k]
            v = g2[k] - 2.0 * g1[k] + g[k]
            rr += r * r
            vv += v * v
        step = -math.sqrt(rr / vv) if vv > 0.0 else -1.0
        while step < -1.0:  # extrapolate into acc; shorten the step while a component falls below alpha / 2
            inside = True
            for k in range(n_topics):
                r = g1[k] - g[k]
                v = g2[k] - 2.0 * g1[k] + g[k]
                x = g[k] - 2.0 * step * r + step * step * v
                if not (x > 0.5 * alpha[k]):  # also catches NaN
                    inside = False
                    break
                acc[k] = x
            if inside:
                break
            step = 0.5 * (step - 1.0)
            if step > -1.01:
                step = -1.0
        if step < -1.0:
            _copy(acc, g)
        else:  # the plain double update
            _copy(g2, g)
        _etheta_and_phinorm(g, elog, et, acc, indices, start, end, ebeta_t, phinorm)
        if safe and step < -1.0 and _current_objective(g, elog, data, start, end, phinorm, alpha) < base:
            _copy(g2, g)  # the extrapolation lost ground: keep the plain double update
            _etheta_and_phinorm(g, elog, et, acc, indices, start, end, ebeta_t, phinorm)
    return done


@njit(cache=True, nogil=True)
def _ascent(g, elog, et, acc, g1, g2, indices, data, start, end, ebeta_t, alpha, phinorm, max_iter, tol, accelerate,
            safe, ready):
    """Ascent on one document from g in place, plain or accelerated; elog, et and phinorm end with g's values
    (``ready``: they hold them already at the start)."""
    if accelerate:
        return _squarem(g, elog, et, acc, g1, g2, indices, data, start, end, ebeta_t, alpha, phinorm, max_iter,
                        tol, safe, ready)
    return _iterate(g, elog, et, acc, indices, data, start, end, ebeta_t, alpha, phinorm, max_iter, tol, ready)


@njit(cache=True, nogil=True, parallel=True)
def _doc_updates(indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, etheta, phinorm, max_iter, tol,
                 accelerate, prev_objective):
    n_docs = indptr.shape[0] - 1
    n_topics = alpha.shape[0]
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    scratch = np.empty((n_chunks, 7, n_topics), dtype=np.float64)
    n_iter = np.zeros(n_docs, dtype=np.int64)
    compare = gamma_prev.shape[0] == n_docs
    for c in prange(n_chunks):
        elog = scratch[c, 0]
        et = scratch[c, 1]
        acc = scratch[c, 2]
        elog_prev = scratch[c, 3]
        et_prev = scratch[c, 4]
        g1 = scratch[c, 5]
        g2 = scratch[c, 6]
        for d in range(c, n_docs, n_chunks):  # strided: see _kernels/__init__.py
            start = indptr[d]
            end = indptr[d + 1]
            g = gamma[d]
            if start == end:  # empty document: the optimum is gamma = alpha
                if compare:
                    dirichlet_expectation_row(gamma_prev[d], elog_prev)
                    prev_objective[d] = _objective_from(gamma_prev[d], elog_prev, 0.0, alpha)
                for k in range(n_topics):
                    g[k] = alpha[k]
                    etheta[d, k] = 0.0
                continue
            restarted = False  # whether g starts elsewhere than gamma_prev (from which ascent cannot lose)
            if compare:
                for k in range(n_topics):
                    if g[k] != gamma_prev[d, k]:
                        restarted = True
                        break
            if compare and not restarted:  # continuing from gamma_prev: record its objective, then ascend
                _etheta_and_phinorm(g, elog, et, acc, indices, start, end, ebeta_t, phinorm)
                prev_objective[d] = _current_objective(g, elog, data, start, end, phinorm, alpha)
                # (SQUAREM checks its extrapolations here: the document must not end below gamma_prev)
                n_iter[d] = _ascent(g, elog, et, acc, g1, g2, indices, data, start, end, ebeta_t, alpha, phinorm,
                                    max_iter, tol, accelerate, True, True)
            else:
                n_iter[d] = _ascent(g, elog, et, acc, g1, g2, indices, data, start, end, ebeta_t, alpha, phinorm,
                                    max_iter, tol, accelerate, False, False)
            if restarted:  # elog, et and phinorm hold g's values; the previous solution's go to scratch
                fresh = _current_objective(g, elog, data, start, end, phinorm, alpha)
                old = _fresh_objective(gamma_prev[d], elog_prev, et_prev, acc, indices, data, start, end, ebeta_t,
                                       alpha)
                prev_objective[d] = old
                if old > fresh:  # keep improving the previous solution instead
                    for k in range(n_topics):
                        g[k] = gamma_prev[d, k]
                    n_iter[d] += _ascent(g, elog, et, acc, g1, g2, indices, data, start, end, ebeta_t, alpha,
                                         phinorm, max_iter, tol, accelerate, True, False)
            for k in range(n_topics):
                etheta[d, k] = et[k]
    return n_iter


@njit(cache=True, nogil=True)
def _documents(indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, max_iter, tol, accelerate):
    """The document loop on a copy of gamma: (gamma, etheta, phinorm, updates per document, objective
    of gamma_prev per document (zeros without gamma_prev))."""
    gamma = gamma.copy()
    etheta = np.empty_like(gamma)
    phinorm = np.empty(indices.shape[0], dtype=np.float64)
    prev_objective = np.zeros(indptr.shape[0] - 1, dtype=np.float64)
    n_iter = _doc_updates(indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, etheta, phinorm, max_iter, tol,
                          accelerate, prev_objective)
    return gamma, etheta, phinorm, n_iter, prev_objective


@njit(cache=True, nogil=True)
def e_step(indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, max_iter, tol, with_sstats, accelerate):
    """Run the VB E-step on a CSR batch with the topics fixed.

    indptr : int64 array of shape (D + 1,); indices : int32 array of shape (nnz,)
    data : float array of shape (nnz,), non-negative counts (or weights)
    ebeta_t : float array of shape (V, K), rescaled exp(E[log beta]) (see module notes)
    alpha : float64 array of shape (K,), positive
    gamma : float array of shape (D, K), initial gamma (not modified)
    gamma_prev : float array of shape (D, K) with the previous solution to fall back on (see the
        module notes), or of shape (0, K) for none (not modified)
    max_iter : int, cap on gamma updates per document; tol : float, mean-change tolerance
    with_sstats : bool, whether to compute the sufficient statistics
    accelerate : bool, SQUAREM-accelerated updates (see the module notes) instead of plain ones

    Returns gamma (new array, dtype of the input gamma, shape (D, K)), sstats_t (float array of
    shape (V, K) with sum_d c_dw phi_dwk, or shape (0, K) when ``with_sstats`` is False) and the
    number of gamma updates made per document (int64, (D,)).
    """
    if not with_sstats:
        gamma, _, _, n_iter, _ = _documents(indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, max_iter, tol,
                                            accelerate)
        return gamma, np.zeros((0, alpha.shape[0]), dtype=ebeta_t.dtype), n_iter
    colptr, positions, rows = column_index(indptr, indices, ebeta_t.shape[0])
    gamma, sstats_t, n_iter, _ = e_step_indexed(indptr, indices, data, colptr, positions, rows, ebeta_t, alpha, gamma,
                                                gamma_prev, max_iter, tol, accelerate)
    return gamma, sstats_t, n_iter


@njit(cache=True, nogil=True)
def e_step_indexed(indptr, indices, data, colptr, positions, rows, ebeta_t, alpha, gamma, gamma_prev, max_iter,
                   tol, accelerate):
    """:func:`e_step` with the sufficient statistics, given the matrix's column index
    (``colptr, positions, rows = sparse.column_index(indptr, indices, V)``), which a caller that
    runs many E-steps on the same matrix (BatchLDA) computes once.

    Returns gamma, sstats_t and the updates per document as :func:`e_step`, and the document
    objective of ``gamma_prev`` under these topics (float64, (D,); zeros without ``gamma_prev``): per
    document ``lda_doc_bound`` of gamma_prev less its constant sum_w c_dw s_w + lnG(sum alpha) -
    sum lnG(alpha). The E-step computes it anyway (continuing documents start from gamma_prev,
    restarted ones compare with it), so BatchLDA takes the bound of its previous iteration from here
    instead of a separate pass over the corpus.
    """
    gamma, etheta, phinorm, n_iter, prev_objective = _documents(indptr, indices, data, ebeta_t, alpha, gamma,
                                                                gamma_prev, max_iter, tol, accelerate)
    weight = np.empty(indices.shape[0], dtype=np.float64)
    for p in range(indices.shape[0]):
        weight[p] = data[p] / phinorm[p]
    sstats_t = np.empty(ebeta_t.shape, dtype=ebeta_t.dtype)
    column_accumulate(colptr, positions, rows, weight, etheta, ebeta_t, sstats_t)
    return gamma, sstats_t, n_iter, prev_objective
