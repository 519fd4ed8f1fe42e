"""Choosing the number of topics: fit one model per candidate K and compare them.

:func:`select_n_topics` fits a model with ``n_components=K`` on ``X`` for each K in the
candidates (the same ``random_state`` for every K), then measures it: its final training bound,
its held-out perplexity (document completion, :func:`~topicvb.evaluation.heldout_perplexity`)
when there are test documents, its mean coherence (:func:`~topicvb.evaluation.coherence` of its
top words) when a reference corpus is given, and the topic diversity of its top words. The
criterion picks ``best_k``:

- ``"heldout"`` (the default for every model): the smallest held-out perplexity on ``X_test``;
  without ``X_test``, a seeded ``test_size`` share of the documents of ``X`` is held out and the
  models are fitted on the rest. This is the quantity every topicvb estimator's ``score`` returns
  (perplexity = exp(-score), the same document-completion split with ``random_state=0``), so
  ``GridSearchCV(model, {"n_components": candidates})``, which maximises ``score`` on validation
  folds, ranks the candidates by the same measure and agrees up to the noise of the folds.
- ``"elbo"``: the largest final training bound (``model.bound``). For BatchLDA and OnlineLDA this
  is the ELBO, which penalises superfluous topics through its KL terms, but it is a training
  quantity that no other estimator shares (``GridSearchCV`` does not see it). For PLSA, CollapsedLDA and
  StochasticCollapsedLDA the bound is a training log-likelihood, which grows with K. For the
  mini-batch models (OnlineLDA, StochasticCollapsedLDA) it is recomputed on ``X``, as their
  ``bound_history_`` holds mini-batch estimates.
- ``"coherence"``: the largest mean coherence in the reference corpus.

The result, a :class:`SelectionResult`, is drawn by :func:`topicvb.plotting.plot_selection`.
"""

from __future__ import annotations

import logging
import numbers
import time
from collections.abc import Mapping
import warnings

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state

from .._validation import check_choice, user_stacklevel
from ..models import _registry
from .._completion import split_cells
from ._common import (check_counts, check_positive_int, fit_quietly, ordered_terms, resolve_vocabulary, top_columns,
                      topic_word)
from .coherence import MEASURES, as_reference, check_window_and_epsilon, coherence, topic_diversity
from .perplexity import heldout_perplexity

logger = logging.getLogger(__name__)

__all__ = ["CRITERIA", "SelectionResult", "select_n_topics"]

CRITERIA = ("elbo", "heldout", "coherence")
_COLUMNS = ("n_topics", "bound", "perplexity", "coherence", "diversity", "fit_time", "n_iter")


# Models whose final bound is a training log-likelihood, which grows with K (not an ELBO).
_LIKELIHOOD_BOUND = ("PLSA", "CollapsedLDA", "StochasticCollapsedLDA")


