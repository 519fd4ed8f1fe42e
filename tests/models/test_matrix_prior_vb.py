"""A matrix topic-word prior (guided topics, issue #21) in BatchLDA, OnlineLDA and PLSA: the ELBO's topic
term against a NumPy reference, a constant matrix against the float prior, monotone bounds, excluded terms,
seeded topics, the learned scale, checkpoints."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize_scalar
from scipy.special import digamma, gammaln

from topicvb import BatchLDA, OnlineLDA, PLSA, make_lda_corpus
from topicvb._kernels.bounds import lda_topic_bound, prior_topic_terms
from topicvb._kernels.plsa import normalise_columns
from topicvb.evaluation import per_word_bound
from topicvb.models._checkpoint import fingerprint
from topicvb.models._vb import (best_prior_scale, expectations, prior_shape, topic_arrays, topic_bound,
                                weighted_elog)

# (the prior of _guided seeds terms 0-2, and this corpus happens never to use term 0: the fits rightly say so, and
# that is not what these tests are about)
pytestmark = pytest.mark.filterwarnings("ignore::topicvb.exceptions.SeedUnseenWarning")

K = 4


@pytest.fixture(scope="module")
def data():
    return make_lda_corpus(200, 60, K, random_state=3)


@pytest.fixture(scope="module")
def X(data):
    return data.corpus.X


def _guided(V, seed=0):
    """A prior with a seeded topic 0 (terms 0-2 at 3), an excluded entry (topic 1, term 5), an unequal row."""
    rng = np.random.default_rng(seed)
    eta = np.full((K, V), 0.1)
    eta[0, :3] = 3.0
    eta[1, 5] = 0.0
    eta[2] = rng.uniform(0.05, 0.5, V)
    return eta


def _reference_topic_part(lam, eta):
    """The ELBO's topic term per topic from its formula (SciPy), the eta_kw = 0 entries left out."""
    out = []
    for k in range(lam.shape[0]):
        m = eta[k] > 0
        lk, ek = lam[k, m].astype(np.float64), eta[k, m]
        elog = digamma(lk) - digamma(lk.sum())
        out.append(gammaln(ek.sum()) - gammaln(ek).sum() + np.sum((ek - lk) * elog) + gammaln(lk).sum()
                   - gammaln(lk.sum()))
    return np.array(out)


def _lam_for(eta, seed=1):
    rng = np.random.default_rng(seed)
    lam = eta + rng.gamma(0.7, 3.0, size=eta.shape)
    lam[eta == 0] = 0.0
    return lam


