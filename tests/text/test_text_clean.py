"""E-mail and Usenet cleaning (topicvb.text.clean) on constructed posts, against simple reference rules,
and on 20 Newsgroups against scikit-learn's ``remove=("headers", "footers", "quotes")``."""

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topicvb.text import Tokenizer, clean_text, strip_headers, strip_quotes, strip_signature
from topicvb.text.clean import _strip_last_block, _strip_marked_signature

HEADER = (
    "From: jdoe@physics.example.edu (Jane Doe)\n"
    "Subject: Re: Hubble mirror repair schedule\n"
    "Organization: Example University, Dept. of Physics\n"
    "Lines: 14\n"
    "NNTP-Posting-Host: phys7.example.edu\n\n"
)
BODY = (
    "The servicing mission is planned for December 1993. Astronauts will install\n"
    "corrective optics so the telescope focuses properly.\n\n"
    "After the repair the telescope should reach its design resolution, and the\n"
    "first images are expected early next year.\n"
)


def words(text):
    return Tokenizer(stop_words="english")(text)


# ---------------------------------------------------------------------------- quotes
@pytest.mark.parametrize("quoted", [
    "> When is the shuttle going up?\n>> Nested quote about shuttles.\n",
    "| an older quote about shuttles\n",
    ": quoted the TIN way about shuttles\n:\n:> and deeper shuttles\n",
    "In article <1993Apr20.101010.123@news.example.com> mkraft@example.com (Max Kraft) writes:\n",
    "Joel Hanes (jjh00@diag.example.com) wrote:\n",
    "Benedikt Rosenau writes, with great authority:\n",
    "Quoted from the shuttle FAQ\n",
    "Max said:\n",
])
def test_quotes_and_attributions_are_removed(quoted):
    post = HEADER + quoted + BODY
    cleaned = clean_text(post)
    assert words(cleaned) == words(BODY)
    assert "shuttle" not in cleaned and "Max" not in cleaned and "jjh00" not in cleaned


def test_a_post_quoting_with_wrote_only_is_cleaned():
    """No ">" and no "|" in the post: the attribution still goes (the old shortcut missed "wrote:")."""
    assert strip_quotes("Ann (ann@example.org) wrote:\nMy own words.\n") == "My own words.\n"


def test_lines_that_only_look_like_quotes_stay():
    text = "He said: the moon is made of rock.\n:-) no quote here\nShe wrote about writes: none\nSo it goes.\n"
    kept = strip_quotes(text)
    assert "moon is made of rock" in kept and ":-)" in kept and "So it goes" in kept
    assert "She wrote about writes: none" in kept  # does not end with ':'
    assert strip_quotes("She wrote about this:\nSo it goes.\n") == "So it goes.\n"  # ends with ":"


# ---------------------------------------------------------------------------- signatures
@pytest.mark.parametrize("signature", [
    "-- \nJane Doe, Example University        | \"Ad astra\"\njdoe@physics.example.edu\n",
    "--\nJane Doe\n",
    "----------\nJane Doe\nACME Corp\n",
    "\nJane Doe\njdoe@physics.example.edu\n",
    "\nJane Doe\nDepartment of Physics\nExample State\n",
    "\n   Jane\n",
    "\nThanks,\nJane\n",
    "\n+-----------------------+------------------+\n| Jane Doe              | phone 555-0100   |\n"
    "+-----------------------+------------------+\n",
    "\n============================\n  Jane Doe  |  Physics  |\n============================\n",
])
def test_signatures_are_removed(signature):
    post = HEADER + BODY + signature
    cleaned = clean_text(post)
    assert words(cleaned) == words(BODY), cleaned
    assert "Jane" not in cleaned


def test_a_last_paragraph_of_prose_stays():
    prose = "\nI think the schedule will slip again, as it did for every mission since the first one.\n"
    assert words(strip_signature(BODY + prose)) == words(BODY + prose)
    one_paragraph = "Jane Doe\njdoe@example.edu\n"  # nothing else: not a signature of anything
    assert strip_signature(one_paragraph) == one_paragraph
    long_tail = "Intro\n-----\n" + "\n".join(f"point {i}" for i in range(20))
    assert strip_signature(long_tail) == long_tail


# ---------------------------------------------------------------------------- headers
def test_headers_only_when_they_look_like_headers():
    assert strip_headers(HEADER + BODY) == BODY
    text = "Dear all: the meeting is at noon.\nSee you.\n\nBye."
    assert strip_headers(text) == text


