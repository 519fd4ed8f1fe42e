"""How evenly the VB E-step's work splits between threads, and its 1 -> 2 thread speed-up.

Run from the repository root::

    python benchmarks/bench_threads.py [--k 20 100] [--repeats 5] [--out benchmarks/results/threads.md]

On the 20 Newsgroups training matrix (the cached matrix of ``bench_models.py``), a BatchLDA is fitted
for a few iterations; then the E-step kernel (``topicvb._kernels.estep.e_step``) runs on its topics,
from the same random start, with 1 and with 2 numba threads (medians of ``--repeats`` interleaved
runs, each with the previous solution to compare with, as in a batch fit), and whole BatchLDA fits of
``--fit-iters`` iterations are timed with ``n_jobs=1`` and ``n_jobs=2`` (seconds per iteration,
including the first, which loads the cached kernels).

Balance: the kernel's ``prange`` runs over work items of about 64 documents, and numba hands each
thread a contiguous range of items. The work of a document is taken as its number of gamma updates
times (its non-zeros + K), from the kernel's own update counts; the script reports the ratio of the
two threads' work for contiguous items (documents 0-63, 64-127, ...) and for the strided items the
kernel uses (documents c, c + n, c + 2n, ...). The larger share bounds the 2-thread speed-up at
total / larger share.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def thread_shares(work: np.ndarray, n_items: int, strided: bool) -> tuple[float, float]:
    """Work of the two threads when items 0 .. n_items/2 - 1 go to the first one."""
    n = work.shape[0]
    item = np.arange(n) % n_items if strided else np.minimum(np.arange(n) // 64, n_items - 1)
    first = item < n_items // 2
    return float(work[first].sum()), float(work[~first].sum())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--k", type=int, nargs="+", default=[20, 100])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--fit-iters", type=int, default=5, help="BatchLDA iterations before measuring")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)

    import numba
    from scipy.special import digamma

    from topicvb import BatchLDA
    from topicvb._kernels import estep

    warnings.simplefilter("ignore")
    m = common.load_matrices("topicvb")
    X = m.X_train.tocsr()
    X.sort_indices()
    indptr, indices, data = X.indptr.astype(np.int64), X.indices.astype(np.int32), X.data.astype(np.float64)
    lengths = np.diff(indptr)
    n_items = (X.shape[0] + 63) // 64
    lines = ["# E-step thread balance and 1 -> 2 thread speed-up", "",
             f"Command: `python benchmarks/bench_threads.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
             "", *[f"- {k}: {v}" for k, v in common.machine_info().items()], "",
             f"20 Newsgroups train matrix: {X.shape[0]} x {X.shape[1]}, {X.nnz} non-zeros; BatchLDA fitted for "
             f"{args.fit_iters} iterations, then e_step timed on its topics (median of {args.repeats}, 1 and 2 "
             "threads interleaved).", "",
             "| K | work ratio, contiguous items | work ratio, strided items | bound on 2-thread speed-up "
             "(strided) | e_step s, 1 thread | e_step s, 2 threads | speed-up | BatchLDA s / iteration, 1 thread "
             "| 2 threads | speed-up |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for K in args.k:
        model = BatchLDA(K, max_iter=args.fit_iters, tol=0, random_state=0).fit(X)
        lam = model.components_
        elog = digamma(lam) - digamma(lam.sum(axis=1, keepdims=True))
        ebeta_t = np.ascontiguousarray(np.exp(elog - elog.max(axis=0)).T)
        alpha = np.asarray(model.doc_topic_prior_, dtype=np.float64)
        rng = np.random.default_rng(0)
        prev, _, _ = estep.e_step(indptr, indices, data, ebeta_t, alpha, rng.gamma(100.0, 0.01, (X.shape[0], K)),
                                  np.zeros((0, K)), 100, 1e-3, False, True)
        start = rng.gamma(100.0, 0.01, (X.shape[0], K))
        times = {1: [], 2: []}
        for _ in range(args.repeats):
            for nt in (1, 2):
                numba.set_num_threads(nt)
                t0 = time.perf_counter()
                _, _, n_updates = estep.e_step(indptr, indices, data, ebeta_t, alpha, start, prev, 100, 1e-3, True, True)
                times[nt].append(time.perf_counter() - t0)
        work = n_updates * (lengths + K)
        a, b = thread_shares(work, n_items, strided=False)
        c, d = thread_shares(work, n_items, strided=True)
        t1, t2 = statistics.median(times[1]), statistics.median(times[2])
        fits = {1: [], 2: []}  # whole iterations (E-step, M-step, exact ELBO), from the same start
        for _ in range(max(1, args.repeats // 2)):
            for nt in (1, 2):
                t0 = time.perf_counter()
                BatchLDA(K, max_iter=args.fit_iters, tol=0, random_state=0, n_jobs=nt).fit(X)
                fits[nt].append((time.perf_counter() - t0) / args.fit_iters)
        f1, f2 = statistics.median(fits[1]), statistics.median(fits[2])
        row = (f"| {K} | {max(a, b) / min(a, b):.2f} | {max(c, d) / min(c, d):.2f} | {(c + d) / max(c, d):.2f} | "
               f"{t1:.3f} | {t2:.3f} | {t1 / t2:.2f} | {f1:.3f} | {f2:.3f} | {f1 / f2:.2f} |")
        lines.append(row)
        print(row, flush=True)
    common.write_report("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
