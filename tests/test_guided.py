"""Guided topics (issue #21): the seed-word prior builder, topic names downstream (top words, tables, the
report, plots, the command line), saving and loading them, and seeds in the pipeline and ``topicvb fit``."""

from __future__ import annotations

import copy
import csv
import io
import json
import logging
import pickle
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from topicvb import (BatchLDA, CollapsedLDA, SeededPrior, TopicPipeline, load, make_topic_pipeline, persistence, save,
                     seed_topic_prior, summary, top_words)
from topicvb.cli import main
from topicvb.guided import DEFAULT_SEED_CONFIDENCE
from topicvb.inspection import TopicWords
from topicvb.text import Tokenizer, Vectorizer

pytestmark = [pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
              pytest.mark.filterwarnings("ignore::topicvb.exceptions.DeadTopicWarning")]

VOCAB = ["nasa", "orbit", "shuttle", "puck", "goal", "ice", "pasta", "garlic", "the"]

# ----------------------------------------------------------------------------- a small corpus of four themes
THEMES = {
    "space": "nasa orbit shuttle launch rocket moon astronaut satellite",
    "hockey": "puck goal ice team season player coach rink",
    "cooking": "pasta sauce garlic oven bake recipe flour butter",
    "money": "bank loan interest market stock bond price trade",
}


def theme_texts(n_per_theme=25, seed=0):
    """Documents of 20 words, 85% from their theme: (texts, theme of each)."""
    rng = np.random.RandomState(seed)
    names = list(THEMES)
    texts, themes = [], []
    for i in range(n_per_theme * len(names)):
        theme = names[i % len(names)]
        words = [rng.choice(THEMES[theme].split()) if rng.rand() < 0.85
                 else rng.choice(THEMES[names[rng.randint(len(names))]].split()) for _ in range(20)]
        texts.append(" ".join(words))
        themes.append(theme)
    return texts, themes


@pytest.fixture(scope="module")
def corpus():
    texts, themes = theme_texts()
    vec = Vectorizer(tokenizer=Tokenizer())
    X = vec.fit_transform(texts)
    return texts, themes, vec, X


SEEDS = {"space": ["nasa", "orbit"], "cooking": ["garlic", "pasta", "saffron"]}


@pytest.fixture(scope="module")
def guided(corpus):
    _, _, vec, X = corpus
    prior = seed_topic_prior(vec.vocab_, SEEDS, 5)
    return BatchLDA(5, topic_word_prior=prior, max_iter=50, random_state=0).fit(X), prior


# ----------------------------------------------------------------------------- the builder
def test_builder_shape_labels_and_weights_as_documented():
    c, K = 0.9, 4
    prior = seed_topic_prior(VOCAB, {"space": ["nasa", "orbit"], "hockey": ["puck"]}, K, seed_confidence=c)
    assert isinstance(prior, SeededPrior)
    assert prior.labels == ["space", "hockey", "topic_2", "topic_3"]
    assert prior.matrix.shape == (K, len(VOCAB)) and prior.matrix.dtype == np.float64
    b = 1.0 / K  # the estimators' default topic_word_prior
    seed = b * c * (K - 1) / (1 - c)
    expected = np.full((K, len(VOCAB)), b)
    expected[0, 0] = expected[0, 1] = expected[1, 3] = seed
    np.testing.assert_allclose(prior.matrix, expected, rtol=1e-12)
    for k, j in [(0, 0), (0, 1), (1, 3)]:  # the seed topic holds the share c of the word's pseudo-counts
        assert prior.matrix[k, j] / prior.matrix[:, j].sum() == pytest.approx(c, rel=1e-12)
    assert prior.seed_topics == {"space": ["nasa", "orbit"], "hockey": ["puck"]}
    assert prior.missing == {} and prior.seed_confidence == c and prior.base_prior == b
    assert np.asarray(prior) is prior.matrix


def test_builder_base_prior_and_confidence_scale_the_seed_weight():
    prior = seed_topic_prior(VOCAB, {"space": ["nasa"]}, 10, seed_confidence=0.99, base_prior=0.5)
    assert prior.matrix[0, 0] == pytest.approx(0.5 * 0.99 * 9 / 0.01)
    assert np.all(np.delete(prior.matrix.ravel(), 0) == 0.5)
    # with the default base prior, about c / (1 - c) pseudo-occurrences (the docstring's rule of thumb)
    assert seed_topic_prior(VOCAB, {"s": ["nasa"]}, 20).matrix[0, 0] == pytest.approx(0.9 / 0.1 * 19 / 20)


def test_a_word_seeding_two_topics_splits_the_share():
    prior = seed_topic_prior(VOCAB, {"space": ["nasa"], "agency": ["nasa", "the"]}, 5, seed_confidence=0.8)
    col = prior.matrix[:, 0]
    assert col[0] == col[1] > col[2]
    assert (col[0] + col[1]) / col.sum() == pytest.approx(0.8)
    assert col[2:].tolist() == [0.2] * 3


def test_unknown_seed_words_are_reported_not_dropped_silently(caplog):
    with caplog.at_level(logging.WARNING, logger="topicvb.guided"):
        prior = seed_topic_prior(VOCAB, {"space": ["nasa", "NASA", "spaceship"], "hockey": ["puck"]}, 3)
    assert prior.missing == {"space": ["NASA", "spaceship"]}
    assert prior.seed_topics["space"] == ["nasa"]
    assert "2 seed words are not in the vocabulary" in caplog.text
    assert "space: NASA, spaceship" in caplog.text and "'NASA' -> 'nasa'" in caplog.text  # the lower-case hint
    assert "2 seed words not in the vocabulary" in repr(prior)
    assert "(not in the vocabulary: NASA spaceship)" in prior.describe()


def test_a_tokenizer_finds_a_seed_word_written_differently():
    tok = Tokenizer(stemmer="porter")
    vocab = tok.tokenize("shuttles orbiting rockets pucks")
    prior = seed_topic_prior(vocab, {"space": ["Shuttles", "rocket", "orbit"]}, 2, tokenizer=tok)
    assert prior.seed_topics["space"] == [tok.tokenize("shuttles")[0], tok.tokenize("rocket")[0],
                                          tok.tokenize("orbit")[0]]
    assert prior.missing == {}
    plain = seed_topic_prior(vocab, {"s": ["rockets", "xyz", vocab[0]]}, 2, tokenizer=str.split)
    assert plain.missing == {"s": ["rockets", "xyz"]}  # str.split does not stem


