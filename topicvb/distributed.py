"""Fit and apply BatchLDA and OnlineLDA on a Dask cluster, with the corpus in partitions on the workers.

The corpus never passes through the client: every partition (a shard file that a worker reads
itself, an in-memory CSR matrix scattered once, or a partition of a dask bag) lives on a worker
for the whole fit. Each BatchLDA iteration

1. broadcasts exp(E[log beta]) (``ebeta_t``, V x K) and its per-term log scale to every worker
   once (``client.scatter(..., broadcast=True)``);
2. runs the unchanged numba E-step (:func:`topicvb._kernels.estep.e_step`) on every partition,
   on the worker holding it; the new document-topic parameters gamma stay there (the client keeps
   one future per partition and never gathers them); the same task also computes the document
   terms of the previous iteration's ELBO (which need that iteration's M-step, see below);
3. sums the topic-term sufficient statistics and the ELBO terms with a tree reduction: pairwise
   sums of the partitions of each worker on that worker, then pairwise sums across workers, so
   only one V x K array reaches the client;
4. runs the M-step (and the optional prior updates) on the client, exactly as ``BatchLDA`` does.

The ELBO of iteration t needs gamma_t and the topics lam_t of the M-step after it; rather than
make a second pass over the data, the E-step task of iteration t + 1 (which receives lam_t's
expectations anyway) computes it first. The bound of the last iteration therefore arrives one
E-step late: when iteration t has converged, the E-step t + 1 that came with its bound is
discarded, and at ``max_iter`` one bound-only pass is made.

Random restarts. ``BatchLDA`` restarts every document in every E-step from
``rng.gamma(100, 0.01, size=(n_docs, K))`` drawn from one RandomState. Two ways to do that here:

* ``random_streams="partition"`` (default): partition ``p`` in E-step ``t`` draws its restarts from
  its own stream, ``SeedSequence(entropy, spawn_key=(t, p))``, where ``entropy`` is drawn from the
  model's ``random_state`` after the initial topics. Nothing is sequential and no D x K array
  moves. The result is a deterministic function of the seed and the partitioning (not of the
  number of workers or the scheduling), but it is not the single-machine result;
  :func:`_restart_block` is the stream, and the tests check a distributed fit against a
  single-process loop that uses it.
* ``random_streams="global"``: the partitions' restarts are consecutive pieces of the single
  RandomState stream that ``BatchLDA.fit`` uses, so the fit equals ``BatchLDA(...).fit(X)`` (to
  floating-point rounding of the sums) for the same ``random_state`` and the partitions stacked in
  order. The draws are made on the workers in a chain: partition p's task draws its block and
  hands the generator state (about 2.5 kB) to partition p + 1's task. The chain is sequential (it
  costs about as much as drawing D x K gamma variates on one core per iteration) but it runs ahead
  of the E-steps, and no D x K array passes through the network.

Failures. Tasks run with ``retries``; a worker that dies is replaced by the scheduler's usual
rescheduling. Shards read from files are re-read by another worker, and the broadcast topics are
re-sent by the client. A partition's gamma is the only state that cannot be re-read: when a worker
dies with some gamma in its memory, the runner rebuilds them by replaying those partitions' E-steps
from the first iteration, with the topics of every past iteration (kept by the client in a
temporary folder, one V x K array per iteration) and the same restarts, so the fit ends with the
same result as without the failure. The replay costs (iteration number) E-steps of the lost
partitions. In-memory partitions (scattered CSR matrices) are not re-readable: losing one stops
the fit with a message; use shard files for fault tolerance.

OnlineLDA. Stochastic variational inference is sequential over mini-batches (batch t + 1 needs
the topics after batch t), so the parallelism has to come from inside each mini-batch: the
documents of all partitions are interleaved evenly (:func:`interleaved_order`) and a mini-batch is
the next ``batch_size`` documents in that order, so it takes a contiguous run of rows from every
partition, in proportion to the partition's size. For each mini-batch the client broadcasts the
topics once, every worker runs the E-step of its partitions' rows in one task per worker thread
and sums their statistics (and the batch's document ELBO terms), the sums are tree-reduced, and the
client makes the stochastic step with :meth:`OnlineLDA._svi_step`, the method ``OnlineLDA.fit``
itself calls (lam <- (1 - rho_t) lam + rho_t (eta + D / |B| sstats), rho_t = (tau0 + t) ** -kappa,
and the online prior updates). gamma is never kept: every document restarts in every pass, as
``OnlineLDA(restart_every=1)`` does (the rotating restarts' per-document gamma would have to live
on the workers; not implemented). ``bound_history_`` (one estimate per
mini-batch), ``n_iter_`` (passes), ``n_batch_iter_``, ``n_docs_seen_`` and ``random_state_``
are set as ``fit`` sets them, and convergence is tested on the mean bound of each pass as there.
Restarts: with "global" streams the client draws every mini-batch's restarts from the model's
random stream, exactly as ``OnlineLDA.fit`` does, and sends each worker its rows (|B| x K numbers
per mini-batch); with "partition" streams partition p draws its rows of mini-batch t from
``SeedSequence(entropy, spawn_key=(t, p))`` on the worker. ``shuffle=True`` permutes each
partition's rows on its worker at the start of every pass (a permutation seeded from the model's
stream); documents never move between workers, so there is no global shuffle. With "global"
streams and ``shuffle=False`` the fit equals
``OnlineLDA(..., restart_every=1).fit(X[interleaved_order(sizes)])`` to floating-point rounding.
Every mini-batch costs a broadcast of K x V numbers and a round trip (about 50 ms on a LocalCluster),
so use mini-batches of thousands of documents per worker. A worker that dies mid-batch loses
nothing that cannot be recomputed (shards are re-read, the shuffles recomputed from their seeds,
the restarts are part of the tasks), so Dask reruns the lost tasks elsewhere, and the runner
re-reads lost partitions and resubmits the mini-batch if a task failed for good.

Compilation. The numba kernels are compiled (or loaded from numba's on-disk cache) once per
worker process, not per task: :func:`warm_up_workers` runs a tiny E-step and bound on every worker
and is called at the start of every distributed fit. With workers on several machines, point
``NUMBA_CACHE_DIR`` at a folder every worker can write (a shared file system, or a local folder
per machine) so that only the first worker on a machine compiles.
"""

from __future__ import annotations

