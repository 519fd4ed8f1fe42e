"""Models other than topicvb's own in the evaluation and inspection functions (found by an edge-case hunt, session
14): what a peer hands back is checked, not trusted, and what it lacks is named."""

import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.decomposition import NMF, LatentDirichletAllocation

from topicvb import make_lda_corpus
from topicvb.evaluation import FixedTopicModel, heldout_perplexity, select_n_topics
from topicvb.inspection import top_words, topic_prevalence


class Peer:
    """A duck-typed topic model: components_, transform and (optionally) fit, no scikit-learn base class."""

    def __init__(self, components, theta=None):
        self.components_ = components
        self._theta = theta

    def fit(self, X, y=None):  # (before, having fit made check_is_fitted ask for __sklearn_tags__)
        return self

    def transform(self, X):
        if self._theta is None:
            return np.full((X.shape[0], np.shape(self.components_)[0]), 0.5)
        return np.tile(self._theta, (X.shape[0], 1))


@pytest.fixture(scope="module")
def X():
    return make_lda_corpus(40, 12, 2, random_state=0).corpus.X.astype(np.float64)


def _components():
    return np.vstack([np.linspace(1, 2, 12), np.linspace(2, 1, 12)])


def test_a_duck_typed_peer_with_fit_is_used_as_it_is(X):
    peer = Peer(_components())
    value = heldout_perplexity(peer, X)
    assert np.isfinite(value) and value >= 1
    assert len(top_words(peer, n=3)) == 2


@pytest.mark.parametrize("theta, message", [
    ([-1.0, 2.0], "model.transform\\(X\\) returned negative values"),
    ([np.nan, 1.0], "model.transform\\(X\\) returned NaN or infinite values"),
    ([np.inf, 1.0], "model.transform\\(X\\) returned NaN or infinite values"),
])
def test_transform_output_that_is_no_proportion_is_refused(X, theta, message):
    # (before: a prevalence of -100%, a perplexity of 1.4e100, or NaN)
    peer = Peer(_components(), np.asarray(theta))
    for call in (lambda: heldout_perplexity(peer, X), lambda: topic_prevalence(peer, X)):
        with pytest.raises(ValueError, match=message):
            call()


def test_a_peer_topic_word_distribution_is_checked_and_normalised(X):
    # (before: rows scaled by 10 gave a perplexity of 0.3, below its minimum of 1)
    class Scaled(Peer):
        def topic_word_distribution(self):
            return self.scale * self.components_ / self.components_.sum(axis=1, keepdims=True)

    peer = Scaled(_components())
    peer.scale = 1.0
    want = heldout_perplexity(peer, X)
    peer.scale = 10.0
    assert heldout_perplexity(peer, X) == pytest.approx(want, rel=1e-12)
    peer.scale = np.nan
    with pytest.raises(ValueError, match=r"model.topic_word_distribution\(\) must hold non-negative finite weights"):
        heldout_perplexity(peer, X)


def test_sparse_components_and_transform_are_read_as_arrays(X):
    dense = heldout_perplexity(Peer(_components()), X)
    assert heldout_perplexity(Peer(sp.csr_matrix(_components())), X) == pytest.approx(dense, rel=1e-12)

    class SparseTheta(Peer):
        def transform(self, X):
            return sp.csr_matrix(super().transform(X))

    np.testing.assert_allclose(topic_prevalence(SparseTheta(_components()), X), [0.5, 0.5])


def test_a_dataframe_must_have_the_columns_the_peer_was_fitted_with(X):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X.toarray(), columns=[f"w{j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lda = LatentDirichletAllocation(2, random_state=0, max_iter=5).fit(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (before: scikit-learn's "X does not have valid feature names")
        value = heldout_perplexity(lda, frame)
    assert np.isfinite(value)
    with pytest.raises(ValueError, match="the columns of X_test are not the feature names the model was fitted with"):
        heldout_perplexity(lda, frame[frame.columns[::-1]])  # (before: scored silently, perplexity 36.9)


def test_select_n_topics_with_nmf_scores_held_out_and_refuses_elbo(X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = select_n_topics(X, [2, 3], model=NMF(init="nndsvda", max_iter=50), criterion="heldout")
    assert result.best_k in (2, 3)  # (before: AttributeError: 'NMF' object has no attribute 'score')
    assert [row["bound"] for row in result.table] == [None, None]  # not measured, as other columns (before: NaN)
    json.dumps(result.to_dict(), allow_nan=False)  # strict JSON (before: ValueError, out of range float values)
    assert np.isnan(result.column("bound")).all() and "bound" not in str(result).splitlines()[1]
    with pytest.raises(TypeError, match=r"criterion='elbo' compares the models' training bounds, but NMF has none"):
        select_n_topics(X, [2, 3], model=NMF(init="nndsvda"), criterion="elbo")


@pytest.mark.parametrize("candidates", ["10", {2: "x", 3: "y"}])
def test_candidates_given_as_a_str_or_dict_are_named(X, candidates):
    with pytest.raises(TypeError, match="candidates must be a sequence of positive ints, got (str|dict)"):
        select_n_topics(X, candidates)


@pytest.mark.parametrize("topic_word", [[[1e308, 1e308, 1.0]], [[1 + 5j, 1.0, 1.0]]])
def test_fixed_topic_model_refuses_rows_that_overflow_and_complex_weights(topic_word):
    with pytest.raises((ValueError, TypeError), match="topic_word must be"):
        FixedTopicModel(topic_word)
