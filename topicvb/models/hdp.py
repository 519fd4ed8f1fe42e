"""A hierarchical Dirichlet process topic model fitted by collapsed variational Bayes (CVB0): the data choose
the number of topics."""

from __future__ import annotations

import logging
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._config import convergence_warnings_wanted, threads
from .._constraints import Boolean, Interval, StrOptions
from .._kernels.cvb0 import document_counts, sweep, sweep_documents, term_counts
from .._kernels.plsa import log_likelihood
from .._kernels.priors import cell_variances
from .._kernels.sparse import column_index
from .._validation import MAX_INT, csr_arrays, user_stacklevel
from ._base import CHECKPOINT_CONSTRAINTS, TopicModelBase
from ._checkpoint import interruptible, restore_rng
from ._collapsed import CollapsedInferenceMixin, point_estimates
from ._hdp import (V_MIN, global_objective, global_step, merge_candidates, merge_gain, size_order,
                   stick_weights, sticks)
from ._priors import symmetric_polya_step
from ._start import seeded_topics

logger = logging.getLogger(__name__)

# The weak Gamma(shape, rate) hyperprior on alpha0, gamma and a learned eta (as CollapsedLDA's learned priors).
HYPER_SHAPE, HYPER_RATE = 1.0, 1.0
MIN_PRIOR = 1e-12  # doc_topic_prior_ entries (a dead topic's, kept by min_topic_share=0) are at least this
MERGE_MIN_TOKENS = 0.5  # topics holding fewer expected tokens are not merge candidates (they are empty)
# Nor are topics below this share of the tokens: the stick's rest (the last weight, see _hdp) keeps giving birth
# to tiny topics, and merging them away every sweep kept a fit from settling (an LDA-generated corpus with 40
# topics, T = 80: a merge of +0.1 to +0.9 nats in every sweep from 200 to 300). They change no count of 1%.
MERGE_MIN_SHARE = 1e-3
MERGE_EVERY = 20  # merges are also tried every this many sweeps after the burn-in, settled or not
# Pairs less similar than this (cosine of the smoothed topic-term distributions) are not tried, to save the
# time of hopeless trials (on KOS no pair was worth merging; a round tries up to one pair per live topic). A
# split topic's parts can be far apart on a small corpus: on tests/models/test_hdp.py's three themes the
# parts' cosine fell below 0.3 (0.3 left 7 topics of 12, 0.5 left 6 of 6; 0.2 and below found 3).
MERGE_SIMILARITY = 0.2
MERGE_PAIRS = 1  # pairs tried per round: this many times the live topics, the most similar first


