"""Top words, relevance, prevalence, representative documents, the topic table and pyLDAvis export."""

import io
import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from topicvb import BatchLDA, PLSA
from topicvb.datasets import make_lda_corpus
from topicvb.evaluation import FixedTopicModel, coherence
from topicvb.inspection import (
    TopicTable,
    is_non_word,
    junk_topics,
    representative_documents,
    summary,
    to_pyldavis,
    top_words,
    topic_prevalence,
)


@pytest.fixture(scope="module")
def fitted():
    corpus, topic_word, _ = make_lda_corpus(200, 30, 3, separated=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = BatchLDA(3, random_state=0, max_iter=40).fit(corpus.X)
    return model, corpus


# ---------------------------------------------------------------------------------- top words
def test_top_words_by_probability(fitted):
    model, corpus = fitted
    words = top_words(model, corpus.vocabulary, n=5)
    assert words == model.top_words(5, corpus.vocabulary)
    phi = model.topic_word_distribution()
    for k, topic in enumerate(words):
        assert [w for w, _ in topic] == [corpus.vocabulary[j] for j in np.argsort(-phi[k], kind="stable")[:5]]
        assert all(a >= b for (_, a), (_, b) in zip(topic, topic[1:]))
    # default vocabulary: column indices as strings
    assert top_words(model, n=1)[0][0][0] == str(int(np.argmax(phi[0])))


def test_n_larger_than_the_vocabulary_is_clipped(fitted):
    model, corpus = fitted
    words = top_words(model, corpus.vocabulary, n=1000)
    assert all(len(t) == 30 for t in words)


def test_relevance_reranks_by_lift(fitted):
    model, corpus = fitted
    X = corpus.X
    phi = model.topic_word_distribution()
    tf = np.asarray(X.sum(axis=0)).ravel()
    p = tf / tf.sum()
    # lambda = 1 is the plain ranking
    assert top_words(model, corpus.vocabulary, 6, relevance=1.0, X=X) == top_words(model, corpus.vocabulary, 6)
    # lambda = 0.6: 0.6 log phi + 0.4 log(phi / p); the weights stay phi. A term that never occurs
    # (p = 0; this corpus has some) would have infinite lift: it is ranked last instead
    assert np.any(p == 0)
    with np.errstate(divide="ignore"):
        rel = np.where(p > 0, 0.6 * np.log(phi) + 0.4 * np.log(phi / p), -np.inf)
    words = top_words(model, corpus.vocabulary, 6, relevance=0.6, term_frequency=tf)
    for k, topic in enumerate(words):
        expected = np.argsort(-rel[k], kind="stable")[:6]
        assert [w for w, _ in topic] == [corpus.vocabulary[j] for j in expected]
        assert [v for _, v in topic] == pytest.approx(phi[k, expected].tolist())
    assert words == top_words(model, corpus.vocabulary, 6, relevance=0.6, X=X)


def test_top_words_bad_input(fitted):
    model, corpus = fitted
    with pytest.raises(ValueError, match="relevance re-ranking needs the corpus term frequencies"):
        top_words(model, corpus.vocabulary, relevance=0.5)
    with pytest.raises(ValueError, match=r"relevance must be a number in \[0, 1\]"):
        top_words(model, corpus.vocabulary, relevance=1.5, X=corpus.X)
    with pytest.raises(ValueError, match="vocabulary has 29 terms, but the model has 30"):
        top_words(model, corpus.vocabulary[:29])
    with pytest.raises(ValueError, match="n must be a positive int"):
        top_words(model, corpus.vocabulary, n=0)
    with pytest.raises(NotFittedError, match="not fitted"):
        top_words(BatchLDA(3), corpus.vocabulary)
    with pytest.raises(ValueError, match="term_frequency must have one entry per term"):
        top_words(model, corpus.vocabulary, relevance=0.5, term_frequency=[1, 2])


# ---------------------------------------------------------------------------------- prevalence and documents
def test_prevalence_is_the_token_weighted_share(fitted):
    model, corpus = fitted
    X = corpus.X
    prev = topic_prevalence(model, X)
    theta = model.transform(X)
    lengths = np.asarray(X.sum(axis=1)).ravel()
    np.testing.assert_allclose(prev, lengths @ theta / lengths.sum())
    assert prev.sum() == pytest.approx(1.0)
    # empty documents weigh nothing
    padded = sp.vstack([X, sp.csr_matrix((5, 30))]).tocsr()
    np.testing.assert_allclose(topic_prevalence(model, padded), prev)
    with pytest.raises(ValueError, match="at least one token"):
        topic_prevalence(model, np.zeros((2, 30)))
    with pytest.raises(ValueError, match="X has 31 terms"):
        topic_prevalence(model, np.ones((2, 31)))


def test_representative_documents(fitted):
    model, corpus = fitted
    X = sp.vstack([sp.csr_matrix((1, 30)), corpus.X]).tocsr()  # an empty document first
    docs = representative_documents(model, X, n=4)
    theta = model.transform(X)
    assert len(docs) == 3
    for k, top in enumerate(docs):
        assert len(top) == 4
        assert 0 not in [d for d, _ in top]
        shares = [s for _, s in top]
        assert shares == sorted(shares, reverse=True)
        assert shares[0] == pytest.approx(theta[1:, k].max())
        assert all(theta[d, k] == pytest.approx(s) for d, s in top)
    again = representative_documents(model, X, n=4, doc_topic=theta)
    assert [[d for d, _ in top] for top in again] == [[d for d, _ in top] for top in docs]
    assert len(representative_documents(model, corpus.X[:3], n=10)[0]) == 3


# ---------------------------------------------------------------------------------- the topic table
def test_summary_table(fitted):
    model, corpus = fitted
    table = summary(model, corpus.X, corpus.vocabulary, n=5, coherence=corpus)
    assert isinstance(table, TopicTable) and len(table) == 3
    assert table.coherence_measure == "c_npmi"
    expected = coherence(top_words(model, corpus.vocabulary, 5), corpus, measure="c_npmi").per_topic
    np.testing.assert_allclose(table.coherence, expected)
    np.testing.assert_allclose(table.prevalence, topic_prevalence(model, corpus.X))

    buf = io.StringIO()
    table.to_csv(buf)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "topic,rank,word,weight,prevalence,coherence,junk"
    assert len(lines) == 1 + 3 * 5
    first = lines[1].split(",")
    assert first[:3] == ["0", "1", table.topics[0][0][0]]
    assert float(first[3]) == table.topics[0][0][1]
    assert float(first[4]) == table.prevalence[0]

    data = table.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["topics"][2]["words"] == [w for w, _ in table.topics[2]]
    assert data["topics"][0]["prevalence"] == pytest.approx(table.prevalence[0])

    text = str(table)
    assert "BatchLDA" in text and "prevalence" in text and "c_npmi" in text
    assert len(text.splitlines()) == 1 + 1 + 3
    assert " ".join(w for w, _ in table.topics[1]) in text


def test_summary_html_is_self_contained_and_escaped():
    model = FixedTopicModel(np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]]))
    table = summary(model, np.array([[3, 1, 0], [0, 1, 4]]), ["<b>bold</b>", "a&b", "plain"], n=3,
                    coherence=[0.25, -0.5])
    html = table._repr_html_()
    assert html.startswith("<div") and html.endswith("</div>")
    assert "<script" not in html and "<link" not in html and "<style" not in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "a&amp;b" in html
    assert "0.250" in html and "-0.500" in html and "%" in html
    assert html.count("<tr") == 1 + 2


