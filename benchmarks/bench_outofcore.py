"""Out-of-core training: OnlineLDA streamed from UCI docword files of growing size.

For each size, a synthetic corpus is written to disk in UCI format (100k-document blocks drawn
with make_lda_corpus, each block with its own random topics: throughput and memory do not depend
on the topics), then a fresh subprocess streams it with ``iter_uci`` into ``OnlineLDA.partial_fit``
(one pass) and reports documents per second and its peak resident memory (ru_maxrss). Memory
must stay flat as the corpus grows: it is bounded by the batch and the model.

    python benchmarks/bench_outofcore.py --sizes 250000 1000000 2000000 --out benchmarks/results/outofcore.md
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

BLOCK = 100_000


def write_corpus(path: Path, n_docs: int, n_terms: int, n_topics: int, doc_length: int, seed: int) -> int:
    """Write a UCI docword file block by block; returns the number of data lines."""
    from topicvb.datasets import make_lda_corpus

    nnz = 0
    with open(path, "w") as f:
        f.write(f"{n_docs}\n{n_terms}\n{'':>20}\n")  # NNZ placeholder, rewritten at the end
        for start in range(0, n_docs, BLOCK):
            size = min(BLOCK, n_docs - start)
            X = make_lda_corpus(size, n_terms, n_topics, doc_length=doc_length, random_state=seed + start).corpus.X
            rows = np.repeat(np.arange(size, dtype=np.int64), np.diff(X.indptr)) + start + 1
            block = np.column_stack([rows, X.indices.astype(np.int64) + 1, X.data.astype(np.int64)])
            np.savetxt(f, block, fmt="%d")
            nnz += block.shape[0]
    with open(path, "r+") as f:
        f.seek(len(f"{n_docs}\n{n_terms}\n"))
        f.write(f"{nnz:>20}")
    return nnz


def child(path: str, n_topics: int, batch_size: int, n_jobs: int) -> None:
    from topicvb import OnlineLDA
    from topicvb.datasets import iter_uci, uci_header

    n_docs, n_terms, nnz = uci_header(path)
    model = OnlineLDA(n_topics, batch_size=batch_size, total_samples=n_docs, n_jobs=n_jobs, random_state=0)
    started = time.perf_counter()
    for batch in iter_uci(path, batch_size=batch_size):
        model.partial_fit(batch)
    seconds = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"docs": n_docs, "nnz": nnz, "seconds": seconds, "docs_per_s": n_docs / seconds,
                      "peak_rss_mib": peak_kib / 1024, "batches": model.n_batch_iter_}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[250_000, 1_000_000, 2_000_000])
    parser.add_argument("--terms", type=int, default=5000)
    parser.add_argument("--topics", type=int, default=20)
    parser.add_argument("--doc-length", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=2000)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--workdir", default=None, help="where to write the corpora (default: a temp dir)")
    parser.add_argument("--out", default=None, help="markdown file to write")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.topics, args.batch_size, args.n_jobs)
        return
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="topicvb-ooc-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        path = workdir / f"docword.synthetic{size}.txt"
        t0 = time.perf_counter()
        nnz = write_corpus(path, size, args.terms, args.topics, args.doc_length, seed=1)
        write_s = time.perf_counter() - t0
        cmd = [sys.executable, __file__, "--child", str(path), "--topics", str(args.topics), "--batch-size",
               str(args.batch_size), "--n-jobs", str(args.n_jobs)]
        result = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
        result.update(write_s=write_s, file_mib=path.stat().st_size / 2**20)
        rows.append(result)
        print(json.dumps(result), flush=True)
        path.unlink()
    lines = [
        "## Out-of-core training: OnlineLDA streamed from disk",
        "",
        f"Command: `python benchmarks/bench_outofcore.py {' '.join(sys.argv[1:])}`  ",
        f"Machine: {common.machine_line()}; "
        f"K={args.topics}, V={args.terms}, mean document length {args.doc_length}, batch {args.batch_size}, "
        f"n_jobs={args.n_jobs}, one pass of `iter_uci` -> `partial_fit`.",
        "",
        "| documents | non-zeros | file (MiB) | train s | documents/s | peak RSS (MiB) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['docs']:,} | {r['nnz']:,} | {r['file_mib']:.0f} | {r['seconds']:.1f} | "
                     f"{r['docs_per_s']:,.0f} | {r['peak_rss_mib']:.0f} |")
    common.write_report("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
