"""Looking at fitted topics: top words (with relevance), prevalence, representative documents,
a topic table for notebooks and files, and the arguments of pyLDAvis.

Every function sees a model only through ``components_`` (K x V), ``topic_word_distribution()``
where the model has it, and ``transform``, so it works for every topicvb estimator and for
wrapped peer models (:class:`topicvb.evaluation.FixedTopicModel`).
"""

from __future__ import annotations

import csv
import html
import logging
import numbers
import os
import unicodedata
from collections.abc import Sequence

import numpy as np

from .evaluation._common import doc_topic as _doc_topic
from .evaluation._common import (
    check_counts,
    check_model,
    check_positive_int,
    prevalence_and_doc_topic,
    resolve_vocabulary,
    topic_word,
)
from .evaluation.coherence import CoherenceScores, as_reference
from .evaluation.coherence import coherence as _coherence

logger = logging.getLogger(__name__)

__all__ = [
    "TopicTable",
    "is_non_word",
    "junk_topics",
    "representative_documents",
    "summary",
    "to_pyldavis",
    "top_words",
    "topic_prevalence",
]


def _term_frequency(model, term_frequency, X, vocabulary, caller):
    """Corpus term frequencies for relevance: given, from X, or from a Vocabulary's term_freq."""
    n_terms = int(np.shape(model.components_)[1])
    if term_frequency is not None:
        tf = np.asarray(term_frequency, dtype=np.float64).ravel()
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
    log_phi = np.log(np.maximum(phi, tiny))
    lift = log_phi - np.log(np.maximum(p, tiny))[None, :]
    rel = lam * log_phi + (1.0 - lam) * lift
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
    model : fitted topic model
        Anything with ``components_`` of shape (n_topics, n_terms).
    vocabulary : sequence of str or Vocabulary, default=None
        The term of each column. None means the model's ``feature_names_in_`` or the column
        indices as strings.
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
    list of list of (str, float)
        One list per topic of (term, P(term | topic)), best first.

    Raises
    ------
    NotFittedError
        If the model is not fitted.
    ValueError
        If ``n`` is not positive, ``relevance`` is outside [0, 1] or lacks term frequencies, or
        the vocabulary has the wrong length.

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
    check_model(model, "top_words")
    n = check_positive_int(n, "n")
    terms = resolve_vocabulary(model, vocabulary, caller="top_words")
    phi = topic_word(model)
    n = min(n, phi.shape[1])
    if relevance is None:
        scores = phi
    else:
        if isinstance(relevance, bool) or not isinstance(relevance, numbers.Real) or not 0.0 <= relevance <= 1.0:
            raise ValueError(f"relevance must be a number in [0, 1] (lambda of Sievert & Shirley) or None, "
                             f"got {relevance!r}.")
        tf = _term_frequency(model, term_frequency, X, vocabulary, "top_words")
        scores = _relevance(phi, tf, float(relevance))
    order = np.argsort(-scores, axis=1, kind="stable")[:, :n]
    return [[(terms[j], float(phi[k, j])) for j in order[k]] for k in range(phi.shape[0])]


def topic_prevalence(model, X) -> np.ndarray:
    """Each topic's share of the corpus tokens: sum_d N_d theta_dk / N.

    theta_d = ``model.transform(X)`` (rows summing to 1) and N_d the length of document d, so
    empty documents weigh nothing and the shares sum to 1.

    Parameters
    ----------
    model : fitted topic model
    X : {array-like, sparse matrix} of shape (n_docs, n_terms)
        Term counts over the model's vocabulary.

    Returns
    -------
    ndarray of shape (n_topics,)
        Non-negative, sums to 1.

    Raises
    ------
    ValueError
        If ``X`` has the wrong width, negative counts or no token at all.
    """
    check_model(model, "topic_prevalence")
    X = check_counts(X, model, name="X", caller="topic_prevalence")
    return prevalence_and_doc_topic(model, X)[0]


