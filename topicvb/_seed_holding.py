"""Do the seeds hold? Whether each seeded topic of a fitted guided model still holds its seed words.

:func:`seed_holding` (public as ``topicvb.guided.seed_holding``) measures it; the estimators' ``fit`` warns
:class:`topicvb.exceptions.SeedLostWarning` for a seeded topic that lost its seed words to other topics, and
:func:`topicvb.summary` flags it (see :mod:`topicvb.guided` for seed words and their prior).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: A seeded topic is lost (:class:`topicvb.exceptions.SeedLostWarning`) when it holds less than this
#: fraction of the share of its seed words' occurrences that its prior gives it (:func:`seed_holding`) ...
LOST_FRACTION = 0.5
#: ... and its seed words occur at least this many times in the training corpus (fewer say little).
MIN_SEED_TOKENS = 5.0


class SeedHolding(NamedTuple):
    """How a fitted seeded topic holds its seed words (:func:`seed_holding`)."""

    topic: int  #: the topic's row
    label: str  #: its name (``topic_labels_``)
    terms: tuple  #: the columns its prior row raises above the row's base weight: its seed words
    share: float  #: the share of those terms' expected occurrences that the topic holds (nan if they never occur)
    prior_share: float  #: the share of those terms' prior pseudo-counts that its prior row gives it
    tokens: float  #: those terms' expected occurrences over all topics, as the model counts them (see seed_holding)
    taken_by: int  #: the other topic that holds the largest part of them (-1 with one topic)
    lost: bool  #: share < LOST_FRACTION x prior_share, with at least MIN_SEED_TOKENS occurrences


def _favoured_terms(row) -> np.ndarray:
    """The columns a seeded prior row raises: the row's positive weights are a base value (its smallest, held by
    at least half of them, as in a :func:`seed_topic_prior` row) and raised ones; a row of any other shape (an
    informative prior, such as a scaled topic-word matrix of another model) or a constant one has none."""
    row = np.asarray(row, dtype=np.float64)
    positive = row[row > 0]
    if positive.size == 0:
        return np.zeros(0, dtype=np.int64)
    base = positive.min()
    if 2 * np.count_nonzero(positive == base) < positive.size:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(row > base)


def _holdings(term_counts, prior, labels) -> list[SeedHolding]:
    """:class:`SeedHolding` of every seeded row of the (K, V) ``prior`` (:func:`_favoured_terms`);
    ``term_counts(cols)`` gives the fitted expected occurrences of the terms ``cols`` in every topic, (K, len(cols))."""
    prior = np.asarray(prior)
    out = []
    for k in range(prior.shape[0]):
        cols = _favoured_terms(prior[k])
        if cols.size == 0:
            continue
        counts = np.asarray(term_counts(cols), dtype=np.float64)
        per_topic = counts.sum(axis=1)
        tokens = float(per_topic.sum())
        weights = np.asarray(prior[:, cols], dtype=np.float64)
        prior_share = float(weights[k].sum() / weights.sum())
        share = float(per_topic[k] / tokens) if tokens > 0 else float("nan")
        others = np.delete(np.arange(prior.shape[0]), k)
        taken_by = int(others[np.argmax(per_topic[others])]) if others.size else -1
        lost = tokens >= MIN_SEED_TOKENS and share < LOST_FRACTION * prior_share
        out.append(SeedHolding(k, str(labels[k]), tuple(int(c) for c in cols), share, prior_share, tokens, taken_by,
                               bool(lost)))
    return out


def seed_holding(model, X=None) -> list[SeedHolding]:
    """Whether each seeded topic of a fitted guided model still holds its seed words.

    A seeded topic is one whose prior row raises some terms (its seed words) above a base weight, as
    :func:`topicvb.guided.seed_topic_prior` builds it. For each, the share of its seed words' expected occurrences
    that the fitted topic holds, beside the share its prior gives it (``seed_confidence`` for a word
    seeding one topic). A topic holding less than half its prior's share (:data:`LOST_FRACTION`), with
    at least :data:`MIN_SEED_TOKENS` occurrences of its seed words, is ``lost``: the data took its seed
    words to other topics (``taken_by``: the one with the largest part), and its label no longer
    describes it. ``fit`` and :func:`topicvb.distributed.fit_distributed` check this and warn
    (:class:`topicvb.exceptions.SeedLostWarning`; ``partial_fit`` does not: one mini-batch says little),
    and :func:`topicvb.summary` and the HTML report flag such topics.

    The occurrences are the model's expected counts (``components_`` less the prior; for PLSA its
    topics' probabilities times their sizes, ``topic_tokens_``): for OnlineLDA and StochasticCollapsedLDA they are
    scaled to the corpus size the model assumes (``total_samples``, ``total_tokens``); the shares do
    not depend on that scale.

    Parameters
    ----------
    model : fitted topicvb estimator
        Fitted with a matrix ``topic_word_prior`` (a :class:`topicvb.SeededPrior`); a model with a symmetric
        prior, or a matrix prior without seeded rows, gives an empty list.
    X : {array-like, sparse matrix} of shape (n_docs, n_terms), default=None
        The training counts, read for a PLSA model only (the sizes of its topics come from its
        document-topic proportions ``doc_topic_`` and the documents' lengths, kept as ``topic_tokens_``
        by the fit: X is needed only for a PLSA model without them); other models ignore it.

    Returns
    -------
    list of SeedHolding
        One per seeded topic, in topic order.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the model is not fitted.
    ValueError
        For a PLSA model, if ``X`` is given and does not have its training documents' number of rows, or is
        missing where the model has no ``topic_tokens_`` (a file saved without them), or the model has
        neither ``topic_tokens_`` nor ``doc_topic_``.

    Examples
    --------
    >>> import warnings
    >>> from topicvb import BatchLDA
    >>> from topicvb.datasets import make_lda_corpus
    >>> from topicvb.guided import seed_topic_prior
    >>> corpus, _, _ = make_lda_corpus(200, 30, 3, separated=True, random_state=0)
    >>> prior = seed_topic_prior(corpus.vocabulary, {"first": [corpus.vocabulary[0]]}, 3)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     model = BatchLDA(3, topic_word_prior=prior, random_state=0).fit(corpus.X)
    >>> [(h.label, h.lost) for h in seed_holding(model)]
    [('first', False)]
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model)
    fitted = _fitted_state(model)
    prior = model._seed_prior(fitted)
    if prior is None:
        return []
    sizes = _topic_sizes(model, fitted, X) if model._term_counts_need_sizes else None
    labels = getattr(model, "topic_labels_", None)
    if labels is None:
        labels = [f"topic_{k}" for k in range(prior.shape[0])]
    return _holdings(lambda cols: model._term_counts(fitted, cols, sizes), prior, labels)


