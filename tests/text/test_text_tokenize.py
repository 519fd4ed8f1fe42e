"""Tokenizer, cleaning and stop words."""

import logging
import pickle
import re
import sys
import unicodedata
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as SK_STOP_WORDS
from sklearn.feature_extraction.text import CountVectorizer

from topicvb.text import (
    ENGLISH_STOP_WORDS,
    Tokenizer,
    clean_text,
    decode_bytes,
    strip_headers,
    strip_quotes,
    strip_signature,
)
from topicvb.text._tokenize_counting import _ASCII_TABLE
from topicvb.text.tokenize import _FAST_DEFAULT_PATTERN, DEFAULT_TOKEN_PATTERN

POST = """\
From: jdoe@physics.example.edu (Jane Doe)
Subject: Re: Hubble mirror repair schedule
Organization: Example University, Dept. of Physics
Lines: 14
NNTP-Posting-Host: phys7.example.edu

In article <1993Apr20.101010.123@news.example.com> mkraft@example.com (Max Kraft) writes:
>When is the shuttle going up to fix the telescope mirror?
>I heard December.
| an older quote from someone else

The servicing mission is planned for December 1993. Astronauts will install
corrective optics so the telescope focuses properly.

-- 
Jane Doe, Example University        | "Ad astra"
jdoe@physics.example.edu
"""


#: the token rule of scikit-learn's pattern (and of topicvb before the letters-only default)
OLD_RULE = dict(alphabetic=False, min_length=2)


def raw_sklearn_tokens(text):
    return CountVectorizer(stop_words="english").build_analyzer()(text)


# ---------------------------------------------------------------------------- cleaning
def test_strip_headers_quotes_signature_on_usenet_post():
    body = clean_text(POST)
    assert "Subject" not in body and "Organization" not in body
    assert "shuttle" not in body and "older quote" not in body and "writes:" not in body
    assert "Ad astra" not in body and "jdoe" not in body
    assert "servicing mission is planned for December 1993" in body
    assert "corrective optics" in body


def test_clean_steps_are_independent():
    assert strip_headers(POST).startswith("In article")
    assert "Ad astra" in strip_headers(POST)
    assert "From: jdoe" in strip_quotes(POST) and ">When" not in strip_quotes(POST)
    no_sig = strip_signature(POST)
    assert "Ad astra" not in no_sig and "Subject:" in no_sig and ">When" in no_sig


def test_strip_headers_leaves_plain_text_alone():
    text = "Dear all: the meeting is at noon.\nSee you.\n\nBye."
    assert strip_headers(text) == text


def test_strip_signature_after_dash_rule():
    text = "Body line one.\nBody line two.\n----------\nJohn Smith\nACME Corp\n"
    assert strip_signature(text) == "Body line one.\nBody line two.\n"
    # a long block after a rule is content, not a signature
    long_tail = "Intro\n-----\n" + "\n".join(f"point {i}" for i in range(20))
    assert strip_signature(long_tail) == long_tail


def test_tokenizer_clean_email():
    tokens = Tokenizer(clean="email", stop_words="english")(POST)
    assert tokens == [
        "servicing", "mission", "planned", "december", "astronauts", "install",
        "corrective", "optics", "telescope", "focuses", "properly",
    ]


# ---------------------------------------------------------------------------- normalisation
def test_nfkc_folds_compatibility_characters():
    text = "ﬁnancial ＦＵＬＬ width ² Ⅻ"
    assert Tokenizer()(text) == ["financial", "full", "width", "xii"]
    assert Tokenizer(normalize=None)(text) == ["ﬁnancial", "ｆｕｌｌ", "width"]  # "ⅻ" is one character


@pytest.mark.parametrize(
    "mode, expected",
    [(None, ["café", "naïve", "straße", "łódź"]), ("unicode", ["cafe", "naive", "straße", "łodz"]),
     ("ascii", ["cafe", "naive", "strae", "odz"])],
)
def test_strip_accents(mode, expected):
    assert Tokenizer(strip_accents=mode)("Café naïve Straße Łódź") == expected


