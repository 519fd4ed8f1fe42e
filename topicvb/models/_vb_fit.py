"""The fit loops of batch and online VB for LDA, written once over a *map* of the local step.

A map runs :mod:`._vb`'s local step on the corpus's blocks and returns their summed
:class:`~._vb.LocalStats`. :class:`CorpusMap` and :class:`MiniBatchMap` run it in this process (the
whole corpus as one block for BatchLDA; mini-batches for OnlineLDA); the Dask maps of
:mod:`topicvb.distributed` run it on the partitions where they live. The loops below are the
same for both, so a distributed fit *is* the in-process fit with another map.

A batch map offers ``step(t, topics, alpha, e_step, with_elog_theta) -> LocalStats`` (E-step ``t``
from its own starts, keeping the new gamma pending, with the bound of the current gamma; or,
with ``e_step=False``, the bound only), ``accept()`` (the pending gamma becomes current) and
``reuse_topic_arrays`` (whether the topics' arrays may be overwritten between steps). An online map
offers ``batches(pass_no)`` (the mini-batches of a pass, in order), ``step(batch, t, topics, alpha,
with_elog_theta) -> LocalStats``, ``total`` (the corpus size D of the SVI scale D / |B|) and
``reuse_topic_arrays``.
"""

from __future__ import annotations


from numbers import Integral, Real

import numpy as np

from .._config import threads
from .._kernels.bounds import lda_doc_bound, lda_topic_bound
from .._validation import MAX_INT, csr_arrays, used_columns, writable
from .._constraints import Interval, Options, StrOptions
from ._priors import learn_flags
from ._start import initial_gamma, random_start, start_points
from ._vb import (DocUpdates, TopicArrays, batch_m_step, bound_step, infer, is_matrix, learned_priors,
                  local_step, make_block, mean_elog_beta, online_local_step, prior_scale_step, svi_step,
                  topic_arrays, topic_bound)
from ._vb import expectations as lam_expectations


# ----------------------------------------------------------------------------------- batch VB
class CorpusMap:
    """BatchLDA's map: the whole corpus as one block, restarts drawn from the model's random stream.

    E-step t restarts the documents of the rotation (:func:`._start.start_points`) from
    :func:`._start.random_start` draws and continues the others from their previous gamma.
    """

    reuse_topic_arrays = True

    def __init__(self, X, n_topics, dtype, rng, restart_every, updates: DocUpdates, gamma=None):
        self.block = make_block(X)
        self.n_topics, self.dtype, self.rng = n_topics, dtype, rng
        self.restart_every, self.updates = int(restart_every), updates
        self.gamma = np.zeros((0, n_topics), dtype=dtype) if gamma is None else gamma
        self.pending = None

    def step(self, t, topics, alpha, e_step=True, with_elog_theta=False):
        if not e_step:
            return bound_step(self.block, topics, alpha, self.gamma)
        gamma_init = start_points(random_start(self.rng, (self.block.n_docs, self.n_topics), self.dtype), self.gamma,
                                  0, self.restart_every, t)
        self.pending, stats = local_step(self.block, topics, alpha, gamma_init, self.gamma, self.updates,
                                         with_elog_theta)
        return stats

    def accept(self):
        self.gamma, self.pending = self.pending, None


def batch_loop(model, mapper, lam, alpha, eta, *, learn_alpha, learn_eta, started, it=0, history=None, stop=None,
               on_bound=None, on_m_step=None):
    """Batch VB: E-step on every block, bound, M-step, prior updates, until converged or ``max_iter``.

    The bound of iteration it (its gamma under its M-step's topics) comes with E-step it + 1, which
    evaluates that gamma anyway: when iteration it has converged, E-step it + 1 is discarded, and at
    ``max_iter`` (or on Ctrl-C: ``stop.requested``) a bound-only pass is made. ``on_bound(it, bound)``
    runs after each bound, ``on_m_step(it, lam, alpha, eta, history)`` after each M-step (checkpoints).
    ``eta`` a float or a (K, V) matrix (:mod:`._vb`); a learned matrix eta is learned by its scale.
    The M-steps overwrite ``lam`` (the loop owns it: pass a copy of an array that must stay as it is), and each
    iteration's statistics go before the next E-step makes new ones, so that the loop holds lam, the topics'
    expectations and one set of statistics (three (K, V) arrays) rather than five.

    Returns (lam, alpha, eta, history, iterations made, converged).
    """
    history = [] if history is None else history
    n_terms, dtype = lam.shape[1], lam.dtype
    matrix, shape = is_matrix(eta), None  # (shape: the matrix prior's PriorShape, made when first learned)
    topics = topic_arrays(lam, eta=eta)
    converged = model._converged(history)
    while not converged:
        final = it >= model.max_iter or (stop is not None and stop.requested)
        if final and len(history) == it:
            break
        stats = mapper.step(it + 1, topics, alpha, e_step=not final, with_elog_theta=learn_alpha)
        if len(history) < it:  # this step also gave the document part of iteration it's bound
            history.append(stats.doc_bound + topic_bound(topics, eta, n_terms))
            model._report(it, history[-1], history[-2] if len(history) > 1 else None, started)
            if on_bound is not None:
                on_bound(it, history[-1])
            converged = model._converged(history)
            if converged or final:  # the model of iteration it is the result (this E-step is not used)
                break
        mapper.accept()
        it += 1
        lam = batch_m_step(stats.sstats_t, eta, dtype, out=lam)
        elog_theta = stats.elog_theta / stats.n_docs if learn_alpha else None
        stats = None  # (before the topics' arrays and the next E-step: see above)
        topics = topic_arrays(lam, out=topics if mapper.reuse_topic_arrays else None, eta=eta)
        if matrix and (learn_alpha or learn_eta):  # alpha as below, and the scale of eta (_vb.prior_scale_step)
            alpha, _ = learned_priors(alpha, eta, elog_theta, 0.0, n_terms, learn_alpha, False)
            if learn_eta:
                eta, shape = prior_scale_step(eta, shape, topics)
        elif learn_alpha or learn_eta:  # coordinate ascent on the priors keeps the bound monotone
            alpha, eta = learned_priors(alpha, eta, elog_theta, mean_elog_beta(topics, n_terms), n_terms, learn_alpha,
                                        learn_eta)
        if on_m_step is not None:
            on_m_step(it, lam, alpha, eta, history)
    return lam, alpha, eta, history, it, converged