def test_topic_terms_with_a_matrix_prior_match_the_formula():
    V = 300  # (more than one block of terms)
    eta = _guided(V)
    eta[3, 100:110] = 0.0
    lam = _lam_for(eta)
    lam[2, 7] = 1e-8  # (a tiny entry and a large one: the kernels' other branches)
    lam[2, 8] = 5e4
    ebeta_t = np.empty((V, K))
    log_scale = np.empty(V)
    elog, elog_sum, rest = prior_topic_terms(lam, eta, ebeta_t, log_scale)
    allowed = eta > 0
    ref_elog = digamma(np.where(allowed, lam, 1.0)) - digamma(lam.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(elog[allowed], ref_elog[allowed], rtol=1e-12, atol=1e-12)
    assert np.all(elog[~allowed] == -np.inf)
    # exp(E[log beta]) rescaled per term; exactly 0 where the prior excludes the term
    ref_max = np.where(allowed, ref_elog, -np.inf).max(axis=0)
    np.testing.assert_allclose(log_scale, ref_max, rtol=1e-12)
    np.testing.assert_allclose(ebeta_t.T[allowed], np.exp(ref_elog - ref_max)[allowed], rtol=1e-12)
    assert np.all(ebeta_t.T[~allowed] == 0.0)
    np.testing.assert_allclose(elog_sum, np.where(allowed, ref_elog, 0.0).sum(axis=1), rtol=1e-12)
    ref = _reference_topic_part(lam, eta)
    np.testing.assert_allclose(lda_topic_bound(lam, elog, eta), ref, rtol=1e-11)
    topics = topic_arrays(lam, eta=eta)
    np.testing.assert_allclose(topic_bound(topics, eta, V), ref.sum(), rtol=1e-11)
    # and the model's expectations (transform, score) are those of the kernel
    e2, eb2, ls2 = expectations(lam, eta)
    np.testing.assert_array_equal(eb2, ebeta_t)
    np.testing.assert_array_equal(ls2, log_scale)


def test_constant_matrix_topic_term_equals_the_float_one():
    V = 50
    lam = _lam_for(np.full((K, V), 0.3))
    topics = topic_arrays(lam)
    mtopics = topic_arrays(lam, eta=np.full((K, V), 0.3))
    np.testing.assert_allclose(topic_bound(mtopics, np.full((K, V), 0.3), V), topic_bound(topics, 0.3, V),
                               rtol=1e-13)
    np.testing.assert_allclose(mtopics.ebeta_t, topics.ebeta_t, rtol=1e-13)


@pytest.mark.parametrize("make", [
    lambda c: BatchLDA(K, random_state=0, max_iter=30, moves=False, topic_word_prior=c),
    lambda c: BatchLDA(K, random_state=1, max_iter=20, moves=False, init="random", learn_priors="doc_topic",
                       topic_word_prior=c),
    lambda c: OnlineLDA(K, random_state=0, max_iter=4, batch_size=50, moves=False, topic_word_prior=c),
    lambda c: PLSA(K, random_state=0, max_iter=30, moves=False, topic_word_prior=c),
], ids=["batch", "batch-random-alpha", "online", "plsa"])
@pytest.mark.parametrize("value", [0.3, 1.5])
def test_a_constant_matrix_prior_fits_as_the_float_prior(X, make, value):
    V = X.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = make(value).fit(X)
        got = make(np.full((K, V), value)).fit(X)
    np.testing.assert_allclose(got.components_, want.components_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.bound_history_, want.bound_history_, rtol=1e-10)
    np.testing.assert_allclose(got.transform(X[:10]), want.transform(X[:10]), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(got.bound(X[:30]), want.bound(X[:30]), rtol=1e-10)
    if not isinstance(got, PLSA):
        assert got.topic_word_prior_.shape == (K, V)
        np.testing.assert_allclose(got.topic_word_prior_, want.topic_word_prior_, rtol=0)


def test_constant_matrix_partial_fit_equals_the_float_prior(X):
    V = X.shape[1]
    models = [OnlineLDA(K, random_state=0, batch_size=40, total_samples=200, topic_word_prior=p)
              for p in (0.2, np.full((K, V), 0.2))]
    for m in models:
        m.partial_fit(X[:100])
        m.partial_fit(X[100:])
    np.testing.assert_allclose(models[1].components_, models[0].components_, rtol=1e-10)
    np.testing.assert_allclose(models[1].bound_history_, models[0].bound_history_, rtol=1e-10)


def _monotone(history):
    h = np.asarray(history)
    return np.all(np.diff(h) >= -1e-11 * np.abs(h[1:]))


@pytest.mark.parametrize("learn_priors", [False, "topic_word", True])
def test_batch_bound_is_monotone_with_a_matrix_prior(X, learn_priors):
    eta = _guided(X.shape[1])
    m = BatchLDA(K, random_state=0, max_iter=40, tol=0, topic_word_prior=eta, learn_priors=learn_priors).fit(X)
    assert len(m.bound_history_) >= 10  # (tol=0 stops only on an unchanged bound)
    assert _monotone(m.bound_history_), np.diff(m.bound_history_).min()
    # the bound of the fitted model, evaluated afresh, is its objective (same formula), and finite
    assert np.isfinite(m.bound(X))
    if learn_priors:  # a scale: the shape kept, and the ELBO's topic term at its maximum over the scale
        ratio = m.topic_word_prior_[eta > 0] / eta[eta > 0]
        np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)
        assert ratio[0] != 1.0
        assert np.all(m.topic_word_prior_[eta == 0] == 0)


def test_learned_scale_maximises_the_topic_term():
    V = 40
    eta = _guided(V)
    lam = _lam_for(eta, seed=5) * 3
    topics = topic_arrays(lam, eta=eta)
    t = best_prior_scale(prior_shape(eta), weighted_elog(topics, eta))

    def minus_f(log_t):
        e = np.exp(log_t) * eta
        return -topic_bound(topics, e, V)

    best = minimize_scalar(minus_f, bounds=(-20, 20), method="bounded", options={"xatol": 1e-10})
    np.testing.assert_allclose(t, np.exp(best.x), rtol=1e-6)
    assert topic_bound(topics, t * eta, V) >= topic_bound(topics, eta, V)
    assert topic_bound(topics, t * eta, V) >= -best.fun - 1e-9 * abs(best.fun)
    # from the maximiser it stays put (the step never lowers the bound)
    t2 = best_prior_scale(prior_shape(t * eta), weighted_elog(topics, t * eta))
    np.testing.assert_allclose(t2, 1.0, atol=1e-9)


@pytest.mark.parametrize("make", [
    lambda eta: BatchLDA(K, random_state=0, max_iter=20, topic_word_prior=eta),
    lambda eta: BatchLDA(K, random_state=0, max_iter=20, topic_word_prior=eta, learn_priors=True),
    lambda eta: OnlineLDA(K, random_state=0, max_iter=3, batch_size=50, topic_word_prior=eta, learn_priors=True),
    lambda eta: PLSA(K, random_state=0, max_iter=20, topic_word_prior=eta),
    lambda eta: PLSA(K, random_state=0, max_iter=20, topic_word_prior=eta + (eta > 0)),
], ids=["batch", "batch-learned", "online-learned", "plsa", "plsa-above-1"])
def test_an_excluded_term_has_probability_zero(X, make):
    eta = _guided(X.shape[1])
    eta[3, :20] = 0.0  # (many terms, some frequent)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = make(eta).fit(X)
    phi = m.topic_word_distribution()
    assert np.all(m.components_[eta == 0] == 0) and np.all(phi[eta == 0] == 0)
    if not isinstance(m, PLSA) or np.all(m.topic_word_prior[eta > 0] >= 1):  # (MAP clamps below 1, as a float does)
        assert np.all(phi[eta > 0] > 0)
    np.testing.assert_allclose(phi.sum(axis=1), 1.0)
    theta = m.transform(X[:20])
    assert np.all(np.isfinite(theta))
    assert np.isfinite(m.bound(X[:20])) and np.isfinite(m.score(X[:50]))
    if not isinstance(m, PLSA):
        assert m.topic_word_prior_.shape == eta.shape and np.all(m.topic_word_prior_[eta == 0] == 0)
        assert np.all(np.isfinite(m.bound_history_))


def test_partial_fit_with_a_matrix_prior(X):
    eta = _guided(X.shape[1])
    m = OnlineLDA(K, random_state=0, batch_size=40, total_samples=200, topic_word_prior=eta, learn_priors=True)
    m.partial_fit(X[:100])
    first = m.topic_word_prior_.copy()
    m.partial_fit(X[100:])
    assert m.n_batch_iter_ == 6 and np.all(np.isfinite(m.bound_history_))
    assert np.all(m.components_[eta == 0] == 0) and np.all(m.components_[eta > 0] > 0)
    for prior in (first, m.topic_word_prior_):  # the learned prior is the given matrix scaled
        ratio = prior[eta > 0] / eta[eta > 0]
        np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)
    assert list(m.topic_labels_) == [f"topic_{k}" for k in range(K)]


