"""Guided topics, HDP and model selection: what a hunt for wrong answers found (session 18).

Each test pins one fix and fails on the code before it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from topicvb import CollapsedLDA, OnlineLDA, StochasticCollapsedLDA, seed_topic_prior
from topicvb.datasets import make_lda_corpus

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning",
                                        "ignore::topicvb.exceptions.DeadTopicWarning")


@pytest.fixture(scope="module")
def lda():
    corpus = make_lda_corpus(200, 30, 3, doc_length=50, random_state=0).corpus
    return corpus.X, list(corpus.vocabulary)


@pytest.mark.parametrize("cls", [OnlineLDA, StochasticCollapsedLDA])
def test_a_prior_set_between_partial_fit_calls_is_refused_not_half_used(lda, cls):
    """A SeededPrior set after the first partial_fit named topic 0 "space" while nothing seeded it (the stream went
    on with the first call's prior), and taking the seeds away renamed the topics while the seeds stayed."""
    X, vocab = lda
    prior = seed_topic_prior(vocab, {"space": [vocab[2], vocab[5]]}, 3)
    model = cls(3, random_state=0).partial_fit(X[:100])
    before = model.components_.copy()
    model.set_params(topic_word_prior=prior)
    with pytest.raises(ValueError, match=rf"{cls.__name__}.partial_fit: topic_word_prior differs from the value the "
                                         r"fit started with; .*own priors \(topic_word_prior_\), so set "
                                         r"topic_word_prior back"):
        model.partial_fit(X[100:])
    np.testing.assert_array_equal(model.components_, before)  # nothing changed
    model.set_params(topic_word_prior=None).partial_fit(X[100:])  # set back: goes on
    seeded = cls(3, topic_word_prior=prior, random_state=0).partial_fit(X[:100])
    seeded.set_params(topic_word_prior=None)
    with pytest.raises(ValueError, match="topic_word_prior differs"):
        seeded.partial_fit(X[100:])
    seeded.set_params(topic_word_prior=prior).partial_fit(X[100:])  # the same prior: goes on, labels kept
    assert list(seeded.topic_labels_) == ["space", "topic_1", "topic_2"]
    scalar = cls(3, topic_word_prior=0.05, doc_topic_prior=0.2, random_state=0).partial_fit(X[:100])
    scalar.set_params(doc_topic_prior=0.5)
    with pytest.raises(ValueError, match=r"doc_topic_prior differs .*\(doc_topic_prior_\)"):
        scalar.partial_fit(X[100:])
    scalar.set_params(doc_topic_prior=0.5, topic_word_prior=0.1)
    with pytest.raises(ValueError, match=r"doc_topic_prior and topic_word_prior differ from the values the fit "
                                         r"started with"):
        scalar.partial_fit(X[100:])


def test_a_prior_given_again_as_another_container_of_the_same_numbers_goes_on(lda):
    """(A review: a list prior set again as an equal array was refused.)"""
    X, _ = lda
    model = OnlineLDA(3, doc_topic_prior=[0.1, 0.2, 0.3], random_state=0).partial_fit(X[:100])
    model.set_params(doc_topic_prior=np.array([0.1, 0.2, 0.3])).partial_fit(X[100:150])
    model.set_params(doc_topic_prior=(0.1, 0.2, 0.3)).partial_fit(X[150:])
    model.set_params(doc_topic_prior=[0.1, 0.2, 0.4])
    with pytest.raises(ValueError, match="doc_topic_prior differs"):
        model.partial_fit(X[:10])


def test_a_learned_prior_may_move_and_be_frozen_between_partial_fit_calls(lda):
    """(A review: the first version of the check compared the parameter with the fitted prior, and refused a stream
    whose learned priors were frozen by set_params(learn_priors=False).)"""
    X, _ = lda
    model = OnlineLDA(3, learn_priors=True, batch_size=20, random_state=0).partial_fit(X[:100])
    assert not np.allclose(model.doc_topic_prior_, 1 / 3)  # learned: no longer its parameter
    model.partial_fit(X[100:120])  # not refused
    model.set_params(learn_priors=False).partial_fit(X[120:])  # frozen: goes on with the learned priors
    fitted = OnlineLDA(3, learn_priors=True, random_state=0, max_iter=3).fit(X[:100])
    fitted.set_params(learn_priors=False).partial_fit(X[100:])


def test_a_seeded_prior_over_another_column_order_than_a_dataframe_is_refused():
    """The prior raised the columns of "the" and "and" for the seeds nasa, orbit: X's columns were in another order."""
    pd = pytest.importorskip("pandas")
    vocab = ["nasa", "orbit", "puck", "goal", "the", "and"]
    counts = np.random.RandomState(0).poisson(3, size=(50, 6))
    reordered = pd.DataFrame(counts, columns=vocab)[["the", "and", "puck", "goal", "nasa", "orbit"]]
    prior = seed_topic_prior(vocab, {"space": ["nasa", "orbit"]}, 2)
    with pytest.raises(ValueError, match=r"CollapsedLDA.fit: the seed words of topic 'space' \(nasa, orbit\) are not "
                                         r"X's columns of those names: the prior raises the columns named the, and"):
        CollapsedLDA(2, topic_word_prior=prior, random_state=0, max_iter=5).fit(reordered)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        CollapsedLDA(2, topic_word_prior=prior, random_state=0, max_iter=5).fit(pd.DataFrame(counts, columns=vocab))
        # names that are not the seed words say nothing about the order: the prior is used by position
        CollapsedLDA(2, topic_word_prior=prior, random_state=0, max_iter=5).fit(
            pd.DataFrame(counts, columns=[f"c{j}" for j in range(6)]))


def test_hdp_all_components_follow_the_refit_topics_row_for_row():
    """After the refit of the kept topics, components_ was re-sorted by the new sizes but all_components_,
    topic_weights_ and topic_shares_ kept the order before it: row k of them described another topic."""
    from topicvb import HDP

    corpus = make_lda_corpus(300, 150, 10, doc_length=40, random_state=0).corpus
    model = HDP(max_components=25, random_state=0, tol=1e-4, min_topic_share=0.02).fit(corpus.X)
    K = model.n_components_
    assert K < 25 and model.refit_sweeps_ > 0

    def unit(m):
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    refit = unit(model.components_ - model.topic_word_prior_)
    before = unit(model.all_components_[:K] - model.topic_word_prior_)
    similarity = refit @ before.T
    np.testing.assert_array_equal(similarity.argmax(axis=1), np.arange(K))
    assert np.all(np.diag(similarity) > 0.9)
    # the shares are those of all_components_'s rows: its own expected tokens, less eta, over all topics'
    tokens = np.maximum(model.all_components_ - model.topic_word_prior_, 0).sum(axis=1)
    np.testing.assert_allclose(model.topic_shares_, tokens / tokens.sum(), rtol=1e-6)
    assert np.all(np.diff(model.topic_shares_) <= 0)  # by decreasing size


# ---------------------------------------------------------------- select_n_topics
@pytest.fixture(scope="module")
def small():
    return make_lda_corpus(120, 40, 3, doc_length=30, random_state=0).corpus.X


def _table(result):
    return {row["n_topics"]: (round(row["perplexity"], 9), round(row["bound"], 6)) for row in result.to_dict()["table"]}


def test_select_n_topics_with_a_random_state_instance_does_not_depend_on_the_candidates_order(small):
    """One RandomState was shared by every model and the split: each K's numbers depended on the K before it."""
    from topicvb.evaluation import select_n_topics

    ab = select_n_topics(small, [2, 4], model="batch", random_state=np.random.RandomState(0), max_iter=10)
    ba = select_n_topics(small, [4, 2], model="batch", random_state=np.random.RandomState(0), max_iter=10)
    assert _table(ab) == _table(ba)
    with pytest.raises(TypeError, match="random_state must be an int, a numpy.random.RandomState or Generator, or None, got str"):
        select_n_topics(small, [2], model="batch", random_state="a")


def test_select_n_topics_without_held_out_tokens_fails_before_any_fit(small, monkeypatch):
    """An X_test of one token (or held-out documents without any) failed after the first fit, naming X_test and
    observed_fraction, which the command line's select-k does not have; the default criterion falls back."""
    from topicvb.evaluation import selection

    def no_fit(*args, **kwargs):
        raise AssertionError("a model was fitted")

    monkeypatch.setattr(selection, "fit_quietly", no_fit)
    one_token = np.zeros((2, small.shape[1]))
    one_token[0, 3] = 1.0
    for X_test in (np.zeros((2, small.shape[1])), one_token):
        with pytest.raises(ValueError, match=r"select_n_topics: X_test leaves no token to score once each document's "
                                             r"tokens are split .*pass more or longer test documents\."):
            selection.select_n_topics(small, [2, 3], model="batch", criterion="heldout", X_test=X_test)
    order = np.random.RandomState(7).permutation(120)  # the split of random_state=7: hold out 24 documents
    X = small.copy().tolil()
    for i in order[:24]:
        X[i, :] = 0
    with pytest.raises(ValueError, match=r"the 24 document\(s\) held out of X \(test_size=0.2, random_state=7\) leave "
                                         r"no token .* a larger test_size or another random_state\."):
        selection.select_n_topics(X.tocsr(), [2, 3], model="batch", criterion="heldout", random_state=7)


def test_select_n_topics_refuses_a_seeded_prior_before_any_fit(small):
    from topicvb.evaluation import select_n_topics

    prior = seed_topic_prior([f"w{j}" for j in range(small.shape[1])], {"a": ["w1"]}, 3)
    for topic_word_prior in (prior, prior.matrix):
        with pytest.raises(ValueError, match=r"select_n_topics varies n_components, but the model's topic_word_prior "
                                             r"is a matrix for 3 topics"):
            select_n_topics(small, [3, 4], model="batch", topic_word_prior=topic_word_prior, max_iter=5)


def test_seed_topic_prior_base_prior_of_another_type_is_a_type_error():
    """base_prior="1" was a ValueError about "a 1-D vector", which the docs do not offer (they say TypeError)."""
    for bad in ("1", [0.1, 0.2], True):
        with pytest.raises(TypeError, match="base_prior must be one positive number .* or None"):
            seed_topic_prior(["a", "b"], {"x": ["a"]}, 2, base_prior=bad)
    with pytest.raises(ValueError, match="base_prior must be a positive finite number"):
        seed_topic_prior(["a", "b"], {"x": ["a"]}, 2, base_prior=-1.0)