def test_summary_without_corpus_and_table_checks(fitted, tmp_path):
    model, corpus = fitted
    table = summary(model, vocabulary=corpus.vocabulary, n=3)
    assert table.prevalence is None and table.coherence is None
    assert "prevalence" not in str(table)
    path = tmp_path / "topics.csv"
    table.to_csv(path)
    assert path.read_text(encoding="utf-8").splitlines()[1].endswith(",,")
    with pytest.raises(ValueError, match="prevalence must have one value per topic"):
        TopicTable([[("a", 1.0)]], prevalence=[0.5, 0.5])
    with pytest.raises(TypeError, match="to_csv expects a path or a text buffer"):
        table.to_csv(3)


# ---------------------------------------------------------------------------------- junk topics
WORDS_A = ["apple", "banana", "cherry", "grape", "lemon", "mango", "olive", "peach", "pear", "plum"]
WORDS_B = ["atom", "boson", "charge", "electron", "energy", "field", "lepton", "mass", "muon", "quark"]
NON_WORDS = ["0d", "w7", "34u", "ax", "c_", "b8f", "a86", "g9v", "mv", "_o"]
WORDS_D = ["anchor", "bridge", "castle", "harbour", "island", "lagoon", "meadow", "orchard", "river", "valley"]


@pytest.fixture(scope="module")
def junk_corpus():
    """Four topics over four blocks of ten terms: fruit and physics spread over many documents, a topic
    of non-words spread as widely, and a topic of ordinary words that lives in three documents (of 240)."""
    vocab = WORDS_A + WORDS_B + NON_WORDS + WORDS_D
    phi = np.full((4, 40), 1e-4)
    for k in range(4):
        phi[k, 10 * k:10 * k + 10] = 1.0
    gen = np.random.default_rng(0)
    rows = []
    for d in range(240):
        counts = np.zeros(40)
        block = d % 3  # fruit, physics and non-words each in 80 documents
        counts[10 * block:10 * block + 10] = gen.integers(1, 4, size=10)
        rows.append(counts)
    for d in range(3):  # three long documents hold the whole of topic D
        rows[d][30:40] = 60
    return FixedTopicModel(phi), sp.csr_matrix(np.array(rows)), vocab


