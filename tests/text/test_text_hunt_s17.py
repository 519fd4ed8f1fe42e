"""Findings of a hunt over the text pipeline (session 17): each test failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from topicvb.text import Tokenizer, Vectorizer, Vocabulary, clean_text, strip_headers


# ---------------------------------------------------------------------------- 1. Tokenizer subclasses
class _LemmaTokenize(Tokenizer):
    """Overrides ``tokenize`` only (``__call__`` is inherited)."""

    def tokenize(self, text):
        return [{"mice": "mouse"}.get(t, t) for t in super().tokenize(text)]


class _LemmaCall(Tokenizer):
    """Overrides ``__call__`` only."""

    def __call__(self, text):
        return [{"mice": "mouse"}.get(t, t) for t in super().__call__(text)]


class _LemmaBoth(Tokenizer):
    def tokenize(self, text):
        return [{"mice": "mouse"}.get(t, t) for t in super().tokenize(text)]

    __call__ = tokenize


class _Defaults(Tokenizer):
    """Changes only the defaults: its tokens are Tokenizer's, so it keeps the fast path."""

    def __init__(self, *, stop_words="english", **kwargs):
        super().__init__(stop_words=stop_words, **kwargs)


@pytest.mark.parametrize("cls", [_LemmaTokenize, _LemmaCall, _LemmaBoth])
@pytest.mark.parametrize("phrases", [False, True])
def test_a_tokenizer_subclass_is_counted_as_its_tokens_say(cls, phrases):
    docs = ["mice and mouse", "the mice ran"]
    tok = cls()
    assert tok("mice and mouse") == ["mouse", "and", "mouse"]
    assert dict(tok.count("mice and mouse")) == {"mouse": 2, "and": 1}
    vec = Vectorizer(tokenizer=tok, phrases=phrases)
    X = vec.fit_transform(docs)
    assert vec.get_feature_names_out().tolist() == ["and", "mouse", "ran", "the"]
    assert X.toarray().tolist() == [[1, 2, 0, 0], [0, 1, 1, 1]]
    assert vec.transform(["mice mice"]).toarray().tolist() == [[0, 2, 0, 0]]


def test_a_subclass_that_keeps_the_tokens_keeps_the_fast_path(monkeypatch):
    calls = []
    encode = Tokenizer._encode_chunk

    def spy(self, texts):
        calls.append(type(self))
        return encode(self, texts)

    monkeypatch.setattr(Tokenizer, "_encode_chunk", spy)
    for tok, n_tokens in ((Tokenizer(), 6), (_Defaults(), 4)):  # (_Defaults drops "the", an English stop word)
        X = Vectorizer(tokenizer=tok).fit_transform(["the rocket engine", "the moon orbit"])
        assert X.sum() == n_tokens
    assert calls == [Tokenizer, _Defaults]
    # a subclass overriding the tokens is called per document instead
    calls.clear()
    Vectorizer(tokenizer=_LemmaTokenize()).fit_transform(["mice and mouse"])
    assert calls == []


def test_an_instance_level_tokenize_is_used_too():
    tok = Tokenizer()
    base = tok.tokenize
    tok.tokenize = lambda text: [t.upper() for t in base(text)]
    assert tok("apple pie") == ["APPLE", "PIE"]
    assert dict(tok.count("apple pie apple")) == {"APPLE": 2, "PIE": 1}
    assert Vectorizer(tokenizer=tok).fit(["apple pie"]).get_feature_names_out().tolist() == ["APPLE", "PIE"]


# ---------------------------------------------------------------------------- 2. header detection
@pytest.mark.parametrize("text", [
    "Update: the battery died after a week and support never answered.",
    "Re: orbits\nI think the moon orbit calculation above is wrong.",
    "Note: bring food\nTime: noon\n\nThe picnic is by the lake.",  # fields, but not mail headers
    "Summary: short\n\nThe long review that follows the summary line.",  # one field: not a header block
    "Subject: orbits\nI think the moon orbit calculation above is wrong.",  # no blank line: the body stays
])
def test_text_that_is_not_a_header_block_is_kept(text):
    assert strip_headers(text) == text
    assert Tokenizer(clean="email")(text) == Tokenizer()(text)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_header_block_is_dropped_whatever_the_line_ends(newline):
    post = newline.join(["From: ann@example.org (Ann)", "Subject: Re: orbits", "Organization: Example",
                         "X-Newsreader: TIN", "", "The moon orbit calculation is wrong.", ""])
    assert strip_headers(post) == "The moon orbit calculation is wrong." + newline
    assert Tokenizer(clean="email")(post) == ["the", "moon", "orbit", "calculation", "wrong"]


