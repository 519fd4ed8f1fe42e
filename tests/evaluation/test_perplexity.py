"""Held-out perplexity by document completion, the token split, the per-word bound, traces."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from topicvb import PLSA, BatchLDA, CollapsedLDA, OnlineLDA
from topicvb.evaluation import (
    FixedTopicModel,
    heldout_log_likelihood,
    heldout_perplexity,
    per_word_bound,
    perplexity_trace,
    split_tokens,
)


# ---------------------------------------------------------------------------------- split_tokens
def test_split_is_exact_seeded_and_binomial(synthetic):
    X = synthetic.corpus.X
    obs, held = split_tokens(X, 0.3, random_state=1)
    assert sp.issparse(obs) and sp.issparse(held)
    np.testing.assert_array_equal((obs + held).toarray(), X.toarray())
    assert obs.min() >= 0 and held.min() >= 0
    np.testing.assert_array_equal(obs.data, np.round(obs.data))
    # each token is observed with probability 0.3: 30000 tokens, so within ~5 standard deviations
    n = X.sum()
    assert abs(obs.sum() / n - 0.3) < 5 * np.sqrt(0.3 * 0.7 / n)
    again, _ = split_tokens(X, 0.3, random_state=1)
    np.testing.assert_array_equal(again.toarray(), obs.toarray())
    other, _ = split_tokens(X, 0.3, random_state=2)
    assert (other != obs).nnz > 0


def test_split_of_counts_beyond_int64_and_their_score():
    # numpy's binomial takes int64 counts: cells of 2**62 tokens or more take a normal draw of the binomial's
    # mean and variance, and the scores that split documents work (they ended in numpy's "n < 0" before)
    X = sp.csr_matrix(np.array([[1e19, 3.0, 0.0], [5.0, 2.0 ** 62, 7.0], [1.0, 2.0, 3.0]]))
    obs, held = split_tokens(X, 0.3, random_state=0)
    np.testing.assert_array_equal((obs + held).toarray(), X.toarray())
    assert obs.min() >= 0 and held.min() >= 0
    for big, n in ((obs[0, 0], 1e19), (obs[1, 1], 2.0 ** 62)):
        assert abs(big / n - 0.3) < 1e-8  # within a few standard deviations (about 1e-10 of n)
    small, _ = split_tokens(X[2:], 0.3, random_state=0)  # ordinary counts: one binomial draw per cell, as before
    np.testing.assert_array_equal(small.toarray().ravel(), np.random.RandomState(0).binomial([1, 2, 3], 0.3))
    model = CollapsedLDA(2, random_state=0, max_iter=5).fit(X)
    assert np.isfinite(model.score(X)) and np.isfinite(heldout_perplexity(model, X, random_state=0))


def test_split_rejects_bad_input():
    with pytest.raises(ValueError, match="non-integer counts"):
        split_tokens(np.array([[1.5, 2.0]]))
    with pytest.raises(ValueError, match="observed_fraction"):
        split_tokens(np.array([[1, 2]]), observed_fraction=1.0)
    with pytest.raises(ValueError, match="non-negative"):
        split_tokens(np.array([[1, -2]]))


# ---------------------------------------------------------------------------------- the formula
def test_perplexity_is_the_documented_formula(batch_model, split):
    X_test = split[1]
    obs, held = split_tokens(X_test, 0.5, random_state=0)
    theta = batch_model.transform(obs)
    gamma = batch_model._infer(obs.astype(np.float64))  # E[theta] = gamma / sum gamma
    np.testing.assert_allclose(theta, gamma / gamma.sum(axis=1, keepdims=True), rtol=1e-12)
    phi = batch_model.components_ / batch_model.components_.sum(axis=1, keepdims=True)  # E[beta]
    H = held.toarray()
    expected = np.exp(-np.sum(H * np.log(theta @ phi)) / H.sum())
    assert heldout_perplexity(batch_model, X_test) == pytest.approx(expected, rel=1e-10)
    assert heldout_perplexity(batch_model, obs, X_heldout=held) == pytest.approx(expected, rel=1e-10)
    per_doc = heldout_log_likelihood(batch_model, obs, held)
    np.testing.assert_allclose(per_doc, np.sum(H * np.log(theta @ phi), axis=1), rtol=1e-10)


def test_uniform_topics_score_the_vocabulary_size(split):
    # P(w | d) = 1 / V for every token whatever theta is, so the perplexity is exactly V
    model = FixedTopicModel(np.ones((3, 40)))
    assert heldout_perplexity(model, split[1]) == pytest.approx(40.0, rel=1e-12)


def test_seed_fixes_the_split(batch_model, split):
    a = heldout_perplexity(batch_model, split[1], random_state=3)
    assert heldout_perplexity(batch_model, split[1], random_state=3) == a
    assert heldout_perplexity(batch_model, split[1], random_state=4) != a


@pytest.mark.parametrize("cls", [PLSA, BatchLDA, CollapsedLDA, OnlineLDA])
def test_every_model_beats_uniform_and_approaches_the_true_topics(cls, synthetic, split):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = cls(4, random_state=0, max_iter=30).fit(split[0])
    value = heldout_perplexity(model, split[1])
    truth = heldout_perplexity(FixedTopicModel(synthetic.topic_word, doc_topic_prior=0.1), split[1])
    assert 1.0 < value < 40.0
    assert value < 1.5 * truth  # pLSA folds in without a prior and overfits the most


def test_a_peer_model_is_measured_the_same_way(batch_model, split):
    from sklearn.decomposition import LatentDirichletAllocation

    peer = LatentDirichletAllocation(4, random_state=0, max_iter=20).fit(split[0])
    value = heldout_perplexity(peer, split[1])
    assert value == pytest.approx(heldout_perplexity(batch_model, split[1]), rel=0.1)
    wrapped = FixedTopicModel(peer.components_, doc_topic_prior=peer.doc_topic_prior_)
    assert heldout_perplexity(wrapped, split[1]) == pytest.approx(value, rel=0.05)


def test_documents_without_heldout_or_observed_tokens(batch_model, split):
    obs, held = split_tokens(split[1], 0.5, random_state=0)
    base = heldout_perplexity(batch_model, obs, X_heldout=held)
    # a document with observed tokens only adds nothing to the sum nor to N_heldout
    extra_obs = sp.vstack([obs, sp.csr_matrix(np.full((1, 40), 2.0))]).tocsr()
    extra_held = sp.vstack([held, sp.csr_matrix((1, 40))]).tocsr()
    assert heldout_perplexity(batch_model, extra_obs, X_heldout=extra_held) == pytest.approx(base, rel=1e-12)
    # a document with held-out tokens only is scored under the prior mean (what transform gives an empty doc)
    doc = np.zeros((1, 40))
    doc[0, [0, 5, 17]] = [3, 1, 2]
    ll = heldout_log_likelihood(batch_model, sp.csr_matrix((1, 40)), doc)
    prior_mean = batch_model.doc_topic_prior_ / batch_model.doc_topic_prior_.sum()
    phi = batch_model.topic_word_distribution()
    assert ll[0] == pytest.approx(np.sum(doc * np.log(prior_mean @ phi)), rel=1e-12)
    assert heldout_log_likelihood(batch_model, doc, sp.csr_matrix((1, 40)))[0] == 0.0


def test_perplexity_bad_input(batch_model, split):
    with pytest.raises(NotFittedError, match="not fitted"):
        heldout_perplexity(BatchLDA(4), split[1])
    with pytest.raises(ValueError, match="X_test has 39 terms .* fitted on 40"):
        heldout_perplexity(batch_model, split[1][:, :39])
    with pytest.raises(ValueError, match="no held-out token"):
        heldout_perplexity(batch_model, np.zeros((3, 40)))
    with pytest.raises(ValueError, match="non-integer counts"):
        heldout_perplexity(batch_model, split[1] * 0.5)
    with pytest.raises(TypeError, match="fitted topic model"):
        heldout_perplexity(np.ones((4, 40)), split[1])
    with pytest.raises(ValueError, match="X_observed has 2 documents but X_heldout has 3"):
        heldout_log_likelihood(batch_model, np.ones((2, 40)), np.ones((3, 40)))


# ---------------------------------------------------------------------------------- per-word bound
def test_per_word_bound_is_the_bound_per_token(batch_model, split):
    X = split[1]
    assert per_word_bound(batch_model, X) == pytest.approx(batch_model.bound(X) / X.sum(), rel=1e-12)
    X = X.astype(np.float64)  # the private steps below take the float64 counts the public ones pass them
    gamma = batch_model._infer(X)
    doc_only = batch_model._elbo(X, gamma, batch_model.components_, batch_model.doc_topic_prior_,
                                 batch_model.topic_word_prior_, doc_scale=1.0)
    doc_only -= batch_model._elbo(X[:0], gamma[:0], batch_model.components_, batch_model.doc_topic_prior_,
                                  batch_model.topic_word_prior_)  # the topic term alone
    assert per_word_bound(batch_model, X, include_topic_term=False) == pytest.approx(doc_only / X.sum(), rel=1e-10)
    # the bound of the documents is below their log-likelihood under the point estimates, and above uniform
    assert -np.log(40) < per_word_bound(batch_model, X, include_topic_term=False) < 0


def test_per_word_bound_bad_input(batch_model, split):
    plsa = PLSA(4, random_state=0, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plsa.fit(split[0])
    with pytest.raises(TypeError, match="variational LDA model .* got PLSA"):
        per_word_bound(plsa, split[1])
    with pytest.raises(ValueError, match="at least one token"):
        per_word_bound(batch_model, np.zeros((2, 40)))
    with pytest.raises(NotFittedError, match="not fitted"):
        per_word_bound(OnlineLDA(4), split[1])


@pytest.mark.parametrize("value", ["no", "False", 0, 1, None])
def test_per_word_bound_include_topic_term_must_be_a_bool(batch_model, split, value):
    with pytest.raises(TypeError, match=r"include_topic_term must be True or False, got"):
        per_word_bound(batch_model, split[1], include_topic_term=value)
    # numpy bools are bools
    assert per_word_bound(batch_model, split[1], include_topic_term=np.False_) == per_word_bound(
        batch_model, split[1], include_topic_term=False)


# ---------------------------------------------------------------------------------- traces
def test_perplexity_trace(split):
    trace = perplexity_trace(OnlineLDA(4, random_state=0, batch_size=64), split[0], split[1], checkpoints=(2, 1))
    assert trace["label"] == "OnlineLDA"
    assert trace["n_iter"] == [1, 2]
    assert len(trace["time"]) == len(trace["perplexity"]) == 2
    assert all(p > 1 for p in trace["perplexity"])
    with pytest.raises(ValueError, match="checkpoints must be positive"):
        perplexity_trace(OnlineLDA(4), split[0], split[1], checkpoints=(0,))


@pytest.mark.parametrize("checkpoints, error, message", [
    ("12", TypeError, r"checkpoints must be a sequence of positive ints \(iteration counts\), got str '12'"),
    (5, TypeError, r"checkpoints must be a sequence of positive ints .*got int 5"),
    ([1.7, 2.9], TypeError, r"checkpoints must be positive ints \(iteration counts\), got 1.7 of type float"),
    ([True], TypeError, r"checkpoints must be positive ints .*got True of type bool"),
    ([np.True_], TypeError, r"checkpoints must be positive ints .*of type bool"),
    ([], ValueError, r"checkpoints must be positive iteration counts, got \[\]"),
    ([2, -1], ValueError, r"checkpoints must be positive iteration counts, got \[2, -1\]"),
])
def test_perplexity_trace_checks_checkpoints(split, checkpoints, error, message):
    with pytest.raises(error, match=message):
        perplexity_trace(BatchLDA(2, random_state=0), split[0][:30], split[1], checkpoints=checkpoints)


def test_perplexity_trace_takes_numpy_int_checkpoints(split):
    trace = perplexity_trace(BatchLDA(2, random_state=0), split[0][:30], split[1], checkpoints=np.array([2, 1, 2]))
    assert trace["n_iter"] == [1, 2]


def test_fixed_topic_model_checks_its_input():
    with pytest.raises(ValueError, match="non-negative and finite"):
        FixedTopicModel(np.array([[1.0, -1.0]]))
    with pytest.raises(ValueError, match="2-D"):
        FixedTopicModel(np.ones(3))
    model = FixedTopicModel(np.array([[0.9, 0.1], [0.1, 0.9]]))
    np.testing.assert_allclose(model.transform(np.zeros((1, 2))), [[0.5, 0.5]])
    with pytest.raises(ValueError, match="X has 3 terms"):
        model.transform(np.ones((1, 3)))
