"""CVB0 / CVB sweeps that store counts only: each document recomputes its responsibilities (issue #22).

The stored-responsibility sweeps (:mod:`.cvb0`) keep gamma, a K-vector per non-zero cell: 8 K bytes
per cell, 800 MB for a million cells at K = 100. Here the state is the counts alone, n_dk (D, K),
n_wk (V, K) (and CVB's variances v_dk, v_wk): a sweep freezes the topic-term counts, and each
document, on its own (so documents run in parallel), rebuilds its cells' responsibilities from its
counts, makes one sequential CVB pass over its cells, and adds its new responsibilities into the next
sweep's topic-term counts.

One document d, cells (d, w) with counts c (notation of :mod:`.cvb0`; eta_wk and eta_sum_k are the
prior of the pair and the topic's total, V eta for a scalar prior):

1. *Rebuild.* The frozen n_wk hold each cell's contribution c gamma_dw from the last sweep, which is
   not stored. It is estimated by the CVB0 fixed point it satisfied: first
   g0_k propto (n_dk + alpha_k)(n_wk + eta_wk)/(n_k + eta_sum_k), then ``refine`` steps
   g_k propto (n_dk - g_k + alpha_k)(n_wk - g_k + eta_wk)/(n_k - g_k + eta_sum_k) (own token excluded),
   all cells of the document against the same counts, each step moving g a share ``damping`` of the
   way to its update. The undamped steps overshoot and do not settle (the first guess, counting the
   cell's own share, is too sharp; its update, excluding all of it, too flat: on AP at K = 50 the
   rebuilt g of a converged CVB0 state is off by 0.028 (L1 per cell) after one step and still by
   0.022 after six); moving 0.65 of the way they converge (0.0086 after two steps, 0.0026 after
   four). Where the steps converge, the rebuilt g at a fixed point of the sweep is the responsibility
   the cell had, so the scheme's fixed points are CVB0's; the remaining error of a finite number of
   steps lets a fit drift from them (from a converged AP K = 50 fit with learned priors, 40 sweeps
   with one undamped step end 0.3% worse in held-out perplexity, eta learned 15% larger; with two
   steps at 0.65 they stay where the stored sweeps do). Away from a fixed point the estimate errs by
   about the change of gamma in a sweep.
2. The document's counts are reset to sum_w c g (and CVB's v_dk to sum_w c g (1 - g)), so that they
   agree exactly with the document's rebuilt responsibilities.
3. *Pass.* In order, each cell: the CVB0 (CVB) update of :mod:`.cvb0` with the document counts less
   the cell's current g (exact: they are the document's own running counts) and the topic counts less
   the rebuilt g (the estimate of the cell's share of the frozen counts); the document counts move by
   c (g_new - g). (Until its turn a cell's current g is its rebuilt g, so both come from one row.)
4. The final g of each cell, known after its turn, is added at once, c g (and c g (1 - g)), into the
   next sweep's topic-term counts.

Thread-count independence: the additions of step 4 go into one int64 array per thread in fixed point
(2^-``shift`` of a token: integer sums do not depend on their order), summed and converted once
after the sweep. So the new counts are the same for any number of threads, and for any order in which the
threads take the documents: sum_k n_wk equals the term's total count to within 2^-shift per cell. The
documents are cut into contiguous units of about equal cells (:func:`unit_bounds`) that the threads claim one
at a time (:func:`topicvb._kernels.workers.run_claimed`), so that a thread slowed by other work on its core does
not leave the others waiting at the end of the sweep. Memory: the counts, one (V, K) int64 array per thread (two for
CVB) and per-thread scratch of the longest document (cells x K floats).

Speed (a sweep makes 2 + ``refine`` evaluations of K topics per cell, against the stored sweep's
one): each evaluation is a loop over the topics with no branch (a scalar prior's eta comes as a
row of K like a matrix prior's; CVB's variance factor is a second loop), so it runs in vector
registers; the first guess multiplies the term's row by one per-document vector (n_dk + alpha_k) /
(n_k + eta_sum_k); normalising sums in eight partial sums (a fixed order, as a vector unit adds); the
rows of n_wk and of the accumulators, read at random terms, are prefetched a few cells ahead
(:func:`_prefetch`). On 20 Newsgroups at K = 100 (``refine`` = 1, one thread) a sweep took 0.15 s,
the stored sweep 0.21 s.
"""

