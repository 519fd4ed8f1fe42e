"""The estimators inside scikit-learn workflows: Pipeline, GridSearchCV, CountVectorizer input."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline

from topicvb import BatchLDA, CollapsedLDA, OnlineLDA, PLSA, Tokenizer, Vectorizer

THEMES = {
    "space": "orbit rocket launch satellite nasa moon shuttle mission astronaut telescope",
    "cooking": "recipe oven flour butter sugar bake dough kitchen pan salt",
    "football": "goal match team league striker referee season coach stadium penalty",
}


def _texts(n_per_theme=30, seed=0):
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for label, words in enumerate(THEMES.values()):
        words = words.split()
        for _ in range(n_per_theme):
            texts.append(" ".join(rng.choice(words, size=25)))
            labels.append(label)
    return texts, np.array(labels)


@pytest.mark.parametrize("cls", [PLSA, BatchLDA, CollapsedLDA, OnlineLDA], ids=lambda c: c.__name__)
def test_vectorizer_model_classifier_pipeline(cls):
    texts, labels = _texts()
    pipe = Pipeline([
        ("vec", Vectorizer(tokenizer=Tokenizer(stop_words="english"))),
        ("topics", cls(3, max_iter=30, random_state=0)),
        ("clf", LogisticRegression(max_iter=500)),
    ])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe.fit(texts, labels)
    assert pipe.score(texts, labels) > 0.95
    proportions = pipe[:-1].transform(["the rocket reached orbit around the moon"])
    assert proportions.shape == (1, 3)
    np.testing.assert_allclose(proportions.sum(), 1.0)


def test_grid_search_over_n_components():
    texts, _ = _texts(20, seed=1)
    pipe = Pipeline([("vec", Vectorizer()), ("lda", BatchLDA(max_iter=20, random_state=0))])
    # shuffled folds: the texts come theme by theme, and unshuffled folds would hold out a whole theme
    # whose words the vocabulary of the other folds lacks (documents without a known term score nothing)
    search = GridSearchCV(pipe, {"lda__n_components": [2, 3, 6]}, cv=KFold(3, shuffle=True, random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search.fit(texts)
    assert search.best_params_["lda__n_components"] == 3  # the three themes
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))


def test_models_accept_count_vectorizer_output():
    texts, _ = _texts(10, seed=2)
    X = CountVectorizer().fit_transform(texts)  # int64 CSR with int32 indices
    for cls in (PLSA, BatchLDA, CollapsedLDA, OnlineLDA):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = cls(3, max_iter=10, random_state=0).fit(X)
        assert model.components_.shape == (3, X.shape[1])
        assert np.all(np.isfinite(model.transform(X)))
