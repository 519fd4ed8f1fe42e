"""Guided topics: name some topics and pull chosen seed words into them, let the others be found freely.

:func:`seed_topic_prior` turns a vocabulary and a dictionary ``{label: [seed words]}`` into a
:class:`SeededPrior`: a topic-word prior matrix of shape (n_components, n_terms) with the topic
labels. Every topicvb estimator accepts it as ``topic_word_prior``; the fitted model then names its
topics ``topic_labels_`` (the seed labels first, ``topic_k`` for the free topics), which
:func:`topicvb.top_words`, :func:`topicvb.summary`, the HTML report, ``topicvb topics`` and saved
model files use.

:func:`topicvb.make_topic_pipeline` (``seed_topics=...``) and ``topicvb fit --seed-topics seeds.json``
build the prior from the fitted vectorizer's vocabulary themselves.

What ``seed_confidence`` means
------------------------------
The entries of the prior are Dirichlet pseudo-counts: ``eta[k, w]`` is how many occurrences of
term ``w`` topic ``k`` is credited with before any document is seen. Every entry is the base prior
(``1 / n_components`` by default, the estimators' own default) except the seed words' entries in
their seed topics, raised so that **a seed word's seed topics hold the share** ``seed_confidence``
**of its pseudo-counts over all topics**::

    sum_{k in S_w} eta[k, w] / sum_k eta[k, w] = seed_confidence

(``S_w`` the topics that ``w`` seeds). So, before the data speak (topics of equal size, documents
without a preference), a token of ``nasa`` is assigned to the topic it seeds with probability
``seed_confidence``, instead of the ``1 / n_components`` of a symmetric prior. The share is a ratio,
so it is kept when an estimator learns the prior's scale (``learn_priors=True``). The pull it
exerts is that of ``eta[k, w]`` pseudo-occurrences against the word's real ones: with the default
base prior and one seed topic per word, ``eta[k, w]`` is about ``seed_confidence / (1 -
seed_confidence)`` (0.9: about 9 occurrences; 0.99: about 99), so for a seed word seen thousands of
times it is the data, and the start the prior gives the fit, that decide where the word ends up.

After a fit the estimators check the seeds: a seeded topic whose seed words the data took to other topics
(:class:`topicvb.exceptions.SeedLostWarning`, see :func:`seed_holding`), and seed words that no training
document uses, which cannot guide anything (:class:`topicvb.exceptions.SeedUnseenWarning`; ``fit`` only:
:func:`topicvb.distributed.fit_distributed` holds no training matrix to look at, and ``partial_fit`` sees one
mini-batch).

Example
-------
>>> from topicvb.guided import seed_topic_prior
>>> vocab = ["nasa", "orbit", "shuttle", "puck", "goal", "game", "the"]
>>> prior = seed_topic_prior(vocab, {"space": ["nasa", "orbit"], "hockey": ["puck", "goal"]}, 3)
>>> prior.labels
['space', 'hockey', 'topic_2']
>>> prior.matrix.shape
(3, 7)
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from ._seed_holding import LOST_FRACTION, MIN_SEED_TOKENS, SeedHolding, seed_holding  # (public here)

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_SEED_CONFIDENCE", "LOST_FRACTION", "MIN_SEED_TOKENS", "SeedHolding", "SeededPrior", "seed_holding",
           "seed_topic_prior"]

#: The default ``seed_confidence``: a seed word's seed topic holds 90% of the word's prior
#: pseudo-counts (about 9 pseudo-occurrences with the default base prior).
DEFAULT_SEED_CONFIDENCE = 0.9


class SeededPrior:
    """A topic-word prior matrix with topic names (and, when built from seed words, how it was built).

    Pass it as ``topic_word_prior`` to any topicvb estimator: it behaves as its matrix (``np.asarray(prior)``
    is ``prior.matrix``), and the fitted model takes its ``labels`` as ``topic_labels_``. Build one
    from seed words with :func:`seed_topic_prior`, or directly from a matrix of your own and names.

    Parameters
    ----------
    matrix : array-like of shape (n_components, n_terms)
        Dirichlet weights of each term in each topic: positive, or 0 to exclude the term from the
        topic (see :func:`topicvb._validation.check_topic_word_prior`, which ``fit`` applies).
    labels : sequence of str
        One distinct, non-empty name per topic (row).
    seed_topics : dict of str to list of str, default=None
        The seed words found in the vocabulary, by label (set by :func:`seed_topic_prior`).
    seed_confidence : float, default=None
        The share of a seed word's pseudo-counts in its seed topics (set by :func:`seed_topic_prior`).
    base_prior : float, default=None
        The weight of every entry that is neither a seed nor excluded (set by :func:`seed_topic_prior`).
    base_prior_default : bool, default=False
        Whether ``base_prior`` is :func:`seed_topic_prior`'s default, 1 / K, rather than a value its caller gave:
        a :class:`topicvb.TopicPipeline` loaded from a file refits with the default for its new K (set by
        :func:`seed_topic_prior`).
    missing : dict of str to list of str, default=None
        Seed words that are not in the vocabulary, by label (only labels with some).
    exclude : dict of str to list of str, default=None
        The words excluded (weight 0) from each topic, by label, as found in the vocabulary.
    seed_columns : dict of str to list of int, default=None
        The matrix columns of ``seed_topics``' words, by label, in the same order (set by
        :func:`seed_topic_prior`); the fit uses them to name seed words that the training documents never use
        (:class:`topicvb.exceptions.SeedUnseenWarning`).

    Attributes
    ----------
    matrix : ndarray of shape (n_components, n_terms), float64
    labels : list of str
    seed_topics, missing, exclude : dict of str to list of str
    seed_columns : dict of str to list of int
    seed_confidence, base_prior : float or None
    base_prior_default : bool
    shape : tuple
        ``matrix.shape``.
    """

    def __init__(self, matrix, labels, *, seed_topics=None, seed_confidence=None, base_prior=None, missing=None,
                 exclude=None, seed_columns=None, base_prior_default=False):
        from ._validation import check_topic_labels

        # a copy: the prior does not change under its user (a sparse matrix made dense, as a topic_word_prior is)
        arr = np.array(matrix.toarray() if sp.issparse(matrix) else matrix, dtype=np.float64)
        if arr.ndim != 2 or 0 in arr.shape:
            raise ValueError(f"SeededPrior: matrix must be a non-empty 2-D array (n_components, n_terms), got shape "
                             f"{arr.shape}.")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError("SeededPrior: matrix must hold finite, non-negative weights.")
        self.matrix = arr
        self.labels = check_topic_labels(labels, arr.shape[0], name="SeededPrior: labels")
        self.seed_topics = {k: list(v) for k, v in (seed_topics or {}).items()}
        self.seed_confidence = None if seed_confidence is None else float(seed_confidence)
        self.base_prior = None if base_prior is None else float(base_prior)
        if not isinstance(base_prior_default, (bool, np.bool_)):
            raise TypeError(f"SeededPrior: base_prior_default must be a bool, got {type(base_prior_default).__name__}.")
        self.base_prior_default = bool(base_prior_default)
        self.missing = {k: list(v) for k, v in (missing or {}).items()}
        self.exclude = {k: list(v) for k, v in (exclude or {}).items()}
        self.seed_columns = _check_seed_columns(seed_columns, self.seed_topics, arr, self.labels)

    @property
    def shape(self) -> tuple:
        return self.matrix.shape

    @property
    def n_components(self) -> int:
        return self.matrix.shape[0]

    def __array__(self, dtype=None, copy=None):
        arr = self.matrix
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            if copy is False:
                raise ValueError(f"SeededPrior holds float64 weights; a {np.dtype(dtype)} array needs a copy.")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __eq__(self, other):
        if not isinstance(other, SeededPrior):
            return NotImplemented
        return (self.labels == other.labels and self.matrix.shape == other.matrix.shape
                and bool(np.array_equal(self.matrix, other.matrix)) and self.seed_topics == other.seed_topics
                and self.seed_confidence == other.seed_confidence and self.base_prior == other.base_prior
                and self.exclude == other.exclude)

    __hash__ = None  # mutable, like an array

    def __repr__(self) -> str:
        K, V = self.matrix.shape
        seeded = [label for label in self.labels if label in self.seed_topics]
        shown = ", ".join(repr(s) for s in seeded[:6]) + (", ..." if len(seeded) > 6 else "")
        parts = [f"{K} topics x {V} terms"]
        if seeded:
            parts.append(f"seeded [{shown}]")
        if self.seed_confidence is not None:
            parts.append(f"seed_confidence={self.seed_confidence:g}")
        if self.base_prior is not None:
            parts.append(f"base_prior={self.base_prior:g}")
        n_missing = sum(len(v) for v in self.missing.values())
        if n_missing:
            parts.append(f"{n_missing} seed word{'' if n_missing == 1 else 's'} not in the vocabulary")
        if not self.seed_topics:
            parts.append("labels [" + ", ".join(repr(s) for s in self.labels[:6]) + (", ...]" if K > 6 else "]"))
        return f"SeededPrior({', '.join(parts)})"

    def describe(self) -> str:
        """Several lines: each seeded topic with its seed words (and those not in the vocabulary)."""
        lines = [repr(self)]
        for label in self.labels:
            if label in self.seed_topics or label in self.missing or label in self.exclude:
                line = f"  {label}: " + " ".join(self.seed_topics.get(label, []))
                if self.missing.get(label):
                    line += "  (not in the vocabulary: " + " ".join(self.missing[label]) + ")"
                if self.exclude.get(label):
                    line += "  (excluded: " + " ".join(self.exclude[label]) + ")"
                lines.append(line)
        return "\n".join(lines)


def _check_seed_columns(seed_columns, seed_topics, matrix, labels) -> dict:
    """SeededPrior's ``seed_columns``: label -> distinct column indices, one per word of ``seed_topics[label]``,
    each a column the label's row of ``matrix`` allows (a positive weight); a TypeError / ValueError naming it."""
    if seed_columns is None:
        return {}
    if not isinstance(seed_columns, Mapping):
        raise TypeError(f"SeededPrior: seed_columns must be a dict of label -> column indices, got "
                        f"{type(seed_columns).__name__}.")
    out = {}
    for label, cols in seed_columns.items():
        words = seed_topics.get(label)
        n = 0 if words is None else len(words)
        if (words is None or label not in labels or not isinstance(cols, (list, tuple, np.ndarray))
                or np.ndim(cols) != 1 or len(cols) != n):
            raise ValueError(f"SeededPrior: seed_columns[{label!r}] must list one column per seed word of that label "
                             f"in seed_topics ({n}), got {_short(cols)}.")
        V = matrix.shape[1]
        if not all(isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)) and 0 <= c < V
                   for c in cols):
            raise ValueError(f"SeededPrior: seed_columns[{label!r}] must hold column indices in [0, {V}), "
                             f"got {_short(cols)}.")
        cols = [int(c) for c in cols]
        row = matrix[labels.index(label)]
        if len(set(cols)) != len(cols) or not np.all(row[cols] > 0):
            raise ValueError(f"SeededPrior: seed_columns[{label!r}] must be distinct columns that the topic's prior "
                             f"row allows (a positive weight), got {_short(cols)}.")
        out[label] = cols
    return out


