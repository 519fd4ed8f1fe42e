"""Kernels against the slow NumPy references in tests/reference.py, and thread independence."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

import reference as ref
from topicvb._kernels.bounds import lda_doc_bound, lda_topic_bound, topic_expectations
from topicvb._kernels.estep import e_step
from topicvb._kernels.plsa import fold_in, log_likelihood
from topicvb._kernels.sparse import column_index
from topicvb._validation import csr_arrays


def _problem(seed=0, D=9, V=13, K=4):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.8, (D, V)).astype(float)
    X[3] = 0.0  # an empty document
    X[5, 2] = 2.5  # a fractional weight
    return X, sp.csr_matrix(X), rng


def _expect(lam):
    K, V = lam.shape
    ebeta_t = np.empty((V, K), dtype=lam.dtype)
    log_scale = np.empty(V)
    elog = topic_expectations(lam, ebeta_t, log_scale)
    return elog, ebeta_t, log_scale


def test_topic_expectations():
    rng = np.random.default_rng(1)
    lam = rng.gamma(1.0, 1.0, (3, 7)) + 1e-3
    elog, ebeta_t, log_scale = _expect(lam)
    np.testing.assert_allclose(elog, ref.dirichlet_expectation(lam), rtol=1e-12)
    np.testing.assert_allclose(ebeta_t.T * np.exp(log_scale), np.exp(elog), rtol=1e-12)


@pytest.mark.parametrize("accelerate", [False, True])
@pytest.mark.parametrize("max_iter,tol", [(1, 0.0), (3, 0.0), (100, 1e-8)])
def test_e_step_matches_reference(max_iter, tol, accelerate):
    X, Xc, rng = _problem()
    K = 4
    lam = rng.gamma(2.0, 1.0, (K, X.shape[1]))
    alpha = np.array([0.1, 0.2, 0.3, 0.4])
    gamma0 = rng.gamma(3.0, 1.0, (X.shape[0], K))
    gamma0_copy = gamma0.copy()
    _, ebeta_t, _ = _expect(lam)
    gamma, sstats_t, n_iter = e_step(*csr_arrays(Xc), ebeta_t, alpha, gamma0, gamma0[:0], max_iter, tol, True,
                                     accelerate)
    gamma_ref, sstats_ref = ref.vb_e_step(X, ref.dirichlet_expectation(lam), alpha, gamma0, max_iter, tol, accelerate)
    np.testing.assert_allclose(gamma, gamma_ref, rtol=1e-10)
    np.testing.assert_allclose(sstats_t.T, sstats_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(gamma[3], alpha)  # empty document: gamma = alpha
    assert n_iter[3] == 0 and np.all(n_iter[np.arange(9) != 3] >= 1)
    np.testing.assert_allclose(sstats_t.sum(), X.sum(), rtol=1e-12)  # phi sums to 1 per token
    np.testing.assert_array_equal(gamma0, gamma0_copy)  # a pure function: input not modified


def test_e_step_float32_close_to_float64():
    X, Xc, rng = _problem(2)
    lam = rng.gamma(2.0, 1.0, (4, X.shape[1]))
    alpha = np.full(4, 0.25)
    gamma0 = np.ones((X.shape[0], 4))
    _, eb64, _ = _expect(lam)
    _, eb32, _ = _expect(lam.astype(np.float32))
    indptr, indices, data = csr_arrays(Xc)
    g64, s64, _ = e_step(indptr, indices, data, eb64, alpha, gamma0, gamma0[:0], 50, 0.0, True, False)
    g32, s32, _ = e_step(indptr, indices, data.astype(np.float32), eb32, alpha, gamma0.astype(np.float32),
                         gamma0[:0].astype(np.float32), 50, 0.0, True, False)
    assert g32.dtype == np.float32 and s32.dtype == np.float32
    np.testing.assert_allclose(g32, g64, rtol=2e-4, atol=1e-5)
    np.testing.assert_allclose(s32, s64, rtol=2e-4, atol=1e-5)


def test_e_step_tiny_priors_do_not_underflow():
    # eta = 1e-6 makes E[log beta] around -1e6 for unused terms: the rescaling keeps phi finite
    X, Xc, rng = _problem(3)
    lam = np.full((4, X.shape[1]), 1e-6)
    lam[:, :5] += rng.gamma(2.0, 1.0, (4, 5))
    for dtype in (np.float64, np.float32):
        _, ebeta_t, _ = _expect(lam.astype(dtype))
        for accelerate in (False, True):
            g, s, _ = e_step(*csr_arrays(Xc.astype(dtype)), ebeta_t, np.full(4, 1e-6), np.ones((9, 4), dtype),
                             np.ones((9, 4), dtype), 20, 0.0, True, accelerate)
            assert np.all(np.isfinite(g)) and np.all(np.isfinite(s))
            np.testing.assert_allclose(s.sum(), X.sum(), rtol=1e-4)


def test_elbo_pieces_match_reference():
    X, Xc, rng = _problem(4)
    K = 4
    lam = rng.gamma(2.0, 1.0, (K, X.shape[1]))
    gamma = rng.gamma(2.0, 1.0, (X.shape[0], K))
    alpha = np.array([0.5, 0.1, 0.2, 0.9])
    eta = 0.05
    elog, ebeta_t, log_scale = _expect(lam)
    total = lda_doc_bound(*csr_arrays(Xc), gamma, alpha, ebeta_t, log_scale).sum() + lda_topic_bound(lam, elog, eta).sum()
    np.testing.assert_allclose(total, ref.lda_elbo(X, gamma, lam, alpha, eta), rtol=1e-11)


@pytest.mark.parametrize("prior", [0.0, 0.5, -0.05, (0.5, -0.05, 1.0)])
def test_fold_in_matches_reference(prior):
    X, Xc, rng = _problem(6)
    K = 3
    phi = rng.dirichlet(np.ones(X.shape[1]), K)
    theta0 = np.full((X.shape[0], K), 1.0 / K)
    prior = np.broadcast_to(np.asarray(prior, dtype=np.float64), (K,)).copy()  # one value per topic
    theta, ll = fold_in(*csr_arrays(Xc), np.ascontiguousarray(phi.T), theta0, prior, 7, 0.0)
    np.testing.assert_allclose(theta, ref.plsa_fold_in(X, phi, theta0, prior, 7), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    np.testing.assert_allclose(ll.sum(), np.sum(X * np.log(theta @ phi)), rtol=1e-12)


def test_results_do_not_depend_on_thread_count():
    rng = np.random.default_rng(7)
    X = sp.random(400, 300, density=0.05, random_state=8, data_rvs=lambda n: rng.integers(1, 5, n)).tocsr().astype(float)
    K = 8
    lam = rng.gamma(2.0, 1.0, (K, 300))
    alpha = np.full(K, 0.1)
    gamma0 = np.ones((400, K))
    results = []
    for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(n)
        try:
            elog, ebeta_t, log_scale = _expect(lam)
            g, s, _ = e_step(*csr_arrays(X), ebeta_t, alpha, gamma0, gamma0 * 2.0, 30, 1e-6, True, True)
            b = lda_doc_bound(*csr_arrays(X), g, alpha, ebeta_t, log_scale)
            results.append((g, s, b))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for a, b in zip(results[0], results[-1]):
        np.testing.assert_array_equal(a, b)  # bit-identical: every sum has one fixed order


@pytest.mark.parametrize("accelerate", [False, True])
def test_e_step_falls_back_on_a_better_previous_solution(accelerate):
    X, Xc, rng = _problem(8)
    K = 4
    lam = rng.gamma(2.0, 1.0, (K, X.shape[1]))
    alpha = np.full(K, 0.3)
    _, ebeta_t, log_scale = _expect(lam)
    elog = ref.dirichlet_expectation(lam)
    fresh0 = np.ones((X.shape[0], K))
    prev = rng.gamma(2.0, 3.0, (X.shape[0], K))
    gamma, sstats_t, _ = e_step(*csr_arrays(Xc), ebeta_t, alpha, fresh0, prev, 3, 0.0, True, accelerate)
    # reference: each document keeps whichever of (3 steps from fresh0) and (3 more steps from its
    # previous solution, which must not end below it) has the larger document bound, and the
    # statistics follow that choice
    g_fresh, _ = ref.vb_e_step(X, elog, alpha, fresh0, 3, 0.0, accelerate)
    g_prev, _ = ref.vb_e_step(X, elog, alpha, prev, 3, 0.0, accelerate, safe=True)
    doc = lambda g: lda_doc_bound(*csr_arrays(Xc), g, alpha, ebeta_t, log_scale)
    before = lda_doc_bound(*csr_arrays(Xc), prev, alpha, ebeta_t, log_scale)
    use_prev = doc(prev) > doc(g_fresh)
    expected = np.where(use_prev[:, None], g_prev, g_fresh)
    np.testing.assert_allclose(gamma, expected, rtol=1e-10)
    assert np.all(doc(gamma) >= before - 1e-9)
    _, sstats_ref = ref.vb_e_step(X, elog, alpha, expected, 0, 0.0)
    np.testing.assert_allclose(sstats_t.T, sstats_ref, rtol=1e-10, atol=1e-12)


def test_squarem_e_step_matches_reference_on_every_branch():
    # a longer run from the previous solution (safe) and from random starts (not safe), on a problem
    # where the extrapolation is taken, shortened (a component would fall below alpha / 2) and, for the
    # safe documents, rejected by the bound check: the reference counts the branches it took
    rng = np.random.default_rng(11)
    D, V, K = 60, 40, 6
    X = rng.poisson(rng.gamma(0.3, 3.0, (D, V))).astype(float)
    X[7] = 0.0
    Xc = sp.csr_matrix(X)
    lam = rng.gamma(0.5, 2.0, (K, V)) + 0.05
    alpha = np.full(K, 0.05)
    elog, ebeta_t, log_scale = _expect(lam)
    prev = rng.gamma(1.0, 2.0, (D, K)) + alpha
    start = rng.gamma(100.0, 0.01, (D, K))
    continuing = np.arange(D) % 3 != 0
    start[continuing] = prev[continuing]  # these start from gamma_prev: ascent must not end below it
    gamma, sstats_t, n_iter = e_step(*csr_arrays(Xc), ebeta_t, alpha, start, prev, 200, 1e-10, True, True)
    counts = {}
    g_ref, _ = ref.vb_e_step(X, elog, alpha, start, 200, 1e-10, True, safe=continuing, counts=counts)
    assert counts["extrapolated"] > 0 and counts["shortened"] > 0 and counts["rejected"] > 0, counts
    doc = lambda g: lda_doc_bound(*csr_arrays(Xc), g, alpha, ebeta_t, log_scale)
    # restarted documents fall back on prev where it is better; the others are the reference's ascent
    np.testing.assert_allclose(gamma[continuing], g_ref[continuing], rtol=1e-8)
    assert np.all(doc(gamma) >= doc(prev) - 1e-9)
    # the accelerated ascent reaches the plain ascent's optimum in fewer updates, except where an
    # extrapolation jumps to another local optimum (here one document of 60, to a higher bound)
    g_plain, _, n_plain = e_step(*csr_arrays(Xc), ebeta_t, alpha, start, prev, 2000, 1e-10, True, False)
    same = np.isclose(doc(gamma), doc(g_plain), rtol=1e-7, atol=1e-7)
    assert same.mean() >= 0.9 and np.all(doc(gamma)[~same] > doc(g_plain)[~same])
    assert n_iter[continuing].sum() < n_plain[continuing].sum()


@pytest.mark.parametrize("accelerate", [False, True])
def test_e_step_indexed_returns_the_bound_of_the_previous_solution(accelerate):
    # BatchLDA takes its previous iteration's document bound from the E-step: it must be lda_doc_bound
    # of gamma_prev under the same topics (less its constant), for continuing, restarted and empty documents
    from topicvb._kernels.estep import e_step_indexed
    from topicvb.models._vb import prior_const as _prior_const

    X, Xc, rng = _problem(12, D=30, V=20)
    K = 4
    lam = rng.gamma(1.0, 1.0, (K, X.shape[1])) + 0.05
    alpha = np.array([0.1, 0.3, 0.2, 0.05])
    _, ebeta_t, log_scale = _expect(lam)
    prev = rng.gamma(1.0, 2.0, (X.shape[0], K)) + alpha
    start = rng.gamma(100.0, 0.01, (X.shape[0], K))
    continuing = np.arange(X.shape[0]) % 2 == 0
    start[continuing] = prev[continuing]
    indptr, indices, data = csr_arrays(Xc)
    columns = column_index(indptr, indices, X.shape[1])
    gamma, sstats_t, n_iter, prev_doc = e_step_indexed(indptr, indices, data, *columns, ebeta_t, alpha, start, prev,
                                                       50, 1e-6, accelerate)
    expected = lda_doc_bound(indptr, indices, data, prev, alpha, ebeta_t, log_scale)
    constant = X @ log_scale + _prior_const(alpha)
    np.testing.assert_allclose(prev_doc + constant, expected, rtol=1e-12, atol=1e-12)
    assert X[3].sum() == 0 and prev_doc[3] != 0.0  # the empty document's prior terms are there too
    g, s, n = e_step(indptr, indices, data, ebeta_t, alpha, start, prev, 50, 1e-6, True, accelerate)
    np.testing.assert_array_equal(gamma, g)  # the same E-step as e_step otherwise
    np.testing.assert_array_equal(sstats_t, s)
    _, _, _, none = e_step_indexed(indptr, indices, data, *columns, ebeta_t, alpha, start, prev[:0], 50, 1e-6,
                                   accelerate)
    np.testing.assert_array_equal(none, 0.0)  # without a previous solution there is nothing to report


def test_plsa_m_step_kernels_match_numpy():
    from topicvb._kernels.plsa import normalise_columns, normalise_rows

    rng = np.random.default_rng(9)
    counts = rng.gamma(0.5, 2.0, (300, 6))
    counts[7] = 0.0  # a row and a column that come out empty
    counts[:, 4] = 0.0
    offset = np.array([0.0, -0.2, 0.3, -5.0, 0.0, 0.0])
    fallback = np.full(6, 1.0 / 6)
    want = np.maximum(counts + offset, 0.0)
    sums = want.sum(axis=1, keepdims=True)
    want = np.where(sums > 0, want / np.where(sums > 0, sums, 1.0), fallback)
    np.testing.assert_allclose(normalise_rows(counts.copy(), offset, fallback), want, rtol=1e-14)
    for off in (0.0, -0.3):
        want = np.maximum(counts + off, 0.0)
        sums = want.sum(axis=0, keepdims=True)
        want = np.where(sums > 0, want / np.where(sums > 0, sums, 1.0), 1.0 / 300)
        results = []
        for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(n)
            try:
                results.append(normalise_columns(counts.copy(), off, 1.0 / 300))
            finally:
                numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        np.testing.assert_allclose(results[0], want, rtol=1e-13)
        np.testing.assert_array_equal(results[0], results[-1])


def _sweeps(X, theta, phi, beta, block_rows, n_parts, data_dtype=np.float64):
    """Both halves of an alternating iteration's expected counts through plsa.sweep (theta half from
    (theta, phi), phi half from (theta, phi) as well, so both compare with one reference E-step)."""
    from topicvb._kernels.plsa import sweep

    indptr, indices, data = csr_arrays(sp.csr_matrix(X, dtype=data_dtype))
    colptr, positions, rows = column_index(indptr, indices, X.shape[1])
    rows = rows.astype(np.int32)  # as PLSA passes them
    phi_t = np.ascontiguousarray(phi.T)
    tempered = beta != 1.0
    theta_b, phi_t_b = (theta ** beta, phi_t ** beta) if tempered else (theta, phi_t)
    n_dk = np.full_like(theta, np.nan)  # overwritten, also the rows of empty documents
    ll = np.full(X.shape[0], np.nan)
    sweep(indptr, indices, data, theta, phi_t, theta_b, phi_t_b, tempered, True, block_rows, n_parts, n_dk, ll)
    n_wk = np.full_like(phi_t, np.nan)
    ll_t = np.full(X.shape[1], np.nan)
    sweep(colptr, rows, np.ascontiguousarray(data[positions]), phi_t, theta, phi_t_b, theta_b, tempered, True,
          block_rows, n_parts, n_wk, ll_t)
    return n_dk, n_wk, ll, ll_t


@pytest.mark.parametrize("beta", [1.0, 0.7])
@pytest.mark.parametrize("block_rows", [1, 3, 5, 8, 1000])
@pytest.mark.parametrize("n_parts", [1, 2, 20])
def test_plsa_sweep_matches_reference(beta, block_rows, n_parts):
    X, _, rng = _problem(11, D=12, V=17)
    X[:, 6] = 0.0  # a term no document uses
    X[7] = rng.integers(1, 4, X.shape[1])  # a full row: runs of four entries across block edges
    X[7, 6] = 0.0
    K = 5
    theta = rng.dirichlet(np.ones(K), X.shape[0])
    phi = rng.dirichlet(np.ones(X.shape[1]), K)
    n_dk, n_wk, ll, ll_t = _sweeps(X, theta, phi, beta, block_rows, n_parts)
    n_dk_ref, n_kw_ref, ll_ref = ref.plsa_em_step(X, theta, phi, beta)
    np.testing.assert_allclose(n_dk, n_dk_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(n_wk.T, n_kw_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ll.sum(), ll_ref, rtol=1e-13)
    np.testing.assert_allclose(ll_t.sum(), ll_ref, rtol=1e-13)  # the same sum by terms
    assert np.all(n_dk[3] == 0.0) and ll[3] == 0.0  # the empty document
    assert np.all(n_wk[6] == 0.0) and ll_t[6] == 0.0  # the unused term


def test_plsa_sweep_does_not_depend_on_parts_or_threads():
    rng = np.random.default_rng(12)
    X = sp.random(300, 500, density=0.04, random_state=13, data_rvs=lambda n: rng.integers(1, 6, n)).toarray()
    K = 9  # not a multiple of the vector width: the remainder loops run too
    theta = rng.dirichlet(np.ones(K), 300)
    phi = rng.dirichlet(np.ones(500), K)
    results = []
    for n_parts, threads in ((1, 1), (3, 1), (7, min(2, numba.config.NUMBA_NUM_THREADS))):
        numba.set_num_threads(threads)
        try:
            results.append(_sweeps(X, theta, phi, 1.0, 64, n_parts))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)  # bit-identical: every row is summed in its own fixed order
    # a different block size only regroups the four-row steps: equal to rounding
    for a, b in zip(results[0], _sweeps(X, theta, phi, 1.0, 5, 2)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_plsa_sweep_float32():
    X, _, rng = _problem(14)
    K = 4
    theta = rng.dirichlet(np.ones(K), X.shape[0])
    phi = rng.dirichlet(np.ones(X.shape[1]), K)
    n_dk, n_wk, ll, _ = _sweeps(X, theta.astype(np.float32), phi.astype(np.float32), 1.0, 4, 2, np.float32)
    n_dk_ref, n_kw_ref, ll_ref = ref.plsa_em_step(X, theta, phi)
    assert n_dk.dtype == np.float32 and n_wk.dtype == np.float32 and ll.dtype == np.float64
    np.testing.assert_allclose(n_dk, n_dk_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(n_wk.T, n_kw_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ll.sum(), ll_ref, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_plsa_sweep_entries_of_probability_zero_add_nothing(dtype):
    """An entry the model gives probability 0 (theta_d . phi_w = 0: an excluded term, a MAP estimate that zeroed
    it) adds nothing to the expected counts; in float32 it had overflowed the accumulator into NaN."""
    X, _, rng = _problem(16, D=12, V=17)
    K = 4
    theta = rng.dirichlet(np.ones(K), X.shape[0])
    phi = rng.dirichlet(np.ones(X.shape[1]), K)
    theta[0] = [1.0, 0.0, 0.0, 0.0]  # document 0 uses topic 0 only ...
    phi[0, :5] = 0.0  # ... which never uses terms 0-4
    phi[0] /= phi[0].sum()
    X[0, :5] = rng.integers(1, 4, 5)  # so these five entries have probability 0
    n_dk, n_wk, ll, _ = _sweeps(X, theta.astype(dtype), phi.astype(dtype), 1.0, 4, 2, dtype)
    kept = X.copy()
    kept[0, :5] = 0.0
    n_dk_ref, n_kw_ref, _ = ref.plsa_em_step(kept, theta, phi)
    assert np.all(np.isfinite(n_dk)) and np.all(np.isfinite(n_wk))
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(n_dk, n_dk_ref, **tol)
    np.testing.assert_allclose(n_wk.T, n_kw_ref, **tol)


@pytest.mark.parametrize("n_parts", [1, 2, 3, 8, 40])
def test_balanced_bounds(n_parts):
    from topicvb._kernels.plsa import balanced_bounds

    ptr = np.cumsum(np.r_[0, np.random.default_rng(15).integers(0, 30, 25)]).astype(np.int64)
    bounds = balanced_bounds(ptr, n_parts)
    assert bounds[0] == 0 and bounds[-1] == 25 and np.all(np.diff(bounds) >= 0)
    if n_parts <= 3:  # each part within one row's entries of an equal share
        sizes = np.diff(ptr[bounds])
        assert np.all(np.abs(sizes - ptr[-1] / n_parts) <= 30)


def test_dot4_axpy4_match_numpy():
    from topicvb._kernels.vec import axpy4, dot4

    rng = np.random.default_rng(16)
    for n in (0, 1, 7, 33, 100):
        a, b0, b1, b2, b3 = rng.random((5, n))
        np.testing.assert_allclose(dot4(a, b0, b1, b2, b3), [a @ b0, a @ b1, a @ b2, a @ b3], rtol=1e-13)
        acc = rng.random(n)
        want = acc + 0.5 * b0 - 2.0 * b1 + 3.0 * b2 + 0.25 * b3
        axpy4(acc, b0, b1, b2, b3, 0.5, -2.0, 3.0, 0.25)
        np.testing.assert_allclose(acc, want, rtol=1e-13)


def test_cache_size_parsing_and_block_rows():
    from topicvb._config import _parse_cache_size, block_rows, l2_cache_bytes

    assert _parse_cache_size("2048K") == 2 << 20
    assert _parse_cache_size("1M\n") == 1 << 20
    assert _parse_cache_size("524288") == 524288
    for bad in ("", "K", "-1K", "0", "big"):
        assert _parse_cache_size(bad) is None
    assert l2_cache_bytes() > 0
    assert block_rows(100, 8) == max(16, l2_cache_bytes() // 2 // 800)
    assert block_rows(10 ** 7, 8) == 16  # at least 16 rows, however wide
