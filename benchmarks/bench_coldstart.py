"""Cold start: what the first run pays for numba compilation, in fresh processes with an empty cache.

Run from the repository root::

    python benchmarks/bench_coldstart.py --label after             # every part, 3 repeats
    python benchmarks/bench_coldstart.py --label quick --repeats 1 --models batch --no-demo
    python benchmarks/bench_coldstart.py --label after --tests     # also the cold kernel tests

Parts (each run in fresh ``python`` subprocesses, interleaved round by round):

fits   For each estimator (default parameters, ``n_components=10``, ``random_state=0``) on a small
       corpus (UCI KOS, 3,430 documents, from the shared corpora; a synthetic corpus when absent): a
       process with a new, empty ``NUMBA_CACHE_DIR`` imports topicvb, fits (the *cold first fit*),
       transforms 100 documents, then fits and transforms again in the same process (*in-process
       warm*: the kernels are in memory). A second process on the same, now filled, cache folder
       fits once (*warm cache*: the kernels load from disk). Compilation is measured two ways: the
       cold first fit minus the in-process warm fit, and directly, as the time spent inside numba's
       ``numba:compile`` events (top level only; nested compilations are part of their caller's).
demo   ``python -m topicvb demo`` (the default model) with an empty ``NUMBA_CACHE_DIR`` (cold) and
       then on the filled one (warm): wall time of the whole command and the cold / warm ratio. The
       demo's text cache (``$TOPICVB_CACHE``) is left as it is: it is warm after the first round.
tests  (``--tests``) ``pytest tests/kernels -q`` (``--test-paths``, ``--test-marker``) with an empty
       cache and then a filled one.
warm   (``--warm-compare OTHER_CHECKOUT``) the warm fit time of each estimator of ``--models`` in this
       checkout and in another one (e.g. a copy of the tree before a kernel change), with ``n_jobs`` 1
       and 2, in alternating fresh processes (``--warm-rounds`` each), each tree with its own filled
       cache; every timed fit waits (at most ``--quiet-wait`` s) for a quiet machine: a change that cuts
       compile time must not slow the fits down. Reported as medians and the ratio this / other.

The machine may be shared: every row reports the CPU share other processes used while it ran
(from ``/proc/stat``, as ``common.LoadMeter``), and the compile times are also given as CPU
seconds of the measured process (compilation is single-threaded, so its CPU time is little
affected by other processes, unlike its wall time). Results are added under ``--label`` to
``--json`` (default ``benchmarks/results/coldstart.json``), and every label in that file is
written as a table to ``--out`` (default ``benchmarks/results/coldstart.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

MODELS = ("batch", "online", "plsa", "collapsed", "recommended", "scvb0")
CORPORA = None  # the shared corpora folder as this checkout finds it (set in main)
N_TOPICS = 10

WORKER = r"""
import json, os, sys, time, warnings
t_start = time.perf_counter()
from numba.core import event as _ev
numba_import_s = time.perf_counter() - t_start

_stack, _top = [], []


class _Compiles(_ev.Listener):
    # top-level numba:compile events: (name, wall s, CPU s); nested ones count in their caller's
    def on_start(self, event):
        _stack.append((time.perf_counter(), time.process_time()))

    def on_end(self, event):
        t0, c0 = _stack.pop()
        if not _stack:
            d = event.data["dispatcher"]
            _top.append((f"{d.py_func.__module__}.{d.py_func.__qualname__}", time.perf_counter() - t0,
                         time.process_time() - c0))


_ev.register("numba:compile", _Compiles())
t0 = time.perf_counter()
import topicvb
import_s = numba_import_s + time.perf_counter() - t0  # (topicvb imports numba lazily)
import numpy as np
import scipy.sparse as sp

spec = json.loads(sys.argv[1])
from topicvb.datasets import find_corpora_dir, make_lda_corpus, read_uci
root = find_corpora_dir()
kos = None if root is None else root / "uci-kos" / "docword.kos.txt.gz"
if kos is not None and kos.is_file() and not spec["synthetic"]:
    X, corpus = read_uci(kos).X, "UCI KOS"
else:
    X, corpus = make_lda_corpus(2000, 2000, 10, random_state=0)[0].X, "synthetic (make_lda_corpus 2000 x 2000)"
if spec["docs"]:
    X = X[:spec["docs"]]
