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
from .._validation import MAX_INT, csr_arrays, writable
from .._constraints import MAX_TOTAL_TOKENS, Boolean, Interval, StrOptions
from ._base import TopicModelBase
from ._fit_warnings import DEAD_SHARE
from ._checkpoint import interruptible
from ._collapsed import CollapsedInferenceMixin, infer_doc_counts, point_estimates, term_major
from ._start import prior_informed_start, seeded_topics
from ._moves import (MAX_REJECTED, RESEED_LARGEST, RESEEDS_PER_PASS, TRIAL_SWEEPS, Cells, Round, count_proposal,
                     hopeless, judge, late_window, product_columns)

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
    (``total_tokens``; in ``fit``, that of X) and C_B the batch's. The passes need one batch's
    responsibilities plus the K x V counts, whatever the corpus size; ``fit``'s moves add the
    documents' topic counts (n_docs x K) and a few arrays of one float per non-zero. A cell with count c applies its
    c identical token updates of N_theta at once. Documents in a batch are processed in parallel;
    results do not depend on the thread count.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics.
    doc_topic_prior, topic_word_prior : float, default=None
        alpha and eta; None means 1 / n_components. ``topic_word_prior`` may also be a matrix of shape
        (n_components, n_features), as in :class:`CollapsedLDA` (guided topics: eta_kw and sum_w eta_kw
        in the updates, 0 excludes a term from a topic, the start shaped by the prior, topics whose
        prior row is not constant never freed, merged into, split or re-seeded by ``moves``).
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
        Passes over the corpus in ``fit``, the batch steps of ``moves`` included (a rejected move's
        trial steps are not counted).
    tol : float, default=1e-4
        ``fit`` stops when the mean per-token batch log-likelihood of a pass rose by at most
        ``tol`` relative to the previous pass (a decrease is not convergence). (Passes are cheap;
        stopping at 1e-3 after about 10 passes left small, merged topics on LDA-generated corpora,
        and cost held-out perplexity and coherence on KOS, AP and 20 Newsgroups: BENCHMARKS.md.)
    shuffle : bool, default=True
        New random document order on each pass of ``fit``.
    moves : bool, default=True
        In ``fit``, (1) re-seed dead topics (less than 0.2/K of the tokens) after a pass that leaves
        some, as :class:`OnlineLDA` does: the documents' topic counts are inferred with the topics
        fixed (as ``transform`` does), and a dead topic takes a share of the topic, among the ten
        largest, whose tokens two topics explain best (the split proposal of
        :mod:`topicvb.models._moves`); at most three per pass, and a fit that re-seeded does not stop
        on that pass. (2) End with batch steps and the moves of :class:`CollapsedLDA`: once the
        passes settle to 10 x ``tol`` (or, unsettled, 10 passes before ``max_iter``), each further
        pass is a batch step, the SCVB0 update with the whole corpus as the mini-batch and step size
        1 (N_phi becomes the corpus's expected counts sum_cells c gamma, the documents running the
        same CVB0 passes as in a stochastic pass; one batch of responsibilities in memory at a
        time). Its objective, the training log-likelihood at the point estimates on the whole
        corpus, judges the moves: once the steps settle (``tol``), free a topic (a dead one, or the
        smaller of two near-duplicates merged into the other), split the topic whose tokens two
        topics explain best, and keep the result only if after five batch steps the objective is
        above what the unmoved steps reach in as many (:mod:`topicvb.models._moves`). On
        LDA-generated corpora (5,000 documents, K = 50) the stochastic passes leave one to three
        pairs of true topics merged into one fitted topic, which these moves separate (recovery
        0.97 -> 0.997); the batch steps also lower held-out perplexity on KOS and AP
        (``BENCHMARKS.md``). Neither is in ``partial_fit``.
    init : {"seeded", "random"}, default="seeded"
        Initial topic-term counts, scaled to carry ``total_tokens``: "seeded" is the document-cluster
        start of :class:`BatchLDA` and :class:`CollapsedLDA` (k-means++ seeds refined by two Lloyd
        steps, mixed 0.5 / 0.5 with uniform, times noise), computed on the documents of ``fit`` or
        of the first ``partial_fit`` call; "random" draws them from Gamma(1, 1) (Foulds et al.).
        "seeded" left fewer merged topics on LDA-generated corpora and reached a lower held-out
        perplexity on KOS (K = 50, ``moves=False``: 1595; the random start with re-seeding: 1678).
    transform_max_iter, mean_change_tol, random_state, verbose, n_jobs, dtype
        As in :class:`CollapsedLDA`.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Expected topic-term counts N_phi plus eta (0 where a matrix prior excludes a term).
    topic_word_prior_ : float or ndarray of shape (n_components, n_features)
        The prior eta.
    bound_history_ : ndarray
        Per-token log-likelihood of each mini-batch at the point estimates before its update, then
        (``fit`` with ``moves``) that of the whole corpus at each batch step's starting point.
    total_tokens_ : float
        The corpus token count C used for scaling.
    n_iter_, n_batch_iter_, n_docs_seen_, random_state_
        As in :class:`OnlineLDA`.
    doc_topic_prior_, n_features_in_, topic_labels_
        As in :class:`topicvb.BatchLDA`.

    References
    ----------
    Foulds, Boyles, DuBois, Smyth & Welling (2013), Stochastic collapsed variational Bayesian
    inference for latent Dirichlet allocation, KDD.
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None, learning_decay=0.7,
                 learning_offset=10.0, batch_size=256, total_tokens=None, burn_in=2, max_iter=30, tol=1e-4,
                 shuffle=True, moves=True, init="seeded", transform_max_iter=100, mean_change_tol=1e-3, random_state=None, verbose=0,
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
        self.init = init
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
        "init": [StrOptions({"seeded", "random"})],
    }

    def _init_state(self, X, rng, total_tokens):
        alpha, eta = self._resolve_priors()
        K, V = self.n_components, X.shape[1]
        if self.init == "seeded":
            n_phi = seeded_topics(X, K, rng, np.float64).T
        else:  # random initial counts (Foulds et al. initialise N_phi randomly)
            n_phi = rng.gamma(1.0, 1.0, size=(V, K))
        if isinstance(eta, np.ndarray):  # guided topics: the start shaped by the prior, 0 on excluded pairs
            n_phi = prior_informed_start(n_phi.T, eta, X).T
        n_phi *= total_tokens / max(float(n_phi.sum()), 1e-300)  # carrying the corpus's tokens
        return {"components_": np.ascontiguousarray(n_phi.T + eta).astype(self._float), "doc_topic_prior_": alpha,
                "topic_word_prior_": eta, "total_tokens_": float(total_tokens), "n_batch_iter_": 0,
                "n_docs_seen_": 0, "n_iter_": 0, "bound_history_": np.zeros(0), "random_state_": rng}

    def _run_batches(self, X, order, state):
        alpha, eta = state["doc_topic_prior_"], state["topic_word_prior_"]
        dtype = state["components_"].dtype
        n_phi_t = np.ascontiguousarray(np.maximum(state["components_"] - eta, 0.0).T, dtype=dtype)
        eta_t = term_major(eta)  # (a matrix prior term-major, as the kernels take it)
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
            scvb0_documents(indptr, indices, data, n_phi_t, n_z, alpha, eta_t, n_theta, gamma, int(self.burn_in),
                            THETA_OFFSET, THETA_DECAY)
            if batch_tokens > 0:
                theta, phi_t = point_estimates(n_theta, n_phi_t, alpha, eta_t)
                values.append(float(np.sum(log_likelihood(indptr, indices, data, theta, phi_t))) / batch_tokens)
                colptr, positions, _ = column_index(indptr, indices, V)
                hat = np.empty((V, K), dtype=n_phi_t.dtype)
                term_counts(colptr, positions, data, gamma, hat, hat[:0], False)
                rho = (self.learning_offset + t) ** (-self.learning_decay)
                n_phi_t = ((1.0 - rho) * n_phi_t + rho * (total_tokens / batch_tokens) * hat).astype(n_phi_t.dtype)
            state["n_batch_iter_"] = t
            state["n_docs_seen_"] += batch.shape[0]
        state["components_"] = np.ascontiguousarray(n_phi_t.T + eta, dtype=dtype)
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
        scale = state["total_tokens_"] / max(float(X.sum()), 1e-300)  # the model's tokens per token of X
        reseed = _Reseed(self, X, rng, state, scale) if self.moves else None
        it = 0
        with threads(self.n_jobs), interruptible(type(self).__name__) as stop:
            while it < self.max_iter and not stop.requested:
                it += 1
                order = rng.permutation(X.shape[0]) if self.shuffle else np.arange(X.shape[0])
                values = self._run_batches(X, order, state)
                means.append(float(np.mean(values)) if values else 0.0)
                state["n_iter_"] = it
                self._report(it, means[-1], means[-2] if len(means) > 1 else None, started)
                reseeded = reseed is not None and it < self.max_iter and reseed(it)
                if self._settled(means, HANDOVER if self.moves else 1.0) and not reseeded:
                    converged = True
                    break
                if self.moves and late_window(it, self.max_iter):
                    break  # not settled: the rest of max_iter goes to the batch steps and their moves
            if self.moves and not stop.requested and it + 2 <= self.max_iter:
                it, polished = _Polish(self, X, rng, state, scale).run(it, stop, started)
                converged = converged or polished
        state["n_iter_"] = it
        if not stop.requested:
            self._warn_not_converged(it, converged)
        return state

    def _settled(self, means, factor):
        """``_converged`` of the stochastic passes' means with ``tol`` times ``factor``."""
        return self._converged(means, self.tol * factor)

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
                for name in ("doc_topic_prior_", "topic_word_prior_"):  # (a read-only model: see writable)
                    state[name] = writable(state[name])
            with threads(self.n_jobs):
                self._run_batches(X, np.arange(X.shape[0]), state)
            return state

        return self._transaction(body, X, reset=first, caller="partial_fit")