def _topic_sizes(model, fitted, X):
    """Each topic's expected training tokens for a model whose topics are probabilities (PLSA): from ``X``, its
    training counts, when given (checked), else the fit's ``topic_tokens_``; a ValueError when neither serves."""
    name = type(model).__name__
    if X is not None and "doc_topic_" in fitted:
        n_docs = fitted["doc_topic_"].shape[0]
        X = model._validate_counts(X, reset=False, caller="seed_holding")
        if X.shape[0] != n_docs:
            raise ValueError(f"seed_holding needs X, the training counts of this {name} ({n_docs} documents); X has "
                             f"{X.shape[0]}.")
        return np.asarray(X.sum(axis=1), dtype=np.float64).ravel() @ np.asarray(fitted["doc_topic_"], np.float64)
    sizes = model._topic_sizes(fitted)
    if sizes is not None:
        return sizes
    if "doc_topic_" not in fitted:
        raise ValueError(f"seed_holding cannot size the topics of this {name} model: it has neither topic_tokens_ "
                         "nor doc_topic_ (a file saved without them).")
    raise ValueError(f"seed_holding needs X, the training counts ({fitted['doc_topic_'].shape[0]} documents), for "
                     f"this {name} model (saved without topic_tokens_): the sizes of its topics come from its "
                     "document-topic proportions and the documents' lengths.")


