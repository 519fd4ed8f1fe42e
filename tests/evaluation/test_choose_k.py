"""Choosing K: every estimator's ``score`` is the held-out log-likelihood per token (document completion),
so ``GridSearchCV`` over ``n_components`` and ``select_n_topics`` agree and find the generating K."""

import contextlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

from topicvb import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA
from topicvb.datasets import make_lda_corpus
from topicvb.evaluation import heldout_log_likelihood, heldout_perplexity, select_n_topics, split_tokens
from topicvb.exceptions import DeadTopicWarning
from topicvb.models._registry import recommended_estimator

CANDIDATES = [5, 10, 20, 40]
ESTIMATORS = [
    BatchLDA(4, max_iter=30, random_state=0),
    OnlineLDA(4, max_iter=10, random_state=0),
    PLSA(4, max_iter=30, random_state=0),
    CollapsedLDA(4, max_iter=30, random_state=0),
    StochasticCollapsedLDA(4, max_iter=10, random_state=0),
]


@contextlib.contextmanager
def _quiet():
    """Hide the warnings of short fits and of superfluous topics."""
    with warnings.catch_warnings():
        for category in (ConvergenceWarning, DeadTopicWarning):
            warnings.simplefilter("ignore", category)
        yield


@pytest.fixture(scope="module")
def fitted(split):
    with _quiet():
        return {type(e).__name__: clone(e).fit(split[0]) for e in ESTIMATORS}


# ------------------------------------------------------------------------------------------ what score is
@pytest.mark.parametrize("name", [type(e).__name__ for e in ESTIMATORS])
def test_score_is_the_heldout_log_likelihood_per_token(fitted, split, name):
    model, X = fitted[name], split[1]
    # the documented formula: half of each document's tokens (seed 0) scored given the other half
    obs, held = split_tokens(X, 0.5, random_state=0)
    expected = np.sum(heldout_log_likelihood(model, obs, held)) / held.sum()
    score = model.score(X)
    assert score == pytest.approx(expected, rel=1e-12)
    assert score == pytest.approx(-np.log(heldout_perplexity(model, X)), rel=1e-12)
    assert model.perplexity(X) == pytest.approx(np.exp(-score), rel=1e-12)
    # per token: between the uniform model (log 1/V) and certainty, unlike the totals of bound()
    assert -np.log(X.shape[1]) < score < 0
    # deterministic: repeated calls, and a copy fitted with another seed is scored on the same tokens
    assert model.score(X) == score
    with _quiet():
        other = clone(model).set_params(random_state=7).fit(split[0])
    assert other.score(X) == pytest.approx(np.sum(heldout_log_likelihood(other, obs, held)) / held.sum(), rel=1e-12)


@pytest.mark.parametrize("name", [type(e).__name__ for e in ESTIMATORS])
def test_a_float32_models_score_is_the_evaluators_to_the_bit(split, name):
    # (its rows sum to 1 only within float32's precision: read as they were, the score differed by ~1e-9)
    model = next(e for e in ESTIMATORS if type(e).__name__ == name)
    with _quiet():
        model = clone(model).set_params(dtype="float32").fit(split[0])
    X = split[1]
    obs, held = split_tokens(X, 0.5, random_state=0)
    assert model.score(X) == np.sum(heldout_log_likelihood(model, obs, held)) / held.sum()
    assert model.perplexity(X) == heldout_perplexity(model, X)  # (both exp(-the same number))


def test_score_of_fractional_weights(fitted, split):
    model, X = fitted["CollapsedLDA"], split[1].astype(np.float64)
    weighted = X * 0.7
    score = model.score(weighted)
    assert np.isfinite(score) and score < 0
    assert model.score(weighted) == score
    # whole tokens go through exactly the split of split_tokens
    assert model.score(X) == pytest.approx(-np.log(heldout_perplexity(model, X)), rel=1e-12)


def test_score_of_short_and_empty_documents(fitted):
    model = fitted["BatchLDA"]
    n_terms = model.n_features_in_
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(0.5, size=(30, n_terms)).astype(np.float64))
    X[0] = 0  # an empty document
    X[1] = 0
    X[1, 3] = 1  # a document of one token
    assert np.isfinite(model.score(X))
    with pytest.raises(ValueError, match=r"BatchLDA\.score needs at least one token in X; every document is empty"):
        model.score(np.zeros((3, n_terms)))
    with pytest.raises(ValueError, match=r"at least one token in X"):
        model.perplexity(np.zeros((3, n_terms)))
    # documents of one token each: the fixed split puts each in one half or the other
    one = sp.csr_matrix((np.ones(4), np.arange(4), np.arange(5)), shape=(4, n_terms))
    _, held = split_tokens(one, 0.5, random_state=0)
    for rows in (np.flatnonzero(np.diff(held.indptr) > 0), np.flatnonzero(np.diff(held.indptr) == 0)):
        if rows.size == 0:
            continue
        if held[rows].sum() > 0:  # held out, with nothing observed: scored under the prior mean
            assert np.isfinite(model.score(one[rows]))
        else:
            with pytest.raises(ValueError, match=r"BatchLDA\.score found no held-out token in X.*longer documents"):
                model.score(one[rows])


