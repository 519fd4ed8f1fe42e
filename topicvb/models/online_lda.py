"""Online (stochastic variational inference) LDA (Hoffman, Blei & Bach 2010; Hoffman et al. 2013).

A thin driver over the variational core (:mod:`._vb`): mini-batches of the corpus in this process
(:class:`._vb_fit.MiniBatchMap`) and a natural-gradient step per mini-batch
(:func:`._vb.svi_step`); the pass loop is :func:`._vb_fit.online_loop`, which the Dask runner
(:mod:`topicvb.distributed`) shares.
"""

from __future__ import annotations

import logging
import time
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from .._validation import MAX_INT, csr_arrays, writable
from .._constraints import MAX_TOTAL_SAMPLES, Boolean, Interval

from .._config import threads
from ._base import CHECKPOINT_CONSTRAINTS, TopicModelBase
from ._fit_warnings import DEAD_SHARE
from ._checkpoint import interruptible, restore_rng
from ._moves import RESEEDS_PER_PASS, Cells, vb_proposal
from ._start import initial_topics, prior_excess, prior_informed_start
from ._priors import learn_flags
from ._vb import is_matrix
from ._vb_fit import MiniBatchMap, VBLDAMixin, online_loop, online_pass

logger = logging.getLogger(__name__)


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
        Dirichlet priors alpha and eta; None means 1 / n_components. ``doc_topic_prior`` may be a
        vector of length n_components, ``topic_word_prior`` a matrix of shape (n_components,
        n_features) (guided topics, as in :class:`BatchLDA`: the step blends lam with eta + (D / |B|)
        sstats_B using the matrix, a 0 entry excludes its term from the topic; no re-seeding then).
    learning_decay : float, default=0.7
        kappa in (0.5, 1]; larger forgets old mini-batches more slowly.
    learning_offset : float, default=10.0
        tau0 >= 0; down-weights the first mini-batches.
    batch_size : int, default=128
        Documents per mini-batch.
    total_samples : int, default=None
        Corpus size D used to scale a mini-batch's statistics, in [1, 1e12]. None means the number
        of documents passed to ``fit``, and 1e6 for ``partial_fit`` (as scikit-learn).
    max_iter : int, default=10
        Passes over the corpus in ``fit``.
    tol : float, default=1e-3
        ``fit`` stops when the mean per-batch ELBO estimate of a pass rose by at most ``tol``
        relative to the previous pass (a decrease is not convergence).
    shuffle : bool, default=True
        Visit documents in a new random order on every pass of ``fit``.
    moves : bool, default=True
        In ``fit`` (with ``restart_every`` > 1, which keeps every document's gamma), re-seed a dead
        topic (less than 0.2/K of the tokens) after a pass that leaves one, with a share of the topic
        whose tokens two topics explain best: the split proposal of :class:`BatchLDA`'s moves
        (:mod:`topicvb.models._moves`), applied to lam and the documents' gamma; the next passes
        train both halves. A stochastic fit has no exact objective to judge a move by, so this is a
        re-seed, not an accepted move; at most three per pass, and a fit that re-seeded does not stop
        on that pass. Not in ``partial_fit`` nor :func:`topicvb.distributed.fit_distributed`.
    learn_priors : {False, True, "doc_topic", "topic_word"}, default=False
        Learn alpha and/or eta online. After each mini-batch, alpha is the value that maximises the
        ELBO for the documents' statistic mean E[log theta_d] averaged over the batches seen with step
        rho_t (so one-document batches learn the corpus's alpha, not each document's); eta moves with
        step rho_t towards the value that maximises the ELBO for the current lam (for a matrix eta, its
        scale: eta <- (1 - rho_t + rho_t s) eta, s the best scale, as :class:`BatchLDA` learns it).
    init : {"seeded", "random"}, default="seeded"
        Initial topics, as in :class:`BatchLDA`: "seeded" clusters the documents of ``fit`` (or of
        the first ``partial_fit`` call) and scales the cluster topics to ``total_samples``; "random"
        is the Gamma(100, 0.01) start of Hoffman's and scikit-learn's code. "seeded" reaches a lower
        held-out perplexity by document completion (``BENCHMARKS.md``).
    restart_every : int, default=4
        In ``fit``, from the second pass on, each document's E-step restarts from a random point
        once every ``restart_every`` passes (document d in pass p when d % restart_every ==
        (p - 1) % restart_every) and otherwise starts from its gamma of the previous pass, the
        rotation of :class:`BatchLDA`'s E-steps (without BatchLDA's fallback on the previous gamma,
        which only a monotone batch bound needs). 1 restarts every document in every pass, as
        Hoffman's and scikit-learn's code do. Continuing documents need fewer gamma updates
        (``BENCHMARKS.md``); never restarting lets early commitments stick. With ``restart_every`` > 1 ``fit`` keeps n_docs x n_components floats of
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
        The random stream, continued by successive calls (and kept by :func:`topicvb.save`, so a
        loaded model continues ``partial_fit`` as the saved one would have).
    doc_topic_prior_, topic_word_prior_, n_features_in_, topic_labels_
        As in :class:`topicvb.BatchLDA`.

    References
    ----------
    Hoffman, Blei & Bach (2010), Online learning for latent Dirichlet allocation, NIPS.
    Hoffman, Blei, Wang & Paisley (2013), Stochastic variational inference, JMLR 14.
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None, learning_decay=0.7,
                 learning_offset=10.0, batch_size=128, total_samples=None, max_iter=10, tol=1e-3, shuffle=True,
                 moves=True, init="seeded", learn_priors=False, restart_every=4, max_doc_update_iter=100,
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
        self.moves = moves
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

    # with VBLDAMixin's (the local step's) and TopicModelBase's (the shared ones)
    _parameter_constraints: dict = {
        "learning_decay": [Interval(Real, 0.5, 1.0, closed="right")],
        "learning_offset": [Interval(Real, 0, None)],
        "batch_size": [Interval(Integral, 1, MAX_INT)],
        "total_samples": [Interval(Real, 1, MAX_TOTAL_SAMPLES), None],
        "shuffle": [Boolean()],
        "moves": [Boolean()],
        **CHECKPOINT_CONSTRAINTS,
    }

    def _rho(self, t):
        """Step size rho_t = (tau0 + t) ** -kappa of mini-batch ``t`` (counted from 1)."""
        return (self.learning_offset + t) ** (-self.learning_decay)

    def _init_state(self, X, rng, total):
        """The fitted attributes before the first mini-batch; seeded topics are scaled to ``total``."""
        alpha, eta = self._resolve_priors()
        lam = initial_topics(self.init, X, self.n_components, rng, self._float, scale=total / X.shape[0])
        if is_matrix(eta):  # guided topics start on the terms their prior favours (excluded terms at 0), plus the
            # seed words' extra pseudo-counts: every step blends lam with eta + scaled counts, so components_ less
            # the prior stays the expected counts as with a float prior (seed_holding reads them; a seed weight
            # of ~1,000 above a start of ~1 had left them short by prod(1 - rho_t) * eta)
            lam = np.ascontiguousarray(prior_informed_start(lam, eta, X) + prior_excess(eta), dtype=self._float)
        return {"components_": lam, "doc_topic_prior_": alpha, "topic_word_prior_": eta, "n_batch_iter_": 0,
                "n_docs_seen_": 0, "n_iter_": 0, "bound_history_": np.zeros(0), "random_state_": rng}

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
            eta = saved["eta"]
            state.update(components_=saved["lam"].astype(self._float), doc_topic_prior_=saved["alpha"],
                         topic_word_prior_=(np.array(eta, dtype=np.float64) if is_matrix(state["topic_word_prior_"])
                                            else float(eta)), n_batch_iter_=int(saved["n_batch_iter"]),
                         n_docs_seen_=int(saved["n_docs_seen"]), bound_history_=saved["history"])
            means = list(saved["means"])
            if doc_gamma is not None and len(means) > 0:
                if "doc_gamma" in saved:
                    doc_gamma = saved["doc_gamma"].astype(self._float)
                else:  # nothing to continue from: the next pass restarts every document
                    doc_gamma = None
            restore_rng(rng, saved)
        mapper = MiniBatchMap(X, rng, self.n_components, self._float, self.batch_size, total, self._doc_updates(),
                              order=None if self.shuffle else np.arange(X.shape[0]), doc_gamma=doc_gamma,
                              restart_every=self.restart_every)

        reseed = None
        # (re-seeding with a matrix prior: not yet; _moves.vb_proposal reads eta as a float)
        if self.moves and doc_gamma is not None and not is_matrix(state["topic_word_prior_"]):
            reseed = _Reseed(self, X, rng, mapper, state, total / X.shape[0])
            if saved is not None and "reseeded" in saved:
                reseed.last = bool(saved["reseeded"])

        def checkpoint(it, means, n_batches):
            arrays = {"lam": state["components_"], "alpha": state["doc_topic_prior_"],
                      "eta": np.array(state["topic_word_prior_"]), "n_batch_iter": np.array(state["n_batch_iter_"]),
                      "n_docs_seen": np.array(state["n_docs_seen_"]), "history": state["bound_history_"],
                      "means": np.asarray(means)}
            if mapper.doc_gamma is not None:
                arrays["doc_gamma"] = mapper.doc_gamma
            if reseed is not None:
                arrays["reseeded"] = np.array(int(reseed.last))
            save(it, arrays, rng)

        with threads(self.n_jobs), interruptible(type(self).__name__) as stop:
            it, converged = online_loop(self, mapper, state, means, time.perf_counter(), stop=stop, on_pass=checkpoint,
                                        between_passes=reseed)
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
                for name in ("doc_topic_prior_", "topic_word_prior_"):  # (a read-only model: see writable)
                    state[name] = writable(state[name])
            mapper = MiniBatchMap(X, state["random_state_"], self.n_components, self._float, self.batch_size, total,
                                  self._doc_updates(), order=np.arange(X.shape[0]))
            learn_alpha, learn_eta = learn_flags(self.learn_priors, type(self).__name__)
            with threads(self.n_jobs):
                online_pass(self, mapper, state, 1, time.perf_counter(), learn_alpha, learn_eta)
            return state

        return self._transaction(body, X, reset=first, caller="partial_fit")


