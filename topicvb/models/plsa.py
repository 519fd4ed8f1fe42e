"""Probabilistic latent semantic analysis fitted by EM (Hofmann 1999), optionally MAP or tempered."""

from __future__ import annotations

import logging
import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._config import block_rows, threads
from .._kernels.plsa import column_prior_rows, fold_in, log_likelihood, normalise_columns, normalise_rows, sweep
from .._validation import MAX_INT, check_topic_word_prior, csr_arrays, used_columns
from .._constraints import Boolean, Interval, StrOptions
from ._base import CHECKPOINT_CONSTRAINTS, TopicModelBase
from ._fit_warnings import DEAD_SHARE
from ._checkpoint import interruptible, restore_rng
from ._moves import (MAX_REJECTED, TRIAL_SWEEPS, Cells, Round, count_proposal, expected_counts, hopeless, judge,
                     late_window, product_columns)
from ._priors import kernel_array
from ._start import prior_informed_start, seeded_topics

logger = logging.getLogger(__name__)

# Weight of the document-cluster centre in the seeded start of P(w | z) (the rest is uniform). The
# LDA fits use an even mix; maximum likelihood commits to its start more than VB does, and a start
# nearer uniform lets EM find better optima. `python benchmarks/bench_plsa_start.py` (results in
# benchmarks/results/plsa_start.md): log-likelihood per token, alternating EM, mean of random_state 0
# and 1, weight 0.5 -> 0.1, after 20 iterations: 20 Newsgroups -7.5141 -> -7.5099 (K = 20) and
# -6.9607 -> -6.9496 (K = 100), UCI KOS -7.1344 -> -7.1347 and -6.6305 -> -6.6206, AP -7.5299 -> -7.5276
# and -6.8958 -> -6.8840; after 100 iterations better in all six cases. Of the weights 0.5, 0.2, 0.1,
# 0.05, 0.03, 0.1 was the best or within 0.0011 of it after 20 iterations except on 20 Newsgroups at
# K = 100, where smaller weights did better still (0.03: -6.9349), and the weights below 0.1 were
# worse at K = 20 on KOS and AP.
_CENTRE_WEIGHT = 0.1


def _log_prior(theta, phi_t, a1, e1):
    """sum (alpha - 1) log theta + sum (eta - 1) log phi over the entries that are positive (``e1`` a float,
    or a matrix prior's eta_kw - 1 term-major (V, K), 0 where it excludes the term: phi is 0 there)."""
    total = 0.0
    for arr, pm1 in ((theta, a1), (phi_t, e1)):
        if pm1 is None:
            continue
        if np.ndim(pm1) == 1:
            pm1 = np.broadcast_to(np.asarray(pm1, dtype=np.float64), arr.shape[1:])
        with np.errstate(divide="ignore"):
            logs = np.where(arr > 0, np.log(np.where(arr > 0, arr, 1.0)), 0.0)
        total += float(np.sum(logs * pm1))
    return total


