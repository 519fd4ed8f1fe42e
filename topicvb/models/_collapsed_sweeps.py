"""CollapsedLDA's fit on one matrix: the sweeps of a state (stored responsibilities, :class:`CVBSweeps`, or only
the counts, :class:`CountSweeps`), their learned-prior steps (:class:`PriorLearning`), the stopping test and the
moves. :class:`topicvb.models.CollapsedLDA` drives them (its ``_fit``)."""

from __future__ import annotations

import logging
from functools import partial

import numba
import numpy as np

from .._config import return_free_memory
from .._kernels.cvb0 import document_counts, prior_arrays, sweep, sweep_documents, term_counts
from .._kernels.cvb0_counts import (COUNTS_STORAGE_LIMIT, SweepBuffers, counts_log_likelihood, counts_sweep,
                                     fixed_point_shift)
from .._kernels.plsa import log_likelihood
from .._kernels.priors import cell_variances
from .._kernels.sparse import column_index
from .._kernels.workers import start_beside
from .._validation import csr_arrays
from ._base import _ROUNDING as ROUNDING
from ._fit_warnings import DEAD_SHARE
from ._collapsed import point_estimates, topic_major
from ._collapsed_start import start_counts, start_responsibilities
from ._moves import (TRIAL_SWEEPS, Cells, Round, ShiftedRows, count_proposal, hopeless, judge, priced_proposal,
                     product_columns, propose, topic_shares)
from ._priors import polya_step, scaled_polya_step, symmetric_polya_step
from ._squarem import extrapolate, step_length

logger = logging.getLogger("topicvb.models.collapsed_lda")  # (the estimator's log, as before the split)

# CVB0 with stored responsibilities and learned priors: the variances of the counts that the prior step reads
# (v_dk, v_wk; a pass over the responsibilities, cell_variances) are refreshed every VARIANCE_EVERY sweeps,
# the counts in every one. A variance enters the step only through the second-order part of E[psi(n + a)] and
# changes slowly; the pass cost as much as a third of a sweep. (The step itself runs beside the sweep: see
# CVBSweeps.advance.)
VARIANCE_EVERY = 4


