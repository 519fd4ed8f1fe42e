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

from topicvb import BatchLDA, OnlineLDA, PLSA, StochasticCollapsedLDA  # noqa: E402
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


@pytest.fixture(scope="module")
def stochastic(fitted):
    _, _, corpus = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        online = OnlineLDA(3, batch_size=20, max_iter=8, random_state=0).fit(corpus.X)
        scvb0 = StochasticCollapsedLDA(3, batch_size=20, max_iter=8, random_state=0).fit(corpus.X)
    return online, scvb0


def _total_variation(y):
    return float(np.abs(np.diff(y)).sum())


def test_bound_history_smooths_a_stochastic_trace(fitted, stochastic):
    """An online fit's per-batch bound is drawn faint under its running mean over one pass, on an x-axis
    of passes, and the y-axis is fitted to the readable curves, not to the raw trace's spikes."""
    batch, _, _ = fitted
    online, _ = stochastic
    raw = online.bound_history_
    assert raw.size == online.n_batch_iter_ == 6 * online.n_iter_ and np.any(np.diff(raw) < 0)  # noisy
    ax = plotting.plot_bound_history({"batch": batch, "online": online})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["batch", "online (mean of 6)"]
    batch_line, mean_line, raw_line = ax.lines
    np.testing.assert_allclose(batch_line.get_ydata(), batch.bound_history_)
    np.testing.assert_allclose(raw_line.get_ydata(), raw)
    expected = [raw[max(0, i - 5): i + 1].mean() for i in range(raw.size)]  # trailing mean of one pass
    np.testing.assert_allclose(mean_line.get_ydata(), expected)
    assert raw_line.get_alpha() < 0.5 and mean_line.get_alpha() in (None, 1.0)
    assert raw_line.get_color() == mean_line.get_color()
    assert _total_variation(mean_line.get_ydata()) < 0.5 * _total_variation(raw)
    # the x-axis counts passes: the online trace ends at its number of passes, like a batch iteration count
    assert mean_line.get_xdata()[-1] == pytest.approx(online.n_iter_)
    assert mean_line.get_xdata()[5] == pytest.approx(1.0)
    assert ax.get_xlabel().startswith("passes over the corpus")
    # the y-range covers the batch curve and the running mean (with a 5% margin), not the raw spikes
    readable = np.concatenate([batch.bound_history_, expected])
    low, high = ax.get_ylim()
    span = readable.max() - readable.min()
    assert low == pytest.approx(readable.min() - 0.05 * span) and high == pytest.approx(readable.max() + 0.05 * span)
    # smoothing on request, or off
    ax = plotting.plot_bound_history(online, smooth=False)
    assert len(ax.lines) == 1 and np.allclose(ax.lines[0].get_ydata(), raw)
    ax = plotting.plot_bound_history(batch.bound_history_, smooth=3)
    assert len(ax.lines) == 2 and ax.lines[0].get_ydata()[2] == pytest.approx(batch.bound_history_[:3].mean())
    with pytest.raises(ValueError, match="smooth must be None, a bool or a positive int"):
        plotting.plot_bound_history(batch, smooth=0)


