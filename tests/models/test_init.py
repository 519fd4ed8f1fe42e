"""The seeded start shared by PLSA, BatchLDA, OnlineLDA and CollapsedLDA (``init="seeded"``)."""

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, make_lda_corpus
from topicvb.models._start import seeded_topics as _seeded_topics


def _mean_best_cosine(true, found):
    a = true / np.linalg.norm(true, axis=1, keepdims=True)
    b = found / np.linalg.norm(found, axis=1, keepdims=True)
    return float(np.mean(np.max(a @ b.T, axis=1)))


@pytest.fixture(scope="module")
def clustered():
    # nearly one topic per document (alpha = 0.02): documents form K clusters
    return make_lda_corpus(600, 300, 6, doc_topic_prior=0.02, doc_length=60, random_state=3)


def test_collapsed_seeded_responsibilities_follow_the_seeded_topics(clustered):
    # each cell's responsibilities are the seeded topics' weights of its term, normalised (a slow reference)
    from topicvb.models._start import seeded_topics
    from topicvb.models._collapsed_start import seeded_responsibilities

    X = clustered.corpus.X.tocsr()
    gamma = seeded_responsibilities(X, np.random.RandomState(4), 6, np.float64)
    lam = seeded_topics(X, 6, np.random.RandomState(4), np.float64)
    phi = lam / lam.sum(axis=1, keepdims=True)
    expected = np.array([phi[:, w] / phi[:, w].sum() for w in X.indices])
    np.testing.assert_allclose(gamma, expected, rtol=1e-12)


def test_seeded_topics_scale_and_shape(clustered):
    X = clustered.corpus.X
    lam = _seeded_topics(X, 6, np.random.RandomState(0), np.float64)
    assert lam.shape == (6, X.shape[1]) and np.all(lam > 0)
    # K topics carrying 1/K of the corpus tokens each (up to the noise of random_start)
    np.testing.assert_allclose(lam.sum(axis=1), X.sum() / 6, rtol=0.05)


def test_lloyd_steps_move_topics_towards_the_clusters(clustered):
    """Cluster means are closer to the generating topics than single seed documents."""
    X = clustered.corpus.X
    scores = {}
    for n_refine in (0, 2):
        found = [_mean_best_cosine(clustered.topic_word,
                                   _seeded_topics(X, 6, np.random.RandomState(s), np.float64, n_refine=n_refine))
                 for s in range(5)]
        scores[n_refine] = np.mean(found)
    assert scores[2] > scores[0] + 0.02
    assert scores[2] >= 0.8


def test_seeded_topics_with_empty_documents_and_empty_clusters():
    X = sp.csr_matrix(np.array([[3, 0, 0], [0, 0, 0], [3, 0, 0], [0, 2, 1]], dtype=float))
    lam = _seeded_topics(X, 3, np.random.RandomState(0), np.float32)  # 3 topics, 2 distinct documents
    assert lam.dtype == np.float32 and lam.shape == (3, 3)
    assert np.all(np.isfinite(lam)) and np.all(lam > 0)
    empty = _seeded_topics(sp.csr_matrix((4, 3)), 2, np.random.RandomState(0), np.float64)
    assert empty.shape == (2, 3) and np.all(empty > 0)


@pytest.mark.parametrize("cls", [PLSA, BatchLDA, OnlineLDA, CollapsedLDA], ids=lambda c: c.__name__)
def test_seeded_start_is_at_least_as_good_as_random_early_on(cls, clustered):
    """After a few iterations the seeded start has the higher training objective (5 seeds each)."""
    X = clustered.corpus.X
    kw = dict(max_iter=3, tol=0, n_jobs=1, moves=False)  # the starts themselves, not the moves after them
    if cls is OnlineLDA:
        kw.update(batch_size=600, max_iter=3)

    def final(init, seed):
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return cls(6, init=init, random_state=seed, **kw).fit(X).bound_history_[-1]

    seeded = np.median([final("seeded", s) for s in range(5)])
    random = np.median([final("random", s) for s in range(5)])
    assert seeded >= random


@pytest.mark.parametrize("cls", [PLSA, BatchLDA, OnlineLDA, CollapsedLDA], ids=lambda c: c.__name__)
def test_init_must_be_a_known_start(cls, clustered):
    with pytest.raises(ValueError, match="init"):
        cls(3, init="kmeans").fit(clustered.corpus.X[:20])