class HDP(CollapsedInferenceMixin, TopicModelBase):
    """Hierarchical Dirichlet process topic model (truncated, direct assignment) fitted by collapsed
    variational Bayes (CVB0): it infers the number of topics.

    The model (Teh, Jordan, Beal & Blei 2006) in its truncated direct-assignment form: T =
    ``max_components`` topics with global weights beta from a stick-breaking GEM(gamma) prior,
    beta_k = v_k prod_{j<k} (1 - v_j) (the last stick is 1), each document's topic proportions
    theta_d ~ Dirichlet(alpha0 beta) and topics phi_k ~ Dirichlet(eta). As in Teh, Kurihara & Welling
    (2008) and Sato, Kurihara & Nakagawa (2012), theta and phi are integrated out and a mean-field
    distribution is kept over the topic assignments, updated by CVB0 sweeps (those of
    :class:`topicvb.CollapsedLDA`, with the asymmetric document prior alpha_k = alpha0 beta_k). After each
    sweep (past ``prior_burn_in``) the global parameters alpha0, beta (the sticks, taken in the order of
    decreasing topic size) and gamma take one minorise-maximise step on their objective: the
    Dirichlet-multinomial (Polya) likelihood of the expected document-topic counts (with the
    expectation over the counts' mean-field law, as CollapsedLDA learns its priors) plus the log
    stick-breaking prior and weak Gamma(1, 1) hyperpriors on alpha0 and gamma. That step never decreases
    this objective (:mod:`topicvb.models._hdp` derives it); the CVB0 sweeps, like CollapsedLDA's, are not
    guaranteed to increase anything. A topic the documents stop using loses its weight and its tokens;
    the truncation level only needs to exceed the number of topics the corpus supports.

    **The number of topics** ``n_components_`` is the number of topics carrying at least
    ``min_topic_share`` (default 1%) of the training tokens at the end of the fit. ``components_``,
    ``doc_topic_prior_``, ``transform`` and everything downstream (evaluation, inspection, report,
    save / load) use those topics only, ordered by decreasing size; the fit's T topics are kept in
    ``all_components_``, ``topic_weights_`` and ``topic_shares_``. On real text many topics sit below 1%
    (together 45-47% of the tokens on KOS, AP and 20 Newsgroups at ``max_components=100``), so the kept
    topics are then refit alone (``refit_kept``, a delete move as in Hughes, Kim & Sudderth): the
    dropped topics' share of each cell goes to the kept topics in proportion, and CVB0 sweeps with the
    fitted alpha0 beta_k and eta run until the log-likelihood settles. ``components_`` then explain
    every token: held-out perplexity (document completion on a 10% test split, ``benchmarks/results/hdp.md``)
    1551 against 2070 without the refit on KOS, 2285 against 3108 on AP, 2722 against 4242 on
    20 Newsgroups, for a slightly lower NPMI of the top words (0.214 / 0.258 / 0.292 against 0.223 / 0.267 /
    0.319: the absorbed tokens are spread over the kept topics).

    ``bound_history_`` holds, after every sweep, the training log-likelihood at the point estimates (as
    CollapsedLDA's); ``objective_history_`` the global objective after each global step.

    Parameters
    ----------
    max_components : int, default=50
        The truncation level T: the most topics the fit can use. Larger costs time and memory
        (n_nonzero x T floats for the responsibilities) but not quality.
    doc_topic_concentration : float, default=None
        Start of alpha0, the concentration of the documents' Dirichlet around beta (learned); None means 1.
    stick_concentration : float, default=None
        gamma, the concentration of the stick-breaking prior (at least 1; see :mod:`topicvb.models._hdp`).
        None learns it (starting at 1); a number fixes it.
    topic_word_prior : float, default=None
        Dirichlet prior on topic-term distributions (eta); None means 1 / ``max_components``. Learned
        (symmetric, by CollapsedLDA's fixed point) unless ``learn_topic_word_prior`` is False.
    learn_topic_word_prior : bool, default=True
        Whether eta is learned, one step per sweep after ``prior_burn_in``.
    min_topic_share : float, default=0.01
        A topic is counted (``n_components_``) and kept in ``components_`` when it carries at least this
        share of the training tokens. The largest topic is always kept; 0 keeps all ``max_components``. It
        does not change the fit of the T topics (``all_components_``).
    refit_kept : bool, default=True
        When topics were dropped, refit the kept ones alone (see above) for ``components_`` and
        ``doc_topic_prior_``; False keeps them as the fit of all T topics left them (their rows of
        ``all_components_``), whose held-out perplexity is worse by the dropped tokens.
    merges : bool, default=True
        Every 20 sweeps after the burn-in, and whenever the fit has settled, merge pairs of similar topics
        (the most similar first, cosine of the topic-term distributions at least 0.2, up to one pair per live
        topic) whose merge raises the collapsed variational bound (:func:`topicvb.models._hdp.merge_gain`),
        each topic at most once a round; a fit that settled sweeps on after an accepted merge (and one that
        reaches ``max_iter`` before it settles again warns: its number of topics may still fall). CVB0 from a
        start with more topics than the corpus supports tends to split a topic over several, which the Polya
        likelihood of the counts keeps (an LDA-generated corpus of 1000 documents with 10 topics, T = 30:
        26 topics of 1% or more without merges, 10 with them). False gives the plain fit.
    topic_update : {"sequential", "per_sweep"}, default="sequential"
        As in :class:`topicvb.CollapsedLDA`: the exact serial CVB0 sweep (one thread), or documents in
        parallel on ``n_jobs`` threads with the topic-term counts frozen during a sweep. Neither depends
        on the thread count.
    prior_burn_in : int, default=10
        Sweeps with alpha0 beta = (alpha0 / T, ..., alpha0 / T) and eta fixed before the global
        parameters are first learned (right after the start the counts are nearly uniform).
    init : {"seeded", "random"}, default="seeded"
        Initial responsibilities, as in :class:`topicvb.CollapsedLDA` (k-means++ document clusters, or
        Dirichlet(1) draws).
    max_iter : int, default=300
        Maximum number of sweeps.
    tol : float, default=1e-5
        Stop (after the burn-in) when the training log-likelihood rose by at most ``tol`` relative.
    transform_max_iter, mean_change_tol
        As in :class:`topicvb.CollapsedLDA` (inference of new documents with the topics fixed).
    random_state, verbose, n_jobs, dtype, checkpoint_path, checkpoint_every
        As in :class:`topicvb.BatchLDA`: a checkpoint holds the state of the sweeps (responsibilities,
        counts, alpha0, the topic weights, gamma, eta and the histories); a fit resumed from one
        (``fit(X, resume=True)``) ends as the uninterrupted fit would, the refit of the kept topics
        included.

    Attributes
    ----------
    n_components_ : int
        The inferred number of topics (those with at least ``min_topic_share`` of the tokens).
    components_ : ndarray of shape (n_components_, n_features)
        Expected topic-term counts plus eta of those topics, by decreasing size (before the refit of the kept
        topics, ``refit_kept``, which may change their sizes a little: row k stays row k of ``all_components_``).
    doc_topic_prior_ : ndarray of shape (n_components_,)
        alpha0 beta_k of those topics (at least 1e-12).
    topic_word_prior_ : float
        eta.
    all_components_ : ndarray of shape (max_components, n_features)
        Every topic of the fit, by decreasing size. The first ``n_components_`` rows are the kept topics as
        the fit of all T topics left them: ``components_`` itself with ``refit_kept=False`` or when no topic
        was dropped, else the same topics before their refit, row for row.
    topic_weights_ : ndarray of shape (max_components,)
        The global weights beta (summing to 1), in the order of ``all_components_``.
    topic_shares_ : ndarray of shape (max_components,)
        Each topic's share of the training tokens, in that order.
    doc_topic_concentration_ : float
        alpha0.
    stick_concentration_ : float
        gamma.
    objective_history_ : ndarray
        The global objective F after each global step (never decreasing through a global step).
    refit_sweeps_ : int
        The sweeps of the refit of the kept topics (``refit_kept``; 0 when none was needed), whose
        log-likelihoods follow the fit's ``n_iter_`` in ``bound_history_``.
    bound_history_, n_iter_, n_features_in_, topic_labels_
        As in :class:`topicvb.CollapsedLDA`.

    References
    ----------
    Teh, Jordan, Beal & Blei (2006), Hierarchical Dirichlet processes, JASA.
    Teh, Kurihara & Welling (2008), Collapsed variational inference for HDP, NIPS.
    Sato, Kurihara & Nakagawa (2012), Practical collapsed variational Bayes inference for hierarchical
    Dirichlet process, KDD.
    Minka (2000), Estimating a Dirichlet distribution.
    Hughes, Kim & Sudderth (2015), Reliable and scalable variational inference for the hierarchical Dirichlet
    process, AISTATS (delete moves).

    Examples
    --------
    >>> from topicvb import HDP, make_lda_corpus
    >>> lda = make_lda_corpus(n_docs=200, n_topics=4, n_terms=60, doc_length=60, random_state=0)
    >>> model = HDP(max_components=12, random_state=0).fit(lda.corpus.X)
    >>> model.n_components_
    4
    """

    def __init__(self, max_components=50, *, doc_topic_concentration=None, stick_concentration=None,
                 topic_word_prior=None, learn_topic_word_prior=True, min_topic_share=0.01, refit_kept=True,
                 merges=True, topic_update="sequential", prior_burn_in=10, init="seeded", max_iter=300, tol=1e-5,
                 transform_max_iter=100, mean_change_tol=1e-3, random_state=None, verbose=0, n_jobs=None,
                 dtype="float64", checkpoint_path=None, checkpoint_every=1):
        self.max_components = max_components
        self.doc_topic_concentration = doc_topic_concentration
        self.stick_concentration = stick_concentration
        self.topic_word_prior = topic_word_prior
        self.learn_topic_word_prior = learn_topic_word_prior
        self.min_topic_share = min_topic_share
        self.refit_kept = refit_kept
        self.merges = merges
        self.topic_update = topic_update
        self.prior_burn_in = prior_burn_in
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.transform_max_iter = transform_max_iter
        self.mean_change_tol = mean_change_tol
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.dtype = dtype
        self.checkpoint_path = checkpoint_path
        self.checkpoint_every = checkpoint_every

    # with CollapsedInferenceMixin's and TopicModelBase's (n_components and doc_topic_prior: not parameters here)
    _parameter_constraints: dict = {
        "max_components": [Interval(Integral, 1, MAX_INT)],
        "doc_topic_concentration": [Interval(Real, 1e-12, 1e12), None],
        "stick_concentration": [Interval(Real, 1.0, 1e12), None],
        "topic_word_prior": [Interval(Real, 1e-12, 1e12), None],
        "learn_topic_word_prior": [Boolean()],
        "min_topic_share": [Interval(Real, 0.0, 1.0)],
        "refit_kept": [Boolean()],
        "merges": [Boolean()],
        "topic_update": [StrOptions({"sequential", "per_sweep"})],
        "prior_burn_in": [Interval(Integral, 0, MAX_INT)],
        "init": [StrOptions({"seeded", "random"})],
        **CHECKPOINT_CONSTRAINTS,
    }

    @property
    def n_components(self):
        """The number of topics of the fitted model, ``n_components_`` (not a parameter: the truncation level is
        ``max_components``); for code that reads ``n_components`` as a fitted model's number of topics."""
        try:
            return self.n_components_
        except AttributeError:
            raise AttributeError("HDP has no n_components parameter (its truncation level is max_components); the "
                                 "inferred number of topics, n_components_, exists after fit.") from None

    # ------------------------------------------------------------------ the base class's hooks
    @classmethod
    def _all_parameter_constraints(cls) -> dict:
        """The merged table less the base class's entries for parameters HDP does not have."""
        table = super()._all_parameter_constraints()
        for name in ("n_components", "doc_topic_prior"):
            table.pop(name, None)
        return table

    def _check_params(self):
        """As the base class, and a clear refusal of a matrix topic_word_prior (guided topics)."""
        if np.ndim(self.topic_word_prior) == 2 or hasattr(self.topic_word_prior, "labels"):
            raise TypeError("HDP's topic_word_prior must be a number or None: guided topics (a matrix prior such as "
                            "a topicvb.SeededPrior) need a fixed number of topics, which HDP chooses itself; seed "
                            "topics of an estimator with n_components (CollapsedLDA, BatchLDA, ...) instead.")
        super()._check_params()

    def _check_param_relations(self):
        """No relation between the parameters to check (the base class checks doc_topic_prior's length)."""

    def _topic_labels(self):
        return None  # (known only after the fit, which sets topic_labels_ itself)

    def _fit_checked(self, X, resume):
        # no DeadTopicWarning: the fit chooses its topics (components_ holds the used ones only)
        return self._fit(X, resume=resume)

    def _score(self, X):
        n_dk = self._infer(X)
        theta, _ = point_estimates(n_dk, np.zeros((1, self.n_components_)), self.doc_topic_prior_, 1.0)
        phi_t = np.ascontiguousarray(self.topic_word_distribution().T)
        indptr, indices, data = csr_arrays(X)
        with threads(self.n_jobs):
            return float(np.sum(log_likelihood(indptr, indices, data, theta, phi_t)))

    # ------------------------------------------------------------------ the fit
    def _fit(self, X, resume=False):
        rng = check_random_state(self.random_state)
        T = int(self.max_components)
        fit = _Sweeps(self, X)
        save, saved = self._checkpointer(X, resume)
        started = time.perf_counter()
        with threads(self.n_jobs), interruptible(type(self).__name__) as stop:
            if saved is None:
                alpha0 = 1.0 if self.doc_topic_concentration is None else float(self.doc_topic_concentration)
                conc = 1.0 if self.stick_concentration is None else float(self.stick_concentration)
                eta = 1.0 / T if self.topic_word_prior is None else float(self.topic_word_prior)
                beta = np.full(T, 1.0 / T)  # the topic weights, in the order of the state's columns
                state = fit.start(X, rng, T)
                history, objectives = [], []
                it, converged, ever_converged, n_merges = 0, False, False, 0
            else:  # the in-place counts as they were, not recomputed, for exact resumption
                state = fit.restore(saved)
                alpha0, conc, eta = (float(saved[key]) for key in ("alpha0", "conc", "eta"))
                beta = np.asarray(saved["beta"], dtype=np.float64)
                history, objectives = list(saved["history"]), list(saved["objectives"])
                it, n_merges = int(saved["iteration"]), int(saved["n_merges"])
                ever_converged = bool(saved["ever_converged"])
                converged = bool(saved["converged"])
                restore_rng(rng, saved)
            while not stop.requested and it < self.max_iter and not converged:
                it += 1
                fit.sweep(state, alpha0 * beta, eta)
                if it > self.prior_burn_in:
                    fit.variances(state)
                    # the sticks in the order of decreasing size (the arrays keep their columns: only the (D, T)
                    # counts are permuted, for the step)
                    order = size_order(state["n_wk"].sum(axis=0, dtype=np.float64))
                    n_dk, v_dk = state["n_dk"][:, order], state["v_dk"][:, order]
                    alpha0, v, conc = global_step(alpha0, sticks(beta[order]), conc, n_dk, v_dk, fit.lengths,
                                                  learn_alpha0=True, learn_gamma=self.stick_concentration is None,
                                                  shape=HYPER_SHAPE, rate=HYPER_RATE)
                    beta = np.empty(T)
                    beta[order] = stick_weights(v)
                    if self.learn_topic_word_prior:
                        eta = symmetric_polya_step(eta, state["n_wk"].T, state["v_wk"].T, HYPER_SHAPE, HYPER_RATE)
                    objectives.append(global_objective(alpha0, v, conc, n_dk, v_dk, fit.lengths, shape=HYPER_SHAPE,
                                                       rate=HYPER_RATE))
                    del n_dk, v_dk
                history.append(fit.log_likelihood(state, alpha0 * beta, eta))
                self._report(it, history[-1], history[-2] if len(history) > 1 else None, started)
                converged = it > self.prior_burn_in + 2 and self._converged(history)
                ever_converged = ever_converged or converged
                due = (it - self.prior_burn_in) % MERGE_EVERY == 0 and it > self.prior_burn_in
                if (converged or due) and self.merges and it < self.max_iter:
                    beta, n_merged = fit.merge(state, alpha0, beta, eta)
                    n_merges += n_merged
                    converged = converged and n_merged == 0
                save(it, {"gamma": state["gamma"], "n_dk": state["n_dk"], "n_wk": state["n_wk"], "beta": beta,
                          "alpha0": np.float64(alpha0), "conc": np.float64(conc), "eta": np.float64(eta),
                          "history": np.asarray(history, dtype=np.float64),
                          "objectives": np.asarray(objectives, dtype=np.float64),
                          "converged": np.int64(converged), "ever_converged": np.int64(ever_converged),
                          "n_merges": np.int64(n_merges)}, rng)
            if n_merges:
                logger.info("HDP: %d merge(s) accepted", n_merges)
            if not stop.requested:
                # (whether the fit had settled when it ended: one that reached max_iter while merges were still
                # changing it, having settled before, ends unsettled and with a number of topics that depends on
                # where max_iter cut it)
                if ever_converged and not converged and self.tol > 0 and convergence_warnings_wanted():
                    warnings.warn(f"HDP reached max_iter={self.max_iter} while merges were still changing the fit "
                                  "(it had settled before an accepted merge), so its number of topics may still "
                                  "fall; raise max_iter, or pass merges=False.", ConvergenceWarning,
                                  stacklevel=user_stacklevel())
                else:
                    self._warn_not_converged(it, converged)
            fit.exact_counts(state)
            fitted = self._fitted(state, alpha0, beta, conc, eta, history, objectives, it)
            if self.refit_kept and fitted["n_components_"] < T and not stop.requested:
                fitted.update(self._refit_kept(fit, state, alpha0, beta, eta, fitted["n_components_"], history, stop))
        return fitted

    def _refit_kept(self, fit, state, alpha0, beta, eta, used, history, stop):
        """The kept topics refit alone (``refit_kept``): the dropped topics' responsibilities removed from
        every cell (its others renormalised), then CVB0 sweeps with alpha0 beta_k of the kept topics and
        eta fixed until the log-likelihood settles (``tol``), at most ``max_iter`` sweeps; their
        components and priors in the fitted attributes. The sweeps are appended to ``bound_history_``."""
        keep = size_order(state["n_wk"].sum(axis=0, dtype=np.float64))[:used]
        # (the kept columns taken into one new C-ordered array, and the full responsibilities let go: the caller's
        # state no longer holds them either)
        gamma = np.take(state.pop("gamma"), keep, axis=1)
        total = gamma.sum(axis=1, keepdims=True, dtype=np.float64)
        gamma /= np.where(total > 0.0, total, 1.0).astype(gamma.dtype)
        gamma[total[:, 0] <= 0.0] = 1.0 / used  # (a cell wholly in dropped topics: no preference)
        dropped = 1.0 - float(np.dot(fit.data, total[:, 0]) / max(float(fit.data.sum()), 1e-300))
        del state
        kept = fit.counts(gamma)
        alpha = alpha0 * beta[keep]
        start, settled, started = len(history), False, time.perf_counter()
        for done in range(1, self.max_iter + 1):
            if stop.requested:
                break
            fit.sweep(kept, alpha, eta)
            history.append(fit.log_likelihood(kept, alpha, eta))
            self._report(done, history[-1], history[-2] if done > 1 else None, started, what="refit sweep",
                         total=self.max_iter)
            settled = len(history) - start >= 3 and self._converged(history[start:])
            if settled:
                break
        if not (settled or stop.requested) and self.tol > 0 and convergence_warnings_wanted():
            warnings.warn(f"HDP: the refit of the {used} kept topics reached max_iter={self.max_iter} sweeps before "
                          f"the relative change of its log-likelihood fell below tol={self.tol}; raise max_iter or "
                          "tol (or pass refit_kept=False).", ConvergenceWarning, stacklevel=user_stacklevel())
        fit.exact_counts(kept)
        logger.info("HDP: the %d kept topics refit alone (%.3g of the tokens were in the dropped topics) in %d "
                    "sweeps", used, dropped, len(history) - start)
        # (the kept topics stay in their order, by size before the refit: re-sorted by their new sizes, row k of
        # components_ would no longer be row k of all_components_, topic_weights_ and topic_shares_)
        return {"components_": np.ascontiguousarray(kept["n_wk"].T + eta, dtype=kept["n_wk"].dtype),
                "doc_topic_prior_": np.maximum(alpha, MIN_PRIOR),
                "bound_history_": np.asarray(history, dtype=np.float64),
                "refit_sweeps_": len(history) - start}

    def _fitted(self, state, alpha0, beta, conc, eta, history, objectives, n_iter):
        n_wk = state["n_wk"]
        order = size_order(n_wk.sum(axis=0, dtype=np.float64))  # the topics by decreasing size
        n_k = n_wk.sum(axis=0, dtype=np.float64)[order]
        shares = n_k / max(float(n_k.sum()), 1e-300)
        used = max(1, int(np.sum(shares >= self.min_topic_share)))  # (sorted: the used topics come first)
        beta = beta[order]
        all_components = np.ascontiguousarray((n_wk[:, order] + eta).T, dtype=n_wk.dtype)
        logger.info("HDP: %d of %d topics carry at least %g of the tokens (alpha0 %.4g, gamma %.4g, eta %.4g)",
                    used, n_k.shape[0], self.min_topic_share, alpha0, conc, eta)
        return {
            "refit_sweeps_": 0,
            "components_": np.ascontiguousarray(all_components[:used]),
            "doc_topic_prior_": np.maximum(alpha0 * beta[:used], MIN_PRIOR),
            "topic_word_prior_": float(eta),
            "n_components_": used,
            "all_components_": all_components,
            "topic_weights_": beta,
            "topic_shares_": shares,
            "doc_topic_concentration_": float(alpha0),
            "stick_concentration_": float(conc),
            "objective_history_": np.asarray(objectives, dtype=np.float64),
            "bound_history_": np.asarray(history, dtype=np.float64),
            "n_iter_": n_iter,
            "topic_labels_": np.asarray([f"topic_{k}" for k in range(used)], dtype=object),
        }