class PLSA(TopicModelBase):
    """Probabilistic latent semantic analysis (the aspect model) fitted by EM.

    The model is P(w | d) = sum_z P(w | z) P(z | d). EM runs over the non-zeros of the count
    matrix weighted by their counts; the responsibilities P(z | d, w) of each non-zero are computed
    on the fly, so no n_nonzero x n_components array is stored. Each iteration's log-likelihood is
    stored in ``bound_history_`` and never decreases for plain EM.

    By default an iteration alternates (``update="alternating"``): P(z | d) is re-estimated with
    P(w | z) fixed, then P(w | z) with the *new* P(z | d), each half an exact EM step for its block
    (expectation-conditional maximisation, Meng & Rubin 1993; scikit-learn's multiplicative KL updates
    for NMF alternate the same way), so the log-likelihood still never decreases. Both halves compute
    their responsibilities afresh, in cache-sized blocks, so an iteration costs the same either way.
    After 20 iterations alternating reached the higher log-likelihood in all six cases tried (20
    Newsgroups, UCI KOS and AP at K = 20 and 100, mean of two seeds; e.g. -6.9496 vs -6.9517 nats per
    token on 20 Newsgroups at K = 100, -6.6206 vs -6.6355 on KOS), after 100 in five of the six
    (``benchmarks/bench_plsa_start.py``).
    ``update="simultaneous"`` is Hofmann's classic EM (both M-steps from the same responsibilities).

    With Dirichlet priors the fit is MAP estimation (the MAP algorithm of Asuncion et al. 2009):
    the M-step uses the expected counts offset by prior - 1. Priors of at least 1 keep the
    log-posterior (stored instead of the log-likelihood) non-decreasing; for priors below 1 the
    offset counts are clamped at zero, the usual heuristic, and the log-prior term then sums over
    the positive entries only, so monotonicity is no longer guaranteed.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics (aspects).
    doc_topic_prior : float or array-like of shape (n_components,), default=None
        Dirichlet prior on P(z | d); None means none (maximum likelihood).
    topic_word_prior : float or array-like of shape (n_components, n_features), default=None
        Symmetric Dirichlet prior on P(w | z); None means none. A matrix (dense, sparse, or a
        :class:`topicvb.SeededPrior`) gives each topic its own prior (guided topics): the M-step
        offsets each expected count by its own eta_kw - 1 (clamped at zero below 1, as a float prior
        below 1 is), a 0 entry excludes the term from the topic (P(w | z) exactly 0), and the
        starting topics lean towards the terms each non-constant row favours. Moves are not tried with
        a matrix prior.
    beta : float, default=1.0
        Tempering exponent of tempered EM (Hofmann 1999): responsibilities are proportional to
        (P(z | d) P(w | z)) ** beta. 1 is plain EM; values in (0, 1) smooth the fit, and the
        log-likelihood is then not guaranteed to increase.
    update : {"alternating", "simultaneous"}, default="alternating"
        How an EM iteration updates the two factors: one after the other (each from responsibilities
        of the current values), or both from the responsibilities of the previous model (Hofmann's
        EM). Both never decrease the objective of plain EM.
    max_iter : int, default=100
        Maximum number of EM iterations.
    tol : float, default=1e-5
        Stop when the relative change of the objective is at most ``tol``.
    init : {"seeded", "random"}, default="seeded"
        Initial P(w | z). "seeded" starts from document clusters (k-means++ seeds refined by two
        Lloyd steps, as :class:`BatchLDA`'s default), each topic mixed as 0.1 x its cluster's term
        frequencies + 0.9 x uniform, times noise of mean 1 and standard deviation 0.1 (the LDA fits mix
        0.5 / 0.5; the lighter weight gave PLSA better optima on three corpora after 100 iterations, and
        after 20 in five of six cases, ``benchmarks/bench_plsa_start.py``). "random" is uniform
        noise in [0.5, 1.5), normalised. P(z | d) starts from uniform noise either way.
    moves : bool, default=True
        Once EM has settled, try moves that leave a poor optimum, as :class:`CollapsedLDA` does
        (:mod:`topicvb.models._moves`): free a topic (a dead one, or the smaller of two
        near-duplicates merged into the other) and re-seed it by splitting the topic whose tokens
        two topics explain best; a proposal worth a trial is kept only when, after a few EM
        iterations, the objective is above what the unmoved fit reaches in as many, else the model
        is restored exactly. A fit that has not settled 10 iterations before ``max_iter`` tries them
        there. Not with ``early_stopping`` (whose best model is chosen on held-out
        cells, not by the objective).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the non-zero cells of X and stop when their
        log-likelihood (document completion with the current P(z | d)) has not improved for
        ``n_iter_no_change`` iterations; the best model seen is kept.
    validation_fraction : float, default=0.1
        Share of non-zero cells held out when ``early_stopping`` is True.
    n_iter_no_change : int, default=5
        Patience of early stopping.
    transform_max_iter : int, default=100
        EM iterations of folding-in per new document in ``transform`` and ``score`` (which stop earlier at
        a relative change of ``tol``; both are read when called, as other estimators' inference settings).
    random_state : int, RandomState instance or None, default=None
        Seeds the random initialisation (and the validation split).
    verbose : int, default=0
        Print one line per iteration to stderr when positive.
    n_jobs : int, default=None
        Threads for the kernels: None or -1 means every core. Results do not depend on it.
    dtype : {"float64", "float32"}, default="float64"
        Floating type of the model's arrays.
    checkpoint_path : str or path-like, default=None
        Write a checkpoint every ``checkpoint_every`` iterations; ``fit(X, resume=True)`` continues
        from it (see :class:`BatchLDA`).
    checkpoint_every : int, default=1
        Iterations between checkpoints.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        P(w | z); rows sum to 1.
    doc_topic_ : ndarray of shape (n_docs, n_components)
        P(z | d) of the training documents.
    doc_topic_prior_ : ndarray of shape (n_components,)
        The Dirichlet prior on P(z | d) of the fit, which ``transform`` and ``score`` fold new documents in with
        (``doc_topic_prior`` as K values; ones without it, the prior whose MAP step is maximum likelihood).
    topic_tokens_ : ndarray of shape (n_components,)
        The expected number of training tokens each topic explains, sum_d N_d P(z | d) (what the
        seed-word check of a guided fit, :func:`topicvb.guided.seed_holding`, weighs P(w | z) by).
    bound_history_ : ndarray of shape (n_iter_,)
        Log-likelihood (log-posterior with priors) of the training data after each iteration, up to the
        kept model's.
    validation_history_ : ndarray or None
        Held-out log-likelihood per iteration when ``early_stopping`` is True: one value for every
        iteration run, so it may be longer than ``bound_history_``.
    n_iter_ : int
        The iteration of the kept model: the iterations run, or with ``early_stopping`` the iteration
        of the best model on the held-out cells (the fit ran ``len(validation_history_)`` iterations).
    n_features_in_, topic_labels_
        As in :class:`topicvb.BatchLDA` (``topic_labels_``: the topics' names, the seed labels of guided
        topics first, else ``topic_0``, ``topic_1``, ...).

    References
    ----------
    Hofmann (1999), Probabilistic latent semantic analysis, UAI; Unsupervised learning by
    probabilistic latent semantic analysis, Machine Learning 42 (2001).
    Asuncion, Welling, Smyth & Teh (2009), On smoothing and inference for topic models, UAI.
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None, beta=1.0,
                 update="alternating", max_iter=100, tol=1e-5, init="seeded", moves=True, early_stopping=False, validation_fraction=0.1, n_iter_no_change=5,
                 transform_max_iter=100, random_state=None, verbose=0, n_jobs=None, dtype="float64",
                 checkpoint_path=None, checkpoint_every=1):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.beta = beta
        self.update = update
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.moves = moves
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.transform_max_iter = transform_max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.dtype = dtype
        self.checkpoint_path = checkpoint_path
        self.checkpoint_every = checkpoint_every

    # with TopicModelBase's (the shared ones)
    _parameter_constraints: dict = {
        "beta": [Interval(Real, 0, 1, closed="right")],
        "update": [StrOptions({"alternating", "simultaneous"})],
        "init": [StrOptions({"seeded", "random"})],
        "moves": [Boolean()],
        "early_stopping": [Boolean()],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, MAX_INT)],
        "transform_max_iter": [Interval(Integral, 1, MAX_INT)],
        **CHECKPOINT_CONSTRAINTS,
    }

    def _doc_prior_minus_one(self, n_topics=None):
        a = self._doc_prior(n_topics)
        return None if a is None else a - 1.0

    def _doc_prior(self, n_topics=None):
        """``doc_topic_prior`` as K float64 values (None without it); K the fitted number of topics when
        ``n_topics`` is given (the methods of a fitted model: ``n_components`` may have been set since)."""
        a = self.doc_topic_prior
        if a is None:
            return None
        k = self.n_components if n_topics is None else n_topics
        a = np.asarray(a, dtype=np.float64)
        if a.ndim == 1 and a.shape[0] != k:
            raise ValueError(f"doc_topic_prior has {a.shape[0]} values, but the model has {k} topics; give one "
                             "value per topic, or a float.")
        return np.broadcast_to(a, (k,))

    def _topic_word_matrix(self):
        """The matrix topic-word prior (K, V) float64, or None for a float or no prior."""
        e = self.topic_word_prior
        if e is None or isinstance(e, (Real, np.number)):
            return None
        return check_topic_word_prior(e, self.n_components, self.n_features_in_)

    def _priors_minus_one(self):
        """(alpha - 1, eta - 1): None without the prior; eta - 1 a float, or with a matrix prior the
        term-major (V, K) eta_kw - 1, 0 at the entries the prior excludes (for the log-prior)."""
        e = self.topic_word_prior
        eta = self._topic_word_matrix()
        if eta is not None:
            e1 = np.ascontiguousarray(np.where(eta > 0, eta - 1.0, 0.0).T)
        else:
            e1 = None if e is None else float(e) - 1.0
        return self._doc_prior_minus_one(), e1

    def _term_offsets(self, e1):
        """(offset, fallback, step): the M-step's offset of the expected term counts and the fallback of a
        topic left without mass, as rows of K values that term w reads at w * step
        (:func:`topicvb._kernels.plsa.column_prior_rows`): one row (step 0) of eta - 1 (0 without a prior) and
        of 1 / V, or with a matrix prior (V, K) arrays (step 1) of eta_kw - 1 (-inf where a term is excluded)
        and of each topic's fallback (uniform over the terms the topic allows)."""
        eta = self._topic_word_matrix()
        if eta is None:
            return column_prior_rows(0.0 if e1 is None else float(e1), 1.0 / self.n_features_in_, self.n_components)
        allowed = eta > 0
        offset = np.where(allowed, eta - 1.0, -np.inf).T
        fallback = (allowed / allowed.sum(axis=1, keepdims=True)).T
        return column_prior_rows(offset, fallback, self.n_components)

    def _doc_fallback(self, n_topics=None):
        k = self.n_components if n_topics is None else n_topics
        a = self._doc_prior(k)
        if a is None:
            return np.full(k, 1.0 / k)
        return a / a.sum()

    def _split_validation(self, X, rng):
        """Move a random share of the non-zero cells of X into a validation matrix."""
        held = rng.random_sample(X.nnz) < self.validation_fraction
        train, valid = X.copy(), X.copy()
        train.data = np.where(held, 0, X.data).astype(X.dtype)
        valid.data = np.where(held, X.data, 0).astype(X.dtype)
        train.eliminate_zeros()
        valid.eliminate_zeros()
        return train, valid

    def _start(self, X, rng, fallback):
        """Initial P(z | d) (random, normalised) and term-major P(w | z) (seeded or random; with a
        matrix topic-word prior leaning towards the terms it favours, 0 where it excludes a term)."""
        K, (D, V) = self.n_components, X.shape
        theta = normalise_rows(rng.random_sample((D, K)) + 0.5, np.zeros(K), fallback).astype(self._float)
        if self.init == "seeded":
            start = seeded_topics(X, K, rng, np.float64, centre_weight=_CENTRE_WEIGHT)
        else:
            start = rng.random_sample((K, V)) + 0.5
        eta = self._topic_word_matrix()
        if eta is not None:
            start = prior_informed_start(start, eta, X)
        return theta, normalise_columns(np.ascontiguousarray(start.T), *column_prior_rows(0.0, 1.0 / V, K)).astype(
            self._float)

    def _fit(self, X, resume=False):
        rng = check_random_state(self.random_state)
        a1, e1 = self._priors_minus_one()
        fallback = self._doc_fallback()
        save, state = self._checkpointer(X, resume)
        lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()  # (of every training document)
        valid = None
        if self.early_stopping:
            X, valid = self._split_validation(X, rng)
            valid = csr_arrays(valid)
        em = _EMSweeps(X, self.n_components, self._float, self.beta, self.update,
                       np.zeros(self.n_components) if a1 is None else np.asarray(a1, dtype=np.float64),
                       fallback, self._term_offsets(e1))
        run = _EMRun(*self._start(X, rng, fallback), em, a1, e1, valid, save, rng)
        if state is not None:
            run.restore(state, self._float)
        started = time.perf_counter()
        # (moves with a matrix prior: not yet; the proposals of _moves read eta as a float)
        moves = _Moves(self, em, rng) if self.moves and valid is None and np.ndim(e1) < 2 else None
        with threads(self.n_jobs) as n_parts, interruptible(type(self).__name__) as stop:
            rejected, settled = 0, False
            while True:
                converged = self._em_steps(run, moves, stop, n_parts, started)
                # a settled fit: try moves until one is accepted (then go on from the moved model) or none is left
                settled = settled or converged
                late = not converged and moves is not None and late_window(run.done, self.max_iter)
                moved = None
                while moved is None and (converged or late) and moves is not None and rejected < MAX_REJECTED \
                        and run.done + TRIAL_SWEEPS <= self.max_iter and not stop.requested:
                    moved = moves.try_move(run.theta, run.phi_t, run.history, rejected, n_parts)
                    if moved is None or moved == "done":
                        rejected = MAX_REJECTED if moved == "done" else rejected + 1
                        moved = None
                rejected = 0
                if moved is None:
                    if late and not stop.requested:
                        continue  # EM goes on to max_iter from the unmoved model
                    break
                run.theta, run.phi_t, values = moved
                run.history += values
                run.done += len(values)
                run.theta_b_next = None
        fitted = self._result(run, stop.requested, settled)
        fitted["topic_tokens_"] = lengths @ np.asarray(fitted["doc_topic_"], dtype=np.float64)
        prior = self._doc_prior()
        # (no prior: ones, the Dirichlet whose MAP step is maximum likelihood, with the same uniform fallback)
        fitted["doc_topic_prior_"] = np.ones(self.n_components) if prior is None else np.array(prior)
        return fitted

    def _em_steps(self, run, moves, stop, n_parts, started) -> bool:
        """EM iterations of ``run`` (in place) until its objective converges or early stopping ends it (True), or
        the moves' late window opens, max_iter is reached or the user interrupts (False). Each model's objective
        is recorded (and reported) once, when its theta half is computed: the first half of the next iteration."""
        a1, e1, em, valid = run.a1, run.e1, run.em, run.valid
        while True:
            theta_b, phi_t_b = em.tempered(run.theta, run.phi_t, run.theta_b_next)
            run.theta_b_next = None
            if run.done >= self.max_iter:  # only evaluate the final model
                ll = em.log_likelihood(run.theta, run.phi_t)
            else:  # the theta half: expected counts n_dk, and the current model's log-likelihood
                n_dk, ll = em.theta_half(run.theta, run.phi_t, theta_b, phi_t_b, n_parts)
            if run.done > len(run.history):  # ll is the objective of the model after `done` iterations
                run.history.append(ll + _log_prior(run.theta, run.phi_t, a1, e1))
                self._report(run.done, run.history[-1], run.history[-2] if len(run.history) > 1 else None, started)
                if valid is not None:
                    run.v_history.append(float(np.sum(log_likelihood(*valid, run.theta, run.phi_t))))
                    if run.best is None or run.v_history[-1] > run.best[0]:
                        run.best = (run.v_history[-1], run.done, run.theta.copy(), run.phi_t.copy())
                    elif run.done - run.best[1] >= self.n_iter_no_change:
                        return True
                if self._converged(run.history):
                    return True
                if moves is not None and late_window(run.done, self.max_iter):
                    return False  # not settled, but late: try the moves now
            if run.done >= self.max_iter or stop.requested:
                return False
            run.theta, run.phi_t, run.theta_b_next = em.phi_half(n_dk, run.theta, run.phi_t, theta_b, phi_t_b,
                                                                 n_parts)
            run.done += 1
            run.save(run.done, _checkpoint_arrays(run.theta, run.phi_t, run.history, run.v_history, run.best), run.rng)

    def _result(self, run, interrupted: bool, settled: bool) -> dict:
        """The fitted attributes of a finished ``run``: its last model (evaluated first if an interruption came
        before that), or with early stopping the best on the validation documents."""
        theta, phi_t, history = run.theta, run.phi_t, run.history
        n_iter = len(history)
        if interrupted and n_iter < run.done:  # interrupted before the newest model was evaluated
            history.append(run.em.log_likelihood(theta, phi_t) + _log_prior(theta, phi_t, run.a1, run.e1))
            n_iter = run.done
        if run.best is not None and run.best[1] != n_iter:
            _, n_keep, theta, phi_t = run.best
            history = history[:n_keep]
            n_iter = n_keep
        if not interrupted:
            self._warn_not_converged(n_iter, settled)
        return {
            "components_": np.ascontiguousarray(phi_t.T),
            "doc_topic_": theta,
            "bound_history_": np.asarray(history),
            "validation_history_": np.asarray(run.v_history) if run.valid is not None else None,
            "n_iter_": n_iter,
        }

    def _topic_shares(self, fitted, X):
        """Each topic's share of the training tokens: sum_d N_d P(z | d) / N (``topic_tokens_``, or from ``X``,
        the training counts, for a model fitted before PLSA kept it)."""
        sizes = self._topic_sizes(fitted)
        if sizes is None:
            lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
            sizes = lengths @ np.asarray(fitted["doc_topic_"], dtype=np.float64)
        return sizes / max(float(np.sum(sizes)), 1e-300)

    _term_counts_need_sizes = True

    def _topic_sizes(self, fitted):
        """Each topic's expected training tokens, ``topic_tokens_`` (None for a model saved without it)."""
        sizes = fitted.get("topic_tokens_")
        return None if sizes is None else np.asarray(sizes, dtype=np.float64)

    def _seed_prior(self, fitted):
        """The matrix topic-word prior (K, V), or None (PLSA keeps no fitted prior: it is the parameter's)."""
        return self._topic_word_matrix()

    def _term_counts(self, fitted, cols, sizes):
        """The expected occurrences of the terms ``cols`` in each topic: P(w | z) times ``sizes``, each topic's
        expected tokens in the training corpus (:meth:`_topic_sizes`)."""
        return np.asarray(fitted["components_"][:, cols], dtype=np.float64) * np.asarray(sizes)[:, None]

    def _fold_in(self, X):
        k = self.components_.shape[0]  # (the fitted topics: n_components may have been set since fit)
        alpha = getattr(self, "doc_topic_prior_", None)  # the fitted prior (a file of before it: the parameter's)
        if alpha is None:
            alpha = self._doc_prior(k)
            alpha = np.ones(k) if alpha is None else alpha
        prior = kernel_array(np.asarray(alpha, dtype=np.float64) - 1.0, (k,))
        theta0 = np.tile(alpha / alpha.sum(), (X.shape[0], 1)).astype(self._fitted_float)
        columns, X = used_columns(X, self.components_.shape[1])  # (a few documents: their terms' rows alone)
        phi_t = np.ascontiguousarray((self.components_ if columns is None else self.components_[:, columns]).T)
        indptr, indices, data = csr_arrays(X)
        with threads(self.n_jobs):
            return fold_in(indptr, indices, data, phi_t, theta0, prior, int(self.transform_max_iter),
                           float(self.tol))

    def _doc_topic(self, X):
        theta, _ = self._fold_in(X)
        return theta

    def _score(self, X):
        _, ll = self._fold_in(X)
        return float(np.sum(ll))

    def bound(self, X):
        """Log-likelihood of ``X`` with P(z | d) folded in (topics fixed); a total, higher is better.

        Folding-in fits each document's topic proportions to the document itself, so this tends
        to grow with K and is optimistic on new documents; :meth:`score` (document completion, per token)
        compares models.
        """
        return super().bound(X)


