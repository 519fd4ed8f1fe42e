"""Collapsed variational Bayes for LDA: CVB0 (Asuncion et al. 2009) and CVB (Teh et al. 2006)."""

from __future__ import annotations

import logging
import time
from functools import partial
from numbers import Integral

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .._config import threads
from .._kernels.cvb0 import document_counts, prior_arrays, sweep, sweep_documents, term_counts
from .._kernels.cvb0_counts import counts_log_likelihood, counts_sweep, fixed_point_shift
from .._kernels.plsa import log_likelihood
from .._kernels.priors import cell_variances
from .._kernels.sparse import column_index
from .._kernels.workers import start_beside
from .._validation import MAX_INT, csr_arrays
from .._constraints import Boolean, Interval, Options, StrOptions
from ._base import CHECKPOINT_CONSTRAINTS, DEAD_SHARE, TopicModelBase
from ._collapsed import CollapsedInferenceMixin, point_estimates, topic_major
from ._checkpoint import interruptible, restore_rng
from ._moves import (MAX_REJECTED, TRIAL_SWEEPS, Cells, Round, count_proposal, hopeless, judge, late_window,
                     priced_proposal, product_columns, propose, topic_shares)
from ._priors import learn_flags, polya_step, scaled_polya_step, symmetric_polya_step
from ._start import prior_informed_start, seeded_topics

logger = logging.getLogger(__name__)


