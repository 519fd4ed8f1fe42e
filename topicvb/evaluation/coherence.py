"""Topic coherence from a reference corpus (UMass, UCI PMI, NPMI, C_V) and topic diversity.

All measures score a topic's top words w_1, ..., w_M (most probable first) by how often they
occur together in a reference corpus. Occurrence is counted in *units*: whole documents by
default (document co-occurrence), or sliding windows of ``window_size`` tokens over tokenised
documents (each window position is one unit, as in Röder et al. 2015 and gensim; a document no
longer than the window is one unit). Empty documents (no token) are no units either way, so adding
them changes no score, and a reference corpus of empty documents only is an error. With U units,
D(w) is the number of units containing w, D(w, w') the number containing both, P(w) = D(w) / U and
P(w, w') = D(w, w') / U.

========  ==============================================================================  =========
measure   per-topic value                                                                 epsilon
========  ==============================================================================  =========
u_mass    mean over m > l of log((D(w_m, w_l) + eps) / D(w_l))   (Mimno et al. 2011)       1 (count)
c_uci     mean over i < j of PMI = log((P(w_i, w_j) + eps) / (P(w_i) P(w_j)))               1e-12
          (Newman et al. 2010)
c_npmi    mean over i < j of NPMI = PMI / (-log(P(w_i, w_j) + eps))  (Bouma 2009)          1e-12
c_v       mean over i of cos(v(w_i), sum_j v(w_j)) with v(w_i) = (NPMI(w_i, w_j))_j         1e-12
          over all top words j, i = j included; sliding window of 110 (Röder et al. 2015)
========  ==============================================================================  =========

**Agreement with gensim's CoherenceModel** (tested when gensim is installed): the same values for
every measure with the same units, with six differences of convention. (0) The default units of
c_uci and c_npmi: whole documents here, a sliding window of 10 tokens in gensim; give tokenised
texts with ``window_size=10`` here (or gensim a window as long as the longest document) for the same
values. (1) gensim drops top words that are missing from its dictionary before scoring; here they
stay, and their pairs score 0. (2) gensim's sliding-window counter removes the token that leaves a
window from the window's word set even when the word recurs inside the window, so a word repeated
within a window is undercounted (in ``a a b`` with windows of 2 it sees the windows {a} and {b});
here a unit contains w when any of its tokens is w, as defined by Röder et al. The two agree when no
word repeats within a window and when each document fits in one window (C_V's 110 tokens usually).
(3) For UMass gensim adds 1e-12 to the
*probability*, i.e. ``epsilon = 1e-12 * n_docs`` here; the default here is Mimno's count of 1.
(4) With documents as units gensim counts empty documents too (so padding a reference corpus with
them raises every PMI); here they are no units, as they are no windows in either. (5) A pair that
occurs in every unit has NPMI 1 here (Bouma's value for perfect co-occurrence); gensim's
``log(1 + eps) / -log(1 + eps)`` gives it -1.

Mimno et al. sum the UMass terms; here every measure is a mean over its pairs (as in gensim and
Palmetto), so values do not grow with M; Mimno's sum is the mean times M (M - 1) / 2.

**Epsilon and missing words.** ``eps`` keeps log(0) out of a pair that never co-occurs. A top word
that never occurs in the reference corpus (absent from its vocabulary or with zero count) gives no
evidence either way: every pair that involves it scores 0 (its NPMI vector in C_V is zero, and a
cosine involving a zero vector is 0), so no measure is ever NaN or infinite. NPMI is 1 for a pair
that occurs in every unit (where -log P(w_i, w_j) = 0). NPMI values (in c_npmi and inside C_V)
are clipped to [-1, 1], the range of NPMI: the eps added to P(w_i, w_j) can push the ratio past
it (above 1 for a pair that always occurs together, markedly so for a large ``epsilon``).
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .._validation import as_csr, check_nonnegative_counts
from ._common import numeric_array, ordered_terms

logger = logging.getLogger(__name__)

__all__ = ["MEASURES", "CoherenceScores", "ReferenceCorpus", "coherence", "topic_diversity"]

MEASURES = ("u_mass", "c_uci", "c_npmi", "c_v")
_DEFAULT_EPSILON = {"u_mass": 1.0, "c_uci": 1e-12, "c_npmi": 1e-12, "c_v": 1e-12}
_DEFAULT_WINDOW = {"u_mass": None, "c_uci": None, "c_npmi": None, "c_v": 110}


class CoherenceScores(NamedTuple):
    """Coherence of a set of topics.

    Attributes
    ----------
    measure : str
        One of ``"u_mass"``, ``"c_uci"``, ``"c_npmi"``, ``"c_v"``.
    per_topic : ndarray of shape (n_topics,)
        The coherence of each topic.
    mean : float
        The average over topics (the usual single number).
    """

    measure: str
    per_topic: np.ndarray
    mean: float


class ReferenceCorpus:
    """The corpus that coherence counts co-occurrences in.

    Give a document-term matrix with its vocabulary (document co-occurrence), tokenised documents
    (needed for sliding windows, hence for C_V; they also give document co-occurrence), or both.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_docs, n_terms), default=None
        Term counts; only whether a count is positive matters. Duplicate entries of a sparse
        matrix are summed first (the caller's matrix is left as it is).
    vocabulary : sequence of str, Vocabulary or dict, default=None
        The term of each column of ``X``, in column order; required with ``X``. A dict
        ``{term: column}`` (scikit-learn's ``CountVectorizer.vocabulary_``) is ordered by column; a
        set, whose order is arbitrary, is refused.
    texts : iterable of sequences of str, default=None
        Tokenised documents (each a list of tokens in text order), e.g. the output of
        ``topicvb.Tokenizer`` applied to raw texts. Consumed once and kept as a list.

    Examples
    --------
    >>> ref = ReferenceCorpus(texts=[["cat", "dog"], ["cat", "fish"]])
    >>> ref.n_docs
    2
    """

    def __init__(self, X=None, vocabulary=None, texts=None):
        if X is None and texts is None:
            raise ValueError("ReferenceCorpus needs X (with vocabulary) or texts (tokenised documents); got neither.")
        self.X = None
        self.index = None
        if X is not None:
            if vocabulary is None:
                raise ValueError("ReferenceCorpus: X needs its vocabulary (the term of each column); got None.")
            if sp.issparse(X):
                if X.dtype.kind not in "biuf":
                    raise TypeError(f"ReferenceCorpus: X must hold numeric term counts, got dtype {X.dtype}.")
            else:
                X = numeric_array(X, "X", "ReferenceCorpus", "a matrix of numeric term counts")
                if X.ndim != 2:
                    raise ValueError(f"ReferenceCorpus: X must be 2-D (n_docs, n_terms), got shape {X.shape}.")
            # canonical (duplicates summed, on a copy: the caller's matrix is never changed), explicit zeros dropped
            X = as_csr(X, dtype=np.float64)
            terms = ordered_terms(vocabulary, "vocabulary", "ReferenceCorpus")
            if len(terms) != X.shape[1]:
                raise ValueError(
                    f"ReferenceCorpus: vocabulary has {len(terms)} terms but X has {X.shape[1]} columns."
                )
            if X.nnz and np.any(~np.isfinite(X.data)):
                raise ValueError("ReferenceCorpus: X has NaN or infinite counts.")
            if X.nnz and np.any(X.data == 0):
                X = X.copy()
                X.eliminate_zeros()
            check_nonnegative_counts(X, "ReferenceCorpus")
            self.index = {t: j for j, t in enumerate(terms)}
            if len(self.index) != len(terms):  # (a term's co-occurrences would be read from one of its columns)
                seen, twice = set(), []
                for t in terms:
                    if t in seen and t not in twice:
                        twice.append(t)
                    seen.add(t)
                raise ValueError(f"ReferenceCorpus: vocabulary must name each column by a term of its own; "
                                 f"{', '.join(map(repr, twice[:5]))} name{'s' if len(twice) == 1 else ''} more than "
                                 "one column.")
            self.X = X
        self.texts = None
        if texts is not None:
            if isinstance(texts, (str, bytes)):
                raise TypeError("ReferenceCorpus: texts must be a list of tokenised documents, got a single str.")
            docs = []
            for i, doc in enumerate(texts):
                if isinstance(doc, (str, bytes)):
                    raise TypeError(
                        f"ReferenceCorpus: texts must hold tokenised documents (lists of str); document {i} is a "
                        "str. Tokenise it first, e.g. with topicvb.Tokenizer."
                    )
                if not isinstance(doc, Iterable):
                    raise TypeError(
                        f"ReferenceCorpus: texts must hold tokenised documents (lists of str); document {i} is a "
                        f"{type(doc).__name__}."
                    )
                doc = list(doc)
                if not all(isinstance(t, str) for t in doc):
                    bad = next(t for t in doc if not isinstance(t, str))
                    raise TypeError(
                        f"ReferenceCorpus: texts must hold tokenised documents (lists of str tokens); document {i} "
                        f"has a token {bad!r} of type {type(bad).__name__}"
                        + (" (nested one level too deep?)." if isinstance(bad, (list, tuple)) else ".")
                    )
                docs.append(doc)
            self.texts = docs

    @property
    def n_docs(self) -> int:
        """Number of documents."""
        return self.X.shape[0] if self.X is not None else len(self.texts)

    def __repr__(self) -> str:
        parts = []
        if self.X is not None:
            parts.append(f"X={self.X.shape[0]}x{self.X.shape[1]}")
        if self.texts is not None:
            parts.append(f"texts={len(self.texts)}")
        return f"ReferenceCorpus({', '.join(parts)})"


def as_reference(reference) -> ReferenceCorpus:
    """Accept a ReferenceCorpus, a topicvb Corpus, an ``(X, vocabulary)`` pair or tokenised documents."""
    if isinstance(reference, ReferenceCorpus):
        return reference
    if reference is None:
        raise TypeError("coherence needs a reference corpus; got None.")
    if hasattr(reference, "X") and hasattr(reference, "vocabulary"):
        return ReferenceCorpus(X=reference.X, vocabulary=reference.vocabulary)
    if isinstance(reference, tuple) and len(reference) == 2 and (
        sp.issparse(reference[0]) or np.ndim(reference[0]) >= 2
    ):
        return ReferenceCorpus(X=reference[0], vocabulary=reference[1])
    if sp.issparse(reference) or (isinstance(reference, np.ndarray) and reference.ndim == 2
                                  and reference.dtype.kind in "iufb"):
        raise TypeError("a count matrix alone is no reference corpus: its columns need their terms. Pass (X, "
                        "vocabulary), or a Corpus (e.g. coherence(words, (X, corpus.vocabulary))).")
    if isinstance(reference, Iterable) and not isinstance(reference, (str, bytes)):
        return ReferenceCorpus(texts=reference)
    raise TypeError(
        "reference must be a ReferenceCorpus, a topicvb Corpus, an (X, vocabulary) pair or a list of tokenised "
        f"documents; got {type(reference).__name__}."
    )


def _topic_words(topics) -> list[list[str]]:
    """Lists of top words as str; (word, weight) pairs (the output of top_words) are accepted."""
    if isinstance(topics, (str, bytes)) or not isinstance(topics, Iterable):
        raise TypeError(f"topics must be a list of lists of top words, got {type(topics).__name__}.")
    out = []
    for k, topic in enumerate(topics):
        if isinstance(topic, (str, bytes)) or not isinstance(topic, Iterable):
            raise TypeError(f"topics must be a list of lists of top words; topic {k} is a {type(topic).__name__}.")
        words = []
        for item in topic:
            word = item[0] if isinstance(item, tuple) else item
            if not isinstance(word, str):
                raise TypeError(f"top words must be str; topic {k} has {word!r} of type {type(word).__name__}.")
            words.append(word)
        out.append(words)
    if not out:
        raise ValueError("topics is empty; pass at least one topic's top words.")
    return out


def _document_counts(ref: ReferenceCorpus, words: list[str]):
    """Units, D(w) and D(w, w') with whole documents as units; empty documents (no token) are no units."""
    T = len(words)
    if ref.X is not None:
        cols = np.array([ref.index.get(w, -1) for w in words], dtype=np.int64)
        known = cols >= 0
        where = np.flatnonzero(known)
        sub = ref.X[:, cols[known]].tocsr()
        sub.data = (sub.data > 0).astype(np.float64)
        # spread the known columns into their places among all T words
        place = sp.csr_matrix((np.ones(where.size), (np.arange(where.size), where)), shape=(where.size, T))
        B = (sub @ place).tocsr()
        single = np.asarray(B.sum(axis=0), dtype=np.float64).ravel()
        joint = np.asarray((B.T @ B).todense(), dtype=np.float64)
        # a unit is a document with a token (explicit zeros were dropped in ReferenceCorpus)
        return float(np.count_nonzero(np.diff(ref.X.indptr))), single, joint
    index = {w: i for i, w in enumerate(words)}
    rows, cols = [], []
    for d, doc in enumerate(ref.texts):
        present = {index[t] for t in doc if t in index}
        rows.extend([d] * len(present))
        cols.extend(present)
    B = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(ref.texts), T))
    single = np.asarray(B.sum(axis=0), dtype=np.float64).ravel()
    joint = np.asarray((B.T @ B).todense(), dtype=np.float64)
    return float(sum(1 for doc in ref.texts if doc)), single, joint


# Sliding windows are counted a block of window positions at a time, so that the work arrays of one
# block hold about this many numbers (words present in the document x windows), however long the
# document (a book of a million tokens costs no more memory than a page).
_WINDOW_BLOCK_ELEMENTS = 1 << 20


def _window_counts(ref: ReferenceCorpus, words: list[str], window_size: int):
    """Units, D(w) and D(w, w') with sliding windows of ``window_size`` tokens as units.

    A document of L > window_size tokens has L - window_size + 1 windows; a shorter one (but not an
    empty one) is a single window. Tokens outside ``words`` keep their positions.
    """
    index = {w: i for i, w in enumerate(words)}
    T = len(words)
    single = np.zeros(T)
    joint = np.zeros((T, T))
    n_units = 0.0
    for doc in ref.texts:
        L = len(doc)
        if L == 0:
            continue
        ids = np.fromiter((index.get(t, -1) for t in doc), dtype=np.int64, count=L)
        hit = np.flatnonzero(ids >= 0)
        if L <= window_size:
            n_units += 1
            present = np.unique(ids[hit])
            single[present] += 1
            joint[np.ix_(present, present)] += 1
            continue
        n_units += L - window_size + 1
        if hit.size == 0:
            continue
        present, pos = np.unique(ids[hit], return_inverse=True)
        doc_single, doc_joint = _sliding_window_counts(hit, pos.ravel(), present.size, L, window_size)
        single[present] += doc_single
        joint[np.ix_(present, present)] += doc_joint
    return n_units, single, joint


def _sliding_window_counts(hit: np.ndarray, word: np.ndarray, n_words: int, L: int, window_size: int):
    """Window counts of one document of ``L > window_size`` tokens, in memory independent of ``L``.

    ``hit`` holds the positions (ascending) of the document's tokens that are counted words and
    ``word`` the index (in ``range(n_words)``) of the word at each. Returns ``(single, joint)``: for
    each word the number of the ``L - window_size + 1`` windows that contain it, and for each pair
    the number that contain both. The window ending at token e (e = window_size - 1, ..., L - 1)
    contains w iff w's last occurrence at or before e is at e - window_size + 1 or later; that last
    occurrence is a running maximum over positions, carried from one block of windows to the next.
    The counts are whole numbers (exact in float64), so their sums over blocks are exact too.
    """
    W = window_size
    block = max(1, _WINDOW_BLOCK_ELEMENTS // n_words)
    single = np.zeros(n_words)
    joint = np.zeros((n_words, n_words))
    # last occurrence of each word before the first window's end (-W: none; it is in no window then)
    last = np.full(n_words, -W, dtype=np.int64)
    k0 = int(np.searchsorted(hit, W - 1))
    np.maximum.at(last, word[:k0], hit[:k0])
    for e0 in range(W - 1, L, block):
        e1 = min(L, e0 + block)
        k1 = int(np.searchsorted(hit, e1))
        # latest[i, j]: last occurrence of word i at or before the end e0 + j of window e0 + j - W + 1
        latest = np.full((n_words, e1 - e0), -W, dtype=np.int64)
        latest[word[k0:k1], hit[k0:k1] - e0] = hit[k0:k1]
        latest[:, 0] = np.maximum(latest[:, 0], last)
        latest = np.maximum.accumulate(latest, axis=1)
        last = latest[:, -1].copy()
        inside = latest >= np.arange(e0 - W + 1, e1 - W + 1)
        del latest
        P = inside.astype(np.float64)
        del inside
        single += P.sum(axis=1)
        joint += P @ P.T
        k0 = k1
    return single, joint


def _npmi_matrix(p, pj, present, eps):
    """NPMI between all pairs (diagonal included), 0 for pairs involving a missing word."""
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log((pj + eps) / np.outer(p, p))
        denom = -np.log(pj + eps)
        npmi = pmi / denom
    npmi = np.where(pj >= 1.0, 1.0, npmi)
    ok = np.outer(present, present)
    # NPMI lies in [-1, 1]; the eps smoothing of the joint probability can push the ratio past the bounds
    return np.clip(np.where(ok & np.isfinite(npmi), npmi, 0.0), -1.0, 1.0)


def _pairs_mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if values.size else 0.0


def coherence(topics, reference, *, measure: str = "c_npmi", window_size: int | None = None,
              epsilon: float | None = None) -> CoherenceScores:
    """Coherence of topics' top words against a reference corpus, per topic and averaged.

    See the module notes for the four measures, how units are counted, and how ``epsilon`` and
    top words missing from the reference corpus are handled (no NaN ever).

    Parameters
    ----------
    topics : list of list of str
        Top words of each topic, most probable first (the order matters for ``u_mass`` only).
        Lists of ``(word, weight)`` pairs, as returned by :func:`topicvb.inspection.top_words`,
        are accepted.
    reference : ReferenceCorpus, Corpus, (X, vocabulary) pair, or list of tokenised documents
        The corpus co-occurrences are counted in. ``c_v`` and any ``window_size`` need tokenised
        documents.
    measure : {"u_mass", "c_uci", "c_npmi", "c_v"}, default="c_npmi"
        Which coherence to compute.
    window_size : int, default=None
        Sliding-window length in tokens; None means documents as units for ``u_mass``, ``c_uci``
        and ``c_npmi`` and 110 for ``c_v``.
    epsilon : float, default=None
        Smoothing added to the joint count (``u_mass``) or joint probability (others); None
        means 1 for ``u_mass`` (Mimno et al.) and 1e-12 otherwise (as gensim and Palmetto).

    Returns
    -------
    CoherenceScores
        ``(measure, per_topic, mean)``; higher is more coherent for every measure.

    Raises
    ------
    ValueError
        If ``measure`` is unknown, ``window_size`` or ``epsilon`` is out of range, a window is
        asked for without tokenised documents, or the reference corpus has no non-empty document.
    TypeError
        If ``topics`` or ``reference`` has the wrong type.

    References
    ----------
    Mimno, Wallach, Talley, Leenders & McCallum (2011), Optimizing semantic coherence in topic models, EMNLP.
    Newman, Lau, Grieser & Baldwin (2010), Automatic evaluation of topic coherence, NAACL.
    Bouma (2009), Normalized (pointwise) mutual information in collocation extraction, GSCL.
    Röder, Both & Hinneburg (2015), Exploring the space of topic coherence measures, WSDM.

    Examples
    --------
    >>> texts = [["cat", "dog", "pet"], ["cat", "dog"], ["stock", "bond"], ["stock", "bond", "pet"]]
    >>> scores = coherence([["cat", "dog"], ["stock", "bond"]], texts, measure="c_npmi")
    >>> scores.per_topic.round(3)
    array([1., 1.])
    """
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {{{', '.join(map(repr, sorted(MEASURES)))}}}, got {measure!r}.")
    words_per_topic = _topic_words(topics)
    ref = as_reference(reference)
    window_size, epsilon = check_window_and_epsilon(measure, window_size, epsilon, ref)
    vocab = sorted({w for ws in words_per_topic for w in ws})
    where = {w: i for i, w in enumerate(vocab)}
    counts = _unit_counts(ref, vocab, window_size)
    score = _SCORERS[measure]
    scores = np.zeros(len(words_per_topic))
    for k, words in enumerate(words_per_topic):
        ids = np.array([where[w] for w in words], dtype=np.int64)
        if ids.size < 2 and measure != "c_v":
            continue  # a single word has no pairs: 0
        scores[k] = score(ids, counts, epsilon)
    return CoherenceScores(measure, scores, float(np.mean(scores)))


def check_window_and_epsilon(measure: str, window_size, epsilon, ref: ReferenceCorpus):
    """``(window_size, epsilon)`` with the measure's defaults filled in, checked against the reference."""
    if window_size is None:
        window_size = _DEFAULT_WINDOW[measure]
    elif isinstance(window_size, bool) or not isinstance(window_size, numbers.Integral) or window_size < 1:
        raise ValueError(f"window_size must be a positive int or None, got {window_size!r}.")
    if epsilon is None:
        epsilon = _DEFAULT_EPSILON[measure]
    elif isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or not (0 < epsilon < np.inf):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}.")
    if window_size is not None and ref.texts is None:
        raise ValueError(
            f"measure={measure!r} with a sliding window of {window_size} tokens needs tokenised documents: "
            "pass ReferenceCorpus(texts=...) (a list of token lists) as reference."
        )
    return window_size, epsilon


class _UnitCounts(NamedTuple):
    """Occurrence statistics of the top words over the reference corpus's units."""

    single: np.ndarray  # D(w), shape (T,)
    joint: np.ndarray  # D(w, w'), shape (T, T)
    p: np.ndarray  # P(w) = D(w) / U
    pj: np.ndarray  # P(w, w') = D(w, w') / U
    present: np.ndarray  # D(w) > 0


def _unit_counts(ref: ReferenceCorpus, vocab: list[str], window_size: int | None) -> _UnitCounts:
    """Count the words of ``vocab`` in documents (``window_size`` None) or sliding windows."""
    if window_size is None:
        n_units, single, joint = _document_counts(ref, vocab)
    else:
        n_units, single, joint = _window_counts(ref, vocab, int(window_size))
    present = single > 0
    n_missing = int(np.count_nonzero(~present))
    if n_missing:
        logger.info("coherence: %d top words never occur in the reference corpus; their pairs score 0.", n_missing)
    if n_units <= 0:
        raise ValueError("coherence: the reference corpus has no documents (or only empty ones).")
    return _UnitCounts(single, joint, single / n_units, joint / n_units, present)


def _u_mass(ids: np.ndarray, c: _UnitCounts, epsilon: float) -> float:
    """Mean over m > l of log((D(w_m, w_l) + eps) / D(w_l)): w_m conditioned on the earlier w_l."""
    m_idx, l_idx = np.tril_indices(ids.size, -1)
    wm, wl = ids[m_idx], ids[l_idx]
    ok = c.present[wm] & c.present[wl]
    with np.errstate(divide="ignore"):
        vals = np.log((c.joint[wm, wl] + epsilon) / np.where(ok, c.single[wl], 1.0))
    return _pairs_mean(np.where(ok, vals, 0.0))


def _c_uci(ids: np.ndarray, c: _UnitCounts, epsilon: float) -> float:
    """Mean over i < j of PMI(w_i, w_j)."""
    wi, wj = (ids[idx] for idx in np.triu_indices(ids.size, 1))
    ok = c.present[wi] & c.present[wj]
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = np.log((c.pj[wi, wj] + epsilon) / (c.p[wi] * c.p[wj]))
    return _pairs_mean(np.where(ok & np.isfinite(vals), vals, 0.0))


def _c_npmi(ids: np.ndarray, c: _UnitCounts, epsilon: float) -> float:
    """Mean over i < j of NPMI(w_i, w_j)."""
    wi, wj = (ids[idx] for idx in np.triu_indices(ids.size, 1))
    return _pairs_mean(_npmi_matrix(c.p, c.pj, c.present, epsilon)[wi, wj])


def _c_v(ids: np.ndarray, c: _UnitCounts, epsilon: float) -> float:
    """Mean over i of the cosine between w_i's NPMI vector and the sum of all top words' vectors."""
    npmi = _npmi_matrix(c.p, c.pj, c.present, epsilon)[np.ix_(ids, ids)]
    total = npmi.sum(axis=0)
    norms = np.linalg.norm(npmi, axis=1) * np.linalg.norm(total)
    with np.errstate(divide="ignore", invalid="ignore"):
        cos = np.where(norms > 0, npmi @ total / np.where(norms > 0, norms, 1.0), 0.0)
    return float(np.mean(cos)) if ids.size else 0.0


_SCORERS = {"u_mass": _u_mass, "c_uci": _c_uci, "c_npmi": _c_npmi, "c_v": _c_v}


def topic_diversity(top_words: Sequence, n: int | None = None) -> float:
    """Share of unique words among all topics' top words (Dieng, Ruiz & Blei 2020).

    1 means no two topics share a top word; 1 / n_topics means every topic has the same top words.

    Parameters
    ----------
    top_words : list of list of str
        Top words of each topic (lists of ``(word, weight)`` pairs are accepted).
    n : int, default=None
        Use the first ``n`` words of each topic (Dieng et al. use 25); None means all given.

    Returns
    -------
    float
        unique words / total words, in (0, 1].

    Raises
    ------
    ValueError
        If there are no words at all, or ``n`` is not positive.

    Examples
    --------
    >>> topic_diversity([["a", "b"], ["b", "c"]])
    0.75
    """
    topics = _topic_words(top_words)
    if n is not None:
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
            raise ValueError(f"n must be a positive int or None, got {n!r}.")
        topics = [t[:n] for t in topics]
    all_words = [w for t in topics for w in t]
    if not all_words:
        raise ValueError("topic_diversity needs at least one top word; every topic is empty.")
    return len(set(all_words)) / len(all_words)