class _EMRun:
    """PLSA's EM in progress: the model (theta, term-major phi_t), its objective per iteration (``history``), the
    validation record (``v_history``, ``best``: (value, iteration, theta, phi_t) of the best so far), the EM
    iterations applied (``done``), and what the loop works with (the sweeps ``em``, the priors less one, the
    validation arrays, the checkpoint saver and the random state)."""

    def __init__(self, theta, phi_t, em, a1, e1, valid, save, rng):
        self.theta, self.phi_t = theta, phi_t
        self.theta_b_next = None  # theta ** beta of the new theta, when the alternating step computed it
        self.history, self.v_history, self.best = [], [], None
        self.done = 0  # EM iterations applied to (theta, phi_t)
        self.em, self.a1, self.e1, self.valid, self.save, self.rng = em, a1, e1, valid, save, rng

    def restore(self, state, dtype):
        """Continue from a checkpoint's ``state`` (see :func:`_checkpoint_arrays`), its random state included."""
        self.theta, self.phi_t = state["theta"].astype(dtype), state["phi_t"].astype(dtype)
        self.history, self.v_history = list(state["history"]), list(state["v_history"])
        self.done = int(state["iteration"])
        if "best_theta" in state:
            self.best = (float(state["best_value"]), int(state["best_iter"]), state["best_theta"], state["best_phi_t"])
        restore_rng(self.rng, state)


