"""Held-out perplexity by document completion, the per-word ELBO, and perplexity traces.

Document completion (Wallach, Murray, Salakhutdinov & Mimno 2009, section 4; Asuncion et al. 2009)
measures every model the same way, through its topics and its ``transform`` only:

1. each test document's tokens are split at random into an *observed* and a *held-out* part
   (:func:`split_tokens`);
2. the document's topic proportions theta_d are inferred from the observed part with the topics
   fixed (``model.transform``; for the VB models this is E[theta] = gamma / sum gamma);
3. the held-out tokens are scored under P(w | d) = sum_k theta_dk phi_kw, with phi the model's
   topic-word distribution (E[beta] = lam / sum lam for the VB models):

       perplexity = exp( - sum_d sum_w c^heldout_dw log sum_k theta_dk phi_kw / N_heldout ).

Lower is better; a model that knows nothing (uniform phi) scores the vocabulary size. Every topicvb
estimator's ``score(X)`` is the same measure as a mean log-probability per held-out token, with the split
of ``random_state=0``: ``model.score(X) == -log(heldout_perplexity(model, X))`` (and ``model.perplexity(X)``
is this perplexity), so ``GridSearchCV`` and :func:`~topicvb.evaluation.select_n_topics` rank models alike.
"""

from __future__ import annotations

import logging
import numbers
import time
from collections.abc import Iterable

import numpy as np
from sklearn.base import clone

from .._completion import completion_log_likelihoods, split_cells
from .._config import threads
from .._kernels.bounds import lda_topic_bound, prior_topic_terms, topic_expectations
from .._kernels.estep import e_step
from .._validation import check_bool, check_finite_real, check_int, check_positive_prior, csr_arrays, writable
from ._common import check_counts, check_model, doc_topic, fit_quietly, topic_word

logger = logging.getLogger(__name__)

__all__ = [
    "FixedTopicModel",
    "heldout_log_likelihood",
    "heldout_perplexity",
    "per_word_bound",
    "perplexity_trace",
    "split_tokens",
]


def split_tokens(X, observed_fraction: float = 0.5, random_state=0):
    """Split every document's tokens at random into an observed and a held-out part.

    Each cell c_dw of the count matrix is split token by token: the observed count is a
    binomial draw Binomial(c_dw, ``observed_fraction``) and the rest is held out, so every token
    independently lands in the observed part with probability ``observed_fraction``, and
    ``X_observed + X_heldout == X`` exactly. The draw is seeded, so equal seeds give equal splits.
    A short document can end up with no observed or no held-out tokens; see
    :func:`heldout_perplexity` for how those are scored.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_docs, n_terms)
        Non-negative integer term counts.
    observed_fraction : float, default=0.5
        Probability that a token is observed, in (0, 1).
    random_state : int, RandomState instance or None, default=0
        Seeds the split.

    Returns
    -------
    X_observed, X_heldout : scipy.sparse.csr_matrix of shape (n_docs, n_terms)
        float64 counts with explicit zeros removed.

    Raises
    ------
    TypeError
        If ``observed_fraction`` is not a number.
    ValueError
        If ``observed_fraction`` is not in (0, 1), or ``X`` has negative or non-integer counts
        (split fractional weights yourself and pass both parts to :func:`heldout_perplexity`).
    """
    check_finite_real(observed_fraction, "observed_fraction", min_val=0.0, max_val=1.0, include_boundaries="neither")
    X = check_counts(X, None, name="X", caller="split_tokens")
    if np.any(X.data != np.round(X.data)):
        raise ValueError(
            "split_tokens splits integer counts token by token, but X has non-integer counts. Split the "
            "documents yourself and pass the parts as heldout_perplexity(model, X_observed, X_heldout=...)."
        )
    return split_cells(X, observed_fraction, random_state)


def _check_same_documents(X_observed, X_heldout, observed_name: str) -> None:
    """Raise ``ValueError`` unless the observed and held-out parts have the same number of documents."""
    if X_observed.shape[0] != X_heldout.shape[0]:
        raise ValueError(
            f"{observed_name} has {X_observed.shape[0]} documents but X_heldout has {X_heldout.shape[0]}; they must "
            "be the two parts of the same documents, row for row."
        )


