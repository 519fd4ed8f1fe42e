"""The variational core of LDA: pure functions over arrays that every VB driver shares.

Mean-field VB for LDA (Blei, Ng & Jordan 2003) splits into a local step, over any block of
documents, and a global step, over the topics (the split of model from learning algorithm that
bnpy makes; Hughes & Sudderth 2013):

* **topics -> what the local step needs**: :func:`topic_arrays` gives the rescaled
  exp(E[log beta]) (term-major, ``ebeta_t``), its per-term log scale and the pieces of the topic
  part of the ELBO (:func:`topic_bound`);
* **local step**: :func:`local_step` runs the E-step (:mod:`topicvb._kernels.estep`) on a block of
  documents and returns their gamma and a :class:`LocalStats`: the expected topic-term counts, the
  block's part of the ELBO and the sum of E[log theta] (for learning alpha). Statistics of blocks
  add up (:func:`add_stats`), so a corpus can be cut into blocks anywhere: in one process, in
  mini-batches, or in partitions on Dask workers;
* **global step**: :func:`batch_m_step` (lam = eta + statistics: batch VB),
  :func:`svi_step` (a natural-gradient step, Hoffman et al. 2013: online VB), and the prior
  updates :func:`learned_priors` (Minka's fixed points, :mod:`._priors`).

The drivers (:mod:`._vb_fit` for BatchLDA and OnlineLDA, :mod:`topicvb.distributed` for Dask)
only decide which blocks, in what order and which global step; the fit loops themselves live once,
in :mod:`._vb_fit`.

Notation: D documents, V terms, K topics; ``lam`` (K, V) the topic-term Dirichlet parameters,
``gamma`` (D, K) the document-topic ones, ``sstats_t`` (V, K) sum_d c_dw phi_dwk (term-major).

The topic-word prior ``eta`` is a float (symmetric) or a float64 (K, V) matrix (guided topics, issue
#21; test ``isinstance(eta, np.ndarray)``). With a matrix, an entry eta_kw = 0 excludes term w from
topic k: lam_kw stays 0, E[log beta_kw] = -inf (exp 0: the E-step gives it no responsibility) and
the entry is left out of the topic part of the ELBO; learning eta learns its scale s (eta = s b, b the
given matrix), not its shape (:func:`prior_scale_step`). The scalar path is the same code and the
same arithmetic as without matrices.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.special import digamma, gammaln, polygamma

from .._kernels.bounds import (lda_doc_bound, prior_topic_terms, row_totals, svi_topic_update, topic_expectations,
                               topic_terms)
from .._kernels.estep import document_objectives, e_step, e_step_indexed
from .._kernels.sparse import column_index
from .._validation import csr_arrays
from ._priors import dirichlet_from_mean_log, symmetric_dirichlet_from_mean_log


# ----------------------------------------------------------------------------------- topics
def is_matrix(eta) -> bool:
    """Whether ``eta`` is a matrix topic-word prior (a (K, V) array) rather than a symmetric one."""
    return isinstance(eta, np.ndarray) and eta.ndim == 2


def expectations(lam, eta=None, columns=None):
    """E[log beta] (K, V), term-major rescaled exp(E[log beta]) (V, K) and the per-term log scale.

    ``eta``: the topic-word prior lam was fitted with; a matrix one excludes its zero entries (E[log
    beta] = -inf, exp 0 there); None or a float: every entry of lam is positive. ``columns``: the
    terms wanted (sorted indices, :func:`topicvb._validation.used_columns`), or None for all: the three
    arrays are then over those terms alone, each entry the same bits as over all terms.
    """
    totals = None
    if columns is not None:  # (E[log beta_kw] needs the topic's total over every term)
        totals = row_totals(lam)
        lam = lam[:, columns]
        eta = eta[:, columns] if is_matrix(eta) else eta
    n_topics, n_terms = lam.shape
    ebeta_t = np.empty((n_terms, n_topics), dtype=lam.dtype)
    log_scale = np.empty(n_terms, dtype=np.float64)
    if is_matrix(eta):
        elog = prior_topic_terms(lam, eta, ebeta_t, log_scale, totals)[0]
    else:
        elog = topic_expectations(lam, ebeta_t, log_scale, totals)
    return elog, ebeta_t, log_scale


class TopicArrays(NamedTuple):
    """What the local step and the bound need of the topics lam: ``ebeta_t`` (V, K) and
    ``log_scale`` (V,) (see :mod:`topicvb._kernels.estep`), and the per-topic pieces of the
    ELBO's topic part (``elog_sum``, ``rest``: see :func:`topic_bound`); with a matrix prior also
    ``elog``, E[log beta] (K, V) (-inf at excluded entries), which the topic part weighs by the prior.
    A local step reads only ``ebeta_t`` and ``log_scale`` (the Dask maps send no more)."""

    ebeta_t: np.ndarray
    log_scale: np.ndarray
    elog_sum: np.ndarray
    rest: np.ndarray
    elog: np.ndarray | None = None

    def local(self) -> "TopicArrays":
        """What a local step needs (the arrays a Dask map broadcasts): without ``elog``."""
        return self if self.elog is None else self._replace(elog=None)


def topic_arrays(lam, out=None, eta=None) -> TopicArrays:
    """:class:`TopicArrays` of ``lam``, in new arrays or in those of ``out`` (a TopicArrays); ``eta``
    the topic-word prior (a matrix one: the entries it excludes, see :func:`expectations`)."""
    n_topics, n_terms = lam.shape
    if out is None:
        ebeta_t = np.empty((n_terms, n_topics), dtype=lam.dtype)
        log_scale = np.empty(n_terms, dtype=np.float64)
    else:
        ebeta_t, log_scale = out.ebeta_t, out.log_scale
    if is_matrix(eta):
        elog, elog_sum, rest = prior_topic_terms(lam, eta, ebeta_t, log_scale)
        return TopicArrays(ebeta_t, log_scale, elog_sum, rest, elog)
    elog_sum, rest = topic_terms(lam, ebeta_t, log_scale)
    return TopicArrays(ebeta_t, log_scale, elog_sum, rest)


def prior_constants(eta) -> np.ndarray:
    """lnG(sum_w eta_kw) - sum_w lnG(eta_kw) per topic (float64 (K,)) of a matrix prior, over its positive entries."""
    eta = np.asarray(eta, dtype=np.float64)
    positive = eta > 0
    lg = gammaln(np.where(positive, eta, 1.0))  # (lnG(1) = 0 for the excluded entries)
    return gammaln(eta.sum(axis=1)) - lg.sum(axis=1)


def weighted_elog(topics: TopicArrays, eta) -> float:
    """sum_kw eta_kw E[log beta_kw] over the entries a matrix prior allows (its zeros left out)."""
    return float(np.sum(eta * np.where(eta > 0, topics.elog, 0.0)))


def topic_bound(topics: TopicArrays, eta, n_terms) -> float:
    """The topic part of the ELBO, sum_k E[log p(beta_k | eta) - log q(beta_k)], from
    :func:`topic_arrays`'s per-topic pieces: for a symmetric ``eta`` (a float), or a matrix one (the
    TopicArrays then made with it, or with another matrix of the same zeros)."""
    if is_matrix(eta):
        return float(np.sum(prior_constants(eta)) + weighted_elog(topics, eta) + np.sum(topics.rest))
    eta = float(eta)
    const = math.lgamma(n_terms * eta) - n_terms * math.lgamma(eta)
    return float(const * topics.elog_sum.shape[0] + eta * np.sum(topics.elog_sum) + np.sum(topics.rest))


def mean_elog_beta(topics: TopicArrays, n_terms) -> float:
    """The mean over topics and terms of E[log beta_kw]: the statistic of eta's update."""
    return float(np.sum(topics.elog_sum)) / (topics.elog_sum.shape[0] * n_terms)


