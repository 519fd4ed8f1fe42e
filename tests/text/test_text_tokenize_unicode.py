"""The default token pattern and combining marks, enumerated from Python's Unicode tables.

A combining mark (categories Mn, Mc, Me) is not a word character for ``re``, so scikit-learn's
``\\b\\w\\w+\\b`` cuts a word at each one: decomposed accents (NFD, NFKD, or text written that way),
the vowel signs and viramas of the Indic and South-East Asian scripts, Hebrew points, Arabic
harakat. The Tokenizer keeps a mark in the word it follows. Every case below is computed from
``unicodedata``, not picked by hand, so a newer Unicode version is tested as well.
"""

import re
import sys
import unicodedata
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topicvb.text import Tokenizer, Vectorizer
from topicvb.text._unicode import (JOINERS, _combining_marks, _drop_loose_format_characters, _lower,
                                   _marked_word_pattern)
from topicvb.text.tokenize import DEFAULT_TOKEN_PATTERN

FORMS = ["NFKC", "NFC", "NFKD", "NFD", None]
#: the default pattern's own rule (runs of two or more word characters, marks carried along), without the
#: default filters on top of it (three characters or more, letters only), which have tests of their own
PATTERN_RULE = dict(min_length=2, alphabetic=False)
ALL = [chr(cp) for cp in range(sys.maxunicode + 1)]
MARKS = [ch for ch in ALL if unicodedata.category(ch).startswith("M")]
WORD = re.compile(r"\w")


def _is_mark(ch):
    return unicodedata.category(ch).startswith("M")


def _carried(ch):
    """Whether the default pattern carries ``ch`` along in a word as a mark: a combining mark, or a joiner
    written inside words (ZERO WIDTH NON-JOINER and JOINER, WORD JOINER)."""
    return _is_mark(ch) or ch in JOINERS


def _letters(text):
    """The characters of ``text`` that are not combining marks or joiners."""
    return [c for c in text if not _carried(c)]


def _reference_tokens(text):
    """The default pattern's tokens with marks carried along, found another way: split the text at every
    character that is neither a word character nor a mark, drop the marks that start a piece, keep the
    pieces with two word characters."""
    pieces, piece = [], ""
    for ch in text + " ":
        if WORD.match(ch) or (_carried(ch) and piece):
            piece += ch
        elif not _carried(ch):
            pieces.append(piece)
            piece = ""
    return [p for p in pieces if sum(bool(WORD.match(ch)) for ch in p) >= 2]


def _expected_token(word, form):
    """What the Tokenizer should make of one word: normalised, lower-cased, marks kept."""
    if form is not None:
        word = unicodedata.normalize(form, word)
    return _lower(word)


def test_mark_class_holds_every_combining_mark_and_nothing_else():
    marks = re.compile(f"[{_combining_marks()}]")
    assert len(MARKS) > 2000
    assert [ch for ch in ALL if bool(marks.fullmatch(ch)) != _is_mark(ch)] == []
    assert not any(WORD.match(ch) for ch in MARKS)  # why they need a class of their own


@pytest.mark.parametrize("form", FORMS)
def test_every_combining_mark_stays_inside_its_word(form):
    """"ab" + mark + "cd" is one token for each of the ~2,400 marks, under every normalisation form."""
    tok = Tokenizer(normalize=form, **PATTERN_RULE)
    words = [f"ab{m}cd" for m in MARKS]
    text = " ".join(words)
    expected = [_expected_token(w, form) for w in words]
    # NFKC/NFKD turn a few marks into something else; the word must still be one token of its letters
    assert all(re.fullmatch(r"ab\W*cd", _lower(unicodedata.normalize("NFD", e))) for e in expected)
    assert tok(text) == expected
    assert tok.count(text) == Counter(expected)


@pytest.mark.parametrize("form", FORMS)
def test_marks_after_a_word_belong_to_it_and_marks_before_it_do_not(form):
    tok = Tokenizer(normalize=form, **PATTERN_RULE)
    for m in MARKS[::7]:
        assert tok(f"ab{m}") == [_expected_token(f"ab{m}", form)], hex(ord(m))
        assert tok(f"{m}ab") == tok("ab") == ["ab"], hex(ord(m))  # a mark after a space marks nothing


