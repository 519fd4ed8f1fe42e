"""Fixtures for the evaluation tests: a small separated synthetic corpus and fitted models."""

import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning

from topicvb import BatchLDA
from topicvb.datasets import make_lda_corpus


@pytest.fixture(scope="module")
def synthetic():
    """(corpus, topic_word, doc_topic): 300 documents, 40 terms, 4 well separated topics."""
    return make_lda_corpus(300, 40, 4, separated=True, random_state=0)


@pytest.fixture(scope="module")
def split(synthetic):
    X = synthetic.corpus.X
    return X[:240], X[240:]


@pytest.fixture(scope="module")
def batch_model(split):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return BatchLDA(4, random_state=0, max_iter=50).fit(split[0])
