"""A term <-> column-id mapping with document and total frequencies, pruning, and plain-text/JSON files."""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Iterable, Mapping

import numpy as np

from .._validation import check_int

__all__ = ["Vocabulary", "check_df", "prune_ids", "resolve_df_bounds"]


def check_df(value, name: str) -> None:
    """Raise unless ``value`` is a document count (int >= 0) or a fraction (float in [0, 1])."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an int (a document count) or a float in [0, 1] (a fraction), got {value!r}.")
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ValueError(f"{name} must be >= 0 when given as a document count, got {value}.")
    elif not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1] when given as a fraction (float), got {value!r}.")


def resolve_df_bounds(min_df, max_df, n_docs: int) -> tuple[float, float]:
    """Turn ``min_df`` / ``max_df`` into document counts, as scikit-learn's CountVectorizer does.

    An int is a count; a float is a fraction of ``n_docs``.

    Parameters
    ----------
    min_df, max_df : int or float
        The bounds.
    n_docs : int
        Number of documents.

    Returns
    -------
    (float, float)
        The smallest and largest document frequency a kept term may have.

    Raises
    ------
    ValueError
        If a bound is out of range or ``min_df`` asks for more documents than ``max_df`` allows.
    """
    check_df(min_df, "min_df")
    check_df(max_df, "max_df")
    lo = min_df if isinstance(min_df, numbers.Integral) else min_df * n_docs
    hi = max_df if isinstance(max_df, numbers.Integral) else max_df * n_docs
    if hi < lo:
        raise ValueError(
            f"min_df={min_df!r} asks for more documents than max_df={max_df!r} allows "
            f"({lo:g} > {hi:g} of {n_docs} documents). Lower min_df or raise max_df."
        )
    return lo, hi


def prune_ids(terms, doc_freq, term_freq, n_docs: int, *, min_df=1, max_df=1.0, max_features=None) -> np.ndarray:
    """Ids of the terms kept by :meth:`Vocabulary.prune`, in the new (alphabetical) order.

    The rules of :meth:`Vocabulary.prune`, on plain arrays, so that a vectorizer can prune its
    counted terms without building a :class:`Vocabulary` of all of them first.

    Parameters
    ----------
    terms : sequence of str
        Term of each id.
    doc_freq : ndarray of shape (n_terms,)
        Number of documents holding each term.
    term_freq : ndarray of shape (n_terms,) or None
        Total count of each term (``max_features`` ranks by it; by ``doc_freq`` when None).
    n_docs : int
        Number of documents.
    min_df, max_df, max_features
        As in :meth:`Vocabulary.prune`.

    Returns
    -------
    ndarray of int64
        The kept ids, sorted by term.

    Raises
    ------
    ValueError
        If the bounds are invalid or no term is left.
    """
    lo, hi = resolve_df_bounds(min_df, max_df, n_docs)
    if max_features is not None and (
        isinstance(max_features, bool) or not isinstance(max_features, numbers.Integral) or max_features < 1
    ):
        raise ValueError(f"max_features must be a positive int or None, got {max_features!r}.")
    doc_freq = np.asarray(doc_freq)
    keep = np.flatnonzero((doc_freq >= lo) & (doc_freq <= hi))
    if max_features is not None and keep.shape[0] > max_features:
        tf = np.asarray(term_freq) if term_freq is not None else doc_freq
        ranked = sorted(keep.tolist(), key=lambda j: (-int(tf[j]), terms[j]))
        keep = np.asarray(ranked[:max_features], dtype=np.int64)
    if keep.shape[0] == 0:
        raise ValueError(
            f"No terms left after pruning (min_df={min_df!r}, max_df={max_df!r}). Lower min_df or raise max_df."
        )
    return np.asarray(sorted(keep.tolist(), key=terms.__getitem__), dtype=np.int64)


class Vocabulary:
    """The terms of a document-term matrix, in column order, with their frequencies.

    Parameters
    ----------
    terms : iterable of str, default=()
        Terms in column order; must be distinct.
    doc_freq : array-like of int or None, default=None
        Number of documents containing each term.
    term_freq : array-like of int or None, default=None
        Total number of occurrences of each term.
    n_docs : int or None, default=None
        Number of documents the frequencies were counted on.

    Attributes
    ----------
    terms : list of str
        Term of each column.
    index : dict
        Term to column id.
    doc_freq, term_freq : ndarray of shape (n_terms,) or None
        The frequencies, when known.

    Examples
    --------
    >>> vocab = Vocabulary(["apple", "pear"], doc_freq=[2, 1])
    >>> vocab["pear"], vocab[0], "plum" in vocab, len(vocab)
    (1, 'apple', False, 2)
    """

    def __init__(self, terms: Iterable[str] = (), doc_freq=None, term_freq=None, n_docs: int | None = None):
        if isinstance(terms, (str, bytes)):
            raise TypeError("terms must be an iterable of str, got a single str. Wrap it in a list: [term].")
        if not isinstance(terms, Iterable):
            raise TypeError(f"terms must be an iterable of str, got {type(terms).__name__}.")
        terms = list(terms)
        bad = next((t for t in terms if not isinstance(t, str)), None)
        if bad is not None:
            raise TypeError(f"terms must contain only str, got {bad!r} of type {type(bad).__name__}.")
        index = {t: i for i, t in enumerate(terms)}
        if len(index) != len(terms):
            seen, dup = set(), None
            for t in terms:
                if t in seen:
                    dup = t
                    break
                seen.add(t)
            raise ValueError(f"terms must be distinct; {dup!r} appears more than once.")
        self.terms = terms
        self.index = index
        self.doc_freq = self._check_freq(doc_freq, "doc_freq")
        self.term_freq = self._check_freq(term_freq, "term_freq")
        if n_docs is not None:
            check_int(n_docs, "n_docs", min_val=0)
        self.n_docs = None if n_docs is None else int(n_docs)

    def _check_freq(self, values, name):
        """``values`` as an int64 array of non-negative counts, one per term (or None)."""
        if values is None:
            return None
        try:
            arr = np.asarray(values)
        except (TypeError, ValueError):  # ragged
            arr = np.asarray(values, dtype=object)
        if arr.shape != (len(self.terms),):
            raise ValueError(f"{name} must have one entry per term ({len(self.terms)}), got shape {arr.shape}.")
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}.")
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(arr) | (arr < 0) | (arr != np.round(arr)) if arr.dtype.kind == "f" else arr < 0
        if np.any(bad):
            i = int(np.argmax(bad))
            raise ValueError(f"{name} must hold non-negative integer counts; entry {i} is {arr[i].item()!r}.")
        return arr.astype(np.int64)

    # ------------------------------------------------------------------ mapping protocol
    def __len__(self) -> int:
        return len(self.terms)

    def __contains__(self, term) -> bool:
        return term in self.index

    def __getitem__(self, key):
        """Column id of a term (str key) or term of a column id (int key)."""
        if isinstance(key, str):
            try:
                return self.index[key]
            except KeyError:
                raise KeyError(f"{key!r} is not in the vocabulary.") from None
        if isinstance(key, numbers.Integral):
            return self.terms[key]
        raise TypeError(f"Vocabulary keys must be a term (str) or a column id (int), got {type(key).__name__}.")

    def __iter__(self):
        return iter(self.terms)

    def __eq__(self, other) -> bool:
        return isinstance(other, Vocabulary) and self.terms == other.terms

    __hash__ = None

    def __repr__(self) -> str:
        head = ", ".join(repr(t) for t in self.terms[:5])
        more = ", ..." if len(self.terms) > 5 else ""
        return f"Vocabulary([{head}{more}], n_terms={len(self)})"

    def to_list(self) -> list[str]:
        """Return the terms in column order (a copy)."""
        return list(self.terms)

    @classmethod
    def from_list(cls, terms: Iterable[str]) -> Vocabulary:
        """Build a vocabulary from terms in column order (no frequencies)."""
        return cls(terms)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, int]) -> Vocabulary:
        """Build a vocabulary from ``term -> column id`` (ids must be 0, 1, ..., n - 1)."""
        if not isinstance(mapping, Mapping):
            raise TypeError(f"mapping must be a Mapping of str to int (term -> column id), got "
                            f"{type(mapping).__name__}. Use Vocabulary.from_list for terms in column order.")
        terms = [None] * len(mapping)
        for term, j in mapping.items():
            if not isinstance(j, numbers.Integral) or not 0 <= j < len(mapping) or terms[j] is not None:
                raise ValueError(
                    f"vocabulary mapping must use each column id 0..{len(mapping) - 1} once; "
                    f"got id {j!r} for {term!r}."
                )
            terms[j] = term
        return cls(terms)

    # ------------------------------------------------------------------ pruning
    def prune(self, *, min_df=1, max_df=1.0, max_features=None) -> tuple[Vocabulary, np.ndarray]:
        """Keep terms by document frequency and total count, sorted alphabetically.

        Rules follow scikit-learn's CountVectorizer: a term is kept when ``min_df <= df <= max_df``
        (ints are counts, floats fractions of ``n_docs``); then, with ``max_features``, only that many
        terms with the largest total count (ties broken by term, alphabetically); the kept terms are
        sorted alphabetically.

        Parameters
        ----------
        min_df : int or float, default=1
            Smallest document frequency kept.
        max_df : int or float, default=1.0
            Largest document frequency kept.
        max_features : int or None, default=None
            Largest number of terms kept.

        Returns
        -------
        vocabulary : Vocabulary
            The kept terms, sorted, with their frequencies.
        old_ids : ndarray of shape (n_kept,)
            Column id in this vocabulary of each kept term, in the new order.

        Raises
        ------
        ValueError
            If the frequencies are unknown, the bounds are invalid, or no term is left.
        """
        if self.doc_freq is None or self.n_docs is None:
            if self.doc_freq is not None:  # (frequencies without n_docs: as a plain-text file gives them back)
                raise ValueError("Vocabulary.prune needs doc_freq and n_docs; this vocabulary has no n_docs, which a "
                                 "plain-text vocabulary file does not store: save the vocabulary as .json (it keeps "
                                 "n_docs), or build it again from counts.")
            raise ValueError("Vocabulary.prune needs doc_freq and n_docs; build the vocabulary from counts.")
        terms = self.terms
        old_ids = prune_ids(terms, self.doc_freq, self.term_freq, self.n_docs,
                            min_df=min_df, max_df=max_df, max_features=max_features)
        pruned = Vocabulary(
            [terms[j] for j in old_ids.tolist()],
            doc_freq=self.doc_freq[old_ids],
            term_freq=None if self.term_freq is None else self.term_freq[old_ids],
            n_docs=self.n_docs,
        )
        return pruned, old_ids

    # ------------------------------------------------------------------ files
    def save(self, path) -> None:
        """Write the vocabulary to ``path``.

        A ``.json`` file stores terms, frequencies and ``n_docs``; any other name gets plain UTF-8
        text with one term per line (line ``i`` is column ``i``, which other tools read), followed by
        the tab-separated document frequency when it is known, and the total frequency when that is
        known too: ``term``, ``term<TAB>df`` or ``term<TAB>df<TAB>count``. The plain text has no place
        for ``n_docs``, so a vocabulary loaded from it cannot be pruned (:meth:`prune` needs
        ``n_docs``): save as ``.json`` to keep everything.

        Parameters
        ----------
        path : str or os.PathLike
            Destination file; written atomically (a temporary file renamed into place), so a failed or
            interrupted save leaves a file already at ``path`` as it was.

        Raises
        ------
        ValueError
            If a term cannot be written as UTF-8 (a lone surrogate); or, in plain text, if a term contains a newline
            or tab, or is empty (without frequencies), or the first term starts with a byte-order mark (U+FEFF),
            which the plain-text format cannot give back.
        """
        from ..datasets._files import atomic_paths

        path = os.fspath(path)
        bad = next((t for t in self.terms if not _utf8_encodable(t)), None)
        if bad is not None:
            raise ValueError(f"Term {bad!r} cannot be written as UTF-8 (it holds a lone surrogate, as a file name "
                             "that is not UTF-8 gives); the vocabulary was not saved.")
        with atomic_paths([path]) as (tmp,):  # (a failure midway leaves any file already at path as it was)
            self._write(path, tmp)

    def _write(self, path: str, tmp) -> None:
        """Write the vocabulary in the format ``path``'s suffix names to the file ``tmp``."""
        if path.endswith(".json"):
            payload = {
                "format": "topicvb-vocabulary",
                "version": 1,
                "terms": self.terms,
                "doc_freq": None if self.doc_freq is None else self.doc_freq.tolist(),
                "term_freq": None if self.term_freq is None else self.term_freq.tolist(),
                "n_docs": self.n_docs,
            }
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, ensure_ascii=False)
            return
        bad = next((t for t in self.terms if "\n" in t or "\t" in t or "\r" in t), None)
        if bad is not None:
            raise ValueError(f"Term {bad!r} contains a tab or newline; save the vocabulary as .json instead.")
        # (load skips empty lines and reads the file as utf-8-sig: an empty term would vanish, shifting every later
        # term's index, and a first term's leading byte-order mark would be read as the file's)
        empty = "" in self.terms and self.doc_freq is None  # (with frequencies its line is not empty)
        if empty or (self.terms and self.terms[0].startswith("\ufeff")):
            bad = "an empty term" if empty else f"the first term {self.terms[0]!r}, which starts with U+FEFF,"
            raise ValueError(f"The vocabulary holds {bad} that the plain-text format cannot give back; save it as "
                             ".json instead.")
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            if self.doc_freq is not None and self.term_freq is not None:
                for t, df, n in zip(self.terms, self.doc_freq.tolist(), self.term_freq.tolist()):
                    fh.write(f"{t}\t{df}\t{n}\n")
            elif self.doc_freq is not None:  # (no total frequencies: none are written, so none are made up on loading)
                for t, df in zip(self.terms, self.doc_freq.tolist()):
                    fh.write(f"{t}\t{df}\n")
            else:
                for t in self.terms:
                    fh.write(t + "\n")

    @classmethod
    def load(cls, path) -> Vocabulary:
        """Read a vocabulary written by :meth:`save` (or any one-term-per-line UTF-8 file).

        A plain-text file gives back the terms and the frequencies its lines hold (``term``,
        ``term<TAB>df`` or ``term<TAB>df<TAB>count``, the same on every line), but not ``n_docs``,
        which only ``.json`` files store: a vocabulary loaded from plain text cannot be pruned.

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        Vocabulary
            The vocabulary.

        Raises
        ------
        ValueError
            If the file is malformed.
        """
        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8-sig") as fh:  # (a leading byte-order mark is not part of a term)
                text = fh.read()
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path!r} is not a topicvb vocabulary file: it is not UTF-8 text "
                             f"({exc.reason} at byte {exc.start}).") from None
        if path.endswith(".json"):
            try:
                payload = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path!r} is not a topicvb vocabulary file: it is not valid JSON ({exc}).") from None
            if not isinstance(payload, dict) or "terms" not in payload:
                raise ValueError(f"{path!r} is not a topicvb vocabulary file: it has no 'terms' list.")
            return cls(payload["terms"], payload.get("doc_freq"), payload.get("term_freq"), payload.get("n_docs"))
        terms, df, tf = [], [], []
        n_fields = None  # of the first line: every line must have as many
        for lineno, line in enumerate(text.split("\n"), 1):  # universal newlines: \r and \r\n are \n here
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) > 3:
                raise ValueError(f"{path!r} line {lineno}: expected 'term', 'term<TAB>df' or 'term<TAB>df<TAB>count', "
                                 f"got {line!r}.")
            if n_fields is None:
                n_fields = len(fields)
            elif len(fields) != n_fields:
                raise ValueError(f"{path!r} line {lineno}: every line must have the same number of columns (the first "
                                 f"has {n_fields}, this one {len(fields)}): {line!r}.")
            terms.append(fields[0])
            try:
                if n_fields >= 2:
                    df.append(int(fields[1]))
                if n_fields == 3:
                    tf.append(int(fields[2]))
            except ValueError:
                raise ValueError(f"{path!r} line {lineno}: frequencies must be integers, got {line!r}.") from None
        return cls(terms, df if n_fields and n_fields >= 2 else None, tf if n_fields == 3 else None)


def _utf8_encodable(term: str) -> bool:
    try:
        term.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