def test_bound_history_x_axis_counts_passes_only_where_they_are_known(fitted):
    """A StochasticCollapsedLDA fit ends with batch steps (one value per pass after its mini-batches): its x-axis
    still ends at n_iter_ passes. Mini-batches streamed by partial_fit belong to no counted pass, also after a
    fit: those are drawn one per mini-batch and the axis says so, instead of calling mini-batches passes."""
    _, _, corpus = fitted
    X = corpus.X  # 120 documents: 6 mini-batches of 20 a pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        scvb0 = StochasticCollapsedLDA(3, batch_size=20, random_state=0).fit(X)
        streamed = OnlineLDA(3, batch_size=20, random_state=0)
        for i in range(0, 120, 20):
            streamed.partial_fit(X[i:i + 20])
        refits = []
        for passes in (2, 3, 4):  # (30 mini-batches: round numbers for 2 and 3 passes, which fooled a first version)
            refit = OnlineLDA(3, batch_size=20, max_iter=passes, tol=0, random_state=0).fit(X)
            for i in range(0, 120, 20):
                refit.partial_fit(X[i:i + 20])
            refits.append(refit)
    steps = scvb0.bound_history_.size - scvb0.n_batch_iter_
    assert steps > 1  # the fit made batch steps after its mini-batches
    passes = scvb0.n_iter_ - (steps - 1)  # the passes of its mini-batches
    assert scvb0.n_batch_iter_ == 6 * passes
    ax = plotting.plot_bound_history(scvb0)
    mean_line, raw_line = ax.lines
    x = mean_line.get_xdata()
    np.testing.assert_allclose(x[:scvb0.n_batch_iter_], np.arange(1, scvb0.n_batch_iter_ + 1) / 6)
    np.testing.assert_allclose(x[scvb0.n_batch_iter_:], np.arange(passes, scvb0.n_iter_ + 1))
    assert ax.get_xlabel().startswith("passes over the corpus")
    y = scvb0.bound_history_  # the running mean is over one pass of mini-batches; the batch steps drawn as they are
    np.testing.assert_allclose(mean_line.get_ydata()[scvb0.n_batch_iter_:], y[scvb0.n_batch_iter_:])
    assert mean_line.get_ydata()[10] == pytest.approx(y[5:11].mean())
    for model in (streamed, *refits):
        ax = plotting.plot_bound_history(model)
        np.testing.assert_allclose(ax.lines[0].get_xdata(), np.arange(1, model.n_batch_iter_ + 1))
        assert ax.get_xlabel() == "mini-batch"
    batch, _, _ = fitted
    ax = plotting.plot_bound_history({"batch": batch, "streamed": streamed})
    assert ax.get_xlabel() == "iteration, or mini-batch (streamed fits)"
    assert [t.get_text() for t in ax.get_legend().get_texts()][1].startswith("streamed (x: mini-batches)")


def test_bound_history_goes_relative_for_bounds_of_different_kinds(fitted, stochastic):
    """StochasticCollapsedLDA records a per-token value (about -3), the others a corpus total (thousands):
    on one absolute axis one of them would be a flat line, so the default switches to relative bounds."""
    batch, _, _ = fitted
    _, scvb0 = stochastic
    assert abs(batch.bound_history_[-1]) > 10 * abs(scvb0.bound_history_[-1])
    ax = plotting.plot_bound_history([batch, scvb0])
    assert ax.get_ylabel() == "relative bound"
    assert ax.lines[0].get_ydata()[-1] == pytest.approx(0.0)
    ax = plotting.plot_bound_history([batch, scvb0], relative=False)
    assert ax.get_ylabel().startswith("bound")


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


def test_doc_topic_heatmap_checks_sort_and_max_docs():
    theta = np.random.RandomState(0).dirichlet([1, 1], size=30)
    for value in ["False", "no", 0, None]:
        with pytest.raises(TypeError, match=r"sort must be True or False, got"):
            plotting.plot_doc_topic_heatmap(theta, sort=value)
    ax = plotting.plot_doc_topic_heatmap(theta[:2], sort=np.False_)
    np.testing.assert_array_equal(ax.images[0].get_array(), theta[:2])
    for value, error in [(-5, ValueError), (0, ValueError), (True, TypeError), (2.7, TypeError), ("3", TypeError)]:
        with pytest.raises(error, match=r"max_docs must be a positive int, got"):
            plotting.plot_doc_topic_heatmap(theta, max_docs=value)
    assert plotting.plot_doc_topic_heatmap(theta, max_docs=np.int64(4)).images[0].get_array().shape == (4, 2)