def test_is_non_word():
    assert all(map(is_non_word, ["0d", "w7", "34u", "ax", "c_", "__", "1990", "x", "ab", "π2"]))
    assert not any(map(is_non_word, ["abc", "matrix", "n_samples", "new_york", "café", "日本", "ναός"]))


def test_junk_topics_flags_non_words_and_few_documents(junk_corpus):
    model, X, vocab = junk_corpus
    flags = junk_topics(model, X, vocab)
    assert flags == [[], [], ["non-words"], ["few documents"]]
    # each rule alone: no X, no document rule; no vocabulary, no word rule
    assert junk_topics(model, vocabulary=vocab) == [[], [], ["non-words"], []]
    assert junk_topics(model, X) == [[], [], [], ["few documents"]]
    # topic D's tokens: the three long documents hold almost all of them (expected counts N_d theta_dk)
    theta = model.transform(X)
    tokens = np.asarray(X.sum(axis=1)).ravel()[:, None] * theta
    assert np.sort(tokens[:, 3])[-10:].sum() / tokens[:, 3].sum() > 0.9
    assert np.sort(tokens[:, 0])[-10:].sum() / tokens[:, 0].sum() < 0.2
    assert junk_topics(model, X, vocab, doc_topic=theta) == flags


def test_junk_rules_stay_quiet_where_they_cannot_judge(junk_corpus):
    model, X, vocab = junk_corpus
    # a vocabulary of codes (a synthetic corpus's "w0001"): non-words are what the data is made of
    codes = [f"w{j:04d}" for j in range(40)]
    assert junk_topics(model, vocabulary=codes) == [[], [], [], []]
    # fewer than 50 non-empty documents per topic: an ordinary topic may live in ten of them
    assert junk_topics(model, X[:199]) == [[], [], [], []]
    assert junk_topics(model, X[:200])[3] == ["few documents"]
    with pytest.raises(ValueError, match=r"doc_topic must have shape \(240, 4\)"):
        junk_topics(model, X, doc_topic=np.ones((3, 4)))
    with pytest.raises(ValueError, match="X has 39 terms"):
        junk_topics(model, X[:, :39])


def test_summary_shows_the_junk_flags(junk_corpus):
    model, X, vocab = junk_corpus
    table = summary(model, X, vocab, n=5)
    assert table.junk == [[], [], ["non-words"], ["few documents"]]
    lines = str(table).splitlines()
    assert "junk" in lines[1]
    assert "non-words" in lines[4] and "few documents" in lines[5] and "non-words" not in lines[2]
    buf = io.StringIO()
    table.to_csv(buf)
    rows = [line.split(",") for line in buf.getvalue().splitlines()[1:]]
    assert {r[-1] for r in rows if r[0] == "2"} == {"non-words"} and {r[-1] for r in rows if r[0] == "0"} == {""}
    assert table.to_dict()["topics"][3]["junk"] == ["few documents"]
    html = table._repr_html_()
    assert html.count("few documents") == 1 and html.count("non-words") == 1
    # a table with nothing flagged has no junk column
    clean = summary(model, vocabulary=[f"w{j:04d}" for j in range(40)], n=5)
    assert clean.junk == [[], [], [], []] and "junk" not in str(clean) and "junk" not in clean._repr_html_()
    with pytest.raises(ValueError, match="junk must have one list of reasons per topic"):
        TopicTable([[("a", 1.0)]], junk=[[], []])


