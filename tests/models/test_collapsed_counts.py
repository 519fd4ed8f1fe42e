"""CollapsedLDA with storage="counts" (issue #22): no per-cell responsibilities, the same answers.

The sweep kernel is tested against its NumPy reference in tests/kernels/test_cvb0_counts.py; here the
fit: memory, thread-count independence, checkpoints, moves, priors, guided topics, and the quality of
the optimum against the stored-responsibility CVB0.
"""

import logging
import re
import tracemalloc
import warnings

import numpy as np
import pytest

from topicvb import CollapsedLDA
from topicvb.datasets import make_lda_corpus
from topicvb.exceptions import DeadTopicWarning

from collapsed_helpers import fit_counts, lda_corpus, recovery, resume_counts


@pytest.fixture(scope="module")
def corpus():
    return lda_corpus()


def _fit(X, **params):
    return fit_counts(X, **params)


def test_recovers_the_topics_of_an_lda_corpus_as_the_stored_sweeps_do(corpus):
    X, topic_word = corpus
    counts = _fit(X)
    stored = _fit(X, storage="responsibilities")
    assert recovery(topic_word, counts.topic_word_distribution()) > 0.995
    # the same optimum up to the schemes' different paths: held-out-free check on the training objective
    assert abs(counts.score(X) - stored.score(X)) < 2e-3
    assert np.all(np.isfinite(counts.bound_history_)) and counts.n_iter_ > 1


def test_no_array_of_the_size_of_the_responsibilities_is_made(corpus):
    """tracemalloc sees every NumPy allocation: the stored sweeps hold n_nonzero x K floats; the counts
    sweeps must peak far below that (their state is D x K and V x K)."""
    X, _ = corpus
    K = 100
    cells = X.nnz * K * 8
    peaks = {}
    for storage in ("responsibilities", "counts"):
        _fit(X[:50], n_components=K, storage=storage, max_iter=2)  # compile / load the kernels first
        tracemalloc.start()
        _fit(X, n_components=K, storage=storage, max_iter=3, tol=0, moves=False)
        peaks[storage] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peaks["responsibilities"] > cells
    assert peaks["counts"] < 0.35 * cells


@pytest.mark.parametrize("params", [{}, {"learn_priors": True}, {"variant": "cvb"}, {"dtype": "float32"}],
                         ids=["cvb0", "learned", "cvb", "float32"])
def test_results_do_not_depend_on_n_jobs(corpus, params):
    X, _ = corpus
    one = _fit(X, n_jobs=1, max_iter=15, tol=0, **params)
    two = _fit(X, n_jobs=2, max_iter=15, tol=0, **params)
    np.testing.assert_array_equal(one.components_, two.components_)
    np.testing.assert_array_equal(one.bound_history_, two.bound_history_)
    np.testing.assert_array_equal(one.doc_topic_prior_, two.doc_topic_prior_)


@pytest.mark.parametrize("params", [{}, {"learn_priors": True}, {"variant": "cvb", "learn_priors": True}],
                         ids=["cvb0", "learned", "cvb-learned"])
def test_an_interrupted_fit_resumes_exactly(corpus, params, tmp_path):
    X, _ = corpus
    straight = _fit(X, max_iter=25, tol=0, **params)
    path = tmp_path / "ck.npz"
    _fit(X, max_iter=12, tol=0, checkpoint_path=path, **params)
    with np.load(path) as saved:
        assert saved["gamma"].shape == (0, 10)  # the counts are the state
    resumed = resume_counts(X, path, max_iter=25, tol=0, **params)
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)


def test_the_counts_stay_consistent_with_the_corpus(corpus):
    X, _ = corpus
    m = _fit(X, max_iter=10, tol=0)
    n_wk = m.components_ - m.topic_word_prior_
    np.testing.assert_allclose(n_wk.sum(axis=0), np.asarray(X.sum(axis=0)).ravel(), rtol=1e-9)
    assert n_wk.min() > -1e-9


