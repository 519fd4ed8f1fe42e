"""Fits of corpora whose weights sit at the edges of floating point: fractional cells with tiny priors (CVB),
negligible weights (1e-20 a cell and below) for HDP, and float32 weights near the smallest number for the
moves and the stochastic fit. Each must end finite and normalised, and print no numpy RuntimeWarning."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb import HDP, CollapsedLDA, StochasticCollapsedLDA
from topicvb._kernels.cvb0 import sweep
from topicvb.models._moves import free_slot, shares_of, topic_shares


def _counts(shape=(40, 30), seed=0):
    return np.random.default_rng(seed).poisson(0.5, shape).astype(np.float64)


def _fractional(seed=0):
    """30 x 25 cells of weights in [0.3, 0.9] (no cell holds a whole token), about 30% of them non-zero."""
    gen = np.random.default_rng(seed)
    mask = gen.random((30, 25)) < 0.3
    return sp.csr_matrix(np.where(mask, gen.uniform(0.3, 0.9, mask.shape), 0.0))


def _fit_strict(model, X):
    """``model`` fitted on X with RuntimeWarnings raised as errors (ConvergenceWarnings ignored: the fits are
    short on purpose), then its transform of X."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", RuntimeWarning)
        model.fit(X)
        return model.transform(X)