class SelectionResult:
    """The outcome of :func:`select_n_topics`: one row per candidate K and the chosen K.

    Attributes
    ----------
    table : list of dict
        One row per candidate, in the order given, with keys ``n_topics``; ``bound`` (the final
        training bound: the ELBO for BatchLDA and OnlineLDA, the log-likelihood for PLSA,
        CollapsedLDA and StochasticCollapsedLDA; None for a model without one, e.g. NMF); ``perplexity`` (held-out, document completion;
        None when not measured); ``coherence`` (mean over topics; None without a reference);
        ``diversity`` (topic diversity of the top words); ``fit_time`` (seconds); ``n_iter``.
    criterion : str
        ``"elbo"`` (largest bound), ``"heldout"`` (smallest perplexity) or ``"coherence"``
        (largest mean coherence).
    best_k : int
        The candidate the criterion prefers.
    best_model : estimator
        The model fitted with ``best_k`` topics.
    model_name : str
        Class name of the models.
    coherence_measure : str or None
        The coherence measure in the table.
    """

    def __init__(self, table, criterion, best_k, best_model, model_name, coherence_measure=None):
        self.table = table
        self.criterion = criterion
        self.best_k = best_k
        self.best_model = best_model
        self.model_name = model_name
        self.coherence_measure = coherence_measure

    def __repr__(self) -> str:
        return (f"SelectionResult(model={self.model_name}, criterion={self.criterion!r}, best_k={self.best_k}, "
                f"candidates={[r['n_topics'] for r in self.table]})")

    def column(self, name: str) -> np.ndarray:
        """One column of the table as a float array (NaN where not measured)."""
        check_choice(name, "name", set(_COLUMNS))
        return np.array([np.nan if r[name] is None else r[name] for r in self.table], dtype=np.float64)

    def to_dict(self) -> dict:
        """Plain Python (JSON-serialisable): model, criterion, best_k, coherence_measure and the rows."""
        return {
            "model": self.model_name,
            "criterion": self.criterion,
            "best_k": int(self.best_k),
            "coherence_measure": self.coherence_measure,
            "table": [dict(r) for r in self.table],
        }

    def __str__(self) -> str:
        names = {"n_topics": "K", "bound": "bound", "perplexity": "perplexity",
                 "coherence": self.coherence_measure or "coherence", "diversity": "diversity",
                 "fit_time": "time (s)", "n_iter": "iter"}
        cols = [c for c in _COLUMNS if any(r[c] is not None for r in self.table)]

        def fmt(c, v):
            if v is None:
                return "-"
            if c in ("n_topics", "n_iter"):
                return str(int(v))
            if c == "bound":
                return f"{v:.6g}"
            if c == "fit_time":
                return f"{v:.2f}"
            return f"{v:.4g}"

        rows = [[names[c] for c in cols] + [""]]
        for r in self.table:
            rows.append([fmt(c, r[c]) for c in cols] + ["<- best" if r["n_topics"] == self.best_k else ""])
        widths = [max(len(row[i]) for row in rows) for i in range(len(cols))]
        lines = [f"{self.model_name}: number of topics by criterion {self.criterion!r}; best K = {self.best_k}"]
        for row in rows:
            lines.append(("  ".join(v.rjust(w) for v, w in zip(row, widths)) + "  " + row[-1]).rstrip())
        return "\n".join(lines)

    def plot(self, *args, **kwargs):
        """Removed: draw the K-selection curve with :func:`topicvb.plotting.plot_selection`.

        Evaluation computes and plotting draws, so the curve lives in :mod:`topicvb.plotting`
        (which needs the ``plot`` extra): ``plot_selection(result, ax=None, metric=None)``.

        Raises
        ------
        TypeError
            Always, naming the replacement.
        """
        raise TypeError("SelectionResult.plot was removed; draw the K-selection curve with "
                        "topicvb.plotting.plot_selection(result) (same ax= and metric= arguments).")


def _make_estimator(model, n_topics, random_state, n_jobs, model_params):
    names = _registry.cli_names()
    if model is None:
        est = _registry.recommended_estimator(**model_params)
    elif isinstance(model, str):
        check_choice(model, "model", set(names))
        est = _registry.estimator_class(model)(**model_params)
    elif isinstance(model, type):
        if not issubclass(model, BaseEstimator):
            raise TypeError(f"model must be a topic model class, an instance or one of {sorted(names)}; got "
                            f"{model.__name__}.")
        est = model(**model_params)
    elif isinstance(model, BaseEstimator):
        est = clone(model).set_params(**model_params)
    else:
        raise TypeError(f"model must be a topic model class (e.g. BatchLDA), an unfitted instance, or one of "
                        f"{sorted(names)}; got {type(model).__name__}.")
    params = est.get_params()
    prior_shape = np.shape(getattr(params.get("topic_word_prior"), "matrix", params.get("topic_word_prior")))
    if len(prior_shape) == 2:
        raise ValueError(f"select_n_topics varies n_components, but the model's topic_word_prior is a matrix for "
                         f"{prior_shape[0]} topics (a guided prior fixes the number of topics); select K with a "
                         "number as topic_word_prior, then seed the chosen K.")
    if "n_components" not in params:
        hint = (" (it infers the number of topics itself: fit it and read n_components_)"
                if "max_components" in params else "")
        raise TypeError(f"model must have an n_components parameter; {type(est).__name__} has none{hint}.")
    update = {"n_components": n_topics}
    if "random_state" in params:
        update["random_state"] = random_state
    if n_jobs is not None and "n_jobs" in params:
        update["n_jobs"] = n_jobs
    return est.set_params(**update)