# With ``moves``, the stochastic passes hand over to the batch steps once they settle to HANDOVER x tol.
HANDOVER = 10.0

# Step sizes of each document's own counts over its passes, (THETA_OFFSET + t) ** -THETA_DECAY with t the
# document's tokens seen (Foulds et al.'s document schedule).
THETA_OFFSET = 10.0
THETA_DECAY = 0.9

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
        eta_t = term_major(eta)
        n_wk = np.maximum(state["components_"] - eta, 0.0).T  # (V, K), then in the tokens of X:
        # (in float64 where the scale, total_tokens_ over the tokens of X, is beyond the counts' dtype: for a corpus
        # of negligible weights, whose tokens sum to less than 3e-39, it exceeds float32's largest number, and
        # float32 counts divided by it cast it to inf, a RuntimeWarning, and became 0)
        wide = self.scale > float(np.finfo(n_wk.dtype).max)
        n_wk = (n_wk.astype(np.float64) if wide else n_wk) / self.scale
        totals = n_wk.sum(axis=0)
        K = totals.shape[0]
        if not np.any(totals < DEAD_SHARE / K * totals.sum()):
            return False
        # (a few passes per document: the proposal needs the documents' rough topic shares only)
        n_dk = infer_doc_counts(self.X, n_wk.astype(model._float), alpha, eta_t, INFER_PASSES, model.mean_change_tol)
        theta, phi_t = point_estimates(n_dk.astype(np.float64), np.asarray(n_wk, dtype=np.float64), alpha, eta_t)
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