def test_top_words_checks_n_and_topics_for_tables_and_lists(fitted):
    batch, _, corpus = fitted
    words = [[("a", 0.5), ("b", 0.3), ("c", 0.2)], [("d", 0.6), ("e", 0.4), ("f", 0.1)]]
    table = summary(batch, corpus.X, corpus.vocabulary, n=5)
    for given in [words, table, batch]:
        for n, error in [(-1, ValueError), (0, ValueError), (2.5, TypeError), (True, TypeError)]:
            with pytest.raises(error, match=r"n must be a positive int, got"):
                plotting.plot_top_words(given, corpus.vocabulary if given is batch else None, n=n)
        for topics, error, message in [
            ([1.9], TypeError, r"topics must be a sequence of int topic indices, got 1.9 of type float"),
            ([True], TypeError, r"got True of type bool"),
            (1, TypeError, r"topics must be a sequence of int topic indices, got int 1"),
            ("1", TypeError, r"got str '1'"),
            ([-1], ValueError, r"topics must be indices in \[0, \d\), got -1"),
        ]:
            with pytest.raises(error, match=message):
                plotting.plot_top_words(given, corpus.vocabulary if given is batch else None, topics=topics)
    axes = plotting.plot_top_words(words, n=2, topics=np.array([1]))
    assert len(axes) == 1 and axes[0].get_title() == "topic 1" and len(axes[0].patches) == 2


def test_bound_history_of_an_unfitted_model_says_fit_first():
    with pytest.raises(ValueError, match=r"^BatchLDA has no bound_history_; fit the model first"):
        plotting.plot_bound_history(BatchLDA(2))
    with pytest.raises(ValueError, match=r"^mine has no bound_history_; fit the model first"):
        plotting.plot_bound_history({"mine": PLSA(2)})
    with pytest.raises(ValueError, match=r"^OnlineLDA has no bound_history_; fit the model first"):
        plotting.plot_bound_history([BatchLDA(2).fit(np.ones((3, 4))), OnlineLDA(2)])


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


# ---------------------------------------------------------------------------------- layout, measured
def _extents(fig, artists):
    renderer = fig.canvas.get_renderer()
    return [(a, a.get_window_extent(renderer)) for a in artists if a.get_visible() and a.get_text()]


def _intersect(a, b):
    return min(a.x1, b.x1) - max(a.x0, b.x0) > 0.5 and min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5


@pytest.mark.parametrize("n, ncols, n_topics", [(10, 4, 8), (4, 3, 9), (15, 2, 4)])
def test_top_words_panels_do_not_overlap(n, ncols, n_topics):
    """No title runs into the axis label or tick labels of the panel above it, and no text of one panel
    enters another panel: measured on the drawn figure (Agg), not estimated."""
    gen = np.random.default_rng(1)
    words = [[(f"{'longword' * (1 + j % 2)}{k}_{j}", float(v)) for j, v in enumerate(sorted(gen.random(n), reverse=True))]
             for k in range(n_topics)]
    axes = plotting.plot_top_words(words, n=n, ncols=ncols)
    fig = axes[0].figure
    fig.canvas.draw()
    panels = []
    for ax in axes:
        lo, hi = sorted(ax.get_xlim())  # tick labels outside the view are not drawn
        xticks = [t for t in ax.get_xticklabels() if lo - 1e-12 <= t.get_position()[0] <= hi + 1e-12]
        texts = [ax.title, ax.xaxis.label] + xticks + ax.get_yticklabels()
        panels.append((ax, _extents(fig, texts)))
    for i, (ax, texts) in enumerate(panels):
        title = ax.title.get_window_extent(fig.canvas.get_renderer())
        for j, (other, other_texts) in enumerate(panels):
            if j == i:
                continue
            for artist, box in other_texts:
                assert not _intersect(title, box), (f"title of panel {i} overlaps {artist.get_text()!r} of panel {j}")
            assert not _intersect(title, other.get_window_extent()), f"title of panel {i} enters panel {j}"
            for artist, box in texts:  # this panel's word labels stay out of the other panels' plotting areas
                assert not _intersect(box, other.get_window_extent()), (
                    f"{artist.get_text()!r} of panel {i} enters panel {j}")
    inside = fig.bbox
    for _, texts in panels:
        for artist, box in texts:
            assert box.x0 >= inside.x0 - 0.5 and box.x1 <= inside.x1 + 0.5 and box.y0 >= inside.y0 - 0.5 \
                and box.y1 <= inside.y1 + 0.5, f"{artist.get_text()!r} is cut off by the figure's edge"
