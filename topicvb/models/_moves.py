"""Moves that take a settled fit out of a poor optimum: free a topic and re-seed it by a split.

A mean-field fit that has settled can hold two kinds of flaw that local updates do not undo: a
topic that explains two unrelated groups of documents (two true topics merged) and, since the
number of topics is fixed, somewhere else a topic that is wasted (dead: almost no tokens; or a
near-duplicate of another topic). Hughes & Sudderth's memoized VB (bnpy) fixes such states with
birth, merge and delete moves that are kept only when the objective improves (Bryant & Sudderth
2012 for the merge). For a fixed number of topics the useful move is their composition:

1. **free** one topic slot ``f``: a dead topic is deleted (its responsibilities are shared among
   the other topics in proportion), or the smaller of two near-duplicate topics is merged into the
   larger (responsibilities added: q(z = into) <- q(z = into) + q(z = f));
2. **split** the topic ``k`` whose tokens a two-topic model explains best: the sub-corpus
   ``c_dw q(z_dw = k)`` is fitted with two topics (CVB0 from two anchor documents), and each cell's
   mass on ``k`` is divided between ``k`` and ``f`` by the sub-model's responsibilities (a birth
   of ``f`` from ``k``);
3. **price** it: the split's gain against the freed slot's cost (what the merge loses, on the
   same scale: the two-topic minus the one-topic log-likelihood of the pair's tokens); a proposal
   whose gain is well below its cost (PRICE_SLACK) is not tried;
4. **accept** the proposal only if, after a few sweeps of the full model, the objective is above
   what the current state can reach in as many sweeps (its last gain extrapolated, which bounds a
   settling fit's next gains): otherwise the state is restored exactly. The objective on the fit's
   path is therefore never lowered by a move.

With a matrix topic-word prior (guided topics) ``eta`` is a (K, V) topic-major array wherever these
functions take it. A topic whose prior row is not constant (a seeded topic, or one with excluded terms)
keeps its slot and identity: it is never freed (deleted or merged away), never merged into and never
split, so its counts change only by an accepted move of other topics (a deleted dead topic's tokens are
shared among all the others in proportion, which keeps every excluded pair at 0). The other topics'
rows are constant, c_k: the proposals price them with that value as their symmetric eta.

The functions here are pure NumPy over the responsibilities of the CSR cells: CollapsedLDA keeps
them, ``gamma`` (n_nonzero, K) (:func:`propose`); PLSA and BatchLDA keep expected counts and compute
a topic's responsibilities when asked (:func:`product_columns`, :func:`propose_counts`,
:func:`count_proposal`, :func:`vb_proposal`). The drivers own the iterations and the objective
(:func:`judge`, :func:`hopeless`).
"""

from __future__ import annotations

import numpy as np

from .._config import return_free_memory

from .._kernels.cvb0 import sweep

# Sweeps (iterations) of the full model before a proposal is judged, and proposals tried in a row
# (each freeing the next candidate slot) before the moves give up.
TRIAL_SWEEPS = 5
MAX_REJECTED = 3
# A fit that has not settled LATE_MOVES iterations before max_iter tries its moves there (once), so that a
# slowly converging fit (PLSA's EM on a hard corpus) still gets them; the rest of max_iter lets an
# accepted move settle.
LATE_MOVES = 2 * TRIAL_SWEEPS
# Dead topics a stochastic fit (OnlineLDA, StochasticCollapsedLDA) re-seeds after one pass, at most;
# StochasticCollapsedLDA, whose re-seeds cost more than its passes, splits one of its largest topics.
RESEEDS_PER_PASS = 3
RESEED_LARGEST = 10
# A proposal is tried when its split gains more than this share of what freeing the slot costs: after
# a move the full model re-arranges and wins back part of the cost. Measured with every proposal tried
# (KOS K = 20, 50; AP K = 50; 20 Newsgroups K = 20): the accepted ones had gain / cost 0.52-0.89, the
# rejected ones 0.20-0.40.
PRICE_SLACK = 0.5
# Sweeps of the two-topic sub-model that proposes a split.
SPLIT_SWEEPS = 15
# The most similar pairs of topics whose merge is priced; the cheapest are offered after the dead topics.
MERGE_CANDIDATES = 5
# A cell takes part in a split when at least this many of its tokens are on the topic (smaller
# masses stay with the topic: they barely move the sub-model and cost as much as a full cell).
MIN_CELL_MASS = 0.05
# Documents (a sample drawn by mass) whose cells rank the topics by their split gain, and the
# sub-model's sweeps when ranking.
RANK_DOCS = 100
RANK_SWEEPS = 8