MOVE_LINE = re.compile(r"move (accepted|rejected) .*: objective (\S+) after (\d+) sweeps vs (\S+) reachable")


def test_a_move_separates_a_merged_pair(caplog):
    """The corpus and start where the plain fit settles with two true topics in one fitted topic
    (tests/models/test_moves.py's seed 2): a count-space proposal splits it and is accepted."""
    corpus, topic_word, _ = make_lda_corpus(600, 300, 8, doc_length=60, random_state=2)
    X = corpus.X
    params = dict(n_components=8, init="random", tol=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeadTopicWarning)
        plain = _fit(X, moves=False, **params)
    with caplog.at_level(logging.INFO, logger="topicvb.models.collapsed_lda"):
        moved = _fit(X, **params)
    assert recovery(topic_word, plain.topic_word_distribution()) < 0.96
    assert recovery(topic_word, moved.topic_word_distribution()) > 0.995
    accepted = [m for m in map(MOVE_LINE.search, caplog.messages) if m and m.group(1) == "accepted"]
    assert accepted and all(float(m.group(2)) > float(m.group(4)) for m in accepted)
    np.testing.assert_array_equal(moved.bound_history_[:plain.n_iter_], plain.bound_history_)
    assert moved.bound_history_[-1] > plain.bound_history_[-1]


def test_a_matrix_prior_excludes_and_a_constant_matrix_is_the_scalar(corpus):
    X, _ = corpus
    V = X.shape[1]
    scalar = _fit(X, max_iter=10, tol=0, topic_word_prior=0.05)
    constant = _fit(X, max_iter=10, tol=0, topic_word_prior=np.full((10, V), 0.05))
    np.testing.assert_allclose(constant.components_, scalar.components_, rtol=1e-9, atol=1e-9)
    eta = np.full((10, V), 0.05)
    eta[3, :40] = 0.0  # terms 0-39 excluded from topic 3
    guided = _fit(X, max_iter=10, tol=0, topic_word_prior=eta)
    assert np.all(guided.components_[3, :40] == 0.0)
    assert np.all(guided.topic_word_distribution()[3, :40] == 0.0)


def test_learned_priors_move_and_stay_finite(corpus):
    X, _ = corpus
    m = _fit(X, learn_priors=True)
    assert np.all(np.isfinite(m.doc_topic_prior_)) and np.isfinite(m.topic_word_prior_)
    assert not np.allclose(m.doc_topic_prior_, 0.1)


def test_storage_must_be_a_known_value(corpus):
    X, _ = corpus
    with pytest.raises(ValueError, match=r"storage must be one of \{.auto., .counts., .responsibilities.\}, got .cells."):
        CollapsedLDA(3, storage="cells").fit(X)


