"""The one list of topic-model estimators: class, command-line name and the fitted state a saved file needs.

The command line (``topicvb fit --model``), :func:`topicvb.load`, :func:`topicvb.evaluation.select_n_topics`
and the report read this list, so a new estimator is registered once and every entry point offers it.
Classes are imported lazily (``import topicvb`` stays light).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module

# Fitted attributes every LDA-type model needs beyond components_ and n_features_in_.
_LDA_STATE = ("doc_topic_prior_", "topic_word_prior_")


@dataclass(frozen=True)
class Entry:
    """One estimator: its command-line name, class name, defining module and the fitted attributes
    (beyond ``components_`` and ``n_features_in_``) that a saved model must hold."""

    cli_name: str
    class_name: str
    module: str
    required_state: tuple = ()
    summary: str = ""

    @property
    def cls(self):
        """The estimator class (imported on first use)."""
        return getattr(import_module(self.module), self.class_name)


ENTRIES = (
    Entry("plsa", "PLSA", "topicvb.models.plsa", (), "pLSA by (alternating) EM"),
    Entry("batch", "BatchLDA", "topicvb.models.batch_lda", _LDA_STATE, "batch variational Bayes LDA"),
    Entry("collapsed", "CollapsedLDA", "topicvb.models.collapsed_lda", _LDA_STATE,
          "collapsed variational Bayes LDA (CVB0 / CVB)"),
    Entry("online", "OnlineLDA", "topicvb.models.online_lda", _LDA_STATE + ("n_batch_iter_", "n_docs_seen_"),
          "online (stochastic variational) LDA"),
    Entry("scvb0", "StochasticCollapsedLDA", "topicvb.models.stochastic_cvb0",
          _LDA_STATE + ("n_batch_iter_", "n_docs_seen_", "total_tokens_"), "stochastic collapsed VB LDA (SCVB0)"),
)

_BY_CLI = {e.cli_name: e for e in ENTRIES}
_BY_CLASS = {e.class_name: e for e in ENTRIES}


def cli_names() -> list[str]:
    """The command-line names, in registry order."""
    return [e.cli_name for e in ENTRIES]


def class_names() -> list[str]:
    """The class names, in registry order."""
    return [e.class_name for e in ENTRIES]


def entry(name: str) -> Entry:
    """The entry of a command-line name (``"batch"``) or a class name (``"BatchLDA"``).

    Raises
    ------
    ValueError
        If ``name`` is neither.
    """
    found = _BY_CLI.get(name) or _BY_CLASS.get(name)
    if found is None:
        raise ValueError(f"Unknown topic model {name!r}; expected one of {cli_names()} (or the class names "
                         f"{class_names()}).")
    return found


def estimator_class(name: str):
    """The estimator class of a command-line name or a class name (see :func:`entry`)."""
    return entry(name).cls


def entry_of(model) -> Entry | None:
    """The entry of an estimator instance or class (exact class name match), or None."""
    cls = model if isinstance(model, type) else type(model)
    return _BY_CLASS.get(cls.__name__)
