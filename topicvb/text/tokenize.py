"""Turn raw text into tokens: decoding, cleaning, Unicode normalisation, regex tokenising, filters.

The pipeline of :class:`Tokenizer`, in order:

1. decode ``bytes`` (UTF-8 by default, undecodable bytes replaced and counted, see :func:`decode_bytes`);
2. optionally remove mail/news headers, quoted replies and signatures (``clean="email"``);
3. Unicode normalisation (``normalize="NFKC"``), lowercasing (the dotted capital ``"İ"`` becomes
   ``"i"``, see :func:`._unicode._lower`), accent stripping;
4. URLs and e-mail addresses dropped, kept or replaced by a placeholder token;
5. the token regex (``token_pattern``, scikit-learn's default, except that a combining mark, or a joiner
   such as U+200C, continues its word instead of cutting it, see :func:`._unicode._marked_word_pattern`;
   soft hyphens are removed before it, with the text-level steps of 3);
6. per-token filters: length, numbers, letters only (``alphabetic``), stop words (matched on the
   lower-cased token), stemming.

The defaults keep words of three or more letters, as MALLET and gensim do: tokens that mix letters
with digits (``"x11"``, ``"486dx"``, the base64 and uuencoded lines of mail attachments) and tokens of
one or two letters are dropped. ``alphabetic=False, min_length=2`` gives back the rule of
scikit-learn's pattern (every run of two or more word characters); with those, ``normalize=None``,
``numbers``/``urls``/``emails`` set to ``"keep"`` and scikit-learn's stop-word list, the tokens equal
those of ``CountVectorizer(stop_words="english")`` on text without combining marks, soft hyphens
(U+00AD) or the joiners U+200C, U+200D and U+2060. Those differ on purpose: scikit-learn's pattern
splits a word at each of them (``"infor\\u00admation"`` gives ``"infor"`` and ``"mation"``), while here a
soft hyphen is removed (``"information"``) and a mark or a joiner stays in its word.

The per-token filters depend only on the token string, so they are applied once per distinct token
type and cached. When only counts are needed no Python code runs per token:
:meth:`Tokenizer.count` counts the raw tokens first (in C, with :class:`collections.Counter`), and
the vectorizer's path (``_encode_chunk``) maps every raw token of a chunk of documents to an id in
C (``map`` over a dict) and filters and counts the ids with NumPy. Both live in
:mod:`topicvb.text._tokenize_counting` (a mixin of :class:`Tokenizer`).
"""

from __future__ import annotations

import logging
import numbers
import re
import sys
import unicodedata
from collections.abc import Iterable, Iterator

from sklearn.base import BaseEstimator

from .._validation import check_choice, check_encoding
from ._decode import decode_bytes, decode_counted
from ._specials import iter_specials, may_have_specials, special_pattern
from ._tokenize_counting import _ASCII_WORD_CHARS, _TermCounting
from ._unicode import (_drop_loose_format_characters, _is_alphabetic, _lower, _marked_word_pattern,
                       _strip_accents_ascii, _strip_accents_unicode)
from .clean import strip_encoded, strip_headers, strip_quotes, strip_signature
from .stopwords import ENGLISH_STOP_WORDS

__all__ = ["Tokenizer", "decode_bytes", "DEFAULT_TOKEN_PATTERN"]

logger = logging.getLogger(__name__)

#: scikit-learn's default token pattern: runs of two or more word characters.
DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"

_FAST_DEFAULT_PATTERN = r"\w\w\w*"

#: The methods that make a Tokenizer's tokens on the path of :meth:`Tokenizer.tokenize` only, or on the
#: counting paths only (:meth:`Tokenizer.count`, the Vectorizer's ``_encode_chunk``). A subclass (or an
#: instance) that overrides one of them makes its tokens its own way, which the counting paths would not
#: see, so its tokens are counted from its calls instead (``_Compiled.counts_natively``). The methods both
#: paths share (``_compile``, ``_prepare``, ``_text_steps``, ``_stemmer``, the URL search) may be overridden
#: without losing the fast counting.
_TOKEN_METHODS = frozenset({
    "tokenize", "__call__", "count", "_raw_tokens", "_map_type", "_map_types", "_encode_chunk", "_raw_type_ids",
    "_type_terms", "_cut_specials",
})
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")

