"""OnlineLDA's fused SVI kernels against NumPy/SciPy references, float32 and thread independence."""

import math

import numba
import numpy as np
import pytest
from scipy import special

import reference as ref
from topicvb._kernels.bounds import (exp_nonpositive, lda_topic_bound, rescaled_exp_block, svi_topic_update,
                                     topic_expectations, topic_terms)
from topicvb._kernels.special import digamma, digamma_lgamma


def _lam(rng, K=5, V=150, dtype=np.float64):
    # mostly tiny entries as in a fitted lam, a few around the digamma root and large ones
    lam = rng.gamma(0.3, 0.05, (K, V)) + 1e-3
    lam[:, ::7] += rng.gamma(2.0, 50.0, (K, len(range(0, V, 7))))
    lam[0, 3] = 1.4616321449683623
    lam[1, 4] = 1.0
    lam[2, 5] = 2.0
    return lam.astype(dtype)


def _topic_bound_ref(lam, eta):
    """lda_topic_bound from the formula, with SciPy: float64 array (K,)."""
    lam = np.asarray(lam, dtype=np.float64)
    V = lam.shape[1]
    elog = ref.dirichlet_expectation(lam)
    return (special.gammaln(V * eta) - V * special.gammaln(eta) + np.sum((eta - lam) * elog, axis=1)
            + np.sum(special.gammaln(lam), axis=1) - special.gammaln(lam.sum(axis=1)))


def _pieces_to_bound(lam, eta, elog_sum, rest):
    V = lam.shape[1]
    return math.lgamma(V * eta) - V * math.lgamma(eta) + eta * elog_sum + rest


def _check_ebeta(ebeta_t, elog_ref):
    expected = np.exp(elog_ref - elog_ref.max(axis=0)).T
    if ebeta_t.dtype == np.float64:
        np.testing.assert_allclose(ebeta_t, expected, rtol=1e-12)
    else:  # float32 rounding, and subnormals below 1.2e-38
        np.testing.assert_allclose(ebeta_t, expected, rtol=1e-6, atol=1e-44)