def prior_const(alpha) -> float:
    """lnG(sum alpha) - sum lnG(alpha): the per-document constant of the ELBO's theta terms."""
    return math.lgamma(float(np.sum(alpha))) - float(np.sum([math.lgamma(a) for a in np.ravel(alpha)]))


# ----------------------------------------------------------------------------------- blocks
class Block(NamedTuple):
    """A block of documents as the local step reads it: CSR arrays, optionally the column index
    (``colptr, positions, rows``, see :func:`topicvb._kernels.sparse.column_index`) and the term
    totals sum_d c_dw (for the bound's constant). A driver that runs many E-steps on the same
    documents (BatchLDA) builds them once; otherwise the local step builds the index itself."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    n_terms: int
    columns: tuple | None
    term_counts: np.ndarray

    @property
    def n_docs(self) -> int:
        return self.indptr.shape[0] - 1


def make_block(X, with_index: bool = True) -> Block:
    """The :class:`Block` of a canonical CSR matrix X."""
    indptr, indices, data = csr_arrays(X)
    n_terms = X.shape[1]
    columns = column_index(indptr, indices, n_terms) if with_index else None
    term_counts = np.bincount(indices, weights=data, minlength=n_terms)
    return Block(indptr, indices, data, n_terms, columns, term_counts)


class DocUpdates(NamedTuple):
    """How the local step iterates each document: the cap on gamma updates, the mean-change
    tolerance, and whether SQUAREM accelerates the updates."""

    max_iter: int
    tol: float
    accelerate: bool


class LocalStats(NamedTuple):
    """What a block's local step gives the global step; blocks add up with :func:`add_stats`.

    sstats_t : (V, K) expected topic-term counts, or None when not computed
    doc_bound : the block's document part of the ELBO, sum_d E[log p(w_d, theta_d, z_d | alpha,
        beta) - log q(theta_d, z_d)] (of which gamma: see the step that made it)
    elog_theta : (K,) sum over the block's documents of E[log theta_d], or None
    n_docs : documents in the block
    """

    sstats_t: np.ndarray | None
    doc_bound: float
    elog_theta: np.ndarray | None
    n_docs: int


def add_stats(a: LocalStats, b: LocalStats) -> LocalStats:
    """The statistics of two blocks together (None stays None)."""
    return LocalStats(*(x if y is None else y if x is None else x + y for x, y in zip(a, b)))


def sum_elog_theta(gamma) -> np.ndarray:
    """sum_d E[log theta_d] under Dirichlet(gamma_d), shape (K,)."""
    g = np.asarray(gamma, dtype=np.float64)
    return (digamma(g) - digamma(g.sum(axis=1, keepdims=True))).sum(axis=0)


def _objective_bound(objectives, block: Block, log_scale, alpha) -> float:
    """The document part of the ELBO from the E-step's per-document objectives: their sum plus the
    constants they leave out, sum_w c_w s_w and the prior's constant per document."""
    # (not term_counts @ log_scale: a BLAS call wakes OpenBLAS's threads, which then spin beside the
    # kernels' threads and slow the next E-step)
    return (float(np.sum(objectives)) + float(np.sum(block.term_counts * log_scale))
            + block.n_docs * prior_const(alpha))


