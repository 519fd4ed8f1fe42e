"""HDP (issue #23): the global step against NumPy / SciPy references, the objective never decreasing through
a global step, the merge criterion, the number of topics found, recovery, thread independence, bad input, and
scikit-learn's estimator checks."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import gammaln
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from topicvb import HDP
from topicvb._kernels.hdp import loggamma_gain, loggamma_gain_sums
from topicvb._kernels.priors import gain, shifted_law
from topicvb.datasets import make_lda_corpus
from topicvb.models._hdp import (global_objective, global_step, merge_gain, minoriser_objective, expected_tables,
                                 length_term, stick_weights, sticks)


def _fit(X, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return HDP(**{"random_state": 0, **kw}).fit(X)


def _recovery(true_topics, topic_word):
    t = true_topics / np.linalg.norm(true_topics, axis=1, keepdims=True)
    f = topic_word / np.linalg.norm(topic_word, axis=1, keepdims=True)
    return float(np.mean(np.max(t @ f.T, axis=1)))


# ---------------------------------------------------------------------------- kernels against NumPy
def _loggamma_gain_reference(m, v, b):
    """E[lnG(n + b) - lnG(b)] summed over the law's pmf in NumPy (below a mean of 8), else the Taylor form."""
    if m <= 0:
        return 0.0
    if m >= 8:
        x = m + b
        trigamma = float(np.sum(1.0 / (x + np.arange(200000)) ** 2)) + 1.0 / (x + 200000)
        return gammaln(x) - gammaln(b) + 0.5 * trigamma * v
    s, n_trials, p = shifted_law(m, v)
    r = m - s
    from scipy.stats import binom, poisson

    ks = np.arange(0, 400)
    if r <= 0:
        pmf = np.zeros(ks.size)
        pmf[0] = 1.0
    else:
        pmf = poisson.pmf(ks, r) if n_trials < 0 else binom.pmf(ks, int(n_trials), p)
    return float(np.sum(pmf * (gammaln(s + b + ks) - gammaln(b))))


@pytest.mark.parametrize("m, v, b", [(0.3, 0.2, 0.05), (0.3, 0.3, 2.0), (2.5, 1.0, 0.01), (5.0, 5.0, 0.7),
                                     (3.0, 0.0, 0.4), (7.9, 2.0, 1.5), (12.0, 4.0, 0.1), (150.0, 30.0, 0.02)])
def test_loggamma_gain_matches_numpy_and_is_the_integral_of_the_digamma_gain(m, v, b):
    assert loggamma_gain(m, v, b) == pytest.approx(_loggamma_gain_reference(m, v, b), rel=1e-9, abs=1e-12)
    h = 1e-6 * b  # its derivative in b is the statistic of the global step (kernels/priors.gain)
    slope = (loggamma_gain(m, v, b + h) - loggamma_gain(m, v, b - h)) / (2 * h)
    assert slope == pytest.approx(gain(m, v, b), rel=1e-5)


def test_loggamma_gain_of_exact_counts_is_the_log_gamma_difference():
    counts = np.array([[0.0, 1.0, 4.0], [7.0, 9.0, 30.0]])
    a = np.array([0.1, 1.0, 3.0])
    want = np.sum(gammaln(counts + a) - gammaln(a), axis=0)
    np.testing.assert_allclose(loggamma_gain_sums(counts, np.zeros_like(counts), a), want, rtol=1e-12)


def test_loggamma_gain_sums_do_not_depend_on_the_thread_count():
    # row blocks summed into their own partial rows, then in a fixed order; strided (column) input as merges pass it
    from topicvb._config import threads

    rng = np.random.default_rng(3)
    mean = rng.exponential(2.0, (700, 5))
    var = mean * rng.uniform(0, 1, mean.shape)
    a = np.array([0.01, 0.1, 0.5, 1.0, 4.0])
    with threads(1):
        one = loggamma_gain_sums(mean, var, a)
        col = loggamma_gain_sums(mean[:, 2:3], var[:, 2:3], a[2:3])
    with threads(2):
        two = loggamma_gain_sums(mean, var, a)
    np.testing.assert_array_equal(one, two)
    want = [sum(loggamma_gain(m, v, a[k]) for m, v in zip(mean[:, k], var[:, k])) for k in range(5)]
    np.testing.assert_allclose(one, want, rtol=1e-12)
    assert col[0] == pytest.approx(one[2], rel=1e-12)


