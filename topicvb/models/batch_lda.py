"""Batch variational Bayes for latent Dirichlet allocation (Blei, Ng & Jordan 2003).

A thin driver over the variational core (:mod:`._vb`): every iteration runs the local step on the
whole corpus as one block (:class:`._vb_fit.CorpusMap`) and overwrites the topics with the
statistics (:func:`._vb.batch_m_step`); the loop is :func:`._vb_fit.batch_loop`, which the Dask
runner (:mod:`topicvb.distributed`) shares.
"""

from __future__ import annotations

import logging
import time

import numpy as np
from sklearn.utils import check_random_state

from .._config import threads
from .._validation import csr_arrays
from .._constraints import Boolean
from ._base import CHECKPOINT_CONSTRAINTS, TopicModelBase
from ._fit_warnings import DEAD_SHARE
from ._checkpoint import interruptible, restore_rng
from ._moves import LATE_MOVES, MAX_REJECTED, TRIAL_SWEEPS, Cells, Round, judge, late_window, vb_proposal
from ._priors import learn_flags
from ._start import initial_topics, prior_informed_start
from ._vb import is_matrix
from ._vb_fit import CorpusMap, VBLDAMixin, batch_loop

logger = logging.getLogger(__name__)


class _Trial:
    """The fit loop's view of a move's trial: a fixed number of iterations, silent, never converged."""

    def __init__(self, max_iter):
        self.max_iter = max_iter

    def _converged(self, history):
        return False

    def _report(self, *args):
        pass


class _Until:
    """The fit loop's view of the model up to iteration ``max_iter`` (where late moves are tried)."""

    def __init__(self, model, max_iter):
        self.model, self.max_iter = model, max_iter

    def _converged(self, history):
        return self.model._converged(history)

    def _report(self, *args):
        self.model._report(*args)