X = sp.csr_matrix(X)
K = spec["k"]
makers = {
    "batch": lambda n_jobs=None: topicvb.BatchLDA(K, random_state=0, n_jobs=n_jobs),
    "online": lambda n_jobs=None: topicvb.OnlineLDA(K, random_state=0, n_jobs=n_jobs),
    "plsa": lambda n_jobs=None: topicvb.PLSA(K, random_state=0, n_jobs=n_jobs),
    "collapsed": lambda n_jobs=None: topicvb.CollapsedLDA(K, random_state=0, n_jobs=n_jobs),
    "recommended": lambda n_jobs=None: topicvb.CollapsedLDA(K, random_state=0, learn_priors=True, n_jobs=n_jobs),
    "scvb0": lambda n_jobs=None: topicvb.StochasticCollapsedLDA(K, random_state=0, n_jobs=n_jobs),
}
res = {"import_s": import_s, "corpus": f"{corpus}, {X.shape[0]} x {X.shape[1]}, {X.nnz} non-zeros",
       "load": os.getloadavg()[0]}


def timed(key, fn):
    n0 = len(_top)
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    res[key + "_s"] = time.perf_counter() - w
    res[key + "_cpu"] = time.process_time() - c
    res[key + "_compile_s"] = sum(t[1] for t in _top[n0:])
    res[key + "_compile_cpu"] = sum(t[2] for t in _top[n0:])
    res[key + "_compiled"] = [t[0] for t in _top[n0:]]
    return out


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if spec.get("warm_only"):  # kernels loaded by small fits first; then fits timed in quiet moments
        sys.path.insert(0, spec["bench_dir"])
        import common
        fits = []
        for n_jobs in spec["jobs"]:
            makers[spec["model"]](n_jobs).fit(X[:200])
        for n_jobs in spec["jobs"] * 2:
            common.wait_for_quiet(max_wait=spec["quiet_wait"], threshold=0.1)
            with common.LoadMeter() as meter:
                w, c = time.perf_counter(), time.process_time()
                makers[spec["model"]](n_jobs).fit(X)
                fits.append([n_jobs, time.perf_counter() - w, time.process_time() - c])
            fits[-1].append(meter.foreign_share)
        res["warm_fits"] = fits
        print(json.dumps(res))
        sys.exit(0)
    m = timed("fit1", lambda: makers[spec["model"]]().fit(X))
    if not spec["once"]:
        timed("transform1", lambda: m.transform(X[:100]))
        m2 = timed("fit2", lambda: makers[spec["model"]]().fit(X))
        timed("transform2", lambda: m2.transform(X[:100]))
