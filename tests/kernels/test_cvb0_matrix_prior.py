"""The CVB0 / CVB / SCVB0 kernels with a matrix topic-word prior (guided topics, issue #21) against a slow
NumPy reference, and against the scalar kernels for a constant matrix."""

import numpy as np
import pytest
import scipy.sparse as sp

import reference as ref
from test_cvb0 import _state as cvb0_state
from topicvb._kernels.cvb0 import matrix_prior, scvb0_documents, sweep, sweep_documents
from topicvb._validation import csr_arrays


def _guided(K, V, rng):
    eta = np.full((K, V), 0.05)
    eta[0, :3] = [2.0, 1.0, 0.5]  # a seeded topic
    eta[1, 4] = 0.0  # term 4 excluded from topic 1
    eta[2, [1, 5]] = 0.0
    eta[:, 7] *= rng.uniform(0.5, 2.0, K)
    return eta


def _state(X, K, eta, seed, second):
    """Random responsibilities (0 on the excluded pairs of ``eta`` (K, V)) and their counts."""
    _, csr, gamma, n_dk, n_wk, v_dk, v_wk, _ = cvb0_state(X, K, seed, second, eta_t=eta.T)
    return csr, gamma, n_dk, n_wk, v_dk, v_wk


def _corpus(seed=0, shape=(7, 9)):
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.0, shape).astype(float)
    X[2] = 0
    X[4, 1] = 3.0
    X[:, 4] += 1.0  # the excluded term occurs everywhere
    return X


@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_matrix_sweep_matches_the_reference_and_keeps_excluded_pairs_at_zero(second):
    X = _corpus()
    K, V = 3, X.shape[1]
    alpha = np.array([0.2, 0.5, 0.1])
    eta = _guided(K, V, np.random.default_rng(1))
    csr, gamma, n_dk, n_wk, v_dk, v_wk = _state(X, K, eta, 2, second)
    cells = [(d, w) for d in range(X.shape[0]) for w in np.flatnonzero(X[d])]
    gamma_ref = {cell: gamma[p].copy() for p, cell in enumerate(cells)}
    n_k, v_k = n_wk.sum(0), (v_wk.sum(0) if second else np.zeros(K))
    for _ in range(3):
        sweep(*csr, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, eta.T.copy(), second)
        gamma_ref = ref.cvb_sweep(X, gamma_ref, alpha, eta, second)
        np.testing.assert_allclose(gamma, np.array([gamma_ref[c] for c in cells]), rtol=1e-10, atol=1e-13)
    excluded = (eta.T[csr[1]] == 0)
    assert excluded.any() and np.all(gamma[excluded] == 0.0)  # exactly
    assert np.all(n_wk.T[eta == 0] == 0.0)
    np.testing.assert_allclose(n_k.sum(), X.sum(), rtol=1e-12)