# ---------------------------------------------------------------------------- lower-casing to several code points
# Every letter whose Unicode lower-case is more than one code point (with Python's tables today, only
# U+0130, the dotted capital I of Turkish and Azerbaijani, which becomes "i" + U+0307 COMBINING DOT
# ABOVE). The list is computed, so a newer Unicode version that adds one is tested too.
MULTI_LOWER = [chr(cp) for cp in range(sys.maxunicode + 1) if len(chr(cp).lower()) > 1 and chr(cp).isalpha()]


def _is_mark(ch):
    return unicodedata.category(ch).startswith("M")


def test_the_multi_code_point_lower_case_letters_are_found():
    assert "\u0130" in MULTI_LOWER


@pytest.mark.parametrize("normalize", ["NFKC", "NFC", "NFKD", "NFD", None])
@pytest.mark.parametrize("strip_accents", [None, "unicode"])
def test_letters_that_lower_case_to_several_code_points_stay_in_their_word(normalize, strip_accents):
    tok = Tokenizer(normalize=normalize, strip_accents=strip_accents)
    for ch in MULTI_LOWER:
        for text in (f"{ch}abc", f"abc{ch}", f"ab{ch}cd", f"x {ch}{ch}abc y"):
            word = text.split()[-2] if " " in text else text
            tokens = tok(text)
            mine = [t for t in tokens if t not in ("x", "y")]
            assert len(mine) == 1, (hex(ord(ch)), text, tokens)
            token = mine[0]
            assert token and unicodedata.category(token[0]).startswith("L"), (hex(ord(ch)), token)
            assert "\u0307" not in token  # no combining dot above left over from lower-casing
            # the whole word: every letter of it is there, lower-cased (a mark may go, never a letter)
            assert [c for c in token if not _is_mark(c)] == \
                [c for c in unicodedata.normalize("NFD", word.lower()) if not _is_mark(c)]
            assert dict(tok.count(text)) == dict(Counter(tokens))


@pytest.mark.parametrize("normalize", ["NFKC", "NFC", "NFKD", "NFD", None])
def test_dotted_capital_i_lower_cases_to_plain_i(normalize):
    """"İstanbul", "ISTANBUL", "Istanbul" and Python's "İstanbul".lower() are one term, as in Turkish."""
    tok = Tokenizer(normalize=normalize)
    text = "İstanbul ISTANBUL Istanbul " + "İstanbul".lower() + " İZMİR DİYARBAKIR"
    assert tok(text) == ["istanbul"] * 4 + ["izmir", "diyarbakir"]
    assert tok("İstanbul") == ["istanbul"]
    assert Tokenizer(normalize=normalize, strip_accents="ascii")("İstanbul") == ["istanbul"]
    assert tok.count(text) == Counter({"istanbul": 4, "izmir": 1, "diyarbakir": 1})


def test_dotted_capital_i_in_a_vectorizer():
    from topicvb.text import Vectorizer

    vec = Vectorizer(min_df=1, max_df=1.0)
    X = vec.fit_transform(["İstanbul Ankara", "Istanbul İzmir"])
    assert list(vec.get_feature_names_out()) == ["ankara", "istanbul", "izmir"]
    assert X.toarray().tolist() == [[1, 1, 0], [0, 1, 1]]


def test_other_dots_above_are_kept():
    """Only a dot above an i goes: other letters with a dot above (ż, ȧ) keep it."""
    assert Tokenizer(min_length=2)("Żółw ȧb") == ["żółw", "ȧb"]
    assert Tokenizer()("Z\u0307o\u0301łw") == ["żółw"]  # NFKC composes them first


def test_lowercase_off_keeps_case_and_matches_stop_words_case_insensitively():
    assert Tokenizer(lowercase=False, stop_words="english")("The Cat and THE hat") == ["Cat", "hat"]