# ---------------------------------------------------------------------------------- pyLDAvis
def test_to_pyldavis_shapes_and_normalisation(fitted):
    model, corpus = fitted
    args = to_pyldavis(model, corpus.X, corpus.vocabulary)
    assert set(args) == {"topic_term_dists", "doc_topic_dists", "doc_lengths", "vocab", "term_frequency"}
    V = len(args["vocab"])
    assert args["topic_term_dists"].shape == (3, V)
    assert args["doc_topic_dists"].shape == (200, 3)
    np.testing.assert_allclose(args["topic_term_dists"].sum(axis=1), 1.0)
    np.testing.assert_allclose(args["doc_topic_dists"].sum(axis=1), 1.0)
    np.testing.assert_array_equal(args["doc_lengths"], np.asarray(corpus.X.sum(axis=1)).ravel())
    assert args["term_frequency"].shape == (V,) and np.all(args["term_frequency"] > 0)
    assert args["term_frequency"].sum() == corpus.X.sum()


def test_to_pyldavis_drops_unused_terms():
    X = np.array([[2, 0, 1], [1, 0, 3]])
    model = PLSA(2, random_state=0, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X + np.array([0, 1, 0]))
    args = to_pyldavis(model, X, ["x", "unused", "z"])
    assert args["vocab"] == ["x", "z"]
    np.testing.assert_allclose(args["topic_term_dists"].sum(axis=1), 1.0)
    kept = to_pyldavis(model, X, ["x", "unused", "z"], drop_unused_terms=False)
    assert kept["vocab"] == ["x", "unused", "z"]
    assert to_pyldavis(model, X, ["x", "unused", "z"], drop_unused_terms=np.False_)["vocab"] == kept["vocab"]
    for value in ["no", "False", 0, None]:
        with pytest.raises(TypeError, match=r"drop_unused_terms must be True or False, got"):
            to_pyldavis(model, X, ["x", "unused", "z"], drop_unused_terms=value)


def test_to_pyldavis_floors_tiny_probabilities():
    """Probabilities below min_probability (zeros, underflowed values) are raised to it, rows renormalised."""
    phi = np.array([[0.5, 0.5 - 1e-300, 1e-300, 0.0], [0.25, 0.25, 0.25, 0.25]])
    model = FixedTopicModel(phi)
    X = np.array([[1, 2, 1, 1], [3, 0, 1, 2]])
    args = to_pyldavis(model, X, list("abcd"))
    ttd = args["topic_term_dists"]
    np.testing.assert_allclose(ttd.sum(axis=1), 1.0)
    assert ttd[0, 2] == ttd[0, 3] == pytest.approx(1e-12, rel=1e-11)
    assert ttd[0, 0] == pytest.approx(0.5, rel=1e-11)
    np.testing.assert_array_equal(ttd[1], phi[1])  # nothing to raise: unchanged
    raw = to_pyldavis(model, X, list("abcd"), min_probability=0)["topic_term_dists"]
    assert raw[0, 3] == 0.0 and raw[0, 2] == 1e-300
    assert to_pyldavis(model, X, list("abcd"), min_probability=0.01)["topic_term_dists"][0, 3] == pytest.approx(0.01 / 1.02)
    for bad in (-1e-12, 0.3, float("nan"), "1e-12", True):
        with pytest.raises(ValueError, match=r"min_probability must be a number in \[0, 1/n_terms\]"):
            to_pyldavis(model, X, list("abcd"), min_probability=bad)


# ---------------------------------------------------------------------------------- with the real pyLDAvis
@pytest.fixture(scope="module")
def pyldavis():
    return pytest.importorskip("pyLDAvis", reason="pyLDAvis is not installed (it is in the test extra: "
                                                  "pip install '.[test]' or pip install pyLDAvis)")