# ----------------------------------------------------------------------------------- local step
def local_step(block: Block, topics: TopicArrays, alpha, gamma_init, gamma_prev, updates: DocUpdates,
               with_elog_theta: bool = False):
    """The batch-VB local step on a block: the E-step from ``gamma_init`` (a document falls back on
    its row of ``gamma_prev`` where that is better; ``gamma_prev`` of shape (0, K) for none).

    Returns the new gamma and :class:`LocalStats` whose ``doc_bound`` is that of ``gamma_prev``
    under these topics (the E-step evaluates them anyway, so a batch driver takes the bound of its
    previous iteration from here instead of a pass of its own; 0 without ``gamma_prev``).
    """
    colptr, positions, rows = block.columns or column_index(block.indptr, block.indices, block.n_terms)
    gamma, sstats_t, _, prev = e_step_indexed(block.indptr, block.indices, block.data, colptr, positions, rows,
                                              topics.ebeta_t, alpha, gamma_init, gamma_prev, updates.max_iter,
                                              updates.tol, updates.accelerate)
    bound = _objective_bound(prev, block, topics.log_scale, alpha) if gamma_prev.shape[0] else 0.0
    elog_theta = sum_elog_theta(gamma) if with_elog_theta else None
    return gamma, LocalStats(sstats_t, bound, elog_theta, block.n_docs)