class BatchLDA(VBLDAMixin, TopicModelBase):
    """Latent Dirichlet allocation fitted by batch variational Bayes (mean-field CAVI).

    Each iteration runs the variational E-step on every document (updating the Dirichlet
    parameters gamma of the document-topic proportions, with the per-token responsibilities phi
    kept implicit) and then the M-step lam = eta + expected topic-term counts. The exact evidence
    lower bound (ELBO) is computed after every iteration and stored in ``bound_history_``.
    Each E-step restarts a rotating share 1 / ``restart_every`` of the documents from a random point
    (restarts explore much better than warm starts alone, which lock early mistakes in) and
    continues the others from their
    previous solution, which needs far fewer updates; a restarted document falls back on its
    previous solution whenever that is better under the current topics. With the statistics taken
    from the phi optimal for the final gamma, the bound therefore never decreases (up to
    floating-point rounding).

    Parameters
    ----------
    n_components : int, default=10
        Number of topics (K).
    doc_topic_prior : float or array-like of shape (n_components,), default=None
        Dirichlet prior on document-topic proportions (alpha in the literature). None means
        1 / n_components.
    topic_word_prior : float or array-like of shape (n_components, n_features), default=None
        Dirichlet prior on topic-term distributions (eta in the literature). A float is a symmetric
        prior; None means 1 / n_components. A matrix (dense, sparse, or a :class:`topicvb.SeededPrior`)
        gives each topic its own prior (guided topics): lam = eta + expected counts with the matrix, the
        ELBO's topic term exact with it, and a 0 entry excludes the term from the topic (probability
        exactly 0). The starting topics lean towards the terms each non-constant row favours
        (:func:`topicvb.models._start.prior_informed_start`). Moves are not tried with a matrix prior.
    max_iter : int, default=100
        Maximum number of passes (E-step + M-step) over the corpus.
    tol : float, default=1e-4
        Stop when the relative change of the ELBO between iterations is at most ``tol``.
    learn_priors : {False, True, "doc_topic", "topic_word"}, default=False
        Learn an asymmetric alpha and/or a symmetric eta by maximising the ELBO after every
        M-step (Minka's fixed-point iteration); the learned values are in ``doc_topic_prior_`` and
        ``topic_word_prior_`` and the given priors are the starting point. With a matrix eta its scale
        s is learned (eta = s x the given matrix; a safeguarded Newton maximisation of the ELBO's topic
        term), not its shape. The bound stays monotone.
    moves : bool, default=True
        Once the fit has settled, try moves that leave a poor optimum, as :class:`CollapsedLDA` does
        (:mod:`topicvb.models._moves`): free a topic (a dead one, or the smaller of two
        near-duplicates merged into the other) and re-seed it by splitting the topic whose tokens two
        topics explain best. A proposal worth a trial is kept only when, after a few iterations, the
        ELBO is above what the unmoved fit reaches in as many (so the ELBO after an accepted move is
        above the ELBO before it; within the move's first iterations it may be below); otherwise
        the fit is restored exactly. A fit that has not settled 10 iterations before ``max_iter``
        tries them there. Not in :func:`topicvb.distributed.fit_distributed`.
    init : {"seeded", "random"}, default="seeded"
        Initial topics. "seeded" starts each topic from a cluster of documents (k-means++ seeds in
        Hellinger distance refined by two Lloyd steps), mixed with the uniform distribution; it reaches
        a lower held-out perplexity than "random" (``BENCHMARKS.md``). "random" draws lam from
        Gamma(100, 0.01) as Hoffman's and scikit-learn's code do.
    restart_every : int, default=4
        Each document's E-step restarts from a random point once every ``restart_every``
        iterations (document d in iteration t when d % restart_every == (t - 1) % restart_every)
        and continues from its previous solution otherwise. 1 restarts every document in every
        E-step, as Hoffman's and scikit-learn's code do. Continuing documents need far fewer gamma
        updates than restarted ones, for a slightly higher held-out perplexity after the same number
        of iterations (``BENCHMARKS.md``).
    max_doc_update_iter : int, default=100
        Cap on the gamma updates per document in one E-step.
    mean_change_tol : float, default=1e-3
        A document's E-step stops when the mean absolute change of gamma is below this.
    e_step_acceleration : {"squarem", None}, default="squarem"
        "squarem" runs each document's coordinate ascent under SQUAREM (Varadhan & Roland 2008),
        which extrapolates along the last two gamma updates, with the same stopping rule; it needs
        fewer gamma updates per document for the same held-out perplexity (``BENCHMARKS.md``). A
        document continuing from its previous solution keeps an extrapolated
        point only when its bound did not go down, so the ELBO stays monotone. None runs the plain
        updates of Blei et al. (as scikit-learn and gensim do).
    random_state : int, RandomState instance or None, default=None
        Seeds the random initialisation of the topics.
    verbose : int, default=0
        Print one line per iteration to stderr when positive.
    n_jobs : int, default=None
        Threads for the kernels: None or -1 means every core. Results do not depend on it.
    dtype : {"float64", "float32"}, default="float64"
        Floating type of the model's arrays; float32 halves memory.
    checkpoint_path : str or path-like, default=None
        Where to write a checkpoint of the fit (the whole iteration state and the random state, as
        plain arrays, written atomically) every ``checkpoint_every`` iterations; ``fit(X,
        resume=True)`` continues from it to the same result as an uninterrupted fit.
    checkpoint_every : int, default=1
        Iterations between checkpoints.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Variational parameters lam of the topic-term Dirichlets (pseudo-counts); normalise the
        rows (``topic_word_distribution()``) for P(term | topic).
    doc_topic_prior_ : ndarray of shape (n_components,)
        The prior alpha used.
    topic_word_prior_ : float or ndarray of shape (n_components, n_features)
        The prior eta used (learned, when ``learn_priors`` learns it): a float, or the (K, V) matrix
        (with its learned scale applied).
    bound_history_ : ndarray of shape (n_iter_,)
        The ELBO of the training corpus after each iteration.
    n_iter_ : int
        Iterations run.
    n_features_in_ : int
        Number of terms seen in fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X had string column names.
    topic_labels_ : ndarray of str (dtype object) of shape (n_components,)
        The topics' names, set by every fit: with guided topics (``topic_word_prior`` a
        :class:`topicvb.SeededPrior`) the seed labels first and ``topic_k`` for the free topics, else
        ``topic_0``, ``topic_1``, ...; ``top_words``, ``summary``, the report and the command line show
        them, and a saved model keeps them.

    References
    ----------
    Blei, Ng & Jordan (2003), Latent Dirichlet allocation, JMLR 3.
    Hoffman, Blei & Bach (2010), Online learning for latent Dirichlet allocation, NIPS.

    Examples
    --------
    >>> from topicvb import BatchLDA, make_lda_corpus
    >>> data = make_lda_corpus(200, 50, 3, random_state=0)
    >>> model = BatchLDA(3, random_state=0).fit(data.corpus.X)
    >>> model.transform(data.corpus.X[:2]).shape
    (2, 3)
    """

    def __init__(self, n_components=10, *, doc_topic_prior=None, topic_word_prior=None, max_iter=100,
                 tol=1e-4, init="seeded", learn_priors=False, moves=True, restart_every=4, max_doc_update_iter=100,
                 mean_change_tol=1e-3, e_step_acceleration="squarem",
                 random_state=None, verbose=0, n_jobs=None, dtype="float64", checkpoint_path=None,
                 checkpoint_every=1):
        self.n_components = n_components
        self.doc_topic_prior = doc_topic_prior
        self.topic_word_prior = topic_word_prior
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.learn_priors = learn_priors
        self.moves = moves
        self.restart_every = restart_every
        self.max_doc_update_iter = max_doc_update_iter
        self.mean_change_tol = mean_change_tol
        self.e_step_acceleration = e_step_acceleration
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.dtype = dtype
        self.checkpoint_path = checkpoint_path
        self.checkpoint_every = checkpoint_every

    # with VBLDAMixin's (the local step's) and TopicModelBase's (the shared ones)
    _parameter_constraints: dict = {"moves": [Boolean()], **CHECKPOINT_CONSTRAINTS}

    def _fit(self, X, resume=False):
        rng = check_random_state(self.random_state)
        alpha, eta = self._resolve_priors()
        dtype = self._float
        lam = initial_topics(self.init, X, self.n_components, rng, dtype)
        if is_matrix(eta):  # guided topics start on the terms their prior favours (excluded terms at 0)
            lam = prior_informed_start(lam, eta, X).astype(dtype)
        gamma, history, it = None, [], 0  # no previous solution in the first E-step
        save, state = self._checkpointer(X, resume)
        if state is not None:
            lam, gamma = state["lam"].astype(dtype), state["gamma"].astype(dtype)
            alpha, history = state["alpha"], list(state["history"])
            eta = np.array(state["eta"], dtype=np.float64) if is_matrix(eta) else float(state["eta"])
            it = int(state["iteration"]) if "iteration" in state else len(history)
            restore_rng(rng, state)
        mapper = CorpusMap(X, self.n_components, dtype, rng, self.restart_every, self._doc_updates(), gamma)
        learn_alpha, learn_eta = learn_flags(self.learn_priors, type(self).__name__)

        def checkpoint(it, lam, alpha, eta, history):
            save(it, {"lam": lam, "gamma": mapper.gamma, "alpha": alpha, "eta": np.array(eta),
                      "history": np.asarray(history), "iteration": np.array(it)}, rng)

        started = time.perf_counter()
        # (moves with a matrix prior: not yet; _moves.vb_proposal reads eta as a float)
        cells = Cells(*csr_arrays(X)) if self.moves and not is_matrix(eta) else None
        with threads(self.n_jobs), interruptible(type(self).__name__) as stop:
            late = self.max_iter - LATE_MOVES
            view = _Until(self, late) if cells is not None and late_window(late, self.max_iter) and it <= late else self
            settled, rejected = False, 0
            while True:
                lam, alpha, eta, history, it, converged = batch_loop(
                    view, mapper, lam, alpha, eta, learn_alpha=learn_alpha, learn_eta=learn_eta, started=started,
                    it=it, history=history, stop=stop, on_m_step=checkpoint)
                view, settled = self, settled or converged
                # settled, or late (see topicvb.models._moves): try moves; after an accepted one, fit on from it
                accepted, round_ = False, Round()
                while (converged or it == late) and cells is not None and rejected < MAX_REJECTED \
                        and it + TRIAL_SWEEPS <= self.max_iter and not stop.requested:
                    proposal = vb_proposal(cells, lam, mapper.gamma, alpha, eta, rejected, DEAD_SHARE, rng, logger,
                                           type(self).__name__, round_)
                    if proposal is None:
                        break
                    new_lam, new_gamma, what = proposal
                    kept_gamma, mapper.gamma = mapper.gamma, new_gamma
                    trial = batch_loop(_Trial(it + TRIAL_SWEEPS), mapper, new_lam, alpha, eta, learn_alpha=learn_alpha,
                                       learn_eta=learn_eta, started=started, it=it, history=list(history), stop=stop)
                    if stop.requested or not judge(history, trial[3][len(history):], TRIAL_SWEEPS, logger,
                                                    type(self).__name__, what):
                        mapper.gamma, rejected = kept_gamma, rejected + 1
                        continue
                    lam, alpha, eta, history, it, _ = trial
                    accepted = True
                    break
                rejected = 0
                if not accepted and (converged or it >= self.max_iter or stop.requested):
                    break
        if not stop.requested:
            self._warn_not_converged(it, settled)
        return {
            "components_": lam,
            "doc_topic_prior_": alpha,
            "topic_word_prior_": eta,
            "bound_history_": np.asarray(history),
            "n_iter_": it,
        }

    def bound(self, X):
        """Evidence lower bound of ``X`` under the fitted topics; a total, higher is better.

        The documents' gamma are inferred with the topics fixed; the value is the sum of the
        per-document ELBO terms plus the topic term, which is what scikit-learn's
        ``LatentDirichletAllocation.score`` returns (this package's :meth:`score` is the held-out
        log-likelihood per token instead). OnlineLDA's ``bound`` is the same quantity.
        """
        return super().bound(X)