def _checkpoint_arrays(theta, phi_t, history, v_history, best):
    """PLSA's iteration state as a checkpoint's arrays."""
    arrays = {"theta": theta, "phi_t": phi_t, "history": np.asarray(history), "v_history": np.asarray(v_history)}
    if best is not None:
        arrays.update(best_value=np.array(best[0]), best_iter=np.array(best[1]), best_theta=best[2],
                      best_phi_t=best[3])
    return arrays


class _Moves:
    """PLSA's moves (:mod:`._moves`): proposals from the model's responsibilities P(z | d) P(w | z), tried
    by a few EM iterations (:meth:`em_iteration`) and judged by the log-likelihood (log-posterior)."""

    def __init__(self, model, em, rng):
        self.model, self.em, self.rng = model, em, rng
        self.a1, self.e1 = model._priors_minus_one()
        K = model.n_components
        # the sub-models that propose splits are LDA-smoothed: the priors, or 1 / K where EM has none
        self.alpha = np.full(K, 1.0 / K) if self.a1 is None else np.asarray(self.a1, dtype=np.float64) + 1.0
        self.eta = 1.0 / K if self.e1 is None else float(self.e1) + 1.0
        self.cells = Cells(*em.csr)

    def objective(self, theta, phi_t):
        return self.em.log_likelihood(theta, phi_t) + _log_prior(theta, phi_t, self.a1, self.e1)

    def em_iteration(self, theta, phi_t, n_parts):
        """One EM iteration from (theta, phi_t), as the fit makes them: the new pair and the objective of
        the old one."""
        theta_b, phi_t_b = self.em.tempered(theta, phi_t)
        n_dk, ll = self.em.theta_half(theta, phi_t, theta_b, phi_t_b, n_parts)
        new_theta, new_phi_t, _ = self.em.phi_half(n_dk, theta, phi_t, theta_b, phi_t_b, n_parts)
        return new_theta, new_phi_t, ll + _log_prior(theta, phi_t, self.a1, self.e1)

    def try_move(self, theta, phi_t, history, candidate, n_parts):
        """(theta, phi_t, objectives) after an accepted move; None when rejected; "done" when no
        candidate is left or worth a trial."""
        em, model, cells = self.em, self.model, self.cells
        column = product_columns(cells, theta, phi_t)
        n_dk, n_wk = expected_counts(cells, column, model.n_components, em.n_docs, em.n_terms)
        if candidate == 0:  # a new round (see _moves.Round)
            self.round = Round()
        proposal = count_proposal(cells, column, n_dk, n_wk, self.alpha, self.eta, candidate, DEAD_SHARE, self.rng,
                                  logger, type(model).__name__, round_=self.round)
        if proposal is None:
            return "done"
        new_dk, new_wk, what = proposal
        theta = normalise_rows(new_dk.astype(model._float), em.offset_doc, em.fallback)
        phi_t = normalise_columns(np.ascontiguousarray(new_wk, dtype=model._float), *em.term_prior)
        values = []  # the objective after each trial iteration, known one EM half later
        for i in range(TRIAL_SWEEPS):
            theta, phi_t, objective = self.em_iteration(theta, phi_t, n_parts)
            if i > 0:
                values.append(objective)
                if hopeless(history, values, TRIAL_SWEEPS):
                    break
        else:
            values.append(self.objective(theta, phi_t))
        if not judge(history, values, TRIAL_SWEEPS, logger, type(model).__name__, what):
            return None
        return theta, phi_t, values