def bound_step(block: Block, topics: TopicArrays, alpha, gamma) -> LocalStats:
    """The document part of the ELBO of ``gamma`` under these topics, with no E-step."""
    objectives = document_objectives(block.indptr, block.indices, block.data, topics.ebeta_t, alpha, gamma)
    return LocalStats(None, _objective_bound(objectives, block, topics.log_scale, alpha), None, block.n_docs)


def online_local_step(indptr, indices, data, topics: TopicArrays, alpha, gamma_init, updates: DocUpdates,
                      with_elog_theta: bool = False) -> tuple:
    """The online-VB local step on a mini-batch (CSR arrays): the E-step from ``gamma_init`` and the
    statistics, with ``doc_bound`` the document part of the ELBO of the *new* gamma (the batch's
    part of the SVI bound estimate). Returns (gamma, LocalStats)."""
    gamma, sstats_t, _ = e_step(indptr, indices, data, topics.ebeta_t, alpha, gamma_init, gamma_init[:0],
                                updates.max_iter, updates.tol, True, updates.accelerate)
    doc = lda_doc_bound(indptr, indices, data, gamma, alpha, topics.ebeta_t, topics.log_scale)
    elog_theta = sum_elog_theta(gamma) if with_elog_theta else None
    return gamma, LocalStats(sstats_t, float(np.sum(doc)), elog_theta, indptr.shape[0] - 1)


def infer(indptr, indices, data, ebeta_t, alpha, gamma_init, updates: DocUpdates):
    """gamma of new documents with the topics fixed (no statistics): ``transform``'s local step."""
    gamma, _, _ = e_step(indptr, indices, data, ebeta_t, alpha, gamma_init, gamma_init[:0], updates.max_iter,
                         updates.tol, False, updates.accelerate)
    return gamma


# ----------------------------------------------------------------------------------- global step
def batch_m_step(sstats_t, eta, dtype, out=None):
    """Batch VB's M-step: lam = eta + sum_d c_dw phi_dwk, in C order (``topic_terms`` reads rows).
    With a matrix ``eta`` the entries it excludes are 0 (their statistics are 0: exp(E[log beta]) is).
    ``out``: the previous lam, overwritten when it has the shape, dtype and order (the new lam needs none of
    it: one (K, V) array less at the step's peak), else a new array is made."""
    n_terms, n_topics = sstats_t.shape
    if not (isinstance(out, np.ndarray) and out.shape == (n_topics, n_terms) and out.dtype == np.dtype(dtype)
            and out.flags.c_contiguous and out.flags.writeable):
        out = np.empty((n_topics, n_terms), dtype=dtype)
    lam = np.add(sstats_t.T, eta, out=out)
    if is_matrix(eta):
        np.copyto(lam, 0.0, where=eta <= 0)
    return lam


# ------------------------------------------------------------------ learning a matrix prior's scale
class PriorShape(NamedTuple):
    """What the topic part of the ELBO needs of a matrix prior eta to be maximised over its scale:
    the distinct positive entries ``values`` with their ``counts``, and ``totals`` sum_w eta_kw (K,).
    :func:`prior_shape` makes it; :func:`prior_scale_step` scales it with eta."""

    values: np.ndarray
    counts: np.ndarray
    totals: np.ndarray


def prior_shape(eta) -> PriorShape:
    """:class:`PriorShape` of a matrix prior (one sort of its entries: a guided prior has few distinct values)."""
    values, counts = np.unique(eta[eta > 0], return_counts=True)
    return PriorShape(values, counts.astype(np.float64), eta.sum(axis=1))


