"""CollapsedLDA and StochasticCollapsedLDA with a matrix topic-word prior (guided topics, issue #21)."""

import warnings

import numpy as np
import pytest
from scipy.special import gammaln

from topicvb import CollapsedLDA, StochasticCollapsedLDA
from topicvb.datasets import make_lda_corpus
from topicvb.evaluation import heldout_perplexity
from topicvb.models._moves import (Cells, best_split, count_proposal, propose, slots_to_free, topic_priors,
                                   topic_shares)
from topicvb.models._priors import scaled_polya_step, symmetric_polya_step

K = 6


@pytest.fixture(scope="module")
def data():
    return make_lda_corpus(300, 150, K, doc_topic_prior=0.1, topic_word_prior=0.03, doc_length=60, random_state=5)


@pytest.fixture(scope="module")
def X(data):
    return data.corpus.X.tocsr()


def _guided(data, seeded=2, true_topic=3, n_seeds=3, weight=20.0, excluded=(1, 7)):
    """A prior of 1/K everywhere, ``n_seeds`` top words of a true topic seeding topic ``seeded``, and one
    term excluded from one topic; returns (eta, seed words)."""
    V = data.topic_word.shape[1]
    eta = np.full((K, V), 1.0 / K)
    seeds = np.argsort(-data.topic_word[true_topic])[:n_seeds]
    eta[seeded, seeds] += weight
    eta[excluded] = 0.0
    return eta, seeds


def _fit(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X)


CONFIGS = {
    "cvb0": dict(moves=False, max_iter=25),
    "cvb": dict(variant="cvb", moves=False, max_iter=15),
    "per_sweep": dict(topic_update="per_sweep", moves=False, max_iter=20),
    "learn": dict(learn_priors=True, prior_burn_in=3, moves=False, max_iter=25),
    "cvb_learn_moves": dict(variant="cvb", learn_priors=True, prior_burn_in=3, max_iter=40),
    "moves": dict(max_iter=60, tol=1e-4),
    "random": dict(init="random", max_iter=15),
}