import llvmlite.ir as llvm_ir
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .workers import n_workers, run_claimed


COUNTS_STORAGE_LIMIT = 2.0 ** 52  # the most tokens the fixed-point sums hold with at least 8 bits after the point


def fixed_point_shift(total_count: float) -> int:
    """Bits after the binary point of the fixed-point sums: as many as leave room for ``total_count``
    tokens (plus a factor of 4 of headroom) in an int64, at most 52 (a float64's precision)."""
    need = int(np.ceil(np.log2(max(float(total_count), 1.0) + 1.0))) + 2
    return int(max(8, min(52, 62 - need)))


def counts_sweep(indptr, indices, data, n_dk, v_dk, n_wk, v_wk, alpha, eta, eta_t, eta_sum, second_order, refine,
                 shift, max_cells=None, variances=None, damping=1.0, buffers=None, max_workers=None,
                 log_likelihood=None):
    """One sweep of the counts-only CVB0 (CVB with ``second_order``), updating every count in place.

    indptr : int64 (D + 1,); indices : int32 (nnz,); data : float64 (nnz,)
    n_dk, v_dk : (D, K) (v_dk: (0, K) unless variances are kept); n_wk, v_wk : (V, K) likewise
    variances : keep v_dk, v_wk up to date (default: ``second_order``; CVB0 keeps them for learned priors)
    alpha : float64 (K,); eta, eta_t, eta_sum : the prior as :func:`.cvb0.prior_arrays` gives it
    refine : exclusion steps of the rebuild (>= 0); damping : the share of the way each step moves (0, 1]
    shift : the fixed-point bits (:func:`fixed_point_shift`)
    max_cells : the largest number of cells of a document (computed when None)
    buffers : a :class:`SweepBuffers` kept between sweeps (the accumulators allocated once, not per sweep), or
        None (allocated here)
    max_workers : at most this many threads (each adds a (V, K) int64 accumulator; the result is the same)
    log_likelihood : a float64 (D,) array (CVB0 only: ``second_order`` False), or None: its entries become the
        documents' terms of :func:`counts_log_likelihood` of the counts *before* the sweep (the rebuild's first
        guess is that sum's terms; empty documents' entries are left as they are)
    Returns the mean absolute change of the responsibilities per cell and topic (rebuilt to final).
    """
    n_docs = indptr.shape[0] - 1
    n_terms, n_topics = n_wk.shape
    variances = bool(second_order) if variances is None else bool(variances) or bool(second_order)
    if max_cells is None:
        max_cells = int(np.max(np.diff(indptr))) if n_docs else 0
    matrix = eta_t.shape[0] > 0
    # the prior as rows of K: a scalar prior's eta repeated (a matrix prior's rows are eta_t's); the topics' totals
    eta_row = np.full(n_topics, 0.0 if matrix else float(eta))
    eta_k = np.ascontiguousarray(eta_sum if matrix else np.full(n_topics, float(eta) * n_terms), dtype=np.float64)
    n_k = n_wk.sum(axis=0, dtype=np.float64)
    inv_z = 1.0 / (np.maximum(n_k, 0.0) + eta_k)  # the rebuild's first guess excludes nothing
    workers = n_workers(n_docs, work=(2 + refine) * 4 * indices.shape[0] * n_topics)
    workers = workers if max_workers is None else max(1, min(workers, int(max_workers)))
    bounds = unit_bounds(indptr, indices.shape[0])  # the units the threads claim (see run_claimed)
    changes = np.zeros((bounds.shape[0] - 1, n_topics))  # sum |g_new - g_rebuilt| per unit and topic
    acc, vacc, scratch = (SweepBuffers() if buffers is None else buffers).get(workers, n_terms, n_topics, variances,
                                                                             max_cells)
    # without variances a row of zeros of each stands in (never read: the kernel reads v_d, v_w with CVB only)
    v_rows_d = v_dk if variances else np.zeros((1, n_topics), dtype=v_dk.dtype)
    v_rows_w = v_wk if variances else np.zeros((1, n_topics), dtype=v_wk.dtype)
    run_claimed(_counts_documents, bounds.shape[0] - 1, bounds, indptr, indices, data, n_dk, v_rows_d, n_wk, v_rows_w,
                n_k, v_wk.sum(axis=0, dtype=np.float64) if second_order else eta_k, inv_z,
                np.ascontiguousarray(alpha, dtype=np.float64), eta_row, eta_t, eta_k, bool(second_order), variances,
                int(refine), float(damping), float(2.0 ** shift), acc, vacc, scratch,
                np.empty(0) if log_likelihood is None else log_likelihood, changes, workers=workers)
    unit = 2.0 ** -shift
    np.multiply(_summed(acc), unit, out=n_wk)
    if variances:
        np.multiply(_summed(vacc), unit, out=v_wk)
    return float(changes.sum()) / max(1, indices.shape[0] * n_topics)