def _fitted_state(model) -> dict:
    """The fitted attributes the seed check reads, by name (those the model has)."""
    return {name: getattr(model, name) for name in ("components_", "topic_word_prior_", "doc_topic_", "topic_tokens_")
            if hasattr(model, name)}


def _known_holdings(model):
    """:func:`seed_holding` of a fitted model where it needs no X (every model but a PLSA saved without
    ``topic_tokens_``), else an empty list: for :func:`topicvb.summary` and the HTML report."""
    if not hasattr(model, "_seed_prior"):
        return []
    if model._term_counts_need_sizes and model._topic_sizes(_fitted_state(model)) is None:
        return []
    return seed_holding(model)


def _lost_seeds_message(owner: str, lost: list[SeedHolding], labels) -> str:
    """The :class:`topicvb.exceptions.SeedLostWarning` of a fit whose seeded topics ``lost`` their seeds."""
    parts = [f"{h.label!r} (it holds {h.share:.0%} of its seed words' occurrences, less than half of its prior's "
             f"{h.prior_share:.0%}; the largest part of the rest went to {str(labels[h.taken_by])!r})"
             for h in lost[:10]]
    if len(lost) > 10:
        parts.append(f"and {len(lost) - 10} more")
    many = len(lost) > 1
    verdict = "their labels no longer describe them" if many else "its label no longer describes it"
    return (f"{owner}: seeded topic{'s' if many else ''} {', '.join(parts)} lost {'their' if many else 'its'} seed "
            f"words to other topics, so {verdict}. More topics (n_components), more distinctive seed words or a "
            "higher seed_confidence may serve better (topicvb.guided.seed_holding gives every seeded topic's share).")


def _unseen_seeds(prior, X) -> list[tuple[int, np.ndarray]]:
    """(row, columns) of each seeded row of the (K, V) ``prior`` (:func:`_favoured_terms`) whose seed terms
    include some that never occur in the training counts ``X`` (a zero column sum); in row order."""
    prior = np.asarray(prior)
    totals = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
    out = []
    for k in range(prior.shape[0]):
        cols = _favoured_terms(prior[k])
        unseen = cols[totals[cols] <= 0]
        if unseen.size:
            out.append((k, unseen))
    return out


def _term_names(param, n_terms: int, feature_names=None) -> dict:
    """column -> a name for messages: the seed words of a SeededPrior parameter (its ``seed_columns``), else
    the model's ``feature_names_in_``; columns neither names are left out (shown as ``column j``)."""
    if feature_names is not None and len(feature_names) == n_terms:  # (the names of X's own columns come first)
        return {j: str(t) for j, t in enumerate(feature_names)}
    names = {}
    columns, words = getattr(param, "seed_columns", None) or {}, getattr(param, "seed_topics", None) or {}
    for label, cols in columns.items():
        names.update(zip(cols, words.get(label, [])))
    return names


def _unseen_seeds_message(owner: str, unseen, labels, names: dict) -> str:
    """The :class:`topicvb.exceptions.SeedUnseenWarning` of a fit whose seed words include ``unseen`` ones."""
    parts = []
    for k, cols in unseen[:10]:
        shown = ", ".join(repr(names[j]) if j in names else f"column {j}" for j in cols[:10])
        parts.append(f"{str(labels[k])!r}: {shown}{', ...' if cols.size > 10 else ''}")
    if len(unseen) > 10:
        parts.append(f"and {len(unseen) - 10} more topics")
    n = len({int(j) for _, cols in unseen for j in cols})  # (a word seeding two topics is one word)
    return (f"{owner}: {n} seed word{'s' if n > 1 else ''} never occur{'' if n > 1 else 's'} in the training documents "
            f"({'; '.join(parts)}): such a word cannot guide its topic, and its prior pseudo-counts alone may still "
            "rank it among the topic's top words. Seed with words that these documents use (a fixed vocabulary may "
            "hold terms they do not).")
