"""Inspection, report and the demo's topic list: what a hunt for wrong numbers and misleading messages found.

Each test pins one fix: a TopicPipeline (what ``topicvb.load`` returns for a model saved with its vectorizer) is
accepted by the inspection and report entry points; ``summary(coherence=...)`` takes any 1-D numeric array-like
as precomputed values; the errors name ``coherence``, ``coherence_measure`` and the calling function; the demo
prints the prevalence topicvb defines; ``to_pyldavis`` never returns a topic row of zeros, and refuses one topic.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb import BatchLDA, load, make_topic_pipeline, save
from topicvb.datasets import make_lda_corpus
from topicvb.evaluation import FixedTopicModel, coherence, heldout_perplexity
from topicvb.inspection import (
    junk_topics,
    representative_documents,
    summary,
    to_pyldavis,
    top_words,
    topic_prevalence,
)
from topicvb.report import report
from topicvb.text import Tokenizer, Vectorizer

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

FRUIT = "apples pears plums fruit salad orchard harvest juice sweet ripe"
CITY = "subway taxi traffic street bridge tower downtown crowd noise city"


@pytest.fixture(scope="module")
def fitted():
    corpus = make_lda_corpus(80, 30, 3, separated=True, random_state=0).corpus
    model = BatchLDA(3, random_state=0, max_iter=20).fit(corpus.X)
    return model, corpus


# ---------------------------------------------------------------------------------- TopicPipeline
@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice((FRUIT if i % 2 == 0 else CITY).split(), size=30)) for i in range(40)]
    pipe = make_topic_pipeline(Vectorizer(tokenizer=Tokenizer()), BatchLDA(2, random_state=0, max_iter=30))
    pipe.fit(texts)
    path = save(pipe, tmp_path_factory.mktemp("pipe") / "model.npz")
    loaded = load(path)
    return loaded, texts, loaded.vectorizer.transform(texts)


def test_inspection_takes_a_topic_pipeline(pipeline):
    """top_words(pipe) and summary(pipe) said "this TopicPipeline has no components_. Call fit first." though it is
    fitted; now they read its model and its vectorizer's terms."""
    pipe, texts, X = pipeline
    model, vocab = pipe.model, pipe._vocabulary()
    assert top_words(pipe, n=4) == top_words(model, vocab, 4) == pipe.top_words(4)
    assert top_words(pipe, n=4).labels == pipe.top_words(4).labels
    # relevance uses the vectorizer's term frequencies, as pipe.top_words does
    assert top_words(pipe, n=4, relevance=0.3) == pipe.top_words(4, relevance=0.3)
    table = summary(pipe, X, n=4)
    assert str(table) == str(summary(model, X, vocab, n=4)) == str(pipe.summary(texts, n=4))
    assert table.title == "BatchLDA"
    np.testing.assert_allclose(topic_prevalence(pipe, X), topic_prevalence(model, X))
    assert representative_documents(pipe, X, 2) == representative_documents(model, X, 2)
    assert junk_topics(pipe, X) == junk_topics(model, X, vocab)
    args = to_pyldavis(pipe, X)
    assert args["vocab"] == to_pyldavis(model, X, vocab)["vocab"]
    assert set(args["vocab"]) <= set(FRUIT.split()) | set(CITY.split())
    page = report(pipe, X, n_words=5)
    assert page == report(model, X, vocab, n_words=5)
    # a vocabulary given explicitly wins over the pipeline's
    names = [f"t{j}" for j in range(X.shape[1])]
    assert all(w.startswith("t") for topic in top_words(pipe, names, 3) for w, _ in topic)


def test_a_function_that_takes_no_pipeline_says_to_pass_its_model(pipeline):
    pipe, _, X = pipeline
    with pytest.raises(TypeError, match=r"heldout_perplexity .*TopicPipeline.*pipe\.model"):
        heldout_perplexity(pipe, X)


def test_an_unfitted_pipeline_says_fit_first():
    from sklearn.exceptions import NotFittedError

    pipe = make_topic_pipeline(Vectorizer(tokenizer=Tokenizer()), BatchLDA(2))
    with pytest.raises(NotFittedError, match="top_words needs a fitted model"):
        top_words(pipe)


