"""The corpus as partitions on the workers: reading shards, checking them, rebuilding lost ones, and
summing the partitions' statistics with a tree reduction."""

from __future__ import annotations

import operator
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from dask.delayed import Delayed
from distributed import Client, Future, LocalCluster, default_client
from distributed.client import FutureCancelledError
from distributed.comm.core import CommClosedError
from distributed.scheduler import KilledWorker

from ..datasets import read_uci
from ..models._vb import add_stats

# What a lost worker raises on the client: an iteration is then repaired and retried.
FAILURES = (FutureCancelledError, KilledWorker, CommClosedError)


def load_shard(source, dtype="float64") -> sp.csr_matrix:
    """Read one partition of a corpus: a ``.npz`` file of :func:`scipy.sparse.save_npz`, a UCI
    docword file (``.txt`` or ``.gz``, read with :func:`topicvb.datasets.read_uci`), or a matrix.

    Returns canonical CSR (summed duplicates, sorted indices, no stored zeros) of the given float dtype.
    Values are not checked here (see :func:`shard_info`).
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.suffix.lower() == ".npz":
            X = _load_npz(path)
        else:
            X = read_uci(path).X
    elif isinstance(source, (list, tuple)) or isinstance(source, Iterator):  # a partition of a dask bag: a list of
        source = list(source)  # rows or matrices (an iterator where a filter or map_partitions made the partition)
        X = sp.vstack([sp.csr_matrix(x) for x in source], format="csr") if len(source) else None
        if X is None:
            raise ValueError("A dask bag partition is empty; repartition the bag so every partition has rows.")
    else:
        X = source
    X = sp.csr_matrix(X, dtype=dtype)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if X.nnz and not np.all(X.data != 0):  # stored zeros are no cells (as the estimators' own check drops them)
        X = X.copy()
        X.eliminate_zeros()
    return X


def _load_npz(path: Path):
    """The matrix of a ``.npz`` shard: a :func:`scipy.sparse.save_npz` file, or a corpus written by
    :meth:`topicvb.datasets.Corpus.save` (``topicvb vectorize``)."""
    with np.load(path, allow_pickle=False) as npz:
        corpus = "meta_json" in npz.files  # (a Corpus file's metadata entry)
    if corpus:
        from topicvb.datasets import Corpus

        return Corpus.load(path).X
    return sp.load_npz(path)


def shard_info(X) -> dict:
    """Shape and value checks of a partition, returned (not raised) so the client can report them."""
    data = X.data
    return {
        "n_docs": int(X.shape[0]),
        "n_terms": int(X.shape[1]),
        "n_negative": int(np.count_nonzero(data < 0)),
        "n_nonfinite": int(np.count_nonzero(~np.isfinite(data))),
        "n_tokens": float(data[np.isfinite(data)].sum()),
    }


def check_client(client):
    """``client`` itself: a TypeError unless it is a distributed.Client, a ValueError when it is closed."""
    if not isinstance(client, Client):
        raise TypeError(f"client must be a distributed.Client or None, got {type(client).__name__}.")
    if client.status in ("closing", "closed"):
        raise ValueError("client is closed; pass an open distributed.Client (or None for the default one).")
    return client


def resolve_client(client):
    """(client, cleanup): the given client, the default one, or an embedded LocalCluster."""
    if client is not None:
        return check_client(client), None
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


def is_path(x) -> bool:
    return isinstance(x, (str, os.PathLike))


class Partitions:
    """The corpus as futures on the workers, one per partition, and how to rebuild a lost one."""

    def __init__(self, client, shards, dtype, retries):
        self.client, self.dtype, self.retries = client, dtype, retries
        try:
            import dask.bag as db
        except ImportError:  # pragma: no cover
            db = None
        if db is not None and isinstance(shards, db.Bag):
            shards = shards.to_delayed()
        if sp.issparse(shards) or isinstance(shards, np.ndarray) or is_path(shards):
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
        infos = client.gather([client.submit(shard_info, f, pure=False, retries=retries) for f in self.futures])
        self._check(infos)
        self.n_docs = [i["n_docs"] for i in infos]
        self.n_terms = infos[0]["n_terms"]
        self.n_tokens = float(sum(i["n_tokens"] for i in infos))
        self.groups = reduction_groups(self.where())

    def __len__(self):
        return len(self.futures)

    def _load(self, p, worker=None):
        src, client = self.sources[p], self.client
        where = {} if worker is None else {"workers": [worker], "allow_other_workers": True}
        if is_path(src):
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
            if not is_path(self.sources[p]) and not isinstance(self.sources[p], Delayed):
                raise RuntimeError(
                    f"Partition {p} was held in memory by a worker that failed and cannot be re-read; pass "
                    "shard files (or a dask bag read from storage) to survive worker failures."
                )
            self.futures[p] = self._load(p)
        return lost


def reduction_groups(hosts) -> list[int]:
    """The reduction group of every partition: partitions held by one worker when the fit starts form a
    group (numbered in order of their first partition), a partition of unknown place one of its own.

    The statistics are summed within each group, then across groups (:func:`reduce_stats`), whatever
    worker holds each partition later: the order of the floating-point additions is fixed for the
    whole fit, so a fit that loses a worker and re-reads its partitions elsewhere adds the same
    numbers in the same order and ends with the very same result.
    """
    ids = {}
    return [ids.setdefault(("host", h) if h is not None else ("part", p), len(ids)) for p, h in enumerate(hosts)]


def tree_sum(client, futures, retries, where):
    """Pairwise sums of ``futures`` in a balanced tree, each node on the worker holding its left input."""
    level = list(futures)
    hosts = list(where)
    while len(level) > 1:
        nxt, nxt_hosts = [], []
        for i in range(0, len(level) - 1, 2):
            w = hosts[i]
            opts = {"workers": [w], "allow_other_workers": True} if w else {}
            nxt.append(client.submit(add_stats, level[i], level[i + 1], pure=False, retries=retries, **opts))
            nxt_hosts.append(w)
        if len(level) % 2:
            nxt.append(level[-1])
            nxt_hosts.append(hosts[-1])
        level, hosts = nxt, nxt_hosts
    return level[0]


def reduce_stats(client, partials, hosts, retries, groups=None):
    """Sum the partials of each group, then the groups' sums (a balanced tree each time, in the order
    of ``partials``), every addition on the worker holding its left input (``hosts``: where each
    partial is computed). ``groups`` (one key per partial, see :func:`reduction_groups`) fixes which
    partials are added together, so the additions do not depend on where the partials are; with
    None the partials of each worker form a group."""
    members = {}
    for f, h, g in zip(partials, hosts, hosts if groups is None else groups):
        members.setdefault(g, []).append((f, h))
    sums, where = [], []
    for items in members.values():
        fs, hs = [f for f, _ in items], [h for _, h in items]
        sums.append(tree_sum(client, fs, retries, hs))
        where.append(hs[0])
    return tree_sum(client, sums, retries, where)


def seeding_sample(client, parts, init_sample_size):
    """(X, whole): the stacked partitions when they hold at most ``init_sample_size`` documents
    (whole=True), else the first rows of every partition in proportion to its size, that many in all."""
    total = sum(parts.n_docs)
    if total <= init_sample_size:
        return sp.vstack(client.gather(parts.futures), format="csr"), True
    take = [min(n, int(np.ceil(n * init_sample_size / total))) for n in parts.n_docs]
    heads = [client.submit(operator.getitem, f, slice(0, m), pure=False) for f, m in zip(parts.futures, take)]
    return sp.vstack(client.gather(heads), format="csr"), False