def test_a_header_block_alone_is_dropped_and_vectorizer_keeps_bodies():
    assert strip_headers("From: ann@example.org\nSubject: orbits\n") == ""
    docs = ["Update: the battery died after a week.", "Re: orbits\nI think the orbit is wrong.",
            "From: ann@example.org\rSubject: orbits\r\rThe moon orbit is wrong.\r", "battery orbit moon"]
    X = Vectorizer(tokenizer=Tokenizer(clean="email", stop_words="english")).fit_transform(docs)
    assert X.sum(axis=1).A1.tolist() == [4, 4, 3, 3]
    assert "orbits" not in clean_text(docs[2]) and "moon orbit" in clean_text(docs[2])


# ---------------------------------------------------------------------------- 3. dtype
@pytest.mark.parametrize("dtype", [np.float16, "float16", "e"])
def test_a_dtype_scipy_sparse_cannot_hold_is_refused_at_fit(dtype):
    with pytest.raises(ValueError, match=r"dtype=float16 .*scipy\.sparse"):
        Vectorizer(dtype=dtype).fit(["apple banana apple"])


def test_the_dtypes_scipy_sparse_holds_still_work():
    for dtype in (np.int8, np.uint16, np.int32, np.float32, np.float64):
        X = Vectorizer(dtype=dtype).fit_transform(["apple banana apple"])
        assert X.dtype == dtype and X.toarray().tolist() == [[2, 1]]


# ---------------------------------------------------------------------------- 4. "Www." URLs
@pytest.mark.parametrize("url", ["Www.Example.com", "WWW.example.com", "wWw.example.com/x"])
def test_urls_are_found_whatever_the_case_of_www(url):
    text = f"Visit {url} now"
    tok = Tokenizer(lowercase=False, urls="replace")
    assert tok(text) == ["Visit", "<url>", "now"]
    assert dict(tok.count(text)) == {"Visit": 1, "<url>": 1, "now": 1}
    vec = Vectorizer(tokenizer=tok).fit([text])
    assert vec.get_feature_names_out().tolist() == ["<url>", "Visit", "now"]
    assert Tokenizer(lowercase=False)(text) == ["Visit", "now"]


# ---------------------------------------------------------------------------- 5. stemming lower-cases
@pytest.mark.parametrize("stemmer", ["porter", "snowball"])
def test_stemming_lower_cases_as_documented(stemmer):
    assert "lower-cases" in Tokenizer.__doc__.split("stemmer :")[1].split("clean :")[0]
    assert Tokenizer(lowercase=False, stemmer=stemmer)("NASA Apples") == ["nasa", "appl"]


# ---------------------------------------------------------------------------- 6. stop words edited in place
@pytest.mark.parametrize("phrases", [False, True])
def test_a_fit_reads_a_stop_word_list_edited_in_place(phrases):
    docs = ["the rocket engine", "the moon orbit"]
    sw = ["the"]
    tok = Tokenizer(stop_words=sw)
    vec = Vectorizer(tokenizer=tok, phrases=phrases).fit(docs)
    assert "moon" in vec.get_feature_names_out().tolist()
    sw.append("moon")
    assert vec.fit(docs).get_feature_names_out().tolist() == ["engine", "orbit", "rocket"]
    assert Vectorizer(tokenizer=tok, phrases=phrases).fit(docs).get_feature_names_out().tolist() == [
        "engine", "orbit", "rocket"]
    sw.remove("moon")
    assert Vectorizer(tokenizer=tok).fit_transform(docs).sum() == 4


