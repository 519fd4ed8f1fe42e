"""The seeding kernels against dense NumPy computations, and thread independence."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from topicvb._kernels.seeding import candidate_distances, cluster_means, nearest_centre
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


def _counts(seed=3, D=50, V=30):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.5, (D, V)).astype(float)
    X[[4, 20]] = 0.0
    lengths = np.maximum(X.sum(axis=1), 1.0)
    return X, lengths, csr_arrays(sp.csr_matrix(X)), rng


def test_the_embedding_on_the_fly_gives_the_embedded_numbers():
    # nearest_centre and candidate_distances given the counts and the lengths: bit for bit the results of the
    # embedding's own array (the same sqrt(count / length) numbers)
    X, lengths, (indptr, indices, data), rng = _counts()
    emb = sp.csr_matrix(np.sqrt(X / lengths[:, None]))
    emb_arrays, t_arrays = csr_arrays(emb), csr_arrays(emb.T.tocsr())
    roots_t = np.ascontiguousarray(np.sqrt(rng.dirichlet(np.ones(X.shape[1]), 5)).T)
    np.testing.assert_array_equal(nearest_centre(indptr, indices, data, roots_t, lengths),
                                  nearest_centre(*emb_arrays, roots_t))
    sq = (X.sum(axis=1) > 0).astype(float)
    dist, candidates = rng.random(X.shape[0]) * sq, np.array([1, 7, 7, 49], dtype=np.int64)
    out_fly, out_emb = np.empty((4, X.shape[0])), np.empty((4, X.shape[0]))
    totals_fly = candidate_distances(indptr, indices, data, *t_arrays, sq, dist, candidates, out_fly, lengths)
    totals_emb = candidate_distances(*emb_arrays, *t_arrays, sq, dist, candidates, out_emb)
    assert out_fly.tobytes() == out_emb.tobytes() and totals_fly.tobytes() == totals_emb.tobytes()


def test_cluster_means_match_the_sparse_sums_and_keep_the_rows_of_empty_clusters():
    X, lengths, arrays, rng = _counts(4)
    tf = X / lengths[:, None]
    labels = rng.integers(0, 6, X.shape[0])
    labels[labels == 2] = 3  # cluster 2 has no documents
    order = np.argsort(labels, kind="stable").astype(np.int64)
    bounds = np.concatenate([[0], np.cumsum(np.bincount(labels, minlength=6))]).astype(np.int64)
    out = rng.random((6, X.shape[1]))
    before = out.copy()
    cluster_means(*arrays, lengths, order, bounds, out)
    # the plain computation (the seeding's former one): a sparse product summing in document order
    members = sp.csr_matrix((np.ones(X.shape[0]), (labels, np.arange(X.shape[0]))), shape=(6, X.shape[0]))
    sums = np.asarray((members @ sp.csr_matrix(tf)).todense())
    counts = np.bincount(labels, minlength=6)
    for k in range(6):
        expected = before[k] if counts[k] == 0 else sums[k] / counts[k]
        assert out[k].tobytes() == expected.tobytes(), k
    # one document per row: its term frequencies (the seeds' rows)
    seeds = np.array([5, 5, 0], dtype=np.int64)
    rows = np.empty((3, X.shape[1]))
    cluster_means(*arrays, lengths, seeds, np.arange(4, dtype=np.int64), rows)
    assert rows.tobytes() == tf[seeds].tobytes()


def test_cluster_means_do_not_depend_on_thread_count():
    rng = np.random.default_rng(5)
    X = sp.random(400, 6000, density=0.05, format="csr", random_state=5, data_rvs=lambda n: rng.integers(1, 4, n))
    lengths = np.maximum(np.asarray(X.sum(axis=1)).ravel(), 1.0)
    arrays = csr_arrays(X)
    labels = rng.integers(0, 80, X.shape[0])
    order = np.argsort(labels, kind="stable").astype(np.int64)
    bounds = np.concatenate([[0], np.cumsum(np.bincount(labels, minlength=80))]).astype(np.int64)
    results = []
    for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(n)
        try:
            out = np.zeros((80, 6000))  # (enough work for two threads: see workers.n_workers)
            cluster_means(*arrays, lengths, order, bounds, out)
            results.append(out)
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert results[0].tobytes() == results[-1].tobytes()