def topic_priors(eta, n_topics):
    """(each topic's prior value (K,), which topics are fixed in place (K,) bool) for a float ``eta`` or a
    (K, V) matrix: a topic whose row is not constant is fixed (:mod:`._moves`: never freed, merged into or
    split); a constant row's value is its symmetric eta (a fixed row's largest value, never used)."""
    if not (isinstance(eta, np.ndarray) and eta.ndim == 2):
        return np.full(n_topics, float(eta)), np.zeros(n_topics, dtype=bool)
    eta = np.asarray(eta, dtype=np.float64)
    top = eta.max(axis=1)
    return top, top > eta.min(axis=1)


def _topic_eta(eta, values, k):
    """Topic k's symmetric eta: ``eta`` itself for a scalar prior (the scalar code's exact value)."""
    return float(values[k]) if isinstance(eta, np.ndarray) else eta


def _pair_eta(eta, values, a, b):
    """The symmetric eta that prices a pair of topics (their mean for a matrix prior)."""
    return 0.5 * float(values[a] + values[b]) if isinstance(eta, np.ndarray) else eta


def topic_shares(gamma, data):
    """Each topic's share of the tokens, sum_cells c gamma_k / sum c (:func:`shares_of`).

    Where every c gamma underflows (weights near the dtype's smallest number: float32 ones of about 1e-45)
    the totals are all 0; the shares do not depend on the scale of the weights, so they are then taken from
    the weights over their largest."""
    totals = data @ gamma
    if not float(totals.sum()) > 0.0 and data.shape[0] > 0:  # (in float64: NumPy 1 divided float32 subnormals by
        totals = (np.asarray(data, dtype=np.float64) / float(data.max())) @ gamma  # their reciprocal, inf)
    return shares_of(totals)


def shares_of(totals):
    """``totals`` (K,) over their sum. Totals that sum to 0 (all underflowed; they were divided by a floor of
    1e-300, which is 0 in float32: 0 / 0, a RuntimeWarning and NaN shares) or to no number give equal shares:
    no topic is measurably used more than another, so none is dead."""
    total = float(totals.sum())
    if not total > 0.0:
        return np.full(totals.shape[0], 1.0 / totals.shape[0])
    return totals / total


class Cells:
    """The CSR cells of a corpus with each cell's document, built once per fit. ``data`` is kept as given
    (float32 or float64; its uses multiply it by responsibilities in float64, the numbers of a float64 copy
    without one); ``rows`` are int32 where the documents allow it (int64 doubled them)."""

    def __init__(self, indptr, indices, data):
        self.indptr, self.indices = indptr, indices
        self.data = data if data.dtype in (np.float32, np.float64) else np.asarray(data, dtype=np.float64)
        n_docs = indptr.shape[0] - 1
        self.rows = np.repeat(np.arange(n_docs, dtype=np.int32 if n_docs < 2**31 else np.int64), np.diff(indptr))

    def sub_corpus(self, weight, rng=None, max_docs=None):
        """The cells with weight >= MIN_CELL_MASS, over the documents that have one (at most
        ``max_docs`` of them, drawn without replacement in proportion to their mass, when given):
        (positions in the full CSR, their sub-document numbers, terms, weights, share of the mass kept)."""
        keep = np.flatnonzero(weight >= MIN_CELL_MASS)
        docs, rows = np.unique(self.rows[keep], return_inverse=True)
        share = 1.0
        if max_docs is not None and docs.shape[0] > max_docs:
            mass = np.bincount(rows, weights=weight[keep])
            chosen = np.zeros(docs.shape[0], dtype=bool)
            chosen[rng.choice(docs.shape[0], size=max_docs, replace=False, p=mass / mass.sum())] = True
            share = float(mass[chosen].sum() / mass.sum())
            keep, rows = keep[chosen[rows]], np.cumsum(chosen)[rows[chosen[rows]]] - 1
        return keep, rows, np.ascontiguousarray(self.indices[keep]), weight[keep], share


