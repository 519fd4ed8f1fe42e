"""Matplotlib figures for fitted topic models (the optional ``plot`` extra).

matplotlib is imported only when a function here is called, so ``import topicvb.plotting`` works
without it; calling a function without matplotlib raises an ImportError that says how to install
it. Every function draws on the Axes given (or a new figure) and returns the Axes it drew on
(an array of Axes for the per-topic panels), and never calls ``plt.show()``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

import numpy as np

logger = logging.getLogger(__name__)

__all__ = [
    "plot_bound_history",
    "plot_doc_topic_heatmap",
    "plot_perplexity_vs_time",
    "plot_selection",
    "plot_top_words",
]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            "topicvb.plotting needs matplotlib, which is not installed. Install the plot extra: "
            "pip install 'topicvb[plot]' (or pip install matplotlib)."
        ) from exc
    return plt


def _axes(ax):
    if ax is not None:
        return ax
    _, ax = _pyplot().subplots()
    return ax


def plot_bound_history(models, *, ax=None, labels=None, relative: bool = False):
    """The training bound after every iteration, for one model or several.

    Parameters
    ----------
    models : fitted model, array-like, or a list / dict of them
        Models with ``bound_history_`` (or the histories themselves). A dict maps labels to them.
    ax : matplotlib Axes, default=None
        Where to draw; None makes a new figure.
    labels : list of str, default=None
        Legend labels; default the class names (or the dict keys).
    relative : bool, default=False
        Plot bound / |final bound| - 1 instead, to compare runs of different sizes.

    Returns
    -------
    matplotlib.axes.Axes
    """
    _pyplot()  # fail early with the install hint
    ax = _axes(ax)
    if isinstance(models, Mapping):
        labels = list(models) if labels is None else labels
        items = list(models.values())
    elif isinstance(models, (list, tuple)) and models and not np.isscalar(models[0]):
        items = list(models)
    else:
        items = [models]
    if labels is None:
        labels = [type(m).__name__ if hasattr(m, "bound_history_") else f"run {i}" for i, m in enumerate(items)]
    if len(labels) != len(items):
        raise ValueError(f"labels has {len(labels)} entries for {len(items)} models.")
    for item, label in zip(items, labels):
        history = getattr(item, "bound_history_", item)
        if history is None:
            raise ValueError(f"{label} has no bound_history_; fit the model first.")
        y = np.asarray(history, dtype=np.float64).ravel()
        if relative and y.size:
            y = y / abs(y[-1]) - np.sign(y[-1])
        ax.plot(np.arange(1, y.size + 1), y, marker="." if y.size < 50 else None, label=label)
    ax.set_xlabel("iteration")
    ax.set_ylabel("relative bound" if relative else "bound (ELBO / log-likelihood)")
    ax.set_title("Training bound")
    if len(items) > 1 or labels[0]:
        ax.legend()
    return ax


def plot_perplexity_vs_time(traces, *, ax=None, log_time: bool = False):
    """Held-out perplexity against fitting time for several models.

    Parameters
    ----------
    traces : list of dict or dict of dict
        Each trace has ``"time"`` and ``"perplexity"`` sequences (and a ``"label"``), as returned
        by :func:`topicvb.evaluation.perplexity_trace`; a dict maps labels to traces.
    ax : matplotlib Axes, default=None
    log_time : bool, default=False
        Logarithmic time axis.

    Returns
    -------
    matplotlib.axes.Axes
    """
    _pyplot()
    ax = _axes(ax)
    if isinstance(traces, Mapping) and "perplexity" in traces:
        traces = [traces]
    items = list(traces.items()) if isinstance(traces, Mapping) else [(t.get("label", f"model {i}"), t)
                                                                      for i, t in enumerate(traces)]
    if not items:
        raise ValueError("plot_perplexity_vs_time needs at least one trace.")
    for label, trace in items:
        try:
            t = np.asarray(trace["time"], dtype=np.float64)
            p = np.asarray(trace["perplexity"], dtype=np.float64)
        except (KeyError, TypeError):
            raise ValueError(f"trace {label!r} must have 'time' and 'perplexity' sequences.") from None
        if t.shape != p.shape:
            raise ValueError(f"trace {label!r} has {t.size} times but {p.size} perplexities.")
        ax.plot(t, p, marker="o", label=str(label))
    if log_time:
        ax.set_xscale("log")
    ax.set_xlabel("fit time (s)")
    ax.set_ylabel("held-out perplexity")
    ax.set_title("Held-out perplexity (document completion)")
    ax.legend()
    return ax


def plot_top_words(model_or_topics, vocabulary=None, *, n: int = 10, topics=None, ncols: int = 4, axes=None,
                   relevance=None, X=None):
    """Horizontal bar charts of each topic's top words and their probabilities.

    Parameters
    ----------
    model_or_topics : fitted model, TopicTable, or list of list of (str, float)
        What to draw.
    vocabulary : sequence of str, default=None
        Column names, when a model is given.
    n : int, default=10
        Words per topic (clipped to the vocabulary).
    topics : sequence of int, default=None
        Which topics to draw; None means all.
    ncols : int, default=4
        Panels per row of a new figure.
    axes : array of matplotlib Axes, default=None
        Where to draw, one per topic drawn.
    relevance, X
        Passed to :func:`topicvb.inspection.top_words` for relevance ranking.

    Returns
    -------
    ndarray of matplotlib.axes.Axes
        One Axes per topic drawn.
    """
    plt = _pyplot()
    if hasattr(model_or_topics, "components_"):
        from .inspection import top_words

        words = top_words(model_or_topics, vocabulary, n, relevance, X=X)
    elif hasattr(model_or_topics, "topics") and hasattr(model_or_topics, "to_dict"):
        words = [t[:n] for t in model_or_topics.topics]
    else:
        words = [list(t)[:n] for t in model_or_topics]
    chosen = list(range(len(words))) if topics is None else [int(k) for k in topics]
    for k in chosen:
        if not 0 <= k < len(words):
            raise ValueError(f"topics must be indices in [0, {len(words)}), got {k}.")
    if not chosen:
        raise ValueError("plot_top_words has no topic to draw.")
    if axes is None:
        ncols = max(1, min(int(ncols), len(chosen)))
        nrows = math.ceil(len(chosen) / ncols)
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 0.28 * max(n, 3) * nrows + 0.8 * nrows),
                                 squeeze=False)
        flat = np.asarray(axes).ravel()
        for extra in flat[len(chosen):]:
            extra.set_visible(False)
        fig.tight_layout()
    flat = np.asarray(axes, dtype=object).ravel()
    if flat.size < len(chosen):
        raise ValueError(f"axes has {flat.size} Axes for {len(chosen)} topics.")
    for ax, k in zip(flat, chosen):
        labels = [str(w) for w, _ in words[k]]
        values = [float(v) for _, v in words[k]]
        y = np.arange(len(labels))
        ax.barh(y, values, color="#4c72b0")
        ax.set_yticks(y)
        ax.set_yticklabels(labels)
        ax.invert_yaxis()
        ax.set_title(f"topic {k}")
        ax.set_xlabel("P(word | topic)")
    return flat[: len(chosen)]


def plot_doc_topic_heatmap(doc_topic, *, ax=None, X=None, max_docs: int | None = 200, sort: bool = True,
                           cmap: str = "viridis"):
    """A heatmap of document-topic proportions (documents as rows).

    Parameters
    ----------
    doc_topic : ndarray of shape (n_docs, n_topics) or fitted model
        Proportions; a model is applied to ``X`` with ``transform``.
    ax : matplotlib Axes, default=None
    X : {array-like, sparse matrix}, default=None
        Counts to transform when a model is given.
    max_docs : int or None, default=200
        Draw only the first ``max_docs`` documents (None: all).
    sort : bool, default=True
        Order the rows by dominant topic, then by its share, so blocks show.
    cmap : str, default="viridis"

    Returns
    -------
    matplotlib.axes.Axes
    """
    _pyplot()
    if hasattr(doc_topic, "components_"):
        if X is None:
            raise ValueError("plot_doc_topic_heatmap needs X when given a model (to compute its transform).")
        from .evaluation._common import check_counts, check_model, doc_topic as _doc_topic

        check_model(doc_topic, "plot_doc_topic_heatmap")
        theta = _doc_topic(doc_topic, check_counts(X, doc_topic, name="X", caller="plot_doc_topic_heatmap"))
    else:
        theta = np.asarray(doc_topic, dtype=np.float64)
    if theta.ndim != 2:
        raise ValueError(f"doc_topic must be 2-D (n_docs, n_topics), got shape {theta.shape}.")
    if max_docs is not None:
        theta = theta[: int(max_docs)]
    if sort and theta.size:
        top = theta.argmax(axis=1)
        order = np.lexsort((-theta[np.arange(theta.shape[0]), top], top))
        theta = theta[order]
    ax = _axes(ax)
    image = ax.imshow(theta, aspect="auto", interpolation="nearest", cmap=cmap, vmin=0.0, vmax=1.0)
    ax.figure.colorbar(image, ax=ax, label="share of the document")
    ax.set_xlabel("topic")
    ax.set_ylabel("document (sorted by dominant topic)" if sort else "document")
    ax.set_xticks(np.arange(theta.shape[1]))
    ax.set_title("Document-topic proportions")
    return ax


def plot_selection(result, *, ax=None, metric: str | None = None):
    """The K-selection curve of :func:`topicvb.evaluation.select_n_topics`.

    Parameters
    ----------
    result : SelectionResult
    ax : matplotlib Axes, default=None
    metric : {"bound", "perplexity", "coherence", "diversity"}, default=None
        Which column to draw; None means the one the criterion used.

    Returns
    -------
    matplotlib.axes.Axes
    """
    _pyplot()
    default = {"elbo": "bound", "heldout": "perplexity", "coherence": "coherence"}[result.criterion]
    metric = default if metric is None else metric
    allowed = {"bound", "perplexity", "coherence", "diversity", "fit_time"}
    if metric not in allowed:
        raise ValueError(f"metric must be one of {sorted(allowed)}, got {metric!r}.")
    ks = result.column("n_topics")
    values = result.column(metric)
    if np.all(np.isnan(values)):
        raise ValueError(f"the selection table has no {metric!r} values; rerun select_n_topics with what it needs.")
    ax = _axes(ax)
    ax.plot(ks, values, marker="o")
    best = np.flatnonzero(ks == result.best_k)
    if best.size and not np.isnan(values[best[0]]):
        ax.plot([result.best_k], [values[best[0]]], marker="*", markersize=14, color="C3", linestyle="none",
                label=f"best K = {result.best_k}")
        ax.legend()
    ax.set_xlabel("number of topics K")
    ax.set_ylabel(metric if metric != "coherence" else (result.coherence_measure or "coherence"))
    ax.set_title(f"{result.model_name}: choosing K ({result.criterion})")
    return ax
