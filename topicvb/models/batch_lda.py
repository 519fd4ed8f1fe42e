"""Batch variational Bayes for latent Dirichlet allocation (Blei, Ng & Jordan 2003)."""

from __future__ import annotations

import math
import numbers
import time

import numpy as np
import scipy.sparse as sp
from scipy.special import digamma
from sklearn.utils import check_random_state, check_scalar

from .._config import threads
from .._kernels.bounds import lda_doc_bound, lda_topic_bound, topic_expectations, topic_terms
from .._kernels.estep import document_objectives, e_step, e_step_indexed
from .._kernels.seeding import candidate_distances, nearest_centre
from .._kernels.sparse import column_index
from .._validation import check_choice, csr_arrays
from ._base import TopicModelBase
from ._checkpoint import interruptible, restore_rng
from ._priors import dirichlet_from_mean_log, learn_flags, symmetric_dirichlet_from_mean_log


def _expectations(lam):
    """E[log beta] (K, V), term-major rescaled exp(E[log beta]) (V, K) and the per-term log scale."""
    n_topics, n_terms = lam.shape
    ebeta_t = np.empty((n_terms, n_topics), dtype=lam.dtype)
    log_scale = np.empty(n_terms, dtype=np.float64)
    elog = topic_expectations(lam, ebeta_t, log_scale)
    return elog, ebeta_t, log_scale


def _topic_bound(elog_sum, rest, eta, n_terms):
    """The topic part of the ELBO from ``topic_terms``'s per-topic pieces, for a symmetric ``eta``."""
    eta = float(eta)
    const = math.lgamma(n_terms * eta) - n_terms * math.lgamma(eta)
    return float(const * elog_sum.shape[0] + eta * np.sum(elog_sum) + np.sum(rest))


_HALF_WIDTH = 0.1 * math.sqrt(3.0)


def random_start(rng, shape, dtype=np.float64):
    """Random positive values of mean 1 and standard deviation 0.1: E-step restarts and start noise.

    Uniform on 1 +- 0.1 sqrt(3), the first two moments of the Gamma(100, 0.01) draws of Hoffman's and
    scikit-learn's code at about a tenth of their cost (a restart draw for every document and topic
    took 60 ms per BatchLDA iteration on 20 Newsgroups at K = 100). ``rng``: a ``RandomState`` or a
    ``Generator``.
    """
    u = rng.random(size=shape)
    u *= 2.0 * _HALF_WIDTH
    u += 1.0 - _HALF_WIDTH
    return u.astype(dtype, copy=False)


def _prior_const(alpha):
    """lnG(sum alpha) - sum lnG(alpha): the per-document constant of the ELBO's theta terms."""
    return math.lgamma(float(np.sum(alpha))) - float(np.sum([math.lgamma(a) for a in np.ravel(alpha)]))


def _doc_bound(objectives, counts, log_scale, alpha):
    """The document part of the ELBO from the E-step's per-document objectives (``e_step_indexed``,
    ``document_objectives``): their sum plus the constants they leave out, sum_w c_w s_w (``counts``
    with one entry per term, aligned with ``log_scale``) and the prior's constant per document."""
    # (not counts @ log_scale: a BLAS call wakes OpenBLAS's threads, which then spin beside the
    # kernels' threads; on 2 cores that cost the next E-step a third of its speed)
    return (float(np.sum(objectives)) + float(np.sum(counts * log_scale))
            + objectives.shape[0] * _prior_const(alpha))


def _initial_gamma(X, alpha, dtype):
    """Deterministic start for gamma: the prior plus the document's tokens spread evenly."""
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    return (alpha[None, :] + lengths[:, None] / alpha.shape[0]).astype(dtype)


def _restart_rows(n_docs, offset, restart_every, iteration):
    """Boolean mask of the documents whose E-step ``iteration`` (from 1) restarts from a random point.

    Document d (its index in the whole corpus, ``offset`` being the index of the first of these
    ``n_docs``) restarts when d % restart_every == (iteration - 1) % restart_every, so every document
    restarts once every ``restart_every`` E-steps, in a rotation that needs no random numbers (the
    distributed runner computes the same mask on each partition).
    """
    return (np.arange(offset, offset + n_docs) % restart_every) == ((iteration - 1) % restart_every)


