"""Column passes over a CSR matrix: the column index (shared by the VB E-step and pLSA) and the VB
E-step's topic-term statistics.

Topic-term statistics have the form

    out[w, k] = scale[w, k] * sum over non-zeros p in column w of  row_factor[row(p), k] * weight[p]

(e.g. the VB sufficient statistics sum_d c_dw phi_dwk with phi_dwk = etheta_dk ebeta_wk / phinorm_dw).
Summing per column, in document order, rather than scattering per document into shared rows
keeps the parallel loop free of data races *and* makes the result bit-identical for any number
of threads: every entry is summed by one thread in one fixed order.

Notation: D documents, V terms, K topics, nnz non-zeros; ``p`` a position in the CSR arrays.
"""

import numpy as np
from numba import njit

from .workers import run_units

COLUMN_BLOCK = 64  # terms per work item of the column passes


@njit(cache=True, nogil=True)
def column_index(indptr, indices, n_terms):
    """Counting sort of the CSR positions by column, stable in document order.

    indptr : int64 array of shape (D + 1,); indices : int32 array of shape (nnz,)
    Returns colptr (int64, (V + 1,)), positions (int64, (nnz,)): the CSR positions of column w are
    positions[colptr[w]:colptr[w + 1]] in increasing document order, and rows (int64, (nnz,)): their
    documents, in the same (column) order, so that a column pass reads them sequentially.
    """
    n_docs = indptr.shape[0] - 1
    nnz = indices.shape[0]
    colptr = np.zeros(n_terms + 1, dtype=np.int64)
    for p in range(nnz):
        colptr[indices[p] + 1] += 1
    for w in range(n_terms):
        colptr[w + 1] += colptr[w]
    fill = colptr[:-1].copy()
    positions = np.empty(nnz, dtype=np.int64)
    rows = np.empty(nnz, dtype=np.int64)
    for d in range(n_docs):
        for p in range(indptr[d], indptr[d + 1]):
            w = indices[p]
            positions[fill[w]] = p
            rows[fill[w]] = d
            fill[w] += 1
    return colptr, positions, rows


def column_accumulate_compact(colptr, positions, rows, weight, values, topics, counts, scale, out):
    """out[w, k] = scale[w, k] * sum_{p in column w} row_factor[rows[p], k] * weight[p], with the row
    factors stored compactly: row d has counts[d] non-zero entries, values[d, j] in column topics[d, j]
    for j < counts[d], or, when counts[d] == K, is values[d] itself.

    colptr, positions, rows : from :func:`column_index`
    weight : float64 array of shape (nnz,), indexed by CSR position
    values : float array of shape (D, K); topics : integer array of shape (D, K); counts : int64 (D,)
    scale : float array of shape (V, K); out : float array of shape (V, K), overwritten
    Each entry is summed in document order by one thread (blocks of COLUMN_BLOCK terms per work item).
    """
    n_blocks = (colptr.shape[0] - 1 + COLUMN_BLOCK - 1) // COLUMN_BLOCK
    run_units(_accumulate_columns, n_blocks, n_blocks, colptr, positions, rows, weight, values, topics, counts, scale,
              out, work=positions.shape[0] * out.shape[1])


@njit(cache=True, nogil=True, error_model="numpy", _nrt=False)  # (a work-item kernel: see workers)
def _accumulate_columns(worker, workers, n_blocks, colptr, positions, rows, weight, values, topics, counts, scale, out):
    """:func:`column_accumulate_compact` for the blocks of terms in this worker's share"""
    n_terms = colptr.shape[0] - 1
    n_topics = out.shape[1]
    for b in range(worker * n_blocks // workers, (worker + 1) * n_blocks // workers):
        for w in range(b * COLUMN_BLOCK, min(n_terms, (b + 1) * COLUMN_BLOCK)):
            acc = out[w]
            for k in range(n_topics):
                acc[k] = 0.0
            for q in range(colptr[w], colptr[w + 1]):
                d = rows[q]
                c = weight[positions[q]]
                n = counts[d]
                if n == n_topics:
                    row = values[d]
                    for k in range(n_topics):
                        acc[k] += row[k] * c
                else:
                    for j in range(n):
                        acc[topics[d, j]] += values[d, j] * c
            for k in range(n_topics):
                acc[k] *= scale[w, k]