def _short(value) -> str:
    """A repr for messages, cut after about 80 characters."""
    text = repr(list(value) if isinstance(value, np.ndarray) else value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------- checks of the builder's inputs
def _vocabulary_terms(vocabulary) -> list[str]:
    """The terms of a Vocabulary, a ``term -> column`` mapping or a sequence of str (TypeError/ValueError)."""
    from .text.vocabulary import Vocabulary

    if isinstance(vocabulary, Vocabulary):
        terms = vocabulary.to_list()
    elif isinstance(vocabulary, Mapping):
        terms = Vocabulary.from_mapping(vocabulary).to_list()
    else:
        if isinstance(vocabulary, (str, bytes)) or vocabulary is None:
            raise TypeError("vocabulary must be a sequence of terms (str), a topicvb Vocabulary or a term -> column "
                            f"mapping, got {'a single ' if vocabulary is not None else ''}{type(vocabulary).__name__}.")
        try:
            terms = list(vocabulary)
        except TypeError:
            raise TypeError("vocabulary must be a sequence of terms (str), a topicvb Vocabulary or a term -> column "
                            f"mapping, got {type(vocabulary).__name__}.") from None
        bad = next((t for t in terms if not isinstance(t, str)), None)
        if bad is not None:
            raise TypeError(f"vocabulary must hold terms (str); it holds {bad!r} of type {type(bad).__name__}.")
    if not terms:
        raise ValueError("vocabulary is empty; pass the terms of the columns the model is fitted on.")
    if len(set(terms)) != len(terms):
        seen = set()
        dup = next(t for t in terms if t in seen or seen.add(t))
        raise ValueError(f"vocabulary must hold distinct terms; {dup!r} appears more than once.")
    return [str(t) for t in terms]


def word_lists(value, name: str, *, allow_empty: bool = False) -> list[tuple[str, list[str]]]:
    """``[(label, [words])]`` from a mapping (or a sequence of (label, words) pairs), checked."""
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        pairs = [tuple(p) for p in value]
    else:
        raise TypeError(f"{name} must be a dict of topic label -> list of words, such as {{'space': ['nasa', "
                        f"'orbit']}}, got {type(value).__name__}.")
    if not pairs and not allow_empty:
        raise ValueError(f"{name} is empty; give at least one topic label with its seed words.")
    out, seen = [], set()
    for label, words in pairs:
        if not isinstance(label, str):
            raise TypeError(f"{name} labels must be str, got {label!r} of type {type(label).__name__}.")
        if not label.strip():
            raise ValueError(f"{name} labels must be non-empty, got {label!r}.")
        if label in seen:
            raise ValueError(f"{name} has the label {label!r} twice; each topic label must be distinct.")
        seen.add(label)
        if isinstance(words, (str, bytes)):
            raise TypeError(f"{name}[{label!r}] must be a list of words, got a single {type(words).__name__} "
                            f"{words!r}. Wrap it in a list: [{words!r}].")
        if isinstance(words, Mapping):  # (its keys would pass for the words: {"files": {"x": 1}})
            raise TypeError(f"{name}[{label!r}] must be a list of words, got a dict.")
        try:
            words = list(words)
        except TypeError:
            raise TypeError(f"{name}[{label!r}] must be a list of words (str), got {type(words).__name__}.") from None
        bad = next((w for w in words if not isinstance(w, str)), None)
        if bad is not None:
            raise TypeError(f"{name}[{label!r}] must hold words (str); it holds {bad!r} of type "
                            f"{type(bad).__name__}.")
        words = list(dict.fromkeys(w for w in words))  # distinct, in the given order
        if not words:
            raise ValueError(f"{name}[{label!r}] is an empty list; give at least one word (or drop the label).")
        out.append((label, words))
    return out


def check_seed_confidence(value) -> float:
    """``seed_confidence`` as a float in (0, 1), or a TypeError / ValueError naming it."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"seed_confidence must be a number in (0, 1), got {type(value).__name__} {value!r}.")
    value = float(value)
    if not 0.0 < value < 1.0:  # also False for NaN
        raise ValueError(f"seed_confidence must be a number in (0, 1) (the share of a seed word's prior "
                         f"pseudo-counts in its seed topics), got {value!r}.")
    return value


def _lookup(word: str, index: dict, tokenizer):
    """The vocabulary term of a seed word: itself, else what ``tokenizer`` makes of it (one term), else None."""
    if word in index:
        return word
    if tokenizer is None:
        return None
    tokenize = getattr(tokenizer, "tokenize", tokenizer)
    try:
        tokens = list(tokenize(word))
    except Exception:  # a word the tokenizer cannot read is simply not found
        return None
    if len(tokens) == 1 and tokens[0] in index:
        logger.info("seed word %r is the term %r of the vocabulary.", word, tokens[0])
        return tokens[0]
    return None


def _hint(words, index) -> str:
    """`` (in the vocabulary: 'nasa')`` when some unknown words are there in lower case."""
    lower = [f"{w!r} -> {w.lower()!r}" for w in words if w.lower() != w and w.lower() in index]
    return f" (in lower case they are: {', '.join(lower)})" if lower else ""


# ---------------------------------------------------------------------------- the builder
def seed_topic_prior(vocabulary, seed_topics, n_components: int, *,
                     seed_confidence: float = DEFAULT_SEED_CONFIDENCE, base_prior: float | None = None,
                     exclude=None, tokenizer=None) -> SeededPrior:
    """A topic-word prior that gives each labelled topic its seed words: a :class:`SeededPrior`.

    The seeded topics take the first rows, in the order of ``seed_topics``, named by their labels;
    the other ``n_components - len(seed_topics)`` topics are free and named ``topic_k`` (k their
    row). Pass the result as ``topic_word_prior`` of any topicvb estimator with ``n_components``
    topics fitted on this vocabulary.

    The matrix, for a base prior ``b`` (every entry's weight unless set below) and
    ``c = seed_confidence``: for each seed word ``w``, with ``S_w`` the ``s`` topics it seeds and
    ``o`` the number of other topics that do not exclude it (``n_components - s`` when they all do: the
    seed topics then hold all of the word, and the weight keeps it a seed word),

        eta[k, w] = b * c * o / (s * (1 - c))    for k in S_w,

    so that the seed topics hold the share ``c`` of the word's pseudo-counts,
    ``sum_{k in S_w} eta[k, w] / sum_k eta[k, w] = c``; ``eta[k, w] = 0`` where ``exclude`` removes
    ``w`` from topic ``k``; every other entry is ``b``. A word that seeds several topics splits the
    share evenly between them. With the default ``b = 1 / n_components`` and one seed topic,
    ``eta[k, w] = c / (1 - c) * (n_components - 1) / n_components``: about 9 pseudo-occurrences of the
    word for ``c = 0.9``, 99 for ``c = 0.99``. See :mod:`topicvb.guided` for how to read the number.

    Parameters
    ----------
    vocabulary : sequence of str, Vocabulary or dict of str to int
        The terms of the columns, in order (a fitted vectorizer's ``vocab_`` or
        ``get_feature_names_out()``, a corpus's ``vocabulary``), or a ``term -> column`` mapping.
    seed_topics : dict of str to list of str
        Topic label -> seed words, such as ``{"space": ["nasa", "orbit"], "hockey": ["puck"]}`` (a list of
        ``(label, words)`` pairs also serves). A word may seed several topics. Words not in the
        vocabulary are reported (a logged warning, and ``missing`` of the result), not used.
    n_components : int
        The number of topics of the model, at least ``len(seed_topics)``.
    seed_confidence : float in (0, 1), default=0.9
        The share of a seed word's prior pseudo-counts in its seed topics (see above). It must
        exceed the share a symmetric prior gives (``s / (s + o)``, 1 / n_components for one seed topic).
    base_prior : float, default=None
        The weight of the other entries; None means ``1 / n_components``, the estimators' default
        ``topic_word_prior``.
    exclude : dict of str to list of str, default=None
        Topic label (a seed label or a free topic's ``topic_k``) -> words the topic must not use:
        their weight there is 0, so the fitted topic gives them probability 0. A word may not be
        excluded from every topic, nor seed a topic it is excluded from.
    tokenizer : Tokenizer or callable, default=None
        Turns a seed word that is not in the vocabulary as given into the vocabulary's form (a
        :class:`topicvb.text.Tokenizer`, whose ``tokenize`` lower-cases and stems it as the corpus
        was, or any callable returning a list of tokens): the word is used when that gives exactly
        one term of the vocabulary.

    Returns
    -------
    SeededPrior
        ``matrix`` (n_components, n_terms) float64, ``labels``, ``seed_topics`` (the words found),
        ``missing`` (label -> words not in the vocabulary, for the labels that have some).

    Raises
    ------
    TypeError
        ``vocabulary`` is not a sequence of str; ``seed_topics`` or ``exclude`` is not a dict of
        str to lists of str (a single str as a word list included); ``seed_confidence`` or
        ``base_prior`` is not a number; ``n_components`` is not an int.
    ValueError
        An empty vocabulary, ``seed_topics`` or word list; more labels than ``n_components``;
        a label twice or one equal to a free topic's name; a topic none of whose seed words is in
        the vocabulary; ``seed_confidence`` outside (0, 1) or not above the symmetric share;
        ``base_prior`` not positive; an ``exclude`` label that names no topic, a word excluded
        from every topic or from a topic it seeds, or a topic left without words.

    Examples
    --------
    >>> import numpy as np
    >>> prior = seed_topic_prior(["nasa", "orbit", "puck", "the"], {"space": ["nasa", "orbit"],
    ...                          "hockey": ["puck", "nasa"]}, 4, seed_confidence=0.9)
    >>> prior.labels
    ['space', 'hockey', 'topic_2', 'topic_3']
    >>> prior.matrix[:, 0]  # 'nasa' seeds two topics: they share 0.9 of its weight
    array([2.25, 2.25, 0.25, 0.25])
    >>> float(np.round(prior.matrix[:2, 0].sum() / prior.matrix[:, 0].sum(), 6))
    0.9
    """
    from ._validation import check_int

    terms = _vocabulary_terms(vocabulary)
    seeds = word_lists(seed_topics, "seed_topics")
    check_int(n_components, "n_components", min_val=1)
    K, V = int(n_components), len(terms)
    labels = _topic_names(seeds, K)
    c = check_seed_confidence(seed_confidence)
    base = _base_prior(base_prior, K)
    index = {t: j for j, t in enumerate(terms)}

    found, missing, seeded_by = _found_seeds(seeds, index, tokenizer)
    matrix = np.full((K, V), base, dtype=np.float64)
    excluded = {} if exclude is None else _exclude(matrix, exclude, labels, index, tokenizer, seeded_by, terms)
    _set_seed_weights(matrix, seeded_by, base, c, terms)
    return SeededPrior(matrix, labels, seed_topics=found, seed_confidence=c, base_prior=base, missing=missing,
                       exclude=excluded or None, seed_columns={k: [index[t] for t in ws] for k, ws in found.items()},
                       base_prior_default=base_prior is None)


def _topic_names(seeds, K: int) -> list[str]:
    """The names of :func:`seed_topic_prior`'s K topics: the seed labels, then ``topic_k`` for the free topics;
    a ValueError for more labels than topics or a label that is a free topic's name."""
    if len(seeds) > K:
        raise ValueError(f"seed_topics has {len(seeds)} labels but the model has only n_components={K} topics; use "
                         f"at least {len(seeds)} topics or fewer labels.")
    taken = {label for label, _ in seeds}
    clash = next((f"topic_{k}" for k in range(len(seeds), K) if f"topic_{k}" in taken), None)
    if clash is not None:
        raise ValueError(f"seed_topics label {clash!r} is the name of a free topic (the unseeded topics are named "
                         f"topic_{len(seeds)} to topic_{K - 1}); choose another label.")
    return [label for label, _ in seeds] + [f"topic_{k}" for k in range(len(seeds), K)]


def _base_prior(base_prior, K: int) -> float:
    """:func:`seed_topic_prior`'s ``base_prior`` checked, 1 / K for None."""
    from ._validation import check_positive_prior

    if base_prior is not None and (isinstance(base_prior, (bool, np.bool_))
                                   or not isinstance(base_prior, (numbers.Real, np.number))):
        raise TypeError(f"base_prior must be one positive number (the symmetric prior of every other term) or None, "
                        f"got {type(base_prior).__name__} {base_prior!r}.")
    base = check_positive_prior(base_prior, "base_prior")
    if base is not None and np.ndim(base) != 0:  # (a prior vector passes that check: one number is wanted here)
        raise TypeError(f"base_prior must be one positive number (the symmetric prior of every other term) or None, "
                        f"got {type(base_prior).__name__} {base_prior!r}.")
    return 1.0 / K if base is None else float(base)


def _found_seeds(seeds, index, tokenizer):
    """(found: label -> seed terms, missing: label -> unknown words, seeded_by: term column -> seed topic rows)
    of :func:`seed_topic_prior`'s checked ``seeds``; unknown words are logged, a topic with none known refused."""
    found, missing = {}, {}
    seeded_by: dict[int, list[int]] = {}  # term column -> seed topic rows
    for k, (label, words) in enumerate(seeds):
        known, unknown = [], []
        for word in words:
            term = _lookup(word, index, tokenizer)
            (known if term is not None else unknown).append(term if term is not None else word)
        known = list(dict.fromkeys(known))
        if unknown:
            missing[label] = unknown
        if not known:
            raise ValueError(f"seed_topics[{label!r}]: none of its seed words is in the vocabulary "
                             f"({', '.join(map(repr, unknown))}){_hint(unknown, index)}; give words of the corpus "
                             "(as the vectorizer writes them: lower case, stemmed if it stems).")
        found[label] = known
        for term in known:
            seeded_by.setdefault(index[term], []).append(k)
    if missing:
        listed = "; ".join(f"{label}: {', '.join(words)}" for label, words in missing.items())
        n = sum(map(len, missing.values()))
        logger.warning("%d seed word%s not in the vocabulary and not used (%s)%s.", n,
                       " is" if n == 1 else "s are", listed,
                       _hint([w for ws in missing.values() for w in ws], index))
    return found, missing, seeded_by


def _exclude(matrix, exclude, labels, index, tokenizer, seeded_by, terms):
    """Zero ``matrix`` where ``exclude`` removes a word from a topic; returns label -> the excluded terms."""
    row = {label: k for k, label in enumerate(labels)}
    excluded, missing_excluded = {}, {}
    for label, words in word_lists(exclude, "exclude", allow_empty=True):
        if label not in row:
            raise ValueError(f"exclude names the topic {label!r}, which is neither a seed label nor a free topic "
                             f"({', '.join(map(repr, labels))}).")
        known = [t for t in (_lookup(w, index, tokenizer) for w in words) if t is not None]
        unknown = [w for w in words if _lookup(w, index, tokenizer) is None]
        if unknown:
            missing_excluded[label] = unknown
        for term in dict.fromkeys(known):
            if row[label] in seeded_by.get(index[term], ()):
                raise ValueError(f"exclude[{label!r}] holds {term!r}, which seeds that topic; a word cannot be "
                                 "both a seed of a topic and excluded from it.")
            matrix[row[label], index[term]] = 0.0
        excluded[label] = list(dict.fromkeys(known))
    if missing_excluded:
        logger.warning("excluded words not in the vocabulary, ignored (%s).",
                       "; ".join(f"{label}: {', '.join(w)}" for label, w in missing_excluded.items()))
    dead = np.flatnonzero(~np.any(matrix > 0, axis=0))
    if dead.size:
        raise ValueError(f"exclude removes {terms[int(dead[0])]!r} from every topic; each word needs some topic.")
    empty = np.flatnonzero(~np.any(matrix > 0, axis=1))
    if empty.size:
        raise ValueError(f"exclude removes every word from the topic {labels[int(empty[0])]!r}; each topic needs "
                         "some words.")
    return excluded


def _set_seed_weights(matrix, seeded_by, base, c, terms):
    """Each seed word's weight in its seed topics: the share ``c`` of its column (see :func:`seed_topic_prior`)."""
    from ._validation import PRIOR_RANGE

    K = matrix.shape[0]
    for j, rows in seeded_by.items():
        s = len(rows)
        if s == K:
            logger.warning("seed word %r seeds every topic, so it cannot favour any; its prior stays "
                           "symmetric.", terms[j])
            continue
        # (every other topic excludes the word: its seed topics hold all of it whatever the weight; it gets the
        # weight it would have without the exclusions, so that it stays a raised seed weight, which the estimators'
        # start and seed_holding read)
        others = int(np.count_nonzero(matrix[:, j] > 0)) - s or K - s
        weight = base * c * others / (s * (1.0 - c))
        if weight <= base:
            raise ValueError(f"seed_confidence={c:g} gives {terms[j]!r} no more than the share a symmetric prior gives "
                             f"its {s} seed topic(s) ({s}/{s + others} = {s / (s + others):.3g}); use a value above "
                             "that (the default is 0.9).")
        if weight > PRIOR_RANGE[1]:  # (base_prior times a factor that grows without bound as c nears 1)
            if c > 0.999:
                cause, fix = f"seed_confidence={c!r} is so close to 1", "a smaller seed_confidence"
            else:
                cause, fix = f"base_prior={base:g} is so large (with seed_confidence={c!r})", "a smaller base_prior"
            raise ValueError(f"{cause} that {terms[j]!r} would get a prior weight of {weight:.3g}, beyond "
                             f"{PRIOR_RANGE[1]:g}; use {fix}.")
        matrix[rows, j] = weight
