"""Remove the parts of Usenet and e-mail posts that are not the author's text.

Three independent steps, each a plain ``str -> str`` function:

* :func:`strip_headers` drops the header block (``From: ...``, ``Subject: ...``) that runs up to the
  first blank line, when it looks like one (fields, one of them a mail or news header);
* :func:`strip_quotes` drops quoted reply lines (starting with ``>``, ``|`` or the ``": "`` of some
  newsreaders) and attribution lines (``In article <...> ... writes:``, ``... wrote:``);
* :func:`strip_signature` drops a trailing signature block: after the standard ``"-- "`` separator
  line, after a line of dashes near the end, or a short last paragraph that reads like one (a name,
  an address, an affiliation, a box of ``|`` and ``=``);
* :func:`strip_encoded` drops the lines of encoded attachments (uuencode, base64, binhex): lines of 40
  or more characters without a space (and not a URL). Their letter runs ("bhj", "giz", "chz") would
  otherwise become terms, and a topic of them.

:func:`clean_text` applies any combination of them. Together they remove what scikit-learn's
``fetch_20newsgroups(remove=("headers", "footers", "quotes"))`` removes, with narrower rules:
scikit-learn drops the header block without checking that it is one, every line that contains
``"said:"`` or ``"writes:"``, and the whole last paragraph of every post; here the header block must
look like one, an attribution must end its line, and the last paragraph goes only when it looks
like a signature (but the quotes of the TIN newsreader, ``": "``, go too). On the 11,314 training
posts of 20 Newsgroups that leaves as many words (956,118 against scikit-learn's 954,816 with the
default Tokenizer and English stop words) and fewer empty posts (131 against 326). They use only
regular expressions and string searches, so they cost little next to tokenising (0.28 s against
scikit-learn's 0.38 s for those posts).
"""

from __future__ import annotations

import re

__all__ = ["clean_text", "strip_encoded", "strip_headers", "strip_quotes", "strip_signature"]

# a line break: "\n", "\r\n" or a lone "\r" (old Macintosh mail)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# a blank line, with any of those line breaks: the end of a mail/news header block ("\r(?!\n)": the "\r" of a
# "\r\n" is not a line break of its own, so "a\r\nb" holds no blank line); in a text without "\r" the pattern
# that starts with a literal "\n" finds the same, several times faster
_BLANK_LINE = re.compile(r"(?:\r\n|\r(?!\n)|\n)[ \t]*(?:\r\n|\r|\n)")
_BLANK_LINE_LF = re.compile(r"\n[ \t]*\n")
# "Key: value" (RFC 822 field name: printable ASCII without ':' or spaces) and folded continuations
_HEADER_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9_.-]*):(?:[ \t]|$)")
_CONTINUATION_LINE = re.compile(r"^[ \t]+\S")
# the field names of mail and news headers (RFC 5322, 5536, 2045 and the common extensions), lower-cased: a
# block of "Key: value" lines is a header block only when it names one of them ("Update: ...", "Re: ...",
# "Note: ... / Time: ..." are prose); names starting with one of _HEADER_PREFIXES count too
_HEADER_NAMES = frozenset({
    "from", "sender", "reply-to", "to", "cc", "bcc", "subject", "date", "message-id", "in-reply-to",
    "references", "keywords", "comments", "received", "return-path", "delivered-to", "envelope-to",
    "organization", "organisation", "lines", "newsgroups", "path", "followup-to", "distribution", "summary",
    "expires", "approved", "xref", "article-i.d.", "supersedes", "control", "nntp-posting-host",
    "nntp-posting-date", "originator", "mime-version", "content-type", "content-transfer-encoding",
    "content-disposition", "thread-topic", "thread-index", "importance", "priority", "user-agent", "status",
    "precedence", "errors-to", "mail-followup-to", "disposition-notification-to", "archive-name",
    "last-modified", "version", "posting-frequency",
    # the header names of German and Spanish mail programs (forwarded messages)
    "von", "gesendet", "an", "betreff", "de", "enviado", "para", "asunto",
})
# a block of one field is a header when its name is one of these and a blank line follows ("Subject: ...", "From:
# ...": names that open prose as rarely as "Summary:" or "Date:" open it often)
_SINGLE_FIELD_NAMES = frozenset({"from", "subject", "newsgroups", "message-id", "path", "xref", "received",
                                 "return-path", "betreff", "asunto"})
_HEADER_PREFIXES = ("x-", "content-", "list-", "resent-", "nntp-", "original-", "arc-", "dkim-", "authentication-")
_MIN_FIELDS = 2  # a header block has at least two fields
# a newline and a quoted line: "> ...", "| ...", ": ..." as the TIN newsreader writes it (not ":-)"),
# "In article <...>", "Quoted from"; starting with a literal newline makes the search fast
_QUOTE_LINE = re.compile(r"\n[ \t]*(?:[>|]|:(?:[ \t>|:]|(?=\n)|\Z)|In article\b|Quoted from\b)[^\n]*")
# attribution lines: "... writes:", "... wrote:", "X writes, with great authority:", "... said:"
_ATTRIBUTION_WORDS = ("writes", "wrote", "says", "said")
_ATTRIBUTION_WORD = re.compile(r"\b(?:writes|wrote|says|said)\b")
# the standard signature separator "-- " (also accepted without the space)
_SIG_SEPARATOR_LINES = frozenset({"--", "-- ", "--\t", "--\r", "-- \r", "--\t\r"})
# a line made only of dashes, underscores, equals signs, tildes or stars
_RULE_LINE = re.compile(r"^[ \t]*[-_=~*]{2,}[ \t\r]*$")