class _Reseed:
    """OnlineLDA's re-seeding of dead topics between passes (see the ``moves`` parameter): the split
    proposal of :func:`._moves.vb_proposal` for the first dead topic, from lam (the corpus's expected
    counts, scaled by ``scale`` = total_samples / n_docs) and the documents' gamma of the last pass."""

    def __init__(self, model, X, rng, mapper, state, scale):
        self.model, self.rng, self.mapper, self.state, self.scale = model, rng, mapper, state, scale
        self.cells = Cells(*csr_arrays(X))
        self.last = False  # whether the last pass ended with a re-seed (kept in checkpoints)

    def __call__(self, it):
        """Re-seed after pass ``it`` up to RESEEDS_PER_PASS dead topics; returns whether the model changed."""
        self.last = False
        if it >= self.model.max_iter:
            return False
        for _ in range(RESEEDS_PER_PASS):
            if not self._reseed_one(it):
                break
            self.last = True
        return self.last

    def _reseed_one(self, it):
        lam, gamma = self.state["components_"], self.mapper.doc_gamma
        alpha, eta = self.state["doc_topic_prior_"], self.state["topic_word_prior_"]
        counts = np.maximum(lam - eta, 0.0).sum(axis=1)
        if not np.any(counts < DEAD_SHARE / lam.shape[0] * counts.sum()):
            return False
        unscaled = (lam - eta) / self.scale + eta  # the counts of the documents at hand
        proposal = vb_proposal(self.cells, unscaled, gamma, alpha, eta, 0, DEAD_SHARE, self.rng, logger,
                               type(self.model).__name__, dead_only=True)
        if proposal is None:
            return False
        new_lam, new_gamma, what = proposal
        lam[...] = (new_lam - eta) * self.scale + eta
        gamma[...] = new_gamma
        logger.info("%s: re-seeded after pass %d (%s)", type(self.model).__name__, it, what)
        return True
