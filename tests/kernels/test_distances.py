"""The Jensen-Shannon kernel of the report's map against an obvious NumPy reference and SciPy."""

import numba
import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from topicvb._kernels.distances import js_divergences
from topicvb.report import js_distances


def _reference(phi):
    """JSD in bits of every pair of rows, term by term, in plain NumPy."""
    K = phi.shape[0]
    out = np.zeros((K, K))
    for k in range(K):
        for j in range(K):
            p, q = phi[k], phi[j]
            m = (p + q) / 2
            kl_p = sum(p[w] * np.log2(p[w] / m[w]) for w in range(p.size) if p[w] > 0)
            kl_q = sum(q[w] * np.log2(q[w] / m[w]) for w in range(q.size) if q[w] > 0)
            out[k, j] = (kl_p + kl_q) / 2
    return out


@pytest.fixture(scope="module")
def phi():
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(60, 0.3), size=7)
    phi[1, :20] = 0  # zeros in one row only
    phi[2, 10:30] = 0  # and in both rows of a pair
    phi[3] = phi[4]  # identical rows
    phi[5] = 0
    phi[5, :3] = 1 / 3
    phi[6] = 0
    phi[6, 50:] = 0.1  # disjoint supports with row 5
    return phi / phi.sum(axis=1, keepdims=True)


def test_js_divergences_equal_the_reference(phi):
    D = js_divergences(phi)
    np.testing.assert_allclose(D, _reference(phi), rtol=1e-12, atol=1e-15)
    assert np.array_equal(D, D.T) and np.all(np.diag(D) == 0)
    assert D[3, 4] == 0.0 and D[5, 6] == 1.0


def test_js_distances_equal_scipy(phi):
    D = js_distances(phi)
    expected = np.array([[jensenshannon(p, q, base=2) for q in phi] for p in phi])
    np.testing.assert_allclose(D, expected, rtol=1e-10, atol=1e-7)  # (scipy's sqrt of a rounded 0 near equal rows)


def test_js_divergences_do_not_depend_on_the_threads(phi):
    rng = np.random.default_rng(1)
    big = rng.dirichlet(np.full(3000, 0.1), size=40)
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = js_divergences(big)
        numba.set_num_threads(max(2, previous))
        many = js_divergences(big)
    finally:
        numba.set_num_threads(previous)
    assert np.array_equal(one, many)
