"""Counting a Tokenizer's terms without Python code per token: :meth:`Tokenizer.count` and the
vectorizer's path, ``Tokenizer._encode_chunk``.

The per-token filters of :class:`topicvb.text.Tokenizer` depend only on the token string, so they
run once per distinct token type (``Tokenizer._map_types``, cached). :meth:`~Tokenizer.count`
counts the raw tokens first (in C, with :class:`collections.Counter`) and then filters the distinct
ones; ``_encode_chunk`` maps every raw token of a chunk of documents to an id in C (``map`` over a
dict) and filters and counts the ids with NumPy. With the default token pattern, ASCII text is split
by :meth:`str.translate` and :meth:`str.split` instead of the regex (``_ASCII_TABLE``).

The methods are a mixin of :class:`Tokenizer` (defined in :mod:`topicvb.text.tokenize`): they use its
compiled rules (``_compile``, ``_prepare``, ``_limit_cache``, ``_map_types``, the URL and e-mail search).
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict

import numpy as np

# ASCII text with the default pattern: every non-word character becomes a space, then str.split
# gives the word runs; dropping the one-character runs leaves exactly the default pattern's tokens
_ASCII_WORD_CHARS = frozenset(chr(i) for i in range(128) if chr(i).isalnum() or chr(i) == "_")
_ASCII_TABLE = str.maketrans({i: " " for i in range(128) if chr(i) not in _ASCII_WORD_CHARS})


def _ascii_runs(text: str) -> list[str]:
    """The runs of ASCII word characters of ``text`` (ASCII), one-character runs included."""
    return text.translate(_ASCII_TABLE).split()


def kept_lengths(kept, lengths):
    """The entries per row that ``kept`` (a bool per entry, rows in order with ``lengths`` entries each)
    keeps, from the running count of kept entries at the row boundaries."""
    running = np.zeros(kept.shape[0] + 1, dtype=np.int64)
    np.cumsum(kept, out=running[1:])
    ends = np.cumsum(lengths)
    return running[ends] - running[ends - lengths]


class _TermCounting:
    """The counting methods of :class:`topicvb.text.Tokenizer` (see the module's description)."""

    def _cut_specials(self, text: str, c) -> tuple[str, list[str]]:
        """``text`` with its URLs / e-mail addresses cut out (each replaced by a space, so no token
        spans the cut), and the placeholder tokens (``"<url>"``, ``"<email>"``) to count for them."""
        pieces, placeholders, pos = [], [], 0
        kinds = c.special_kinds
        for m in self._iter_specials(text, c):
            pieces.append(text[pos: m.start()])
            if kinds[m.lastgroup] == "replace":
                placeholders.append(f"<{m.lastgroup}>")
            pos = m.end()
        if not pieces:
            return text, placeholders
        pieces.append(text[pos:])
        return " ".join(pieces), placeholders

    def _encode_chunk(self, texts) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The terms of a chunk of documents as ids into a list of the chunk's distinct terms.

        Every raw token is mapped to a chunk-local type id in C (``map`` over a dict whose missing
        keys get the next id); the per-type filters then run once per distinct type (cached across
        chunks), and NumPy maps the type ids to term ids and drops the filtered tokens. No Python
        code runs per token.

        Parameters
        ----------
        texts : iterable of str or bytes
            The documents of the chunk.

        Returns
        -------
        terms : list of str
            The distinct terms of the chunk, in order of first appearance.
        ids : ndarray of int32
            Term id (into ``terms``) of every kept token, document after document, in text order.
        lengths : ndarray of int64
            Number of kept tokens of each document.
        """
        c = self.__dict__.get("_compiled") or self._compile()
        type_maps = self._limit_cache(c)  # (this chunk's containers, whatever other threads do: see _Compiled)
        types, ids, raw_lengths = self._raw_type_ids(texts, c)
        n_docs, n_types = len(raw_lengths), len(types)
        if not n_types:
            return [], np.zeros(0, dtype=np.int32), np.zeros(n_docs, dtype=np.int64)
        terms, type_term = self._type_terms(types, c, type_maps)
        token_terms = type_term[np.asarray(ids, dtype=np.int32)]
        kept = token_terms >= 0
        if kept.all():
            return terms, token_terms, np.asarray(raw_lengths, dtype=np.int64)
        return terms, token_terms[kept], kept_lengths(kept, np.asarray(raw_lengths, dtype=np.int64))

    def _raw_type_ids(self, texts, c) -> tuple[defaultdict, list[int], list[int]]:
        """The raw tokens of a chunk as chunk-local type ids, mapped in C (``map`` over a dict whose missing
        keys get the next id): the types (type -> id), the id of every raw token and each document's number
        of raw tokens."""
        types = defaultdict()
        types.default_factory = types.__len__  # a new type gets the next id
        getitem = types.__getitem__
        ids, raw_lengths = [], []
        extend = ids.extend
        specials, ascii_fast, kinds = c.special_re is not None, c.ascii_fast, c.special_kinds
        for text in texts:
            text = self._prepare(text, c)
            before = len(ids)
            if text.isascii():
                # the default pattern's matches are the runs of word characters of two or more
                # characters: the one-character runs are dropped below, with the filtered types
                split = _ascii_runs if ascii_fast else c.token_re.findall
            else:
                split = c.word_re.findall
            if specials and self._may_have_specials(text, c):
                # the text between the URLs / e-mail addresses, each placeholder where its address was
                # (text order, as :meth:`Tokenizer.tokenize` gives the tokens)
                start = 0
                for m in self._iter_specials(text, c):
                    extend(map(getitem, split(text[start: m.start()])))
                    if kinds[m.lastgroup] == "replace":
                        ids.append(getitem(f"<{m.lastgroup}>"))
                    start = m.end()
                text = text[start:]
            extend(map(getitem, split(text)))
            raw_lengths.append(len(ids) - before)
        # (the factory, a method of the dict itself, makes a reference cycle: left in place, each chunk's dict of raw
        # tokens waited for the cyclic garbage collector, and a stream of chunks held several chunks' worth of
        # memory, fragmented, at a time)
        types.default_factory = None
        return types, ids, raw_lengths

    def _type_terms(self, types, c, type_maps) -> tuple[list[str], np.ndarray]:
        """The terms of a chunk's types and the term id of each type id (-1: the type is dropped).

        The new types are classified first (Python, once per type and Tokenizer); then every type is
        mapped to a term id with set operations and maps (C). ``type_maps`` are the containers of
        ``c.type_maps`` to classify into and look up in (fetched once for the chunk, see ``_Compiled``).
        """
        n_types, ascii_fast = len(types), c.ascii_fast
        cache, drop_types, remap_types = type_maps
        keys = types.keys()
        one_char = keys & _ASCII_WORD_CHARS if ascii_fast else ()  # one-character runs: not tokens
        # (not ``keys - cache.keys()``: a set difference with a view iterates the whole cache)
        new = set(itertools.filterfalse(cache.__contains__, keys))
        if new:
            self._map_types(c, new - one_char if one_char else new, type_maps)
        type_list = list(keys)
        drop = np.fromiter(map(drop_types.__contains__, type_list), dtype=bool, count=n_types)
        if one_char:
            drop[[types[t] for t in one_char]] = True
        kept_types = (~drop).tolist()
        type_term = np.full(n_types, -1, dtype=np.int32)
        if keys & remap_types.keys():  # some types become another term (stemming, "<num>")
            term_index = defaultdict()
            term_index.default_factory = term_index.__len__
            remapped = map(remap_types.get, type_list, type_list)
            type_term[~drop] = np.fromiter(map(term_index.__getitem__, itertools.compress(remapped, kept_types)),
                                           dtype=np.int32)
            terms = list(term_index)
        else:
            terms = list(itertools.compress(type_list, kept_types))
            type_term[~drop] = np.arange(len(terms), dtype=np.int32)
        return terms, type_term

    def count(self, text) -> dict[str, int]:
        """Count the terms of one document (the same terms as calling the tokenizer, without the order).

        The raw tokens are counted first and the filters run once per distinct token, which is much
        faster than filtering every token. A subclass that makes its tokens its own way (overriding
        :meth:`tokenize` or ``__call__``) has the tokens of its calls counted instead.

        Parameters
        ----------
        text : str or bytes
            The document.

        Returns
        -------
        dict
            Term to number of occurrences.
        """
        c = self.__dict__.get("_compiled") or self._compile()
        if not c.counts_natively:
            return Counter(self(text))
        text = self._prepare(text, c)
        extra = None
        if c.special_re is not None and self._may_have_specials(text, c):
            text, placeholders = self._cut_specials(text, c)
            extra = Counter(placeholders)
        delete = dict.__delitem__  # Counter.__delitem__ is slower Python code
        if c.ascii_fast and text.isascii():
            counts = Counter(text.translate(_ASCII_TABLE).split())
            for w in c.fast_drop.intersection(counts):
                delete(counts, w)
            if extra:
                counts.update(extra)
            if not c.needs_type_map:
                return counts
        else:
            counts = Counter((c.token_re if text.isascii() else c.word_re).findall(text))
            if extra:
                counts.update(extra)
        if c.needs_type_map:
            # classify new token types once; afterwards set operations (in C) do the work, all with the
            # containers fetched here (whatever other threads do: see _Compiled)
            type_maps = self._limit_cache(c)
            cache, drop_types, remap = type_maps
            keys = counts.keys()
            new = set(itertools.filterfalse(cache.__contains__, keys))  # not keys - cache.keys()
            if new:
                self._map_types(c, new, type_maps)
            for w in drop_types.intersection(keys):
                delete(counts, w)
            moved = [(remap[w], counts.pop(w)) for w in remap.keys() & keys]
            for term, n in moved:
                counts[term] = counts.get(term, 0) + n
            return counts
        if c.stop:
            for w in c.stop.intersection(counts):
                delete(counts, w)
        return counts
