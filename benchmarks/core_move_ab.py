"""A/B check for a refactoring that must not change results or speed (issue #20, the variational core).

Two source trees (the commit before the move, extracted with ``git archive``, and the working tree)
are imported in turn by subprocesses (``PYTHONPATH``), so the same script runs each tree's code:

    git archive BASE | tar -x -C /tmp/base
    python benchmarks/core_move_ab.py results --tree /tmp/base --out base.npz
    python benchmarks/core_move_ab.py results --tree . --out new.npz
    python benchmarks/core_move_ab.py compare base.npz new.npz        # exit 1 when any array differs
    python benchmarks/core_move_ab.py time --old /tmp/base --new . --repeats 5

``results`` fits every estimator (several settings each) with a fixed ``random_state`` on UCI KOS
and on an LDA-generated corpus and stores every fitted array, the bound history and the
document-topic proportions of 200 documents; ``compare`` reports the largest relative difference of
each. ``time`` alternates old and new subprocesses, each timing a warm fit (the first, compiling, fit
is not timed) on one thread by its process CPU time (robust to other processes on a shared
machine), and reports the median of each tree and the ratio new / old per setting.
The corpora are read with NumPy and SciPy alone, so nothing but the models' code differs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

REPO = Path(__file__).resolve().parent.parent


def corpora_dir() -> Path:
    return Path(os.environ.get("TOPICVB_CORPORA", REPO.parent / "shared" / "corpora"))


def kos_matrix() -> sp.csr_matrix:
    """UCI KOS (3,430 blog posts, 6,906 terms) as CSR counts, read with NumPy only."""
    path = corpora_dir() / "uci-kos" / "docword.kos.txt.gz"
    with gzip.open(path, "rt") as fh:
        n_docs, n_terms = int(fh.readline()), int(fh.readline())
        fh.readline()
        triples = np.loadtxt(fh, dtype=np.int64, ndmin=2)
    return sp.csr_matrix((triples[:, 2].astype(np.float64), (triples[:, 0] - 1, triples[:, 1] - 1)),
                         shape=(n_docs, n_terms))


def lda_matrix(n_docs=1500, n_terms=800, n_topics=12, length=120, seed=0) -> sp.csr_matrix:
    """Counts drawn from LDA with known topics (alpha 0.1, eta 0.05), with NumPy only."""
    rng = np.random.default_rng(seed)
    topics = rng.dirichlet(np.full(n_terms, 0.05), size=n_topics)
    theta = rng.dirichlet(np.full(n_topics, 0.1), size=n_docs)
    rows = [rng.multinomial(length, theta[d] @ topics) for d in range(n_docs)]
    return sp.csr_matrix(np.asarray(rows, dtype=np.float64))


def settings(quick: bool):
    """(name, class name, parameters) of every fit."""
    it = 8 if quick else 15
    K = 20
    common = {"random_state": 0}
    return [
        ("batch", "BatchLDA", dict(n_components=K, max_iter=it, **common)),
        ("batch_learn", "BatchLDA", dict(n_components=K, max_iter=it, learn_priors=True, **common)),
        ("batch_random_r1", "BatchLDA", dict(n_components=K, max_iter=it, init="random", restart_every=1,
                                             e_step_acceleration=None, **common)),
        ("batch_f32", "BatchLDA", dict(n_components=K, max_iter=it, dtype="float32", **common)),
        ("online", "OnlineLDA", dict(n_components=K, max_iter=3, batch_size=256, **common)),
        ("online_learn", "OnlineLDA", dict(n_components=K, max_iter=3, batch_size=256, learn_priors=True, **common)),
        ("plsa", "PLSA", dict(n_components=K, max_iter=it, **common)),
        ("plsa_simul", "PLSA", dict(n_components=K, max_iter=it, update="simultaneous", **common)),
        ("collapsed", "CollapsedLDA", dict(n_components=K, max_iter=it, **common)),
        ("collapsed_cvb_learn", "CollapsedLDA", dict(n_components=K, max_iter=it + 12, variant="cvb",
                                                      learn_priors=True, **common)),
        ("collapsed_per_sweep", "CollapsedLDA", dict(n_components=K, max_iter=it, topic_update="per_sweep",
                                                     **common)),
        ("collapsed_learn", "CollapsedLDA", dict(n_components=K, max_iter=it + 12, learn_priors=True, **common)),
        ("collapsed_learn_f32", "CollapsedLDA", dict(n_components=K, max_iter=it + 12, learn_priors=True,
                                                     dtype="float32", **common)),
        ("scvb0", "StochasticCollapsedLDA", dict(n_components=K, max_iter=3, **common)),
        ("hdp", "HDP", dict(max_components=K, max_iter=it + 12, **common)),
    ]


def _fitted_arrays(model, X):
    out = {}
    for name, value in vars(model).items():
        if name.endswith("_") and not name.startswith("_"):
            if isinstance(value, np.ndarray) and value.dtype.kind in "fiu":
                out[name] = value
            elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
                out[name] = np.asarray(value)
    out["transform"] = model.transform(X[:200])
    return out


def cmd_results(args):
    import warnings

    import topicvb.models as models

    corpora = {"lda": lda_matrix()}
    if (corpora_dir() / "uci-kos" / "docword.kos.txt.gz").exists():
        corpora["kos"] = kos_matrix()
    else:
        print("[ab] UCI KOS not found; only the LDA-generated corpus is used", file=sys.stderr)
    arrays, times = {}, {}
    for cname, X in corpora.items():
        for name, cls_name, params in settings(args.quick):
            cls = getattr(models, cls_name)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                model = cls(**params).fit(X)
                times[f"{cname}/{name}"] = time.perf_counter() - t0
                if cls_name in ("OnlineLDA", "StochasticCollapsedLDA"):
                    fresh = cls(**params)
                    for start in range(0, min(X.shape[0], 1024), 256):
                        fresh.partial_fit(X[start:start + 256])
                    for key, value in _fitted_arrays(fresh, X).items():
                        arrays[f"{cname}/{name}/partial/{key}"] = value
            for key, value in _fitted_arrays(model, X).items():
                arrays[f"{cname}/{name}/{key}"] = value
            print(f"[ab] {cname}/{name}: {times[f'{cname}/{name}']:.2f} s", file=sys.stderr)
    np.savez(args.out, **arrays)
    print(json.dumps({"tree": str(args.tree), "arrays": len(arrays)}))


def cmd_compare(args):
    a, b = np.load(args.a), np.load(args.b)
    keys = sorted(set(a.files) | set(b.files))
    worst, differ = 0.0, []
    for key in keys:
        if key not in a.files or key not in b.files:
            differ.append((key, "missing in " + ("b" if key in a.files else "a")))
            continue
        x, y = a[key], b[key]
        if x.shape != y.shape:
            differ.append((key, f"shape {x.shape} vs {y.shape}"))
            continue
        if np.array_equal(x, y):
            continue
        rel = float(np.max(np.abs(x.astype(np.float64) - y) / np.maximum(np.abs(x.astype(np.float64)), 1e-300)))
        worst = max(worst, rel)
        differ.append((key, f"max relative difference {rel:.3g}"))
    print(f"{len(keys)} arrays compared; {len(keys) - len(differ)} identical to the last bit")
    for key, what in differ:
        print(f"  {key}: {what}")
    return 0 if not differ else 1


_TIMING_CHILD = r"""
import json, sys, time, warnings
import numpy as np
sys.path.insert(0, {bench!r})
from core_move_ab import kos_matrix, lda_matrix
import topicvb.models as models
X = kos_matrix() if {corpus!r} == "kos" else lda_matrix()
cls = getattr(models, {cls!r})
warnings.simplefilter("ignore")
params = {{**{params!r}, "n_jobs": 1}}  # one thread: CPU time is then robust to other processes on the machine
cls(**{{**params, "max_iter": 1}}).fit(X[:50])   # compile / load the cache, untimed
t0 = time.process_time()
cls(**params).fit(X)
print(json.dumps({{"seconds": time.process_time() - t0}}))
"""


def cmd_time(args):
    trees = {"old": Path(args.old).resolve(), "new": Path(args.new).resolve()}
    corpus = "kos" if (corpora_dir() / "uci-kos" / "docword.kos.txt.gz").exists() else "lda"
    chosen = [s for s in settings(False) if s[0] in args.only] if args.only else settings(False)
    rows = []
    for name, cls_name, params in chosen:
        seconds = {"old": [], "new": []}
        for r in range(args.repeats):
            for label in (("old", "new") if r % 2 == 0 else ("new", "old")):
                code = _TIMING_CHILD.format(bench=str(Path(__file__).resolve().parent), corpus=corpus, cls=cls_name,
                                            params=params)
                env = {**os.environ, "PYTHONPATH": str(trees[label])}
                out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                     check=True, cwd=str(trees[label]))
                seconds[label].append(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])
        old, new = statistics.median(seconds["old"]), statistics.median(seconds["new"])
        rows.append((name, old, new, new / old))
        print(f"[ab] {name}: old {old:.3f} s, new {new:.3f} s, new/old {new / old:.3f}  (old runs "
              f"{', '.join(f'{x:.3f}' for x in seconds['old'])}; new runs {', '.join(f'{x:.3f}' for x in seconds['new'])})",
              file=sys.stderr)
    print(f"| setting ({corpus}, 1 thread, CPU s, medians of {args.repeats}) | old s | new s | new / old |")
    print("|---|---|---|---|")
    for name, old, new, ratio in rows:
        print(f"| {name} | {old:.3f} | {new:.3f} | {ratio:.3f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("results", help="fit every estimator with fixed seeds and store the arrays")
    p.add_argument("--tree", default=".", help="the source tree being run (informational; set PYTHONPATH)")
    p.add_argument("--out", required=True)
    p.add_argument("--quick", action="store_true", help="fewer iterations")
    p = sub.add_parser("compare", help="compare two results files")
    p.add_argument("a")
    p.add_argument("b")
    p = sub.add_parser("time", help="interleaved timing of two source trees")
    p.add_argument("--old", required=True)
    p.add_argument("--new", default=".")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--only", nargs="*", help="setting names (default: all)")
    args = parser.parse_args(argv)
    if args.command == "results":
        if args.tree != ".":
            sys.path.insert(0, str(Path(args.tree).resolve()))
        return cmd_results(args)
    if args.command == "compare":
        return cmd_compare(args)
    return cmd_time(args)


if __name__ == "__main__":
    sys.exit(main())