def test_exclude_zeroes_the_prior_of_a_word_in_a_topic():
    prior = seed_topic_prior(VOCAB, {"space": ["nasa"], "hockey": ["puck"]}, 3,
                             exclude={"space": ["puck", "pasta"], "topic_2": ["nasa"]})
    j = {t: i for i, t in enumerate(VOCAB)}
    assert prior.matrix[0, j["puck"]] == prior.matrix[0, j["pasta"]] == prior.matrix[2, j["nasa"]] == 0.0
    assert prior.exclude == {"space": ["puck", "pasta"], "topic_2": ["nasa"]}
    col = prior.matrix[:, j["nasa"]]  # the topics that exclude the word do not count in its share
    assert col[0] / col.sum() == pytest.approx(DEFAULT_SEED_CONFIDENCE)


def test_a_seed_word_every_other_topic_excludes_keeps_a_raised_weight():
    """Its seed topic holds all of it whatever the weight; the weight is that of the word without the exclusions,
    so the row still raises it: the estimators' start and seed_holding see the topic as seeded."""
    from topicvb._seed_holding import _favoured_terms

    j = {t: i for i, t in enumerate(VOCAB)}
    plain = seed_topic_prior(VOCAB, {"space": ["nasa"]}, 3)
    prior = seed_topic_prior(VOCAB, {"space": ["nasa"]}, 3, exclude={"topic_1": ["nasa"], "topic_2": ["nasa"]})
    col = prior.matrix[:, j["nasa"]]
    assert col[1] == col[2] == 0.0 and col[0] == plain.matrix[0, j["nasa"]] > prior.base_prior
    assert _favoured_terms(prior.matrix[0]).tolist() == [j["nasa"]]


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(vocabulary="nasa orbit"), TypeError, r"vocabulary must be a sequence of terms \(str\).*a single str"),
    (dict(vocabulary=None), TypeError, r"vocabulary must be a sequence of terms"),
    (dict(vocabulary=5), TypeError, r"vocabulary must be a sequence of terms .*got int"),
    (dict(vocabulary=["nasa", 3]), TypeError, r"vocabulary must hold terms \(str\); it holds 3"),
    (dict(vocabulary=[]), ValueError, r"vocabulary is empty"),
    (dict(vocabulary=["nasa", "nasa"]), ValueError, r"vocabulary must hold distinct terms; 'nasa'"),
    (dict(seed_topics=["nasa", "orbit"]), TypeError, r"seed_topics must be a dict of topic label -> list of words"),
    (dict(seed_topics="nasa"), TypeError, r"seed_topics must be a dict"),
    (dict(seed_topics={}), ValueError, r"seed_topics is empty"),
    (dict(seed_topics={"space": []}), ValueError, r"seed_topics\['space'\] is an empty list"),
    (dict(seed_topics={"space": "nasa"}), TypeError,
     r"seed_topics\['space'\] must be a list of words, got a single str"),
    (dict(seed_topics={"space": ["nasa", 1]}), TypeError, r"seed_topics\['space'\] must hold words \(str\)"),
    (dict(seed_topics={"space": {"nasa": 1}}), TypeError, r"seed_topics\['space'\] must be a list of words, got a dict"),
    (dict(seed_topics={1: ["nasa"]}), TypeError, r"seed_topics labels must be str, got 1"),
    (dict(seed_topics={" ": ["nasa"]}), ValueError, r"seed_topics labels must be non-empty"),
    (dict(seed_topics=[("a", ["nasa"]), ("a", ["puck"])]), ValueError, r"seed_topics has the label 'a' twice"),
    (dict(seed_topics={"space": ["spaceship", "NASA"]}), ValueError,
     r"seed_topics\['space'\]: none of its seed words is in the vocabulary \('spaceship', 'NASA'\).*'NASA' -> 'nasa'"),
    (dict(seed_topics={"a": ["nasa"], "b": ["puck"], "c": ["ice"], "d": ["pasta"]}), ValueError,
     r"seed_topics has 4 labels but the model has only n_components=3 topics"),
    (dict(seed_topics={"topic_2": ["nasa"]}), ValueError, r"seed_topics label 'topic_2' is the name of a free topic"),
    (dict(seed_confidence=0.0), ValueError, r"seed_confidence must be a number in \(0, 1\).*got 0.0"),
    (dict(seed_confidence=1.0), ValueError, r"seed_confidence must be a number in \(0, 1\)"),
    (dict(seed_confidence=float("nan")), ValueError, r"seed_confidence must be a number in \(0, 1\)"),
    (dict(seed_confidence="0.9"), TypeError, r"seed_confidence must be a number in \(0, 1\), got str"),
    (dict(seed_confidence=True), TypeError, r"seed_confidence must be a number in \(0, 1\), got bool"),
    (dict(seed_confidence=0.3), ValueError,
     r"seed_confidence=0.3 gives 'nasa' no more than the share a symmetric prior gives its 1 seed topic\(s\) "
     r"\(1/3 = 0.333\)"),
    (dict(seed_confidence=1 - 1e-15), ValueError, r"seed_confidence=.* is so close to 1"),
    (dict(base_prior=0.0), ValueError, r"base_prior"),
    (dict(base_prior="x"), TypeError, r"base_prior"),
    # (before: numpy's "only 0-dimensional arrays can be converted", and a large base blamed on seed_confidence)
    (dict(base_prior=[0.1, 0.2, 0.3]), TypeError, r"base_prior must be one positive number .*got list"),
    (dict(base_prior=1e11), ValueError, r"base_prior=1e\+11 is so large \(with seed_confidence=0.9\) that 'nasa' would "
                                        r"get a prior weight of .*; use a smaller base_prior"),
    (dict(n_components=0), ValueError, r"n_components"),
    (dict(n_components=2.5), TypeError, r"n_components"),
    (dict(exclude={"nope": ["nasa"]}), ValueError, r"exclude names the topic 'nope', which is neither"),
    (dict(exclude={"space": ["nasa"]}), ValueError, r"exclude\['space'\] holds 'nasa', which seeds that topic"),
    (dict(exclude={"space": ["the"], "topic_1": ["the"], "topic_2": ["the"]}), ValueError,
     r"exclude removes 'the' from every topic"),
    (dict(exclude={"topic_2": VOCAB}), ValueError, r"exclude removes every word from the topic 'topic_2'"),
    (dict(exclude=["the"]), TypeError, r"exclude must be a dict"),
])
def test_bad_builder_input_names_the_parameter(kwargs, exc, match):
    args = dict(vocabulary=VOCAB, seed_topics={"space": ["nasa", "orbit"]}, n_components=3)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        seed_topic_prior(args.pop("vocabulary"), args.pop("seed_topics"), args.pop("n_components"), **args)


