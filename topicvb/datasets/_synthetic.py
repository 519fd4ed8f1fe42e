"""Synthetic corpora drawn from the LDA generative model, with the true parameters for recovery tests."""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .._validation import MAX_INT, check_int, check_positive_prior
from ._bow import placeholder_vocabulary
from ._corpus import Corpus

# Documents are generated in blocks of at most this many tokens, to bound temporary memory.
_BLOCK_TOKENS = 1 << 22
# The longest document (or mean length) drawn: longer ones would not fit in memory anyway.
_MAX_DOC_LENGTH = MAX_INT


class SyntheticCorpus(NamedTuple):
    """A corpus drawn from LDA together with the parameters that generated it.

    Unpacks as a tuple: ``corpus, topic_word, doc_topic = make_lda_corpus(...)``.

    Attributes
    ----------
    corpus : Corpus
        The drawn counts, vocabulary ``w0000``, ``w0001``, ...
    topic_word : ndarray of shape (n_topics, n_terms)
        The true topic-word distributions (beta in the literature); rows sum to 1.
    doc_topic : ndarray of shape (n_docs, n_topics)
        The true document-topic proportions (theta in the literature); rows sum to 1.
    """

    corpus: Corpus
    topic_word: np.ndarray
    doc_topic: np.ndarray


def _generator(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and random_state < 0:
        raise ValueError(f"random_state must be a non-negative int (a seed), got {random_state!r}.")
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    raise TypeError(
        f"random_state must be None, an int, a numpy Generator or RandomState, got {type(random_state).__name__}."
    )


def _doc_lengths(doc_length, n_docs: int, rng: np.random.Generator) -> np.ndarray:
    if isinstance(doc_length, numbers.Real) and not isinstance(doc_length, bool):
        if not np.isfinite(doc_length) or not 0 <= doc_length <= _MAX_DOC_LENGTH:
            raise ValueError(
                f"doc_length must be a non-negative mean length (at most {_MAX_DOC_LENGTH}) or a (low, high) pair, "
                f"got {doc_length!r}."
            )
        return rng.poisson(float(doc_length), size=n_docs).astype(np.int64)
    try:
        low, high = doc_length
    except (TypeError, ValueError):
        raise TypeError(
            f"doc_length must be a number (mean length) or a (low, high) pair, got {doc_length!r}."
        ) from None
    if (
        not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in (low, high))
        or not 0 <= low <= high <= _MAX_DOC_LENGTH
    ):
        raise ValueError(
            f"doc_length as a range must be integers up to {_MAX_DOC_LENGTH} with 0 <= low <= high, got {doc_length!r}."
        )
    return rng.integers(int(low), int(high) + 1, size=n_docs, dtype=np.int64)


def _topic_word(n_topics, n_terms, eta, separated, rng) -> np.ndarray:
    eta_vec = np.broadcast_to(np.asarray(eta, dtype=np.float64), (n_terms,))
    background = rng.dirichlet(eta_vec, size=n_topics)
    if not separated:
        return background
    share = 0.9 if separated is True else float(separated)
    block = n_terms // n_topics
    topic_word = (1.0 - share) * background
    for k in range(n_topics):
        cols = slice(k * block, (k + 1) * block)
        topic_word[k, cols] += share * rng.dirichlet(eta_vec[cols])
    return topic_word


def _doc_topic(alpha, n_docs: int, n_topics: int, rng) -> np.ndarray:
    """Document-topic proportions drawn from Dirichlet(alpha), rows renormalised to sum to 1."""
    alpha_vec = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_topics,))
    doc_topic = rng.dirichlet(alpha_vec, size=n_docs)
    doc_topic /= doc_topic.sum(axis=1, keepdims=True)
    return doc_topic


def _check_sizes_and_priors(n_docs, n_terms, n_topics, doc_topic_prior, topic_word_prior):
    """Check the three sizes and return the priors ``(alpha, eta)``, each a float or a vector."""
    check_int(n_docs, "n_docs", min_val=1)
    check_int(n_terms, "n_terms", min_val=1)
    check_int(n_topics, "n_topics", min_val=1)
    alpha = check_positive_prior(doc_topic_prior, "doc_topic_prior", allow_none=False, length=n_topics)
    eta = check_positive_prior(topic_word_prior, "topic_word_prior", allow_none=False, length=n_terms)
    return alpha, eta


def _check_separated(separated, n_terms: int, n_topics: int):
    """``separated`` as a bool or a float in (0, 1] (numpy bools and numbers as Python ones)."""
    if isinstance(separated, (bool, np.bool_)):
        separated = bool(separated)
    elif isinstance(separated, numbers.Real):
        separated = float(separated)
        if not 0 < separated <= 1:
            raise ValueError(f"separated must be a bool or a fraction in (0, 1], got {separated!r}.")
    else:
        raise TypeError(f"separated must be a bool or a fraction in (0, 1], got {type(separated).__name__} "
                        f"{separated!r}.")
    if separated is not False:
        if n_terms < n_topics:
            raise ValueError(
                f"separated topics need at least one term per topic; got n_terms={n_terms} < n_topics={n_topics}."
            )
    return separated


def _draw_counts(lengths, doc_topic, topic_word, rng) -> sp.csr_matrix:
    """The int64 count matrix of all documents, drawn block by block to bound temporary memory."""
    n_docs, n_terms = lengths.size, topic_word.shape[1]
    cdf = np.cumsum(topic_word, axis=1)
    cdf[:, -1] = 1.0
    blocks = []
    start = 0
    while start < n_docs:
        # Deterministic blocks of documents holding about _BLOCK_TOKENS tokens each.
        stop = int(np.searchsorted(np.cumsum(lengths[start:]), _BLOCK_TOKENS, side="right")) + start
        stop = min(max(stop, start + 1), n_docs)
        blocks.append(_draw_block(lengths[start:stop], doc_topic[start:stop], cdf, n_terms, rng))
        start = stop
    X = sp.vstack(blocks, format="csr") if len(blocks) > 1 else blocks[0]
    return sp.csr_matrix((X.data.astype(np.int64), X.indices.astype(np.int32), X.indptr), shape=(n_docs, n_terms))


