"""Raw texts in, topics out: a :class:`~topicvb.text.Vectorizer` and a topic model kept together.

:class:`TopicPipeline` is a scikit-learn :class:`~sklearn.pipeline.Pipeline` (so it works in
``GridSearchCV``, ``clone`` and pickling) whose first step turns texts into counts and whose last
step is a topicvb model. It adds what a corpus analyst needs on new texts: topic proportions of
documents (:meth:`TopicPipeline.document_topics`), the topics' top words in the vectorizer's own
terms, a topic table, and saving to the pickle-free model format together with the vectorizer's
vocabulary, tokenizer settings and phrases.

It also defines the public :func:`save` and :func:`load` (``topicvb.save`` / ``topicvb.load``):
:mod:`topicvb.persistence` stores records (a model, its vocabulary, optionally its vectorizer),
and this module splits a pipeline into such a record and builds a pipeline back from one.

Example
-------
>>> from topicvb import BatchLDA, make_topic_pipeline
>>> from topicvb.text import Tokenizer, Vectorizer
>>> pipe = make_topic_pipeline(Vectorizer(tokenizer=Tokenizer(stop_words="english")),
...                            BatchLDA(2, random_state=0))
>>> texts = ["apples and pears are fruit", "pears and plums are fruit",
...          "cars and trucks are vehicles", "trucks and buses are vehicles"]
>>> theta = pipe.fit(texts).document_topics(["a fruit salad of plums", "a bus"])
>>> theta.shape
(2, 2)
"""

from __future__ import annotations

import numbers
from pathlib import Path

import numpy as np
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from . import persistence
from .guided import DEFAULT_SEED_CONFIDENCE

__all__ = ["TopicPipeline", "document_topics", "load", "make_topic_pipeline", "save"]


def _parts(pipeline, caller: str):
    """``(text_steps, model)`` of a pipeline whose last step is a topicvb model (TypeError if not)."""
    from .models._base import TopicModelBase

    if not isinstance(pipeline, Pipeline):
        raise TypeError(f"{caller} expects a fitted scikit-learn Pipeline ending in a topicvb model, "
                        f"got {type(pipeline).__name__}.")
    model = pipeline.steps[-1][1]
    if not isinstance(model, TopicModelBase):
        raise TypeError(f"{caller}: the last step of the pipeline must be a topicvb model (PLSA, BatchLDA, ...), "
                        f"got {type(model).__name__}.")
    if len(pipeline.steps) < 2:
        raise TypeError(f"{caller}: the pipeline must have a vectorizer step before the model; it has only the model.")
    return pipeline[:-1], model


def document_topics(pipeline, texts) -> np.ndarray:
    """Topic proportions of new texts through a fitted ``Pipeline(vectorizer, ..., topic model)``.

    Parameters
    ----------
    pipeline : TopicPipeline or sklearn.pipeline.Pipeline
        Fitted; its steps before the last turn texts into a document-term count matrix with the
        training vocabulary, and its last step is a topicvb model.
    texts : iterable of str
        The documents (a single str is refused: wrap it in a list). Words outside the training
        vocabulary are ignored; a document with none of its words in the vocabulary gets the
        prior's topic proportions.

    Returns
    -------
    ndarray of shape (n_texts, n_components)
        Rows sum to 1.

    Raises
    ------
    TypeError
        Not a pipeline ending in a topicvb model, or ``texts`` is a single string.
    NotFittedError
        The pipeline is not fitted.
    """
    text_steps, model = _parts(pipeline, "document_topics")
    if isinstance(texts, (str, bytes)):
        raise TypeError("document_topics expects an iterable of texts, got a single "
                        f"{type(texts).__name__}. Wrap it in a list: [text].")
    check_is_fitted(model)
    return model.transform(text_steps.transform(texts))


