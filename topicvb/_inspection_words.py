"""The top words of each topic: ranked by probability, or re-ranked by relevance (Sievert & Shirley).

:func:`top_words` is public in :mod:`topicvb.inspection`; it lives here so that the junk-topic rules
(:mod:`topicvb._inspection_junk`) can use it without importing the module that also builds the topic
table from their flags. The topics' names (a model's ``topic_labels_``: seed labels of guided topics,
``topic_k`` otherwise) are read here too (:func:`model_labels`), for every display of topics.
"""

from __future__ import annotations

import numbers

import numpy as np

from .evaluation._common import (
    check_counts,
    check_model,
    check_positive_int,
    numeric_array,
    resolve_vocabulary,
    top_columns,
    topic_word,
)


def as_model(model, vocabulary=None):
    """``(model, vocabulary)`` with a fitted scikit-learn Pipeline whose last step is the topic model (a
    :class:`~topicvb.TopicPipeline`, what :func:`topicvb.load` returns for a model saved with its vectorizer) taken
    apart: its model, and, when ``vocabulary`` is None, its vectorizer's terms (a topicvb Vectorizer's vocabulary,
    with the training term frequencies that relevance uses; else ``get_feature_names_out()`` of the steps before
    the model). Anything else is returned as it is."""
    from sklearn.pipeline import Pipeline

    if not isinstance(model, Pipeline) or not model.steps:
        return model, vocabulary
    inner = model.steps[-1][1]
    if vocabulary is None and len(model.steps) > 1:
        vocabulary = _pipeline_terms(model, inner)
    return inner, vocabulary


def _pipeline_terms(pipeline, inner):
    """The terms of the steps before the model (None while the model is unfitted: its check says so first)."""
    if getattr(inner, "components_", None) is None:
        return None
    try:
        return pipeline_vocabulary(pipeline)
    except AttributeError:  # (a step without feature names: the model's own, or column numbers)
        return None


def pipeline_vocabulary(pipeline):
    """The terms of a fitted pipeline's steps before its model: the first step's Vocabulary (``vocab_``, with the
    training term frequencies that relevance uses) when it is a topicvb Vectorizer whose terms are the model's
    columns, else ``get_feature_names_out()`` of those steps (AttributeError where a step has none)."""
    vocab = getattr(pipeline.steps[0][1], "vocab_", None)
    n_terms = np.shape(getattr(pipeline.steps[-1][1], "components_", ()))[-1:]
    if vocab is not None and (len(vocab),) == tuple(n_terms):
        return vocab
    return pipeline[:-1].get_feature_names_out()


def default_labels(n_topics: int) -> list[str]:
    """The names of topics without names of their own: ``topic_0``, ``topic_1``, ..."""
    return [f"topic_{k}" for k in range(n_topics)]


def model_labels(model, n_topics: int | None = None) -> list[str] | None:
    """The model's topic names (``topic_labels_``, which every fit sets), or None for a model without them
    (loaded from a file written before topic names, a wrapped peer model) or with a count that does not match."""
    labels = getattr(model, "topic_labels_", None)
    if labels is None:
        return None
    try:
        labels = [str(label) for label in labels]
    except TypeError:
        return None
    if n_topics is None:
        n_topics = int(np.shape(model.components_)[0])
    return labels if len(labels) == n_topics else None


def custom_labels(labels) -> list[str] | None:
    """``labels`` when some topic has a name other than its default ``topic_k`` (a guided topic), else None:
    displays show a names column only then, so those of unguided models read as before."""
    if labels is None:
        return None
    labels = [str(label) for label in labels]
    return labels if labels != default_labels(len(labels)) else None