@pytest.mark.parametrize("init", ["seeded", "random"])
@pytest.mark.parametrize("matrix", [False, True], ids=["scalar", "matrix"])
def test_the_start_counts_are_those_of_the_start_responsibilities(corpus, init, matrix):
    """The counts-only start (no n_nonzero x K array) sums exactly what the stored start holds."""
    from topicvb.models._collapsed_start import start_counts, start_responsibilities

    X, _ = corpus
    K, V = 10, X.shape[1]
    eta = 0.1
    if matrix:
        eta = np.full((K, V), 0.1)
        eta[0, :5] = 4.0  # a seeded topic
        eta[2, 5:9] = 0.0  # excluded pairs
    gamma = start_responsibilities(X, np.random.RandomState(3), K, np.float64, init, eta)
    n_dk, n_wk, v_dk, v_wk = start_counts(X, np.random.RandomState(3), K, np.float64, init, eta, True)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    weighted = X.data[:, None] * gamma
    want_dk, want_wk = np.zeros_like(n_dk), np.zeros_like(n_wk)
    np.add.at(want_dk, rows, weighted)
    np.add.at(want_wk, X.indices, weighted)
    np.testing.assert_allclose(n_dk, want_dk, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(n_wk, want_wk, rtol=1e-10, atol=1e-10)
    spread = X.data[:, None] * gamma * (1 - gamma)
    want_vdk = np.zeros_like(v_dk)
    np.add.at(want_vdk, rows, spread)
    np.testing.assert_allclose(v_dk, want_vdk, rtol=1e-10, atol=1e-10)
    if matrix:
        assert np.all(n_wk[5:9, 2] == 0.0)


def test_auto_storage_stores_responsibilities_below_the_limit_and_counts_above(corpus, monkeypatch, caplog):
    """storage="auto" is "responsibilities" while n_nonzero x K x itemsize <= AUTO_STORAGE_LIMIT, else
    "counts": the same fits as the explicit settings, and the choice is logged."""
    from topicvb.models import collapsed_lda

    X, _ = corpus
    X = X[:300]
    kw = dict(max_iter=8, tol=0, moves=False)
    need = X.nnz * 10 * 8
    with caplog.at_level(logging.INFO, logger="topicvb"):
        below = _fit(X, storage="auto", **kw)
    assert "chose 'responsibilities'" in caplog.text
    np.testing.assert_array_equal(below.components_, _fit(X, storage="responsibilities", **kw).components_)
    monkeypatch.setattr(collapsed_lda, "AUTO_STORAGE_LIMIT", need - 1)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="topicvb"):
        above = _fit(X, storage="auto", **kw)
    assert "chose 'counts'" in caplog.text
    np.testing.assert_array_equal(above.components_, _fit(X, storage="counts", **kw).components_)
    assert not np.array_equal(above.components_, below.components_)
    # float32 halves the need: the same matrix fits under a limit between the two
    monkeypatch.setattr(collapsed_lda, "AUTO_STORAGE_LIMIT", need // 2)
    assert CollapsedLDA(10, dtype="float32")._resolve_storage(X) == "responsibilities"
    assert CollapsedLDA(10)._resolve_storage(X) == "counts"


@pytest.mark.parametrize("learn, expected", [(False, (1, 1.0)), (True, (2, 0.65))])
def test_the_rebuild_is_damped_when_priors_are_learned(corpus, monkeypatch, learn, expected):
    """Learned priors: two rebuild steps moving 0.65 of the way (the undamped step's error fed the learned
    eta); fixed priors: one undamped step (measured better there; see CountSweeps)."""
    from topicvb.models import _collapsed_sweeps

    seen = []
    real = _collapsed_sweeps.counts_sweep

    def spy(*args):
        seen.append((args[12], args[16]))  # (refine, damping)
        return real(*args)

    monkeypatch.setattr(_collapsed_sweeps, "counts_sweep", spy)
    _fit(corpus[0][:200], learn_priors=learn, max_iter=3, tol=0, moves=False)
    assert seen and set(seen) == {expected}


def test_counts_storage_refuses_totals_its_fixed_point_sums_cannot_hold():
    # (before, a corpus of 3e17 tokens in all gave a positive "log-likelihood" and then NaN, silently: the int64
    # fixed-point sums overflowed)
    X = make_lda_corpus(30, 20, 3, random_state=0).corpus.X.astype(np.float64)
    big = X * (2.0 ** 53 / X.sum())
    model = CollapsedLDA(3, storage="counts", moves=False, max_iter=3, random_state=0)
    with pytest.raises(ValueError, match=r"storage='counts' keeps the counts as 64-bit fixed-point sums, for at most "
                                         r"2\*\*52 .*Use storage='responsibilities' or rescale X"):
        model.fit(big)
    assert not hasattr(model, "components_")
    ok = CollapsedLDA(3, storage="responsibilities", moves=False, max_iter=3, random_state=0).fit(big)
    assert np.all(np.isfinite(ok.bound_history_))