# ---------------------------------------------------------------------------------- summary(coherence=...)
def test_summary_takes_any_numeric_array_like_as_precomputed_coherence(fitted):
    """A pandas Series (or a tuple of floats, or a strided view) of per-topic scores was taken for a reference
    corpus and failed with a message about tokenised documents."""
    model, corpus = fitted
    values = [0.1, 0.2, 0.3]
    candidates = [np.array(values), tuple(values), [np.float32(v) for v in values], np.arange(6.0)[::2] / 10 + 0.1,
                  np.array(values, dtype=np.float32), [1, 2, 3]]
    pd = pytest.importorskip("pandas")
    candidates.append(pd.Series(values, index=["a", "b", "c"]))
    for given in candidates:
        table = summary(model, corpus.X, corpus.vocabulary, n=3, coherence=given)
        np.testing.assert_allclose(table.coherence, np.asarray(given, dtype=np.float64), rtol=1e-6)
        assert table.coherence_measure == "coherence"


def test_summary_coherence_errors_name_the_parameter(fitted):
    model, corpus = fitted
    for bad in ([], np.array([]), (), np.array(["a", "b", "c"]), np.zeros((3, 1)), [0.1, 0.2],
                np.array([0.1, 0.2, 0.3, 0.4]), np.array([True, False, True])):
        with pytest.raises((TypeError, ValueError), match=r"summary: coherence "):
            summary(model, corpus.X, corpus.vocabulary, n=3, coherence=bad)
    with pytest.raises(ValueError, match=r"summary: coherence has 2 values, but the model has 3 topics"):
        summary(model, corpus.X, corpus.vocabulary, n=3, coherence=[0.1, 0.2])
    with pytest.raises(ValueError, match=r"summary: coherence is empty"):
        summary(model, corpus.X, corpus.vocabulary, n=3, coherence=[])
    # reference corpora are still reference corpora
    pair = summary(model, corpus.X, corpus.vocabulary, n=3, coherence=(corpus.X, corpus.vocabulary))
    assert pair.coherence_measure == "c_npmi"
    np.testing.assert_allclose(pair.coherence, summary(model, corpus.X, corpus.vocabulary, n=3,
                                                       coherence=corpus).coherence)
    texts = [["w0001", "w0002"], ["w0003"]]
    assert summary(model, corpus.X, corpus.vocabulary, n=3, coherence=texts).coherence.shape == (3,)


# ---------------------------------------------------------------------------------- messages
def test_coherence_measure_is_checked_by_name_and_first(fitted, monkeypatch):
    model, corpus = fitted
    measure = re.escape("coherence_measure must be one of {'c_npmi', 'c_uci', 'c_v', 'u_mass'}, got 'npmi'.")
    with pytest.raises(ValueError, match="summary: " + measure):
        summary(model, corpus.X, corpus.vocabulary, coherence=(corpus.X, corpus.vocabulary), coherence_measure="npmi")
    with pytest.raises(ValueError, match="summary: " + measure):  # accepted silently without coherence before
        summary(model, corpus.X, corpus.vocabulary, coherence_measure="npmi")
    with pytest.raises(ValueError, match="summary: coherence_measure must be one of"):
        summary(model, corpus.X, corpus.vocabulary, coherence_measure=None)
    import topicvb.report._build as build

    def expensive(*args, **kwargs):
        raise AssertionError("the measure is checked before the report's work")

    monkeypatch.setattr(build, "prevalence_and_doc_topic", expensive)
    with pytest.raises(ValueError, match="report: " + measure):
        report(model, corpus.X, corpus.vocabulary, coherence_reference=(corpus.X, corpus.vocabulary),
               coherence_measure="npmi")


def test_report_coherence_reference_errors_name_it(fitted):
    model, corpus = fitted
    with pytest.raises(TypeError, match=r"^report: coherence_reference must be .*a reference corpus"):
        report(model, corpus.X, corpus.vocabulary, coherence_reference="abc")
    with pytest.raises(ValueError, match=r"^report: coherence_reference has 2 values, but the model has 3 topics"):
        report(model, corpus.X, corpus.vocabulary, coherence_reference=[0.1, 0.2])
    page = report(model, corpus.X, corpus.vocabulary, coherence_reference=(corpus.X, corpus.vocabulary))
    assert "c_npmi" in page


def test_coherence_function_lists_the_measures_in_order():
    with pytest.raises(ValueError, match=re.escape("measure must be one of {'c_npmi', 'c_uci', 'c_v', 'u_mass'}")):
        coherence([["a", "b"]], [["a", "b"]], measure="npmi")


