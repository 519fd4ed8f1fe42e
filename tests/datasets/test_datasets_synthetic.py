"""Tests of make_lda_corpus, synthetic corpora drawn from LDA (topicvb/datasets/_synthetic.py)."""

from __future__ import annotations

import numpy as np
import pytest

from topicvb.datasets import SyntheticCorpus, make_lda_corpus


def test_make_lda_corpus_shapes_and_normalisation():
    result = make_lda_corpus(300, 80, 4, random_state=0)
    assert isinstance(result, SyntheticCorpus)
    corpus, topic_word, doc_topic = result
    assert corpus.X.shape == (300, 80) and corpus.X.dtype == np.int64
    assert topic_word.shape == (4, 80) and doc_topic.shape == (300, 4)
    np.testing.assert_allclose(topic_word.sum(axis=1), 1.0)
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0)
    assert corpus.vocabulary[:2] == ["w0000", "w0001"]
    assert (topic_word >= 0).all() and (doc_topic >= 0).all()


def test_make_lda_corpus_is_deterministic():
    a = make_lda_corpus(200, 50, 3, random_state=7)
    b = make_lda_corpus(200, 50, 3, random_state=7)
    c = make_lda_corpus(200, 50, 3, random_state=8)
    assert (a.corpus.X != b.corpus.X).nnz == 0
    np.testing.assert_array_equal(a.topic_word, b.topic_word)
    np.testing.assert_array_equal(a.doc_topic, b.doc_topic)
    assert (a.corpus.X != c.corpus.X).nnz > 0
    gen = make_lda_corpus(10, 5, 2, random_state=np.random.default_rng(1))
    assert gen.corpus.n_docs == 10


def test_make_lda_corpus_doc_lengths():
    corpus = make_lda_corpus(4000, 100, 5, doc_length=60, random_state=0).corpus
    assert abs(corpus.doc_lengths.mean() - 60) < 1.0
    ranged = make_lda_corpus(500, 100, 5, doc_length=(10, 20), random_state=0).corpus
    assert ranged.doc_lengths.min() >= 10 and ranged.doc_lengths.max() <= 20
    assert set(np.unique(ranged.doc_lengths)) == set(range(10, 21))


def test_make_lda_corpus_counts_follow_the_model():
    corpus, topic_word, doc_topic = make_lda_corpus(3000, 40, 3, doc_length=200, random_state=1)
    expected = (corpus.doc_lengths[:, None] * doc_topic).sum(axis=0) @ topic_word
    observed = np.asarray(corpus.X.sum(axis=0)).ravel()
    np.testing.assert_allclose(observed, expected, rtol=0.05, atol=50)


def test_make_lda_corpus_asymmetric_prior_and_separation():
    alpha = np.array([5.0, 1.0, 1.0, 1.0])
    _, topic_word, doc_topic = make_lda_corpus(3000, 40, 4, doc_topic_prior=alpha, separated=True, random_state=0)
    np.testing.assert_allclose(doc_topic.mean(axis=0), alpha / alpha.sum(), atol=0.02)
    for k in range(4):
        assert topic_word[k, 10 * k : 10 * (k + 1)].sum() >= 0.9
    _, tw, _ = make_lda_corpus(100, 40, 4, separated=0.99, random_state=0)
    assert min(tw[k, 10 * k : 10 * (k + 1)].sum() for k in range(4)) >= 0.99


def test_make_lda_corpus_large_is_fast():
    corpus = make_lda_corpus(20000, 2000, 10, doc_length=50, random_state=0).corpus
    assert corpus.n_docs == 20000 and abs(corpus.doc_lengths.mean() - 50) < 0.5


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_topics": 0}, ValueError, "n_topics == 0, must be >= 1"),
        ({"n_docs": 2.5}, TypeError, "n_docs must be an instance of"),
        ({"doc_topic_prior": -1.0}, ValueError, "doc_topic_prior must be a positive finite number, got -1.0"),
        (
            {"doc_topic_prior": [1.0, 1.0]},
            ValueError,
            r"doc_topic_prior must be a positive number or a vector of length 3",
        ),
        ({"topic_word_prior": 0}, ValueError, "topic_word_prior must be a positive finite number"),
        ({"doc_length": -5}, ValueError, "doc_length must be a non-negative mean length"),
        ({"doc_length": (9, 3)}, ValueError, r"0 <= low <= high, got \(9, 3\)"),
        ({"doc_length": "long"}, TypeError, "doc_length must be a number"),
        ({"separated": 1.5}, ValueError, r"separated must be a bool or a fraction in \(0, 1\], got 1.5"),
        ({"separated": True, "n_terms": 2}, ValueError, "n_terms=2 < n_topics=3"),
        ({"random_state": "seed"}, TypeError, "random_state must be None, an int"),
        ({"random_state": -1}, ValueError, r"random_state must be a non-negative int \(a seed\), got -1"),
        ({"doc_length": 1e30}, ValueError, r"doc_length must be a non-negative mean length \(at most 2147483647\)"),
        ({"doc_length": 2.0**31}, ValueError, r"doc_length must be a non-negative mean length \(at most 2147483647\)"),
        ({"doc_length": (0, 2**63)}, ValueError, r"doc_length as a range must be integers up to 2147483647"),
        ({"doc_length": (2**31, 2**31)}, ValueError, r"doc_length as a range must be integers up to 2147483647"),
    ],
)
def test_make_lda_corpus_errors(kwargs, error, match):
    args = {"n_docs": 10, "n_terms": 20, "n_topics": 3} | kwargs
    with pytest.raises(error, match=match):
        make_lda_corpus(args.pop("n_docs"), args.pop("n_terms"), args.pop("n_topics"), **args)


def test_separated_takes_numpy_bools_and_names_a_wrong_type():
    from topicvb.datasets import make_lda_corpus

    a = make_lda_corpus(20, 12, 3, separated=np.True_, random_state=0)
    b = make_lda_corpus(20, 12, 3, separated=True, random_state=0)
    np.testing.assert_array_equal(a.topic_word, b.topic_word)  # (before: "separated must be a bool", a ValueError)
    with pytest.raises(TypeError, match=r"separated must be a bool or a fraction in \(0, 1\], got str 'yes'"):
        make_lda_corpus(20, 12, 3, separated="yes")