# what a signature holds and prose rarely does: an address, a phone number, an affiliation
_SIGNATURE_HINT = re.compile(
    r"@|https?://|\bwww\.|\b(?:phone|tel|fax|e-?mail|voice)\b|\(\d{3}\)\s*\d{3}|\b\d{3}[-.]\d{3,4}[-.]\d{4}\b"
    r"|\b(?:univ(?:ersity|\.)|dept\b|department|institute|college|laborator(?:y|ies)|inc\b|corp\b|ltd\b)",
    re.IGNORECASE,
)

_MAX_SIGNATURE_LINES = 20  # after a "-- " separator
_MAX_TRAILER_LINES = 8  # after a plain rule line near the end
_TRAILER_SEARCH_LINES = 12  # how far from the end a plain rule line may be
_MAX_LAST_BLOCK_LINES = 6  # a last paragraph that may be a signature without a separator
_MAX_NAME_LINES, _MAX_NAME_WORDS = 3, 4  # a last paragraph of a name or a sign-off


def strip_headers(text: str) -> str:
    """Drop a leading mail or news header block.

    The block is the text up to the first blank line (lines may end with ``"\\n"``, ``"\\r\\n"`` or a
    lone ``"\\r"``). It is dropped only when it looks like mail or news headers: its first line is a
    field (``Key: value``) or a folded continuation, it holds at least two fields, one of them with
    the name of a mail or news header (``From``, ``Subject``, ``Newsgroups``, ``X-...``; also the
    German and Spanish ``Von``, ``Betreff``, ``De``, ``Asunto``, ...), and most of its lines are fields
    or continuations; or it is one ``From``, ``Subject``, ``Newsgroups`` (or ``Message-ID``,
    ``Path``, ``Xref``, ``Received``, ``Return-Path``, ``Betreff``, ``Asunto``) field alone before a
    blank line. So a post without headers is returned unchanged, text that merely starts with
    ``"Word: ..."`` included (``"Update: the battery died."``, ``"Re: orbits"``).
    A text without a blank line is dropped only when every one of its lines belongs to such a block
    (a post of headers alone): a first line of prose keeps the whole text, its body included.

    Parameters
    ----------
    text : str
        One post.

    Returns
    -------
    str
        The post without its header block.
    """
    has_cr = "\r" in text
    m = (_BLANK_LINE if has_cr else _BLANK_LINE_LF).search(text)
    block, rest = (text[: m.start()], text[m.end():]) if m else (text, "")
    block = block.lstrip("\r\n")
    lines = _LINE_BREAK.split(block) if has_cr else block.split("\n")
    if not m:  # the whole text: every line must be a field or a continuation (a final line break aside)
        if lines and not lines[-1]:
            lines.pop()
    # the first line may be the tail of a folded field (archives sometimes cut a long Path: line)
    if not lines or not (_HEADER_LINE.match(lines[0]) or _CONTINUATION_LINE.match(lines[0])):
        return text
    fields = list(filter(None, map(_HEADER_LINE.match, lines)))
    n_other = len(lines) - len(fields)  # lines that are not fields, nor (below) continuations
    if n_other:
        n_other -= sum(1 for line in lines if _CONTINUATION_LINE.match(line))
    if len(fields) < _MIN_FIELDS:  # one field: a header only alone before a blank line, and with a telling name
        single = m is not None and len(fields) == 1 and n_other == 0
        return rest if single and fields[0].group(1).lower() in _SINGLE_FIELD_NAMES else text
    if 2 * n_other > len(lines) if m else n_other > 0:
        return text
    for f in fields:
        name = f.group(1).lower()
        if name in _HEADER_NAMES or name.startswith(_HEADER_PREFIXES):
            return rest
    return text