def test_sticks_and_weights_are_inverse():
    beta = np.random.default_rng(0).dirichlet(np.ones(7))
    np.testing.assert_allclose(stick_weights(sticks(beta)), beta, rtol=1e-12)
    assert stick_weights(sticks(beta)).sum() == pytest.approx(1.0)


# ---------------------------------------------------------------------------- the global step
def _problem(seed, D=30, T=5, exact=True):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(5, 60, size=D).astype(float)
    theta = rng.dirichlet(np.full(T, 0.3) * np.linspace(2, 0.2, T), size=D)
    if exact:
        counts = np.array([rng.multinomial(int(n), p) for n, p in zip(lengths, theta)], dtype=float)
        variances = np.zeros_like(counts)
    else:  # expected counts of a mean-field distribution: sums of token indicators, variances below the means
        counts = lengths[:, None] * theta
        variances = counts * rng.uniform(0.1, 0.9, size=counts.shape)
    return counts, variances, lengths


def _reference_objective(alpha0, v, gamma, counts, lengths):
    """F for exact counts, written out in NumPy."""
    beta = np.empty_like(v)
    rest = 1.0
    for k in range(v.shape[0]):
        beta[k] = rest * (v[k] if k < v.shape[0] - 1 else 1.0)
        rest *= 1.0 - v[k]
    a = alpha0 * beta
    f = np.sum(gammaln(alpha0) - gammaln(alpha0 + lengths)) + np.sum(gammaln(a + counts) - gammaln(a))
    f += np.sum(np.log(gamma) + (gamma - 1.0) * np.log1p(-v[:-1]))
    return f - alpha0 - gamma  # Gamma(1, 1) hyperpriors


def test_global_objective_matches_numpy_for_exact_counts():
    counts, variances, lengths = _problem(0)
    v = np.array([0.3, 0.4, 0.2, 0.5, 1.0])
    assert global_objective(1.7, v, 2.5, counts, variances, lengths) == pytest.approx(
        _reference_objective(1.7, v, 2.5, counts, lengths), rel=1e-12)


def test_global_step_converges_to_the_scipy_maximum():
    counts, variances, lengths = _problem(1)
    T = counts.shape[1]
    alpha0, v, gamma = 1.0, sticks(np.full(T, 1.0 / T)), 1.0
    for _ in range(3000):
        alpha0, v, gamma = global_step(alpha0, v, gamma, counts, variances, lengths)

    def negative(x):  # x = (log alpha0, logit v_1..v_{T-1}, log(gamma - 1))
        sticks_ = np.concatenate((1.0 / (1.0 + np.exp(-x[1:T])), [1.0]))
        return -_reference_objective(math.exp(x[0]), sticks_, 1.0 + math.exp(x[T]), counts, lengths)

    x0 = np.concatenate(([0.0], np.zeros(T - 1), [0.0]))
    best = minimize(negative, x0, method="L-BFGS-B", options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-10})
    ours = _reference_objective(alpha0, v, gamma, counts, lengths)
    assert ours >= -best.fun - 1e-6
    assert alpha0 == pytest.approx(math.exp(best.x[0]), rel=1e-3)
    np.testing.assert_allclose(v[:-1], 1.0 / (1.0 + np.exp(-best.x[1:T])), rtol=1e-3)


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_objective_never_decreases_through_global_steps(seed, exact):
    counts, variances, lengths = _problem(seed, exact=exact)
    T = counts.shape[1]
    rng = np.random.default_rng(seed)
    alpha0, v, gamma = float(rng.uniform(0.1, 20)), sticks(rng.dirichlet(np.ones(T))), float(rng.uniform(1, 5))
    previous = global_objective(alpha0, v, gamma, counts, variances, lengths)
    for _ in range(40):
        alpha0, v, gamma = global_step(alpha0, v, gamma, counts, variances, lengths)
        value = global_objective(alpha0, v, gamma, counts, variances, lengths)
        assert value >= previous - 1e-9 * abs(previous)
        previous = value


def test_objective_never_decreases_through_the_global_steps_of_a_fit(lda_corpus, monkeypatch):
    """At the expected counts and variances of a real fit (small and large means, the Taylor form above 8):
    every global step of the fit raises F. (The CVB0 sweeps between them carry no such guarantee.)"""
    import topicvb.models.hdp as hdp_module

    steps = []

    def checked(alpha0, v, gamma, counts, variances, lengths, **kw):
        new = global_step(alpha0, v, gamma, counts, variances, lengths, **kw)
        before = global_objective(alpha0, v, gamma, counts, variances, lengths)
        after = global_objective(*new, counts, variances, lengths)
        steps.append((before, after))
        return new

    monkeypatch.setattr(hdp_module, "global_step", checked)
    _fit(lda_corpus.corpus.X, max_components=10, max_iter=40)
    assert len(steps) == 30
    for before, after in steps:
        assert after >= before - 1e-10 * abs(before)


