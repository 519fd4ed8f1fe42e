"""Fixtures of the topicvb.datasets tests: a stub vectorizer and a tiny corpus with empty documents."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from topicvb.datasets import Corpus


@pytest.fixture
def stub_vectorizer():
    """A fast, known vectorizer, so reader tests do not depend on topicvb.text."""
    return CountVectorizer(token_pattern=r"(?u)\b\w+\b")


@pytest.fixture
def counts():
    """Counts with empty documents at the start, middle and end, and an unused term."""
    X = np.array(
        [
            [0, 0, 0, 0, 0],
            [1, 0, 3, 0, 0],
            [0, 0, 0, 0, 0],
            [2, 5, 0, 0, 1],
            [0, 0, 0, 0, 0],
        ]
    )
    return sp.csr_matrix(X), ["alpha", "beta", "café", "unused term", "z"]


@pytest.fixture
def corpus(counts):
    X, vocab = counts
    return Corpus(X, vocab, doc_ids=[f"d{i}" for i in range(5)], name="tiny")
