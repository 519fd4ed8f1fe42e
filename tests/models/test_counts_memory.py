"""The memory work on CollapsedLDA(storage="counts") (issue #22) changes no number of a float64 fit: the
move's factors read from the counts where needed (``ShiftedRows``) give the columns of the whole arrays, the
sweeps' accumulators kept between sweeps (``SweepBuffers``) and a trial on one thread give the counts of fresh
ones on every thread, and the prior step reads float32 counts without float64 copies."""

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb._config import return_free_memory, threads
from topicvb._kernels.cvb0 import prior_arrays
from topicvb._kernels.cvb0_counts import SweepBuffers, counts_sweep, fixed_point_shift
from topicvb._validation import csr_arrays
from topicvb.datasets import make_lda_corpus
from topicvb.models._moves import Cells, ShiftedRows, _gram, product_columns
from topicvb.models._priors import _gain_sums, polya_step, symmetric_polya_step


@pytest.fixture(scope="module")
def corpus():
    return sp.csr_matrix(make_lda_corpus(400, 300, 6, random_state=3).corpus.X, dtype=np.float64)


def _counts(X, K, dtype, rng):
    g = rng.dirichlet(np.ones(K), size=X.shape[1])
    n_wk = (np.asarray(X.sum(axis=0)).ravel()[:, None] * g).astype(dtype)
    n_dk = np.asarray(X @ g).astype(dtype)
    return n_dk, n_wk


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("matrix", [False, True], ids=["scalar", "matrix"])
def test_shifted_rows_give_the_columns_of_the_whole_arrays(corpus, dtype, matrix):
    rng = np.random.default_rng(0)
    K = 7
    n_dk, n_wk = _counts(corpus, K, dtype, rng)
    alpha = rng.random(K) + 0.05
    eta = 0.05
    if matrix:  # (a matrix prior with excluded pairs)
        eta = rng.random((corpus.shape[1], K)) * 0.1
        eta[rng.random(eta.shape) < 0.2] = 0.0
    total = n_wk.sum(axis=0) + (eta.sum(axis=0) if matrix else eta * corpus.shape[1])
    cells = Cells(*csr_arrays(corpus))
    whole = product_columns(cells, n_dk + alpha, (n_wk + eta) / total)
    shifted = product_columns(cells, ShiftedRows(n_dk, alpha), ShiftedRows(n_wk, eta, total))
    for k in range(K):
        np.testing.assert_array_equal(shifted(k), whole(k))
    # the responsibilities of every cell sum to one over the topics
    np.testing.assert_allclose(sum(shifted(k) for k in range(K)), 1.0, rtol=1e-6)
    # a learned eta is a NumPy float64, whose promotion of a float32 column differs from a Python float's
    learned = np.float64(0.05) if not matrix else eta
    whole = product_columns(cells, n_dk + alpha, (n_wk + learned) / total)
    shifted = product_columns(cells, ShiftedRows(n_dk, alpha), ShiftedRows(n_wk, learned, total))
    for k in range(K):
        np.testing.assert_array_equal(shifted(k), whole(k))


def test_cells_keep_the_data_and_int32_rows(corpus):
    indptr, indices, data = csr_arrays(corpus)
    cells = Cells(indptr, indices, data)
    assert cells.data is data and cells.rows.dtype == np.int32
    np.testing.assert_array_equal(cells.rows, np.repeat(np.arange(corpus.shape[0]), np.diff(indptr)))
    single = Cells(indptr, indices, data.astype(np.float32))
    assert single.data.dtype == np.float32


def test_gram_of_float32_counts_is_the_float64_gram():
    rng = np.random.default_rng(1)
    counts = (rng.random((5000, 9)) * 30).astype(np.float32)
    wide = counts.astype(np.float64)
    gram, squares = _gram(counts)
    np.testing.assert_allclose(gram, wide.T @ wide, rtol=1e-12)
    np.testing.assert_allclose(squares, np.einsum("vk,vk->k", wide, wide), rtol=1e-12)
    gram, squares = _gram(wide)  # (float64: the expressions themselves)
    np.testing.assert_array_equal(gram, wide.T @ wide)
    np.testing.assert_array_equal(squares, np.einsum("vk,vk->k", wide, wide))