# Values (cells x T) of the initial responsibilities made at a time, in float64, before their storage in the
# model's dtype.
START_BLOCK_VALUES = 2**22


class _Sweeps:
    """HDP's fit on one matrix: the CVB0 state (responsibilities ``gamma`` (nnz, T), counts ``n_dk``,
    ``n_wk`` and their variances, a dict), its sweeps and orderings."""

    def __init__(self, model, X):
        self.model = model
        self.dtype = model._float
        self.indptr, self.indices, self.data = csr_arrays(X)
        self.n_terms = X.shape[1]
        self.colptr, self.positions, _ = column_index(self.indptr, self.indices, self.n_terms)
        self.lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
        self.rows = np.repeat(np.arange(X.shape[0]), np.diff(self.indptr))

    def start(self, X, rng, T):
        """The initial state (``init``): seeded as CollapsedLDA's, or Dirichlet(1) responsibilities."""
        weights = None
        if self.model.init == "seeded":
            lam = seeded_topics(X, T, rng, np.float64)
            weights = np.ascontiguousarray((lam / lam.sum(axis=1, keepdims=True)).T)  # (V, T)
        # made in float64 and stored in the model's dtype a block of cells at a time: a float64 (nnz, T) array
        # beside a float32 one cost 3 times the responsibilities (the random draws are the same, in the same order)
        n_cells = self.indices.shape[0]
        gamma = np.empty((n_cells, T), dtype=self.dtype)
        step = max(1, START_BLOCK_VALUES // max(T, 1))  # cells a block
        for first in range(0, n_cells, step):
            last = min(n_cells, first + step)
            if weights is not None:
                block = weights[self.indices[first:last]]
            else:
                block = rng.standard_gamma(1.0, size=(last - first, T)) + 1e-3
            block /= block.sum(axis=1, keepdims=True)
            gamma[first:last] = block
        return self.counts(gamma)

    def restore(self, saved):
        """The state of a checkpoint's arrays (the counts as saved; no variances: each step recomputes them)."""
        gamma, n_dk, n_wk = (np.ascontiguousarray(saved[key], dtype=self.dtype) for key in ("gamma", "n_dk", "n_wk"))
        D, T = n_dk.shape
        return {"gamma": gamma, "n_dk": n_dk, "n_wk": n_wk, "empty": np.empty((0, T), dtype=self.dtype),
                "v_dk": np.zeros((D, T)), "v_wk": np.zeros((self.n_terms, T))}

    def counts(self, gamma):
        D, T = self.indptr.shape[0] - 1, gamma.shape[1]
        empty = np.empty((0, T), dtype=self.dtype)
        state = {"gamma": gamma, "n_dk": np.empty((D, T), dtype=self.dtype),
                 "n_wk": np.empty((self.n_terms, T), dtype=self.dtype), "empty": empty,
                 "v_dk": np.zeros((D, T)), "v_wk": np.zeros((self.n_terms, T))}
        document_counts(self.indptr, self.data, gamma, state["n_dk"], empty, False)
        term_counts(self.colptr, self.positions, self.data, gamma, state["n_wk"], empty, False)
        return state

    def exact_counts(self, state):
        """The counts of ``state`` recomputed from its responsibilities, in place: the sequential sweep adds each
        cell's change to them, and over many sweeps the rounding of those additions drifts (below 0 where a count
        is near 0: in float32 from counts of about 1e3 a cell). The fitted attributes are made from these."""
        document_counts(self.indptr, self.data, state["gamma"], state["n_dk"], state["empty"], False)
        term_counts(self.colptr, self.positions, self.data, state["gamma"], state["n_wk"], state["empty"], False)

    def sweep(self, state, alpha, eta):
        """One CVB0 sweep with the prior alpha (T,) and eta, in place."""
        gamma, n_dk, n_wk, empty = state["gamma"], state["n_dk"], state["n_wk"], state["empty"]
        n_k = n_wk.sum(axis=0)
        zeros = np.zeros(n_k.shape[0], dtype=self.dtype)
        alpha = np.ascontiguousarray(alpha, dtype=np.float64)
        if self.model.topic_update == "sequential":
            sweep(self.indptr, self.indices, self.data, gamma, n_dk, n_wk, n_k, empty, empty, zeros, alpha, eta, False)
        else:
            sweep_documents(self.indptr, self.indices, self.data, gamma, n_dk, n_wk, n_k, empty, empty, zeros, alpha,
                            eta, False, False, 1, 0.0)
            term_counts(self.colptr, self.positions, self.data, gamma, n_wk, empty, False)

    def merge(self, state, alpha0, beta, eta):
        """One round of merges (:func:`._hdp.merge_gain`): among the most similar pairs of live topics, merge
        those whose merge raises the collapsed bound, best first, each topic at most once; returns the new
        weights (in the order of the state's columns) and the number of merges."""
        self.variances(state)
        n_k = state["n_wk"].sum(axis=0, dtype=np.float64)
        live = np.flatnonzero(n_k > max(MERGE_MIN_TOKENS, MERGE_MIN_SHARE * float(n_k.sum())))
        if live.shape[0] < 2:
            return beta, 0
        alpha = alpha0 * beta
        # (a pair's two topics' responsibilities are strided reads of gamma: a transposed copy of gamma, T x nnz,
        # cost more than all of a round's reads, and as much memory as gamma)
        gains, cache = [], {}  # (each topic's own terms, shared by its pairs: the state is fixed in this loop)
        # the counts topic-major (the (D, T) / (V, T) views of (T, D) / (T, V) copies): a topic's column in one place
        counts = [np.ascontiguousarray(state[key].T).T for key in ("n_dk", "v_dk", "n_wk", "v_wk")]
        for j, k in merge_candidates(state["n_wk"], eta, live, MERGE_PAIRS * live.shape[0], MERGE_SIMILARITY):
            gain = merge_gain(j, k, state["gamma"], self.data, self.rows, self.indices, *counts, alpha, eta,
                              cache=cache)
            if gain > 0:
                gains.append((gain, j, k))
        del counts
        beta = beta.copy()
        done, n_merged = set(), 0
        for gain, j, k in sorted(gains, reverse=True):
            if j in done or k in done:
                continue
            done.update((j, k))
            cosine = _cosine(state["n_wk"][:, j], state["n_wk"][:, k])
            for key in ("gamma", "n_dk", "n_wk"):
                state[key][:, j] += state[key][:, k]
                state[key][:, k] = 0.0
            beta[j] += beta[k]
            beta[k] = 0.0
            n_merged += 1
            logger.info("HDP: merged topic %d into topic %d (bound +%.4g, cosine %.3f)", k, j, gain, cosine)
        if n_merged:
            beta = np.maximum(beta, V_MIN * V_MIN)
            beta /= beta.sum()
        return beta, n_merged

    def variances(self, state):
        """The counts' variances v_dk, v_wk from the responsibilities (in place)."""
        cell_variances(self.indptr, self.indices, self.data, state["gamma"], state["v_dk"], state["v_wk"])

    def log_likelihood(self, state, alpha, eta):
        theta, phi_t = point_estimates(state["n_dk"], state["n_wk"], np.asarray(alpha), eta)
        return float(np.sum(log_likelihood(self.indptr, self.indices, self.data, theta, phi_t)))


def _cosine(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-300))
