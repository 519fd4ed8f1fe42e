"""Shared by the tests of CollapsedLDA's counts sweeps (tests/models/test_collapsed_counts.py, test_squarem.py):
their LDA-generated corpus, a fit with warnings silenced, and topic recovery."""

import warnings

import numpy as np

from topicvb import CollapsedLDA
from topicvb.datasets import make_lda_corpus


def lda_corpus():
    """(X, true topic-word matrix) of a 1,500-document, 800-term corpus drawn from 10 topics."""
    c = make_lda_corpus(1500, 800, 10, random_state=0)
    return c.corpus.X, c.topic_word


def fit_counts(X, **params):
    """CollapsedLDA(n_components=10, random_state=0, storage="counts", **params) fitted on X, warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CollapsedLDA(**{"n_components": 10, "random_state": 0, "storage": "counts", **params}).fit(X)


def recovery(true_topics, topic_word):
    """Mean over the true topics of the cosine similarity to the best-matching fitted topic."""
    a = true_topics / np.linalg.norm(true_topics, axis=1, keepdims=True)
    b = topic_word / np.linalg.norm(topic_word, axis=1, keepdims=True)
    return float((a @ b.T).max(axis=1).mean())


def resume_counts(X, path, **params):
    """CollapsedLDA(n_components=10, random_state=0, storage="counts", checkpoint_path=path, **params) resumed from
    the checkpoint at ``path`` on X, warnings silenced.

    Tests write that checkpoint with a fit of a smaller ``max_iter`` (an interruption after that sweep). That stands
    for an interruption only while the stop comes before the uninterrupted fit's late moves, which a fit with moves
    tries after sweep ``max_iter - 10`` (``_moves.late_window``): the shorter fit tries them at its own
    ``max_iter - 10`` or not at all, so past that point the two fits differ by design, not by a fault of
    resumption."""
    model = CollapsedLDA(**{"n_components": 10, "random_state": 0, "storage": "counts", "checkpoint_path": path,
                            **params})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, resume=True)
