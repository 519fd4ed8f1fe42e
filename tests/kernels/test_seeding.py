"""The seeding kernels against dense NumPy computations, and thread independence."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from topicvb._kernels.seeding import candidate_distances, nearest_centre
from topicvb._validation import csr_arrays


def _embedding(seed=0, D=40, V=25):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.4, (D, V)).astype(float)
    X[[3, 17]] = 0.0  # empty documents
    lengths = X.sum(axis=1)
    E = np.sqrt(X / np.maximum(lengths, 1.0)[:, None])
    emb = sp.csr_matrix(E)
    emb_t = sp.csr_matrix(E.T)
    arrays = (*csr_arrays(emb), *csr_arrays(emb_t))  # the dtypes the seeding passes (models/_start.py)
    return E, (lengths > 0).astype(float), arrays, rng


@pytest.mark.parametrize("first", [True, False])
def test_candidate_distances_match_dense(first):
    E, sq, arrays, rng = _embedding()
    D = E.shape[0]
    dist = np.where(sq > 0, np.inf, 0.0) if first else rng.random(D) * (sq > 0)
    candidates = np.array([0, 5, 5, 39], dtype=np.int64)
    out = np.empty((4, D))
    totals = candidate_distances(*arrays, sq, dist, candidates, out)
    # slow and obvious: squared Euclidean distances of the unit embeddings, floored at 0, capped by dist
    ref = np.array([np.minimum(dist, np.maximum(((E - E[c]) ** 2).sum(axis=1), 0.0)) for c in candidates])
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(totals, ref.sum(axis=1), rtol=1e-12)
    assert np.all(out[:, [3, 17]] == 0.0)  # empty documents never count


def test_nearest_centre_matches_dense():
    E, _, arrays, rng = _embedding(1)
    roots = np.sqrt(rng.dirichlet(np.ones(E.shape[1]), 6))
    labels = nearest_centre(*arrays[:3], np.ascontiguousarray(roots.T))
    np.testing.assert_array_equal(labels, np.argmax(E @ roots.T, axis=1))  # empty rows: all 0, label 0


def test_seeding_kernels_do_not_depend_on_thread_count():
    E, sq, arrays, rng = _embedding(2, D=300, V=60)
    roots_t = np.ascontiguousarray(np.sqrt(rng.dirichlet(np.ones(60), 7)).T)
    dist = rng.random(300) * (sq > 0)
    candidates = rng.integers(0, 300, 5).astype(np.int64)
    results = []
    for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(n)
        try:
            out = np.empty((5, 300))
            totals = candidate_distances(*arrays, sq, dist, candidates, out)
            results.append((out, totals, nearest_centre(*arrays[:3], roots_t)))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for a, b in zip(results[0], results[-1]):
        np.testing.assert_array_equal(a, b)