class TopicPipeline(Pipeline):
    """A scikit-learn Pipeline of a text vectorizer and a topicvb model, with topic helpers.

    Build it with :func:`make_topic_pipeline` (steps named ``"vectorizer"`` and ``"model"``) or
    from a list of ``(name, estimator)`` steps like any Pipeline. ``fit`` takes raw texts;
    ``transform`` and :meth:`document_topics` return document-topic proportions; ``score`` is the
    model's score on the texts' counts.

    With ``seed_topics`` (guided topics, :mod:`topicvb.guided`), ``fit`` fits the vectorizer first,
    builds the prior of the seed words over its vocabulary
    (:func:`topicvb.guided.seed_topic_prior`, with the vectorizer's tokenizer to find a seed word
    written differently, and the model's own ``topic_word_prior``, a number or None, as the base),
    sets it as the model's ``topic_word_prior`` and then fits the model, whose ``topic_labels_``
    are the seed labels. Each fit rebuilds the prior (a :class:`~topicvb.guided.SeededPrior` left
    on the model by an earlier fit is replaced); an array ``topic_word_prior`` together with
    ``seed_topics`` is refused.

    Parameters
    ----------
    steps : list of (str, estimator)
        The first steps turn texts into counts (a :class:`topicvb.text.Vectorizer`); the last is
        a topicvb model.
    transform_input, memory, verbose :
        As for :class:`sklearn.pipeline.Pipeline`.
    seed_topics : dict of str to list of str, default=None
        Topic label -> seed words (see :func:`topicvb.guided.seed_topic_prior`).
    seed_confidence : float in (0, 1), default=0.9
        The share of a seed word's prior pseudo-counts in its seed topics.

    Attributes
    ----------
    seeded_prior_ : SeededPrior
        The prior the last fit built (with ``seed_topics`` only); its ``missing`` lists the seed
        words that are not in the vocabulary.

    See Also
    --------
    make_topic_pipeline, document_topics, topicvb.save, topicvb.load
    """

    def __init__(self, steps, *, transform_input=None, memory=None, verbose=False, seed_topics=None,
                 seed_confidence=DEFAULT_SEED_CONFIDENCE):
        super().__init__(steps, transform_input=transform_input, memory=memory, verbose=verbose)
        self.seed_topics = seed_topics
        self.seed_confidence = seed_confidence

    # ------------------------------------------------------------------ guided topics
    def _seeded_fit(self, X, y, params, method: str):
        """Fit the text steps, build and set the seeded prior, then call the model's ``method`` (fit or
        fit_transform) on the counts; returns what that call returns."""
        from .guided import SeededPrior, seed_topic_prior
        from .text import Tokenizer, Vectorizer

        text_steps, model = _parts(self, f"TopicPipeline.{method}")
        if "n_components" not in model.get_params(deep=False):  # (as make_topic_pipeline says at once)
            raise ValueError(f"TopicPipeline.{method}: seed_topics need a model with a fixed number of topics "
                             f"(n_components); {type(model).__name__} chooses its own. Use CollapsedLDA, BatchLDA, ... "
                             "for guided topics.")
        names = [name for name, _ in self.steps]
        step_params: dict = {name: {} for name in names}
        for key, value in params.items():
            name, sep, param = key.partition("__")
            if not sep or name not in step_params:
                raise ValueError(f"TopicPipeline.{method} does not accept the {key!r} parameter; pass parameters to "
                                 f"a step as stepname__parameter, with a step name among {names}.")
            step_params[name][param] = value
        base = model.topic_word_prior
        if isinstance(base, SeededPrior) and self._wrote(base):  # the prior of an earlier fit: rebuilt on the user's
            base = getattr(self, "_user_topic_word_prior", base.base_prior)
        elif isinstance(base, SeededPrior):  # (one of the user's own: its seeds would be dropped silently)
            raise ValueError("TopicPipeline: the model's topic_word_prior is a SeededPrior of its own, and seed_topics "
                             "would replace it; give either seed_topics or a SeededPrior (a matrix topic_word_prior).")
        if isinstance(base, (bool, np.bool_)):
            raise TypeError(f"TopicPipeline: the model's topic_word_prior must be a positive float or None with "
                            f"seed_topics, got {base!r} (a bool).")
        elif base is not None and not isinstance(base, (int, float, np.number)):
            raise ValueError("TopicPipeline: the model's topic_word_prior is a matrix, and seed_topics would replace "
                             "it; give either seed_topics or a matrix topic_word_prior.")
        text_params = {f"{name}__{k}": v for name in names[:-1] for k, v in step_params[name].items()}
        Xt = text_steps.fit_transform(X, y, **text_params)
        self.steps[:-1] = text_steps.steps  # with memory, the fitted steps are clones
        first = self.steps[0][1]
        tokenizer = None
        if isinstance(first, Vectorizer):
            tokenizer = first.tokenizer if first.tokenizer is not None else Tokenizer()
        prior = seed_topic_prior(self._vocabulary(), self.seed_topics, model.n_components,
                                 seed_confidence=self.seed_confidence, base_prior=base, tokenizer=tokenizer)
        model.set_params(topic_word_prior=prior)
        self._user_topic_word_prior = base  # (what the model had before: restored when seed_topics is dropped)
        self.seeded_prior_ = prior
        return getattr(model, method)(Xt, y, **step_params[names[-1]])

    def fit(self, X, y=None, **params):
        """Fit the vectorizer and the model on raw texts (see :class:`sklearn.pipeline.Pipeline`); with
        ``seed_topics``, the model's prior is built from the fitted vectorizer's vocabulary in between.

        All or nothing: a fit that fails (bad input, seed words none of the new texts use, Ctrl-C) leaves
        every step as it was, never a vectorizer fitted on the new texts beside the model of the old ones."""
        self._all_or_nothing(lambda: self._fit_steps(X, y, params, "fit"))
        return self

    def fit_transform(self, X, y=None, **params):
        """Fit on raw texts and return their topic proportions (see :meth:`fit`)."""
        return self._all_or_nothing(lambda: self._fit_steps(X, y, params, "fit_transform"))

    def _fit_steps(self, X, y, params, method: str):
        if self.seed_topics is not None:
            return self._seeded_fit(X, y, params, method)
        self._drop_seeded_prior()
        return super().fit_transform(X, y, **params) if method == "fit_transform" else super().fit(X, y, **params)

    def _drop_seeded_prior(self):
        """Without ``seed_topics`` (``set_params(seed_topics=None)`` after a seeded fit), the prior an earlier
        seeded fit wrote into the model (built over the old vocabulary's columns) gives way to its base prior."""
        if getattr(self, "seeded_prior_", None) is None:
            return
        model = self.steps[-1][1]
        if self._wrote(model.topic_word_prior):  # (not a prior the user set since)
            model.set_params(topic_word_prior=getattr(self, "_user_topic_word_prior", model.topic_word_prior.base_prior))
        del self.seeded_prior_

    def __sklearn_clone__(self):
        """``sklearn.base.clone``: a new unfitted pipeline with the same parameters, where the model's
        ``topic_word_prior`` is the one the user gave, not the seeded prior a fit wrote into it (fitted state:
        built over the fitted vocabulary's columns, it would otherwise go on seeding a clone set to
        ``seed_topics=None``, or fail on another vocabulary, as in a GridSearchCV over ``seed_topics``)."""
        new = super().__sklearn_clone__()
        model = self.steps[-1][1]
        if self._wrote(getattr(model, "topic_word_prior", None)):
            new.steps[-1][1].set_params(
                topic_word_prior=getattr(self, "_user_topic_word_prior", model.topic_word_prior.base_prior))
        return new

    def _wrote(self, prior) -> bool:
        """Whether ``prior`` is the SeededPrior this pipeline's last seeded fit wrote into the model (or, for a
        pipeline loaded from a file, the one it was saved with)."""
        written = getattr(self, "seeded_prior_", None)
        return written is not None and (prior is written or (type(prior) is type(written) and prior == written))

    def _all_or_nothing(self, call):
        """``call()``, with the pipeline and every step restored as they were if it raises."""
        steps = list(self.steps)
        states = [(step, dict(step.__dict__)) for _, step in steps if hasattr(step, "__dict__")]
        own = dict(self.__dict__)
        try:
            return call()
        except BaseException:
            for step, state in states:
                step.__dict__.clear()
                step.__dict__.update(state)
            self.__dict__.clear()
            self.__dict__.update(own)
            self.steps[:] = steps  # (the same list object: a fit replaces its items in place)
            raise

    @property
    def vectorizer(self):
        """The step that turns texts into counts (the first step)."""
        return self.steps[0][1]

    @property
    def model(self):
        """The topic model (the last step)."""
        return self.steps[-1][1]

    def _vocabulary(self):
        from ._inspection_words import pipeline_vocabulary

        return pipeline_vocabulary(self)  # (a topicvb Vectorizer's: terms with their training frequencies)

    def _training_frequencies(self, vocabulary, relevance, term_frequency, caller, texts=None):
        """The term frequencies relevance ranks by: ``term_frequency`` when given, else the vectorizer's training
        frequencies (None: the vocabulary's own, or those of ``texts`` where the vectorizer kept none)."""
        if relevance is None or term_frequency is not None or getattr(vocabulary, "term_freq", None) is not None:
            return term_frequency
        if texts is None:
            raise ValueError(
                f"{caller}: relevance ranks by the training term frequencies, which a topicvb Vectorizer keeps and "
                f"this pipeline's {type(self.steps[0][1]).__name__} does not; pass term_frequency=, the column sums "
                "of the training counts: np.asarray(pipe[:-1].transform(train_texts).sum(axis=0)).ravel().")
        return None

    def document_topics(self, texts) -> np.ndarray:
        """Topic proportions of new texts (see :func:`document_topics`)."""
        return document_topics(self, texts)

    def top_words(self, n: int = 10, relevance: float | None = None, *,
                  term_frequency=None) -> list[list[tuple[str, float]]]:
        """Top terms of each topic in the vectorizer's terms (see :func:`topicvb.top_words`).

        With a topicvb Vectorizer, ``relevance`` uses its training term frequencies; another vectorizer keeps
        none, so relevance then needs ``term_frequency`` (one count per term). There is no vocabulary argument
        (the model's ``top_words(n, vocabulary)`` has one): the terms are the vectorizer's.
        """
        from .inspection import top_words

        _, model = _parts(self, "TopicPipeline.top_words")
        if relevance is not None and not isinstance(relevance, (numbers.Real, np.number)):
            raise TypeError(f"TopicPipeline.top_words(n, relevance) takes relevance, a number in [0, 1] or None, got a "
                            f"{type(relevance).__name__}; the pipeline's terms are its vectorizer's, so it takes no "
                            "vocabulary (pipe.top_words(10)).")
        check_is_fitted(model)
        vocabulary = self._vocabulary()
        term_frequency = self._training_frequencies(vocabulary, relevance, term_frequency, "TopicPipeline.top_words")
        return top_words(model, vocabulary, n=n, relevance=relevance, term_frequency=term_frequency)

    def summary(self, texts=None, n: int = 10, coherence=None, *, relevance: float | None = None,
                term_frequency=None, coherence_measure: str = "c_npmi"):
        """A :class:`topicvb.TopicTable` of the topics (see :func:`topicvb.summary`).

        Parameters
        ----------
        texts : iterable of str, default=None
            Documents to measure each topic's prevalence on (vectorised with the fitted vectorizer).
        n, coherence, relevance, coherence_measure :
            As for :func:`topicvb.summary`. ``relevance`` ranks by the vectorizer's training term frequencies
            (a topicvb Vectorizer keeps them), not by those of ``texts``, as :meth:`top_words` does.
        term_frequency : array-like of shape (n_terms,), default=None
            Term frequencies for relevance instead: needed with a vectorizer that keeps none and no ``texts``
            (with ``texts`` and such a vectorizer, theirs are used).
        """
        from .inspection import summary

        text_steps, model = _parts(self, "TopicPipeline.summary")
        check_is_fitted(model)
        if isinstance(texts, (str, bytes)):
            raise TypeError("TopicPipeline.summary expects an iterable of texts, got a single str. "
                            "Wrap it in a list: [text].")
        X = None if texts is None else text_steps.transform(texts)
        vocabulary = self._vocabulary()
        term_frequency = self._training_frequencies(vocabulary, relevance, term_frequency, "TopicPipeline.summary",
                                                    texts)
        if term_frequency is None and relevance is not None and getattr(vocabulary, "term_freq", None) is not None:
            term_frequency = vocabulary.term_freq  # (X would otherwise give those of texts)
        return summary(model, X, vocabulary, n=n, coherence=coherence, relevance=relevance,
                       term_frequency=term_frequency, coherence_measure=coherence_measure)

    def save(self, path):
        """Save the fitted vectorizer and model to one file (see :func:`topicvb.save`)."""
        return save(self, path)


