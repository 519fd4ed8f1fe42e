"""plot_top_words: the figure is sized from the words drawn, ncols is checked, a TopicPipeline is drawn in its terms."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from topicvb import BatchLDA, load, make_topic_pipeline, save  # noqa: E402
from topicvb import plotting  # noqa: E402
from topicvb.datasets import make_lda_corpus  # noqa: E402
from topicvb.inspection import summary, top_words  # noqa: E402
from topicvb.text import Tokenizer, Vectorizer  # noqa: E402

FRUIT = "apples pears plums fruit salad orchard harvest juice sweet ripe"
CITY = "subway taxi traffic street bridge tower downtown crowd noise city"


@pytest.fixture(scope="module")
def fitted():
    corpus, _, _ = make_lda_corpus(120, 24, 3, separated=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = BatchLDA(3, random_state=0, max_iter=15).fit(corpus.X)
    return model, corpus


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _height(axes):
    return float(axes[0].figure.get_size_inches()[1])


def test_figure_height_follows_the_words_drawn_not_n(fitted):
    """n beyond the vocabulary (or beyond the words a table or list holds) drew a figure sized for n words:
    n=1000 on 24 terms gave a figure hundreds of inches tall, n=100000 one of hundreds of megapixels."""
    model, corpus = fitted
    V = corpus.X.shape[1]
    full = _height(plotting.plot_top_words(model, corpus.vocabulary, n=V))
    for n in (V + 1, 1000, 100000):
        axes = plotting.plot_top_words(model, corpus.vocabulary, n=n)
        assert len(axes[0].patches) == V
        assert _height(axes) == full
    table = summary(model, corpus.X, corpus.vocabulary, n=5)
    five = _height(plotting.plot_top_words(table, n=5))
    assert _height(plotting.plot_top_words(table, n=100000)) == five
    words = top_words(model, corpus.vocabulary, 5)
    assert _height(plotting.plot_top_words(words, n=100000)) == five
    # the tallest chosen topic decides
    ragged = [[("a", 0.5), ("b", 0.5)], [("c", 1.0 / 7)] * 7]
    assert _height(plotting.plot_top_words(ragged, n=1000, topics=[1])) == _height(
        plotting.plot_top_words(ragged, n=7, topics=[1]))


@pytest.mark.parametrize("ncols,exc", [(None, TypeError), ("2", TypeError), (2.0, TypeError), (True, TypeError),
                                       (0, ValueError), (-1, ValueError)])
def test_ncols_must_be_a_positive_int(fitted, ncols, exc):
    model, corpus = fitted
    with pytest.raises(exc, match=r"ncols must be a positive int"):
        plotting.plot_top_words(model, corpus.vocabulary, ncols=ncols)


def test_ncols_np_integer_is_accepted(fitted):
    model, corpus = fitted
    axes = plotting.plot_top_words(model, corpus.vocabulary, ncols=np.int64(2))
    assert len(axes) == 3


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice((FRUIT if i % 2 == 0 else CITY).split(), size=30)) for i in range(40)]
    pipe = make_topic_pipeline(Vectorizer(tokenizer=Tokenizer()), BatchLDA(2, random_state=0, max_iter=30))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe.fit(texts)
    path = save(pipe, tmp_path_factory.mktemp("pipe") / "model.npz")
    return load(path), texts


def test_plot_top_words_draws_a_topic_pipeline_in_its_terms(pipeline):
    """topicvb.load returns a TopicPipeline for a model saved with its vectorizer; plot_top_words failed on it with
    "'Vectorizer' object is not iterable"."""
    pipe, _ = pipeline
    axes = plotting.plot_top_words(pipe, n=4)
    expected = pipe.top_words(4)
    assert len(axes) == 2
    for ax, words in zip(axes, expected):
        assert [t.get_text() for t in ax.get_yticklabels()] == [w for w, _ in words]


def test_plot_doc_topic_heatmap_takes_a_topic_pipeline(pipeline):
    pipe, texts = pipeline
    X = pipe.vectorizer.transform(texts)
    ax = plotting.plot_doc_topic_heatmap(pipe, X=X, sort=False)
    np.testing.assert_allclose(ax.get_images()[0].get_array(), pipe.model.transform(X), rtol=1e-6)


def test_a_slice_of_top_words_keeps_the_topics_own_numbers(fitted):
    """A slice of top_words' result was titled by position: words[1:3] drew "topic 0: topic_1", "topic 1: topic_2"."""
    model, corpus = fitted
    words = top_words(model, corpus.vocabulary, 5)
    assert [ax.get_title() for ax in plotting.plot_top_words(words)] == ["topic 0", "topic 1", "topic 2"]
    assert [ax.get_title() for ax in plotting.plot_top_words(words[1:3])] == ["topic 1", "topic 2"]
    named = type(words)(list(words), ["fruit", "topic_1", "city"])  # a guided model's names: positions are topics
    assert [ax.get_title() for ax in plotting.plot_top_words(named)] == ["topic 0: fruit", "topic 1", "topic 2: city"]
    assert [ax.get_title() for ax in plotting.plot_top_words(named[1:])] == ["topic 1", "topic 2: city"]
    # (a review: a slice of named topics only was still titled by position, "topic 0: beta")
    guided = type(words)(list(words), ["fruit", "veg", "city"])
    assert [ax.get_title() for ax in plotting.plot_top_words(guided[1:])] == ["topic 1: veg", "topic 2: city"]
    assert [ax.get_title() for ax in plotting.plot_top_words(list(guided)[1:])] == ["topic 0", "topic 1"]  # (a list)


@pytest.mark.parametrize("traces, exc, match", [
    ([], ValueError, "needs at least one trace"),
    ([{"time": [1.0, 2.0]}], ValueError, "must have 'time' and 'perplexity' sequences"),
    ([[1.0, 2.0], [3.0, 4.0]], TypeError, r"traces must be dicts with 'time' and 'perplexity' .* trace 0 is a list"),
    ([{"time": [1.0], "perplexity": [9.0]}, {"label": "bad", "time": [1.0], "perplexity": [9.0, 8.0]}], ValueError,
     "trace 'bad' has 1 times but 2 perplexities"),
])
def test_perplexity_plot_checks_every_trace_before_drawing(traces, exc, match):
    """A refused call left an empty (or half-drawn) figure open under the traceback, and a list of lists gave an
    AttributeError."""
    plt.close("all")
    with pytest.raises(exc, match=match):
        plotting.plot_perplexity_vs_time(traces)
    assert plt.get_fignums() == []
    _, ax = plt.subplots()
    with pytest.raises(exc, match=match):
        plotting.plot_perplexity_vs_time(traces, ax=ax)
    assert len(ax.lines) == 0  # nothing drawn on the user's axes either