def _scale_objective(t, shape: PriorShape, weighted):
    """The topic part of the ELBO as a function of the scale t of eta (eta -> t eta), up to a constant:
    f(t) = sum_k lnG(t B_k) - sum_kw lnG(t eta_kw) + t sum_kw eta_kw E[log beta_kw], and f', f''."""
    tb, tv = t * shape.totals, t * shape.values
    f = float(np.sum(gammaln(tb)) - np.dot(shape.counts, gammaln(tv)) + t * weighted)
    d1 = float(np.dot(shape.totals, digamma(tb)) - np.dot(shape.counts * shape.values, digamma(tv)) + weighted)
    d2 = float(np.dot(shape.totals ** 2, polygamma(1, tb)) - np.dot(shape.counts * shape.values ** 2,
                                                                    polygamma(1, tv)))
    return f, d1, d2


# The learned scale keeps every positive entry of eta within the range a prior may take (PRIOR_RANGE).
_ENTRY_RANGE = (1e-12, 1e12)


def best_prior_scale(shape: PriorShape, weighted, n_iter=100, tol=1e-12) -> float:
    """The scale t > 0 that maximises the topic part of the ELBO with eta replaced by t eta, given
    ``weighted`` = sum_kw eta_kw E[log beta_kw] (the topics fixed).

    f(t) (:func:`_scale_objective`) is concave in t: lnG(sum_w a_w) - sum_w lnG(a_w) is minus the
    log-normaliser of a Dirichlet (convex in a), here along the ray a = t eta, plus a linear term. So f'
    decreases, and its root is found by Newton's method safeguarded by a bracket [lo, hi] with
    f'(lo) > 0 > f'(hi): a Newton step outside it is replaced by a geometric bisection (a factor of 4
    while the bracket is unbounded). The result never has f below f(1), the current prior, so the bound
    does not decrease; t keeps every entry of t eta within [1e-12, 1e12] (the prior's range).
    """
    t_min = _ENTRY_RANGE[0] / float(shape.values.min())
    t_max = _ENTRY_RANGE[1] / float(shape.values.max())
    f1, d, d2 = _scale_objective(1.0, shape, weighted)
    if not (np.isfinite(f1) and np.isfinite(d)) or d == 0.0:
        return 1.0
    lo, hi = (1.0, np.inf) if d > 0 else (0.0, 1.0)
    t = 1.0
    for _ in range(n_iter):
        new = t - d / d2 if d2 < 0 else np.nan
        if not (np.isfinite(new) and lo < new < hi):
            new = 4.0 * t if hi == np.inf else (0.25 * t if lo == 0.0 else math.sqrt(lo * hi))
        new = min(max(new, t_min), t_max)
        if new == t:
            break
        converged = abs(new - t) <= tol * t
        t = new
        _, d, d2 = _scale_objective(t, shape, weighted)
        if not np.isfinite(d) or d == 0.0 or converged:
            break
        if d > 0:
            lo = t
        else:
            hi = t
    f = _scale_objective(t, shape, weighted)[0]
    return t if np.isfinite(f) and f >= f1 else 1.0


def prior_scale_step(eta, shape: PriorShape | None, topics: TopicArrays, rho=1.0):
    """Learn a matrix prior's scale: eta -> t eta with t maximising the ELBO's topic part for ``topics``
    (:func:`best_prior_scale`), or, with a step ``rho`` < 1 (online VB), eta -> (1 - rho + rho t) eta.
    Returns (new eta, its PriorShape): the shape scales with eta (its values are the new entries bit for
    bit, each the same product), so a fit loop sorts the entries once (:func:`prior_shape`), not per step."""
    shape = prior_shape(eta) if shape is None else shape
    t = best_prior_scale(shape, weighted_elog(topics, eta))
    factor = t if rho == 1.0 else (1.0 - rho) + rho * t
    if factor == 1.0:
        return eta, shape
    eta = eta * factor
    return eta, PriorShape(shape.values * factor, shape.counts, eta.sum(axis=1))


