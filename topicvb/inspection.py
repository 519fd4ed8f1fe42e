"""Looking at fitted topics: top words (with relevance), prevalence, representative documents,
a topic table for notebooks and files, and the arguments of pyLDAvis.

Every function sees a model only through ``components_`` (K x V), ``topic_word_distribution()``
where the model has it, and ``transform``, so it works for every topicvb estimator and for
wrapped peer models (:class:`topicvb.evaluation.FixedTopicModel`).

The top words (:func:`top_words`) are computed in :mod:`topicvb._inspection_words`, the junk-topic
flags (:func:`junk_topics`, :func:`is_non_word`) in :mod:`topicvb._inspection_junk` and the table
(:class:`TopicTable`) is drawn by :mod:`topicvb._inspection_table`; every name is imported from here.
"""

from __future__ import annotations

import logging
import numbers

import numpy as np

from . import _inspection_junk as _junk
from ._inspection_coherence import check_coherence_measure, coherence_values, reference_of
from ._inspection_junk import is_non_word, junk_topics
from ._inspection_table import TopicTable
from ._inspection_words import TopicWords, as_model, top_words
from ._completion import normalised_rows
from ._validation import check_bool
from .evaluation._common import doc_topic as _doc_topic
from .evaluation._common import (
    check_counts,
    check_model,
    check_positive_int,
    prevalence_and_doc_topic,
    resolve_vocabulary,
    topic_word,
)
from .evaluation.coherence import coherence as _coherence

logger = logging.getLogger(__name__)

__all__ = [
    "TopicTable",
    "TopicWords",
    "is_non_word",
    "junk_topics",
    "representative_documents",
    "summary",
    "to_pyldavis",
    "top_words",
    "topic_prevalence",
]


#: The thresholds of :func:`junk_topics` and the reasons it gives (see :mod:`topicvb._inspection_junk`,
#: whose values it uses).
JUNK_TOP_WORDS, JUNK_NON_WORD_SHARE = _junk.JUNK_TOP_WORDS, _junk.JUNK_NON_WORD_SHARE
JUNK_FEW_DOCS, JUNK_DOC_SHARE, JUNK_DOCS_PER_TOPIC = _junk.JUNK_FEW_DOCS, _junk.JUNK_DOC_SHARE, _junk.JUNK_DOCS_PER_TOPIC
NON_WORDS, FEW_DOCUMENTS = _junk.NON_WORDS, _junk.FEW_DOCUMENTS


def topic_prevalence(model, X) -> np.ndarray:
    """Each topic's share of the corpus tokens: sum_d N_d theta_dk / N.

    theta_d = ``model.transform(X)`` (rows summing to 1) and N_d the length of document d, so
    empty documents weigh nothing and the shares sum to 1.

    Parameters
    ----------
    model : fitted topic model or TopicPipeline
        A :class:`~topicvb.TopicPipeline` (what :func:`topicvb.load` returns for a model saved with
        its vectorizer) stands for its model.
    X : {array-like, sparse matrix} of shape (n_docs, n_terms)
        Term counts over the model's vocabulary (for a pipeline: ``pipe.vectorizer.transform(texts)``).

    Returns
    -------
    ndarray of shape (n_topics,)
        Non-negative, sums to 1.

    Raises
    ------
    ValueError
        If ``X`` has the wrong width, negative counts or no token at all.
    """
    model, _ = as_model(model)
    check_model(model, "topic_prevalence")
    X = check_counts(X, model, name="X", caller="topic_prevalence")
    return prevalence_and_doc_topic(model, X)[0]