def two_topic_gain(rows, terms, weight, first, n_terms, alpha, eta):
    """How much better two topics explain a sub-corpus than one: its log-likelihood at the two-topic
    point estimates (responsibility ``first`` of each cell for the first topic) minus that at the
    one-topic estimate. The same number prices a split (after fitting ``first``) and a merge (with
    the pair's current responsibilities: what merging them loses)."""
    n_docs = int(rows.max()) + 1 if rows.shape[0] else 0
    if n_docs == 0:
        return 0.0
    resp = np.stack([first, 1.0 - first], axis=1) * weight[:, None]
    n_dk = np.stack([np.bincount(rows, weights=resp[:, i], minlength=n_docs) for i in (0, 1)], axis=1)
    n_wk = np.stack([np.bincount(terms, weights=resp[:, i], minlength=n_terms) for i in (0, 1)], axis=1)
    mass = n_dk.sum(axis=1)
    theta = (n_dk + alpha) / (mass + 2 * alpha)[:, None]
    phi = (n_wk + eta) / (n_wk.sum(axis=0) + n_terms * eta)
    two = np.log(np.maximum(np.einsum("pk,pk->p", theta[rows], phi[terms]), 1e-300))
    one = np.log((n_wk.sum(axis=1)[terms] + eta) / (mass.sum() + n_terms * eta))
    return float(weight @ (two - one))


def merge_cost(cells, first, second, n_terms, alpha, eta):
    """What merging two topics loses (:func:`two_topic_gain` of their current split), from their
    responsibilities ``first`` and ``second`` over the cells."""
    weight = first + second  # (then the pair's mass per cell, in float64; in place when the sum is float64)
    weight = np.multiply(weight, cells.data, out=weight if weight.dtype == np.float64 else None, dtype=np.float64)
    keep, rows, terms, weight, _ = cells.sub_corpus(weight)
    first, second = first[keep], second[keep]
    return two_topic_gain(rows, terms, weight, first / np.maximum(first + second, 1e-300), n_terms, alpha, eta)


def slots_to_free(cells, column, shares, n_wk, n_terms, alpha, eta, dead_share, merges=True):
    """Candidate slots with their price, cheapest first: ``(cost, slot, into)`` with ``into`` = -1 for
    a dead topic (deleted, cost 0) or the topic a near-duplicate is merged into (the larger of the
    pair; cost :func:`merge_cost`). ``column(k)`` gives topic k's responsibilities over the cells,
    ``shares`` the topics' shares of the tokens. Near-duplicates: the MERGE_CANDIDATES pairs with the
    largest cosine similarity of their expected topic-term counts (columns of ``n_wk``, (V, K)); with
    ``merges`` False, the dead topics only. ``eta``: a float or a (K, V) matrix, whose fixed topics
    (:func:`topic_priors`) are neither freed nor merged into; a slot is offered only while some other
    topic can be split to re-seed it."""
    K = shares.shape[0]
    values, fixed = topic_priors(eta, K)
    dead = [int(k) for k in np.argsort(shares, kind="stable") if shares[k] < dead_share / K and not fixed[k]]
    out = [(0.0, k, -1) for k in dead]
    if K >= 3 and merges:
        sim, squares = _gram(n_wk)
        norms = np.sqrt(squares)
        sim = sim / np.maximum(np.outer(norms, norms), 1e-300)
        sim[np.tril_indices(K)] = -np.inf
        sim[dead, :] = -np.inf
        sim[:, dead] = -np.inf
        sim[fixed, :] = -np.inf
        sim[:, fixed] = -np.inf
        pairs = []
        for flat in np.argsort(-sim, axis=None, kind="stable")[:MERGE_CANDIDATES]:
            a, b = divmod(int(flat), K)
            if np.isfinite(sim[a, b]):
                small, large = (a, b) if shares[a] <= shares[b] else (b, a)
                cost = merge_cost(cells, column(a), column(b), n_terms, 0.5 * (alpha[a] + alpha[b]),
                                  _pair_eta(eta, values, a, b))
                pairs.append((cost, small, large))
        out += sorted(pairs)
    if np.any(fixed):  # (a slot needs a topic to split: one not fixed, not the slot, not merged into)
        free = set(np.flatnonzero(~fixed).tolist())
        out = [entry for entry in out if free - {entry[1], entry[2]}]
    return out