def _start_points(gamma_init, gamma_prev, offset, restart_every, iteration):
    """E-step starting points: the random ``gamma_init`` for the documents that restart in
    ``iteration``, the previous solution ``gamma_prev`` for the others (all restart when there is no
    previous solution). Modifies and returns ``gamma_init``."""
    if gamma_prev.shape[0] == 0 or restart_every == 1:
        return gamma_init
    keep = ~_restart_rows(gamma_init.shape[0], offset, restart_every, iteration)
    gamma_init[keep] = gamma_prev[keep]
    return gamma_init


def _seeded_topics(X, n_topics, rng, dtype, n_refine=2, centre_weight=0.5):
    """Initial lam from document clusters: k-means++ seeds refined by a few Lloyd steps.

    Documents are embedded by the square roots of their term frequencies (unit vectors, so the
    squared Euclidean distance is twice the squared Hellinger distance). Seeds are chosen by greedy
    k-means++ (Arthur & Vassilvitskii 2007): the first uniformly among non-empty documents; for each
    next one a few candidates are drawn with probability proportional to their squared distance to
    the nearest seed, and the one leaving the smallest total is kept. ``n_refine`` Lloyd steps then
    assign every document to its nearest centre and move each centre to the mean term frequency of
    its documents (an empty cluster keeps its centre), so topics start from the mean of many
    documents rather than from one, often atypical, far-away document: on 20 Newsgroups this start
    gave 5-8% lower held-out perplexity than the single-document seeds and than a Gamma(100, 0.01)
    start, for BatchLDA and OnlineLDA alike (benchmarks/BENCHMARKS.md). Topic k starts as the mix
    ``centre_weight`` * centre k + (1 - ``centre_weight``) * uniform (an even mix for the LDA fits;
    PLSA passes its own weight), scaled to carry 1/K of the corpus tokens, times noise of mean 1
    and standard deviation 0.1 (:func:`random_start`). Cost (the kernels of :mod:`topicvb._kernels.seeding`): for each of the K
    seeds, 2 + log K candidates' inner products with the documents sharing their terms (through the
    term-major embedding), plus ``n_refine`` assignment passes of K multiply-adds per non-zero.
    """
    n_docs, n_terms = X.shape
    lengths = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size == 0:
        return rng.gamma(100.0, 0.01, size=(n_topics, n_terms)).astype(dtype)
    X = sp.csr_matrix(X)
    row_lengths = np.repeat(np.maximum(lengths, 1.0), np.diff(X.indptr))
    tf = sp.csr_matrix((np.asarray(X.data, dtype=np.float64) / row_lengths, X.indices, X.indptr), shape=X.shape)
    emb = sp.csr_matrix((np.sqrt(tf.data), tf.indices, tf.indptr), shape=X.shape)
    sq = (lengths > 0).astype(np.float64)  # squared norms: sum_w tf_dw = 1 for every non-empty document
    emb_t = emb.T.tocsr()  # term-major: a candidate's inner products touch only the documents sharing its terms
    arrays = (emb.indptr, emb.indices, emb.data, emb_t.indptr, emb_t.indices, emb_t.data)  # no copies
    n_trials = 2 + int(np.log(n_topics))
    scratch = np.empty((n_trials, n_docs), dtype=np.float64)

    def after_adding(candidates, dist):  # (totals, new distances) for each candidate: see candidate_distances
        out = scratch[:len(candidates)]
        totals = candidate_distances(*arrays, sq, dist, np.asarray(candidates, dtype=np.int64), out)
        return totals, out

    seeds = [int(rng.choice(nonempty))]
    _, first = after_adding([seeds[0]], np.where(lengths > 0, np.inf, 0.0))
    dist = first[0].copy()
    for _ in range(1, n_topics):
        total = dist.sum()
        if total <= 0:
            seeds.append(int(rng.choice(nonempty)))
            continue
        # greedy k-means++: of a few candidates drawn by squared distance, keep the one that
        # leaves the smallest total squared distance
        candidates = rng.choice(n_docs, size=n_trials, p=dist / total)
        totals, new_dist = after_adding(candidates, dist)
        best = int(np.argmin(totals))
        seeds.append(int(candidates[best]))
        dist = new_dist[best].copy()
    centres = tf[seeds].toarray()
    if n_refine > 0:
        centres = 0.5 * centres + 0.5 / n_terms  # the first assignment: seeds mixed with uniform
        docs = nonempty
        emb_docs, tf_docs = (emb, tf) if docs.size == n_docs else (emb[docs], tf[docs])
        doc_arrays = (emb_docs.indptr, emb_docs.indices, emb_docs.data)
        for _ in range(n_refine):
            labels = nearest_centre(*doc_arrays, np.ascontiguousarray(np.sqrt(centres).T))
            members = sp.csr_matrix((np.ones(docs.size), (labels, np.arange(docs.size))),
                                    shape=(n_topics, docs.size))
            counts = np.asarray(members.sum(axis=1)).ravel()
            sums = np.asarray((members @ tf_docs).todense())
            filled = counts > 0
            centres[filled] = sums[filled] / counts[filled, None]
    scale = lengths.sum() / n_topics
    noise = random_start(rng, (n_topics, n_terms))
    return (scale * (centre_weight * centres + (1.0 - centre_weight) / n_terms) * noise).astype(dtype)


