"""Benchmark topicvb against gensim and tomotopy (and scikit-learn) on 20 Newsgroups.

Run from the repository root::

    python benchmarks/bench_peers.py                  # full run (about 25 minutes on a quiet 2-core machine)
    python benchmarks/bench_peers.py --quick          # smoke run on a slice of the corpus (< 1 minute)
    python benchmarks/bench_peers.py --k 20 --sections online-gensim collapsed-tomotopy

Every system fits the *same* CSR matrix (the train split of ``common.load_matrices()``, its rows
in one fixed random order), with the same priors (alpha = eta = 1/K unless priors are learned):
gensim reads it through ``gensim.matutils.Sparse2Corpus(X, documents_columns=False)``; tomotopy
gets each document's tokens (term ids repeated by count, as strings) over the same vocabulary.
Held-out perplexity is computed for *every* system by the same document-completion estimator,
``topicvb.evaluation.heldout_perplexity`` on a ``FixedTopicModel`` built from the system's
topic-word matrix and document-topic prior, on one token split of the test split.

Sections (``--sections``):

online-gensim       OnlineLDA vs gensim ``LdaModel`` (same K, chunksize = batch_size, passes,
                    kappa = decay, tau0 = offset, priors 1/K, <= 100 inner updates at tol 1e-3).
collapsed-tomotopy  CollapsedLDA (CVB0) vs tomotopy ``LDAModel`` (collapsed Gibbs, 1,000
                    iterations, priors 1/K fixed, 2 worker threads).
tradeoff            held-out perplexity against wall time for PLSA, BatchLDA, CollapsedLDA,
                    OnlineLDA, StochasticCollapsedLDA, scikit-learn batch / online, gensim and
                    tomotopy (table + ``--plot``).
priors              BatchLDA, OnlineLDA, CollapsedLDA with ``learn_priors`` False / True (and gensim
                    alpha/eta="auto", tomotopy alpha optimisation) on one K (Asuncion et al. 2009).
memory              peak resident set of each fit, each in a fresh subprocess.

Timings are medians of interleaved runs (topicvb and the peer alternate in one process); the
report (markdown) goes to ``--out`` with the command line, the machine and the library versions.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_models as bm  # noqa: E402  (get_data, blas, log, sk_lda: shared with the model benchmark)
import common  # noqa: E402
from common import foreign_str, md_table, mib  # noqa: E402

SECTIONS = ("online-gensim", "collapsed-tomotopy", "tradeoff", "priors", "memory")
SEED = 0
KAPPA, TAU0 = 0.7, 10.0  # step size rho_t = (tau0 + t)^-kappa: topicvb learning_decay/offset, gensim decay/offset
log = bm.log
blas = bm.blas

# Fitted results shared between sections (same settings -> no refit): key -> Fit
FITTED: dict = {}


class Fit:
    """What the report needs from a fitted system: topics, priors and the fit's wall time."""

    def __init__(self, topic_word, alpha, eta=None, seconds=float("nan"), extra=None):
        self.topic_word = np.asarray(topic_word, dtype=np.float64)
        K = self.topic_word.shape[0]
        a = 1.0 / K if alpha is None else alpha
        self.alpha = np.broadcast_to(np.asarray(a, dtype=np.float64), (K,)).copy()
        self.eta = eta
        self.seconds = seconds
        self.extra = extra or {}


# --------------------------------------------------------------------------- scoring
class Scorer:
    """One document-completion split of the test split; scores any topic-word matrix the same way."""

    def __init__(self, X_test):
        self.score = common.DocCompletion(X_test, seed=SEED)

    def __call__(self, fit: Fit) -> float:
        return self.score(fit.topic_word, fit.alpha)


# --------------------------------------------------------------------------- systems
def tv_fit(model) -> Fit:
    """Fit extract of a fitted topicvb model (PLSA has no document prior: scored with 1/K)."""
    return Fit(model.topic_word_distribution(), getattr(model, "doc_topic_prior_", None),
               getattr(model, "topic_word_prior_", None))


def make_topicvb(name, K, iters, *, n_jobs=2, bs=256, learn=False):
    """A topicvb estimator; a name ending in "-random" means init="random" (BatchLDA, OnlineLDA)."""
    from topicvb import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA

    pri = dict(doc_topic_prior=1.0 / K, topic_word_prior=1.0 / K)
    if name.endswith("-random"):
        name = name[: -len("-random")]
        pri["init"] = "random"
    if name == "PLSA":
        return PLSA(K, max_iter=iters, tol=0, n_jobs=n_jobs, random_state=SEED)
    if name == "BatchLDA":
        return BatchLDA(K, max_iter=iters, tol=0, learn_priors=learn, max_doc_update_iter=100, mean_change_tol=1e-3,
                        n_jobs=n_jobs, random_state=SEED, **pri)
    if name == "CollapsedLDA":  # per_sweep: the parallel CVB0 sweep (n_jobs threads)
        return CollapsedLDA(K, variant="cvb0", topic_update="per_sweep", learn_priors=learn, max_iter=iters, tol=0,
                            n_jobs=n_jobs, random_state=SEED, **pri)
    if name == "CollapsedLDA-seq":  # the exact serial CVB0 sweep (one thread)
        return CollapsedLDA(K, variant="cvb0", topic_update="sequential", learn_priors=learn, max_iter=iters, tol=0,
                            n_jobs=1, random_state=SEED, **pri)
    if name == "OnlineLDA":
        return OnlineLDA(K, learning_decay=KAPPA, learning_offset=TAU0, batch_size=bs, max_iter=iters, tol=0,
                         shuffle=False, learn_priors=learn, max_doc_update_iter=100, mean_change_tol=1e-3,
                         n_jobs=n_jobs, random_state=SEED, **pri)
    if name == "StochasticCollapsedLDA":
        return StochasticCollapsedLDA(K, learning_decay=KAPPA, learning_offset=TAU0, batch_size=bs, max_iter=iters,
                                      tol=0, shuffle=False, n_jobs=n_jobs, random_state=SEED, **pri)
    raise ValueError(name)


def fit_topicvb(X, name, K, iters, **kw) -> Fit:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tv_fit(make_topicvb(name, K, iters, **kw).fit(X))


