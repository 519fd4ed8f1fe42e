"""BatchLDA's map on Dask: the local step on every partition where it lives, statistics tree-reduced.

:class:`DaskCorpusMap` offers what :func:`topicvb.models._vb_fit.batch_loop` needs of a map
(``step``, ``accept``), so a distributed BatchLDA fit runs the very loop of ``BatchLDA.fit``. Each
step broadcasts the topics once, runs :func:`._tasks.partition_step` on every partition (its new
gamma stays on the worker as a future) and sums the partitions' statistics with a tree reduction.

Restarts: "partition" streams draw partition p's restarts of E-step t from
``SeedSequence(entropy, spawn_key=(t, p))``; "global" streams hand the model's single RandomState
from partition to partition on the workers (a chain of tasks), so the draws are those of
``BatchLDA.fit``. Failures: a lost worker's partitions are re-read, and their gamma rebuilt by
replaying their E-steps with the topics of every past step (kept on the client in a temporary
folder when some partition can be re-read: :class:`TopicHistory`) and the same restarts; the
statistics are summed in groups fixed at the start (:func:`._partitions.reduction_groups`), not by
the worker that holds a partition now, so the fit ends exactly (bit for bit) as without the failure.
"""

from __future__ import annotations

import logging
import operator
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from ..models._vb import TopicArrays
from ._partitions import FAILURES, reduce_stats
from ._tasks import global_restart_block, partition_step

logger = logging.getLogger("topicvb.distributed")


class TopicHistory:
    """The topics (ebeta_t, log_scale) and priors alpha of every E-step, in a temporary folder on the
    client, for replaying lost partitions: max_iter x (n_components + 1) x n_features x 8 bytes (float64) on
    disk at most, e.g. 16 GB for 100 iterations of 200 topics over 100,000 terms.

    The folder is made at the first :meth:`put` and removed by :meth:`close`. With ``keep=False`` (no
    partition can be re-read, so none can be replayed) nothing is written, and :meth:`get` raises.
    """

    def __init__(self, keep: bool = True):
        self.keep, self.dir, self.alpha = keep, None, {}

    def put(self, t, topics, alpha):
        if not self.keep:
            return
        if self.dir is None:
            self.dir = Path(tempfile.mkdtemp(prefix="topicvb-distributed-"))
        np.save(self.dir / f"ebeta-{t}.npy", topics.ebeta_t)
        np.save(self.dir / f"scale-{t}.npy", topics.log_scale)
        self.alpha[t] = alpha

    def get(self, t):
        if t not in self.alpha:
            raise RuntimeError(
                f"The topics of E-step {t} were not kept: the fit's partitions are held in memory and cannot be "
                "re-read, so the state a failed worker held cannot be rebuilt; pass shard files (or a dask bag "
                "read from storage) to survive worker failures."
            )
        topics = TopicArrays(np.load(self.dir / f"ebeta-{t}.npy"), np.load(self.dir / f"scale-{t}.npy"), None, None)
        return topics, self.alpha[t]

    def close(self):
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        self.alpha = {}


