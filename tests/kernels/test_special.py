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


def test_digamma_below_one_and_at_the_path_boundaries():
    # 0 < x < 1 takes the fixed shift by 10 (one division, log y from a series); x >= 1 the stepwise shift
    x = np.concatenate([np.linspace(1e-6, 1.0, 20001), [1e-300, 2e-300, 1e-100, np.nextafter(1.0, 0.0), 1.0,
                                                        np.nextafter(1.0, 2.0), 9.999999999, 10.0]])
    np.testing.assert_allclose(digamma_array(x), special.digamma(x), rtol=1e-10, atol=0)
    np.testing.assert_allclose(digamma_array(x[x < 1.0]), special.digamma(x[x < 1.0]), rtol=1e-14, atol=0)


def test_dirichlet_expectation_row_is_bitwise_digamma_difference():
    """The two-pass (SIMD) row equals digamma(a_k) - digamma(sum a) bit for bit, on every branch."""
    from topicvb._kernels.special import digamma, dirichlet_expectation_row

    a = np.array([1e-320, 1e-300, 1e-8, 0.01, 0.5, 0.999999, 1.0, 1.4616321449683622, 3.0, 9.99, 10.0, 250.0, 1e6])
    out = np.empty_like(a)
    dirichlet_expectation_row(a, out)
    want = np.array([digamma(x) for x in a]) - digamma(float(a.sum()))
    np.testing.assert_array_equal(out, want)
    np.testing.assert_allclose(out[2:], special.digamma(a[2:]) - special.digamma(a.sum()), rtol=1e-12,
                               atol=1e-12)


def test_exp_shifted_row_is_bitwise_exp_nonpositive():
    from topicvb._kernels.bounds import exp_nonpositive, exp_shifted_row

    x = np.array([0.0, -1e-300, -1e-10, -0.3, -1.0, -30.0, -700.0, -745.5, -800.0, 2.5])
    out, work = np.empty_like(x), np.empty(x.shape[0] + 3)
    exp_shifted_row(x, 2.5, out, work)
    np.testing.assert_array_equal(out, [exp_nonpositive(v - 2.5) for v in x])
    np.testing.assert_allclose(out, np.exp(x - 2.5), rtol=3e-16, atol=0)
