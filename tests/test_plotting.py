"""Figures: each function draws on the Agg backend and returns its Axes."""

import builtins
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from topicvb import BatchLDA, PLSA  # noqa: E402
from topicvb import plotting  # noqa: E402
from topicvb.datasets import make_lda_corpus  # noqa: E402
from topicvb.evaluation import select_n_topics  # noqa: E402
from topicvb.inspection import summary  # noqa: E402


@pytest.fixture(scope="module")
def fitted():
    corpus, _, _ = make_lda_corpus(120, 24, 3, separated=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        batch = BatchLDA(3, random_state=0, max_iter=15).fit(corpus.X)
        plsa = PLSA(3, random_state=0, max_iter=15).fit(corpus.X)
    return batch, plsa, corpus


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_bound_history(fitted):
    batch, plsa, _ = fitted
    ax = plotting.plot_bound_history(batch)
    assert isinstance(ax, Axes)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), batch.bound_history_)
    ax = plotting.plot_bound_history({"batch": batch, "plsa": plsa}, relative=True)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["batch", "plsa"]
    assert ax.lines[0].get_ydata()[-1] == pytest.approx(0.0)
    _, given = plt.subplots()
    assert plotting.plot_bound_history([1.0, 2.0, 3.0], ax=given) is given


def test_perplexity_vs_time():
    traces = [{"label": "a", "time": [0.1, 0.2], "perplexity": [30, 20]},
              {"label": "b", "time": [0.1, 0.3, 0.5], "perplexity": [25, 18, 17]}]
    ax = plotting.plot_perplexity_vs_time(traces, log_time=True)
    assert isinstance(ax, Axes) and len(ax.lines) == 2
    assert ax.get_xscale() == "log"
    with pytest.raises(ValueError, match="'time' and 'perplexity'"):
        plotting.plot_perplexity_vs_time([{"label": "x", "time": [1]}])


def test_top_words_bars(fitted):
    batch, _, corpus = fitted
    axes = plotting.plot_top_words(batch, corpus.vocabulary, n=4)
    assert len(axes) == 3 and all(isinstance(ax, Axes) for ax in axes)
    assert len(axes[0].patches) == 4
    assert [t.get_text() for t in axes[1].get_yticklabels()] == [w for w, _ in batch.top_words(4, corpus.vocabulary)[1]]
    table = summary(batch, corpus.X, corpus.vocabulary, n=5)
    axes = plotting.plot_top_words(table, topics=[2], n=3)
    assert len(axes) == 1 and axes[0].get_title() == "topic 2" and len(axes[0].patches) == 3
    with pytest.raises(ValueError, match=r"topics must be indices in \[0, 3\), got 5"):
        plotting.plot_top_words(table, topics=[5])


def test_doc_topic_heatmap(fitted):
    batch, _, corpus = fitted
    ax = plotting.plot_doc_topic_heatmap(batch, X=corpus.X, max_docs=50)
    assert isinstance(ax, Axes)
    assert ax.images[0].get_array().shape == (50, 3)
    ax = plotting.plot_doc_topic_heatmap(batch.transform(corpus.X), sort=False, max_docs=None)
    assert ax.images[0].get_array().shape == (120, 3)
    with pytest.raises(ValueError, match="needs X when given a model"):
        plotting.plot_doc_topic_heatmap(batch)


def test_selection_curve(fitted):
    _, _, corpus = fitted
    result = select_n_topics(corpus.X, [2, 3], criterion="heldout", max_iter=10)
    ax = plotting.plot_selection(result)
    assert isinstance(ax, Axes)
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), [2, 3])
    ax = plotting.plot_selection(result, metric="diversity")
    assert ax.get_ylabel() == "diversity"
    with pytest.raises(ValueError, match="no 'coherence' values"):
        plotting.plot_selection(result, metric="coherence")
    with pytest.raises(ValueError, match="metric must be one of"):
        plotting.plot_selection(result, metric="aic")


def test_missing_matplotlib_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match=r"topicvb\[plot\]"):
        plotting.plot_bound_history([1.0, 2.0])