# every letter that decomposes (canonically or for compatibility) into letters and marks (accented
# Latin, Greek, Cyrillic, Indic nukta forms, ...) or whose lower-case is several code points (U+0130)
DECOMPOSING = [ch for ch in ALL if ch.isalpha() and (any(_is_mark(c) for c in unicodedata.normalize("NFKD", ch))
                                                      or len(ch.lower()) > 1)]


def test_the_decomposing_letters_are_found():
    assert {"\u00e9", "\u0130", "\u1ec7", "\u0929", "\u01c4"} <= set(DECOMPOSING) and len(DECOMPOSING) > 900


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("strip_accents", [None, "unicode"])
def test_letters_with_marks_keep_their_word_whole_in_every_form(form, strip_accents):
    """Precomposed or decomposed, at the start, inside or at the end of a word: one token holding every
    letter of the word (lower-cased); precomposed "é" and decomposed "e\\u0301" are one term under the
    composed forms, NFKC (the default) and NFC."""
    tok = Tokenizer(normalize=form, strip_accents=strip_accents, **PATTERN_RULE)
    c = tok._compile()
    # NFKC, NFKD and strip_accents="unicode" apply the compatibility decomposition (NFKD) somewhere
    compat = form in ("NFKC", "NFKD") or strip_accents == "unicode"
    odd = set()
    for ch in DECOMPOSING:
        decomposed = unicodedata.normalize("NFD", ch)
        for word in (f"{ch}xy", f"xy{ch}", f"x{ch}y", f"xy{decomposed}", f"{decomposed}{decomposed}x"):
            tokens = tok(word)
            prepared = tok._prepare(word, c)  # normalised, lower-cased, accents stripped if asked
            assert tokens == _reference_tokens(prepared), (word, tokens)
            if compat:
                kd = unicodedata.normalize("NFKD", ch)
                if " " in kd or _is_mark(kd[0]):
                    # spacing forms of marks (U+037A GREEK YPOGEGRAMMENI, Arabic presentation forms,
                    # half-width katakana sound marks) become a space + mark or a bare mark, and
                    # U+0E33 THAI SARA AM a mark + letter: the compatibility decomposition itself
                    # cuts the word or leaves a mark at its start, as the decomposed text would
                    odd.add(ch)
                    continue
            assert len(tokens) == 1, (word, tokens)
            want = _letters(unicodedata.normalize("NFKD" if compat else "NFD",
                                                  _lower(unicodedata.normalize(form, word) if form else word)))
            assert _letters(unicodedata.normalize("NFD", tokens[0])) == want, (word, tokens)
            if strip_accents is None and form in ("NFC", "NFKC"):
                assert tokens[0] == prepared
    assert len(odd) < 50  # a few dozen compatibility characters at most
    if form in ("NFC", "NFKC"):  # one term for both spellings
        for ch in DECOMPOSING:
            assert tok(f"xy{ch}") == tok(f"xy{unicodedata.normalize('NFD', ch)}")


@pytest.mark.parametrize("form", FORMS)
def test_one_letter_and_its_marks_is_not_a_token(form):
    """As the default pattern drops one-character words, a single letter with its accent is dropped in
    every form (it is one character in NFC), except where NFKC makes two letters of it ("ǆ")."""
    tok = Tokenizer(normalize=form, **PATTERN_RULE)
    for ch in DECOMPOSING:
        text = unicodedata.normalize("NFD", ch)
        n_letters = sum(bool(WORD.match(c)) for c in _expected_token(text, form))
        assert (tok(text) == []) == (n_letters < 2), (hex(ord(ch)), tok(text))