def test_each_update_raises_the_minoriser():
    counts, variances, lengths = _problem(3, exact=False)
    T = counts.shape[1]
    alpha0, v, gamma = 3.0, sticks(np.full(T, 1.0 / T)), 2.0
    t = expected_tables(alpha0 * stick_weights(v), counts, variances)
    S = length_term(alpha0, lengths)
    before = minoriser_objective(alpha0, v, gamma, t, S)
    new_alpha0, new_v, new_gamma = global_step(alpha0, v, gamma, counts, variances, lengths)
    assert minoriser_objective(new_alpha0, v, gamma, t, S) >= before
    assert minoriser_objective(new_alpha0, new_v, new_gamma, t, S) >= minoriser_objective(new_alpha0, v, gamma, t, S)
    # the alpha0 update is Minka's fixed point for the total, with the Gamma(1, 1) hyperprior
    assert new_alpha0 == pytest.approx(t.sum() / (S + 1.0))


def test_a_fixed_stick_concentration_is_kept():
    counts, variances, lengths = _problem(4)
    _, _, gamma = global_step(1.0, sticks(np.full(5, 0.2)), 3.0, counts, variances, lengths, learn_gamma=False)
    assert gamma == 3.0


# ---------------------------------------------------------------------------- the merge criterion
def _cells(X):
    X = sp.csr_matrix(X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    return X, rows


def _state(X, rows, gamma):
    D, V = X.shape
    c = X.data[:, None]
    n_dk = np.zeros((D, gamma.shape[1]))
    n_wk = np.zeros((V, gamma.shape[1]))
    v_dk, v_wk = np.zeros_like(n_dk), np.zeros_like(n_wk)
    np.add.at(n_dk, rows, c * gamma)
    np.add.at(n_wk, X.indices, c * gamma)
    np.add.at(v_dk, rows, c * gamma * (1 - gamma))
    np.add.at(v_wk, X.indices, c * gamma * (1 - gamma))
    return n_dk, v_dk, n_wk, v_wk


def test_merging_a_duplicated_topic_raises_the_bound_and_merging_distinct_ones_does_not(block_corpus):
    X, rows = _cells(block_corpus)
    block = X.indices // 3  # each term's true topic
    # topic 0 is split over slots 0 and 3 at random, half and half; topics 1 and 2 are clean
    gamma = np.zeros((X.nnz, 4))
    gamma[np.arange(X.nnz), block] = 1.0
    gamma[block == 0, 0] = 0.5
    gamma[block == 0, 3] = 0.5
    n_dk, v_dk, n_wk, v_wk = _state(X, rows, gamma)
    alpha = np.full(4, 0.25)
    args = (gamma, X.data, rows, X.indices, n_dk, v_dk, n_wk, v_wk, alpha, 0.1)
    assert merge_gain(0, 3, *args) > 0
    assert merge_gain(1, 2, *args) < 0


def test_merge_gain_matches_the_bound_difference_for_hard_assignments(block_corpus):
    """With 0 / 1 responsibilities the bound is the exact collapsed log joint: compare with NumPy."""
    X, rows = _cells(block_corpus)
    rng = np.random.default_rng(0)
    T, eta = 4, 0.1
    gamma = np.eye(T)[rng.integers(0, T, size=X.nnz)]
    alpha = np.array([0.4, 0.3, 0.2, 0.1])
    V = X.shape[1]

    def joint(g, a):
        n_dk, _, n_wk, _ = _state(X, rows, g)
        A = a.sum()
        lengths = n_dk.sum(axis=1)
        f = np.sum(gammaln(A) - gammaln(A + lengths)) + np.sum(gammaln(a + n_dk) - gammaln(a))
        n_k = n_wk.sum(axis=0)
        return f + np.sum(gammaln(V * eta) - gammaln(V * eta + n_k)) + np.sum(gammaln(eta + n_wk) - gammaln(eta))

    merged = gamma.copy()
    merged[:, 0] += merged[:, 2]
    merged[:, 2] = 0.0
    merged_alpha = alpha.copy()
    merged_alpha[0] += merged_alpha[2]
    n_dk, v_dk, n_wk, v_wk = _state(X, rows, gamma)
    gain_ = merge_gain(0, 2, gamma, X.data, rows, X.indices, n_dk, v_dk, n_wk, v_wk, alpha, eta)
    # (the merged topic 2 is empty: its prior terms vanish, and the doc-prior total A is unchanged)
    want = joint(merged[:, [0, 1, 3]], merged_alpha[[0, 1, 3]]) - joint(gamma, alpha)
    assert gain_ == pytest.approx(want, rel=1e-9)
    # a round's cache of each topic's own terms gives every pair's gain as computed alone
    cache, args = {}, (gamma, X.data, rows, X.indices, n_dk, v_dk, n_wk, v_wk, alpha, eta)
    pairs = [(0, 2), (0, 1), (1, 2), (3, 0), (0, 2)]
    cached = [merge_gain(j, k, *args, cache=cache) for j, k in pairs]
    assert sorted(cache) == [0, 1, 2, 3]
    np.testing.assert_allclose(cached, [merge_gain(j, k, *args) for j, k in pairs], rtol=1e-12)


# ---------------------------------------------------------------------------- fits
@pytest.fixture(scope="module")
def themes():
    """Three obvious themes: 150 documents, each of 30 tokens from its theme's 20 terms (of 60)."""
    gen = np.random.default_rng(0)
    X = np.zeros((150, 60))
    for d in range(150):
        theme = d % 3
        X[d, theme * 20:(theme + 1) * 20] = gen.multinomial(30, gen.dirichlet(np.ones(20)))
    return sp.csr_matrix(X)


@pytest.mark.parametrize("max_components", [6, 12])
def test_three_obvious_themes_give_three_topics(themes, max_components):
    model = _fit(themes, max_components=max_components, max_iter=200)
    assert model.n_components_ == 3
    assert model.components_.shape == (3, 60)
    tops = {frozenset(np.argsort(-row)[:20]) for row in model.components_}
    assert tops == {frozenset(range(b * 20, b * 20 + 20)) for b in range(3)}
    assert model.all_components_.shape == (max_components, 60)
    assert model.topic_weights_.sum() == pytest.approx(1.0)
    assert np.all(np.diff(model.topic_shares_) <= 1e-12)  # by decreasing size
    doc_topic = model.transform(themes)
    assert doc_topic.shape == (150, 3)
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0)