def test_a_vocabulary_mapping_and_a_word_seeding_every_topic(caplog):
    prior = seed_topic_prior({"orbit": 1, "nasa": 0}, {"a": ["nasa"]}, 2)
    assert prior.matrix[0, 0] > prior.matrix[1, 0]
    with caplog.at_level(logging.WARNING, logger="topicvb.guided"):
        prior = seed_topic_prior(VOCAB, {"a": ["nasa"], "b": ["nasa", "puck"]}, 2)
    assert "'nasa' seeds every topic" in caplog.text
    assert prior.matrix[0, 0] == prior.matrix[1, 0] == 0.5


# ----------------------------------------------------------------------------- SeededPrior as an estimator parameter
def test_seeded_prior_array_protocol_equality_pickle_and_repr():
    prior = seed_topic_prior(VOCAB, {"space": ["nasa"]}, 3)
    assert np.array(prior, copy=False) is prior.matrix
    assert np.array(prior) is not prior.matrix and np.array_equal(np.array(prior), prior.matrix)
    assert np.asarray(prior, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="needs a copy"):
        prior.__array__(dtype=np.float32, copy=False)
    assert pickle.loads(pickle.dumps(prior)) == prior == copy.deepcopy(prior)
    assert prior != seed_topic_prior(VOCAB, {"space": ["nasa"]}, 3, seed_confidence=0.95)
    assert repr(prior) == "SeededPrior(3 topics x 9 terms, seeded ['space'], seed_confidence=0.9, base_prior=0.333333)"
    mine = SeededPrior(np.ones((2, 3)), ["a", None])  # a labelled matrix of one's own
    assert mine.labels == ["a", "topic_1"] and "labels ['a', 'topic_1']" in repr(mine)
    with pytest.raises(ValueError, match=r"SeededPrior: labels names two topics 'a'"):
        SeededPrior(np.ones((2, 3)), ["a", "a"])
    with pytest.raises(ValueError, match=r"SeededPrior: labels must name each of the 2 topics, got 3"):
        SeededPrior(np.ones((2, 3)), ["a", "b", "c"])
    with pytest.raises(ValueError, match=r"SeededPrior: matrix must be a non-empty 2-D array"):
        SeededPrior(np.ones(3), ["a"])


@pytest.mark.parametrize("name", ["PLSA", "BatchLDA", "OnlineLDA", "CollapsedLDA", "StochasticCollapsedLDA"])
def test_a_prior_for_another_number_of_topics_is_refused_naming_its_shape(name, corpus):
    import topicvb

    _, _, vec, X = corpus
    vocab = list(vec.get_feature_names_out())
    model = getattr(topicvb, name)(5, topic_word_prior=seed_topic_prior(vocab, {"space": ["nasa"]}, 3))
    with pytest.raises(ValueError, match=rf"topic_word_prior must be .*shape \(n_components, n_features\) with "
                                         rf"n_components=5, got shape \(3, {len(vocab)}\) \(a prior for 3 topics\)"):
        model.fit(X)
    assert not hasattr(model, "components_")


def test_clone_and_grid_search_keep_the_seeded_prior(corpus):
    _, _, vec, X = corpus
    prior = seed_topic_prior(vec.vocab_, SEEDS, 5)
    model = CollapsedLDA(5, topic_word_prior=prior, max_iter=5, random_state=0)
    twin = clone(model)
    assert twin.topic_word_prior == prior and twin.topic_word_prior is not prior
    search = GridSearchCV(model, {"doc_topic_prior": [0.1, 0.5]}, cv=2, error_score="raise").fit(X)
    assert search.best_estimator_.topic_word_prior == prior
    assert list(search.best_estimator_.topic_labels_) == ["space", "cooking", "topic_2", "topic_3", "topic_4"]


# ----------------------------------------------------------------------------- a guided fit and its names downstream
def test_a_guided_fit_names_its_topics_and_seeds_them(guided, corpus):
    model, prior = guided
    _, _, vec, _ = corpus
    assert model.topic_labels_.dtype == object
    assert model.topic_labels_.tolist() == ["space", "cooking", "topic_2", "topic_3", "topic_4"]
    words = top_words(model, vec.vocab_, 8)
    assert isinstance(words, TopicWords) and isinstance(words, list)
    assert words.labels == model.topic_labels_.tolist()
    assert words["space"] is words[0] and words["cooking"] == words[1]
    assert words[1:3].labels == ["cooking", "topic_2"]
    assert list(words.as_dict()) == words.labels
    with pytest.raises(KeyError, match="no topic is named 'hockey'"):
        words["hockey"]
    for label, seeds in prior.seed_topics.items():  # the seed words are among their topic's top words
        assert set(seeds) <= {w for w, _ in words[label]}


def test_unguided_and_old_models_keep_todays_names(corpus):
    _, _, vec, X = corpus
    model = BatchLDA(3, max_iter=5, random_state=0).fit(X)
    assert model.topic_labels_.tolist() == ["topic_0", "topic_1", "topic_2"]
    assert top_words(model, vec.vocab_, 3).labels == ["topic_0", "topic_1", "topic_2"]
    text = str(summary(model, X, vec.vocab_, n=3))
    del model.topic_labels_  # as loaded from a file written before topic names
    assert top_words(model, vec.vocab_, 3).labels == ["topic_0", "topic_1", "topic_2"]
    assert str(summary(model, X, vec.vocab_, n=3)) == text
    assert "label" not in text.splitlines()[1]


def test_summary_table_shows_the_labels(guided, corpus):
    model, _ = guided
    _, _, vec, X = corpus
    table = summary(model, X, vec.vocab_, n=4)
    assert table.labels == model.topic_labels_.tolist()
    lines = str(table).splitlines()
    assert lines[1].split()[:3] == ["topic", "label", "prevalence"]
    assert lines[2].split()[:2] == ["0", "space"] and lines[3].split()[:2] == ["1", "cooking"]
    assert lines[4].split()[:2] == ["2", "topic_2"]
    buf = io.StringIO()
    table.to_csv(buf)
    rows = list(csv.reader(io.StringIO(buf.getvalue())))
    assert rows[0] == ["topic", "rank", "word", "weight", "prevalence", "coherence", "junk", "label"]
    assert {r[-1] for r in rows[1:] if r[0] == "1"} == {"cooking"}
    assert [t["label"] for t in table.to_dict()["topics"]] == table.labels
    assert ">space</td>" in table._repr_html_() and ">label</th>" in table._repr_html_()


