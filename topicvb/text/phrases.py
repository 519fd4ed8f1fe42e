"""Learn two-word phrases (bigram collocations) and join them into single terms (``new_york``).

Counting streams: documents are read once, a chunk at a time (``fit``) or in any number of
:meth:`PhraseDetector.partial_fit` calls. Tokens are mapped to integer ids and each adjacent pair becomes
one 64-bit key (``left << 32 | right``); pair counts are kept as sorted NumPy arrays (16 bytes a distinct
pair), and the keys of new pairs are merged into them in batches of two million, so memory grows with the
number of distinct pairs (16 bytes each, a few times that while a batch is merged), not with the corpus.
The pairs are scored when the phrases are first needed after new counts, not at every ``partial_fit`` call.

Scores, for a pair (a, b) with pair count n_ab, token counts n_a, n_b and N tokens in all:

* ``"pmi"``: pointwise mutual information in bits, log2(n_ab N / (n_a n_b)) (as ``nltk`` computes it);
* ``"npmi"``: normalised PMI, pmi / -log2(n_ab / N), in [-1, 1] (Bouma, 2009);
* ``"likelihood"``: Dunning's log-likelihood ratio G^2 of the 2 x 2 contingency table (Dunning, 1993),
  the statistic of ``nltk``'s ``BigramAssocMeasures.likelihood_ratio``.

References
----------
Bouma, G. (2009). Normalized (pointwise) mutual information in collocation extraction. GSCL.
Dunning, T. (1993). Accurate methods for the statistics of surprise and coincidence.
Computational Linguistics 19(1), 61-74.
"""

from __future__ import annotations

import threading
import warnings
from collections import defaultdict
from collections.abc import Iterable
from itertools import islice

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._validation import check_choice, check_finite_real, check_int

__all__ = ["PhraseDetector"]

_DEFAULT_THRESHOLD = {"npmi": 0.5, "pmi": 8.0, "likelihood": 10.83}
_MERGE_EVERY = 2_000_000  # pending pair keys before they are merged into the sorted counts
_REFRESH_LOCK = threading.RLock()
_FIT_CHUNK = 2_000  # documents fit counts at a time (its memory: the pairs and a chunk, not the corpus)
_SHIFT = np.int64(32)
_STR_ONLY = frozenset([str])
_TOKENISE_HINT = " Tokenise first, for example with topicvb.text.Tokenizer."


def _check_tokens(tokens, caller: str, position: int | None = None) -> None:
    """Raise ``TypeError`` unless ``tokens`` is one tokenised document, an iterable of str.

    ``position`` is the document's index when it is one of several (it goes into the message).
    """
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, Iterable):
        hint = _TOKENISE_HINT if isinstance(tokens, (str, bytes)) else ""
        if position is None:
            article = "a " if hint else ""
            raise TypeError(f"{caller} expects one tokenised document (a list of str tokens), got "
                            f"{article}{type(tokens).__name__}.{hint}")
        raise TypeError(f"{caller} expects each document as a list of str tokens; document {position} is "
                        f"{type(tokens).__name__}.{hint}")
    for j, token in enumerate(tokens):
        if not isinstance(token, str):
            where = f"token {j} is" if position is None else f"document {position} has"
            raise TypeError(f"{caller} expects each token to be a str; {where} {token!r} of type "
                            f"{type(token).__name__}.")


def _score(scoring: str, n_ab, n_a, n_b, n: float) -> np.ndarray:
    """Association scores for arrays of pair counts ``n_ab`` and token counts ``n_a``, ``n_b``."""
    n_ab, n_a, n_b = (np.asarray(v, dtype=np.float64) for v in (n_ab, n_a, n_b))
    if scoring in ("pmi", "npmi"):
        pmi = np.log2(n_ab * n) - np.log2(n_a * n_b)
        if scoring == "pmi":
            return pmi
        denom = -np.log2(n_ab / n)
        with np.errstate(divide="ignore", invalid="ignore"):  # (clipped: the two logs round apart, by 1e-16)
            return np.clip(np.where(denom > 0, pmi / np.where(denom > 0, denom, 1.0), 1.0), -1.0, 1.0)
    # likelihood ratio: 2 * sum(observed * ln(observed / expected)) over the 2 x 2 table
    obs = np.stack([n_ab, n_a - n_ab, n_b - n_ab, n - n_a - n_b + n_ab])
    obs = np.maximum(obs, 0.0)
    row = np.stack([n_a, n_a, n - n_a, n - n_a])
    col = np.stack([n_b, n - n_b, n_b, n - n_b])
    expected = row * col / n
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(obs > 0, obs * np.log(obs / expected), 0.0)
    return 2.0 * terms.sum(axis=0)


