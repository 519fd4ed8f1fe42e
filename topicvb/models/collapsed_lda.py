"""Collapsed variational Bayes for LDA: CVB0 (Asuncion et al. 2009) and CVB (Teh et al. 2006)."""

from __future__ import annotations

import logging
import time
import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._config import convergence_warnings_wanted, threads
from .._validation import MAX_INT, user_stacklevel
from .._constraints import Boolean, Interval, Options, StrOptions
from ._base import CHECKPOINT_CONSTRAINTS, TopicModelBase
from ._collapsed import CollapsedInferenceMixin, topic_major
from ._collapsed_sweeps import CountSweeps, CVBSweeps
from ._checkpoint import interruptible, restore_rng
from ._moves import MAX_REJECTED, TRIAL_SWEEPS, late_window
from ._priors import learn_flags

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
    thread during the sweeps and, while a move is proposed and tried, a few n_nonzero-long vectors and
    a second copy of the counts (its trial sweeps on one thread, the state it may return to kept in
    float32 meanwhile); ``dtype="float32"`` halves the counts at no measurable cost (the README's memory
    model: within 2x of a Gibbs sampler's resident set on 20 Newsgroups at K = 100).

    ``bound_history_`` holds, after every sweep (an accepted move's trial sweeps included; after a
    SQUAREM step that was undone, see ``acceleration``, that of the state it returned to), the training
    log-likelihood at the current point
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
    acceleration : {"squarem", None}, default=None
        "squarem": with ``storage="counts"`` and CVB0, run the sweeps in SQUAREM cycles (Varadhan &
        Roland 2008, scheme S3; :mod:`topicvb.models._squarem`): after two sweeps the counts are
        extrapolated along them, projected back onto valid counts (no negative count, each document's
        and term's total kept), and the third sweep starts from there; the step is undone when the
        training log-likelihood after it is below that before it. With learned priors the cycles start
        after the ``prior_burn_in`` sweeps (extrapolating the first sweeps cost held-out perplexity early
        in the fit). Convergence (``tol``) is then tested on whole cycles: the change over a cycle may be
        three times ``tol``, in two cycles in a row.
        It shortens CVB0's slow tail (measured in ``BENCHMARKS.md``), at the cost of up to two more
        copies of the counts n_dk, n_wk during a cycle (a checkpoint holds them too, and stacks them
        while it is written), which is why it is not the default here (the counts storage exists to save memory);
        :func:`topicvb.models._registry.recommended_estimator` (what ``topicvb fit`` and
        ``make_topic_pipeline`` use) turns it on. Does not apply to stored responsibilities, to CVB,
        or to a move's trial sweeps. None: plain sweeps.
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
        Convergence (``tol``) is only tested once learning has started, and SQUAREM cycles
        (``acceleration``) start then too.
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
        exactly. Up to three proposals are tried in a row; the fit goes on after an accepted one (and
        warns, ``ConvergenceWarning``, if it reaches ``max_iter`` before settling again). A fit that
        has not settled 10 sweeps before ``max_iter`` tries them there.
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
    doc_topic_prior_, bound_history_, n_iter_, n_features_in_, topic_labels_
        As in :class:`topicvb.BatchLDA` (``topic_labels_``: the topics' names, the seed labels of guided
        topics first, else ``topic_0``, ``topic_1``, ...).

    References
    ----------
    Teh, Newman & Welling (2006), A collapsed variational Bayesian inference algorithm for LDA, NIPS.
    Asuncion, Welling, Smyth & Teh (2009), On smoothing and inference for topic models, UAI.
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None, variant="cvb0",
                 topic_update="sequential", storage="auto", acceleration=None, learn_priors=False,
                 prior_burn_in=10, init="seeded", moves=True, max_iter=200, tol=1e-5,
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
        self.acceleration = acceleration
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
        "acceleration": [StrOptions({"squarem"}), None],
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
        hint = "; dtype='float32' halves the counts" if storage == "counts" and self._float == np.float64 else ""
        logger.info("%s: storage='auto' chose %r (responsibilities would take %.1f MiB; the limit is %.0f MiB%s)",
                    type(self).__name__, storage, need / 2**20, AUTO_STORAGE_LIMIT / 2**20, hint)
        return storage

    def _fit(self, X, resume=False):
        rng = check_random_state(self.random_state)
        alpha, eta = self._resolve_priors()
        learn_alpha, learn_eta = learn_flags(self.learn_priors, type(self).__name__)
        storage = self._resolve_storage(X)
        cvb = (CountSweeps if storage == "counts" else CVBSweeps)(self, X, learn_alpha, learn_eta, eta)
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
            # sweep, see CVBSweeps.advance) the last: len(history) is it or it - 1
            it = len(history) if state is None else int(state["iteration"])
            if len(history) < it:
                current["pending"] = cvb.estimates(current)
            converged = cvb.settled(history)
            ever_converged, rejected, n_moves = converged, 0, 0
            ended_settled = False  # (whether the loop ended on a settled fit, not at max_iter)

            def record(values):  # the objectives of sweeps, in order: one progress line each
                for value in values:
                    history.append(value)
                    self._report(len(history), value, history[-2] if len(history) > 1 else None, started)

            while not stop.requested:
                # moves once settled, or late (see _moves.late_window); ``rejected``: proposals in a row
                if (converged or late_window(it, self.max_iter)) and self.moves and rejected < MAX_REJECTED \
                        and it + TRIAL_SWEEPS <= self.max_iter:
                    record(cvb.complete(current))
                    moved = cvb.try_move(current, history, it, rejected, rng)
                    if moved is None or moved == "done":
                        rejected = MAX_REJECTED if moved == "done" else rejected + 1
                        continue
                    current, values = moved
                    record(values)
                    it += TRIAL_SWEEPS
                    rejected, n_moves = 0, n_moves + 1
                elif converged or it >= self.max_iter:
                    ended_settled = converged
                    break
                else:
                    it += 1
                    record(cvb.advance(current, it))
                    rejected = 0
                save(it, {**cvb.saved_arrays(current), "alpha": current["alpha"], **cvb.prior_arrays(current),
                          "history": np.asarray(history)}, rng)
                converged = cvb.settled(history)
                ever_converged = ever_converged or converged
            record(cvb.complete(current))  # (the last state's objective, when still pending)
            ever_converged = ever_converged or cvb.settled(history)  # (which may be the one that settled)
            ended_settled = ended_settled or cvb.settled(history)
            cvb.release()
            cvb.exact_counts(current)
        if n_moves:
            logger.info("%s: %d move(s) accepted", type(self).__name__, n_moves)
        if not stop.requested:
            if ever_converged and not ended_settled and n_moves and self.tol > 0 and convergence_warnings_wanted():
                # (it had settled, accepted a move and reached max_iter before settling again: the HDP's case)
                warnings.warn(f"{type(self).__name__} reached max_iter={self.max_iter} while still settling after an "
                              "accepted move (it had settled before the move); raise max_iter, or pass moves=False.",
                              ConvergenceWarning, stacklevel=user_stacklevel())
            else:
                self._warn_not_converged(it, ever_converged)
        return {
            "components_": np.ascontiguousarray((current["n_wk"] + current["eta"]).T, dtype=current["n_wk"].dtype),
            "doc_topic_prior_": current["alpha"],
            "topic_word_prior_": topic_major(current["eta"]),
            "bound_history_": np.asarray(history),
            "n_iter_": it,
        }


# storage="auto": the responsibilities are stored while they take at most this many bytes (1 GiB; about three
# times that at the peak of a move), else only the counts (:class:`CountSweeps`).
AUTO_STORAGE_LIMIT = 1 << 30
