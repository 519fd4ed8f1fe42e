"""Tests of streaming corpora in mini-batches (topicvb/datasets/_stream.py)."""

from __future__ import annotations

import numpy as np
import pytest


def test_iter_uci_batches_stack_to_read_uci(tmp_path):
    import scipy.sparse as _sp

    from topicvb.datasets import iter_uci, make_lda_corpus, read_uci, write_uci

    data = make_lda_corpus(53, 17, 3, random_state=1, doc_length=6)
    X = data.corpus.X.tolil()
    X[10] = 0  # empty documents, also at the end
    X[52] = 0
    X = X.tocsr()
    X.eliminate_zeros()
    path = tmp_path / "docword.test.txt.gz"
    write_uci(X, None, path)
    batches = list(iter_uci(path, batch_size=10))
    assert [b.shape[0] for b in batches] == [10, 10, 10, 10, 10, 3]
    stacked = _sp.vstack(batches).tocsr()
    expected = read_uci(path).X
    assert (stacked != expected).nnz == 0 and stacked.shape == expected.shape


def test_iter_uci_refuses_unsorted_and_truncated_files(tmp_path):
    from topicvb.datasets import iter_uci

    unsorted = tmp_path / "docword.unsorted.txt"
    unsorted.write_text("3\n4\n3\n2 1 1\n1 2 1\n3 4 2\n")
    with pytest.raises(ValueError, match="sorted by docID for streaming; line 5 goes back"):
        list(iter_uci(unsorted, batch_size=1))
    blanks = tmp_path / "docword.blanks.txt"  # (blank lines were not counted: line 5 was reported)
    blanks.write_text("3\n4\n3\n2 1 1\n\n\n1 2 1\n3 4 2\n")
    with pytest.raises(ValueError, match="sorted by docID for streaming; line 7 goes back"):
        list(iter_uci(blanks, batch_size=1))
    short = tmp_path / "docword.short.txt"
    short.write_text("3\n4\n5\n1 1 1\n2 2 1\n")
    with pytest.raises(ValueError, match="the header says NNZ=5 data lines, but the file has 2"):
        list(iter_uci(short, batch_size=2))
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        list(iter_uci(short, batch_size=0))


def test_online_lda_trains_out_of_core_from_a_stream(tmp_path):
    import warnings

    from topicvb import OnlineLDA
    from topicvb.datasets import iter_uci, make_lda_corpus, uci_header, write_uci

    data = make_lda_corpus(600, 60, 4, separated=True, random_state=2, doc_length=50)
    path = tmp_path / "docword.stream.txt"
    write_uci(data.corpus.X, None, path)
    n_docs, _, _ = uci_header(path)
    model = OnlineLDA(4, batch_size=100, total_samples=n_docs, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(5):
            for batch in iter_uci(path, batch_size=100):
                model.partial_fit(batch)
    assert model.n_docs_seen_ == 3000 and model.n_batch_iter_ == 30
    a = data.topic_word / np.linalg.norm(data.topic_word, axis=1, keepdims=True)
    b = model.topic_word_distribution()
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    assert (a @ b.T).max(axis=1).mean() >= 0.9
