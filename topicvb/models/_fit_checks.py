"""What a fit must agree with before its work: a guided prior's seed words and X's named columns, and, for a call
that continues a fit (a later ``partial_fit``), the fitted number of topics, dtype and prior parameters (a mixin of
:class:`._base.TopicModelBase`)."""

from __future__ import annotations

import numpy as np


class FitChecks:
    """Checks of :meth:`._base.TopicModelBase._transaction`, before the work; each raises a ValueError naming the
    parameter and what to do."""

    def _check_seed_names(self, caller: str):
        """A guided prior (a :class:`topicvb.SeededPrior`, which knows its seed words' columns) used on counts with
        named columns (``feature_names_in_``, a DataFrame's) must not raise a seed word's column where X has a
        column of that name elsewhere: the prior was built over another column order, and would raise other words,
        silently. (Names that are not the seed words at all, such as ``c0, c1, ...``, say nothing of the order.)"""
        prior, names = self.topic_word_prior, getattr(self, "feature_names_in_", None)
        seeds, columns = getattr(prior, "seed_topics", None), getattr(prior, "seed_columns", None)
        if names is None or not seeds or not columns:
            return
        where = {str(name): j for j, name in enumerate(names)}
        for label, words in seeds.items():
            cols = columns.get(label, ())
            if any(where.get(str(w), c) != c for w, c in zip(words, cols)):
                found = [str(names[j]) if 0 <= j < len(names) else "?" for j in cols]
                raise ValueError(
                    f"{type(self).__name__}.{caller}: the seed words of topic {label!r} ({', '.join(map(str, words))}) "
                    f"are not X's columns of those names: the prior raises the columns named "
                    f"{', '.join(map(str, found))}. Build the prior over X's columns, in their order "
                    "(seed_topic_prior(list(X.columns), ...)), or select the columns in the prior's order.")

    def _check_same_topics(self, caller: str):
        """A call that continues a fit (a later ``partial_fit``) keeps the fitted topics: ``n_components`` set to
        another number after the first call is refused (the kernels would index the fitted topic arrays with it),
        and so is another ``dtype`` (the fitted arrays would meet counts of another type: a model of two dtypes,
        and a compilation of every kernel for the pair)."""
        fitted = self.components_.shape[0]
        if self.n_components != fitted:
            raise ValueError(
                f"{type(self).__name__}.{caller}: n_components={self.n_components!r}, but the model was fitted with "
                f"{fitted} topics; {caller} continues that fit, so set n_components back to {fitted}, or call fit to "
                "start a new one."
            )
        fitted_dtype = np.dtype(self._fitted_float).name
        if np.dtype(self._float).name != fitted_dtype:
            raise ValueError(
                f"{type(self).__name__}.{caller}: dtype={self.dtype!r}, but the model was fitted in {fitted_dtype}; "
                f"{caller} continues that fit, so set dtype back to {fitted_dtype!r}, or call fit to start a new one."
            )
        self._check_same_priors(caller)

    def _prior_params(self) -> tuple:
        """Digests of the prior parameters (``doc_topic_prior``, ``topic_word_prior``: values, and a SeededPrior's
        labels) as a fit started with them: a continued fit compares them (:meth:`_check_same_priors`)."""
        from ._checkpoint import _array_param_token, _is_array_param, _plain_param

        values = [getattr(self, "doc_topic_prior", None), getattr(self, "topic_word_prior", None)]
        # (an array subclass, such as the memmap of a model joblib loaded with mmap_mode, and a list or tuple of the
        # same numbers are the same prior as the array)
        values = [np.asarray(v) if isinstance(v, (np.ndarray, list, tuple)) else v for v in values]
        return tuple(_array_param_token(v) if _is_array_param(v) else repr(_plain_param(v)) for v in values)

    def _check_same_priors(self, caller: str):
        """A continued fit goes on with the fitted priors (``doc_topic_prior_``, ``topic_word_prior_``, learned or
        not): a prior parameter set to another value after the first call is refused, as it would be ignored (a
        SeededPrior set then named topics that nothing seeded). ``learn_priors`` may change: the priors as they
        are go on. (A model loaded from a file that an older topicvb saved has no digests, and is not checked.)"""
        started = self.__dict__.get("_started_priors")
        if started is None:
            return
        now = self._prior_params()
        changed = [name for name, a, b in zip(("doc_topic_prior", "topic_word_prior"), now, started) if a != b]
        if changed:
            what = " and ".join(changed)
            raise ValueError(
                f"{type(self).__name__}.{caller}: {what} {'differs' if len(changed) == 1 else 'differ'} from the "
                f"value{'s' if len(changed) > 1 else ''} the fit started with; {caller} continues that fit with its "
                f"own priors ({', '.join(name + '_' for name in changed)}), so set {what} back, or call fit to start "
                "a new one."
            )