def test_named_examples():
    tok = Tokenizer()
    assert tok("हिन्दी भाषा") == ["हिन्दी", "भाषा"]  # vowel signs (Mc) and a virama (Mn)
    assert tok("ภาษาอังกฤษ") == ["ภาษาอังกฤษ"]  # Thai vowel and tone marks
    assert tok("தமிழ் മലയാളം ಕನ್ನಡ") == ["தமிழ்", "മലയാളം", "ಕನ್ನಡ"]
    assert tok("עִבְרִית العَرَبِيَّة") == ["עִבְרִית", "العَرَبِيَّة"]  # Hebrew points, Arabic harakat
    assert tok("cafe\u0301 café") == ["café", "café"]  # NFKC composes: one term
    assert Tokenizer(normalize=None)("cafe\u0301 café") == ["cafe\u0301", "café"]  # two spellings, kept
    assert Tokenizer(normalize="NFD")("naïve") == ["nai\u0308ve"]


# ---------------------------------------------------------------------------- scripts with marks, generated
def _block(lo, hi):
    chars = [chr(cp) for cp in range(lo, hi + 1)]
    return [c for c in chars if unicodedata.category(c)[0] == "L"], [c for c in chars if _is_mark(c)]


SCRIPTS = {  # Unicode blocks of scripts written with combining marks
    "Devanagari": _block(0x0900, 0x097F), "Bengali": _block(0x0980, 0x09FF), "Tamil": _block(0x0B80, 0x0BFF),
    "Thai": _block(0x0E00, 0x0E7F), "Khmer": _block(0x1780, 0x17FF), "Hebrew": _block(0x0590, 0x05FF),
    "Arabic": _block(0x0600, 0x06FF), "Myanmar": _block(0x1000, 0x109F),
}


@st.composite
def script_text(draw):
    letters, marks = SCRIPTS[draw(st.sampled_from(sorted(SCRIPTS)))]
    syllable = st.tuples(st.sampled_from(letters), st.lists(st.sampled_from(marks), max_size=3)).map(
        lambda lm: lm[0] + "".join(lm[1]))
    words = draw(st.lists(st.lists(syllable, min_size=1, max_size=5).map("".join), min_size=1, max_size=8))
    return words


@settings(max_examples=300, deadline=None)
@given(script_text())
def test_words_of_scripts_with_marks_are_whole_tokens(words):
    text = " ".join(words)
    for form in (None, "NFC"):
        tok = Tokenizer(normalize=form, **PATTERN_RULE)
        norm = [unicodedata.normalize(form, w) if form else w for w in words]
        expected = [w for w in norm if sum(bool(WORD.match(c)) for c in w) >= 2]
        assert tok(text) == expected
        assert tok.count(text) == Counter(expected)
        # the default filters: three code points or more (marks count), letters and marks only
        default = Tokenizer(normalize=form)
        kept = [w for w in expected if len(w) >= 3 and all(c.isalpha() or _is_mark(c) for c in w)]
        assert default(text) == kept
        assert default.count(text) == Counter(kept)
        terms, ids, lengths = default._encode_chunk([text, text])
        assert [terms[i] for i in ids.tolist()] == kept * 2 and lengths.tolist() == [len(kept)] * 2


mixed_text = st.text(alphabet=st.sampled_from(list("ab_1 .-é\u00e9E\u0301\u0308\u093f\u094d\u0915\u0e31\u0e01"
                                                   "\u05b4\u05d0\u20dd\u0345Σς\ufe0f\ufe20\u200c\u200d\u2060")
                                              # above U+FFFF: marks (Brahmi, musical, variation selector),
                                              # a Brahmi and a Deseret letter, an emoji
                                              + ["\U00011001", "\U0001d165", "\U000e0100", "\U00011013",
                                                 "\U00010400", "\U0001f600"]), max_size=60)
SIMPLE = re.compile(rf"\w[{_combining_marks()}{JOINERS}]*\w[\w{_combining_marks()}{JOINERS}]*")  # (what
# _marked_word_pattern is)