def _assert_finite_normalised(model, theta):
    components = np.asarray(model.components_, dtype=np.float64)
    assert np.all(np.isfinite(components)) and np.all(components >= 0)
    phi = model.topic_word_distribution()
    assert np.all(np.isfinite(phi))
    np.testing.assert_allclose(phi.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(np.isfinite(theta))
    np.testing.assert_allclose(theta.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(np.isfinite(model.bound_history_))


# ------------------------------------------------------------------ CVB: fractional cells, tiny priors
@pytest.mark.parametrize("prior, dtype", [(1e-12, "float64"), (1e-6, "float64"), (1e-6, "float32")])
def test_cvb_fractional_weights_tiny_priors_stay_finite(prior, dtype):
    """A cell of weight c < 1 holds c gamma of the counts: taking a whole token (gamma) out of it left
    its counts below zero (clamped to 0) and its variances positive, and with tiny priors the second-order
    correction overflowed to NaN."""
    X = _fractional()
    model = CollapsedLDA(5, variant="cvb", doc_topic_prior=prior, topic_word_prior=prior, storage="responsibilities",
                         max_iter=20, random_state=0, dtype=dtype)
    _assert_finite_normalised(model, _fit_strict(model, X))


def test_cvb_sweep_overflowing_correction_stays_finite():
    """Tiny priors and a topic of almost no tokens (1e-9 of one, with as much variance): exp(v_k /
    (2 (n_k + V eta)^2)) overflows even for whole tokens; the cell's weights are then taken in logs (the
    cell goes to that topic) instead of inf / inf = NaN."""
    indptr = np.array([0, 1, 2], dtype=np.int64)
    indices = np.array([0, 1], dtype=np.int32)
    data = np.array([1.0, 1.0])
    gamma = np.array([[1.0, 0.0], [1.0 - 1e-9, 1e-9]])
    n_dk = gamma * data[:, None]  # one cell a document
    n_wk = n_dk.copy()  # one cell a term
    v_dk = gamma * (1.0 - gamma) * data[:, None]
    v_wk = v_dk.copy()
    n_k, v_k = n_wk.sum(axis=0), v_wk.sum(axis=0)
    alpha = np.full(2, 1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        sweep(indptr, indices, data, gamma, n_dk, n_wk, n_k, v_dk, v_wk, v_k, alpha, 1e-12, True)
    assert np.all(np.isfinite(gamma))
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0)
    assert np.all(np.isfinite(n_dk)) and np.all(np.isfinite(n_wk)) and np.all(np.isfinite(n_k))
    np.testing.assert_allclose(n_k.sum(), data.sum())


# ------------------------------------------------------------------ HDP: negligible weights
@pytest.mark.parametrize("scale", [1e-20, 1e-300])
def test_hdp_negligible_weights_stay_finite(scale):
    """Weights of 1e-20 a cell: the global step's tables are as small, the sticks go to their bounds and
    alpha0 beta_k underflowed to 0, whose expectations are infinite: alpha0, then every count, went NaN.
    Such a corpus's model is essentially the prior: finite, normalised."""
    X = sp.csr_matrix(_counts() * scale)
    model = HDP(max_components=40, prior_burn_in=0, max_iter=5, random_state=0)
    theta = _fit_strict(model, X)
    _assert_finite_normalised(model, theta)
    for name in ("all_components_", "topic_weights_", "topic_shares_", "objective_history_", "doc_topic_prior_"):
        assert np.all(np.isfinite(getattr(model, name))), name
    assert np.isfinite(model.doc_topic_concentration_) and np.isfinite(model.topic_word_prior_)


# ------------------------------------------------------------------ float32: weights near the smallest number
@pytest.mark.parametrize("storage", ["responsibilities", "counts"])
@pytest.mark.parametrize("scale", [1e-30, 1e-45])
def test_collapsed_moves_float32_negligible_weights_no_runtime_warning(storage, scale):
    """The moves' topic shares: every c gamma underflows in float32 (weights of 1e-45), and the totals over a
    floor of 1e-300 (0 in float32) were 0 / 0."""
    X = sp.csr_matrix(_counts() * scale)
    model = CollapsedLDA(5, dtype="float32", storage=storage, moves=True, max_iter=30, random_state=0)
    _assert_finite_normalised(model, _fit_strict(model, X))


@pytest.mark.parametrize("scale", [1e-30, 1e-42])
def test_stochastic_float32_negligible_weights_no_runtime_warning(scale):
    """The re-seeding's counts in the tokens of X: the model's tokens per token of X (1 over the corpus's
    total) exceed float32's range, and float32 counts divided by it cast it to inf."""
    X = sp.csr_matrix(_counts() * scale)
    model = StochasticCollapsedLDA(5, dtype="float32", batch_size=10, max_iter=20, random_state=0)
    _assert_finite_normalised(model, _fit_strict(model, X))


def test_topic_shares_of_underflowing_weights():
    """Shares from float32 weights whose products with the responsibilities underflow: those of the weights
    over their largest; totals of 0 share equally."""
    gamma = np.array([[0.75, 0.25], [0.25, 0.75], [0.5, 0.5]], dtype=np.float32)
    data = np.array([1e-45, 1e-45, 2e-45], dtype=np.float32)  # (the smallest float32 numbers)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        shares = topic_shares(gamma, data)
        equal = shares_of(np.zeros(4, dtype=np.float32))
    np.testing.assert_allclose(shares, [0.5, 0.5], rtol=1e-6)
    np.testing.assert_allclose(equal, 0.25)


def test_free_slot_float32_row_wholly_on_the_slot():
    """Deleting a topic that holds all of a float32 cell: its row is shared equally among the others (1 over
    a floor of 1e-300, 0 in float32, was a division by zero)."""
    gamma = np.array([[1.0, 0.0, 0.0], [0.5, 0.25, 0.25]], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        free_slot(gamma, 0, -1)
    np.testing.assert_allclose(gamma, [[0.0, 0.5, 0.5], [0.0, 0.5, 0.5]])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["BatchLDA", "OnlineLDA", "PLSA", "CollapsedLDA", "StochasticCollapsedLDA", "HDP"])
def test_fits_and_transforms_under_numpy_errors_raised(name, dtype):
    """A program (or test suite) running under np.seterr(all="raise") can fit and use every estimator: PLSA in
    float32 raised FloatingPointError, underflow in the cast of its rows' proportions to float32."""
    import warnings as _warnings

    import topicvb
    from topicvb.datasets import make_lda_corpus

    X = make_lda_corpus(200, 80, 4, random_state=0).corpus.X
    with np.errstate(all="raise"), _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        model = getattr(topicvb, name)(max_iter=5, random_state=0, dtype=dtype).fit(X)
        theta = model.transform(X)
        model.score(X)
    assert np.all(np.isfinite(theta))
