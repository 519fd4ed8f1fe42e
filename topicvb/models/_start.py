"""Where a fit starts: initial topics (seeded from document clusters or random), the E-step's random
restarts and deterministic starts. One place for every estimator and driver (BatchLDA, OnlineLDA,
PLSA, the Dask runners), so a change of start is made once.

All randomness is drawn here from the caller's random stream; the kernels receive arrays.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .._kernels.seeding import candidate_distances, cluster_means, nearest_centre
from .._validation import csr_arrays, writable

_HALF_WIDTH = 0.1 * math.sqrt(3.0)
_BLOCK = 1 << 17  # numbers a blocked step of the seeding handles at a time (1 MiB of float64)


def random_start(rng, shape, dtype=np.float64):
    """Random positive values of mean 1 and standard deviation 0.1: E-step restarts and start noise.

    Uniform on 1 +- 0.1 sqrt(3): the first two moments of the Gamma(100, 0.01) draws of Hoffman's and
    scikit-learn's code, for a fraction of their cost (a restart draws D x K numbers per E-step).
    ``rng``: a ``RandomState`` or a ``Generator``.
    """
    u = rng.random(size=shape)
    u *= 2.0 * _HALF_WIDTH
    u += 1.0 - _HALF_WIDTH
    return u.astype(dtype, copy=False)


def initial_gamma(X, alpha, dtype):
    """Deterministic start for gamma: the prior plus the document's tokens spread evenly."""
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    return (alpha[None, :] + lengths[:, None] / alpha.shape[0]).astype(dtype)


def restart_rows(n_docs, offset, restart_every, iteration):
    """Boolean mask of the documents whose E-step ``iteration`` (from 1) restarts from a random point.

    Document d (its index in the whole corpus, ``offset`` being the index of the first of these
    ``n_docs``) restarts when d % restart_every == (iteration - 1) % restart_every, so every document
    restarts once every ``restart_every`` E-steps, in a rotation that needs no random numbers (the
    distributed runner computes the same mask on each partition).
    """
    return (np.arange(offset, offset + n_docs) % restart_every) == ((iteration - 1) % restart_every)


def start_points(gamma_init, gamma_prev, offset, restart_every, iteration):
    """E-step starting points: the random ``gamma_init`` for the documents that restart in
    ``iteration``, the previous solution ``gamma_prev`` for the others (all restart when there is no
    previous solution). Modifies and returns ``gamma_init``."""
    if gamma_prev.shape[0] == 0 or restart_every == 1:
        return gamma_init
    keep = ~restart_rows(gamma_init.shape[0], offset, restart_every, iteration)
    gamma_init[keep] = gamma_prev[keep]
    return gamma_init