def _check_candidates(candidates) -> list[int]:
    if isinstance(candidates, (str, bytes, Mapping)):
        raise TypeError(f"candidates must be a sequence of positive ints, got {type(candidates).__name__} "
                        f"{candidates!r:.60}.")
    try:
        values = list(candidates)
    except TypeError:
        raise TypeError(f"candidates must be a sequence of positive ints, got {type(candidates).__name__}.") from None
    if not values:
        raise ValueError("candidates is empty; pass at least one number of topics, e.g. [5, 10, 20].")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
            raise ValueError(f"candidates must be positive ints, got {v!r}.")
        if int(v) not in out:
            out.append(int(v))
    return out


def select_n_topics(X, candidates, model=None, criterion: str | None = None, X_test=None, reference=None,
                    random_state=0, n_jobs=None, *, vocabulary=None, coherence_measure: str = "c_npmi",
                    n_top_words: int = 10, test_size: float = 0.2, **model_params) -> SelectionResult:
    """Fit a model for each candidate number of topics and pick one by a criterion.

    Each model is measured (final bound, held-out perplexity, coherence, diversity) and the
    criterion chooses ``best_k``; the module notes say what each measure and criterion means.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_docs, n_terms)
        Training counts.
    candidates : sequence of int
        Numbers of topics to try (duplicates are dropped, the order is kept).
    model : str, estimator class or unfitted estimator, default=None
        The model family: a command-line name of the estimator registry (``"plsa"``,
        ``"batch"``, ``"collapsed"``, ``"online"``, ``"scvb0"``), a class, or an instance, which
        is cloned (its parameters are kept). None means the recommended estimator,
        ``CollapsedLDA(learn_priors=True, acceleration="squarem")``.
    criterion : {"heldout", "elbo", "coherence"}, default=None
        How ``best_k`` is chosen: smallest held-out perplexity, largest final training bound, or
        largest mean coherence in ``reference``. None means ``"heldout"`` for every model (the
        measure of the models' ``score``, so ``GridSearchCV`` agrees), falling back to ``"elbo"``,
        with a logged warning, when ``X`` is too small to hold documents out.
    X_test : {array-like, sparse matrix} of shape (n_test_docs, n_terms), default=None
        Test documents for the held-out perplexity.
    reference : ReferenceCorpus, Corpus, (X, vocabulary) pair or tokenised documents, default=None
        Reference corpus for coherence.
    random_state : int, RandomState or Generator instance, or None, default=0
        Seed of every model and of the held-out splits (a RandomState or Generator gives one seed, drawn once,
        for all of them alike).
    n_jobs : int, default=None
        Kernel threads of each model (candidates are fitted one after another). None leaves the
        model's own setting.
    vocabulary : sequence of str or Vocabulary, default=None
        Terms of the columns of ``X``, to look the top words up in ``reference``; None means the
        reference's own vocabulary when it has one of the right length.
    coherence_measure : {"u_mass", "c_uci", "c_npmi", "c_v"}, default="c_npmi"
        Coherence measure when ``reference`` is given.
    n_top_words : int, default=10
        Top words per topic for coherence and diversity.
    test_size : float, default=0.2
        Share of documents held out when ``criterion="heldout"`` and ``X_test`` is None.
    **model_params
        Further parameters of the model (``max_iter``, ``doc_topic_prior``, ...).

    Returns
    -------
    SelectionResult
        With ``table``, ``best_k``, ``best_model``, ``to_dict()`` and ``str()``; draw it with
        :func:`topicvb.plotting.plot_selection`.

    Raises
    ------
    ValueError
        If ``criterion`` is unknown, ``candidates`` is empty or not positive ints, the
        ``"coherence"`` criterion lacks a reference, ``X_test`` has the wrong width, or ``test_size``
        (where documents are held out of X) is not in (0, 1).
    TypeError
        If ``test_size`` (where documents are held out of X) is not a number.

    Examples
    --------
    >>> from topicvb.datasets import make_lda_corpus
    >>> corpus, _, _ = make_lda_corpus(300, 60, 3, separated=True, random_state=0)
    >>> result = select_n_topics(corpus.X, [2, 3, 6], criterion="heldout", max_iter=30)
    >>> result.best_k
    3
    """
    random_state = _one_seed(random_state)
    auto = criterion is None
    if auto:  # held-out likelihood, the measure of every model's score (so GridSearchCV agrees)
        _make_estimator(model, 1, random_state, n_jobs, model_params)  # bad model arguments fail first
        criterion = "heldout"
    ks, n_top_words, X = _check_options(X, candidates, criterion, reference, coherence_measure, n_top_words)
    criterion, X, test = _test_parts(X, X_test, criterion, auto, test_size, random_state)
    ref, vocabulary = _coherence_reference(reference, vocabulary, X.shape[1], coherence_measure)
    rows, best_k, best_model, name = _fit_candidates(
        ks, criterion, make=lambda k: _make_estimator(model, k, random_state, n_jobs, model_params),
        measure=lambda est: _measure(est, X, test, ref, vocabulary, coherence_measure, n_top_words, n_jobs))
    if criterion == "elbo" and name in _LIKELIHOOD_BOUND:
        logger.warning("select_n_topics: criterion='elbo' compares training log-likelihoods of %s, which grow "
                       "with K; use criterion='heldout' to choose K.", name)
    _warn_at_edge(best_k, ks)
    return SelectionResult(rows, criterion, best_k, best_model, name,
                           coherence_measure if ref is not None else None)