@pytest.mark.parametrize("variances", [False, True], ids=["cvb0", "variances"])
def test_kept_buffers_and_one_thread_give_the_counts_of_fresh_buffers(corpus, variances):
    """Three sweeps with buffers kept between them (and the middle one on one thread, as a move's trial runs)
    against three sweeps with fresh buffers on two threads: the same counts, bit for bit."""
    K = 12
    indptr, indices, data = csr_arrays(corpus)
    shift = fixed_point_shift(float(data.sum()))
    alpha = np.full(K, 0.1)
    results = []
    for kept in (False, True):
        rng = np.random.default_rng(2)
        n_dk, n_wk = _counts(corpus, K, np.float64, rng)
        shape_d, shape_w = (n_dk.shape, n_wk.shape) if variances else ((0, K), (0, K))
        v_dk, v_wk = np.zeros(shape_d), np.zeros(shape_w)
        buffers = SweepBuffers() if kept else None
        with threads(2):
            for sweep in range(3):
                counts_sweep(indptr, indices, data, n_dk, v_dk, n_wk, v_wk, alpha, *prior_arrays(0.01, K), False, 1,
                             shift, None, variances, 1.0, buffers, 1 if kept and sweep == 1 else None)
        results.append((n_dk, n_wk, v_dk, v_wk))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    assert buffers.key is not None
    buffers.release()
    assert buffers.key is None and buffers.arrays is None


def test_prior_steps_read_float32_counts_as_their_float64_values(corpus):
    rng = np.random.default_rng(4)
    K = 8
    n_dk, n_wk = _counts(corpus, K, np.float32, rng)
    v_dk = (n_dk * 0.3).astype(np.float32)
    v_wk = (n_wk * 0.2).astype(np.float32)
    alpha = rng.random(K) + 0.05
    wide = [a.astype(np.float64) for a in (n_dk, n_wk, v_dk, v_wk)]
    # the gain sums: the kernel reads each float32 entry as its float64 value, so the numbers are the same
    np.testing.assert_array_equal(_gain_sums(n_dk, v_dk, alpha), _gain_sums(wide[0], wide[2], alpha))
    lengths = np.asarray(corpus.sum(axis=1)).ravel()
    np.testing.assert_array_equal(polya_step(alpha, n_dk, v_dk, lengths, 1.0, 1.0),
                                  polya_step(alpha, wide[0], wide[2], lengths, 1.0, 1.0))
    # the symmetric step sums the float32 totals in float64 by blocks: the same up to rounding
    assert symmetric_polya_step(0.05, n_wk.T, v_wk.T, 1.0, 1.0) == pytest.approx(
        symmetric_polya_step(0.05, wide[1].T, wide[3].T, 1.0, 1.0), rel=1e-12)


def test_returning_free_memory_is_safe_to_call():
    blocks = [np.ones(1 << 18) for _ in range(8)]
    del blocks
    return_free_memory()  # (glibc: the heap's free pages go back; elsewhere nothing)
    return_free_memory()


@pytest.mark.parametrize("params", [{}, {"learn_priors": True}], ids=["fixed", "learned"])
def test_objectives_computed_in_the_next_sweep_are_those_of_each_state(corpus, params):
    """CVB0's counts sweeps get each state's objective from the next sweep's rebuild (one sweep late): a fit of
    j sweeps ends with its last state's objective by a pass of its own, which must equal the value the longer
    fit got from its sweep j + 1; the histories agree sweep by sweep."""
    import warnings

    from topicvb import CollapsedLDA

    fits = {}
    for n in (4, 7):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[n] = CollapsedLDA(6, storage="counts", max_iter=n, tol=0, moves=False, random_state=1,
                                   prior_burn_in=2, **params).fit(corpus)
    short, long = fits[4].bound_history_, fits[7].bound_history_
    assert short.shape == (4,) and long.shape == (7,)
    np.testing.assert_allclose(long[:4], short, rtol=1e-12)