def gensim_model(X, K, passes, bs, *, callbacks=None, auto=False):
    """gensim LdaModel (serial online VB) on the same CSR, with topicvb's OnlineLDA settings."""
    from gensim.matutils import Sparse2Corpus
    from gensim.models import LdaModel

    corpus = Sparse2Corpus(X, documents_columns=False)
    id2word = {i: str(i) for i in range(X.shape[1])}  # the same vocabulary width; no scan of the corpus
    prior = "auto" if auto else None
    return LdaModel(corpus, num_topics=K, id2word=id2word, chunksize=bs, passes=passes, update_every=1,
                    alpha=prior or np.full(K, 1.0 / K), eta=prior or 1.0 / K, decay=KAPPA, offset=TAU0,
                    eval_every=None, iterations=100, gamma_threshold=1e-3, random_state=SEED, dtype=np.float64,
                    callbacks=callbacks)


def gensim_fit(g) -> Fit:
    eta = np.asarray(g.eta)
    return Fit(g.get_topics(), g.alpha, float(eta.mean()), extra={"eta_range": (float(eta.min()), float(eta.max()))})


def tomotopy_model(X, K, *, optim_interval=0):
    """tomotopy LDAModel holding X's documents: tokens = term ids repeated by count, as strings."""
    import tomotopy as tp

    mdl = tp.LDAModel(k=K, alpha=1.0 / K, eta=1.0 / K, seed=SEED)
    mdl.optim_interval = optim_interval  # 0: keep alpha fixed (tomotopy's default 10 would learn it)
    mdl.burn_in = 0
    indptr, indices = X.indptr, X.indices
    counts = X.data.astype(np.int64)
    for d in range(X.shape[0]):
        s, e = indptr[d], indptr[d + 1]
        if e > s:
            mdl.add_doc(np.repeat(indices[s:e], counts[s:e]).astype(str).tolist())
    return mdl


def tomotopy_fit(mdl, V) -> Fit:
    """The sampler's phi = (n_kw + eta) / (n_k + V eta) (last state), mapped back to term ids."""
    K = mdl.k
    first = mdl.get_topic_word_dist(0)
    names = mdl.used_vocabs if len(first) == len(mdl.used_vocabs) else mdl.vocabs
    ids = np.array([int(w) for w in names])
    phi = np.full((K, V), 1e-300)
    for k in range(K):
        phi[k, ids] = mdl.get_topic_word_dist(k)
    return Fit(phi, np.asarray(mdl.alpha, dtype=np.float64), float(mdl.eta))


def run_tomotopy(X, K, iters, workers, *, optim_interval=0):
    t0 = time.perf_counter()
    mdl = tomotopy_model(X, K, optim_interval=optim_interval)
    t1 = time.perf_counter()
    mdl.train(iters, workers=workers)
    t2 = time.perf_counter()
    f = tomotopy_fit(mdl, X.shape[1])
    f.extra.update(add_docs_s=t1 - t0, train_s=t2 - t1)
    return f


def ratio_text(peer_s, tv_s) -> str:
    """'2.31x faster' / '1.40x slower' for topicvb against a peer's wall time."""
    r = peer_s / tv_s
    return f"{r:.2f}x faster" if r >= 1 else f"{1 / r:.2f}x slower"


def versions() -> dict:
    out = {}
    for name in ("gensim", "tomotopy", "psutil", "matplotlib", "threadpoolctl"):
        try:
            mod = __import__(name)
            v = getattr(mod, "__version__", "?")
            if name == "tomotopy":
                v += f" (isa {getattr(mod, 'isa', '?')})"
            out[name] = v
        except ImportError:
            out[name] = "not installed"
    return out


# --------------------------------------------------------------------------- section: online vs gensim
def bench_online_gensim(args, Xp, score, out, summary):
    rows = []
    P, bs = args.online_passes, args.batch_size
    for K in args.k:
        fns = {
            "topicvb OnlineLDA n_jobs=1": lambda K=K: fit_topicvb(Xp, "OnlineLDA", K, P, n_jobs=1, bs=bs),
            "topicvb OnlineLDA n_jobs=2": lambda K=K: fit_topicvb(Xp, "OnlineLDA", K, P, n_jobs=2, bs=bs),
            "topicvb OnlineLDA n_jobs=2 init='random'": lambda K=K: fit_topicvb(Xp, "OnlineLDA-random", K, P,
                                                                              n_jobs=2, bs=bs),
        }

        def gen(nb, K=K):
            with blas(nb):
                return gensim_fit(gensim_model(Xp, K, P, bs))

        fns["gensim LdaModel BLAS 1"] = lambda: gen(1)
        if K == args.k[0]:  # gensim has no thread option; BLAS threads are all it can use
            fns["gensim LdaModel BLAS 2"] = lambda: gen(2)
        log(f"online-gensim K={K}: {args.repeats} interleaved rounds of {list(fns)}")
        res = common.interleaved_times(fns, args.repeats)
        perp = {name: score(r["result"]) for name, r in res.items()}
        for name, r in res.items():
            rows.append([K, name, P, len(r["times"]), r["median"], f"{min(r['times']):.3g}-{max(r['times']):.3g}",
                         statistics.median(r["own"]), foreign_str(r["foreign"]), perp[name]])
        gbest = min((n for n in res if n.startswith("gensim")), key=lambda n: res[n]["median"])
        default = [n for n in res if n.startswith("topicvb") and "random" not in n]
        for tv, what in ((min(default, key=lambda n: res[n]["median"]), "default init='seeded'"),
                         ("topicvb OnlineLDA n_jobs=2 init='random'", "init='random'")):
            speed = res[gbest]["median"] / res[tv]["median"]
            rel = perp[tv] / perp[gbest] - 1
            ok = speed > 1 and rel <= 0.01
            summary.append([f"OnlineLDA ({what}) vs gensim LdaModel, K={K}, {P} passes: less wall time at equal (1%) "
                            "or better perplexity",
                            f"{ratio_text(res[gbest]['median'], res[tv]['median'])} ({tv.replace('topicvb ', '')} "
                            f"{res[tv]['median']:.1f} s vs {gbest} {res[gbest]['median']:.1f} s); perplexity "
                            f"{perp[tv]:.0f} vs {perp[gbest]:.0f} ({100 * rel:+.1f}%)",
                            "met" if ok else "MISSED"])
    text = ["## 1. OnlineLDA vs gensim LdaModel", "",
            f"Same matrix (train rows in one fixed random order; topicvb shuffle=False), K topics, priors "
            f"alpha = eta = 1/K, batch_size = chunksize = {bs}, {P} passes, step size (tau0 + t)^-kappa with "
            f"kappa = decay = {KAPPA}, tau0 = offset = {TAU0:g}, at most 100 inner updates per document with a "
            "mean-change tolerance of 1e-3 (gensim iterations=100, gamma_threshold=1e-3), float64 in both "
            "(gensim dtype=np.float64), no evaluation during training (gensim eval_every=None; topicvb tol=0). "
            "gensim's `LdaModel` is serial; the only threads it can use are BLAS's, so it runs with BLAS "
            "limited to 1 and (first K) 2 threads; topicvb with numba n_jobs = 1 and 2. Differences that "
            "remain: gensim starts lambda at Gamma(100, 1/100) draws and each document's gamma at random, "
            "topicvb OnlineLDA at its `init='seeded'` default (document clusters: k-means++ seeds refined by two Lloyd steps; one row with "
            "`init='random'`, Gamma(100, 1/100) like gensim); gensim's step counter adds the pass number and "
            "stops counting after the first pass (rho = (offset + pass + batches in pass 1)^-decay from then "
            "on), topicvb's keeps counting batches; topicvb also computes a per-batch ELBO estimate "
            "(`bound_history_`) inside the timed fit. Runs interleaved (one round = every row once), "
            f"{args.repeats} rounds; wall = median. Target: less wall time at equal (within 1%) or better "
            "held-out perplexity, topicvb n_jobs=2 against gensim's faster row.", ""]
    text.append(md_table(["K", "system", "passes", "runs", "wall s (median)", "spread", "own CPU s",
                          "other load (max)", "held-out perplexity"], rows))
    out.append("\n".join(text))
    print(out[-1], flush=True)