@pytest.fixture(scope="module")
def lda_corpus():
    return make_lda_corpus(600, 300, 6, doc_length=80, random_state=1)


def test_recovers_an_lda_generated_corpus(lda_corpus):
    model = _fit(lda_corpus.corpus.X, max_components=15, max_iter=150)
    assert model.n_components_ == 6
    assert _recovery(lda_corpus.topic_word, model.topic_word_distribution()) >= 0.97
    # the learned concentration is near the generating one (alpha 0.1 per topic: alpha0 = 0.6)
    assert 0.3 < model.doc_topic_concentration_ < 1.2
    assert model.objective_history_.shape[0] == model.n_iter_ - model.prior_burn_in
    assert np.all(np.isfinite(model.bound_history_))


@pytest.mark.parametrize("topic_update", ["sequential", "per_sweep"])
def test_results_do_not_depend_on_the_thread_count(lda_corpus, topic_update):
    X = lda_corpus.corpus.X
    one = _fit(X, max_components=10, max_iter=30, n_jobs=1, topic_update=topic_update)
    two = _fit(X, max_components=10, max_iter=30, n_jobs=2, topic_update=topic_update)
    np.testing.assert_array_equal(one.all_components_, two.all_components_)
    np.testing.assert_array_equal(one.bound_history_, two.bound_history_)
    np.testing.assert_array_equal(one.transform(X), two.transform(X))


def test_score_and_perplexity(lda_corpus):
    X = lda_corpus.corpus.X
    model = _fit(X[:500], max_components=10, max_iter=60)
    score = model.score(X[500:])
    assert score < 0 and model.perplexity(X[500:]) == pytest.approx(math.exp(-score))
    assert np.isfinite(model.bound(X[500:]))


def test_verbose_progress_goes_to_stderr(block_corpus, capsys):
    _fit(block_corpus, max_components=4, max_iter=12, verbose=1)
    assert "HDP  iter 12/12" in capsys.readouterr().err


