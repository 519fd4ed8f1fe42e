"""Evaluating topic models: held-out perplexity, the per-word bound, coherence, and choosing K.

Evaluation sees a model only through ``components_``, ``transform`` (and, where present,
``topic_word_distribution()`` and the priors), so every topicvb estimator, scikit-learn's
``LatentDirichletAllocation`` and a peer's topic-word matrix wrapped in :class:`FixedTopicModel`
are measured the same way.

- :mod:`~topicvb.evaluation.perplexity`: :func:`heldout_perplexity` (document completion),
  :func:`heldout_log_likelihood`, :func:`split_tokens`, :func:`per_word_bound` (VB models),
  :func:`perplexity_trace`, :class:`FixedTopicModel`;
- :mod:`~topicvb.evaluation.coherence`: :func:`coherence` (``u_mass``, ``c_uci``, ``c_npmi``,
  ``c_v``) against a :class:`ReferenceCorpus`, :func:`topic_diversity`;
- :mod:`~topicvb.evaluation.selection`: :func:`select_n_topics` returning a :class:`SelectionResult`.
"""

from .coherence import MEASURES, CoherenceScores, ReferenceCorpus, coherence, topic_diversity
from .perplexity import (
    FixedTopicModel,
    heldout_log_likelihood,
    heldout_perplexity,
    per_word_bound,
    perplexity_trace,
    split_tokens,
)
from .selection import CRITERIA, SelectionResult, select_n_topics

__all__ = [
    "CRITERIA",
    "MEASURES",
    "CoherenceScores",
    "FixedTopicModel",
    "ReferenceCorpus",
    "SelectionResult",
    "coherence",
    "heldout_log_likelihood",
    "heldout_perplexity",
    "per_word_bound",
    "perplexity_trace",
    "select_n_topics",
    "split_tokens",
    "topic_diversity",
]
