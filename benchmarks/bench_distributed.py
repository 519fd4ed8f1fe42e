"""Distributed BatchLDA and OnlineLDA on Dask: overhead against the in-process fit, and a simulated scale-out.

1. Overhead: the in-process fit with 2 kernel threads against fit_distributed on a LocalCluster of
   2 single-threaded worker processes, on the same corpus; median time per iteration (BatchLDA: the
   distributed pass of iteration t runs E-step t and the bound of t - 1, the in-process iteration
   runs E-step t and the bound of t) or per pass over the corpus (OnlineLDA, mini-batches of
   ``--online-batch`` documents).
2. Scale-out: a synthetic corpus written as .npz shards that the workers read themselves;
   per-iteration time with 1, 2 and 4 single-threaded workers, and the bytes sent per iteration
   (the broadcast of exp(E[log beta]) counted by the client, plus everything the workers sent:
   the worker-to-worker transfers of the tree reduction and the reduced statistics sent to the
   client, from the workers' ``transfer_outgoing_bytes_total``); then OnlineLDA passes over the
   same shards.

Every timed fit also records the share of the machine's CPU time that other processes (not this
script, its LocalCluster workers and their children) used meanwhile, from /proc/stat.

Usage (the runs in benchmarks/results/distributed.md; about 6 minutes on 2 cores):
    python benchmarks/bench_distributed.py --docs 1000000 --overhead-docs 50000 --iters 5 \
        --online-batch 100000 --online-passes 3 --online-workers 1,2 --out /tmp/distributed.md
    python benchmarks/bench_distributed.py --overhead-docs 50000 --workers '' --online-workers '' \
        --online-small-batch 500
The shards go to --data (default: a folder under the system's temporary directory), never into
the repository.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import psutil
import scipy.sparse as sp
from distributed import Client, LocalCluster

from topicvb import BatchLDA, OnlineLDA
from topicvb.datasets import make_lda_corpus
from topicvb.distributed import fit_distributed

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import LoadMeter, machine_info  # noqa: E402


def _out_bytes(dask_worker):
    return dask_worker.transfer_outgoing_bytes_total


def _tree_cpu() -> float:
    """CPU seconds of this process and all its descendants (the LocalCluster's nannies and workers)."""
    total = 0.0
    me = psutil.Process()
    for proc in [me] + me.children(recursive=True):
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


class Load(LoadMeter):
    """Wall time, and the share of all CPUs that processes outside our tree used, over a block
    (``foreign``: NaN off Linux)."""

    own_seconds = staticmethod(_tree_cpu)

    def __exit__(self, *exc):
        super().__exit__(*exc)
        self.foreign = float("nan") if self.foreign_share is None else self.foreign_share


def make_shards(folder: Path, n_docs, n_terms, n_topics, doc_length, n_shards, block=100_000):
    """Write the corpus as n_shards .npz files (generated in blocks of ``block`` documents)."""
    folder.mkdir(parents=True, exist_ok=True)
    tag = f"{n_docs}-{n_terms}-{n_topics}-{doc_length}-{n_shards}"
    paths = [folder / f"{tag}-part{p:03d}.npz" for p in range(n_shards)]
    if all(p.exists() for p in paths):
        return paths
    blocks, seed = [], 0
    for start in range(0, n_docs, block):
        n = min(block, n_docs - start)
        # a new seed per block; the same topics for all blocks would need the generator's internals,
        # so every block draws its own topics: fine for timing, not for topic quality
        blocks.append(make_lda_corpus(n, n_terms, n_topics, doc_length=doc_length, random_state=seed).corpus.X.tocsr())
        seed += 1
    X = sp.vstack(blocks, format="csr")
    del blocks
    edges = np.linspace(0, n_docs, n_shards + 1).astype(int)
    for p, path in enumerate(paths):
        sp.save_npz(path, X[edges[p]:edges[p + 1]])
    return paths


def _fmt(values, digits=1):
    return ", ".join(f"{v:.{digits}f}" for v in values)


def distributed_run(shards, n_workers, model):
    """Per-iteration (BatchLDA) or per-pass (OnlineLDA) seconds and bytes of fit_distributed on a fresh
    LocalCluster of ``n_workers`` single-threaded workers."""
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit=0) as cluster, Client(cluster) as client:
        records = []

        def callback(info):
            info["worker_out"] = sum(client.run(_out_bytes).values())
            info["at"] = time.perf_counter()
            records.append(info)

        with warnings.catch_warnings(), Load() as load:
            warnings.simplefilter("ignore")
            fit_distributed(model, shards, client, callback=callback)
    if isinstance(model, OnlineLDA):
        # one callback per pass over the corpus; time passes 2, 3, ... when there are several (as
        # the in-process run), and count pass 1's bytes from the fresh cluster's zero
        full = records[1:] if len(records) > 1 else records
        sent = [records[0]["worker_out"]] + [b["worker_out"] - a["worker_out"] for a, b in zip(records, records[1:])]
        sent = sent[1:] if len(sent) > 1 else sent
    else:
        # callbacks come after passes 2 .. n_iter + 1; pass t runs E-step t and the bound of t - 1,
        # and the last one only the bound: time the full passes 2 .. n_iter (pass 1 has no bound)
        full = records[:-1]
        sent = [b["worker_out"] - a["worker_out"] for a, b in zip(full, full[1:])]
    seconds = [r["seconds"] for r in full]
    return {"median_s": statistics.median(seconds), "all_s": seconds, "total_s": load.wall,
            "foreign": load.foreign, "worker_bytes": statistics.median(sent) if sent else float("nan"),
            "scatter_bytes": statistics.median(r["bytes_scattered"] for r in full),
            "n_batches": full[-1].get("n_batches")}