def test_the_refit_of_the_kept_topics_reports_its_sweeps_and_is_quiet_when_asked(capsys):
    """A hunt: the refit ran up to max_iter more sweeps without a line at verbose=1, and its ConvergenceWarning (and
    the merges' one) ignored quiet_convergence, which perplexity_trace and select_n_topics fit under."""
    from topicvb._config import quiet_convergence

    X = make_lda_corpus(300, 150, 4, doc_length=60, random_state=5).corpus.X
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = HDP(max_components=12, max_iter=40, random_state=0, verbose=1).fit(X)
    err = capsys.readouterr().err
    assert model.refit_sweeps_ > 0 and f"HDP  refit sweep {model.refit_sweeps_}/40  bound" in err
    assert err.count("refit sweep") == model.refit_sweeps_ and err.count("  iter ") == model.n_iter_
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)  # (this fit does warn, unquietened)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with quiet_convergence():
            HDP(max_components=12, max_iter=40, random_state=0).fit(X)
    assert not [w for w in caught if issubclass(w.category, ConvergenceWarning)]


def test_merges_off_keeps_the_split_topics(lda_corpus):
    X = lda_corpus.corpus.X
    plain = _fit(X, max_components=15, max_iter=60, merges=False)
    merged = _fit(X, max_components=15, max_iter=60)
    assert merged.n_components_ <= plain.n_components_


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("params, error, match", [
    ({"max_components": 0}, ValueError, "max_components must be"),
    ({"max_components": 2.5}, TypeError, "max_components must be"),
    ({"stick_concentration": 0.5}, ValueError, "stick_concentration must be"),
    ({"doc_topic_concentration": -1.0}, ValueError, "doc_topic_concentration must be"),
    ({"topic_word_prior": 0.0}, ValueError, "topic_word_prior must be"),
    ({"min_topic_share": 1.5}, ValueError, "min_topic_share must be"),
    ({"init": "kmeans"}, ValueError, "init must be"),
    ({"topic_update": "parallel"}, ValueError, "topic_update must be"),
    ({"merges": "yes"}, TypeError, "merges must be"),
])
def test_bad_parameters_are_named(block_corpus, params, error, match):
    with pytest.raises(error, match=match):
        HDP(**params).fit(block_corpus)


def test_bad_input_is_refused(block_corpus):
    X = block_corpus.toarray()
    X[0, 0] = -1
    with pytest.raises(ValueError, match="non-negative"):
        HDP(max_iter=2).fit(X)
    model = _fit(block_corpus, max_components=4, max_iter=15)
    with pytest.raises(ValueError, match="X has 5 features, but HDP is expecting 9"):
        model.transform(np.ones((2, 5)))
    with pytest.raises(ValueError, match="resume"):
        HDP(max_iter=2).fit(block_corpus, resume=True)


def test_checkpoints_resume_and_are_checked(lda_corpus, tmp_path):
    # a fit's last checkpoint resumed gives the same model (the refit of the kept topics redone from it);
    # a checkpoint whose counts do not add up to X's tokens, or of another corpus, is refused by name
    X = lda_corpus.corpus.X
    ckpt = tmp_path / "hdp.ckpt.npz"
    params = dict(max_components=10, max_iter=40, random_state=0)
    straight = _fit(X, **params)
    saved = _fit(X, **params, checkpoint_path=ckpt, checkpoint_every=1)
    np.testing.assert_array_equal(saved.components_, straight.components_)
    with np.load(ckpt) as z:
        arrays = dict(z)
    assert int(arrays["iteration"]) == straight.n_iter_ and arrays["gamma"].shape == (X.nnz, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        resumed = HDP(**params, checkpoint_path=ckpt).fit(X, resume=True)
    assert resumed.n_iter_ == straight.n_iter_ and resumed.refit_sweeps_ == straight.refit_sweeps_
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)
    np.testing.assert_array_equal(resumed.objective_history_, straight.objective_history_)
    with pytest.raises(ValueError, match=r"written for other data \(the same parameters\)"):
        HDP(**params, checkpoint_path=ckpt).fit(X[:, :-1], resume=True)
    with np.load(ckpt) as z:  # (every entry, its metadata included, as written)
        arrays = dict(z)
    arrays["n_wk"] = arrays["n_wk"] * 1.5
    np.savez(ckpt, **arrays)
    with pytest.raises(ValueError, match="n_wk adds up to"):
        HDP(**params, checkpoint_path=ckpt).fit(X, resume=True)