def _gram(counts):
    """(counts.T @ counts, the squared norms of the columns) in float64 for (V, K) counts: float64 counts directly
    (the expressions the merge candidates always used), float32 ones by blocks of rows (no float64 copy of the
    whole array)."""
    if counts.dtype == np.float64:
        return counts.T @ counts, np.einsum("vk,vk->k", counts, counts)
    gram, squares = np.zeros((counts.shape[1], counts.shape[1])), np.zeros(counts.shape[1])
    step = max(1, (1 << 18) // max(1, counts.shape[1]))
    for r in range(0, counts.shape[0], step):
        block = np.asarray(counts[r:r + step], dtype=np.float64)
        gram += block.T @ block
        squares += np.einsum("vk,vk->k", block, block)
    return gram, squares


def free_slot(gamma, slot, into):
    """Empty topic ``slot`` of ``gamma`` in place: merged into ``into``, or (``into`` < 0) deleted,
    its mass shared among the other topics in proportion to theirs (uniformly where it had all)."""
    g = gamma[:, slot].copy()
    gamma[:, slot] = 0
    if into >= 0:
        gamma[:, into] += g
        return
    rest = gamma.sum(axis=1)
    K = gamma.shape[1]
    # (the floor in rest's dtype: 1e-300 is 0 in float32, and a row wholly on the slot divided 1 by it)
    scale = np.where(rest > 0, 1.0 / np.maximum(rest, np.finfo(rest.dtype).tiny), 0.0)
    gamma *= scale[:, None]
    empty = rest <= 0
    if np.any(empty):
        gamma[empty] = 1.0 / (K - 1)
        gamma[empty, slot] = 0


def split_topic(cells, gamma_k, n_terms, alpha, eta, rng, max_docs=None, sweeps=SPLIT_SWEEPS):
    """Fit two topics to the tokens on one topic; returns (positions, fraction, gain).

    ``fraction`` is, for each cell at ``positions``, the share of its mass on the topic that goes to
    the first sub-topic; ``gain`` is :func:`two_topic_gain` of the fitted split. Anchors: a document
    drawn in proportion to its mass on the topic and the document least like it, whose term profiles
    set the cells' starting responsibilities; then CVB0 sweeps of the two-topic model. With
    ``max_docs`` the sub-model sees a sample of the topic's documents (drawn in proportion to their
    mass on it) and the gain is scaled up to all of them: a cheap estimate to rank the topics.
    """
    keep, rows, terms, weight, share = cells.sub_corpus(np.multiply(cells.data, gamma_k, dtype=np.float64), rng,
                                                        max_docs)
    n_docs = int(rows.max()) + 1 if rows.shape[0] else 0
    if n_docs < 2:
        return keep, np.ones(keep.shape[0]), 0.0
    mass = np.bincount(rows, weights=weight, minlength=n_docs)
    first = int(rng.choice(n_docs, p=mass / mass.sum()))
    profile = np.bincount(terms[rows == first], weights=weight[rows == first], minlength=n_terms)
    norms = np.sqrt(np.bincount(rows, weights=weight * weight, minlength=n_docs))
    cos = np.bincount(rows, weights=weight * profile[terms], minlength=n_docs) / np.maximum(
        norms * np.sqrt(profile @ profile), 1e-300)
    big = mass >= np.median(mass)
    second = int(np.flatnonzero(big)[np.argmin(cos[big])])
    other = np.bincount(terms[rows == second], weights=weight[rows == second], minlength=n_terms)
    p1 = (profile + eta) / (profile.sum() + n_terms * eta)
    p2 = (other + eta) / (other.sum() + n_terms * eta)
    sub_gamma = np.empty((keep.shape[0], 2))
    sub_gamma[:, 0] = p1[terms] / (p1[terms] + p2[terms])
    sub_gamma[:, 1] = 1.0 - sub_gamma[:, 0]
    sub_indptr = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_docs), out=sub_indptr[1:])
    sub_alpha = np.full(2, float(alpha))
    # (counted in NumPy: the parallel count kernels cost more to start than these few cells take)
    n_dk = np.stack([np.bincount(rows, weights=weight * sub_gamma[:, i], minlength=n_docs) for i in (0, 1)], axis=1)
    n_wk = np.stack([np.bincount(terms, weights=weight * sub_gamma[:, i], minlength=n_terms) for i in (0, 1)],
                    axis=1)
    empty = np.empty((0, 2))
    for _ in range(sweeps):
        sweep(sub_indptr, terms, weight, sub_gamma, n_dk, n_wk, n_wk.sum(axis=0), empty, empty, np.zeros(2),
              sub_alpha, float(eta), False)
    gain = two_topic_gain(rows, terms, weight, sub_gamma[:, 0], n_terms, float(alpha), eta) / share
    return keep, sub_gamma[:, 0], gain