# ------------------------------------------------------------------------------------------ choosing K
@pytest.fixture(scope="module", params=[10, 20], ids=lambda k: f"true_K={k}")
def choice(request):
    """select_n_topics (defaults) and GridSearchCV(cv=2) over CANDIDATES on an LDA-generated corpus. (Two folds
    train on half the documents each, so they find K on less data than three did; the mean scores moved by
    under 0.03 and their order not at all, and the search costs 8 fits instead of 12.)"""
    true_k = request.param
    corpus, _, _ = make_lda_corpus(800, 400, true_k, doc_length=80, random_state=1)
    X = corpus.X
    with _quiet():
        with warnings.catch_warnings(record=True) as edge:
            warnings.simplefilter("always", UserWarning)
            selected = select_n_topics(X, CANDIDATES)
        search = GridSearchCV(recommended_estimator(random_state=0), {"n_components": CANDIDATES}, cv=2,
                              refit=False).fit(X)
    grid_k = search.cv_results_["param_n_components"][search.best_index_]
    return {"true_k": true_k, "selected": selected, "search": search, "grid_k": int(grid_k),
            "edge": [w for w in edge if "best K" in str(w.message)]}


def _step(k):
    return CANDIDATES.index(k)


def test_select_n_topics_defaults_find_the_true_k(choice):
    result = choice["selected"]
    assert result.criterion == "heldout"
    assert result.model_name == "CollapsedLDA"
    assert abs(_step(result.best_k) - _step(choice["true_k"])) <= 1, str(result)
    # an edge pick (5 or 40) is announced
    assert bool(choice["edge"]) == (result.best_k in (CANDIDATES[0], CANDIDATES[-1]))


def test_grid_search_finds_the_true_k(choice):
    scores = choice["search"].cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores))
    assert abs(_step(choice["grid_k"]) - _step(choice["true_k"])) <= 1, scores


def test_grid_search_and_select_n_topics_agree(choice):
    assert abs(_step(choice["grid_k"]) - _step(choice["selected"].best_k)) <= 1


def test_superfluous_topics_do_not_score_higher(choice):
    """Per word and held out, 40 topics do not beat the generating number (nor do 5): the score does not grow
    with K as a training log-likelihood does."""
    true = _step(choice["true_k"])
    ppl = choice["selected"].column("perplexity")
    assert ppl[true] < ppl[-1] and ppl[true] < ppl[0]
    scores = choice["search"].cv_results_["mean_test_score"]
    assert scores[true] > scores[0] and scores[true] > scores[-1]
    # whereas the training log-likelihood per token of the same collapsed models grows with K
    bounds = choice["selected"].column("bound")
    assert bounds[-1] > bounds[true]


@pytest.mark.parametrize("model", ["plsa", "batch", "collapsed", "online", "scvb0"])
def test_the_default_criterion_is_heldout_for_every_model(split, model):
    """The measure of every estimator's score, whatever the model (the VB models once defaulted to 'elbo')."""
    with _quiet():
        result = select_n_topics(split[0][:120], [2], model=model, max_iter=3)
    assert result.criterion == "heldout"
    assert np.isfinite(result.table[0]["perplexity"])


@pytest.mark.parametrize("test_size, exc", [(0.0, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                                            (True, TypeError), ("0.2", TypeError)])
def test_a_bad_test_size_is_an_error_not_a_fallback_to_the_training_bound(test_size, exc):
    # (with the default criterion, a held-out split that cannot be made falls back to the training bound; a bad
    # test_size must not: it would pick K by a bound that grows with K)
    X = make_lda_corpus(60, 30, 3, random_state=0).corpus.X
    with pytest.raises(exc, match=r"^test_size must be"):
        select_n_topics(X, [2, 3], test_size=test_size, max_iter=5)


def test_test_size_is_not_checked_where_no_documents_are_held_out():
    X = make_lda_corpus(60, 30, 3, random_state=0).corpus.X
    select_n_topics(X[:40], [2], X_test=X[40:], test_size=None, max_iter=3)  # (X_test given: test_size unused)
    select_n_topics(X, [2], criterion="elbo", test_size=0, max_iter=3)
