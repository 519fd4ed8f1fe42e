"""OnlineLDA's map on Dask: every mini-batch takes rows from every partition, on the workers.

:class:`DaskMiniBatchMap` offers what :func:`topicvb.models._vb_fit.online_loop` needs of a map
(``batches``, ``step``, ``total``), so a distributed OnlineLDA fit runs the very loop of
``OnlineLDA.fit``: the stochastic step is made on the client after each mini-batch. The documents of
all partitions are interleaved evenly (:func:`interleaved_order`) and a mini-batch is the next
``batch_size`` documents in that order, a contiguous run of rows of every partition. gamma is never
kept: every document restarts in every pass (``OnlineLDA(restart_every=1)``). ``shuffle=True``
permutes each partition's rows on its worker at the start of every pass; documents never move
between workers. A worker that dies mid-batch loses nothing that cannot be recomputed (shards are
re-read, shuffles recomputed from their seeds, restarts are part of the tasks): Dask recomputes what
it can from the task graph, and where it cannot (the topics broadcast for the mini-batch were lost
on every worker: its tasks are cancelled) the client re-reads the lost partitions, re-draws the lost
shuffles and re-submits the mini-batch with the same restarts. Either way the statistics are summed
in groups fixed at the start (:func:`._partitions.reduction_groups`), so the fit ends exactly as
without the failure.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from ..models._start import random_start
from ._partitions import FAILURES, reduce_stats
from ._tasks import online_group_step, shuffled_order

logger = logging.getLogger("topicvb.distributed")


def interleaved_order(n_docs) -> np.ndarray:
    """The order in which a distributed OnlineLDA visits the documents in a pass with ``shuffle=False``.

    The documents of all partitions are interleaved evenly: document i of partition p (of n_p
    documents) sits at position (i + 0.5) / n_p of the pass, and documents are visited by position
    (ties in partition order). Mini-batches are runs of ``batch_size`` consecutive documents in this
    order, so every mini-batch takes from every partition in proportion to its size, and every
    worker works on every mini-batch. ``OnlineLDA(shuffle=False, ...).fit(X[interleaved_order(n_docs)])``
    on the stacked partitions ``X`` makes the same mini-batches as ``fit_distributed`` with
    ``random_streams="global"``, and so the same fit.

    Parameters
    ----------
    n_docs : sequence of int
        The number of documents of each partition, in partition order.

    Returns
    -------
    order : ndarray of shape (sum(n_docs),)
        Row indices into the stacked partitions, in visiting order.

    Raises
    ------
    ValueError
        If a count is negative or not an integer.

    Examples
    --------
    >>> interleaved_order([2, 1]).tolist()
    [0, 2, 1]
    """
    sizes = np.asarray(n_docs)
    if sizes.ndim != 1 or (sizes.size and (not np.issubdtype(sizes.dtype, np.integer) or sizes.min() < 0)):
        raise ValueError(f"n_docs must be a sequence of non-negative integers, got {n_docs!r}.")
    keys = np.concatenate([(np.arange(n, dtype=np.float64) + 0.5) / n for n in sizes.tolist() if n > 0] or
                          [np.zeros(0)])
    return np.argsort(keys, kind="stable")  # stable: equal positions stay in partition order


class DaskMiniBatchMap:
    """The map of a distributed OnlineLDA fit (see the module notes)."""

    reuse_topic_arrays = False  # the scattered arrays may still be referenced by the workers

    def __init__(self, model, client, parts, rng, total, *, random_streams, kernel_threads, retries, max_repairs,
                 hook=None):
        self.client, self.parts, self.rng, self.total, self.hook = client, parts, rng, total, hook
        self.random_streams, self.kernel_threads = random_streams, kernel_threads
        self.retries, self.max_repairs = retries, max_repairs
        self.K, self.dtype = model.n_components, np.dtype(model._float)
        self.batch_size, self.shuffle, self.updates = int(model.batch_size), bool(model.shuffle), model._doc_updates()
        self.n_docs = int(sum(parts.n_docs))
        offsets = np.cumsum([0] + list(parts.n_docs))
        order = interleaved_order(parts.n_docs)
        # the partition of every document in visiting order (each partition's documents keep their order)
        self.rank_part = np.searchsorted(offsets[1:], order, side="right").astype(np.min_scalar_type(len(parts)))
        self.n_repairs, self.bytes_scattered = 0, 0
        self.orders = [None] * len(parts)
        # tasks per reduction group and mini-batch, fixed for the fit (the worker threads of the
        # group's first host now), so a mini-batch's sums are made in the same order after a repair
        threads, start_hosts = client.nthreads(), parts.where()
        self.group_tasks = {}
        for p, g in enumerate(parts.groups):
            self.group_tasks.setdefault(g, max(1, int(threads.get(start_hosts[p], 1))))
        if random_streams == "partition":
            self.entropy = [int(x) for x in rng.randint(0, 2**32, size=4, dtype=np.uint64)]

    def close(self):
        pass

    # -- the map's interface
    def batches(self, pass_no):
        """The mini-batches of pass ``pass_no``: (ids, counts per partition, row slices per partition, hosts)."""
        hosts = self.parts.where()
        self.worker_threads = self.client.nthreads()
        self._shuffle(pass_no, hosts)
        P = len(self.parts)
        cursor = np.zeros(P, dtype=np.int64)
        for lo in range(0, self.n_docs, self.batch_size):
            ids = self.rank_part[lo:lo + self.batch_size]
            counts = np.bincount(ids, minlength=P)
            slices = {int(p): (int(cursor[p]), int(cursor[p] + counts[p])) for p in np.flatnonzero(counts)}
            cursor += counts
            yield ids, counts, slices, hosts

    def step(self, batch, t, topics, alpha, with_elog_theta=False):
        ids, counts, slices, hosts = batch
        restarts = self._restarts(t, ids, counts)
        return self._batch(t, slices, restarts, topics, alpha, hosts, with_elog_theta)

    # -- shuffles and restarts
    def _shuffle(self, it, hosts):
        """With ``shuffle=True``, set ``self.orders`` to futures of the partitions' row orders in pass ``it``."""
        if not self.shuffle:
            return
        if self.random_streams == "partition":
            self.shuffle_entropy = list(self.entropy) + [1, int(it)]
        else:  # drawn at the start of the pass, where OnlineLDA.fit draws its permutation
            self.shuffle_entropy = [int(x) for x in self.rng.randint(0, 2**32, size=4, dtype=np.uint64)]
        self.orders = [self._order_future(p, hosts[p]) for p in range(len(self.parts))]

    def _order_future(self, p, host=None):
        opts = {"workers": [host], "allow_other_workers": True} if host else {}
        return self.client.submit(shuffled_order, self.shuffle_entropy, p, self.parts.n_docs[p], pure=False,
                                  retries=self.retries, **opts)

    def _restarts(self, t, ids, counts):
        """Per partition with rows in mini-batch ``t``: the restart argument of its E-step task."""
        parts_in = np.flatnonzero(counts)
        if self.random_streams == "partition":
            return {p: ("partition", self.entropy, t, int(p)) for p in parts_in}
        # OnlineLDA's draw for the whole batch, rows in visiting order; each partition gets its rows
        gamma0 = random_start(self.rng, (ids.shape[0], self.K), self.dtype)
        gamma0 = gamma0[np.argsort(ids, kind="stable")]
        ends = np.cumsum(counts)
        return {p: gamma0[ends[p] - counts[p]:ends[p]] for p in parts_in}

    def _batch(self, t, slices, restarts, topics, alpha, hosts, with_elog_theta):
        """Run the local steps of mini-batch t on the workers; returns the reduced LocalStats."""
        client = self.client
        for attempt in range(self.max_repairs + 1):
            topics_future = client.scatter([topics.local()], broadcast=True, hash=False)[0]
            # one task per worker thread at most: the partitions of a reduction group (those of one
            # worker at the start) are dealt out to as many tasks as that worker has threads, so the
            # scheduling cost of a mini-batch does not grow with the partitions; tasks and sums follow
            # the groups, not the workers of now, so a repaired mini-batch adds in the same order
            by_group = {}
            for p in slices:
                by_group.setdefault(self.parts.groups[p], []).append(p)
            partials, where, keys = [], [], []
            for g, ps in by_group.items():
                n_tasks = min(len(ps), self.group_tasks[g])
                for j in range(n_tasks):
                    group = ps[j::n_tasks]
                    host = hosts[group[0]]
                    opts = {"workers": [host], "allow_other_workers": True} if host else {}
                    partials.append(client.submit(
                        online_group_step, [self.parts.futures[p] for p in group], [self.orders[p] for p in group],
                        [slices[p] for p in group], [restarts[p] for p in group], topics_future, alpha,
                        self.updates, self.kernel_threads, with_elog_theta, pure=False, retries=self.retries, **opts))
                    where.append(host)
                    keys.append(g)
            total = reduce_stats(client, partials, where, self.retries, keys)
            if self.hook is not None:
                self.hook(t, client)
            try:
                stats = total.result()
                self.bytes_scattered += (topics.ebeta_t.nbytes + topics.log_scale.nbytes) * len(self.worker_threads)
                return stats
            except FAILURES as exc:
                if attempt == self.max_repairs:
                    raise RuntimeError(f"The distributed fit failed {attempt + 1} times in mini-batch {t}; "
                                       f"last error: {exc!r}.") from exc
                logger.warning("mini-batch %d: %s; re-reading lost partitions and retrying", t, repr(exc))
            del partials, total
            self.n_repairs += 1
            time.sleep(0.5)  # let the scheduler finish marking what the failure took with it
            reread = self.parts.repair()
            redrawn = []
            for p, f in enumerate(self.orders):
                if f is not None and f.status not in ("finished", "pending"):
                    self.orders[p] = self._order_future(p)
                    redrawn.append(p)
            hosts[:] = self.parts.where()
            self.worker_threads = client.nthreads()
            # the replay: the same mini-batch (same rows, same restarts) with the topics broadcast again
            logger.warning("re-submitting mini-batch %d (repair %d): partitions %s re-read, shuffles of %s "
                           "re-drawn", t, attempt + 1, reread, redrawn)
