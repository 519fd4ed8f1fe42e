"""Remove the parts of Usenet and e-mail posts that are not the author's text.

Three independent steps, each a plain ``str -> str`` function:

* :func:`strip_headers` drops the header block (``From: ...``, ``Subject: ...``) that runs up to the
  first blank line;
* :func:`strip_quotes` drops quoted reply lines (starting with ``>`` or ``|``) and attribution lines
  (``In article <...> ... writes:``, ``... wrote:``);
* :func:`strip_signature` drops a trailing signature block, after the standard ``"-- "`` separator
  line or after a short final block introduced by a line of dashes.

:func:`clean_text` applies any combination of them. They use only regular expressions on the
whole text, so they cost little next to tokenising.
"""

from __future__ import annotations

import re

__all__ = ["clean_text", "strip_headers", "strip_quotes", "strip_signature"]

# a blank line: the end of a mail/news header block
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")
# "Key: value" (RFC 822 field name: printable ASCII without ':' or spaces) and folded continuations
_HEADER_LINE = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*:(?:[ \t]|\r?$)")
_CONTINUATION_LINE = re.compile(r"^[ \t]+\S")
# quoted lines, "In article <...>" lines and "... writes:" / "... wrote:" attribution lines
_QUOTE_LINES = re.compile(
    r"(?m)^(?:[ \t]*[>|].*|[ \t]*In article\b.*|.*\b(?:writes|wrote)[ \t]*:[ \t\r]*)(?:\n|\Z)"
)
# the standard signature separator "-- " (also accepted without the space)
_SIG_SEPARATOR = re.compile(r"(?m)^--[ \t]?\r?$")
# a line made only of dashes, underscores, equals signs, tildes or stars
_RULE_LINE = re.compile(r"^[ \t]*[-_=~*]{2,}[ \t\r]*$")

_MAX_SIGNATURE_LINES = 20  # after a "-- " separator
_MAX_TRAILER_LINES = 8  # after a plain rule line near the end
_TRAILER_SEARCH_LINES = 12  # how far from the end a plain rule line may be


def strip_headers(text: str) -> str:
    """Drop a leading mail or news header block.

    The block is the text up to the first blank line. It is dropped only when its first line looks
    like a header (``Key: value``) or a folded continuation (then at least two fields must follow)
    and most of its lines are fields or continuations, so a post without headers is returned
    unchanged.

    Parameters
    ----------
    text : str
        One post.

    Returns
    -------
    str
        The post without its header block.
    """
    m = _BLANK_LINE.search(text)
    block, rest = (text[: m.start()], text[m.end():]) if m else (text, "")
    lines = block.lstrip("\r\n").split("\n")
    # the first line may be the tail of a folded field (archives sometimes cut a long Path: line)
    if not lines or not (_HEADER_LINE.match(lines[0]) or _CONTINUATION_LINE.match(lines[0])):
        return text
    n_fields = sum(1 for line in lines if _HEADER_LINE.match(line))
    n_folded = sum(1 for line in lines if _CONTINUATION_LINE.match(line))
    if n_fields == 0 or (not _HEADER_LINE.match(lines[0]) and n_fields < 2) or 2 * (n_fields + n_folded) < len(lines):
        return text
    return rest


def strip_quotes(text: str) -> str:
    """Drop quoted reply lines and attribution lines.

    Removed lines start (after optional blanks) with ``>`` or ``|``, start with ``In article``, or
    end with ``writes:`` / ``wrote:``.

    Parameters
    ----------
    text : str
        One post.

    Returns
    -------
    str
        The post without quoted material.
    """
    if ">" not in text and "|" not in text and "writ" not in text and "In article" not in text:
        return text
    return _QUOTE_LINES.sub("", text)


def strip_signature(text: str) -> str:
    """Drop a trailing signature block.

    The block starts at the last ``"-- "`` separator line when at most 20 non-blank lines follow
    it; otherwise at a line of dashes (or ``_ = ~ *``) among the last 12 lines that is followed by
    a short block (1 to 8 non-blank lines).

    Parameters
    ----------
    text : str
        One post.

    Returns
    -------
    str
        The post without its signature.
    """
    last = None
    for last in _SIG_SEPARATOR.finditer(text):
        pass
    if last is not None:
        tail = text[last.end():]
        if sum(1 for line in tail.split("\n") if line.strip()) <= _MAX_SIGNATURE_LINES:
            return text[: last.start()]
    lines = text.rstrip().split("\n")
    stop = max(0, len(lines) - _TRAILER_SEARCH_LINES)
    for i in range(len(lines) - 1, stop - 1, -1):
        if _RULE_LINE.match(lines[i]):
            n_after = sum(1 for line in lines[i + 1:] if line.strip())
            if 1 <= n_after <= _MAX_TRAILER_LINES and i > 0:
                return "\n".join(lines[:i]) + "\n"
            break
    return text


def clean_text(text: str, *, headers: bool = True, quotes: bool = True, signature: bool = True) -> str:
    """Remove headers, quoted replies and the signature from a Usenet or e-mail post.

    Parameters
    ----------
    text : str
        One post.
    headers : bool, default=True
        Drop the header block (see :func:`strip_headers`).
    quotes : bool, default=True
        Drop quoted lines and attributions (see :func:`strip_quotes`).
    signature : bool, default=True
        Drop the signature block (see :func:`strip_signature`).

    Returns
    -------
    str
        The cleaned post.

    Examples
    --------
    >>> post = "From: ann@example.org\\nSubject: Re: orbits\\n\\n> old text\\nNew text.\\n-- \\nAnn\\n"
    >>> clean_text(post)
    'New text.\\n'
    """
    if headers:
        text = strip_headers(text)
    if signature:  # before quotes, so a quoted signature separator cannot hide the real one
        text = strip_signature(text)
    if quotes:
        text = strip_quotes(text)
    return text