def strip_quotes(text: str) -> str:
    """Drop quoted reply lines and attribution lines.

    Removed lines start (after optional blanks) with ``>`` or ``|``, with ``:`` followed by a blank,
    ``>``, ``|`` or ``:`` (the quotes of the TIN newsreader; ``":-)"`` stays), with ``In article`` or
    ``Quoted from``, or hold ``writes``, ``wrote``, ``says`` or ``said`` and end with ``:``.

    Parameters
    ----------
    text : str
        One post.

    Returns
    -------
    str
        The post without quoted material.
    """
    text = _QUOTE_LINE.sub("", "\n" + text)[1:]
    cuts = []  # (start, end) of attribution lines
    for word in _ATTRIBUTION_WORDS:
        i = text.find(word)
        while i >= 0:
            start = text.rfind("\n", 0, i) + 1
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            if text[start:end].rstrip(" \t\r").endswith(":") and _ATTRIBUTION_WORD.search(text, start, end):
                cuts.append((start, end + 1))
            i = text.find(word, end)
    if not cuts:
        return text
    cuts.sort()
    pieces, pos = [], 0
    for start, end in cuts:
        if start >= pos:
            pieces.append(text[pos:start])
            pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def strip_signature(text: str) -> str:
    """Drop a trailing signature block.

    The block starts at the last ``"-- "`` separator line when at most 20 non-blank lines follow
    it; otherwise at a line of dashes (or ``_ = ~ *``) among the last 12 lines that is followed by
    a short block (1 to 8 non-blank lines). Then, when the post has more than one paragraph, its
    last paragraph goes too if it reads like a signature: at most 6 non-blank lines holding an
    e-mail address, a URL, a phone number, an affiliation (university, department, institute,
    college, laboratory, inc, corp, ltd) or a line of dashes, or at most 3 lines of at most 4
    words each (a name, a sign-off such as ``"Thanks, Ann"``).

    Parameters
    ----------
    text : str
        One post.

    Returns
    -------
    str
        The post without its signature.
    """
    return _strip_last_block(_strip_marked_signature(text))


def _line_at(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def _last_separator(text: str) -> int:
    """Start of the last ``"-- "`` separator line of ``text``, or -1 (searched from the end)."""
    j = len(text)
    while True:
        j = text.rfind("\n--", 0, j)
        if j < 0:
            return 0 if text.startswith("--") and _line_at(text, 0) in _SIG_SEPARATOR_LINES else -1
        if _line_at(text, j + 1) in _SIG_SEPARATOR_LINES:
            return j + 1


def _tail_lines(text: str, n: int) -> tuple[list[str], int]:
    """The last ``n`` lines of ``text`` (fewer if it has fewer) and the offset of the first of them."""
    lines, end = [], len(text)
    for _ in range(n):
        start = text.rfind("\n", 0, end) + 1
        lines.append(text[start:end])
        if start == 0:
            return lines[::-1], 0
        end = start - 1
    return lines[::-1], end + 1


def _strip_marked_signature(text: str) -> str:
    """Drop the block after a ``"-- "`` separator or a rule line near the end."""
    sep = _last_separator(text)
    if sep >= 0:
        tail_start = text.find("\n", sep)
        tail = "" if tail_start < 0 else text[tail_start + 1:]
        if sum(1 for line in tail.split("\n") if line.strip()) <= _MAX_SIGNATURE_LINES:
            return text[:sep]
    body = text.rstrip()
    lines, offset = _tail_lines(body, _TRAILER_SEARCH_LINES + 1)
    first = 1 if offset > 0 or len(lines) > _TRAILER_SEARCH_LINES else 0  # the lines that may be rules
    for i in range(len(lines) - 1, first - 1, -1):
        if _RULE_LINE.match(lines[i]):
            n_after = sum(1 for line in lines[i + 1:] if line.strip())
            if 1 <= n_after <= _MAX_TRAILER_LINES and (i > 0 or offset > 0):
                start = offset + sum(len(line) + 1 for line in lines[:i])
                return body[:start - 1] + "\n"
            break
    return text


def _strip_last_block(text: str) -> str:
    """Drop the last paragraph when it reads like a signature and another paragraph precedes it."""
    body = text.rstrip()
    lines, offset = _tail_lines(body, _MAX_LAST_BLOCK_LINES + 1)
    blank = next((i for i in range(len(lines) - 1, -1, -1) if not lines[i].strip()), None)
    if blank is None:  # no blank line among the last lines: one paragraph, or a long last one
        return text
    start = offset + sum(len(line) + 1 for line in lines[:blank])  # the blank line
    head = body[:start].rstrip()
    if not head:
        return text
    block = [line for line in lines[blank + 1:] if line.strip()]
    if (_SIGNATURE_HINT.search(body, start) or any(_RULE_LINE.match(line) for line in block)
            or (len(block) <= _MAX_NAME_LINES and all(len(line.split()) <= _MAX_NAME_WORDS for line in block))):
        return head + "\n"
    return text


# a line of an encoded attachment: 40 or more printable characters and no white space
_ENCODED_LINE = re.compile(r"^[ \t]*[!-~]{40,}[ \t\r]*$\n?", re.MULTILINE)


def strip_encoded(text: str) -> str:
    """Drop the lines of encoded attachments (uuencode, base64, binhex, hex dumps): lines of 40 or more
    printable ASCII characters without white space, unless they hold a URL (``://``)."""
    if len(text) < 40:
        return text
    return _ENCODED_LINE.sub(lambda m: m.group(0) if "://" in m.group(0) else "", text)


def clean_text(text: str, *, headers: bool = True, quotes: bool = True, signature: bool = True,
               encoded: bool = True) -> str:
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
    encoded : bool, default=True
        Drop the lines of encoded attachments (see :func:`strip_encoded`).

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
    if encoded:
        text = strip_encoded(text)
    return text
