"""The E-step's work-saving paths against the slow NumPy reference: topics left out below the unit
roundoff, the document block gathered lazily and piece by piece, the compact statistics pass, and
the special-function rows they use."""

import math

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from scipy import special

import reference as ref
from topicvb._kernels.bounds import exp_shifted_row, lda_doc_bound
from topicvb._kernels.doc_ascent import theta_row as _theta_row
from topicvb._kernels.estep import BLOCK, _documents, document_objectives, e_step, e_step_indexed
from topicvb._kernels.sparse import column_accumulate_compact, column_index
from topicvb._kernels.special import digamma, digamma_row, dirichlet_expectation_row, lgamma_sum
from topicvb._validation import csr_arrays
from topicvb.models._vb import expectations as _expect  # (elog_beta, ebeta_t, log_scale) of lam

UNIT = 2.0 ** -53  # the unit roundoff of float64, the promise of the E-step (not read from it)


def _separated(seed=0, D=60, K=30, words_per_topic=8, doc_len=120):
    """Documents drawn from one or two of K topics, each with words of its own and a share of sparse
    noise over all words: with a small alpha most topics of every document end below the unit
    roundoff (the E-step leaves them out), spread over many orders of magnitude, some near the cut."""
    rng = np.random.default_rng(seed)
    V = K * words_per_topic
    topics = 0.3 * rng.dirichlet(np.full(V, 0.05), K) + 1e-12
    for k in range(K):
        topics[k, k * words_per_topic:(k + 1) * words_per_topic] += 0.7 * rng.dirichlet(np.ones(words_per_topic))
    topics /= topics.sum(axis=1, keepdims=True)
    X = np.zeros((D, V))
    for d in range(D):
        chosen = rng.choice(K, size=rng.integers(1, 3), replace=False)
        mix = rng.dirichlet(np.ones(chosen.size))
        X[d] = rng.multinomial(doc_len, mix @ topics[chosen])
    X[4] = 0.0  # an empty document
    lam = topics * 5000.0 + 0.01
    return X, sp.csr_matrix(X), lam, rng


def _dropped_share(X, gamma, ebeta_t, alpha):
    """Share of (document, topic) pairs that satisfy the E-step's criterion for leaving a topic out."""
    elog = ref.dirichlet_expectation(gamma)
    et = np.exp(elog - elog.max(axis=1, keepdims=True))
    K = gamma.shape[1]
    out = []
    for d in range(X.shape[0]):
        words = np.flatnonzero(X[d])
        if words.size == 0:
            continue
        pn = ebeta_t[words] @ et[d]
        limit = np.minimum(alpha / X[d].sum(), 1.0 / K)
        out.append(np.mean(et[d] < UNIT * pn.min() * limit))
    return float(np.mean(out))


