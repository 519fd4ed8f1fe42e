"""``transform`` of a few documents computes the model's per-term arrays at the terms they use only
(``topicvb._validation.used_columns``): the same numbers, bit for bit, as over the whole vocabulary.

A large corpus takes the whole-vocabulary path and a single document the few-columns one, so each test
first checks which path each call takes, then that the two agree exactly."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb import HDP, PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA
from topicvb._validation import used_columns

V = 600
K = 5


@pytest.fixture(scope="module")
def X():
    """Short documents over a vocabulary of 600 terms (a few cells each), and an empty one."""
    rng = np.random.default_rng(4)
    rows = []
    for d in range(160):
        row = np.zeros(V)
        topic = d % 4
        terms = rng.choice(np.arange(topic * 150, topic * 150 + 150), size=12, replace=False)
        row[terms] = rng.integers(1, 4, size=12)
        rows.append(row)
    rows.append(np.zeros(V))
    return sp.csr_matrix(np.array(rows))


def _fitted(make, X, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(dtype).fit(X)


MAKERS = {
    "BatchLDA": lambda dtype: BatchLDA(n_components=K, max_iter=5, random_state=0, dtype=dtype),
    "OnlineLDA": lambda dtype: OnlineLDA(n_components=K, max_iter=3, batch_size=40, random_state=0, dtype=dtype),
    "PLSA": lambda dtype: PLSA(n_components=K, max_iter=5, random_state=0, dtype=dtype),
    "CollapsedLDA": lambda dtype: CollapsedLDA(n_components=K, max_iter=5, random_state=0, dtype=dtype),
    "StochasticCollapsedLDA": lambda dtype: StochasticCollapsedLDA(n_components=K, max_iter=3, random_state=0,
                                                                   dtype=dtype),
    "HDP": lambda dtype: HDP(max_components=8, max_iter=5, random_state=0, dtype=dtype),
}


def test_used_columns_numbers_the_terms_used_and_keeps_the_cells():
    dense = np.zeros((3, 40))
    dense[0, [1, 39]] = [2.0, 5.0]
    dense[2, [0, 39]] = [1.0, 3.0]
    X = sp.csr_matrix(dense)
    columns, used = used_columns(X, 40)
    assert columns.tolist() == [0, 1, 39]
    assert used.shape == (3, 3)
    np.testing.assert_array_equal(used.toarray(), dense[:, columns])
    # more than a quarter of the terms used: the matrix itself, untouched
    narrow = sp.csr_matrix(dense[:, :6])
    columns, same = used_columns(narrow, 6)
    assert columns is None and same is narrow


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(MAKERS))
def test_one_document_at_a_time_equals_the_whole_corpus_bit_for_bit(X, name, dtype):
    model = _fitted(MAKERS[name], X, dtype)
    assert used_columns(X, V)[0] is None  # the corpus: every term's arrays
    assert used_columns(X[:1], V)[0] is not None  # a document: its own terms' only
    whole = model.transform(X)
    one_by_one = np.vstack([model.transform(X[i:i + 1]) for i in range(X.shape[0])])
    np.testing.assert_array_equal(one_by_one, whole)
    assert one_by_one.dtype == whole.dtype


@pytest.mark.parametrize("name", ["PLSA", "CollapsedLDA", "HDP"])
def test_the_bound_of_single_documents_adds_up_to_the_corpus_bound(X, name):
    """The likelihood bounds are sums over documents, each of its own inference: the documents scored one
    at a time (the few-columns path) add up to the corpus scored at once (every term's arrays)."""
    model = _fitted(MAKERS[name], X, "float64")
    total = model.bound(X)
    parts = sum(model.bound(X[i:i + 1]) for i in range(X.shape[0]))
    assert parts == pytest.approx(total, rel=1e-12)


@pytest.mark.parametrize("name", ["BatchLDA", "OnlineLDA", "CollapsedLDA"])
def test_a_matrix_prior_gives_the_same_numbers_on_both_paths(X, name):
    eta = np.full((K, V), 0.05)
    eta[0, :150] = 0.5  # a seeded topic
    eta[1, 150:160] = 0.0  # entries excluded from topic 1
    cls = {"BatchLDA": BatchLDA, "OnlineLDA": OnlineLDA, "CollapsedLDA": CollapsedLDA}[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(n_components=K, topic_word_prior=eta, max_iter=4, random_state=0).fit(X)
    whole = model.transform(X)
    one_by_one = np.vstack([model.transform(X[i:i + 1]) for i in range(X.shape[0])])
    np.testing.assert_array_equal(one_by_one, whole)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_an_empty_document_alone_gets_the_prior_mean(X, name):
    model = _fitted(MAKERS[name], X, "float64")
    empty = sp.csr_matrix((1, V))
    alone = model.transform(empty)
    np.testing.assert_array_equal(alone, model.transform(X)[-1:])  # the corpus's last document is empty
    assert np.all(np.isfinite(alone)) and alone.sum() == pytest.approx(1.0)