def test_digamma_lgamma_matches_scipy():
    grid = np.concatenate([np.logspace(-8, 4, 4001), np.linspace(0.9, 2.1, 1201), [1e-300, 1e-200, 1e300]])
    pairs = np.array([digamma_lgamma(x) for x in grid])
    # the digamma half is digamma itself, bit for bit
    np.testing.assert_array_equal(pairs[:, 0], [digamma(x) for x in grid])
    np.testing.assert_allclose(pairs[:, 0], special.digamma(grid), rtol=1e-10, atol=0)
    # the lgamma half: absolute accuracy (it is summed in the ELBO), relative away from its roots
    lg = special.gammaln(grid)
    np.testing.assert_allclose(pairs[:, 1], lg, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_topic_terms_matches_reference(dtype):
    rng = np.random.default_rng(3)
    lam = _lam(rng, dtype=dtype)
    K, V = lam.shape
    ebeta_t = np.empty((V, K), dtype=dtype)
    log_scale = np.empty(V)
    elog_sum, rest = topic_terms(lam, ebeta_t, log_scale)
    elog_ref = ref.dirichlet_expectation(lam.astype(np.float64))
    np.testing.assert_allclose(elog_sum, elog_ref.sum(axis=1), rtol=1e-12)
    eta = 0.01
    np.testing.assert_allclose(_pieces_to_bound(lam, eta, elog_sum, rest), _topic_bound_ref(lam, eta), rtol=1e-11)
    np.testing.assert_allclose(log_scale, elog_ref.max(axis=0), rtol=1e-12)
    _check_ebeta(ebeta_t, elog_ref)
    # and exactly what topic_expectations gives, so OnlineLDA and BatchLDA see the same topics
    eb2, ls2 = np.empty_like(ebeta_t), np.empty_like(log_scale)
    elog = topic_expectations(lam, eb2, ls2)
    np.testing.assert_array_equal(ebeta_t, eb2)
    np.testing.assert_array_equal(log_scale, ls2)
    if dtype == np.float64:  # (for float32 lam, lda_topic_bound takes lgamma in float32)
        np.testing.assert_allclose(_pieces_to_bound(lam, eta, elog_sum, rest), lda_topic_bound(lam, elog, eta),
                                   rtol=1e-11)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_svi_topic_update_matches_reference(dtype):
    rng = np.random.default_rng(4)
    lam0 = _lam(rng, K=6, V=201, dtype=dtype)
    K, V = lam0.shape
    sstats_t = (rng.poisson(0.3, (V, K)) * rng.random((V, K))).astype(dtype)
    rho, eta, scale = 0.37, 0.02, 41.5
    lam = lam0.copy()
    ebeta_t = np.empty((V, K), dtype=dtype)
    log_scale = np.empty(V)
    elog_sum, rest = svi_topic_update(lam, sstats_t, rho, eta, scale, ebeta_t, log_scale)
    lam_ref = (1.0 - rho) * lam0.astype(np.float64) + rho * (eta + scale * sstats_t.T.astype(np.float64))
    if dtype == np.float64:
        np.testing.assert_array_equal(lam, lam_ref)
    else:  # computed in float64, rounded once
        np.testing.assert_array_equal(lam, lam_ref.astype(np.float32))
    new = lam.astype(np.float64)
    elog_ref = ref.dirichlet_expectation(new)
    np.testing.assert_allclose(elog_sum, elog_ref.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(_pieces_to_bound(lam, eta, elog_sum, rest), _topic_bound_ref(new, eta), rtol=1e-11)
    _check_ebeta(ebeta_t, elog_ref)
    # the outputs for the new lam are those of topic_terms
    eb2, ls2 = np.empty_like(ebeta_t), np.empty_like(log_scale)
    es2, rest2 = topic_terms(lam, eb2, ls2)
    np.testing.assert_array_equal(ebeta_t, eb2)
    np.testing.assert_array_equal(log_scale, ls2)
    np.testing.assert_array_equal(elog_sum, es2)
    np.testing.assert_array_equal(rest, rest2)


def test_online_kernels_do_not_depend_on_thread_count():
    rng = np.random.default_rng(5)
    lam0 = _lam(rng, K=7, V=700)
    sstats_t = rng.poisson(0.5, (700, 7)).astype(float)
    results = []
    for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(n)
        try:
            lam = lam0.copy()
            ebeta_t, log_scale = np.empty((700, 7)), np.empty(700)
            out = svi_topic_update(lam, sstats_t, 0.2, 0.01, 10.0, ebeta_t, log_scale)
            eb2, ls2 = np.empty((700, 7)), np.empty(700)
            out2 = topic_terms(lam0, eb2, ls2)
            results.append((lam, ebeta_t, log_scale, *out, eb2, ls2, *out2))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for a, b in zip(results[0], results[-1]):
        np.testing.assert_array_equal(a, b)


def test_exp_nonpositive_within_one_ulp_of_libm():
    rng = np.random.default_rng(6)
    t = -np.concatenate([rng.exponential(5.0, 3000), rng.uniform(0.0, 760.0, 1000),
                         [0.0, 1e-300, 0.5 * math.log(2.0), 708.3, 708.4, 744.4, 745.1, 746.0, 1e4]])
    got = np.array([exp_nonpositive(v) for v in t])
    want = np.array([math.exp(v) for v in t])  # libm's (NumPy's own exp differs by an ulp in some versions)
    np.testing.assert_array_less(np.abs(got - want), np.spacing(want) * 1.01 + 1e-323)
    assert exp_nonpositive(0.0) == 1.0 and exp_nonpositive(-1e4) == 0.0
    # the block kernel's SIMD form gives the same bits
    elog = np.stack([t[:500], np.zeros(500)])  # max over the two rows is 0
    ebeta_t, log_scale = np.empty((500, 2)), np.empty(500)
    rescaled_exp_block(elog, 0, 500, np.empty((2, 500)), ebeta_t, log_scale, 0)
    np.testing.assert_array_equal(log_scale, 0.0)
    np.testing.assert_array_equal(ebeta_t[:, 0], got[:500])


@pytest.mark.parametrize("learn_priors", [False, True])
def test_online_fused_path_matches_numpy_step_and_elbo(learn_priors):
    """OnlineLDA's fused loop makes the same steps and bounds as a NumPy SVI step + ``_elbo``."""
    from topicvb.datasets import make_lda_corpus
    from scipy.special import digamma

    from topicvb.models._priors import dirichlet_from_mean_log, symmetric_dirichlet_from_mean_log
    from topicvb.models._start import random_start
    from topicvb.models._vb import expectations as _expectations
    from topicvb.models.online_lda import OnlineLDA
    from topicvb._kernels.estep import e_step
    from topicvb._validation import csr_arrays

    X = make_lda_corpus(70, 150, 4, random_state=2, doc_length=30).corpus.X.tocsr().astype(float)
    params = dict(batch_size=20, total_samples=140, learning_offset=3.0, init="random", learn_priors=learn_priors,
                  max_doc_update_iter=20, random_state=0)
    model = OnlineLDA(4, **params).partial_fit(X)
    ref_model = OnlineLDA(4, **params)
    rng = np.random.RandomState(0)
    lam = rng.gamma(100.0, 0.01, size=(4, 150))
    alpha, eta = np.full(4, 0.25), 0.25
    bounds = []
    for t, start in enumerate(range(0, 70, 20), start=1):
        batch = X[start:start + 20]
        expectations = _expectations(lam)
        gamma0 = random_start(rng, (batch.shape[0], 4))
        gamma, sstats_t, _ = e_step(*csr_arrays(batch), expectations[1], alpha, gamma0, gamma0[:0], 20, 1e-3, True, True)
        bounds.append(ref_model._elbo(batch, gamma, lam, alpha, eta, doc_scale=140 / batch.shape[0],
                                      expectations=expectations))
        rho = ref_model._rho(t)
        lam = ref.svi_lambda_step(lam, eta, sstats_t.T, rho, 140 / batch.shape[0])
        if learn_priors:  # eta: a step rho towards the optimum for lam (Hoffman et al. 2013); alpha: the optimum
            # of the running average of the documents' mean E[log theta_d], the previous average being the one the
            # previous alpha is the optimum of
            mean_elog_theta = (digamma(gamma) - digamma(gamma.sum(axis=1, keepdims=True))).mean(axis=0)
            average = (1.0 - rho) * (digamma(alpha) - digamma(alpha.sum())) + rho * mean_elog_theta
            new_alpha = dirichlet_from_mean_log(alpha, average)
            new_eta = symmetric_dirichlet_from_mean_log(eta, float(np.mean(_expectations(lam)[0])), 150)
            alpha, eta = new_alpha, (1.0 - rho) * eta + rho * new_eta
    np.testing.assert_allclose(model.components_, lam, rtol=1e-10)
    np.testing.assert_allclose(model.bound_history_, bounds, rtol=1e-11)
    np.testing.assert_allclose(model.doc_topic_prior_, alpha, rtol=1e-10)
    np.testing.assert_allclose(model.topic_word_prior_, eta, rtol=1e-10)