import logging
import numbers
import operator
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.special import digamma
from sklearn.utils import check_random_state, check_scalar
from sklearn.utils.validation import check_is_fitted

try:
    import dask
    import dask.array as da
    from distributed import Client, Future, LocalCluster, default_client
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError
    from dask.delayed import Delayed
    from distributed.scheduler import KilledWorker
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "topicvb.distributed needs dask and distributed; install them with pip install 'topicvb[dask]'."
    ) from exc

from ._config import threads
from ._kernels.bounds import lda_doc_bound, topic_terms
from ._kernels.estep import e_step
from ._validation import check_choice, csr_arrays
from .models._priors import learn_flags
from .models.batch_lda import (BatchLDA, _expectations, _initial_gamma, _seeded_topics, _start_points, _topic_bound,
                                random_start)
from .models.online_lda import OnlineLDA

__all__ = ["fit_distributed", "transform_distributed", "warm_up_workers", "load_shard", "interleaved_order"]

logger = logging.getLogger(__name__)

_FAILURES = (FutureCancelledError, KilledWorker, CommClosedError)


# ---------------------------------------------------------------------------------------------
# functions that run on the workers (module level, so they pickle by reference)
# ---------------------------------------------------------------------------------------------
def load_shard(source, dtype="float64") -> sp.csr_matrix:
    """Read one partition of a corpus: a ``.npz`` file of :func:`scipy.sparse.save_npz`, a UCI
    docword file (``.txt`` or ``.gz``, read with :func:`topicvb.datasets.read_uci`), or a matrix.

    Returns canonical CSR (summed duplicates, sorted indices) of the given float dtype. Values are
    not checked here (see :func:`_shard_info`).
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.suffix == ".npz":
            X = sp.load_npz(path)
        else:
            from .datasets import read_uci

            X = read_uci(path).X
    elif isinstance(source, (list, tuple)):  # a partition of a dask bag: a list of rows or matrices
        X = sp.vstack([sp.csr_matrix(x) for x in source], format="csr") if len(source) else None
        if X is None:
            raise ValueError("A dask bag partition is empty; repartition the bag so every partition has rows.")
    else:
        X = source
    X = sp.csr_matrix(X, dtype=dtype)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def _shard_info(X) -> dict:
    """Shape and value checks of a partition, returned (not raised) so the client can report them."""
    data = X.data
    return {
        "n_docs": int(X.shape[0]),
        "n_terms": int(X.shape[1]),
        "n_negative": int(np.count_nonzero(data < 0)),
        "n_nonfinite": int(np.count_nonzero(~np.isfinite(data))),
        "n_tokens": float(data[np.isfinite(data)].sum()),
    }


def _topic_arrays(lam):
    """New arrays with the topics' rescaled exp(E[log beta]) and log scale (they are scattered to the
    workers and kept for replays, so never overwritten), and ``topic_terms``'s ELBO pieces."""
    n_topics, n_terms = lam.shape
    ebeta_t = np.empty((n_terms, n_topics), dtype=lam.dtype)
    log_scale = np.empty(n_terms, dtype=np.float64)
    elog_sum, rest = topic_terms(lam, ebeta_t, log_scale)
    return ebeta_t, log_scale, elog_sum, rest


def _restart_block(entropy, iteration: int, part: int, n_docs: int, n_topics: int, dtype) -> np.ndarray:
    """Random restarts (:func:`random_start`) of partition ``part`` in E-step ``iteration`` ("partition" streams)."""
    seq = np.random.SeedSequence(entropy=entropy, spawn_key=(int(iteration), int(part)))
    return random_start(np.random.default_rng(seq), (n_docs, n_topics), dtype)


def _global_restart_block(state, n_docs: int, n_topics: int, dtype):
    """The next ``n_docs`` rows of BatchLDA's single restart stream, and the generator state after them."""
    rng = np.random.RandomState()
    rng.set_state(state)
    block = random_start(rng, (n_docs, n_topics), dtype)
    return block, rng.get_state()


def _partition_step(X, topics, gamma_prev, restart, alpha, doc_updates,
                    kernel_threads, e_step_wanted, with_elog_theta, rotation=(0, 1, 1)):
    """One partition's work in one iteration, on the worker that holds it.

    topics : (ebeta_t, log_scale) of the current topics; gamma_prev : the partition's gamma from the
    previous E-step, or None in the first; restart : an ndarray of restarts, or the tuple
    ("partition", entropy, iteration, part) of a partition stream; rotation : (offset of the
    partition's first document in the corpus, restart_every, iteration), which documents restart
    (:func:`topicvb.models.batch_lda._start_points`); doc_updates : (max_doc_update_iter,
    mean_change_tol, accelerate) of the E-step (:func:`_doc_updates`).

    Returns (gamma, partial) where partial = (sstats_t or None, document ELBO terms of gamma_prev
    under the current topics (0.0 without gamma_prev), sum over documents of E[log theta] or None).
    """
    ebeta_t, log_scale = topics
    indptr, indices, data = csr_arrays(X)
    n_docs, n_topics = X.shape[0], alpha.shape[0]
    dtype = ebeta_t.dtype
    prev_bound = 0.0
    with threads(kernel_threads):
        if gamma_prev is not None:
            prev_bound = float(np.sum(lda_doc_bound(indptr, indices, data, gamma_prev, alpha, ebeta_t, log_scale)))
        if not e_step_wanted:
            return None, (None, prev_bound, None)
        if isinstance(restart, tuple):
            _, entropy, iteration, part = restart
            gamma_init = _restart_block(entropy, iteration, part, n_docs, n_topics, dtype)
        else:
            gamma_init = np.asarray(restart, dtype=dtype)
        previous = np.zeros((0, n_topics), dtype=dtype) if gamma_prev is None else gamma_prev
        gamma_init = _start_points(np.array(gamma_init, dtype=dtype), previous, *rotation)
        gamma, sstats_t, _ = e_step(indptr, indices, data, ebeta_t, alpha, gamma_init, previous, doc_updates[0],
                                    doc_updates[1], True, doc_updates[2])
    elog_theta = None
    if with_elog_theta:
        g = np.asarray(gamma, dtype=np.float64)
        elog_theta = (digamma(g) - digamma(g.sum(axis=1, keepdims=True))).sum(axis=0)
    return gamma, (sstats_t, prev_bound, elog_theta)