def heldout_log_likelihood(model, X_observed, X_heldout, *, n_jobs=None) -> np.ndarray:
    """Per-document log-likelihood of held-out tokens given the observed ones (document completion).

    log p(heldout_d | observed_d) ~ sum_w c^heldout_dw log sum_k theta_dk phi_kw with theta_d =
    ``model.transform(observed_d)`` and phi the model's topic-word distribution. A document with
    no held-out tokens scores 0; one with no observed tokens is scored under the proportions the
    model gives an empty document (the prior mean for the topicvb models).

    Parameters
    ----------
    model : fitted topic model
        Anything with ``components_`` of shape (n_topics, n_terms) and ``transform``.
    X_observed, X_heldout : {array-like, sparse matrix} of shape (n_docs, n_terms)
        The two parts of the test documents, row for row.
    n_jobs : int, default=None
        Threads for the scoring kernel; None means every core.

    Returns
    -------
    ndarray of shape (n_docs,)
        Log-likelihood of each document's held-out tokens (natural log).
    """
    check_model(model, "heldout_log_likelihood")
    X_obs = check_counts(X_observed, model, name="X_observed", caller="heldout_log_likelihood")
    X_held = check_counts(X_heldout, model, name="X_heldout", caller="heldout_log_likelihood")
    _check_same_documents(X_obs, X_held, "X_observed")
    return completion_log_likelihoods(lambda X: doc_topic(model, X), topic_word(model), X_obs, X_held, n_jobs)


def heldout_perplexity(model, X_test, *, observed_fraction: float = 0.5, random_state=0, X_heldout=None,
                       n_jobs=None) -> float:
    """Held-out perplexity by document completion; lower is better.

    Each test document's tokens are split at random (:func:`split_tokens`: one binomial draw per
    non-zero cell, so each token is observed with probability ``observed_fraction``); the
    document's topic proportions theta_d are inferred from the observed part with the topics fixed
    (``model.transform``, normalised; E[theta] = gamma / sum gamma for the LDA models), and the
    held-out part is scored:

        perplexity = exp( - sum_d sum_w c^heldout_dw log sum_k theta_dk phi_kw / N_heldout )

    with phi = ``model.topic_word_distribution()`` (E[beta] for the VB models; the normalised rows
    of ``components_`` for a model without that method) and N_heldout the number of held-out
    tokens. Probabilities below 1e-300 are clamped there, so the value is always finite.

    Documents with no held-out tokens contribute nothing (neither to the sum nor to N_heldout).
    Documents with no observed tokens are still scored, under the proportions the model gives an
    empty document (the prior mean for the topicvb models), which is the honest answer for a
    document the model has not seen any of.

    Parameters
    ----------
    model : fitted topic model
        Any topicvb model, scikit-learn's ``LatentDirichletAllocation``, a
        :class:`FixedTopicModel`, or anything with ``components_`` and a ``transform`` returning
        document-topic proportions.
    X_test : {array-like, sparse matrix} of shape (n_docs, n_terms)
        Integer term counts of the test documents, over the model's vocabulary. When
        ``X_heldout`` is given, ``X_test`` is the observed part and no split is made.
    observed_fraction : float, default=0.5
        Probability that a token is observed, in (0, 1).
    random_state : int, RandomState instance or None, default=0
        Seeds the split; equal seeds give equal splits, so models are compared on the same tokens.
    X_heldout : {array-like, sparse matrix} of shape (n_docs, n_terms), default=None
        A held-out part made by the caller (e.g. for fractional counts, or to reuse one split).
    n_jobs : int, default=None
        Threads for the scoring kernel; None means every core. ``transform`` uses the model's own.

    Returns
    -------
    float
        The perplexity, >= 1.

    Raises
    ------
    NotFittedError
        If the model is not fitted.
    ValueError
        If ``X_test`` has the wrong number of terms, negative or (without ``X_heldout``)
        non-integer counts, a different number of documents than ``X_heldout``, or no held-out
        token at all; or if ``observed_fraction`` is not in (0, 1) (a TypeError if it is not a number).

    References
    ----------
    Wallach, Murray, Salakhutdinov & Mimno (2009), Evaluation methods for topic models, ICML.
    Asuncion, Welling, Smyth & Teh (2009), On smoothing and inference for topic models, UAI.

    Examples
    --------
    >>> from topicvb import BatchLDA
    >>> from topicvb.datasets import make_lda_corpus
    >>> from topicvb.evaluation import heldout_perplexity
    >>> corpus, _, _ = make_lda_corpus(300, 60, 3, separated=True, random_state=0)
    >>> model = BatchLDA(3, random_state=0).fit(corpus.X[:200])
    >>> heldout_perplexity(model, corpus.X[200:]) < 60
    True
    """
    check_model(model, "heldout_perplexity")
    X_obs, X_held = _observed_and_heldout(model, X_test, X_heldout, observed_fraction, random_state)
    n_held = float(X_held.sum())
    ll = heldout_log_likelihood(model, X_obs, X_held, n_jobs=n_jobs)
    return float(np.exp(-np.sum(ll) / n_held))


