"""CollapsedLDA's memory (issue #22): counts-only sweeps against stored responsibilities and tomotopy.

Run from the repository root::

    python benchmarks/bench_cvb0_memory.py                  # both parts -> results/cvb0_memory.md, .json
    python benchmarks/bench_cvb0_memory.py --part 20ng --seeds 0 1 2
    python benchmarks/bench_cvb0_memory.py --part scaling --sizes 10000 100000 1000000 --ks 20 100

Every fit runs in a fresh subprocess: load (or generate) the matrix, a warm-up fit on 50 documents
(imports, compiled kernels), then the resident-set high-water mark is reset
(``/proc/self/clear_refs``; the C heap's free pages are first returned with ``malloc_trim``, so that
the fit cannot reuse them unseen) and the fit runs; "increase" is the high-water mark after the fit less
the resident set before it, "peak" the high-water mark itself (the matrix included), "lifetime" the
process's ru_maxrss (generating or loading the corpus included).

Part ``20ng``: 20 Newsgroups (``common.load_matrices``: the by-date train split, the shared
vectorizer settings), K = 100, ``CollapsedLDA`` with its defaults (moves on, ``tol=1e-5``,
``max_iter=200``, ``n_jobs`` = all cores) and ``storage="responsibilities"`` (today's dense CVB0) or
``"counts"`` (float64, and float32: ``dtype="float32"``), with fixed priors and with ``learn_priors=True``
(the recommended configuration);
each full fit's wall and CPU time and held-out perplexity by document completion
(``common.DocCompletion``, half of each test document observed, seed 0), per ``random_state``. tomotopy
``LDAModel`` (2 worker threads, 20 sweeps: its working set is allocated in the first) gives the memory
reference, its corpus (``add_doc``) included.

Part ``scaling``: ``CollapsedLDA(storage="counts", dtype="float32")`` on LDA-generated corpora
(``make_lda_corpus``: 5,000 terms, 20 true topics, mean length 50, seed 1; as ``bench_scaling.py``),
2 sweeps (``tol=0``; the working set is allocated in the first), against documents and K.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "cvb0_memory.md"
K_20NG = 100


def _trim():
    """Give the C heap's free pages back to the system (glibc ``malloc_trim``): pages freed by the loading keep
    counting in the resident set and would be reused by the fit unseen, hiding its allocations."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _measure(fit):
    """(RSS before, peak during, seconds, CPU seconds, result) of ``fit()`` after a reset of the high-water mark."""
    import gc

    gc.collect()
    _trim()
    before = common.current_rss()
    reset = common.reset_peak_rss()
    t0, c0 = time.perf_counter(), time.process_time()
    result = fit()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"rss_before": before, "peak": common.peak_rss(), "reset_ok": reset, "seconds": seconds, "cpu": cpu,
            "lifetime": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}, result


def child_20ng(spec: dict) -> dict:
    from bench_peers import tomotopy_model

    import topicvb

    m = common.load_matrices(verbose=False)
    X = m.X_train
    warnings.simplefilter("ignore")
    if spec["system"] == "tomotopy":
        tomotopy_model(X[:50], K_20NG).train(1, workers=2)
        out, _ = _measure(lambda: tomotopy_model(X, K_20NG).train(20, workers=2))
        return out
    params = {"storage": spec["storage"], "learn_priors": spec["learn"], "random_state": spec["seed"],
              "dtype": spec.get("dtype", "float64")}
    topicvb.CollapsedLDA(5, max_iter=2, **params).fit(X[:50])
    out, model = _measure(lambda: topicvb.CollapsedLDA(K_20NG, **params).fit(X))
    out["perplexity"] = float(common.DocCompletion(m.X_test, seed=0)(model.components_, model.doc_topic_prior_))
    out["n_iter"] = int(model.n_iter_)
    return out


def child_scaling(spec: dict) -> dict:
    import topicvb
    from topicvb.datasets import make_lda_corpus

    warnings.simplefilter("ignore")
    tiny = make_lda_corpus(200, 50, 3, random_state=0).corpus.X
    topicvb.CollapsedLDA(3, max_iter=2, storage="counts", dtype="float32").fit(tiny)
    X = make_lda_corpus(spec["docs"], 5000, 20, doc_length=50, random_state=1).corpus.X
    model = topicvb.CollapsedLDA(spec["k"], max_iter=2, tol=0, storage="counts", dtype="float32", random_state=0)
    out, _ = _measure(lambda: model.fit(X))
    out.update(nnz=int(X.nnz), matrix_bytes=int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes))
    return out


def run(kind: str, spec: dict) -> dict:
    r = common.run_json_subprocess([__file__, f"--child-{kind}", json.dumps(spec)], timeout=3600)
    return {**spec, **r}