def _doc_updates(model) -> tuple:
    """(max_doc_update_iter, mean_change_tol, accelerate) of a fitted or configured BatchLDA / OnlineLDA."""
    return int(model.max_doc_update_iter), float(model.mean_change_tol), model._accelerate


def _add_partials(a, b):
    """Sum two partials elementwise (None stays None)."""
    return tuple(x if y is None else y if x is None else x + y for x, y in zip(a, b))


def _shuffled_order(entropy, part: int, n_docs: int) -> np.ndarray:
    """The order in which OnlineLDA visits the documents of partition ``part`` in one pass (shuffle=True)."""
    seq = np.random.SeedSequence(entropy=entropy, spawn_key=(int(part),))
    return np.random.default_rng(seq).permutation(n_docs)


def _online_step(X, order, start, stop, topics, restart, alpha, doc_updates, kernel_threads, with_elog_theta):
    """A partition's share of one OnlineLDA mini-batch, on the worker that holds the partition.

    The rows are ``X[start:stop]``, or ``X[order[start:stop]]`` for a shuffled pass; topics is
    (ebeta_t, log_scale) of the current topics; restart an ndarray of restarts or the tuple
    ("partition", entropy, t, part) of a partition stream. Returns the partial (sstats_t, document
    ELBO terms of the new gamma under the same topics, sum over the rows of E[log theta] or None);
    gamma itself is not kept (OnlineLDA never reuses it).
    """
    ebeta_t, log_scale = topics
    rows = X[start:stop] if order is None else X[order[start:stop]]
    indptr, indices, data = csr_arrays(rows)
    n_docs, n_topics, dtype = rows.shape[0], alpha.shape[0], ebeta_t.dtype
    if isinstance(restart, tuple):
        _, entropy, t, part = restart
        gamma_init = _restart_block(entropy, t, part, n_docs, n_topics, dtype)
    else:
        gamma_init = np.asarray(restart, dtype=dtype)
    with threads(kernel_threads):
        gamma, sstats_t, _ = e_step(indptr, indices, data, ebeta_t, alpha, gamma_init, gamma_init[:0], doc_updates[0],
                                    doc_updates[1], True, doc_updates[2])
        doc_bound = float(np.sum(lda_doc_bound(indptr, indices, data, gamma, alpha, ebeta_t, log_scale)))
    elog_theta = None
    if with_elog_theta:
        g = np.asarray(gamma, dtype=np.float64)
        elog_theta = (digamma(g) - digamma(g.sum(axis=1, keepdims=True))).sum(axis=0)
    return sstats_t, doc_bound, elog_theta


def _online_group_step(Xs, orders, slices, restarts, topics, alpha, doc_updates, kernel_threads, with_elog_theta):
    """:func:`_online_step` on several partitions held by one worker, summed (fewer tasks per mini-batch)."""
    total = None
    for X, order, (start, stop), restart in zip(Xs, orders, slices, restarts):
        partial = _online_step(X, order, start, stop, topics, restart, alpha, doc_updates, kernel_threads,
                               with_elog_theta)
        total = partial if total is None else _add_partials(total, partial)
    return total


def _transform_partition(X, ebeta_t, alpha, doc_updates, kernel_threads, out_dtype):
    """Document-topic proportions of one partition, as ``TopicModelBase.transform`` computes them."""
    indptr, indices, data = csr_arrays(X)
    gamma0 = _initial_gamma(X, alpha, ebeta_t.dtype)
    none = np.zeros((0, alpha.shape[0]), dtype=gamma0.dtype)
    with threads(kernel_threads):
        gamma, _, _ = e_step(indptr, indices, data, ebeta_t, alpha, gamma0, none, doc_updates[0], doc_updates[1],
                             False, doc_updates[2])
    weights = np.asarray(gamma, dtype=np.float64)
    totals = weights.sum(axis=1, keepdims=True)
    out = weights / np.where(totals > 0, totals, 1.0)
    bad = totals[:, 0] <= 0
    if np.any(bad):
        out[bad] = 1.0 / alpha.shape[0]
    return out.astype(out_dtype, copy=False)


def _warm_up(dtypes=("float64",)) -> float:
    """Compile (or load from numba's cache) the kernels a distributed fit uses; returns seconds."""
    started = time.perf_counter()
    X = sp.csr_matrix(np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]]))
    alpha = np.full(2, 0.5)
    for name in dtypes:
        lam = np.random.default_rng(0).gamma(100.0, 0.01, size=(2, 3)).astype(name)
        ebeta_t, log_scale, _, _ = _topic_arrays(lam)
        Xd = X.astype(name)
        for updates in ((5, 1e-3, True), (5, 1e-3, False)):
            gamma, partial = _partition_step(Xd, (ebeta_t, log_scale), None, ("partition", 0, 1, 0), alpha, updates,
                                             1, True, False)
            _partition_step(Xd, (ebeta_t, log_scale), gamma, np.ones((2, 2), dtype=name), alpha, updates, 1, True,
                            True)
            _online_step(Xd, np.array([1, 0]), 0, 2, (ebeta_t, log_scale), ("partition", 0, 1, 0), alpha, updates, 1,
                         True)
            _transform_partition(Xd, ebeta_t, alpha, updates, 1, name)
    return time.perf_counter() - started


# ---------------------------------------------------------------------------------------------
# client side
# ---------------------------------------------------------------------------------------------
def warm_up_workers(client: Client, dtypes=("float64",)) -> dict:
    """Compile the E-step and bound kernels once on every worker (``client.run``).

    Numba compiles a kernel once per process and per signature, and caches the machine code on
    disk (next to the package, or under ``NUMBA_CACHE_DIR``), so later workers on the same machine
    only load it. Warming up keeps compilation out of the first iteration and out of task timings.

    Returns a mapping worker address -> seconds spent.
    """
    return client.run(_warm_up, tuple(dtypes))


def _resolve_client(client):
    """(client, cleanup): the given client, the default one, or an embedded LocalCluster."""
    if client is not None:
        if not isinstance(client, Client):
            raise TypeError(f"client must be a distributed.Client or None, got {type(client).__name__}.")
        return client, None
    try:
        return default_client(), None
    except ValueError:
        pass
    cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    own = Client(cluster)

    def cleanup():
        own.close()
        cluster.close()

    return own, cleanup


def _is_path(x) -> bool:
    return isinstance(x, (str, os.PathLike))