def test_joiners_inside_words_keep_them_whole_and_soft_hyphens_go():
    # (before, U+200C cut the Persian plural "کتاب‌ها" in two, U+200D cut an Indic conjunct, and a soft hyphen
    # from a web page cut "abc\xaddef" into "abc" and "def")
    words = ["کتاب\u200cها", "मेरा\u200dनाम", "ന്\u200dറെ", "word\u2060joined"]
    assert Tokenizer()(" ".join(words)) == words  # (the defaults: letters, marks and joiners are alphabetic)
    # a joiner that joins nothing is no part of a term (else "کتاب\u200c" would be an invisible twin of "کتاب")
    assert Tokenizer()("کتاب\u200c ها word\u200d\u200c. ab\u200c a\u200c\u200cbc") == ["کتاب", "word", "a\u200c\u200cbc"]
    assert Tokenizer()("a soft\u00adhyphen, another\u00ad one\u00ad\u00ad") == ["softhyphen", "another", "one"]
    assert Tokenizer().count("hy\u00adphen hyphen") == Counter({"hyphen": 2})
    terms, ids, _ = Tokenizer()._encode_chunk(["hy\u00adphen کتاب\u200cها"])
    assert [terms[i] for i in ids.tolist()] == ["hyphen", "کتاب\u200cها"]
    # (a pattern of your own is used as given)
    assert Tokenizer(token_pattern=r"[^\s\u00ad]+", **PATTERN_RULE)("ab\u00adcd") == ["ab", "cd"]


@settings(max_examples=500, deadline=None)
@given(mixed_text)
def test_marked_pattern_is_the_default_pattern_with_marks_carried_along(text):
    """Take the marks out of every token and you get the default pattern's tokens of the text without
    its marks; on text without marks the two patterns agree exactly."""
    marked = _marked_word_pattern().findall(text)
    assert marked == _reference_tokens(text) == SIMPLE.findall(text)
    without = "".join(_letters(text))
    assert ["".join(_letters(t)) for t in marked] == re.findall(DEFAULT_TOKEN_PATTERN, without)
    assert _marked_word_pattern().findall(without) == re.findall(DEFAULT_TOKEN_PATTERN, without)
    # the Tokenizer first drops the joiners that join nothing (at a word's end), then finds these tokens
    prepared = _marked_word_pattern().findall(_drop_loose_format_characters(text))
    assert prepared == [t.rstrip(JOINERS) for t in marked if sum(bool(WORD.match(c)) for c in t) >= 2]
    tok = Tokenizer(normalize=None, lowercase=False, numbers="keep", **PATTERN_RULE)
    assert tok(text) == prepared
    assert dict(tok.count(text)) == dict(Counter(prepared))
    terms, ids, lengths = tok._encode_chunk([text])
    assert [terms[i] for i in ids.tolist()] == prepared and lengths.tolist() == [len(prepared)]


@pytest.mark.parametrize("text", ["a" + "\u0301\U0001d165" * 50_000 + " ", "a" + "\U0001d165" * 100_000 + "!",
                                  "ab" + "\u0301" * 100_000, "a\u0301" * 50_000 + "\U0001d165!"])
def test_long_runs_of_marks_take_linear_time(text):
    """No catastrophic backtracking when a run of marks ends without a second word character."""
    import time

    started = time.perf_counter()
    assert _marked_word_pattern().findall(text) == SIMPLE.findall(text)
    assert time.perf_counter() - started < 2.0


def test_stop_words_are_normalised_as_the_text_is():
    # (they were only lower-cased: "İstanbul", a decomposed "café", a ligature or full-width letters never matched)
    decomposed = "cafe\u0301"
    for stop, text, kept in ((["İstanbul"], "İstanbul ankara", ["ankara"]),
                             ([decomposed], "café bar", ["bar"]),
                             (["ﬁnance"], "finance bank", ["bank"]),
                             (["ＨＥＬＬＯ"], "hello world", ["world"])):
        tok = Tokenizer(stop_words=stop)
        assert tok(text) == kept, stop
        assert Vectorizer(tokenizer=tok).fit([text, text]).get_feature_names_out().tolist() == sorted(kept)
    # with accents stripped, a stop word loses its accents too
    assert Tokenizer(stop_words=["für"], strip_accents="unicode")("für fur dich") == ["dich"]


def test_stop_words_given_as_a_generator_are_refused():
    # (the parameter check used the generator up, and the tokenizer silently removed nothing)
    with pytest.raises(TypeError, match=r"stop_words must be .* got a generator, which its first use would exhaust"):
        Tokenizer(stop_words=(w for w in ["the", "apple"]))("the apple pear")
    assert Tokenizer(stop_words=("the", "apple"))("the apple pear") == ["pear"]