def in_process_run(model, X):
    """Per-iteration (or per-pass) seconds of an in-process fit (from its progress lines)."""
    times = []

    class Capture:
        def write(self, line):
            if "iter" in line:
                times.append(float(line.rsplit(" ", 1)[-1].rstrip("s\n")))

        def flush(self):
            pass

    saved, sys.stderr = sys.stderr, Capture()
    try:
        with warnings.catch_warnings(), Load() as load:
            warnings.simplefilter("ignore")
            model.set_params(verbose=1).fit(X)
    finally:
        sys.stderr = saved
    per_iter = list(np.diff([0.0] + times))
    return {"median_s": statistics.median(per_iter[1:] if len(per_iter) > 1 else per_iter), "all_s": per_iter,
            "foreign": load.foreign}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000, help="documents in the scale-out corpus")
    parser.add_argument("--overhead-docs", type=int, default=50_000, help="documents in the overhead corpus")
    parser.add_argument("--terms", type=int, default=5000)
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--doc-length", type=float, default=30)
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--iters", type=int, default=3, help="BatchLDA iterations per fit (at least 2)")
    parser.add_argument("--workers", default="1,2,4", help="worker counts of the BatchLDA scale-out ('' skips)")
    parser.add_argument("--online-batch", type=int, default=100_000,
                        help="OnlineLDA mini-batch size in the scale-out (the overhead run uses a tenth of it)")
    parser.add_argument("--online-passes", type=int, default=1, help="OnlineLDA passes per scale-out fit")
    parser.add_argument("--online-workers", default="1,2", help="worker counts of the OnlineLDA scale-out ('' skips)")
    parser.add_argument("--online-small-batch", type=int, default=500,
                        help="an extra OnlineLDA overhead row with mini-batches this small, to show the fixed cost "
                             "per mini-batch (0 skips)")
    parser.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "topicvb-bench-distributed"),
                        help="folder for the shards (reused when present); keep it outside the repository")
    parser.add_argument("--out", default=None, help="write a Markdown report here")
    args = parser.parse_args(argv)
    if args.iters < 2:
        parser.error("--iters must be at least 2 (the first pass has no bound and is not timed).")
    K, lines = args.topics, []
    started_all = time.perf_counter()

    def say(line=""):
        print(line, flush=True)
        lines.append(line)

    info = machine_info()
    say(f"Run {info['date']} on {info['machine']}; load average at start "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}.")
    say(f"topicvb {info['topicvb']}; numba {info['numba']}; Python {info['python']}.")
    say()

    # 1. overhead
    X = make_lda_corpus(args.overhead_docs, args.terms, K, doc_length=args.doc_length, random_state=0).corpus.X
    X = X.tocsr().astype(np.float64)
    edges = np.linspace(0, X.shape[0], args.shards + 1).astype(int)
    folder = Path(args.data)
    folder.mkdir(parents=True, exist_ok=True)
    small = []
    for p, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        small.append(folder / f"overhead-{args.overhead_docs}-{p}.npz")
        sp.save_npz(small[-1], X[a:b])
    models = [("BatchLDA", BatchLDA(K, max_iter=args.iters, tol=0, init="random", random_state=0))]
    for size in (max(1, args.online_batch // 10), args.online_small_batch):
        if size > 0:
            n_batches = -(-X.shape[0] // size)
            models.append((f"OnlineLDA, batch_size={size:,} ({n_batches} mini-batches / pass)",
                           OnlineLDA(K, max_iter=3, tol=0, init="random", random_state=0, batch_size=size)))
    rows = []
    for name, model in models:
        inproc = in_process_run(model.set_params(n_jobs=2), X)
        dist = distributed_run(small, 2, model.set_params(n_jobs=None, verbose=0))
        rows.append((name, inproc, dist))
    say(f"## Overhead: {X.shape[0]:,} docs, {X.shape[1]:,} terms, {X.nnz:,} non-zeros, K={K}, {args.shards} shards")
    say()
    say("| model | run | median s / iteration (pass) | all iterations (s) | other processes' CPU share |")
    say("|---|---|---|---|---|")
    for name, inproc, dist in rows:
        say(f"| {name} | in-process, n_jobs=2 | {inproc['median_s']:.2f} | {_fmt(inproc['all_s'], 2)} | "
            f"{inproc['foreign']:.0%} |")
        say(f"| {name} | fit_distributed, LocalCluster 2 workers x 1 thread | {dist['median_s']:.2f} | "
            f"{_fmt(dist['all_s'], 2)} | {dist['foreign']:.0%} |")
        say(f"| {name} | ratio distributed / in-process | {dist['median_s'] / inproc['median_s']:.2f} | | |")
    say()
    for name, inproc, dist in rows:
        if dist.get("n_batches"):
            say(f"- {name}: (distributed - in-process) / mini-batches = "
                f"{1000 * (dist['median_s'] - inproc['median_s']) / dist['n_batches']:.0f} ms per mini-batch.")
    say()
    if not [w for w in args.workers.split(",") if w] and not [w for w in args.online_workers.split(",") if w]:
        say(f"Total wall time of the benchmark: {(time.perf_counter() - started_all) / 60:.1f} min.")
        common.write_report("\n".join(lines) + "\n", args.out, echo=False)
        return

    # 2. scale-out
    started = time.perf_counter()
    shards = make_shards(folder, args.docs, args.terms, K, args.doc_length, args.shards)
    size = sum(p.stat().st_size for p in shards)
    nnz = sum(sp.load_npz(p).nnz for p in shards)
    say(f"## Scale-out: {args.docs:,} docs in {len(shards)} .npz shards ({size / 1e6:.0f} MB on disk, "
        f"{nnz:,} non-zeros), {args.terms:,} terms, K={K} (generated/found in {time.perf_counter() - started:.0f} s)")
    say()
    say(f"BatchLDA, {args.iters} iterations per fit:")
    say()
    say("| workers | median s / iteration | iterations (s) | scattered bytes / iteration | bytes sent by workers / "
        "iteration | K x V x 8 | other processes' CPU share |")
    say("|---|---|---|---|---|---|---|")
    for n in [int(w) for w in args.workers.split(",") if w]:
        r = distributed_run(shards, n, BatchLDA(K, max_iter=args.iters, tol=0, init="random", random_state=0))
        say(f"| {n} | {r['median_s']:.2f} | {_fmt(r['all_s'])} | {r['scatter_bytes']:,.0f} | "
            f"{r['worker_bytes']:,.0f} | {K * args.terms * 8:,} | {r['foreign']:.0%} |")
    say()
    online_workers = [int(w) for w in args.online_workers.split(",") if w]
    if online_workers:
        say(f"OnlineLDA, batch_size={args.online_batch:,}, {args.online_passes} pass(es) per fit:")
        say()
        say("| workers | median s / pass | passes (s) | mini-batches / pass | scattered bytes / pass | "
            "bytes sent by workers / pass | other processes' CPU share |")
        say("|---|---|---|---|---|---|---|")
        for n in online_workers:
            model = OnlineLDA(K, max_iter=args.online_passes, tol=0, init="random", random_state=0,
                              batch_size=args.online_batch)
            r = distributed_run(shards, n, model)
            say(f"| {n} | {r['median_s']:.2f} | {_fmt(r['all_s'])} | {r['n_batches']} | {r['scatter_bytes']:,.0f} | "
                f"{r['worker_bytes']:,.0f} | {r['foreign']:.0%} |")
        say()
    say(f"Total wall time of the benchmark: {(time.perf_counter() - started_all) / 60:.1f} min.")
    common.write_report("\n".join(lines) + "\n", args.out, echo=False)


if __name__ == "__main__":
    main()