class VBLDAMixin:
    """The parts of BatchLDA that OnlineLDA shares: inference of new documents and the bound."""

    def _infer(self, X, expectations=None):
        """E-step on CSR ``X`` with the fitted topics; ``expectations`` reuses ``_expectations(components_)``."""
        alpha = self.doc_topic_prior_
        _, ebeta_t, _ = _expectations(self.components_) if expectations is None else expectations
        gamma0 = _initial_gamma(X, alpha, ebeta_t.dtype)
        indptr, indices, data = csr_arrays(X)
        with threads(self.n_jobs):
            return e_step(indptr, indices, data, ebeta_t, alpha, gamma0, gamma0[:0],
                          int(self.max_doc_update_iter), float(self.mean_change_tol), False, self._accelerate)

    @property
    def _accelerate(self):
        """Whether the E-step runs SQUAREM-accelerated updates (``e_step_acceleration``)."""
        return self.e_step_acceleration == "squarem"

    def _doc_topic(self, X):
        gamma, _, _ = self._infer(X)
        return gamma

    def _elbo(self, X, gamma, lam, alpha, eta, doc_scale=1.0, expectations=None):
        """ELBO of X given gamma and lam; ``doc_scale`` multiplies the document part (SVI estimates).

        ``expectations`` passes ``_expectations(lam)`` when the caller already has it.
        """
        elog, ebeta_t, log_scale = _expectations(lam) if expectations is None else expectations
        indptr, indices, data = csr_arrays(X)
        with threads(self.n_jobs):
            doc = lda_doc_bound(indptr, indices, data, gamma, alpha, ebeta_t, log_scale)
            topic = lda_topic_bound(lam, elog, float(eta))
        return float(doc_scale * np.sum(doc) + np.sum(topic))

    def _score(self, X):
        expectations = _expectations(self.components_)
        gamma, _, _ = self._infer(X, expectations)
        return self._elbo(X, gamma, self.components_, self.doc_topic_prior_, self.topic_word_prior_,
                          expectations=expectations)

    def _check_vb_params(self):
        check_scalar(self.max_doc_update_iter, "max_doc_update_iter", numbers.Integral, min_val=1)
        check_scalar(self.mean_change_tol, "mean_change_tol", numbers.Real, min_val=0.0)
        check_choice(self.e_step_acceleration, "e_step_acceleration", ("squarem", None))
        learn_flags(self.learn_priors, type(self).__name__)

    @staticmethod
    def _learned_priors(gamma, mean_elog_beta, n_terms, alpha, eta, learn_alpha, learn_eta):
        """Maximise the ELBO's prior terms over alpha (given gamma) and eta (given lam, through the
        mean over topics and terms of E[log beta])."""
        if learn_alpha and gamma.shape[0]:
            g = np.asarray(gamma, dtype=np.float64)
            elog_theta = digamma(g) - digamma(g.sum(axis=1, keepdims=True))
            alpha = dirichlet_from_mean_log(alpha, elog_theta.mean(axis=0))
        if learn_eta:
            eta = symmetric_dirichlet_from_mean_log(eta, float(mean_elog_beta), n_terms)
        return alpha, eta