def seeded_topics(X, n_topics, rng, dtype, n_refine=2, centre_weight=0.5):
    """Initial lam from document clusters: k-means++ seeds refined by a few Lloyd steps.

    Documents are embedded by the square roots of their term frequencies (unit vectors, so the
    squared Euclidean distance is twice the squared Hellinger distance). Seeds are chosen by greedy
    k-means++ (Arthur & Vassilvitskii 2007): the first uniformly among non-empty documents; for each
    next one a few candidates are drawn with probability proportional to their squared distance to
    the nearest seed, and the one leaving the smallest total is kept. ``n_refine`` Lloyd steps then
    assign every document to its nearest centre and move each centre to the mean term frequency of
    its documents (an empty cluster keeps its centre), so topics start from the mean of many
    documents rather than from one, often atypical, far-away document (``BENCHMARKS.md`` compares
    the starts). Topic k starts as the mix
    ``centre_weight`` * centre k + (1 - ``centre_weight``) * uniform (an even mix for the LDA fits;
    PLSA passes its own weight), scaled to carry 1/K of the corpus tokens, times noise of mean 1
    and standard deviation 0.1 (:func:`random_start`). Cost (the kernels of :mod:`topicvb._kernels.seeding`): for each of the K
    seeds, 2 + log K candidates' inner products with the documents sharing their terms (through the
    term-major embedding), plus ``n_refine`` assignment passes of K multiply-adds per non-zero.
    """
    n_docs, n_terms = X.shape
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size == 0:
        return rng.gamma(100.0, 0.01, size=(n_topics, n_terms)).astype(dtype)
    # Memory: besides X (and its values as float64 if they are not, or are read-only), the output and (D,) arrays: the term-major
    # embedding (12 bytes a non-zero) while the seeds are chosen, then two (K, V) float64 arrays (the centres
    # and their square roots); the rows are embedded on the fly from the counts. Every number is the one of
    # the plain NumPy/SciPy computation (tests/models/test_start_memory.py).
    X = sp.csr_matrix(X)
    indptr, indices, _ = csr_arrays(X)
    data = writable(np.asarray(X.data, dtype=np.float64))  # (a read-only one would compile the kernels again)
    divisors = np.maximum(lengths, 1.0)  # term frequencies: data_dw / divisors[d]
    seeds = _greedy_seeds(X, indptr, indices, data, divisors, lengths, nonempty, n_topics, rng)
    centres = np.empty((n_topics, n_terms))  # the seeds' term frequencies
    cluster_means(indptr, indices, data, divisors, np.asarray(seeds, dtype=np.int64),
                  np.arange(n_topics + 1, dtype=np.int64), centres)
    if n_refine > 0:
        centres *= 0.5  # the first assignment: seeds mixed with uniform
        centres += 0.5 / n_terms
        roots_t = np.empty((n_terms, n_topics))
        for _ in range(n_refine):
            np.sqrt(centres.T, out=roots_t)
            labels = nearest_centre(indptr, indices, data, roots_t, divisors)[nonempty]
            order = nonempty[np.argsort(labels, kind="stable")]  # each cluster's documents, in document order
            bounds = np.zeros(n_topics + 1, dtype=np.int64)
            np.cumsum(np.bincount(labels, minlength=n_topics), out=bounds[1:])
            cluster_means(indptr, indices, data, divisors, order, bounds, centres)  # (empty clusters stay)
        del roots_t
    # scale * (centre_weight * centres + (1 - centre_weight) / n_terms) * noise, in place, by blocks of rows
    # (the noise drawn block by block: the same numbers, in the same order, as one (K, V) draw)
    scale = lengths.sum() / n_topics
    step = max(1, _BLOCK // n_terms)
    for r in range(0, n_topics, step):
        block = centres[r:r + step]
        block *= centre_weight
        block += (1.0 - centre_weight) / n_terms
        block *= scale
        block *= random_start(rng, block.shape)
    return centres.astype(dtype, copy=False)


def _greedy_seeds(X, indptr, indices, data, divisors, lengths, nonempty, n_topics, rng):
    """The documents chosen by greedy k-means++ (:func:`seeded_topics`); ``indptr``, ``indices``: X's in the
    kernels' dtypes, ``data``: X's values as float64, ``divisors``: the document lengths (at least 1). The
    term-major embedding lives only here."""
    n_docs = X.shape[0]
    # term-major embedding: a candidate's inner products touch only the documents sharing its terms (its
    # own row is embedded on the fly from the counts); the kernels' canonical index dtypes (int64 pointers,
    # int32 indices; one compiled specialisation)
    t_indptr, t_indices, t_data = csr_arrays(sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape).T.tocsr())
    if np.shares_memory(t_data, data):
        t_data = t_data.copy()
    step = _BLOCK
    for q in range(0, t_data.shape[0], step):  # sqrt(data_dw / divisors[d]) in place, by blocks
        block = t_data[q:q + step]
        block /= divisors[t_indices[q:q + step]]
        np.sqrt(block, out=block)
    arrays = (indptr, indices, data, t_indptr, t_indices, t_data)
    sq = (lengths > 0).astype(np.float64)  # squared norms: sum_w tf_dw = 1 for every non-empty document
    n_trials = 2 + int(np.log(n_topics))
    scratch = np.empty((n_trials, n_docs), dtype=np.float64)

    def after_adding(candidates, dist):  # (totals, new distances) for each candidate: see candidate_distances
        out = scratch[:len(candidates)]
        totals = candidate_distances(*arrays, sq, dist, np.asarray(candidates, dtype=np.int64), out, divisors)
        return totals, out

    seeds = [int(rng.choice(nonempty))]
    _, first = after_adding([seeds[0]], np.where(lengths > 0, np.inf, 0.0))
    dist = first[0].copy()
    for _ in range(1, n_topics):
        total = dist.sum()
        if total <= 0:
            seeds.append(int(rng.choice(nonempty)))
            continue
        # greedy k-means++: of a few candidates drawn by squared distance, keep the one that
        # leaves the smallest total squared distance
        candidates = rng.choice(n_docs, size=n_trials, p=dist / total)
        totals, new_dist = after_adding(candidates, dist)
        best = int(np.argmin(totals))
        seeds.append(int(candidates[best]))
        dist = new_dist[best].copy()
    return seeds


def initial_topics(init, X, n_topics, rng, dtype, *, scale=1.0, centre_weight=0.5):
    """Initial topic parameters (K, V): ``seeded_topics`` of X times ``scale`` for ``init="seeded"``,
    Gamma(100, 0.01) draws (Hoffman's and scikit-learn's start) for ``init="random"``.

    ``scale`` corrects a seeded start computed on a sample of the corpus (OnlineLDA's batch, the
    distributed runner's sample) to the whole corpus; a scale of 1 keeps the dtype of the seeding.
    """
    if init == "random":
        return rng.gamma(100.0, 0.01, size=(n_topics, X.shape[1])).astype(dtype)
    if scale == 1.0:
        return seeded_topics(X, n_topics, rng, dtype, centre_weight=centre_weight)
    lam = seeded_topics(X, n_topics, rng, np.float64, centre_weight=centre_weight)
    lam *= scale
    return lam.astype(dtype, copy=False)