def _seed_matrix(data, V, strength):
    """Topic 0's prior favours the 3 most probable terms of the true topic 2 (the others symmetric)."""
    seeds = np.argsort(-data.topic_word[2])[:3]
    eta = np.full((K, V), 0.1)
    eta[0, seeds] = strength
    return eta, seeds


# With their default start (init="seeded"): the seeded topic takes the document-cluster row that matches its
# seed words' documents (_start.prior_informed_start); before it did, random_state=4 left the seeded topic on
# another theme's cluster while its own theme had a cluster slot of its own.
@pytest.mark.parametrize("make", [
    lambda eta: BatchLDA(K, random_state=4, max_iter=200, tol=0, topic_word_prior=eta),
    lambda eta: BatchLDA(K, random_state=4, max_iter=100, topic_word_prior=eta, learn_priors=True),
    lambda eta: OnlineLDA(K, random_state=4, max_iter=20, batch_size=50, topic_word_prior=eta),
    lambda eta: PLSA(K, random_state=4, max_iter=200, topic_word_prior=eta + 1.0),
], ids=["batch", "batch-learned", "online", "plsa"])
@pytest.mark.parametrize("strength", [3.0, 20.0])
def test_a_seeded_topic_keeps_its_seed_words_on_top(data, make, strength):
    X = data.corpus.X
    eta, seeds = _seed_matrix(data, X.shape[1], strength)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = make(eta).fit(X)
    top = np.argsort(-m.topic_word_distribution()[0])[:5]
    assert set(seeds) <= set(top), (seeds, top)
    # and topic 0 is the true topic 2: the documents made mostly of topic 2 are mostly topic 0
    docs = np.flatnonzero(data.doc_topic[:, 2] > 0.6)
    assert docs.size >= 5
    assert np.mean(np.argmax(m.transform(X[docs]), axis=1) == 0) > 0.8


def test_per_word_bound_with_a_matrix_prior(X):
    eta = _guided(X.shape[1])
    m = BatchLDA(K, random_state=0, max_iter=10, topic_word_prior=eta).fit(X)
    lam = m.components_
    topic_part = _reference_topic_part(lam, m.topic_word_prior_).sum()
    with_term = per_word_bound(m, X)
    without = per_word_bound(m, X, include_topic_term=False)
    np.testing.assert_allclose((with_term - without) * X.sum(), topic_part, rtol=1e-9)


class _Labelled:
    """An array-like prior with labels (as topicvb.SeededPrior)."""

    def __init__(self, arr, labels):
        self.arr, self.labels = arr, labels

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.arr, dtype=dtype)


