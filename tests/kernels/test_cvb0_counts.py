"""Counts-only CVB0 / CVB sweeps (issue #22) against a slow NumPy reference, and their guarantees:
thread-count independence, conserved counts, excluded pairs, and CVB0's fixed points kept."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from topicvb._config import threads
from topicvb._kernels.cvb0 import document_counts, prior_arrays, sweep, term_counts
from topicvb._kernels.cvb0_counts import counts_sweep, fixed_point_shift
from topicvb._kernels.sparse import column_index
from topicvb._validation import csr_arrays


def _update(n_dk, v_dk, n_wk_row, v_wk_row, n_k, v_k, alpha, eta_w, eta_k, own_d, own_w, second):
    """The normalised update of one token (the obvious formula of the module docstring)."""
    a = np.maximum(n_dk - own_d, 0.0) + alpha
    b = np.maximum(n_wk_row - own_w, 0.0) + eta_w
    z = np.maximum(n_k - own_w, 0.0) + eta_k
    val = a * b / z
    if second:
        vd = np.maximum(v_dk - own_d * (1 - own_d), 0.0)
        vw = np.maximum(v_wk_row - own_w * (1 - own_w), 0.0)
        vk = np.maximum(v_k - own_w * (1 - own_w), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.exp(-vd / (2 * a * a) - vw / (2 * b * b) + vk / (2 * z * z))
        val = np.where(b > 0, val * factor, val)
    return val / val.sum()


def reference_sweep(X, n_dk, v_dk, n_wk, v_wk, alpha, eta, second, refine, damping=1.0):
    """The counts-only sweep written out per document and cell; returns new (n_dk, v_dk, n_wk, v_wk).
    Each refine step moves the rebuilt g a share ``damping`` of the way to its update."""
    X = np.asarray(X, dtype=float)
    D, V = X.shape
    K = n_wk.shape[1]
    eta_t = np.full((V, K), eta) if np.isscalar(eta) else np.asarray(eta)
    eta_sum = eta_t.sum(axis=0)
    n_dk, v_dk = n_dk.copy(), v_dk.copy()
    n_k, v_k = n_wk.sum(axis=0), (v_wk.sum(axis=0) if second else np.zeros(K))
    new_wk, new_vwk = np.zeros((V, K)), np.zeros((V, K))
    zero = np.zeros(K)
    for d in range(D):
        terms = np.flatnonzero(X[d])
        if terms.size == 0:
            continue
        vd0 = v_dk[d] if second else zero
        rebuilt = {w: _update(n_dk[d], vd0, n_wk[w], v_wk[w] if second else zero, n_k, v_k, alpha, eta_t[w],
                              eta_sum, zero, zero, second) for w in terms}
        for _ in range(refine):
            rebuilt = {w: (1 - damping) * rebuilt[w] + damping * _update(
                n_dk[d], vd0, n_wk[w], v_wk[w] if second else zero, n_k, v_k, alpha, eta_t[w], eta_sum, rebuilt[w],
                rebuilt[w], second) for w in terms}
        g = {w: rebuilt[w].copy() for w in terms}
        n_dk[d] = sum(X[d, w] * g[w] for w in terms)
        if second:
            v_dk[d] = sum(X[d, w] * g[w] * (1 - g[w]) for w in terms)
        for w in terms:
            new = _update(n_dk[d], v_dk[d] if second else zero, n_wk[w], v_wk[w] if second else zero, n_k, v_k,
                          alpha, eta_t[w], eta_sum, g[w], rebuilt[w], second)
            n_dk[d] += X[d, w] * (new - g[w])
            if second:
                v_dk[d] += X[d, w] * (new * (1 - new) - g[w] * (1 - g[w]))
            g[w] = new
        for w in terms:
            new_wk[w] += X[d, w] * g[w]
            new_vwk[w] += X[d, w] * g[w] * (1 - g[w])
    return n_dk, v_dk, new_wk, (new_vwk if second else v_wk)


def _state(X, K, seed, second):
    Xc = sp.csr_matrix(X)
    indptr, indices, data = csr_arrays(Xc)
    gamma = np.random.default_rng(seed).dirichlet(np.ones(K), Xc.nnz)
    D, V = X.shape
    n_dk, n_wk = np.empty((D, K)), np.empty((V, K))
    v_dk, v_wk = np.empty((D, K) if second else (0, K)), np.empty((V, K) if second else (0, K))
    colptr, positions, _ = column_index(indptr, indices, V)
    document_counts(indptr, data, gamma, n_dk, v_dk, second)
    term_counts(colptr, positions, data, gamma, n_wk, v_wk, second)
    return (indptr, indices, data), gamma, n_dk, n_wk, v_dk, v_wk


def _corpus(seed=0, D=12, V=9):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.9, (D, V)).astype(float)
    X[2] = 0  # an empty document is valid input
    X[4, 1] = 3.0
    X[:, 0] += 1  # no empty column
    return X


def _run(csr, n_dk, v_dk, n_wk, v_wk, alpha, eta, second, refine, n_jobs=1, damping=1.0):
    eta_s, eta_t, eta_sum = prior_arrays(eta, n_wk.shape[1])
    with threads(n_jobs):
        counts_sweep(*csr, n_dk, v_dk, n_wk, v_wk, alpha, eta_s, eta_t, eta_sum, second, refine,
                     fixed_point_shift(csr[2].sum()), damping=damping)


@pytest.mark.parametrize("refine,damping", [(0, 1.0), (1, 1.0), (2, 1.0), (1, 0.65), (2, 0.65)])
@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_sweep_matches_reference(second, refine, damping):
    X = _corpus()
    K, alpha, eta = 3, np.array([0.2, 0.5, 0.1]), 0.05
    csr, _, n_dk, n_wk, v_dk, v_wk = _state(X, K, 1, second)
    want = reference_sweep(X, n_dk, v_dk, n_wk, v_wk, alpha, eta, second, refine, damping)
    for _ in range(1):
        _run(csr, n_dk, v_dk, n_wk, v_wk, alpha, eta, second, refine, damping=damping)
    np.testing.assert_allclose(n_dk, want[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(n_wk, want[2], rtol=1e-9, atol=1e-9)  # (fixed-point sums: 2^-shift a cell)
    if second:
        np.testing.assert_allclose(v_dk, want[1], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(v_wk, want[3], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_matrix_prior_with_an_excluded_pair_matches_reference(second):
    X = _corpus(1)
    K, V = 3, X.shape[1]
    alpha = np.full(K, 0.3)
    eta_t = np.random.default_rng(5).uniform(0.02, 0.5, (V, K))  # term-major, as the kernels take it
    eta_t[3, 1] = 0.0  # term 3 excluded from topic 1
    csr, gamma, n_dk, n_wk, v_dk, v_wk = _state(X, K, 2, second)
    # a state that respects the exclusion: no mass of term 3 in topic 1
    cells3 = np.flatnonzero(csr[1] == 3)
    gamma[cells3, 1] = 0.0
    gamma /= gamma.sum(axis=1, keepdims=True)
    colptr, positions, _ = column_index(csr[0], csr[1], V)
    document_counts(csr[0], csr[2], gamma, n_dk, v_dk, second)
    term_counts(colptr, positions, csr[2], gamma, n_wk, v_wk, second)
    want = reference_sweep(X, n_dk, v_dk, n_wk, v_wk, alpha, eta_t, second, 1)
    for _ in range(3):
        if _ == 0:
            _run(csr, n_dk, v_dk, n_wk, v_wk, alpha, eta_t, second, 1)
            np.testing.assert_allclose(n_dk, want[0], rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(n_wk, want[2], rtol=1e-9, atol=1e-9)
        else:
            _run(csr, n_dk, v_dk, n_wk, v_wk, alpha, eta_t, second, 1)
        assert n_wk[3, 1] == 0.0


@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_results_do_not_depend_on_the_number_of_threads(second):
    rng = np.random.default_rng(7)
    X = rng.poisson(1.2, (400, 60)).astype(float)  # enough chunks for two threads
    K, alpha, eta = 5, np.full(5, 0.2), 0.1
    csr, _, n_dk, n_wk, v_dk, v_wk = _state(X, K, 3, second)
    states = []
    for n_jobs in (1, 2):
        s = [a.copy() for a in (n_dk, v_dk, n_wk, v_wk)]
        for _ in range(3):
            _run(csr, *s, alpha, eta, second, 1, n_jobs=n_jobs)
        states.append(s)
    for a, b in zip(*states):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_counts_are_conserved(second):
    rng = np.random.default_rng(3)
    X = rng.poisson(1.5, (40, 25)).astype(float)
    X[5] = 0
    K, alpha, eta = 4, np.full(4, 0.25), 0.1
    csr, _, n_dk, n_wk, v_dk, v_wk = _state(X, K, 2, second)
    for _ in range(5):
        _run(csr, n_dk, v_dk, n_wk, v_wk, alpha, eta, second, 1)
        np.testing.assert_allclose(n_dk.sum(axis=1), X.sum(axis=1), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(n_wk.sum(axis=1), X.sum(axis=0), rtol=1e-12)
        assert np.all(n_dk >= 0) and np.all(n_wk >= 0)


def _fixed_point_of_cvb0():
    """A small LDA corpus and a converged stored-responsibility CVB0 state on it (300 sequential sweeps)."""
    rng = np.random.default_rng(11)
    topics = rng.dirichlet(np.full(30, 0.1), 3)
    theta = rng.dirichlet(np.full(3, 0.2), 150)
    X = np.array([rng.multinomial(60, th @ topics) for th in theta], dtype=float)
    K, alpha, eta = 3, np.full(3, 0.3), 0.05
    csr, gamma, n_dk, n_wk, v_dk, v_wk = _state(X, K, 4, False)
    start_wk = n_wk.copy()
    n_k = n_wk.sum(axis=0)
    for _ in range(300):
        sweep(*csr, gamma, n_dk, n_wk, n_k, v_dk, v_wk, np.zeros(K), alpha, eta, False)
    return X, K, alpha, eta, csr, n_dk, n_wk, v_dk, v_wk, start_wk


def _moved_from_fixed_point(refine, damping):
    """The counts' total move (per token) of one counts-only sweep from the fixed point."""
    X, K, alpha, eta, csr, n_dk, n_wk, v_dk, v_wk, _ = _fixed_point_of_cvb0()
    fixed_wk = n_wk.copy()
    _run(csr, n_dk, v_dk, n_wk, v_wk, alpha, eta, False, refine, damping=damping)
    return np.abs(n_wk - fixed_wk).sum() / X.sum()