def representative_documents(model, X, n: int = 5, *, doc_topic=None) -> list[list[tuple[int, float]]]:
    """The documents with the largest share of each topic.

    Parameters
    ----------
    model : fitted topic model or TopicPipeline
        A :class:`~topicvb.TopicPipeline` stands for its model.
    X : {array-like, sparse matrix} of shape (n_docs, n_terms)
        Term counts; empty documents are never returned (their proportions are the prior mean).
    n : int, default=5
        Documents per topic; clipped to the number of non-empty documents.
    doc_topic : ndarray of shape (n_docs, n_topics), default=None
        Precomputed ``model.transform(X)``, to avoid recomputing it.

    Returns
    -------
    list of list of (int, float)
        For each topic, (row index in X, theta_dk) pairs, largest share first; ties go to the
        longer document, then the lower index.
    """
    model, _ = as_model(model)
    check_model(model, "representative_documents")
    n = check_positive_int(n, "n")
    X = check_counts(X, model, name="X", caller="representative_documents")
    if doc_topic is None:
        theta = _doc_topic(model, X)
    else:
        theta = np.asarray(doc_topic, dtype=np.float64)
        if theta.shape != (X.shape[0], int(np.shape(model.components_)[0])):
            raise ValueError(f"doc_topic must have shape {(X.shape[0], int(np.shape(model.components_)[0]))}, "
                             f"got {theta.shape}.")
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    docs = np.flatnonzero(lengths > 0)
    out = []
    for k in range(theta.shape[1]):
        order = np.lexsort((docs, -lengths[docs], -theta[docs, k]))[:n]
        out.append([(int(docs[i]), float(theta[docs[i], k])) for i in order])
    return out

def summary(model, X=None, vocabulary=None, n: int = 10, coherence=None, *, relevance: float | None = None,
            term_frequency=None, coherence_measure: str = "c_npmi") -> TopicTable:
    """A :class:`TopicTable` of the model's topics: top words, prevalence, coherence and junk flags.

    The topics are named by the model's ``topic_labels_`` (the labels of guided topics, see
    :mod:`topicvb.guided`); the table shows the names when some topic has one other than ``topic_k``.

    Topics that :func:`junk_topics` flags (at least half of the 10 top words non-words, or more
    than half of the tokens in 10 or fewer documents; the document rule needs ``X``) get their
    reasons in the table's ``junk`` column, as do seeded topics that lost their seed words to other
    topics (``lost seed words (to 'label')``, :func:`topicvb.guided.seed_holding`).

    Parameters
    ----------
    model : fitted topic model or TopicPipeline
        A :class:`~topicvb.TopicPipeline` (what :func:`topicvb.load` returns for a model saved
        with its vectorizer) stands for its model, and its vectorizer's terms for ``vocabulary``.
    X : {array-like, sparse matrix} of shape (n_docs, n_terms), default=None
        Corpus counts; when given, the table has each topic's prevalence (:func:`topic_prevalence`),
        and relevance can use its term frequencies.
    vocabulary : sequence of str or Vocabulary, default=None
        Column names (see :func:`top_words`).
    n : int, default=10
        Top words per topic (clipped to the vocabulary size).
    coherence : array-like, CoherenceScores or reference corpus, default=None
        Coherence per topic: precomputed values (a :class:`~topicvb.evaluation.CoherenceScores`,
        or any 1-D array-like of n_topics numbers: a list, tuple, NumPy array, pandas Series),
        or a reference corpus (anything :func:`topicvb.evaluation.coherence` accepts) to compute
        ``coherence_measure`` of the top ``n`` words in.
    relevance : float in [0, 1], default=None
        Rank words by relevance instead of probability (see :func:`top_words`).
    term_frequency : array-like of shape (n_terms,), default=None
        Term frequencies for relevance; they take precedence over those of ``X``.
    coherence_measure : {"u_mass", "c_uci", "c_npmi", "c_v"}, default="c_npmi"
        Measure computed when ``coherence`` is a reference corpus (checked in any case).

    Returns
    -------
    TopicTable

    Raises
    ------
    ValueError
        If ``coherence_measure`` is unknown, precomputed ``coherence`` has the wrong number of
        values or a value that is not finite, or ``X`` does not fit the model or has no token.
    TypeError
        If ``coherence`` is neither numbers nor a reference corpus.

    Examples
    --------
    >>> import io
    >>> from topicvb import BatchLDA
    >>> from topicvb.datasets import make_lda_corpus
    >>> corpus, _, _ = make_lda_corpus(100, 30, 3, separated=True, random_state=0)
    >>> model = BatchLDA(3, random_state=0).fit(corpus.X)
    >>> table = summary(model, corpus.X, corpus.vocabulary, n=5, coherence=corpus)
    >>> buf = io.StringIO(); table.to_csv(buf); buf.getvalue().splitlines()[0]
    'topic,rank,word,weight,prevalence,coherence,junk'
    """
    model, vocabulary = as_model(model, vocabulary)
    check_model(model, "summary")
    check_coherence_measure(coherence_measure, "summary")
    words = top_words(model, vocabulary, n, relevance, term_frequency=term_frequency, X=X)
    scores, measure, reference = None, None, None
    if coherence is not None:
        given = coherence_values(coherence, len(words), "summary")
        if given is not None:
            scores, measure = given
        else:
            reference = reference_of(coherence, "summary")
    prevalence, theta = None, None
    if X is not None:
        X = check_counts(X, model, name="X", caller="summary")
        prevalence, theta = prevalence_and_doc_topic(model, X, "summary")
    junk = _with_lost_seeds(model, junk_topics(model, X, vocabulary, doc_topic=theta))
    if reference is not None:
        result = _coherence(words, reference, measure=coherence_measure)
        scores, measure = result.per_topic, result.measure
    return TopicTable(words, prevalence, scores, measure, title=type(model).__name__, junk=junk, labels=words.labels)