_MAX_CACHE = 1_000_000  # distinct token types remembered by one Tokenizer before the cache resets
_DROP = object()  # cache marker for a dropped token type
_PLACEHOLDERS = frozenset({"<num>", "<url>", "<email>"})


def _is_number(token: str) -> bool:
    """Whether a token holds a digit and no letter (``"1993"``, ``"3_000"``, ``"3.14"``)."""
    return not token.isalpha() and _DIGIT.search(token) is not None and _LETTER.search(token) is None


def _new_type_maps() -> tuple[dict, set, dict]:
    """An empty ``(type_cache, drop_types, remap_types)`` (see :class:`_Compiled`)."""
    return {}, set(), {}


class _Compiled:
    """Everything a Tokenizer derives from its parameters, built once (not pickled).

    ``type_maps`` holds the per-type cache as one tuple ``(type_cache, drop_types, remap_types)``: the
    term (or ``_DROP``) of every raw token type met, the dropped types, and the types that become another
    term. One Tokenizer may be used from several threads at once, so:

    * a type's classification is added to ``drop_types`` / ``remap_types`` before the type is added to
      ``type_cache`` (:meth:`Tokenizer._map_type`, :meth:`Tokenizer._map_types`): a thread that finds a type
      cached, and so does not classify it, finds its classification too;
    * a reader fetches the tuple once per document or chunk and uses those three containers throughout,
      and :meth:`Tokenizer._limit_cache` replaces the tuple instead of clearing the containers, so that a
      reset by another thread never empties them between a reader's lookups.

    No lock is needed (nor held across a fork of the Vectorizer's workers): every step is one operation
    on a dict or set.
    """

    __slots__ = (
        "token_re", "word_re", "special_re", "special_kinds", "steps", "needs_type_map", "stop",
        "stop_needs_lower", "min_length", "max_length", "numbers", "stem", "type_maps", "encoding", "ascii_fast",
        "fast_drop", "lowercased", "alphabetic", "counts_natively",
    )


def _apply(steps, text: str) -> str:
    """``text`` through the text-level ``steps`` (:meth:`Tokenizer._text_steps`), in order."""
    for step in steps:
        text = step(text)
    return text

