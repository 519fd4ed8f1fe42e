"""Junk-topic flags: topics dominated by non-words or by a handful of documents.

:func:`junk_topics` gives, for each topic, the reasons it is flagged; :func:`topicvb.inspection.summary`
shows them in its table. Both names (and :func:`is_non_word`) are public in :mod:`topicvb.inspection`,
which also offers the thresholds below (``JUNK_*``) and the reasons (``NON_WORDS``, ``FEW_DOCUMENTS``)
to read; :func:`junk_topics` uses the values of this module.
"""

from __future__ import annotations

import unicodedata

import numpy as np

from ._inspection_words import as_model, top_words
from .evaluation._common import check_counts, check_model, resolve_vocabulary
from .evaluation._common import doc_topic as _doc_topic

#: Top words (by probability) that the non-word rule of :func:`junk_topics` looks at.
JUNK_TOP_WORDS = 10
#: A topic is flagged "non-words" when at least this share of its top words are non-words, while less than
#: this share of the vocabulary's terms are (a vocabulary of codes such as "w0001" says nothing about junk).
JUNK_NON_WORD_SHARE = 0.5
#: A topic is flagged "few documents" when JUNK_FEW_DOCS documents hold more than JUNK_DOC_SHARE of its tokens...
JUNK_FEW_DOCS = 10
JUNK_DOC_SHARE = 0.5
#: ... and the corpus has at least JUNK_DOCS_PER_TOPIC x n_topics non-empty documents (with fewer, an ordinary
#: topic may well live in a handful of documents).
JUNK_DOCS_PER_TOPIC = 50
#: The reasons :func:`junk_topics` gives.
NON_WORDS, FEW_DOCUMENTS = "non-words", "few documents"


def is_non_word(term: str) -> bool:
    """Whether a term looks like no word: no letter, a digit, or fewer than 3 characters.

    Such tokens ("0d", "w7", "34u", "ax", "c_") fill the topics that binary attachments, tables
    of numbers or encoded data produce. Phrases such as "new_york" and names such as
    "n_samples" are words. Terms written in CJK characters (wide characters in Unicode's East
    Asian Width property) are exempt from the length rule, since two characters make an ordinary
    word there.

    Parameters
    ----------
    term : str

    Returns
    -------
    bool

    Examples
    --------
    >>> [is_non_word(t) for t in ["0d", "w7", "ax", "__", "matrix", "n_samples", "日本"]]
    [True, True, True, True, False, False, False]
    """
    term = str(term)
    if not any(c.isalpha() for c in term) or any(c.isdigit() for c in term):
        return True
    if len(term) < 3 and not any(unicodedata.east_asian_width(c) in ("W", "F") for c in term):
        return True
    return False



