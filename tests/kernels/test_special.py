import numpy as np
import pytest
from scipy import special

from topicvb._kernels.special import digamma, digamma_array, dirichlet_expectation_row, lgamma_array

GRID = np.logspace(-8, 4, 4001)


def test_digamma_matches_scipy():
    # relative 1e-10 everywhere, including around the positive root x0 = 1.4616...
    np.testing.assert_allclose(digamma_array(GRID), special.digamma(GRID), rtol=1e-10, atol=0)


def test_digamma_near_root_and_edges():
    x0 = 1.4616321449683623
    assert abs(digamma(x0)) < 1e-14
    assert np.isnan(digamma(0.0)) and np.isnan(digamma(-1.0))
    assert digamma(np.inf) == np.inf


def test_lgamma_matches_scipy():
    np.testing.assert_allclose(lgamma_array(GRID), special.gammaln(GRID), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_dirichlet_expectation_row(dtype):
    a = np.array([0.01, 0.5, 3.0, 250.0], dtype=dtype)
    out = np.empty(4)
    dirichlet_expectation_row(a, out)
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(out, special.digamma(a64) - special.digamma(a64.sum()), rtol=1e-10)
