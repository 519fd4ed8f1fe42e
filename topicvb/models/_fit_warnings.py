"""The warnings a fit gives about its result: dead topics, seeded topics that lost their seed words, seed words the
training counts never use (a mixin of :class:`._base.TopicModelBase`; a fit on Dask workers calls it too)."""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import user_stacklevel
from ..exceptions import DeadTopicWarning, SeedLostWarning, SeedUnseenWarning

# A topic is dead when it carries less than this share of 1/K of the tokens at the end of a fit.
DEAD_SHARE = 0.2


class FittedWarnings:
    """What a fitted state (the attributes a fit sets, by name) is warned about; models override how the topics'
    sizes and term counts are read from it (PLSA: its topics are probabilities)."""

    def _warn_fitted(self, fitted, X=None):
        """Warn when a fitted state (the attributes a fit sets, by name) has dead topics
        (:class:`DeadTopicWarning`) or seeded topics that lost their seed words (:class:`SeedLostWarning`).
        ``X``, the training counts, is needed where the topics' sizes come from it (PLSA) and for the check that
        every seed word occurs in it (:class:`SeedUnseenWarning`); a fit on Dask workers
        (:func:`topicvb.distributed.fit_distributed`) calls this without it."""
        shares = self._topic_shares(fitted, X)
        K = shares.shape[0]
        dead = np.flatnonzero(shares < DEAD_SHARE / K)
        # (no share at all: the counts are negligible next to the prior, as with weights of 1e-150, and no topic is
        # deader than another)
        if dead.size and np.all(np.isfinite(shares)) and shares.sum() > 0:
            listed = ", ".join(str(k) for k in dead[:10]) + (", ..." if dead.size > 10 else "")
            warnings.warn(
                f"{type(self).__name__}: {dead.size} of {K} topics carry less than {DEAD_SHARE:g}/K of the tokens "
                f"(dead topics: {listed}); fewer topics (n_components), another random_state or more iterations "
                "may serve better.", DeadTopicWarning, stacklevel=user_stacklevel())
        prior = self._seed_prior(fitted)
        if prior is not None and prior.shape == fitted["components_"].shape and np.all(np.isfinite(shares)):
            from .._seed_holding import _holdings, _lost_seeds_message

            labels = self._topic_labels()
            sizes = self._topic_sizes(fitted)
            lost = [h for h in _holdings(lambda cols: self._term_counts(fitted, cols, sizes), prior, labels) if h.lost]
            if lost:
                warnings.warn(_lost_seeds_message(type(self).__name__, lost, labels), SeedLostWarning,
                              stacklevel=user_stacklevel())
            if X is not None:
                self._warn_unseen_seeds(prior, X, labels, fitted)

    def _warn_unseen_seeds(self, prior, X, labels, fitted):
        """:class:`SeedUnseenWarning` for seed words (the raised terms of the seeded rows of ``prior``) that the
        training counts ``X`` never use."""
        from .._seed_holding import _term_names, _unseen_seeds, _unseen_seeds_message

        unseen = _unseen_seeds(prior, X)
        if unseen:
            names = _term_names(self.topic_word_prior, prior.shape[1],
                                fitted.get("feature_names_in_", getattr(self, "feature_names_in_", None)))
            warnings.warn(_unseen_seeds_message(type(self).__name__, unseen, labels, names), SeedUnseenWarning,
                          stacklevel=user_stacklevel())

    def _topic_sizes(self, fitted):
        """Each topic's expected training tokens where :meth:`_term_counts` needs them (PLSA), else None."""
        return None

    # whether _term_counts needs the topics' sizes (PLSA: its topics are probabilities)
    _term_counts_need_sizes = False

    def _seed_prior(self, fitted):
        """The fit's matrix topic-word prior, (K, V) (guided topics), or None for a symmetric one."""
        prior = fitted.get("topic_word_prior_")
        return np.asarray(prior) if np.ndim(prior) == 2 else None

    def _term_counts(self, fitted, cols, sizes):
        """The expected occurrences of the terms ``cols`` in each topic, (K, len(cols)) float64: components_ less
        the topic-word prior (PLSA overrides this; ``sizes``, each topic's expected tokens, is not needed here)."""
        components, prior = fitted["components_"], fitted["topic_word_prior_"]
        prior = np.asarray(prior, dtype=np.float64)[:, cols] if np.ndim(prior) == 2 else float(prior)
        return np.maximum(np.asarray(components[:, cols], dtype=np.float64) - prior, 0.0)

    def _topic_shares(self, fitted, X):
        """Each topic's share of the training tokens from the fitted state: the expected topic-term
        counts, components_ less the topic-word prior (PLSA overrides this)."""
        components, prior = fitted["components_"], fitted["topic_word_prior_"]
        matrix = np.ndim(prior) == 2
        totals = np.empty(components.shape[0])
        for k in range(components.shape[0]):  # (a row at a time: no (K, V) float64 copy)
            row = np.asarray(components[k], dtype=np.float64)
            totals[k] = np.maximum(row - (prior[k] if matrix else prior), 0.0).sum()
        return totals / max(float(totals.sum()), 1e-300)
