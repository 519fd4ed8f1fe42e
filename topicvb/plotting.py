"""Matplotlib figures for fitted topic models (the optional ``plot`` extra).

matplotlib is imported only when a function here is called, so ``import topicvb.plotting`` works
without it; calling a function without matplotlib raises an ImportError that says how to install
it. Every function draws on the Axes given (or a new figure) and returns the Axes it drew on
(an array of Axes for the per-topic panels), and never calls ``plt.show()``.
"""

from __future__ import annotations

import logging
import math
import numbers
import re
from collections.abc import Iterable, Mapping

import numpy as np

from ._validation import check_bool

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


def _running_mean(y: np.ndarray, window: int) -> np.ndarray:
    """Trailing running mean: entry i is the mean of y[max(0, i - window + 1) : i + 1]."""
    c = np.concatenate([[0.0], np.cumsum(y)])
    i = np.arange(1, y.size + 1)
    lo = np.maximum(0, i - window)
    return (c[i] - c[lo]) / (i - lo)


def _is_model(item) -> bool:
    """Whether ``item`` is an estimator (fitted or not) rather than a history of bound values."""
    return callable(getattr(item, "fit", None)) or hasattr(item, "components_")


def _stochastic_passes(item, n_values: int):
    """For a stochastic model's history of ``n_values`` values, (passes its mini-batches made, mini-batches per
    pass), or None where the passes cannot be known (``partial_fit`` streams, alone or after a ``fit``).

    Only ``fit`` counts passes (``n_iter_``). A fit's history holds one value per mini-batch (``n_batch_iter_``),
    then, for StochasticCollapsedLDA with its batch steps, the objective where they start and one value per batch
    step, each one pass: those batch steps are ``n_values - n_batch_iter_ - 1`` of the ``n_iter_`` passes. The
    passes of the mini-batches must agree with the documents seen and the batch size (a ``partial_fit`` after
    the fit adds mini-batches and documents that no pass counts). A model fitted in this process knows the
    mini-batches of its fit (a saved one too); one from a file of an older topicvb is judged by those numbers alone,
    which round sizes can fool.
    """
    n_batches, passes = getattr(item, "n_batch_iter_", None), getattr(item, "n_iter_", 0)
    if not n_batches or not passes or n_values < n_batches:
        return None
    fit_batches = getattr(item, "_fit_batches", None)  # (kept by fit and in files; older files have none)
    if fit_batches is not None and fit_batches != n_batches:
        return None  # partial_fit added mini-batches after the fit
    extra = n_values - n_batches
    passes -= max(extra - 1, 0)
    seen, size = getattr(item, "n_docs_seen_", None), getattr(item, "batch_size", None)
    if passes < 1 or n_batches % passes or not isinstance(seen, numbers.Integral) or seen % passes:
        return None
    per_pass = n_batches // passes
    if isinstance(size, numbers.Integral) and size > 0 and -(-(seen // passes) // size) != per_pass:
        return None
    return passes, per_pass


def _trace(item, label, smooth):
    """(x, y, window or None, unit, n_smoothed) of one model or history: window None = drawn as it is, unit one
    of "iteration", "pass" and "mini-batch", and the first n_smoothed values under the running mean."""
    history = getattr(item, "bound_history_", item)
    if history is None or (history is item and _is_model(item)):
        raise ValueError(f"{label} has no bound_history_; fit the model first.")
    try:
        y = np.asarray(history, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise TypeError(f"{label} must be a fitted model with bound_history_ or a sequence of bound values, "
                        f"got {type(history).__name__}.") from None
    stochastic = getattr(item, "n_batch_iter_", None) is not None  # one value per mini-batch
    known = _stochastic_passes(item, y.size) if stochastic else None
    per_pass, n_batches = None, y.size
    if known is not None:  # in passes over the corpus, as batch iterations are
        passes, per_pass = known
        n_batches = item.n_batch_iter_
        steps = np.arange(passes, passes + y.size - n_batches, dtype=np.float64)  # the batch steps, if any
        x = np.concatenate([np.arange(1, n_batches + 1) / per_pass, steps])
        unit = "pass"
    else:
        x = np.arange(1, y.size + 1, dtype=np.float64)
        unit = "mini-batch" if stochastic else "iteration"
    if smooth is None:
        smooth = stochastic
    if smooth is False or y.size < 3:
        return x, y, None, unit, 0
    window = int(smooth) if not isinstance(smooth, bool) else (per_pass or max(5, y.size // 20))
    return x, y, max(1, min(window, y.size)), unit, n_batches


def plot_bound_history(models, *, ax=None, labels=None, relative: bool | None = None, smooth=None):
    """The training bound after every iteration, for one model or several.

    A stochastic fit (:class:`~topicvb.OnlineLDA`, :class:`~topicvb.StochasticCollapsedLDA`)
    records a noisy estimate per mini-batch; drawn as it is beside the monotone curves of the
    batch estimators it hides them. So its raw trace is drawn faint, under a running mean over one
    pass of mini-batches, and its x-axis counts passes over the corpus (an iteration of a batch
    estimator is one pass), so that both kinds line up; StochasticCollapsedLDA's batch steps after its
    mini-batches (``moves=True``) are drawn one per pass, as they are. Mini-batches streamed by
    ``partial_fit`` belong to no counted pass: such a trace is drawn one mini-batch per unit of the x-axis
    (said in its legend beside other traces). The y-axis is fitted to the running means
    and the batch curves; outliers of the raw traces may leave it.

    Parameters
    ----------
    models : fitted model, array-like, or a list / dict of them
        Models with ``bound_history_`` (or the histories themselves). A dict maps labels to them.
    ax : matplotlib Axes, default=None
        Where to draw; None makes a new figure.
    labels : list of str, default=None
        Legend labels; default the class names (or the dict keys).
    relative : bool, default=None
        Plot (bound - final bound) / |final bound| instead, each trace's relative distance to its own
        final bound (0 at the end, negative below it whatever the bound's sign), to compare runs of
        different sizes or kinds of bound. None means True when the final bounds differ by more than a factor of 10 in
        magnitude (``StochasticCollapsedLDA`` records a per-token value, the others one for the
        whole corpus), else False.
    smooth : bool or int, default=None
        Running mean over this many values (True: one pass of mini-batches where the passes are known,
        else max(5, n / 20) values), drawn over a faint raw trace; False draws every trace as it
        is. None smooths the stochastic fits only.

    Returns
    -------
    matplotlib.axes.Axes
    """
    _pyplot()  # fail early with the install hint
    if isinstance(models, Mapping):
        labels = list(models) if labels is None else labels
        items = list(models.values())
    elif isinstance(models, (list, tuple)) and models and not np.isscalar(models[0]):
        items = list(models)
    else:
        items = [models]
    if labels is None:
        labels = [type(m).__name__ if hasattr(m, "bound_history_") or _is_model(m) else f"run {i}"
                  for i, m in enumerate(items)]
    if len(labels) != len(items):
        raise ValueError(f"labels has {len(labels)} entries for {len(items)} models.")
    if not (smooth is None or isinstance(smooth, bool) or (isinstance(smooth, numbers.Integral) and smooth >= 1)):
        raise ValueError(f"smooth must be None, a bool or a positive int, got {smooth!r}.")
    traces = [_trace(item, label, smooth) for item, label in zip(items, labels)]
    finals = np.array([abs(y[-1]) for _, y, *_ in traces if y.size])
    if relative is None:
        relative = bool(finals.size > 1 and finals.min() > 0 and finals.max() > 10 * finals.min())
    ax = _axes(ax)
    low, high = np.inf, -np.inf
    units = {unit for _, _, _, unit, _ in traces}
    for (x, y, window, unit, n_smoothed), label in zip(traces, labels):
        if relative and y.size:
            y = y / abs(y[-1]) - np.sign(y[-1])
        if unit == "mini-batch" and len(units) > 1:
            label = f"{label} (x: mini-batches)"
        if window is None:
            line = ax.plot(x, y, marker="." if y.size < 50 else None, label=label)[0]
            main = y
        else:  # (the batch steps after the mini-batches, one per pass, are drawn as they are)
            main = np.concatenate([_running_mean(y[:n_smoothed], window), y[n_smoothed:]])
            line = ax.plot(x, main, label=f"{label} (mean of {window})" if window > 1 else label, zorder=3)[0]
            ax.plot(x, y, color=line.get_color(), alpha=0.25, linewidth=0.8, label="_raw " + str(label), zorder=2)
        finite = main[np.isfinite(main)]
        if finite.size:
            low, high = min(low, finite.min()), max(high, finite.max())
    if np.isfinite(low) and np.isfinite(high):
        pad = 0.05 * (high - low) if high > low else max(abs(high) * 0.05, 1e-12)
        ax.set_ylim(low - pad, high + pad)
    if units == {"mini-batch"}:
        ax.set_xlabel("mini-batch")
    elif "mini-batch" in units:
        ax.set_xlabel("iteration, or mini-batch (streamed fits)")
    else:
        ax.set_xlabel("passes over the corpus (iterations)" if "pass" in units else "iteration")
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
    if isinstance(traces, Mapping) and "perplexity" in traces:
        traces = [traces]
    if not isinstance(traces, Mapping):
        traces = list(traces)
        for i, t in enumerate(traces):
            if not isinstance(t, Mapping):
                raise TypeError(f"traces must be dicts with 'time' and 'perplexity' sequences (as perplexity_trace "
                                f"returns) or a dict of them; trace {i} is a {type(t).__name__}.")
    items = list(traces.items()) if isinstance(traces, Mapping) else [(t.get("label", f"model {i}"), t)
                                                                      for i, t in enumerate(traces)]
    if not items:
        raise ValueError("plot_perplexity_vs_time needs at least one trace.")
    lines = []  # (every trace checked before anything is drawn: no empty or half-drawn figure on an error)
    for label, trace in items:
        try:
            t = np.asarray(trace["time"], dtype=np.float64)
            p = np.asarray(trace["perplexity"], dtype=np.float64)
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"trace {label!r} must have 'time' and 'perplexity' sequences.") from None
        if t.shape != p.shape:
            raise ValueError(f"trace {label!r} has {t.size} times but {p.size} perplexities.")
        lines.append((t, p, str(label)))
    ax = _axes(ax)
    for t, p, label in lines:
        ax.plot(t, p, marker="o", label=label)
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
    model_or_topics : fitted model, TopicPipeline, TopicTable, or list of list of (str, float)
        What to draw. A :class:`~topicvb.TopicPipeline` (what :func:`topicvb.load` returns for a
        model saved with its vectorizer) is drawn in its vectorizer's terms.
    vocabulary : sequence of str, default=None
        Column names, when a model is given.
    n : positive int, default=10
        Words per topic (clipped to the vocabulary, or to the words a TopicTable or list holds); a
        new figure's height follows the words drawn.
    topics : sequence of int, default=None
        Which topics to draw (int indices); None means all.
    ncols : positive int, default=4
        Panels per row of a new figure.
    axes : array of matplotlib Axes, default=None
        Where to draw, one per topic drawn.
    relevance, X
        Passed to :func:`topicvb.inspection.top_words` for relevance ranking.

    Returns
    -------
    ndarray of matplotlib.axes.Axes
        One Axes per topic drawn, titled ``topic k``, and ``topic k: label`` for a topic with a name
        of its own (a guided topic: the model's ``topic_labels_``, a TopicTable's or top_words' labels). A
        slice of top_words' result (``words[3:6]``) keeps the topics' own numbers in these titles; a slice of a
        plain list of labelled topics, which has no numbers, titles its named topics by their names alone.
    """
    from ._inspection_words import as_model, custom_labels
    from .evaluation._common import check_positive_int

    plt = _pyplot()
    ncols = check_positive_int(ncols, "ncols")
    model, vocabulary = as_model(model_or_topics, vocabulary)
    if hasattr(model, "components_") or model is not model_or_topics:  # (an unfitted pipeline: top_words says so)
        from .inspection import top_words

        words = top_words(model, vocabulary, n, relevance, X=X)
        names = words.labels
    elif hasattr(model_or_topics, "topics") and hasattr(model_or_topics, "to_dict"):
        n = check_positive_int(n, "n")
        words = [t[:n] for t in model_or_topics.topics]
        names = getattr(model_or_topics, "labels", None)
    else:
        n = check_positive_int(n, "n")
        names = getattr(model_or_topics, "labels", None)
        words = [list(t)[:n] for t in model_or_topics]
    numbers = getattr(model_or_topics, "numbers", None)  # (a slice of top_words' result: the topics' own numbers)
    names = custom_labels(names) if names is not None and len(names) == len(words) else None
    chosen = list(range(len(words))) if topics is None else _topic_indices(topics, len(words))
    if not chosen:
        raise ValueError("plot_top_words has no topic to draw.")
    titles = _panel_titles(names, len(words), numbers if numbers is not None and len(numbers) == len(words) else None)
    if axes is None:
        ncols = min(ncols, len(chosen))
        nrows = math.ceil(len(chosen) / ncols)
        # sized for the words drawn (n is clipped to the vocabulary or to what a table holds): the most of a topic
        n_drawn = max(len(words[k]) for k in chosen)
        # constrained layout makes room for every title, axis label and word at draw time (tight_layout
        # before the bars exist cannot: titles then ran into the axis labels of the panels above)
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, (0.24 * max(n_drawn, 3) + 1.2) * nrows),
                                 squeeze=False, layout="constrained")
        flat = np.asarray(axes).ravel()
        for extra in flat[len(chosen):]:
            extra.set_visible(False)
    flat = np.asarray(axes, dtype=object).ravel()
    if flat.size < len(chosen):
        raise ValueError(f"axes has {flat.size} Axes for {len(chosen)} topics.")
    for ax, k in zip(flat, chosen):
        labels = [str(w) for w, _ in words[k]]
        values = [float(v) for _, v in words[k]]
        y = np.arange(len(labels))
        ax.barh(y, values, color="#4c72b0")
        ax.set_yticks(y)
        ax.set_yticklabels(labels, parse_math=False)  # (words are text: "$x^2$" is not mathematics)
        ax.invert_yaxis()
        ax.set_title(titles[k], parse_math=False)
        ax.set_xlabel("P(word | topic)")
    return flat[: len(chosen)]


def _panel_titles(names, n_topics: int, numbers=None) -> list[str]:
    """The title of each topic's panel in :func:`plot_top_words`: ``topic k``, or ``topic k: name`` for a topic with a
    name of its own, k the topic's number in the model: ``numbers`` (a TopicWords' own, also in a slice of it) where
    given. Without them, a default name ``topic_j`` at another position (a slice of another list) gives the topic's
    own number j, and then a name of its own stands alone: the positions are not the model's topic numbers."""
    if numbers is not None:
        return [f"topic {j}" if not names or names[k] == f"topic_{j}" else f"topic {j}: {names[k]}"
                for k, j in enumerate(numbers)]
    if not names:
        return [f"topic {k}" for k in range(n_topics)]
    numbers = [re.fullmatch(r"topic_(\d+)", name) for name in names]
    shifted = any(m is not None and int(m[1]) != k for k, m in enumerate(numbers))
    return [f"topic {int(m[1])}" if m is not None else name if shifted else f"topic {k}: {name}"
            for k, (name, m) in enumerate(zip(names, numbers))]


def _topic_indices(topics, n_topics: int) -> list[int]:
    """``topics`` of :func:`plot_top_words` as a list of int topic indices in [0, n_topics)."""
    if isinstance(topics, (str, bytes)) or not isinstance(topics, Iterable):
        raise TypeError(f"topics must be a sequence of int topic indices, got {type(topics).__name__} {topics!r}.")
    chosen = list(topics)
    for k in chosen:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
            raise TypeError(f"topics must be a sequence of int topic indices, got {k!r} of type {type(k).__name__}.")
        if not 0 <= k < n_topics:
            raise ValueError(f"topics must be indices in [0, {n_topics}), got {k}.")
    return [int(k) for k in chosen]


def plot_doc_topic_heatmap(doc_topic, *, ax=None, X=None, max_docs: int | None = 200, sort: bool = True,
                           cmap: str = "viridis"):
    """A heatmap of document-topic proportions (documents as rows).

    Parameters
    ----------
    doc_topic : ndarray of shape (n_docs, n_topics), fitted model or TopicPipeline
        Proportions; a model (a :class:`~topicvb.TopicPipeline`'s model) is applied to ``X`` with
        ``transform``.
    ax : matplotlib Axes, default=None
    X : {array-like, sparse matrix}, default=None
        Counts to transform when a model is given.
    max_docs : positive int or None, default=200
        Draw only the first ``max_docs`` documents (None: all).
    sort : bool, default=True
        Order the rows by dominant topic, then by its share, so blocks show.
    cmap : str, default="viridis"

    Returns
    -------
    matplotlib.axes.Axes
        The topic axis names the topics (``k: label``) when a model with guided topics is given.
    """
    from ._inspection_words import as_model, custom_labels, model_labels
    from .evaluation._common import check_positive_int

    _pyplot()
    model, _ = as_model(doc_topic)
    is_model = hasattr(model, "components_") or model is not doc_topic  # (an unfitted pipeline: check_model says so)
    doc_topic = model
    sort = check_bool(sort, "sort")
    if max_docs is not None:
        max_docs = check_positive_int(max_docs, "max_docs")
    names = None
    if is_model:
        from .evaluation._common import check_counts, check_model, doc_topic as _doc_topic

        check_model(doc_topic, "plot_doc_topic_heatmap")
        names = custom_labels(model_labels(doc_topic))
        if X is None:
            raise ValueError("plot_doc_topic_heatmap needs X when given a model (to compute its transform).")
        theta = _doc_topic(doc_topic, check_counts(X, doc_topic, name="X", caller="plot_doc_topic_heatmap"))
    else:
        theta = np.asarray(doc_topic, dtype=np.float64)
    if theta.ndim != 2:
        raise ValueError(f"doc_topic must be 2-D (n_docs, n_topics), got shape {theta.shape}.")
    if max_docs is not None:
        theta = theta[:max_docs]
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
    if names is not None and len(names) == theta.shape[1]:
        ax.set_xticklabels([str(k) if name == f"topic_{k}" else f"{k}: {name}" for k, name in enumerate(names)],
                           rotation=45, ha="right", parse_math=False)
    ax.set_title("Document-topic proportions")
    return ax


def plot_selection(result, *, ax=None, metric: str | None = None):
    """The K-selection curve of :func:`topicvb.evaluation.select_n_topics`.

    Parameters
    ----------
    result : SelectionResult
    ax : matplotlib Axes, default=None
    metric : {"bound", "perplexity", "coherence", "diversity", "fit_time"}, default=None
        Which column to draw (``fit_time``: seconds per fit); None means the one the criterion used.

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