# --------------------------------------------------------------------------- section: CVB0 vs tomotopy
def bench_collapsed_tomotopy(args, Xp, score, out, summary):
    rows = []
    T = args.tomotopy_iters
    for K in args.k:
        S = args.cvb_sweeps or (100 if K <= 20 else 50)
        # at K = 20, per_sweep also with more sweeps (still well inside tomotopy's time; the trade-off
        # section has the whole curve)
        S_more = [] if args.cvb_sweeps or K > 20 else [300]
        rc = args.repeats if K <= 20 else min(args.repeats, args.tomotopy_repeats)
        fns = {
            "topicvb CollapsedLDA cvb0 per_sweep n_jobs=2": lambda K=K: fit_topicvb(Xp, "CollapsedLDA", K, S),
            "topicvb CollapsedLDA cvb0 sequential n_jobs=1": lambda K=K: fit_topicvb(Xp, "CollapsedLDA-seq", K, S),
            "tomotopy LDAModel (Gibbs) workers=2": lambda K=K: run_tomotopy(Xp, K, T, 2),
        }
        sweeps = {"topicvb CollapsedLDA cvb0 per_sweep n_jobs=2": S, "topicvb CollapsedLDA cvb0 sequential n_jobs=1": S}
        for S2 in S_more:
            name2 = f"topicvb CollapsedLDA cvb0 per_sweep n_jobs=2, {S2} sweeps"
            fns[name2] = lambda K=K, S2=S2: fit_topicvb(Xp, "CollapsedLDA", K, S2)
            sweeps[name2] = S2
        reps = {n: rc for n in fns}
        reps["tomotopy LDAModel (Gibbs) workers=2"] = args.tomotopy_repeats
        log(f"collapsed-tomotopy K={K}: interleaved rounds {reps}")
        res = common.interleaved_times(fns, reps)
        perp = {name: score(r["result"]) for name, r in res.items()}
        tname = "tomotopy LDAModel (Gibbs) workers=2"
        tomo_all = [score(f) for f in res[tname]["results"][:-1]] + [perp[tname]]
        for name, r in res.items():
            it = T if name == tname else sweeps[name]
            note = ""
            if name == tname:
                ex = r["result"].extra
                note = (f"add_doc {ex['add_docs_s']:.2f} s + train {ex['train_s']:.1f} s (last run); perplexity of "
                        f"each run: {', '.join(f'{v:.0f}' for v in tomo_all)}")
                FITTED[("tomotopy", K, T)] = r["result"]
            else:
                FITTED[("CollapsedLDA" if "per_sweep" in name else "CollapsedLDA-seq", K, it)] = r["result"]
            r["result"].seconds = r["median"]
            rows.append([K, name, it, len(r["times"]), r["median"], f"{min(r['times']):.3g}-{max(r['times']):.3g}",
                         statistics.median(r["own"]), foreign_str(r["foreign"]), perp[name], note])
        for tv in sweeps:
            speed = res[tname]["median"] / res[tv]["median"]
            rel = perp[tv] / perp[tname] - 1
            ok = speed > 1 and rel <= 0
            label = "per_sweep, 2 threads" if "per_sweep" in tv else "sequential, 1 thread"
            summary.append([f"CollapsedLDA CVB0 ({label}, {sweeps[tv]} sweeps) vs tomotopy Gibbs ({T} it., 2 threads), K={K}: "
                            "perplexity at least as good in less wall time",
                            f"{ratio_text(res[tname]['median'], res[tv]['median'])} ({res[tv]['median']:.1f} s vs "
                            f"{res[tname]['median']:.1f} s); "
                            f"perplexity {perp[tv]:.0f} vs {perp[tname]:.0f} ({100 * rel:+.1f}%)",
                            "met" if ok else "MISSED"])
    text = ["## 2. CollapsedLDA (CVB0) vs tomotopy LDAModel (collapsed Gibbs)", "",
            f"Same matrix (same row order), alpha = eta = 1/K fixed in both (tomotopy `optim_interval=0`, "
            f"`burn_in=0`; its default would learn alpha every 10 iterations), tomotopy {T} Gibbs iterations "
            "on 2 worker threads (`train(..., workers=2)`, default parallel scheme), topicvb CVB0 for a fixed "
            "number of sweeps (tol=0): the parallel `topic_update='per_sweep'` on 2 threads and the exact serial "
            "sweep on 1 thread (at K = 20 per_sweep also with 300 sweeps, which still takes less time than "
            "tomotopy's 1,000 iterations). tomotopy's wall time includes building its corpus from the CSR (`add_doc`, "
            "tokens = term ids repeated by count; given separately in the note). Its topics are the last "
            "sample's (n_kw + eta) / (n_k + V eta) (no averaging over samples, as tomotopy reports them). "
            f"Interleaved rounds; tomotopy {args.tomotopy_repeats} run(s) per K (1,000 iterations are slow), "
            "CVB0 as many as the runs column says. Target: held-out perplexity at least as good, in less wall "
            "time. (tomotopy warns that with workers != 1 its result differs between runs even with a fixed "
            "seed; the perplexity column is the last run's, the note gives every run's.)", ""]
    text.append(md_table(["K", "system", "iterations / sweeps", "runs", "wall s (median)", "spread", "own CPU s",
                          "other load (max)", "held-out perplexity", "note"], rows))
    out.append("\n".join(text))
    print(out[-1], flush=True)