class CollapsedLDA(CollapsedInferenceMixin, TopicModelBase):
    """Latent Dirichlet allocation fitted by collapsed variational Bayes (CVB0 or CVB).

    theta and beta are integrated out and a mean-field distribution is kept over the topic
    assignments only: one responsibility vector per non-zero (document, term) cell, shared by the
    cell's tokens. With ``storage="responsibilities"`` (what ``"auto"`` chooses below 1 GiB of them)
    they are stored: memory is n_nonzero x n_components floats (half with ``dtype="float32"``) on top of the count arrays; the
    fit logs the amount at INFO level. While a move is proposed (``moves``) two more arrays of that
    size exist for a moment (a topic-major copy that ranks the topics, and the proposal), so the peak
    is about three times it (measured: 9.5 GB for 7.5 M non-zeros at K = 50, 2.9 GB of
    responsibilities); ``moves=False`` avoids it. With ``storage="counts"`` nothing is stored per
    cell: memory is that of the counts, (n_docs + n_terms) x n_components floats (twice that with
    CVB or learned priors, for the variances), plus one n_terms x n_components int64 array per
    thread during a sweep and, while a move is proposed, a few n_nonzero-long vectors.

    ``bound_history_`` holds, after every sweep (an accepted move's trial sweeps included), the
    training log-likelihood at the current point
    estimates, sum_dw c_dw log sum_k theta_hat_dk phi_hat_kw with
    theta_hat_dk = (n_dk + alpha_k) / (N_d + sum alpha) and phi_hat_kw = (n_kw + eta) / (n_k + V eta)
    (with a matrix prior, (n_kw + eta_kw) / (n_k + sum_w eta_kw)).
    It is a monitoring quantity, not a bound, and CVB0 does not guarantee it increases.

    Parameters
    ----------
    n_components : int, default=10
        Number of topics.
    doc_topic_prior : float or array-like of shape (n_components,), default=None
        Dirichlet prior on document-topic proportions (alpha); None means 1 / n_components.
    topic_word_prior : float or array-like of shape (n_components, n_features), default=None
        Dirichlet prior on topic-term distributions (eta): a number (symmetric; None means
        1 / n_components) or a matrix, one prior row per topic (dense, scipy sparse, or a
        :class:`topicvb.SeededPrior`), for guided topics: the updates use eta_kw in place of eta and
        sum_w eta_kw in place of V eta, and a 0 excludes the term from the topic (its probability
        there is exactly 0). A topic whose row is not constant starts on the terms its row favours and
        the words of the documents that use them (:func:`topicvb.models._start.prior_informed_start`),
        and ``moves`` never free, merge into or split it.
    variant : {"cvb0", "cvb"}, default="cvb0"
        Zeroth-order updates (Asuncion et al.) or the second-order Gaussian correction with
        variance terms (Teh, Newman & Welling).
    topic_update : {"sequential", "per_sweep"}, default="sequential"
        "sequential" is the exact serial sweep, updating topic-term counts after every cell (one
        thread). "per_sweep" processes documents in parallel on ``n_jobs`` threads with the
        topic-term counts frozen during a sweep and recomputed after it: an approximation of the
        serial sweep (documents do not see each other's changes within a sweep) that converges
        to comparable solutions; its results do not depend on the thread count.
    storage : {"auto", "counts", "responsibilities"}, default="auto"
        What the fit keeps between sweeps. "auto": "responsibilities" while they take at most 1 GiB
        (n_nonzero x n_components x 8 bytes in float64, 4 in float32), else "counts" (logged at INFO
        level; a rule of the matrix and the parameters, so every machine chooses alike: 20 Newsgroups
        at K = 100 stores them, 90,000 IMDB reviews at K = 50 do not). "responsibilities": one K-vector per non-zero cell
        (8 K bytes a cell in float64, 4 K in float32), swept as ``topic_update`` says. "counts": the
        counts only, n_dk (D, K) and n_wk (V, K) (and the variances when CVB or learned priors need
        them), no per-cell array: each sweep freezes the topic-term counts and each document, in
        parallel on ``n_jobs`` threads, rebuilds its cells' responsibilities from the counts (the CVB0
        fixed point they satisfied; two damped steps when priors are learned, else one), makes one
        sequential pass and adds its new responsibilities into the next sweep's counts
        (:mod:`topicvb._kernels.cvb0_counts`). Its fixed
        points are CVB0's up to the rebuild's error; its path differs from the sequential sweep's
        (documents do not see each other's changes within a sweep): held-out perplexity within about
        1% of the stored sweeps' on KOS, AP and 20 Newsgroups, often more sweeps (``BENCHMARKS.md``).
        ``topic_update`` does not apply. Results do not depend on the thread count.
    learn_priors : {False, True, "doc_topic", "topic_word"}, default=False
        With every sweep, move alpha (asymmetric) and/or eta (symmetric) one step of Minka's fixed
        point for the Dirichlet-multinomial likelihood of the counts (as Asuncion et al. 2009 do
        for CVB0), with the expectation E[psi(n + a)] over the counts' mean-field distribution
        rather than psi(E[n] + a) (the plug-in inflates the priors, which then inflate each other),
        and a weak Gamma(1, 1) hyperprior on each value; the results are in ``doc_topic_prior_``
        and ``topic_word_prior_``. With stored responsibilities the step reads the counts of the
        state before the sweep and runs beside it (on a second thread when ``n_jobs`` allows), so a
        sweep uses the priors of the step before; CVB0's count variances, which the step needs, are
        refreshed every 4 sweeps (``VARIANCE_EVERY``). Same answers on KOS, AP and 20 Newsgroups as
        a step after each sweep, in less time (``BENCHMARKS.md``); the results do not depend on the
        thread count. A matrix ``topic_word_prior`` keeps its shape and learns its scale
        (the same fixed point for the scale, :func:`topicvb.models._priors.scaled_polya_step`).
    prior_burn_in : int, default=10
        Sweeps before the priors are first learned: right after the random start the expected
        counts are nearly uniform, and their maximum-likelihood alpha is huge and self-sustaining.
        Convergence (``tol``) is only tested once learning has started.
    init : {"seeded", "random"}, default="seeded"
        Initial responsibilities. "seeded" starts each cell's responsibilities from the topics of
        :class:`BatchLDA`'s seeded start (document clusters: k-means++ seeds refined by two Lloyd
        steps, mixed 0.5 / 0.5 with the uniform distribution, times noise), q(z_dw = k) proportional
        to topic k's weight of term w. On KOS, AP and 20 Newsgroups it settled in about a third fewer
        sweeps than "random" and to topics of higher coherence (BENCHMARKS.md). "random" draws each
        cell's responsibilities from Dirichlet(1).
    moves : bool, default=True
        Once the fit has settled, try moves that leave a poor optimum (:mod:`topicvb.models._moves`):
        free a topic (delete a dead one, or merge the smaller of two near-duplicates into the other)
        and re-seed it by splitting the topic whose tokens two topics explain best (two topics that
        the fit had merged). A proposal is priced first (the split's gain against what the merge
        loses) and, if worth a trial, kept only when after a few sweeps the training log-likelihood
        is above what the unmoved fit reaches in as many sweeps; otherwise the state is restored
        exactly. Up to three proposals are tried in a row; the fit goes on after an accepted one. A
        fit that has not settled 10 sweeps before ``max_iter`` tries them there.
        While a proposal is made and tried, up to two more copies of the responsibilities exist.
        False gives the plain CVB0/CVB fit.
    max_iter : int, default=200
        Maximum number of sweeps, accepted moves' sweeps included (a rejected proposal's trial
        sweeps are not counted; a move is only tried when its sweeps fit in what is left).
    tol : float, default=1e-5
        Stop when the training log-likelihood rose by at most ``tol`` relative (a decrease is not
        convergence). With stored responsibilities each sweep's objective is computed beside the next
        sweep, so the test sees it one sweep late and the fit ends one sweep after the one that
        settled. The topics keep sharpening after the objective's relative change falls below 1e-4:
        on KOS, AP and 20 Newsgroups (K = 20 and 50, three fit seeds, learned priors) 1e-5 lowered
        held-out perplexity in 18 of 18 fits and raised NPMI in 17 of 18 (mean +0.007) against 1e-4,
        for two to three times the sweeps (``BENCHMARKS.md``).
    transform_max_iter : int, default=100
        Passes over each new document in ``transform`` (CVB0 updates with the topics fixed).
    mean_change_tol : float, default=1e-3
        A new document's inference stops when the mean change of its responsibilities is below this.
    random_state, verbose, n_jobs, dtype, checkpoint_path, checkpoint_every
        As in :class:`topicvb.BatchLDA`.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Expected topic-term counts plus the prior eta (0 where a matrix prior excludes a term).
    topic_word_prior_ : float or ndarray of shape (n_components, n_features)
        The prior eta: a float, or the matrix (times its learned scale with ``learn_priors``).
    doc_topic_prior_, bound_history_, n_iter_, n_features_in_
        As in :class:`topicvb.BatchLDA`.

    References
    ----------
    Teh, Newman & Welling (2006), A collapsed variational Bayesian inference algorithm for LDA, NIPS.
    Asuncion, Welling, Smyth & Teh (2009), On smoothing and inference for topic models, UAI.
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None, variant="cvb0",
                 topic_update="sequential", storage="auto", learn_priors=False, prior_burn_in=10, init="seeded",
                 moves=True, max_iter=200, tol=1e-5,
                 transform_max_iter=100,
                 mean_change_tol=1e-3,
                 random_state=None, verbose=0, n_jobs=None, dtype="float64", checkpoint_path=None,
                 checkpoint_every=1):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.variant = variant
        self.topic_update = topic_update
        self.storage = storage
        self.learn_priors = learn_priors
        self.prior_burn_in = prior_burn_in
        self.init = init
        self.moves = moves
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

    # with CollapsedInferenceMixin's (transform_max_iter, mean_change_tol) and TopicModelBase's
    _parameter_constraints: dict = {
        "variant": [StrOptions({"cvb0", "cvb"})],
        "topic_update": [StrOptions({"sequential", "per_sweep"})],
        "storage": [StrOptions({"auto", "counts", "responsibilities"})],
        "learn_priors": [Options({False, True, "doc_topic", "topic_word"}), None],  # None: as False
        "prior_burn_in": [Interval(Integral, 0, MAX_INT)],
        "init": [StrOptions({"seeded", "random"})],
        "moves": [Boolean()],
        **CHECKPOINT_CONSTRAINTS,
    }

    def _resolve_storage(self, X):
        """The storage a fit on ``X`` uses: ``storage``, or for "auto" "responsibilities" unless they would take
        more than :data:`AUTO_STORAGE_LIMIT` bytes (a rule of the matrix and the parameters alone, so the
        same fit makes the same choice on any machine)."""
        if self.storage != "auto":
            return self.storage
        need = X.nnz * self.n_components * np.dtype(self._float).itemsize
        storage = "responsibilities" if need <= AUTO_STORAGE_LIMIT else "counts"
        logger.info("%s: storage='auto' chose %r (responsibilities would take %.1f MiB; the limit is %.0f MiB)",
                    type(self).__name__, storage, need / 2**20, AUTO_STORAGE_LIMIT / 2**20)
        return storage

    def _fit(self, X, resume=False):
        rng = check_random_state(self.random_state)
        alpha, eta = self._resolve_priors()
        learn_alpha, learn_eta = learn_flags(self.learn_priors, type(self).__name__)
        storage = self._resolve_storage(X)
        cvb = (_CountSweeps if storage == "counts" else _CVBSweeps)(self, X, learn_alpha, learn_eta, eta)
        save, state = self._checkpointer(X, resume)
        started = time.perf_counter()
        with threads(self.n_jobs), interruptible(type(self).__name__) as stop:
            if state is None:
                current = cvb.start(X, rng, eta)
                current.update(alpha=alpha, **cvb.prior_state(1.0 if cvb.base_t is not None else eta))
                history = []
            else:  # the in-place counts are restored as they were, not recomputed, for exact resumption
                current = cvb.restore(state)
                current.update(alpha=state["alpha"], **cvb.prior_state(cvb.saved_prior(state)))
                history = list(state["history"])
                restore_rng(rng, state)
            cvb.log_memory(current)
            # the sweeps done; history holds the objective after each but (while it is computed beside the next
            # sweep, see _CVBSweeps.advance) the last: len(history) is it or it - 1
            it = len(history) if state is None else int(state["iteration"])
            if len(history) < it:
                current["pending"] = cvb.estimates(current)
            converged = cvb.settled(history)
            ever_converged, rejected, n_moves = converged, 0, 0
            while not stop.requested:
                # moves once settled, or late (see _moves.late_window); ``rejected``: proposals in a row
                if (converged or late_window(it, self.max_iter)) and self.moves and rejected < MAX_REJECTED \
                        and it + TRIAL_SWEEPS <= self.max_iter:
                    history += cvb.complete(current)
                    moved = cvb.try_move(current, history, it, rejected, rng)
                    if moved is None or moved == "done":
                        rejected = MAX_REJECTED if moved == "done" else rejected + 1
                        continue
                    current, values = moved
                    history += values
                    it += TRIAL_SWEEPS
                    rejected, n_moves = 0, n_moves + 1
                elif converged or it >= self.max_iter:
                    break
                else:
                    it += 1
                    history += cvb.advance(current, it)
                    rejected = 0
                save(it, {**cvb.saved_arrays(current), "alpha": current["alpha"], **cvb.prior_arrays(current),
                          "history": np.asarray(history)}, rng)
                if history:
                    self._report(len(history), history[-1], history[-2] if len(history) > 1 else None, started)
                converged = cvb.settled(history)
                ever_converged = ever_converged or converged
            history += cvb.complete(current)  # (the last state's objective, when still pending)
        if n_moves:
            logger.info("%s: %d move(s) accepted", type(self).__name__, n_moves)
        if not stop.requested:
            self._warn_not_converged(it, ever_converged)
        return {
            "components_": np.ascontiguousarray((current["n_wk"] + current["eta"]).T, dtype=current["n_wk"].dtype),
            "doc_topic_prior_": current["alpha"],
            "topic_word_prior_": topic_major(current["eta"]),
            "bound_history_": np.asarray(history),
            "n_iter_": it,
        }


# CVB0 with stored responsibilities and learned priors: the variances of the counts that the prior step reads
# (v_dk, v_wk; a pass over the responsibilities, cell_variances) are refreshed every VARIANCE_EVERY sweeps,
# the counts in every one. A variance enters the step only through the second-order part of E[psi(n + a)] and
# changes slowly; the pass cost as much as a third of a sweep. (The step itself runs beside the sweep: see
# _CVBSweeps.advance.)
VARIANCE_EVERY = 4

# storage="auto": the responsibilities are stored while they take at most this many bytes (1 GiB; about three
# times that at the peak of a move), else only the counts (:class:`_CountSweeps`).
AUTO_STORAGE_LIMIT = 1 << 30

# Responsibilities per block of a start (cells x K): no n_nonzero x K temporary is made in float64.
_BLOCK = 1 << 18


def _seeded_weights(X, rng, n_topics, eta):
    """(V, K): lam_kw / sum_w lam_kw of the seeded start (:func:`._start.seeded_topics`, shaped by a matrix
    prior ``eta``: :func:`._start.prior_informed_start`); a cell's start is its term's row, normalised."""
    lam = prior_informed_start(seeded_topics(X, n_topics, rng, np.float64), eta, X)
    lam /= lam.sum(axis=1, keepdims=True)  # (in place: one (K, V) array fewer at the peak)
    return np.ascontiguousarray(lam.T)


def _start_blocks(X, rng, n_topics, init, eta=None):
    """The start's responsibilities, block by block of cells: yields (first cell, float64 block (B, K) whose rows
    sum to 1). "seeded": q(z_dw = k) proportional to lam_kw of the seeded start (:func:`._start.seeded_topics`,
    shaped by a matrix prior ``eta`` (K, V): :func:`._start.prior_informed_start`, 0 on excluded pairs);
    "random": Dirichlet(1) draws that break the symmetry (0 on excluded pairs), the same stream as one big
    draw."""
    indices, n_cells = X.indices, X.nnz
    size = max(1, _BLOCK // n_topics)  # cells per block
    if init == "seeded":
        weights = _seeded_weights(X, rng, n_topics, eta)
        for start in range(0, n_cells, size):
            block = weights[indices[start:start + size]]
            block /= block.sum(axis=1, keepdims=True)
            yield start, block
        return
    allowed = np.ascontiguousarray((eta > 0).T) if isinstance(eta, np.ndarray) else None  # (V, K)
    for start in range(0, n_cells, size):
        block = rng.standard_gamma(1.0, size=(min(size, n_cells - start), n_topics)) + 1e-3
        if allowed is not None:
            block *= allowed[indices[start:start + block.shape[0]]]
        block /= block.sum(axis=1, keepdims=True)
        yield start, block


def _start_responsibilities(X, rng, n_topics, dtype, init, eta=None):
    """The (n_nonzero, K) responsibilities of the start (:func:`_start_blocks`)."""
    gamma = np.empty((X.nnz, n_topics), dtype=dtype)
    for start, block in _start_blocks(X, rng, n_topics, init, eta):
        gamma[start:start + block.shape[0]] = block
    return gamma


def _seeded_responsibilities(X, rng, n_topics, dtype, eta=None):
    """The seeded start's responsibilities (:func:`_start_blocks`)."""
    return _start_responsibilities(X, rng, n_topics, dtype, "seeded", eta)


