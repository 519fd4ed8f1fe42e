"""The variational E-step of LDA (Blei, Ng & Jordan 2003), shared by BatchLDA, OnlineLDA and the
distributed runner.

Notation (literature symbols):

============  ===============  =====================================================================
symbol        shape            meaning
============  ===============  =====================================================================
D, V, K                        documents in the batch, terms, topics
alpha         (K,)             Dirichlet prior on document-topic proportions
gamma         (D, K)           variational Dirichlet parameters of theta_d
lam           (K, V)           variational Dirichlet parameters of beta_k (not seen here)
ebeta_t       (V, K)           exp(E[log beta_kw]) stored term-major and rescaled per term:
                               ebeta_t[w, k] = exp(E[log beta_kw] - s_w), s_w = max_k E[log beta_kw]
etheta        (D, K)           exp(E[log theta_dk] - m_d), m_d = max_k E[log theta_dk]
phinorm       (nnz,)           sum_k etheta_dk ebeta_t[w, k] for each non-zero (d, w)
sstats_t      (V, K)           sum_d c_dw phi_dwk, the expected topic-term counts (term-major)
============  ===============  =====================================================================

phi_dwk = etheta_dk ebeta_t[w, k] / phinorm_dw is unchanged by the per-term and per-document
rescaling, which keeps every factor in (0, 1] and so avoids underflow in float32 and for tiny
priors. The loops run over the non-zeros of each row weighted by their counts c_dw (counts may be
fractional weights), never over individual tokens, and never hold an nnz x K array.

How a document is computed (the costs are measured in ``BENCHMARKS.md``):

* **Its own block of ebeta_t, topic-major.** The document's rows of ebeta_t are copied once per
  E-step into a (K, n) block (n its non-zeros), so that phinorm = block^T et and the update's
  sum_w c_dw ebeta_t[w] / phinorm_dw = block (c / phinorm) run over contiguous memory, four topics
  per pass, with no horizontal sums (``vec.matvec_t``, ``vec.matvec_add``). A document with more
  than BLOCK / K non-zeros is processed in pieces, the piece's rows copied for every pass.
* **Topics below the unit roundoff are left out.** After a few updates a document's gamma
  concentrates on a few topics and the others' et_k fall by tens of orders of magnitude (with
  alpha = 0.01, exp(psi(0.01)) is about e^-100). Topic k is left out of the passes while
  et_k < UNIT * min_w phinorm_w * min(alpha_k / N_d, 1 / K) (N_d the document's tokens, UNIT = 2^-53):
  then the left-out topics together add less than a unit roundoff to every phinorm, and each one's
  expected count et_k sum_w c_dw ebeta_t[w, k] / phinorm_dw is below UNIT * alpha_k, so its gamma
  entry alpha_k + (that count) rounds to alpha_k, which is what it is set to (its phi is taken as 0,
  also in the statistics). The minimum of phinorm is that of the previous evaluation, and the test
  is repeated with the new one (all topics are used if it fails), so the promise always holds. The
  results are those of the dense computation up to floating-point rounding. A converged document
  with a small alpha keeps a handful of topics.
* **Only what is used is gathered.** A document that continues from ``gamma_prev`` first tries the
  topics on which gamma_prev is not alpha (checked as above), and the block's columns are copied
  only for the topics taken in; a restarted document starts with every topic.
* **psi and exp only where gamma is not alpha.** A left-out topic's gamma entry is exactly alpha_k,
  so its psi is psi(alpha_k), computed once, and with a symmetric alpha its et is shared
  (``theta_row``, bit for bit the dense rows).
* **Compact statistics.** Each document's final et is kept for its active topics only (values,
  topic indices, count), and the column pass over the CSR matrix reads just those
  (``sparse.column_accumulate_compact``).

Each document iterates gamma_d <- alpha + etheta_d * sum_w c_dw ebeta_t[w] / phinorm_dw (the
gamma and phi updates of coordinate ascent, phi kept implicit) until the mean absolute change of
gamma_d is below ``tol`` or ``max_iter`` updates were made. phinorm is always recomputed from the
latest gamma, so the returned statistics are those of the phi that is optimal for the returned
gamma.

With ``accelerate`` the same map F(g) = alpha + etheta(g) * sum_w c_dw ebeta_t[w] / phinorm_dw(g) is
run under SQUAREM (Varadhan & Roland 2008, scheme S3), which extrapolates along the last two
updates: g1 = F(g), g2 = F(g1), r = g1 - g, v = g2 - 2 g1 + g, step s = -|r| / |v| (at most -1),
g' = g - 2 s r + s^2 v, the step halved towards -1 while a component of g' falls below alpha / 2 (s
= -1 gives g' = g2, the plain double update); the next cycle starts from g'. Every update still
counts towards ``max_iter`` and the stopping rule is the plain one (mean absolute change of one
update below ``tol``). A document that must not end below its start (one continuing from
``gamma_prev``) keeps g' only when its document bound is at least that of g1, so the bound never
goes down within a cycle or across cycles; the others accept g' unchecked (a restarted document's
result is compared with ``gamma_prev`` as below). It needs far fewer updates per document than the
plain ascent, to slightly higher document bounds (``BENCHMARKS.md``).

Starting points are the caller's ``gamma``. BatchLDA passes, per E-step, random draws of mean 1 and
standard deviation 0.1 (``models._start.random_start``) for a rotating share of the documents (restarts
explore far better than warm starts alone, whose early commitments stick: on a synthetic corpus warm
starts lock early mistakes in) and the previous iteration's solution for the others. To keep the
batch ELBO monotone it also passes that previous solution as ``gamma_prev``: when a restarted
document's solution has a lower document-level bound than ``gamma_prev`` under the same topics, the
document continues from ``gamma_prev`` instead, so no document's bound term ever goes down. A
document whose start is its ``gamma_prev`` needs no comparison: each plain update maximises the
bound over phi and then over gamma, and SQUAREM keeps only extrapolations that did not lose, so the
ascent from ``gamma_prev`` never ends below it. Either way the E-step evaluates the bound of
``gamma_prev`` under the current topics, and ``e_step_indexed`` returns it: BatchLDA's bound of the
previous iteration. OnlineLDA passes no ``gamma_prev`` (a mini-batch's documents keep whatever their
E-step reaches).
"""

