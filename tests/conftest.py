"""Shared fixtures: a three-block corpus, a few texts, a seeded generator, the built-in corpus's cache folder."""

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


@pytest.fixture(scope="session")
def builtin_corpus_cache(tmp_path_factory):
    """A ``TOPICVB_CACHE`` folder shared by the tests that load the whole built-in corpus (the README tour,
    the example notebook): collecting its docstrings reads every source file of the standard library,
    NumPy, SciPy and scikit-learn (about 8 s), so it is done once per test session, not once per test
    (``tests/datasets/test_datasets_builtin.py::test_builtin_corpus_full`` collects it into a folder of
    its own, then leaves its cache here). The tests never write into the user's ``~/.cache``."""
    return tmp_path_factory.mktemp("topicvb-cache")