def _random_responsibilities(X, rng, n_topics, dtype, eta=None):
    """The random start's responsibilities (:func:`_start_blocks`)."""
    return _start_responsibilities(X, rng, n_topics, dtype, "random", eta)


def _start_counts(X, rng, n_topics, dtype, init, eta, variances):
    """The counts (n_dk, n_wk) and variances (v_dk, v_wk; (0, K) unless ``variances``) of the start's
    responsibilities (``storage="counts"``: no (n_nonzero, K) array). The seeded start gives every cell of
    a term the same responsibilities W[w] (:func:`_start_blocks`), so its counts are X W and the term
    totals times W; the random start's are summed block by block of cells (each block's documents are a
    contiguous range). Memory: beyond the outputs, the seeding's (:func:`._start.seeded_topics`) and one
    (V, K) array (W, which becomes n_wk, or v_wk with the variances), all in float64; the numbers are
    those of the plain NumPy/SciPy expressions."""
    D, V = X.shape
    X = sp.csr_matrix(X, dtype=np.float64)
    if init == "seeded":
        weights = _seeded_weights(X, rng, n_topics, eta)
        totals = weights.sum(axis=1, keepdims=True)
        np.divide(weights, totals, out=weights, where=totals > 0)
        weights[~(totals[:, 0] > 0)] = 0.0
        term_totals = np.asarray(X.sum(axis=0)).ravel()[:, None]
        n_dk = np.ascontiguousarray(X @ weights, dtype=dtype)
        if variances:
            n_wk = np.ascontiguousarray(term_totals * weights, dtype=dtype)
            step = max(1, _BLOCK // n_topics)
            for r in range(0, V, step):  # the spread W (1 - W), in place
                block = weights[r:r + step]
                np.multiply(block, 1.0 - block, out=block)
            v_dk = np.ascontiguousarray(X @ weights, dtype=dtype)
            v_wk = np.multiply(term_totals, weights, out=weights)
        else:
            n_wk = np.multiply(term_totals, weights, out=weights)
            v_dk, v_wk = np.zeros((0, n_topics)), np.zeros((0, n_topics))
        return tuple(np.ascontiguousarray(a, dtype=dtype) for a in (n_dk, n_wk, v_dk, v_wk))
    indptr = X.indptr
    n_dk, n_wk = np.zeros((D, n_topics)), np.zeros((V, n_topics))
    v_dk, v_wk = np.zeros((D if variances else 0, n_topics)), np.zeros((V if variances else 0, n_topics))
    for start, block in _start_blocks(X, rng, n_topics, init, eta):
        end = start + block.shape[0]
        rows = np.searchsorted(indptr, np.arange(start, end), side="right") - 1  # the cells' documents
        first, last = rows[0], rows[-1]
        cells = np.arange(block.shape[0])
        by_doc = sp.csr_matrix((np.ones(cells.size), (rows - first, cells)), shape=(last - first + 1, cells.size))
        terms, where = np.unique(X.indices[start:end], return_inverse=True)
        by_term = sp.csr_matrix((np.ones(cells.size), (where, cells)), shape=(terms.size, cells.size))
        if variances:
            spread = block * (1.0 - block)
            spread *= X.data[start:end, None]
            v_dk[first:last + 1] += by_doc @ spread
            v_wk[terms] += by_term @ spread
        block *= X.data[start:end, None]  # (the block is this loop's own)
        n_dk[first:last + 1] += by_doc @ block
        n_wk[terms] += by_term @ block
    out = [n_dk, n_wk, v_dk, v_wk]
    del n_dk, n_wk, v_dk, v_wk
    for i, a in enumerate(out):  # (one float64 array at a time converted)
        out[i] = a.astype(dtype, copy=False)
        del a
    return tuple(out)


class _CVBSweeps:
    """CollapsedLDA's fit on one matrix: sweeps of a state (the responsibilities ``gamma``, the counts
    ``n_dk``, ``n_wk`` and CVB's variances ``v_dk``, ``v_wk``, the priors ``alpha``, ``eta``; a dict),
    the stopping test and the moves (:mod:`._moves`). A matrix prior is kept term-major, ``eta`` (V, K) =
    ``scale`` times the given matrix ``base_t`` (the scale is what ``learn_priors`` learns)."""

    def __init__(self, model, X, learn_alpha, learn_eta, eta):
        self.model, self.owner = model, type(model).__name__
        self.second = model.variant == "cvb"
        self.dtype = model._float
        self.n_topics, self.n_terms = model.n_components, X.shape[1]
        self.indptr, self.indices, self.data = csr_arrays(X)
        self.colptr, self.positions = self._columns()
        self.learn_alpha, self.learn_eta = learn_alpha, learn_eta
        self.learning = learn_alpha or learn_eta
        self.variances = self.second or self.learning  # whether the state keeps v_dk, v_wk (else (0, K))
        lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
        self.prior_learning = _PriorLearning(lengths)
        self.cells = Cells(self.indptr, self.indices, self.data) if model.moves else None
        self.base_t = np.ascontiguousarray(eta.T, dtype=np.float64) if isinstance(eta, np.ndarray) else None
        self.copies = None  # the buffers of the counts a prior step beside a sweep reads (see advance)

    def prior_state(self, value):
        """The state's topic-word prior entries for ``value``: the float eta, or a matrix prior's scale."""
        if self.base_t is None:
            return {"eta": value}
        return {"eta": self.base_t if value == 1.0 else value * self.base_t, "scale": value}

    def prior_arrays(self, state):
        """The checkpoint's arrays of the topic-word prior: "eta", the float or the (K, V) matrix, and for a
        matrix its scale "eta_scale" (the matrix is the parameter times it: resumption recomputes it)."""
        if self.base_t is None:
            return {"eta": np.array(state["eta"])}
        return {"eta": topic_major(state["eta"]), "eta_scale": np.array(state["scale"])}

    def saved_prior(self, arrays):
        """The value :meth:`prior_state` takes, from a checkpoint's arrays (:meth:`prior_arrays`)."""
        if self.base_t is None:
            return float(arrays["eta"])
        if "eta_scale" in arrays:
            return float(arrays["eta_scale"])
        eta = np.asarray(arrays["eta"], dtype=np.float64).T  # (a checkpoint without the scale: its ratio)
        w, k = np.unravel_index(int(np.argmax(self.base_t)), self.base_t.shape)
        return float(eta[w, k] / self.base_t[w, k])

    @staticmethod
    def priors(state):
        """The prior entries of ``state`` (for a new state with other counts)."""
        return {k: state[k] for k in ("alpha", "eta", "scale") if k in state}

    STATE = ("gamma", "n_dk", "n_wk", "v_dk", "v_wk")  # the arrays of a state a checkpoint holds

    def _columns(self):
        """The column index of the cells (:func:`topicvb._kernels.sparse.column_index`) the term counts use."""
        colptr, positions, _ = column_index(self.indptr, self.indices, self.n_terms)
        return colptr, positions

    def start(self, X, rng, eta):
        """The state of the start (``init``), priors not included."""
        return self.counts(_start_responsibilities(X, rng, self.n_topics, self.dtype, self.model.init, eta))

    def restore(self, state):
        """The state of a checkpoint's arrays, priors not included."""
        return {k: state[k].astype(self.dtype) for k in self.STATE}

    def saved_arrays(self, state):
        """The arrays of ``state`` a checkpoint holds (priors apart)."""
        return {k: state[k] for k in self.STATE}

    def log_memory(self, state):
        logger.info("%s: responsibilities take %.1f MiB (%d non-zeros x %d topics, %s)", self.owner,
                    state["gamma"].nbytes / 2**20, self.indices.shape[0], self.n_topics, self.model.dtype)

    def counts(self, gamma):
        """A state for ``gamma``: its counts (and variances) recomputed."""
        D, V, K = self.indptr.shape[0] - 1, self.n_terms, self.n_topics
        shape_d, shape_v = ((D, K), (V, K)) if self.variances else ((0, K), (0, K))
        state = {"gamma": gamma, "n_dk": np.empty((D, K), dtype=self.dtype), "n_wk": np.empty((V, K), dtype=self.dtype),
                 "v_dk": np.empty(shape_d, dtype=self.dtype), "v_wk": np.empty(shape_v, dtype=self.dtype)}
        document_counts(self.indptr, self.data, gamma, state["n_dk"], state["v_dk"], self.variances)
        term_counts(self.colptr, self.positions, self.data, gamma, state["n_wk"], state["v_wk"], self.variances)
        return state

    def advance(self, state, it):
        """Sweep ``it`` of ``state`` in place and, beside it, the work on the state before it: the learned priors'
        step (after the burn-in; see VARIANCE_EVERY) and the objective when it is pending. Returns the objectives
        computed: [the state before the sweep's] when it was pending, else []; the new state's is left pending
        (:meth:`complete`).

        The prior step and the objective read only the counts (and variances), not the responsibilities, so they
        can run on a helper thread while this thread sweeps (the sweep is serial, and leaves the other core idle):
        the sweep therefore uses the priors of the step before (from the state two sweeps back), and the stopping
        test sees each objective one sweep late. On one thread, or with topic_update="per_sweep" (whose sweep
        uses every thread), the same work runs here first: the results do not depend on the thread count.
        """
        gamma, n_dk, n_wk, v_dk, v_wk = state["gamma"], state["n_dk"], state["n_wk"], state["v_dk"], state["v_wk"]
        alpha, eta, second = state["alpha"], state["eta"], self.second
        learning = self.learning and it > self.model.prior_burn_in
        if learning and not second and (it - self.model.prior_burn_in - 1) % VARIANCE_EVERY == 0:
            cell_variances(self.indptr, self.indices, self.data, gamma, v_dk, v_wk)
        sequential = self.model.topic_update == "sequential"
        beside = sequential and numba.get_num_threads() > 1
        counts = None
        if learning:  # (copies when beside a sweep that changes them: CVB0's sweep leaves the variances alone)
            counts = self._copies(n_dk, n_wk, v_dk, v_wk, second) if beside else (n_dk, n_wk, v_dk, v_wk)
        work = partial(self._beside, alpha, state.get("scale", eta), counts, state.pop("pending", None))
        job = start_beside(work) if beside else None
        done = work() if job is None else None
        n_k = n_wk.sum(axis=0)
        v_k = v_wk.sum(axis=0) if second else np.zeros(self.n_topics, dtype=self.dtype)
        if sequential:
            sweep(self.indptr, self.indices, self.data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta, second)
        else:
            sweep_documents(self.indptr, self.indices, self.data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha,
                            eta, second, False, 1, 0.0)
            term_counts(self.colptr, self.positions, self.data, gamma, n_wk, v_wk, second)
        (alpha, value), values = job.result() if job is not None else done
        if learning:
            state["alpha"] = alpha
            state.update(self.prior_state(value))
        state["pending"] = self.estimates(state)
        return values

    def _copies(self, n_dk, n_wk, v_dk, v_wk, second):
        """The counts (and, for CVB, whose sweep changes them, the variances) in buffers kept between sweeps."""
        if self.copies is None or self.copies[0].shape != n_dk.shape or self.copies[1].shape != n_wk.shape:
            self.copies = (np.empty_like(n_dk), np.empty_like(n_wk), np.empty_like(v_dk), np.empty_like(v_wk))
        for into, x in zip(self.copies, (n_dk, n_wk) + ((v_dk, v_wk) if second else ())):
            np.copyto(into, x)
        return self.copies if second else self.copies[:2] + (v_dk, v_wk)

    def _beside(self, alpha, value, counts, pending):
        """The work :meth:`advance` does beside a sweep: ((alpha, prior value) after the prior step, when
        ``counts`` (n_dk, n_wk, v_dk, v_wk) are given, else as they are; [the objective of ``pending``, the
        point estimates of :meth:`estimates`] or [])."""
        if counts is not None:
            alpha, value = self.prior_learning.prior_step(alpha, value, *counts, self.learn_alpha, self.learn_eta,
                                                          self.base_t)
        return (alpha, value), ([] if pending is None else [self.objective(*pending)])

    def estimates(self, state):
        """The point estimates (theta, phi_t) of ``state`` (:func:`._collapsed.point_estimates`)."""
        return point_estimates(state["n_dk"], state["n_wk"], state["alpha"], state["eta"])

    def objective(self, theta, phi_t):
        """The training log-likelihood at the point estimates ``theta``, ``phi_t``."""
        return float(np.sum(log_likelihood(self.indptr, self.indices, self.data, theta, phi_t)))

    def complete(self, state):
        """[The objective of ``state``] when it is pending (:meth:`advance`), else []."""
        pending = state.pop("pending", None)
        return [] if pending is None else [self.objective(*pending)]

    def settled(self, history):
        """Converged (and, when priors are learned, past their burn-in)."""
        return self.model._converged(history) and (not self.learning or len(history) > self.model.prior_burn_in)

    def _proposal(self, state, candidate, rng):
        """:func:`._moves.priced_proposal` on the responsibilities: (new gamma, description) or None."""
        g, V = state["gamma"], self.n_terms

        def column(k):  # a topic's responsibilities: a strided read of gamma (a proposal reads some 20 of them;
            return np.ascontiguousarray(g[:, k])  # a transposed copy of gamma cost more than all the reads)

        if candidate == 0:  # a new round (the state is the one the last round's rejected proposals restored)
            self.round = Round()

        eta = topic_major(state["eta"])  # (the moves take a matrix prior topic-major)

        def build(slot, into):
            return propose(self.cells, g, V, state["alpha"], eta, slot, into, rng, column, self.round.gains)

        return priced_proposal(self.cells, column, topic_shares(g, self.data), state["n_wk"],
                               state["alpha"], eta, candidate, DEAD_SHARE, logger, self.owner, build, self.round)

    def try_move(self, state, history, it, candidate, rng):
        """The state after an accepted move and its objectives; None when the proposal was rejected,
        or "done" when no candidate is left or the cheapest is not worth trying (see :mod:`._moves`)."""
        found = self._proposal(state, candidate, rng)
        if found is None:  # no candidate left, or (later candidates cost more) none worth a trial
            return "done"
        gamma, what = found
        trial = {**self.counts(gamma), **self.priors(state)}
        values = []
        while len(values) < TRIAL_SWEEPS and not hopeless(history, values, TRIAL_SWEEPS):
            self.advance(trial, it + len(values) + 1)
            values += self.complete(trial)  # (each trial sweep's objective at once: the judge reads them all)
        return (trial, values) if judge(history, values, TRIAL_SWEEPS, logger, self.owner, what) else None


class _CountSweeps(_CVBSweeps):
    """CollapsedLDA's fit with ``storage="counts"``: the state holds the counts, not the responsibilities
    (``gamma`` is None). A sweep is :func:`topicvb._kernels.cvb0_counts.counts_sweep` (documents in parallel,
    each rebuilding its cells' responsibilities from the counts); the variances v_dk, v_wk are kept when CVB
    or a learned prior needs them; moves propose new counts (:func:`._moves.count_proposal`) from the
    responsibilities the counts give, q(z_dw = k) proportional to (n_dk + alpha_k)(n_wk + eta_wk) /
    (n_k + eta_sum_k)."""

    STATE = ("n_dk", "n_wk", "v_dk", "v_wk")
    # the rebuild's exclusion steps and their damping (see the kernel), by measurement (BENCHMARKS.md): with
    # learned priors one undamped step (0 steps were 1-2% worse in held-out perplexity) drifts from CVB0's fixed
    # points, the error feeding the learned eta (about 1% worse on AP); two steps moving 0.65 of the way match the
    # stored sweeps within 0.3% on KOS, AP and 20 Newsgroups. With fixed priors there is no such feedback and the
    # single undamped step did better (20 Newsgroups, K = 100, 3 seeds: 0.990-0.992 of the stored sweeps'
    # perplexity, against 1.008-1.019 damped).
    REFINE, DAMPING = 1, 1.0  # fixed priors
    LEARNED_REFINE, LEARNED_DAMPING = 2, 0.65

    def __init__(self, model, X, learn_alpha, learn_eta, eta):
        super().__init__(model, X, learn_alpha, learn_eta, eta)
        self.variances = self.second or learn_alpha or learn_eta
        learning = learn_alpha or learn_eta
        self.refine, self.damping = ((self.LEARNED_REFINE, self.LEARNED_DAMPING) if learning
                                     else (self.REFINE, self.DAMPING))
        self.shift = fixed_point_shift(float(self.data.sum()))
        self.max_cells = int(np.max(np.diff(self.indptr))) if self.indptr.shape[0] > 1 else 0

    def _columns(self):
        return None, None  # (no term pass over the cells: each sweep adds the documents' parts)

    def start(self, X, rng, eta):
        n_dk, n_wk, v_dk, v_wk = _start_counts(X, rng, self.n_topics, self.dtype, self.model.init, eta, self.variances)
        return {"gamma": None, "n_dk": n_dk, "n_wk": n_wk, "v_dk": v_dk, "v_wk": v_wk}

    def restore(self, state):
        out = {"gamma": None, **{k: state[k].astype(self.dtype) for k in self.STATE}}
        if self.variances and out["v_dk"].shape[0] == 0:  # CVB0's variances are not saved: each sweep remakes them
            out["v_dk"] = np.zeros_like(out["n_dk"])
            out["v_wk"] = np.zeros_like(out["n_wk"])
        return out

    def saved_arrays(self, state):
        keep = self.second  # (CVB0 rebuilds its variances in every sweep before it reads them)
        return {"gamma": np.empty((0, self.n_topics), dtype=self.dtype),  # (no responsibilities: an empty array)
                **{k: (state[k] if keep or not k.startswith("v_") else state[k][:0]) for k in self.STATE}}

    def log_memory(self, state):
        held = sum(state[k].nbytes for k in self.STATE)
        logger.info("%s: counts take %.1f MiB (no responsibilities are stored: storage='counts')", self.owner,
                    held / 2**20)

    def advance(self, state, it):
        n_dk, n_wk, v_dk, v_wk = state["n_dk"], state["n_wk"], state["v_dk"], state["v_wk"]
        value, eta_t, eta_sum = prior_arrays(state["eta"], self.n_topics)
        counts_sweep(self.indptr, self.indices, self.data, n_dk, v_dk, n_wk, v_wk, state["alpha"], value, eta_t,
                     eta_sum, self.second, self.refine, self.shift, self.max_cells, self.variances, self.damping)
        if (self.learn_alpha or self.learn_eta) and it > self.model.prior_burn_in:
            state["alpha"], value = self.prior_learning.prior_step(state["alpha"], state.get("scale", state["eta"]),
                                                                   n_dk, n_wk, v_dk, v_wk, self.learn_alpha,
                                                                   self.learn_eta, self.base_t)
            state.update(self.prior_state(value))
        value, eta_t, eta_sum = prior_arrays(state["eta"], self.n_topics)
        return [counts_log_likelihood(self.indptr, self.indices, self.data, n_dk, n_wk, state["alpha"], value,
                                      eta_t, eta_sum)]  # (the objective of the sweep's state: never pending)

    def try_move(self, state, history, it, candidate, rng):
        if candidate == 0:  # a new round (see _moves.Round)
            self.round = Round()
        n_dk, n_wk, alpha, eta = state["n_dk"], state["n_wk"], state["alpha"], state["eta"]
        term_weights = (n_wk + eta) / (n_wk.sum(axis=0) + (eta.sum(axis=0) if isinstance(eta, np.ndarray)
                                                           else eta * self.n_terms))
        column = product_columns(self.cells, n_dk + alpha, term_weights)
        found = count_proposal(self.cells, column, n_dk, n_wk, alpha, topic_major(eta), candidate, DEAD_SHARE, rng,
                               logger, self.owner, round_=self.round)
        del column, term_weights  # (not needed in the trial sweeps)
        if found is None:
            return "done"
        new_dk, new_wk, what = found
        trial = {"gamma": None, "n_dk": new_dk.astype(self.dtype, copy=False),  # (the proposal's own arrays)
                 "n_wk": new_wk.astype(self.dtype, copy=False),
                 "v_dk": state["v_dk"].copy(), "v_wk": state["v_wk"].copy(), **self.priors(state)}
        values = []
        while len(values) < TRIAL_SWEEPS and not hopeless(history, values, TRIAL_SWEEPS):
            values += self.advance(trial, it + len(values) + 1)
        return (trial, values) if judge(history, values, TRIAL_SWEEPS, logger, self.owner, what) else None


# A weak Gamma(shape, rate) hyperprior on each learned prior value: it keeps a prior from running off
# where the counts say little (few documents, an unused topic) and is negligible against a real corpus's
# counts (the fixed point's denominator grows with the number of documents, resp. of terms).
HYPER_SHAPE, HYPER_RATE = 1.0, 1.0


class _PriorLearning:
    """One step of the learned priors (:func:`._priors.polya_step`) from the expected counts and their
    variances (v_dk, v_wk: CVB keeps them exact; CVB0 with stored responsibilities refreshes them every
    VARIANCE_EVERY sweeps, :func:`topicvb._kernels.priors.cell_variances`; the counts sweeps compute them in
    every sweep)."""

    def __init__(self, lengths):
        self.lengths = lengths

    def prior_step(self, alpha, eta, n_dk, n_wk, v_dk, v_wk, learn_alpha, learn_eta, base_t=None):
        """(alpha, eta) after one step; with a matrix prior (``base_t``, (V, K)) ``eta`` is its scale."""
        if learn_alpha:
            alpha = polya_step(alpha, n_dk, v_dk, self.lengths, HYPER_SHAPE, HYPER_RATE)
        if learn_eta and base_t is None:
            eta = symmetric_polya_step(eta, n_wk.T, v_wk.T, HYPER_SHAPE, HYPER_RATE)
        elif learn_eta:
            eta = scaled_polya_step(eta, base_t, n_wk, v_wk, HYPER_SHAPE, HYPER_RATE)
        return alpha, eta