# ----------------------------------------------------------------------------- BatchLDA's E-step restarts
@pytest.mark.parametrize("restart_every", [1, 3, 4])
def test_restart_rotation_restarts_each_document_once_per_round(restart_every):
    from topicvb.models._start import restart_rows as _restart_rows

    for offset in (0, 7):
        masks = np.array([_restart_rows(10, offset, restart_every, t) for t in range(5, 5 + restart_every)])
        np.testing.assert_array_equal(masks.sum(axis=0), 1)
    # a partition's rows get the mask of the same rows of the whole corpus
    whole = _restart_rows(10, 0, restart_every, 6)
    np.testing.assert_array_equal(np.concatenate([_restart_rows(4, 0, restart_every, 6),
                                                  _restart_rows(6, 4, restart_every, 6)]), whole)


def test_start_points_take_previous_solution_for_documents_not_restarting():
    from topicvb.models._start import start_points as _start_points

    fresh, prev = np.zeros((6, 2)), np.ones((6, 2))
    out = _start_points(fresh.copy(), prev, 0, 3, 2)  # iteration 2 restarts documents 1 and 4
    np.testing.assert_array_equal(out[:, 0], [1, 0, 1, 1, 0, 1])
    np.testing.assert_array_equal(_start_points(fresh.copy(), prev[:0], 0, 3, 2), fresh)  # no previous: all
    np.testing.assert_array_equal(_start_points(fresh.copy(), prev, 0, 1, 2), fresh)  # restart_every=1: all


def _fit_counting_updates(module, name, model, X):
    """Fit ``model`` with ``module.name`` (an E-step kernel) wrapped to record the gamma updates of each call."""
    counts = []
    real = getattr(module, name)

    def counting(*args):
        out = real(*args)
        counts.append(int(out[2].sum()))
        return out

    setattr(module, name, counting)
    try:
        return model.fit(X), counts
    finally:
        setattr(module, name, real)


def test_rotating_restarts_keep_the_bound_monotone_and_cut_the_work(clustered):
    import topicvb.models._vb as vb  # the variational core calls the E-step kernels

    X = clustered.corpus.X
    updates = {}
    for r in (1, 4):
        model, counts = _fit_counting_updates(
            vb, "e_step_indexed", BatchLDA(6, max_iter=12, tol=0, restart_every=r, random_state=0, n_jobs=1), X)
        b = model.bound_history_
        assert np.all(np.diff(b) >= -1e-9 * np.abs(b[1:]))
        updates[r] = sum(counts[1:])  # after the first E-step, which restarts everything either way
    assert updates[4] < 0.6 * updates[1]


@pytest.mark.parametrize("cls", [BatchLDA, OnlineLDA])
def test_restart_every_must_be_a_positive_integer(clustered, cls):
    X = clustered.corpus.X[:30]
    with pytest.raises(ValueError, match=r"restart_every must be an int in \[1, 2147483647\], got 0\."):
        cls(3, restart_every=0).fit(X)
    with pytest.raises(TypeError, match=r"restart_every must be an int in \[1, 2147483647\], got 1\.5 \(a float\)\."):
        cls(3, restart_every=1.5).fit(X)


def test_online_rotating_restarts_cut_the_updates_of_later_passes(clustered):
    import topicvb.models._vb as vb  # the variational core calls the E-step kernels

    X = clustered.corpus.X
    runs = {}
    for every in (1, 4):
        runs[every] = _fit_counting_updates(
            vb, "e_step", OnlineLDA(6, batch_size=100, max_iter=4, tol=0, restart_every=every, random_state=0,
                                    n_jobs=1), X)
    per_pass = X.shape[0] // 100
    cold, warm = runs[1][1], runs[4][1]
    assert len(cold) == len(warm) == 4 * per_pass
    assert warm[:per_pass] == cold[:per_pass]  # the first pass has nothing to continue from
    assert sum(warm[per_pass:]) < 0.8 * sum(cold[per_pass:])
    # the random starts are drawn either way: the same stream, so the same shuffles
    np.testing.assert_array_equal(runs[4][0].random_state_.get_state()[1], runs[1][0].random_state_.get_state()[1])
    # and the fit is as good: per-batch bound estimates of the last pass within 0.5%
    last = slice(-per_pass, None)
    cold_bound = np.mean(runs[1][0].bound_history_[last])
    assert np.mean(runs[4][0].bound_history_[last]) >= cold_bound - 0.005 * abs(cold_bound)