class _EMSweeps:
    """The two halves of a PLSA EM iteration over one matrix (:func:`topicvb._kernels.plsa.sweep`):
    by documents (CSR) for P(z | d), by terms (the same non-zeros in column order) for P(w | z)."""

    def __init__(self, X, n_topics, dtype, beta, update, offset_doc, fallback, term_prior):
        self.csr = csr_arrays(X)
        # the M-step: P(z | d) and P(w | z) from expected counts plus these offsets (the priors minus one);
        # term_prior: (offset, fallback, step) of P(w | z) as rows, see PLSA._term_offsets
        self.update, self.offset_doc, self.fallback, self.term_prior = update, offset_doc, fallback, term_prior
        self.n_docs, self.n_terms = X.shape
        # the non-zeros in column order, rows ascending within each column (CSC), for the term sweeps
        Xc = sp.csc_matrix(X)
        Xc.sort_indices()
        colptr = Xc.indptr.astype(np.int64)  # as indptr: one compiled sweep for both halves
        col_rows = Xc.indices.astype(np.int32 if self.n_docs < 2 ** 31 else np.int64, copy=False)
        self.csc = (colptr, col_rows, Xc.data)
        self.n_block = block_rows(n_topics, np.dtype(dtype).itemsize)
        self.beta = beta
        self.is_tempered = beta != 1.0

    def tempered(self, theta, phi_t, theta_b=None):
        """theta ** beta (``theta_b`` when already computed) and phi_t ** beta; the arrays themselves for EM."""
        if not self.is_tempered:
            return theta, phi_t
        return (theta_b if theta_b is not None else theta ** self.beta), phi_t ** self.beta

    def log_likelihood(self, theta, phi_t):
        return float(np.sum(log_likelihood(*self.csr, theta, phi_t)))

    def theta_half(self, theta, phi_t, theta_b, phi_t_b, n_parts):
        """Expected counts n_dk of the current model, and its log-likelihood."""
        n_dk = np.empty_like(theta)
        ll_doc = np.empty(self.n_docs)
        sweep(*self.csr, theta, phi_t, theta_b, phi_t_b, self.is_tempered, True, self.n_block, n_parts, n_dk, ll_doc)
        return n_dk, float(np.sum(ll_doc))

    def phi_half(self, n_dk, theta, phi_t, theta_b, phi_t_b, n_parts):
        """The rest of the EM iteration after :meth:`theta_half` gave ``n_dk``: the new theta, and the new
        phi_t from the responsibilities of the new theta ("alternating") or of the old one
        ("simultaneous"); returns (theta, phi_t, theta ** beta of the new theta when it was computed)."""
        given, given_b, new_theta_b = theta, theta_b, None
        theta = normalise_rows(n_dk, self.offset_doc, self.fallback)  # (in place: n_dk is a new array)
        if self.update == "alternating":
            given = theta
            given_b = new_theta_b = theta ** self.beta if self.is_tempered else theta
        phi_t = normalise_columns(self.phi_counts(phi_t, given, phi_t_b, given_b, n_parts), *self.term_prior)
        return theta, phi_t, new_theta_b

    def phi_counts(self, phi_t, given, phi_t_b, given_b, n_parts):
        """Expected counts n_wk (term-major) with the responsibilities of ``given`` P(z | d)."""
        n_wk = np.empty_like(phi_t)
        sweep(*self.csc, phi_t, given, phi_t_b, given_b, self.is_tempered, False, self.n_block, n_parts, n_wk,
              np.empty(self.n_terms))
        return n_wk