class CVBSweeps:
    """CollapsedLDA's fit on one matrix: sweeps of a state (the responsibilities ``gamma``, the counts
    ``n_dk``, ``n_wk`` and, for CVB or learned priors, their variances ``v_dk``, ``v_wk``, the priors ``alpha``,
    ``eta``; a dict), the stopping test and the moves (:mod:`._moves`). A matrix prior is kept term-major, ``eta`` (V, K) =
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
        self.prior_learning = PriorLearning(lengths)
        self.cells = Cells(self.indptr, self.indices, self.data) if model.moves else None
        self.base_t = np.ascontiguousarray(eta.T, dtype=np.float64) if isinstance(eta, np.ndarray) else None
        self.copies = None  # the buffers of the counts a prior step beside a sweep reads (see advance)
        # CVB's variances are the sweep's, in the model's dtype; CVB0's (learned priors) only the prior step's, float64
        self.var_dtype = self.dtype if self.second else np.float64
        self.empty = np.empty((0, self.n_topics), dtype=self.dtype)

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
        return self.counts(start_responsibilities(X, rng, self.n_topics, self.dtype, self.model.init, eta))

    def restore(self, state):
        """The state of a checkpoint's arrays, priors not included."""
        return {k: state[k].astype(self.var_dtype if k.startswith("v_") else self.dtype) for k in self.STATE}

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
                 "v_dk": np.empty(shape_d, dtype=self.var_dtype), "v_wk": np.empty(shape_v, dtype=self.var_dtype)}
        # (the variances in the same pass; without them empty arrays of the model's dtype, as the sweeps take)
        v_dk, v_wk = (state["v_dk"], state["v_wk"]) if self.variances else (self.empty, self.empty)
        document_counts(self.indptr, self.data, gamma, state["n_dk"], v_dk, self.variances)
        term_counts(self.colptr, self.positions, self.data, gamma, state["n_wk"], v_wk, self.variances)
        return state

    def exact_counts(self, state):
        """The counts of ``state`` recomputed from its responsibilities, in place (their variances are left as they
        are): the sequential sweep adds each cell's change to the counts, and over many sweeps the rounding of those
        additions drifts (below 0 where a count is near 0: in float32 from counts of about 1e3 a cell). The fitted
        attributes are made from these."""
        document_counts(self.indptr, self.data, state["gamma"], state["n_dk"], self.empty, False)
        term_counts(self.colptr, self.positions, self.data, state["gamma"], state["n_wk"], self.empty, False)

    def _sweep_variances(self, state):
        """The variance arrays the sweep kernels take: CVB's own; for CVB0 empty ones in the model's dtype (its
        learned-prior variances, float64, are the prior step's alone)."""
        if self.second:
            return state["v_dk"], state["v_wk"]
        return self.empty, self.empty

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
        s_dk, s_wk = self._sweep_variances(state)
        if sequential:
            sweep(self.indptr, self.indices, self.data, gamma, n_dk, n_wk, n_k, s_dk, s_wk, v_k, alpha, eta, second)
        else:
            sweep_documents(self.indptr, self.indices, self.data, gamma, n_dk, n_wk, n_k, s_dk, s_wk, v_k, alpha,
                            eta, second, False, 1, 0.0)
            term_counts(self.colptr, self.positions, self.data, gamma, n_wk, s_wk, second)
        (alpha, value), values = job.result() if job is not None else done
        if learning:
            state["alpha"] = alpha
            state.update(self.prior_state(value))
        state["pending"] = self.estimates(state)
        return values

    def _copies(self, n_dk, n_wk, v_dk, v_wk, second):
        """The counts (and, for CVB, whose sweep changes them, the variances) in buffers kept between sweeps;
        CVB0's sweep leaves the variances alone: they are passed as they are, not copied."""
        copied = (n_dk, n_wk, v_dk, v_wk) if second else (n_dk, n_wk)
        if self.copies is None or [c.shape for c in self.copies] != [x.shape for x in copied]:
            self.copies = tuple(np.empty_like(x) for x in copied)
        for into, x in zip(self.copies, copied):
            np.copyto(into, x)
        return self.copies if second else self.copies + (v_dk, v_wk)

    def _beside(self, alpha, value, counts, pending):
        """The work :meth:`advance` does beside a sweep: ((alpha, prior value) after the prior step, when
        ``counts`` (n_dk, n_wk, v_dk, v_wk) are given, else as they are; [the objective of ``pending``, the
        point estimates of :meth:`estimates`] or [])."""
        if counts is not None:
            alpha, value = self.prior_learning.prior_step(alpha, value, *counts, self.learn_alpha, self.learn_eta,
                                                          self.base_t)
        return (alpha, value), self._objectives(pending)

    def estimates(self, state):
        """The point estimates (theta, phi_t) of ``state`` (:func:`._collapsed.point_estimates`)."""
        return point_estimates(state["n_dk"], state["n_wk"], state["alpha"], state["eta"])

    def objective(self, theta, phi_t):
        """The training log-likelihood at the point estimates ``theta``, ``phi_t``."""
        return float(np.sum(log_likelihood(self.indptr, self.indices, self.data, theta, phi_t)))

    def complete(self, state):
        """[The objective of ``state``] when it is pending (:meth:`advance`), else []."""
        return self._objectives(state.pop("pending", None))

    def _objectives(self, pending):
        """[The objective at the point estimates ``pending``], or [] for None."""
        return [] if pending is None else [self.objective(*pending)]

    def release(self):
        """Free what the sweeps keep between them (before the fitted attributes are made)."""

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


