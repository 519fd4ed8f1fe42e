"""Document clustering for the seeded start of PLSA, BatchLDA and OnlineLDA.

Documents are embedded as unit vectors e_d (square roots of their term frequencies, CSR), so the
squared distance of two documents is sq_d + sq_c - 2 <e_d, e_c> with sq the squared norms (1 for a
non-empty document, 0 for an empty one). The two kernels are the costly steps of
``topicvb.models._start.seeded_topics``:

* ``candidate_distances``: greedy k-means++ scores a few candidate seeds per step; each candidate's
  inner products with every document touch only the documents that share one of its terms, found
  through the term-major (transposed) embedding (the only copy of the embedding: a candidate's own
  row is embedded on the fly from the counts).
* ``nearest_centre``: the assignment step of Lloyd's algorithm against the centres' square roots (the
  embedding computed on the fly from the counts, so that no copy of it is kept).
* ``cluster_means``: the update step, each centre the mean term frequency of its documents, summed
  into the centres' own array (no dense or sparse (K, V) temporary).

Every candidate (every document) is computed by one thread in a fixed order, so the results do not
depend on the number of threads.
"""

import math

import numpy as np
from numba import njit

from .vec import axpy
from .workers import run_units

CHUNK = 64


def candidate_distances(indptr, indices, data, t_indptr, t_indices, t_data, sq, dist, candidates, out, lengths=None):
    """Squared distances to the nearest seed if each candidate were added to the seeds.

    indptr, indices, data : CSR arrays of the embedding (D x V, integer index arrays of any width)
    t_indptr, t_indices, t_data : the same matrix term-major (its transpose as CSR, V x D)
    sq : float64 (D,), squared norms
    dist : float64 (D,), squared distance of each document to its nearest seed so far (0 for the
        documents to ignore, +inf before the first seed)
    candidates : int64 (n,), document indices; out : float64 (n, D), overwritten with
        out[j, d] = min(dist[d], max(sq[d] + sq[c_j] - 2 <e_d, e_c_j>, 0))
    lengths : None, or float64 (D,): then ``data`` holds the counts and the candidates' rows are embedded on
        the fly, e_cw = sqrt(data_cw / lengths[c]) (``t_data`` is the embedding itself either way)
    Returns the totals sum_d out[j, d] (float64, (n,)).
    """
    n_cand = candidates.shape[0]
    embed = lengths is not None
    if not embed:
        lengths = np.empty(0, dtype=np.float64)
    totals = np.zeros(n_cand, dtype=np.float64)
    run_units(_candidates, n_cand, n_cand, indptr, indices, data, lengths, embed, t_indptr, t_indices, t_data, sq,
              dist, candidates, out, totals, work=4 * n_cand * sq.shape[0])
    return totals


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _candidates(worker, workers, n_cand, indptr, indices, data, lengths, embed, t_indptr, t_indices, t_data, sq, dist,
                candidates, out, totals):
    """:func:`candidate_distances` of the candidates in this worker's share"""
    n_docs = sq.shape[0]
    for j in range(worker * n_cand // workers, (worker + 1) * n_cand // workers):
        row = out[j]
        for d in range(n_docs):
            row[d] = 0.0
        c = candidates[j]
        for p in range(indptr[c], indptr[c + 1]):  # <e_d, e_c> for every d sharing a term with c
            w = indices[p]
            v = data[p]
            if embed:
                v = math.sqrt(v / lengths[c])
            for q in range(t_indptr[w], t_indptr[w + 1]):
                row[t_indices[q]] += v * t_data[q]
        sq_c = sq[c]
        total = 0.0
        for d in range(n_docs):
            x = sq[d] + sq_c - 2.0 * row[d]
            if x < 0.0:
                x = 0.0
            if dist[d] < x:
                x = dist[d]
            row[d] = x
            total += x
        totals[j] = total


def nearest_centre(indptr, indices, data, roots_t, lengths=None):
    """Index of the centre with the largest inner product for every row of a CSR matrix.

    indptr, indices, data : CSR arrays (D x V); roots_t : float64 (V, K), the centres term-major
    lengths : None, or float64 (D,): then the rows are embedded on the fly, entry sqrt(data_dw / lengths[d])
        (the same numbers as the embedding's array, without keeping one)
    Returns labels (int64, (D,)): argmax_k sum_w e_dw roots_t[w, k], the first k on ties (e = data, or its
    embedding).
    """
    n_docs = indptr.shape[0] - 1
    embed = lengths is not None
    if not embed:
        lengths = np.empty(0, dtype=np.float64)
    labels = np.zeros(n_docs, dtype=np.int64)
    n_chunks = (n_docs + CHUNK - 1) // CHUNK
    scratch = np.empty((n_chunks, roots_t.shape[1]), dtype=np.float64)
    run_units(_nearest, n_chunks, n_chunks, indptr, indices, data, lengths, embed, roots_t, scratch, labels,
              work=indices.shape[0] * roots_t.shape[1])
    return labels


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _nearest(worker, workers, n_chunks, indptr, indices, data, lengths, embed, roots_t, scratch, labels):
    """:func:`nearest_centre` of the documents of the work items in this worker's share (item c holds
    the documents c, c + n_chunks, ...: strided, see _kernels/__init__.py)."""
    n_docs = indptr.shape[0] - 1
    n_topics = roots_t.shape[1]
    for c in range(worker * n_chunks // workers, (worker + 1) * n_chunks // workers):
        acc = scratch[c]
        for d in range(c, n_docs, n_chunks):
            for k in range(n_topics):
                acc[k] = 0.0
            for p in range(indptr[d], indptr[d + 1]):
                v = data[p]
                if embed:
                    v = math.sqrt(v / lengths[d])
                axpy(acc, roots_t[indices[p]], v)
            best = 0
            for k in range(1, n_topics):
                if acc[k] > acc[best]:
                    best = k
            labels[d] = best


def cluster_means(indptr, indices, data, lengths, docs, bounds, out):
    """Each cluster's mean term frequency, written into the rows of ``out``.

    indptr, indices, data : CSR arrays of the counts (D x V); lengths : float64 (D,), the divisors of the
    term frequencies data_dw / lengths[d]; docs : int64, the documents of every cluster, cluster k's being
    docs[bounds[k]:bounds[k + 1]]; bounds : int64 (K + 1,); out : float64 (K, V)
    Row k of ``out`` becomes (sum of the term frequencies of cluster k's documents, added in the order of
    ``docs``, from 0) / (its number of documents); the rows of clusters without documents are left as they
    are. One thread per row, so the result does not depend on the number of threads.
    """
    n_rows = out.shape[0]
    run_units(_cluster_means, n_rows, n_rows, indptr, indices, data, lengths, docs, bounds, out,
              work=out.size + indices.shape[0])


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _cluster_means(worker, workers, n_rows, indptr, indices, data, lengths, docs, bounds, out):
    """:func:`cluster_means` of the rows in this worker's share."""
    n_terms = out.shape[1]
    for k in range(worker * n_rows // workers, (worker + 1) * n_rows // workers):
        lo, hi = bounds[k], bounds[k + 1]
        if hi == lo:
            continue
        row = out[k]
        for w in range(n_terms):
            row[w] = 0.0
        for i in range(lo, hi):
            d = docs[i]
            length = lengths[d]
            for p in range(indptr[d], indptr[d + 1]):
                row[indices[p]] += data[p] / length
        count = float(hi - lo)
        for w in range(n_terms):
            row[w] = row[w] / count