def test_an_all_empty_x_names_the_caller(fitted):
    model, corpus = fitted
    empty = sp.csr_matrix((5, corpus.X.shape[1]))
    for caller, call in (("summary", lambda: summary(model, empty, corpus.vocabulary)),
                         ("report", lambda: report(model, empty, corpus.vocabulary)),
                         ("topic_prevalence", lambda: topic_prevalence(model, empty))):
        with pytest.raises(ValueError, match=rf"^{caller} needs at least one token in X; every document is empty"):
            call()


# ---------------------------------------------------------------------------------- to_pyldavis
def test_to_pyldavis_never_returns_a_row_of_zeros():
    """A topic none of whose terms occur in X, with drop_unused_terms (the default) and min_probability=0, was a
    row of zeros (pyLDAvis fails); it is uniform over the kept terms, as the default floor already made it."""
    phi = np.zeros((2, 10))
    phi[0, :5] = 0.2
    phi[1, 5:] = 0.2
    X = sp.csr_matrix(np.array([[0, 0, 0, 0, 0, 3, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0, 2, 2, 0, 0]], dtype=float))
    for floor in (0.0, 1e-12):
        ttd = to_pyldavis(FixedTopicModel(phi), X, min_probability=floor)["topic_term_dists"]
        np.testing.assert_allclose(ttd.sum(axis=1), 1.0)
        np.testing.assert_allclose(ttd[0], 1.0 / 3)
        assert np.all(np.isfinite(ttd))


def test_to_pyldavis_refuses_one_topic(fitted):
    _, corpus = fitted
    model = BatchLDA(1, random_state=0, max_iter=5).fit(corpus.X)
    with pytest.raises(ValueError, match=r"to_pyldavis: pyLDAvis needs at least 2 topics"):
        to_pyldavis(model, corpus.X)


def test_to_pyldavis_docstring_warns_of_the_reordering():
    doc = " ".join(to_pyldavis.__doc__.split())
    assert "sort_topics=False" in doc and "at least 2 topics" in doc


# ---------------------------------------------------------------------------------- the demo's topic list
def test_demo_prints_the_topic_prevalence(monkeypatch, capsys):
    """The demo printed components_.sum(1) / total as each topic's share: 100/K % for every PLSA topic (its rows
    are probabilities), and not topic_prevalence for HDP or StochasticCollapsedLDA either."""
    import topicvb.datasets
    from topicvb import _cli_commands
    from topicvb.cli import main

    corpus = make_lda_corpus(80, 30, 3, separated=True, random_state=1).corpus
    monkeypatch.setattr(topicvb.datasets, "load_builtin_corpus", lambda *a, **k: corpus)
    seen = []
    original = _cli_commands._topics_text

    def spy(model, *args, **kwargs):
        seen.append(model)
        return original(model, *args, **kwargs)

    monkeypatch.setattr(_cli_commands, "_topics_text", spy)
    assert main(["demo", "--model", "plsa", "-k", "3", "--max-iter", "30", "--n", "3"]) == 0
    out = capsys.readouterr().out
    shares = [float(s) for s in re.findall(r"^topic +\d+ \( *([\d.]+)%\):", out, flags=re.M)]
    assert len(shares) == 3
    (model,) = seen
    expected = np.round(100 * topic_prevalence(model, corpus.X), 1)
    assert np.ptp(expected) > 1  # the old display (33.3% each) would not pass
    np.testing.assert_allclose(shares, expected, atol=0.051)


@pytest.mark.parametrize("name", ["PLSA", "HDP", "StochasticCollapsedLDA"])
def test_topics_text_shares_are_topic_prevalence(name):
    import topicvb
    from topicvb._cli_commands import _topics_text

    corpus = make_lda_corpus(80, 30, 3, separated=True, random_state=0).corpus
    k = 10 if name == "HDP" else 3
    model = getattr(topicvb, name)(k, random_state=0, max_iter=10).fit(corpus.X)
    text = _topics_text(model, corpus.vocabulary, 3, corpus.X)
    shares = [float(s) for s in re.findall(r"^topic +\d+ \( *([\d.]+)%\):", text, flags=re.M)]
    np.testing.assert_allclose(shares, np.round(100 * topic_prevalence(model, corpus.X), 1), atol=0.051)
    assert "%" not in _topics_text(model, corpus.vocabulary, 3)  # no corpus: no share to show


