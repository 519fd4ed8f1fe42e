"""Shared fixtures: a three-block corpus, a few texts, a seeded generator."""

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp


def corpora_dir():
    """The shared real corpora (env TOPICVB_CORPORA, else ../shared/corpora beside the repo)."""
    env = os.environ.get("TOPICVB_CORPORA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "corpora"


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def block_corpus():
    """Three topics, each owning three terms; 60 documents each drawn mostly from one topic."""
    gen = np.random.default_rng(0)
    n_docs, n_terms = 60, 9
    X = np.zeros((n_docs, n_terms))
    for d in range(n_docs):
        block = d % 3
        X[d, block * 3:(block + 1) * 3] = gen.integers(2, 8, size=3)
        other = gen.integers(0, n_terms)
        X[d, other] += 1
    return sp.csr_matrix(X)


@pytest.fixture
def tiny_texts():
    return [
        "The cat sat on the mat with another cat.",
        "Dogs and cats are pets; the dog barked at the cat.",
        "Stock markets fell as investors sold shares and bonds.",
        "The central bank raised interest rates to fight inflation.",
        "",
    ]