def _check_has_bound(est) -> None:
    """criterion='elbo' reads each model's training bound (:func:`_final_bound`): a TypeError, before any fit, for a
    model without one (scikit-learn's NMF)."""
    if not (callable(getattr(est, "bound", None)) or callable(getattr(est, "score", None))):
        raise TypeError(f"criterion='elbo' compares the models' training bounds, but {type(est).__name__} has none "
                        "(no bound or score method); use criterion='heldout' or 'coherence'.")


def _warn_at_edge(best_k, ks):
    """A UserWarning when the best of several candidates is the smallest or the largest: the best number of
    topics may then lie outside the range tried."""
    if len(ks) < 2 or best_k not in (min(ks), max(ks)):
        return
    side, beyond = ("smallest", "below") if best_k == min(ks) else ("largest", "above")
    warnings.warn(f"select_n_topics: the best K ({best_k}) is the {side} candidate, so the best number of topics "
                  f"may lie {beyond} the range tried ({min(ks)}-{max(ks)}); add candidates {beyond} it.",
                  UserWarning, stacklevel=user_stacklevel())


def _check_options(X, candidates, criterion, reference, coherence_measure, n_top_words):
    """``(candidates, n_top_words, X)`` checked, or the ValueError/TypeError that names the problem."""
    check_choice(criterion, "criterion", set(CRITERIA))
    check_choice(coherence_measure, "coherence_measure", set(MEASURES))
    ks = _check_candidates(candidates)
    n_top_words = check_positive_int(n_top_words, "n_top_words")
    X = check_counts(X, None, name="X", caller="select_n_topics")
    if criterion == "coherence" and reference is None:
        raise ValueError("criterion='coherence' needs a reference corpus: pass reference=... (e.g. the training "
                         "Corpus, or ReferenceCorpus(texts=...)).")
    return ks, n_top_words, X


def _split(X, X_test, criterion: str, auto: bool, test_size, random_state):
    """``(criterion, X_train, X_test)``: :func:`_train_and_test`; with the default criterion (``auto``), an X too
    small to hold documents out falls back to the training bound (criterion "elbo", a logged warning), but a bad
    ``test_size`` or a given ``X_test`` without tokens is an error."""
    if X_test is None and criterion == "heldout":
        _check_test_size(test_size)
    try:
        X_train, X_held = _train_and_test(X, X_test, criterion, test_size, random_state)
        if auto and criterion == "heldout" and X_held.sum() <= 0:
            raise ValueError("X_test has no tokens" if X_test is not None else "the held-out documents have no tokens")
    except ValueError as exc:
        if not (auto and criterion == "heldout" and X_test is None):
            raise
        logger.warning("select_n_topics: no held-out perplexity on this X (%s); choosing K by the training bound "
                       "(criterion='elbo') instead.", exc)
        return "elbo", X, None
    return criterion, X_train, X_held