def test_a_damped_rebuild_keeps_a_fixed_point_closer():
    """The undamped rebuild's steps overshoot (the first guess, which excludes nothing, is too sharp; its
    update, which excludes it, too flat) and do not settle; moving a share 0.65 of the way per step
    they converge on the cell's responsibility, so a fixed point of CVB0 moves less in a sweep."""
    assert _moved_from_fixed_point(2, 0.65) < 0.5 * _moved_from_fixed_point(2, 1.0)


def test_a_fixed_point_of_cvb0_stays_nearly_fixed():
    """From a converged stored-responsibility CVB0 state, a counts-only sweep (whose rebuild estimates
    each cell's share of the frozen counts) moves the counts far less than a sweep from a random state:
    the scheme keeps CVB0's fixed points up to the rebuild's error."""
    X, K, alpha, eta, csr, n_dk, n_wk, v_dk, v_wk, start_wk = _fixed_point_of_cvb0()
    fixed_wk = n_wk.copy()
    _run(csr, n_dk, v_dk, n_wk, v_wk, alpha, eta, False, 1)
    moved = np.abs(n_wk - fixed_wk).sum() / X.sum()
    s = [start_wk.copy()]
    far_dk = np.empty_like(n_dk)
    document_counts(csr[0], csr[2], _state(X, K, 4, False)[1], far_dk, v_dk, False)
    _run(csr, far_dk, v_dk, s[0], v_wk, alpha, eta, False, 1)
    from_random = np.abs(s[0] - start_wk).sum() / X.sum()
    assert moved < 0.01 * from_random
    assert moved < 2e-3