import numpy as np
from numba import njit

from .sparse import column_accumulate_compact, column_index
from .special import digamma_row
from .doc_ascent import evaluate, iterate, squarem
from .workers import n_workers, run_claimed, unit_starts

CHUNK = 64  # documents per parallel work item (scratch buffers are allocated per item)
BLOCK = 1 << 19  # at most this many entries (K x non-zeros) in a document's gathered block of ebeta_t


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a claimed-unit kernel: see workers.run_claimed)
def _doc_updates(slot, first, stop, units, n_chunks, indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, etheta,
                 topics, counts, phinorm, max_iter, tol, plain, prev_objective, n_iter, scratch, active, states,
                 gathered, missing, lgamma_work, compact, psi_alpha, symmetric, blocks, quotients):
    """The document loop over the work items units[first] to units[stop] (excluded) of the n_chunks (see
    :func:`_documents`, which allocates the scratch arrays, one row per item, and has the threads claim the units;
    ``blocks[slot]`` and ``quotients[slot]`` are this thread's gathered block and c_dw / phinorm_dw). Item c holds
    the documents c, c + n_chunks, c + 2 n_chunks, ... (strided: see _kernels/__init__.py).
    ``plain``: None for SQUAREM-accelerated updates, True for plain ones (see the ascent in the loop below)."""
    # One long function on purpose: the per-item scratch is carved out once (no allocation per
    # document), and the three paths of a document (continuing from gamma_prev, restarted, restarted
    # but falling back on gamma_prev) share that scratch and the gathered block; split into functions,
    # the scratch would have to travel as a dozen arguments through each.
    n_docs = indptr.shape[0] - 1
    n_topics = alpha.shape[0]
    # runtime booleans for the flags passed down: literal True/False arguments would make numba compile
    # every callee once per combination (a cold first fit took a minute)
    yes = n_docs >= 0
    no = not yes
    compare = gamma_prev.shape[0] == n_docs
    block = blocks[slot]  # the document's rows of ebeta_t (width: see _documents)
    r = quotients[slot]  # c_dw / phinorm_dw, or a phinorm of gamma_prev
    width = block.shape[1]
    for c in range(units[first], units[stop]):
        elog = scratch[c, 0]
        et = scratch[c, 1]
        acc = scratch[c, 2]
        elog_prev = scratch[c, 3]
        et_prev = scratch[c, 4]
        g1 = scratch[c, 5]
        g2 = scratch[c, 6]
        limit = scratch[c, 7]
        rows = active[c, 0]
        rows_prev = active[c, 1]  # (the active topics of gamma_prev's evaluation, which must not overwrite g's)
        state = states[c, 0]
        state_prev = states[c, 1]
        lgw = lgamma_work[c]
        have = gathered[c]
        th = (psi_alpha, symmetric, lgw, compact[c], have, missing[c])  # scratch of theta_row and the gathering
        for d in range(c, n_docs, n_chunks):  # strided: see _kernels/__init__.py
            start = indptr[d]
            end = indptr[d + 1]
            g = gamma[d]
            pn = phinorm[start:end]
            resident = end - start <= width  # (else the passes gather the rows piece by piece)
            n_iter[d] = 0
            restarted = False  # whether g starts elsewhere than gamma_prev (from which ascent cannot lose)
            if compare:
                for k in range(n_topics):
                    if g[k] != gamma_prev[d, k]:
                        restarted = True
                        break
            empty = start == end  # (the optimum is gamma = alpha; the objective of gamma_prev is still needed)
            state[0] = 0.0  # no minimum of phinorm yet: the first evaluation uses every topic, or
            state[1] = 1.0 if compare and not restarted and not empty else 0.0  # those gamma_prev uses (checked)
            state_prev[0] = 0.0  # (gamma_prev's objective from scratch: every topic)
            state_prev[1] = 0.0
            for k in range(n_topics + 1):  # the block's columns are gathered as topics become active
                have[k] = 0
            tokens = 0.0
            for p in range(start, end):
                tokens += data[p]
            for k in range(n_topics):
                limit[k] = min(alpha[k] / tokens, 1.0 / n_topics) if tokens > 0.0 else 1.0 / n_topics
            # at most three steps: the objective of gamma_prev from scratch (an empty document, or a
            # restarted one after its ascent), the ascent from the start, a second ascent from gamma_prev
            # (a restarted document whose solution is below it); every evaluation is one call site of
            # evaluate, and ascent is inlined at one site (each site compiles it again)
            safe = no  # (SQUAREM checks its extrapolations: the document must not end below gamma_prev)
            ready = no
            n_rows = n_topics
            fresh = 0.0
            if compare and not restarted and not empty:  # continuing from gamma_prev: record its objective
                n_rows, prev_objective[d] = evaluate(g, elog, et, indices, data, start, end, ebeta_t, block,
                                                     resident, pn, rows, limit, state, alpha, th, yes, yes)
                safe = yes
                ready = yes
            for attempt in range(3):
                if empty or attempt == 1:  # the objective of gamma_prev (elog, et, phinorm to scratch)
                    if not compare:
                        break
                    old = evaluate(gamma_prev[d], elog_prev, et_prev, indices, data, start, end, ebeta_t, block,
                                   resident, r[:end - start], rows_prev, limit, state_prev, alpha, th, yes, yes)[1]
                    prev_objective[d] = old
                    if empty or not old > fresh:
                        break
                    for k in range(n_topics):  # keep improving the previous solution instead
                        g[k] = gamma_prev[d, k]
                    safe = yes
                    ready = no
                    n_rows = n_topics
                    continue
                # (squarem and iterate are inlined, one call site each; ``plain`` is None or a bool rather than
                # a bool flag, so numba drops the branch its type rules out: a default E-step has no plain ascent)
                if plain is None:
                    more, n_rows = squarem(g, elog, et, acc, g1, g2, indices, data, start, end, ebeta_t, block,
                                           resident, pn, r, rows, limit, state, alpha, max_iter, tol, safe, ready,
                                           n_rows, th)
                else:
                    more, n_rows = iterate(g, elog, et, acc, indices, data, start, end, ebeta_t, block, resident, pn,
                                           r, rows, limit, state, alpha, max_iter, tol, ready, n_rows, th)
                n_iter[d] += more
                if attempt == 2 or not restarted:
                    break
                # elog, et and phinorm hold g's values: its objective, to compare with gamma_prev's
                fresh = evaluate(g, elog, et, indices, data, start, end, ebeta_t, block, resident, pn, rows, limit,
                                 state, alpha, th, yes, no)[1]
            if empty:
                for k in range(n_topics):
                    g[k] = alpha[k]
                counts[d] = 0
                continue
            if n_topics > 65536:  # (topic indices are stored as uint16: more topics keep whole rows)
                n_rows = n_topics
            counts[d] = n_rows  # et of the active topics, for the statistics (see _documents)
            if n_rows == n_topics:
                for k in range(n_topics):
                    etheta[d, k] = et[k]
            else:
                for j in range(n_rows):
                    etheta[d, j] = et[rows[j]]
                    topics[d, j] = rows[j]


