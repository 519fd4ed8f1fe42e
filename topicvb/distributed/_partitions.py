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

from sklearn.utils import check_array

from .._validation import (MAX_TOTAL_COUNT, check_count_range, check_matrix_type, check_sparse_structure,
                           drop_negligible_counts)
from ..datasets import read_uci
from ..models._vb import add_stats

# What a lost worker raises on the client: an iteration is then repaired and retried.
FAILURES = (FutureCancelledError, KilledWorker, CommClosedError)


def load_shard(source, dtype="float64") -> sp.csr_matrix:
    """Read one partition of a corpus: a ``.npz`` file of :func:`scipy.sparse.save_npz`, a UCI
    docword file (``.txt`` or ``.gz``, read with :func:`topicvb.datasets.read_uci`), or a matrix.

    Returns canonical CSR (summed duplicates, sorted indices, no stored zeros) of the given float dtype.
    The matrix is checked as the estimators check theirs before converting it (a ``TypeError`` or
    ``ValueError`` for text, complex numbers, or a sparse matrix whose indices lie outside its shape);
    the values are not (see :func:`load_partition`), but weights below ``MIN_COUNT`` are dropped, as
    the estimators drop them, unless the matrix has negative or non-finite entries.
    """
    X, _ = _convert(_read(source), dtype, "load_shard")
    return X


def load_partition(source, dtype, caller: str):
    """(X, info): :func:`load_shard` of ``source`` and its :func:`shard_info`, on a worker; X is None and
    ``info["error"]`` holds (exception name, message) when the partition cannot be a count matrix (text,
    complex numbers, a bad index structure: what :func:`load_shard` raises), so that the client reports it
    naming the partition instead of the task being retried. ``caller`` names the partition in messages."""
    try:
        return _convert(_read(source), dtype, caller)
    except (ValueError, TypeError) as exc:  # (a message that does not name the partition is prefixed with it)
        message = str(exc) if caller in str(exc) else f"{caller}: {exc}"
        return None, {"error": (type(exc).__name__, message)}