class TopicWords(list):
    """The top words of each topic, as :func:`top_words` returns them: a list (one list of
    ``(term, P(term | topic))`` per topic) that also knows the topics' names.

    Attributes
    ----------
    labels : list of str
        The name of each topic: the model's ``topic_labels_`` (seed labels for guided topics),
        ``topic_k`` for a model without names.
    numbers : list of int
        Each topic's number in the model: 0, 1, ... for :func:`top_words`' result, the topics' own numbers in
        a slice of it (``words[3:6]`` holds topics 3, 4 and 5), which :func:`topicvb.plotting.plot_top_words`
        titles them with.

    ``words["space"]`` is the topic named ``space``; integer indexing and everything else is that of a list.
    """

    def __init__(self, topics=(), labels=None, numbers=None):
        super().__init__(topics)
        self.labels = default_labels(len(self)) if labels is None else [str(label) for label in labels]
        if len(self.labels) != len(self):
            raise ValueError(f"TopicWords: labels has {len(self.labels)} names for {len(self)} topics.")
        self.numbers = list(range(len(self))) if numbers is None else [int(k) for k in numbers]
        if len(self.numbers) != len(self):
            raise ValueError(f"TopicWords: numbers has {len(self.numbers)} values for {len(self)} topics.")

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                return super().__getitem__(self.labels.index(key))
            except ValueError:
                raise KeyError(f"no topic is named {key!r}; the topics are {self.labels}.") from None
        if isinstance(key, slice):
            numbers = getattr(self, "numbers", None)  # (a TopicWords unpickled from before it has none)
            return TopicWords(super().__getitem__(key), self.labels[key], None if numbers is None else numbers[key])
        return super().__getitem__(key)

    def as_dict(self) -> dict:
        """``{label: [(term, weight), ...]}`` in topic order."""
        return dict(zip(self.labels, self))


def _term_frequency(model, term_frequency, X, vocabulary, caller):
    """Corpus term frequencies for relevance: given, from X, or from a Vocabulary's term_freq."""
    n_terms = int(np.shape(model.components_)[1])
    if term_frequency is not None:
        tf = numeric_array(term_frequency, "term_frequency", caller,
                           f"an array of non-negative term counts, one per term ({n_terms})").ravel()
        if tf.shape != (n_terms,):
            raise ValueError(f"{caller}: term_frequency must have one entry per term ({n_terms}), got shape "
                             f"{np.shape(term_frequency)}.")
        if not np.all(np.isfinite(tf)) or np.any(tf < 0):
            raise ValueError(f"{caller}: term_frequency must be non-negative and finite.")
    elif X is not None:
        tf = np.asarray(check_counts(X, model, name="X", caller=caller).sum(axis=0), dtype=np.float64).ravel()
    elif getattr(vocabulary, "term_freq", None) is not None:
        tf = np.asarray(vocabulary.term_freq, dtype=np.float64)
    else:
        raise ValueError(
            f"{caller}: relevance re-ranking needs the corpus term frequencies; pass term_frequency=... or X=... "
            "(or a Vocabulary with term_freq)."
        )
    if tf.sum() <= 0:
        raise ValueError(f"{caller}: the term frequencies sum to 0; relevance needs a non-empty corpus.")
    return tf


def _relevance(phi, tf, lam):
    """Sievert & Shirley relevance lam log phi_kw + (1 - lam) log(phi_kw / p_w), finite everywhere."""
    p = tf / tf.sum()
    tiny = 1e-300
    # (the same operations as lam * log_phi + (1 - lam) * (log_phi - log_p), made in place: two (K, V) arrays
    # besides phi instead of five)
    rel = np.maximum(phi, tiny)
    np.log(rel, out=rel)  # log phi
    lift = rel - np.log(np.maximum(p, tiny))[None, :]
    rel *= lam
    lift *= 1.0 - lam
    rel += lift
    del lift
    # a term that never occurs in the corpus has an infinite lift, meaningless: rank it last
    if lam < 1.0:
        rel[:, p <= 0] = -np.inf
    return rel