def test_report_names_the_guided_topics(guided, corpus):
    from topicvb.report import report
    from topicvb.report._build import build_data

    model, _ = guided
    texts, _, vec, X = corpus
    data = build_data(model, X, vec.vocab_, texts=texts, n_words=5)
    assert [t["label"] for t in data["topics"]] == ["space", "cooking", None, None, None]
    page = report(model, X, vec.vocab_, n_words=5)
    assert '<span class="label">space</span>' in page and "topicName(k)" in page
    unguided = BatchLDA(2, max_iter=3, random_state=0).fit(X)
    assert all(t["label"] is None for t in build_data(unguided, X, vec.vocab_)["topics"])


def test_plots_name_the_guided_topics(guided, corpus):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from topicvb.plotting import plot_doc_topic_heatmap, plot_top_words

    model, _ = guided
    _, _, vec, X = corpus
    axes = plot_top_words(model, vec.vocab_, n=3)
    assert [ax.get_title() for ax in axes] == ["topic 0: space", "topic 1: cooking", "topic 2", "topic 3", "topic 4"]
    ax = plot_doc_topic_heatmap(model, X=X)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0: space", "1: cooking", "2", "3", "4"]
    plt.close("all")


# ----------------------------------------------------------------------------- saving and loading
@pytest.mark.parametrize("cls", [BatchLDA, CollapsedLDA])
def test_save_load_keeps_labels_and_the_matrix_prior(cls, corpus, tmp_path):
    _, _, vec, X = corpus
    prior = seed_topic_prior(vec.vocab_, SEEDS, 4, exclude={"space": ["pasta"]})
    model = cls(4, topic_word_prior=prior, max_iter=10, random_state=0).fit(X)
    loaded = persistence.load(persistence.save(model, tmp_path / "m.npz", vocabulary=vec.vocab_.terms))
    assert loaded.topic_labels_.dtype == object
    assert loaded.topic_labels_.tolist() == ["space", "cooking", "topic_2", "topic_3"]
    assert isinstance(loaded.topic_word_prior, SeededPrior) and loaded.topic_word_prior == prior
    assert loaded.topic_word_prior.missing == {"cooking": ["saffron"]}
    np.testing.assert_array_equal(loaded.topic_word_prior_, model.topic_word_prior_)
    np.testing.assert_array_equal(loaded.components_, model.components_)
    np.testing.assert_array_equal(loaded.transform(X), model.transform(X))
    assert loaded.components_[0, vec.vocab_["pasta"]] == 0.0  # excluded: 0 in the topic, and the file says so
    assert top_words(loaded, vec.vocab_, 3).labels == loaded.topic_labels_.tolist()


def test_save_load_of_a_plain_array_prior(corpus, tmp_path):
    _, _, vec, X = corpus
    matrix = np.full((3, X.shape[1]), 0.2)
    matrix[1, 0] = 3.0
    model = BatchLDA(3, topic_word_prior=sp.csr_matrix(matrix), max_iter=5, random_state=0).fit(X)
    loaded = persistence.load(persistence.save(model, tmp_path / "m.npz"))
    assert type(loaded.topic_word_prior) is np.ndarray
    np.testing.assert_array_equal(loaded.topic_word_prior, matrix)
    assert loaded.topic_labels_.tolist() == ["topic_0", "topic_1", "topic_2"]
    np.testing.assert_array_equal(loaded.transform(X), model.transform(X))


def _file(path):
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    return arrays, json.loads(str(arrays.pop("meta")[()]))


def _write(path, arrays, meta):
    with open(path, "wb") as f:
        np.savez(f, meta=np.asarray(json.dumps(meta)), **arrays)
    return path


def test_corrupt_guided_files_are_refused(guided, tmp_path):
    model, _ = guided
    arrays, meta = _file(persistence.save(model, tmp_path / "m.npz"))
    cases = []
    a = dict(arrays)
    a["attr__topic_labels_"] = np.array(["space", "space", "x", "y", "z"])
    cases.append((a, meta, r"topic_labels_ must hold distinct names; 'space'"))
    a = dict(arrays)
    a["attr__topic_labels_"] = np.array(["a", "b"])
    cases.append((a, meta, r"topic_labels_ does not match n_components"))
    a = dict(arrays)
    a["attr__topic_labels_"] = np.arange(5)
    cases.append((a, meta, r"topic_labels_ must hold strings"))
    a = dict(arrays)
    del a["param__topic_word_prior"]
    cases.append((a, meta, r"topic_word_prior names no stored matrix"))
    a = dict(arrays)
    a["param__topic_word_prior"] = -a["param__topic_word_prior"]
    cases.append((a, meta, r"topic_word_prior is not a valid prior matrix"))
    a = dict(arrays)
    a["param__topic_word_prior"] = a["param__topic_word_prior"][:, :-1]
    cases.append((a, meta, r"the topic_word_prior parameter has \d+ terms, but the model was fitted on"))
    m = json.loads(json.dumps(meta))
    m["params"]["topic_word_prior"]["type"] = "pickle"
    cases.append((arrays, m, r"topic_word_prior has an unknown type 'pickle'"))
    m = json.loads(json.dumps(meta))
    m["params"]["topic_word_prior"]["seed_topics"] = {"space": "nasa"}
    cases.append((arrays, m, r"topic_word_prior is not a valid SeededPrior"))
    m = json.loads(json.dumps(meta))
    m["params"]["topic_word_prior"] = 0.5
    cases.append((arrays, m, r"holds the array 'param__topic_word_prior' but its topic_word_prior parameter"))
    a = dict(arrays)
    a["attr__topic_word_prior_"] = a["attr__topic_word_prior_"].copy()
    a["attr__topic_word_prior_"][0, 0] = 0.0  # excluded in the prior, positive in the topics
    cases.append((a, meta, r"components_ entry \(0, 0\) is .* but topic_word_prior_ there is 0.0"))
    for i, (a, m, match) in enumerate(cases):
        with pytest.raises(ValueError, match=rf"bad{i}\.npz.*{match}"):
            persistence.load(_write(tmp_path / f"bad{i}.npz", a, m))