class _Partitions:
    """The corpus as futures on the workers, one per partition, and how to rebuild a lost one."""

    def __init__(self, client, shards, dtype, retries):
        self.client, self.dtype, self.retries = client, dtype, retries
        try:
            import dask.bag as db
        except ImportError:  # pragma: no cover
            db = None
        if db is not None and isinstance(shards, db.Bag):
            shards = shards.to_delayed()
        if sp.issparse(shards) or isinstance(shards, np.ndarray) or _is_path(shards):
            raise TypeError(
                "shards must be a list of partitions (shard paths, sparse matrices, dask delayed objects or "
                f"futures) or a dask bag, got a single {type(shards).__name__}; wrap it in a list."
            )
        try:
            shards = list(shards)
        except TypeError:
            raise TypeError(f"shards must be a list of partitions or a dask bag, got {type(shards).__name__}.") from None
        if not shards:
            raise ValueError("shards is empty; pass at least one partition.")
        self.sources = shards
        workers = sorted(client.nthreads())
        if not workers:
            raise RuntimeError("The Dask cluster has no workers.")
        self.futures = [self._load(p, workers[p % len(workers)]) for p in range(len(shards))]
        infos = client.gather([client.submit(_shard_info, f, pure=False, retries=retries) for f in self.futures])
        self._check(infos)
        self.n_docs = [i["n_docs"] for i in infos]
        self.n_terms = infos[0]["n_terms"]
        self.n_tokens = float(sum(i["n_tokens"] for i in infos))

    def __len__(self):
        return len(self.futures)

    def _load(self, p, worker=None):
        src, client = self.sources[p], self.client
        where = {} if worker is None else {"workers": [worker], "allow_other_workers": True}
        if _is_path(src):
            path = Path(src)
            if not path.is_file():
                raise FileNotFoundError(f"Shard {p} ({src}) is not a file visible to the client; shard paths must "
                                        "name files that every worker can read (a shared file system).")
            return client.submit(load_shard, str(src), self.dtype, pure=False, retries=self.retries, **where)
        if isinstance(src, Future):
            return client.submit(load_shard, src, self.dtype, pure=False, retries=self.retries, **where)
        if isinstance(src, Delayed):  # a dask Delayed (e.g. a bag partition)
            future = client.compute(src, retries=self.retries, **where)
            return client.submit(load_shard, future, self.dtype, pure=False, retries=self.retries, **where)
        if sp.issparse(src) or isinstance(src, np.ndarray):
            X = load_shard(src, self.dtype)
            return client.scatter([X], hash=False, **({} if worker is None else {"workers": [worker]}))[0]
        raise TypeError(
            f"Partition {p} is a {type(src).__name__}; expected a shard path (.npz or UCI docword), a sparse "
            "matrix, a dask delayed object or a future."
        )

    def _check(self, infos):
        widths = {i["n_terms"] for i in infos}
        if len(widths) > 1:
            raise ValueError(f"The partitions have different numbers of terms ({sorted(widths)}); every "
                             "partition must use the same vocabulary.")
        for p, info in enumerate(infos):
            if info["n_nonfinite"]:
                raise ValueError(f"Partition {p} has {info['n_nonfinite']} NaN or infinite entries; term counts "
                                 "must be finite.")
            if info["n_negative"]:
                raise ValueError(f"Negative values in partition {p}: term counts must be non-negative, but it has "
                                 f"{info['n_negative']} negative entries.")
        if sum(i["n_docs"] for i in infos) == 0:
            raise ValueError("The partitions hold 0 documents; pass at least one document.")

    def where(self):
        """Worker address holding each partition (None where unknown)."""
        who = self.client.who_has(self.futures)
        return [(list(who.get(f.key, ())) or [None])[0] for f in self.futures]

    def repair(self):
        """Re-read partitions whose data was lost; returns the indices rebuilt."""
        lost = [p for p, f in enumerate(self.futures) if f.status not in ("finished", "pending")]
        for p in lost:
            if not _is_path(self.sources[p]) and not isinstance(self.sources[p], Delayed):
                raise RuntimeError(
                    f"Partition {p} was held in memory by a worker that failed and cannot be re-read; pass "
                    "shard files (or a dask bag read from storage) to survive worker failures."
                )
            self.futures[p] = self._load(p)
        return lost