def make_topic_pipeline(vectorizer=None, model=None, *, seed_topics=None,
                        seed_confidence: float = DEFAULT_SEED_CONFIDENCE) -> TopicPipeline:
    """A :class:`TopicPipeline` with steps ``("vectorizer", vectorizer)`` and ``("model", model)``.

    Parameters
    ----------
    vectorizer : Vectorizer or transformer, default=None
        Turns texts into counts; ``None`` uses ``Vectorizer(tokenizer=Tokenizer(stop_words="english"))``.
    model : topicvb model, default=None
        ``None`` uses the recommended estimator, ``CollapsedLDA(learn_priors=True, acceleration="squarem")``
        (:func:`topicvb.models._registry.recommended_estimator`).
    seed_topics : dict of str to list of str, default=None
        Guided topics: topic label -> seed words, such as ``{"space": ["nasa", "orbit"]}``. ``fit``
        builds the model's prior from them over the fitted vectorizer's vocabulary
        (:func:`topicvb.guided.seed_topic_prior`); the model's ``topic_labels_`` are the labels (then
        ``topic_k`` for the free topics). Checked here, so a malformed dict fails before any fit.
    seed_confidence : float in (0, 1), default=0.9
        The share of a seed word's prior pseudo-counts in its seed topics (see :mod:`topicvb.guided`).

    Returns
    -------
    TopicPipeline
        Unfitted unless both parts were already fitted.

    Examples
    --------
    >>> from topicvb import BatchLDA, make_topic_pipeline
    >>> pipe = make_topic_pipeline(model=BatchLDA(3, random_state=0),
    ...                            seed_topics={"fruit": ["apple", "pear"], "vehicles": ["car", "truck"]})
    >>> pipe.seed_topics["fruit"]
    ['apple', 'pear']
    """
    from .models._base import TopicModelBase
    from .models._registry import recommended_estimator
    from .text import Tokenizer, Vectorizer

    if vectorizer is None:
        vectorizer = Vectorizer(tokenizer=Tokenizer(stop_words="english"))
    if model is None:
        model = recommended_estimator()
    if not isinstance(model, TopicModelBase):
        raise TypeError(f"make_topic_pipeline: model must be a topicvb model (PLSA, BatchLDA, ...), "
                        f"got {type(model).__name__}.")
    if not callable(getattr(vectorizer, "transform", None)):
        raise TypeError(f"make_topic_pipeline: vectorizer must have a transform() method (like "
                        f"topicvb.text.Vectorizer), got {type(vectorizer).__name__}.")
    if seed_topics is not None:
        from .guided import check_seed_confidence, word_lists

        if "n_components" not in model.get_params(deep=False):
            raise ValueError(f"make_topic_pipeline: seed_topics need a model with a fixed number of topics "
                             f"(n_components); {type(model).__name__} chooses its own. Use CollapsedLDA, BatchLDA, ... "
                             "for guided topics.")
        pairs = word_lists(seed_topics, "seed_topics")
        if isinstance(model.n_components, int) and len(pairs) > model.n_components:
            raise ValueError(f"seed_topics has {len(pairs)} labels but the model has only n_components="
                             f"{model.n_components} topics; use at least {len(pairs)} topics or fewer labels.")
        check_seed_confidence(seed_confidence)
    return TopicPipeline([("vectorizer", vectorizer), ("model", model)], seed_topics=seed_topics,
                         seed_confidence=seed_confidence)