def _read(source):
    """The matrix of a shard path, a dask bag partition (a list or iterator of rows or matrices) or a
    matrix, as it is (no conversion)."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.suffix.lower() == ".npz":
            return _load_npz(path)
        return read_uci(path).X
    if isinstance(source, (list, tuple)) or isinstance(source, Iterator):  # a partition of a dask bag: a list of
        source = list(source)  # rows or matrices (an iterator where a filter or map_partitions made the partition)
        if not len(source):
            raise ValueError("A dask bag partition is empty; repartition the bag so every partition has rows.")
        return sp.vstack([sp.csr_matrix(x) for x in source], format="csr")
    return source


_SPARSE_FORMATS = ("csr", "csc", "coo", "lil", "dok", "bsr", "dia")


def _convert(source, dtype, caller: str):
    """(canonical CSR of ``dtype``, :func:`shard_info` of it) of a matrix, checked as the estimators'
    ``_validate_counts`` checks theirs (its matrix type, sparse index structure, no complex numbers) before
    it is converted; the values are described in the info, measured before and after the conversion."""
    check_matrix_type(source, caller)
    check_sparse_structure(source, caller)  # (before any conversion reads the indices)
    dtype = np.dtype(dtype)
    # scikit-learn's conversion, as validate_data makes it for fit (complex refused, object arrays converted),
    # to the model's dtype or float64: a cast to float32 is made below, where its overflow is seen
    try:
        checked = check_array(source, accept_sparse=_SPARSE_FORMATS, dtype=[dtype, np.dtype(np.float64)],
                              ensure_all_finite=False, ensure_min_samples=0, ensure_min_features=1,
                              input_name="X")
    except ValueError as exc:  # (its first line: scikit-learn prints the whole array after "Complex data ...")
        raise ValueError(f"{caller}: {str(exc).splitlines()[0]}") from None
    before = checked.data if sp.issparse(checked) else np.asarray(checked)
    n_nonfinite_given = int(np.count_nonzero(~np.isfinite(before)))
    with np.errstate(over="ignore"):  # (a count beyond float32 becomes inf: reported from the info)
        X = sp.csr_matrix(checked, dtype=dtype)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    if X.nnz and not np.all(X.data != 0):  # stored zeros are no cells (as the estimators' own check drops them)
        X = X.copy()
        X.eliminate_zeros()
    info = shard_info(X)
    info["n_nonfinite_given"] = n_nonfinite_given
    if not info["n_negative"] and not info["n_nonfinite"]:
        try:
            check_count_range(X, caller, dtype)
        except ValueError as exc:
            info["range_error"] = str(exc)
        X = drop_negligible_counts(X)  # (as fit: weights below MIN_COUNT count as 0)
    return X, info


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
    """Shape and value checks of a partition (canonical CSR of the model's dtype), returned (not raised) so the
    client can report them: ``max`` and ``total`` (the largest count and the float64 sum, for
    :func:`topicvb._validation.check_count_range`'s rules over all partitions)."""
    data = X.data
    finite = data[np.isfinite(data)]
    return {
        "n_docs": int(X.shape[0]),
        "n_terms": int(X.shape[1]),
        "n_negative": int(np.count_nonzero(data < 0)),
        "n_nonfinite": int(data.size - finite.size),
        "n_tokens": float(finite.sum()),
        "max": float(finite.max()) if finite.size else 0.0,
        "total": float(np.sum(finite, dtype=np.float64)),
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


def _partition_list(shards) -> list:
    """``shards`` as a list of partitions: a dask bag's partitions, a dask array's row blocks (chunked along
    rows only), an array of Delayed objects (``Array.to_delayed()``) flattened, or the list given."""
    try:
        import dask.bag as db
    except ImportError:  # pragma: no cover
        db = None
    try:
        import dask.array as da
    except ImportError:  # pragma: no cover
        da = None
    if db is not None and isinstance(shards, db.Bag):
        shards = shards.to_delayed()
    if da is not None and isinstance(shards, da.Array):
        if shards.ndim != 2:
            raise ValueError(f"A dask array of shards must be a 2-D document-term matrix, got {shards.ndim} "
                             "dimensions.")
        if len(shards.chunks[1]) > 1:
            raise ValueError(f"The dask array is chunked along its columns ({len(shards.chunks[1])} column chunks); "
                             "each partition must hold whole documents: pass D.rechunk({1: -1}), whose row blocks "
                             "become the partitions.")
        shards = shards.to_delayed()
    if isinstance(shards, np.ndarray) and shards.dtype == object and shards.size and all(
            isinstance(x, (Delayed, Future)) for x in shards.flat):  # (e.g. a dask array's to_delayed())
        if shards.ndim == 2 and shards.shape[1] > 1:
            raise ValueError(f"shards is a {shards.shape[0]} x {shards.shape[1]} array of delayed blocks (a dask "
                             "array chunked along its columns?); each partition must hold whole documents: "
                             "rechunk with D.rechunk({1: -1}) and pass D.to_delayed(), or the array itself.")
        shards = shards.ravel()
    elif sp.issparse(shards) or isinstance(shards, np.ndarray) or is_path(shards):
        raise TypeError(
            "shards must be a list of partitions (shard paths, sparse matrices, dask delayed objects or "
            f"futures), a dask bag or a dask array, got a single {type(shards).__name__}; wrap it in a list."
        )
    try:
        shards = list(shards)
    except TypeError:
        raise TypeError(f"shards must be a list of partitions or a dask bag, got {type(shards).__name__}.") from None
    if not shards:
        raise ValueError("shards is empty; pass at least one partition.")
    return shards


class Partitions:
    """The corpus as futures on the workers, one per partition, and how to rebuild a lost one.

    Every partition is checked as the estimators check their input (``_validate_counts``): its matrix type and
    index structure when it is read (on its worker), then its values here, on the client, each error naming the
    partition (``caller``: the entry point, in messages).
    """

    def __init__(self, client, shards, dtype, retries, caller="fit_distributed"):
        self.client, self.dtype, self.retries, self.caller = client, dtype, retries, caller
        shards = _partition_list(shards)
        self.sources = shards
        workers = sorted(client.nthreads())
        if not workers:
            raise RuntimeError("The Dask cluster has no workers.")
        loaded = [self._load(p, workers[p % len(workers)]) for p in range(len(shards))]
        self.futures = [x for x, _ in loaded]
        pending = {p: info for p, (_, info) in enumerate(loaded) if isinstance(info, Future)}
        infos = [info for _, info in loaded]
        for p, info in zip(pending, client.gather(list(pending.values()))):
            infos[p] = info
        self._check(infos)
        self.n_docs = [i["n_docs"] for i in infos]
        self.n_terms = infos[0]["n_terms"]
        self.n_tokens = float(sum(i["n_tokens"] for i in infos))
        self.groups = reduction_groups(self.where())

    def __len__(self):
        return len(self.futures)

    def rereadable(self, p) -> bool:
        """Whether partition p can be read again after a worker that held it failed (a shard path or a Delayed)."""
        return is_path(self.sources[p]) or isinstance(self.sources[p], Delayed)

    def _load(self, p, worker=None):
        """(future of partition p, its info or a future of it): see :func:`load_partition`."""
        src, client = self.sources[p], self.client
        where = {} if worker is None else {"workers": [worker], "allow_other_workers": True}
        caller = f"{self.caller} (partition {p})"
        if is_path(src):
            path = Path(src)
            if not path.is_file():
                raise FileNotFoundError(f"Shard {p} ({src}) is not a file visible to the client; shard paths must "
                                        "name files that every worker can read (a shared file system).")
            src = str(src)
        elif isinstance(src, Delayed):  # a dask Delayed (e.g. a bag partition)
            src = client.compute(src, retries=self.retries, **where)
        elif sp.issparse(src) or isinstance(src, np.ndarray):
            X, info = load_partition(src, self.dtype, caller)
            if X is None:
                return None, info
            return client.scatter([X], hash=False, **({} if worker is None else {"workers": [worker]}))[0], info
        elif not isinstance(src, Future):
            raise TypeError(
                f"Partition {p} is a {type(src).__name__}; expected a shard path (.npz or UCI docword), a sparse "
                "matrix, a dask delayed object or a future."
            )
        pair = client.submit(load_partition, src, self.dtype, caller, pure=False, retries=self.retries, **where)
        X = client.submit(operator.getitem, pair, 0, pure=False, retries=self.retries, **where)
        info = client.submit(operator.getitem, pair, 1, pure=False, retries=self.retries, **where)
        return X, info

    def _check(self, infos):
        """The partitions' checks, in the order of ``_validate_counts``: matrix type and structure, widths,
        finite values (and finite in the model's dtype), non-negative values, then the count range of
        :func:`topicvb._validation.check_count_range` in every partition and over all of them."""
        for p, info in enumerate(infos):
            if "error" in info:
                kind, message = info["error"]
                raise (TypeError if kind == "TypeError" else ValueError)(message)
        widths = {i["n_terms"] for i in infos}
        if len(widths) > 1:
            raise ValueError(f"The partitions have different numbers of terms ({sorted(widths)}); every "
                             "partition must use the same vocabulary.")
        for p, info in enumerate(infos):
            if info["n_nonfinite_given"]:
                raise ValueError(f"Partition {p} has {info['n_nonfinite_given']} NaN or infinite entries; term counts "
                                 "must be finite.")
            if info["n_nonfinite"]:
                raise ValueError(f"Partition {p} has {info['n_nonfinite']} entries too large for dtype "
                                 f"'{np.dtype(self.dtype).name}', the model's dtype (they overflow to infinity); "
                                 "rescale the counts or use dtype='float64'.")
            if info["n_negative"]:
                raise ValueError(f"Negative values in partition {p}: term counts must be non-negative, but it has "
                                 f"{info['n_negative']} negative entries.")
        for p, info in enumerate(infos):
            if "range_error" in info:
                raise ValueError(info["range_error"])
        dtype = np.dtype(self.dtype)
        limit, total = MAX_TOTAL_COUNT[dtype], float(sum(i["total"] for i in infos))
        if total > limit:  # (check_count_range's rule for the stacked partitions)
            largest = int(np.argmax([i["total"] for i in infos]))
            advice = "use dtype='float64' or rescale the counts" if dtype == np.float32 else "rescale the counts"
            raise ValueError(f"{self.caller} got counts summing to {total:.3g} in its {len(infos)} partitions "
                             f"(partition {largest} holds {infos[largest]['total']:.3g}); a {dtype.name} model holds "
                             f"at most {limit:.0e} tokens in all (its topic-word weights would overflow); {advice}.")
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
            if not self.rereadable(p):
                raise RuntimeError(
                    f"Partition {p} was held in memory by a worker that failed and cannot be re-read; pass "
                    "shard files (or a dask bag read from storage) to survive worker failures."
                )
            self.futures[p] = self._load(p)[0]  # (checked when first read)
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
