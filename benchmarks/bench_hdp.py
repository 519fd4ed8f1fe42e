"""HDP benchmark (issue #23): topicvb's HDP against the obvious baseline and the peers' HDPs.

Run from the repository root::

    python benchmarks/bench_hdp.py --quick            # smoke run: one small LDA corpus (K = 10), 100 peer sweeps
    python benchmarks/bench_hdp.py                    # everything -> benchmarks/results/hdp.md (+ .json)
    python benchmarks/bench_hdp.py --corpora synthetic --true-k 10 20 40
    python benchmarks/bench_hdp.py --corpora kos ap 20ng --systems HDP tomotopy-hdp gensim-hdp

Systems (``--systems``):

HDP            topicvb.HDP(max_components=T, random_state=0), its defaults otherwise.
CollapsedLDA   the obvious baseline: topicvb.CollapsedLDA(T, learn_priors=True) (learned asymmetric alpha, which
               lets a fit leave topics nearly empty; Wallach, Mimno & McCallum 2009), moves on, random_state 0.
tomotopy-hdp   tomotopy.HDPModel at its defaults (initial_k 2, alpha 0.1, eta 0.01, gamma 0.1, hyperparameters
               optimised every 10 sweeps), seed 0, ``--peer-iters`` sweeps (default 1000), 2 workers; its live
               topics, each with document prior alpha x its share of the tokens.
tomotopy-hdp-initk  the same with initial_k = T (its default start of 2 topics grows slowly).
gensim-hdp     gensim.models.HdpModel at its defaults (T 150, K 15, alpha 1, gamma 1, eta 0.01, online, one pass),
               random_state 0; ``hdp_to_lda()`` gives its topics and document prior.

T (the truncation) is ``--truncation`` (default 100) on the real corpora and 2 x the true K on the LDA-generated
ones (at least 20). Corpora and metrics are those of ``bench_quality.py`` (loaders, 10% held out, document
completion perplexity, NPMI of the top 10 words by document co-occurrence in the training matrix, recovery); the
inferred number of topics of every system is the number of its topics carrying at least 1% of the training
tokens, by ``topic_prevalence`` with the topics fixed (the same code for every system), for HDP also its
``n_components_``. Wall time: the fit (peers: building their corpus plus training). The machine is shared: see
the "other load" column.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_peers as bp  # noqa: E402
import bench_quality as bq  # noqa: E402
import common  # noqa: E402
from common import md_table  # noqa: E402

SEED = 0
SYSTEMS = ("HDP", "CollapsedLDA", "tomotopy-hdp", "tomotopy-hdp-initk", "gensim-hdp")
USED_SHARE = 0.01


def log(msg: str) -> None:
    print(f"[bench_hdp] {msg}", file=sys.stderr, flush=True)


def fit_system(name: str, T: int, X, args):
    """(bench_peers.Fit, LoadMeter, extra) of one system fitted on X."""
    extra = {}
    common.wait_for_quiet()
    if name in ("HDP", "CollapsedLDA"):
        from topicvb import HDP, CollapsedLDA

        est = (HDP(max_components=T, random_state=SEED) if name == "HDP"
               else CollapsedLDA(T, learn_priors=True, random_state=SEED))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with common.LoadMeter() as m:
                est.fit(X)
        extra.update(iterations=int(est.n_iter_), warnings=sorted({type(w.message).__name__ for w in caught}))
        if name == "HDP":
            extra.update(n_components_=int(est.n_components_), alpha0=est.doc_topic_concentration_,
                         gamma=est.stick_concentration_, eta=est.topic_word_prior_)
            # the same fit with its topics of >= 0.1% of the tokens, and with every one of its T topics
            # (components_ keeps those with >= 1%, min_topic_share's default)
            weights = np.maximum(est.doc_topic_concentration_ * est.topic_weights_, 1e-12)  # (dead: 1e-12)
            kept = est.topic_shares_ >= 0.001
            extra["variants"] = {"topics >= 0.1%": bp.Fit(est.all_components_[kept], weights[kept]),
                                 "all T topics": bp.Fit(est.all_components_, weights)}
        return bp.tv_fit(est), m, extra
    if name in ("tomotopy-hdp", "tomotopy-hdp-initk"):
        with common.LoadMeter() as m:
            fit = run_tomotopy_hdp(X, args.peer_iters, T if name.endswith("initk") else 2)
        extra.update(iterations=args.peer_iters, **fit.extra)
        return fit, m, extra
    if name == "gensim-hdp":
        with common.LoadMeter() as m:
            fit = run_gensim_hdp(X)
        extra.update(iterations=1, **fit.extra)
        return fit, m, extra
    raise ValueError(f"unknown system {name!r}; expected one of {SYSTEMS}.")


def run_tomotopy_hdp(X, iters, initial_k=2):
    import tomotopy as tp

    mdl = tp.HDPModel(initial_k=initial_k, seed=SEED)
    indptr, indices, counts = X.indptr, X.indices, X.data.astype(np.int64)
    for d in range(X.shape[0]):
        s, e = indptr[d], indptr[d + 1]
        if e > s:
            mdl.add_doc(np.repeat(indices[s:e], counts[s:e]).astype(str).tolist())
    mdl.train(iters, workers=2)
    live = [k for k in range(mdl.k) if mdl.is_live_topic(k)]
    names = mdl.used_vocabs if len(mdl.get_topic_word_dist(live[0])) == len(mdl.used_vocabs) else mdl.vocabs
    ids = np.array([int(w) for w in names])
    phi = np.full((len(live), X.shape[1]), 1e-300)
    for i, k in enumerate(live):
        phi[i, ids] = mdl.get_topic_word_dist(k)
    sizes = np.asarray(mdl.get_count_by_topics(), dtype=np.float64)[live]
    alpha = float(mdl.alpha) * sizes / sizes.sum()
    return bp.Fit(phi, np.maximum(alpha, 1e-10), float(mdl.eta),
                  extra={"live_topics": len(live), "alpha": float(mdl.alpha), "gamma": float(mdl.gamma)})


def run_gensim_hdp(X):
    from gensim.models import HdpModel

    corpus = [list(zip(X.indices[X.indptr[d]:X.indptr[d + 1]].tolist(),
                       X.data[X.indptr[d]:X.indptr[d + 1]].astype(int).tolist())) for d in range(X.shape[0])]
    id2word = {j: str(j) for j in range(X.shape[1])}
    hdp = HdpModel(corpus, id2word, random_state=SEED)
    alpha, beta = hdp.hdp_to_lda()
    return bp.Fit(np.maximum(beta, 1e-300), np.maximum(alpha, 1e-10), extra={"topics": int(beta.shape[0])})


def evaluate(fit, data, scorer) -> dict:
    from topicvb.evaluation import FixedTopicModel
    from topicvb.inspection import topic_prevalence

    out = bq.evaluate(fit, data, scorer)
    phi = fit.topic_word / fit.topic_word.sum(axis=1, keepdims=True)
    prevalence = topic_prevalence(FixedTopicModel(phi, doc_topic_prior=fit.alpha, max_iter=100, tol=1e-3),
                                  data.X_train)
    out["k_used"] = int(np.sum(prevalence >= USED_SHARE))
    if data.true_topics is not None:  # recovery by the used topics only
        used = prevalence >= USED_SHARE
        out["recovery_used"] = bq.recovery(data.true_topics, phi[used]) if used.any() else None
    return out


def datasets(args):
    loaders = {"20ng": bq.load_20ng, "kos": bq.load_kos, "ap": bq.load_ap}
    for corpus in args.corpora:
        if corpus == "synthetic":
            for K in args.true_k:
                for seed in args.seeds:
                    yield (lambda K=K, seed=seed: bq.make_synthetic(args, K, seed)), f"lda-K{K}-s{seed}", K
        else:
            yield loaders[corpus], corpus, None


def _sorted(rows: list) -> list:
    """Rows by corpus (first seen first), then system (SYSTEMS order, a system's variants after it)."""
    corpora = list(dict.fromkeys(r["corpus"] for r in rows))

    def key(r):
        base, _, variant = r["system"].partition(" (")
        return corpora.index(r["corpus"]), SYSTEMS.index(base) if base in SYSTEMS else len(SYSTEMS), variant

    return sorted(rows, key=key)


def render(store: dict) -> str:
    rows = _sorted(store["rows"])
    text = ["# HDP: inferred number of topics and quality (issue #23)", "",
            "`benchmarks/bench_hdp.py` (its docstring lists the systems and metrics). Runs:", ""]
    for r in store["runs"]:
        text.append(f"- `{r['command']}` ({r['date']}; {r['machine']})")
    synth = [r for r in rows if r["true_k"] is not None]
    if synth:
        text += ["", "## LDA-generated corpora (true K known)", "",
                 "K used: topics with >= 1% of the training tokens (for HDP also `n_components_`); recovery: mean "
                 "over the true topics of the best cosine to a fitted topic (all its topics / the used ones).", ""]
        header = ["corpus", "true K", "system", "T", "K used", "within 20%", "recovery", "recovery (used)",
                  "perplexity", "NPMI", "seconds", "other load"]
        text.append(md_table(header, [[r["corpus"], r["true_k"], r["system"], r["T"], r["k_used"],
                                       "yes" if abs(r["k_used"] - r["true_k"]) <= 0.2 * r["true_k"] else "no",
                                       r["recovery"], r.get("recovery_used"), r["perplexity"], r["npmi"],
                                       r["seconds"], common.foreign_str([r.get("foreign_share")])] for r in synth]))
    real = [r for r in rows if r["true_k"] is None]
    if real:
        text += ["", "## Real corpora", ""]
        header = ["corpus", "system", "T", "K used", "held-out perplexity", "NPMI", "diversity", "seconds",
                  "iterations", "other load"]
        text.append(md_table(header, [[r["corpus"], r["system"], r["T"], r["k_used"], r["perplexity"], r["npmi"],
                                       r["diversity"], r["seconds"], r["iterations"],
                                       common.foreign_str([r.get("foreign_share")])] for r in real]))
    text += ["", "Shared machine (2 cores, other agents' processes): \"other load\" is the share of the machine's "
                 "CPU other processes used during the fit; times are single runs and only indicative."]
    return "\n".join(text) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="one small LDA corpus (K = 10), 100 peer sweeps, no report")
    p.add_argument("--corpora", nargs="+", choices=("synthetic", "20ng", "kos", "ap"), default=None)
    p.add_argument("--systems", nargs="+", choices=SYSTEMS, default=None)
    p.add_argument("--true-k", type=int, nargs="+", default=None, help="true K of the LDA corpora (10 20 40)")
    p.add_argument("--seeds", type=int, nargs="+", default=None, help="LDA corpus seeds (default 0)")
    p.add_argument("--synthetic-docs", type=int, default=None, help="default 5000 (quick 1000)")
    p.add_argument("--synthetic-terms", type=int, default=None, help="default 5000 (quick 1000)")
    p.add_argument("--synthetic-length", type=float, default=None, help="default 150 (quick 100)")
    p.add_argument("--truncation", type=int, default=100, help="T on the real corpora (default 100)")
    p.add_argument("--peer-iters", type=int, default=None, help="tomotopy sweeps (default 1000, quick 100)")
    p.add_argument("--out", default=None, help="markdown report (default benchmarks/results/hdp.md; quick: none)")
    p.add_argument("--fresh", action="store_true", help="ignore rows already in the JSON store")
    p.add_argument("--redo", action="store_true", help="recompute the selected rows already in the store (replaced)")
    p.add_argument("--quiet-wait", type=float, default=None, help="seconds to wait for an idle machine (default 10)")
    args = p.parse_args(argv)
    q = args.quick
    args.corpora = args.corpora or (["synthetic"] if q else ["synthetic", "kos", "ap", "20ng"])
    args.systems = args.systems or list(SYSTEMS)
    args.true_k = args.true_k or ([10] if q else [10, 20, 40])
    args.seeds = args.seeds or [0]
    args.synthetic_docs = args.synthetic_docs or (1000 if q else 5000)
    args.synthetic_terms = args.synthetic_terms or (1000 if q else 5000)
    args.synthetic_length = int(args.synthetic_length or (100 if q else 150))
    args.peer_iters = args.peer_iters or (100 if q else 1000)
    common.QUIET_WAIT = args.quiet_wait if args.quiet_wait is not None else (0.0 if q else 10.0)
    out = Path(args.out) if args.out else (None if q else common.BENCH_DIR / "results" / "hdp.md")
    store_path = out.with_suffix(".json") if out else None
    store = {"runs": [], "rows": []}
    if store_path and store_path.exists() and not args.fresh:
        store = json.loads(store_path.read_text())
    cmd = " ".join(["python", "benchmarks/bench_hdp.py"] + [shlex.quote(a) for a in (argv or sys.argv[1:])])
    info = common.machine_info()
    store["runs"].append({"command": cmd, "date": info["date"], "machine": info["machine"]})
    done = {(r["corpus"], r["system"]) for r in store["rows"]}
    bq.warm_up(["CollapsedLDA"])
    for get, corpus, true_k in datasets(args):
        todo = [s for s in args.systems if args.redo or (corpus, s) not in done]
        if not todo:
            continue
        data = get()
        scorer = common.DocCompletion(data.X_test, seed=SEED)
        T = args.truncation if true_k is None else max(20, 2 * true_k)
        for name in todo:
            log(f"{corpus}: fitting {name} (T = {T}) on {data.X_train.shape[0]} x {data.X_train.shape[1]}")
            fit, meter, extra = fit_system(name, T, data.X_train, args)
            store["rows"] = [r for r in store["rows"]  # (--redo: the row and its variants' rows are replaced)
                             if not (r["corpus"] == corpus and (r["system"] == name or r["system"].startswith(name + " (")))]
            variants = extra.pop("variants", {})
            row = {"corpus": corpus, "true_k": true_k, "system": name, "T": T, "seconds": meter.wall,
                   "foreign_share": meter.foreign_share, **extra, **evaluate(fit, data, scorer)}
            store["rows"].append(row)
            for label, variant in variants.items():  # (the same fit: its time is the fit's)
                store["rows"].append({**row, "system": f"{name} ({label})", **evaluate(variant, data, scorer)})
            log(f"{corpus} {name}: {row['seconds']:.1f} s, K used {row['k_used']}, perplexity "
                f"{row['perplexity']:.1f}, NPMI {row['npmi']:.3f}"
                + ("" if row["recovery"] is None else f", recovery {row['recovery']:.3f}"))
            if store_path:
                store_path.write_text(json.dumps(store, indent=1, default=float))
                out.write_text(render(store))
    if out:
        out.write_text(render(store))
        log(f"wrote {out}")
    else:
        print(render(store))


if __name__ == "__main__":
    main()
