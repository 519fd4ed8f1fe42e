"""Stochastic collapsed variational Bayes for LDA, SCVB0 (Foulds, Boyles, DuBois, Smyth & Welling 2013)."""

from __future__ import annotations

import logging
import time
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from .._config import threads
from .._kernels.cvb0 import scvb0_documents, term_counts
from .._kernels.plsa import log_likelihood
from .._kernels.sparse import column_index
from .._validation import MAX_INT, csr_arrays
from .._constraints import MAX_TOTAL_TOKENS, Boolean, Interval
from ._base import DEAD_SHARE, TopicModelBase
from ._checkpoint import interruptible
from ._collapsed import CollapsedInferenceMixin, infer_doc_counts, point_estimates
from ._moves import RESEED_LARGEST, RESEEDS_PER_PASS, Cells, count_proposal, product_columns

logger = logging.getLogger(__name__)


class StochasticCollapsedLDA(CollapsedInferenceMixin, TopicModelBase):
    """LDA fitted by stochastic CVB0 on mini-batches: the online counterpart of :class:`CollapsedLDA`.

    Global expected counts (topic-term ``N_phi`` and topic totals ``N_z``) are kept; for each
    mini-batch B every document runs CVB0-style updates of its own expected counts ``N_theta``
    against the frozen global counts (``burn_in`` passes, then a final pass), and the global counts
    move towards the corpus-scaled estimate from the batch:

        N_phi <- (1 - rho_t) N_phi + rho_t (C / C_B) sum_{cells in B} c gamma,
        rho_t = (tau0 + t) ** -kappa

    (the step-size schedule of :class:`OnlineLDA`), with C the corpus token count
    (``total_tokens``; in ``fit``, that of X) and C_B the batch's. Memory is independent of the
    corpus size: one batch's responsibilities plus the K x V counts. A cell with count c applies its
    c identical token updates of N_theta at once. Documents in a batch are processed in parallel;
    results do not depend on the thread count.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics.
    doc_topic_prior, topic_word_prior : float, default=None
        alpha and eta; None means 1 / n_components.
    learning_decay : float, default=0.7
        kappa in (0.5, 1].
    learning_offset : float, default=10.0
        tau0 >= 0.
    batch_size : int, default=256
        Documents per mini-batch.
    total_tokens : float, default=None
        Corpus token count C used to scale a batch's statistics, in (0, 1e14]; None means the
        tokens of X in ``fit``, and 100 times the first ``partial_fit`` batch's otherwise.
    burn_in : int, default=2
        Passes over each document before the pass whose responsibilities update the topics.
    max_iter : int, default=30
        Passes over the corpus in ``fit``.
    tol : float, default=1e-4
        ``fit`` stops when the mean per-token batch log-likelihood of a pass rose by at most
        ``tol`` relative to the previous pass (a decrease is not convergence). (Passes are cheap;
        stopping at 1e-3 after about 10 passes left small, merged topics on LDA-generated corpora,
        and cost held-out perplexity and coherence on KOS, AP and 20 Newsgroups: BENCHMARKS.md.)
    shuffle : bool, default=True
        New random document order on each pass of ``fit``.
    moves : bool, default=True
        In ``fit``, re-seed dead topics (less than 0.2/K of the tokens) after a pass that leaves
        some, as :class:`OnlineLDA` does: the documents' topic counts are inferred with the topics
        fixed (as ``transform`` does), and a dead topic takes a share of the topic, among the ten
        largest, whose tokens two topics explain best (the split proposal of
        :mod:`topicvb.models._moves`); at most three per
        pass, and a fit that re-seeded does not stop on that pass. Not in ``partial_fit``.
    transform_max_iter, mean_change_tol, random_state, verbose, n_jobs, dtype
        As in :class:`CollapsedLDA`.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Expected topic-term counts N_phi plus eta.
    bound_history_ : ndarray of shape (n_batch_iter_,)
        Per-token log-likelihood of each mini-batch at the point estimates before its update.
    total_tokens_ : float
        The corpus token count C used for scaling.
    n_iter_, n_batch_iter_, n_docs_seen_, random_state_
        As in :class:`OnlineLDA`.

    References
    ----------
    Foulds, Boyles, DuBois, Smyth & Welling (2013), Stochastic collapsed variational Bayesian
    inference for latent Dirichlet allocation, KDD.
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None, learning_decay=0.7,
                 learning_offset=10.0, batch_size=256, total_tokens=None, burn_in=2, max_iter=30, tol=1e-4,
                 shuffle=True, moves=True, transform_max_iter=100, mean_change_tol=1e-3, random_state=None, verbose=0,
                 n_jobs=None, dtype="float64"):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.learning_decay = learning_decay
        self.learning_offset = learning_offset
        self.batch_size = batch_size
        self.total_tokens = total_tokens
        self.burn_in = burn_in
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.moves = moves
        self.transform_max_iter = transform_max_iter
        self.mean_change_tol = mean_change_tol
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.dtype = dtype

    # with CollapsedInferenceMixin's (transform_max_iter, mean_change_tol) and TopicModelBase's
    _parameter_constraints: dict = {
        "learning_decay": [Interval(Real, 0.5, 1.0, closed="right")],
        "learning_offset": [Interval(Real, 0, None)],
        "batch_size": [Interval(Integral, 1, MAX_INT)],
        "total_tokens": [Interval(Real, 0, MAX_TOTAL_TOKENS, closed="right"), None],
        "burn_in": [Interval(Integral, 0, MAX_INT)],
        "shuffle": [Boolean()],
        "moves": [Boolean()],
    }

    def _init_state(self, X, rng, total_tokens):
        alpha, eta = self._resolve_priors()
        K, V = self.n_components, X.shape[1]
        # random initial counts carrying the corpus's tokens (Foulds et al. initialise N_phi randomly)
        n_phi = rng.gamma(1.0, 1.0, size=(V, K))
        n_phi *= total_tokens / n_phi.sum()
        return {"components_": np.ascontiguousarray(n_phi.T + eta).astype(self._float), "doc_topic_prior_": alpha,
                "topic_word_prior_": eta, "total_tokens_": float(total_tokens), "n_batch_iter_": 0,
                "n_docs_seen_": 0, "n_iter_": 0, "bound_history_": np.zeros(0), "random_state_": rng}

    def _run_batches(self, X, order, state):
        alpha, eta = state["doc_topic_prior_"], state["topic_word_prior_"]
        n_phi_t = np.ascontiguousarray(np.maximum(state["components_"] - eta, 0.0).T)
        total_tokens = state["total_tokens_"]
        K, V = self.n_components, X.shape[1]
        values = []
        for start in range(0, X.shape[0], self.batch_size):
            batch = X[order[start:start + self.batch_size]]
            indptr, indices, data = csr_arrays(batch)
            lengths = np.asarray(batch.sum(axis=1), dtype=np.float64).ravel()
            batch_tokens = lengths.sum()
            t = state["n_batch_iter_"] + 1
            n_z = n_phi_t.sum(axis=0)
            n_theta = (np.repeat(lengths[:, None] / K, K, axis=1)).astype(n_phi_t.dtype)
            gamma = np.empty((batch.nnz, K), dtype=n_phi_t.dtype)
            scvb0_documents(indptr, indices, data, n_phi_t, n_z, alpha, eta, n_theta, gamma, int(self.burn_in),
                            10.0, 0.9)
            if batch_tokens > 0:
                theta, phi_t = point_estimates(n_theta, n_phi_t, alpha, eta)
                values.append(float(np.sum(log_likelihood(indptr, indices, data, theta, phi_t))) / batch_tokens)
                colptr, positions, _ = column_index(indptr, indices, V)
                hat = np.empty((V, K), dtype=n_phi_t.dtype)
                term_counts(colptr, positions, data, gamma, hat, hat[:0], False)
                rho = (self.learning_offset + t) ** (-self.learning_decay)
                n_phi_t = ((1.0 - rho) * n_phi_t + rho * (total_tokens / batch_tokens) * hat).astype(n_phi_t.dtype)
            state["n_batch_iter_"] = t
            state["n_docs_seen_"] += batch.shape[0]
        state["components_"] = np.ascontiguousarray(n_phi_t.T + eta)
        state["bound_history_"] = np.concatenate([state["bound_history_"], values])
        return values

    def _fit(self, X, resume=False):
        if resume:
            raise ValueError("StochasticCollapsedLDA writes no checkpoints to resume from; train it with partial_fit "
                             "and topicvb.save between calls instead.")
        rng = check_random_state(self.random_state)
        total = float(X.sum()) if self.total_tokens is None else float(self.total_tokens)
        state = self._init_state(X, rng, max(total, 1.0))
        started = time.perf_counter()
        means, converged = [], False
        reseed = _Reseed(self, X, rng, state, total / max(float(X.sum()), 1e-300)) if self.moves else None
        with threads(self.n_jobs), interruptible(type(self).__name__) as stop:
            for it in range(1, self.max_iter + 1):
                if stop.requested:
                    it -= 1
                    break
                order = rng.permutation(X.shape[0]) if self.shuffle else np.arange(X.shape[0])
                values = self._run_batches(X, order, state)
                means.append(float(np.mean(values)) if values else 0.0)
                state["n_iter_"] = it
                self._report(it, means[-1], means[-2] if len(means) > 1 else None, started)
                reseeded = reseed is not None and it < self.max_iter and reseed(it)
                if self._converged(means) and not reseeded:
                    converged = True
                    break
        state["n_iter_"] = it
        if not stop.requested:
            self._warn_not_converged(it, converged)
        return state

    def partial_fit(self, X, y=None):
        """Update the model with the mini-batches of ``X`` (one pass, in the given order).

        A call that fails leaves the model as it was. See :meth:`OnlineLDA.partial_fit`.
        """
        first = not hasattr(self, "components_")

        def body(X):
            if first:
                total = float(self.total_tokens) if self.total_tokens is not None else 100.0 * max(float(X.sum()), 1.0)
                state = self._init_state(X, check_random_state(self.random_state), total)
            else:
                state = {name: getattr(self, name) for name in ("components_", "total_tokens_", "doc_topic_prior_",
                         "topic_word_prior_", "n_batch_iter_", "n_docs_seen_", "n_iter_", "bound_history_",
                         "random_state_")}
            with threads(self.n_jobs):
                self._run_batches(X, np.arange(X.shape[0]), state)
            return state

        return self._transaction(body, X, reset=first, caller="partial_fit")


# CVB0 passes over each document when its topic counts are inferred for a re-seed.
INFER_PASSES = 10


class _Reseed:
    """StochasticCollapsedLDA's re-seeding of dead topics between passes (the ``moves`` parameter):
    :func:`._moves.count_proposal` from the topic-term counts (scaled by ``scale`` = total_tokens /
    the tokens of X) and the documents' counts inferred with the topics fixed."""

    def __init__(self, model, X, rng, state, scale):
        self.model, self.X, self.rng, self.state, self.scale = model, X, rng, state, scale
        self.cells = Cells(*csr_arrays(X))

    def __call__(self, it):
        """Re-seed after pass ``it`` up to RESEEDS_PER_PASS dead topics; returns whether the model changed."""
        changed = False
        for _ in range(RESEEDS_PER_PASS):
            if not self._reseed_one(it):
                break
            changed = True
        return changed

    def _reseed_one(self, it):
        model, state = self.model, self.state
        alpha, eta = state["doc_topic_prior_"], state["topic_word_prior_"]
        n_wk = np.maximum(state["components_"] - eta, 0.0).T / self.scale  # (V, K), the tokens of X
        totals = n_wk.sum(axis=0)
        K = totals.shape[0]
        if not np.any(totals < DEAD_SHARE / K * totals.sum()):
            return False
        # (a few passes per document: the proposal needs the documents' rough topic shares only)
        n_dk = infer_doc_counts(self.X, n_wk.astype(model._float), alpha, eta, INFER_PASSES, model.mean_change_tol)
        theta, phi_t = point_estimates(n_dk.astype(np.float64), np.asarray(n_wk, dtype=np.float64), alpha, eta)
        column = product_columns(self.cells, theta, phi_t)
        proposal = count_proposal(self.cells, column, n_dk.astype(np.float64), np.asarray(n_wk, dtype=np.float64),
                                  alpha, eta, 0, DEAD_SHARE, self.rng, logger, type(model).__name__,
                                  largest=RESEED_LARGEST, dead_only=True)
        if proposal is None:
            return False
        _, new_wk, what = proposal
        state["components_"] = np.ascontiguousarray(new_wk.T * self.scale + eta, dtype=state["components_"].dtype)
        logger.info("%s: re-seeded after pass %d (%s)", type(model).__name__, it, what)
        return True