# ---------------------------------------------------------------------------- numbers, urls, emails
TEXT = "In 1993 see http://www.example.org/faq.html, mail me at ann.lee@cs.example.edu about x11 and 486dx."


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        (dict(), ["see", "mail", "about", "and"]),
        (dict(numbers="replace", urls="replace", emails="replace"),
         ["<num>", "see", "<url>", "mail", "<email>", "about", "and"]),
        (dict(numbers="keep", urls="keep", emails="keep"),
         ["1993", "see", "http", "www", "example", "org", "faq", "html", "mail", "ann", "lee", "example", "edu",
          "about", "and"]),
        (OLD_RULE, ["in", "see", "mail", "me", "at", "about", "x11", "and", "486dx"]),
        (dict(OLD_RULE, numbers="replace", urls="replace", emails="replace"),
         ["in", "<num>", "see", "<url>", "mail", "me", "at", "<email>", "about", "x11", "and", "486dx"]),
        (dict(OLD_RULE, numbers="keep", urls="keep", emails="keep"),
         ["in", "1993", "see", "http", "www", "example", "org", "faq", "html", "mail", "me", "at", "ann", "lee",
          "cs", "example", "edu", "about", "x11", "and", "486dx"]),
    ],
)
def test_numbers_urls_emails(kwargs, expected):
    assert Tokenizer(**kwargs)(TEXT) == expected
    assert Tokenizer(**kwargs).count(TEXT) == Counter(expected)


def test_numbers_with_underscores_and_mixed_tokens():
    tok = Tokenizer(numbers="replace", token_pattern=r"(?u)\b[\w.]+\b", min_length=1, alphabetic=False)
    assert tok("3.14 1_000 v2 a.b") == ["<num>", "<num>", "v2", "a.b"]
    # letters only: the numbers still follow ``numbers``, the rest goes
    tok = Tokenizer(numbers="replace", token_pattern=r"(?u)\b[\w.]+\b", min_length=1)
    assert tok("3.14 1_000 v2 a.b c") == ["<num>", "<num>", "c"]


# the binary junk of 20 Newsgroups posts (uuencoded and base64 attachments) that made two topics of
# "0d db cx _o w7 34u ah bh c_ mv" and "ax max g9v b8f a86" with the old rule
JUNK = "0d db cx _o w7 34u ah bh c_ mv ax max g9v b8f a86 __init__ x11 486dx"


def test_default_rule_keeps_words_of_three_letters_or_more():
    assert Tokenizer()(JUNK) == ["max"]
    assert Tokenizer().count(JUNK) == Counter(["max"])
    assert Tokenizer(**OLD_RULE)(JUNK) == JUNK.split()
    # numbers follow ``numbers`` under both rules
    assert Tokenizer(numbers="keep")("x11 in 1993 and 20") == ["1993", "and"]
    assert Tokenizer(numbers="replace")("x11 in 1993") == ["<num>"]
    assert Tokenizer(numbers="replace")("13 of 1993") == ["<num>", "<num>"]  # replaced whatever the length
    # letters with their combining marks are letters; lengths count code points
    assert Tokenizer()("हिन्दी देश की café naïve ab") == ["हिन्दी", "देश", "café", "naïve"]
    assert Tokenizer(normalize="NFD")("né") == ["ne\u0301"]  # decomposed: three code points


def test_batch_classification_equals_one_by_one():
    """``_map_types`` (set operations) gives every type the term ``_map_type`` gives it."""
    types = set(JUNK.split()) | {"the", "and", "ab", "abc", "Abc", "ABC", "1993", "3_000", "<url>", "<num>",
                                 "hí", "naïve", "देश", "x²", "ⅻ", "ǆ", "longwordhere"}
    for kwargs in (dict(), OLD_RULE, dict(stop_words="english"), dict(stop_words="english", lowercase=False),
                   dict(numbers="replace"), dict(numbers="keep"), dict(stemmer="porter"), dict(max_length=5),
                   dict(OLD_RULE, numbers="replace", stop_words=["abc"])):
        one, batch = Tokenizer(**kwargs), Tokenizer(**kwargs)
        c1, c2 = one._compile(), batch._compile()
        for t in types:
            Tokenizer._map_type(c1, t)
        Tokenizer._map_types(c2, set(types))
        assert c1.type_maps[0] == c2.type_maps[0], kwargs
        assert c1.type_maps[1:] == c2.type_maps[1:], kwargs