@pytest.mark.parametrize("params", CONFIGS.values(), ids=CONFIGS.keys())
def test_a_constant_matrix_fits_as_the_scalar_prior(X, params):
    e = 0.07
    scalar = _fit(CollapsedLDA(K, topic_word_prior=e, random_state=0, **params), X)
    const = _fit(CollapsedLDA(K, topic_word_prior=np.full((K, X.shape[1]), e), random_state=0, **params), X)
    assert const.n_iter_ == scalar.n_iter_
    np.testing.assert_allclose(const.components_, scalar.components_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(const.bound_history_, scalar.bound_history_, rtol=1e-10)
    np.testing.assert_allclose(const.doc_topic_prior_, scalar.doc_topic_prior_, rtol=1e-10)
    assert const.topic_word_prior_.shape == (K, X.shape[1])
    np.testing.assert_allclose(const.topic_word_prior_, scalar.topic_word_prior_, rtol=1e-10)
    np.testing.assert_allclose(const.transform(X[:20]), scalar.transform(X[:20]), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("params", [dict(max_iter=20, batch_size=64), dict(moves=False, init="random", max_iter=6)],
                         ids=["default", "random"])
def test_a_constant_matrix_fits_as_the_scalar_prior_stochastic(X, params):
    e = 0.07
    scalar = _fit(StochasticCollapsedLDA(K, topic_word_prior=e, random_state=0, **params), X)
    const = _fit(StochasticCollapsedLDA(K, topic_word_prior=np.full((K, X.shape[1]), e), random_state=0, **params), X)
    assert const.n_iter_ == scalar.n_iter_
    np.testing.assert_allclose(const.components_, scalar.components_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(const.bound_history_, scalar.bound_history_, rtol=1e-10)


MODELS = {
    "cvb0": lambda eta: CollapsedLDA(K, topic_word_prior=eta, random_state=0, max_iter=40),
    "cvb_learn": lambda eta: CollapsedLDA(K, topic_word_prior=eta, variant="cvb", learn_priors=True, prior_burn_in=3,
                                          random_state=0, max_iter=40),
    "per_sweep_random": lambda eta: CollapsedLDA(K, topic_word_prior=eta, topic_update="per_sweep", init="random",
                                                 random_state=0, max_iter=30, n_jobs=2),
    "scvb0": lambda eta: StochasticCollapsedLDA(K, topic_word_prior=eta, random_state=0, batch_size=64, max_iter=30),
    "scvb0_random": lambda eta: StochasticCollapsedLDA(K, topic_word_prior=eta, init="random", random_state=0,
                                                       batch_size=64, max_iter=30),
}


@pytest.mark.parametrize("make", MODELS.values(), ids=MODELS.keys())
def test_an_excluded_term_never_enters_its_topic_and_the_fit_is_usable(data, X, make):
    eta, _ = _guided(data)
    k, w = 1, 7
    assert X[:, w].sum() > 0  # the term occurs
    model = _fit(make(eta), X)
    assert model.components_[k, w] == 0.0  # exactly
    assert model.topic_word_distribution()[k, w] == 0.0
    assert np.all(model.components_[eta > 0] > 0)
    assert model.topic_word_prior_.shape == eta.shape
    assert model.topic_word_prior_[k, w] == 0.0
    shares = model.topic_word_prior_[eta > 0] / eta[eta > 0]  # the given matrix, times a learned scale if any
    np.testing.assert_allclose(shares, shares[0], rtol=1e-12)
    theta = model.transform(X[:30])
    np.testing.assert_allclose(theta.sum(axis=1), 1.0, rtol=1e-10)
    assert np.isfinite(model.score(X[:30])) and np.isfinite(model.bound(X[:30]))
    assert list(model.topic_labels_) == [f"topic_{i}" for i in range(K)]


def test_partial_fit_with_a_matrix_prior_keeps_exclusions(data, X):
    eta, _ = _guided(data)
    model = StochasticCollapsedLDA(K, topic_word_prior=eta, random_state=0, batch_size=50)
    for i in range(3):
        model.partial_fit(X[i * 100:(i + 1) * 100])
    assert model.components_[1, 7] == 0.0 and np.all(model.components_[eta > 0] > 0)
    np.testing.assert_array_equal(model.topic_word_prior_, eta)


@pytest.mark.parametrize("make", [
    lambda eta: CollapsedLDA(K, topic_word_prior=eta, random_state=1, max_iter=150),
    lambda eta: CollapsedLDA(K, topic_word_prior=eta, variant="cvb", learn_priors=True, random_state=1, max_iter=150),
    lambda eta: StochasticCollapsedLDA(K, topic_word_prior=eta, random_state=1, batch_size=64, max_iter=60),
], ids=["cvb0_moves", "cvb_learn_moves", "scvb0_moves"])
def test_a_seeded_topic_keeps_its_seed_words_on_top(data, X, make):
    # a topic seeded with three top words of true topic 3 becomes that topic and keeps them in its top words
    eta, seeds = _guided(data, seeded=2, true_topic=3, weight=5.0)
    model = _fit(make(eta), X)
    top = np.argsort(-model.components_[2])[:8]
    assert set(seeds) <= set(top)
    phi = model.topic_word_distribution()
    truth = data.topic_word
    cos = (phi @ truth.T) / np.outer(np.linalg.norm(phi, axis=1), np.linalg.norm(truth, axis=1))
    assert int(np.argmax(cos[2])) == 3 and cos[2, 3] > 0.9


def test_per_sweep_and_stochastic_fits_do_not_depend_on_the_thread_count(data, X):
    eta, _ = _guided(data)
    for make in (lambda n: CollapsedLDA(K, topic_word_prior=eta, topic_update="per_sweep", learn_priors=True,
                                        prior_burn_in=3, random_state=0, max_iter=30, n_jobs=n),
                 lambda n: StochasticCollapsedLDA(K, topic_word_prior=eta, random_state=0, batch_size=64, max_iter=20,
                                                  n_jobs=n)):
        one, two = _fit(make(1), X), _fit(make(2), X)
        np.testing.assert_array_equal(one.components_, two.components_)
        np.testing.assert_array_equal(one.bound_history_, two.bound_history_)
        np.testing.assert_array_equal(one.transform(X[:50]), two.transform(X[:50]))


@pytest.mark.parametrize("variant", ["cvb0", "cvb"])
def test_resume_with_a_matrix_prior_gives_the_uninterrupted_fit(data, X, tmp_path, variant):
    eta, _ = _guided(data)

    def make(**kw):
        return CollapsedLDA(K, topic_word_prior=eta, variant=variant, learn_priors=True, prior_burn_in=3,
                            random_state=0, tol=0, **kw)

    want = _fit(make(max_iter=16), X)
    path = tmp_path / "ck.npz"
    _fit(make(max_iter=8, checkpoint_path=path), X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = make(max_iter=16, checkpoint_path=path).fit(X, resume=True)
    for name in ("components_", "bound_history_", "topic_word_prior_", "doc_topic_prior_"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
    assert not np.array_equal(want.topic_word_prior_, eta)  # (the scale was learned)


def test_learned_scale_stays_sane_and_does_not_hurt():
    data = make_lda_corpus(900, 400, 8, doc_topic_prior=0.1, topic_word_prior=0.02, doc_length=80, random_state=3)
    X = data.corpus.X.tocsr()
    X_train, X_test = X[:800], X[800:]
    eta = np.full((8, 400), 1.0 / 8)
    seeds = np.argsort(-data.topic_word[5])[:3]
    eta[0, seeds] = 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fixed = CollapsedLDA(8, topic_word_prior=eta, random_state=0).fit(X_train)
        learned = CollapsedLDA(8, topic_word_prior=eta, learn_priors=True, random_state=0).fit(X_train)
    scale = learned.topic_word_prior_[1, 0] / eta[1, 0]
    # drawn with eta = 0.02: the base entries (1/8) learn a scale towards that order, not runaway
    assert 0.02 < scale * eta[1, 0] < 0.08
    np.testing.assert_allclose(learned.topic_word_prior_, scale * eta, rtol=1e-12)
    assert 0.03 < learned.doc_topic_prior_.mean() < 0.3
    assert heldout_perplexity(learned, X_test) <= 1.005 * heldout_perplexity(fixed, X_test)
    assert set(seeds) <= set(np.argsort(-learned.components_[0])[:8])


def _polya_scale_objective(s, base, counts, shape, rate):
    """sum_k log Polya(n_k | s b_k) + log Gamma(u | shape, rate), u = s mean(b > 0), counts (K, V)."""
    eta = s * base
    pos = base > 0
    value = 0.0
    for k in range(counts.shape[0]):
        e, n = eta[k][pos[k]], counts[k][pos[k]]
        value += gammaln(e.sum()) - gammaln(e.sum() + n.sum()) + np.sum(gammaln(n + e) - gammaln(e))
    u = s * base[pos].mean()
    return value + (shape - 1.0) * np.log(u) - rate * u


def test_the_scale_step_climbs_the_polya_likelihood_and_is_the_symmetric_step_for_a_constant_matrix():
    rng = np.random.default_rng(2)
    V = 60
    base = np.full((5, V), 0.1)
    base[0, :4] = [3.0, 2.0, 1.0, 0.5]
    base[1, 10:20] = 0.0
    counts = rng.multinomial(300, rng.dirichlet(np.full(V, 0.05)), size=5).astype(float)
    counts[base == 0] = 0.0
    s, values = 1.0, [_polya_scale_objective(1.0, base, counts, 1.0, 1.0)]
    for _ in range(200):
        s = scaled_polya_step(s, base.T, counts.T, np.zeros((V, 5)), 1.0, 1.0)
        values.append(_polya_scale_objective(s, base, counts, 1.0, 1.0))
    assert np.all(np.diff(values) >= -1e-9 * np.abs(values[1:]))
    grid = s * np.exp(np.linspace(-0.01, 0.01, 21))
    assert values[-1] >= max(_polya_scale_objective(g, base, counts, 1.0, 1.0) for g in grid) - 1e-8
    # a constant matrix c learns what the scalar step does from c (the hyperprior is on the typical value)
    var = rng.uniform(0, 1, counts.shape) * counts
    for c in (1.0, 0.03):
        const = np.full((5, V), c)
        new = scaled_polya_step(1.0, const.T, counts.T, var.T, 1.0, 1.0) * c
        np.testing.assert_allclose(new, symmetric_polya_step(c, counts, var, 1.0, 1.0), rtol=1e-12)


def test_moves_never_free_merge_into_or_split_a_topic_whose_prior_row_is_not_constant():
    rng = np.random.default_rng(0)
    data = make_lda_corpus(200, 80, 4, random_state=1)
    X = data.corpus.X.tocsr()
    cells = Cells(X.indptr.astype(np.int64), X.indices.astype(np.int32), X.data)
    Kp, V = 5, X.shape[1]
    gamma = rng.dirichlet(np.ones(Kp), X.nnz)
    gamma[:, 4] *= 1e-4  # topic 4: dead
    gamma[:, 3] = gamma[:, 2]  # topics 2 and 3: duplicates
    gamma /= gamma.sum(axis=1, keepdims=True)
    alpha = np.full(Kp, 0.2)
    column = lambda k: gamma[:, k]  # noqa: E731
    n_wk = np.stack([np.bincount(X.indices, weights=X.data * gamma[:, k], minlength=V) for k in range(Kp)], axis=1)
    shares = topic_shares(gamma, X.data)
    scalar = slots_to_free(cells, column, shares, n_wk, V, alpha, 0.1, 0.2)
    assert {(s, i) for _, s, i in scalar} >= {(4, -1)} and any(i in (2, 3) for _, _, i in scalar)
    eta = np.full((Kp, V), 0.1)
    eta[4, 0] = 3.0  # the dead topic is seeded
    eta[2, 5] = 0.0  # topic 2 excludes a term
    assert list(np.flatnonzero(topic_priors(eta, Kp)[1])) == [2, 4]
    slots = slots_to_free(cells, column, shares, n_wk, V, alpha, eta, 0.2)
    assert all(s not in (2, 4) and i not in (2, 4) for _, s, i in slots)
    for _ in range(3):
        k = best_split(cells, column, (), V, alpha, eta, rng)[0]
        assert k not in (2, 4)
    new, target, _ = propose(cells, gamma, V, alpha, eta, 0, -1, rng)
    assert target not in (2, 4)
    # the fixed topics' responsibilities only take a share of the deleted slot's mass
    moved = gamma[:, 0] > 0
    np.testing.assert_allclose(new[moved][:, [2, 4]], (gamma[:, [2, 4]] / (1 - gamma[:, [0]]))[moved], rtol=1e-12)
    # every other topic fixed: nothing to split, no proposal
    all_fixed = eta.copy()
    all_fixed[[0, 1, 3], [1, 2, 3]] = 1.0
    assert best_split(cells, column, (0,), V, alpha, all_fixed, rng) is None
    n_dk = np.stack([np.bincount(cells.rows, weights=X.data * gamma[:, k], minlength=X.shape[0])
                     for k in range(Kp)], axis=1)
    assert count_proposal(cells, column, n_dk, n_wk, alpha, all_fixed, 0, 0.2, rng, _Log(), "test") is None
    found = count_proposal(cells, column, n_dk, n_wk, alpha, eta, 0, 0.2, rng, _Log(), "test")
    if found is not None:
        np.testing.assert_array_equal(found[1][:, [2, 4]], n_wk[:, [2, 4]])


class _Log:
    def info(self, *args):
        pass


def test_accepted_moves_match_the_scalar_fit_and_leave_seeded_topics_in_place(caplog):
    import logging
    import re

    X8 = make_lda_corpus(300, 120, 8, random_state=1).corpus.X.tocsr()
    V = X8.shape[1]
    with caplog.at_level(logging.INFO, logger="topicvb.models.collapsed_lda"):
        scalar = _fit(CollapsedLDA(8, topic_word_prior=0.1, random_state=0, max_iter=40), X8)
        const = _fit(CollapsedLDA(8, topic_word_prior=np.full((8, V), 0.1), random_state=0, max_iter=40), X8)
    assert sum("move accepted" in m for m in caplog.messages) == 2  # one in each fit
    np.testing.assert_allclose(const.components_, scalar.components_, rtol=1e-10, atol=1e-10)
    eta = np.full((8, V), 0.1)
    eta[0, :5] = 5.0
    eta[1, 10] = 0.0
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="topicvb.models.collapsed_lda"):
        for seed in range(4):
            guided = _fit(CollapsedLDA(8, topic_word_prior=eta, random_state=seed, max_iter=40), X8)
            assert guided.components_[1, 10] == 0.0
    moves = [m for m in caplog.messages if "move accepted" in m or "no move" in m]
    assert any("move accepted" in m for m in moves)  # (the moves run, on the other topics)
    for m in moves:
        assert not {int(k) for k in re.findall(r"topic (\d+)", m) + re.findall(r"into (\d+)", m)} & {0, 1}
