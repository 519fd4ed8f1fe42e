"""Algorithm facts, recovery of known topics, determinism and bad input for the four estimators."""

import pickle
import warnings

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import reference as ref
from topicvb.datasets import make_lda_corpus
from topicvb.models import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA
from topicvb.models._start import random_start


@pytest.fixture(scope="module")
def synthetic():
    """1,500 documents from 6 well-separated topics over 120 terms."""
    return make_lda_corpus(1500, 120, 6, doc_topic_prior=0.2, topic_word_prior=0.05, doc_length=80,
                           separated=True, random_state=42)


def _recovery(true_topics, model):
    """Mean over true topics of the best cosine similarity to a learned topic."""
    a = true_topics / np.linalg.norm(true_topics, axis=1, keepdims=True)
    b = model.topic_word_distribution()
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return float((a @ b.T).max(axis=1).mean())


MODELS = {
    "plsa": lambda: PLSA(6, max_iter=200, random_state=0),
    "plsa_simultaneous": lambda: PLSA(6, update="simultaneous", max_iter=200, random_state=0),
    "batch": lambda: BatchLDA(6, max_iter=200, random_state=0),
    "cvb0": lambda: CollapsedLDA(6, max_iter=200, random_state=0),
    "cvb": lambda: CollapsedLDA(6, variant="cvb", max_iter=200, random_state=0),
    "cvb0_per_sweep": lambda: CollapsedLDA(6, topic_update="per_sweep", max_iter=200, random_state=0),
    "online": lambda: OnlineLDA(6, batch_size=100, max_iter=30, learning_offset=5.0, random_state=0),
    "scvb0": lambda: StochasticCollapsedLDA(6, batch_size=100, max_iter=30, random_state=0),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_recovers_known_topics(name, synthetic):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = MODELS[name]().fit(synthetic.corpus.X)
    assert _recovery(synthetic.topic_word, model) >= 0.9
    assert np.all(np.isfinite(model.bound_history_))


def test_batch_lda_elbo_never_decreases(synthetic):
    model = BatchLDA(8, max_iter=40, tol=0, random_state=1).fit(synthetic.corpus.X)  # tol=0: no early stop
    h = model.bound_history_
    assert h.shape == (40,) and model.n_iter_ == 40
    assert np.all(np.diff(h) >= -1e-10 * np.abs(h[1:]))
    assert h[-1] > h[0]


@pytest.mark.parametrize("update", ["alternating", "simultaneous"])
@pytest.mark.parametrize("priors", [(None, None), (1.0, 1.0), (1.5, 1.01)])
def test_plsa_objective_never_decreases(priors, update, synthetic):
    model = PLSA(6, doc_topic_prior=priors[0], topic_word_prior=priors[1], update=update, max_iter=30, tol=0,
                 random_state=2)
    model.fit(synthetic.corpus.X)
    h = model.bound_history_
    assert np.all(np.diff(h) >= -1e-12 * np.abs(h[1:]))
    assert h[-1] > h[0]


@pytest.mark.parametrize("update", ["alternating", "simultaneous"])
@pytest.mark.parametrize("beta, priors", [(1.0, (None, None)), (0.8, (None, None)), (1.0, (1.3, 1.1)),
                                          (1.0, (0.9, None))])
def test_plsa_iterations_are_the_reference_iterations(update, beta, priors):
    data = make_lda_corpus(30, 20, 3, random_state=4, doc_length=25)
    X = data.corpus.X.toarray()
    X[5] = 0.0  # an empty document
    D, V, K, n_iter = X.shape[0], X.shape[1], 3, 6
    model = PLSA(K, doc_topic_prior=priors[0], topic_word_prior=priors[1], beta=beta, update=update, init="random",
                 max_iter=n_iter, tol=0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(sp.csr_matrix(X))
    rng = np.random.RandomState(0)  # the draws of init="random"
    theta = rng.random_sample((D, K)) + 0.5
    theta /= theta.sum(axis=1, keepdims=True)
    phi = rng.random_sample((K, V)) + 0.5
    phi /= phi.sum(axis=1, keepdims=True)
    a1 = 0.0 if priors[0] is None else priors[0] - 1.0
    e1 = 0.0 if priors[1] is None else priors[1] - 1.0
    history = []
    for i in range(n_iter + 1):
        new_theta, new_phi, ll = ref.plsa_iteration(X, theta, phi, update, beta, a1, e1)
        if i > 0:
            logs = [np.where(m > 0, np.log(np.where(m > 0, m, 1.0)), 0.0).sum() for m in (theta, phi)]
            history.append(ll + a1 * logs[0] + e1 * logs[1])
        if i < n_iter:
            theta, phi = new_theta, new_phi
    np.testing.assert_allclose(model.doc_topic_, theta, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(model.components_, phi, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(model.bound_history_, history, rtol=1e-11)


def test_plsa_log_likelihood_is_the_stated_quantity(synthetic):
    X = synthetic.corpus.X
    model = PLSA(4, max_iter=10, tol=0, random_state=0).fit(X)
    rows, cols = X.nonzero()
    probs = np.einsum("ik,ki->i", model.doc_topic_[rows], model.components_[:, cols])
    expected = np.sum(np.asarray(X[rows, cols]).ravel() * np.log(probs))
    np.testing.assert_allclose(model.bound_history_[-1], expected, rtol=1e-10)


def test_plsa_tempered_and_early_stopping(synthetic):
    X = synthetic.corpus.X
    tem = PLSA(6, beta=0.8, max_iter=60, random_state=0).fit(X)
    assert _recovery(synthetic.topic_word, tem) >= 0.9
    es = PLSA(6, early_stopping=True, n_iter_no_change=3, max_iter=500, tol=0, random_state=0).fit(X)
    assert es.validation_history_ is not None and es.n_iter_ < 500
    assert es.n_iter_ == int(np.argmax(es.validation_history_)) + 1  # the best model is kept


@pytest.mark.parametrize("acceleration", ["squarem", None])
@pytest.mark.parametrize("restart_every", [1, 3])
def test_batch_lda_bound_is_the_reference_elbo(restart_every, acceleration):
    data = make_lda_corpus(40, 15, 3, random_state=3, doc_length=20)
    X = data.corpus.X
    model = BatchLDA(3, max_iter=4, tol=0, init="random", mean_change_tol=0.0, max_doc_update_iter=5,
                     restart_every=restart_every, e_step_acceleration=acceleration, random_state=0).fit(X)
    # re-run the same iterations with the reference E-step and compare every bound
    accelerate = acceleration == "squarem"
    rng = np.random.RandomState(0)
    lam = rng.gamma(100.0, 0.01, size=(3, 15))
    alpha, eta = np.full(3, 1 / 3), 1 / 3
    elbo = lambda g, lam_: np.array([ref.lda_elbo(X[d].toarray(), g[d:d + 1], lam_, alpha, eta) for d in range(40)])
    gamma = None
    for it in range(4):
        elog = ref.dirichlet_expectation(lam)
        gamma0 = random_start(rng, (40, 3))  # restarts from a random point...
        warm_rows = np.zeros(40, dtype=bool)
        if gamma is not None:  # ...for document d when d % restart_every == it % restart_every (it from 0)
            warm_rows = np.arange(40) % restart_every != it % restart_every
            gamma0[warm_rows] = gamma[warm_rows]
        # SQUAREM checks its extrapolations' bound where a document continues from its previous solution
        fresh, _ = ref.vb_e_step(X.toarray(), elog, alpha, gamma0, 5, 0.0, accelerate, safe=warm_rows)
        if gamma is not None:  # documents fall back on their previous solution when it is better
            warm, _ = ref.vb_e_step(X.toarray(), elog, alpha, gamma, 5, 0.0, accelerate, safe=True)
            fresh = np.where((elbo(gamma, lam) > elbo(fresh, lam))[:, None], warm, fresh)
        gamma, sstats = ref.vb_e_step(X.toarray(), elog, alpha, fresh, 0, 0.0)
        lam = eta + sstats
        np.testing.assert_allclose(model.bound_history_[it], ref.lda_elbo(X.toarray(), gamma, lam, alpha, eta),
                                   rtol=1e-10)
    np.testing.assert_allclose(model.components_, lam, rtol=1e-10)


def test_online_single_full_batch_with_rho_one_is_one_batch_iteration(synthetic):
    X = synthetic.corpus.X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        batch = BatchLDA(6, max_iter=1, init="random", random_state=7).fit(X)
        online = OnlineLDA(6, batch_size=X.shape[0], learning_offset=0.0, max_iter=1, shuffle=False,
                           init="random", random_state=7).fit(X)
    np.testing.assert_array_equal(online.components_, batch.components_)


def test_online_svi_step_matches_reference():
    data = make_lda_corpus(30, 20, 3, random_state=5, doc_length=15)
    X = data.corpus.X
    model = OnlineLDA(3, batch_size=30, total_samples=90, learning_offset=2.0, learning_decay=0.6, init="random",
                      mean_change_tol=0.0, max_doc_update_iter=7, random_state=0)
    model.partial_fit(X)
    rng = np.random.RandomState(0)
    lam0 = rng.gamma(100.0, 0.01, size=(3, 20))
    alpha, eta = np.full(3, 1 / 3), 1 / 3
    _, sstats = ref.vb_e_step(X.toarray(), ref.dirichlet_expectation(lam0), alpha,
                              random_start(rng, (30, 3)), 7, 0.0, accelerate=True)
    rho = (2.0 + 1) ** -0.6
    np.testing.assert_allclose(model.components_, (1 - rho) * lam0 + rho * (eta + 90 / 30 * sstats), rtol=1e-10)
    assert model.n_batch_iter_ == 1 and model.n_docs_seen_ == 30


def test_partial_fit_reaches_fit_perplexity():
    data = make_lda_corpus(3000, 150, 8, doc_topic_prior=0.2, topic_word_prior=0.05, doc_length=60,
                           separated=True, random_state=11)
    X = data.corpus.X
    train, test = X[:2500], X[2500:]
    params = dict(batch_size=250, total_samples=2500, learning_offset=5.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        full = OnlineLDA(8, max_iter=10, shuffle=False, tol=0, **params).fit(train)
    stream = OnlineLDA(8, **params)
    for _ in range(10):
        for start in range(0, 2500, 500):
            stream.partial_fit(train[start:start + 500])
    assert stream.n_batch_iter_ == full.n_batch_iter_ == 100
    p_full, p_stream = full.perplexity(test), stream.perplexity(test)
    assert abs(p_stream - p_full) / p_full < 0.02


def test_collapsed_objective_is_training_loglik_at_point_estimates(synthetic):
    X = synthetic.corpus.X
    model = CollapsedLDA(6, max_iter=5, tol=0, random_state=0).fit(X)
    assert model.bound_history_.shape == (5,)
    # more sweeps of CVB0 on this corpus improve the monitored log-likelihood overall
    assert model.bound_history_[-1] > model.bound_history_[0]


ALL = [PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA]


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_same_seed_same_result_and_threads_do_not_matter(cls, synthetic):
    X = synthetic.corpus.X[:300]
    kw = {"topic_update": "per_sweep"} if cls is CollapsedLDA else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = cls(5, max_iter=5, random_state=3, n_jobs=1, **kw).fit(X)
        b = cls(5, max_iter=5, random_state=3, n_jobs=1, **kw).fit(X)
        c = cls(5, max_iter=5, random_state=3, n_jobs=min(2, numba.config.NUMBA_NUM_THREADS), **kw).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.bound_history_, b.bound_history_)
    np.testing.assert_allclose(a.components_, c.components_, rtol=1e-9)
    np.testing.assert_array_equal(a.transform(X), c.transform(X))


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_empty_documents_get_the_prior_mean(cls):
    X = np.array([[3, 0, 1, 0], [0, 0, 0, 0], [0, 2, 0, 5], [1, 1, 1, 1]], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = cls(2, max_iter=5, random_state=0, doc_topic_prior=0.5).fit(X)
    doc_topic = model.transform(X)
    np.testing.assert_allclose(doc_topic[1], [0.5, 0.5])
    assert np.all(np.isfinite(doc_topic)) and np.all(np.isfinite(model.components_))


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_float32_long_documents_and_extreme_priors_stay_finite(cls):
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(30.0, (20, 50)).astype(np.float32))  # ~1,500 tokens per document
    X[0, 0] = 1e6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for prior in (1e-6, 10.0):
            model = cls(4, max_iter=5, random_state=0, dtype="float32", doc_topic_prior=prior,
                        topic_word_prior=prior).fit(X)
            assert np.all(np.isfinite(model.components_)) and np.all(np.isfinite(model.bound_history_))
            assert np.all(np.isfinite(model.transform(X)))


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_bad_input_names_the_problem(cls, block_corpus):
    X = block_corpus
    with pytest.raises(ValueError, match=r"n_components must be an int in \[1, 2147483647\], got 0\."):
        cls(0).fit(X)
    with pytest.raises(TypeError, match=r"n_components must be an int in \[1, 2147483647\], got 2\.5 \(a float\)\."):
        cls(2.5).fit(X)
    with pytest.raises(ValueError, match=r"doc_topic_prior must be a positive finite number in \[1e-12, 1e\+12\] or a vector of such numbers, or None, got -1\."):
        cls(2, doc_topic_prior=-1).fit(X)
    with pytest.raises(ValueError, match=r"topic_word_prior must be a positive finite number in \[1e-12, 1e\+12\], an array of shape \(n_components, n_features\) or None, got 0\."):
        cls(2, topic_word_prior=0).fit(X)
    with pytest.raises(ValueError, match=r"dtype must be one of \{'float32', 'float64'\}, got 'float16'\."):
        cls(2, dtype="float16").fit(X)
    bad = X.toarray()
    bad[0, 0] = -1
    with pytest.raises(ValueError, match=f"Negative values in data passed to {cls.__name__}.fit.*1 negative entry"):
        cls(2).fit(bad)
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        cls(2).fit(bad)
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        cls(2).fit(bad)
    with pytest.raises(ValueError, match="Found array with 0 sample"):
        cls(2).fit(np.zeros((0, 5)))
    with pytest.raises(NotFittedError, match="not fitted yet"):
        cls(2).transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = cls(2, max_iter=3, random_state=0).fit(X)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=f"X has 4 features, but {cls.__name__} is expecting 9 features"):
        model.transform(X[:, :4])
    # a failed fit leaves the fitted model unchanged
    with pytest.raises(ValueError, match="Negative values"):
        model.fit(-X)
    with pytest.raises(ValueError, match="n_components"):
        clone(model).set_params(n_components=-3).fit(X) if False else model.set_params(n_components=-3).fit(X)
    model.set_params(n_components=2)
    assert pickle.dumps(model) == before


def test_online_specific_bad_input(block_corpus):
    X = block_corpus
    for kw, msg in [({"learning_decay": 0.5}, r"learning_decay must be a finite number in \(0.5, 1\], got 0.5\."),
                    ({"learning_decay": 1.2}, r"learning_decay must be a finite number in \(0.5, 1\], got 1.2\."),
                    ({"learning_offset": -1.0}, r"learning_offset must be a finite number >= 0, got -1.0\."),
                    ({"batch_size": 0}, r"batch_size must be an int in \[1, 2147483647\], got 0\."),
                    ({"total_samples": 10}, "total_samples=10 is smaller than the 60 documents")]:
        with pytest.raises(ValueError, match=msg):
            OnlineLDA(3, **kw).fit(X)
    model = OnlineLDA(3, batch_size=20, total_samples=100, random_state=0).partial_fit(X[:30])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="X has 5 features, but OnlineLDA is expecting 9"):
        model.partial_fit(X[:, :5])
    with pytest.raises(ValueError, match="total_samples=100 is smaller than the 120 documents"):
        model.partial_fit(sp.vstack([X, X]))
    assert pickle.dumps(model) == before
    model.partial_fit(X[30:])
    assert model.n_docs_seen_ == 60 and model.n_batch_iter_ == 4


def test_top_words(block_corpus):
    model = BatchLDA(3, random_state=0).fit(block_corpus)
    vocab = [f"t{i}" for i in range(9)]
    top = model.top_words(3, vocab)
    assert sorted(sorted(w for w, _ in topic) for topic in top) == [["t0", "t1", "t2"], ["t3", "t4", "t5"],
                                                                     ["t6", "t7", "t8"]]
    assert len(model.top_words(100, vocab)[0]) == 9  # clipped to the vocabulary
    with pytest.raises(ValueError, match="vocabulary has 2 terms, but this BatchLDA was fitted on 9"):
        model.top_words(3, ["a", "b"])


def test_convergence_warning_only_when_tol_was_not_reached(block_corpus):
    with pytest.warns(ConvergenceWarning, match=r"BatchLDA reached max_iter=2 before .* tol=1e-12"):
        BatchLDA(3, max_iter=2, tol=1e-12, random_state=0).fit(block_corpus)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BatchLDA(3, max_iter=2, tol=0, random_state=0).fit(block_corpus)  # tol=0 asks for max_iter iterations


def test_stochastic_cvb0_partial_fit_and_bad_input(block_corpus):
    X = block_corpus
    model = StochasticCollapsedLDA(3, batch_size=20, random_state=0).partial_fit(X[:30])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="X has 5 features, but StochasticCollapsedLDA is expecting 9"):
        model.partial_fit(X[:, :5])
    assert pickle.dumps(model) == before
    model.partial_fit(X[30:])
    assert model.n_docs_seen_ == 60 and model.n_batch_iter_ == 4
    assert np.all(np.isfinite(model.transform(X)))
    with pytest.raises(ValueError, match=r"burn_in must be an int in \[0, 2147483647\], got -1\."):
        StochasticCollapsedLDA(3, burn_in=-1).fit(X)
    with pytest.raises(ValueError, match=r"learning_decay must be a finite number in \(0.5, 1\], got 0.3\."):
        StochasticCollapsedLDA(3, learning_decay=0.3).fit(X)


@pytest.fixture(scope="module")
def asymmetric():
    true_alpha = np.array([0.05, 0.1, 0.2, 0.3, 0.5])
    data = make_lda_corpus(3000, 200, 5, doc_topic_prior=true_alpha, topic_word_prior=0.05, doc_length=150,
                           separated=True, random_state=3)
    return data, true_alpha


@pytest.mark.parametrize("make", [
    lambda: BatchLDA(5, learn_priors=True, tol=1e-7, max_iter=300, random_state=0),
    lambda: CollapsedLDA(5, learn_priors=True, tol=1e-7, max_iter=200, random_state=0),
    lambda: OnlineLDA(5, learn_priors=True, batch_size=200, max_iter=30, tol=1e-6, learning_offset=1.0, random_state=0),
], ids=["batch", "collapsed", "online"])
def test_learned_alpha_converges_to_the_generating_alpha(make, asymmetric):
    data, true_alpha = asymmetric
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = make().fit(data.corpus.X)
    a = data.topic_word / np.linalg.norm(data.topic_word, axis=1, keepdims=True)
    b = model.topic_word_distribution()
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    match = (a @ b.T).argmax(axis=1)
    assert sorted(match) == list(range(5))
    learned = model.doc_topic_prior_[match]
    # within 20% of the generating vector (relative Euclidean error)
    assert np.linalg.norm(learned - true_alpha) / np.linalg.norm(true_alpha) < 0.2
    assert model.topic_word_prior_ != pytest.approx(1 / 5)  # eta was learned too


def test_batch_elbo_stays_monotone_while_learning_priors(asymmetric):
    data, _ = asymmetric
    model = BatchLDA(5, learn_priors=True, max_iter=25, tol=0, random_state=1).fit(data.corpus.X[:800])
    h = model.bound_history_
    assert np.all(np.diff(h) >= -1e-10 * np.abs(h[1:]))


def test_learn_priors_bad_value(block_corpus):
    with pytest.raises(ValueError, match=r"learn_priors must be one of \{False, True, 'doc_topic', 'topic_word'\} or None, got 'alpha'\."):
        BatchLDA(3, learn_priors="alpha").fit(block_corpus)


def test_plsa_update_is_checked_and_both_updates_agree_on_the_likelihood(synthetic):
    X = synthetic.corpus.X
    with pytest.raises(ValueError, match=r"update must be one of \{'alternating', 'simultaneous'\}, got 'both'"):
        PLSA(3, update="both").fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fits = [PLSA(6, update=u, max_iter=300, tol=1e-10, random_state=0).fit(X) for u in ("alternating", "simultaneous")]
    assert not np.allclose(fits[0].bound_history_[:5], fits[1].bound_history_[:5], rtol=1e-6)  # they differ
    # two EM variants climbing the same likelihood from the same start end at about the same height
    rows, cols = X.nonzero()
    lls = [np.sum(np.asarray(X[rows, cols]).ravel()
                  * np.log(np.einsum("ik,ki->i", m.doc_topic_[rows], m.components_[:, cols]))) for m in fits]
    assert abs(lls[0] - lls[1]) < 1e-3 * abs(lls[1])


def test_seeded_start_mixes_centres_and_uniform_by_centre_weight(synthetic):
    from topicvb.models._start import seeded_topics as _seeded_topics

    X = synthetic.corpus.X
    starts = {w: _seeded_topics(X, 4, np.random.RandomState(3), np.float64, centre_weight=w) for w in (0.0, 0.1, 1.0)}
    # the same centres and noise for every weight: the start is affine in the weight
    np.testing.assert_allclose(starts[0.1], 0.9 * starts[0.0] + 0.1 * starts[1.0], rtol=1e-12)
    noise = starts[0.0] / starts[0.0].mean()  # weight 0: uniform times noise of mean 1 and sd 0.1
    assert abs(noise.std() - 0.1) < 0.02


def test_plsa_folds_in_with_an_asymmetric_prior():
    # MAP folding-in with a per-topic prior: each document's P(z | d) against a slow NumPy EM
    X = make_lda_corpus(60, 30, 3, random_state=0).corpus.X
    prior = np.array([1.5, 2.0, 3.0])
    model = PLSA(3, doc_topic_prior=prior, random_state=0, max_iter=20).fit(X)
    got = model.transform(X[:5])
    phi = model.components_
    for d in range(5):
        row = X[d].toarray().ravel()
        theta = np.full(3, 1 / 3)
        for _ in range(model.transform_max_iter):
            resp = theta[:, None] * phi * row[None, :] / np.maximum(theta @ phi, 1e-300)[None, :]
            new = np.maximum(resp.sum(axis=1) + prior - 1, 0)
            new /= new.sum()
            done = np.abs(new - theta).sum() / 3 < model.tol
            theta = new
            if done:
                break
        np.testing.assert_allclose(got[d], theta, atol=1e-10)


@pytest.mark.parametrize("prior", [None, 1.5, [1.2, 2.0, 1.1]])
def test_plsa_transform_folds_in_with_the_fitted_prior(block_corpus, prior, tmp_path):
    """A hunt: PLSA's transform and score read doc_topic_prior when called, so set_params after fit changed them (a
    prior of another length made transform fail), where the other estimators use their fitted prior."""
    from topicvb import load, save

    X = block_corpus
    model = PLSA(3, doc_topic_prior=prior, random_state=0, max_iter=20).fit(X)
    expected = np.ones(3) if prior is None else np.broadcast_to(np.asarray(prior, dtype=float), (3,))
    np.testing.assert_array_equal(model.doc_topic_prior_, expected)
    theta, score = model.transform(X), model.score(X)
    model.set_params(doc_topic_prior=[0.9, 0.9])
    np.testing.assert_array_equal(model.transform(X), theta)
    assert model.score(X) == score
    loaded = load(save(model.set_params(doc_topic_prior=prior), tmp_path / "m.npz"))
    np.testing.assert_array_equal(loaded.transform(X), theta)
    del loaded.doc_topic_prior_  # (a model from a file of before the attribute: the parameter's prior, as before)
    np.testing.assert_array_equal(loaded.transform(X), theta)


def test_online_verbose_2_names_its_mini_batch_lines(block_corpus, capsys):
    """A hunt: at verbose=2 the mini-batch lines read "iter 12/3" (mini-batch 12 over max_iter=3 passes), in the
    pass lines' format, so the two could not be told apart (and the command line's bar read them as iterations)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = OnlineLDA(3, batch_size=10, max_iter=3, tol=0, random_state=0, verbose=2).fit(block_corpus)
    lines = capsys.readouterr().err.splitlines()
    batches = [line for line in lines if "  mini-batch " in line]
    passes = [line for line in lines if "  iter " in line]
    assert len(batches) == model.n_batch_iter_ and f"OnlineLDA  mini-batch {model.n_batch_iter_}  bound" in batches[-1]
    assert [line.split()[2] for line in passes] == ["1/3", "2/3", "3/3"]