def test_length_limits():
    tok = Tokenizer(min_length=3, max_length=5)
    assert tok("an cat horse zebras") == ["cat", "horse"]
    assert Tokenizer(min_length=2)("an cat") == ["an", "cat"]


# ---------------------------------------------------------------------------- stop words and stemming
def test_english_stop_words_list():
    assert isinstance(ENGLISH_STOP_WORDS, frozenset) and len(ENGLISH_STOP_WORDS) > 200
    assert {"the", "and", "of", "don", "isn"} <= ENGLISH_STOP_WORDS
    assert all(w == w.lower() and w.strip() == w for w in ENGLISH_STOP_WORDS)
    assert not {"topic", "model", "space", "god"} & ENGLISH_STOP_WORDS


def test_custom_stop_words_before_stemming():
    # "running" is a stop word here, "runs" is not; stop words are matched before stemming
    tok = Tokenizer(stop_words=["Running"], stemmer="porter")
    assert tok("running runs RUNNING") == ["run"]


@pytest.mark.parametrize(
    "stemmer, expected",
    [("porter", ["gener", "caress", "poni", "relat"]), ("snowball", ["generous", "caress", "poni", "relat"])],
)
def test_stemmers(stemmer, expected):
    assert Tokenizer(stemmer=stemmer)("generously caresses ponies relational") == expected


def test_sklearn_equivalent_settings():
    tok = Tokenizer(stop_words=SK_STOP_WORDS, numbers="keep", urls="keep", emails="keep", normalize=None, **OLD_RULE)
    for text in [POST, TEXT, "ﬁne Café _x_ a1 __init__ 12 don't", ""]:
        assert tok(text) == raw_sklearn_tokens(text)
        assert tok.count(text) == Counter(raw_sklearn_tokens(text))


# ---------------------------------------------------------------------------- fast paths equal slow paths
word_text = st.text(
    alphabet=st.sampled_from(list("abcXYZ019_ -.,@/:\n'\"é²ﬁ\u0301Ⅻ")), max_size=80
)


@settings(max_examples=300, deadline=None)
@given(word_text)
def test_fast_default_pattern_matches_default(text):
    assert re.findall(_FAST_DEFAULT_PATTERN, text) == re.findall(DEFAULT_TOKEN_PATTERN, text)
    if text.isascii():
        runs = [t for t in text.translate(_ASCII_TABLE).split() if len(t) > 1]
        assert runs == re.findall(DEFAULT_TOKEN_PATTERN, text)


@settings(max_examples=150, deadline=None)
@given(word_text)
def test_count_equals_counter_of_tokens(text):
    for tok in (
        Tokenizer(stop_words="english"),
        Tokenizer(numbers="replace", urls="replace", emails="replace", stemmer="porter"),
        Tokenizer(lowercase=False, min_length=3, numbers="keep"),
        Tokenizer(stop_words="english", **OLD_RULE),
        Tokenizer(numbers="replace", **OLD_RULE),
    ):
        assert dict(tok.count(text)) == dict(Counter(tok(text)))
        terms, ids, lengths = tok._encode_chunk([text, text.upper(), ""])
        assert lengths.tolist() == [len(tok(text)), len(tok(text.upper())), 0]
        assert [terms[i] for i in ids.tolist()] == tok(text) + tok(text.upper())


@pytest.mark.parametrize("text", ["00:0@0.0", "see http://x.org/a b ab@cd.ef and www.x.com end"])
def test_the_vectorizer_path_keeps_placeholders_in_text_order(text):
    """A placeholder sits where its URL / e-mail address was, as in ``tokenize`` (the chunk encoder put
    them before the document's words; hypothesis found "00:0@0.0": ['<email>', '<num>'])."""
    tok = Tokenizer(numbers="replace", urls="replace", emails="replace")
    terms, ids, lengths = tok._encode_chunk([text])
    assert [terms[i] for i in ids.tolist()] == tok(text) and lengths.tolist() == [len(tok(text))]