class Round:
    """What the proposals of one round share: they are tried in a row on one state (a rejected proposal
    restores it exactly), so the priced slots (:func:`slots_to_free`) and the topics' ranking gains
    (:func:`best_split`) are computed once per round. A driver starts a new Round whenever its state
    has changed."""

    def __init__(self):
        self.slots = None
        self.gains = {}


def best_split(cells, column, skip, n_terms, alpha, eta, rng, final_column=None, ranking=None):
    """The topic (not in ``skip``) whose split gains most, ranked on a sample of each topic's
    documents, and its split fitted on all of them: (topic, positions, fraction, gain).
    ``final_column(k)``, when given, is the column the chosen topic is split from (default ``column``);
    ``ranking``, a dict topic -> ranking gain, keeps the gains for the next proposal of the round.
    ``eta``: a float or a (K, V) matrix, whose fixed topics (:func:`topic_priors`) are not split; None
    when no topic is left to split."""
    values, fixed = topic_priors(eta, alpha.shape[0])
    gains = np.full(alpha.shape[0], -np.inf)
    ranking = {} if ranking is None else ranking
    candidates = [k for k in range(alpha.shape[0]) if k not in skip and not fixed[k]]
    if not candidates:
        return None
    for k in candidates:
        if k not in ranking:
            ranking[k] = split_topic(cells, column(k), n_terms, alpha[k], _topic_eta(eta, values, k), rng, RANK_DOCS,
                                     RANK_SWEEPS)[2]
        gains[k] = ranking[k]
    k = int(np.argmax(gains))
    keep, fraction, gain = split_topic(cells, (final_column or column)(k), n_terms, alpha[k],
                                       _topic_eta(eta, values, k), rng)
    return k, keep, fraction, gain


def propose(cells, gamma, n_terms, alpha, eta, slot, into, rng, column=None, ranking=None):
    """The proposal of freeing ``slot`` (see :func:`free_slot`) and re-seeding it by the best split
    of another topic, as a new responsibility array; returns (gamma, split topic, its gain).

    ``column(k)``, when given, reads topic k's responsibilities (a contiguous copy of ``gamma[:, k]``);
    the topics are ranked on the columns before the slot is freed (a merge does not change the topics
    that may be split; a deletion shifts them by the dead topic's few tokens). The
    topic a near-duplicate was merged into is not split: that would only re-divide the pair. None when
    no topic is left to split (``eta`` a matrix whose other topics are all fixed).
    """
    new = gamma.copy()
    free_slot(new, slot, into)
    found = best_split(cells, column or (lambda j: gamma[:, j]), (slot, into), n_terms, alpha, eta, rng,
                       lambda j: new[:, j], ranking)
    if found is None:
        return None
    k, keep, fraction, gain = found
    mass = new[keep, k]
    new[keep, k] = mass * fraction
    new[keep, slot] = mass * (1.0 - fraction)
    return new, k, gain