#: The documents of a pass are cut into units of about this many cells (at most MAX_UNITS of them), which the
#: threads claim one at a time (:func:`topicvb._kernels.workers.run_claimed`): small enough that threads of
#: different speeds end within a unit of each other, large enough that claiming one (a call from Python, some
#: tens of microseconds) is a small share of its work (a unit of 8,192 cells is 8,192 K-topic updates or more).
UNIT_CELLS = 8192
MAX_UNITS = 512


def unit_bounds(indptr, nnz: int):
    """Document indices ``[0, b_1, ..., D]`` cutting the documents into contiguous units of about equal cells
    (``nnz`` in all; see UNIT_CELLS): the same for any number of threads, so that per-unit results are too."""
    n_docs = indptr.shape[0] - 1
    n_units = int(max(1, min(MAX_UNITS, n_docs, nnz // UNIT_CELLS)))
    bounds = np.searchsorted(indptr, np.arange(n_units + 1) * (nnz / n_units), side="left")
    bounds[0], bounds[-1] = 0, n_docs
    return bounds


class SweepBuffers:
    """The per-thread int64 accumulators and float64 scratch of :func:`counts_sweep`, allocated at a fit's first
    sweep and zeroed for each next one with the same shapes (the fit's thread count and matrix do not change).
    :meth:`release` frees them (before a move's proposal, which then takes their place)."""

    def __init__(self):
        self.key, self.arrays = None, None

    def get(self, workers, n_terms, n_topics, variances, max_cells):
        """(acc, vacc, scratch), all zero."""
        key = (workers, n_terms, n_topics, bool(variances), max_cells)
        if key != self.key:
            self.release()  # (the old ones freed first)
            # per worker: 4 rows (see _counts_documents), a row per cell, and rows of padding so that no two
            # workers write to the same (pair of) cache lines
            self.arrays = (np.zeros((workers, n_terms, n_topics), dtype=np.int64),
                           np.zeros((workers if variances else 0, n_terms, n_topics), dtype=np.int64),
                           np.zeros((workers, 4 + max_cells + -(-16 // n_topics), n_topics), dtype=np.float64))
            self.key = key
        else:
            for a in self.arrays:
                a.fill(0)
        return self.arrays

    def release(self):
        self.key, self.arrays = None, None


def _summed(parts):
    """The sum of the per-worker int64 arrays, added into the first (exact, in any order; no temporary)."""
    for part in parts[1:]:
        parts[0] += part
    return parts[0]


AHEAD = 2  # the sweep fetches the rows of the cell this many cells ahead into the cache (see _prefetch)


@intrinsic(prefer_literal=True)
def _prefetch(typingctx, row, write):
    """Ask the processor to bring every cache line of ``row`` (a contiguous 1-D array) into its caches, for
    reading (``write`` False) or writing, without waiting for them (llvm.prefetch: a hint, changing no result).

    The sweep's rows n_wk[w] and the accumulators' rows are read at random terms (tens of MB at K = 100,
    beyond the level-2 cache); fetching the rows of a cell a few cells ahead lets their loads overlap the
    arithmetic of the cells in between (20% of a sweep at K = 100; reading them early does not: a load
    that misses stalls the pipeline, a prefetch does not)."""
    if not isinstance(write, types.BooleanLiteral):
        return None  # (``write`` must be a constant: the instruction's operand)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p, i32 = llvm_ir.IntType(8).as_pointer(), llvm_ir.IntType(32)
        fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], llvm_ir.FunctionType(
            llvm_ir.VoidType(), [i8p, i32, i32, i32]))
        rw = i32(int(write.literal_value))
        base = builder.bitcast(ary.data, i8p)
        size = builder.mul(builder.extract_value(ary.shape, 0), ary.itemsize)
        line = context.get_constant(types.intp, 64)
        with cgutils.for_range_slice(builder, context.get_constant(types.intp, 0), size, line) as (offset, _):
            builder.call(fn, [builder.gep(base, [offset]), rw, i32(3), i32(1)])  # (locality 3: keep in all levels)
        return context.get_dummy_value()
    return types.void(row, write), codegen


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)
def _normalise(out, eta_w, matrix):
    """Scale the weights ``out`` to sum to one (every weight underflowed: uniform over the topics the term may be in);
    returns their sum before.
    The sum runs in eight interleaved partial sums, a fixed order that a vector unit can follow (one running sum
    is a chain of dependent additions that the compiler may not reorder)."""
    n_topics = out.shape[0]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    k = 0
    while k + 8 <= n_topics:
        s0 += out[k]
        s1 += out[k + 1]
        s2 += out[k + 2]
        s3 += out[k + 3]
        s4 += out[k + 4]
        s5 += out[k + 5]
        s6 += out[k + 6]
        s7 += out[k + 7]
        k += 8
    while k < n_topics:
        s0 += out[k]
        k += 1
    total = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    weights = total
    if not total > 0.0:
        total = 0.0
        for k in range(n_topics):
            out[k] = 1.0 if not matrix or eta_w[k] > 0.0 else 0.0
            total += out[k]
    scale = 1.0 / total
    for k in range(n_topics):
        out[k] *= scale
    return weights


@njit(cache=True, nogil=True, inline="always")  # (inlined: a call passing its 14 arrays cost about 7% of a sweep)
def _cell(out, n_d, v_d, n_w, v_w, n_k, v_k, alpha, eta_w, eta_k, second_order, matrix, own_d, own_w):
    """out[:] = the normalised update of one cell from the rows of its document (n_d, v_d) and term (n_w, v_w,
    eta_w): the document counts less ``own_d`` (its current responsibilities), the topic counts less ``own_w``
    (its share of the frozen counts), each one token, clamped at 0 (rows of zeros exclude nothing)."""
    n_topics = out.shape[0]
    for k in range(n_topics):  # (no branch in this loop: it runs in vector registers)
        a = max(n_d[k] - own_d[k], 0.0) + alpha[k]
        b = max(n_w[k] - own_w[k], 0.0) + eta_w[k]
        z = max(n_k[k] - own_w[k], 0.0) + eta_k[k]
        out[k] = a * b / z
    if second_order:
        for k in range(n_topics):
            b = max(n_w[k] - own_w[k], 0.0) + eta_w[k]
            if b > 0.0:
                a = max(n_d[k] - own_d[k], 0.0) + alpha[k]
                z = max(n_k[k] - own_w[k], 0.0) + eta_k[k]
                xd, xw = own_d[k] * (1.0 - own_d[k]), own_w[k] * (1.0 - own_w[k])
                vd, vw, vk = max(v_d[k] - xd, 0.0), max(v_w[k] - xw, 0.0), max(v_k[k] - xw, 0.0)
                out[k] *= np.exp(-vd / (2.0 * a * a) - vw / (2.0 * b * b) + vk / (2.0 * z * z))
    _normalise(out, eta_w, matrix)


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False, inline="always")
def _first_guesses(start, end, indices, data, n_d, v_d, n_wk, v_wk, n_k, v_k, inv_z, alpha, alpha_sum, eta_row,
                   eta_t, eta_k, second_order, work):
    """The rebuild's first guess of cells ``start`` to ``end`` of one document into rows 4.. of ``work`` (a b / z,
    nothing excluded; CVB: the full update with the variance factor, excluding rows of zeros). For CVB0 its
    unnormalised weights sum to theta_d . phi_w times N_d + sum alpha, so it also returns the cells' terms of the
    frozen counts' log-likelihood (:func:`counts_log_likelihood`), summed; CVB: 0."""
    n_topics = n_wk.shape[1]
    matrix = eta_t.shape[0] > 0
    zero, first = work[1], work[2]
    # (n_dk + alpha_k) / (n_k + eta_sum_k) is the same for all cells
    length = 0.0
    for k in range(n_topics):
        first[k] = (max(n_d[k], 0.0) + alpha[k]) * inv_z[k]
        length += max(n_d[k], 0.0)
    norm, ll = 1.0 / (length + alpha_sum), 0.0
    for p in range(start, end):
        w = indices[p]
        if p + AHEAD < end:
            _prefetch(n_wk[indices[p + AHEAD]], False)
        g, n_w, eta_w = work[4 + p - start], n_wk[w], eta_t[w] if matrix else eta_row
        if second_order:
            _cell(g, n_d, v_d, n_w, v_wk[w], n_k, v_k, alpha, eta_w, eta_k, True, matrix, zero, zero)
        else:
            for k in range(n_topics):
                g[k] = first[k] * (max(n_w[k], 0.0) + eta_w[k])
            ll += data[p] * np.log(_normalise(g, eta_w, matrix) * norm)
    return ll


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a claimed-unit kernel: see workers.run_claimed)
def _counts_documents(slot, first, stop, bounds, indptr, indices, data, n_dk, v_dk, n_wk, v_wk, n_k, v_k, inv_z,
                      alpha, eta_row, eta_t, eta_k, second_order, variances, refine, damping, scale, acc, vacc,
                      scratch, log_likelihood, changes):
    """:func:`counts_sweep` of units ``first`` to ``stop - 1`` (documents bounds[first] to bounds[stop], excluded)
    on the thread of ``slot`` (its accumulators and scratch); each unit's sum |g_new - g_rebuilt| per topic
    into its row of ``changes``."""
    n_topics = n_wk.shape[1]
    matrix = eta_t.shape[0] > 0
    objective = log_likelihood.shape[0] > 0 and not second_order
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    work = scratch[slot]
    # rows 4.. of ``work``: the cells' g; ``zero`` stays zero; ``chg`` sums |g_new - g_rebuilt| per topic (of the
    # unit, copied to its row of ``changes`` at its end)
    tmp, chg = work[0], work[3]
    acc_w = acc[slot]
    for u in range(first, stop):
        for k in range(n_topics):
            chg[k] = 0.0
        for d in range(bounds[u], bounds[u + 1]):
            start, end = indptr[d], indptr[d + 1]
            if start == end:
                continue
            n_d = n_dk[d]
            v_d = v_dk[d if variances else 0]
            # 1. rebuild: rows 4.. of ``work`` hold the rebuilt g (the cells' shares of the frozen counts)
            ll = _first_guesses(start, end, indices, data, n_d, v_d, n_wk, v_wk, n_k, v_k, inv_z, alpha, alpha_sum,
                                eta_row, eta_t, eta_k, second_order, work)
            if objective:
                log_likelihood[d] = ll
            # then the ``refine`` steps (each cell's update excluding its rebuilt g from both counts, all cells against
            # the same counts, becomes its rebuilt g) and, at step == refine, the pass
            for step in range(refine + 1):
                passing = step == refine
                if passing:
                    # 2. the document's counts from the rebuilt g
                    n_d[:] = 0.0
                    if variances:
                        v_d[:] = 0.0
                    for p in range(start, end):
                        c = data[p]
                        g = work[4 + p - start]
                        for k in range(n_topics):
                            n_d[k] += c * g[k]
                        if variances:
                            for k in range(n_topics):
                                v_d[k] += c * g[k] * (1.0 - g[k])
                # 3. (the pass) in order: a cell's current g is its rebuilt g until its turn, so one row serves as both
                for p in range(start, end):
                    c = data[p]
                    w = indices[p]
                    if passing and p + AHEAD < end:
                        _prefetch(acc_w[indices[p + AHEAD]], True)
                    g = work[4 + p - start]
                    _cell(tmp, n_d, v_d, n_wk[w], v_wk[w if variances else 0], n_k, v_k, alpha,
                          eta_t[w] if matrix else eta_row, eta_k, second_order, matrix, g, g)
                    if not passing:
                        if damping == 1.0:
                            for k in range(n_topics):
                                g[k] = tmp[k]
                        else:
                            for k in range(n_topics):
                                g[k] += damping * (tmp[k] - g[k])
                        continue
                    if variances:
                        vrow = vacc[slot, w]
                        for k in range(n_topics):
                            v_d[k] += c * (tmp[k] * (1.0 - tmp[k]) - g[k] * (1.0 - g[k]))
                            vrow[k] += np.int64(np.rint(c * tmp[k] * (1.0 - tmp[k]) * scale))
                    # 4. the cell's new g, at once into the next sweep's topic-term counts, in fixed point
                    row = acc_w[w]
                    for k in range(n_topics):
                        n_d[k] += c * (tmp[k] - g[k])
                        chg[k] += abs(tmp[k] - g[k])
                        row[k] += np.int64(np.rint(c * tmp[k] * scale))
        for k in range(n_topics):
            changes[u, k] = chg[k]


def counts_log_likelihood(indptr, indices, data, n_dk, n_wk, alpha, eta, eta_t, eta_sum):
    """sum_dw c_dw log sum_k theta_dk phi_kw of the point estimates theta_dk = (n_dk + alpha_k) /
    (N_d + sum alpha), phi_kw = (n_wk + eta_wk) / (n_k + eta_sum_k), computed from the counts on the fly
    (no (D, K) or (V, K) copy); per-document sums, so the result does not depend on the thread count.
    Each document's row (n_dk + alpha_k) / (n_k + eta_sum_k) is made once, so that a cell's sum is a dot
    product with its term's row of n_wk + eta (in eight partial sums, a fixed order that a vector unit can
    follow: see _normalise), the term rows fetched a few cells ahead (_prefetch); the threads claim units of
    documents holding about equal numbers of cells (:func:`unit_bounds`)."""
    n_docs = indptr.shape[0] - 1
    n_topics = n_wk.shape[1]
    matrix = eta_t.shape[0] > 0
    out = np.zeros(n_docs, dtype=np.float64)
    inv_total = 1.0 / (n_wk.sum(axis=0, dtype=np.float64) + (eta_sum if matrix else eta * n_wk.shape[0]))
    workers = n_workers(n_docs, work=indices.shape[0] * n_topics)
    bounds = unit_bounds(indptr, indices.shape[0])  # the units the threads claim (see run_claimed)
    rows = np.zeros((workers, n_topics + 16))  # (a row per thread, padded: no two threads share a cache line)
    run_claimed(_log_likelihood_documents, bounds.shape[0] - 1, bounds, indptr, indices, data, n_dk, n_wk,
                np.ascontiguousarray(alpha, dtype=np.float64), np.full(n_topics, 0.0 if matrix else float(eta)), eta_t,
                inv_total, rows, out, workers=workers)
    return float(out.sum())


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a claimed-unit kernel: see workers.run_claimed)
def _log_likelihood_documents(slot, first, stop, bounds, indptr, indices, data, n_dk, n_wk, alpha, eta_row, eta_t,
                              inv_total, rows, out):
    """:func:`counts_log_likelihood` of units ``first`` to ``stop - 1`` (documents bounds[first] to bounds[stop],
    excluded), with the scratch row of ``slot``."""
    n_topics = n_wk.shape[1]
    matrix = eta_t.shape[0] > 0
    row = rows[slot]
    alpha_sum = 0.0
    for k in range(n_topics):
        alpha_sum += alpha[k]
    for d in range(bounds[first], bounds[stop]):
        start, end = indptr[d], indptr[d + 1]
        if start == end:
            continue
        n_d = n_dk[d]
        length = 0.0
        for k in range(n_topics):
            length += n_d[k]
        norm = 1.0 / (length + alpha_sum)
        for k in range(n_topics):
            row[k] = (n_d[k] + alpha[k]) * inv_total[k]
        total = 0.0
        for p in range(start, end):
            if p + AHEAD < end:
                _prefetch(n_wk[indices[p + AHEAD]], False)
            w = indices[p]
            n_w, eta_w = n_wk[w], eta_t[w] if matrix else eta_row
            s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
            k = 0
            while k + 8 <= n_topics:
                s0 += row[k] * (n_w[k] + eta_w[k])
                s1 += row[k + 1] * (n_w[k + 1] + eta_w[k + 1])
                s2 += row[k + 2] * (n_w[k + 2] + eta_w[k + 2])
                s3 += row[k + 3] * (n_w[k + 3] + eta_w[k + 3])
                s4 += row[k + 4] * (n_w[k + 4] + eta_w[k + 4])
                s5 += row[k + 5] * (n_w[k + 5] + eta_w[k + 5])
                s6 += row[k + 6] * (n_w[k + 6] + eta_w[k + 6])
                s7 += row[k + 7] * (n_w[k + 7] + eta_w[k + 7])
                k += 8
            while k < n_topics:
                s0 += row[k] * (n_w[k] + eta_w[k])
                k += 1
            total += data[p] * np.log((((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))) * norm)
        out[d] = total
