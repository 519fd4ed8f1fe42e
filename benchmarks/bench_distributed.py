"""Distributed BatchLDA on Dask: overhead against the in-process fit, and a simulated scale-out.

1. Overhead: the in-process BatchLDA with 2 kernel threads against fit_distributed on a
   LocalCluster of 2 single-threaded worker processes, on the same in-memory corpus; median time
   per iteration (the distributed pass of iteration t runs E-step t and the bound of t - 1, the
   in-process iteration runs E-step t and the bound of t).
2. Scale-out: a synthetic corpus written as .npz shards that the workers read themselves;
   per-iteration time with 1, 2 and 4 single-threaded workers, and the bytes sent per iteration
   (the broadcast of exp(E[log beta]) counted by the client, plus everything the workers sent:
   the worker-to-worker transfers of the tree reduction and the reduced statistics sent to the
   client, from the workers' ``transfer_outgoing_bytes_total``).

Usage:
    python benchmarks/bench_distributed.py --docs 1000000 --out benchmarks/results/distributed.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from distributed import Client, LocalCluster

from topicvb import BatchLDA
from topicvb.datasets import make_lda_corpus
from topicvb.distributed import fit_distributed


def _out_bytes(dask_worker):
    return dask_worker.transfer_outgoing_bytes_total


def make_shards(folder: Path, n_docs, n_terms, n_topics, doc_length, n_shards, block=100_000):
    """Write the corpus as n_shards .npz files (generated in blocks, so memory stays small)."""
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
    edges = np.linspace(0, n_docs, n_shards + 1).astype(int)
    for p, path in enumerate(paths):
        sp.save_npz(path, X[edges[p]:edges[p + 1]])
    return paths


def distributed_run(shards, n_workers, n_topics, n_iter):
    """Median seconds and bytes per iteration of fit_distributed on a fresh LocalCluster."""
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit=0) as cluster, Client(cluster) as client:
        records = []

        def callback(info):
            info["worker_out"] = sum(client.run(_out_bytes).values())
            records.append(info)

        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit_distributed(BatchLDA(n_topics, max_iter=n_iter, tol=0, init="random", random_state=0), shards, client,
                            callback=callback)
        total = time.perf_counter() - started
    # callbacks come after passes 2 .. n_iter + 1; pass t runs E-step t and the bound of t - 1, and
    # the last one only the bound: time the full passes 2 .. n_iter (pass 1 also loads the shards)
    full = records[:-1]
    seconds = [r["seconds"] for r in full]
    sent = [b["worker_out"] - a["worker_out"] for a, b in zip(full, full[1:])]
    return {"median_s": statistics.median(seconds), "all_s": seconds, "total_s": total,
            "worker_bytes": statistics.median(sent) if sent else float("nan"),
            "scatter_bytes": records[-1]["bytes_scattered"]}


def in_process_run(X, n_topics, n_iter):
    """Median seconds per iteration of the in-process 2-thread BatchLDA (from its progress lines)."""
    times = []

    class Capture:
        def write(self, line):
            if "iter" in line:
                times.append(float(line.rsplit(" ", 1)[-1].rstrip("s\n")))

        def flush(self):
            pass

    saved, sys.stderr = sys.stderr, Capture()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            BatchLDA(n_topics, max_iter=n_iter, tol=0, init="random", random_state=0, n_jobs=2, verbose=1).fit(X)
    finally:
        sys.stderr = saved
    per_iter = np.diff([0.0] + times)
    return {"median_s": statistics.median(per_iter[1:]), "all_s": list(per_iter)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000, help="documents in the scale-out corpus")
    parser.add_argument("--overhead-docs", type=int, default=50_000, help="documents in the overhead corpus")
    parser.add_argument("--terms", type=int, default=5000)
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--doc-length", type=float, default=30)
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--iters", type=int, default=4, help="iterations per fit (at least 3)")
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--data", default=str(Path(tempfile.gettempdir()) / "topicvb-bench-distributed"),
                        help="folder for the shards (reused when present)")
    parser.add_argument("--out", default=None, help="write a Markdown table here")
    args = parser.parse_args(argv)
    K, lines = args.topics, []

    def say(line=""):
        print(line, flush=True)
        lines.append(line)

    # 1. overhead
    X = make_lda_corpus(args.overhead_docs, args.terms, K, doc_length=args.doc_length, random_state=0).corpus.X
    X = X.tocsr().astype(np.float64)
    edges = np.linspace(0, X.shape[0], args.shards + 1).astype(int)
    parts = [X[a:b] for a, b in zip(edges[:-1], edges[1:])]
    inproc = in_process_run(X, K, args.iters)
    folder = Path(args.data)
    folder.mkdir(parents=True, exist_ok=True)
    small = []
    for p, part in enumerate(parts):
        small.append(folder / f"overhead-{args.overhead_docs}-{p}.npz")
        sp.save_npz(small[-1], part)
    dist = distributed_run(small, 2, K, args.iters)
    say(f"## Overhead: {X.shape[0]:,} docs, {X.shape[1]:,} terms, {X.nnz:,} non-zeros, K={K}, {args.shards} shards")
    say()
    say("| run | median s / iteration | all iterations (s) |")
    say("|---|---|---|")
    say(f"| in-process BatchLDA, n_jobs=2 | {inproc['median_s']:.2f} | {', '.join(f'{s:.2f}' for s in inproc['all_s'])} |")
    say(f"| fit_distributed, LocalCluster 2 workers x 1 thread | {dist['median_s']:.2f} | "
        f"{', '.join(f'{s:.2f}' for s in dist['all_s'])} |")
    say(f"| ratio distributed / in-process | {dist['median_s'] / inproc['median_s']:.2f} | |")
    say()

    # 2. scale-out
    started = time.perf_counter()
    shards = make_shards(folder, args.docs, args.terms, K, args.doc_length, args.shards)
    size = sum(p.stat().st_size for p in shards)
    nnz = sum(sp.load_npz(p).nnz for p in shards[:1]) * len(shards)
    say(f"## Scale-out: {args.docs:,} docs in {len(shards)} .npz shards ({size / 1e6:.0f} MB on disk, about "
        f"{nnz:,} non-zeros), {args.terms:,} terms, K={K} (generated/found in {time.perf_counter() - started:.0f} s)")
    say()
    say("| workers | median s / iteration | iterations (s) | scattered bytes / iteration | bytes sent by workers / "
        "iteration | K x V x 8 |")
    say("|---|---|---|---|---|---|")
    for n in [int(w) for w in args.workers.split(",")]:
        r = distributed_run(shards, n, K, args.iters)
        say(f"| {n} | {r['median_s']:.2f} | {', '.join(f'{s:.1f}' for s in r['all_s'])} | {r['scatter_bytes']:,} | "
            f"{r['worker_bytes']:,.0f} | {K * args.terms * 8:,} |")
    say()
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