def _observed_and_heldout(model, X_test, X_heldout, observed_fraction, random_state):
    """The observed and held-out parts of the test documents (split here unless ``X_heldout`` is given).

    Raises ``ValueError`` when there is no held-out token; logs how many documents have no
    observed token (they are scored under the empty-document proportions).
    """
    X_test = check_counts(X_test, model, name="X_test", caller="heldout_perplexity")
    if X_heldout is None:
        X_obs, X_held = split_tokens(X_test, observed_fraction, random_state)
    else:
        X_obs = X_test
        X_held = check_counts(X_heldout, model, name="X_heldout", caller="heldout_perplexity")
        _check_same_documents(X_obs, X_held, "X_test")
    if float(X_held.sum()) <= 0:
        raise ValueError(
            "heldout_perplexity found no held-out token: X_test is empty or too short for the split. Pass "
            "more or longer test documents, or a larger share of held-out tokens (lower observed_fraction)."
        )
    n_no_obs = int(np.count_nonzero((np.diff(X_obs.indptr) == 0) & (np.diff(X_held.indptr) > 0)))
    if n_no_obs:
        logger.info("heldout_perplexity: %d documents have no observed tokens; scored under the empty-document "
                    "proportions.", n_no_obs)
    return X_obs, X_held


def per_word_bound(model, X, *, include_topic_term: bool = True) -> float:
    """The evidence lower bound of ``X`` with the topics fixed, per token (VB models).

    Each document's gamma is inferred with the topics fixed, and the ELBO (Blei, Ng & Jordan 2003;
    Hoffman, Blei & Bach 2010, eq. 3) is divided by the number of tokens of ``X``. With
    ``include_topic_term=True`` the value is exactly ``model.bound(X) / X.sum()``: the document
    terms plus the topic term (the KL part of the topic-word Dirichlets, which does not depend on
    ``X``), as scikit-learn's ``LatentDirichletAllocation`` does. Set it to False to divide the
    document terms only, which is the per-word bound proper for a test set much smaller than the
    training set. exp(-per_word_bound) is an upper bound on the perplexity of the documents
    themselves (not of held-out tokens; see :func:`heldout_perplexity`).

    Parameters
    ----------
    model : BatchLDA or OnlineLDA
        A fitted variational LDA model.
    X : {array-like, sparse matrix} of shape (n_docs, n_terms)
        Term counts over the model's vocabulary.
    include_topic_term : bool, default=True
        Whether the topic term of the ELBO is included.

    Returns
    -------
    float
        The bound per token (natural log); higher is better.

    Raises
    ------
    TypeError
        If the model is not a variational LDA model (BatchLDA, OnlineLDA), or ``include_topic_term``
        is not a bool.
    ValueError
        If ``X`` has the wrong width, negative counts, or no token.
    """
    from ..models.batch_lda import VBLDAMixin

    check_model(model, "per_word_bound")
    if not isinstance(model, VBLDAMixin):
        raise TypeError(
            f"per_word_bound needs a variational LDA model (BatchLDA or OnlineLDA), got {type(model).__name__}; "
            "use heldout_perplexity for any model."
        )
    include_topic_term = check_bool(include_topic_term, "include_topic_term")
    Xc = check_counts(X, model, name="X", caller="per_word_bound")
    n_tokens = float(Xc.sum())
    if n_tokens <= 0:
        raise ValueError("per_word_bound needs at least one token in X; every document is empty.")
    # (a model fitted on a DataFrame gets X itself, whose columns it checks; the CSR copy has no names to check)
    total = float(model.bound(X if getattr(model, "feature_names_in_", None) is not None else Xc))
    if not include_topic_term:
        total -= _topic_term(model)
    return total / n_tokens


def _topic_term(model) -> float:
    """The topic part of the ELBO (independent of the documents); with a matrix topic-word prior (guided
    topics) the entries it excludes (0) are left out, as in the fit's bound."""
    lam = writable(np.ascontiguousarray(model.components_))  # (a read-only model: see topicvb._validation.writable)
    n_topics, n_terms = lam.shape
    ebeta_t = np.empty((n_terms, n_topics), dtype=lam.dtype)
    log_scale = np.empty(n_terms, dtype=np.float64)
    eta = writable(model.topic_word_prior_)
    with threads(getattr(model, "n_jobs", None)):
        if isinstance(eta, np.ndarray) and eta.ndim == 2:
            elog = prior_topic_terms(lam, eta, ebeta_t, log_scale)[0]
            return float(np.sum(lda_topic_bound(lam, elog, np.asarray(eta, dtype=np.float64))))
        elog = topic_expectations(lam, ebeta_t, log_scale)
        return float(np.sum(lda_topic_bound(lam, elog, float(eta))))