def test_a_file_without_names_still_loads(corpus, tmp_path):
    _, _, vec, X = corpus
    model = BatchLDA(3, max_iter=5, random_state=0).fit(X)
    arrays, meta = _file(persistence.save(model, tmp_path / "m.npz"))
    del arrays["attr__topic_labels_"]
    meta["version"] = 2
    loaded = persistence.load(_write(tmp_path / "old.npz", arrays, meta))
    assert not hasattr(loaded, "topic_labels_")
    assert top_words(loaded, vec.vocab_, 2).labels == ["topic_0", "topic_1", "topic_2"]
    assert "label" not in str(summary(loaded, None, vec.vocab_, n=2)).splitlines()[1]


# ----------------------------------------------------------------------------- the pipeline
def test_pipeline_builds_the_prior_from_the_fitted_vocabulary(corpus):
    texts, _, _, _ = corpus
    pipe = make_topic_pipeline(Vectorizer(tokenizer=Tokenizer(stemmer="porter")),
                               BatchLDA(5, max_iter=30, random_state=0),
                               seed_topics={"space": ["NASA", "satellites"], "hockey": ["pucks", "zamboni"]},
                               seed_confidence=0.95)
    assert isinstance(pipe, TopicPipeline) and pipe.get_params()["seed_confidence"] == 0.95
    pipe.fit(texts)
    prior = pipe.seeded_prior_
    assert pipe.model.topic_word_prior is prior and prior.seed_confidence == 0.95
    assert prior.seed_topics == {"space": ["nasa", "satellit"], "hockey": ["puck"]}  # found through the tokenizer
    assert prior.missing == {"hockey": ["zamboni"]}
    assert pipe.model.topic_labels_.tolist()[:3] == ["space", "hockey", "topic_2"]
    assert pipe.top_words(3).labels == pipe.model.topic_labels_.tolist()
    assert "space" in str(pipe.summary(texts[:20], n=3))
    theta = pipe.document_topics(["a nasa rocket launch to the moon"])
    assert theta.argmax() == 0


def test_pipeline_refits_clones_and_grid_searches_with_seeds(corpus):
    texts, _, _, _ = corpus
    pipe = make_topic_pipeline(Vectorizer(), BatchLDA(4, max_iter=10, random_state=0), seed_topics=SEEDS)
    theta = pipe.fit_transform(texts)
    np.testing.assert_allclose(theta, pipe.transform(texts), atol=1e-6)
    first = pipe.seeded_prior_
    pipe.fit(texts[:60])  # a refit rebuilds the prior over the new vocabulary (the old one is replaced)
    assert pipe.seeded_prior_.shape[1] == len(pipe.vectorizer.vocab_) and pipe.seeded_prior_ is not first
    twin = clone(pipe).fit(texts)
    np.testing.assert_array_equal(twin.model.topic_word_prior_, first.matrix)
    search = GridSearchCV(clone(pipe), {"seed_confidence": [0.8, 0.99]}, cv=2, error_score="raise").fit(texts)
    assert search.best_estimator_.model.topic_labels_[0] == "space"
    pipe.fit(texts, model__resume=False)  # parameters of a step still reach it
    with pytest.raises(ValueError, match="TopicPipeline.fit does not accept the 'resume' parameter"):
        pipe.fit(texts, resume=False)


