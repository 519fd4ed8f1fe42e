"""Online (stochastic variational inference) LDA (Hoffman, Blei & Bach 2010; Hoffman et al. 2013)."""

from __future__ import annotations

import numbers
import time

import numpy as np
from scipy.special import digamma
from sklearn.utils import check_random_state, check_scalar

from .._config import threads
from .._kernels.bounds import lda_doc_bound, svi_topic_update, topic_terms
from .._kernels.estep import e_step
from .._validation import csr_arrays
from ._base import TopicModelBase
from ._checkpoint import interruptible, restore_rng
from ._priors import dirichlet_from_mean_log, learn_flags, symmetric_dirichlet_from_mean_log
from .._validation import check_choice
from .batch_lda import VBLDAMixin, _seeded_topics, _topic_bound, random_start


def _mean_elog_theta(gamma):
    """Mean over the documents of E[log theta_d] under Dirichlet(gamma_d), shape (K,)."""
    g = np.asarray(gamma, dtype=np.float64)
    return (digamma(g) - digamma(g.sum(axis=1, keepdims=True))).mean(axis=0)


class OnlineLDA(VBLDAMixin, TopicModelBase):
    """Latent Dirichlet allocation fitted by stochastic variational inference on mini-batches.

    For each mini-batch B the VB E-step (the same kernel as :class:`BatchLDA`) is run with the
    current topics, and the topic parameters move towards the estimate the whole corpus would give
    if it looked like B:

        lam <- (1 - rho_t) lam + rho_t (eta + (D / |B|) sstats_B),   rho_t = (tau0 + t) ** -kappa

    with t counting mini-batches from 1, tau0 = ``learning_offset``, kappa = ``learning_decay``
    and D = ``total_samples``. ``partial_fit`` continues from the current state, so the model can
    learn from a stream of unknown length.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics.
    doc_topic_prior, topic_word_prior : float, default=None
        Dirichlet priors alpha and eta; None means 1 / n_components.
    learning_decay : float, default=0.7
        kappa in (0.5, 1]; larger forgets old mini-batches more slowly.
    learning_offset : float, default=10.0
        tau0 >= 0; down-weights the first mini-batches.
    batch_size : int, default=128
        Documents per mini-batch.
    total_samples : int, default=None
        Corpus size D used to scale a mini-batch's statistics. None means the number of
        documents passed to ``fit``, and 1e6 for ``partial_fit`` (as scikit-learn).
    max_iter : int, default=10
        Passes over the corpus in ``fit``.
    tol : float, default=1e-3
        ``fit`` stops when the relative change between passes of the mean per-batch ELBO
        estimate is at most ``tol``.
    shuffle : bool, default=True
        Visit documents in a new random order on every pass of ``fit``.
    learn_priors : {False, True, "doc_topic", "topic_word"}, default=False
        Learn alpha and/or eta online: after each mini-batch they move with step rho_t towards the
        values that maximise the ELBO for the batch's gamma and the current lam.
    init : {"seeded", "random"}, default="seeded"
        Initial topics, as in :class:`BatchLDA`: "seeded" clusters the documents of ``fit`` (or of
        the first ``partial_fit`` call) and scales the cluster topics to ``total_samples``; "random"
        is the Gamma(100, 0.01) start of Hoffman's and scikit-learn's code. On 20 Newsgroups (3
        passes, batches of 256) "seeded" gave 8% (K=20) and 6% (K=100) lower held-out perplexity by
        document completion, though the ELBO-based estimator rates it 6% worse at K=100.
    restart_every : int, default=4
        In ``fit``, from the second pass on, each document's E-step restarts from a random point
        once every ``restart_every`` passes (document d in pass p when d % restart_every ==
        (p - 1) % restart_every) and otherwise starts from its gamma of the previous pass, the
        rotation of :class:`BatchLDA`'s E-steps (without BatchLDA's fallback on the previous gamma,
        which only a monotone batch bound needs). 1 restarts every document in every pass, as
        Hoffman's and scikit-learn's code do. On 20 Newsgroups (batches of 256, 3 passes, two
        seeds) the default cut the E-step's gamma updates per document by 20% (K=20) and 23-24%
        (K=100) for equal (K=20) or 1% lower (K=100) held-out perplexity by document completion.
        Never restarting did as well there, but over 10 passes of a synthetic corpus it gave 2-3%
        worse held-out perplexity (``perplexity``, the ELBO estimator) than restarting every pass
        (early commitments stick), where the default stayed within +0.6% (and once 6% better).
        With ``restart_every`` > 1 ``fit`` keeps n_docs x n_components floats of
        gamma (also in its checkpoints). ``partial_fit`` always restarts (a stream's documents are
        not seen twice), and so does :func:`topicvb.distributed.fit_distributed`.
    max_doc_update_iter, mean_change_tol, e_step_acceleration, random_state, verbose, n_jobs, dtype
        As in :class:`BatchLDA`.
    checkpoint_path, checkpoint_every
        As in :class:`BatchLDA`, counted in passes: ``fit`` writes a checkpoint after every
        ``checkpoint_every`` passes and ``fit(X, resume=True)`` continues from it. ``partial_fit``
        writes none: the caller controls the stream and can :func:`topicvb.save` between calls.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Variational parameters lam of the topic-term Dirichlets.
    bound_history_ : ndarray of shape (n_batch_iter_,)
        Per-batch estimate of the corpus ELBO, (D / |B|) * (document terms of B) + topic terms,
        computed with the topics the batch was inferred with (before its update).
    n_iter_ : int
        Passes over the data made by ``fit`` (0 after ``partial_fit`` only).
    n_batch_iter_ : int
        Mini-batch updates made so far (t).
    n_docs_seen_ : int
        Documents processed so far.
    random_state_ : numpy.random.RandomState
        The random stream, continued by successive calls.

    References
    ----------
    Hoffman, Blei & Bach (2010), Online learning for latent Dirichlet allocation, NIPS.
    Hoffman, Blei, Wang & Paisley (2013), Stochastic variational inference, JMLR 14.
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None, learning_decay=0.7,
                 learning_offset=10.0, batch_size=128, total_samples=None, max_iter=10, tol=1e-3, shuffle=True,
                 init="seeded", learn_priors=False, restart_every=4, max_doc_update_iter=100,
                 mean_change_tol=1e-3, e_step_acceleration="squarem", random_state=None, verbose=0, n_jobs=None,
                 dtype="float64", checkpoint_path=None, checkpoint_every=1):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.learning_decay = learning_decay
        self.learning_offset = learning_offset
        self.batch_size = batch_size
        self.total_samples = total_samples
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.init = init
        self.learn_priors = learn_priors
        self.restart_every = restart_every
        self.max_doc_update_iter = max_doc_update_iter
        self.mean_change_tol = mean_change_tol
        self.e_step_acceleration = e_step_acceleration
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.dtype = dtype
        self.checkpoint_path = checkpoint_path
        self.checkpoint_every = checkpoint_every

    def _check_params(self):
        self._check_common_params()
        self._check_checkpoint_params()
        self._check_vb_params()
        check_scalar(self.learning_decay, "learning_decay (kappa)", numbers.Real, min_val=0.5, max_val=1.0,
                     include_boundaries="right")
        check_scalar(self.learning_offset, "learning_offset (tau0)", numbers.Real, min_val=0.0)
        check_scalar(self.batch_size, "batch_size", numbers.Integral, min_val=1)
        check_choice(self.init, "init", {"seeded", "random"})
        check_scalar(self.restart_every, "restart_every", numbers.Integral, min_val=1)
        if self.total_samples is not None:
            check_scalar(self.total_samples, "total_samples", numbers.Real, min_val=1, include_boundaries="left")

    # ------------------------------------------------------------------ the SVI step
    def _init_state(self, X, rng, total):
        alpha, eta = self._resolve_priors()
        if self.init == "seeded":  # seeds from the documents at hand, scaled up to the corpus size
            lam = (_seeded_topics(X, self.n_components, rng, np.float64) * (total / X.shape[0])).astype(self._float)
        else:
            lam = rng.gamma(100.0, 0.01, size=(self.n_components, X.shape[1])).astype(self._float)
        return {"components_": lam, "doc_topic_prior_": alpha, "topic_word_prior_": eta, "n_batch_iter_": 0,
                "n_docs_seen_": 0, "n_iter_": 0, "bound_history_": np.zeros(0), "random_state_": rng}

    def _svi_step(self, lam, alpha, eta, sstats_t, t, scale, mean_elog_theta, ebeta_t, log_scale):
        """One stochastic variational step from the statistics of mini-batch ``t`` (counted from 1).

        lam <- (1 - rho_t) lam + rho_t (eta + scale * sstats), rho_t = (tau0 + t) ** -kappa, with
        ``scale`` = D / |B|, made in place by one fused kernel that also writes the new lam's rescaled
        exp(E[log beta]) into ``ebeta_t`` and ``log_scale`` and returns the pieces of its ELBO topic
        term; with ``learn_priors``, alpha and eta then move with the same step towards the values
        that maximise the ELBO for the batch (``mean_elog_theta``: the mean over the batch's
        documents of E[log theta_d], None when alpha is not learned) and the new lam. ``fit``,
        ``partial_fit`` and the distributed runner (:mod:`topicvb.distributed`) all call this, so
        they make the same step.

        Parameters
        ----------
        lam : ndarray of shape (n_components, n_terms)
            The current topics, overwritten with the new ones.
        alpha : ndarray of shape (n_components,)
            The current document-topic prior.
        eta : float
            The current topic-word prior.
        sstats_t : ndarray of shape (n_terms, n_components)
            The batch's expected topic-term counts, term-major as :func:`e_step` returns them.
        t : int
            The mini-batch's number, from 1.
        scale : float
            D / |B|, the corpus size over the batch size.
        mean_elog_theta : ndarray of shape (n_components,) or None
            Needed when alpha is learned.
        ebeta_t : ndarray of shape (n_terms, n_components)
            Overwritten with the new topics' rescaled exp(E[log beta]).
        log_scale : ndarray of shape (n_terms,)
            Overwritten with the per-term log scale.

        Returns
        -------
        alpha, eta, elog_sum, rest
            The new priors, and :func:`topic_terms` of the new lam (see ``_topic_bound``).
        """
        n_topics, n_terms = lam.shape
        rho = self._rho(t)
        elog_sum, rest = svi_topic_update(lam, sstats_t, rho, float(eta), scale, ebeta_t, log_scale)
        alpha, eta = self._prior_step(alpha, eta, rho, n_terms, mean_elog_theta,
                                      lambda: float(np.sum(elog_sum)) / (n_topics * n_terms))
        return alpha, eta, elog_sum, rest

    def _rho(self, t):
        """Step size rho_t = (tau0 + t) ** -kappa of mini-batch ``t`` (counted from 1)."""
        return (self.learning_offset + t) ** (-self.learning_decay)

    def _prior_step(self, alpha, eta, rho, n_terms, mean_elog_theta, mean_elog_beta):
        """With ``learn_priors``, move alpha and eta with step ``rho`` towards the batch's optimal priors.

        ``mean_elog_beta`` is a callable giving the mean of E[log beta] over the new lam, called
        only when eta is learned.
        """
        learn_alpha, learn_eta = learn_flags(self.learn_priors, type(self).__name__)
        if learn_alpha or learn_eta:  # step towards this batch's optimal priors (Hoffman et al.)
            new_alpha, new_eta = alpha, eta
            if learn_alpha and mean_elog_theta is not None:
                new_alpha = dirichlet_from_mean_log(alpha, mean_elog_theta)
            if learn_eta:
                new_eta = symmetric_dirichlet_from_mean_log(eta, mean_elog_beta(), n_terms)
            alpha = (1.0 - rho) * alpha + rho * new_alpha
            eta = (1.0 - rho) * eta + rho * new_eta
        return alpha, eta

    def _run_batches(self, X, order, state, total, started, doc_gamma=None, pass_no=1):
        """Update ``state`` (a dict of fitted attributes) with the mini-batches of X in ``order``.

        ``doc_gamma`` (``fit`` with ``restart_every`` > 1): an array of shape (n_docs, K) that
        receives every document's gamma and, from pass ``pass_no`` = 2 on, holds their gamma of the
        previous pass, the start of the documents that do not restart (the random starts are drawn
        for every document all the same, so the random stream does not depend on the option).
        ``state["components_"]`` is updated in place. :meth:`_svi_step` makes the SVI step of lam and
        computes, from the new lam, the next batch's exp(E[log beta]) and the topic part of its ELBO
        estimate (the bound ``_elbo`` gives).
        """
        lam = state["components_"]
        alpha, eta = state["doc_topic_prior_"], state["topic_word_prior_"]
        learn_alpha, _ = learn_flags(self.learn_priors, type(self).__name__)
        n_topics, n_terms = lam.shape
        ebeta_t = np.empty((n_terms, n_topics), dtype=lam.dtype)
        log_scale = np.empty(n_terms, dtype=np.float64)
        elog_sum, rest = topic_terms(lam, ebeta_t, log_scale)
        bounds = []
        for start in range(0, X.shape[0], self.batch_size):
            batch = X[order[start:start + self.batch_size]]
            t = state["n_batch_iter_"] + 1
            indptr, indices, data = csr_arrays(batch)
            # a random start per document, drawn from the model's one random stream
            gamma0 = random_start(state["random_state_"], (batch.shape[0], n_topics), lam.dtype)
            ids = order[start:start + self.batch_size]
            if doc_gamma is not None and pass_no > 1:  # continue the documents that do not restart
                every = int(self.restart_every)
                keep = ids % every != (pass_no - 1) % every
                gamma0[keep] = doc_gamma[ids[keep]]
            gamma, sstats_t, _ = e_step(indptr, indices, data, ebeta_t, alpha, gamma0, gamma0[:0],
                                        int(self.max_doc_update_iter), float(self.mean_change_tol), True,
                                        self._accelerate)
            if doc_gamma is not None:
                doc_gamma[ids] = gamma
            scale = total / batch.shape[0]
            doc = lda_doc_bound(indptr, indices, data, gamma, alpha, ebeta_t, log_scale)
            bounds.append(float(scale * np.sum(doc) + _topic_bound(elog_sum, rest, eta, n_terms)))
            alpha, eta, elog_sum, rest = self._svi_step(lam, alpha, eta, sstats_t, t, scale,
                                                        _mean_elog_theta(gamma) if learn_alpha else None,
                                                        ebeta_t, log_scale)
            state["n_batch_iter_"] = t
            state["n_docs_seen_"] += batch.shape[0]
            if self.verbose > 1:
                self._report(t, bounds[-1], bounds[-2] if len(bounds) > 1 else None, started)
        state["doc_topic_prior_"], state["topic_word_prior_"] = alpha, eta
        state["bound_history_"] = np.concatenate([state["bound_history_"], bounds])
        return bounds

    def _fit(self, X, resume=False):
        rng = check_random_state(self.random_state)
        total = X.shape[0] if self.total_samples is None else float(self.total_samples)
        if total < X.shape[0]:
            raise ValueError(f"total_samples={self.total_samples} is smaller than the {X.shape[0]} documents passed "
                             "to fit; use None or the corpus size.")
        state = self._init_state(X, rng, total)
        save, saved = self._checkpointer(X, resume)
        means = []
        doc_gamma = np.empty((X.shape[0], self.n_components), dtype=self._float) if self.restart_every > 1 else None
        if saved is not None:
            state.update(components_=saved["lam"].astype(self._float), doc_topic_prior_=saved["alpha"],
                         topic_word_prior_=float(saved["eta"]), n_batch_iter_=int(saved["n_batch_iter"]),
                         n_docs_seen_=int(saved["n_docs_seen"]), bound_history_=saved["history"])
            means = list(saved["means"])
            if doc_gamma is not None and len(means) > 0:
                if "doc_gamma" in saved:
                    doc_gamma = saved["doc_gamma"].astype(self._float)
                else:  # nothing to continue from: the next pass restarts every document
                    doc_gamma = None
            restore_rng(rng, saved)
        started = time.perf_counter()
        it = len(means)
        converged = self._converged(means)
        with threads(self.n_jobs), interruptible(type(self).__name__) as stop:
            while it < self.max_iter and not converged and not stop.requested:
                it += 1
                order = rng.permutation(X.shape[0]) if self.shuffle else np.arange(X.shape[0])
                bounds = self._run_batches(X, order, state, total, started, doc_gamma, pass_no=it)
                means.append(float(np.mean(bounds)))
                state["n_iter_"] = it
                arrays = {"lam": state["components_"], "alpha": state["doc_topic_prior_"],
                          "eta": np.array(state["topic_word_prior_"]), "n_batch_iter": np.array(state["n_batch_iter_"]),
                          "n_docs_seen": np.array(state["n_docs_seen_"]), "history": state["bound_history_"],
                          "means": np.asarray(means)}
                if doc_gamma is not None:
                    arrays["doc_gamma"] = doc_gamma
                save(it, arrays, rng)
                self._report(it, means[-1], means[-2] if len(means) > 1 else None, started)
                converged = self._converged(means)
        state["n_iter_"] = it
        if not stop.requested:
            self._warn_not_converged(it, converged)
        return state

    def partial_fit(self, X, y=None):
        """Update the model with the mini-batches of ``X`` (one pass, in the given order).

        The first call initialises the model; later calls must use the same vocabulary width.
        A call that fails (bad input, Ctrl-C) leaves the model as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_docs, n_terms)
            Non-negative term counts.
        y : Ignored

        Returns
        -------
        self : object
        """
        first = not hasattr(self, "components_")

        def body(X):
            total = 1e6 if self.total_samples is None else float(self.total_samples)
            if X.shape[0] > total:
                raise ValueError(f"total_samples={total:g} is smaller than the {X.shape[0]} documents in this "
                                 "partial_fit call; set total_samples to the corpus size.")
            if first:
                state = self._init_state(X, check_random_state(self.random_state), total)
            else:
                state = {name: getattr(self, name) for name in ("components_", "doc_topic_prior_",
                         "topic_word_prior_", "n_batch_iter_", "n_docs_seen_", "n_iter_", "bound_history_",
                         "random_state_")}
                state["components_"] = state["components_"].copy()
            with threads(self.n_jobs):
                self._run_batches(X, np.arange(X.shape[0]), state, total, time.perf_counter())
            return state

        return self._transaction(body, X, reset=first, caller="partial_fit")