class FixedTopicModel:
    """A fixed topic-word matrix (e.g. from a peer library) made usable by the evaluation functions.

    ``transform`` infers each document's topic proportions with the topics fixed, by the same VB
    E-step as :class:`topicvb.BatchLDA` with exp(E[log beta]) replaced by the point estimate phi,
    and returns E[theta] = gamma / sum gamma. Any model can therefore be compared by
    :func:`heldout_perplexity` on exactly the same footing.

    Parameters
    ----------
    topic_word : array-like of shape (n_topics, n_terms)
        Non-negative topic-word weights; rows are normalised to P(term | topic).
    doc_topic_prior : float or array-like of shape (n_topics,), default=None
        Dirichlet prior on document-topic proportions (alpha in the literature); None means
        1 / n_topics.
    max_iter : int, default=100
        Cap on the gamma updates per document.
    tol : float, default=1e-3
        Mean-change tolerance of a document's updates.

    Attributes
    ----------
    components_ : ndarray of shape (n_topics, n_terms)
        The normalised topic-word matrix.
    doc_topic_prior_ : ndarray of shape (n_topics,)
        The prior used.

    Examples
    --------
    >>> import numpy as np
    >>> from topicvb.evaluation import FixedTopicModel
    >>> model = FixedTopicModel(np.array([[0.9, 0.1], [0.1, 0.9]]))
    >>> model.transform(np.array([[5, 0]])).round(2)
    array([[0.91, 0.09]])
    """

    def __init__(self, topic_word, *, doc_topic_prior=None, max_iter: int = 100, tol: float = 1e-3):
        try:
            if np.iscomplexobj(topic_word):
                raise TypeError
            phi = np.array(topic_word, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"topic_word must be a numeric (n_topics, n_terms) array, got {type(topic_word).__name__}."
            ) from None
        if phi.ndim != 2 or phi.shape[0] < 1 or phi.shape[1] < 1:
            raise ValueError(f"topic_word must be a 2-D (n_topics, n_terms) array, got shape {phi.shape}.")
        totals = phi.sum(axis=1, keepdims=True)
        if not np.all(np.isfinite(phi)) or np.any(phi < 0) or not np.all((totals > 0) & np.isfinite(totals)):
            raise ValueError("topic_word must be non-negative and finite with a positive, finite sum in every row.")
        self.components_ = phi / totals
        K = phi.shape[0]
        a = check_positive_prior(doc_topic_prior, "doc_topic_prior", length=K)
        self.doc_topic_prior_ = (np.full(K, 1.0 / K) if a is None
                                 else np.broadcast_to(np.asarray(a, dtype=np.float64), (K,)).copy())
        check_int(max_iter, "max_iter", min_val=1)
        check_finite_real(tol, "tol", min_val=0.0)
        self.max_iter = int(max_iter)
        self.tol = float(tol)
        self.n_features_in_ = phi.shape[1]

    def __repr__(self) -> str:
        return f"FixedTopicModel(n_topics={self.components_.shape[0]}, n_terms={self.components_.shape[1]})"

    def topic_word_distribution(self) -> np.ndarray:
        """P(term | topic), rows summing to 1."""
        return self.components_.copy()

    def transform(self, X) -> np.ndarray:
        """Document-topic proportions E[theta] of ``X`` with the topics fixed; rows sum to 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_docs, n_terms)
            Non-negative term counts.

        Returns
        -------
        ndarray of shape (n_docs, n_topics)
            A document with no terms gets the prior mean.
        """
        X = check_counts(X, self, name="X", caller="FixedTopicModel.transform")
        phi_t = np.ascontiguousarray(self.components_.T)
        scale = phi_t.max(axis=1, keepdims=True)
        ebeta_t = np.ascontiguousarray(np.maximum(phi_t / np.where(scale > 0, scale, 1.0), 1e-300))
        alpha = writable(self.doc_topic_prior_)  # (a read-only copy: see topicvb._validation.writable)
        lengths = np.asarray(X.sum(axis=1)).ravel()
        gamma0 = alpha[None, :] + lengths[:, None] / alpha.shape[0]
        indptr, indices, data = csr_arrays(X)
        # plain updates (no SQUAREM): the estimator stays the one of earlier measurements for every model
        gamma, _, _ = e_step(indptr, indices, data, ebeta_t, alpha, gamma0, gamma0[:0], self.max_iter, self.tol,
                             False, False)
        return gamma / gamma.sum(axis=1, keepdims=True)