def _documents(indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, max_iter, tol, accelerate):
    """The document loop on a copy of gamma: (gamma, (etheta, topics, counts), phinorm, updates per
    document, objective of gamma_prev per document (zeros without gamma_prev)).

    (etheta, topics, counts) hold each document's et of its final evaluation, compactly: the
    counts[d] active topics are topics[d, :counts[d]] with values etheta[d, :counts[d]], or, when
    counts[d] == K, etheta[d] is the whole row in topic order; the others' phi is below the unit
    roundoff (see etheta_and_phinorm) and taken as 0, as their gamma entries are.

    This function and the three below are plain Python around the one compiled document loop
    (``_doc_updates``): compiled, each would be a separate numba function whose machine code holds
    (and whose first compilation re-optimises) the whole document loop again, about 2 s of a cold
    first fit apiece; here they only allocate arrays.
    """
    n_docs = indptr.shape[0] - 1
    alpha = np.ascontiguousarray(alpha, dtype=np.float64)
    gamma = np.array(gamma, copy=True, order="C")
    etheta = np.empty_like(gamma)
    topics = np.empty(gamma.shape, dtype=np.uint16)  # half the memory of int32 (K <= 65536)
    counts = np.empty(n_docs, dtype=np.int64)
    phinorm = np.empty(indices.shape[0], dtype=np.float64)
    prev_objective = np.zeros(n_docs, dtype=np.float64)
    n_iter = np.zeros(n_docs, dtype=np.int64)
    n_topics = alpha.shape[0]
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    # per work item: eight (K,) float64 rows (elog, et, acc, elog_prev, et_prev, g1, g2, limit), the
    # active topics, the state of the unit-roundoff test, the gathering flags, lgamma scratch
    scratch = np.empty((n_chunks, 8, n_topics), dtype=np.float64)
    active = np.empty((n_chunks, 2, n_topics), dtype=np.int64)
    states = np.zeros((n_chunks, 2, 2), dtype=np.float64)
    gathered = np.zeros((n_chunks, n_topics + 1), dtype=np.int64)
    missing = np.empty((n_chunks, n_topics), dtype=np.int64)
    lgamma_work = np.empty((n_chunks, 2 * n_topics), dtype=np.float64)
    compact = np.empty((n_chunks, n_topics), dtype=np.int64)
    psi_alpha = np.empty(n_topics, dtype=np.float64)
    digamma_row(alpha, n_topics, psi_alpha)
    symmetric = bool(np.all(alpha == alpha[0]))
    plain = None if accelerate else True  # (see doc_ascent.ascent)
    # per thread: the gathered block of a document's rows of ebeta_t, K x width with width the longest
    # document (at most BLOCK / K: a longer document is gathered piece by piece), and its c_dw / phinorm_dw
    work = 16 * indices.shape[0] * n_topics  # (a few updates of every entry)
    workers = n_workers(n_chunks, work)
    longest = max(1, int(np.max(np.diff(indptr)))) if n_docs else 1
    blocks = np.empty((workers, n_topics, min(longest, max(1, BLOCK // n_topics))), dtype=ebeta_t.dtype)
    quotients = np.empty((workers, longest), dtype=np.float64)
    # the items in units that the threads claim one at a time (run_claimed; a small batch keeps one contiguous
    # share per thread: see unit_starts): each document's results are its own, so which thread takes which unit
    # changes nothing
    units = unit_starts(n_chunks, workers, work)
    run_claimed(_doc_updates, units.shape[0] - 1, units, n_chunks, indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev,
                etheta, topics, counts, phinorm, int(max_iter), float(tol), plain, prev_objective, n_iter, scratch,
                active, states, gathered, missing, lgamma_work, compact, psi_alpha, symmetric, blocks, quotients,
                workers=workers)
    return gamma, (etheta, topics, counts), phinorm, n_iter, prev_objective


def e_step(indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, max_iter, tol, with_sstats, accelerate):
    """Run the VB E-step on a CSR batch with the topics fixed.

    indptr : int64 array of shape (D + 1,); indices : int32 array of shape (nnz,)
    data : float array of shape (nnz,), non-negative counts (or weights)
    ebeta_t : float array of shape (V, K), rescaled exp(E[log beta]) (see module notes)
    alpha : float64 array of shape (K,), positive
    gamma : float array of shape (D, K), initial gamma (not modified)
    gamma_prev : float array of shape (D, K) with the previous solution to fall back on (see the
        module notes), or of shape (0, K) for none (not modified)
    max_iter : int, cap on gamma updates per document; tol : float, mean-change tolerance
    with_sstats : bool, whether to compute the sufficient statistics
    accelerate : bool, SQUAREM-accelerated updates (see the module notes) instead of plain ones

    Returns gamma (new array, dtype of the input gamma, shape (D, K)), sstats_t (float array of
    shape (V, K) with sum_d c_dw phi_dwk, or shape (0, K) when ``with_sstats`` is False) and the
    number of gamma updates made per document (int64, (D,)).
    """
    if not with_sstats:
        gamma, _, _, n_iter, _ = _documents(indptr, indices, data, ebeta_t, alpha, gamma, gamma_prev, max_iter, tol,
                                            accelerate)
        return gamma, np.zeros((0, alpha.shape[0]), dtype=ebeta_t.dtype), n_iter
    colptr, positions, rows = column_index(indptr, indices, ebeta_t.shape[0])
    gamma, sstats_t, n_iter, _ = e_step_indexed(indptr, indices, data, colptr, positions, rows, ebeta_t, alpha, gamma,
                                                gamma_prev, max_iter, tol, accelerate)
    return gamma, sstats_t, n_iter


def e_step_indexed(indptr, indices, data, colptr, positions, rows, ebeta_t, alpha, gamma, gamma_prev, max_iter,
                   tol, accelerate):
    """:func:`e_step` with the sufficient statistics, given the matrix's column index
    (``colptr, positions, rows = sparse.column_index(indptr, indices, V)``), which a caller that
    runs many E-steps on the same matrix (BatchLDA) computes once.

    Returns gamma, sstats_t and the updates per document as :func:`e_step`, and the document
    objective of ``gamma_prev`` under these topics (float64, (D,); zeros without ``gamma_prev``): per
    document ``lda_doc_bound`` of gamma_prev less its constant sum_w c_dw s_w + lnG(sum alpha) -
    sum lnG(alpha). The E-step computes it anyway (continuing documents start from gamma_prev,
    restarted ones compare with it), so BatchLDA takes the bound of its previous iteration from here
    instead of a separate pass over the corpus.
    """
    gamma, etheta, phinorm, n_iter, prev_objective = _documents(indptr, indices, data, ebeta_t, alpha, gamma,
                                                                gamma_prev, max_iter, tol, accelerate)
    weight = np.divide(data, phinorm, dtype=np.float64)  # (float64 division, as the loop it replaces)
    sstats_t = np.empty(ebeta_t.shape, dtype=ebeta_t.dtype)
    column_accumulate_compact(colptr, positions, rows, weight, etheta[0], etheta[1], etheta[2], ebeta_t, sstats_t)
    return gamma, sstats_t, n_iter, prev_objective


def document_objectives(indptr, indices, data, ebeta_t, alpha, gamma):
    """The document objective of each row of ``gamma`` under these topics, as the last output of
    :func:`e_step_indexed` gives it for ``gamma_prev`` (float64, (D,)), without any update: the
    E-step's own evaluation (the active topics of gamma first, checked), cheaper than ``lda_doc_bound``."""
    # (no update is made, so the ascent flag changes nothing; True is the E-step's own compiled variant)
    _, _, _, _, objective = _documents(indptr, indices, data, ebeta_t, alpha, gamma, gamma, 0, 0.0, True)
    return objective