class _Polish:
    """StochasticCollapsedLDA's batch steps and moves after the stochastic passes (``moves``).

    A batch step is an SCVB0 update with the whole corpus as the mini-batch and step size 1: every
    document runs the same CVB0 passes as in a stochastic pass against the frozen topics, and the
    topic-term counts become the corpus's expected counts, N_phi <- (C / C_X) sum_cells c gamma. Its
    objective is the training log-likelihood at the point estimates before the update (the sum of
    what the stochastic passes average per token), on one fixed set of documents, so the moves of
    :class:`CollapsedLDA` can be judged by it (:mod:`._moves`): free a topic (a dead one, or the
    smaller of two near-duplicates merged into the other), split the topic whose tokens two topics
    explain best, and keep the result only if after TRIAL_SWEEPS batch steps the objective is above
    what the unmoved steps reach. The documents' counts for a proposal are those of the last step,
    so no n_nonzero x n_components array is kept (one mini-batch's responsibilities at a time)."""

    def __init__(self, model, X, rng, state, scale):
        self.model, self.X, self.rng, self.state, self.scale = model, X, rng, state, scale
        self.owner = type(model).__name__
        self.cells = Cells(*csr_arrays(X))

    def step(self, n_phi_t):
        """One batch step from ``n_phi_t`` (V, K, scaled to the corpus): (its objective, the new counts,
        the documents' counts n_theta (D, K))."""
        model, X = self.model, self.X
        alpha, eta = self.state["doc_topic_prior_"], term_major(self.state["topic_word_prior_"])
        K, V = n_phi_t.shape[1], X.shape[1]
        n_z = n_phi_t.sum(axis=0)
        if isinstance(eta, np.ndarray):  # a matrix prior, term-major
            phi_t = (n_phi_t + eta) / (n_z + eta.sum(axis=0))
        else:
            phi_t = (n_phi_t + eta) / (n_z + V * eta)
        hat = np.zeros((V, K))
        part = np.empty((V, K), dtype=n_phi_t.dtype)
        n_theta_all = np.empty((X.shape[0], K))
        value = 0.0
        for start in range(0, X.shape[0], model.batch_size):
            batch = X[start:start + model.batch_size]
            indptr, indices, data = csr_arrays(batch)
            lengths = np.asarray(batch.sum(axis=1), dtype=np.float64).ravel()
            n_theta = np.repeat(lengths[:, None] / K, K, axis=1).astype(n_phi_t.dtype)
            gamma = np.empty((batch.nnz, K), dtype=n_phi_t.dtype)
            scvb0_documents(indptr, indices, data, n_phi_t, n_z, alpha, eta, n_theta, gamma, int(model.burn_in),
                            THETA_OFFSET, THETA_DECAY)
            theta = (n_theta + alpha) / (lengths + alpha.sum())[:, None]
            value += float(np.sum(log_likelihood(indptr, indices, data, theta, phi_t)))
            colptr, positions, _ = column_index(indptr, indices, V)
            term_counts(colptr, positions, data, gamma, part, part[:0], False)
            hat += part
            n_theta_all[start:start + batch.shape[0]] = n_theta
        return value, (hat * self.scale).astype(n_phi_t.dtype), n_theta_all

    def run(self, it, stop, started):
        """Batch steps from the stochastic fit, with moves once they settle, up to max_iter in all; returns
        (iterations, whether the steps settled)."""
        model, state = self.model, self.state
        eta = state["topic_word_prior_"]
        current = np.ascontiguousarray(np.maximum(state["components_"] - eta, 0.0).T, dtype=state["components_"].dtype)
        history, settled, rejected, n_moves = [], False, 0, 0
        value, following, n_theta = self.step(current)  # the objective of the stochastic fit
        history.append(value)
        evaluated = (current, n_theta)  # the state whose objective is history[-1], with its documents' counts
        while it < model.max_iter and not stop.requested:
            converged = len(history) > 1 and model._converged(history)
            settled = settled or converged
            if converged and rejected < MAX_REJECTED and it + TRIAL_SWEEPS <= model.max_iter:
                moved = self.try_move(evaluated, history, rejected)
                if moved is None or moved == "done":
                    rejected = MAX_REJECTED if moved == "done" else rejected + 1
                    continue
                values, evaluated, following = moved
                history += values
                it += TRIAL_SWEEPS
                rejected, n_moves = 0, n_moves + 1
                self._report(it, history, started)
                continue
            if converged:
                break
            it += 1
            current = following
            value, following, n_theta = self.step(current)
            history.append(value)
            evaluated = (current, n_theta)
            rejected = 0
            self._report(it, history, started)
        if n_moves:
            logger.info("%s: %d move(s) accepted", self.owner, n_moves)
        state["components_"] = np.ascontiguousarray(evaluated[0].T + eta, dtype=evaluated[0].dtype)
        tokens = max(float(self.cells.data.sum(dtype=np.float64)), 1e-300)
        state["bound_history_"] = np.concatenate([state["bound_history_"], np.asarray(history) / tokens])
        return it, settled

    def _report(self, it, history, started):
        self.model._report(it, history[-1], history[-2] if len(history) > 1 else None, started)

    def try_move(self, evaluated, history, candidate):
        """(objectives, the evaluated state, the counts after it) after an accepted move; None when the
        proposal was rejected; "done" when no candidate is left or worth a trial."""
        state = self.state
        alpha, eta = state["doc_topic_prior_"], state["topic_word_prior_"]
        n_phi_t, n_theta = evaluated
        n_wk = np.asarray(n_phi_t, dtype=np.float64) / self.scale
        theta, phi_t = point_estimates(n_theta, n_wk, alpha, term_major(eta))
        column = product_columns(self.cells, theta, phi_t)
        if candidate == 0:
            self.round = Round()
        proposal = count_proposal(self.cells, column, n_theta, n_wk, alpha, eta, candidate, DEAD_SHARE, self.rng,
                                  logger, self.owner, round_=self.round)
        if proposal is None:
            return "done"
        _, new_wk, what = proposal
        trial = np.ascontiguousarray(new_wk * self.scale, dtype=n_phi_t.dtype)
        values = []
        for i in range(TRIAL_SWEEPS + 1):
            value, following, n_trial = self.step(trial)
            if i > 0:  # the objective after i steps
                values.append(value)
                if i < TRIAL_SWEEPS and hopeless(history, values, TRIAL_SWEEPS):
                    break
            if i < TRIAL_SWEEPS:
                trial = following
        if not judge(history, values, TRIAL_SWEEPS, logger, self.owner, what):
            return None
        return values, (trial, n_trial), following