# ---------------------------------------------------------------------------- saving and loading
def _split_pipeline(obj):
    """``(vectorizer, model)`` of a two-step Pipeline ``[Vectorizer, topic model]``, else ``(None, obj)``."""
    if not isinstance(obj, Pipeline):
        return None, obj
    from .text import Vectorizer

    steps = [est for _, est in obj.steps]
    if len(steps) != 2 or not isinstance(steps[0], Vectorizer):
        raise TypeError(
            "save expects a topicvb model or a Pipeline of exactly (Vectorizer, topic model); got a Pipeline of "
            f"({', '.join(type(s).__name__ for s in steps)})."
        )
    return steps[0], steps[1]


def save(model, path, vocabulary=None, *, vectorizer=None) -> Path:
    """Save a fitted topicvb model or pipeline (with its vocabulary, and its vectorizer if any) to ``path``.

    Parameters
    ----------
    model : PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA, or a fitted Pipeline
        A fitted model, or a fitted :class:`TopicPipeline` (any scikit-learn ``Pipeline`` of
        exactly a :class:`topicvb.text.Vectorizer` and a topicvb model): then the vectorizer's
        vocabulary, tokenizer settings and phrases are saved too, and :func:`load` returns a
        :class:`TopicPipeline` that turns raw texts into topics.
    path : str or Path
        Destination (``.npz`` is added if missing); written atomically (a temporary file renamed
        into place), so an interrupted save never leaves a half-written model at ``path``.
    vocabulary : sequence of str, optional
        Column names to keep with the model (defaults to the vectorizer's terms, else
        ``feature_names_in_`` when present).
    vectorizer : Vectorizer, optional
        A fitted vectorizer to store with a bare model (same effect as saving the pipeline).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    TypeError
        Not a topicvb model (or pipeline of one); a vectorizer whose tokenizer is an arbitrary
        callable (a file stores parameters, not code: pickle such a pipeline instead).
    NotFittedError
        The model or vectorizer is not fitted.

    See Also
    --------
    topicvb.persistence.save : the same for a model (and vectorizer) given separately.
    """
    pipe_vec, model = _split_pipeline(model)
    if pipe_vec is not None and vectorizer is not None:
        raise TypeError("save: pass either a Pipeline or vectorizer=, not both.")
    return persistence.save(model, path, vocabulary, vectorizer=pipe_vec if pipe_vec is not None else vectorizer)