# ----------------------------------------------------------------------------------- online VB
class MiniBatchMap:
    """OnlineLDA's map in this process: mini-batches of ``batch_size`` rows of X in a pass's order.

    ``order`` is the visiting order, or None to draw a permutation from ``rng`` at the start of every
    pass (``shuffle``). Restarts are drawn from ``rng`` for every document of a batch; with
    ``doc_gamma`` (an array (D, K)), a document that is not in the pass's restart rotation continues
    from its gamma of the previous pass, and every new gamma is stored there.
    """

    reuse_topic_arrays = True

    def __init__(self, X, rng, n_topics, dtype, batch_size, total, updates: DocUpdates, *, order=None,
                 doc_gamma=None, restart_every=1):
        self.X, self.rng, self.n_topics, self.dtype = X, rng, n_topics, dtype
        self.batch_size, self.total, self.updates = int(batch_size), total, updates
        self.order, self.doc_gamma, self.restart_every = order, doc_gamma, int(restart_every)
        self.pass_no = 1

    def batches(self, pass_no):
        self.pass_no = pass_no
        order = self.rng.permutation(self.X.shape[0]) if self.order is None else self.order
        for start in range(0, self.X.shape[0], self.batch_size):
            yield order[start:start + self.batch_size]

    def step(self, ids, t, topics, alpha, with_elog_theta=False):
        batch = self.X[ids]
        gamma0 = random_start(self.rng, (batch.shape[0], self.n_topics), self.dtype)
        if self.doc_gamma is not None and self.pass_no > 1:  # continue the documents that do not restart
            keep = ids % self.restart_every != (self.pass_no - 1) % self.restart_every
            gamma0[keep] = self.doc_gamma[ids[keep]]
        gamma, stats = online_local_step(*csr_arrays(batch), topics, alpha, gamma0, self.updates, with_elog_theta)
        if self.doc_gamma is not None:
            self.doc_gamma[ids] = gamma
        return stats


def online_pass(model, mapper, state, pass_no, started, learn_alpha, learn_eta):
    """One pass of SVI over the map's mini-batches, updating ``state`` (the fitted attributes:
    ``components_`` in place, the priors, ``n_batch_iter_``, ``n_docs_seen_``, ``bound_history_``).

    For each mini-batch B: the local step with the current topics, the bound estimate
    (D / |B|) (document part of B) + topic part, then the step lam <- (1 - rho_t) lam +
    rho_t (eta + D / |B| sstats_B), rho_t = (tau0 + t) ** -kappa. Returns the batches' bounds.
    """
    lam = state["components_"]
    alpha, eta = state["doc_topic_prior_"], state["topic_word_prior_"]
    n_terms = lam.shape[1]
    topics = topic_arrays(lam, eta=eta)
    shape = None  # a learned matrix eta's PriorShape (see _vb.svi_step)
    bounds = []
    for batch in mapper.batches(pass_no):
        t = state["n_batch_iter_"] + 1
        stats = mapper.step(batch, t, topics, alpha, with_elog_theta=learn_alpha)
        scale = mapper.total / stats.n_docs
        bounds.append(float(scale * stats.doc_bound + topic_bound(topics, eta, n_terms)))
        out = topics if mapper.reuse_topic_arrays else TopicArrays(np.empty_like(topics.ebeta_t),
                                                                   np.empty_like(topics.log_scale), None, None)
        alpha, eta, topics, shape = svi_step(lam, alpha, eta, stats, model._rho(t), scale, out, learn_alpha,
                                             learn_eta, shape)
        state["n_batch_iter_"] = t
        state["n_docs_seen_"] += stats.n_docs
        if model.verbose > 1:  # (named as mini-batches: their count is not a pass's, "iter 12/3" was ambiguous)
            model._report(t, bounds[-1], bounds[-2] if len(bounds) > 1 else None, started, what="mini-batch")
    state["doc_topic_prior_"], state["topic_word_prior_"] = alpha, eta
    state["bound_history_"] = np.concatenate([state["bound_history_"], bounds])
    return bounds