def propose_counts(cells, column, n_dk, n_wk, n_terms, alpha, eta, slot, into, rng, skip=(), ranking=None):
    """:func:`propose` for models that keep expected counts rather than responsibilities (PLSA,
    BatchLDA): ``column(k)`` computes topic k's responsibilities over the cells from the model's
    state; ``n_dk`` (D, K) and ``n_wk`` (V, K) are its expected counts. Returns new counts
    (n_dk, n_wk), the split topic and its gain. A deleted (dead) topic's counts are dropped, its few
    tokens left to the next E-step. None when no topic is left to split."""
    found = best_split(cells, column, (slot, into) + tuple(skip), n_terms, alpha, eta, rng, ranking=ranking)
    if found is None:
        return None
    k, keep, fraction, gain = found
    # (the moved mass first: the column's temporaries are freed before the new counts are made)
    moved = np.multiply(cells.data[keep], column(k)[keep], dtype=np.float64) * (1.0 - fraction)
    return_free_memory()  # (the split's and the pricing's temporaries, before the new counts: _config)
    n_dk, n_wk = n_dk.copy(), n_wk.copy()
    if into >= 0:
        n_dk[:, into] += n_dk[:, slot]
        n_wk[:, into] += n_wk[:, slot]
    n_dk[:, slot] = np.bincount(cells.rows[keep], weights=moved, minlength=n_dk.shape[0])
    n_wk[:, slot] = np.bincount(cells.indices[keep], weights=moved, minlength=n_wk.shape[0])
    n_dk[:, k] = np.maximum(n_dk[:, k] - n_dk[:, slot], 0.0)
    n_wk[:, k] = np.maximum(n_wk[:, k] - n_wk[:, slot], 0.0)
    return n_dk, n_wk, k, gain


NORM_BLOCK = 1 << 12  # cells per block of product_columns' normaliser


class ShiftedRows:
    """The rows of (base + offset) / divisor, gathered where they are read and never made whole: a
    :func:`product_columns` factor that is a shift of a (rows, K) count array (``offset``: a number, a (K,) row
    or an array of base's shape; ``divisor``: a (K,) row or None). Each gathered entry is the number the whole
    array would hold there: the same operations on the same operands, in the dtypes the whole expression
    would take (fixed here, so that a gathered column does not follow a scalar's promotion rules)."""

    def __init__(self, base, offset, divisor=None):
        self.base, self.offset, self.divisor = base, offset, divisor
        self.full = isinstance(offset, np.ndarray) and offset.ndim == 2
        self.sum_dtype = np.result_type(base, offset)
        self.dtype = self.sum_dtype if divisor is None else np.result_type(self.sum_dtype, divisor)

    def rows(self, index):
        out = np.add(self.base[index], self.offset[index] if self.full else self.offset, dtype=self.sum_dtype)
        return out if self.divisor is None else np.divide(out, self.divisor, dtype=self.dtype)

    def column(self, index, k):
        if self.full:
            offset = self.offset[index, k]
        else:
            offset = self.offset[k] if isinstance(self.offset, np.ndarray) else self.offset
        out = np.add(self.base[index, k], offset, dtype=self.sum_dtype)
        return out if self.divisor is None else np.divide(out, self.divisor[k], dtype=self.dtype)


def _rows(weights, index):
    return weights.rows(index) if isinstance(weights, ShiftedRows) else weights[index]


def _column(weights, index, k):
    return weights.column(index, k) if isinstance(weights, ShiftedRows) else weights[index, k]