class BatchLDA(VBLDAMixin, TopicModelBase):
    """Latent Dirichlet allocation fitted by batch variational Bayes (mean-field CAVI).

    Each iteration runs the variational E-step on every document (updating the Dirichlet
    parameters gamma of the document-topic proportions, with the per-token responsibilities phi
    kept implicit) and then the M-step lam = eta + expected topic-term counts. The exact evidence
    lower bound (ELBO) is computed after every iteration and stored in ``bound_history_``.
    Each E-step restarts a rotating share 1 / ``restart_every`` of the documents from a random point
    (restarts explore much better than warm starts alone: on 20 Newsgroups, warm starts from the
    second iteration on ended 20% higher in held-out perplexity) and continues the others from their
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
    topic_word_prior : float, default=None
        Symmetric Dirichlet prior on topic-term distributions (eta in the literature). None means
        1 / n_components.
    max_iter : int, default=100
        Maximum number of passes (E-step + M-step) over the corpus.
    tol : float, default=1e-4
        Stop when the relative change of the ELBO between iterations is at most ``tol``.
    learn_priors : {False, True, "doc_topic", "topic_word"}, default=False
        Learn an asymmetric alpha and/or a symmetric eta by maximising the ELBO after every
        M-step (Minka's fixed-point iteration); the learned values are in ``doc_topic_prior_`` and
        ``topic_word_prior_`` and the given priors are the starting point. The bound stays monotone.
    init : {"seeded", "random"}, default="seeded"
        Initial topics. "seeded" starts each topic from a cluster of documents (k-means++ seeds in
        Hellinger distance refined by two Lloyd steps), mixed with the uniform distribution: on 20
        Newsgroups it reached 5% lower held-out perplexity (document completion) than "random" after 20
        iterations (3558 vs 3749).
        "random" draws lam from Gamma(100, 0.01) as Hoffman's and scikit-learn's code do.
    restart_every : int, default=4
        Each document's E-step restarts from a random point once every ``restart_every``
        iterations (document d in iteration t when d % restart_every == (t - 1) % restart_every)
        and continues from its previous solution otherwise. 1 restarts every document in every
        E-step, as Hoffman's and scikit-learn's code do. On 20 Newsgroups (K = 20 and 100) the
        default needed about half the gamma updates per iteration of 1 (17 vs 33 per document at K = 20, 13 vs 24
        at K = 100, averaged over the first 10 / 5 iterations), for a held-out perplexity
        0.1-0.4% higher after the same number of iterations (``BENCHMARKS.md``).
    max_doc_update_iter : int, default=100
        Cap on the gamma updates per document in one E-step.
    mean_change_tol : float, default=1e-3
        A document's E-step stops when the mean absolute change of gamma is below this.
    e_step_acceleration : {"squarem", None}, default="squarem"
        "squarem" runs each document's coordinate ascent under SQUAREM (Varadhan & Roland 2008),
        which extrapolates along the last two gamma updates, with the same stopping rule: on 20
        Newsgroups it needed 9.5 instead of 16.9 gamma updates per document and E-step (K = 20, 10
        iterations; 8.7 instead of 13.0 at K = 100, 5 iterations) for the same held-out perplexity. A document continuing from its previous solution keeps an extrapolated
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
    topic_word_prior_ : float
        The prior eta used.
    bound_history_ : ndarray of shape (n_iter_,)
        The ELBO of the training corpus after each iteration.
    n_iter_ : int
        Iterations run.
    n_features_in_ : int
        Number of terms seen in fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when X had string column names.

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
                 tol=1e-4, init="seeded", learn_priors=False, restart_every=4, max_doc_update_iter=100,
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

    def _check_params(self):
        self._check_common_params()
        self._check_vb_params()
        self._check_checkpoint_params()
        check_choice(self.init, "init", {"seeded", "random"})
        check_scalar(self.restart_every, "restart_every", numbers.Integral, min_val=1)

    def _fit(self, X, resume=False):
        rng = check_random_state(self.random_state)
        alpha, eta = self._resolve_priors()
        K, V = self.n_components, X.shape[1]
        dtype = self._float
        if self.init == "seeded":
            lam = _seeded_topics(X, K, rng, dtype)
        else:
            lam = rng.gamma(100.0, 0.01, size=(K, V)).astype(dtype)
        gamma = np.zeros((0, K), dtype=dtype)  # no previous solution in the first E-step
        history = []
        it = 0  # iterations (E-step + M-step) made; the bound of the last one may still be pending
        save, state = self._checkpointer(X, resume)
        if state is not None:
            lam, gamma = state["lam"].astype(dtype), state["gamma"].astype(dtype)
            alpha, eta, history = state["alpha"], float(state["eta"]), list(state["history"])
            it = int(state["iteration"]) if "iteration" in state else len(history)
            restore_rng(rng, state)
        indptr, indices, data = csr_arrays(X)
        columns = column_index(indptr, indices, V)  # once for all E-steps
        term_counts = np.bincount(indices, weights=data, minlength=V)  # for the bound's sum_dw c_dw s_w
        learn_alpha, learn_eta = learn_flags(self.learn_priors, type(self).__name__)
        started = time.perf_counter()
        converged = self._converged(history)
        with threads(self.n_jobs), interruptible(type(self).__name__) as stop:
            ebeta_t = np.empty((V, K), dtype=dtype)
            log_scale = np.empty(V, dtype=np.float64)
            elog_sum, rest = topic_terms(lam, ebeta_t, log_scale)
            while not converged:
                if it == self.max_iter or stop.requested:
                    if len(history) < it:  # the last iteration's bound, by a pass of its own
                        doc = _doc_bound(document_objectives(indptr, indices, data, ebeta_t, alpha, gamma),
                                         term_counts, log_scale, alpha)
                        self._record(history, it, doc + _topic_bound(elog_sum, rest, eta, V), started)
                    break
                # a fresh random start for 1 / restart_every of the documents (all of them with
                # restart_every=1, as Hoffman's and scikit-learn's code do), the previous solution for the
                # others; e_step falls back on the previous gamma where that is better
                gamma_init = _start_points(random_start(rng, (X.shape[0], K), dtype), gamma, 0,
                                           int(self.restart_every), it + 1)
                new_gamma, sstats_t, _, prev_doc = e_step_indexed(
                    indptr, indices, data, *columns, ebeta_t, alpha, gamma_init, gamma, int(self.max_doc_update_iter),
                    float(self.mean_change_tol), self._accelerate)
                if len(history) < it:  # this E-step also gave the document part of iteration it's bound
                    doc = _doc_bound(prev_doc, term_counts, log_scale, alpha)
                    self._record(history, it, doc + _topic_bound(elog_sum, rest, eta, V), started)
                    converged = self._converged(history)
                    if converged:  # the model of iteration it is the result (this E-step is not used)
                        break
                gamma = new_gamma
                it += 1
                lam = np.add(sstats_t.T, eta, out=np.empty((K, V), dtype=dtype))  # C order: topic_terms reads rows
                elog_sum, rest = topic_terms(lam, ebeta_t, log_scale)  # the new topics' expectations
                if learn_alpha or learn_eta:  # coordinate ascent on the priors keeps the bound monotone
                    alpha, eta = self._learned_priors(gamma, np.sum(elog_sum) / (K * V), V, alpha, eta,
                                                      learn_alpha, learn_eta)
                save(it, {"lam": lam, "gamma": gamma, "alpha": alpha, "eta": np.array(eta),
                          "history": np.asarray(history), "iteration": np.array(it)}, rng)
        if not stop.requested:
            self._warn_not_converged(it, converged)
        return {
            "components_": lam,
            "doc_topic_prior_": alpha,
            "topic_word_prior_": eta,
            "bound_history_": np.asarray(history),
            "n_iter_": it,
        }

    def _record(self, history, it, bound, started):
        """Append iteration ``it``'s bound to ``history`` and report it."""
        history.append(bound)
        self._report(it, bound, history[-2] if len(history) > 1 else None, started)

    def score(self, X, y=None):
        """Evidence lower bound of ``X`` under the fitted topics; higher is better.

        The documents' gamma are inferred with the topics fixed; the value is the sum of the
        per-document ELBO terms plus the topic term (as scikit-learn's ``score`` does), so it
        can be compared across models fitted on the same training data.
        """
        return super().score(X, y)