def test_pipeline_with_seeds_saves_and_loads(corpus, tmp_path):
    texts, _, _, _ = corpus
    pipe = make_topic_pipeline(Vectorizer(), BatchLDA(4, max_iter=10, random_state=0), seed_topics=SEEDS).fit(texts)
    loaded = load(save(pipe, tmp_path / "p.npz"))
    assert loaded.model.topic_labels_.tolist() == pipe.model.topic_labels_.tolist()
    np.testing.assert_array_equal(loaded.document_topics(texts[:5]), pipe.document_topics(texts[:5]))
    assert loaded.seed_topics == {"space": ["nasa", "orbit"], "cooking": ["garlic", "pasta", "saffron"]}
    assert loaded.seed_confidence == DEFAULT_SEED_CONFIDENCE
    assert loaded.fit(texts[:60]).model.topic_labels_[1] == "cooking"


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(seed_topics={"space": "nasa"}), TypeError, r"seed_topics\['space'\] must be a list of words"),
    (dict(seed_topics={}), ValueError, r"seed_topics is empty"),
    (dict(seed_topics={"a": ["x"], "b": ["y"], "c": ["z"]}), ValueError, r"seed_topics has 3 labels but the model "
                                                                        r"has only n_components=2"),
    (dict(seed_topics={"a": ["x"]}, seed_confidence=2.0), ValueError, r"seed_confidence must be a number in \(0, 1\)"),
])
def test_make_topic_pipeline_checks_the_seeds_at_once(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        make_topic_pipeline(Vectorizer(), BatchLDA(2), **kwargs)


def test_pipeline_refuses_seeds_with_a_matrix_prior(corpus):
    texts, _, _, _ = corpus
    pipe = make_topic_pipeline(Vectorizer(), BatchLDA(2, topic_word_prior=np.ones((2, 3))), seed_topics={"a": ["nasa"]})
    with pytest.raises(ValueError, match="give either seed_topics or a matrix topic_word_prior"):
        pipe.fit(texts)


# ----------------------------------------------------------------------------- the command line
@pytest.fixture(scope="module")
def cli_fit(tmp_path_factory, corpus):
    tmp = tmp_path_factory.mktemp("guided_cli")
    texts, _, _, _ = corpus
    with open(tmp / "docs.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "text"])
        writer.writerows([[f"d{i}", t] for i, t in enumerate(texts)])
    (tmp / "seeds.json").write_text(json.dumps({"space": ["nasa", "orbit", "warp"], "hockey": ["Puck", "goal"]}))
    return tmp


def _fit(tmp, *extra, out=None):
    return main(["fit", str(tmp / "docs.csv"), "-k", "5", "--model", "batch", "--max-iter", "30", "--min-df", "2",
                 "--max-df", "0.9", "-o", str(out or tmp / "m.npz"), *extra])


def test_cli_fit_with_seed_topics_names_the_topics(cli_fit, capsys):
    tmp = cli_fit
    assert _fit(tmp, "--seed-topics", str(tmp / "seeds.json"), "--seed-confidence", "0.95") == 0
    err = capsys.readouterr().err
    assert "topicvb: warning: 1 seed word is not in the vocabulary and not used (space: warp)" in err
    pipe = load(tmp / "m.npz")
    assert pipe.model.topic_labels_.tolist() == ["space", "hockey", "topic_2", "topic_3", "topic_4"]
    assert pipe.model.topic_word_prior.seed_topics["hockey"] == ["puck", "goal"]  # lower-cased by the tokenizer
    assert pipe.model.topic_word_prior.seed_confidence == 0.95

    assert main(["topics", str(tmp / "m.npz"), "--n", "4", "--csv", str(tmp / "t.csv")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:2] == ["topic", "label"]
    assert lines[2].split()[:2] == ["0", "space"] and lines[3].split()[:2] == ["1", "hockey"]
    assert (tmp / "t.csv").read_text().splitlines()[0].endswith(",junk,label")

    assert main(["infer", str(tmp / "m.npz"), str(tmp / "docs.csv"), "--top", "1", "--show", "1",
                 "-o", str(tmp / "theta.csv")]) == 0
    assert "topic 0 space" in capsys.readouterr().out
    header = (tmp / "theta.csv").read_text().splitlines()[0]
    assert header == "document,space,hockey,topic_2,topic_3,topic_4"


@pytest.mark.parametrize("content, match", [
    ('{"space": ["nasa"], "space": ["orbit"]}', r"the label 'space' appears twice"),
    ('["nasa", "orbit"]', r"must hold a JSON object of topic label -> list of words.*it holds a JSON list"),
    ('{"space": "nasa"}', r"seed_topics\['space'\] must be a list of words, got a single str"),
    ('{"space": []}', r"seed_topics\['space'\] is an empty list"),
    ('{"space": {"nasa": 1}}', r"seed_topics\['space'\] must be a list of words, got a dict"),
    ('{"space": ["nasa"', r"is not valid JSON"),
    ('{"a": ["nasa"], "b": ["x"], "c": ["y"], "d": ["z"], "e": ["w"], "f": ["v"]}', r"names 6 topics, more than --k 5"),
    ('{"space": ["warp", "spaceship"]}', r"none of its seed words is in the vocabulary"),
])
def test_cli_bad_seed_files_are_one_line_errors(cli_fit, capsys, tmp_path, content, match):
    seeds = tmp_path / "bad.json"
    seeds.write_text(content)
    assert _fit(cli_fit, "--seed-topics", str(seeds), out=tmp_path / "m.npz") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("topicvb: error: --seed-topics ")
    assert re.search(match, err[0]), err[0]


def test_cli_seed_options_checks(cli_fit, capsys, tmp_path):
    out = tmp_path / "m.npz"
    assert _fit(cli_fit, "--seed-topics", str(tmp_path / "none.json"), out=out) == 1
    assert "topicvb: error: --seed-topics " in capsys.readouterr().err
    # (a value out of range is a usage error: status 2, as for the wrong type)
    assert _fit(cli_fit, "--seed-topics", str(cli_fit / "seeds.json"), "--seed-confidence", "1.5", out=out) == 2
    assert "topicvb: error: --seed-confidence must be a finite number in (0, 1), got 1.5." in capsys.readouterr().err
    assert not out.exists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _fit(cli_fit, "--seed-confidence", "0.5", out=out) == 0
    assert "--seed-confidence applies only with --seed-topics; ignored." in capsys.readouterr().err


# ----------------------------------------------------------------------------- do the seeds hold?
def two_theme_counts(n_docs=200, seed=0):
    """Documents of 30 tokens, alternately from words a0-a9 and from b0-b9: (X, vocabulary)."""
    rng = np.random.default_rng(seed)
    vocab = [f"a{i}" for i in range(10)] + [f"b{i}" for i in range(10)]
    rows = [np.bincount((d % 2) * 10 + rng.integers(0, 10, 30), minlength=20) for d in range(n_docs)]
    return sp.csr_matrix(np.array(rows, dtype=np.float64)), vocab


def test_holdings_from_counts_by_hand():
    from topicvb._seed_holding import _holdings as holdings

    prior = np.full((3, 4), 0.5)
    prior[0, 0] = 4.5  # topic 0 seeded with term 0: prior share 4.5 / 5.5
    prior[1, [1, 2]] = 4.5  # topic 1 with terms 1 and 2
    prior[2, 3] = 0.0  # topic 2 excludes term 3 only: no favoured terms, not listed
    counts = np.array([[2.0, 50.0, 0.0, 1.0],
                       [8.0, 10.0, 30.0, 1.0],
                       [0.0, 40.0, 10.0, 0.0]])
    got = holdings(lambda cols: counts[:, cols], prior, ["x", "y", "topic_2"])
    assert [h.topic for h in got] == [0, 1]
    x, y = got
    assert x.label == "x" and x.terms == (0,) and x.tokens == 10.0
    assert x.share == pytest.approx(0.2) and x.prior_share == pytest.approx(4.5 / 5.5)
    assert x.lost and x.taken_by == 1  # 0.2 < 0.5 x 0.82
    assert y.terms == (1, 2) and y.share == pytest.approx(40 / 140) and y.taken_by == 0
    assert y.prior_share == pytest.approx(9.0 / 11.0) and y.lost  # 0.29 < 0.41
    counts[1, 1] = 100.0
    assert not holdings(lambda cols: counts[:, cols], prior, ["x", "y", "topic_2"])[1].lost  # 130 / 230
    few = np.array([[0.0, 3.0], [2.0, 0.0], [2.0, 0.0]])  # fewer than MIN_SEED_TOKENS occurrences: not called lost
    got = holdings(lambda cols: few[:, cols], prior[:, :2], ["x", "y", "z"])
    assert got[0].share == 0.0 and got[0].tokens == 4.0 and not got[0].lost
    # an informative prior (no base weight shared by most terms) has no seeded rows
    informative = np.random.default_rng(0).gamma(1.0, 1.0, size=(3, 50))
    assert holdings(lambda cols: np.ones((3, len(cols))), informative, ["a", "b", "c"]) == []


@pytest.mark.parametrize("cls", ["BatchLDA", "OnlineLDA", "CollapsedLDA", "StochasticCollapsedLDA", "PLSA"])
def test_a_seeded_topic_that_loses_its_seed_words_warns(cls):
    # two themes, two topics, both seeded with words of the same theme: one topic must take the other theme
    # and so loses its seed word to the first; the fit says which, and seed_holding shows it
    import topicvb
    from topicvb.exceptions import SeedLostWarning
    from topicvb.guided import seed_holding

    X, vocab = two_theme_counts()
    prior = seed_topic_prior(vocab, {"x": ["a0"], "y": ["a1"]}, 2)
    with pytest.warns(SeedLostWarning, match=r"seeded topic '(x|y)' \(it holds \d+% of its seed words' occurrences, "
                                             r"less than half of its prior's 90%; the largest part of the rest went "
                                             r"to '(x|y)'\) lost its seed words"):
        model = getattr(topicvb, cls)(2, topic_word_prior=prior, random_state=0).fit(X)
    held = seed_holding(model, X)
    assert [h.label for h in held] == ["x", "y"] and [h.lost for h in held].count(True) == 1
    lost = next(h for h in held if h.lost)
    taker = next(h for h in held if h.topic == lost.taken_by)
    assert lost.share < 0.45 and taker.share > 0.9
    flags = topicvb.summary(model, X, vocab).junk  # the topic table says so too
    assert flags[taker.topic] == [] and flags[lost.topic] == [f"lost seed words (to {taker.label!r})"]

    def same(a, b):
        def exact(held):
            return [(h.topic, h.terms, h.taken_by, h.lost) for h in held]

        def shares(held):
            return [(h.share, h.prior_share, h.tokens) for h in held]

        return exact(a) == exact(b) and np.allclose(shares(a), shares(b))

    assert same(seed_holding(model), held)  # (PLSA: from the topic sizes its fit keeps, topic_tokens_)
    if cls == "PLSA":
        np.testing.assert_allclose(model.topic_tokens_, np.asarray(X.sum(axis=1)).ravel()
                                   @ model.doc_topic_)
        with pytest.raises(ValueError, match="training counts of this PLSA \\(200 documents\\); X has 20"):
            seed_holding(model, X[:20])
        del model.topic_tokens_  # (a PLSA model saved before the fit kept its topic sizes)
        with pytest.raises(ValueError, match=r"seed_holding needs X, the training counts \(200 documents\)"):
            seed_holding(model)
        assert same(seed_holding(model, X), held)
        # summary does not guess that the X it is given is the training X: without the sizes, no flag
        assert topicvb.summary(model, X, vocab).junk[lost.topic] == []
        del model.doc_topic_  # (a file may hold neither)
        with pytest.raises(ValueError, match="cannot size the topics of this PLSA model: it has neither topic_tokens_"):
            seed_holding(model, X)
    # seeds of the two themes hold: no warning
    prior = seed_topic_prior(vocab, {"x": ["a0"], "y": ["b0"]}, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedLostWarning)
        model = getattr(topicvb, cls)(2, topic_word_prior=prior, random_state=0).fit(X)
    assert all(h.share > 0.9 and not h.lost for h in seed_holding(model, X))
    assert seed_holding(getattr(topicvb, cls)(2, random_state=0).fit(X), X) == []  # no seeds, nothing to hold
    # nor an informative prior (a scaled topic-word matrix): no warning, no seeded topic
    informative = 50.0 * model.topic_word_distribution() + np.random.default_rng(0).uniform(0.01, 0.02, (2, 20))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedLostWarning)
        model = getattr(topicvb, cls)(2, topic_word_prior=informative[::-1], random_state=0).fit(X)
    assert seed_holding(model, X) == []


@pytest.mark.parametrize("fit", ["fit", "partial_fit"])
def test_online_topics_stay_above_a_strong_seed_prior(fit):
    """OnlineLDA's lam starts with the seed words' extra pseudo-counts, and each step blends it with eta + scaled
    counts, so components_ - eta stays the expected counts: a seed weight of ~100,000 above a start of ~1 had left
    them far below zero, and seed_holding called a seeded topic that holds its word lost."""
    import warnings

    from topicvb import OnlineLDA
    from topicvb.datasets import make_lda_corpus
    from topicvb.exceptions import SeedLostWarning
    from topicvb.guided import seed_holding

    corpus = make_lda_corpus(150, 60, 4, random_state=0).corpus
    X, vocab = corpus.X.tocsr(), list(corpus.vocabulary)
    prior = seed_topic_prior(vocab, {"a": ["w0033"]}, 5, seed_confidence=0.99999)
    model = OnlineLDA(5, topic_word_prior=prior, random_state=0, total_samples=150)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedLostWarning)
        model.fit(X) if fit == "fit" else model.partial_fit(X)
    assert np.all(model.components_ >= model.topic_word_prior_)
    (held,) = seed_holding(model)
    assert not held.lost and held.share > 0.8


def test_hdp_refuses_seeds_clearly(corpus, cli_fit, capsys, tmp_path):
    """HDP chooses its number of topics, so it takes no matrix prior: the estimator, make_topic_pipeline and the
    command line say so (the CLI before it reads the corpus)."""
    from topicvb import HDP

    _, _, vec, X = corpus
    prior = seed_topic_prior(list(vec.get_feature_names_out()), {"space": ["nasa"]}, 5)
    for value in (prior, np.asarray(prior)):
        with pytest.raises(TypeError, match=r"HDP's topic_word_prior must be a number or None: guided topics .*need "
                                            r"a fixed number of topics"):
            HDP(topic_word_prior=value).fit(X)
    with pytest.raises(ValueError, match=r"make_topic_pipeline: seed_topics need a model with a fixed number of "
                                         r"topics \(n_components\); HDP chooses its own"):
        make_topic_pipeline(Vectorizer(), HDP(), seed_topics={"space": ["nasa"]})
    out = tmp_path / "m.npz"
    assert main(["fit", str(tmp_path / "absent.csv"), "-k", "5", "--model", "hdp", "--seed-topics",
                 str(cli_fit / "seeds.json"), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["topicvb: error: --seed-topics needs a model with a fixed number of topics; --model hdp (HDP) "
                   "chooses its own. Use --model collapsed (or batch, online, scvb0, plsa)."]
    assert not out.exists()


# ----------------------------------------------------------------------------- seed words the corpus never uses
@pytest.mark.filterwarnings("ignore::topicvb.exceptions.SeedLostWarning")
@pytest.mark.parametrize("cls", ["BatchLDA", "OnlineLDA", "CollapsedLDA", "StochasticCollapsedLDA", "PLSA"])
def test_seed_words_the_training_documents_never_use_are_named(cls):
    # a seed word of the vocabulary that no training document uses cannot guide its topic (its prior
    # pseudo-counts alone may still rank it among the topic's top words): the fit names it and its topic
    import topicvb
    from topicvb.exceptions import SeedUnseenWarning

    X, vocab = two_theme_counts()
    X = sp.hstack([X, sp.csr_matrix((X.shape[0], 2))], format="csr")  # two terms no document uses
    vocab = vocab + ["never", "nowhere"]
    prior = seed_topic_prior(vocab, {"x": ["a0", "never"], "y": ["b0"], "z": ["nowhere"]}, 3)
    assert prior.seed_columns == {"x": [0, 20], "y": [10], "z": [21]}
    with pytest.warns(SeedUnseenWarning, match=rf"^{cls}: 2 seed words never occur in the training documents "
                                               r"\('x': 'never'; 'z': 'nowhere'\): such a word cannot guide its topic"):
        getattr(topicvb, cls)(3, topic_word_prior=prior, random_state=0).fit(X)
    # without the seed words' names (a plain matrix prior), the columns
    with pytest.warns(SeedUnseenWarning, match=r"1 seed word never occurs .*\('topic_0': column 21\): such"):
        matrix = np.asarray(prior)[::-1].copy()
        matrix[:2, 20] = matrix[2, 20] = 1.0 / 3
        getattr(topicvb, cls)(3, topic_word_prior=matrix, random_state=0).fit(X)
    # a word seeding two topics is one word; X's own column names come first
    prior = seed_topic_prior(vocab, {"x": ["a0", "never"], "y": ["b0", "never"]}, 3)
    with pytest.warns(SeedUnseenWarning, match=r": 1 seed word never occurs .*\('x': 'never'; 'y': 'never'\)"):
        getattr(topicvb, cls)(3, topic_word_prior=prior, random_state=0).fit(X)
    if cls == "BatchLDA":
        pd = pytest.importorskip("pandas")
        frame = pd.DataFrame(X.toarray(), columns=[f"col{j}" for j in range(X.shape[1])])
        with pytest.warns(SeedUnseenWarning, match=r"\('x': 'col20'; 'y': 'col20'\)"):
            BatchLDA(3, topic_word_prior=prior, random_state=0).fit(frame)
    # every seed word used: no such warning
    prior = seed_topic_prior(vocab, {"x": ["a0"], "y": ["b0"]}, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedUnseenWarning)
        getattr(topicvb, cls)(3, topic_word_prior=prior, random_state=0).fit(X)


def test_seed_columns_are_checked_and_saved(corpus, tmp_path):
    _, _, vec, X = corpus
    prior = seed_topic_prior(vec.vocab_, SEEDS, 4)
    assert prior.seed_columns == {label: [vec.vocab_[w] for w in words] for label, words in prior.seed_topics.items()}
    model = BatchLDA(4, topic_word_prior=prior, max_iter=5, random_state=0).fit(X)
    path = persistence.save(model, tmp_path / "m.npz")
    assert persistence.load(path).topic_word_prior.seed_columns == prior.seed_columns
    arrays, meta = _file(path)
    del meta["params"]["topic_word_prior"]["seed_columns"]  # a file of before seed_columns
    assert persistence.load(_write(tmp_path / "old.npz", arrays, meta)).topic_word_prior.seed_columns == {}
    meta["params"]["topic_word_prior"]["seed_columns"] = {"space": [0, 10 ** 6]}
    with pytest.raises(ValueError, match=r"not a valid SeededPrior \(SeededPrior: seed_columns\['space'\] must hold "
                                         r"column indices in \[0, \d+\)"):
        persistence.load(_write(tmp_path / "bad.npz", arrays, meta))
    for bad in ({"space": "x"}, {"space": [1, 1]}, {"topic_3": []}):
        meta["params"]["topic_word_prior"]["seed_columns"] = bad
        with pytest.raises(ValueError, match=r"not a valid SeededPrior"):
            persistence.load(_write(tmp_path / "bad.npz", arrays, meta))
    meta["params"]["topic_word_prior"]["seed_columns"] = []
    with pytest.raises(ValueError, match=r"topic_word_prior is not a valid SeededPrior \(its seed_columns must map"):
        persistence.load(_write(tmp_path / "bad.npz", arrays, meta))
    # the constructor's checks
    space = prior.seed_columns["space"]
    with pytest.raises(ValueError, match=r"seed_columns\['space'\] must list one column per seed word of that label "
                                         r"in seed_topics \(2\), got \[0\]"):
        SeededPrior(prior.matrix, prior.labels, seed_topics=prior.seed_topics, seed_columns={"space": [0]})
    with pytest.raises(TypeError, match=r"seed_columns must be a dict of label -> column indices, got list"):
        SeededPrior(prior.matrix, prior.labels, seed_topics=prior.seed_topics, seed_columns=[("space", space)])
    with pytest.raises(ValueError, match=r"must be distinct columns that the topic's prior row allows"):
        SeededPrior(prior.matrix, prior.labels, seed_topics=prior.seed_topics, seed_columns={"space": [space[0]] * 2})
    matrix = prior.matrix.copy()
    matrix[0, space[1]] = 0.0
    with pytest.raises(ValueError, match=r"must be distinct columns that the topic's prior row allows"):
        SeededPrior(matrix, prior.labels, seed_topics=prior.seed_topics, seed_columns={"space": space})
    again = SeededPrior(prior.matrix, prior.labels, seed_topics=prior.seed_topics, seed_columns={"space": np.array(space)})
    assert again.seed_columns == {"space": space}
    with pytest.raises(ValueError, match=r"got \[0, 0, 0, .*\.\.\.\.$"):  # a long list is cut in the message
        SeededPrior(prior.matrix, prior.labels, seed_topics=prior.seed_topics, seed_columns={"space": [0] * 5000})
    # a SeededPrior of before seed_columns (unpickled) still saves
    old = copy.copy(prior)
    del old.seed_columns
    model.set_params(topic_word_prior=old)
    assert persistence.load(persistence.save(model, tmp_path / "o.npz")).topic_word_prior.seed_columns == {}


def test_a_seeded_prior_takes_a_sparse_matrix_as_a_topic_word_prior_does():
    # (before: numpy's bare "setting an array element with a sequence")
    import scipy.sparse as sp

    from topicvb.guided import SeededPrior

    dense = np.array([[0.5, 0.0, 2.0], [0.1, 0.1, 0.1]])
    prior = SeededPrior(sp.csr_matrix(dense), ["a", "b"])
    np.testing.assert_array_equal(prior.matrix, dense)
    assert prior.labels == ["a", "b"]

