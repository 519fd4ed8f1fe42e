"""Unicode details of tokenising: lower-casing the dotted capital I, the combining marks, the
default token pattern's regex for text that holds marks, accent stripping."""

from __future__ import annotations

import functools
import re
import unicodedata

# The default pattern on non-ASCII text: a combining mark (Unicode categories Mn, Mc, Me) continues
# the word it follows instead of cutting it, and a token needs two word characters (marks do not
# count), see :func:`_marked_word_pattern`; so do the invisible format characters written inside words
# (JOINERS)
_MARKED_WORD_TEMPLATE = r"\w[{bmp}]*(?:{astral}[{bmp}]*)*\w[\w{bmp}]*(?:{astral}[\w{bmp}]*)*"


# Format characters (category Cf) written inside words, which continue the word as marks do: ZERO WIDTH
# NON-JOINER (U+200C, the standard spelling of Persian plurals and compounds, "کتاب‌ها"), ZERO WIDTH JOINER
# (U+200D, Indic conjuncts and chillus) and WORD JOINER (U+2060); one that joins nothing (at the end of a word)
# is removed first. SOFT HYPHEN (U+00AD), a hyphenation hint common in text from web pages, is removed from the
# text before the default pattern runs ("abc\xaddef" is "abcdef"; _drop_loose_format_characters).
JOINERS = "\u200c\u200d\u2060"
SOFT_HYPHEN = "\u00ad"


def _lower(text: str) -> str:
    """Lower-case ``text`` as :meth:`str.lower` does, except that the dotted capital I becomes ``"i"``.

    The Unicode lower-case of U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE (``"İ"``, Turkish and
    Azerbaijani) is two code points, ``"i"`` and U+0307 COMBINING DOT ABOVE: no other character
    lower-cases to more than one (the tests enumerate them from Python's tables). With
    scikit-learn's pattern the mark cut the word (``"İstanbul"`` gave ``"stanbul"``); the default
    pattern now keeps marks in their word, but ``"i\\u0307stanbul"`` would still be another term
    than ``"istanbul"``. The dot above a lower-case ``i`` adds nothing (the letter is already
    dotted), so it is dropped wherever it follows an ``i`` after lower-casing, which also covers
    the decomposed form (``"I"`` + U+0307, as NFD and NFKD write ``"İ"``) and text lower-cased by
    Python before it got here: ``"İstanbul"``, ``"Istanbul"`` and ``"ISTANBUL"`` all give the term
    ``"istanbul"``, as Turkish lower-casing does.
    """
    text = text.lower()
    if "\u0307" in text:  # O(1) for ASCII and Latin-1 text, which cannot hold it
        text = text.replace("i\u0307", "i")
    return text


@functools.lru_cache(maxsize=None)
def _mark_ranges() -> tuple:
    """Every combining mark of this Python's Unicode tables (categories Mn, Mc, Me), as ranges of code
    points. They all lie in U+0300..U+1FFFF and U+E0000..U+E0FFF (the tests check every code point),
    which takes a few milliseconds to scan."""
    category, ranges = unicodedata.category, []
    for block in (range(0x300, 0x20000), range(0xE0000, 0xE1000)):
        for cp in block:
            if category(chr(cp))[0] == "M":
                if ranges and ranges[-1][1] == cp - 1 and cp != 0x10000:
                    ranges[-1][1] = cp
                else:
                    ranges.append([cp, cp])
    return tuple((a, b) for a, b in ranges)


def _class_body(ranges) -> str:
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


def _combining_marks() -> str:
    """The body of a regex character class holding every combining mark."""
    return _class_body(_mark_ranges())


@functools.lru_cache(maxsize=None)
def _marked_word_pattern() -> re.Pattern:
    """The default token pattern's regex for text that may hold combining marks.

    scikit-learn's ``\\b\\w\\w+\\b`` cuts a word at every combining mark, since a mark is not a
    word character for Python's ``re``: decomposed text (as NFD and NFKD write accented letters) is
    cut at every accent (``"nai\\u0308ve"`` gave ``"nai"`` and ``"ve"``), and the vowel signs and
    viramas of the Indic and South-East Asian scripts split nearly every word (``"हिन्दी"`` gave no
    token at all). Here a token is a word character, then word characters and marks, with at least
    two word characters (a letter and its mark alone are one character, as ``"é"`` is in NFC); on
    text without marks it finds exactly the matches of the default pattern.

    This is ``\\w[M]*\\w[\\wM]*`` with M the class of all marks, written for speed: ``re`` tests a
    class of characters below U+10000 in constant time but one with higher code points range by
    range, so the marks above U+FFFF (about a hundred ranges: Brahmi, musical symbols, variation
    selectors...) are tried only at a character above U+FFFF (a look-ahead of one range). Each
    alternative starts with a different kind of character, so a failed match backtracks linearly.
    The format characters of JOINERS count as marks here (U+200C cut "کتاب‌ها" in two).
    """
    ranges = _mark_ranges()
    bmp = _class_body([r for r in ranges if r[1] < 0x10000]) + JOINERS
    astral = f"(?=[\\U00010000-\\U0010ffff])[{_class_body([r for r in ranges if r[0] >= 0x10000])}]"
    return re.compile(_MARKED_WORD_TEMPLATE.format(bmp=bmp, astral=astral))


@functools.lru_cache(maxsize=None)
def _loose_joiners() -> re.Pattern:
    """Runs of JOINERS that join nothing: not followed by a word character, a mark or another joiner (at the end
    of a word, or alone). Left in place, "کتاب\u200c ها" would give the term "کتاب\u200c", an invisible twin of
    "کتاب"."""
    ranges = _mark_ranges()
    bmp = _class_body([r for r in ranges if r[1] < 0x10000])
    astral = _class_body([r for r in ranges if r[0] >= 0x10000])
    return re.compile(f"[{JOINERS}]+(?![\\w{bmp}{JOINERS}]|[{astral}])")


def _drop_loose_format_characters(text: str) -> str:
    """``text`` without soft hyphens and without the joiners that join nothing (:func:`_loose_joiners`): the
    text step of the default token pattern."""
    if text.isascii():
        return text
    if SOFT_HYPHEN in text:
        text = text.replace(SOFT_HYPHEN, "")
    if "\u200c" in text or "\u200d" in text or "\u2060" in text:
        text = _loose_joiners().sub("", text)
    return text


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "M"


def _is_alphabetic(token: str) -> bool:
    """Whether ``token`` is made of letters and the combining marks of its letters, and the joiners within its
    words (JOINERS), with no digit or underscore.

    Letters are what :meth:`str.isalpha` accepts (Unicode categories L*); a token of marks alone is
    not alphabetic.
    """
    if token.isalpha():
        return True
    if token.isascii():
        return False
    has_letter = False
    for ch in token:
        if ch.isalpha():
            has_letter = True
        elif not _is_mark(ch) and ch not in JOINERS:
            return False
    return has_letter


def _strip_accents_unicode(text: str) -> str:
    normalized = unicodedata.normalize("NFKD", text)
    if normalized == text:
        return text
    return "".join(c for c in normalized if not unicodedata.combining(c))


def _strip_accents_ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
