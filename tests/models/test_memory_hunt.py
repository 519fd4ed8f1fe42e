"""Memory at scale: what a hunt for arrays that grow with the corpus found (session 18).

The collapsed models' inference of new documents held the responsibilities of every cell of X at once
(n_nonzero x K): it is now made a block of documents at a time, with exactly the same result.
"""

from __future__ import annotations

import numpy as np
import pytest

from topicvb import CollapsedLDA, StochasticCollapsedLDA
from topicvb.datasets import make_lda_corpus
from topicvb.models import _collapsed

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning",
                                        "ignore::topicvb.exceptions.DeadTopicWarning")


@pytest.fixture(scope="module")
def corpus():
    X = make_lda_corpus(300, 80, 4, doc_length=60, random_state=0).corpus.X.tocsr()
    X[7] = 0  # an empty document between others
    X.eliminate_zeros()
    return X


@pytest.mark.parametrize("cls", [CollapsedLDA, StochasticCollapsedLDA])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_inference_in_blocks_equals_one_block(corpus, cls, dtype, monkeypatch):
    model = cls(4, random_state=0, max_iter=10, dtype=dtype).fit(corpus)
    whole = (model.transform(corpus), model.score(corpus), model.bound(corpus))
    cells = []
    calls = _collapsed.sweep_documents

    def counted(indptr, *args):
        cells.append(int(indptr[-1]))
        return calls(indptr, *args)

    monkeypatch.setattr(_collapsed, "sweep_documents", counted)
    # blocks of about 100 cells (a document has about 40): many blocks, some of one document
    monkeypatch.setattr(_collapsed, "INFER_BLOCK_BYTES", 100 * 4 * np.dtype(dtype).itemsize)
    blocks = (model.transform(corpus), model.score(corpus), model.bound(corpus))
    assert len(cells) > 3 * 10 and max(cells) <= max(100, int(np.diff(corpus.indptr).max()))  # many blocks a call
    np.testing.assert_array_equal(blocks[0], whole[0])
    assert blocks[1] == whole[1] and blocks[2] == whole[2]
    monkeypatch.setattr(_collapsed, "INFER_BLOCK_BYTES", 1)  # one document a block
    np.testing.assert_array_equal(model.transform(corpus), whole[0])


def test_top_columns_equal_the_first_of_a_stable_argsort():
    """top_words (the models', the inspection's, select_n_topics') pick each row's top columns without sorting
    whole rows (a (K, V) int64 array beside the negated copy): ties and -inf (relevance of unseen terms) alike."""
    from topicvb.evaluation._common import top_columns

    rng = np.random.default_rng(0)
    for trial in range(200):
        K, V = int(rng.integers(1, 6)), int(rng.integers(1, 400))
        scores = rng.integers(0, 5, size=(K, V)).astype(float)  # many ties
        if trial % 3 == 0:
            scores[rng.random((K, V)) < 0.3] = -np.inf
        if trial % 7 == 0:
            scores = rng.random((K, V)).astype(np.float32)
        for n in (1, 2, 3, 10, 50, 1000):
            np.testing.assert_array_equal(top_columns(scores, n), np.argsort(-scores, axis=1, kind="stable")[:, :n])


@pytest.mark.parametrize("init", ["random", "seeded"])
def test_batch_vb_holds_three_topic_arrays_not_five(init):
    """BatchLDA's loop held the caller's first lam, the previous statistics during the next E-step and the old lam
    during the M-step: 5.6 (K, V) arrays at its peak where lam, the topics' expectations and one set of
    statistics (3, plus the E-step's scratch) are needed. The M-step now writes into lam and the statistics go
    first: the same fit, bit for bit, at about 3.6."""
    import tracemalloc

    import scipy.sparse as sp

    from topicvb import BatchLDA

    K, V = 10, 20_000
    rng = np.random.default_rng(0)
    X = sp.random(400, V, density=0.002, format="csr", random_state=1,
                  data_rvs=lambda n: rng.integers(1, 4, n)).astype(np.float64)
    BatchLDA(K, max_iter=2, random_state=0, init=init).fit(X[:20])  # (compiled outside the trace)
    tracemalloc.start()
    try:
        model = BatchLDA(K, max_iter=4, tol=0, random_state=0, init=init).fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    data = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    assert (peak - data) / (K * V * 8) < 4.2
    again = BatchLDA(K, max_iter=4, tol=0, random_state=0, init=init).fit(X)
    np.testing.assert_array_equal(model.components_, again.components_)