res["process_s"] = time.perf_counter() - t_start
print(json.dumps(res))
"""


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run(cmd, env, timeout=1800, cwd=None):
    """Run ``cmd`` (a list) with ``env`` added, in ``cwd`` (default: this checkout, whose ``topicvb`` the
    child then imports); returns (stdout, wall s, child CPU s, foreign share)."""
    full = {**os.environ, **env}
    if "TOPICVB_CORPORA" not in full and CORPORA is not None:  # (a copy of the tree elsewhere finds them too)
        full["TOPICVB_CORPORA"] = str(CORPORA)
    with common.LoadMeter() as m:
        proc = subprocess.run(cmd, env=full, capture_output=True, text=True, cwd=str(cwd or common.REPO),
                              timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout, m.wall, m.own, m.foreign_share


def fit_worker(spec, cache, cwd=None):
    out, wall, cpu, foreign = run([sys.executable, "-c", WORKER, json.dumps(spec)], {"NUMBA_CACHE_DIR": cache}, cwd=cwd)
    res = json.loads([ln for ln in out.splitlines() if ln.startswith("{")][-1])
    res.update(wall_s=wall, child_cpu_s=cpu, foreign=foreign)
    return res


def bench_fits(args, results):
    for rep in range(args.repeats):
        for model in args.models:
            cache = tempfile.mkdtemp(prefix="topicvb-coldstart-")
            try:
                spec = {"model": model, "k": N_TOPICS, "docs": args.docs, "synthetic": args.synthetic, "once": False}
                log(f"round {rep + 1}/{args.repeats}: {model} cold")
                cold = fit_worker(spec, cache)
                log(f"round {rep + 1}/{args.repeats}: {model} warm cache")
                warm = fit_worker({**spec, "once": True}, cache)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            results.setdefault("fits", {}).setdefault(model, []).append({"cold": cold, "warm": warm})
            log(f"  {model}: cold first fit {cold['fit1_s']:.1f} s (compile events {cold['fit1_compile_s']:.1f} s), "
                f"in-process warm {cold['fit2_s']:.2f} s, warm-cache first fit {warm['fit1_s']:.2f} s, "
                f"foreign load {cold['foreign']:.2f}")


def demo_once(cache, label):
    log(f"demo {label}")
    out, wall, cpu, foreign = run([sys.executable, "-m", "topicvb", "demo"], {"NUMBA_CACHE_DIR": cache})
    return {"wall_s": wall, "child_cpu_s": cpu, "foreign": foreign, "stdout_head": out.splitlines()[:3]}


def bench_demo(args, results):
    # a first, untimed run fills the demo's text cache, so the timed cold runs differ from the warm
    # ones by the numba cache only
    with tempfile.TemporaryDirectory(prefix="topicvb-coldstart-") as cache:
        demo_once(cache, "(text cache warm-up, not timed)")
    for rep in range(args.repeats):
        cache = tempfile.mkdtemp(prefix="topicvb-coldstart-")
        try:
            cold = demo_once(cache, f"round {rep + 1}: cold")
            warm = demo_once(cache, f"round {rep + 1}: warm")
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        results.setdefault("demo", []).append({"cold": cold, "warm": warm})
        log(f"  demo cold {cold['wall_s']:.1f} s, warm {warm['wall_s']:.1f} s, "
            f"ratio {cold['wall_s'] / warm['wall_s']:.2f}")


def bench_tests(args, results):
    cmd = [sys.executable, "-m", "pytest", *args.test_paths, "-q", "-p", "no:cacheprovider"]
    if args.test_marker:
        cmd += ["-m", args.test_marker]
    cache = tempfile.mkdtemp(prefix="topicvb-coldstart-")
    try:
        rows = {}
        for label in ("cold", "warm"):
            log(f"tests {label}: {shlex.join(cmd[1:])}")
            out, wall, cpu, foreign = run(cmd, {"NUMBA_CACHE_DIR": cache})
            rows[label] = {"wall_s": wall, "child_cpu_s": cpu, "foreign": foreign,
                           "summary": out.strip().splitlines()[-1] if out.strip() else ""}
            log(f"  {rows[label]['summary']} ({wall:.0f} s)")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    results["tests"] = {"command": shlex.join(["pytest", *cmd[3:]]), **rows}


def bench_warm(args, results):
    other = Path(args.warm_compare).resolve()
    if not (other / "topicvb" / "__init__.py").is_file():
        raise SystemExit(f"--warm-compare {other} holds no topicvb package")
    trees = {"this": common.REPO, "other": other}
    caches = {name: tempfile.mkdtemp(prefix=f"topicvb-warm-{name}-") for name in trees}
    out = {"other": str(other), "models": {}, "quiet_wait": args.quiet_wait}
    try:
        for name, tree in trees.items():  # fill each tree's cache (not timed)
            for model in args.models:
                log(f"warm: filling the cache of {name} for {model}")
                fit_worker({"model": model, "k": N_TOPICS, "docs": args.docs, "synthetic": args.synthetic,
                            "once": True}, caches[name], cwd=tree)
        for rep in range(args.warm_rounds):
            for model in args.models:
                for name in (("this", "other") if rep % 2 == 0 else ("other", "this")):
                    spec = {"model": model, "k": N_TOPICS, "docs": args.docs, "synthetic": args.synthetic,
                            "once": False, "warm_only": True, "jobs": args.warm_jobs,
                            "bench_dir": str(common.BENCH_DIR), "quiet_wait": args.quiet_wait}
                    r = fit_worker(spec, caches[name], cwd=trees[name])
                    out["models"].setdefault(model, {}).setdefault(name, []).extend(r["warm_fits"])
                    log(f"warm round {rep + 1}: {model} {name}: " + ", ".join(
                        f"n_jobs={j} {w:.2f} s (foreign {f:.2f})" for j, w, _, f in r["warm_fits"]))
    finally:
        for c in caches.values():
            shutil.rmtree(c, ignore_errors=True)
    results["warm"] = out


# --------------------------------------------------------------------------- report
def _med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def _spread(values):
    return f"{min(values):.3g}-{max(values):.3g}" if len(values) > 1 else ""


def report(all_results: dict) -> str:
    text = ["# Cold start: compilation on the first run", "",
            "Written by `benchmarks/bench_coldstart.py` (its docstring says what each column measures). Medians "
            "of the rounds; compile = what a first fit pays over the same fit once the kernels are in memory. "
            "\"foreign\" is the share of the machine's CPU that other processes used during the cold runs "
            "(median); wall times on a shared machine grow with it, CPU times much less.", ""]
    for label, res in all_results.items():
        meta = res["meta"]
        text += [f"## {label}", "", f"`{meta['command']}` at {meta['when']}; {meta['machine']}; {meta['revision']}.",
                 ""]
        if res.get("fits"):
            first = next(iter(res["fits"].values()))[0]["cold"]
            text += [f"Corpus: {first['corpus']}; n_components={N_TOPICS}, default parameters otherwise.", ""]
            rows = []
            for model, runs in res["fits"].items():
                c = [r["cold"] for r in runs]
                w = [r["warm"] for r in runs]
                comp = [x["fit1_s"] - x["fit2_s"] for x in c]
                comp_cpu = [x["fit1_cpu"] - x["fit2_cpu"] for x in c]
                rows.append([model, len(runs), _med([x["fit1_s"] for x in c]), _med([x["fit2_s"] for x in c]),
                             _med(comp), _spread(comp), _med(comp_cpu), _med([x["fit1_compile_s"] for x in c]),
                             _med([x["fit1_compile_cpu"] for x in c]), _med([len(x["fit1_compiled"]) for x in c]),
                             _med([x["transform1_s"] - x["transform2_s"] for x in c]),
                             _med([x["fit1_s"] for x in w]), _med([x["import_s"] for x in c]),
                             _med([x["foreign"] for x in c])])
            text.append(common.md_table(
                ["model", "rounds", "cold first fit (s)", "in-process warm fit (s)", "compile = cold - warm (s)",
                 "spread", "compile, CPU (s)", "compile events (s)", "compile events, CPU (s)",
                 "top-level compilations", "first transform extra (s)", "warm-cache first fit (s)", "import (s)",
                 "foreign"], rows))
            text.append("")
            names = {}
            for model, runs in res["fits"].items():
                names[model] = ", ".join(n.replace("topicvb._kernels.", "") for n in runs[0]["cold"]["fit1_compiled"])
            text += ["Kernels compiled at top level by the first fit (first round):", ""]
            text += [f"- {model}: {n or '(none)'}" for model, n in names.items()]
            text.append("")
        if res.get("demo"):
            d = res["demo"]
            cold = [r["cold"]["wall_s"] for r in d]
            warm = [r["warm"]["wall_s"] for r in d]
            ratios = [a / b for a, b in zip(cold, warm)]
            text.append(common.md_table(
                ["`python -m topicvb demo`", "rounds", "cold (s)", "warm (s)", "cold / warm", "spread of ratio",
                 "cold CPU (s)", "warm CPU (s)", "foreign"],
                [["default model", len(d), _med(cold), _med(warm), _med(ratios), _spread(ratios),
                  _med([r["cold"]["child_cpu_s"] for r in d]), _med([r["warm"]["child_cpu_s"] for r in d]),
                  _med([r["cold"]["foreign"] for r in d])]]))
            text.append("")
        if res.get("warm"):
            wres = res["warm"]
            rows = []
            for model, by in wres["models"].items():
                for jobs in sorted({f[0] for f in by["this"]}):
                    def quiet(fits, jobs=jobs):  # (the fits during which others used < 10% of the machine)
                        mine = [f for f in fits if f[0] == jobs]
                        calm = [f for f in mine if f[3] is not None and f[3] < 0.1]
                        return calm or mine
                    this, other = quiet(by["this"]), quiet(by["other"])
                    rows.append([model, jobs, f"{len(this)}, {len(other)}", _med([f[1] for f in this]),
                                 _spread([f[1] for f in this]), _med([f[1] for f in other]),
                                 _spread([f[1] for f in other]),
                                 _med([f[1] for f in this]) / _med([f[1] for f in other]),
                                 _med([f[2] for f in this]) / _med([f[2] for f in other]),
                                 _med([f[3] for f in this + other])])
            text += [f"Warm fits (kernels loaded by a small fit first; each timed fit started once the machine was "
                     f"quiet, waiting at most {wres.get('quiet_wait', '?')} s; fresh processes alternating between "
                     f"this checkout and `{wres['other']}`). Medians of the fits during which other processes "
                     "used less than 10% of the machine (of all fits when none was that quiet):", ""]
            text.append(common.md_table(["model", "n_jobs", "fits (this, other)", "this (s)", "spread", "other (s)",
                                         "spread", "this / other (wall)", "this / other (CPU)", "foreign"], rows))
            text.append("")
        if res.get("tests"):
            t = res["tests"]
            text.append(common.md_table(
                ["tests", "cold (s)", "warm (s)", "cold CPU (s)", "warm CPU (s)", "foreign (cold)", "result (cold)"],
                [[f"`{t['command']}`", t["cold"]["wall_s"], t["warm"]["wall_s"], t["cold"]["child_cpu_s"],
                  t["warm"]["child_cpu_s"], t["cold"]["foreign"], t["cold"]["summary"]]]))
            text.append("")
    return "\n".join(text)


def _tree_digest(repo: Path) -> str:
    """``<repo>/topicvb`` with the git revision of ``repo`` (when it is a checkout) and the sha1 of its .py files."""
    import hashlib

    pkg = repo / "topicvb"
    digest = hashlib.sha1()
    for f in sorted(pkg.rglob("*.py")):
        digest.update(f.relative_to(pkg).as_posix().encode() + b"\0" + f.read_bytes())
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True,
                         text=True).stdout.strip()
    dirty = rev and subprocess.run(["git", "status", "--porcelain", "topicvb"], cwd=repo, capture_output=True,
                                   text=True).stdout.strip()
    where = f"git {rev}" + (" + uncommitted changes" if dirty else "") if rev else "not a git checkout"
    return f"{pkg} ({where}; sha1 of its .py files {digest.hexdigest()[:12]})"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--label", required=True, help="name of this run in the results (e.g. before, after)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--models", nargs="*", default=list(MODELS), choices=MODELS)
    p.add_argument("--docs", type=int, default=0, help="use the first DOCS documents only (0: all)")
    p.add_argument("--synthetic", action="store_true", help="a synthetic corpus even when KOS is there")
    p.add_argument("--no-demo", action="store_true")
    p.add_argument("--tests", action="store_true", help="also time the kernel tests cold and warm")
    p.add_argument("--test-paths", nargs="*", default=["tests/kernels"])
    p.add_argument("--test-marker", default=None, help="pytest -m expression for --tests (e.g. 'not slow')")
    p.add_argument("--warm-compare", metavar="OTHER_CHECKOUT", default=None,
                   help="also compare warm fit times with the topicvb of another checkout")
    p.add_argument("--warm-rounds", type=int, default=3)
    p.add_argument("--warm-jobs", type=int, nargs="*", default=[1, 2], help="n_jobs of the warm fits")
    p.add_argument("--quiet-wait", type=float, default=60.0,
                   help="seconds a warm fit waits at most for other processes to calm down")
    p.add_argument("--no-cold", action="store_true", help="skip the cold fits")
    p.add_argument("--json", default=str(common.BENCH_DIR / "results" / "coldstart.json"))
    p.add_argument("--out", default=str(common.BENCH_DIR / "results" / "coldstart.md"))
    args = p.parse_args(argv)
    global CORPORA
    from topicvb.datasets import find_corpora_dir

    CORPORA = find_corpora_dir()
    info = common.machine_info()
    results = {"meta": {"command": shlex.join(["python", "benchmarks/bench_coldstart.py", *sys.argv[1:]]),
                        "when": info["date"], "machine": f"{info['machine']}, numba {info['numba']}",
                        "revision": f"the timed processes import {_tree_digest(common.REPO)}"}}
    if args.models and not args.no_cold:
        bench_fits(args, results)
    if not args.no_demo:
        bench_demo(args, results)
    if args.tests:
        bench_tests(args, results)
    if args.warm_compare:
        bench_warm(args, results)
    path = Path(args.json)
    everything = json.loads(path.read_text()) if path.is_file() else {}
    everything[args.label] = results
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(everything, indent=1))
    common.write_report(report(everything), args.out, announce=True)


if __name__ == "__main__":
    main()