class CountSweeps(CVBSweeps):
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
    # A float64 fit keeps the state a move's trial may return to in float32 while the trial runs: the trial's
    # float64 counts and the state's were a move's peak (at K = 100 on 20 Newsgroups 57 MiB against the sweeps'
    # 48). A rejected move resumes from counts rounded to float32 (relative change at most 6e-8, where the
    # stopping test looks at 1e-5; the next sweep rebuilds n_dk and sums n_wk afresh from them).
    NARROW_STATE = True

    def __init__(self, model, X, learn_alpha, learn_eta, eta):
        super().__init__(model, X, learn_alpha, learn_eta, eta)
        self.variances = self.second or learn_alpha or learn_eta
        learning = learn_alpha or learn_eta
        self.refine, self.damping = ((self.LEARNED_REFINE, self.LEARNED_DAMPING) if learning
                                     else (self.REFINE, self.DAMPING))
        total = float(self.data.sum())
        if total > COUNTS_STORAGE_LIMIT:  # (beyond it the fixed-point sums overflow their int64: NaN, silently)
            raise ValueError(f"storage='counts' keeps the counts as 64-bit fixed-point sums, for at most 2**52 "
                             f"({COUNTS_STORAGE_LIMIT:.3g}) tokens in all; X's counts sum to {total:.3g}. Use "
                             "storage='responsibilities' or rescale X.")
        self.shift = fixed_point_shift(total)
        self.max_cells = int(np.max(np.diff(self.indptr))) if self.indptr.shape[0] > 1 else 0
        self.buffers = SweepBuffers()  # (the sweeps' accumulators, allocated once: see counts_sweep)
        self.max_workers = None  # (a move's trial sweeps: one thread, see try_move)
        # SQUAREM cycles (acceleration="squarem", CVB0: CVB's sweep also reads its variances, which the cycle would
        # have to extrapolate too): the copies of the counts at the cycle's first two sweeps, the objectives of
        # the cycles' theta2 and whether the last sweep ended a cycle (see _cycle, settled)
        self.accelerate = model.acceleration == "squarem" and not self.second
        self.in_trial = False
        self.cycle, self.cycle_ends, self.cycle_end = [], [], False

    def _columns(self):
        return None, None  # (no term pass over the cells: each sweep adds the documents' parts)

    def exact_counts(self, state):
        """No responsibilities to recount from: each sweep sums the counts afresh from the documents' parts, so
        they carry no drift; a count that an extrapolation (SQUAREM) left a rounding below 0 is set to 0."""
        for key in ("n_dk", "n_wk"):
            np.maximum(state[key], 0.0, out=state[key])

    def start(self, X, rng, eta):
        n_dk, n_wk, v_dk, v_wk = start_counts(X, rng, self.n_topics, self.dtype, self.model.init, eta, self.variances)
        return {"gamma": None, "n_dk": n_dk, "n_wk": n_wk, "v_dk": v_dk, "v_wk": v_wk}

    def restore(self, state):
        out = {"gamma": None, **{k: state[k].astype(self.dtype) for k in self.STATE}}
        if self.variances and out["v_dk"].shape[0] == 0:  # CVB0's variances are not saved: each sweep remakes them
            out["v_dk"] = np.zeros_like(out["n_dk"])
            out["v_wk"] = np.zeros_like(out["n_wk"])
        if self.accelerate and "cycle_dk" in state:  # (a checkpoint of an accelerated fit: the cycle as it was)
            n_dk, n_wk = len(state["cycle_dk"]), len(state["cycle_wk"])
            if n_dk != n_wk or n_dk > 2:
                raise ValueError(f"the checkpoint's SQUAREM cycle holds {n_dk} copies of n_dk and {n_wk} of n_wk; "
                                 "expected the same number, at most 2. Delete it to start afresh.")
            self.cycle = [(dk.astype(self.dtype), wk.astype(self.dtype))
                          for dk, wk in zip(state["cycle_dk"], state["cycle_wk"])]
            self.cycle_ends = [float(v) for v in state["cycle_ends"]]
            self.cycle_end = bool(state["cycle_end"])
        return out

    def saved_arrays(self, state):
        keep = self.second  # (CVB0 rebuilds its variances in every sweep before it reads them)
        arrays = {"gamma": np.empty((0, self.n_topics), dtype=self.dtype),  # (no responsibilities: an empty array)
                  **{k: (state[k] if keep or not k.startswith("v_") else state[k][:0]) for k in self.STATE}}
        if self.accelerate:  # (the cycle, for an exact resumption)
            for i, (key, counts) in enumerate((("cycle_dk", "n_dk"), ("cycle_wk", "n_wk"))):
                shape = (len(self.cycle),) + state[counts].shape
                arrays[key] = np.array([pair[i] for pair in self.cycle], dtype=self.dtype).reshape(shape)
            arrays["cycle_ends"] = np.asarray(self.cycle_ends, dtype=np.float64)
            arrays["cycle_end"] = np.array(int(self.cycle_end))
        return arrays

    def log_memory(self, state):
        held = sum(state[k].nbytes for k in self.STATE)
        logger.info("%s: counts take %.1f MiB (no responsibilities are stored: storage='counts')", self.owner,
                    held / 2**20)

    def advance(self, state, it):
        """Sweep ``it`` of ``state`` in place (:meth:`_sweep`), within SQUAREM cycles when they apply
        (:meth:`_cycle`; a move's trial sweeps are plain, and so are the ``prior_burn_in`` sweeps before the
        priors are first learned: see :meth:`cycling`). Returns the objectives the sweep reports."""
        if self.cycling(it):
            return self._cycle(state, it)
        if self.accelerate and not self.in_trial:
            # a burn-in sweep: no cycle is open (a checkpoint of an older version, whose cycles ran from the first
            # sweep, may hold one: dropped, so that the fit goes on as a fresh one would)
            self.cycle, self.cycle_ends, self.cycle_end = [], [], False
        return self._sweep(state, it)

    def cycling(self, it):
        """Whether sweep ``it`` runs within a SQUAREM cycle: with ``acceleration="squarem"``, outside a move's
        trial, and when the priors are learned only after the ``prior_burn_in`` sweeps that precede learning.
        Why: the first sweeps from the start move the counts the most, and extrapolating them gained training
        log-likelihood but lost held-out perplexity for about the first 25 sweeps (IMDB reviews, K = 50,
        learned priors: 4,710 after 18 sweeps against the plain sweeps' 4,575; the same fit with its cycles
        from sweep 11 on, 4,602); the fits ended equal (BENCHMARKS.md)."""
        return (self.accelerate and not self.in_trial
                and not (self.learning and it <= self.model.prior_burn_in))

    def _cycle(self, state, it):
        """One sweep of a SQUAREM cycle (:mod:`._squarem`): the first two sweeps of a cycle keep a copy of the
        counts they start from (theta0, theta1); the third starts from the extrapolation of (theta0, theta1,
        theta2 = the current counts) and is undone (counts and priors back to theta2's) when the training
        log-likelihood after it is below theta2's. Reports as a plain sweep does: the objective of the state it
        starts from, theta2's for the third (theta' is not a state of the fit; after an undone step the state is
        theta2 again, whose objective the next sweep reports once more). Records theta2's objective in
        ``cycle_ends`` for :meth:`settled`."""
        self.cycle_end = len(self.cycle) == 2
        if not self.cycle_end:
            self.cycle.append((state["n_dk"].copy(), state["n_wk"].copy()))
            return self._sweep(state, it)
        (a0, b0), (a1, b1) = self.cycle
        self.cycle = []
        s = step_length((a0, b0), (a1, b1), (state["n_dk"], state["n_wk"]))
        if s == -1.0:  # (theta' = theta2: a plain sweep, whose report is theta2's pending objective)
            values = self._sweep(state, it)
            self.cycle_ends += values[-1:]
            return values
        before = self._log_likelihood(state)
        # theta' over theta0's copy, which becomes the state's counts; theta2's arrays are kept aside as they are
        extrapolate(a0, a1, state["n_dk"], s, out=a0)
        extrapolate(b0, b1, state["n_wk"], s, out=b0)
        del a1, b1
        keep = {"n_dk": state["n_dk"], "n_wk": state["n_wk"], **self.priors(state)}
        state["n_dk"], state["n_wk"] = a0, b0
        del a0, b0
        state.pop("pending", None)  # (the sweep from theta' reports nothing: theta2's objective is ``before``)
        self._sweep(state, it)
        after = self._log_likelihood(state)
        undone = after < before
        if undone:  # (theta2 again, its objective left pending: the next sweep reports it for this spent sweep, so
            state.update(keep)  # that the history keeps one value per sweep, as checkpoints and resumption expect)
        logger.debug("%s: SQUAREM step %.3g %s in sweep %d (objective %.17g after it, %.17g before)", self.owner, s,
                     "undone" if undone else "kept", it, after, before)
        self.cycle_ends.append(before)
        return [before]

    def settled(self, history):
        """Plain sweeps: as :meth:`CVBSweeps.settled`. SQUAREM cycles: tested after each cycle's third sweep only,
        on the objectives of the cycles' theta2: the last two cycles each changed it by at most three times ``tol``
        relative (three sweeps' worth), the last by no more than the one before. A sweep right after an
        extrapolation gains little even far from a fixed point, so the plain test on single sweeps stopped such
        fits early; and while learned priors still move, a single cycle's gain can dip below it and rise again
        (IMDB reviews, K = 50: a dip to 1.5e-5 per cycle after 36 sweeps, then 6e-4; the fit stopped there was 2%
        worse in held-out perplexity than after 90 sweeps).

        Two-sided, unlike the plain test: CVB0 is no ascent on the training log-likelihood, and an extrapolation
        kept (its sweep ended above theta2's objective) can leave the counts above the objective of the fixed
        point the sweeps then approach, from above: the objective falls a little every cycle and the later
        extrapolations, which would fall further, are undone. One-sided, the test waited for falls below
        rounding: fits of 20 to 30 plain sweeps ran 120 to 300 (to ``max_iter``), falling by 1e-6 to 1e-11
        relative a sweep."""
        if not self.accelerate:
            return super().settled(history)
        ends, tol = self.cycle_ends, 3 * self.model.tol
        if not (self.cycle_end and len(ends) >= 4):
            return False
        scale = max(abs(ends[-2]), 1e-300)
        last, before = abs(ends[-1] - ends[-2]), abs(ends[-2] - ends[-3])
        if not (last <= tol * scale and before <= tol * scale and last <= max(before, ROUNDING * scale)):
            return False
        return not self.learning or len(history) > self.model.prior_burn_in

    def _sweep(self, state, it):
        """Sweep ``it`` of ``state`` in place, then the learned priors' step. CVB0: the sweep's rebuild gives the
        objective of the state before it (its first guess is that log-likelihood's terms, counts_sweep's
        ``log_likelihood``), so that the stopping test sees each objective one sweep late, as with the stored
        sweeps (:meth:`CVBSweeps.advance`), for no pass of its own; returns [it] when it was pending, and the
        new state's is left pending (:meth:`complete`). CVB (whose first guess carries the variances):
        [the new state's objective], by a pass over the cells."""
        n_dk, n_wk, v_dk, v_wk = state["n_dk"], state["n_wk"], state["v_dk"], state["v_wk"]
        value, eta_t, eta_sum = prior_arrays(state["eta"], self.n_topics)
        if self.buffers.key is None:  # (the sweeps' accumulators are about to be allocated: after the start, a move's
            return_free_memory()      # proposal or a replaced state, the heap's free pages go back first)
        before = None if self.second else np.zeros(n_dk.shape[0])
        counts_sweep(self.indptr, self.indices, self.data, n_dk, v_dk, n_wk, v_wk, state["alpha"], value, eta_t,
                     eta_sum, self.second, self.refine, self.shift, self.max_cells, self.variances, self.damping,
                     self.buffers, self.max_workers, before)
        if (self.learn_alpha or self.learn_eta) and it > self.model.prior_burn_in:
            state["alpha"], value = self.prior_learning.prior_step(state["alpha"], state.get("scale", state["eta"]),
                                                                   n_dk, n_wk, v_dk, v_wk, self.learn_alpha,
                                                                   self.learn_eta, self.base_t)
            state.update(self.prior_state(value))
        if self.second:
            return [self._log_likelihood(state)]
        values = [float(before.sum())] if state.pop("pending", None) is not None else []
        state["pending"] = True
        return values

    def _log_likelihood(self, state):
        """The training log-likelihood of ``state``'s point estimates, from the counts (a pass over the cells)."""
        value, eta_t, eta_sum = prior_arrays(state["eta"], self.n_topics)
        return counts_log_likelihood(self.indptr, self.indices, self.data, state["n_dk"], state["n_wk"],
                                     state["alpha"], value, eta_t, eta_sum)

    def estimates(self, state):
        return True  # (a pending objective is computed from the state itself: see complete)

    def complete(self, state):
        return [self._log_likelihood(state)] if state.pop("pending", None) is not None else []

    def release(self):
        self.buffers.release()  # (the accumulators)
        return_free_memory()

    def try_move(self, state, history, it, candidate, rng):
        if candidate == 0:  # a new round (see _moves.Round)
            self.round = Round()
        # (a SQUAREM cycle starts afresh after a move, tried or not, its copies not kept meanwhile; an accepted move's
        # state is tested for convergence only after a whole cycle of its own)
        self.cycle, self.cycle_end = [], False
        self.release()  # (the proposal's arrays take the accumulators' place; the trial sweeps allocate them again)
        n_dk, n_wk, alpha, eta = state["n_dk"], state["n_wk"], state["alpha"], state["eta"]
        # q(z_dw = k) proportional to (n_dk + alpha_k)(n_wk + eta_wk) / (n_k + eta_sum_k), the factors read from the
        # counts where needed (no (D, K) or (V, K) copy; the numbers those whole arrays would hold)
        term_weights = ShiftedRows(n_wk, eta, n_wk.sum(axis=0) + (eta.sum(axis=0) if isinstance(eta, np.ndarray)
                                                                   else eta * self.n_terms))
        column = product_columns(self.cells, ShiftedRows(n_dk, alpha), term_weights)
        found = count_proposal(self.cells, column, n_dk, n_wk, alpha, topic_major(eta), candidate, DEAD_SHARE, rng,
                               logger, self.owner, round_=self.round)
        del column, term_weights  # (not needed in the trial sweeps)
        if found is None:
            return "done"
        new_dk, new_wk, what = found
        trial = {"gamma": None, "n_dk": new_dk.astype(self.dtype, copy=False),  # (the proposal's own arrays)
                 "n_wk": new_wk.astype(self.dtype, copy=False),
                 "v_dk": state["v_dk"].copy(), "v_wk": state["v_wk"].copy(), **self.priors(state)}
        del n_dk, n_wk
        # while the trial runs, a float64 fit keeps the state it may return to in float32 (NARROW_STATE)
        narrowed = self.NARROW_STATE and self.dtype == np.float64
        if narrowed:
            return_free_memory()  # (the proposal's temporaries, first)
            for key in self.STATE:
                state[key] = state[key].astype(np.float32)
        values, accepted = [], False
        # the trial's sweeps on one thread: the trial's counts are a second copy of the state's, and one thread adds
        # into one (V, K) accumulator instead of one per thread, so that a move's peak stays near a sweep's
        # (the counts do not depend on the thread count)
        self.max_workers, self.in_trial = 1, True
        try:
            while len(values) < TRIAL_SWEEPS and not hopeless(history, values, TRIAL_SWEEPS):
                # (each trial sweep's objective at once, the judge reads them all: CVB's advance gives it, CVB0's
                # is completed; the objective of the state before is none of them)
                swept = self.advance(trial, it + len(values) + 1)
                values += (swept if self.second else []) + self.complete(trial)
            accepted = judge(history, values, TRIAL_SWEEPS, logger, self.owner, what)
        finally:
            self.max_workers, self.in_trial = None, False
            self.release()
            if narrowed and not accepted:  # (the trial's arrays freed first)
                trial = found = new_dk = new_wk = None
                for key in self.STATE:
                    state[key] = state[key].astype(np.float64)
        return (trial, values) if accepted else None


# A weak Gamma(shape, rate) hyperprior on each learned prior value: it keeps a prior from running off
# where the counts say little (few documents, an unused topic) and is negligible against a real corpus's
# counts (the fixed point's denominator grows with the number of documents, resp. of terms).
HYPER_SHAPE, HYPER_RATE = 1.0, 1.0


class PriorLearning:
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
