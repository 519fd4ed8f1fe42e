"""PhraseDetector and Vocabulary."""

import json
import pickle

import numpy as np
import pytest
from nltk.metrics import BigramAssocMeasures
from sklearn.exceptions import NotFittedError

from topicvb.text import PhraseDetector, Tokenizer, Vocabulary
from topicvb.text.phrases import _score

CITY_TEXTS = [
    "I moved to New York last year and New York is expensive.",
    "The New York subway runs all night.",
    "Prices in New York keep rising, says a new report.",
    "A new bakery opened in York, not in New York.",
    "Machine learning for topic models: machine learning again.",
    "Topic models and machine learning papers.",
] * 2


def tokenised(texts):
    tok = Tokenizer(stop_words="english")
    return [tok(t) for t in texts]


# ---------------------------------------------------------------------------- phrases
def test_phrases_learned_and_reused_at_transform():
    det = PhraseDetector(min_count=4, threshold=0.3).fit(iter(tokenised(CITY_TEXTS)))  # a generator is fine
    assert ("new", "york") in det.phrases_ and ("machine", "learning") in det.phrases_
    assert det.phrases_ == sorted(det.phrases_)
    assert det.n_docs_ == len(CITY_TEXTS)
    out = det.transform([["flights", "new", "york", "machine", "learning", "new", "bakery"]])
    assert out == [["flights", "new_york", "machine_learning", "new", "bakery"]]
    # the fitted state survives pickling and keeps no counts
    det2 = pickle.loads(pickle.dumps(det))
    assert det2.apply(["new", "york"]) == ["new_york"]
    assert "_pair_keys" not in det2.__dict__


def test_phrases_greedy_left_to_right():
    det = PhraseDetector(min_count=1, threshold=-1.0).fit([["new", "york", "city"]])
    assert det.apply(["new", "york", "city"]) == ["new_york", "city"]


def test_partial_fit_equals_fit():
    docs = tokenised(CITY_TEXTS)
    full = PhraseDetector(min_count=2, scoring="likelihood").fit(docs)
    part = PhraseDetector(min_count=2, scoring="likelihood")
    for i in range(0, len(docs), 5):
        part.partial_fit(docs[i: i + 5])
    assert part.phrases_ == full.phrases_ and part.scores_ == pytest.approx(full.scores_)


def test_pairs_do_not_cross_documents():
    det = PhraseDetector(min_count=1, threshold=-1.0).fit([["a", "b"], ["c", "d"]])
    assert det.phrases_ == [("a", "b"), ("c", "d")]


@pytest.mark.parametrize("scoring, nltk_fn", [("pmi", BigramAssocMeasures.pmi),
                                               ("likelihood", BigramAssocMeasures.likelihood_ratio)])
def test_scores_match_nltk(scoring, nltk_fn):
    for n_ab, n_a, n_b, n in [(10, 20, 30, 1000), (5, 5, 7, 50), (3, 100, 200, 10_000)]:
        ours = _score(scoring, [n_ab], [n_a], [n_b], float(n))[0]
        assert ours == pytest.approx(nltk_fn(n_ab, (n_a, n_b), n), rel=1e-6)


def test_npmi_range():
    s = _score("npmi", [1, 5, 2], [1, 50, 10], [1, 50, 90], 100.0)
    assert s[0] == pytest.approx(1.0) and np.all((s >= -1) & (s <= 1))


def test_phrase_errors():
    with pytest.raises(TypeError, match=r"expects each document as a list of tokens, got a str at position 0"):
        PhraseDetector().fit(["new york"])
    with pytest.raises(TypeError, match=r"expects an iterable of tokenised documents"):
        PhraseDetector().fit("new york")
    with pytest.raises(ValueError, match=r"scoring must be one of \{'likelihood', 'npmi', 'pmi'\}, got 'chi2'\."):
        PhraseDetector(scoring="chi2").fit([["a"]])
    with pytest.raises(ValueError, match=r"min_count == 0, must be >= 1"):
        PhraseDetector(min_count=0).fit([["a"]])
    with pytest.raises(NotFittedError, match=r"not fitted yet"):
        PhraseDetector().apply(["a", "b"])


# ---------------------------------------------------------------------------- vocabulary
def counted():
    #             e  b  a  d  c
    df = np.array([5, 1, 3, 2, 3])
    tf = np.array([9, 1, 4, 7, 4])
    return Vocabulary(["e", "b", "a", "d", "c"], doc_freq=df, term_freq=tf, n_docs=5)