def product_columns(cells, doc_weights, term_weights):
    """``column(k)`` for a model whose responsibilities are proportional to a product, q(z_dw = k) ∝
    doc_weights[d, k] term_weights[w, k]: P(z | d) P(w | z) for PLSA, exp E[log theta_dk] exp E[log
    beta_kw] for batch VB, (n_dk + alpha_k)(n_wk + eta) / (n_k + V eta) for the collapsed counts. Each
    factor is a (rows, K) array or a :class:`ShiftedRows` of counts (no (D, K) or (V, K) copy). The
    normaliser of every cell is computed once, in blocks of NORM_BLOCK cells, so that the block's two
    gathered (block, K) temporaries stay small (6.6 MB at K = 100): with storage="counts" they would
    otherwise be a move's largest allocation."""
    rows, terms = cells.rows, cells.indices
    norm = np.empty(rows.shape[0])
    for start in range(0, rows.shape[0], NORM_BLOCK):
        block = slice(start, start + NORM_BLOCK)
        norm[block] = np.einsum("pk,pk->p", _rows(doc_weights, rows[block]), _rows(term_weights, terms[block]))
    norm = np.maximum(norm, 1e-300)

    def column(k):  # doc_weights[rows, k] * term_weights[terms, k] / norm, with one temporary fewer in float64
        product = _column(doc_weights, rows, k) * _column(term_weights, terms, k)
        return np.divide(product, norm, out=product) if product.dtype == np.float64 else product / norm
    return column


def expected_counts(cells, column, n_topics, n_docs, n_terms):
    """n_dk (D, K) and n_wk (V, K): each topic's responsibilities times the counts, summed by
    document and by term."""
    n_dk = np.empty((n_docs, n_topics))
    n_wk = np.empty((n_terms, n_topics))
    for k in range(n_topics):
        weight = np.multiply(cells.data, column(k), dtype=np.float64)
        n_dk[:, k] = np.bincount(cells.rows, weights=weight, minlength=n_docs)
        n_wk[:, k] = np.bincount(cells.indices, weights=weight, minlength=n_terms)
    return n_dk, n_wk


def priced_proposal(cells, column, shares, n_wk, alpha, eta, candidate, dead_share, log, owner, build, round_=None,
                    dead_only=False):
    """The ``candidate``-th proposal (slots cheapest first, :func:`slots_to_free`), in whatever form
    ``build(slot, into)`` makes it in (it returns (proposal, split topic, gain), or None when no topic can
    be split): (proposal, description), or None when no candidate is left or the split's gain does not pay
    for the freed slot (PRICE_SLACK). ``eta``: a float or a (K, V) matrix (:func:`topic_priors`).
    ``shares`` are the topics' shares of the tokens, ``n_wk`` (V, K) their expected term counts;
    ``round_`` (a :class:`Round`) keeps the slots for the round's next candidate; ``dead_only`` frees dead
    topics only (the stochastic fits' re-seeding, which has no objective to judge a merge by)."""
    round_ = Round() if round_ is None else round_
    if round_.slots is None:
        round_.slots = slots_to_free(cells, column, shares, n_wk, n_wk.shape[0], alpha, eta, dead_share,
                                     merges=not dead_only)
    slots = round_.slots
    if candidate >= len(slots):
        return None
    cost, slot, into = slots[candidate]
    built = build(slot, into)
    if built is None:
        log.info("%s: no move (no topic to split for slot %d)", owner, slot)
        return None
    proposal, target, gain = built
    what = describe(slot, into, cost, target, gain)
    if gain <= PRICE_SLACK * cost:
        log.info("%s: no move (%s)", owner, what)
        return None
    return proposal, what


def count_proposal(cells, column, n_dk, n_wk, alpha, eta, candidate, dead_share, rng, log, owner, largest=None,
                   round_=None, dead_only=False):
    """The ``candidate``-th proposal for a model with expected counts (:func:`propose_counts`):
    (n_dk, n_wk, description), or None when no candidate is left or the best is not worth a trial.
    ``largest``, when given, splits only one of that many largest topics (a cheaper ranking); ``round_``
    and ``dead_only`` as in :func:`priced_proposal`."""
    round_ = Round() if round_ is None else round_
    shares = shares_of(n_dk.sum(axis=0))
    skip = () if largest is None else tuple(int(k) for k in np.argsort(-shares, kind="stable")[largest:])

    def build(slot, into):
        found = propose_counts(cells, column, n_dk, n_wk, n_wk.shape[0], alpha, eta, slot, into, rng, skip,
                               round_.gains)
        if found is None:
            return None
        new_dk, new_wk, target, gain = found
        return (new_dk, new_wk), target, gain

    found = priced_proposal(cells, column, shares, n_wk, alpha, eta, candidate, dead_share, log, owner, build,
                            round_, dead_only)
    return None if found is None else (*found[0], found[1])