# ---------------------------------------------------------------------------------- values that are not finite
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_precomputed_coherence_that_is_not_finite_is_refused_at_once(fitted, value):
    """A hunt: summary showed NaN coherence as nan, and report did all its work, then blamed the model ("a non-finite
    value reached the page data; the model may be degenerate")."""
    model, corpus = fitted
    values = [0.1, value, 0.2]
    with pytest.raises(ValueError, match=r"summary: coherence must hold finite values, but topic 1's is (nan|inf)"):
        summary(model, corpus.X, corpus.vocabulary, coherence=values)
    with pytest.raises(ValueError, match=r"report: coherence_reference must hold finite values, but topic 1's is "):
        report(model, corpus.X, corpus.vocabulary, coherence_reference=values)


def test_a_topic_table_with_values_that_are_not_finite_displays_in_a_notebook():
    """A hunt: TopicTable._repr_html_ raised "cannot convert float NaN to integer" where str() printed nan%."""
    from topicvb import TopicTable

    tables = [TopicTable([[("a", 0.5), ("b", 0.3)], [("c", 0.6)]], prevalence=[np.nan, 0.5]),
              TopicTable([[("a", np.nan), ("b", 0.3)], [("c", 0.6)]]),
              TopicTable([[("a", 0.5)], [("c", 0.6)]], prevalence=[np.inf, 0.5])]
    html = [table._repr_html_() for table in tables]
    for page in (html[0], html[2]):  # no bar for the share that is not finite, a full one for 0.5 (the largest)
        assert "width:0px;height:8px" in page and "width:60px;height:8px" in page
    assert "nan%" in html[0] and "inf%" in html[2]
    assert "width:0px;height:3px" in html[1] and "width:40px;height:3px" in html[1]  # (b: the largest finite weight)


# ---------------------------------------------------------------- a second hunt (session 18)
def _pet_texts():
    rng = np.random.default_rng(0)
    fruit = "apple pear plum cherry banana grape melon peach lemon mango".split()
    cars = "car truck bus engine wheel brake tyre motor driver road".split()
    pets = "dog cat hamster parrot puppy kitten leash collar vet fish".split()
    return [" ".join(rng.choice([fruit, cars, pets][i % 3], 12)) + " " + " ".join(rng.choice(fruit + cars + pets, 3))
            for i in range(90)]


@pytest.fixture(scope="module")
def pet_pipeline():
    return make_topic_pipeline(Vectorizer(tokenizer=Tokenizer(stop_words=None)),
                               BatchLDA(3, random_state=0, max_iter=30)).fit(_pet_texts())


def _words(rows):
    return [[w for w, _ in row] for row in rows]


def test_pipeline_summary_relevance_ranks_by_the_training_frequencies_not_those_of_texts(pet_pipeline):
    """The texts of summary measure prevalence; relevance ranks by the vectorizer's training frequencies, as
    top_words does (a few texts used to push every word they lack to the bottom: every topic had the same words)."""
    want = _words(pet_pipeline.top_words(5, relevance=0.6))
    assert len({tuple(w) for w in want}) == 3
    for texts in (None, ["apple car dog"], _pet_texts()[:3]):
        table = pet_pipeline.summary(texts, n=5, relevance=0.6)
        assert _words(table.topics) == want
    counts = np.ones(len(pet_pipeline._vocabulary()))  # an explicit term_frequency is used as given
    assert _words(pet_pipeline.top_words(5, relevance=0.6, term_frequency=counts)) == \
        _words(top_words(pet_pipeline[-1], list(pet_pipeline._vocabulary()), 5, 0.6, term_frequency=counts))


def test_a_plain_pipeline_with_a_topicvb_vectorizer_keeps_the_training_frequencies(pet_pipeline):
    """GridSearchCV's best_estimator_ is a plain Pipeline: relevance works on it as on a TopicPipeline."""
    from sklearn.pipeline import Pipeline

    plain = Pipeline(pet_pipeline.steps)
    assert _words(top_words(plain, n=5, relevance=0.6)) == _words(pet_pipeline.top_words(5, relevance=0.6))
    assert _words(summary(plain, n=5, relevance=0.6).topics) == \
        _words(pet_pipeline.top_words(5, relevance=0.6))