def representative_documents(model, X, n: int = 5, *, doc_topic=None) -> list[list[tuple[int, float]]]:
    """The documents with the largest share of each topic.

    Parameters
    ----------
    model : fitted topic model
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
      counted as the expected counts N_d theta_dk of :func:`topic_prevalence`. Applied only with
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
    model : fitted topic model
    X : {array-like, sparse matrix} of shape (n_docs, n_terms), default=None
        Corpus counts, for the document rule.
    vocabulary : sequence of str or Vocabulary, default=None
        Column names, for the non-word rule (see :func:`top_words`).
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
    check_model(model, "junk_topics")
    K = int(np.shape(model.components_)[0])
    flags: list[list[str]] = [[] for _ in range(K)]
    if vocabulary is not None or getattr(model, "feature_names_in_", None) is not None:
        terms = resolve_vocabulary(model, vocabulary, caller="junk_topics")
        words_vocabulary = sum(map(is_non_word, terms)) < JUNK_NON_WORD_SHARE * len(terms)
    else:
        words_vocabulary = False
    if words_vocabulary:
        for k, words in enumerate(top_words(model, terms, JUNK_TOP_WORDS)):
            if sum(is_non_word(w) for w, _ in words) >= JUNK_NON_WORD_SHARE * len(words):
                flags[k].append(NON_WORDS)
    if X is not None:
        X = check_counts(X, model, name="X", caller="junk_topics")
        lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
        if np.count_nonzero(lengths) >= JUNK_DOCS_PER_TOPIC * K:
            if doc_topic is None:
                theta = _doc_topic(model, X)
            else:
                theta = np.asarray(doc_topic, dtype=np.float64)
                if theta.shape != (X.shape[0], K):
                    raise ValueError(f"junk_topics: doc_topic must have shape {(X.shape[0], K)}, got {theta.shape}.")
            tokens = lengths[:, None] * theta  # expected tokens of each topic in each document
            total = tokens.sum(axis=0)
            n_top = min(JUNK_FEW_DOCS, tokens.shape[0])
            top = np.partition(tokens, tokens.shape[0] - n_top, axis=0)[-n_top:].sum(axis=0)
            for k in range(K):
                if total[k] > 0 and top[k] > JUNK_DOC_SHARE * total[k]:
                    flags[k].append(FEW_DOCUMENTS)
    return flags


class TopicTable:
    """Topics at a glance: top words with weights, prevalence, coherence and junk flags per topic.

    Built by :func:`summary`. Shows as an HTML table in notebooks (``_repr_html_``: inline
    styles only, no external JavaScript or CSS), as plain text with ``str()``, and exports to CSV
    (``to_csv``) and plain Python (``to_dict``).

    Parameters
    ----------
    topics : list of list of (str, float)
        Top words of each topic with P(term | topic), best first.
    prevalence : array-like of shape (n_topics,), default=None
        Share of corpus tokens per topic.
    coherence : array-like of shape (n_topics,), default=None
        Coherence per topic.
    coherence_measure : str, default=None
        Name of the coherence measure.
    title : str, default=""
        A caption (the model's class name in :func:`summary`).
    junk : list of list of str, default=None
        Per topic, the reasons it is flagged as junk (see :func:`junk_topics`); empty lists for
        topics that are not. Flagged topics are marked in ``str()`` and the HTML table.

    Attributes
    ----------
    n_topics : int
        Number of topics.
    """

    def __init__(self, topics, prevalence=None, coherence=None, coherence_measure: str | None = None,
                 title: str = "", junk=None):
        self.topics = [[(str(w), float(v)) for w, v in t] for t in topics]
        K = len(self.topics)
        self.prevalence = None if prevalence is None else np.asarray(prevalence, dtype=np.float64).ravel()
        self.coherence = None if coherence is None else np.asarray(coherence, dtype=np.float64).ravel()
        for name, arr in (("prevalence", self.prevalence), ("coherence", self.coherence)):
            if arr is not None and arr.shape != (K,):
                raise ValueError(f"TopicTable: {name} must have one value per topic ({K}), got shape {arr.shape}.")
        self.coherence_measure = coherence_measure
        self.title = title
        if junk is not None:
            if isinstance(junk, str) or len(junk) != K:
                raise ValueError(f"TopicTable: junk must have one list of reasons per topic ({K}), got {junk!r}.")
            junk = [[str(r) for r in ([reasons] if isinstance(reasons, str) else reasons)] for reasons in junk]
        self.junk = junk

    def _flag(self, k: int) -> str:
        return "" if self.junk is None else ", ".join(self.junk[k])

    @property
    def _any_junk(self) -> bool:
        return self.junk is not None and any(self.junk)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def __len__(self) -> int:
        return self.n_topics

    def __repr__(self) -> str:
        return f"TopicTable(n_topics={self.n_topics}, title={self.title!r})"

    # ------------------------------------------------------------------ exports
    def to_dict(self) -> dict:
        """Plain Python (JSON-serialisable): ``{"title", "coherence_measure", "topics": [...]}``.

        Each topic is ``{"topic": k, "words": [...], "weights": [...], "prevalence": float or None,
        "coherence": float or None, "junk": list of str or None}``.
        """
        rows = []
        for k, words in enumerate(self.topics):
            rows.append({
                "topic": k,
                "words": [w for w, _ in words],
                "weights": [v for _, v in words],
                "prevalence": None if self.prevalence is None else float(self.prevalence[k]),
                "coherence": None if self.coherence is None else float(self.coherence[k]),
                "junk": None if self.junk is None else list(self.junk[k]),
            })
        return {"title": self.title, "coherence_measure": self.coherence_measure, "topics": rows}

    def to_csv(self, path_or_buffer) -> None:
        """Write the table in long form: one row per (topic, rank).

        Columns: ``topic, rank, word, weight, prevalence, coherence, junk`` (prevalence and
        coherence empty when unknown; junk holds the reasons a topic is flagged, joined by ``;``).
        ``path_or_buffer`` is a path (written as UTF-8) or a text buffer such as
        :class:`io.StringIO`.
        """
        if isinstance(path_or_buffer, (str, os.PathLike)):
            with open(path_or_buffer, "w", encoding="utf-8", newline="") as fh:
                self._write_csv(fh)
        elif hasattr(path_or_buffer, "write"):
            self._write_csv(path_or_buffer)
        else:
            raise TypeError(f"to_csv expects a path or a text buffer, got {type(path_or_buffer).__name__}.")

    def _write_csv(self, fh) -> None:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["topic", "rank", "word", "weight", "prevalence", "coherence", "junk"])
        for k, words in enumerate(self.topics):
            prev = "" if self.prevalence is None else repr(float(self.prevalence[k]))
            coh = "" if self.coherence is None else repr(float(self.coherence[k]))
            junk = "" if self.junk is None else ";".join(self.junk[k])
            for r, (w, v) in enumerate(words, start=1):
                writer.writerow([k, r, w, repr(v), prev, coh, junk])

    # ------------------------------------------------------------------ display
    def __str__(self) -> str:
        head = ["topic"]
        if self.prevalence is not None:
            head.append("prevalence")
        if self.coherence is not None:
            head.append(self.coherence_measure or "coherence")
        if self._any_junk:
            head.append("junk")
        head.append("top words")
        rows = []
        for k, words in enumerate(self.topics):
            row = [str(k)]
            if self.prevalence is not None:
                row.append(f"{100 * self.prevalence[k]:.1f}%")
            if self.coherence is not None:
                row.append(f"{self.coherence[k]:.3f}")
            if self._any_junk:
                row.append(self._flag(k))
            row.append(" ".join(w for w, _ in words))
            rows.append(row)
        widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head) - 1)]
        lines = [self.title] if self.title else []
        for r in [head] + rows:
            cells = [c.rjust(wd) for c, wd in zip(r[:-1], widths)]
            lines.append("  ".join(cells + [r[-1]]))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = html.escape
        td = "padding:2px 8px;vertical-align:top;text-align:right;"
        out = ['<div class="topicvb-topic-table" style="font-family:sans-serif;font-size:12px;">']
        if self.title:
            out.append(f'<div style="font-weight:bold;margin-bottom:4px;">{esc(self.title)}</div>')
        out.append('<table style="border-collapse:collapse;">')
        head = ["topic"]
        if self.prevalence is not None:
            head.append("prevalence")
        if self.coherence is not None:
            head.append(esc(self.coherence_measure or "coherence"))
        if self._any_junk:
            head.append("junk")
        head.append("top words (bar = P(word | topic))")
        out.append("<thead><tr>" + "".join(
            f'<th style="{td}border-bottom:1px solid #999;">{h}</th>' for h in head) + "</tr></thead><tbody>")
        max_prev = float(np.max(self.prevalence)) if self.prevalence is not None and self.prevalence.size else 1.0
        for k, words in enumerate(self.topics):
            cells = [f'<td style="{td}">{k}</td>']
            if self.prevalence is not None:
                share = float(self.prevalence[k])
                width = 0 if max_prev <= 0 else round(60 * share / max_prev)
                cells.append(
                    f'<td style="{td}white-space:nowrap;">{100 * share:.1f}%&nbsp;'
                    f'<span style="display:inline-block;width:{width}px;height:8px;background:#4c72b0;"></span></td>'
                )
            if self.coherence is not None:
                cells.append(f'<td style="{td}">{float(self.coherence[k]):.3f}</td>')
            if self._any_junk:
                flag_style = f"{td}color:#b42318;font-weight:bold;white-space:nowrap;"
                cells.append(f'<td style="{flag_style}">{esc(self._flag(k))}</td>')
            top = max((v for _, v in words), default=0.0)
            chips = []
            for w, v in words:
                width = 0 if top <= 0 else max(1, round(40 * v / top))
                chips.append(
                    f'<span title="{v:.4f}" style="display:inline-block;margin:0 6px 2px 0;text-align:left;">'
                    f'{esc(w)}<br><span style="display:inline-block;width:{width}px;height:3px;'
                    f'background:#dd8452;"></span></span>'
                )
            cells.append(f'<td style="padding:2px 8px;text-align:left;">{"".join(chips)}</td>')
            out.append("<tr style=\"border-bottom:1px solid #eee;\">" + "".join(cells) + "</tr>")
        out.append("</tbody></table></div>")
        return "".join(out)


def summary(model, X=None, vocabulary=None, n: int = 10, coherence=None, *, relevance: float | None = None,
            term_frequency=None, coherence_measure: str = "c_npmi") -> TopicTable:
    """A :class:`TopicTable` of the model's topics: top words, prevalence, coherence and junk flags.

    Topics that :func:`junk_topics` flags (at least half of the 10 top words non-words, or more
    than half of the tokens in 10 or fewer documents; the document rule needs ``X``) get their
    reasons in the table's ``junk`` column.

    Parameters
    ----------
    model : fitted topic model
    X : {array-like, sparse matrix} of shape (n_docs, n_terms), default=None
        Corpus counts; when given, the table has each topic's prevalence (:func:`topic_prevalence`),
        and relevance can use its term frequencies.
    vocabulary : sequence of str or Vocabulary, default=None
        Column names (see :func:`top_words`).
    n : int, default=10
        Top words per topic (clipped to the vocabulary size).
    coherence : array-like, CoherenceScores or reference corpus, default=None
        Coherence per topic: precomputed values (an array of length n_topics or a
        :class:`~topicvb.evaluation.CoherenceScores`), or a reference corpus (anything
        :func:`topicvb.evaluation.coherence` accepts) to compute ``coherence_measure`` of the
        top ``n`` words in.
    relevance : float in [0, 1], default=None
        Rank words by relevance instead of probability (see :func:`top_words`).
    term_frequency : array-like of shape (n_terms,), default=None
        Term frequencies for relevance when X is not given.
    coherence_measure : {"u_mass", "c_uci", "c_npmi", "c_v"}, default="c_npmi"
        Measure computed when ``coherence`` is a reference corpus.

    Returns
    -------
    TopicTable

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
    check_model(model, "summary")
    words = top_words(model, vocabulary, n, relevance, term_frequency=term_frequency, X=X)
    prevalence, theta = None, None
    if X is not None:
        X = check_counts(X, model, name="X", caller="summary")
        prevalence, theta = prevalence_and_doc_topic(model, X)
    junk = junk_topics(model, X, vocabulary, doc_topic=theta)
    scores, measure = None, None
    if coherence is not None:
        if isinstance(coherence, CoherenceScores):
            scores, measure = coherence.per_topic, coherence.measure
        elif isinstance(coherence, np.ndarray) or (
            isinstance(coherence, Sequence) and len(coherence) and isinstance(coherence[0], numbers.Real)
        ):
            scores = np.asarray(coherence, dtype=np.float64)
            measure = "coherence"
        else:
            result = _coherence(words, as_reference(coherence), measure=coherence_measure)
            scores, measure = result.per_topic, result.measure
    return TopicTable(words, prevalence, scores, measure, title=type(model).__name__, junk=junk)


#: Default floor of the topic-word probabilities handed to pyLDAvis (see :func:`to_pyldavis`).
PYLDAVIS_MIN_PROBABILITY = 1e-12


def to_pyldavis(model, X, vocabulary=None, *, drop_unused_terms: bool = True,
                min_probability: float = PYLDAVIS_MIN_PROBABILITY) -> dict:
    """The arguments of ``pyLDAvis.prepare`` for the model on corpus ``X``.

    Use as ``pyLDAvis.prepare(**to_pyldavis(model, X, vocab))``; pyLDAvis itself is not needed here.

    pyLDAvis takes logarithms of the topic-word probabilities and of their averages (the
    Jensen-Shannon distances of its map, the relevance of its bars), so an exact zero, or a value
    so small that halving it underflows to zero, makes its map fail with ``LinAlgError: Array must
    not contain infs or NaNs``. pLSA, which has no prior, drives the probabilities of terms a topic
    does not use to such values. So every probability below ``min_probability`` is raised to it,
    and each topic row is renormalised to sum to 1: the other probabilities change by a relative
    ``n_terms * min_probability`` at most (below 1e-7 for a million terms with the default), far
    below anything pyLDAvis shows.

    Parameters
    ----------
    model : fitted topic model
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
        ``topic_term_dists`` (n_topics, n_terms) rows summing to 1, no entry below about
        ``min_probability``; ``doc_topic_dists`` (n_docs, n_topics) rows summing to 1;
        ``doc_lengths`` (n_docs,) token counts; ``vocab`` list of str; ``term_frequency``
        (n_terms,) corpus counts.

    Raises
    ------
    ValueError
        If ``X`` does not fit the model or has no tokens, or ``min_probability`` is not a number
        in [0, 1 / n_terms].
    """
    check_model(model, "to_pyldavis")
    terms = resolve_vocabulary(model, vocabulary, caller="to_pyldavis")
    X = check_counts(X, model, name="X", caller="to_pyldavis")
    phi = np.array(topic_word(model), dtype=np.float64)
    theta = _doc_topic(model, X)
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    tf = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
    if drop_unused_terms:
        keep = tf > 0
        if not np.any(keep):
            raise ValueError("to_pyldavis: X has no tokens; pass the corpus the topics describe.")
        if not np.all(keep):
            logger.info("to_pyldavis: dropping %d terms that never occur in X.", int(np.count_nonzero(~keep)))
            phi = phi[:, keep]
            tf = tf[keep]
            terms = [t for t, k in zip(terms, keep) if k]
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
    phi = phi / np.maximum(phi.sum(axis=1, keepdims=True), 1e-300)
    return {
        "topic_term_dists": phi,
        "doc_topic_dists": theta,
        "doc_lengths": lengths,
        "vocab": list(terms),
        "term_frequency": tf,
    }
