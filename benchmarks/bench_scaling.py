"""How cost grows: time per iteration and peak memory against corpus size and number of topics.

Every measurement runs in a fresh subprocess (so ru_maxrss is that fit's peak): a warm-up fit on a
tiny corpus compiles (or loads) the kernels, then the model is fitted for a fixed number of
iterations (tol=0) and the median time per iteration is taken from the per-iteration timings.
Synthetic corpora come from make_lda_corpus with the same statistics at every size.

    python benchmarks/bench_scaling.py --out benchmarks/results/scaling.md [--plot benchmarks/results/scaling.png]

The fitted slopes of log(time) against log(size) and log(K) are the measured exponents; the
design target is time linear in n_nonzero x K (exponent 1 in both).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

MODELS = ["PLSA", "BatchLDA", "CollapsedLDA", "OnlineLDA", "StochasticCollapsedLDA"]


def child(model: str, n_docs: int, k: int, iters: int, n_jobs: int) -> None:
    import warnings

    import topicvb
    from topicvb.datasets import make_lda_corpus

    warnings.simplefilter("ignore")
    cls = getattr(topicvb, model)
    tiny = make_lda_corpus(200, 50, 3, random_state=0).corpus.X
    cls(3, max_iter=2, random_state=0).fit(tiny)  # compile or load the kernels outside the timing
    X = make_lda_corpus(n_docs, 5000, 20, doc_length=50, random_state=1).corpus.X
    extra = {"batch_size": 1000} if model in ("OnlineLDA", "StochasticCollapsedLDA") else {}
    if model == "CollapsedLDA":
        extra["dtype"] = "float32"  # n_nonzero x K responsibilities
    times = []
    est = cls(k, max_iter=1, tol=0, random_state=0, n_jobs=n_jobs, **extra)
    # time single iterations through the verbose reports: one fit of `iters` iterations
    import io
    import logging

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("topicvb.models")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    started = time.perf_counter()
    est.set_params(max_iter=iters).fit(X)
    total = time.perf_counter() - started
    stamps = [float(line.rsplit(" ", 1)[-1].rstrip("s")) for line in stream.getvalue().splitlines() if "iter " in line]
    if len(stamps) >= 2:
        times = np.diff([0.0] + stamps)[1:]  # drop the first iteration (initialisation effects)
    else:
        times = [total / iters]
    print(json.dumps({"model": model, "docs": n_docs, "nnz": int(X.nnz), "k": k,
                      "sec_per_iter": float(np.median(times)),
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def run(model, n_docs, k, iters, n_jobs):
    cmd = [sys.executable, __file__, "--child", model, str(n_docs), str(k), str(iters), str(n_jobs)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return json.loads(out)


def slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--ks", type=int, nargs="+", default=[10, 50, 200, 500])
    parser.add_argument("--k-docs", type=int, default=10_000, help="corpus size for the K sweep")
    parser.add_argument("--size-k", type=int, default=20, help="K for the size sweep")
    parser.add_argument("--iters", type=int, default=4)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--models", nargs="+", default=MODELS)
    parser.add_argument("--out", default=None)
    parser.add_argument("--plot", default=None)
    parser.add_argument("--child", nargs=5, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        m, d, k, it, nj = args.child
        child(m, int(d), int(k), int(it), int(nj))
        return
    rows = []
    for model in args.models:
        for n in args.sizes:
            rows.append({**run(model, n, args.size_k, args.iters, args.n_jobs), "sweep": "size"})
            print(json.dumps(rows[-1]), flush=True)
        for k in args.ks:
            rows.append({**run(model, args.k_docs, k, args.iters, args.n_jobs), "sweep": "k"})
            print(json.dumps(rows[-1]), flush=True)
    lines = ["## How cost grows with corpus size and K", "",
             f"Command: `python benchmarks/bench_scaling.py {' '.join(sys.argv[1:])}`  ",
             f"Machine: {common.machine_line()}; "
             f"synthetic corpora (V=5000, mean length 50), n_jobs={args.n_jobs}, median seconds per iteration "
             f"over {args.iters} iterations (first dropped), peak RSS of a fresh process per fit. Online models: "
             "one iteration = one pass in batches of 1000.", "",
             "| model | sweep | documents | non-zeros | K | s / iteration | peak RSS (MiB) |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['sweep']} | {r['docs']:,} | {r['nnz']:,} | {r['k']} | "
                     f"{r['sec_per_iter']:.3f} | {r['peak_rss_mib']:.0f} |")
    lines += ["", "Measured exponents (slope of log time against log non-zeros at fixed K, and against log K at "
              "fixed corpus):", "", "| model | time vs non-zeros | time vs K | memory vs non-zeros |", "|---|---:|---:|---:|"]
    for model in args.models:
        size = [r for r in rows if r["model"] == model and r["sweep"] == "size"]
        ks = [r for r in rows if r["model"] == model and r["sweep"] == "k"]
        lines.append(f"| {model} | {slope([r['nnz'] for r in size], [r['sec_per_iter'] for r in size]):.2f} | "
                     f"{slope([r['k'] for r in ks], [r['sec_per_iter'] for r in ks]):.2f} | "
                     f"{slope([r['nnz'] for r in size], [r['peak_rss_mib'] for r in size]):.2f} |")
    common.write_report("\n".join(lines) + "\n", args.out)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for model in args.models:
            size = [r for r in rows if r["model"] == model and r["sweep"] == "size"]
            ks = [r for r in rows if r["model"] == model and r["sweep"] == "k"]
            axes[0].loglog([r["nnz"] for r in size], [r["sec_per_iter"] for r in size], "o-", label=model)
            axes[1].loglog([r["k"] for r in ks], [r["sec_per_iter"] for r in ks], "o-", label=model)
        axes[0].set(xlabel="non-zeros", ylabel="seconds per iteration", title=f"K = {args.size_k}")
        axes[1].set(xlabel="K", ylabel="seconds per iteration", title=f"{args.k_docs:,} documents")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
