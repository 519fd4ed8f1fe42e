"""Behaviour shared by every topic model: validation, threads, progress, top words, transactional fit.

A model subclass declares what its own parameters accept in ``_parameter_constraints`` (merged with
the shared ones declared here; checks relating several parameters go in ``_check_param_relations``),
and implements ``_fit(X)`` returning a dict of fitted attributes, ``_doc_topic(X)`` returning unnormalised
document-topic weights for new documents, and ``_score(X)``, the training objective on ``X`` (``bound``).
"""

from __future__ import annotations

import contextlib
import logging
import numbers
import sys
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from .._completion import completion_log_likelihoods, normalised_rows, split_cells
from .._config import convergence_warnings_wanted
from ._fit_checks import FitChecks
from ._fit_warnings import FittedWarnings
from ._checkpoint import check_checkpoint_folder, fingerprint, load_checkpoint, rng_state_arrays, save_checkpoint
from .._validation import (MAX_INT, as_csr, check_count_range, check_int, check_matrix_type, check_n_terms,
                           check_nonnegative_counts, check_positive_prior, check_topic_labels,
                           check_topic_word_prior,
                           check_sparse_structure, drop_negligible_counts, non_finite_counts_error,
                           user_stacklevel)
from .._constraints import (N_JOBS_CONSTRAINT, RANDOM_STATE_CONSTRAINT, Interval, Path, PositivePrior, PriorMatrix, StrOptions,
                            validate_params)

logger = logging.getLogger("topicvb.models")

_DTYPES = {"float64": np.float64, "float32": np.float32}

# A decrease of the objective this small (relative) counts as rounding, not as a decrease.
_ROUNDING = 1e-12


# The parameters of a model that writes checkpoints; its own table includes them (``**CHECKPOINT_CONSTRAINTS``).
CHECKPOINT_CONSTRAINTS = {
    "checkpoint_path": [Path(), None],
    "checkpoint_every": [Interval(Integral, 1, MAX_INT)],
}