def load(path, *, return_vocabulary: bool = False):
    """Load a model (or a model with its vectorizer) written by :func:`save`.

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file.
    return_vocabulary : bool, default=False
        Also return the stored vocabulary (a list of str, or None).

    Returns
    -------
    model or TopicPipeline, or (that, vocabulary)
        The fitted model; a fitted :class:`TopicPipeline` (vectorizer + model) when the file was
        saved with a vectorizer, so ``load(path).document_topics(["some text"])`` works. A model
        with guided topics keeps its :class:`~topicvb.guided.SeededPrior` and ``topic_labels_``; its
        pipeline gets the seed words back as ``seed_topics``, so a refit seeds the new vocabulary.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Not a topicvb model file, truncated or corrupt, from a newer format version, with
        inconsistent shapes or values, or lacking a fitted attribute the model needs.
    """
    record = persistence.read(path)
    if record.vectorizer is None:
        result = record.model
    else:
        seeds = _seeds_of(record.model)
        result = make_topic_pipeline(record.vectorizer, record.model, **seeds)
        if seeds:  # (the prior a seeded fit wrote: a refit with seed_topics=None gives the model its base back)
            prior = record.model.topic_word_prior
            result.seeded_prior_ = prior
            # the user's topic_word_prior before seeding: None where the base was seed_topic_prior's 1 / K (a refit
            # with another K then takes its own 1 / K, as the saved pipeline would)
            result._user_topic_word_prior = None if prior.base_prior_default else prior.base_prior
    return (result, record.vocabulary) if return_vocabulary else result


def _seeds_of(model) -> dict:
    """The pipeline parameters that rebuild a loaded model's seeded prior at a refit (none for another prior)."""
    from .guided import SeededPrior

    prior = model.topic_word_prior
    if not isinstance(prior, SeededPrior) or not prior.seed_topics or prior.seed_confidence is None:
        return {}
    seeds = {label: prior.seed_topics[label] + prior.missing.get(label, [])
             for label in prior.labels if label in prior.seed_topics}
    return {"seed_topics": seeds, "seed_confidence": prior.seed_confidence}