def test_an_unchanged_stop_word_list_keeps_the_compiled_rules():
    tok = Tokenizer(stop_words=["the"])
    Vectorizer(tokenizer=tok).fit(["the rocket engine"])
    compiled = tok.__dict__["_compiled"]
    Vectorizer(tokenizer=tok).fit(["the rocket engine"])
    assert tok.__dict__["_compiled"] is compiled  # (its cache of classified token types is kept)


# ---------------------------------------------------------------------------- 7. plain-text vocabulary
def test_plain_text_vocabulary_without_term_freq_does_not_invent_it(tmp_path):
    v = Vocabulary(["a", "b"], doc_freq=[1, 2], n_docs=3)
    v.save(tmp_path / "v.txt")
    assert (tmp_path / "v.txt").read_text(encoding="utf-8") == "a\t1\nb\t2\n"
    w = Vocabulary.load(tmp_path / "v.txt")
    assert w.terms == ["a", "b"] and w.doc_freq.tolist() == [1, 2] and w.term_freq is None


def test_plain_text_vocabulary_files_load_as_before(tmp_path):
    (tmp_path / "one.txt").write_text("apple\nbanana\n", encoding="utf-8")
    (tmp_path / "three.txt").write_text("apple\t2\t5\nbanana\t1\t1\n", encoding="utf-8")
    one, three = Vocabulary.load(tmp_path / "one.txt"), Vocabulary.load(tmp_path / "three.txt")
    assert one.terms == ["apple", "banana"] and one.doc_freq is None and one.term_freq is None
    assert three.doc_freq.tolist() == [2, 1] and three.term_freq.tolist() == [5, 1]
    (tmp_path / "mixed.txt").write_text("apple\t2\t5\nbanana\t1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 2: .*same number of columns"):
        Vocabulary.load(tmp_path / "mixed.txt")
    (tmp_path / "four.txt").write_text("apple\t2\t5\t1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 1: expected 'term', 'term<TAB>df' or 'term<TAB>df<TAB>count'"):
        Vocabulary.load(tmp_path / "four.txt")


def test_pruning_a_plain_text_vocabulary_says_to_save_as_json(tmp_path):
    v = Vectorizer().fit(["apple banana", "apple cherry"]).vocab_
    v.save(tmp_path / "v.txt")
    w = Vocabulary.load(tmp_path / "v.txt")
    assert w.n_docs is None and w.doc_freq.tolist() == v.doc_freq.tolist()
    with pytest.raises(ValueError, match=r"n_docs.*plain-text.*save the vocabulary as \.json"):
        w.prune(min_df=2)
    v.save(tmp_path / "v.json")
    assert Vocabulary.load(tmp_path / "v.json").prune(min_df=2)[0].terms == ["apple"]


# ---------------------------------------------------------------------------- 8. the CountVectorizer claim
def test_the_countvectorizer_claim_names_soft_hyphens_and_joiners():
    import topicvb.text.tokenize as tokenize_module

    for doc in (Vectorizer.__doc__.split("Notes")[1], tokenize_module.__doc__):
        flat = " ".join(doc.split())
        assert "U+00AD" in flat and "U+200C" in flat, flat[:200]


@pytest.mark.parametrize("text, body", [
    ("Subject: Meeting moved to 3pm\n\nHi all, see you there.", "Hi all, see you there."),
    ("From: alice@example.com\r\n\r\nThe launch is on Friday.", "The launch is on Friday."),
    ("Von: Alice\nGesendet: Montag\nAn: Bob\nBetreff: Treffen\n\nHallo Bob", "Hallo Bob"),
])
def test_a_single_telling_header_and_forwarded_headers_are_dropped(text, body):
    """A review: the two-field rule kept a lone "Subject:" or "From:" line before the body, and German mail headers
    (Von, Gesendet, An, Betreff) named no known header."""
    from topicvb.text import strip_headers

    assert strip_headers(text) == body


@pytest.mark.parametrize("text", ["Summary: the results hold.\n\nThe results are in.", "Date: tomorrow\n\nWe meet.",
                                  "Note: bring food.\n\nAnd water."])
def test_a_single_field_that_opens_prose_is_kept(text):
    from topicvb.text import strip_headers

    assert strip_headers(text) == text