special_text = st.lists(
    st.sampled_from(["a", "bc", "x.y", "@", "://", "www.", "http", "ftp", "ab@cd.ef", " ", "\n", "-", "_", "é", ">"]),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(special_text)
def test_special_search_equals_full_scan(text):
    tok = Tokenizer(urls="replace", emails="drop")
    c = tok._compile()
    assert [m.span() for m in tok._iter_specials(text, c)] == [m.span() for m in c.special_re.finditer(text)]
    assert dict(tok.count(text)) == dict(Counter(tok(text)))


def test_cost_per_document_does_not_grow_with_the_type_cache():
    """New types are found by looking the document's types up in the cache, not by a set difference
    with the cache's keys (which iterates the whole cache for every document)."""
    import time

    tok = Tokenizer(stop_words="english")
    c = tok._compile()
    c.type_maps[0].update((f"filler{i}", f"filler{i}") for i in range(400_000))
    started = time.perf_counter()
    for i in range(200):
        assert tok.count(f"topic models of text {i}") == {"topic": 1, "models": 1, "text": 1}
        tok._encode_chunk(["topic models of text"])
    assert time.perf_counter() - started < 1.0


# ---------------------------------------------------------------------------- bytes, pickling, params
def test_decode_bytes_replaces_and_logs(caplog):
    with caplog.at_level(logging.DEBUG, logger="topicvb.text.tokenize"):
        assert decode_bytes(b"caf\xe9 ok \xff\xfe") == "caf\ufffd ok \ufffd\ufffd"
    assert "Replaced 3 undecodable" in caplog.text
    assert decode_bytes("naïve \ufffd".encode()) == "naïve \ufffd"
    assert Tokenizer()(b"caf\xe9 latte") == ["caf", "latte"]
    assert Tokenizer(encoding="latin-1")(b"caf\xe9 latte") == ["café", "latte"]


def test_pickle_clone_and_set_params():
    tok = Tokenizer(stop_words="english", stemmer="snowball")
    assert tok("Running quickly") == ["run", "quick"]
    tok2 = pickle.loads(pickle.dumps(tok))
    assert tok2("Running quickly") == ["run", "quick"]
    assert "_compiled" not in tok2.__dict__ or tok2._compiled is not None
    tok3 = clone(tok).set_params(stemmer=None)
    assert tok3("Running quickly") == ["running", "quickly"]
    tok.stemmer = None  # direct assignment also takes effect
    assert tok("Running quickly") == ["running", "quickly"]


def test_a_tokenizer_pickled_before_alphabetic_keeps_its_rule():
    old = Tokenizer(min_length=2)
    del old.__dict__["alphabetic"]  # what an earlier version pickled
    restored = pickle.loads(pickle.dumps(old))
    assert restored.alphabetic is False and restored("x11 on 486dx") == ["x11", "on", "486dx"]
    assert pickle.loads(pickle.dumps(Tokenizer()))("x11 on 486dx") == []


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(numbers="remove"), ValueError, r"numbers must be one of \{'drop', 'keep', 'replace'\}, got 'remove'\."),
        (dict(stemmer="lancaster"), ValueError, r"stemmer must be one of .*got 'lancaster'\."),
        (dict(stop_words="french"), ValueError, r"stop_words must be one of \{'english'\}, got 'french'\."),
        (dict(stop_words=["a", 1]), TypeError, r"stop_words must contain only str, got 1\."),
        (dict(token_pattern=r"(a)(b)"), ValueError, r"token_pattern must have at most one capturing group"),
        (dict(token_pattern=r"(unclosed"), ValueError, r"token_pattern is not a valid regular expression"),
        (dict(min_length=-1), ValueError, r"min_length must be >= 0, got -1\."),
        (dict(min_length=4, max_length=3), ValueError, r"max_length must be >= min_length"),
        (dict(alphabetic="yes"), ValueError, r"alphabetic must be one of \{False, True\}, got 'yes'\."),
        (dict(clean="html"), ValueError, r"clean must be one of"),
        (dict(encoding="no-such-codec"), ValueError, r"encoding must be a known codec name"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        Tokenizer(**kwargs)("some text")


def test_bad_document_type():
    with pytest.raises(TypeError, match=r"Tokenizer expects a str or bytes document, got int\."):
        Tokenizer()(42)