def join_phrase_ids(ids, lengths, keys, joined_ids) -> tuple[np.ndarray, np.ndarray]:
    """Join phrases in a chunk of token ids as :meth:`PhraseDetector.apply` joins them in tokens, with NumPy.

    ``ids``: token ids, document after document (``lengths`` tokens each); ``keys``: the phrases' pair keys
    ``left << 32 | right`` over the same ids, sorted; ``joined_ids``: the id of each one's joined token. Returns
    the new ids (int64) and lengths. ``apply`` joins from left to right, each token at most once: among
    consecutive pairs that are all phrases it joins the first, third, fifth, ... of the run (the second shares
    its left token with the first), which is what is computed here.
    """
    ids = np.asarray(ids, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    n = ids.shape[0]
    if n < 2 or keys.shape[0] == 0:
        return ids, lengths
    pair = (ids[:-1] << _SHIFT) | ids[1:]
    at = np.minimum(np.searchsorted(keys, pair), keys.shape[0] - 1)
    phrase = keys[at] == pair
    ends = np.cumsum(lengths)[:-1]  # pairs (ends[i] - 1, ends[i]) cross a document boundary
    phrase[ends[(ends > 0) & (ends <= pair.shape[0])] - 1] = False
    if not phrase.any():
        return ids, lengths
    first = phrase.copy()
    first[1:] &= ~phrase[:-1]  # the first pair of each run of phrases
    starts = np.flatnonzero(first)
    run = np.cumsum(first) - 1  # (the run of each pair of a run; -1 before the first run)
    offset = np.arange(pair.shape[0]) - starts[np.maximum(run, 0)]
    joined = np.flatnonzero(phrase & (offset % 2 == 0))
    out = ids.copy()
    out[joined] = np.asarray(joined_ids, dtype=np.int64)[at[joined]]
    keep = np.ones(n, dtype=bool)
    keep[joined + 1] = False
    doc = np.repeat(np.arange(lengths.shape[0]), lengths)
    return out[keep], lengths - np.bincount(doc[joined], minlength=lengths.shape[0])


def joined_chunk(detector, terms, ids, lengths):
    """A chunk given as its distinct ``terms``, its tokens' ids into them and the documents' ``lengths`` (a
    Tokenizer's ``_encode_chunk``) with the fitted ``detector``'s phrases joined: ``(terms, ids, lengths)`` again,
    a joined phrase one more term (the same id as a token of the same spelling). No Python work per token."""
    lookup = detector._get_lookup()
    local = {t: i for i, t in enumerate(terms)}
    terms = list(terms)
    found = []
    for a in list(local):
        for b, joined in (lookup.get(a) or {}).items():
            j = local.get(b)
            if j is not None:
                if joined not in local:
                    local[joined] = len(terms)
                    terms.append(joined)
                found.append(((local[a] << 32) | j, local[joined]))
    if not found:
        return terms, ids, lengths
    found.sort()
    keys = np.array([k for k, _ in found], dtype=np.int64)
    new_ids, lengths = join_phrase_ids(ids, lengths, keys, np.array([j for _, j in found], dtype=np.int64))
    return terms, new_ids.astype(np.int32), lengths


class PhraseDetector(BaseEstimator):
    """Find bigram collocations in tokenised documents and join them with a delimiter.

    Parameters
    ----------
    scoring : {"npmi", "pmi", "likelihood"}, default="npmi"
        Association measure (see the module docstring).
    min_count : int, default=5
        Pairs seen fewer times are never phrases.
    threshold : float or None, default=None
        A pair is a phrase when its score is strictly above this. ``None`` uses 0.5 for ``"npmi"``,
        8.0 bits for ``"pmi"`` and 10.83 (the chi-squared 0.1 % point) for ``"likelihood"``. For
        ``"npmi"`` it must lie in [-1, 1) (above, no pair could be a phrase).
    delimiter : str, default="_"
        Joins the two tokens of a phrase; not empty (``("ab", "c")`` and ``("a", "bc")`` would both
        become ``abc``, and a joined phrase the same term as a token). A joined phrase that is also a
        token of the documents counts as that term: fit warns of it.

    Attributes
    ----------
    phrases_ : list of tuple of (str, str)
        The learned pairs, sorted.
    scores_ : dict
        ``(left, right) -> score`` for every learned pair.
    threshold_ : float
        The threshold used.
    n_docs_ : int
        Documents seen.
    n_tokens_ : int
        Tokens seen.

    Notes
    -----
    Phrases are joined greedily from left to right: in ``"new york city"`` with both ``(new, york)``
    and ``(york, city)`` learned, the result is ``["new_york", "city"]``. Pairs are counted on the
    tokens as given, so with stop words removed ``"bank of america"`` yields the pair
    ``(bank, america)``; and across sentences and lines within a document (a tokenizer keeps no
    sentence breaks): ``"... in Boston. Celtics fans ..."`` counts ``(boston, celtics)``. Pairs never
    cross documents.

    ``partial_fit`` continues a detector that ``partial_fit`` started; ``fit`` keeps no pair counts
    (they can take hundreds of MB), so a detector fitted by ``fit`` cannot be continued.

    Examples
    --------
    >>> docs = [["new", "york", "city"], ["new", "york", "state"], ["a", "new", "idea"],
    ...         ["old", "york"], ["city", "state", "idea", "old"]] * 3
    >>> det = PhraseDetector(min_count=6).fit(docs)
    >>> det.phrases_
    [('new', 'york')]
    >>> det.transform([["i", "love", "new", "york"]])
    [['i', 'love', 'new_york']]
    """

    def __init__(self, *, scoring="npmi", min_count=5, threshold=None, delimiter="_"):
        self.scoring = scoring
        self.min_count = min_count
        self.threshold = threshold
        self.delimiter = delimiter

    # ------------------------------------------------------------------ checks and state
    def _check_params(self) -> None:
        check_choice(self.scoring, "scoring", set(_DEFAULT_THRESHOLD))
        check_int(self.min_count, "min_count", min_val=1)
        if isinstance(self.threshold, (bool, np.bool_)):
            raise TypeError(f"threshold must be a number or None, got {type(self.threshold).__name__}.")
        check_finite_real(self.threshold, "threshold", allow_none=True)
        if self.scoring == "npmi" and self.threshold is not None and not -1.0 <= float(self.threshold) < 1.0:
            raise ValueError(f"threshold must lie in [-1, 1) for scoring='npmi' (the range of its scores: a pair "
                             f"is a phrase when its score is strictly above it), got {self.threshold!r}.")
        if not isinstance(self.delimiter, str):
            raise TypeError(f"delimiter must be a str, got {type(self.delimiter).__name__}.")
        if not self.delimiter:
            raise ValueError("delimiter must not be empty: ('ab', 'c') and ('a', 'bc') would both be joined to 'abc', "
                             "and a joined phrase could be a token of the documents; use '_' (the default), say.")

    def _reset(self) -> None:
        index = defaultdict()
        index.default_factory = index.__len__
        self._index = index
        self._unigram = np.zeros(0, dtype=np.int64)
        self._pair_keys = np.zeros(0, dtype=np.int64)
        self._pair_counts = np.zeros(0, dtype=np.int64)
        self._pending = []
        self._n_pending = 0
        self.n_docs_ = 0
        self.n_tokens_ = 0
        self._stale = True  # (counts not yet scored: see _refresh)

    # ------------------------------------------------------------------ fitted results
    # phrases_, scores_ and threshold_ are scored from the counts when first read after new counts (partial_fit
    # only counts: scoring every pair at every call made a stream of small calls quadratic in time)
    def _refresh(self) -> None:
        if self.__dict__.get("_stale"):
            with _REFRESH_LOCK:  # (threads reading a detector's phrases at once score it once)
                if self.__dict__.get("_stale"):
                    self._check_params()  # (set since the last partial_fit: checked as partial_fit checks them)
                    self._finish(keep_counts=True)
        if "_phrases" not in self.__dict__:
            raise AttributeError(f"This {type(self).__name__} instance has no phrases yet; call fit or partial_fit.")

    @property
    def phrases_(self):
        """The learned pairs, sorted (a list of (str, str))."""
        self._refresh()
        return self._phrases

    @phrases_.setter
    def phrases_(self, value):
        self._phrases = value
        self.__dict__.pop("_lookup", None)

    @property
    def scores_(self):
        """``(left, right) -> score`` for every learned pair."""
        self._refresh()
        return self._scores

    @scores_.setter
    def scores_(self, value):
        self._scores = value

    @property
    def threshold_(self):
        """The threshold used."""
        self._refresh()
        return self._threshold

    @threshold_.setter
    def threshold_(self, value):
        self._threshold = value

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("_lookup", None)
        if "_index" in state:  # a self-referencing defaultdict does not pickle; store a plain dict
            state["_index"] = dict(state["_index"])
        return state

    def __setstate__(self, state):
        for name in ("phrases_", "scores_", "threshold_"):  # (pickled by a version that kept them as attributes)
            if name in state:
                state["_" + name[:-1]] = state.pop(name)
        if "_index" in state:
            index = defaultdict(None, state["_index"])
            index.default_factory = index.__len__
            state["_index"] = index
        super().__setstate__(state)

    # ------------------------------------------------------------------ counting
    @staticmethod
    def _check_docs(docs, caller):
        if isinstance(docs, (str, bytes)) or not isinstance(docs, Iterable):
            raise TypeError(
                f"{caller} expects an iterable of tokenised documents (lists of str), got {type(docs).__name__}."
            )

    def _count_chunk(self, docs, offset: int = 0, who: str = "PhraseDetector") -> tuple[np.ndarray, np.ndarray]:
        """Count the tokens and adjacent pairs of ``docs``; return their token ids and lengths.

        On bad input nothing is counted: the terms new in this chunk leave the index again. ``offset`` (the
        documents before this chunk) and ``who`` (the caller) go into the messages.
        """
        index = self._index
        get = index.__getitem__
        n_known = len(index)
        flat, lengths = [], []
        try:
            for i, doc in enumerate(docs):
                if isinstance(doc, (str, bytes)):
                    raise TypeError(
                        f"{who} expects each document as a list of tokens, got a {type(doc).__name__} "
                        f"at position {offset + i}. Tokenise first, for example with topicvb.text.Tokenizer."
                    )
                n0 = len(flat)
                try:
                    flat.extend(map(get, doc))
                except TypeError:  # a document that is not iterable, or an unhashable token
                    _check_tokens(doc, who, offset + i)
                    raise
                lengths.append(len(flat) - n0)
            # only the terms new in this chunk (the last ones in the index) can be of a wrong type
            bad = [t for t in islice(reversed(index), len(index) - n_known) if not isinstance(t, str)]
            if bad:
                bad = bad[-1]  # the first one met
                at = flat.index(index[bad])
                doc = offset + int(np.searchsorted(np.cumsum(lengths), at, side="right"))
                raise TypeError(f"{who} expects each token to be a str; document {doc} has {bad!r} of "
                                f"type {type(bad).__name__}.")
        except BaseException:
            for term in list(islice(reversed(index), len(index) - n_known)):
                del index[term]
            raise
        return self._count_ids(np.array(flat, dtype=np.int64), np.array(lengths, dtype=np.int64))

    def _count_encoded(self, terms, ids, lengths) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_count_chunk` of a chunk given as its distinct ``terms`` (str), the term ids of its tokens and
        the documents' lengths (``Tokenizer._encode_chunk``): one lookup per distinct term, none per token."""
        get = self._index.__getitem__
        to_index = np.fromiter(map(get, terms), dtype=np.int64, count=len(terms))
        return self._count_ids(to_index[np.asarray(ids, dtype=np.intp)] if len(terms) else
                               np.zeros(0, dtype=np.int64), np.asarray(lengths, dtype=np.int64))

    def _count_ids(self, ids, lengths) -> tuple[np.ndarray, np.ndarray]:
        """Count the tokens (``ids`` into the index, document after document) and adjacent pairs of a chunk whose
        documents have ``lengths`` tokens; return the ids (int32) and lengths."""
        n_terms = len(self._index)
        if n_terms > self._unigram.shape[0]:
            grown = np.zeros(max(n_terms, 2 * self._unigram.shape[0]), dtype=np.int64)
            grown[: self._unigram.shape[0]] = self._unigram
            self._unigram = grown
        if ids.size:
            self._unigram[: n_terms] += np.bincount(ids, minlength=n_terms)
            keys = (ids[:-1] << _SHIFT) | ids[1:]
            ends = np.cumsum(lengths)[:-1]  # pairs (ends[i] - 1, ends[i]) cross a document boundary
            valid = np.ones(keys.shape[0], dtype=bool)
            valid[ends[(ends > 0) & (ends <= keys.shape[0])] - 1] = False
            keys = keys[valid]
            if keys.size:
                self._pending.append(keys)
                self._n_pending += keys.size
                if self._n_pending >= _MERGE_EVERY:
                    self._merge()
        self.n_docs_ += int(lengths.shape[0])
        self.n_tokens_ += int(ids.shape[0])
        return ids.astype(np.int32, copy=False), lengths

    def _merge(self) -> None:
        """Add the pending pair keys to the sorted counts: the counts of keys already there grow in place, the new
        keys are inserted at their places (no sort or inverse index over all the pairs)."""
        if not self._pending:
            return
        new, counts = np.unique(np.concatenate(self._pending), return_counts=True)
        self._pending, self._n_pending = [], 0
        keys, known = self._pair_keys, self._pair_counts
        at = np.searchsorted(keys, new)
        found = at < keys.shape[0]
        found[found] = keys[at[found]] == new[found]
        fresh = ~found
        keys = np.insert(keys, at[fresh], new[fresh])  # (new arrays: a copy of the detector keeps its own counts)
        known = np.insert(known, at[fresh], counts[fresh].astype(np.int64, copy=False))
        known[np.searchsorted(keys, new[found])] += counts[found]
        self._pair_keys, self._pair_counts = keys, known

    def _finish(self, keep_counts: bool) -> None:
        """Score the pairs counted so far and set the fitted attributes."""
        self._merge()
        self._threshold = float(_DEFAULT_THRESHOLD[self.scoring] if self.threshold is None else self.threshold)
        frequent = self._pair_counts >= self.min_count
        keys, n_ab = self._pair_keys[frequent], self._pair_counts[frequent]
        left, right = keys >> _SHIFT, keys & np.int64(0xFFFFFFFF)
        n = float(max(self.n_tokens_, 1))
        scores = _score(self.scoring, n_ab, self._unigram[left], self._unigram[right], n)
        chosen = scores > self._threshold
        terms = list(self._index)
        pairs = [(terms[a], terms[b]) for a, b in zip(left[chosen].tolist(), right[chosen].tolist())]
        self._scores = dict(zip(pairs, scores[chosen].tolist()))
        self._phrases = sorted(pairs)
        self._stale = False
        self.__dict__.pop("_lookup", None)
        self._warn_collisions()
        if not keep_counts:
            for name in ("_index", "_unigram", "_pair_keys", "_pair_counts", "_pending", "_n_pending"):
                self.__dict__.pop(name, None)

    def _warn_collisions(self) -> None:
        """Warn when a joined phrase is also a token of the documents: the two count as one term."""
        index = self.__dict__.get("_index")
        if not index or not self._phrases:
            return
        same = [f"{a}{self.delimiter}{b}" for a, b in self._phrases if f"{a}{self.delimiter}{b}" in index]
        if same:
            warnings.warn(f"PhraseDetector: {len(same)} joined phrase(s) are also tokens of the documents ("
                          f"{', '.join(map(repr, same[:5]))}{', ...' if len(same) > 5 else ''}): each counts as one "
                          "term with its token; choose a delimiter the tokens do not hold.", UserWarning,
                          stacklevel=4)

    def fit(self, docs, y=None):
        """Learn phrases from tokenised documents (read once, so a generator works).

        Parameters
        ----------
        docs : iterable of list of str
            Tokenised documents.
        y : None
            Ignored.

        Returns
        -------
        self : PhraseDetector
            The fitted detector.

        Raises
        ------
        TypeError
            If ``docs`` is a string or holds strings instead of token lists.
        """
        self._check_params()
        self._check_docs(docs, "PhraseDetector.fit")
        saved = dict(self.__dict__)
        try:
            self._reset()
            docs = iter(docs)
            while True:
                chunk = list(islice(docs, _FIT_CHUNK))
                if not chunk:
                    break
                self._count_chunk(chunk, offset=self.n_docs_)
            self._finish(keep_counts=False)
        except BaseException:  # (a bad document: the detector as it was)
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        return self

    def partial_fit(self, docs, y=None):
        """Add the counts of more documents; counts are kept for later calls, and the phrases are scored
        from all of them when next read (``phrases_``, ``apply``, ``transform``).

        Parameters
        ----------
        docs : iterable of list of str
            Tokenised documents.
        y : None
            Ignored.

        Returns
        -------
        self : PhraseDetector
            The updated detector.
        """
        self._check_params()
        self._check_docs(docs, "PhraseDetector.partial_fit")
        if "_index" not in self.__dict__:
            if "_phrases" in self.__dict__:
                raise ValueError(
                    "PhraseDetector.partial_fit: this detector was fitted by fit (or loaded from a file), which "
                    "keeps no pair counts to continue from; call partial_fit on every batch from the start, or fit "
                    "on all the documents at once."
                )
            self._reset()
        self._count_chunk(docs)
        self._stale = True  # (scored when the phrases are next read)
        self.__dict__.pop("_lookup", None)
        return self

    # ------------------------------------------------------------------ applying
    def _get_lookup(self) -> dict:
        lookup = self.__dict__.get("_lookup")
        if lookup is None:
            check_is_fitted(self, "phrases_")
            lookup = {}
            for a, b in self.phrases_:
                lookup.setdefault(a, {})[b] = f"{a}{self.delimiter}{b}"
            self._lookup = lookup
        return lookup

    def apply(self, tokens: list[str]) -> list[str]:
        """Join the learned pairs in one tokenised document.

        Parameters
        ----------
        tokens : list of str
            One document.

        Returns
        -------
        list of str
            The tokens with each learned pair replaced by one joined term.

        Raises
        ------
        TypeError
            If ``tokens`` is not a list of str (a single string, for example).
        """
        return self._join(tokens, "PhraseDetector.apply")

    __call__ = apply

    def _join(self, tokens, caller: str, position: int | None = None) -> list[str]:
        """``apply``, with ``caller`` and the document's ``position`` for the error messages."""
        lookup = self.__dict__.get("_lookup") or self._get_lookup()
        if type(tokens) is not list or not set(map(type, tokens)) <= _STR_ONLY:  # the usual case costs one pass
            _check_tokens(tokens, caller, position)
            tokens = list(tokens)
        if not lookup:
            return list(tokens)
        out, i, n = [], 0, len(tokens)
        append = out.append
        while i < n:
            t = tokens[i]
            second = lookup.get(t)
            if second is not None and i + 1 < n:
                joined = second.get(tokens[i + 1])
                if joined is not None:
                    append(joined)
                    i += 2
                    continue
            append(t)
            i += 1
        return out

    def transform(self, docs) -> list[list[str]]:
        """Join the learned pairs in every document.

        Parameters
        ----------
        docs : iterable of list of str
            Tokenised documents.

        Returns
        -------
        list of list of str
            The documents with phrases joined.

        Raises
        ------
        TypeError
            If ``docs`` is not an iterable of lists of str.
        """
        self._check_docs(docs, "PhraseDetector.transform")
        self._get_lookup()
        return [self._join(doc, "PhraseDetector.transform", i) for i, doc in enumerate(docs)]

    def fit_transform(self, docs, y=None):
        """Learn phrases and join them; ``docs`` must be re-iterable (a list, not a generator).

        Parameters
        ----------
        docs : sequence of list of str
            Tokenised documents.
        y : None
            Ignored.

        Returns
        -------
        list of list of str
            The documents with phrases joined.
        """
        docs = list(docs) if not isinstance(docs, (str, bytes)) and isinstance(docs, Iterable) else docs
        return self.fit(docs).transform(docs)
