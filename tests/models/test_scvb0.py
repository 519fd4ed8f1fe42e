"""StochasticCollapsedLDA (SCVB0): its seeded start, and the batch steps with moves that end a fit
(stochastic_cvb0._Polish): a batch step is the stochastic update with the whole corpus as the batch
and step size 1, a merged pair left by the stochastic passes is separated by an accepted move, and
an accepted move raises the objective above what the unmoved steps reached."""

import logging
import re
import warnings

import numpy as np
import pytest
from sklearn.utils import check_random_state

from topicvb import make_lda_corpus
from topicvb.exceptions import DeadTopicWarning
from topicvb.models import StochasticCollapsedLDA
from topicvb.models.stochastic_cvb0 import _Polish

LOGGER = "topicvb.models.stochastic_cvb0"
MOVE_LINE = re.compile(r"move (accepted|rejected) .*: objective (\S+) after (\d+) sweeps vs (\S+) reachable")


def recovery(true_topics, topic_word):
    """Mean over the true topics of the cosine similarity to the best-matching fitted topic."""
    t = true_topics / np.linalg.norm(true_topics, axis=1, keepdims=True)
    f = topic_word / np.linalg.norm(topic_word, axis=1, keepdims=True)
    return float((t @ f.T).max(axis=1).mean())


def _corpus(seed):
    corpus, topic_word, _ = make_lda_corpus(600, 300, 8, doc_length=60, random_state=seed)
    return corpus.X, topic_word


def test_a_batch_step_is_the_stochastic_update_of_the_whole_corpus_with_step_one():
    X, _ = _corpus(0)
    X = X.astype(np.float64)  # the counts as fit passes them to these steps (int64 data compiled other kernels)
    model = StochasticCollapsedLDA(8, batch_size=64, random_state=0)
    rng = check_random_state(0)
    total = float(X.sum())
    state = model._init_state(X, rng, total)
    start = state["components_"].copy()
    polish = _Polish(model, X, rng, {**state, "components_": start.copy()}, 1.0)
    eta = state["topic_word_prior_"]
    value, following, n_theta = polish.step(np.ascontiguousarray((start - eta).T))
    # the stochastic update of one batch holding every document, with rho_1 = (0 + 1) ** -kappa = 1
    whole = StochasticCollapsedLDA(8, batch_size=X.shape[0], learning_offset=0.0, random_state=0)
    state["components_"] = start.copy()
    values = whole._run_batches(X, np.arange(X.shape[0]), state)
    np.testing.assert_allclose(value / total, values[0], rtol=1e-10)
    np.testing.assert_allclose(following.T + eta, state["components_"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(n_theta.sum(axis=1), np.asarray(X.sum(axis=1)).ravel(), rtol=1e-9)


@pytest.mark.parametrize("seed", [2, 3])
def test_the_batch_moves_separate_a_merged_pair(seed, caplog):
    # corpora where the stochastic passes alone (moves=False) end with two true topics in one fitted topic
    X, topic_word = _corpus(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeadTopicWarning)
        plain = StochasticCollapsedLDA(8, batch_size=100, moves=False, random_state=0).fit(X)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        moved = StochasticCollapsedLDA(8, batch_size=100, random_state=0).fit(X)
    assert recovery(topic_word, plain.topic_word_distribution()) < 0.95
    assert recovery(topic_word, moved.topic_word_distribution()) > 0.995
    accepted = [m for m in map(MOVE_LINE.search, caplog.messages) if m and m.group(1) == "accepted"]
    assert accepted
    assert moved.n_iter_ <= moved.max_iter
    history = moved.bound_history_ * X.sum()  # per token -> the steps' objectives
    for m in accepted:
        value, reach, n_trial = float(m.group(2)), float(m.group(4)), int(m.group(3))
        assert n_trial == 5 and value > reach
        # the accepted trial's last objective is on the path, above every batch step's value before the move
        at = int(np.argmin(np.abs(history - value)))
        assert abs(history[at] - value) <= 1e-8 * abs(value)
        assert history[at] > history[:at + 1 - n_trial].max()
    np.testing.assert_allclose(moved.transform(X[:5]).sum(axis=1), 1.0)


def test_the_moves_end_with_the_batch_steps_only_in_fit():
    X, _ = _corpus(2)
    model = StochasticCollapsedLDA(8, batch_size=100, random_state=0).partial_fit(X)
    assert model.n_batch_iter_ == 6 and model.bound_history_.shape == (6,)


@pytest.mark.parametrize("init", ["seeded", "random"])
def test_both_starts_fit_and_are_reproducible(init):
    X, topic_word = _corpus(0)
    first = StochasticCollapsedLDA(8, batch_size=100, init=init, max_iter=8, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first.fit(X)
        again = StochasticCollapsedLDA(8, batch_size=100, init=init, max_iter=8, random_state=0).fit(X)
    np.testing.assert_array_equal(first.components_, again.components_)
    # the expected counts of the stochastic passes carry the corpus's tokens from the start (a re-seed
    # drops a dead topic's few tokens, hence moves=False)
    plain = StochasticCollapsedLDA(8, batch_size=100, init=init, max_iter=3, moves=False, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain.fit(X)
    np.testing.assert_allclose((plain.components_ - plain.topic_word_prior_).sum(), X.sum(), rtol=1e-9)


def test_the_seeded_start_is_better_than_the_random_one_after_one_pass():
    X, _ = _corpus(3)
    bounds = {init: StochasticCollapsedLDA(8, batch_size=100, init=init, max_iter=1, moves=False,
                                           random_state=0).fit(X).bound_history_ for init in ("seeded", "random")}
    assert bounds["seeded"].mean() > bounds["random"].mean()


def test_init_must_be_a_known_start():
    X, _ = _corpus(0)
    with pytest.raises(ValueError, match="init"):
        StochasticCollapsedLDA(3, init="kmeans").fit(X)