class _TopicHistory:
    """The topics (ebeta_t, log_scale) and priors alpha of every iteration, in a temporary folder
    on the client, for replaying lost partitions."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="topicvb-distributed-"))
        self.alpha = {}

    def put(self, t, ebeta_t, log_scale, alpha):
        np.save(self.dir / f"ebeta-{t}.npy", ebeta_t)
        np.save(self.dir / f"scale-{t}.npy", log_scale)
        self.alpha[t] = alpha

    def get(self, t):
        return np.load(self.dir / f"ebeta-{t}.npy"), np.load(self.dir / f"scale-{t}.npy"), self.alpha[t]

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def _tree_sum(client, futures, retries, where):
    """Pairwise sums of ``futures`` in a balanced tree, each node on the worker holding its left input."""
    level = list(futures)
    hosts = list(where)
    while len(level) > 1:
        nxt, nxt_hosts = [], []
        for i in range(0, len(level) - 1, 2):
            w = hosts[i]
            opts = {"workers": [w], "allow_other_workers": True} if w else {}
            nxt.append(client.submit(_add_partials, level[i], level[i + 1], pure=False, retries=retries, **opts))
            nxt_hosts.append(w)
        if len(level) % 2:
            nxt.append(level[-1])
            nxt_hosts.append(hosts[-1])
        level, hosts = nxt, nxt_hosts
    return level[0]


def _reduce(client, partials, hosts, retries):
    """Sum the partials of each worker on that worker, then across workers (a tree each time)."""
    groups = {}
    for f, h in zip(partials, hosts):
        groups.setdefault(h, []).append(f)
    per_worker = [_tree_sum(client, fs, retries, [h] * len(fs)) for h, fs in groups.items()]
    return _tree_sum(client, per_worker, retries, list(groups))


def _seeding_sample(client, parts, init_sample_size):
    """(X, whole): the stacked partitions when they hold at most ``init_sample_size`` documents
    (whole=True), else the first rows of every partition in proportion to its size, that many in all."""
    total = sum(parts.n_docs)
    if total <= init_sample_size:
        return sp.vstack(client.gather(parts.futures), format="csr"), True
    take = [min(n, int(np.ceil(n * init_sample_size / total))) for n in parts.n_docs]
    heads = [client.submit(operator.getitem, f, slice(0, m), pure=False) for f, m in zip(parts.futures, take)]
    return sp.vstack(client.gather(heads), format="csr"), False


class _Runner:
    """What the distributed fit loops share: the model, the client, the partitions and the options."""

    def __init__(self, model, client, parts, *, random_streams, kernel_threads, retries, max_repairs,
                 init_sample_size, callback, _hook=None):
        self.model, self.client, self.parts = model, client, parts
        self.random_streams, self.kernel_threads = random_streams, kernel_threads
        self.retries, self.max_repairs = retries, max_repairs
        self.init_sample_size, self.callback, self.hook = init_sample_size, callback, _hook
        self.K, self.V = model.n_components, parts.n_terms
        self.dtype = np.dtype(model._float)


class _BatchRunner(_Runner):
    """The iteration loop of a distributed BatchLDA fit (see the module notes)."""

    def __init__(self, model, client, parts, **options):
        super().__init__(model, client, parts, **options)
        self.learn_alpha, self.learn_eta = learn_flags(model.learn_priors, "BatchLDA")
        self.history = _TopicHistory()
        self.gamma = [None] * len(parts)
        self.states = {}  # "global" streams: iteration -> generator state at the start of each partition
        self.n_repairs = 0

    def close(self):
        self.history.close()

    # -- initial topics, as BatchLDA draws them
    def _initial_topics(self, rng):
        K, V, dtype, parts = self.K, self.V, self.dtype, self.parts
        if self.model.init == "random":
            return rng.gamma(100.0, 0.01, size=(K, V)).astype(dtype)
        X, whole = _seeding_sample(self.client, parts, self.init_sample_size)
        if whole:  # the whole corpus: exactly BatchLDA's seeding
            return _seeded_topics(X, K, rng, dtype)
        # k-means++ seeding on the first rows of every partition; the scale is then corrected to
        # the whole corpus's token count
        lam = _seeded_topics(X, K, rng, np.float64)
        sample_tokens = float(X.sum())
        if sample_tokens > 0:
            lam *= parts.n_tokens / sample_tokens
        return lam.astype(dtype)

    # -- restarts
    def _restarts(self, t, hosts):
        """Per partition: the restart argument of E-step t (a literal or a future)."""
        P = len(self.parts)
        if self.random_streams == "partition":
            return [("partition", self.entropy, t, p) for p in range(P)]
        client, out, state, starts = self.client, [], self.start_state, []
        for p in range(P):
            opts = {"workers": [hosts[p]], "allow_other_workers": True} if hosts[p] else {}
            pair = client.submit(_global_restart_block, state, self.parts.n_docs[p], self.K, self.dtype, pure=False,
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
        offset = int(sum(self.parts.n_docs[:p]))
        return (offset, int(self.model.restart_every), int(t))

    # -- one pass
    def _submit(self, t, topics_future, alpha, e_step_wanted):
        client, parts, m = self.client, self.parts, self.model
        hosts = parts.where()
        restarts = self._restarts(t, hosts) if e_step_wanted else [None] * len(parts)
        new_gamma, partials = [], []
        for p, X in enumerate(parts.futures):
            opts = {"workers": [hosts[p]], "allow_other_workers": True} if hosts[p] else {}
            step = client.submit(_partition_step, X, topics_future, self.gamma[p], restarts[p], alpha,
                                 _doc_updates(m), self.kernel_threads, e_step_wanted,
                                 self.learn_alpha, self._rotation(p, t), pure=False, retries=self.retries, **opts)
            new_gamma.append(client.submit(operator.getitem, step, 0, pure=False, retries=self.retries, **opts)
                             if e_step_wanted else None)
            partials.append(client.submit(operator.getitem, step, 1, pure=False, retries=self.retries, **opts))
        return new_gamma, _reduce(client, partials, hosts, self.retries)

    def _pass(self, t, ebeta_t, log_scale, alpha, e_step_wanted):
        """Run E-step t (or only the bound of the previous gamma); returns (new gamma futures, partial)."""
        for attempt in range(self.max_repairs + 1):
            topics = self.client.scatter([(ebeta_t, log_scale)], broadcast=True, hash=False)[0]
            new_gamma, total = self._submit(t, topics, alpha, e_step_wanted)
            if self.hook is not None:
                self.hook(t, self.client)
            try:
                partial = total.result()
                self.bytes_scattered = (ebeta_t.nbytes + log_scale.nbytes) * len(self.client.nthreads())
                return new_gamma, partial
            except _FAILURES as exc:
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
        client, m = self.client, self.model
        replay = {p: None for p in lost}
        for s in range(1, t):
            ebeta_s, scale_s, alpha_s = self.history.get(s)
            topics = client.scatter([(ebeta_s, scale_s)], broadcast=True, hash=False)[0]
            for p in lost:
                if self.random_streams == "partition":
                    restart = ("partition", self.entropy, s, p)
                else:
                    pair = client.submit(_global_restart_block, self.states[s][p], self.parts.n_docs[p], self.K,
                                         self.dtype, pure=False, retries=self.retries)
                    restart = client.submit(operator.getitem, pair, 0, pure=False)
                step = client.submit(_partition_step, self.parts.futures[p], topics, replay[p], restart, alpha_s,
                                     _doc_updates(m), self.kernel_threads, True, False,
                                     self._rotation(p, s), pure=False, retries=self.retries)
                replay[p] = client.submit(operator.getitem, step, 0, pure=False, retries=self.retries)
        for p in lost:
            self.gamma[p] = replay[p]

    def run(self):
        m = self.model
        rng = check_random_state(m.random_state)
        alpha, eta = m._resolve_priors()
        lam = self._initial_topics(rng)
        if self.random_streams == "partition":
            self.entropy = [int(x) for x in rng.randint(0, 2**32, size=4, dtype=np.uint64)]
        else:
            self.start_state = rng.get_state()
        ebeta_t, log_scale, elog_sum, rest = _topic_arrays(lam)
        history, started = [], time.perf_counter()
        converged, it = False, 0
        self.timings = []
        for t in range(1, m.max_iter + 2):
            tick = time.perf_counter()
            e_step_wanted = t <= m.max_iter
            self.history.put(t, ebeta_t, log_scale, alpha)
            new_gamma, (sstats_t, doc_bound, elog_theta) = self._pass(t, ebeta_t, log_scale, alpha, e_step_wanted)
            self.timings.append(time.perf_counter() - tick)
            if e_step_wanted:
                self._settle_states()
            if t > 1:  # the bound of iteration t - 1 came with this pass
                bound = float(doc_bound + _topic_bound(elog_sum, rest, eta, self.V))
                history.append(bound)
                it = t - 1
                m._report(it, bound, history[-2] if len(history) > 1 else None, started)
                converged = m._converged(history)
                if self.callback is not None:
                    self.callback({"iteration": it, "bound": bound, "seconds": self.timings[-1],
                                   "bytes_scattered": self.bytes_scattered})
                if converged or not e_step_wanted:
                    break
            self.gamma = new_gamma
            lam = np.add(sstats_t.T, eta, out=np.empty((self.K, self.V), dtype=self.dtype))  # C order, as BatchLDA
            ebeta_t, log_scale, elog_sum, rest = _topic_arrays(lam)
            if self.learn_alpha or self.learn_eta:
                if self.learn_alpha:
                    from .models._priors import dirichlet_from_mean_log

                    alpha = dirichlet_from_mean_log(alpha, elog_theta / sum(self.parts.n_docs))
                if self.learn_eta:
                    _, eta = m._learned_priors(np.zeros((0, self.K)), float(np.sum(elog_sum)) / (self.K * self.V),
                                               self.V, alpha, eta, False, True)
        m._warn_not_converged(it, converged)
        return {
            "components_": lam,
            "doc_topic_prior_": alpha,
            "topic_word_prior_": eta,
            "bound_history_": np.asarray(history),
            "n_iter_": it,
            "n_features_in_": self.V,
        }


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


class _OnlineRunner(_Runner):
    """The mini-batch loop of a distributed OnlineLDA fit (see the module notes)."""

    def __init__(self, model, client, parts, **options):
        super().__init__(model, client, parts, **options)
        self.learn_alpha, _ = learn_flags(model.learn_priors, "OnlineLDA")
        self.n_docs = int(sum(parts.n_docs))
        self.total = self.n_docs if model.total_samples is None else float(model.total_samples)
        if self.total < self.n_docs:
            raise ValueError(f"total_samples={model.total_samples} is smaller than the {self.n_docs} documents in "
                             "the partitions; use None or the corpus size.")
        offsets = np.cumsum([0] + list(parts.n_docs))
        order = interleaved_order(parts.n_docs)
        # the partition of every document in visiting order (each partition's documents keep their order)
        self.rank_part = np.searchsorted(offsets[1:], order, side="right").astype(np.min_scalar_type(len(parts)))
        self.n_repairs, self.bytes_scattered = 0, 0
        self.orders = [None] * len(parts)

    def close(self):
        pass

    def _initial_topics(self, rng):
        """OnlineLDA's initial topics; "seeded" on the corpus in visiting order when it is small enough."""
        K, V, dtype = self.K, self.V, self.dtype
        if self.model.init == "random":
            return rng.gamma(100.0, 0.01, size=(K, V)).astype(dtype)
        X, whole = _seeding_sample(self.client, self.parts, self.init_sample_size)
        if whole:  # exactly OnlineLDA.fit on the stacked partitions in visiting order
            X = X[interleaved_order(self.parts.n_docs)]
        return (_seeded_topics(X, K, rng, np.float64) * (self.total / X.shape[0])).astype(dtype)

    def _shuffle(self, it, rng, hosts):
        """With ``shuffle=True``, set ``self.orders`` to futures of the partitions' row orders in pass ``it``."""
        if not self.model.shuffle:
            return
        if self.random_streams == "partition":
            self.shuffle_entropy = list(self.entropy) + [1, int(it)]
        else:  # drawn at the start of the pass, where OnlineLDA.fit draws its permutation
            self.shuffle_entropy = [int(x) for x in rng.randint(0, 2**32, size=4, dtype=np.uint64)]
        self.orders = [self._order_future(p, hosts[p]) for p in range(len(self.parts))]

    def _order_future(self, p, host=None):
        opts = {"workers": [host], "allow_other_workers": True} if host else {}
        return self.client.submit(_shuffled_order, self.shuffle_entropy, p, self.parts.n_docs[p], pure=False,
                                  retries=self.retries, **opts)

    def _restarts(self, t, ids, counts, rng):
        """Per partition with rows in mini-batch ``t``: the restart argument of its E-step task."""
        parts_in = np.flatnonzero(counts)
        if self.random_streams == "partition":
            return {p: ("partition", self.entropy, t, int(p)) for p in parts_in}
        # OnlineLDA's draw for the whole batch, rows in visiting order; each partition gets its rows
        gamma0 = random_start(rng, (ids.shape[0], self.K), self.dtype)
        gamma0 = gamma0[np.argsort(ids, kind="stable")]
        ends = np.cumsum(counts)
        return {p: gamma0[ends[p] - counts[p]:ends[p]] for p in parts_in}

    def _batch(self, t, slices, restarts, ebeta_t, log_scale, alpha, hosts):
        """Run the E-steps of mini-batch t on the workers; returns the reduced partial."""
        client, m = self.client, self.model
        for attempt in range(self.max_repairs + 1):
            topics = client.scatter([(ebeta_t, log_scale)], broadcast=True, hash=False)[0]
            # one task per worker thread at most: a worker's partitions are dealt out to as many tasks
            # as it has threads, so the scheduling cost of a mini-batch does not grow with the partitions
            by_host = {}
            for p in slices:
                by_host.setdefault(hosts[p], []).append(p)
            partials, where = [], []
            for host, ps in by_host.items():
                n_tasks = min(len(ps), max(1, self.worker_threads.get(host, 1)))
                for j in range(n_tasks):
                    group = ps[j::n_tasks]
                    opts = {"workers": [host], "allow_other_workers": True} if host else {}
                    partials.append(client.submit(
                        _online_group_step, [self.parts.futures[p] for p in group], [self.orders[p] for p in group],
                        [slices[p] for p in group], [restarts[p] for p in group], topics, alpha,
                        _doc_updates(m), self.kernel_threads, self.learn_alpha, pure=False,
                        retries=self.retries, **opts))
                    where.append(host)
            total = _reduce(client, partials, where, self.retries)
            if self.hook is not None:
                self.hook(t, client)
            try:
                partial = total.result()
                self.bytes_scattered += (ebeta_t.nbytes + log_scale.nbytes) * len(self.worker_threads)
                return partial
            except _FAILURES as exc:
                if attempt == self.max_repairs:
                    raise RuntimeError(f"The distributed fit failed {attempt + 1} times in mini-batch {t}; "
                                       f"last error: {exc!r}.") from exc
                logger.warning("mini-batch %d: %s; re-reading lost partitions and retrying", t, repr(exc))
            del partials, total
            self.n_repairs += 1
            time.sleep(0.5)  # let the scheduler finish marking what the failure took with it
            self.parts.repair()
            for p, f in enumerate(self.orders):
                if f is not None and f.status not in ("finished", "pending"):
                    self.orders[p] = self._order_future(p)
            hosts[:] = self.parts.where()
            self.worker_threads = client.nthreads()

    def run(self):
        m, P = self.model, len(self.parts)
        rng = check_random_state(m.random_state)
        alpha, eta = m._resolve_priors()
        lam = self._initial_topics(rng)
        if self.random_streams == "partition":
            self.entropy = [int(x) for x in rng.randint(0, 2**32, size=4, dtype=np.uint64)]
        batch_size, n_docs = int(m.batch_size), self.n_docs
        n_workers = max(1, len(self.client.nthreads()))
        if min(batch_size, n_docs) < 1000 * n_workers:
            logger.info("OnlineLDA mini-batches of %d documents on %d workers: each mini-batch costs a broadcast and "
                        "a round trip (tens of ms), which will dominate; a batch_size of thousands of documents per "
                        "worker keeps the workers busy", min(batch_size, n_docs), n_workers)
        if m.restart_every > 1 and m.max_iter > 1:
            logger.warning("fit_distributed restarts every document in every pass: the fit corresponds to "
                        "OnlineLDA(restart_every=1), not to restart_every=%d", m.restart_every)
        t, n_seen, it, converged = 0, 0, 0, False
        bounds, means = [], []
        lam = np.array(lam, order="C")  # private: each SVI step updates it in place
        ebeta_t = np.empty((lam.shape[1], lam.shape[0]), dtype=lam.dtype)
        log_scale = np.empty(lam.shape[1], dtype=np.float64)
        elog_sum, rest = topic_terms(lam, ebeta_t, log_scale)
        started = time.perf_counter()
        self.timings = []
        while it < m.max_iter and not converged:
            it += 1
            tick, scattered = time.perf_counter(), self.bytes_scattered
            hosts = self.parts.where()
            self.worker_threads = self.client.nthreads()
            self._shuffle(it, rng, hosts)
            cursor, first = np.zeros(P, dtype=np.int64), len(bounds)
            for lo in range(0, n_docs, batch_size):
                ids = self.rank_part[lo:lo + batch_size]
                counts = np.bincount(ids, minlength=P)
                slices = {int(p): (int(cursor[p]), int(cursor[p] + counts[p])) for p in np.flatnonzero(counts)}
                cursor += counts
                t += 1
                restarts = self._restarts(t, ids, counts, rng)
                sstats_t, doc_bound, elog_theta = self._batch(t, slices, restarts, ebeta_t, log_scale, alpha, hosts)
                scale = self.total / ids.shape[0]
                bounds.append(float(scale * doc_bound + _topic_bound(elog_sum, rest, eta, lam.shape[1])))
                # new arrays for the next topics: the scattered ones may still be referenced by the workers
                ebeta_t, log_scale = np.empty_like(ebeta_t), np.empty_like(log_scale)
                alpha, eta, elog_sum, rest = m._svi_step(
                    lam, alpha, eta, sstats_t, t, scale, elog_theta / ids.shape[0] if self.learn_alpha else None,
                    ebeta_t, log_scale)
                n_seen += ids.shape[0]
                if m.verbose > 1:
                    m._report(t, bounds[-1], bounds[-2] if len(bounds) > 1 else None, started)
            means.append(float(np.mean(bounds[first:])))
            self.timings.append(time.perf_counter() - tick)
            m._report(it, means[-1], means[-2] if len(means) > 1 else None, started)
            converged = m._converged(means)
            if self.callback is not None:
                self.callback({"iteration": it, "bound": means[-1], "seconds": self.timings[-1],
                               "n_batches": len(bounds) - first, "bytes_scattered": self.bytes_scattered - scattered})
        m._warn_not_converged(it, converged)
        return {
            "components_": lam,
            "doc_topic_prior_": alpha,
            "topic_word_prior_": eta,
            "bound_history_": np.asarray(bounds, dtype=np.float64),
            "n_iter_": it,
            "n_batch_iter_": t,
            "n_docs_seen_": n_seen,
            "random_state_": rng,
            "n_features_in_": self.V,
        }