# ---------------------------------------------------------------------------- against the reference rules
# the rules as straightforward regular expressions over the whole text (slower than topicvb's searches)
_REF_QUOTES = re.compile(
    r"(?m)^(?:[ \t]*[>|].*|[ \t]*:(?:[ \t>|:].*)?|[ \t]*(?:In article|Quoted from)\b.*"
    r"|.*\b(?:writes|wrote|says|said)\b.*:[ \t\r]*)(?:\n|\Z)")
_REF_SEPARATOR = re.compile(r"(?m)^--[ \t]?\r?$")
_REF_RULE = re.compile(r"^[ \t]*[-_=~*]{2,}[ \t\r]*$")


def _ref_marked_signature(text):
    last = None
    for last in _REF_SEPARATOR.finditer(text):
        pass
    if last is not None and sum(1 for line in text[last.end():].split("\n") if line.strip()) <= 20:
        return text[: last.start()]
    lines = text.rstrip().split("\n")
    for i in range(len(lines) - 1, max(0, len(lines) - 12) - 1, -1):
        if _REF_RULE.match(lines[i]):
            if 1 <= sum(1 for line in lines[i + 1:] if line.strip()) <= 8 and i > 0:
                return "\n".join(lines[:i]) + "\n"
            break
    return text


post_text = st.lists(
    st.sampled_from(["--", "-- ", "--\t", "-- x", "----", "====", "> q", ": q", ":-)", "| q", "In article <a@b>",
                     "x writes:", "Ann wrote: ", "said", "writes", "text line", "Jane Doe", "a@b.org", "", " ", "\r",
                     "Quoted from", "word: said:", "u\u00e9"]),
    max_size=40,
).map("\n".join)


@settings(max_examples=400, deadline=None)
@given(post_text)
def test_fast_rules_equal_reference_rules(text):
    assert strip_quotes(text).rstrip("\n") == _REF_QUOTES.sub("", text).rstrip("\n")
    assert _strip_marked_signature(text) == _ref_marked_signature(text)
    out = _strip_last_block(text)
    assert out == text or (text.startswith(out.rstrip()) and out.endswith("\n"))


# ---------------------------------------------------------------------------- 20 Newsgroups
def test_20newsgroups_same_effect_as_scikit_learn():
    """On 400 posts: the header fields, quotes and signatures that scikit-learn's remove= drops are dropped
    here too (header words almost all gone), and about as many words are left."""
    from sklearn.datasets._twenty_newsgroups import (
        strip_newsgroup_footer,
        strip_newsgroup_header,
        strip_newsgroup_quoting,
    )

    from test_text_vectorize import read_20ng

    posts = [post.decode("latin-1") for post in read_20ng(400, step=41)]
    tok = Tokenizer()
    raw, ours, theirs = Counter(), Counter(), Counter()
    for post in posts:
        raw.update(tok(post))
        ours.update(tok(clean_text(post)))
        theirs.update(tok(strip_newsgroup_quoting(strip_newsgroup_footer(strip_newsgroup_header(post)))))
    for field in ("subject", "organization", "lines", "nntp", "posting", "host", "writes", "article"):
        assert raw[field] > 50, field
        assert ours[field] <= max(0.2 * raw[field], 1.5 * theirs[field]), (field, raw[field], ours[field], theirs[field])
    assert 0.9 < sum(ours.values()) / sum(theirs.values()) < 1.15


def test_encoded_attachment_lines_are_dropped_and_prose_and_urls_kept():
    from topicvb.text import clean_text, strip_encoded

    uu = "M9FEX9&ES=\"!B:&H@9VEZ(&-H>B!B>&X@<FQK(&UA>\"!B:&H@9VEZ(&-H>B!B>&X@\n" * 3
    b64 = "TWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsuTWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsu\n"
    url = "see https://example.org/a/very/long/path/that/has/no/spaces/in/it/at/all.html\n"
    prose = "The drive works fine with the new controller card.\n"
    text = "begin 644 pic.gif\n" + uu + "end\n" + prose + b64 + url
    out = strip_encoded(text)
    assert "M9FEX" not in out and "TWFue" not in out
    assert prose in out and url in out and "begin 644 pic.gif" in out
    # part of the default e-mail cleaning, and can be switched off
    assert "M9FEX" not in clean_text(text)
    assert "M9FEX" in clean_text(text, encoded=False)
    # short texts and ordinary long words are untouched
    assert strip_encoded("short") == "short"
    assert strip_encoded(prose * 3) == prose * 3