def online_loop(model, mapper, state, means, started, *, stop=None, on_pass=None, between_passes=None):
    """Passes of :func:`online_pass` until the mean bound of a pass converges or ``max_iter`` passes.

    ``between_passes(it)``, when given, runs after each pass and returns whether it changed the
    model (OnlineLDA's re-seeding of dead topics; its ``last`` attribute says whether the last pass
    before a resumption did), in which case the fit does not stop on that pass. ``on_pass(it, means,
    n_batches)`` runs after it (checkpoints, callbacks). Returns (passes made, converged);
    ``state["n_iter_"]`` is set.
    """
    learn_alpha, learn_eta = learn_flags(model.learn_priors, type(model).__name__)
    it = len(means)
    converged = model._converged(means) and not (between_passes is not None and between_passes.last)
    while it < model.max_iter and not converged and not (stop is not None and stop.requested):
        it += 1
        bounds = online_pass(model, mapper, state, it, started, learn_alpha, learn_eta)
        means.append(float(np.mean(bounds)))
        state["n_iter_"] = it
        changed = between_passes is not None and between_passes(it)
        if on_pass is not None:
            on_pass(it, means, len(bounds))
        model._report(it, means[-1], means[-2] if len(means) > 1 else None, started)
        converged = model._converged(means) and not changed
    state["n_iter_"] = it
    return it, converged


# ----------------------------------------------------------------------------------- estimator parts
class VBLDAMixin:
    """What BatchLDA and OnlineLDA share as estimators: parameters of the local step, inference of
    new documents, the bound."""

    _parameter_constraints: dict = {
        "init": [StrOptions({"seeded", "random"})],
        "learn_priors": [Options({False, True, "doc_topic", "topic_word"}), None],  # None: as False
        "restart_every": [Interval(Integral, 1, MAX_INT)],
        "max_doc_update_iter": [Interval(Integral, 1, MAX_INT)],
        "mean_change_tol": [Interval(Real, 0, None)],
        "e_step_acceleration": [StrOptions({"squarem"}), None],
    }

    @property
    def _accelerate(self):
        """Whether the E-step runs SQUAREM-accelerated updates (``e_step_acceleration``)."""
        return self.e_step_acceleration == "squarem"

    def _doc_updates(self) -> DocUpdates:
        return DocUpdates(int(self.max_doc_update_iter), float(self.mean_change_tol), self._accelerate)

    def _infer(self, X, expectations=None):
        """gamma of CSR ``X`` with the fitted topics; ``expectations`` reuses ``_vb.expectations(components_)``,
        else they are computed for the terms X uses (all of them for a large X: ``used_columns``)."""
        alpha = writable(self.doc_topic_prior_)  # (a read-only model: see writable)
        if expectations is None:
            lam = writable(self.components_)
            columns, X = used_columns(X, lam.shape[1])
            expectations = lam_expectations(lam, writable(self.topic_word_prior_), columns)
        _, ebeta_t, _ = expectations
        gamma0 = initial_gamma(X, alpha, ebeta_t.dtype)
        with threads(self.n_jobs):
            return infer(*csr_arrays(X), ebeta_t, alpha, gamma0, self._doc_updates())

    def _doc_topic(self, X):
        return self._infer(X)

    def _elbo(self, X, gamma, lam, alpha, eta, doc_scale=1.0, expectations=None):
        """ELBO of X given gamma and lam; ``doc_scale`` multiplies the document part (SVI estimates)."""
        elog, ebeta_t, log_scale = lam_expectations(lam, eta) if expectations is None else expectations
        indptr, indices, data = csr_arrays(X)
        with threads(self.n_jobs):
            doc = lda_doc_bound(indptr, indices, data, gamma, alpha, ebeta_t, log_scale)
            topic = lda_topic_bound(lam, elog, eta if is_matrix(eta) else float(eta))
        return float(doc_scale * np.sum(doc) + np.sum(topic))

    def _score(self, X):
        lam, eta = writable(self.components_), writable(self.topic_word_prior_)
        cached = lam_expectations(lam, eta)
        gamma = self._infer(X, cached)
        return self._elbo(X, gamma, lam, writable(self.doc_topic_prior_), eta, expectations=cached)