def fit_distributed(model: BatchLDA | OnlineLDA, shards, client: Client | None = None, *,
                    random_streams: str = "partition", kernel_threads: int = 1, retries: int = 3,
                    max_repairs: int = 3, init_sample_size: int = 20000, callback=None,
                    _hook=None) -> BatchLDA | OnlineLDA:
    """Fit a :class:`~topicvb.BatchLDA` or an :class:`~topicvb.OnlineLDA` on a corpus split into
    partitions held by Dask workers.

    The model ends up as after ``model.fit(X)`` on the stacked partitions: ``components_``,
    ``bound_history_``, ``n_iter_``, ``doc_topic_prior_``, ``topic_word_prior_`` and
    ``n_features_in_`` are set (and, for OnlineLDA, ``n_batch_iter_``, ``n_docs_seen_`` and
    ``random_state_``), so ``transform``, ``save`` and the inspection helpers work. Every
    parameter of the model is honoured except ``n_jobs`` (see ``kernel_threads``) and
    ``checkpoint_path`` (a distributed fit does not write checkpoints).

    An OnlineLDA's mini-batches take from every partition in proportion to its size (see
    :func:`interleaved_order`), so every worker works on every mini-batch and the client makes the
    stochastic step after each one (:meth:`OnlineLDA._svi_step`, the step of ``OnlineLDA.fit``).
    ``shuffle=True`` visits each partition's documents in a new random order on every pass (the
    documents do not move between workers, so this is not the global shuffle of ``OnlineLDA.fit``).
    Each mini-batch costs one broadcast of the topics and one round trip, so choose ``batch_size``
    large enough (thousands of documents per worker) that the E-steps dominate.

    Parameters
    ----------
    model : BatchLDA or OnlineLDA
        The estimator to fit (its parameters are used as given; it is fitted in place).
    shards : list or dask.bag.Bag
        The partitions, in document order: paths of ``.npz`` files written by
        :func:`scipy.sparse.save_npz` or of UCI docword files (read by the workers themselves, so
        the files must be visible to every worker), sparse or dense count matrices (scattered to
        the workers once), dask delayed objects or futures of matrices, or a dask bag whose
        partitions are lists of sparse rows or matrices.
    client : distributed.Client, default=None
        The cluster to use. None uses the default client when there is one, and otherwise starts a
        ``LocalCluster`` with one single-threaded worker process per core for the duration of the
        call.
    random_streams : {"partition", "global"}, default="partition"
        How the E-step restarts are drawn (see the module notes): independent streams per
        partition and iteration or mini-batch (parallel; the result depends on the seed and the
        partitioning), or pieces of the model's single random stream. With "global", a BatchLDA
        equals ``model.fit(X)`` (the draws form a sequential chain across partitions) and an
        OnlineLDA with ``shuffle=False`` equals ``model.fit(X[interleaved_order(n_docs)])`` with
        ``restart_every=1`` (the client draws each mini-batch's restarts and sends them with its
        tasks; the runner restarts every document in every pass).
    kernel_threads : int, default=1
        Numba threads per task. The parallelism comes from the partitions: give each worker as
        many Dask threads as cores, or run one single-threaded worker per core.
    retries : int, default=3
        Retries of a task that raised (passed to ``client.submit``).
    max_repairs : int, default=3
        Times an iteration (or mini-batch) may be repaired after losing workers before the fit
        gives up.
    init_sample_size : int, default=20000
        ``init="seeded"`` chooses its seed documents among the whole corpus when it has at most this
        many documents (exactly as ``fit``, the partitions are gathered once) and otherwise
        among the first documents of every partition, this many in all.
    callback : callable, default=None
        Called on the client after every iteration (for OnlineLDA: every pass) with a dict
        (``iteration``, ``bound``, ``seconds``: wall time of the pass, ``bytes_scattered``: bytes
        of topics broadcast in it; OnlineLDA adds ``n_batches``).

    Returns
    -------
    model : BatchLDA or OnlineLDA
        The fitted model. A failed fit leaves it as it was.

    Raises
    ------
    TypeError
        If ``model`` is not a BatchLDA or an OnlineLDA, or a partition has an unsupported type.
    ValueError
        For bad parameters, partitions of different widths, negative or non-finite counts, or an
        OnlineLDA ``total_samples`` below the number of documents.
    """
    if isinstance(model, OnlineLDA):
        runner_class = _OnlineRunner
    elif isinstance(model, BatchLDA):
        runner_class = _BatchRunner
    else:
        raise TypeError(f"fit_distributed fits a BatchLDA or an OnlineLDA, got {type(model).__name__}.")
    check_choice(random_streams, "random_streams", {"partition", "global"})
    check_scalar(kernel_threads, "kernel_threads", numbers.Integral, min_val=1)
    check_scalar(retries, "retries", numbers.Integral, min_val=0)
    check_scalar(max_repairs, "max_repairs", numbers.Integral, min_val=0)
    check_scalar(init_sample_size, "init_sample_size", numbers.Integral, min_val=1)
    model._check_params()
    client, cleanup = _resolve_client(client)
    runner = None
    try:
        warm_up_workers(client, (model.dtype,))
        parts = _Partitions(client, shards, model.dtype, retries)
        runner = runner_class(model, client, parts, random_streams=random_streams, kernel_threads=kernel_threads,
                              retries=retries, max_repairs=max_repairs, init_sample_size=init_sample_size,
                              callback=callback, _hook=_hook)
        fitted = runner.run()
    finally:
        if runner is not None:
            runner.close()
        if cleanup is not None:
            cleanup()
    for name in ("feature_names_in_",):
        if hasattr(model, name):
            delattr(model, name)
    for name, value in fitted.items():
        setattr(model, name, value)
    return model


