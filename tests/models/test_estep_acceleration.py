"""SQUAREM-accelerated E-steps (``e_step_acceleration="squarem"``, the default) against the plain updates.

The kernel itself is checked against the NumPy reference in tests/kernels/test_kernels.py; these tests
check what a user sees: the same fit (bound, topics, document proportions) for fewer gamma updates,
with the batch ELBO still monotone, and a clear error for an unknown setting.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import topicvb.models._vb as vb  # the variational core: where the drivers' E-step kernels are called
from topicvb import BatchLDA, OnlineLDA, make_lda_corpus


@pytest.fixture(scope="module")
def corpus():
    return make_lda_corpus(600, 300, 6, doc_topic_prior=0.02, doc_length=60, random_state=4)


def _fit_counting(module, name, model, X):
    """Fit with ``module.name`` (an E-step kernel) wrapped to count the gamma updates it makes."""
    counts = []
    real = getattr(module, name)

    def counting(*args):
        out = real(*args)
        counts.append(int(out[2].sum()))
        return out

    setattr(module, name, counting)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return model.fit(X), sum(counts)
    finally:
        setattr(module, name, real)


def test_batch_lda_same_fit_in_fewer_updates(corpus):
    X = corpus.corpus.X
    fits = {acc: _fit_counting(vb, "e_step_indexed", BatchLDA(6, max_iter=12, tol=0, e_step_acceleration=acc,
                                                               random_state=0, n_jobs=1), X)
            for acc in ("squarem", None)}
    (fast, n_fast), (plain, n_plain) = fits["squarem"], fits[None]
    for model in (fast, plain):
        b = model.bound_history_
        assert np.all(np.diff(b) >= -1e-9 * np.abs(b[1:]))  # monotone either way
    assert n_fast < 0.95 * n_plain  # measured 0.90 on this corpus
    np.testing.assert_allclose(fast.bound_history_[-1], plain.bound_history_[-1], rtol=1e-8)
    np.testing.assert_allclose(fast.components_, plain.components_, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(fast.transform(X), plain.transform(X), atol=2e-3)


def test_online_lda_same_fit_in_fewer_updates(corpus):
    X = corpus.corpus.X
    fits = {acc: _fit_counting(vb, "e_step", OnlineLDA(6, max_iter=5, batch_size=50, e_step_acceleration=acc,
                                                       random_state=0, n_jobs=1), X)
            for acc in ("squarem", None)}
    (fast, n_fast), (plain, n_plain) = fits["squarem"], fits[None]
    assert n_fast < 0.95 * n_plain  # measured 0.88 on this corpus
    np.testing.assert_allclose(fast.perplexity(X), plain.perplexity(X), rtol=1e-5)


@pytest.mark.parametrize("cls", [BatchLDA, OnlineLDA])
def test_e_step_acceleration_must_be_known(corpus, cls):
    X = corpus.corpus.X[:30]
    with pytest.raises(ValueError, match=r"e_step_acceleration must be 'squarem' or None, got 'fast'\."):
        cls(3, e_step_acceleration="fast").fit(X)
    cls(3, e_step_acceleration=None, max_iter=2).fit(X)  # None is a valid choice: the plain updates