def _with_lost_seeds(model, junk):
    """``junk`` (a list of reasons per topic) with ``lost seed words (to 'label')`` for each seeded topic that lost
    its seed words to another topic (:func:`topicvb.guided.seed_holding`); not for models without seeds, nor
    for a PLSA model saved without ``topic_tokens_``."""
    from ._seed_holding import _known_holdings

    labels = getattr(model, "topic_labels_", None)
    junk = [list(reasons) for reasons in junk]
    for h in _known_holdings(model):
        if h.lost:
            went = str(labels[h.taken_by]) if labels is not None else f"topic_{h.taken_by}"
            junk[h.topic].append(f"lost seed words (to {went!r})")
    return junk


#: Default floor of the topic-word probabilities handed to pyLDAvis (see :func:`to_pyldavis`).
PYLDAVIS_MIN_PROBABILITY = 1e-12


def to_pyldavis(model, X, vocabulary=None, *, drop_unused_terms: bool = True,
                min_probability: float = PYLDAVIS_MIN_PROBABILITY) -> dict:
    """The arguments of ``pyLDAvis.prepare`` for the model on corpus ``X``.

    Use as ``pyLDAvis.prepare(**to_pyldavis(model, X, vocab), sort_topics=False)``; pyLDAvis itself
    is not needed here. By default (``sort_topics=True``) pyLDAvis renumbers the topics by
    prevalence, from 1, so its "Topic 1" is the most prevalent topic, not topicvb's topic 0; with
    ``sort_topics=False`` its topic k + 1 is topicvb's topic k. pyLDAvis shows numbers only: topic
    names (a guided topic's label, ``topic_labels_``) are not carried over. pyLDAvis needs at least
    2 topics (its inter-topic map fails on one), so a model of one topic is refused here.

    pyLDAvis takes logarithms of the topic-word probabilities and of their averages (the
    Jensen-Shannon distances of its map, the relevance of its bars), so an exact zero, or a value
    so small that halving it underflows to zero, makes its map fail with ``LinAlgError: Array must
    not contain infs or NaNs``. pLSA, which has no prior, drives the probabilities of terms a topic
    does not use to such values. So every probability below ``min_probability`` is raised to it,
    and each topic row is renormalised to sum to 1: the other probabilities change by a relative
    ``n_terms * min_probability`` at most (below 1e-7 for a million terms with the default), far
    below anything pyLDAvis shows.

    A topic with no probability left on the terms kept (with ``drop_unused_terms``, when none of
    its terms occurs in ``X``, e.g. held-out documents) gets a uniform row over them, whatever
    ``min_probability`` (it is what the floor makes of such a row), and a warning in the log: rows
    always sum to 1.

    Parameters
    ----------
    model : fitted topic model or TopicPipeline
        A :class:`~topicvb.TopicPipeline` stands for its model (and its vectorizer's terms for
        ``vocabulary``).
    X : {array-like, sparse matrix} of shape (n_docs, n_terms)
        The corpus (usually the training corpus).
    vocabulary : sequence of str or Vocabulary, default=None
        Column names (see :func:`top_words`).
    drop_unused_terms : bool, default=True
        Remove terms that never occur in ``X`` (and renormalise the topic rows over the rest):
        pyLDAvis takes logarithms of term frequencies and fails on zeros.
    min_probability : float, default=1e-12
        Floor of the topic-word probabilities, applied before the rows are renormalised; 0 leaves
        them as they are. At most ``1 / n_terms``.

    Returns
    -------
    dict
        ``topic_term_dists`` (n_topics, n_terms) rows summing to 1, in topicvb's topic order, no
        entry below about ``min_probability``; ``doc_topic_dists`` (n_docs, n_topics) rows summing to 1;
        ``doc_lengths`` (n_docs,) token counts; ``vocab`` list of str; ``term_frequency``
        (n_terms,) corpus counts.

    Raises
    ------
    ValueError
        If the model has only one topic (pyLDAvis needs at least 2 topics), ``X`` does not fit the
        model or has no tokens, or ``min_probability`` is not a number in [0, 1 / n_terms].
    TypeError
        If ``drop_unused_terms`` is not a bool.
    """
    model, vocabulary = as_model(model, vocabulary)
    check_model(model, "to_pyldavis")
    n_topics = int(np.shape(model.components_)[0])
    if n_topics < 2:
        raise ValueError(f"to_pyldavis: pyLDAvis needs at least 2 topics (its inter-topic map fails on one); this "
                         f"{type(model).__name__} has {n_topics}.")
    drop_unused_terms = check_bool(drop_unused_terms, "drop_unused_terms")
    terms = resolve_vocabulary(model, vocabulary, caller="to_pyldavis")
    X = check_counts(X, model, name="X", caller="to_pyldavis")
    phi = np.array(topic_word(model), dtype=np.float64)
    theta = _doc_topic(model, X)
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    tf = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
    if drop_unused_terms:
        phi, tf, terms = _used_terms(phi, tf, terms)
    n_terms = phi.shape[1]
    if (isinstance(min_probability, bool) or not isinstance(min_probability, numbers.Real)
            or not 0.0 <= float(min_probability) <= 1.0 / n_terms):
        raise ValueError(f"to_pyldavis: min_probability must be a number in [0, 1/n_terms] = [0, {1.0 / n_terms:.3g}], "
                         f"got {min_probability!r}.")
    if min_probability > 0:
        low = phi < min_probability
        if np.any(low):
            logger.info("to_pyldavis: raising %d topic-word probabilities below %g to it (pyLDAvis takes their logs).",
                        int(np.count_nonzero(low)), min_probability)
            phi = np.maximum(phi, float(min_probability))
    empty = ~(phi.sum(axis=1) > 0)
    if np.any(empty):  # (no probability left on the terms X uses: normalised_rows makes such a row uniform)
        logger.warning("to_pyldavis: topic(s) %s have no probability on the terms of X; their rows are uniform over "
                       "those terms.", np.flatnonzero(empty).tolist())
    phi = normalised_rows(phi, phi.shape[1], np.float64)
    return {
        "topic_term_dists": phi,
        "doc_topic_dists": theta,
        "doc_lengths": lengths,
        "vocab": list(terms),
        "term_frequency": tf,
    }


def _used_terms(phi, tf, terms):
    """``(phi, tf, terms)`` restricted to the terms that occur in X (``tf > 0``)."""
    keep = tf > 0
    if not np.any(keep):
        raise ValueError("to_pyldavis: X has no tokens; pass the corpus the topics describe.")
    if np.all(keep):
        return phi, tf, terms
    logger.info("to_pyldavis: dropping %d terms that never occur in X.", int(np.count_nonzero(~keep)))
    return phi[:, keep], tf[keep], [t for t, k in zip(terms, keep) if k]