class TopicModelBase(FittedWarnings, FitChecks, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base class of the topic models; not meant to be used directly."""

    # ------------------------------------------------------------------ sklearn plumbing
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"] if self.dtype == "float32" else ["float64"]
        return tags

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    # ------------------------------------------------------------------ checks
    # What each parameter accepts (scikit-learn's convention; see topicvb._validation). A subclass
    # lists its own parameters only: _all_parameter_constraints() merges the tables up the class
    # hierarchy, so the parameters every model has are declared once, here. Checks that relate
    # several parameters follow the table in _check_param_relations.
    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, MAX_INT)],
        "doc_topic_prior": [PositivePrior(vector=True), None],
        "topic_word_prior": [PositivePrior(), PriorMatrix(), None],
        "max_iter": [Interval(Integral, 1, MAX_INT)],
        "tol": [Interval(Real, 0, None)],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "verbose": [Interval(Integral, 0, MAX_INT)],
        "n_jobs": N_JOBS_CONSTRAINT,
        "dtype": [StrOptions(set(_DTYPES))],
    }

    @classmethod
    def _all_parameter_constraints(cls) -> dict:
        """The ``_parameter_constraints`` of this class and its bases, the most derived winning."""
        merged = {}
        for klass in reversed(cls.__mro__):
            merged.update(klass.__dict__.get("_parameter_constraints", {}))
        return merged

    def _check_params(self):
        """Check every parameter against the merged table, then the relations between them.

        Raises ``TypeError`` or ``ValueError`` naming the first bad parameter and what it accepts.
        """
        validate_params(self.get_params(deep=False), self._all_parameter_constraints())
        self._check_param_relations()

    def _check_param_relations(self):
        """Checks that involve several parameters (after each has passed its table entry)."""
        check_positive_prior(self.doc_topic_prior, "doc_topic_prior", length=self.n_components)

    def _check_common_params(self):
        """The parameters every model has (the base table). For a subclass that still checks its
        parameters by hand instead of declaring ``_parameter_constraints``."""
        validate_params(self.get_params(deep=False), TopicModelBase._parameter_constraints)
        TopicModelBase._check_param_relations(self)

    def _check_checkpoint_params(self):
        """``checkpoint_path`` and ``checkpoint_every``, as :data:`CHECKPOINT_CONSTRAINTS` says."""
        validate_params(self.get_params(deep=False), CHECKPOINT_CONSTRAINTS)

    # ------------------------------------------------------------------ checkpoints
    def _checkpointer(self, X, resume: bool):
        """(saver, state): ``saver(it, arrays, rng)`` writes a checkpoint every ``checkpoint_every``
        iterations when ``checkpoint_path`` is set; ``state`` is the checkpoint to resume from."""
        path = self.checkpoint_path
        if path is None:
            if resume:
                raise ValueError("fit(resume=True) needs checkpoint_path, the checkpoint to resume from.")
            return (lambda it, arrays, rng: None), None
        fp = fingerprint(self, X)
        state = load_checkpoint(path, fp) if resume else None
        if not resume:  # (a folder, or a file where a folder should be: said now, not after the first iteration)
            from ..datasets._files import check_file_target

            check_file_target(path, "checkpoint_path", "checkpoint.npz")
        check_checkpoint_folder(path)

        def saver(it, arrays, rng):
            if it % self.checkpoint_every == 0:
                save_checkpoint(path, {**arrays, **rng_state_arrays(rng), "iteration": np.array(it)}, fp)

        return saver, state

    @property
    def _float(self):
        return _DTYPES[self.dtype]

    @property
    def _fitted_float(self):
        """The float type the model was fitted in (its ``components_``'), in which the methods of a fitted model
        compute, whatever ``dtype`` says since (a new ``dtype`` takes effect at the next ``fit``)."""
        return self.components_.dtype.type

    def _validate_counts(self, X, *, reset: bool, caller: str):
        """Validate a count matrix and return it as canonical CSR in the model's dtype (``dtype`` for a new fit,
        the fitted one's for the others: :attr:`_fitted_float`)."""
        check_matrix_type(X, f"{type(self).__name__}.{caller}")
        if not reset:
            check_n_terms(X, self.n_features_in_, type(self).__name__)
        check_sparse_structure(X, f"{type(self).__name__}.{caller}")
        dtype = self._float if reset else self._fitted_float
        try:
            X = validate_data(
                self,
                X,
                reset=reset,
                accept_sparse=("csr", "csc", "coo", "lil", "dok", "bsr", "dia"),
                dtype=dtype,
                ensure_min_samples=1,
                ensure_min_features=1,
            )
        except ValueError as exc:  # (scikit-learn's advice for NaN is an imputer or a supervised estimator)
            clearer = non_finite_counts_error(exc, f"{type(self).__name__}.{caller}")
            if clearer is None:
                raise
            raise clearer from None
        X = as_csr(X, dtype=dtype)
        check_nonnegative_counts(X, f"{type(self).__name__}.{caller}")
        check_count_range(X, f"{type(self).__name__}.{caller}", dtype)
        return drop_negligible_counts(X)

    def _resolve_priors(self, n_features=None):
        """Default priors 1 / n_components, as in scikit-learn; alpha as a vector of length K.

        ``eta`` is a float (a symmetric topic-word prior) or, when ``topic_word_prior`` is a matrix, a
        new float64 array of shape (K, V), V = ``n_features`` (required then); see
        :func:`topicvb._validation.check_topic_word_prior` for what a matrix may hold.
        """
        K = self.n_components
        a = check_positive_prior(self.doc_topic_prior, "doc_topic_prior", length=K)
        alpha = np.full(K, 1.0 / K) if a is None else np.broadcast_to(np.asarray(a, dtype=np.float64), (K,)).copy()
        value = self.topic_word_prior
        if value is not None and not isinstance(value, (numbers.Real, np.number)) and n_features is None:
            n_features = self.n_features_in_
        e = check_topic_word_prior(value, K, n_features)
        eta = 1.0 / K if e is None else (e if isinstance(e, np.ndarray) else float(e))
        return alpha, eta

    def _topic_labels(self):
        """The topic names a fit sets as ``topic_labels_``: those of the prior (``topic_word_prior``'s
        ``labels``, as a :class:`topicvb.SeededPrior` has), else ``topic_0``, ``topic_1``, ..."""
        prior = self.topic_word_prior
        shape = getattr(prior, "shape", None)
        if shape is not None and len(shape) == 2 and shape[0] != self.n_components:  # (before its labels' count)
            raise ValueError(f"topic_word_prior must be a positive number or an array of shape (n_components, "
                             f"n_features) with n_components={self.n_components}, got shape {tuple(shape)} (a prior "
                             f"for {shape[0]} topics).")
        return np.asarray(check_topic_labels(getattr(prior, "labels", None), self.n_components), dtype=object)

    # ------------------------------------------------------------------ fit / transform
    def fit(self, X, y=None, *, resume=False):
        """Fit the model on a document-term count matrix.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_docs, n_terms)
            Non-negative term counts (fractional values are used as weights; weights below
            1e-200, negligible next to the priors, count as 0).
        y : Ignored
            Not used, present for API consistency.
        resume : bool, default=False
            Continue from the checkpoint at ``checkpoint_path`` (written by an earlier, interrupted
            fit on the same X with the same parameters) instead of starting afresh; the result is the
            same as that of an uninterrupted fit.

        Returns
        -------
        self : object
            The fitted model.

        Notes
        -----
        A first Ctrl-C during ``fit`` stops it cleanly after the current iteration (with a
        ``RuntimeWarning``) and leaves a consistent model; a second one interrupts at once and
        leaves the model as it was before ``fit``.
        """
        if not isinstance(resume, (bool, np.bool_)):
            raise TypeError(f"resume must be True or False, got {resume!r}.")
        with self._compile_notice():
            return self._transaction(lambda X: self._fit_checked(X, resume=bool(resume)), X, reset=True, caller="fit")

    def _compile_notice(self):
        """A block within which a first fit's one-time compilation of the numba kernels is said: logged at INFO
        (``compiling kernels (first run only) ...``), and one line per kernel on stderr when ``verbose``;
        nothing when the kernels come from numba's cache (see :mod:`topicvb._jit`). Without it, a first fit
        would sit silent for seconds and report the compile time as fit time."""
        from .. import _jit

        name = next((c.__name__ for c in type(self).__mro__ if c.__name__ in _jit.KERNELS), None)
        if name is None:  # (a model family that _jit does not list)
            return contextlib.nullcontext()

        def progress(done, expected, kernel, seconds):
            of = f"/{expected}" if expected and done <= expected else ""
            sys.stderr.write(f"{type(self).__name__}  compiling kernels (first run only): {done}{of} "
                             f"{kernel} {seconds:.1f}s\n")
            sys.stderr.flush()

        return _jit.estimator_notice(name, ("fit",), log=logger, progress=progress if self.verbose else None)

    def _fit_checked(self, X, resume):
        """``_fit``, then :meth:`_warn_fitted` on its result."""
        fitted = self._fit(X, resume=resume)
        self._warn_fitted(fitted, X)
        return fitted

    def _transaction(self, body, X, *, reset: bool, caller: str):
        """Check parameters and X, run ``body(X)`` and set the attributes it returns, all or nothing.

        A failure anywhere (bad input, an exception in a kernel, Ctrl-C) leaves the model exactly
        as it was, since validation may already have set ``n_features_in_``.
        """
        saved = dict(self.__dict__)
        # the random stream a later partial_fit continues is drawn from in place: its state is restored too
        rng = saved.get("random_state_")
        rng_state = rng.get_state() if isinstance(rng, np.random.RandomState) else None
        try:
            self._check_params()
            if not reset:
                self._check_same_topics(caller)
            labels = self._topic_labels()  # (checked before the work)
            started = self._prior_params() if reset else None
            X = self._validate_counts(X, reset=reset, caller=caller)
            self._check_seed_names(caller)
            fitted = body(X)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            if rng_state is not None:
                rng.set_state(rng_state)
            raise
        if "components_" in fitted and "topic_labels_" not in fitted:
            fitted["topic_labels_"] = labels
        if reset:  # (the prior parameters a later partial_fit must still have: _check_same_priors)
            fitted["_started_priors"] = started
        if caller == "fit" and "n_batch_iter_" in fitted:  # (the mini-batches of fit's passes: plot_bound_history)
            fitted["_fit_batches"] = int(fitted["n_batch_iter_"])
        for name, value in fitted.items():
            setattr(self, name, value)
        return self

    def transform(self, X):
        """Document-topic proportions of new documents, with the topics fixed.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_docs, n_terms)
            Non-negative term counts over the fitted vocabulary.

        Returns
        -------
        doc_topic : ndarray of shape (n_docs, n_components)
            Rows sum to 1. A document with no terms gets the prior mean.
        """
        check_is_fitted(self)
        self._check_params_after_fit()
        X = self._validate_counts(X, reset=False, caller="transform")
        return self._doc_topic_rows(X)

    def _doc_topic_rows(self, X):
        """``transform`` of an ``X`` already checked (``score``'s observed half): a plain array whatever
        ``set_output`` asks of ``transform``, and no second check of X's feature names (the half has none)."""
        return normalised_rows(self._doc_topic(X), self.components_.shape[0], self._fitted_float)

    def _check_params_after_fit(self):
        """Each parameter against its table entry, for the methods of a fitted model (``transform``, ``score``,
        ``bound``): a parameter set after ``fit`` (``set_params(transform_max_iter=-5)``) is refused as ``fit``
        refuses it, naming it, instead of reaching the kernels. (The relations between parameters are ``fit``'s:
        the fitted attributes, not the parameters, fix the number of topics.)"""
        validate_params(self.get_params(deep=False), self._all_parameter_constraints())

    # ------------------------------------------------------------------ score, perplexity, bound
    # score(X) holds out half of each document's tokens, chosen by this fixed seed (not random_state:
    # the default random_state=None would make repeated calls disagree, and models fitted with different
    # seeds would be scored on different tokens), so every model is scored on the same tokens of X.
    _SCORE_SEED = 0
    _SCORE_OBSERVED_FRACTION = 0.5

    def score(self, X, y=None):
        """Held-out log-likelihood per token of ``X`` by document completion; higher is better.

        Each document's tokens are split at random into two halves, by a fixed seed (0), so repeated
        calls on the same ``X`` agree and every model is scored on the same tokens; the document's
        topic proportions are inferred from one half (``transform``, with the topics fixed) and the
        other half is scored under P(w | d) = sum_k theta_dk phi_kw. The result is the mean natural-log
        probability of a held-out token: a per-word quantity, comparable across numbers of topics and
        across estimators, so ``GridSearchCV(model, {"n_components": [...]})`` (which maximises
        ``score`` on the validation folds) chooses K by held-out likelihood. It equals
        ``-log(topicvb.evaluation.heldout_perplexity(model, X))`` for integer counts; fractional
        weights are split too (the whole part of a cell token by token, the remainder whole to one
        half). A document with no held-out token adds nothing; one whose tokens all landed in the
        held-out half is scored under the empty-document proportions (the prior mean).

        The training objective (an evidence lower bound or a log-likelihood, a total that grows with
        the number of documents and, for the likelihoods, with K) is :meth:`bound`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_docs, n_terms)
            Non-negative term counts over the fitted vocabulary, usually documents not used for fit.
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        float
            Mean log-probability of a held-out token, <= 0; exp(-score) is :meth:`perplexity`.

        Raises
        ------
        ValueError
            If ``X`` has no token to hold out: every document empty, or too short (one token that the
            split put in the observed half).
        """
        check_is_fitted(self)
        self._check_params_after_fit()
        Xc = self._validate_counts(X, reset=False, caller="score")
        name = f"{type(self).__name__}.score"
        if not float(Xc.sum()) > 0:
            raise ValueError(f"{name} needs at least one token in X; every document is empty.")
        X_obs, X_held = split_cells(Xc, self._SCORE_OBSERVED_FRACTION, self._SCORE_SEED)
        X_obs = drop_negligible_counts(as_csr(X_obs, dtype=self._fitted_float))  # (as transform would have it)
        n_held = float(X_held.sum())
        if not n_held > 0:
            raise ValueError(
                f"{name} found no held-out token in X: every document is empty or too short for the split (the "
                "score holds out about half of each document's tokens, chosen by a fixed seed, and scores them given "
                "the rest). Pass more or longer documents.")
        K = self.components_.shape[0]
        # (the rows as the evaluators read any model's transform, float64 normalised again: a float32 model's rows
        # sum to 1 only within its precision, and read as they were, the score differed from -log
        # heldout_perplexity by about 1e-9 relative)
        ll = completion_log_likelihoods(lambda X: normalised_rows(self._doc_topic_rows(X), K, np.float64),
                                        self.topic_word_distribution(), X_obs, X_held, getattr(self, "n_jobs", None))
        return float(np.sum(ll) / n_held)

    def perplexity(self, X):
        """Held-out perplexity of ``X`` by document completion, exp(-score(X)); lower is better.

        The same split and quantity as :meth:`score`, so the two always rank models alike (as
        scikit-learn's ``LatentDirichletAllocation.perplexity`` is exp(-score / number of tokens));
        it equals ``topicvb.evaluation.heldout_perplexity(model, X)`` for integer counts. Unlike
        scikit-learn's, it is not a bound-based perplexity of the documents themselves: that one is
        ``exp(-model.bound(X) / X.sum())``.

        Raises
        ------
        ValueError
            As :meth:`score`.
        """
        return float(np.exp(-self.score(X)))

    def bound(self, X):
        """The training objective evaluated on ``X`` with the topics fixed: a total, higher is better.

        For BatchLDA and OnlineLDA the evidence lower bound (what scikit-learn's
        ``LatentDirichletAllocation.score`` returns); for PLSA, CollapsedLDA and
        StochasticCollapsedLDA the log-likelihood of ``X`` with each document's topic proportions
        fitted to the document itself (see each class). It scales with the number of tokens and is
        optimistic on new documents; to compare models or choose K use :meth:`score`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_docs, n_terms)
            Non-negative term counts over the fitted vocabulary.

        Returns
        -------
        float
            The bound (natural log): the documents' terms plus, for the models with Dirichlet topics, the
            topics' own term, so that documents without tokens add 0 but do not give 0.
        """
        check_is_fitted(self)
        self._check_params_after_fit()
        X = self._validate_counts(X, reset=False, caller="bound")
        return float(self._score(X))

    # ------------------------------------------------------------------ inspection helpers
    def topic_word_distribution(self):
        """P(term | topic): the rows of ``components_`` normalised to sum to 1.

        Raises a ValueError naming the topic where ``components_`` (set by hand, or edited) holds a negative or
        non-finite weight or a row without weight, which would give NaN probabilities.
        """
        check_is_fitted(self)
        comp = np.asarray(self.components_, dtype=np.float64)
        totals = comp.sum(axis=1, keepdims=True)
        # (a NaN or an infinity makes its row's total NaN or infinite: the totals and the smallest weight suffice)
        if not (np.all(np.isfinite(totals) & (totals > 0)) and (comp.size == 0 or comp.min() >= 0)):
            good = np.all(np.isfinite(comp) & (comp >= 0), axis=1) & (totals[:, 0] > 0) & np.isfinite(totals[:, 0])
            raise ValueError(f"{type(self).__name__}.components_ must hold non-negative finite weights with a positive "
                             f"sum in every topic row (topic {int(np.flatnonzero(~good)[0])}).")
        return comp / totals

    def top_words(self, n: int = 10, vocabulary=None):
        """The ``n`` most probable terms of each topic, with their probabilities.

        Parameters
        ----------
        n : int, default=10
            Terms per topic; clipped to the vocabulary size.
        vocabulary : sequence of str, optional
            Column names, or a dict {term: column} such as ``CountVectorizer.vocabulary_`` (a set, whose
            order is arbitrary, is refused). Defaults to ``feature_names_in_`` when the model saw named
            columns, else the column indices as strings.

        Returns
        -------
        TopicWords
            A list with one list of ``(term, probability)`` per topic, most probable term first; its
            ``labels`` are the topics' names (``topic_labels_``), and ``words["space"]`` is the topic so named.
        """
        check_is_fitted(self)
        if not isinstance(n, (numbers.Integral, str)) and hasattr(n, "__len__"):
            raise TypeError(f"{type(self).__name__}.top_words(n, vocabulary) takes the number of terms first, got a "
                            f"{type(n).__name__}; the vocabulary is the second argument: model.top_words(10, "
                            "vocabulary).")
        check_int(n, "n", min_val=1)
        from ..evaluation._common import ordered_terms, top_columns  # (ordered_terms: a dict {term: column} by
        # column; a set refused)

        if vocabulary is None:
            vocabulary = getattr(self, "feature_names_in_", None)
        if vocabulary is None:
            vocabulary = [str(i) for i in range(self.n_features_in_)]
        vocabulary = ordered_terms(vocabulary)
        if len(vocabulary) != self.n_features_in_:
            raise ValueError(
                f"vocabulary has {len(vocabulary)} terms, but this {type(self).__name__} was fitted on "
                f"{self.n_features_in_}."
            )
        probs = self.topic_word_distribution()
        n = min(int(n), probs.shape[1])
        order = top_columns(probs, n)
        from .._inspection_words import TopicWords, model_labels  # (the inspection layer imports the models)

        return TopicWords([[(vocabulary[j], float(probs[k, j])) for j in order[k]] for k in range(probs.shape[0])],
                          model_labels(self, probs.shape[0]))

    # ------------------------------------------------------------------ progress
    def _report(self, it: int, bound: float, previous: float | None, started: float, what: str = "iter",
                total: int | None = None) -> None:
        """One line per iteration: to stderr when ``verbose`` > 0, and always to the debug log. ``what`` names a
        step that is not an iteration of the fit (OnlineLDA's mini-batches, HDP's refit sweeps), so that its lines
        are not read as iterations; ``total`` is its number (``max_iter`` for iterations), left out when None."""
        if what == "iter":
            total = self.max_iter
        counted = f"{what} {it}" + ("" if total is None else f"/{total}")
        change = "" if previous is None else f"  rel. change {abs(bound - previous) / max(abs(previous), 1e-300):.1e}"
        line = (
            f"{type(self).__name__}  {counted}  bound {bound:.6g}{change}"
            f"  {time.perf_counter() - started:.2f}s"
        )
        logger.debug(line)
        if self.verbose:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()

    def _converged(self, history, tol=None) -> bool:
        """Whether the last change of the objective is an increase of at most ``tol`` relative (the
        parameter's value unless given), and not larger than the change before it.

        One-sided: a decrease (beyond rounding) is not convergence, since an objective that went down
        has not settled (a learned prior or a stochastic step overshot). And an objective whose gains
        are growing is leaving a plateau, not settling on one: from a near-symmetric start a
        collapsed fit gains little in its first sweeps, then faster as its topics separate (CVB0 on an
        LDA-generated corpus with 50 topics: relative gains 6e-5, 1.3e-4, 3.5e-4, ...), so the first
        small gain is no reason to stop. Hence at least two changes are looked at.
        """
        if len(history) < 3:
            return False
        before, prev, cur = history[-3], history[-2], history[-1]
        scale = max(abs(prev), 1e-300)
        change = cur - prev
        if not -_ROUNDING * scale <= change <= (self.tol if tol is None else tol) * scale:
            return False
        return change <= max(prev - before, _ROUNDING * scale)

    def _warn_not_converged(self, n_iter: int, converged: bool) -> None:
        if not converged and self.tol > 0 and convergence_warnings_wanted():
            warnings.warn(
                f"{type(self).__name__} reached max_iter={self.max_iter} before the relative change of the "
                f"bound fell below tol={self.tol}; raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=user_stacklevel(),
            )