@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_a_constant_matrix_sweeps_as_the_scalar_prior(second):
    rng = np.random.default_rng(3)
    X = rng.poisson(1.5, (30, 20)).astype(float)
    K, V, e = 4, 20, 0.07
    alpha = np.full(K, 0.25)
    const = np.full((K, V), e)
    a = _state(X, K, const, 4, second)
    b = _state(X, K, const, 4, second)
    (csr, g1, d1, w1, vd1, vw1), (_, g2, d2, w2, vd2, vw2) = a, b
    k1, k2 = w1.sum(0), w2.sum(0)
    vk1, vk2 = (vw1.sum(0), vw2.sum(0)) if second else (np.zeros(K), np.zeros(K))
    for _ in range(4):
        sweep(*csr, g1, d1, w1, k1, vd1, vw1, vk1, alpha, e, second)
        sweep(*csr, g2, d2, w2, k2, vd2, vw2, vk2, alpha, const.T.copy(), second)
    np.testing.assert_allclose(g2, g1, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(w2, w1, rtol=1e-12, atol=1e-13)


def ref_document_pass(X, gamma, n_dk, n_wk, alpha, eta, fixed):
    """One pass over each document with the topic counts n_wk (V, K) frozen (sweep_documents): each cell's
    update takes its own old responsibility out of the counts (``fixed`` False: they hold it) or not (new
    documents); the document counts move after every cell."""
    gamma, n_dk = gamma.copy(), n_dk.copy()
    n_k = n_wk.sum(axis=0)
    eta_k = eta.sum(axis=1)
    p = 0
    for d in range(X.shape[0]):
        for w in np.flatnonzero(X[d]):
            g = gamma[p]
            out = 0.0 if fixed else g
            val = ((np.maximum(n_dk[d] - g, 0) + alpha) * (np.maximum(n_wk[w] - out, 0) + eta[:, w])
                   / (np.maximum(n_k - out, 0) + eta_k))
            new = val / val.sum()
            n_dk[d] += X[d, w] * (new - g)
            gamma[p] = new
            p += 1
    return gamma, n_dk


@pytest.mark.parametrize("fixed", [False, True], ids=["per_sweep", "fixed_topics"])
def test_document_sweeps_with_a_matrix_match_the_reference(fixed):
    X = _corpus(5, (6, 9))
    K, V = 3, X.shape[1]
    alpha = np.array([0.3, 0.2, 0.4])
    eta = _guided(K, V, np.random.default_rng(6))
    csr, gamma, n_dk, n_wk, v_dk, v_wk = _state(X, K, eta, 7, False)
    want_gamma, want_dk = gamma, n_dk
    before = n_wk.copy()
    for _ in range(3):
        want_gamma, want_dk = ref_document_pass(X, want_gamma, want_dk, n_wk, alpha, eta, fixed)
    passes = sweep_documents(*csr, gamma, n_dk, n_wk, n_wk.sum(0), v_dk, v_wk, np.zeros(K), alpha, eta.T.copy(),
                             False, fixed, 3, 0.0)
    np.testing.assert_array_equal(n_wk, before)  # the topics are frozen
    assert np.all(passes[X.sum(axis=1) > 0] == 3)
    np.testing.assert_allclose(gamma, want_gamma, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(n_dk, want_dk, rtol=1e-12, atol=1e-13)
    assert np.all(gamma[eta.T[csr[1]] == 0] == 0.0)
    # a constant matrix: the scalar kernel's result
    const = np.full((K, V), 0.05)
    csr, g1, d1, w1, _, _ = _state(X, K, const, 8, False)
    _, g2, d2, w2, _, _ = _state(X, K, const, 8, False)
    empty = np.empty((0, K))
    sweep_documents(*csr, g1, d1, w1, w1.sum(0), empty, empty, np.zeros(K), alpha, 0.05, False, fixed, 5, 0.0)
    sweep_documents(*csr, g2, d2, w2, w2.sum(0), empty, empty, np.zeros(K), alpha, const.T.copy(), False, fixed, 5,
                    0.0)
    np.testing.assert_allclose(g2, g1, rtol=1e-12, atol=1e-15)


def ref_scvb0_documents(X, n_phi, n_z, alpha, eta, n_theta, burn_in):
    """Stochastic CVB0 document updates with a matrix prior eta (K, V), token by token: the scalar reference
    with the prior folded into the counts, (n_phi + eta_kw) / (n_z + sum_w eta_kw) and eta = 0."""
    return ref.scvb0_documents(X, n_phi + eta, n_z + eta.sum(axis=1), alpha, 0.0, n_theta, burn_in)


def test_scvb0_documents_with_a_matrix_match_the_reference():
    rng = np.random.default_rng(9)
    X = (rng.random((5, 9)) < 0.5).astype(float)  # unit counts: token by token equals cell at once
    X[1] = 0
    X[:, 4] = 1.0
    K, V = 3, 9
    alpha = np.array([0.1, 0.3, 0.2])
    eta = _guided(K, V, rng)
    n_phi = rng.gamma(2.0, 2.0, (K, V)) * (eta > 0)
    n_z = n_phi.sum(axis=1)
    n_theta0 = rng.random((5, K))
    Xc = sp.csr_matrix(X)
    n_theta = n_theta0.copy()
    gamma = np.empty((Xc.nnz, K))
    scvb0_documents(*csr_arrays(Xc), np.ascontiguousarray(n_phi.T), n_z, alpha, eta.T.copy(), n_theta, gamma, 2,
                    10.0, 0.9)
    n_theta_ref, gammas = ref_scvb0_documents(X, n_phi, n_z, alpha, eta, n_theta0, 2)
    np.testing.assert_allclose(n_theta, n_theta_ref, rtol=1e-12)
    cells = [(d, w) for d in range(5) for w in np.flatnonzero(X[d])]
    np.testing.assert_allclose(gamma, np.array([gammas[c] for c in cells]), rtol=1e-12)
    assert np.all(gamma[eta.T[Xc.indices] == 0] == 0.0)


def test_an_underflowing_cell_shares_only_among_the_topics_its_term_may_be_in():
    from topicvb.models._collapsed import infer_doc_counts

    K, V = 3, 4
    n_wk = np.zeros((V, K))
    n_wk[0, :] = 1e30
    alpha = np.full(K, 1e-150)
    eta = np.full((K, V), 1e-150)
    eta[1, 1] = 0.0  # term 1 excluded from topic 1
    X = sp.csr_matrix(np.array([[0.0, 1.0, 0.0, 0.0]]))
    weights = (0.0 + alpha) * (n_wk[1] + eta[:, 1]) / (n_wk.sum(axis=0) + eta.sum(axis=1))
    assert np.all(weights == 0.0)
    n_dk = infer_doc_counts(X, n_wk, alpha, eta.T.copy(), max_iter=5, tol=0.0)
    np.testing.assert_allclose(n_dk, [[0.5, 0.0, 0.5]], rtol=1e-12)
    assert n_dk[0, 1] == 0.0


def test_matrix_prior_must_be_term_major():
    with pytest.raises(ValueError, match="term-major"):
        matrix_prior(np.ones((3, 5)), 5, 3)