def test_checkpoint_fingerprint_tells_prior_matrices_apart(X):
    V = 2000  # (numpy's repr elides the middle of an array this large)
    Xw = sp.csr_matrix((np.ones(3), ([0, 1, 2], [0, 5, 1999])), shape=(3, V))
    a = np.full((K, V), 0.1)
    b = a.copy()
    b[1, 1000] = 0.2
    assert repr(a) == repr(b)
    fa, fb = (fingerprint(BatchLDA(K, topic_word_prior=p), Xw) for p in (a, b))
    assert fa != fb
    assert fingerprint(BatchLDA(K, topic_word_prior=a.copy()), Xw) == fa
    assert fingerprint(BatchLDA(K, topic_word_prior=sp.csr_matrix(a)), Xw) != fa
    la, lb = _Labelled(a, ["x", "y", None, None]), _Labelled(a, ["x", "z", None, None])
    assert fingerprint(BatchLDA(K, topic_word_prior=la), Xw) != fingerprint(BatchLDA(K, topic_word_prior=lb), Xw)
    # a float prior's fingerprint is as before: its repr
    assert fingerprint(BatchLDA(K, topic_word_prior=0.1), Xw) != fingerprint(BatchLDA(K, topic_word_prior=0.2), Xw)


@pytest.mark.parametrize("make", [
    lambda eta, **kw: BatchLDA(K, random_state=0, learn_priors=True, topic_word_prior=eta, **kw),
    lambda eta, **kw: OnlineLDA(K, random_state=0, batch_size=50, learn_priors=True, topic_word_prior=eta, **kw),
], ids=["batch", "online"])
def test_resume_with_a_matrix_prior_gives_the_uninterrupted_fit(X, tmp_path, make):
    eta = _guided(X.shape[1])
    n = 4 if isinstance(make(eta), OnlineLDA) else 12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = make(eta, max_iter=n, tol=0).fit(X)
        path = tmp_path / "ck.npz"
        make(eta, max_iter=n // 2, tol=0, checkpoint_path=path).fit(X)
        got = make(eta, max_iter=n, tol=0, checkpoint_path=path).fit(X, resume=True)
    for name in ("components_", "bound_history_", "topic_word_prior_", "doc_topic_prior_"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
    # a checkpoint is for its own prior matrix
    other = eta.copy()
    other[2, 3] *= 2
    with pytest.raises(ValueError, match=r"other parameters \(topic_word_prior=<array \w+\.\.\.> then, <array \w+\.\.\.> now\)"):
        make(other, max_iter=n, checkpoint_path=path).fit(X, resume=True)


def test_plsa_m_step_with_a_matrix_prior_against_numpy():
    rng = np.random.default_rng(0)
    V, Kp = 600, 3  # (more than one block of rows)
    counts = rng.gamma(0.5, 2.0, size=(V, Kp))
    eta = rng.uniform(0.2, 3.0, size=(Kp, V))
    eta[0, :50] = 0.0
    offset = np.where(eta > 0, eta - 1.0, -np.inf).T.copy()
    allowed = (eta > 0).T
    fallback = allowed / allowed.sum(axis=0, keepdims=True)
    got = normalise_columns(counts.copy(), offset, fallback)
    ref = np.maximum(counts + np.where(allowed, (eta - 1.0).T, -np.inf), 0.0)
    ref /= ref.sum(axis=0, keepdims=True)
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    assert np.all(got[~allowed] == 0)
    # a topic left without mass falls back on the terms it allows, uniformly
    got = normalise_columns(np.zeros((V, Kp)), np.where(allowed, -0.5, -np.inf), fallback)
    np.testing.assert_allclose(got[:, 0], np.where(allowed[:, 0], 1.0 / allowed[:, 0].sum(), 0.0))


def test_plsa_log_posterior_is_monotone_with_a_matrix_prior_of_at_least_one(X):
    eta = _guided(X.shape[1]) + 1.0
    eta[1, 5] = 0.0
    m = PLSA(K, random_state=0, max_iter=30, tol=0, topic_word_prior=eta, doc_topic_prior=1.1).fit(X)
    assert _monotone(m.bound_history_)
    # the objective is the log-likelihood plus the log-prior over the allowed entries
    phi = m.components_
    ll = np.sum(X.toarray() * np.log(m.doc_topic_ @ phi + 1e-300))
    log_prior = np.sum(np.where(eta > 0, (eta - 1.0) * np.log(np.where(phi > 0, phi, 1.0)), 0.0))
    log_prior += np.sum(0.1 * np.log(m.doc_topic_))
    np.testing.assert_allclose(m.bound_history_[-1], ll + log_prior, rtol=1e-9)