@pytest.mark.parametrize("matrix", [False, True], ids=["scalar", "matrix"])
def test_log_likelihood_from_counts_matches_point_estimates(matrix):
    from topicvb._kernels.cvb0_counts import counts_log_likelihood

    X = _corpus(4)
    K, V = 3, X.shape[1]
    alpha = np.array([0.2, 0.5, 0.1])
    eta = np.random.default_rng(2).uniform(0.01, 0.4, (V, K)) if matrix else 0.07
    csr, _, n_dk, n_wk, _, _ = _state(X, K, 3, False)
    eta_t = eta if matrix else np.full((V, K), eta)
    theta = (n_dk + alpha) / (n_dk + alpha).sum(axis=1, keepdims=True)
    phi_t = (n_wk + eta_t) / (n_wk + eta_t).sum(axis=0, keepdims=True)
    want = sum(X[d, w] * np.log(theta[d] @ phi_t[w]) for d in range(X.shape[0]) for w in np.flatnonzero(X[d]))
    got = counts_log_likelihood(*csr, n_dk, n_wk, alpha, *prior_arrays(eta, K))
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("n_topics", [8, 19])
@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_sweep_matches_reference_at_vector_widths(second, n_topics):
    """K of 8 and more: the kernel's loops over the topics run in vector registers and its sums in eight
    partial sums (a remainder too at K = 19); the smaller K above exercise only the remainders."""
    X = _corpus(2, D=10, V=14)
    rng = np.random.default_rng(9)
    alpha = rng.uniform(0.05, 0.5, n_topics)
    csr, _, n_dk, n_wk, v_dk, v_wk = _state(X, n_topics, 5, second)
    want = reference_sweep(X, n_dk, v_dk, n_wk, v_wk, alpha, 0.03, second, 1)
    _run(csr, n_dk, v_dk, n_wk, v_wk, alpha, 0.03, second, 1)
    np.testing.assert_allclose(n_dk, want[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(n_wk, want[2], rtol=1e-9, atol=1e-9)
    if second:
        np.testing.assert_allclose(v_dk, want[1], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(v_wk, want[3], rtol=1e-9, atol=1e-9)


def test_results_do_not_depend_on_the_number_of_threads_with_uneven_documents():
    """Documents of very different lengths (threads get ranges of about equal cells) and K = 19."""
    rng = np.random.default_rng(8)
    lengths = rng.choice([0.05, 0.5, 4.0], size=300, p=[0.3, 0.6, 0.1])
    X = rng.poisson(lengths[:, None] * np.ones((1, 80))).astype(float)
    X[:, 0] += 1
    X[[0, 150, 299]] = 0  # empty documents, at the ends and in the middle
    K = 19
    alpha = np.full(K, 0.1)
    csr, _, n_dk, n_wk, v_dk, v_wk = _state(X, K, 6, False)
    states = []
    for n_jobs in (1, 2):
        s = [a.copy() for a in (n_dk, v_dk, n_wk, v_wk)]
        for _ in range(2):
            _run(csr, *s, alpha, 0.05, False, 1, n_jobs=n_jobs)
        states.append(s)
    for a, b in zip(*states):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("second", [False, True], ids=["cvb0", "cvb"])
def test_results_do_not_depend_on_which_thread_takes_which_unit(second, monkeypatch):
    """The threads claim units of documents as they go (run_claimed), so which thread sweeps which documents,
    and in what order, varies from run to run: with many small units, the counts, the documents'
    log-likelihoods and the mean change are the same claimed by two real threads, by one thread in one call, and
    by two simulated slots taking the units in a shuffled order."""
    import topicvb._kernels.cvb0_counts as cc

    rng = np.random.default_rng(11)
    lengths = rng.choice([0.1, 0.6, 3.0], size=240, p=[0.3, 0.6, 0.1])
    X = rng.poisson(lengths[:, None] * np.ones((1, 50))).astype(float)
    X[:, 0] += 1
    K, alpha, eta = 16, np.full(16, 0.15), 0.05  # (enough work for two threads)
    csr, _, n_dk, n_wk, v_dk, v_wk = _state(X, K, 5, second)
    monkeypatch.setattr(cc, "UNIT_CELLS", 64)  # about 70 units of a few documents
    assert cc.unit_bounds(csr[0], csr[1].shape[0]).shape[0] > 40
    real = cc.run_claimed
    order = rng.permutation(1000)

    slots = []

    def shuffled(kernel, n_units, *args, workers):  # the slots in turn, the units in a shuffled order, one thread
        slots.append(workers)
        for i, unit in enumerate(u for u in order if u < n_units):
            kernel(i % workers, unit, unit + 1, *args)

    results = []
    for claim, n_jobs in ((real, 1), (real, 2), (shuffled, 2)):  # (two threads where the machine has them)
        monkeypatch.setattr(cc, "run_claimed", claim)
        s = [a.copy() for a in (n_dk, v_dk, n_wk, v_wk)]
        eta_s, eta_t, eta_sum = prior_arrays(eta, K)
        changes, ll = [], []
        with threads(n_jobs):
            for _ in range(2):
                before = np.zeros(X.shape[0])
                changes.append(cc.counts_sweep(*csr, *s, alpha, eta_s, eta_t, eta_sum, second, 1,
                                               fixed_point_shift(csr[2].sum()), max_workers=2,
                                               log_likelihood=None if second else before))
                ll.append(before)
            total = cc.counts_log_likelihood(*csr, s[0], s[2], alpha, eta_s, eta_t, eta_sum)
        results.append((s, changes, ll, total))
    assert max(slots) == min(2, numba.config.NUMBA_NUM_THREADS)  # (the sweeps: each slot its own accumulators)
    for s, changes, ll, total in results[1:]:
        for a, b in zip(results[0][0], s):
            np.testing.assert_array_equal(a, b)
        assert changes == results[0][1] and total == results[0][3]
        for a, b in zip(results[0][2], ll):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("matrix", [False, True], ids=["scalar", "matrix"])
@pytest.mark.parametrize("n_topics", [3, 19])
def test_the_sweep_gives_the_log_likelihood_of_the_counts_before_it(matrix, n_topics):
    """CVB0's rebuild computes each cell's first guess (n_dk + alpha)(n_wk + eta) / (n_k + eta_sum), whose
    sum is the cell's term of the log-likelihood of the counts before the sweep: the sweep's per-document
    output equals counts_log_likelihood of those counts (empty documents left as they were)."""
    from topicvb._kernels.cvb0_counts import counts_log_likelihood

    X = _corpus(6)
    X[3] = 0  # an empty document
    V = X.shape[1]
    rng = np.random.default_rng(3)
    alpha = rng.uniform(0.05, 0.5, n_topics)
    eta = rng.uniform(0.01, 0.4, (V, n_topics)) if matrix else 0.07
    csr, _, n_dk, n_wk, v_dk, v_wk = _state(X, n_topics, 3, False)
    want = counts_log_likelihood(*csr, n_dk, n_wk, alpha, *prior_arrays(eta, n_topics))
    out = np.full(X.shape[0], 0.0)
    out[3] = 123.0
    counts_sweep(*csr, n_dk, v_dk, n_wk, v_wk, alpha, *prior_arrays(eta, n_topics), False, 1,
                 fixed_point_shift(float(X.sum())), log_likelihood=out)
    assert out[3] == 123.0
    out[3] = 0.0
    np.testing.assert_allclose(out.sum(), want, rtol=1e-12)
    # and the sweep changed the counts: the objective is the state's before it
    assert counts_log_likelihood(*csr, n_dk, n_wk, alpha, *prior_arrays(eta, n_topics)) != want
