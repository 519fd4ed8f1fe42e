"""Bad input for the text pipeline: Tokenizer, Vectorizer, PhraseDetector, Vocabulary.

Part of the bad-input suite; the shared helpers and the case conventions are in ``tests/bad_input_helpers.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from bad_input_helpers import (
    HYPO,
    PNG,
    PYTESTMARK,
    C,
    Raises,
    Works,
    _hang_guard,  # noqa: F401  (autouse fixture)
    _TEXT,
    clean_raises,
    run_case,
)
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from topicvb.text import PhraseDetector, Tokenizer, Vectorizer, Vocabulary

pytestmark = PYTESTMARK


# ============================================================================= text pipeline
@HYPO
@given(texts=st.lists(_TEXT, max_size=5))
def test_property_tokenizer_and_vectorizer_on_arbitrary_unicode(texts):
    tok = Tokenizer()
    counts = [tok.count(t) for t in texts]
    for t in texts:
        tokens = tok(t)
        assert all(isinstance(w, str) and w for w in tokens)
    if not texts:
        with clean_raises(ValueError, r"Vectorizer.fit received 0 documents"):
            Vectorizer().fit_transform(texts)
    elif not any(counts):
        with clean_raises(ValueError, r"Vectorizer.fit found no terms in \d+ document"):
            Vectorizer().fit_transform(texts)
    else:
        vec = Vectorizer()
        X = vec.fit_transform(texts)
        assert X.shape == (len(texts), len(vec.get_feature_names_out()))
        assert X.sum() == sum(sum(c.values()) for c in counts)
        assert vec.transform(texts).shape == X.shape


@HYPO
@given(docs=st.lists(st.binary(max_size=40), min_size=1, max_size=4))
def test_property_vectorizer_on_arbitrary_bytes(docs):
    tok = Tokenizer()
    n_tokens = sum(len(tok(d)) for d in docs)
    if n_tokens == 0:
        with clean_raises(ValueError, r"found no terms"):
            Vectorizer().fit_transform(docs)
    else:
        X = Vectorizer().fit_transform(docs)
        assert X.shape[0] == len(docs) and X.sum() == n_tokens


@HYPO
@given(docs=st.lists(st.lists(st.sampled_from(["new", "york", "city", "", "é", "\x00", "a b"]), max_size=8),
                     max_size=6))
def test_property_phrase_detector_on_token_lists(docs):
    det = PhraseDetector(min_count=1).fit(docs)
    out = det.transform(docs)
    assert len(out) == len(docs)
    assert all(isinstance(t, str) for doc in out for t in doc)


TEXT_CASES = [
    # Tokenizer
    C("Tokenizer-None", lambda tmp: Tokenizer()(None), Raises(TypeError, r"Tokenizer expects a str or bytes document, got NoneType")),
    C("Tokenizer-int", lambda tmp: Tokenizer()(5), Raises(TypeError, r"got int")),
    C("Tokenizer-list", lambda tmp: Tokenizer()(["a list"]), Raises(TypeError, r"got list")),
    C("Tokenizer.count-dict", lambda tmp: Tokenizer().count({"a": 1}), Raises(TypeError, r"got dict")),
    C("Tokenizer-empty", lambda tmp: Tokenizer()(""), Works(lambda r: r == [])),
    C("Tokenizer-non-utf8-bytes", lambda tmp: Tokenizer()(b"\xff\xfe caf\xe9 bytes"), Works(lambda r: "bytes" in r)),
    C("Tokenizer-control-chars", lambda tmp: Tokenizer()("\x00\x01\x07 ctrl word\x1f"), Works(lambda r: r == ["ctrl", "word"])),
    C("Tokenizer-normalize", lambda tmp: Tokenizer(normalize="XYZ")("a"), Raises(ValueError, r"normalize must be one of .*got 'XYZ'")),
    C("Tokenizer-bad-regex", lambda tmp: Tokenizer(token_pattern="(")("a"), Raises(ValueError, r"token_pattern is not a valid regular expression")),
    C("Tokenizer-two-groups", lambda tmp: Tokenizer(token_pattern="(a)(b)")("ab"), Raises(ValueError, r"at most one capturing group")),
    C("Tokenizer-min_length", lambda tmp: Tokenizer(min_length=-1)("a"), Raises(ValueError, r"min_length must be >= 0, got -1")),
    C("Tokenizer-min_length-str", lambda tmp: Tokenizer(min_length="a")("a"), Raises(TypeError, r"min_length must be an int")),
    C("Tokenizer-stop_words", lambda tmp: Tokenizer(stop_words="french")("a"), Raises(ValueError, r"stop_words must be one of")),
    C("Tokenizer-stop_words-int", lambda tmp: Tokenizer(stop_words=5)("a"), Raises(TypeError, r"stop_words must be")),
    C("Tokenizer-stemmer", lambda tmp: Tokenizer(stemmer="lancaster")("a"), Raises(ValueError, r"stemmer must be one of")),
    C("Tokenizer-encoding", lambda tmp: Tokenizer(encoding="no-such-codec")(b"a"), Raises(ValueError, r"encoding must be a known codec")),
    C("Tokenizer-max_length", lambda tmp: Tokenizer(max_length=0)("a"), Raises(ValueError, r"max_length must be >= min_length")),
    C("Tokenizer-lowercase", lambda tmp: Tokenizer(lowercase="yes")("a"), Raises(ValueError, r"lowercase must be one of")),
    # Vectorizer
    C("Vectorizer-0-docs", lambda tmp: Vectorizer().fit_transform([]), Raises(ValueError, r"Vectorizer.fit received 0 documents")),
    C("Vectorizer-empty-doc", lambda tmp: Vectorizer().fit_transform([""]), Raises(ValueError, r"found no terms in 1 document")),
    C("Vectorizer-all-empty", lambda tmp: Vectorizer().fit_transform(["", " ", "\x00"]), Raises(ValueError, r"found no terms in 3 document")),
    C("Vectorizer-str", lambda tmp: Vectorizer().fit_transform("single string"), Raises(TypeError, r"got a single str. Wrap it in a list")),
    C("Vectorizer-None", lambda tmp: Vectorizer().fit_transform(None), Raises(TypeError, r"iterable of documents .*got NoneType")),
    C("Vectorizer-int", lambda tmp: Vectorizer().fit(5), Raises(TypeError, r"got int")),
    C("Vectorizer-None-doc", lambda tmp: Vectorizer().fit_transform(["ok", None]), Raises(TypeError, r"document 1 is NoneType")),
    C("Vectorizer-2d-array", lambda tmp: Vectorizer().fit_transform(np.array([["a"]])), Raises(TypeError, r"array of shape \(1, 1\)")),
    C("Vectorizer-sparse", lambda tmp: Vectorizer().fit_transform(sp.csr_matrix((2, 2))), Raises(TypeError, r"array of shape \(2, 2\)")),
    C("Vectorizer-non-utf8", lambda tmp: Vectorizer().fit_transform([b"\xff\xfe bad bytes", "ok text"]), Works(lambda X: X.shape[0] == 2)),
    C("Vectorizer-one-doc-one-term", lambda tmp: Vectorizer().fit_transform(["the the the"]), Works(lambda X: X.shape == (1, 1) and X.sum() == 3)),
    C("Vectorizer-generator", lambda tmp: Vectorizer().fit_transform(t for t in ["a text", "more text"]), Works(lambda X: X.shape[0] == 2)),
    C("Vectorizer-min_df", lambda tmp: Vectorizer(min_df=-1).fit(["a b"]), Raises(ValueError, r"min_df must be >= 0")),
    C("Vectorizer-min_df-frac", lambda tmp: Vectorizer(min_df=2.5).fit(["a b"]), Raises(ValueError, r"min_df must be in \[0, 1\]")),
    C("Vectorizer-min_df-str", lambda tmp: Vectorizer(min_df="x").fit(["a b"]), Raises(TypeError, r"min_df must be an int")),
    C("Vectorizer-max_df", lambda tmp: Vectorizer(max_df=1.5).fit(["a b"]), Raises(ValueError, r"max_df must be in \[0, 1\]")),
    C("Vectorizer-pruned-all", lambda tmp: Vectorizer(min_df=5).fit(["hello world", "world peace"]), Raises(ValueError, r"min_df=5 .*Lower min_df or raise max_df")),
    C("Vectorizer-max_features", lambda tmp: Vectorizer(max_features=0).fit(["ab cd"]), Raises(ValueError, r"max_features == 0")),
    C("Vectorizer-vocab-empty", lambda tmp: Vectorizer(vocabulary=[]).fit(["ab"]), Raises(ValueError, r"vocabulary must hold at least one term")),
    C("Vectorizer-vocab-dup", lambda tmp: Vectorizer(vocabulary=["aa", "aa"]).fit(["aa"]), Raises(ValueError, r"'aa' appears more than once")),
    C("Vectorizer-vocab-ids", lambda tmp: Vectorizer(vocabulary={"aa": 5}).fit(["aa"]), Raises(ValueError, r"got id 5 for 'aa'")),
    C("Vectorizer-input", lambda tmp: Vectorizer(input="bogus").fit(["aa"]), Raises(ValueError, r"input must be one of")),
    C("Vectorizer-dtype", lambda tmp: Vectorizer(dtype="str").fit(["aa"]), Raises(ValueError, r"dtype must be an integer or floating dtype")),
    C("Vectorizer-n_jobs", lambda tmp: Vectorizer(n_jobs=0).fit(["aa"]), Raises(ValueError, r"n_jobs must be")),
    C("Vectorizer-tokenizer", lambda tmp: Vectorizer(tokenizer=5).fit(["aa"]), Raises(TypeError, r"tokenizer must be a Tokenizer")),
    C("Vectorizer-phrases", lambda tmp: Vectorizer(phrases="yes").fit(["aa"]), Raises(TypeError, r"phrases must be a bool or a PhraseDetector")),
    C("Vectorizer-missing-file", lambda tmp: Vectorizer(input="filename").fit([str(tmp / "missing.txt")]),
      Raises((ValueError, OSError), r"missing\.txt")),
    C("Vectorizer-transform-unfitted", lambda tmp: Vectorizer().transform(["a b"]), Raises(NotFittedError, r"Vectorizer instance is not fitted")),
    C("Vectorizer-transform-str", lambda tmp: Vectorizer().fit(["aaa bbb"]).transform("aaa"), Raises(TypeError, r"Vectorizer.transform .*single str")),
    C("Vectorizer-transform-int-doc", lambda tmp: Vectorizer().fit(["aaa bbb"]).transform([5]), Raises(TypeError, r"document 0 is int")),
    C("Vectorizer-transform-0-docs", lambda tmp: Vectorizer().fit(["aaa bbb"]).transform([]), Works(lambda X: X.shape == (0, 2))),
    C("Vectorizer-transform-unknown-terms", lambda tmp: Vectorizer().fit(["aaa bbb"]).transform(["zzz", ""]), Works(lambda X: X.shape == (2, 2) and X.nnz == 0)),
    # PhraseDetector
    C("Phrases-fit-str", lambda tmp: PhraseDetector().fit("new york"), Raises(TypeError, r"PhraseDetector.fit expects an iterable of tokenised documents .*got str")),
    C("Phrases-fit-None", lambda tmp: PhraseDetector().fit(None), Raises(TypeError, r"got NoneType")),
    C("Phrases-fit-untokenised", lambda tmp: PhraseDetector().fit(["not tokenized"]), Raises(TypeError, r"got a str at position 0. Tokenise first")),
    C("Phrases-fit-empty", lambda tmp: PhraseDetector(min_count=1).fit([]), Works(lambda d: d.phrases_ == [])),
    C("Phrases-fit-empty-doc", lambda tmp: PhraseDetector(min_count=1).fit([[]]), Works(lambda d: d.phrases_ == [])),
    C("Phrases-fit-int-tokens", lambda tmp: PhraseDetector(min_count=1).fit([[1, 2]] * 3),
      Raises(TypeError, r"(?i)tokens? .*str.*int|int.*str")),
    C("Phrases-fit-None-tokens", lambda tmp: PhraseDetector(min_count=1).fit([[None, None]]),
      Raises(TypeError, r"(?i)str.*NoneType|NoneType.*str")),
    C("Phrases-scoring", lambda tmp: PhraseDetector(scoring="xyz").fit([["a"]]), Raises(ValueError, r"scoring must be one of")),
    C("Phrases-min_count", lambda tmp: PhraseDetector(min_count=0).fit([["a"]]), Raises(ValueError, r"min_count == 0")),
    C("Phrases-threshold-str", lambda tmp: PhraseDetector(threshold="a").fit([["a"]]), Raises(TypeError, r"threshold must be")),
    C("Phrases-threshold-nan", lambda tmp: PhraseDetector(threshold=float("nan")).fit([["new", "york"]] * 10),
      Raises(ValueError, r"threshold.*nan")),
    C("Phrases-delimiter-int", lambda tmp: PhraseDetector(delimiter=5).fit([["a"]]), Raises(TypeError, r"delimiter must be a str")),
    C("Phrases-apply-unfitted", lambda tmp: PhraseDetector().apply(["a", "b"]), Raises(NotFittedError, r"not fitted")),
    C("Phrases-apply-str", lambda tmp: PhraseDetector(min_count=1).fit([["new", "york"]] * 3).apply("new york"),
      Raises(TypeError, r"PhraseDetector.apply expects .*list of (str|tokens).*got (a )?str")),
    C("Phrases-apply-None", lambda tmp: PhraseDetector(min_count=1).fit([["new", "york"]] * 3).apply(None),
      Raises(TypeError, r"PhraseDetector.apply expects .*got NoneType")),
    C("Phrases-apply-nested", lambda tmp: PhraseDetector(min_count=1).fit([["new", "york"]] * 3).apply([["a"]]),
      Raises(TypeError, r"PhraseDetector.apply expects .*str")),
    C("Phrases-transform-flat-ints", lambda tmp: PhraseDetector(min_count=1).fit([["new", "york"]] * 3).transform([1, 2]),
      Raises(TypeError, r"PhraseDetector.transform expects .*int")),
    # Vocabulary
    C("Vocabulary-str", lambda tmp: Vocabulary.from_list("abc"), Raises(TypeError, r"got a single str. Wrap it in a list")),
    C("Vocabulary-ints", lambda tmp: Vocabulary.from_list([1, 2]), Raises(TypeError, r"terms must contain only str, got 1 of type int")),
    C("Vocabulary-dup", lambda tmp: Vocabulary.from_list(["a", "a"]), Raises(ValueError, r"'a' appears more than once")),
    C("Vocabulary-None", lambda tmp: Vocabulary(None), Raises(TypeError, r"terms must be an iterable of str.*NoneType")),
    C("Vocabulary.from_list-None", lambda tmp: Vocabulary.from_list(None), Raises(TypeError, r"terms must be an iterable of str.*NoneType")),
    C("Vocabulary.from_mapping-pairs", lambda tmp: Vocabulary.from_mapping([("a", 0)]), Raises(TypeError, r"mapping.*list")),
    C("Vocabulary.from_mapping-None", lambda tmp: Vocabulary.from_mapping(None), Raises(TypeError, r"mapping.*NoneType")),
    C("Vocabulary.from_mapping-gap", lambda tmp: Vocabulary.from_mapping({"a": 1}), Raises(ValueError, r"each column id 0..0 once; got id 1")),
    C("Vocabulary.from_mapping-str-id", lambda tmp: Vocabulary.from_mapping({"a": "x"}), Raises((TypeError, ValueError), r"got id 'x' for 'a'")),
    C("Vocabulary-doc_freq-len", lambda tmp: Vocabulary(["a", "b"], doc_freq=[1]), Raises(ValueError, r"doc_freq must have one entry per term \(2\)")),
    C("Vocabulary-doc_freq-negative", lambda tmp: Vocabulary(["a", "b"], doc_freq=[-1, 1]), Raises(ValueError, r"doc_freq .*non-negative")),
    C("Vocabulary-doc_freq-nan", lambda tmp: Vocabulary(["a", "b"], doc_freq=[np.nan, 1]), Raises(ValueError, r"doc_freq")),
    C("Vocabulary-n_docs-negative", lambda tmp: Vocabulary(["a"], doc_freq=[1], n_docs=-1), Raises(ValueError, r"n_docs")),
    C("Vocabulary.prune-min_df", lambda tmp: Vocabulary(["a", "b"], doc_freq=[1, 2], term_freq=[1, 2], n_docs=2).prune(min_df=-1),
      Raises(ValueError, r"min_df must be >= 0")),
    C("Vocabulary.prune-max_df", lambda tmp: Vocabulary(["a", "b"], doc_freq=[1, 2], term_freq=[1, 2], n_docs=2).prune(max_df=2.0),
      Raises(ValueError, r"max_df must be in \[0, 1\]")),
    C("Vocabulary.prune-max_features", lambda tmp: Vocabulary(["a", "b"], doc_freq=[1, 2], term_freq=[1, 2], n_docs=2).prune(max_features=0),
      Raises(ValueError, r"max_features must be a positive int")),
    C("Vocabulary.prune-no-counts", lambda tmp: Vocabulary(["a"]).prune(min_df=2), Raises(ValueError, r"needs doc_freq and n_docs")),
    C("Vocabulary.load-missing", lambda tmp: Vocabulary.load(tmp / "missing.json"), Raises(FileNotFoundError, r"missing\.json")),
    C("Vocabulary.load-png", lambda tmp: (tmp / "v.png").write_bytes(PNG) and Vocabulary.load(tmp / "v.png"),
      Raises(ValueError, r"v\.png")),
    C("Vocabulary.load-wrong-json", lambda tmp: (tmp / "v.json").write_text('{"wrong": 1}') and Vocabulary.load(tmp / "v.json"),
      Raises(ValueError, r"is not a topicvb vocabulary file: it has no 'terms' list")),
    C("Vocabulary.save-unwritable", lambda tmp: (tmp / "afile").write_text("x") and Vocabulary(["a"]).save(tmp / "afile" / "v.json"),
      Raises(OSError, r"afile")),
]


@pytest.mark.parametrize("fn,expect", TEXT_CASES)
def test_text_pipeline_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)
