"""Moves that leave poor optima (topicvb.models._moves, CollapsedLDA(moves=True)): each piece against a
slow NumPy reference, a merged pair that a move separates, a dead topic that a birth revives, and the
objective never lowered by an accepted move."""

import logging
import re
import warnings

import numpy as np
import pytest

from topicvb import make_lda_corpus
from topicvb._validation import csr_arrays
from topicvb.exceptions import DeadTopicWarning
from topicvb.models import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA
from topicvb.models._moves import (LATE_MOVES, Cells, count_proposal, free_slot, merge_cost, propose, propose_counts, slots_to_free, topic_shares,
                                   two_topic_gain)


def recovery(true_topics, topic_word):
    """Mean over the true topics of the cosine similarity to the best-matching fitted topic."""
    t = true_topics / np.linalg.norm(true_topics, axis=1, keepdims=True)
    f = topic_word / np.linalg.norm(topic_word, axis=1, keepdims=True)
    return float((t @ f.T).max(axis=1).mean())


def true_responsibilities(X, topic_word, doc_topic):
    """q(z_dw = k) proportional to theta_dk beta_kw for every non-zero cell, from the true parameters."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    g = doc_topic[rows] * topic_word[:, X.indices].T
    return g / g.sum(axis=1, keepdims=True)


def term_topic_counts(X, gamma):
    return np.stack([np.bincount(X.indices, weights=X.data * gamma[:, k], minlength=X.shape[1])
                     for k in range(gamma.shape[1])], axis=1)


@pytest.fixture(scope="module")
def four_topics():
    corpus, topic_word, doc_topic = make_lda_corpus(400, 200, 4, doc_length=60, separated=True, random_state=0)
    X = corpus.X.tocsr().astype(np.float64)
    return X, topic_word, doc_topic, true_responsibilities(X, topic_word, doc_topic)


# --------------------------------------------------------------------------- pieces against references
def test_two_topic_gain_matches_a_slow_reference():
    rng = np.random.default_rng(0)
    n_docs, n_terms, n_cells = 6, 9, 30
    rows = np.sort(rng.integers(0, n_docs, n_cells))
    rows[:n_docs] = np.arange(n_docs)
    rows.sort()
    terms = rng.integers(0, n_terms, n_cells).astype(np.int32)
    weight = rng.uniform(0.1, 3.0, n_cells)
    first = rng.uniform(0, 1, n_cells)
    alpha, eta = 0.3, 0.05
    got = two_topic_gain(rows, terms, weight, first, n_terms, alpha, eta)

    n_dk = np.zeros((n_docs, 2))
    n_wk = np.zeros((n_terms, 2))
    for p in range(n_cells):
        for k, r in enumerate((first[p], 1 - first[p])):
            n_dk[rows[p], k] += weight[p] * r
            n_wk[terms[p], k] += weight[p] * r
    total = weight.sum()
    expected = 0.0
    for p in range(n_cells):
        d, w = rows[p], terms[p]
        mixture = sum((n_dk[d, k] + alpha) / (n_dk[d].sum() + 2 * alpha)
                      * (n_wk[w, k] + eta) / (n_wk[:, k].sum() + n_terms * eta) for k in (0, 1))
        single = (n_wk[w].sum() + eta) / (total + n_terms * eta)
        expected += weight[p] * (np.log(mixture) - np.log(single))
    assert got == pytest.approx(expected, rel=1e-12)


def test_free_slot_merges_or_deletes_and_keeps_rows_normalised():
    rng = np.random.default_rng(1)
    gamma = rng.dirichlet(np.ones(4), size=20)
    gamma[0] = [0, 1, 0, 0]  # a cell wholly on the deleted topic
    merged = gamma.copy()
    free_slot(merged, 1, 3)
    np.testing.assert_allclose(merged[:, 3], gamma[:, 3] + gamma[:, 1])
    assert np.all(merged[:, 1] == 0)
    np.testing.assert_allclose(merged[:, [0, 2]], gamma[:, [0, 2]])
    deleted = gamma.copy()
    free_slot(deleted, 1, -1)
    assert np.all(deleted[:, 1] == 0)
    np.testing.assert_allclose(deleted.sum(axis=1), 1.0)
    np.testing.assert_allclose(deleted[0, [0, 2, 3]], 1 / 3)  # no mass left elsewhere: shared uniformly
    rest = gamma[1:, [0, 2, 3]]
    np.testing.assert_allclose(deleted[1:, [0, 2, 3]], rest / rest.sum(axis=1, keepdims=True))


def test_merge_cost_is_what_one_topic_loses_against_two(four_topics):
    X, topic_word, doc_topic, gamma = four_topics
    cells = Cells(*csr_arrays(X))
    distinct = merge_cost(cells, gamma[:, 0], gamma[:, 1], X.shape[1], 0.25, 0.25)
    # a topic cut into two identical halves: merging the halves loses nothing (it even gains a little:
    # two smoothed halves fit worse than one smoothed topic)
    halves = np.column_stack([gamma[:, 0] / 2, gamma[:, 0] / 2, gamma[:, 1:]])
    duplicate = merge_cost(cells, halves[:, 0], halves[:, 1], X.shape[1], 0.2, 0.25)
    assert distinct > 1000 and -0.01 * distinct < duplicate <= 0


# --------------------------------------------------------------------------- the moves on a known state
def test_a_move_separates_a_merged_pair(four_topics):
    X, topic_word, doc_topic, gamma = four_topics
    # a poor optimum: true topics 0 and 1 merged in column 0; true topic 2 cut in two (columns 1, 2)
    poor = np.column_stack([gamma[:, 0] + gamma[:, 1], gamma[:, 2] / 2, gamma[:, 2] / 2, gamma[:, 3]])
    before = recovery(topic_word, term_topic_counts(X, poor).T)
    cells = Cells(*csr_arrays(X))
    alpha, eta = np.full(4, 0.25), 0.25
    slots = slots_to_free(cells, lambda k: poor[:, k], topic_shares(poor, X.data), term_topic_counts(X, poor),
                          X.shape[1], alpha, eta, 0.2)
    cost, slot, into = slots[0]
    assert {slot, into} == {1, 2}  # the cheapest slot: the duplicate halves
    moved, target, gain = propose(cells, poor, X.shape[1], alpha, eta, slot, into, np.random.default_rng(0))
    assert target == 0 and gain > 100 * max(cost, 1.0)  # the merged pair is split, and it pays
    np.testing.assert_allclose(moved.sum(axis=1), 1.0)
    after = recovery(topic_word, term_topic_counts(X, moved).T)
    assert before < 0.95 and after > 0.99


def test_a_birth_revives_a_dead_topic(four_topics):
    X, topic_word, doc_topic, gamma = four_topics
    poor = np.column_stack([gamma[:, 0] + gamma[:, 1], np.full(X.nnz, 1e-9), gamma[:, 2], gamma[:, 3]])
    poor /= poor.sum(axis=1, keepdims=True)
    cells = Cells(*csr_arrays(X))
    alpha, eta = np.full(4, 0.25), 0.25
    cost, slot, into = slots_to_free(cells, lambda k: poor[:, k], topic_shares(poor, X.data),
                                     term_topic_counts(X, poor), X.shape[1], alpha, eta, 0.2)[0]
    assert (cost, slot, into) == (0.0, 1, -1)  # a dead topic is the first, free, slot
    moved, target, gain = propose(cells, poor, X.shape[1], alpha, eta, slot, into, np.random.default_rng(0))
    share = (X.data @ moved) / X.data.sum()
    assert target == 0 and share[1] > 0.2 / 4 and share[1] > 0.15
    assert recovery(topic_word, term_topic_counts(X, moved).T) > 0.99


def test_dead_only_proposals_free_dead_topics_and_never_merge(four_topics):
    # the stochastic fits' re-seeding has no objective to judge a merge by: with dead_only a state whose
    # cheapest slot is a merge gets no proposal, and one with a dead topic gets the dead topic's
    X, topic_word, doc_topic, gamma = four_topics
    cells = Cells(*csr_arrays(X))
    alpha, eta = np.full(4, 0.25), 0.25
    log = logging.getLogger("test")

    def propose_for(resp):
        column = lambda k: resp[:, k]  # noqa: E731
        n_dk = np.stack([np.bincount(cells.rows, weights=X.data * resp[:, k], minlength=X.shape[0])
                         for k in range(4)], axis=1)
        return count_proposal(cells, column, n_dk, term_topic_counts(X, resp), alpha, eta, 0, 0.2,
                              np.random.default_rng(0), log, "test", dead_only=True)

    duplicated = np.column_stack([gamma[:, 0] + gamma[:, 1], gamma[:, 2] / 2, gamma[:, 2] / 2, gamma[:, 3]])
    assert propose_for(duplicated) is None
    dead = np.column_stack([gamma[:, 0] + gamma[:, 1], np.full(X.nnz, 1e-9), gamma[:, 2], gamma[:, 3]])
    dead /= dead.sum(axis=1, keepdims=True)
    found = propose_for(dead)
    assert found is not None and "dead topic 1 deleted" in found[2]


# --------------------------------------------------------------------------- the fits
def _corpus(seed):
    corpus, topic_word, _ = make_lda_corpus(600, 300, 8, doc_length=60, random_state=seed)
    return corpus.X, topic_word


MOVE_LINE = re.compile(r"move (accepted|rejected) .*: objective (\S+) after (\d+) sweeps vs (\S+) reachable")
LOGGERS = {CollapsedLDA: "topicvb.models.collapsed_lda", PLSA: "topicvb.models.plsa", BatchLDA: "topicvb.models.batch_lda"}


def _model(cls, **params):
    """The estimator of these tests: 8 topics, seed 0; CollapsedLDA from its random start and with the
    earlier tol=1e-4 (its seeded start, or its default tol of 1e-5, gets these corpora right without
    moves: the moves are tested from the poor optima where a shorter fit from the random start stops)."""
    start = {"init": "random", "tol": 1e-4} if cls is CollapsedLDA else {}
    return cls(8, random_state=0, **{**start, **params})


# (estimator, corpus seed) where the plain fit settles with two true topics in one fitted topic
STUCK = [(CollapsedLDA, 2), (CollapsedLDA, 8), (PLSA, 6), (BatchLDA, 2), (BatchLDA, 7)]


@pytest.mark.parametrize("cls, seed", STUCK, ids=[f"{c.__name__}-{s}" for c, s in STUCK])
def test_a_fit_leaves_a_merged_pair_and_an_accepted_move_raises_its_objective(cls, seed, caplog):
    X, topic_word = _corpus(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeadTopicWarning)
        plain = _model(cls, moves=False).fit(X)
    with caplog.at_level(logging.INFO, logger=LOGGERS[cls]):
        moved = _model(cls).fit(X)
    assert recovery(topic_word, plain.topic_word_distribution()) < 0.96
    assert recovery(topic_word, moved.topic_word_distribution()) > 0.995
    accepted = [m for m in map(MOVE_LINE.search, caplog.messages) if m and m.group(1) == "accepted"]
    assert accepted
    history = moved.bound_history_
    # the path is the plain fit's until it settles; the first move starts from its last objective
    np.testing.assert_array_equal(history[:plain.n_iter_], plain.bound_history_)
    in_trial = np.zeros(history.shape[0], dtype=bool)
    for m in accepted:
        value, reach, n_trial = float(m.group(2)), float(m.group(4)), int(m.group(3))
        assert value > reach
        # the accepted trial's last objective is on the path, above every value before the move
        at = int(np.argmin(np.abs(history - value)))
        assert abs(history[at] - value) <= 1e-8 * abs(value)
        assert history[at] > history[:at + 1 - n_trial].max()
        in_trial[at + 1 - n_trial:at + 1] = True
    assert moved.bound_history_[-1] > plain.bound_history_[-1]
    if cls is not CollapsedLDA:  # an exact objective: EM and batch VB never lower it between moves
        steps = np.diff(history)[~in_trial[1:]]
        assert np.all(steps >= -1e-9 * np.abs(history[1:][~in_trial[1:]]))


@pytest.mark.parametrize("cls", [CollapsedLDA, PLSA, BatchLDA])
def test_rejected_moves_restore_the_fit_exactly(cls, caplog):
    # a corpus the plain fit gets right: every proposal is priced out or rejected, and the result is the
    # plain fit's, bit for bit
    X, topic_word = _corpus(0)
    plain = _model(cls, moves=False).fit(X)
    with caplog.at_level(logging.INFO, logger=LOGGERS[cls]):
        moved = _model(cls).fit(X)
    assert any("no move" in m or "move rejected" in m for m in caplog.messages)
    np.testing.assert_array_equal(moved.components_, plain.components_)
    np.testing.assert_array_equal(moved.bound_history_, plain.bound_history_)


@pytest.mark.parametrize("cls, seed", [(CollapsedLDA, 2), (PLSA, 6), (BatchLDA, 2)], ids=["CollapsedLDA", "PLSA",
                                                                                          "BatchLDA"])
def test_a_fit_with_moves_resumes_exactly(cls, seed, tmp_path, monkeypatch):
    # the moves of a settled fit; the late ones (tried max_iter - LATE_MOVES iterations in, by a fit not
    # yet settled) would come before the stop this test places, so they are switched off here
    monkeypatch.setattr(f"{cls.__module__}.late_window", lambda it, max_iter: False)
    X, _ = _corpus(seed)
    straight = _model(cls).fit(X)
    n_plain = _model(cls, moves=False).fit(X).n_iter_
    assert straight.n_iter_ > n_plain  # a move was accepted
    ckpt = tmp_path / "ck.npz"
    # stopped where the first move would not fit in max_iter; resumed with room for it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = _model(cls, max_iter=n_plain + 1, checkpoint_path=ckpt).fit(X)
    assert first.n_iter_ == n_plain
    resumed = _model(cls, checkpoint_path=ckpt).fit(X, resume=True)
    assert resumed.n_iter_ == straight.n_iter_
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)


@pytest.mark.parametrize("cls, seed", [(CollapsedLDA, 2), (PLSA, 6), (BatchLDA, 2)], ids=["CollapsedLDA", "PLSA",
                                                                                          "BatchLDA"])
def test_a_fit_that_does_not_settle_tries_its_moves_late(cls, seed, caplog):
    # tol=0: the fit never settles, so without the late window its moves would never run; it tries them
    # LATE_MOVES iterations before max_iter, and max_iter still bounds the iterations made
    X, topic_word = _corpus(seed)
    max_iter = 60
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = _model(cls, moves=False, tol=0, max_iter=max_iter).fit(X)
        with caplog.at_level(logging.INFO, logger=LOGGERS[cls]):
            late = _model(cls, tol=0, max_iter=max_iter).fit(X)
    tried = [m for m in map(MOVE_LINE.search, caplog.messages) if m]
    assert tried and tried[0].group(1) == "accepted"
    assert late.n_iter_ == max_iter
    # the path is the plain fit's up to the late window
    start = max_iter - LATE_MOVES
    np.testing.assert_array_equal(late.bound_history_[:start], plain.bound_history_[:start])
    assert recovery(topic_word, plain.topic_word_distribution()) < 0.96
    assert recovery(topic_word, late.topic_word_distribution()) > 0.995
    assert late.bound_history_[-1] > plain.bound_history_[-1]


@pytest.mark.parametrize("cls", [CollapsedLDA, PLSA, BatchLDA])
def test_moves_must_be_a_boolean(cls):
    X, _ = _corpus(0)
    with pytest.raises(TypeError, match="moves must be"):
        cls(3, moves="yes").fit(X)


def test_the_count_space_proposal_is_the_responsibility_proposal_summed(four_topics):
    # PLSA and BatchLDA keep expected counts, not responsibilities: the same move on their counts
    X, topic_word, doc_topic, gamma = four_topics
    poor = np.column_stack([gamma[:, 0] + gamma[:, 1], gamma[:, 2] / 2, gamma[:, 2] / 2, gamma[:, 3]])
    cells = Cells(*csr_arrays(X))
    alpha, eta = np.full(4, 0.25), 0.25
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    n_dk = np.stack([np.bincount(rows, weights=X.data * poor[:, k], minlength=X.shape[0]) for k in range(4)], axis=1)
    n_wk = term_topic_counts(X, poor)
    moved, target, gain = propose(cells, poor, X.shape[1], alpha, eta, 1, 2, np.random.default_rng(0))
    d_dk, d_wk, d_target, d_gain = propose_counts(cells, lambda k: poor[:, k], n_dk, n_wk, X.shape[1], alpha, eta,
                                                  1, 2, np.random.default_rng(0))
    assert (d_target, d_gain) == (target, gain)
    np.testing.assert_allclose(d_wk, term_topic_counts(X, moved), atol=1e-9)
    np.testing.assert_allclose(d_dk, np.stack([np.bincount(rows, weights=X.data * moved[:, k], minlength=X.shape[0])
                                               for k in range(4)], axis=1), atol=1e-9)
    assert recovery(topic_word, d_wk.T) > 0.99


# --------------------------------------------------------------------------- OnlineLDA: re-seeding
def dead(model):
    """The topics with less than 0.2 / K of the expected tokens (components_ less the prior)."""
    counts = np.maximum(model.components_ - model.topic_word_prior_, 0).sum(axis=1)
    return int(np.sum(counts < 0.2 / counts.shape[0] * counts.sum()))


def _online(**params):
    return OnlineLDA(12, random_state=0, learn_priors=True, batch_size=100, **params)


def test_online_fit_reseeds_its_dead_topics(caplog):
    # 12 topics with learned priors on a corpus drawn from 8: the plain online fit leaves dead topics
    X, _ = _corpus(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeadTopicWarning)
        plain = _online(moves=False).fit(X)
    with caplog.at_level(logging.INFO, logger="topicvb.models.online_lda"):
        moved = _online().fit(X)
    assert dead(plain) >= 3 and dead(moved) == 0
    assert any("re-seeded after pass" in m for m in caplog.messages)
    assert _online(restart_every=1).fit(X).n_iter_ > 0  # no per-document gamma kept: nothing to re-seed from


@pytest.mark.parametrize("every", [4, 6])
def test_an_online_fit_that_reseeds_resumes_exactly(every, tmp_path):
    X, _ = _corpus(0)
    straight = _online().fit(X)
    ckpt = tmp_path / "ck.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the same fit, leaving its checkpoint of pass 8 or 6 (as a fit killed in the next pass would):
        # it re-seeds after passes 4, 5 and 8, so the checkpoint of pass 8 holds "reseeded" = 1, that of pass 6 0
        assert _online(checkpoint_path=ckpt, checkpoint_every=every).fit(X).n_iter_ == 10
        assert int(np.load(ckpt)["reseeded"]) == (every == 4)
        resumed = _online(checkpoint_path=ckpt).fit(X, resume=True)
    assert resumed.n_iter_ == straight.n_iter_
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)


def test_stochastic_collapsed_fit_reseeds_its_dead_topics(caplog):
    # 16 topics on a corpus drawn from 8: a plain SCVB0 fit of 10 passes leaves dead topics
    X, _ = _corpus(0)
    K = 16
    short = dict(random_state=0, batch_size=100, max_iter=10, tol=1e-3, init="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeadTopicWarning)
        plain = StochasticCollapsedLDA(K, moves=False, **short).fit(X)
    with caplog.at_level(logging.INFO, logger="topicvb.models.stochastic_cvb0"):
        moved = StochasticCollapsedLDA(K, **short).fit(X)
    assert dead(plain) >= 2 and dead(moved) == 0
    assert any("re-seeded after pass" in m for m in caplog.messages)
    np.testing.assert_allclose(moved.transform(X[:5]).sum(axis=1), 1.0)


def test_a_fit_cut_by_max_iter_after_an_accepted_move_warns():
    # (before, a CollapsedLDA fit that had settled, accepted a move and reached max_iter before settling again
    # ended silently: "ever settled" counted; HDP warns in that case since session 13)
    from sklearn.exceptions import ConvergenceWarning

    X = make_lda_corpus(300, 200, 8, random_state=3).corpus.X
    with pytest.warns(ConvergenceWarning, match=r"CollapsedLDA reached max_iter=60 while still settling after an "
                                                 r"accepted move .*pass moves=False"):
        cut = CollapsedLDA(12, random_state=3, max_iter=60).fit(X)
    assert cut.n_iter_ == 60
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        CollapsedLDA(12, random_state=3).fit(X)  # (the default max_iter: it settles, no warning)
        # (a review: cut at 51 the fit settles in its last sweep, whose objective was still pending at the cut)
        settled = CollapsedLDA(12, random_state=3, max_iter=51).fit(X)
    assert settled.n_iter_ == 51