def _one_seed(random_state):
    """``random_state`` checked; a RandomState or Generator gives one int seed, drawn once, for every model and split
    alike (the instance itself, shared, would give each candidate another stream, so that its result depended on the
    candidates before it)."""
    if isinstance(random_state, (bool, np.bool_)) or not (
            random_state is None or isinstance(random_state, (numbers.Integral, np.random.RandomState,
                                                              np.random.Generator))):
        raise TypeError(f"random_state must be an int, a numpy.random.RandomState or Generator, or None, got "
                        f"{type(random_state).__name__} {random_state!r:.60}.")
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    return random_state


def _test_parts(X, X_test, criterion: str, auto: bool, test_size, random_state):
    """``(criterion, X_train, test)``: :func:`_split`, then the test documents' tokens split once into observed and
    held-out parts (:func:`_completion_parts`), for every candidate alike, as each model's score splits them; a split
    without a held-out token is an error before any fit (the default criterion falls back to the bound when the
    documents were held out of X)."""
    given_test = X_test is not None
    criterion, X_train, X_test = _split(X, X_test, criterion, auto, test_size, random_state)
    test = None if X_test is None else _completion_parts(X_test, random_state)
    if test is None or test[1].sum() > 0:
        return criterion, X_train, test
    which = ("X_test leaves" if given_test else f"the {X_test.shape[0]} document(s) held out of X (test_size="
             f"{test_size!r}, random_state={random_state!r}) leave")
    problem = (f"{which} no token to score once each document's tokens are split into observed and held-out halves "
               "(document completion)")
    if auto and not given_test:
        logger.warning("select_n_topics: no held-out perplexity on this X (%s); choosing K by the training bound "
                       "(criterion='elbo') instead.", problem)
        return "elbo", X, None
    raise ValueError(f"select_n_topics: {problem}; pass more or longer test documents"
                     + ("." if given_test else ", a larger test_size or another random_state."))


def _check_test_size(test_size) -> None:
    """``test_size`` is a number in (0, 1), or the TypeError / ValueError that names it."""
    if isinstance(test_size, (bool, np.bool_)) or not isinstance(test_size, numbers.Real):
        raise TypeError(f"test_size must be a number in (0, 1), got {type(test_size).__name__} {test_size!r}.")
    if not 0.0 < float(test_size) < 1.0:  # (also False for NaN)
        raise ValueError(f"test_size must be in (0, 1), got {test_size!r}.")


def _train_and_test(X, X_test, criterion: str, test_size: float, random_state):
    """``(X_train, X_test)``: ``X_test`` checked against X, or held out of X for the ``"heldout"`` criterion."""
    if X_test is not None:
        X_test = check_counts(X_test, None, name="X_test", caller="select_n_topics")
        if X_test.shape[1] != X.shape[1]:
            raise ValueError(f"X_test has {X_test.shape[1]} terms (columns), but X has {X.shape[1]}; both must use "
                             "the same vocabulary.")
        return X, X_test
    if criterion != "heldout":
        return X, None
    order = check_random_state(random_state).permutation(X.shape[0])
    n_test = max(1, int(round(test_size * X.shape[0])))
    if n_test >= X.shape[0]:
        raise ValueError(f"select_n_topics cannot hold out documents from only {X.shape[0]}; pass X_test.")
    logger.info("select_n_topics: holding out %d of %d documents for the held-out perplexity.", n_test, X.shape[0])
    return X[np.sort(order[n_test:])], X[np.sort(order[:n_test])]