def transform_distributed(model, shards, client: Client | None = None, *, kernel_threads: int = 1) -> da.Array:
    """Document-topic proportions of partitioned documents, computed on the workers.

    Parameters
    ----------
    model : BatchLDA or OnlineLDA
        A fitted variational LDA model.
    shards : list or dask.bag.Bag
        The partitions, as for :func:`fit_distributed`.
    client : distributed.Client, default=None
        The cluster; None uses the default client (start one first, e.g. ``Client(LocalCluster())``).
    kernel_threads : int, default=1
        Numba threads per task.

    Returns
    -------
    doc_topic : dask.array.Array of shape (n_docs, n_components)
        One chunk per partition, already being computed on the workers; rows sum to 1 and equal
        ``model.transform`` of the stacked partitions. Call ``.compute()`` to gather it, or keep
        it distributed (``.persist()``, ``.to_zarr(...)``).
    """
    check_is_fitted(model)
    if not hasattr(model, "max_doc_update_iter"):
        raise TypeError(f"transform_distributed needs a variational LDA model (BatchLDA, OnlineLDA), got "
                        f"{type(model).__name__}.")
    if client is None:
        try:
            client = default_client()
        except ValueError:
            raise ValueError("transform_distributed needs a Dask client: pass client= or start one first "
                             "(Client(LocalCluster()) for this machine).") from None
    check_scalar(kernel_threads, "kernel_threads", numbers.Integral, min_val=1)
    parts = _Partitions(client, shards, model.dtype, retries=3)
    if parts.n_terms != model.n_features_in_:
        raise ValueError(f"The partitions have {parts.n_terms} terms, but this {type(model).__name__} was fitted on "
                         f"{model.n_features_in_}. Transform with the vectorizer used for fit.")
    _, ebeta_t, _ = _expectations(np.asarray(model.components_))
    topics = client.scatter([ebeta_t], broadcast=True, hash=False)[0]
    alpha = np.asarray(model.doc_topic_prior_, dtype=np.float64)
    hosts = parts.where()
    chunks = []
    for p, X in enumerate(parts.futures):
        opts = {"workers": [hosts[p]], "allow_other_workers": True} if hosts[p] else {}
        f = client.submit(_transform_partition, X, topics, alpha, _doc_updates(model), kernel_threads, model._float,
                          pure=False, retries=3, **opts)
        chunks.append(da.from_delayed(dask.delayed(f), shape=(parts.n_docs[p], model.n_components),
                                      dtype=model._float))
    return da.concatenate(chunks, axis=0)