class DaskCorpusMap:
    """The map of a distributed BatchLDA fit (see the module notes)."""

    reuse_topic_arrays = False  # the scattered arrays are kept for replays

    def __init__(self, model, client, parts, rng, *, random_streams, kernel_threads, retries, max_repairs,
                 hook=None):
        self.client, self.parts, self.hook = client, parts, hook
        self.random_streams, self.kernel_threads = random_streams, kernel_threads
        self.retries, self.max_repairs = retries, max_repairs
        self.K, self.dtype = model.n_components, np.dtype(model._float)
        self.restart_every, self.updates = int(model.restart_every), model._doc_updates()
        # (a replay needs the topics of every past E-step, and only partitions that can be re-read are replayed)
        self.history = TopicHistory(keep=any(parts.rereadable(p) for p in range(len(parts))))
        self.gamma = [None] * len(parts)
        self.pending = None
        self.states = {}  # "global" streams: E-step -> generator state at the start of each partition
        self.n_repairs, self.bytes_scattered, self.timings = 0, 0, []
        if random_streams == "partition":
            self.entropy = [int(x) for x in rng.randint(0, 2**32, size=4, dtype=np.uint64)]
        else:
            self.start_state = rng.get_state()

    def close(self):
        self.history.close()

    # -- the map's interface
    def step(self, t, topics, alpha, e_step=True, with_elog_theta=False):
        tick = time.perf_counter()
        if e_step:  # (a replay re-runs E-steps only)
            self.history.put(t, topics, alpha)
        self.pending, stats = self._pass(t, topics, alpha, e_step, with_elog_theta)
        self.timings.append(time.perf_counter() - tick)
        if e_step:
            self._settle_states()
        return stats

    def accept(self):
        self.gamma, self.pending = self.pending, None

    # -- restarts
    def _opts(self, host):
        return {"workers": [host], "allow_other_workers": True} if host else {}

    def _restarts(self, t, hosts):
        """Per partition: the restart argument of E-step t (a literal or a future)."""
        P = len(self.parts)
        if self.random_streams == "partition":
            return [("partition", self.entropy, t, p) for p in range(P)]
        client, out, state, starts = self.client, [], self.start_state, []
        for p in range(P):
            opts = self._opts(hosts[p])
            pair = client.submit(global_restart_block, state, self.parts.n_docs[p], self.K, self.dtype, pure=False,
                                 retries=self.retries, **opts)
            out.append(client.submit(operator.getitem, pair, 0, pure=False, **opts))
            starts.append(state)
            state = client.submit(operator.getitem, pair, 1, pure=False, **opts)
        self._pending_states = (t, starts, state)
        return out

    def _settle_states(self):
        """After a global-stream E-step: keep every partition's start state on the client (for replays)."""
        if self.random_streams != "global":
            return
        t, starts, last = self._pending_states
        self.states[t] = self.client.gather(starts)
        self.start_state = self.client.gather(last)
        self._pending_states = None

    def _rotation(self, p, t):
        """Which documents of partition p restart in E-step t: BatchLDA's rotation over corpus indices."""
        return (int(sum(self.parts.n_docs[:p])), self.restart_every, int(t))

    # -- one pass
    def _submit(self, t, topics_future, alpha, e_step, with_elog_theta):
        client, parts = self.client, self.parts
        hosts = parts.where()
        restarts = self._restarts(t, hosts) if e_step else [None] * len(parts)
        new_gamma, partials = [], []
        for p, X in enumerate(parts.futures):
            opts = self._opts(hosts[p])
            step = client.submit(partition_step, X, topics_future, self.gamma[p], restarts[p], alpha, self.updates,
                                 self.kernel_threads, e_step, with_elog_theta, self._rotation(p, t), pure=False,
                                 retries=self.retries, **opts)
            new_gamma.append(client.submit(operator.getitem, step, 0, pure=False, retries=self.retries, **opts)
                             if e_step else None)
            partials.append(client.submit(operator.getitem, step, 1, pure=False, retries=self.retries, **opts))
        return new_gamma, reduce_stats(client, partials, hosts, self.retries, parts.groups)

    def _pass(self, t, topics, alpha, e_step, with_elog_theta):
        """Run E-step t (or only the bound of the current gamma); returns (new gamma futures, LocalStats)."""
        for attempt in range(self.max_repairs + 1):
            topics_future = self.client.scatter([topics.local()], broadcast=True, hash=False)[0]
            new_gamma, total = self._submit(t, topics_future, alpha, e_step, with_elog_theta)
            if self.hook is not None:
                self.hook(t, self.client)
            try:
                stats = total.result()
                self.bytes_scattered = (topics.ebeta_t.nbytes + topics.log_scale.nbytes) * len(self.client.nthreads())
                return new_gamma, stats
            except FAILURES as exc:
                if attempt == self.max_repairs:
                    raise RuntimeError(f"The distributed fit failed {attempt + 1} times in iteration {t}; "
                                       f"last error: {exc!r}.") from exc
                logger.warning("iteration %d: %s; repairing lost partitions and retrying", t, repr(exc))
            del new_gamma, total
            self._repair(t)

    def _repair(self, t):
        """Rebuild lost partitions and replay the E-steps 1 .. t-1 of partitions whose gamma was lost."""
        self.n_repairs += 1
        time.sleep(0.5)  # let the scheduler finish marking what the failure took with it
        self.parts.repair()
        lost = [p for p, g in enumerate(self.gamma) if g is not None and g.status not in ("finished", "pending")]
        if not lost:
            return
        logger.warning("replaying E-steps 1..%d of partitions %s", t - 1, lost)
        client = self.client
        replay = {p: None for p in lost}
        for s in range(1, t):
            topics_s, alpha_s = self.history.get(s)
            topics = client.scatter([topics_s], broadcast=True, hash=False)[0]
            for p in lost:
                if self.random_streams == "partition":
                    restart = ("partition", self.entropy, s, p)
                else:
                    pair = client.submit(global_restart_block, self.states[s][p], self.parts.n_docs[p], self.K,
                                         self.dtype, pure=False, retries=self.retries)
                    restart = client.submit(operator.getitem, pair, 0, pure=False)
                step = client.submit(partition_step, self.parts.futures[p], topics, replay[p], restart, alpha_s,
                                     self.updates, self.kernel_threads, True, False, self._rotation(p, s), pure=False,
                                     retries=self.retries)
                replay[p] = client.submit(operator.getitem, step, 0, pure=False, retries=self.retries)
        for p in lost:
            self.gamma[p] = replay[p]
