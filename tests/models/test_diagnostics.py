"""What a fit tells its user: dead topics (DeadTopicWarning), and warnings that point at the user's line."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import Pipeline

from topicvb import make_lda_corpus
from topicvb.exceptions import DeadTopicWarning
from topicvb.inspection import topic_prevalence
from topicvb.models import BatchLDA, CollapsedLDA, OnlineLDA, PLSA, StochasticCollapsedLDA


@pytest.fixture(scope="module")
def three_topics():
    return make_lda_corpus(300, 60, 3, random_state=0).corpus.X


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fn()
    return model, caught


@pytest.mark.parametrize("cls", [BatchLDA, OnlineLDA, StochasticCollapsedLDA])
def test_too_many_topics_for_the_corpus_warn_of_dead_topics(three_topics, cls):
    # 30 topics on a corpus drawn from 3: these estimators leave some topics (nearly) empty (without
    # their moves, which re-seed dead topics: tests/models/test_moves.py)
    params = {"moves": False} if "moves" in cls().get_params() else {}
    if cls is StochasticCollapsedLDA:  # (its seeded start leaves no dead topic here; the random one does)
        params["init"] = "random"
    model, caught = _caught(lambda: cls(30, random_state=0, max_iter=30, **params).fit(three_topics))
    dead_warnings = [w for w in caught if issubclass(w.category, DeadTopicWarning)]
    assert len(dead_warnings) == 1
    message = str(dead_warnings[0].message)
    assert "of 30 topics carry less than 0.2/K" in message
    listed = [int(k) for k in message.split("dead topics: ")[1].split(")")[0].split(", ") if k != "..."]
    # the listed topics are those whose expected token counts (components_ less the prior) are below 0.2/K
    counts = np.maximum(model.components_ - model.topic_word_prior_, 0).sum(axis=1)
    dead = np.flatnonzero(counts / counts.sum() < 0.2 / 30)
    assert listed == dead[:10].tolist() and listed
    # and they are nearly unused by the documents too (prevalence from transform, as a user measures it)
    assert np.all(topic_prevalence(model, three_topics)[dead] < 1.0 / 30)
    assert dead_warnings[0].filename == __file__  # points at the caller, not at the package


@pytest.mark.parametrize("cls", [BatchLDA, OnlineLDA, PLSA, CollapsedLDA, StochasticCollapsedLDA])
def test_a_good_fit_does_not_warn_of_dead_topics(three_topics, cls):
    _, caught = _caught(lambda: cls(3, random_state=0, max_iter=50).fit(three_topics))
    assert not [w for w in caught if issubclass(w.category, DeadTopicWarning)]


def test_plsa_shares_come_from_its_document_proportions(three_topics):
    model = PLSA(3, random_state=0, max_iter=20, tol=0).fit(three_topics)
    lengths = np.asarray(three_topics.sum(axis=1)).ravel()
    fitted = {"doc_topic_": model.doc_topic_}
    np.testing.assert_allclose(model._topic_shares(fitted, three_topics), lengths @ model.doc_topic_ / lengths.sum())


def test_convergence_warning_names_the_callers_line(three_topics):
    _, caught = _caught(lambda: BatchLDA(3, max_iter=2, tol=1e-12, random_state=0).fit(three_topics))
    (w,) = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert w.filename == __file__
    # through scikit-learn's fit_transform and a Pipeline as well
    _, caught = _caught(lambda: Pipeline([("lda", BatchLDA(3, max_iter=2, tol=1e-12, random_state=0))])
                        .fit_transform(three_topics))
    (w,) = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert w.filename == __file__