def test_a_pipeline_without_training_frequencies_names_the_argument_it_takes():
    from sklearn.feature_extraction.text import CountVectorizer

    pipe = make_topic_pipeline(CountVectorizer(), BatchLDA(3, random_state=0, max_iter=10)).fit(_pet_texts())
    for call in (lambda: pipe.top_words(5, relevance=0.6), lambda: pipe.summary(relevance=0.6)):
        with pytest.raises(ValueError, match=r"CountVectorizer does not; pass term_frequency="):
            call()
    X = pipe[:-1].transform(_pet_texts())
    tf = np.asarray(X.sum(axis=0)).ravel()
    assert _words(pipe.top_words(5, relevance=0.6, term_frequency=tf)) == \
        _words(top_words(pipe[-1], list(pipe[:-1].get_feature_names_out()), 5, 0.6, X=X))
    assert pipe.summary(_pet_texts(), relevance=0.6).topics  # (texts give the frequencies there)


@pytest.mark.parametrize("edit", ["nan", "inf", "zero row", "negative"])
def test_the_models_own_top_words_refuse_a_damaged_components(edit):
    """model.top_words gave NaN weights (or dropped the infinite term) where the inspection functions refuse."""
    model = BatchLDA(3, random_state=0, max_iter=5).fit(make_lda_corpus(40, 20, 3, random_state=0).corpus.X)
    comp = model.components_.copy()
    if edit == "zero row":
        comp[1] = 0.0
    else:
        comp[1, 2] = {"nan": np.nan, "inf": np.inf, "negative": -1.0}[edit]
    model.components_ = comp
    for call in (model.topic_word_distribution, lambda: model.top_words(3)):
        with pytest.raises(ValueError, match=r"BatchLDA.components_ must hold non-negative finite weights .*topic 1"):
            call()


def test_the_models_top_words_say_the_vocabulary_comes_second():
    model = BatchLDA(3, random_state=0, max_iter=5).fit(make_lda_corpus(40, 20, 3, random_state=0).corpus.X)
    with pytest.raises(TypeError, match=r"the vocabulary is the second argument: model.top_words\(10, vocabulary\)"):
        model.top_words([f"w{j}" for j in range(20)])


def test_a_topic_table_of_a_slice_keeps_the_topics_numbers():
    """TopicTable(top_words(...)[1:]) numbered its rows 0, 1 (and showed a label column of topic_1, topic_2 as
    names of their own) where the slice holds topics 1 and 2."""
    import io

    from topicvb.inspection import TopicTable

    model = BatchLDA(3, random_state=0, max_iter=5).fit(make_lda_corpus(40, 20, 3, random_state=0).corpus.X)
    words = model.top_words(3)
    table = TopicTable(words[1:])
    assert table.numbers == [1, 2]
    assert [(row["topic"], row["label"]) for row in table.to_dict()["topics"]] == [(1, "topic_1"), (2, "topic_2")]
    lines = str(table).splitlines()
    assert lines[0].split() == ["topic", "top", "words"]  # no label column: the names are the defaults
    assert [line.split()[0] for line in lines[1:]] == ["1", "2"]
    buffer = io.StringIO()
    table.to_csv(buffer)
    rows = buffer.getvalue().splitlines()
    assert rows[0] == "topic,rank,word,weight,prevalence,coherence,junk"
    assert [r.split(",")[0] for r in rows[1:]] == ["1"] * 3 + ["2"] * 3
    assert re.search(r'<td style="[^"]*">1</td>', table._repr_html_())
    whole = TopicTable(words)
    assert whole.numbers == [0, 1, 2] and str(whole).splitlines()[1].split()[0] == "0"
    assert TopicTable([[("a", 1.0)]], numbers=[7]).to_dict()["topics"][0]["topic"] == 7
    # numbers without labels: the default names are those of the numbers, no label column (a review)
    given = TopicTable([[("a", 0.5), ("b", 0.3)], [("c", 0.6), ("d", 0.2)]], numbers=[3, 7])
    assert [(row["topic"], row["label"]) for row in given.to_dict()["topics"]] == [(3, "topic_3"), (7, "topic_7")]
    assert str(given).splitlines()[0].split() == ["topic", "top", "words"]
    with pytest.raises(ValueError, match=r"numbers must have one int topic number per topic \(1\)"):
        TopicTable([[("a", 1.0)]], numbers=[1, 2])
