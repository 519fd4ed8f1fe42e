"""The seeded start's memory (issue #22): the lean ``seeded_topics`` and ``start_counts`` give, bit for bit,
the numbers of the plain NumPy/SciPy computation (kept here as the reference: the embedding and its term-major
copy as CSR matrices, the cluster sums as a sparse product, one (K, V) noise draw), and their traced peak
memory stays near two (K, V) float64 arrays."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb.datasets import make_lda_corpus
from topicvb._kernels.seeding import candidate_distances, nearest_centre
from topicvb._validation import csr_arrays
from topicvb.models._start import initial_topics, prior_informed_start, random_start, seeded_topics
from topicvb.models._collapsed_start import start_blocks, start_counts


def _reference_seeded_topics(X, n_topics, rng, dtype, n_refine=2, centre_weight=0.5):
    """The seeded start as plain NumPy/SciPy (the implementation before the memory work, unchanged)."""
    n_docs, n_terms = X.shape
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size == 0:
        return rng.gamma(100.0, 0.01, size=(n_topics, n_terms)).astype(dtype)
    X = sp.csr_matrix(X)
    row_lengths = np.repeat(np.maximum(lengths, 1.0), np.diff(X.indptr))
    tf = sp.csr_matrix((np.asarray(X.data, dtype=np.float64) / row_lengths, X.indices, X.indptr), shape=X.shape)
    emb = sp.csr_matrix((np.sqrt(tf.data), tf.indices, tf.indptr), shape=X.shape)
    sq = (lengths > 0).astype(np.float64)
    emb_t = emb.T.tocsr()
    arrays = (*csr_arrays(emb), *csr_arrays(emb_t))
    n_trials = 2 + int(np.log(n_topics))
    scratch = np.empty((n_trials, n_docs), dtype=np.float64)

    def after_adding(candidates, dist):
        out = scratch[:len(candidates)]
        totals = candidate_distances(*arrays, sq, dist, np.asarray(candidates, dtype=np.int64), out)
        return totals, out

    seeds = [int(rng.choice(nonempty))]
    _, first = after_adding([seeds[0]], np.where(lengths > 0, np.inf, 0.0))
    dist = first[0].copy()
    for _ in range(1, n_topics):
        total = dist.sum()
        if total <= 0:
            seeds.append(int(rng.choice(nonempty)))
            continue
        candidates = rng.choice(n_docs, size=n_trials, p=dist / total)
        totals, new_dist = after_adding(candidates, dist)
        best = int(np.argmin(totals))
        seeds.append(int(candidates[best]))
        dist = new_dist[best].copy()
    centres = tf[seeds].toarray()
    if n_refine > 0:
        centres = 0.5 * centres + 0.5 / n_terms
        docs = nonempty
        emb_docs, tf_docs = (emb, tf) if docs.size == n_docs else (emb[docs], tf[docs])
        doc_arrays = csr_arrays(emb_docs)
        for _ in range(n_refine):
            labels = nearest_centre(*doc_arrays, np.ascontiguousarray(np.sqrt(centres).T))
            members = sp.csr_matrix((np.ones(docs.size), (labels, np.arange(docs.size))),
                                    shape=(n_topics, docs.size))
            counts = np.asarray(members.sum(axis=1)).ravel()
            sums = np.asarray((members @ tf_docs).todense())
            filled = counts > 0
            centres[filled] = sums[filled] / counts[filled, None]
    scale = lengths.sum() / n_topics
    noise = random_start(rng, (n_topics, n_terms))
    centres = scale * (centre_weight * centres + (1.0 - centre_weight) / n_terms) * noise
    return centres.astype(dtype, copy=False)


def _reference_start_counts(X, rng, n_topics, dtype, init, eta, variances):
    """CollapsedLDA's start counts as plain NumPy/SciPy (before the memory work)."""
    D, V = X.shape
    X = sp.csr_matrix(X, dtype=np.float64)
    if init == "seeded":
        lam = prior_informed_start(_reference_seeded_topics(X, n_topics, rng, np.float64), eta, X)
        weights = np.ascontiguousarray((lam / lam.sum(axis=1, keepdims=True)).T)
        totals = weights.sum(axis=1, keepdims=True)
        weights = np.divide(weights, totals, out=np.zeros_like(weights), where=totals > 0)
        term_totals = np.asarray(X.sum(axis=0)).ravel()[:, None]
        n_dk, n_wk = X @ weights, term_totals * weights
        if variances:
            spread = weights * (1.0 - weights)
            v_dk, v_wk = X @ spread, term_totals * spread
        else:
            v_dk, v_wk = np.zeros((0, n_topics)), np.zeros((0, n_topics))
        return tuple(np.ascontiguousarray(a, dtype=dtype) for a in (n_dk, n_wk, v_dk, v_wk))
    rows = np.repeat(np.arange(D), np.diff(X.indptr))
    n_dk, n_wk = np.zeros((D, n_topics)), np.zeros((V, n_topics))
    v_dk, v_wk = np.zeros((D if variances else 0, n_topics)), np.zeros((V if variances else 0, n_topics))
    for start, block in start_blocks(X, rng, n_topics, init, eta):
        end = start + block.shape[0]
        first, last = rows[start], rows[end - 1]
        cells = np.arange(block.shape[0])
        by_doc = sp.csr_matrix((np.ones(cells.size), (rows[start:end] - first, cells)),
                               shape=(last - first + 1, cells.size))
        terms, where = np.unique(X.indices[start:end], return_inverse=True)
        by_term = sp.csr_matrix((np.ones(cells.size), (where, cells)), shape=(terms.size, cells.size))
        if variances:
            spread = block * (1.0 - block)
            spread *= X.data[start:end, None]
            v_dk[first:last + 1] += by_doc @ spread
            v_wk[terms] += by_term @ spread
        block *= X.data[start:end, None]
        n_dk[first:last + 1] += by_doc @ block
        n_wk[terms] += by_term @ block
    return tuple(a.astype(dtype, copy=False) for a in (n_dk, n_wk, v_dk, v_wk))


