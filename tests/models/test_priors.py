"""Learning Dirichlet priors from expected counts (CollapsedLDA): the expectation E[psi(n + a)], the
one-step Minka update, and what a user sees (learned priors that do not run off, and do not hurt)."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import digamma, gammaln

import reference as ref
from topicvb import make_lda_corpus
from topicvb._config import threads
from topicvb._kernels.priors import _series_gain, cell_variances, digamma_gain, gain_column_sums
from topicvb.evaluation import heldout_perplexity
from topicvb.models import CollapsedLDA
from topicvb.models._priors import expected_digamma_gain, polya_step, symmetric_polya_step


def test_digamma_gain_kernel_matches_the_slow_reference():
    rng = np.random.default_rng(0)
    m = np.concatenate([rng.uniform(0, 8, 200), rng.exponential(0.05, 100), rng.uniform(8, 500, 50), [0.0, 3.0]])
    v = m * rng.uniform(0, 1, m.shape[0])
    v[-1] = 3.0  # v = m: the Poisson limit
    a = rng.choice([1e-3, 0.01, 0.1, 1.0, 5.0], m.shape[0])
    out = np.empty_like(m)
    digamma_gain(m, v, a, out)
    want = [ref.moment_matched_digamma_gain(*x) for x in zip(m, v, a)]
    np.testing.assert_allclose(out, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(expected_digamma_gain(m, None, a), digamma(m + a) - digamma(a))  # the plug-in


@pytest.mark.parametrize("b", [1e-4, 0.01, 0.07, 1.0, 30.0, 1e4])
def test_series_gain_below_a_mean_of_one_matches_the_slow_reference(b):
    # the Newton series (m < 1) against the pmf sum of the same law: Poisson (v >= m), binomial with
    # few trials (v well below m), many trials (v just below m), and one trial (v = 0: Bernoulli(m))
    rng = np.random.default_rng(4)
    m = np.concatenate([rng.uniform(0, 1, 40), rng.exponential(0.01, 40), [1e-9, 0.5, 1 - 1e-9]])
    for v in (m, m * rng.uniform(0, 1, m.shape[0]), m * (1 - 1e-9), np.zeros_like(m)):
        got = [_series_gain(*x, b) for x in zip(m, v)]
        want = [ref.moment_matched_digamma_gain(*x, b) for x in zip(m, v)]
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=0)
    # closed forms: Bernoulli(m) gives m / b; Binomial(2, p) gives 2 p (1 - p) / b + p^2 (1 / b + 1 / (b + 1))
    assert _series_gain(0.3, 0.0, b) == pytest.approx(0.3 / b, rel=1e-14)
    p = 0.35  # m = 2 p = 0.7, v = 2 p (1 - p) = 0.455: N = round(m^2 / (m - v)) = 2
    assert _series_gain(2 * p, 2 * p * (1 - p), b) == pytest.approx(2 * p * (1 - p) / b + p * p * (1 / b + 1 / (b + 1)),
                                                                    rel=1e-13)


@pytest.mark.parametrize("b", [1e-10, 1e-4, 0.01, 0.07, 1.0, 30.0, 1e4])
def test_column_sums_below_a_mean_of_one_match_the_stopped_series(b):
    # the fixed-length, row-at-a-time series of gain_column_sums against _series_gain entry by entry
    # (one row per entry, so each column sum is one entry): Poisson (v = m), binomial with few and
    # many trials, Bernoulli (v = 0), means from 1e-300 (products flushed to 0) to just below one
    rng = np.random.default_rng(9)
    m = np.concatenate([rng.uniform(0, 1, 30), rng.exponential(0.01, 30), [1e-300, 1e-13, 1e-9, 0.5, 1 - 1e-9]])
    for v in (m, m * rng.uniform(0, 1, m.shape[0]), m * (1 - 1e-9), np.zeros_like(m)):
        got = np.array([gain_column_sums(np.array([[x]]), np.array([[y]]), np.array([b]))[0] for x, y in zip(m, v)])
        want = np.array([_series_gain(x, y, b) for x, y in zip(m, v)])
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def test_gain_column_sums_match_the_elementwise_sum_whatever_the_thread_count():
    rng = np.random.default_rng(5)
    mean = np.concatenate([rng.exponential(0.3, (150, 7)), rng.uniform(0, 30, (53, 7))])
    mean[::17, 2] = 0.0
    var = mean * rng.uniform(0, 1, mean.shape)
    prior = np.array([1e-3, 0.01, 0.05, 0.1, 1.0, 3.0, 40.0])
    want = np.array([sum(ref.moment_matched_digamma_gain(m, v, prior[k]) for m, v in zip(mean[:, k], var[:, k]))
                     for k in range(7)])
    with threads(1):
        one = gain_column_sums(mean, var, prior)
    with threads(2):
        two = gain_column_sums(mean, var, prior)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(one, want, rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cell_variances_match_dense_sums(dtype):
    import scipy.sparse as sp

    rng = np.random.default_rng(6)
    X = sp.random(40, 30, density=0.2, random_state=7, format="csr", data_rvs=lambda n: rng.integers(1, 5, n))
    X.data = X.data.astype(dtype)
    gamma = rng.dirichlet(np.full(6, 0.3), size=X.nnz).astype(dtype)
    v_dk, v_wk = np.full((40, 6), np.nan), np.full((30, 6), np.nan)
    cell_variances(X.indptr.astype(np.int64), X.indices.astype(np.int32), X.data, gamma, v_dk, v_wk)
    g = gamma.astype(np.float64)
    cell = X.data.astype(np.float64)[:, None] * g * (1 - g)
    rows = np.repeat(np.arange(40), np.diff(X.indptr))
    want_d, want_w = np.zeros((40, 6)), np.zeros((30, 6))
    np.add.at(want_d, rows, cell)
    np.add.at(want_w, X.indices, cell)
    np.testing.assert_allclose(v_dk, want_d, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(v_wk, want_w, rtol=1e-12, atol=1e-15)
    for n in (1, 2, 3):  # document ranges fixed, not the threads: the same sums on any number of threads
        again = np.full((40, 6), np.nan), np.full((30, 6), np.nan)
        with threads(n):
            cell_variances(X.indptr.astype(np.int64), X.indices.astype(np.int32), X.data, gamma, *again)
        np.testing.assert_array_equal(again[0], v_dk)
        np.testing.assert_array_equal(again[1], v_wk)


def test_polya_steps_from_expected_counts_match_the_elementwise_formula():
    # the column-sum kernel inside the steps against expected_digamma_gain summed by NumPy
    rng = np.random.default_rng(8)
    counts = rng.exponential(1.0, (90, 5)) * rng.integers(0, 2, (90, 5))
    counts[:3] *= 40
    var = counts * rng.uniform(0, 1, counts.shape)
    lengths = counts.sum(axis=1)
    alpha = np.array([0.02, 0.1, 0.5, 1.0, 3.0])
    denom = np.sum(digamma(lengths + alpha.sum()) - digamma(alpha.sum())) + 1.0
    numer = expected_digamma_gain(counts, var, alpha[None, :]).sum(axis=0)
    np.testing.assert_allclose(polya_step(alpha, counts, var, lengths, 1.0, 1.0), alpha * numer / denom, rtol=1e-12)
    topic_term = counts.T[:, :60]  # (K, V) as the model passes it (a transposed view)
    tv = var.T[:, :60]
    e, dim = 0.05, 60
    want = e * expected_digamma_gain(topic_term, tv, e).sum() / (
        dim * expected_digamma_gain(topic_term.sum(axis=1), tv.sum(axis=1), dim * e).sum() + 1.0)
    assert symmetric_polya_step(e, topic_term, tv, 1.0, 1.0) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("probs, counts", [
    ([0.01] * 50, [1] * 50), ([0.3] * 10, [1] * 10), ([0.2, 0.7, 0.05], [3, 1, 6]), ([0.999, 0.002], [2, 40]),
    ([0.5], [2]), (np.linspace(0.01, 0.9, 9), [1] * 9), ([0.05] * 40, [5] * 40), ([0.001] * 3, [1] * 3),
])
@pytest.mark.parametrize("a", [0.005, 0.05, 1.0])
def test_expected_gain_is_close_to_the_exact_expectation_where_the_plug_in_is_not(probs, counts, a):
    probs, counts = np.asarray(probs, dtype=float), np.asarray(counts)
    exact = ref.poisson_binomial_digamma_gain(probs, counts, a)
    m, v = np.sum(counts * probs), np.sum(counts * probs * (1 - probs))
    got = float(expected_digamma_gain(np.array([m]), np.array([v]), a)[0])
    plug_in = float(digamma(m + a) - digamma(a))
    assert abs(got - exact) <= 0.03 * exact
    assert abs(got - exact) <= abs(plug_in - exact) + 1e-9 * exact  # never worse than the plug-in
    if m < 1 and a <= 0.05:
        assert plug_in > 1.5 * exact  # the bias that made learned priors run off


def _polya_objective(alpha, counts, shape, rate):
    """Dirichlet-multinomial log-likelihood of the rows of counts plus a Gamma(shape, rate) log prior."""
    total = alpha.sum()
    lengths = counts.sum(axis=1)
    ll = np.sum(gammaln(total) - gammaln(lengths + total)) + np.sum(gammaln(counts + alpha) - gammaln(alpha))
    return ll + np.sum((shape - 1) * np.log(alpha) - rate * alpha)


@pytest.mark.parametrize("shape, rate", [(1.0, 0.0), (1.0, 1.0), (2.0, 0.5)])
def test_one_polya_step_never_decreases_the_objective_and_iterates_to_its_maximum(shape, rate):
    rng = np.random.default_rng(1)
    counts = rng.multinomial(30, rng.dirichlet(np.full(4, 0.3)), size=60).astype(float)
    counts[:5] = rng.multinomial(200, [0.7, 0.1, 0.1, 0.1], size=5)
    lengths = counts.sum(axis=1)
    alpha = np.array([2.0, 0.01, 0.5, 7.0])
    values = [_polya_objective(alpha, counts, shape, rate)]
    for _ in range(500):  # exact counts: no variance
        alpha = polya_step(alpha, counts, np.zeros_like(counts), lengths, shape, rate)
        values.append(_polya_objective(alpha, counts, shape, rate))
    assert np.all(np.diff(values) >= -1e-9 * np.abs(values[1:]))  # Minka's step is a minorise-maximise step
    best = minimize(lambda x: -_polya_objective(np.exp(x), counts, shape, rate), np.log(alpha), method="BFGS")
    np.testing.assert_allclose(alpha, np.exp(best.x), rtol=1e-4)


def test_symmetric_step_never_decreases_its_objective_and_reaches_its_maximum():
    rng = np.random.default_rng(2)
    counts = rng.multinomial(400, rng.dirichlet(np.full(50, 0.05)), size=6).astype(float)  # K x V topic-term

    def objective(e):  # the Polya likelihood of the K rows under a symmetric eta, a Gamma(1, 1) log prior on eta
        return _polya_objective(np.full(counts.shape[1], e), counts, 1.0, 0.0) - e

    eta, values = 1.0, [objective(1.0)]
    for _ in range(300):
        eta = symmetric_polya_step(eta, counts, np.zeros_like(counts), 1.0, 1.0)
        values.append(objective(eta))
    assert np.all(np.diff(values) >= -1e-9 * np.abs(values[1:]))
    grid = np.exp(np.linspace(np.log(eta) - 0.01, np.log(eta) + 0.01, 21))
    assert objective(eta) >= max(objective(e) for e in grid) - 1e-8


@pytest.fixture(scope="module")
def lda_data():
    data = make_lda_corpus(900, 400, 8, doc_topic_prior=0.1, topic_word_prior=0.02, doc_length=80, random_state=3)
    X = data.corpus.X.tocsr()
    return X[:800], X[800:]


@pytest.mark.parametrize("variant", ["cvb0", "cvb"])
def test_learned_priors_stay_sane_and_do_not_hurt(lda_data, variant):
    X_train, X_test = lda_data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fixed = CollapsedLDA(8, variant=variant, random_state=0).fit(X_train)
        learned = CollapsedLDA(8, variant=variant, learn_priors=True, random_state=0).fit(X_train)
    # drawn with alpha = 0.1 per topic and eta = 0.02: the learned values are of that order, not runaway
    assert 0.03 < learned.doc_topic_prior_.mean() < 0.3
    assert 0.005 < learned.topic_word_prior_ < 0.06
    assert heldout_perplexity(learned, X_test) <= 1.005 * heldout_perplexity(fixed, X_test)


def _dirichlet_objective(a, s):
    """The Dirichlet log-likelihood per document given the mean log statistic s (what the VB alpha step maximises)."""
    return gammaln(a.sum()) - gammaln(a).sum() + ((a - 1.0) * s).sum()


@pytest.mark.parametrize("rho", [1.0, 0.6, 0.05])
def test_the_online_alpha_maximises_the_averaged_statistic(rho):
    """svi_alpha: the new alpha maximises the Dirichlet likelihood of (1 - rho) s_prev + rho s_batch, s_prev the
    statistic whose optimum the previous alpha is (checked with a generic optimiser on log alpha)."""
    from topicvb.models._vb import svi_alpha

    rng = np.random.default_rng(0)
    alpha = rng.uniform(0.05, 2.0, 5)
    theta = rng.dirichlet(rng.uniform(0.1, 1.0, 5), size=7)  # a batch of 7 documents' proportions
    batch = np.log(theta).mean(axis=0)
    s = (1.0 - rho) * (digamma(alpha) - digamma(alpha.sum())) + rho * batch
    result = minimize(lambda x: -_dirichlet_objective(np.exp(x), s), np.log(alpha), method="BFGS",
                      options={"gtol": 1e-12, "maxiter": 10_000})
    new = svi_alpha(alpha, batch, rho)
    np.testing.assert_allclose(new, np.exp(result.x), rtol=1e-5)
    assert _dirichlet_objective(new, s) >= _dirichlet_objective(np.exp(result.x), s) - 1e-12
    np.testing.assert_allclose(svi_alpha(alpha, digamma(alpha) - digamma(alpha.sum()), rho), alpha, rtol=1e-9)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("batch_size", [1, 5])
def test_online_alpha_learned_from_small_batches_is_the_corpus_alpha(batch_size):
    """A hunt: OnlineLDA(learn_priors=True) moved alpha towards each batch's own optimum, which for one document is
    about its gamma: batch_size=1 learned alpha near 150 (the batch fit learns about 0.1 here) and held-out
    perplexity rose from 4.25 to 11.1."""
    from topicvb import BatchLDA, OnlineLDA

    X = make_lda_corpus(600, 100, 5, doc_length=60, random_state=3).corpus.X.tocsr()
    train, test = X[:500], X[500:]
    batch = BatchLDA(5, learn_priors=True, random_state=0).fit(train)
    fixed = OnlineLDA(5, batch_size=batch_size, max_iter=2, random_state=0).fit(train)
    learned = OnlineLDA(5, batch_size=batch_size, max_iter=2, learn_priors=True, random_state=0).fit(train)
    ratio = learned.doc_topic_prior_.mean() / batch.doc_topic_prior_.mean()
    assert 0.5 < ratio < 2.0, (learned.doc_topic_prior_, batch.doc_topic_prior_)
    assert learned.perplexity(test) <= 1.01 * fixed.perplexity(test)