# ---------------------------------------------------------------------------- scikit-learn
@parametrize_with_checks([HDP(max_components=4, max_iter=15, random_state=0)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_clone_and_equal_seeds_agree(block_corpus):
    model = HDP(max_components=5, max_iter=20, random_state=3)
    a = _fit(block_corpus, **clone(model).get_params())
    b = _fit(block_corpus, **clone(model).get_params())
    np.testing.assert_array_equal(a.components_, b.components_)


def test_min_topic_share_sets_the_kept_topics_not_the_fit(lda_corpus):
    X = lda_corpus.corpus.X
    default = _fit(X, max_components=10, max_iter=40, refit_kept=False)
    every = _fit(X, max_components=10, max_iter=40, min_topic_share=0.0)
    np.testing.assert_array_equal(every.all_components_, default.all_components_)
    assert every.n_components_ == 10 and every.components_.shape == (10, X.shape[1])
    assert every.refit_sweeps_ == 0  # (nothing dropped: nothing to refit)
    np.testing.assert_array_equal(every.components_, every.all_components_)
    np.testing.assert_array_equal(every.components_[:default.n_components_], default.components_)
    assert default.refit_sweeps_ == 0 and default.n_components_ < 10
    assert np.all(every.doc_topic_prior_ >= 1e-12)
    assert np.isfinite(every.perplexity(X)) and np.isfinite(default.perplexity(X))


def test_the_kept_topics_refit_alone_explain_every_token(lda_corpus):
    # a truncation above the 6 true topics: the small topics are dropped and the kept ones refit, so that
    # their counts hold every training token (without the refit they miss the dropped topics' tokens),
    # and the fit of the T topics is unchanged
    X = lda_corpus.corpus.X
    plain = _fit(X, max_components=10, max_iter=40, refit_kept=False)
    refit = _fit(X, max_components=10, max_iter=40)
    np.testing.assert_array_equal(refit.all_components_, plain.all_components_)
    np.testing.assert_array_equal(refit.bound_history_[:refit.n_iter_], plain.bound_history_)
    K = refit.n_components_
    assert K == plain.n_components_ < 10 and refit.components_.shape == (K, X.shape[1])
    assert refit.refit_sweeps_ > 0 and refit.bound_history_.shape == (refit.n_iter_ + refit.refit_sweeps_,)
    eta = refit.topic_word_prior_
    tokens = float(X.sum())
    assert float((refit.components_ - eta).sum()) == pytest.approx(tokens, rel=1e-9)
    dropped = float((plain.all_components_[K:] - plain.topic_word_prior_).sum())
    assert dropped > 0 and float((plain.components_ - plain.topic_word_prior_).sum()) == pytest.approx(tokens - dropped)
    assert refit.doc_topic_prior_.shape == (K,) and np.all(np.diff(refit.components_.sum(axis=1)) <= 1e-9)
    assert _recovery(lda_corpus.topic_word, refit.topic_word_distribution()) >= 0.97


def test_float32(themes):
    model = _fit(themes.astype(np.float32), max_components=6, max_iter=60, dtype="float32")
    assert model.n_components_ == 3
    assert model.components_.dtype == np.float32 and model.transform(themes.astype(np.float32)).dtype == np.float32


def test_a_fit_that_ends_before_it_settles_again_warns():
    # on this corpus the fit settles, a merge is accepted, it settles again, another merge, ... until max_iter;
    # having settled once is not enough: it ended unsettled (its number of topics depends on where max_iter cut
    # the cycle), so it warns (before, it did not: the check read "ever settled")
    X = make_lda_corpus(n_docs=100, n_topics=3, n_terms=30, doc_length=40, random_state=0).corpus.X
    with pytest.warns(ConvergenceWarning, match=r"HDP reached max_iter=300 while merges were still changing the fit"):
        model = HDP(max_components=8, random_state=0).fit(X)
    assert model.n_iter_ == 300


def test_a_refit_of_the_kept_topics_that_does_not_settle_warns():
    X = make_lda_corpus(300, 200, 10, random_state=2).corpus.X
    with pytest.warns(ConvergenceWarning, match=r"HDP: the refit of the \d+ kept topics reached max_iter=300"):
        model = HDP(random_state=0).fit(X)
    assert model.refit_sweeps_ == 300
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        HDP(random_state=0, refit_kept=False).fit(X)  # (the fit of all the topics itself settled)