# --------------------------------------------------------------------------- section: trade-off
class Trace:
    """Wall-time clock of one fit that can pause while a snapshot of the topics is taken."""

    def __init__(self):
        self.points = []  # (iteration, seconds, Fit)
        self.t0 = time.perf_counter()
        self.paused = 0.0

    def snap(self, it, fit_fn):
        t = time.perf_counter()
        elapsed = t - self.t0 - self.paused
        self.points.append((it, elapsed, fit_fn()))
        self.paused += time.perf_counter() - t


def trace_sklearn(X, K, method, n_steps, bs, every):
    """scikit-learn LDA with a snapshot of the topics after every ``every`` EM steps (mini-batches)."""
    from sklearn.decomposition import LatentDirichletAllocation

    tr = {}

    class SnapLDA(LatentDirichletAllocation):
        def _em_step(self, *a, **kw):
            r = super()._em_step(*a, **kw)
            tr["n"] = tr.get("n", 0) + 1
            if tr["n"] % every == 0:
                tr["trace"].snap(tr["n"] // every, lambda: Fit(self.components_ / self.components_.sum(1)[:, None],
                                                               self.doc_topic_prior_))
            return r

    kw = dict(doc_topic_prior=1.0 / K, topic_word_prior=1.0 / K, max_doc_update_iter=100, mean_change_tol=1e-3,
              evaluate_every=-1, random_state=SEED)
    if method == "online":
        kw.update(learning_decay=KAPPA, learning_offset=TAU0, batch_size=bs)
    m = SnapLDA(n_components=K, learning_method=method, max_iter=n_steps, n_jobs=1, **kw)
    with blas(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr["trace"] = Trace()
        m.fit(X)
    return tr["trace"].points


def trace_gensim(X, K, passes, bs):
    from gensim.models.callbacks import Metric

    holder = {}

    class Snapshot(Metric):
        logger, title = None, "snapshot"

        def get_value(self, **kw):
            holder["n"] = holder.get("n", 0) + 1
            holder["trace"].snap(holder["n"], lambda: gensim_fit(kw["model"]))
            return 0.0

    with blas(1):
        holder["trace"] = Trace()
        gensim_model(X, K, passes, bs, callbacks=[Snapshot()])
    return holder["trace"].points


def trace_tomotopy(X, K, iters, checkpoints, workers=2):
    cps = set(checkpoints)
    tr = Trace()
    mdl = tomotopy_model(X, K)
    V = X.shape[1]

    def cb(model, cur, total):
        if cur in cps and not any(p[0] == cur for p in tr.points):
            tr.snap(cur, lambda: tomotopy_fit(model, V))

    mdl.train(iters, workers=workers, callback_interval=min(10, min(cps)), callback=cb)
    if not tr.points or tr.points[-1][0] != iters:  # the end of training, if the callback did not see it
        tr.snap(iters, lambda: tomotopy_fit(mdl, V))
    return tr.points


def trace_topicvb(X, name, K, checkpoints, bs):
    """Fits from scratch with max_iter = each checkpoint (fixed seed: prefixes of one run)."""
    pts = []
    for c in checkpoints:
        common.wait_for_quiet()
        with common.LoadMeter() as lm:
            f = fit_topicvb(X, name, K, c, bs=bs)
        common.FOREIGN_LOG.append(lm.foreign_share)
        f.extra["foreign"] = lm.foreign_share
        pts.append((c, lm.wall, f))
    return pts


def metered(fn):
    """Run a peer's traced fit under a LoadMeter; every point gets the run's foreign-load share."""
    common.wait_for_quiet()
    with common.LoadMeter() as lm:
        pts = fn()
    common.FOREIGN_LOG.append(lm.foreign_share)
    for _, _, f in pts:
        f.extra["foreign"] = lm.foreign_share
    return pts


def bench_tradeoff(args, Xp, score, out, summary, plots):
    K = args.tradeoff_k
    bs = args.batch_size
    q = args.quick
    cp = {  # checkpoints (iterations / passes / sweeps)
        "PLSA": (2, 5) if q else (5, 10, 20, 50, 100, 200),
        "BatchLDA": (1, 2) if q else (1, 2, 5, 10, 20, 50),
        "CollapsedLDA": (2, 5) if q else (5, 10, 20, 50, 100, 200, 300),
        "OnlineLDA": (1, 2) if q else (1, 2, 3, 5, 10),
        "StochasticCollapsedLDA": (1, 2) if q else (1, 2, 3, 5, 10),
        "BatchLDA-random": (1, 2) if q else (1, 2, 5, 10, 20, 50),
        "OnlineLDA-random": (1, 2) if q else (1, 2, 3, 5, 10),
    }
    sk_batch_iters = 2 if q else args.sk_batch_iters
    passes = 2 if q else 10
    T = args.tomotopy_iters
    tomo_cp = sorted({c for c in (10, 20, 50, 100, 200, 500, 1000) if c < T} | {T})
    systems = []  # (label, threads, unit, points)
    labels = {"PLSA": "topicvb PLSA", "BatchLDA": "topicvb BatchLDA", "CollapsedLDA": "topicvb CollapsedLDA (CVB0)",
              "OnlineLDA": "topicvb OnlineLDA", "StochasticCollapsedLDA": "topicvb StochasticCollapsedLDA (SCVB0)",
              "BatchLDA-random": "topicvb BatchLDA init='random'", "OnlineLDA-random": "topicvb OnlineLDA init='random'"}
    units = {"PLSA": "iterations", "BatchLDA": "iterations", "CollapsedLDA": "sweeps", "OnlineLDA": "passes",
             "StochasticCollapsedLDA": "passes", "BatchLDA-random": "iterations", "OnlineLDA-random": "passes"}
    for name, cps in cp.items():
        log(f"tradeoff K={K}: {name} at {cps}")
        pts = trace_topicvb(Xp, name, K, cps, bs)
        for c, s, f in pts:
            f.seconds = s
            FITTED[(name, K, c)] = f
        systems.append((labels[name], "n_jobs=2" + (" (per_sweep)" if name == "CollapsedLDA" else ""), units[name],
                        pts))
    log(f"tradeoff K={K}: scikit-learn batch, {sk_batch_iters} iterations")
    systems.append(("sklearn LDA batch", "n_jobs=1, BLAS 1", "iterations",
                    metered(lambda: trace_sklearn(Xp, K, "batch", sk_batch_iters, bs, 1))))
    log(f"tradeoff K={K}: scikit-learn online, {passes} passes")
    n_batches = -(-Xp.shape[0] // bs)
    systems.append(("sklearn LDA online", "n_jobs=1, BLAS 1", "passes",
                    metered(lambda: trace_sklearn(Xp, K, "online", passes, bs, n_batches))))
    log(f"tradeoff K={K}: gensim, {passes} passes")
    gpts = metered(lambda: trace_gensim(Xp, K, passes, bs))
    gpts[-1][2].seconds = gpts[-1][1]
    FITTED[("gensim", K, passes)] = gpts[-1][2]
    systems.append(("gensim LdaModel", "BLAS 1", "passes", gpts))
    log(f"tradeoff K={K}: tomotopy, {T} iterations")
    tpts = metered(lambda: trace_tomotopy(Xp, K, T, tomo_cp))
    if ("tomotopy", K, T) not in FITTED:
        tpts[-1][2].seconds = tpts[-1][1]
        FITTED[("tomotopy", K, T)] = tpts[-1][2]
    systems.append(("tomotopy LDAModel (Gibbs)", "workers=2", "iterations", tpts))

    log("tradeoff: scoring")
    curves = []
    foreign = {}
    for label, thr, unit, pts in systems:
        curves.append((label, thr, unit, [(it, s, score(f)) for it, s, f in pts]))
        for it, _, f in pts:
            foreign[(label, it)] = f.extra.get("foreign")
    best = min(p for c in curves for _, _, p in c[3])
    goal = 1.05 * best
    rows, srows = [], []
    for label, thr, unit, c in curves:
        for it, s, p in c:
            rows.append([label, thr, f"{it} {unit}", s, p, foreign_str([foreign.get((label, it))])])
        final = c[-1]
        bestp = min(p for _, _, p in c)
        reach = next((s for _, s, p in c if p <= goal), None)
        srows.append([label, thr, f"{final[0]} {unit}", final[1], final[2], bestp,
                      "not reached" if reach is None else f"{reach:.3g}"])
    text = [f"## 3. Held-out perplexity against wall time (K={K})", "",
            "Every system on the same matrix and the same test split, scored by the same estimator. topicvb: a fit "
            "from scratch for every checkpoint (fixed seed, so the checkpoints are prefixes of one run; the time "
            "is that fit's wall time), numba n_jobs=2. Peers: one fit each with a snapshot of the topics after "
            "every iteration / pass (scikit-learn through its `_em_step`, gensim through a `callbacks` metric, "
            "tomotopy through `train(callback=...)`); the snapshot time is taken off the clock. scikit-learn runs "
            "n_jobs=1 (in `bench_models.py` n_jobs=2 was not faster per batch-EM step on this machine, and slower "
            "online), gensim BLAS 1 (its faster setting in section 1), tomotopy 2 workers. PLSA has no "
            "document-topic prior; it is scored with alpha = 1/K like the others. BatchLDA and OnlineLDA are shown "
            "with their default `init='seeded'` and with `init='random'`. Online methods: batch size "
            f"{bs}, kappa {KAPPA}, tau0 {TAU0:g}.", ""]
    text.append(md_table(["system", "threads", "at", "wall s", "held-out perplexity", "other load"], rows))
    text += ["", f"Summary: last checkpoint, best perplexity on the curve, and the first wall time at which the "
             f"curve is within 5% of the best perplexity any system reached ({best:.0f}, so <= {goal:.0f}).", ""]
    text.append(md_table(["system", "threads", "last checkpoint", "wall s", "held-out perplexity", "best on curve",
                          "s to <= 1.05 x overall best"], srows))
    if args.plot:
        plots.append((K, curves))
        text += ["", f"![held-out perplexity against wall time]({Path(args.plot).name})"]
    out.append("\n".join(text))
    print(out[-1], flush=True)
    summary.append([f"perplexity vs wall time, all topicvb algorithms and peers, K={K}",
                    f"{len(curves)} curves; lowest perplexity {best:.0f} "
                    f"({min(curves, key=lambda c: min(p for _, _, p in c[3]))[0]})", "done"])


def curves_from_report(md_path):
    """The trade-off curves of section 3 of a report written by this script, to redraw its plot."""
    plots, K, curves, inside = [], None, {}, False
    for line in Path(md_path).read_text().splitlines():
        if line.startswith("## 3. Held-out perplexity against wall time"):
            K, curves, inside = int(line.split("K=")[1].rstrip(")")), {}, True
        elif inside and line.startswith("## "):
            break
        elif inside and line.startswith("| ") and not line.startswith("| system"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) < 5 or " " not in cells[2]:
                continue
            if cells[2].split(" ")[0].isdigit():  # the per-point table, not the summary
                it, unit = cells[2].split(" ", 1)
                curves.setdefault((cells[0], cells[1], unit), []).append((int(it), float(cells[3]), float(cells[4])))
        elif inside and line.startswith("Summary:"):
            inside = None
    if K is not None:
        plots.append((K, [(lab, thr, unit, pts) for (lab, thr, unit), pts in curves.items()]))
    return plots


def write_plot(path, plots):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(plots), figsize=(11.5 * len(plots), 5.8), squeeze=False)
    styles = ["o-", "s-", "^-", "D-", "v-", "s:", "D:", "o--", "s--", "^--", "D--", "v--"]
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#d62728", "#7f7f7f", "#bcbd22",
              "#17becf", "#8c564b", "#e377c2"]
    for ax, (K, curves) in zip(axes[0], plots):
        for i, (label, thr, unit, c) in enumerate(curves):
            ax.plot([s for _, s, _ in c], [p for _, _, p in c], styles[i % len(styles)], color=colors[i % len(colors)],
                    label=f"{label} ({thr})", markersize=4)
        ax.set_xscale("log")
        ax.set_xlabel("wall time of the fit (s, log scale)")
        ax.set_ylabel("held-out perplexity (document completion)")
        lo = min(p for c in curves for _, _, p in c[3])
        hi = sorted(p for c in curves for _, _, p in c[3])[int(0.85 * sum(len(c[3]) for c in curves))]
        ax.set_ylim(lo * 0.97, hi * 1.05)
        ax.set_title(f"20 Newsgroups, K = {K}: held-out perplexity vs wall time (2-core shared machine)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------- section: learned priors
def bench_priors(args, Xp, score, out, summary):
    K = args.tradeoff_k
    q = args.quick
    bs = args.batch_size
    n_batch, n_online, n_cvb = (2, 2, 5) if q else (50, 10, 100)
    passes = n_online
    T = args.tomotopy_iters
    rows = []
    spread = {}
    spread_all = {}

    def get(key, make):
        if key in FITTED:
            return FITTED[key], "reused"
        common.wait_for_quiet()
        t0 = time.perf_counter()
        f = make()
        f.seconds = time.perf_counter() - t0
        FITTED[key] = f
        return f, ""

    for name, it, unit in (("BatchLDA", n_batch, "iterations"), ("OnlineLDA", n_online, "passes"),
                           ("CollapsedLDA", n_cvb, "sweeps")):
        for learn in (False, True):
            log(f"priors K={K}: {name} learn_priors={learn}")
            key = (name, K, it) if not learn else (name + "+learn", K, it)
            f, note = get(key, lambda: fit_topicvb(Xp, name, K, it, bs=bs, learn=learn))
            p = score(f)
            spread.setdefault(learn, []).append(p)
            rows.append([f"topicvb {name}", f"{it} {unit}", str(learn), f.seconds, p, float(f.alpha.sum()),
                         f"{f.alpha.min():.3g}-{f.alpha.max():.3g}", f.eta, note])
    log(f"priors K={K}: gensim fixed / auto")
    for auto in (False, True):
        key = ("gensim" + ("+auto" if auto else ""), K, passes)

        def mk(auto=auto):
            with blas(1):
                return gensim_fit(gensim_model(Xp, K, passes, bs, auto=auto))

        f, note = get(key, mk)
        er = f.extra.get("eta_range")
        spread_all.setdefault(auto, []).append(score(f))
        rows.append(["gensim LdaModel", f"{passes} passes", "alpha, eta = 'auto'" if auto else "False", f.seconds,
                     score(f), float(f.alpha.sum()), f"{f.alpha.min():.3g}-{f.alpha.max():.3g}",
                     f"{f.eta:.3g}" + (f" (per term {er[0]:.3g}-{er[1]:.3g})" if auto and er else ""), note])
    log(f"priors K={K}: tomotopy fixed / optim_interval=10")
    for learn in (False, True):
        key = ("tomotopy" + ("+learn" if learn else ""), K, T)
        f, note = get(key, lambda learn=learn: run_tomotopy(Xp, K, T, 2, optim_interval=10 if learn else 0))
        spread_all.setdefault(learn, []).append(score(f))
        rows.append(["tomotopy LDAModel (Gibbs)", f"{T} iterations", "alpha (optim_interval=10)" if learn else "False",
                     f.seconds, score(f), float(f.alpha.sum()), f"{f.alpha.min():.3g}-{f.alpha.max():.3g}", f.eta,
                     note])
    sp = {k: (max(v) / min(v) - 1) * 100 for k, v in spread.items()}
    for k, v in spread.items():
        spread_all.setdefault(k, []).extend(v)
    spa = {k: (max(v) / min(v) - 1) * 100 for k, v in spread_all.items()}
    text = [f"## 4. Learned priors (K={K}): do the algorithms agree?", "",
            "Asuncion, Welling, Smyth & Teh (2009) found that once the hyperparameters are learned, VB, CVB, CVB0, "
            "MAP and collapsed Gibbs reach nearly the same held-out perplexity. topicvb `learn_priors=True` learns an "
            "asymmetric alpha (Minka's fixed point) and a symmetric eta: BatchLDA in its M-step, OnlineLDA by online "
            "(step-size-weighted) updates, CollapsedLDA after every sweep from sweep 11 on (`prior_burn_in=10`). "
            "Starting values 1/K. gensim `alpha='auto', eta='auto'` learns an asymmetric alpha and a per-term eta "
            "online; tomotopy with `optim_interval=10` learns alpha only (eta stays 1/K). Held-out perplexity uses "
            "each model's own (learned) alpha in the document-completion estimator. \"reused\": the same fit as in "
            "an earlier section (same settings); its time is from that section. Online rows: batch size "
            f"{bs}, n_jobs=2; CollapsedLDA per_sweep, n_jobs=2.", ""]
    text.append(md_table(["system", "length", "learned priors", "fit s", "held-out perplexity", "sum alpha",
                          "alpha min-max", "eta", "note"], rows))
    text += ["", "Spread of the three topicvb algorithms (max / min perplexity - 1): "
             f"fixed priors {sp.get(False, float('nan')):.1f}%, learned priors {sp.get(True, float('nan')):.1f}%. "
             "All five systems (with gensim's and tomotopy's own prior learning): fixed "
             f"{spa.get(False, float('nan')):.1f}%, learned {spa.get(True, float('nan')):.1f}%."]
    out.append("\n".join(text))
    print(out[-1], flush=True)
    summary.append([f"learned priors make BatchLDA / OnlineLDA / CollapsedLDA agree (Asuncion et al.), K={K}",
                    f"max/min perplexity - 1 across the three: {sp.get(False, float('nan')):.1f}% with fixed priors, "
                    f"{sp.get(True, float('nan')):.1f}% learned (all five systems incl. gensim/tomotopy: "
                    f"{spa.get(False, float('nan')):.1f}% -> {spa.get(True, float('nan')):.1f}%)",
                    "spread shrinks" if sp.get(True, 1e9) < sp.get(False, 0) else "spread does not shrink"])


# --------------------------------------------------------------------------- section: memory
MEM_SYSTEMS = ("PLSA", "BatchLDA", "CollapsedLDA", "CollapsedLDA-seq", "OnlineLDA", "StochasticCollapsedLDA",
               "sklearn LDA batch", "sklearn LDA online", "gensim", "tomotopy")
MEM_ITERS = {"PLSA": 2, "BatchLDA": 2, "CollapsedLDA": 2, "CollapsedLDA-seq": 2, "OnlineLDA": 1,
             "StochasticCollapsedLDA": 1, "sklearn LDA batch": 2, "sklearn LDA online": 1, "gensim": 1,
             "tomotopy": 20}


def worker_memory(spec: dict) -> dict:
    """In a fresh process: load the matrix, warm up on 50 documents, reset the RSS peak, fit."""
    import resource

    import psutil

    class A:
        quick = spec["quick"]
        vectorizer = spec["vectorizer"]

    _, Xtr, _ = bm.get_data(A)
    Xp = Xtr[np.random.RandomState(SEED).permutation(Xtr.shape[0])]
    name, K, it = spec["model"], spec["k"], spec["iters"]

    def fit(X, n):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "gensim":
                with blas(1):
                    return gensim_model(X, K, n, 256)
            if name == "tomotopy":
                mdl = tomotopy_model(X, K)
                mdl.train(n, workers=2)
                return mdl
            if name.startswith("sklearn"):
                with blas(1):
                    method = "batch" if "batch" in name else "online"
                    kw = dict(learning_decay=KAPPA, learning_offset=TAU0, batch_size=256) if method == "online" else {}
                    return bm.sk_lda(K, learning_method=method, max_iter=n, n_jobs=1, **kw).fit(X)
            return make_topicvb(name, K, n, bs=256).fit(X)

    fit(Xp[:50], 1)
    before = common.current_rss()
    reset_ok = common.reset_peak_rss()
    t0 = time.perf_counter()
    model = fit(Xp, it)
    secs = time.perf_counter() - t0
    after = psutil.Process().memory_info().rss
    del model
    return {"rss_before": before, "peak": common.peak_rss(), "reset_ok": reset_ok, "fit_s": secs,
            "rss_after_psutil": after, "ru_maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def bench_memory(args, Xp, out, summary):
    specs = [(s, args.tradeoff_k) for s in (args.mem_systems or MEM_SYSTEMS)]
    for K in args.k:
        if K != args.tradeoff_k:
            specs += [(s, K) for s in ("OnlineLDA", "gensim", "CollapsedLDA", "tomotopy")]
    rows = []
    for name, K in specs:
        spec = {"model": name, "k": K, "iters": MEM_ITERS[name], "quick": args.quick, "vectorizer": args.vectorizer}
        log(f"memory: {name} K={K}")
        r = common.run_json_subprocess([__file__, "--worker-memory", json.dumps(spec)])
        label = {"CollapsedLDA": "topicvb CollapsedLDA (per_sweep, 2 thr)",
                 "CollapsedLDA-seq": "topicvb CollapsedLDA (sequential, 1 thr)", "gensim": "gensim LdaModel",
                 "tomotopy": "tomotopy LDAModel (incl. its corpus)"}.get(name, name if name.startswith("sklearn")
                                                                          else "topicvb " + name)
        rows.append([label, K, MEM_ITERS[name], mib(r["rss_before"]), mib(r["peak"]), mib(r["peak"] - r["rss_before"]),
                     mib(r["rss_after_psutil"]), mib(r["ru_maxrss"]), r["fit_s"],
                     "yes" if r["reset_ok"] else "NO (peak = lifetime)"])
    data_mib = (Xp.data.nbytes + Xp.indices.nbytes + Xp.indptr.nbytes) / 2**20
    text = ["## 5. Peak memory per fit", "",
            "Each fit in a fresh subprocess (the protocol of `bench_models.py`'s memory section): load the cached "
            "matrix, a warm-up fit on 50 documents (imports, compiled kernels), then the resident-set high-water "
            "mark is reset (`echo 5 > /proc/self/clear_refs`) and the fit runs; \"peak during fit\" is VmHWM "
            "afterwards and \"increase\" = peak - RSS before the fit; \"RSS after (psutil)\" is "
            "`psutil.Process().memory_info().rss` with the fitted model still alive; ru_maxrss is the process's "
            "lifetime peak (includes loading). Short fits (the iterations column: the working set is allocated in "
            "the first iteration/pass), threads as in the timed sections (topicvb n_jobs=2 except the sequential "
            "CVB0, tomotopy 2 workers, gensim / scikit-learn BLAS 1). tomotopy's fit includes building its own "
            f"corpus (`add_doc`), which it keeps. The train CSR matrix is {data_mib:.1f} MiB (float64).", ""]
    text.append(md_table(["system", "K", "iterations", "RSS before fit (MiB)", "peak during fit (MiB)",
                          "increase (MiB)", "RSS after (psutil, MiB)", "ru_maxrss (MiB)", "fit s", "peak reset"], rows))
    out.append("\n".join(text))
    print(out[-1], flush=True)
    inc = {(r[0], r[1]): r[5] for r in rows}
    for K in args.k:
        parts = [f"{lab.split(' (')[0].replace('topicvb ', '')} {inc[(lab, K)]:.0f}"
                 for lab in ("topicvb OnlineLDA", "gensim LdaModel", "topicvb CollapsedLDA (per_sweep, 2 thr)",
                             "tomotopy LDAModel (incl. its corpus)") if (lab, K) in inc]
        if parts:
            summary.append([f"peak memory increase of the fit (MiB), K={K}", "; ".join(parts), "reported"])


# --------------------------------------------------------------------------- main
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smoke run on a slice of the corpus (< 1 minute)")
    p.add_argument("--k", type=int, nargs="+", default=None,
                   help="topics for online-gensim, collapsed-tomotopy, memory (default 20 100)")
    p.add_argument("--tradeoff-k", type=int, default=None, help="topics for tradeoff, priors (default: first --k)")
    p.add_argument("--online-passes", type=int, default=None, help="passes of section 1 (default 3)")
    p.add_argument("--batch-size", type=int, default=None, help="mini-batch = gensim chunksize (default 256)")
    p.add_argument("--tomotopy-iters", type=int, default=None, help="tomotopy Gibbs iterations (default 1000)")
    p.add_argument("--tomotopy-repeats", type=int, default=None, help="timed tomotopy runs per K (default 2)")
    p.add_argument("--cvb-sweeps", type=int, default=None, help="CVB0 sweeps of section 2 (default 100 for K <= 20, "
                                                                "else 50)")
    p.add_argument("--sk-batch-iters", type=int, default=20, help="scikit-learn batch iterations in the trade-off")
    p.add_argument("--repeats", type=int, default=None, help="interleaved timing rounds (default 3)")
    p.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    p.add_argument("--mem-systems", nargs="+", choices=MEM_SYSTEMS, default=None)
    p.add_argument("--vectorizer", choices=("topicvb", "sklearn"), default="topicvb")
    p.add_argument("--out", default=None, help="markdown file (default benchmarks/results/peers.md; --quick: none)")
    p.add_argument("--plot", default=None, help="trade-off plot (default benchmarks/results/tradeoff.png; "
                                                "--quick: none)")
    p.add_argument("--quiet-wait", type=float, default=20.0,
                   help="seconds each timing waits at most for other processes to go idle (default 20)")
    p.add_argument("--note", default=None, help="a line for the report under the command (e.g. where topicvb came "
                                                "from)")
    p.add_argument("--replot", default=None, metavar="REPORT_MD",
                   help="only redraw --plot from the trade-off table of a report this script wrote")
    p.add_argument("--worker-memory", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.replot:
        target = args.plot or str(common.BENCH_DIR / "results" / "tradeoff.png")
        write_plot(target, curves_from_report(args.replot))
        log(f"wrote {target} from {args.replot}")
        return 0
    if args.worker_memory:
        print(json.dumps(worker_memory(json.loads(args.worker_memory))))
        return 0
    warnings.filterwarnings("ignore", message="The training result may differ")  # tomotopy, workers != 1
    q = args.quick
    common.QUIET_WAIT = 0.0 if q else args.quiet_wait
    args.k = args.k or ([10] if q else [20, 100])
    args.tradeoff_k = args.tradeoff_k or args.k[0]
    args.online_passes = args.online_passes or (1 if q else 3)
    args.batch_size = args.batch_size or (64 if q else 256)
    args.tomotopy_iters = args.tomotopy_iters or (50 if q else 1000)
    args.tomotopy_repeats = args.tomotopy_repeats or (1 if q else 2)
    args.cvb_sweeps = args.cvb_sweeps or (5 if q else None)
    args.repeats = args.repeats or (1 if q else 3)
    if q:
        args.mem_systems = args.mem_systems or ["OnlineLDA", "tomotopy"]
    if args.out is None and not q:
        args.out = str(common.BENCH_DIR / "results" / "peers.md")
    if args.plot is None and not q:
        args.plot = str(common.BENCH_DIR / "results" / "tradeoff.png")

    started = time.perf_counter()
    m, Xtr, Xte = bm.get_data(args)
    # one fixed random row order, the same for every system (online methods read it in this order)
    Xp = Xtr[np.random.RandomState(SEED).permutation(Xtr.shape[0])].tocsr()
    Xp.sort_indices()
    import numba

    import topicvb

    env = f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])} " if os.environ.get("PYTHONPATH") else ""
    cmd = env + " ".join(["python", "benchmarks/bench_peers.py"] + [shlex.quote(a) for a in
                                                              (argv if argv is not None else sys.argv[1:])])
    head = ["# Peer benchmarks: topicvb vs gensim, tomotopy and scikit-learn", "", f"Command: `{cmd}`", ""]
    if args.note:
        head += [args.note, ""]
    info = common.machine_info()
    info.update(versions())
    head += [f"- {k}: {v}" for k, v in info.items()]
    head += common.corpus_section(m, Xtr, Xte, quick=q,
                                  note="The train rows are put in one fixed random order (seed 0) that every system reads.")
    head += ["", "Held-out perplexity, every system alike: each test document's tokens are split once at random "
             "(`topicvb.evaluation.split_tokens`, half observed, seed 0); a `FixedTopicModel` holding the system's "
             "topic-word matrix P(w | k) and document-topic prior alpha infers theta from the observed half (VB "
             "E-step, <= 100 updates, tol 1e-3) and the held-out half is scored, "
             "exp(-sum log sum_k theta_dk phi_kw / N_heldout) (`heldout_perplexity`). For the VB models P(w | k) "
             "is E[beta] = lambda / sum lambda, for the collapsed models and tomotopy (n_kw + eta) / (n_k + V eta)."]
    out = ["\n".join(head)]
    summary: list = []
    print(out[0], flush=True)

    # warm up: numba cache, imports of the peers, the scorer
    log("warm-up")
    score = Scorer(Xte)
    small = Xp[:200]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("PLSA", "BatchLDA", "CollapsedLDA", "CollapsedLDA-seq", "OnlineLDA", "StochasticCollapsedLDA"):
            for learn in ((False, True) if name in ("BatchLDA", "CollapsedLDA", "OnlineLDA") else (False,)):
                score(fit_topicvb(small, name, 3, 2, bs=64, learn=learn))
        score(gensim_fit(gensim_model(small, 3, 1, 64)))
        score(run_tomotopy(small, 3, 5, 2))
    out[0] += (f"\n\nnumba threading layer: {numba.threading_layer()}; topicvb imported from "
               f"`{Path(topicvb.__file__).parent}`.")
    plots: list = []
    if "online-gensim" in args.sections:
        bench_online_gensim(args, Xp, score, out, summary)
    if "collapsed-tomotopy" in args.sections:
        bench_collapsed_tomotopy(args, Xp, score, out, summary)
    if "tradeoff" in args.sections:
        bench_tradeoff(args, Xp, score, out, summary, plots)
    if "priors" in args.sections:
        bench_priors(args, Xp, score, out, summary)
    if "memory" in args.sections:
        bench_memory(args, Xp, out, summary)
    note = common.load_note()
    if note:
        out[0] += "\n\n" + note
    if summary:
        out.insert(1, "## Summary (targets from issue #4)\n\n" + md_table(["target", "measured", "result"], summary))
    out.append(f"_Total benchmark wall time: {(time.perf_counter() - started) / 60:.1f} min._")
    if args.plot and plots:
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        write_plot(args.plot, plots)
        log(f"wrote {args.plot}")
    common.write_report("\n\n".join(out) + "\n", args.out, echo=False, announce=True)
    print(out[1] if summary else "", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
