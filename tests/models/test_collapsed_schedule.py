"""CollapsedLDA with learned priors and stored responsibilities: the prior step runs beside the sweep (the sweep
uses the priors of the step before), CVB0's count variances are refreshed every VARIANCE_EVERY sweeps, and the
objective of each sweep's state is computed beside the next sweep. Checked against a slow reference of that
schedule built from the naive sweep, and for independence of the thread count."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils import check_random_state

import reference as ref
from topicvb.datasets import make_lda_corpus
from topicvb.models import CollapsedLDA
from topicvb.models._priors import polya_step, symmetric_polya_step
from topicvb.models._collapsed_start import random_responsibilities
from topicvb.models._collapsed_sweeps import HYPER_RATE, HYPER_SHAPE, VARIANCE_EVERY


def _counts(X, gamma, K, second):
    D, V = X.shape
    n_dk, n_wk = np.zeros((D, K)), np.zeros((V, K))
    v_dk, v_wk = np.zeros((D, K)), np.zeros((V, K))
    for (d, w), g in gamma.items():
        n_dk[d] += X[d, w] * g
        n_wk[w] += X[d, w] * g
        v_dk[d] += X[d, w] * g * (1 - g)
        v_wk[w] += X[d, w] * g * (1 - g)
    return n_dk, n_wk, v_dk, v_wk


def _objective(X, n_dk, n_wk, alpha, eta):
    theta = (n_dk + alpha) / (n_dk + alpha).sum(axis=1, keepdims=True)
    phi = (n_wk + eta) / (n_wk + eta).sum(axis=0, keepdims=True)
    rows, cols = np.nonzero(X)
    return float(sum(X[d, w] * np.log(theta[d] @ phi[w]) for d, w in zip(rows, cols)))


def _reference_fit(X, K, seed, n_sweeps, burn_in, second):
    """The schedule, spelled out: before sweep ``it`` (past the burn-in) the prior step from the counts of the
    state before it (CVB0's variances as of the last refresh, CVB's current ones); the sweep with the priors
    held before that step; the step's priors taken after it; each state's objective at its priors."""
    D, V = X.shape
    Xs = sp.csr_matrix(X)
    start = random_responsibilities(Xs, check_random_state(seed), K, np.float64)
    rows, cols = Xs.nonzero()
    gamma = {(d, w): start[i] for i, (d, w) in enumerate(zip(rows, cols))}
    alpha, eta = np.full(K, 1.0 / K), 1.0 / K
    lengths = X.sum(axis=1).astype(float)
    history, pending, variances = [], None, None
    for it in range(1, n_sweeps + 1):
        n_dk, n_wk, v_dk, v_wk = _counts(X, gamma, K, second)
        new_alpha, new_eta = alpha, eta
        if it > burn_in:
            if second or (it - burn_in - 1) % VARIANCE_EVERY == 0:
                variances = (v_dk, v_wk)
            new_alpha = polya_step(alpha, n_dk, variances[0], lengths, HYPER_SHAPE, HYPER_RATE)
            new_eta = symmetric_polya_step(eta, n_wk.T, variances[1].T, HYPER_SHAPE, HYPER_RATE)
        if pending is not None:
            history.append(_objective(X, *pending))
        gamma = ref.cvb_sweep(X, gamma, alpha, eta, second)
        alpha, eta = new_alpha, new_eta
        n_dk, n_wk, _, _ = _counts(X, gamma, K, second)
        pending = (n_dk, n_wk, alpha, eta)
    history.append(_objective(X, *pending))
    return n_wk, alpha, eta, np.array(history)


@pytest.mark.parametrize("variant", ["cvb0", "cvb"])
def test_learned_prior_fit_follows_the_reference_schedule(variant):
    rng = np.random.default_rng(3)
    X = rng.poisson(0.6, size=(12, 15)).astype(float)
    X[3] = 0.0  # an empty document
    K, sweeps, burn_in = 3, 2 + 2 * VARIANCE_EVERY, 2
    n_wk, alpha, eta, history = _reference_fit(X, K, 7, sweeps, burn_in, variant == "cvb")
    for n_jobs in (1, 2):
        model = CollapsedLDA(K, variant=variant, learn_priors=True, prior_burn_in=burn_in, init="random",
                             moves=False, max_iter=sweeps, tol=0, random_state=7, n_jobs=n_jobs,
                             storage="responsibilities").fit(sp.csr_matrix(X))
        assert model.n_iter_ == sweeps and model.bound_history_.shape == (sweeps,)
        np.testing.assert_allclose(model.bound_history_, history, rtol=1e-10)
        np.testing.assert_allclose(model.doc_topic_prior_, alpha, rtol=1e-10)
        np.testing.assert_allclose(model.topic_word_prior_, eta, rtol=1e-10)
        np.testing.assert_allclose(model.components_, (n_wk + eta).T, rtol=1e-10)


def _guided_prior():
    prior = np.full((5, 120), 0.05)
    prior[0, :10] = 1.0  # a seeded topic
    prior[1, 10:15] = 0.0  # excluded terms
    return prior


@pytest.mark.filterwarnings("ignore::topicvb.exceptions.SeedUnseenWarning")  # (random X lacks seeded terms)
@pytest.mark.parametrize("params", [dict(), dict(variant="cvb"), dict(topic_update="per_sweep"),
                                    dict(learn_priors="doc_topic"), dict(dtype="float32"),
                                    dict(dtype="float32", variant="cvb"), dict(dtype="float32", topic_update="per_sweep"),
                                    dict(topic_word_prior="guided")])
def test_learned_prior_fit_does_not_depend_on_the_thread_count(params):
    X = make_lda_corpus(400, 120, 5, doc_length=60, random_state=2).corpus.X
    if params.get("topic_word_prior") == "guided":  # (a matrix prior: its scale is learned)
        params = {**params, "topic_word_prior": _guided_prior()}
    kwargs = {**dict(learn_priors=True, prior_burn_in=3, max_iter=40, tol=0, random_state=0), **params}
    one = CollapsedLDA(5, n_jobs=1, **kwargs).fit(X)
    two = CollapsedLDA(5, n_jobs=2, **kwargs).fit(X)
    assert one.n_iter_ == two.n_iter_ and one.bound_history_.shape == (one.n_iter_,)
    np.testing.assert_array_equal(one.bound_history_, two.bound_history_)
    np.testing.assert_array_equal(one.components_, two.components_)
    np.testing.assert_array_equal(one.doc_topic_prior_, two.doc_topic_prior_)


def test_a_settled_fit_stops_one_sweep_after_the_sweep_whose_objective_settled_it():
    """The stopping test sees each objective one sweep late: the fit ends on the state after the one whose
    objective settled it, and that state's objective ends the history."""
    X = make_lda_corpus(300, 100, 4, doc_length=50, random_state=1).corpus.X
    model = CollapsedLDA(4, learn_priors=True, prior_burn_in=3, moves=False, tol=1e-4, random_state=0).fit(X)
    h = model.bound_history_
    assert model.n_iter_ < model.max_iter and h.shape == (model.n_iter_,)
    assert model._converged(list(h[:-1])) and not any(model._converged(list(h[:j])) for j in range(4, len(h) - 1))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_learned_prior_fit_resumes_exactly_from_its_checkpoint(tmp_path, dtype):
    """The checkpoint holds the variances of the last refresh (float64) and one objective fewer than the sweeps
    while one is pending; the resumed fit recomputes that objective and continues as the uninterrupted one."""
    X = make_lda_corpus(400, 120, 5, doc_length=60, random_state=2).corpus.X
    kwargs = dict(learn_priors=True, prior_burn_in=3, tol=0, random_state=0, dtype=dtype, moves=False)
    straight = CollapsedLDA(5, max_iter=30, **kwargs).fit(X)
    path = tmp_path / "fit.npz"
    CollapsedLDA(5, max_iter=30, checkpoint_path=path, checkpoint_every=17, **kwargs).fit(X)  # (saved at 17)
    with np.load(path) as saved:
        assert int(saved["iteration"]) == 17 and saved["history"].shape == (16,)
        assert saved["v_dk"].dtype == np.float64 and saved["v_dk"].shape == (400, 5)
    resumed = CollapsedLDA(5, max_iter=30, checkpoint_path=path, **kwargs).fit(X, resume=True)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.doc_topic_prior_, straight.doc_topic_prior_)