def _coherence_reference(reference, vocabulary, n_terms: int, measure: str):
    """``(reference corpus or None, vocabulary)``; the reference's own terms serve when they fit X. What coherence
    will need of them is checked here, before the first fit (a measure with a sliding window needs texts, the
    vocabulary one term per column)."""
    ref = as_reference(reference) if reference is not None else None
    if ref is None:
        return None, vocabulary
    check_window_and_epsilon(measure, None, None, ref)
    if vocabulary is None and ref.index is not None and len(ref.index) == n_terms:
        vocabulary = list(ref.index)
    if vocabulary is None:
        raise ValueError("select_n_topics: coherence needs the terms of the columns of X; pass vocabulary=....")
    terms = ordered_terms(vocabulary, "vocabulary", "select_n_topics")
    if len(terms) != n_terms:
        raise ValueError(f"select_n_topics: vocabulary has {len(terms)} terms, but X has {n_terms} columns; pass the "
                         "vocabulary of the vectorizer that counted X.")
    return ref, vocabulary


def _completion_parts(X_test, random_state):
    """The observed and held-out halves of the test documents (:func:`topicvb._completion.split_cells`, as a
    model's ``score`` splits them), with one seed: an int ``random_state`` itself, else one drawn from it."""
    seed = (random_state if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
            else int(check_random_state(random_state).randint(np.iinfo(np.int32).max)))
    return split_cells(X_test, 0.5, seed)


def _final_bound(est, X):
    """The training bound of a fitted model on ``X``; None for a model with neither ``bound`` nor ``score``
    (scikit-learn's NMF), as for any column not measured (``to_dict`` stays strict JSON).

    A mini-batch model (one with ``n_batch_iter_``: OnlineLDA, StochasticCollapsedLDA) records
    mini-batch estimates in ``bound_history_``, so its bound is recomputed on ``X`` (``bound``; a
    model without it, e.g. scikit-learn's ``LatentDirichletAllocation``, by its ``score``, which is
    that bound there).
    """
    history = getattr(est, "bound_history_", None)
    if hasattr(est, "n_batch_iter_") or history is None or not len(history):
        bound = getattr(est, "bound", None)
        if callable(bound):
            return float(bound(X))
        score = getattr(est, "score", None)  # (scikit-learn's LDA: its bound; NMF has none)
        return float(score(X)) if callable(score) else None
    return float(history[-1])


def _measure(est, X, test, ref, vocabulary, coherence_measure, n_top_words, n_jobs) -> dict:
    """Fit ``est`` on X and measure it: one row of the selection table, without ``n_topics``. ``test``: the
    observed and held-out parts of the test documents, or None."""
    started = time.perf_counter()
    fit_quietly(est, X)
    fit_time = time.perf_counter() - started
    bound = _final_bound(est, X)
    perplexity = None
    if test is not None:
        perplexity = heldout_perplexity(est, test[0], X_heldout=test[1], n_jobs=n_jobs)
    terms = resolve_vocabulary(est, vocabulary, caller="select_n_topics")
    order = top_columns(topic_word(est), n_top_words)
    words = [[terms[j] for j in row] for row in order]
    div = topic_diversity(words)
    coh = coherence(words, ref, measure=coherence_measure).mean if ref is not None else None
    return {"bound": bound, "perplexity": perplexity, "coherence": coh, "diversity": div, "fit_time": fit_time,
            "n_iter": int(getattr(est, "n_iter_", 0))}


def _fit_candidates(ks, criterion: str, make, measure):
    """Fit and measure a model per K (``make(k)``, ``measure(est)``): the rows, best K, best model, class name.

    Only the best model so far is kept, so memory holds at most two fitted models.
    """
    rows, best_model, best_value, best_k, name = [], None, None, None, ""
    for k in ks:
        est = make(k)
        name = type(est).__name__
        if criterion == "elbo":  # (before the first fit)
            _check_has_bound(est)
        row = {"n_topics": k, **measure(est)}
        rows.append(row)
        logger.info("select_n_topics %s K=%d: %s", name, k, row)
        value = _criterion_value(row, criterion)
        if best_value is None or value > best_value:
            best_value, best_k, best_model = value, k, est
    return rows, best_k, best_model, name


def _criterion_value(row: dict, criterion: str):
    """The number the criterion maximises (None when not measured)."""
    if criterion == "heldout":
        return None if row["perplexity"] is None else -row["perplexity"]
    return row["bound"] if criterion == "elbo" else row["coherence"]
