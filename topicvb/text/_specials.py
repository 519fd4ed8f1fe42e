"""Finding URLs and e-mail addresses in a text quickly (the ``urls``/``emails`` settings of a Tokenizer).

The patterns are matched ignoring case. A match contains no whitespace and always contains ``@``, ``://`` or
``www.``, so :func:`iter_specials` searches only the whitespace-delimited words around those substrings instead of
running the pattern over the whole text, which costs a failed attempt at every character.
"""

from __future__ import annotations

import re

URL_PATTERN = r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]}]"
EMAIL_PATTERN = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"

_TRIGGER = re.compile(r"@|://|www\.", re.IGNORECASE)
_WWW_ANY_CASE = re.compile(r"www\.", re.IGNORECASE)  # the URL pattern's "www." is matched in any case
_NON_SPACE_RUN = re.compile(r"\S*")


def special_pattern(kinds) -> re.Pattern | None:
    """One compiled pattern with a named group per kind (``"url"``, ``"email"``) of ``kinds``, or None for none."""
    parts = [f"(?P<{k}>{URL_PATTERN if k == 'url' else EMAIL_PATTERN})" for k in kinds]
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def may_have_specials(text: str, lowercased: bool) -> bool:
    """Whether ``text`` may hold a URL or an e-mail address: it holds ``@``, ``://`` or ``www.`` in any case (a
    lower-cased text needs only the lower case)."""
    if "@" in text or "://" in text:
        return True
    return "www." in text if lowercased else _WWW_ANY_CASE.search(text) is not None


def iter_specials(text: str, special_re: re.Pattern, lowercased: bool):
    """Yield the matches of ``special_re`` (from :func:`special_pattern`) in ``text``, as
    ``special_re.finditer(text)`` would, searching only around the substrings a match must contain."""
    if lowercased:  # plain substring search is much faster than a regex scan
        hits = []
        for literal in ("@", "://", "www."):
            i = text.find(literal)
            while i >= 0:
                hits.append((i, i + len(literal)))
                i = text.find(literal, i + 1)
        hits.sort()
    else:
        hits = [m.span() for m in _TRIGGER.finditer(text)]
    last, rfind, finditer, run_end = 0, text.rfind, special_re.finditer, _NON_SPACE_RUN.match
    for hs, he in hits:
        if hs < last:
            continue
        # back to just after the last common blank (an earlier start is harmless)
        start = max(last, rfind(" ", last, hs) + 1, rfind("\n", last, hs) + 1,
                    rfind("\t", last, hs) + 1, rfind("\r", last, hs) + 1)
        end = run_end(text, he).end()
        yield from finditer(text, start, end)
        last = end