def test_vocabulary_mapping():
    v = Vocabulary(["apple", "pear", "fig"])
    assert len(v) == 3 and v["pear"] == 1 and v[2] == "fig" and "fig" in v and "kiwi" not in v
    assert v.to_list() == ["apple", "pear", "fig"] and list(v) == v.terms
    assert Vocabulary.from_list(["x", "y"]).index == {"x": 0, "y": 1}
    assert Vocabulary.from_mapping({"y": 1, "x": 0}).terms == ["x", "y"]
    with pytest.raises(KeyError, match=r"'kiwi' is not in the vocabulary"):
        v["kiwi"]
    with pytest.raises(ValueError, match=r"terms must be distinct; 'a' appears more than once"):
        Vocabulary(["a", "b", "a"])
    with pytest.raises(TypeError, match=r"got a single str"):
        Vocabulary("abc")


def test_prune_df_bounds_and_order():
    v = counted()  # terms e b a d c with df 5 1 3 2 3
    pruned, old = v.prune(min_df=2, max_df=0.8)  # keeps df in [2, 4]: a, d, c
    assert pruned.terms == ["a", "c", "d"]
    assert [v.terms[j] for j in old] == pruned.terms
    assert pruned.doc_freq.tolist() == [3, 3, 2]
    assert v.prune(min_df=0.5, max_df=5)[0].terms == ["a", "c", "e"]  # fractions: df >= 2.5


def test_prune_max_features_ties_broken_by_term():
    v = counted()  # tf: e 9, b 1, a 4, d 7, c 4
    assert v.prune(max_features=3)[0].terms == ["a", "d", "e"]  # a and c tie at 4: a wins
    assert v.prune(max_features=1)[0].terms == ["e"]


def test_prune_errors():
    v = counted()
    with pytest.raises(ValueError, match=r"No terms left after pruning \(min_df=4, max_df=0\.9\)\. Lower min_df or raise max_df\."):
        v.prune(min_df=4, max_df=0.9)
    with pytest.raises(ValueError, match=r"min_df=4 asks for more documents than max_df=3 allows"):
        v.prune(min_df=4, max_df=3)
    with pytest.raises(ValueError, match=r"max_df must be in \[0, 1\] when given as a fraction \(float\), got 1\.5\."):
        v.prune(max_df=1.5)
    with pytest.raises(ValueError, match=r"Vocabulary.prune needs doc_freq and n_docs"):
        Vocabulary(["a"]).prune()


@pytest.mark.parametrize("name", ["vocab.txt", "vocab.json"])
def test_save_load_roundtrip(tmp_path, name):
    v = counted()
    v.save(tmp_path / name)
    w = Vocabulary.load(tmp_path / name)
    assert w == v and w.doc_freq.tolist() == v.doc_freq.tolist() and w.term_freq.tolist() == v.term_freq.tolist()
    if name.endswith(".json"):
        assert json.loads((tmp_path / name).read_text())["n_docs"] == 5
    plain = Vocabulary(["naïve", "new_york"])
    plain.save(tmp_path / "plain.txt")
    assert (tmp_path / "plain.txt").read_text(encoding="utf-8") == "naïve\nnew_york\n"
    assert Vocabulary.load(tmp_path / "plain.txt") == plain
    with pytest.raises(ValueError, match=r"contains a tab or newline; save the vocabulary as \.json instead"):
        Vocabulary(["a\tb"]).save(tmp_path / "bad.txt")
    # (before, an empty term vanished on loading, shifting every later index, and a first term's byte-order mark
    # was read as the file's; the .json format gives both back)
    for terms, what in ((["a", "", "b"], "an empty term"), (["\ufeffa", "b"], r"the first term '\\ufeffa'")):
        with pytest.raises(ValueError, match=rf"holds {what}.* save it as \.json instead"):
            Vocabulary(terms).save(tmp_path / "bad.txt")
        Vocabulary(terms).save(tmp_path / "good.json")
        assert Vocabulary.load(tmp_path / "good.json").terms == terms
    # an empty term with frequencies has a line of its own ("\t5\t3"), which loads back in place
    counted_empty = Vocabulary(["a", "", "b"], [2, 5, 1], [3, 7, 1], 9)
    counted_empty.save(tmp_path / "counted.txt")
    back = Vocabulary.load(tmp_path / "counted.txt")
    assert back.terms == ["a", "", "b"] and back.doc_freq.tolist() == [2, 5, 1] and back.term_freq.tolist() == [3, 7, 1]