def perplexity_trace(estimator, X, X_test, *, checkpoints=(1, 2, 5, 10, 20, 50), observed_fraction: float = 0.5,
                     random_state=0) -> dict:
    """Held-out perplexity against fitting time and iterations, for plots of several models.

    For each checkpoint c, a clone of ``estimator`` with ``max_iter=c`` is fitted from scratch on
    ``X`` (with the estimator's own ``random_state``, so with a fixed seed the fits are prefixes
    of one run), timed, and scored by :func:`heldout_perplexity` on ``X_test`` (the same split for
    every checkpoint). Fitting from scratch costs sum(checkpoints) iterations in all but needs no
    warm start; the reported time is that of the fit reaching the checkpoint. The first checkpoint is
    fitted once more before its timed fit, so that no time includes the one-time compilation of the kernels.

    Parameters
    ----------
    estimator : unfitted topicvb estimator
        With ``max_iter`` among its parameters (for OnlineLDA, passes over the data).
    X : {array-like, sparse matrix} of shape (n_docs, n_terms)
        Training counts.
    X_test : {array-like, sparse matrix} of shape (n_test_docs, n_terms)
        Test counts, split by :func:`split_tokens` once.
    checkpoints : sequence of int, default=(1, 2, 5, 10, 20, 50)
        Iteration counts at which to measure: positive ints (not bools), in any order; repeats count once.
    observed_fraction, random_state
        As in :func:`heldout_perplexity`.

    Returns
    -------
    dict
        ``{"label": class name, "n_iter": list of int, "time": list of float (seconds),
        "perplexity": list of float}``, ready for :func:`topicvb.plotting.plot_perplexity_vs_time`.

    Raises
    ------
    TypeError
        If ``checkpoints`` is not an iterable of ints (a str is not), or the estimator has no ``max_iter``.
    ValueError
        If ``checkpoints`` is empty or holds an int below 1.
    """
    if isinstance(estimator, type) or not callable(getattr(estimator, "get_params", None)):
        what = f"the class {estimator.__name__}" if isinstance(estimator, type) else f"{type(estimator).__name__} " \
            f"{estimator!r}"
        raise TypeError(f"perplexity_trace needs an estimator instance (e.g. BatchLDA(10)), got {what}.")
    if "max_iter" not in estimator.get_params():
        raise TypeError(
            f"perplexity_trace needs an estimator with a max_iter parameter, got {type(estimator).__name__}."
        )
    points = _check_checkpoints(checkpoints)
    first = clone(estimator)
    X_obs = X_held = None
    out = {"label": type(estimator).__name__, "n_iter": [], "time": [], "perplexity": []}
    fit_quietly(clone(first).set_params(max_iter=points[0]), X)  # (untimed: the kernels compile in a first fit)
    for c in points:
        model = clone(first).set_params(max_iter=c)
        started = time.perf_counter()
        fit_quietly(model, X)
        elapsed = time.perf_counter() - started
        if X_obs is None:
            X_obs, X_held = split_tokens(check_counts(X_test, model, name="X_test", caller="perplexity_trace"),
                                         observed_fraction, random_state)
        out["n_iter"].append(int(getattr(model, "n_iter_", c)))
        out["time"].append(float(elapsed))
        out["perplexity"].append(heldout_perplexity(model, X_obs, X_heldout=X_held))
        logger.debug("perplexity_trace %s max_iter=%d: %.2fs perplexity %.4g", out["label"], c, elapsed,
                     out["perplexity"][-1])
    return out



def _check_checkpoints(checkpoints) -> list[int]:
    """The distinct checkpoints of :func:`perplexity_trace`, sorted; each must be a positive int (not a bool)."""
    if isinstance(checkpoints, (str, bytes)) or not isinstance(checkpoints, Iterable):
        raise TypeError(f"checkpoints must be a sequence of positive ints (iteration counts), got "
                        f"{type(checkpoints).__name__} {checkpoints!r}.")
    values = list(checkpoints)
    for c in values:
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, numbers.Integral):
            raise TypeError(f"checkpoints must be positive ints (iteration counts), got {c!r} of type "
                            f"{type(c).__name__}.")
    if not values or min(values) < 1:
        raise ValueError(f"checkpoints must be positive iteration counts, got {values!r}.")
    return sorted({int(c) for c in values})