def part_20ng(args, rows):
    specs = [{"system": "tomotopy", "storage": "-", "learn": False, "seed": 0}]
    for seed in args.seeds:
        for learn in (False, True):
            for storage, dtype in (("responsibilities", "float64"), ("counts", "float64"), ("counts", "float32")):
                specs.append({"system": "CollapsedLDA", "storage": storage, "dtype": dtype, "learn": learn,
                              "seed": seed})
    for spec in specs:
        print(f"[cvb0-memory] 20ng {spec}", file=sys.stderr, flush=True)
        rows.append(run("20ng", spec))


def part_scaling(args, rows):
    for k in args.ks:
        for docs in args.sizes:
            spec = {"docs": docs, "k": k}
            print(f"[cvb0-memory] scaling {spec}", file=sys.stderr, flush=True)
            rows.append(run("scaling", spec))


def write(args, rows_20ng, rows_scaling):
    lines = ["# CollapsedLDA memory: counts-only sweeps (issue #22)", "",
             f"Command: `python benchmarks/bench_cvb0_memory.py {' '.join(args.argv)}` ({common.machine_line()}).", ""]
    if rows_20ng:
        tomo = next(r for r in rows_20ng if r["system"] == "tomotopy")
        tomo_inc = tomo["peak"] - tomo["rss_before"]
        table = []
        for r in rows_20ng:
            inc = r["peak"] - r["rss_before"]
            name = "tomotopy LDAModel (20 sweeps, 2 threads, its corpus included)" if r["system"] == "tomotopy" else \
                (f"CollapsedLDA storage={r['storage']!r}"
                 f"{', dtype=' + repr(r['dtype']) if r.get('dtype', 'float64') != 'float64' else ''}"
                 f"{', learn_priors=True' if r['learn'] else ''}")
            table.append([name, r["seed"], f"{common.mib(inc):.1f}", f"{inc / tomo_inc:.2f}", f"{common.mib(r['peak']):.0f}",
                          f"{r['seconds']:.1f}", f"{r['cpu']:.1f}", r.get("n_iter", "-"),
                          f"{r['perplexity']:.1f}" if "perplexity" in r else "-"])
        lines += ["## 20 Newsgroups, K = 100", "",
                  common.md_table(["system", "random_state", "RSS increase during the fit (MiB)", "x tomotopy",
                                   "peak RSS (MiB)", "fit wall s", "fit CPU s", "sweeps", "held-out perplexity"],
                                  table), ""]
        for learn in (False, True):
            pairs = {}
            for r in rows_20ng:
                if r["system"] == "CollapsedLDA" and r["learn"] == learn:
                    pairs.setdefault(r["seed"], {})[(r["storage"], r.get("dtype", "float64"))] = r
            for dtype in ("float64", "float32"):
                dense = ("responsibilities", "float64")
                ratios = [(p[("counts", dtype)]["perplexity"] / p[dense]["perplexity"],
                           p[("counts", dtype)]["seconds"] / p[dense]["seconds"]) for p in pairs.values()
                          if dense in p and ("counts", dtype) in p]
                if ratios:
                    lines.append(f"- {'learned' if learn else 'fixed'} priors: counts ({dtype}) / responsibilities, "
                                 f"held-out perplexity {', '.join(f'{a:.4f}' for a, _ in ratios)} (mean "
                                 f"{np.mean([a for a, _ in ratios]):.4f}); fit wall time "
                                 f"{', '.join(f'{b:.2f}' for _, b in ratios)}.")
        lines.append("")
    if rows_scaling:
        table = [[r["docs"], r["nnz"], r["k"], f"{common.mib(r['peak'] - r['rss_before']):.0f}",
                  f"{common.mib(r['peak']):.0f}", f"{common.mib(r['lifetime']):.0f}",
                  f"{common.mib(r['matrix_bytes']):.0f}", f"{r['seconds'] / 2:.2f}"] for r in rows_scaling]
        lines += ["## Peak memory against documents and K (`storage=\"counts\"`, float32, 2 sweeps)", "",
                  common.md_table(["documents", "non-zeros", "K", "RSS increase during the fit (MiB)",
                                   "peak RSS during the fit (MiB)", "process lifetime peak (MiB)", "CSR matrix (MiB)",
                                   "s / sweep"], table), ""]
    common.write_report("\n".join(lines), args.out)
    args.out.with_suffix(".json").write_text(json.dumps({"20ng": rows_20ng, "scaling": rows_scaling}, indent=1))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0].startswith("--child-"):
        kind = argv[0][len("--child-"):]
        out = (child_20ng if kind == "20ng" else child_scaling)(json.loads(argv[1]))
        print(json.dumps(out))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["20ng", "scaling", "both"], default="both")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000, 1000000])
    ap.add_argument("--ks", type=int, nargs="+", default=[100])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    args.argv = argv
    rows_20ng, rows_scaling = [], []
    if args.part in ("20ng", "both"):
        part_20ng(args, rows_20ng)
    if args.part in ("scaling", "both"):
        part_scaling(args, rows_scaling)
    write(args, rows_20ng, rows_scaling)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    main()