def _description(alpha, n_topics: int, doc_length, separated) -> str:
    prior_desc = "asymmetric" if np.ndim(alpha) else f"{alpha:g}"
    return (
        f"Drawn from LDA: {n_topics} topics, doc_topic_prior={prior_desc}, "
        f"doc_length={doc_length!r}, separated={separated!r}."
    )


def make_lda_corpus(
    n_docs: int,
    n_terms: int,
    n_topics: int,
    *,
    doc_topic_prior=0.1,
    topic_word_prior=0.01,
    doc_length=100,
    random_state=None,
    separated=False,
) -> SyntheticCorpus:
    """Draw a corpus from the LDA generative model and return it with the true parameters.

    For each topic ``k``, a distribution over terms ``beta_k ~ Dirichlet(topic_word_prior)``;
    for each document ``d``, a length ``N_d``, proportions ``theta_d ~ Dirichlet(doc_topic_prior)``,
    and for each of its ``N_d`` tokens a topic ``z ~ theta_d`` and a term ``w ~ beta_z``. The
    sampling is vectorised (per-document topic counts, then all tokens of a topic at once), so
    large corpora are drawn without a Python loop over tokens.

    Parameters
    ----------
    n_docs : int
        Number of documents.
    n_terms : int
        Size of the vocabulary.
    n_topics : int
        Number of topics.
    doc_topic_prior : float or array-like of shape (n_topics,), default=0.1
        Dirichlet prior on document-topic proportions (alpha in the literature); a vector gives
        an asymmetric prior.
    topic_word_prior : float or array-like of shape (n_terms,), default=0.01
        Dirichlet prior on topic-word distributions (eta in the literature).
    doc_length : float or tuple of (int, int), default=100
        The mean of a Poisson distribution of document lengths, or an inclusive ``(low, high)``
        range of uniformly drawn lengths, at most 2**31 - 1. A Poisson length can be 0, giving an
        empty document.
    random_state : int, numpy.random.Generator, numpy.random.RandomState or None, default=None
        Seed (a non-negative int) or generator; equal seeds give equal corpora.
    separated : bool or float, default=False
        When True, topic ``k`` puts 90% of its mass (or this fraction, when a float in (0, 1]) on
        its own block of ``n_terms // n_topics`` consecutive terms, so topics are easy to tell
        apart and recovery can be tested. Requires ``n_terms >= n_topics``.

    Returns
    -------
    result : SyntheticCorpus
        A named tuple ``(corpus, topic_word, doc_topic)``: the Corpus with int64 counts, the
        true topic-word matrix of shape (n_topics, n_terms) and the true document-topic
        proportions of shape (n_docs, n_topics); rows of both sum to 1.

    Raises
    ------
    ValueError
        If a size is not positive, a prior is not positive, ``doc_length`` is invalid,
        ``random_state`` is a negative int, or ``separated`` is out of range.

    Examples
    --------
    >>> from topicvb.datasets import make_lda_corpus
    >>> corpus, topic_word, doc_topic = make_lda_corpus(500, 200, 5, separated=True, random_state=0)
    >>> corpus.X.shape, topic_word.shape, doc_topic.shape
    ((500, 200), (5, 200), (500, 5))
    """
    alpha, eta = _check_sizes_and_priors(n_docs, n_terms, n_topics, doc_topic_prior, topic_word_prior)
    separated = _check_separated(separated, n_terms, n_topics)
    rng = _generator(random_state)

    topic_word = _topic_word(n_topics, n_terms, eta, separated, rng)
    topic_word /= topic_word.sum(axis=1, keepdims=True)
    doc_topic = _doc_topic(alpha, n_docs, n_topics, rng)
    lengths = _doc_lengths(doc_length, n_docs, rng)
    X = _draw_counts(lengths, doc_topic, topic_word, rng)
    description = _description(alpha, n_topics, doc_length, separated)
    corpus = Corpus(X=X, vocabulary=placeholder_vocabulary(n_terms), name="lda-synthetic", description=description)
    return SyntheticCorpus(corpus, topic_word, doc_topic)


def _draw_block(lengths, theta, cdf, n_terms, rng) -> sp.csr_matrix:
    """Counts for one block of documents: topic counts per document, then every token's term."""
    n_docs, n_topics = theta.shape
    n_dk = rng.multinomial(lengths, theta)  # (n_docs, n_topics)
    doc_idx = np.arange(n_docs, dtype=np.int32)
    rows, cols = [], []
    for k in range(n_topics):
        per_doc = n_dk[:, k]
        total = int(per_doc.sum())
        if total == 0:
            continue
        rows.append(np.repeat(doc_idx, per_doc))
        terms = np.searchsorted(cdf[k], rng.random(total), side="right")
        cols.append(np.minimum(terms, n_terms - 1).astype(np.int32))
    if not rows:
        return sp.csr_matrix((n_docs, n_terms), dtype=np.int64)
    rows_a, cols_a = np.concatenate(rows), np.concatenate(cols)
    ones = np.ones(rows_a.size, dtype=np.int64)
    X = sp.coo_matrix((ones, (rows_a, cols_a)), shape=(n_docs, n_terms)).tocsr()
    X.sum_duplicates()
    return X
