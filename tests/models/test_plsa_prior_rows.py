"""PLSA's M-step for P(w | z) takes the topic-word prior as rows (one kernel for a scalar and a matrix prior):
a scalar prior is one row read by every term (step 0), a matrix prior its (V, K) rows (step 1)."""

import warnings

import numpy as np
import pytest

from topicvb import PLSA, make_lda_corpus
from topicvb._kernels.plsa import column_prior_rows, normalise_columns


def _counts(V=300, K=4, seed=0):
    counts = np.random.RandomState(seed).gamma(0.3, 2.0, size=(V, K))
    counts[:, 0] = 0.0  # a column without mass: it takes the fallback
    return counts


def test_a_scalar_prior_is_one_row_read_by_every_term():
    offset, fallback, step = column_prior_rows(-0.25, 1.0 / 300, 4)
    assert step == 0 and offset.shape == fallback.shape == (1, 4)
    assert offset.dtype == fallback.dtype == np.float64 and offset.flags.c_contiguous
    matrix = np.random.RandomState(1).uniform(-0.5, 0.5, size=(300, 4))
    m_offset, m_fallback, m_step = column_prior_rows(matrix, np.full((300, 4), 1.0 / 300), 4)
    assert m_step == 1 and m_offset.shape == m_fallback.shape == (300, 4)
    np.testing.assert_array_equal(m_offset, matrix)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("eta_minus_one", [0.0, -0.25, 0.5])
def test_the_scalar_row_and_its_matrix_normalise_alike_bit_for_bit(dtype, eta_minus_one):
    V, K = 300, 4
    counts = _counts(V, K).astype(dtype)
    from_scalar = normalise_columns(counts.copy(), eta_minus_one, 1.0 / V)
    from_rows = normalise_columns(counts.copy(), *column_prior_rows(eta_minus_one, 1.0 / V, K))
    from_matrix = normalise_columns(counts.copy(), np.full((V, K), eta_minus_one), np.full((V, K), 1.0 / V))
    assert from_scalar.dtype == dtype
    np.testing.assert_array_equal(from_rows, from_scalar)
    np.testing.assert_array_equal(from_matrix, from_scalar)
    np.testing.assert_array_equal(from_scalar[:, 0], np.full(V, dtype(1.0 / V)))  # the fallback
    np.testing.assert_allclose(from_scalar.sum(axis=0), 1.0, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_a_matrix_prior_excludes_terms_and_falls_back_per_topic():
    V, K = 300, 4
    allowed = np.random.RandomState(2).random_sample((V, K)) > 0.3
    offset = np.where(allowed, -0.1, -np.inf)
    fallback = allowed / allowed.sum(axis=0, keepdims=True)
    got = normalise_columns(_counts(V, K), offset, fallback)
    assert np.all(got[~allowed] == 0.0)
    np.testing.assert_array_equal(got[:, 0], fallback[:, 0])  # no mass: uniform over the terms topic 0 allows
    np.testing.assert_allclose(got.sum(axis=0), 1.0, rtol=1e-12)


def test_prior_rows_of_the_wrong_shape_are_refused():
    counts = _counts(300, 4)
    with pytest.raises(ValueError, match="offset and fallback must have shape"):
        normalise_columns(counts, np.zeros((1, 4)), np.full((1, 4), 1.0 / 300), 1)  # step 1 wants (300, 4)
    with pytest.raises(ValueError, match="offset and fallback must have shape"):
        normalise_columns(counts, np.zeros((1, 3)), np.full((1, 3), 1.0 / 300), 0)


@pytest.mark.parametrize("eta", [1.05, 0.8])
def test_a_constant_matrix_prior_fits_as_its_scalar_bit_for_bit(eta):
    X = make_lda_corpus(200, 120, 4, doc_length=40, random_state=1).corpus.X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (not converged in max_iter)
        scalar = PLSA(4, topic_word_prior=eta, moves=False, random_state=0, max_iter=30).fit(X)
        matrix = PLSA(4, topic_word_prior=np.full((4, 120), eta), moves=False, random_state=0, max_iter=30).fit(X)
    np.testing.assert_array_equal(matrix.components_, scalar.components_)
    np.testing.assert_array_equal(matrix.bound_history_, scalar.bound_history_)
    np.testing.assert_array_equal(matrix.transform(X[:20]), scalar.transform(X[:20]))


@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_float32_fits_as_float64_where_the_map_estimate_zeroes_terms(random_state):
    """A prior below 1 (eta - 1 < 0) zeroes rare terms in some topics, so some entries get probability 0; float32
    had turned them into NaN counts and reset every topic to the uniform fallback (random_state=2 here)."""
    import scipy.sparse as sp

    X = make_lda_corpus(150, 60, 4, random_state=0).corpus.X.tocsr().astype(float)
    X = sp.hstack([X, sp.csr_matrix((np.ones(3), ([5, 50, 100], [0, 0, 0])), shape=(150, 1))]).tocsr()  # a rare term
    fits = {}
    for dtype in ("float64", "float32"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[dtype] = PLSA(5, topic_word_prior=0.2, max_iter=20, random_state=random_state, dtype=dtype,
                               moves=False).fit(X)
    phi = fits["float32"].components_
    assert np.all(np.isfinite(phi)) and not np.any(np.all(np.isclose(phi, phi[:, :1]), axis=1))  # no flat topic
    assert fits["float32"].score(X) == pytest.approx(fits["float64"].score(X), rel=0.05)