def _favoured_profiles(excess, X):
    """Per seeded topic (rows of ``excess``, the prior's weight above its floor), a term profile to start
    from: the favoured terms themselves, and, with the training matrix ``X``, the word profile of the
    documents that use them, X^T (X f) (each document weighted by its favoured-term content), in equal
    parts. Rows sum to 1."""
    favour = excess / excess.sum(axis=1, keepdims=True)
    if X is None:
        return favour
    X = sp.csr_matrix(X, dtype=np.float64)
    lengths = np.asarray(X.sum(axis=1)).ravel()
    uses = np.asarray((X @ favour.T) > 0, dtype=np.float64)  # (D, S): the documents that use the terms
    shares = sp.diags(1.0 / np.maximum(lengths, 1e-300)) @ X  # each document's term shares
    prof = np.asarray((shares.T @ uses).T)  # (S, V): the mean term shares of those documents (unnormalised)
    totals = prof.sum(axis=1, keepdims=True)
    prof = np.where(totals > 0, prof / np.where(totals > 0, totals, 1.0), favour)
    return 0.5 * favour + 0.5 * prof


def prior_excess(eta) -> np.ndarray:
    """A matrix topic-word prior's weight above each row's base (its smallest positive weight), 0 at excluded
    entries: the seed words' extra pseudo-counts of a guided prior, (K, V) float64; all 0 for a constant matrix."""
    eta = np.asarray(eta, dtype=np.float64)
    excess = np.zeros_like(eta)
    for k in range(eta.shape[0]):
        row = eta[k]
        lo = row[row > 0].min()
        excess[k] = np.where(row > 0, row - lo, 0.0)
    return excess


def prior_informed_start(lam, eta, X=None, weight: float = 0.9):
    """Starting topics that respect a matrix topic-word prior (guided topics, issue #21).

    ``lam`` (K, V): the start the estimator would use (any positive scale); ``eta``: its topic-word
    prior, a float (returned unchanged: a symmetric prior says nothing about any topic) or a (K, V)
    matrix; ``X``: the training counts, when the estimator has them. A topic whose prior row is not
    constant ("seeded") starts mostly (``weight``) on a profile of its favoured terms: those terms and,
    with ``X``, the words of the documents that use them (:func:`_favoured_profiles`); the pseudo-counts
    of a seed prior are small next to a real corpus's counts, so where a seeded topic starts decides
    which theme it ends up holding. The rest of its start is the start row that best matches that
    profile (rows are exchanged, the seeded topics in order of how clearly they match, so that a
    data-driven start row of the seed words' theme is not left to a free topic that would compete
    with the seeded one). Terms a row excludes (weight 0) start at 0 in it; every term it allows keeps
    a positive start. Returns a new array (or ``lam`` itself when ``eta`` is a float).
    """
    if not isinstance(eta, np.ndarray):
        return lam
    eta = np.asarray(eta, dtype=np.float64)
    lam = np.array(lam, dtype=np.float64)
    excess = prior_excess(eta)
    seeded = np.flatnonzero(excess.sum(axis=1) > 0)
    if seeded.size:
        profiles = _favoured_profiles(excess[seeded], X)
        shares = lam / np.maximum(lam.sum(axis=1, keepdims=True), 1e-300)
        match = profiles @ shares.T  # (seeded, K): how well start row j matches each seeded profile
        order = np.argsort(-match.max(axis=1), kind="stable")
        free = np.ones(lam.shape[0], dtype=bool)
        source = np.arange(lam.shape[0])
        for i in order:
            j = int(np.argmax(np.where(free, match[i], -np.inf)))
            free[j] = False
            source[seeded[i]] = j
        rest = np.setdiff1d(np.arange(lam.shape[0]), seeded)
        source[rest] = np.flatnonzero(free)  # the unseeded topics keep the other rows, in order
        lam = lam[source]
        for i, k in enumerate(seeded):
            total = lam[k].sum()
            lam[k] = ((1.0 - weight) * lam[k] / total + weight * profiles[i]) * total
    for k in range(lam.shape[0]):
        allowed = eta[k] > 0
        total = lam[k].sum()
        lam[k, ~allowed] = 0.0
        floor = 1e-6 * total / max(1, np.count_nonzero(allowed))
        lam[k, allowed] = np.maximum(lam[k, allowed], floor)  # (VB takes digamma of the start: no zeros)
    return lam
