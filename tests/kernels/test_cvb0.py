"""CVB0 / CVB kernels against the naive reference, and conservation of the expected counts."""

import numpy as np
import pytest
import scipy.sparse as sp

import reference as ref
from topicvb._kernels.cvb0 import document_counts, sweep, sweep_documents, term_counts
from topicvb._kernels.sparse import column_index
from topicvb._validation import csr_arrays


def _state(X, K, seed, second, eta_t=None):
    """Random responsibilities and their counts; with a matrix prior ``eta_t`` (V, K) they are 0 on its
    excluded pairs (eta_wk = 0)."""
    Xc = sp.csr_matrix(X)
    indptr, indices, data = csr_arrays(Xc)
    rng = np.random.default_rng(seed)
    gamma = rng.dirichlet(np.ones(K), Xc.nnz)
    if eta_t is not None:
        gamma *= eta_t[indices] > 0
        gamma /= gamma.sum(axis=1, keepdims=True)
    D, V = X.shape
    n_dk, n_wk = np.empty((D, K)), np.empty((V, K))
    v_dk = np.empty((D, K) if second else (0, K))
    v_wk = np.empty((V, K) if second else (0, K))
    colptr, positions, _ = column_index(indptr, indices, V)
    document_counts(indptr, data, gamma, n_dk, v_dk, second)
    term_counts(colptr, positions, data, gamma, n_wk, v_wk, second)
    return Xc, (indptr, indices, data), gamma, n_dk, n_wk, v_dk, v_wk, (colptr, positions)


@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_sweep_matches_reference(second):
    rng = np.random.default_rng(0)
    X = rng.poisson(0.9, (6, 8)).astype(float)
    X[2] = 0
    X[4, 1] = 3.0
    K, alpha, eta = 3, np.array([0.2, 0.5, 0.1]), 0.05
    Xc, csr, gamma, n_dk, n_wk, v_dk, v_wk, _ = _state(X, K, 1, second)
    cells = [(d, w) for d in range(6) for w in np.flatnonzero(X[d])]
    gamma_ref = {cell: gamma[p].copy() for p, cell in enumerate(cells)}
    n_k, v_k = n_wk.sum(0), (v_wk.sum(0) if second else np.zeros(K))
    sweep(*csr, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta, second)
    gamma_ref = ref.cvb_sweep(X, gamma_ref, alpha, eta, second)
    np.testing.assert_allclose(gamma, np.array([gamma_ref[c] for c in cells]), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_counts_stay_consistent_after_every_sweep(second):
    rng = np.random.default_rng(3)
    X = rng.poisson(1.5, (40, 25)).astype(float)
    K, alpha, eta = 4, np.full(4, 0.25), 0.1
    Xc, csr, gamma, n_dk, n_wk, v_dk, v_wk, (colptr, positions) = _state(X, K, 2, second)
    n_k, v_k = n_wk.sum(0), (v_wk.sum(0) if second else np.zeros(K))
    for _ in range(5):
        sweep(*csr, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta, second)
        np.testing.assert_allclose(n_k.sum(), X.sum(), rtol=1e-12)
        np.testing.assert_allclose(n_dk.sum(axis=1), X.sum(axis=1), rtol=1e-12)
        np.testing.assert_allclose(n_wk.sum(axis=1), X.sum(axis=0), rtol=1e-12)
        # the in-place counts equal those recomputed from gamma
        n_dk2, n_wk2 = np.empty_like(n_dk), np.empty_like(n_wk)
        document_counts(csr[0], csr[2], gamma, n_dk2, v_dk.copy(), False)
        term_counts(colptr, positions, csr[2], gamma, n_wk2, v_wk.copy(), False)
        np.testing.assert_allclose(n_dk, n_dk2, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(n_wk, n_wk2, rtol=1e-10, atol=1e-12)


def test_inference_with_fixed_topics_leaves_topics_untouched():
    rng = np.random.default_rng(4)
    X = rng.poisson(1.0, (10, 12)).astype(float)
    K = 3
    Xc, csr, gamma, n_dk, n_wk, v_dk, v_wk, _ = _state(X, K, 5, False)
    n_wk_before = n_wk.copy()
    n_k = n_wk.sum(0)
    passes = sweep_documents(*csr, gamma, n_dk, n_wk, n_k, v_dk, v_wk, np.zeros(K), np.full(K, 0.3), 0.1, False,
                             True, 50, 1e-8)
    np.testing.assert_array_equal(n_wk, n_wk_before)
    np.testing.assert_allclose(n_dk.sum(axis=1), X.sum(axis=1), rtol=1e-12)
    assert np.all(passes[X.sum(axis=1) > 0] >= 1)


def test_scvb0_documents_match_reference_for_unit_counts():
    from topicvb._kernels.cvb0 import scvb0_documents

    rng = np.random.default_rng(9)
    X = (rng.random((5, 9)) < 0.5).astype(float)  # counts of 1: token-by-token equals cell-at-once
    X[1] = 0
    K, alpha, eta = 3, np.array([0.1, 0.3, 0.2]), 0.05
    n_phi = rng.gamma(2.0, 2.0, (K, 9))
    n_z = n_phi.sum(axis=1)
    n_theta0 = rng.random((5, K))
    Xc = sp.csr_matrix(X)
    n_theta = n_theta0.copy()
    gamma = np.empty((Xc.nnz, K))
    scvb0_documents(*csr_arrays(Xc), np.ascontiguousarray(n_phi.T), n_z, alpha, eta, n_theta, gamma, 2, 10.0, 0.9)
    n_theta_ref, gammas = ref.scvb0_documents(X, n_phi, n_z, alpha, eta, n_theta0, 2)
    np.testing.assert_allclose(n_theta, n_theta_ref, rtol=1e-12)
    cells = [(d, w) for d in range(5) for w in np.flatnonzero(X[d])]
    np.testing.assert_allclose(gamma, np.array([gammas[c] for c in cells]), rtol=1e-12)


def test_a_cell_whose_every_weight_underflows_gets_no_preference():
    # priors at the validator's floor and a topic-term count of 1e30 elsewhere: every topic's weight for this
    # token, (n_dk + alpha)(n_wk + eta) / (n_k + V eta) ~ 1e-300 / 1e30, underflows to 0. The reference (the
    # direct formula, normalised when it can be) then leaves the token's responsibility uniform; the kernels
    # did the same division by a zero total and gave NaN (numba: ZeroDivisionError in the serial sweep)
    from topicvb.models._collapsed import infer_doc_counts

    K, V = 3, 4
    n_wk = np.zeros((V, K))
    n_wk[0, :] = 1e30
    alpha, eta = np.full(K, 1e-150), 1e-150
    X = sp.csr_matrix(np.array([[0.0, 1.0, 0.0, 0.0]]))
    weights = (0.0 + alpha) * (n_wk[1] + eta) / (n_wk.sum(axis=0) + V * eta)
    assert np.all(weights == 0.0)  # the case under test: the direct formula has nothing to normalise
    n_dk = infer_doc_counts(X, n_wk, alpha, eta, max_iter=5, tol=0.0)
    np.testing.assert_allclose(n_dk, np.full((1, K), 1.0 / K), rtol=1e-12)