def _pyldavis_prepare(pyldavis, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas/joblib deprecation notes from inside pyLDAvis
        return pyldavis.prepare(**args, n_jobs=1, sort_topics=False)


@pytest.mark.parametrize("name", ["PLSA", "BatchLDA", "CollapsedLDA", "OnlineLDA", "StochasticCollapsedLDA"])
def test_pyldavis_prepare_accepts_every_estimator(pyldavis, name):
    import topicvb

    corpus = make_lda_corpus(60, 40, 3, separated=True, random_state=0).corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = getattr(topicvb, name)(3, random_state=0, max_iter=20).fit(corpus.X)
    args = to_pyldavis(model, corpus.X, corpus.vocabulary)
    vis = _pyldavis_prepare(pyldavis, args)
    coords = vis.topic_coordinates[["x", "y"]].to_numpy()
    assert coords.shape == (3, 2) and np.all(np.isfinite(coords))
    assert np.all(np.isfinite(vis.topic_info["Freq"].to_numpy()))
    assert set(vis.topic_info["Term"]) <= set(args["vocab"])
    html = pyldavis.prepared_data_to_html(vis)
    assert "ldavis" in html.lower()


def test_pyldavis_prepare_after_plsa_underflow(pyldavis):
    """A long pLSA fit drives unused terms' probabilities to subnormal numbers; halving one (pyLDAvis's
    Jensen-Shannon midpoint) gives 0 and an infinite divergence, so the map failed with LinAlgError."""
    from topicvb.evaluation._common import topic_word

    corpus = make_lda_corpus(200, 100, 5, separated=True, random_state=0).corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = PLSA(5, random_state=0, max_iter=300, tol=0.0, moves=False).fit(corpus.X)
    phi = topic_word(model)
    assert np.any((phi > 0) & (0.5 * phi == 0))  # the failure's precondition holds for this fit
    args = to_pyldavis(model, corpus.X, corpus.vocabulary)
    assert args["topic_term_dists"].min() >= 1e-12 * (1 - 1e-9)
    vis = _pyldavis_prepare(pyldavis, args)
    assert np.all(np.isfinite(vis.topic_coordinates[["x", "y"]].to_numpy()))


# ---------------------------------------------------------------------------------- vocabularies, term frequencies
def test_vocabulary_dict_is_ordered_by_column_and_sets_are_refused(fitted):
    model, corpus = fitted
    terms = list(corpus.vocabulary)
    # a term -> column dict (scikit-learn's CountVectorizer.vocabulary_) inserted in reverse column order
    as_dict = {t: np.int64(j) for j, t in reversed(list(enumerate(terms)))}
    assert top_words(model, as_dict, n=3) == top_words(model, terms, n=3)
    assert to_pyldavis(model, corpus.X, as_dict)["vocab"] == to_pyldavis(model, corpus.X, terms)["vocab"]
    shifted = {t: j + 1 for j, t in enumerate(terms)}  # ids 1..V: not the columns
    for bad in [set(terms), frozenset(terms), as_dict.keys(), shifted]:
        with pytest.raises(TypeError, match=r"top_words: vocabulary must be an ordered sequence of terms.*"
                                            r"get_feature_names_out"):
            top_words(model, bad, n=3)


def test_top_words_term_frequency_must_be_numeric(fitted):
    model, corpus = fitted
    n_terms = corpus.X.shape[1]
    with pytest.raises(TypeError, match=r"top_words: term_frequency must be an array of non-negative term counts, one "
                                        r"per term \(30\), got an array of dtype <U1"):
        top_words(model, corpus.vocabulary, n=2, relevance=0.5, term_frequency=["x"] * n_terms)
    with pytest.raises(TypeError, match=r"term_frequency must be an array of non-negative term counts"):
        top_words(model, corpus.vocabulary, n=2, relevance=0.5, term_frequency=[object()] * n_terms)
    tf = np.asarray(corpus.X.sum(axis=0)).ravel()
    assert top_words(model, corpus.vocabulary, n=2, relevance=0.5, term_frequency=list(tf.astype(int))) == top_words(
        model, corpus.vocabulary, n=2, relevance=0.5, X=corpus.X)