class Tokenizer(_TermCounting, BaseEstimator):
    """Split text into tokens (a callable, picklable, scikit-learn style object).

    Parameters are stored unchanged by the constructor and checked on first use.

    Parameters
    ----------
    lowercase : bool, default=True
        Lower-case the text before tokenising. The dotted capital I (``"İ"``, U+0130), whose
        Unicode lower-case is ``"i"`` plus a combining dot above, becomes a plain ``"i"``, so
        ``"İstanbul"`` gives the token ``"istanbul"`` rather than losing its first letter.
    normalize : {"NFKC", "NFC", "NFKD", "NFD"} or None, default="NFKC"
        Unicode normalisation form applied first (``NFKC`` folds ligatures, full-width and
        compatibility characters: ``"ﬁ"`` becomes ``"fi"``). ``None`` skips it. The composed forms
        (``NFKC``, ``NFC``) make one term of the precomposed and the decomposed spelling of a word
        (``"café"`` and ``"cafe\u0301"`` both give ``"café"``); with the decomposed forms
        (``NFKD``, ``NFD``) tokens are decomposed, and with ``None`` a token keeps the code points
        of the text, so the two spellings are two terms. Under every form a combining mark stays in
        its word.
    strip_accents : {"unicode", "ascii"} or None, default=None
        Remove accents after lowercasing, as in scikit-learn: ``"unicode"`` drops combining marks
        after NFKD decomposition, ``"ascii"`` also drops every character without an ASCII equivalent.
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        Regular expression a token must match (scikit-learn's default). With one capturing group,
        the group is the token; more than one group is an error. The default is applied with
        combining marks (Unicode categories Mn, Mc, Me) counted as part of the word they follow,
        so accents of decomposed text and the vowel signs and viramas of scripts such as
        Devanagari or Thai do not cut a word (``"हिन्दी"`` is one token), and so are the joiners
        written inside words (U+200C, U+200D, U+2060: ``"کتاب\u200cها"`` is one token), while soft
        hyphens (U+00AD) are removed from the text first; a token still needs two word characters
        besides its marks. A pattern of your own is used as given (and its tokens
        still pass the filters below: set ``alphabetic=False`` to keep tokens that are not words).
    min_length : int, default=3
        Shortest token kept, in characters (code points: a combining mark counts, so that words of
        scripts written with vowel signs, such as Hindi ``"देश"``, are not cut short), so one- and
        two-letter tokens (``"db"``, ``"cx"``, ``"ax"``) are dropped. Use 2 for the rule of
        scikit-learn's pattern.
    max_length : int or None, default=None
        Longest token kept, in characters (``None``: no limit). Useful against encoded binaries.
    alphabetic : bool, default=True
        Keep only tokens made of letters (and the combining marks of their letters), as MALLET and
        gensim do: tokens that mix letters with digits or underscores (``"x11"``, ``"486dx"``,
        ``"g9v"``, ``"__init__"``) are dropped whole, which removes the encoded binaries of mail
        attachments. Tokens made of digits without letters follow ``numbers`` either way.
        ``alphabetic=False, min_length=2`` is the rule of earlier topicvb versions and of scikit-learn.
    numbers : {"drop", "keep", "replace"}, default="drop"
        What to do with tokens that contain a digit and no letter (``"1993"``, ``"3_000"``):
        ``"replace"`` turns each into the token ``"<num>"`` (whatever its length); with ``"keep"``
        they are kept when ``min_length`` and ``max_length`` allow. Tokens mixing letters and digits
        (``"x11"``, ``"486dx"``) are dropped by ``alphabetic=True`` and are ordinary tokens with
        ``alphabetic=False``.
    urls : {"drop", "keep", "replace"}, default="drop"
        What to do with URLs (``http://``, ``https://``, ``ftp://`` or ``www.``): ``"keep"`` leaves them
        in the text for the token pattern (``"www"``, ``"example"``, ``"com"``), ``"replace"`` emits
        ``"<url>"`` in their place.
    emails : {"drop", "keep", "replace"}, default="drop"
        The same for e-mail addresses (and Usenet message ids); the placeholder is ``"<email>"``.
    stop_words : "english", collection of str or None, default=None
        Tokens to remove, matched on the lower-cased token before stemming. ``"english"`` is
        :data:`topicvb.text.ENGLISH_STOP_WORDS`. A list of your own is read once, at the first use
        of the tokenizer (normalised as the text is, and cached with the other rules): a list edited
        in place afterwards is not seen by calls of the tokenizer, so assign the attribute to change
        the stop words (``tok.stop_words = new_list``). A :class:`Vectorizer` reads the list again at
        the start of each fit, as scikit-learn's ``CountVectorizer`` does.
    stemmer : {"porter", "snowball"} or None, default=None
        NLTK's Porter stemmer or the English Snowball ("Porter2") stemmer. Results are cached
        per token type. Stemming lower-cases every token, whatever ``lowercase`` is: both NLTK
        stemmers lower-case their input (the Snowball stemmer has no option not to), so
        ``Tokenizer(lowercase=False, stemmer="porter")("NASA Apples")`` gives
        ``["nasa", "appl"]``; ``lowercase=False`` keeps case only without a stemmer.
    clean : {"email"} or None, default=None
        ``"email"`` removes the header block, quoted replies, the signature and the lines of encoded
        attachments of Usenet or e-mail posts (see :func:`topicvb.text.clean_text`) before anything
        else.
    encoding : str, default="utf-8"
        Codec for ``bytes`` input; undecodable bytes are replaced (see :func:`decode_bytes`).

    See Also
    --------
    topicvb.text.Vectorizer : Counts tokens into a document-term matrix.

    Notes
    -----
    The placeholder tokens (``"<num>"``, ``"<url>"``, ``"<email>"``) are never stop words and are
    not stemmed. Parameters changed after first use (assigned, not edited in place) take effect at the
    next call.

    A subclass may override :meth:`tokenize` (or ``__call__``, which calls it) to make tokens its own
    way (a lemmatiser, say): :meth:`count` and :class:`Vectorizer` then count the tokens its calls give,
    one document at a time. A subclass that keeps them (one that changes only the defaults, or
    ``_stemmer``) keeps the fast counting: :meth:`count` and the Vectorizer then count without calling
    :meth:`tokenize`, with the same result.

    Examples
    --------
    >>> tok = Tokenizer(stop_words="english", numbers="replace")
    >>> tok("The 2 quick brown foxes jumped over 13 lazy dogs.")
    ['quick', 'brown', 'foxes', 'jumped', '<num>', 'lazy', 'dogs']
    >>> Tokenizer(stemmer="porter")("Running runners ran")
    ['run', 'runner', 'ran']
    >>> Tokenizer()("An X11 server on a 486dx ran OK")
    ['server', 'ran']
    >>> Tokenizer(alphabetic=False, min_length=2)("An X11 server on a 486dx ran OK")
    ['an', 'x11', 'server', 'on', '486dx', 'ran', 'ok']
    """

    def __init__(
        self,
        *,
        lowercase=True,
        normalize="NFKC",
        strip_accents=None,
        token_pattern=DEFAULT_TOKEN_PATTERN,
        min_length=3,
        max_length=None,
        alphabetic=True,
        numbers="drop",
        urls="drop",
        emails="drop",
        stop_words=None,
        stemmer=None,
        clean=None,
        encoding="utf-8",
    ):
        self.lowercase = lowercase
        self.normalize = normalize
        self.strip_accents = strip_accents
        self.token_pattern = token_pattern
        self.min_length = min_length
        self.max_length = max_length
        self.alphabetic = alphabetic
        self.numbers = numbers
        self.urls = urls
        self.emails = emails
        self.stop_words = stop_words
        self.stemmer = stemmer
        self.clean = clean
        self.encoding = encoding

    # ------------------------------------------------------------------ state handling
    def __setattr__(self, name, value):
        # changing a parameter invalidates what was compiled from it
        if not name.startswith("_"):
            self.__dict__.pop("_compiled", None)
        object.__setattr__(self, name, value)

    def __getstate__(self):
        state = super().__getstate__()
        state = dict(state)
        state.pop("_compiled", None)  # regexes, stemmer and caches are rebuilt on first use
        return state

    def __setstate__(self, state):
        # a Tokenizer pickled before ``alphabetic`` existed kept tokens mixing letters and digits
        if isinstance(state, dict) and "min_length" in state and "alphabetic" not in state:
            state = {**state, "alphabetic": False}
        super().__setstate__(state)

    def _check_params(self) -> None:
        """Check every parameter; raise ``TypeError`` or ``ValueError`` naming the culprit."""
        check_choice(self.lowercase, "lowercase", {True, False})
        check_choice(self.normalize, "normalize", {"NFKC", "NFC", "NFKD", "NFD", None})
        check_choice(self.strip_accents, "strip_accents", {"unicode", "ascii", None})
        if not isinstance(self.token_pattern, str):
            raise TypeError(f"token_pattern must be a regular expression string, got {type(self.token_pattern).__name__}.")
        try:
            groups = re.compile(self.token_pattern).groups
        except re.error as exc:
            raise ValueError(f"token_pattern is not a valid regular expression ({exc}): {self.token_pattern!r}.") from None
        if groups > 1:
            raise ValueError(
                f"token_pattern must have at most one capturing group, got {groups} in {self.token_pattern!r}. "
                "Use non-capturing groups (?:...)."
            )
        for name in ("min_length", "max_length"):
            value = getattr(self, name)
            if value is None and name == "max_length":
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{name} must be an int, got {value!r}.")
            if value < 0:
                raise ValueError(f"{name} must be >= 0, got {value}.")
        if self.max_length is not None and self.max_length < self.min_length:
            raise ValueError(
                f"max_length must be >= min_length, got max_length={self.max_length} and min_length={self.min_length}."
            )
        check_choice(self.alphabetic, "alphabetic", {True, False})
        for name in ("numbers", "urls", "emails"):
            check_choice(getattr(self, name), name, {"drop", "keep", "replace"})
        sw = self.stop_words
        if isinstance(sw, str):
            check_choice(sw, "stop_words", {"english"})
        elif sw is not None:
            if not isinstance(sw, Iterable):
                raise TypeError(f"stop_words must be 'english', an iterable of str or None, got {type(sw).__name__}.")
            if isinstance(sw, Iterator):  # (a generator: this check would use it up, and the tokenizer get none)
                raise TypeError(f"stop_words must be 'english', a collection of str (a list, set or tuple) or None, "
                                f"got a {type(sw).__name__}, which its first use would exhaust; pass list(...).")
            bad = [w for w in sw if not isinstance(w, str)]
            if bad:
                raise TypeError(f"stop_words must contain only str, got {bad[0]!r}.")
        check_choice(self.stemmer, "stemmer", {"porter", "snowball", None})
        check_choice(self.clean, "clean", {"email", None})
        check_encoding(self.encoding)

    def _compile(self) -> _Compiled:
        self._check_params()
        c = _Compiled()
        c.encoding = self.encoding
        # "\w\w\w*" finds exactly the matches of the default "\b\w\w+\b" (a scan only starts a
        # match at a word start, and the greedy run always ends at a word end) about twice as fast
        # word_re is used on non-ASCII text: with the default pattern it keeps combining marks in
        # their word (see _marked_word_pattern); ASCII text cannot hold a mark
        if self.token_pattern == DEFAULT_TOKEN_PATTERN:
            c.token_re, c.word_re = re.compile(_FAST_DEFAULT_PATTERN), _marked_word_pattern()
        else:
            c.token_re = c.word_re = re.compile(self.token_pattern)
        kinds = {}
        if self.urls != "keep":
            kinds["url"] = self.urls
        if self.emails != "keep":
            kinds["email"] = self.emails
        c.special_re = special_pattern(kinds)
        c.special_kinds = kinds
        if isinstance(self.stop_words, str):
            stop = ENGLISH_STOP_WORDS
        elif self.stop_words is None:
            stop = frozenset()
        else:  # (normalised as the text is, so that "İstanbul" or a decomposed "café" match their tokens)
            steps = self._text_steps(clean=False)
            stop = frozenset(_apply(steps, w).lower() for w in self.stop_words)
        c.stop = stop
        c.stop_needs_lower = not self.lowercase
        c.stem = stem = self._stemmer()
        c.min_length = self.min_length
        c.max_length = sys.maxsize if self.max_length is None else self.max_length
        c.numbers = self.numbers
        # the default pattern yields tokens of >= 2 characters, so min_length <= 2 needs no check
        implied_min = 2 if self.token_pattern == DEFAULT_TOKEN_PATTERN else 1
        check_length = self.min_length > implied_min or self.max_length is not None
        # per-type work beyond stop words: a cached map from raw token to term (or _DROP)
        c.alphabetic = bool(self.alphabetic)
        c.needs_type_map = (check_length or self.numbers != "keep" or stem is not None or c.stop_needs_lower
                            or c.alphabetic)
        c.type_maps = _new_type_maps()
        c.lowercased = bool(self.lowercase)
        c.ascii_fast = self.token_pattern == DEFAULT_TOKEN_PATTERN
        c.fast_drop = _ASCII_WORD_CHARS if c.needs_type_map else _ASCII_WORD_CHARS | stop
        c.steps = self._text_steps()
        c.counts_natively = self._counts_natively()
        self._compiled = c
        return c

    def _counts_natively(self) -> bool:
        """Whether the counting paths (:meth:`count`, ``_encode_chunk``) give the terms of this tokenizer's calls:
        no method of :data:`_TOKEN_METHODS` is overridden, by a subclass or on the instance (an attribute set on
        the instance recompiles, so this is decided again then)."""
        if _TOKEN_METHODS & self.__dict__.keys():
            return False
        for cls in type(self).__mro__:
            if cls is Tokenizer:
                return True
            if _TOKEN_METHODS & cls.__dict__.keys():
                return False
        return False  # (not reached: Tokenizer is in the MRO of every instance)

    def _reread_stop_words(self) -> None:
        """Forget the compiled rules when a stop-word collection was edited in place since they were compiled.

        Called by the Vectorizer at the start of each fit (once, not per document), as scikit-learn's
        ``CountVectorizer`` reads its stop words at each fit; when the stop words are unchanged the compiled
        rules, and their cache of classified token types, are kept. The parameters must have been checked
        (:meth:`_check_params`).
        """
        c = self.__dict__.get("_compiled")
        sw = self.stop_words
        if c is None or sw is None or isinstance(sw, str):
            return
        steps = self._text_steps(clean=False)
        if frozenset(_apply(steps, w).lower() for w in sw) != c.stop:
            self.__dict__.pop("_compiled", None)

    def _stemmer(self):
        """NLTK's stemming function of ``stemmer``, or None."""
        if self.stemmer == "porter":
            from nltk.stem.porter import PorterStemmer

            return PorterStemmer().stem
        if self.stemmer == "snowball":
            from nltk.stem.snowball import SnowballStemmer

            return SnowballStemmer("english").stem
        return None

    def _text_steps(self, clean: bool = True) -> list:
        """The text-level steps, in order: e-mail cleaning (unless ``clean`` is False), soft hyphens and loose
        joiners removed (the default token pattern), normalisation, lowercasing, accent stripping."""
        steps = []
        if clean and self.clean == "email":
            steps += [strip_headers, strip_signature, strip_quotes, strip_encoded]
        if self.token_pattern == DEFAULT_TOKEN_PATTERN:  # (soft hyphens, joiners that join nothing: see _unicode)
            steps.append(_drop_loose_format_characters)
        if self.normalize is not None:
            form = self.normalize

            def _normalize(text, _form=form, _norm=unicodedata.normalize):
                return text if text.isascii() else _norm(_form, text)

            steps.append(_normalize)
        if self.lowercase:
            steps.append(_lower)
        if self.strip_accents == "unicode":
            steps.append(lambda t: t if t.isascii() else _strip_accents_unicode(t))
        elif self.strip_accents == "ascii":
            steps.append(lambda t: t if t.isascii() else _strip_accents_ascii(t))
        return steps

    # ------------------------------------------------------------------ per-type filters
    @staticmethod
    def _map_type(c: _Compiled, token: str, type_maps: tuple | None = None):
        """The term a raw token becomes, or ``_DROP``; the result is cached per token type.

        The checks, in order: placeholders are kept; numbers (``numbers``, before the length, so
        that ``"replace"`` replaces ``"13"`` too); length (``min_length``, ``max_length``); letters
        only (``alphabetic``); stop words; stemming. The result goes to ``type_maps`` (the caller's
        ``c.type_maps``; by default the current one), into ``drop_types`` / ``remap_types`` first and
        then into ``type_cache`` (see :class:`_Compiled`).
        """
        if token in _PLACEHOLDERS:
            term = token
        elif c.numbers != "keep" and _is_number(token):
            term = "<num>" if c.numbers == "replace" else _DROP
        elif not c.min_length <= len(token) <= c.max_length:
            term = _DROP
        elif c.alphabetic and not _is_alphabetic(token) and (c.numbers != "keep" or not _is_number(token)):
            term = _DROP  # letters mixed with digits or underscores (numbers="keep" keeps the numbers)
        elif (token.lower() if c.stop_needs_lower else token) in c.stop:
            term = _DROP
        elif c.stem is not None:
            term = c.stem(token)
        else:
            term = token
        cache, drop_types, remap_types = c.type_maps if type_maps is None else type_maps
        if term is _DROP:
            drop_types.add(token)
        elif term != token:
            remap_types[token] = term
        cache[token] = term  # (last: a cached type's classification is visible to every thread)
        return term

    @classmethod
    def _map_types(cls, c: _Compiled, new, type_maps: tuple | None = None) -> None:
        """Classify many new token types at once; the same results as :meth:`_map_type` on each.

        The common cases run as set operations (in C): types of letters only, when neither
        stemming nor case-insensitive stop words are needed, and ASCII types with a digit or an
        underscore, which are all dropped with ``alphabetic=True, numbers="drop"``. The results go to
        ``type_maps`` (by default ``c.type_maps``), dropped types into ``drop_types`` before ``type_cache``.
        """
        if type_maps is None:
            type_maps = c.type_maps
        cache, drop_types = type_maps[0], type_maps[1]
        alpha = set(filter(str.isalpha, new))
        other = new - alpha if len(alpha) != len(new) else ()
        if c.stem is None and not c.stop_needs_lower:
            lo, hi = c.min_length, c.max_length
            dropped = alpha & c.stop
            dropped.update(t for t in alpha if not lo <= len(t) <= hi)
            kept = alpha - dropped
            drop_types |= dropped  # (before the cache: see _Compiled)
            cache.update(dict.fromkeys(dropped, _DROP))
            cache.update(zip(kept, kept))
        else:
            for t in alpha:
                cls._map_type(c, t, type_maps)
        if other and c.alphabetic and c.numbers == "drop":
            ascii_other = set(filter(str.isascii, other))
            ascii_other -= _PLACEHOLDERS
            drop_types |= ascii_other
            cache.update(dict.fromkeys(ascii_other, _DROP))
            other = other - ascii_other
        for t in other:
            cls._map_type(c, t, type_maps)

    @staticmethod
    def _limit_cache(c: _Compiled) -> tuple[dict, set, dict]:
        """Forget the cached token types once there are too many (called between documents); return the
        ``type_maps`` to classify and look up the next document or chunk with.

        The containers are replaced, not cleared: another thread that is between its classification of a
        chunk and its lookups keeps the containers it fetched (see :class:`_Compiled`).
        """
        type_maps = c.type_maps
        if len(type_maps[0]) >= _MAX_CACHE:
            c.type_maps = type_maps = _new_type_maps()
        return type_maps

    # ------------------------------------------------------------------ text -> tokens
    def _prepare(self, text, c: _Compiled) -> str:
        if not isinstance(text, str):
            if isinstance(text, (bytes, bytearray, memoryview)):
                text, n_replaced = decode_counted(bytes(text), c.encoding)
                if n_replaced:
                    logger.debug("Replaced %d undecodable byte sequence(s) while decoding as %s.", n_replaced, c.encoding)
            else:
                raise TypeError(f"Tokenizer expects a str or bytes document, got {type(text).__name__}.")
        for step in c.steps:
            text = step(text)
        return text

    @staticmethod
    def _may_have_specials(text: str, c: _Compiled) -> bool:
        """Whether ``text`` may hold a URL or an e-mail address (see :func:`._specials.may_have_specials`)."""
        return may_have_specials(text, c.lowercased)

    @staticmethod
    def _iter_specials(text: str, c: _Compiled):
        """Yield the URL / e-mail matches of ``text``, as ``c.special_re.finditer`` would (see
        :func:`._specials.iter_specials`)."""
        return iter_specials(text, c.special_re, c.lowercased)

    def _raw_tokens(self, text: str, c: _Compiled) -> list[str]:
        """Tokens from the regex, URLs/e-mails handled, before the per-type filters."""
        findall = (c.token_re if text.isascii() else c.word_re).findall
        if c.special_re is None or not self._may_have_specials(text, c):
            return findall(text)
        tokens, start = [], 0
        for m in self._iter_specials(text, c):
            tokens += findall(text[start: m.start()])
            if c.special_kinds[m.lastgroup] == "replace":
                tokens.append(f"<{m.lastgroup}>")
            start = m.end()
        tokens += findall(text[start:])
        return tokens

    def tokenize(self, text) -> list[str]:
        """Split one document into tokens, in text order.

        Parameters
        ----------
        text : str or bytes
            The document; bytes are decoded with ``encoding``, replacing undecodable bytes.

        Returns
        -------
        list of str
            The tokens.

        Raises
        ------
        TypeError
            If ``text`` is neither str nor bytes.
        """
        c = self.__dict__.get("_compiled") or self._compile()
        tokens = self._raw_tokens(self._prepare(text, c), c)
        if c.needs_type_map:
            type_maps = self._limit_cache(c)
            cache, mapper, out = type_maps[0], self._map_type, []
            append = out.append
            for t in tokens:
                term = cache.get(t)
                if term is None:
                    term = mapper(c, t, type_maps)
                if term is not _DROP:
                    append(term)
            return out
        if c.stop:
            stop = c.stop
            return [t for t in tokens if t not in stop]
        return tokens

    def __call__(self, text) -> list[str]:
        """Split one document into tokens: :meth:`tokenize` (so that a subclass overriding it is called too)."""
        return self.tokenize(text)
