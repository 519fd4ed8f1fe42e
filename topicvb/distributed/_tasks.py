"""What runs on the workers: the variational core's local step on a partition, restarts, transform.

Module-level functions, so they pickle by reference. Each is a thin wrapper over
:mod:`topicvb.models._vb`, the local step that ``BatchLDA`` and ``OnlineLDA`` run in one process.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from .._config import threads
from .._validation import csr_arrays
from ..models._start import initial_gamma, random_start, start_points
from .._completion import normalised_rows
from ..models._vb import (LocalStats, add_stats, bound_step, infer, local_step, make_block, online_local_step,
                          topic_arrays)


def restart_block(entropy, iteration: int, part: int, n_docs: int, n_topics: int, dtype) -> np.ndarray:
    """Random restarts (:func:`random_start`) of partition ``part`` in E-step ``iteration`` ("partition" streams)."""
    seq = np.random.SeedSequence(entropy=entropy, spawn_key=(int(iteration), int(part)))
    return random_start(np.random.default_rng(seq), (n_docs, n_topics), dtype)


def global_restart_block(state, n_docs: int, n_topics: int, dtype):
    """The next ``n_docs`` rows of BatchLDA's single restart stream, and the generator state after them."""
    rng = np.random.RandomState()
    rng.set_state(state)
    block = random_start(rng, (n_docs, n_topics), dtype)
    return block, rng.get_state()


def _restarts(restart, n_docs, n_topics, dtype):
    """An ndarray of restarts as given, or the block of a ("partition", entropy, t, part) stream."""
    if isinstance(restart, tuple):
        _, entropy, t, part = restart
        return restart_block(entropy, t, part, n_docs, n_topics, dtype)
    return np.array(restart, dtype=dtype)


def partition_step(X, topics, gamma_prev, restart, alpha, updates, kernel_threads, e_step_wanted, with_elog_theta,
                   rotation=(0, 1, 1)):
    """BatchLDA's local step (:func:`topicvb.models._vb.local_step`) on one partition, on its worker.

    topics : the TopicArrays of the current topics; gamma_prev : the partition's gamma from the previous
    E-step, or None in the first; restart : an ndarray of restarts or the tuple ("partition", entropy,
    iteration, part) of a partition stream; rotation : (offset of the partition's first document in the
    corpus, restart_every, iteration), which documents restart (:func:`topicvb.models._start.start_points`);
    updates : the DocUpdates of the model. With ``e_step_wanted`` False only the bound of gamma_prev.

    Returns (new gamma or None, LocalStats with the document bound of gamma_prev, 0 without it).
    """
    block = make_block(X, with_index=False)
    n_topics, dtype = alpha.shape[0], topics.ebeta_t.dtype
    with threads(kernel_threads):
        if not e_step_wanted:
            if gamma_prev is None:
                return None, LocalStats(None, 0.0, None, block.n_docs)
            return None, bound_step(block, topics, alpha, gamma_prev)
        previous = np.zeros((0, n_topics), dtype=dtype) if gamma_prev is None else gamma_prev
        gamma_init = start_points(_restarts(restart, block.n_docs, n_topics, dtype), previous, *rotation)
        return local_step(block, topics, alpha, gamma_init, previous, updates, with_elog_theta)


def online_step(X, order, start, stop, topics, restart, alpha, updates, kernel_threads, with_elog_theta):
    """A partition's share of one OnlineLDA mini-batch (:func:`topicvb.models._vb.online_local_step`).

    The rows are ``X[start:stop]``, or ``X[order[start:stop]]`` for a shuffled pass; restart as in
    :func:`partition_step`. Returns the LocalStats (gamma is not kept: every document restarts in
    every pass).
    """
    rows = X[start:stop] if order is None else X[order[start:stop]]
    gamma_init = _restarts(restart, rows.shape[0], alpha.shape[0], topics.ebeta_t.dtype)
    with threads(kernel_threads):
        _, stats = online_local_step(*csr_arrays(rows), topics, alpha, gamma_init, updates, with_elog_theta)
    return stats


def online_group_step(Xs, orders, slices, restarts, topics, alpha, updates, kernel_threads, with_elog_theta):
    """:func:`online_step` on several partitions held by one worker, summed (fewer tasks per mini-batch)."""
    total = None
    for X, order, (start, stop), restart in zip(Xs, orders, slices, restarts):
        stats = online_step(X, order, start, stop, topics, restart, alpha, updates, kernel_threads, with_elog_theta)
        total = stats if total is None else add_stats(total, stats)
    return total


def transform_partition(X, ebeta_t, alpha, updates, kernel_threads, out_dtype):
    """Document-topic proportions of one partition, as ``TopicModelBase.transform`` computes them."""
    gamma0 = initial_gamma(X, alpha, ebeta_t.dtype)
    with threads(kernel_threads):
        gamma = infer(*csr_arrays(X), ebeta_t, alpha, gamma0, updates)
    return normalised_rows(gamma, alpha.shape[0], out_dtype)


def shuffled_order(entropy, part: int, n_docs: int) -> np.ndarray:
    """The order in which OnlineLDA visits the documents of partition ``part`` in one pass (shuffle=True)."""
    seq = np.random.SeedSequence(entropy=entropy, spawn_key=(int(part),))
    return np.random.default_rng(seq).permutation(n_docs)


def warm_up(dtypes=("float64",)) -> float:
    """Compile (or load from numba's cache) the kernels a distributed fit uses; returns seconds."""
    from ..models._vb import DocUpdates

    started = time.perf_counter()
    X = sp.csr_matrix(np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]]))
    alpha = np.full(2, 0.5)
    for name in dtypes:
        lam = np.random.default_rng(0).gamma(100.0, 0.01, size=(2, 3)).astype(name)
        topics = topic_arrays(lam)
        Xd = X.astype(name)
        for updates in (DocUpdates(5, 1e-3, True), DocUpdates(5, 1e-3, False)):
            gamma, _ = partition_step(Xd, topics, None, ("partition", 0, 1, 0), alpha, updates, 1, True, False)
            partition_step(Xd, topics, gamma, np.ones((2, 2), dtype=name), alpha, updates, 1, True, True)
            partition_step(Xd, topics, gamma, None, alpha, updates, 1, False, False)
            online_step(Xd, np.array([1, 0]), 0, 2, topics, ("partition", 0, 1, 0), alpha, updates, 1, True)
            transform_partition(Xd, topics.ebeta_t, alpha, updates, 1, name)
    return time.perf_counter() - started
