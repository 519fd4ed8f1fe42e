"""scikit-learn's estimator checks and a contract shared by every topicvb estimator."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from topicvb.models import HDP, PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA

ESTIMATORS = [
    BatchLDA(n_components=3, max_iter=5, random_state=0),
    PLSA(n_components=3, max_iter=5, random_state=0),
    CollapsedLDA(n_components=3, max_iter=5, random_state=0),
    # one mini-batch covers the 60-document contract corpus: stochastic updates on a corpus this
    # small stall in poor optima, which is not what the contract is about
    OnlineLDA(n_components=3, max_iter=5, batch_size=64, random_state=0),
    StochasticCollapsedLDA(n_components=3, max_iter=5, batch_size=64, random_state=0),
    # truncated at 6: the contract's three blocks must leave three topics (n_components_)
    HDP(max_components=6, max_iter=5, random_state=0),
]

# Checks that cannot pass for a topic model, with the reason; empty when every check passes.
EXPECTED_FAILED_CHECKS = {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_contract(estimator, block_corpus):
    X = block_corpus
    model = clone(estimator).set_params(max_iter=50)
    doc_topic = model.fit_transform(X)
    assert doc_topic.shape == (X.shape[0], 3)
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0, rtol=1e-10)
    assert np.all(model.components_ >= 0)
    again = clone(estimator).set_params(max_iter=50).fit(X)
    np.testing.assert_array_equal(model.components_, again.components_)
    # each true block of three terms is the top three of exactly one topic
    tops = {frozenset(np.argsort(-row)[:3]) for row in model.components_}
    assert tops == {frozenset(range(b * 3, b * 3 + 3)) for b in range(3)}
    # float32 input accepted
    model32 = clone(estimator).set_params(max_iter=50, dtype="float32").fit(X.astype(np.float32))
    assert model32.components_.dtype == np.float32
    assert model32.transform(X.astype(np.float32)).dtype == np.float32
    assert model.get_feature_names_out().tolist() == [f"{type(model).__name__.lower()}{i}" for i in range(3)]
    # sparse-capable input: the dense copy of the CSR corpus gives the same model
    dense = clone(estimator).set_params(max_iter=50).fit(X.toarray())
    np.testing.assert_allclose(dense.components_, model.components_, rtol=1e-12, atol=0)
    np.testing.assert_allclose(dense.transform(X.toarray()), model.transform(X), rtol=1e-12, atol=1e-15)