def describe(slot, into, cost, target, gain):
    """A proposal in words, for the log."""
    freed = f"topic {slot} merged into {into}" if into >= 0 else f"dead topic {slot} deleted"
    return f"{freed} at cost {cost:.4g}, topic {target} split into {target} and {slot} with gain {gain:.4g}"


def late_window(it, max_iter):
    """Whether a fit that has not settled tries its moves after iteration ``it``: at max_iter - LATE_MOVES,
    when at least LATE_MOVES iterations have been made (an equality, so that a fit resumed from a
    later checkpoint does not try them again)."""
    return it == max_iter - LATE_MOVES and it >= LATE_MOVES


def _reach(history, n_sweeps):
    """What the unmoved fit, whose objectives are ``history``, reaches in ``n_sweeps`` more iterations
    at most: its last gain kept up (a settling fit's gains shrink)."""
    return history[-1] + n_sweeps * max(history[-1] - history[-2], 0.0)


def judge(history, values, n_sweeps, log, owner, what):
    """Whether a trial's objectives ``values`` (after each of its iterations) beat what the unmoved fit,
    whose objectives are ``history``, reaches in ``n_sweeps`` iterations: its last gain kept up (a
    settling fit's gains shrink, so this bounds them). A trial stopped early (fewer values) is rejected."""
    reach = _reach(history, n_sweeps)
    accepted = len(values) == n_sweeps and values[-1] > reach + 1e-12 * abs(reach)
    log.info("%s: move %s (%s): objective %.9g after %d sweeps vs %.9g reachable", owner,
             "accepted" if accepted else "rejected", what, values[-1], len(values), reach)
    return accepted


def hopeless(history, values, n_sweeps):
    """Whether a trial can be stopped: even its last gain kept up for the remaining iterations would
    not reach what the unmoved fit reaches (see :func:`judge`)."""
    reach = _reach(history, n_sweeps)
    return len(values) >= 2 and values[-1] + (n_sweeps - len(values)) * max(values[-1] - values[-2], 0.0) < reach


def vb_proposal(cells, lam, gamma, alpha, eta, candidate, dead_share, rng, log, owner, round_=None, dead_only=False):
    """:func:`count_proposal` for batch VB: the responsibilities are proportional to exp E[log theta_dk]
    exp E[log beta_kw], the expected counts are gamma - alpha and lambda - eta (``eta`` a float or a (K, V)
    matrix; an excluded pair, lambda_kw = eta_kw = 0, has responsibility 0). Returns the proposal's
    (lambda (K, V), gamma (D, K), description) in their dtypes, or None."""
    from scipy.special import digamma

    elog_theta = digamma(gamma) - digamma(gamma.sum(axis=1, keepdims=True))
    elog_beta_t = (digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))).T
    # each row rescaled by its maximum: the scales cancel in the responsibilities, and nothing underflows
    doc_weights = np.exp(elog_theta - elog_theta.max(axis=1, keepdims=True))
    term_weights = np.exp(elog_beta_t - elog_beta_t.max(axis=1, keepdims=True))
    column = product_columns(cells, doc_weights, term_weights)
    n_dk = np.maximum(np.asarray(gamma, dtype=np.float64) - alpha, 0.0)
    if isinstance(eta, np.ndarray):
        n_wk = np.maximum(np.asarray(lam, dtype=np.float64) - eta, 0.0).T
    else:
        n_wk = np.maximum(np.asarray(lam, dtype=np.float64).T - eta, 0.0)
    proposal = count_proposal(cells, column, n_dk, n_wk, alpha, eta, candidate, dead_share, rng, log, owner,
                              round_=round_, dead_only=dead_only)
    if proposal is None:
        return None
    new_dk, new_wk, what = proposal
    return (np.ascontiguousarray(new_wk.T + eta, dtype=lam.dtype), np.ascontiguousarray(new_dk + alpha, dtype=gamma.dtype),
            what)