def learned_priors(alpha, eta, mean_elog_theta, mean_log_beta, n_terms, learn_alpha, learn_eta):
    """The priors that maximise the ELBO's prior terms: alpha given the mean over documents of
    E[log theta_d] (None: alpha unchanged), a symmetric eta given the mean over topics and terms of
    E[log beta] (a matrix eta's scale is learned by :func:`prior_scale_step`)."""
    if learn_alpha and mean_elog_theta is not None:
        alpha = dirichlet_from_mean_log(alpha, mean_elog_theta)
    if learn_eta:
        eta = symmetric_dirichlet_from_mean_log(eta, float(mean_log_beta), n_terms)
    return alpha, eta


def svi_alpha(alpha, batch_mean_elog_theta, rho):
    """The learned alpha after a mini-batch: the maximiser of the Dirichlet likelihood given the running average of
    the statistic s = mean over documents of E[log theta_d] (Robbins-Monro, step ``rho``).

    The optimum alpha of a statistic s solves psi(alpha_k) - psi(sum alpha) = s_k, so the previous alpha gives back
    the previous average, and no state beyond alpha is kept:

        s <- (1 - rho) [psi(alpha) - psi(sum alpha)] + rho * batch mean,   alpha <- argmax given s.

    Averaging the statistic, not the batch optima, matters for small batches: the optimum for one document is
    about its own gamma (tens or hundreds of tokens), so moving alpha towards it blew alpha up; the average of
    single documents' statistics tends to the corpus's, whose optimum is the batch fit's. With rho = 1 it is the
    batch optimum."""
    a = np.asarray(alpha, dtype=np.float64)
    implied = digamma(a) - digamma(a.sum())
    return dirichlet_from_mean_log(a, (1.0 - rho) * implied + rho * np.asarray(batch_mean_elog_theta))


def svi_step(lam, alpha, eta, stats: LocalStats, rho, scale, out: TopicArrays, learn_alpha, learn_eta, shape=None):
    """One stochastic variational step from a mini-batch's statistics, in place on ``lam``:

        lam <- (1 - rho) lam + rho (eta + scale * sstats),   scale = D / |B|

    made by one fused kernel that also writes the new lam's ``ebeta_t`` and ``log_scale`` into
    ``out``'s arrays; a learned eta moves with the same step towards the value that maximises the
    ELBO for the new lam (Hoffman et al. 2013), a learned alpha is the optimum of the documents' statistic
    averaged with the same step (:func:`svi_alpha`). With a matrix ``eta`` the step is made
    with the matrix (its zeros stay zeros in lam) and a learned eta is its scale (``shape``, its
    :class:`PriorShape`, kept by the caller). Returns (alpha, eta, TopicArrays of the new lam, shape):
    shape is None for a float eta.
    """
    n_topics, n_terms = lam.shape
    if is_matrix(eta):
        blend = (1.0 - rho) * lam.astype(np.float64) + rho * (eta + scale * stats.sstats_t.T)
        np.copyto(blend, 0.0, where=eta <= 0)
        lam[...] = blend
        topics = topic_arrays(lam, out, eta)
        if learn_alpha and stats.elog_theta is not None:
            alpha = svi_alpha(alpha, stats.elog_theta / stats.n_docs, rho)
        if learn_eta:
            eta, shape = prior_scale_step(eta, shape, topics, rho)
        return alpha, eta, topics, shape
    elog_sum, rest = svi_topic_update(lam, stats.sstats_t, rho, float(eta), scale, out.ebeta_t, out.log_scale)
    topics = TopicArrays(out.ebeta_t, out.log_scale, elog_sum, rest)
    if learn_alpha and stats.elog_theta is not None:
        alpha = svi_alpha(alpha, stats.elog_theta / stats.n_docs, rho)
    if learn_eta:
        _, new_eta = learned_priors(alpha, eta, None, mean_elog_beta(topics, n_terms), n_terms, False, True)
        eta = (1.0 - rho) * eta + rho * new_eta
    return alpha, eta, topics, None