def top_words(model, vocabulary=None, n: int = 10, relevance: float | None = None, *, term_frequency=None,
              X=None) -> list[list[tuple[str, float]]]:
    """The top terms of each topic with their probabilities, optionally re-ranked by relevance.

    Without ``relevance`` the terms are ranked by P(term | topic). With ``relevance=lam`` they are
    ranked by the relevance of Sievert & Shirley (2014),

        r(w, k | lam) = lam log phi_kw + (1 - lam) log(phi_kw / p_w),

    where p_w is the term's share of the corpus tokens; lam = 1 is the plain ranking and lam = 0
    ranks by lift (terms specific to the topic); Sievert & Shirley found lam ~ 0.6 best for
    interpretation. The weight returned is always phi_kw, so weights are comparable across
    rankings. Terms that never occur in the corpus (infinite lift) are ranked last when lam < 1.

    Parameters
    ----------
    model : fitted topic model or TopicPipeline
        Anything with ``components_`` of shape (n_topics, n_terms), or a fitted
        :class:`~topicvb.TopicPipeline` (what :func:`topicvb.load` returns for a model saved with
        its vectorizer): its model, in its vectorizer's terms.
    vocabulary : sequence of str, Vocabulary or dict, default=None
        The term of each column, in column order. A dict ``{term: column}`` (scikit-learn's
        ``CountVectorizer.vocabulary_``) is ordered by column; a set is refused (its order is
        arbitrary). None means the pipeline's terms, the model's ``feature_names_in_`` or the
        column indices as strings.
    n : int, default=10
        Terms per topic; a value larger than the vocabulary is clipped to the vocabulary size.
    relevance : float in [0, 1], default=None
        lam of the relevance re-ranking; None ranks by probability.
    term_frequency : array-like of shape (n_terms,), default=None
        Corpus term counts for relevance.
    X : {array-like, sparse matrix} of shape (n_docs, n_terms), default=None
        Corpus counts to take term frequencies from when ``term_frequency`` is not given (a
        :class:`topicvb.text.Vocabulary` with ``term_freq`` also serves).

    Returns
    -------
    TopicWords
        A list with one list per topic of (term, P(term | topic)), best first; its ``labels`` are
        the topics' names (the model's ``topic_labels_``, such as the labels of guided topics, else
        ``topic_0``, ...), and ``words["label"]`` is the topic of that name.

    Raises
    ------
    NotFittedError
        If the model is not fitted.
    ValueError
        If ``n`` is not positive, ``relevance`` is outside [0, 1] or lacks term frequencies, or
        the vocabulary has the wrong length.
    TypeError
        If ``n`` is not an int, the vocabulary is unordered (a set, or a dict that does not map the
        terms to the columns 0..n_terms-1) or ``term_frequency`` is not numeric.

    References
    ----------
    Sievert & Shirley (2014), LDAvis: A method for visualizing and interpreting topics, ILLVI workshop.

    Examples
    --------
    >>> from topicvb import BatchLDA
    >>> from topicvb.datasets import make_lda_corpus
    >>> corpus, _, _ = make_lda_corpus(100, 30, 3, separated=True, random_state=0)
    >>> model = BatchLDA(3, random_state=0).fit(corpus.X)
    >>> len(top_words(model, corpus.vocabulary, n=5)[0])
    5
    """
    model, vocabulary = as_model(model, vocabulary)
    check_model(model, "top_words")
    n = check_positive_int(n, "n")
    terms = resolve_vocabulary(model, vocabulary, caller="top_words")
    phi = topic_word(model)
    n = min(n, phi.shape[1])
    if relevance is None:
        scores = phi
    else:
        if isinstance(relevance, bool) or not isinstance(relevance, numbers.Real) or not 0.0 <= relevance <= 1.0:
            shown = repr(relevance)
            if len(shown) > 80:  # (a vocabulary passed where relevance goes: TopicPipeline.top_words(n, relevance))
                shown = f"a {type(relevance).__name__} ({shown[:60]}...)"
            raise ValueError(f"relevance must be a number in [0, 1] (lambda of Sievert & Shirley) or None, "
                             f"got {shown}.")
        tf = _term_frequency(model, term_frequency, X, vocabulary, "top_words")
        scores = _relevance(phi, tf, float(relevance))
    order = top_columns(scores, n)
    return TopicWords([[(terms[j], float(phi[k, j])) for j in order[k]] for k in range(phi.shape[0])],
                      model_labels(model, phi.shape[0]))