def junk_topics(model, X=None, vocabulary=None, *, doc_topic=None) -> list[list[str]]:
    """Flag topics that are probably junk: dominated by non-words or by a handful of documents.

    Coherence alone ranks such topics well (a topic of binary garbage or of one long document has
    a high NPMI, since its words always occur together), so they are flagged separately, with
    two rules:

    * ``"non-words"``: at least half of the topic's 10 most probable terms are non-words
      (:func:`is_non_word`: no letter, a digit, or fewer than 3 characters). Applied only when
      the terms are known (a vocabulary is given, or the model has ``feature_names_in_``) and
      less than half of the vocabulary's terms are non-words: in a vocabulary of codes (the
      "w0001" terms of a synthetic corpus, identifiers) such topics are what the data is.
    * ``"few documents"``: 10 or fewer documents hold more than half of the topic's tokens,
      counted as the expected counts N_d theta_dk of :func:`topicvb.inspection.topic_prevalence`. Applied only with
      ``X``, and only when ``X`` has at least 50 non-empty documents per topic: an evenly spread
      topic has 10 x n_topics / n_docs of its tokens in its 10 largest documents, so with fewer
      documents the rule could not tell junk from an ordinary topic.

    The thresholds are the module constants ``JUNK_*``. On 20 Newsgroups (train; English stop
    words, min_df=5, max_df=0.5, tokens that may mix letters and digits;
    ``CollapsedLDA(20, learn_priors=True, random_state=0)``) the two topics of uuencoded binaries
    ("db cx ah bh chz", "ax max pl giz bhj", the two with the highest NPMI) have 9 and 6 non-words
    among their 10 top words and 71% and 99.8% of their tokens in 10 documents; every other topic
    has at most 1 non-word among its top words and at most 35% of its tokens in 10 documents, and
    3% of the vocabulary's terms are non-words. With 3 documents instead of 10 the two junk topics
    have only 24% and 45% of their tokens, which is why the rule looks at 10. The idea follows
    MALLET's topic diagnostics (the share of tokens in a topic's top documents, "document
    entropy"), reduced to two rules of one line each.

    Parameters
    ----------
    model : fitted topic model or TopicPipeline
        A :class:`~topicvb.TopicPipeline` stands for its model (and its vectorizer's terms for
        ``vocabulary``).
    X : {array-like, sparse matrix} of shape (n_docs, n_terms), default=None
        Corpus counts, for the document rule.
    vocabulary : sequence of str or Vocabulary, default=None
        Column names, for the non-word rule (see :func:`topicvb.inspection.top_words`).
    doc_topic : ndarray of shape (n_docs, n_topics), default=None
        Precomputed ``model.transform(X)``.

    Returns
    -------
    list of list of str
        For each topic, the reasons it is flagged (``"non-words"``, ``"few documents"``), empty
        for a topic that is not.

    Raises
    ------
    NotFittedError
        If the model is not fitted.
    ValueError
        If ``X`` or the vocabulary does not fit the model.
    """
    model, vocabulary = as_model(model, vocabulary)
    check_model(model, "junk_topics")
    n_topics = int(np.shape(model.components_)[0])
    flags: list[list[str]] = [[] for _ in range(n_topics)]
    for k in _non_word_topics(model, vocabulary):  # checks the vocabulary before X, as always
        flags[k].append(NON_WORDS)
    for k in _few_document_topics(model, X, doc_topic, n_topics):
        flags[k].append(FEW_DOCUMENTS)
    return flags


def _non_word_topics(model, vocabulary) -> list[int]:
    """The topics of the non-word rule: at least ``JUNK_NON_WORD_SHARE`` of their ``JUNK_TOP_WORDS`` top
    terms are non-words. None when the terms are unknown (no vocabulary, no ``feature_names_in_``) or when
    ``JUNK_NON_WORD_SHARE`` or more of the vocabulary's terms are non-words (a vocabulary of codes)."""
    if vocabulary is None and getattr(model, "feature_names_in_", None) is None:
        return []
    terms = resolve_vocabulary(model, vocabulary, caller="junk_topics")
    if not sum(map(is_non_word, terms)) < JUNK_NON_WORD_SHARE * len(terms):
        return []
    return [k for k, words in enumerate(top_words(model, terms, JUNK_TOP_WORDS))
            if sum(is_non_word(w) for w, _ in words) >= JUNK_NON_WORD_SHARE * len(words)]


def _few_document_topics(model, X, doc_topic, n_topics: int) -> list[int]:
    """The topics of the document rule: ``JUNK_FEW_DOCS`` documents hold more than ``JUNK_DOC_SHARE`` of
    their expected tokens N_d theta_dk. None without ``X``, or when ``X`` has fewer than
    ``JUNK_DOCS_PER_TOPIC`` non-empty documents per topic."""
    if X is None:
        return []
    X = check_counts(X, model, name="X", caller="junk_topics")
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    if np.count_nonzero(lengths) < JUNK_DOCS_PER_TOPIC * n_topics:
        return []
    if doc_topic is None:
        theta = _doc_topic(model, X)
    else:
        theta = np.asarray(doc_topic, dtype=np.float64)
        if theta.shape != (X.shape[0], n_topics):
            raise ValueError(f"junk_topics: doc_topic must have shape {(X.shape[0], n_topics)}, got {theta.shape}.")
    tokens = lengths[:, None] * theta  # expected tokens of each topic in each document
    total = tokens.sum(axis=0)
    n_top = min(JUNK_FEW_DOCS, tokens.shape[0])
    top = np.partition(tokens, tokens.shape[0] - n_top, axis=0)[-n_top:].sum(axis=0)
    return [k for k in range(n_topics) if total[k] > 0 and top[k] > JUNK_DOC_SHARE * total[k]]
