"""The sequential CVB0 sweep adds each cell's change to the counts in place; over many sweeps the rounding of
those additions drifts, below 0 where a count is near 0 (in float32 from counts of about 1e3 a cell). The fitted
topics are made from counts recomputed from the responsibilities, so they stay above the prior and a saved model
loads (before, HDP and CollapsedLDA returned negative ``components_`` that ``topicvb.load`` refused)."""

import warnings

import numpy as np
import pytest

import topicvb
from topicvb import HDP, CollapsedLDA
from topicvb.datasets import make_lda_corpus


@pytest.fixture(scope="module")
def X():
    return make_lda_corpus(n_docs=100, n_topics=3, n_terms=40, doc_length=40, random_state=0).corpus.X


@pytest.mark.parametrize("make, dtype, scale", [
    (lambda: HDP(max_components=8, random_state=0, max_iter=80, dtype="float32"), "float32", 1e3),
    (lambda: HDP(max_components=8, random_state=0, max_iter=80, refit_kept=False, dtype="float32"), "float32", 1e3),
    (lambda: HDP(max_components=8, random_state=0, max_iter=80), "float64", 1e15),
    (lambda: CollapsedLDA(3, learn_priors=True, random_state=0, max_iter=80, dtype="float32"), "float32", 1e3),
    (lambda: CollapsedLDA(8, learn_priors=True, random_state=0, max_iter=80, dtype="float32"), "float32", 1e3),
])
def test_topics_stay_above_the_prior_with_huge_counts(X, make, dtype, scale, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make().fit(X * scale)
    eta = np.asarray(model.topic_word_prior_, dtype=np.float64)
    assert model.components_.dtype == np.dtype(dtype)
    assert np.all(model.components_ >= eta * (1.0 - 1e-6))  # counts >= 0 (float32 rounding of eta itself aside)
    if isinstance(model, HDP):
        assert np.all(model.all_components_ >= eta * (1.0 - 1e-6))
    assert np.all(model.topic_word_distribution() >= 0.0)
    loaded = topicvb.load(topicvb.save(model, tmp_path / "m.npz"))
    np.testing.assert_array_equal(loaded.components_, model.components_)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", ["CollapsedLDA", "StochasticCollapsedLDA", "HDP"])
def test_transform_of_huge_counts_is_never_negative(name):
    # (the fold-in sweeps add each cell's change in place too: with cells of 1e19 and 2**62 tokens a topic the
    # document does not use drifted to a count of about -18, a proportion of -1.8e-18 that the evaluators refuse)
    import scipy.sparse as sp

    X = sp.csr_matrix(np.array([[1e19, 3.0, 0.0], [5.0, 2.0 ** 62, 7.0], [1.0, 2.0, 3.0]]))
    k = {} if name == "HDP" else {"n_components": 2}
    model = getattr(topicvb, name)(**k, random_state=0, max_iter=5).fit(X)
    theta = model.transform(X)
    assert theta.min() >= 0 and np.allclose(theta.sum(axis=1), 1.0)