@pytest.mark.parametrize("acceleration", [None, "squarem"])
def test_a_fit_that_settles_on_its_last_sweep_does_not_warn(corpus, acceleration):
    """The plain counts sweeps see each objective one sweep late and the last one after the loop: a fit whose
    max_iter ends on the sweep that settled must not warn that it did not converge (one stopped earlier must).
    SQUAREM cycles are tested after their third sweep, whose objective (theta2's) is known in that sweep."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from topicvb import CollapsedLDA

    def fit(max_iter):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = CollapsedLDA(4, storage="counts", acceleration=acceleration, random_state=0, moves=False,
                                 max_iter=max_iter).fit(corpus)
        return model, [w for w in caught if issubclass(w.category, ConvergenceWarning)]

    free, _ = fit(500)
    # (the plain fit stops one sweep after the one whose objective settled; a cycle on the sweep that settled)
    settled = free.n_iter_ - 1 if acceleration is None else free.n_iter_
    model, warned = fit(settled)
    assert model.n_iter_ == settled and not warned
    model, warned = fit(settled - 3)
    assert warned


def test_moves_read_float32_data_as_float64(corpus):
    """Cells keep float32 data as it is; a merge's price and a split read it as float64, as a float64 copy would
    be read, whatever the responsibilities' dtype (stored float32 responsibilities included)."""
    from topicvb.models._moves import merge_cost, split_topic

    indptr, indices, data = csr_arrays(corpus)
    rng = np.random.default_rng(5)
    first, second = (rng.random(data.shape[0]).astype(np.float32) * 0.5 for _ in range(2))
    narrow, wide = Cells(indptr, indices, data.astype(np.float32)), Cells(indptr, indices, data)
    V = corpus.shape[1]
    assert merge_cost(narrow, first, second, V, 0.1, 0.01) == merge_cost(wide, first, second, V, 0.1, 0.01)
    a = split_topic(narrow, first, V, 0.1, 0.01, np.random.default_rng(0))
    b = split_topic(wide, first, V, 0.1, 0.01, np.random.default_rng(0))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_rejected_trial_returns_to_the_state_kept_in_float32(corpus, dtype, monkeypatch):
    """While a move's trial runs a float64 fit keeps the state in float32 (CountSweeps.NARROW_STATE): a rejected
    move returns the state's arrays as float64 holding the float32-rounded counts; a float32 fit's, unchanged."""
    from topicvb import CollapsedLDA
    from topicvb.models import _collapsed_sweeps as cs

    model = CollapsedLDA(8, storage="counts", random_state=0, dtype=dtype)
    X = corpus.astype(model._float)
    alpha, eta = model._resolve_priors()
    sweeps = cs.CountSweeps(model, X, False, False, eta)
    rng = np.random.default_rng(0)
    state = sweeps.start(X, rng, eta)
    state.update(alpha=alpha, **sweeps.prior_state(eta))
    history = []
    for it in range(1, 8):
        history += sweeps.advance(state, it)
    history += sweeps.complete(state)
    before = {key: state[key].copy() for key in sweeps.STATE}
    tried = []
    monkeypatch.setattr(cs, "judge", lambda *args, **kwargs: tried.append(args[1]) or False)
    assert sweeps.try_move(state, history, 7, 0, rng) is None
    assert len(tried) == 1 and len(tried[0]) >= 1  # (a trial ran and was rejected)
    for key in sweeps.STATE:
        assert state[key].dtype == model._float
        want = before[key].astype(np.float32).astype(model._float)
        np.testing.assert_array_equal(state[key], want)
    assert sweeps.buffers.key is None and sweeps.max_workers is None