def _bits(a, b):
    """Equal bit for bit (dtype, shape, every byte: 0.0 and -0.0 differ)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.fixture(scope="module")
def corpus():
    X = make_lda_corpus(700, 400, 8, doc_length=40, random_state=5).corpus.X.tocsr()
    empty = sp.csr_matrix((3, X.shape[1]), dtype=X.dtype)
    return sp.vstack([X[:100], empty, X[100:], empty]).tocsr()  # empty documents at two places


@pytest.mark.parametrize("n_topics", [1, 7, 30])
@pytest.mark.parametrize("n_refine, centre_weight", [(2, 0.5), (0, 0.5), (1, 0.3), (3, 0.9)])
def test_seeded_topics_are_those_of_the_plain_computation(corpus, n_topics, n_refine, centre_weight):
    for dtype in (np.float64, np.float32):
        for make in (np.random.RandomState, np.random.default_rng):
            got = seeded_topics(corpus, n_topics, make(n_topics), dtype, n_refine=n_refine, centre_weight=centre_weight)
            ref = _reference_seeded_topics(corpus, n_topics, make(n_topics), dtype, n_refine=n_refine,
                                           centre_weight=centre_weight)
            assert _bits(got, ref), (dtype, make)


def test_seeded_topics_with_integer_counts_duplicate_seeds_and_more_topics_than_documents():
    X = sp.csr_matrix(np.array([[2, 0, 1, 0], [0, 0, 0, 0], [2, 0, 1, 0], [0, 3, 0, 1], [0, 0, 0, 0]], dtype=np.int64))
    for K in (2, 6):  # 6 topics, 2 distinct documents: seeds repeat and clusters stay empty
        got = seeded_topics(X, K, np.random.RandomState(1), np.float64)
        assert _bits(got, _reference_seeded_topics(X, K, np.random.RandomState(1), np.float64))
    # the noise is drawn block by block: many rows (a block holds several) and one very long row
    wide = make_lda_corpus(60, 3000, 3, doc_length=30, random_state=2).corpus.X
    assert _bits(seeded_topics(wide, 50, np.random.RandomState(0), np.float64),
                 _reference_seeded_topics(wide, 50, np.random.RandomState(0), np.float64))


def test_initial_topics_with_a_scale_is_the_plain_product(corpus):
    got = initial_topics("seeded", corpus, 9, np.random.RandomState(2), np.float32, scale=3.7)
    ref = (_reference_seeded_topics(corpus, 9, np.random.RandomState(2), np.float64) * 3.7).astype(np.float32)
    assert _bits(got, ref)


@pytest.mark.parametrize("init", ["seeded", "random"])
@pytest.mark.parametrize("variances", [False, True])
def test_start_counts_are_those_of_the_plain_computation(corpus, init, variances):
    eta = np.full((6, corpus.shape[1]), 0.05)
    eta[0, :10] = 2.0  # a seeded topic
    eta[1, 10:20] = 0.0  # excluded pairs
    eta[2:, 30] = 0.0
    for prior in (0.1, eta):
        for dtype in (np.float64, np.float32):
            got = start_counts(corpus, np.random.RandomState(4), 6, dtype, init, prior, variances)
            ref = _reference_start_counts(corpus, np.random.RandomState(4), 6, dtype, init, prior, variances)
            for a, b in zip(got, ref):
                assert a.flags.c_contiguous and _bits(a, b), (init, variances, type(prior), dtype)


def _traced_peak(f):
    f()  # compiled kernels, pools
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_seeded_start_holds_at_most_two_topic_by_term_arrays():
    # K x V dominant (60 x 20,000 float64: 9.2 MiB; the plain computation peaked near 7 of them)
    X = make_lda_corpus(1500, 20000, 10, doc_length=30, random_state=0).corpus.X.tocsr()
    K, (D, V) = 60, X.shape
    kv = K * V * 8
    small = 16 * X.nnz + 80 * D + (2 << 20)  # the term-major embedding, (D,) arrays, the blocked steps
    assert _traced_peak(lambda: seeded_topics(X, K, np.random.RandomState(0), np.float64)) <= 2 * kv + small
    # the counts' start: the outputs n_dk (D, K) and n_wk (V, K), and no more than the seeding before them
    outputs = (D + V) * K * 8
    peak = _traced_peak(lambda: start_counts(X, np.random.RandomState(0), K, np.float64, "seeded", 0.1, False))
    assert peak <= max(2 * kv, outputs) + small