@pytest.mark.parametrize("accelerate", [False, True])
@pytest.mark.parametrize("prior", [0.002, 0.0215])  # absent topics far below the cut, or within 1e-2 of it
def test_left_out_topics_match_the_dense_reference(accelerate, prior):
    X, Xc, lam, rng = _separated()
    K = lam.shape[0]
    alpha = np.full(K, prior)
    elog, ebeta_t, _ = _expect(lam)
    gamma0 = rng.uniform(0.9, 1.1, (X.shape[0], K))
    n_iter = 40
    gamma, sstats_t, _ = e_step(*csr_arrays(Xc), ebeta_t, alpha, gamma0, gamma0[:0], n_iter, 0.0, True, accelerate)
    g_ref, s_ref = ref.vb_e_step(X, elog, alpha, gamma0, n_iter, 0.0, accelerate)
    # the path is taken: most topics of most documents are below the cut at the solution
    assert _dropped_share(X, g_ref, ebeta_t, alpha) > 0.5
    _, (values, topics, counts), _, _, _ = _documents(*csr_arrays(Xc), ebeta_t, alpha, gamma0, gamma0[:0], n_iter,
                                                      0.0, accelerate)
    assert counts[4] == 0 and np.mean(counts[np.arange(X.shape[0]) != 4] < K / 2) > 0.5
    np.testing.assert_allclose(gamma, g_ref, rtol=1e-9)
    np.testing.assert_allclose(sstats_t.T, s_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(sstats_t.sum(), X.sum(), rtol=1e-12)
    # the compact values are exp(E[log theta] - max) of the returned gamma, at the listed topics, and
    # the topics left out are those the promise covers: together less than a unit roundoff of every
    # phinorm, and each a share of the document's tokens that rounds to nothing beside alpha
    el = ref.dirichlet_expectation(gamma)
    et = np.exp(el - el.max(axis=1, keepdims=True))
    for d in np.flatnonzero(counts < K):
        n = counts[d]
        if n:
            np.testing.assert_allclose(values[d, :n], et[d, topics[d, :n]], rtol=1e-12)
            assert np.all(np.diff(topics[d, :n]) > 0)
            out = np.setdiff1d(np.arange(K), topics[d, :n])
            words = np.flatnonzero(X[d])
            phinorm = ebeta_t[words] @ et[d]
            assert np.all(ebeta_t[words][:, out] @ et[d, out] < UNIT * phinorm)
            expected_counts = et[d, out] * ((X[d, words] / phinorm) @ ebeta_t[words][:, out])
            assert np.all(expected_counts < UNIT * alpha[out])


@pytest.mark.parametrize("accelerate", [False, True])
def test_continuing_documents_under_new_topics_match_the_reference(accelerate):
    # documents continue from a solution under other topics: the E-step first tries the topics that
    # solution uses, and must take in the others when the new topics make them matter (here every
    # topic's words move to the next topic, so the tried set is always wrong)
    X, Xc, lam, rng = _separated(1)
    K = lam.shape[0]
    alpha = np.full(K, 0.002)
    elog1, ebeta1, _ = _expect(lam)
    gamma0 = rng.uniform(0.9, 1.1, (X.shape[0], K))
    prev, _, _ = e_step(*csr_arrays(Xc), ebeta1, alpha, gamma0, gamma0[:0], 50, 0.0, False, False)
    for lam2 in (lam * rng.uniform(0.8, 1.25, lam.shape), np.roll(lam, 1, axis=0)):
        elog2, ebeta2, log_scale2 = _expect(lam2)
        gamma, sstats_t, _, prev_doc = e_step_indexed(*csr_arrays(Xc), *column_index(*csr_arrays(Xc)[:2], X.shape[1]),
                                                      ebeta2, alpha, prev, prev, 30, 0.0, accelerate)
        g_ref, s_ref = ref.vb_e_step(X, elog2, alpha, prev, 30, 0.0, accelerate, safe=True)
        rtol = 1e-8 if accelerate else 1e-9  # (extrapolation amplifies rounding, as in test_kernels.py)
        np.testing.assert_allclose(gamma, g_ref, rtol=rtol)
        np.testing.assert_allclose(sstats_t.T, s_ref, rtol=rtol, atol=1e-12)
        constant = X @ log_scale2 + math.lgamma(alpha.sum()) - np.sum(special.gammaln(alpha))
        expected = lda_doc_bound(*csr_arrays(Xc), prev, alpha, ebeta2, log_scale2)
        np.testing.assert_allclose(prev_doc + constant, expected, rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(document_objectives(*csr_arrays(Xc), ebeta2, alpha, prev), prev_doc, rtol=1e-13,
                                   atol=1e-12)


def test_documents_longer_than_the_block_are_gathered_piece_by_piece():
    rng = np.random.default_rng(3)
    K = 8 + BLOCK // 300  # so that a document of 400 distinct terms does not fit the block (300 rows)
    width = BLOCK // K
    V = 500
    X = np.zeros((3, V))
    X[0, rng.choice(V, 400, replace=False)] = rng.integers(1, 4, 400)  # longer than the block: in pieces
    X[1, rng.choice(V, 30, replace=False)] = 1.0
    X[2, :width] = 1.0  # exactly the block's width
    assert np.count_nonzero(X[0]) > width
    lam = rng.gamma(0.3, 1.0, (K, V)) + 0.01
    alpha = np.full(K, 0.01)
    elog, ebeta_t, _ = _expect(lam)
    gamma0 = rng.uniform(0.9, 1.1, (3, K))
    for accelerate in (False, True):
        gamma, sstats_t, _ = e_step(*csr_arrays(sp.csr_matrix(X)), ebeta_t, alpha, gamma0, gamma0[:0], 6, 0.0, True,
                                    accelerate)
        g_ref, s_ref = ref.vb_e_step(X, elog, alpha, gamma0, 6, 0.0, accelerate)
        np.testing.assert_allclose(gamma, g_ref, rtol=1e-9)
        np.testing.assert_allclose(sstats_t.T, s_ref, rtol=1e-9, atol=1e-12)


def test_left_out_topics_do_not_depend_on_thread_count():
    X, Xc, lam, rng = _separated(2, D=300)
    K = lam.shape[0]
    alpha = np.full(K, 0.002)
    _, ebeta_t, _ = _expect(lam * rng.uniform(0.8, 1.25, lam.shape))
    start = rng.uniform(0.9, 1.1, (X.shape[0], K))
    prev = e_step(*csr_arrays(Xc), _expect(lam)[1], alpha, start, start[:0], 30, 1e-6, False, True)[0]
    start[::3] = prev[::3]  # a third continue from prev
    results = []
    for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(n)
        try:
            results.append(e_step(*csr_arrays(Xc), ebeta_t, alpha, start, prev, 50, 1e-6, True, True))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for a, b in zip(results[0], results[-1]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("symmetric", [True, False])
def test_theta_row_is_bitwise_the_dense_rows(symmetric):
    rng = np.random.default_rng(4)
    K = 24
    alpha = np.full(K, 0.03) if symmetric else rng.uniform(0.01, 0.2, K)
    psi_alpha = np.array([digamma(a) for a in alpha])
    for n_other in (0, 1, 5, 12, 13, 24):  # compact (at most K / 2 entries away from alpha) and dense
        g = alpha.copy()
        where = rng.choice(K, n_other, replace=False)
        g[where] = rng.gamma(0.5, 20.0, n_other) + 1e-3
        elog, et = np.empty(K), np.empty(K)
        _theta_row(g, alpha, psi_alpha, symmetric, elog, et, np.empty(2 * K), np.empty(K, dtype=np.int64))
        want = np.empty(K)
        dirichlet_expectation_row(g, want)
        np.testing.assert_array_equal(elog, want)
        want_et = np.empty(K)
        exp_shifted_row(want, want.max(), want_et, np.empty(K))
        np.testing.assert_array_equal(et, want_et)


def test_lgamma_sum_and_digamma_row():
    rng = np.random.default_rng(5)
    a = np.concatenate([rng.gamma(0.3, 1.0, 50) + 1e-90, rng.uniform(0.5, 12.0, 30), [1e-120, 1.0, 2.0, 10.0, 3e4]])
    np.testing.assert_allclose(lgamma_sum(a, np.empty(2 * a.size)), special.gammaln(a).sum(), rtol=1e-15,
                               atol=1e-14 * a.size)
    out = np.empty(a.size)
    digamma_row(a, a.size, out)
    np.testing.assert_array_equal(out, [digamma(x) for x in a])


def test_compact_column_pass_equals_the_dense_one():
    rng = np.random.default_rng(6)
    D, V, K = 40, 30, 7
    X = sp.random(D, V, density=0.3, random_state=7, format="csr")
    indptr, indices, _ = csr_arrays(X)
    columns = column_index(indptr, indices, V)
    dense = np.zeros((D, K))
    values = np.zeros((D, K))
    topics = np.zeros((D, K), dtype=np.uint16)
    counts = rng.integers(0, K + 1, D)
    for d in range(D):
        chosen = np.sort(rng.choice(K, counts[d], replace=False))
        v = rng.random(counts[d])
        dense[d, chosen] = v
        if counts[d] == K:
            values[d] = dense[d]
        else:
            values[d, :counts[d]], topics[d, :counts[d]] = v, chosen
    weight = rng.random(X.nnz)
    scale = rng.random((V, K))
    out = np.empty((V, K))
    column_accumulate_compact(*columns, weight, values, topics, counts, scale, out)
    W = sp.csr_matrix((weight, X.indices, X.indptr), shape=X.shape).toarray()
    np.testing.assert_allclose(out, scale * (W.T @ dense), rtol=1e-12, atol=0)
