"""Quality benchmark (issue #17): every topicvb estimator with its defaults, and tomotopy, on real and LDA corpora.

Run from the repository root::

    python benchmarks/bench_quality.py --quick              # smoke run (< 1 minute), writes nothing
    python benchmarks/bench_quality.py                       # full run (hours on 2 cores) -> results/quality.md, .json
    python benchmarks/bench_quality.py --corpora kos --k 50 --estimators CollapsedLDA tomotopy
    python benchmarks/bench_quality.py --corpora synthetic --synthetic-docs 1000 --seeds 0 1 --k 10 20
    python benchmarks/bench_quality.py --corpora 20ng --k 20 --estimators CollapsedLDA+learn tomotopy \
        --fit-seeds 0 1 2 3 4                                # means over fit seeds (random_state, tomotopy seed)
    python benchmarks/bench_quality.py ... --pair BASE OTHER  # adds a fit-by-fit table of OTHER against BASE

Systems: every class of ``topicvb.models._registry.ENTRIES`` with its defaults except ``n_components``
(= K) and ``random_state`` (the fit seed: 0 unless ``--fit-seeds``), and tomotopy ``LDAModel`` (collapsed
Gibbs; alpha = eta = 1/K fixed, ``tw=ONE``, seed = the fit seed, ``--tomotopy-iters`` sweeps, 2 worker
threads), the peer code of ``bench_peers.py`` (``run_tomotopy``, ``tv_fit``) reused as it is.

Corpora (``--corpora``):

20ng       20 Newsgroups by-date, train / test split; headers and quoted replies removed, tokens of
           >= 3 letters, English stop words, min_df 5, max_df 0.5 (vocabulary from train); empty
           train documents dropped. Vectorised once and cached under ``benchmarks/.bench_cache/``.
kos        UCI KOS (``uci-kos``), 10% of the documents held out (seeded).
ap         Blei's AP (``ap-blei``, read by ``corpora/recipes/ap_blei.py``), 10% held out (seeded).
synthetic  LDA-generated (``topicvb.make_lda_corpus``: alpha 0.1, eta 0.01, Poisson lengths), one
           corpus per true K and seed, 10% held out; the fitted K is the true K.

KOS, AP and synthetic keep only the terms that occur in their train part, so every system (tomotopy
knows only the terms it saw) scores the same test tokens.

Metrics of each fit (``topicvb.evaluation`` / ``topicvb.inspection``; the same code for every system,
through a ``FixedTopicModel`` holding the system's topic-word matrix and document-topic prior):
held-out perplexity by document completion (``common.DocCompletion``: half of each test document's
tokens observed, seed 0); NPMI of each topic's top 10 words by document co-occurrence in the
training matrix (``coherence(..., measure="c_npmi")``, no window); topic diversity of the top 25
words (``topic_diversity``, Dieng et al. 2020); recovery (synthetic only): mean over the true topics
of the cosine similarity to the best-matching fitted topic; dead topics: topics with less than
0.2 / K of the training tokens by ``topic_prevalence`` (sum_d N_d theta_dk / N, theta inferred
with the topics fixed); wall time of the fit (tomotopy: building its corpus plus training).

Resumable: every finished row is written at once to the JSON file beside the report; a later run
with the same ``--out`` skips the rows already there (``--redo`` recomputes them, ``--fresh`` starts a
new file) and rewrites the markdown report from all rows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_peers as bp  # noqa: E402  (tomotopy and topicvb fit extracts shared with the peer benchmark)
import common  # noqa: E402
from common import md_table  # noqa: E402

SEED = bp.SEED  # the held-out split and document completion's seed; fits use FIT_SEED
FIT_SEED = SEED  # random_state of the topicvb fit and tomotopy's seed being run (--fit-seeds sets it)
CORPORA = ("20ng", "kos", "ap", "synthetic")
DEFAULT_K = {"20ng": [20, 50], "kos": [50], "ap": [50], "synthetic": [10, 20, 50]}
TOMOTOPY = "tomotopy"
HOLDOUT = 0.1  # share of KOS / AP / synthetic documents held out for perplexity
N_NPMI, N_DIVERSITY = 10, 25  # top words of NPMI and of topic diversity
DEAD_SHARE = 0.2  # a topic is dead below DEAD_SHARE / K of the training tokens
# 20 Newsgroups as issue #17 asks: letters only, >= 3 of them
NG_SETTINGS = {"remove": ["headers", "quotes"], "token_pattern": r"(?u)\b[^\W\d_]{3,}\b", "min_length": 3,
               "stop_words": "english", "min_df": 5, "max_df": 0.5}
log = bp.log


def registry_names() -> list[str]:
    """Every registered estimator with its defaults, and with ``learn_priors=True`` where it has that
    parameter (``Name+learn``: issue #17 asks that learned priors never hurt)."""
    from topicvb.models._registry import class_names, estimator_class

    names = class_names()
    return names + [f"{n}+learn" for n in names if "learn_priors" in estimator_class(n)().get_params()]


def make_estimator(name: str, K: int):
    """The estimator of a benchmark name: a registry name, optionally followed by ``+`` options, each
    ``learn`` (learn_priors=True) or ``param=value`` (a Python literal): ``CollapsedLDA+learn+moves=False``."""
    import ast

    from topicvb.models._registry import estimator_class

    base, *options = name.split("+")
    params = {}
    for option in options:
        key, eq, value = option.partition("=")
        if option == "learn":
            params["learn_priors"] = True
        elif eq and key.isidentifier():
            try:
                params[key] = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                raise ValueError(f"option {option!r} in {name!r}: {value!r} is not a Python literal.") from None
        else:
            raise ValueError(f"unknown estimator option {option!r} in {name!r}; use 'learn' or 'param=value'.")
    return estimator_class(base)(n_components=K, random_state=FIT_SEED, **params)


# --------------------------------------------------------------------------- corpora
@dataclass
class Data:
    """One corpus at one K: the training and test matrices, the vocabulary and (synthetic) the true topics."""

    name: str
    X_train: sp.csr_matrix
    X_test: sp.csr_matrix
    vocabulary: list
    description: str
    true_topics: np.ndarray | None = None
    _reference: object = field(default=None, repr=False)

    @property
    def reference(self):
        """The training matrix as the coherence reference (document co-occurrence), built once."""
        if self._reference is None:
            from topicvb.evaluation import ReferenceCorpus

            self._reference = ReferenceCorpus(X=self.X_train, vocabulary=self.vocabulary)
        return self._reference

    def info(self) -> dict:
        return {"description": self.description,
                "train": f"{self.X_train.shape[0]} x {self.X_train.shape[1]}", "train tokens": int(self.X_train.sum()),
                "test docs": self.X_test.shape[0], "test tokens": int(self.X_test.sum())}


def _csr(X) -> sp.csr_matrix:
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return X


def holdout_split(X, seed: int = 0, fraction: float = HOLDOUT):
    """Rows of X split at random into train and test (``fraction`` of the documents), each in corpus order,
    keeping only the terms that occur in the train part; returns (X_train, X_test, kept column ids).

    Every system then has the same vocabulary; otherwise tomotopy, which knows only the terms it saw,
    would give a test token of an unseen term probability zero (as a vocabulary fitted on the train
    split does for 20 Newsgroups).
    """
    X = sp.csr_matrix(X)
    perm = np.random.RandomState(seed).permutation(X.shape[0])
    n_test = int(round(fraction * X.shape[0]))
    Xtr, Xte = X[np.sort(perm[n_test:])], X[np.sort(perm[:n_test])]
    keep = np.flatnonzero(np.asarray(Xtr.sum(axis=0)).ravel() > 0)
    return _csr(Xtr[:, keep]), _csr(Xte[:, keep]), keep


def _dropped(X, keep) -> str:
    n = X.shape[1] - keep.size
    return f"; {n} terms absent from the train part dropped" if n else ""


def corpora_dir() -> Path:
    return common.corpus_archive().parent.parent


def _ng_cache_paths() -> dict:
    archive = common.corpus_archive()
    st = archive.stat()
    blob = json.dumps([NG_SETTINGS, st.st_size, int(st.st_mtime)], sort_keys=True)
    key = f"20ng-quality-{hashlib.sha1(blob.encode()).hexdigest()[:12]}"
    return {p: common.CACHE_DIR / f"{key}-{p}" for p in ("train.npz", "test.npz", "vocab.json")}


def load_20ng() -> Data:
    """The 20 Newsgroups matrices of ``NG_SETTINGS`` (cached like ``common.load_matrices``)."""
    paths = _ng_cache_paths()
    if all(p.exists() for p in paths.values()):
        Xtr, Xte = sp.load_npz(paths["train.npz"]), sp.load_npz(paths["test.npz"])
        vocab = json.loads(paths["vocab.json"].read_text())
    else:
        from topicvb.datasets import load_20newsgroups
        from topicvb.text import Tokenizer, Vectorizer

        s = NG_SETTINGS
        t0 = time.perf_counter()
        vec = Vectorizer(tokenizer=Tokenizer(stop_words=s["stop_words"], token_pattern=s["token_pattern"],
                                             min_length=s["min_length"]), min_df=s["min_df"], max_df=s["max_df"])
        kw = dict(data_home=str(common.corpus_archive().parent), remove=tuple(s["remove"]), download_if_missing=False)
        train = load_20newsgroups("train", vectorizer=vec, **kw)
        test = load_20newsgroups("test", vectorizer=common._Frozen(vec), **kw)
        Xtr, Xte = _csr(train.X), _csr(test.X)
        vocab = [str(t) for t in vec.get_feature_names_out()]
        log(f"vectorised 20 Newsgroups in {time.perf_counter() - t0:.1f} s; cached.")
        common.CACHE_DIR.mkdir(parents=True, exist_ok=True)
        sp.save_npz(paths["train.npz"], Xtr)
        sp.save_npz(paths["test.npz"], Xte)
        paths["vocab.json"].write_text(json.dumps(vocab))
    Xtr = _csr(Xtr)
    n_empty = int(np.sum(np.diff(Xtr.indptr) == 0))
    Xtr = _csr(Xtr[np.diff(Xtr.indptr) > 0])
    desc = ("20 Newsgroups by-date train / test, headers and quotes removed, tokens of >= 3 letters, English stop "
            f"words, min_df 5, max_df 0.5 (vocabulary from train); {n_empty} empty train documents dropped")
    return Data("20ng", Xtr, _csr(Xte), vocab, desc)


def load_kos() -> Data:
    from topicvb.datasets import read_uci

    root = corpora_dir() / "uci-kos"
    c = read_uci(root / "docword.kos.txt.gz", root / "vocab.kos.txt.gz", name="kos")
    Xtr, Xte, keep = holdout_split(c.X, SEED)
    return Data("kos", Xtr, Xte, [c.vocabulary[j] for j in keep],
                f"UCI KOS, {c.n_docs} documents, {int(HOLDOUT * 100)}% held out (seed {SEED}){_dropped(c.X, keep)}")


def load_ap() -> Data:
    sys.path.insert(0, str(common.REPO / "corpora" / "recipes"))
    from ap_blei import load_ap as recipe

    c = recipe(str(corpora_dir() / "ap-blei" / "ap.tgz"))
    Xtr, Xte, keep = holdout_split(c.X, SEED)
    return Data("ap", Xtr, Xte, [c.vocabulary[j] for j in keep], f"AP (Blei's lda-c), {c.n_docs} documents, "
                f"{int(HOLDOUT * 100)}% held out (seed {SEED}){_dropped(c.X, keep)}")


def synthetic_name(args, seed: int) -> str:
    """``lda<docs>x<terms>x<mean length>-s<seed>`` (the true K is the row's K)."""
    return f"lda{args.synthetic_docs}x{args.synthetic_terms}x{args.synthetic_length:g}-s{seed}"


def make_synthetic(args, K: int, seed: int) -> Data:
    from topicvb.datasets import make_lda_corpus

    c, topic_word, _ = make_lda_corpus(args.synthetic_docs, args.synthetic_terms, K, doc_length=args.synthetic_length,
                                       random_state=seed)
    Xtr, Xte, keep = holdout_split(c.X, seed)
    desc = (f"make_lda_corpus({args.synthetic_docs}, {args.synthetic_terms}, {K}, doc_length={args.synthetic_length}, "
            f"random_state={seed}): alpha 0.1, eta 0.01, Poisson lengths; {int(HOLDOUT * 100)}% held out"
            f"{_dropped(c.X, keep)}")
    # recovery compares on the kept terms (cosine: no renormalisation needed)
    return Data(synthetic_name(args, seed), Xtr, Xte, [c.vocabulary[j] for j in keep], desc,
                true_topics=topic_word[:, keep])


def datasets(args):
    """Yield (Data, K) for every selected corpus and K, loading each real corpus once."""
    loaders = {"20ng": load_20ng, "kos": load_kos, "ap": load_ap}
    for name in args.corpora:
        ks = args.k or DEFAULT_K[name]
        if name == "synthetic":
            for K in ks:
                for seed in args.seeds:
                    yield (lambda K=K, seed=seed: make_synthetic(args, K, seed)), synthetic_name(args, seed), K
        else:
            cache = {}

            def get(name=name, cache=cache):
                if "d" not in cache:
                    cache["d"] = loaders[name]()
                return cache["d"]

            for K in ks:
                yield get, name, K


# --------------------------------------------------------------------------- systems
def tomotopy_label(iters: int) -> str:
    return f"{TOMOTOPY} ({iters} sweeps)"


def fit_system(name: str, K: int, X, args, *, quiet: bool = True):
    """Fit one system on X (after waiting for a quiet machine when ``quiet``); return (bench_peers.Fit,
    LoadMeter, extra)."""
    extra = {}
    wait = common.wait_for_quiet if quiet else (lambda: None)
    if name == TOMOTOPY:
        wait()
        with common.LoadMeter() as m:
            f = bp.run_tomotopy(X, K, args.tomotopy_iters, args.tomotopy_workers)
        extra.update(iterations=args.tomotopy_iters, train_s=f.extra["train_s"], add_docs_s=f.extra["add_docs_s"])
        unseen = int(np.sum(np.all(f.topic_word <= 1e-300, axis=0)))  # terms tomotopy never saw (none expected)
        if unseen:
            log(f"warning: {unseen} terms unknown to tomotopy get probability ~0 in its topics.")
        extra["unseen_terms"] = unseen
        return f, m, extra
    est = make_estimator(name, K)
    wait()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with common.LoadMeter() as m:
            est.fit(X)
    extra["iterations"] = int(getattr(est, "n_iter_", -1))
    extra["warnings"] = sorted({type(w.message).__name__ for w in caught})
    return bp.tv_fit(est), m, extra


def recovery(true_topics: np.ndarray, topic_word: np.ndarray) -> float:
    """Mean over the true topics of the cosine similarity to the best-matching fitted topic."""
    t = true_topics / np.linalg.norm(true_topics, axis=1, keepdims=True)
    f = topic_word / np.linalg.norm(topic_word, axis=1, keepdims=True)
    return float(np.mean(np.max(t @ f.T, axis=1)))


def evaluate(fit, data: Data, scorer) -> dict:
    """All metrics of one fitted system, each computed the same way for every system."""
    from topicvb.evaluation import FixedTopicModel, coherence, topic_diversity
    from topicvb.inspection import top_words, topic_prevalence

    phi = fit.topic_word / fit.topic_word.sum(axis=1, keepdims=True)
    K = phi.shape[0]
    model = FixedTopicModel(phi, doc_topic_prior=fit.alpha, max_iter=100, tol=1e-3)
    words = [[w for w, _ in t] for t in top_words(model, data.vocabulary, N_DIVERSITY)]
    prevalence = topic_prevalence(model, data.X_train)
    out = {
        "perplexity": float(scorer(phi, fit.alpha)),
        "npmi": float(coherence([w[:N_NPMI] for w in words], data.reference, measure="c_npmi").mean),
        "diversity": float(topic_diversity(words, n=N_DIVERSITY)),
        "recovery": None if data.true_topics is None else recovery(data.true_topics, phi),
        "dead": int(np.sum(prevalence < DEAD_SHARE / K)),
        "min_share_x_K": float(prevalence.min() * K),
    }
    return out


def warm_up(estimators) -> None:
    """Compile / load every kernel the timed fits and the scoring use (numba cache), on a tiny corpus."""
    from topicvb.datasets import make_lda_corpus

    c, tw, _ = make_lda_corpus(600, 300, 5, random_state=0)
    Xtr, Xte, keep = holdout_split(c.X, 0)
    d = Data("warm-up", Xtr, Xte, [c.vocabulary[j] for j in keep], "", true_topics=tw[:, keep])
    score = common.DocCompletion(d.X_test, seed=SEED)

    class A:
        tomotopy_iters, tomotopy_workers = 5, 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in estimators:
            if name == TOMOTOPY and not tomotopy_available():
                continue
            evaluate(fit_system(name, 5, d.X_train, A, quiet=False)[0], d, score)


def tomotopy_available() -> bool:
    try:
        import tomotopy  # noqa: F401
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------- store and report
def load_store(path: Path | None, fresh: bool) -> dict:
    if path is not None and path.exists() and not fresh:
        return json.loads(path.read_text())
    return {"benchmark": "bench_quality.py", "runs": [], "corpora": {}, "rows": []}


def save_store(store: dict, path: Path | None) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(store, indent=1) + "\n")
    os.replace(tmp, path)


def row_key(row: dict) -> tuple:
    return row["corpus"], row["K"], row["estimator"], row.get("fit_seed", 0)


def _order(store: dict):
    """Rows sorted by corpus (option order), K, then estimator (registry order, tomotopy last)."""
    corp = {c: i for i, c in enumerate(CORPORA)}
    est = {e: i for i, e in enumerate(registry_names())}

    def key(r):
        fam = "synthetic" if r["corpus"].startswith("lda") else r["corpus"]
        return (corp.get(fam, 9), r["K"], r["corpus"], r.get("fit_seed", 0), est.get(r["estimator"], 99),
                r["estimator"])

    return sorted(store["rows"], key=key)


def tomotopy_seconds(rows: list, corpus: str, K: int, fit_seed: int = 0) -> float | None:
    """Wall time of the tomotopy row with the most sweeps on this corpus and K (and fit seed)."""
    t = [r for r in rows if r["corpus"] == corpus and r["K"] == K and r["estimator"].startswith(TOMOTOPY)
         and r.get("fit_seed", 0) == fit_seed]
    return max(t, key=lambda r: r["iterations"])["seconds"] if t else None


def _f(v):
    return float("nan") if v is None else v


def table_rows(rows: list, universe: list | None = None) -> list:
    """Report rows; "time / tomotopy" looks the tomotopy row up in ``universe`` (default ``rows``)."""
    universe = rows if universe is None else universe
    out = []
    for r in rows:
        tt = tomotopy_seconds(universe, r["corpus"], r["K"], r.get("fit_seed", 0))
        load = r.get("foreign_share")
        out.append([r["corpus"], r["K"], r["estimator"], r["iterations"], r["seconds"],
                    f"{r['seconds'] / tt:.2f}" if tt else "n/a", r["perplexity"], r["npmi"], r["diversity"],
                    "" if r["recovery"] is None else r["recovery"], r["dead"],
                    "n/a" if load is None else f"{100 * load:.0f}%"])
    return out


HEADER = ["corpus", "K", "estimator", "iterations", "seconds", "time / tomotopy", "held-out perplexity", "NPMI",
          "diversity", "recovery", "dead topics", "other load"]


def synthetic_means(rows: list) -> str | None:
    """Mean (and spread) over seeds of the synthetic rows, per K and estimator."""
    groups: dict = {}
    for r in rows:
        if r["corpus"].startswith("lda"):
            size = r["corpus"].rsplit("-s", 1)[0]
            groups.setdefault((size, r["K"], r["estimator"]), []).append(r)
    if not groups:
        return None
    out = []
    for (size, K, est), rs in groups.items():
        tts = [tomotopy_seconds(rows, r["corpus"], K) for r in rs]
        ratios = [r["seconds"] / t for r, t in zip(rs, tts) if t]

        def ms(vals, fmt="{:.3f}"):
            vals = [v for v in vals if v is not None]
            if not vals:
                return "n/a"
            if len(vals) == 1:
                return fmt.format(vals[0])
            return (fmt + " ± " + fmt).format(statistics.mean(vals), statistics.stdev(vals))

        out.append([size, K, est, len(rs), ms([r["seconds"] for r in rs], "{:.1f}"),
                    ms(ratios, "{:.2f}"), ms([r["perplexity"] for r in rs], "{:.1f}"), ms([r["npmi"] for r in rs]),
                    ms([r["diversity"] for r in rs]), ms([r["recovery"] for r in rs]),
                    ms([r["dead"] for r in rs], "{:.1f}")])
    return md_table(["corpus", "K", "estimator", "seeds", "seconds", "time / tomotopy", "held-out perplexity",
                     "NPMI", "diversity", "recovery", "dead topics"], out)


def fit_seed_means(rows: list) -> str | None:
    """Mean ± standard deviation over fit seeds of the real-corpus rows, per corpus, K and estimator with rows
    of more than one fit seed; with the mean paired difference to tomotopy's NPMI (same fit seed) and its
    standard error."""
    groups: dict = {}
    for r in rows:
        if not r["corpus"].startswith("lda"):
            groups.setdefault((r["corpus"], r["K"], r["estimator"]), []).append(r)
    if all(len(rs) < 2 for rs in groups.values()):
        return None

    def ms(vals, fmt):
        if len(vals) == 1:
            return fmt.format(vals[0])
        return (fmt + " ± " + fmt).format(statistics.mean(vals), statistics.stdev(vals))

    out = []
    for (corpus, K, est), rs in groups.items():
        if len(rs) < 2:  # (a row of one fit seed is in the table above)
            continue
        seeds = sorted(r.get("fit_seed", 0) for r in rs)
        ratios, diffs = [], []
        for r in rs:
            fs = r.get("fit_seed", 0)
            tt = tomotopy_seconds(rows, corpus, K, fs)
            if tt:
                ratios.append(r["seconds"] / tt)
            tomo = [t for t in rows if t["corpus"] == corpus and t["K"] == K and t.get("fit_seed", 0) == fs
                    and t["estimator"].startswith(TOMOTOPY)]
            if tomo and not est.startswith(TOMOTOPY):
                diffs.append(r["npmi"] - max(tomo, key=lambda t: t["iterations"])["npmi"])
        if len(diffs) > 1:
            diff = f"{statistics.mean(diffs):+.4f} ± {statistics.stdev(diffs) / len(diffs) ** 0.5:.4f}"
        else:
            diff = f"{diffs[0]:+.4f}" if diffs else ""
        out.append([corpus, K, est, f"{len(seeds)} ({seeds[0]}-{seeds[-1]})", ms([r["seconds"] for r in rs], "{:.2f}"),
                    ms(ratios, "{:.2f}") if ratios else "n/a", ms([r["perplexity"] for r in rs], "{:.1f}"),
                    ms([r["npmi"] for r in rs], "{:.4f}"), diff, max(r["dead"] for r in rs)])
    return md_table(["corpus", "K", "estimator", "fit seeds", "seconds", "time / tomotopy", "held-out perplexity",
                     "NPMI", "NPMI - tomotopy's (mean ± s.e.)", "dead topics (max)"], out)


def paired_table(rows: list, base: str, other: str) -> str | None:
    """``other`` against ``base``, fit by fit (the same corpus, K and fit seed), per corpus and K: pairs, sweeps,
    the ratio of seconds (median and range), of held-out perplexity (mean and range), how many of ``other``'s
    perplexities are at most ``base``'s, and the NPMI difference (mean ± standard error); then all pairs."""
    by_key = {row_key(r): r for r in rows}
    groups: dict = {}
    for r in rows:
        if r["estimator"] != other:
            continue
        b = by_key.get((r["corpus"], r["K"], base, r.get("fit_seed", 0)))
        if b is not None:
            fam = "synthetic" if r["corpus"].startswith("lda") else r["corpus"]
            groups.setdefault((fam, r["K"]), []).append((b, r))
    if not groups:
        return None

    def summary(label, K, pairs):
        t = [o["seconds"] / b["seconds"] for b, o in pairs]
        pp = [o["perplexity"] / b["perplexity"] for b, o in pairs]
        dn = [o["npmi"] - b["npmi"] for b, o in pairs]
        se = statistics.stdev(dn) / len(dn) ** 0.5 if len(dn) > 1 else 0.0
        return [label, K, len(pairs), f"{statistics.mean(b['iterations'] for b, _ in pairs):.0f}",
                f"{statistics.mean(o['iterations'] for _, o in pairs):.0f}",
                f"{statistics.median(t):.2f} ({min(t):.2f}-{max(t):.2f})",
                f"{statistics.mean(pp):.4f} ({min(pp):.4f}-{max(pp):.4f})",
                f"{sum(o['perplexity'] <= b['perplexity'] for b, o in pairs)} of {len(pairs)}",
                f"{statistics.mean(dn):+.4f} ± {se:.4f}"]

    out = [summary(fam, K, pairs) for (fam, K), pairs in groups.items()]
    everything = [p for pairs in groups.values() for p in pairs]
    out.append(summary("all", "", everything))
    return md_table(["corpus", "K", "pairs", f"sweeps, {base}", f"sweeps, {other}", "seconds ratio (median, range)",
                     "perplexity ratio (mean, range)", "perplexity at most the base's", "NPMI difference (mean ± s.e.)"],
                    out)


def render(store: dict, quick: bool) -> str:
    rows = _order(store)
    text = ["# Quality benchmark (issue #17): every estimator with its defaults, and tomotopy", ""]
    if quick:
        text += ["**--quick: a small synthetic corpus and short runs; not a result.**", ""]
    text += ["Runs that contributed rows (the JSON file beside this report holds every row with its run):", ""]
    for i, run in enumerate(store["runs"]):
        shares = [r["foreign_share"] for r in rows if r["run"] == i and r.get("foreign_share") is not None]
        if not any(r["run"] == i for r in rows):
            continue  # every row of this run was recomputed later (--redo)
        load = (f"; other processes used a median {100 * statistics.median(shares):.0f}% (max "
                f"{100 * max(shares):.0f}%) of the CPU during its timed fits" if shares else "")
        text.append(f"{i}. `{run['command']}` ({run['date']}; {run['topicvb']}; tomotopy {run['tomotopy']}; "
                    f"{run['machine']}; numba threading layer {run.get('threading', '?')}{load})")
    text += ["", "## Method", "",
             "topicvb estimators: the registry's classes with their defaults except `n_components=K` and "
             "`random_state` = the fit seed (0 unless `--fit-seeds` names others; all cores: `n_jobs=None`). "
             "tomotopy `LDAModel(k=K, alpha=1/K, eta=1/K, tw=ONE, seed=<the fit seed>)` with `optim_interval=0`, "
             "`burn_in=0`, trained for the given sweeps with "
             "`workers=2` (`bench_peers.run_tomotopy`); its seconds include building its corpus from the CSR "
             "matrix. Every timed fit first waits for a quiet machine; \"other load\" is the CPU share other "
             "processes used meanwhile (`common.LoadMeter`). \"time / tomotopy\" divides by the tomotopy row "
             "(the most sweeps) on the same corpus and K.",
             "",
             "Vocabulary: only terms that occur in the training documents (20 Newsgroups: fitted on the train "
             "split; KOS, AP, synthetic: terms absent from the 90% train part are dropped from both parts), so "
             "every system, tomotopy included (it knows only the terms it saw), scores the same test tokens.",
             "",
             "Every metric is computed by the same code for every system, from its topic-word matrix phi "
             "(E[beta] for the VB models, (n_kw + eta) / (n_k + V eta) for the collapsed ones and tomotopy) "
             "and document-topic prior alpha (1/K for PLSA), held in a `FixedTopicModel`:",
             "",
             "- held-out perplexity: document completion, `heldout_perplexity` via `common.DocCompletion` (each "
             "test document's tokens split once, half observed, seed 0; theta from the observed half by the VB "
             "E-step with phi fixed, <= 100 updates, tol 1e-3); lower is better;",
             f"- NPMI: `coherence(top {N_NPMI} words, (X_train, vocabulary), measure=\"c_npmi\")`, document "
             "co-occurrence in the training matrix (no sliding window), epsilon 1e-12, mean over topics;",
             f"- diversity: `topic_diversity` of the top {N_DIVERSITY} words (Dieng et al. 2020): unique / total;",
             "- recovery (LDA-generated corpora, fitted K = true K): mean over the true topics of the cosine "
             "similarity between the true topic and its best-matching fitted topic (rows of phi);",
             f"- dead topics: topics with less than {DEAD_SHARE}/K of the training tokens, by "
             "`topicvb.inspection.topic_prevalence` (sum_d N_d theta_dk / N, theta by `transform` of the "
             "`FixedTopicModel`, i.e. the VB E-step with phi fixed; the same for every system).",
             "", "## Corpora", ""]
    crow = [[name, info["description"], info["train"], info["train tokens"], info["test docs"], info["test tokens"]]
            for name, info in store["corpora"].items()]
    text.append(md_table(["corpus", "what", "train docs x terms", "train tokens", "test docs", "test tokens"], crow))
    first = [r for r in rows if r.get("fit_seed", 0) == 0]
    text += ["", "## Results", "", "Fit seed 0 (`random_state=0`, tomotopy `seed=0`):", "",
             md_table(HEADER, table_rows(first, rows))]
    seeded = fit_seed_means(rows)
    if seeded:
        text += ["", "### Real corpora, mean ± standard deviation over fit seeds", "",
                 "The same held-out split and document completion (seed 0) for every fit; the fits' `random_state` "
                 "and tomotopy's `seed` vary (`--fit-seeds`). time / tomotopy and the NPMI difference pair each "
                 "fit with tomotopy's fit of the same seed.", "", seeded]
    means = synthetic_means(first)
    if means:
        text += ["", "### LDA-generated corpora, mean ± standard deviation over seeds", "", means]
    for base, other in store.get("pairs", []):
        paired = paired_table(rows, base, other)
        if paired:
            text += ["", f"### `{other}` against `{base}`, fit by fit", "",
                     "Each row pairs the two fits of the same corpus, K and fit seed (synthetic: one corpus per seed); "
                     "ratios are the second's over the first's.", "", paired]
    warned = sorted({(r["estimator"], w) for r in rows for w in r.get("warnings", [])})
    if warned:
        text += ["", "Warnings during fits: " + "; ".join(f"{e}: {w}" for e, w in warned) + "."]
    if rows:
        text += ["", "Shared machine: \"other load\" is the share of the machine's CPU that other processes (not "
                 "this benchmark) used during the fit, from /proc/stat; every fit first waits (up to the run's "
                 "`--quiet-wait`, default 20 s) for it to drop below 15%. Rows with a high value are slowed by "
                 "contention (the quality columns are not)."]
    return "\n".join(text) + "\n"


# --------------------------------------------------------------------------- main
def main(argv=None):
    global FIT_SEED
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="smoke run: one small synthetic corpus, BatchLDA and CollapsedLDA, 100 tomotopy sweeps")
    p.add_argument("--corpora", nargs="+", choices=CORPORA, default=None, help="default: all four")
    p.add_argument("--k", type=int, nargs="+", default=None,
                   help="topics for every selected corpus (default 20ng 20 50, kos 50, ap 50, synthetic 10 20 50)")
    p.add_argument("--estimators", nargs="+", default=None,
                   help=f"topicvb class names (or CLI names) and/or {TOMOTOPY!r} (default: all and tomotopy)")
    p.add_argument("--seeds", type=int, nargs="+", default=None, help="synthetic corpus seeds (default 0 1 2)")
    p.add_argument("--fit-seeds", type=int, nargs="+", default=[0],
                   help="random_state of the fits (and tomotopy's seed) on the real corpora (default 0); several "
                        "add a table of means over them")
    p.add_argument("--synthetic-docs", type=int, default=None, help="documents per synthetic corpus (default 5000)")
    p.add_argument("--synthetic-terms", type=int, default=None, help="terms of a synthetic corpus (default 5000)")
    p.add_argument("--synthetic-length", type=float, default=None, help="mean document length (default 150)")
    p.add_argument("--tomotopy-iters", type=int, default=None, help="tomotopy Gibbs sweeps (default 1000)")
    p.add_argument("--tomotopy-workers", type=int, default=2)
    p.add_argument("--out", default=None, help="markdown report (default benchmarks/results/quality.md; --quick: "
                                               "none); the JSON store is the same path with .json")
    p.add_argument("--pair", nargs=2, metavar=("BASE", "OTHER"), default=None,
                   help="add to the report a fit-by-fit comparison of estimator OTHER against BASE (kept in the "
                        "JSON store for later runs)")
    p.add_argument("--fresh", action="store_true", help="ignore rows already in the JSON store")
    p.add_argument("--redo", action="store_true", help="recompute selected rows that are already in the store")
    p.add_argument("--quiet-wait", type=float, default=None,
                   help="seconds each timed fit waits at most for other processes to go idle (default 20; quick 0)")
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore", message="The training result may differ")  # tomotopy, workers != 1
    q = args.quick
    args.corpora = args.corpora or (["synthetic"] if q else list(CORPORA))
    args.seeds = args.seeds or ([0] if q else [0, 1, 2])
    args.synthetic_docs = args.synthetic_docs or (1000 if q else 5000)
    args.synthetic_terms = args.synthetic_terms or (1000 if q else 5000)
    args.synthetic_length = args.synthetic_length or (100.0 if q else 150.0)
    if args.synthetic_length == int(args.synthetic_length):
        args.synthetic_length = int(args.synthetic_length)
    args.tomotopy_iters = args.tomotopy_iters or (100 if q else 1000)
    if q and args.k is None:
        args.k = [10]
    common.QUIET_WAIT = args.quiet_wait if args.quiet_wait is not None else (0.0 if q else 20.0)
    from topicvb.models._registry import entry

    names = args.estimators or ((["BatchLDA", "CollapsedLDA"] if q else registry_names()) + [TOMOTOPY])
    names = [n if n == TOMOTOPY else entry(n.partition("+")[0]).class_name + "".join(n.partition("+")[1:])
             for n in names]
    if TOMOTOPY in names and not tomotopy_available():
        log("tomotopy is not installed (pip install tomotopy, or the 'bench' extra): its rows are skipped.")
        names.remove(TOMOTOPY)
    out = Path(args.out) if args.out else (None if q else common.BENCH_DIR / "results" / "quality.md")
    store_path = out.with_suffix(".json") if out else None
    store = load_store(store_path, args.fresh)
    if args.pair and list(args.pair) not in store.setdefault("pairs", []):
        store["pairs"].append(list(args.pair))

    import numba

    import topicvb

    env = "".join(f"{v}={shlex.quote(os.environ[v])} " for v in ("PYTHONPATH", "NUMBA_CACHE_DIR") if os.environ.get(v))
    cmd = env + " ".join(["python", "benchmarks/bench_quality.py"]
                         + [shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])])
    info = common.machine_info()
    run = {"command": cmd, "date": info["date"], "machine": info["machine"], "topicvb": info["topicvb"],
           "tomotopy": bp.versions()["tomotopy"], "threading": None, "quiet_wait_s": common.QUIET_WAIT}
    done = {row_key(r): i for i, r in enumerate(store["rows"])}
    plan = []
    for get, corpus, K in datasets(args):
        # fit seeds on the real corpora; an LDA-generated corpus varies its generator seed instead (--seeds)
        fit_seeds = [0] if corpus.startswith("lda") else args.fit_seeds
        todo = [(n, fs) for fs in fit_seeds for n in names
                if args.redo
                or (corpus, K, tomotopy_label(args.tomotopy_iters) if n == TOMOTOPY else n, fs) not in done]
        if todo:
            plan.append((get, corpus, K, todo))
        else:
            log(f"{corpus} K={K}: every selected row is already in {store_path}; skipped (--redo recomputes).")
    new_rows = []
    started = time.perf_counter()
    if plan:
        run_id = len(store["runs"])
        store["runs"].append(run)
        log(f"warm-up of {names}")
        warm_up(names)
        run["threading"] = numba.threading_layer()
        log(f"topicvb from {Path(topicvb.__file__).parent}; numba threading layer {run['threading']}")
    for get, corpus, K, todo in plan:
        data = get()
        store["corpora"][corpus if data.true_topics is None else f"{corpus} (K={K})"] = data.info()
        scorer = common.DocCompletion(data.X_test, seed=SEED)
        for name, fit_seed in todo:
            FIT_SEED = bp.SEED = fit_seed  # (tomotopy's seed is bench_peers.SEED)
            label = tomotopy_label(args.tomotopy_iters) if name == TOMOTOPY else name
            log(f"{corpus} K={K}: fitting {label} (fit seed {fit_seed}) on {data.X_train.shape[0]} x "
                f"{data.X_train.shape[1]}")
            fit, meter, extra = fit_system(name, K, data.X_train, args)
            t0 = time.perf_counter()
            metrics = evaluate(fit, data, scorer)
            row = {"corpus": corpus, "K": K, "estimator": label, "seconds": meter.wall, "own_cpu_s": meter.own,
                   "foreign_share": meter.foreign_share, **extra, **metrics, "eval_s": time.perf_counter() - t0,
                   "run": run_id}
            if fit_seed:
                row["fit_seed"] = fit_seed  # (absent: 0, as in the rows stored before --fit-seeds)
            rec = "" if row["recovery"] is None else f", recovery {row['recovery']:.3f}"
            log(f"{corpus} K={K} {label} (fit seed {fit_seed}): {row['seconds']:.1f} s ({row['iterations']} it.), "
                f"perplexity "
                f"{row['perplexity']:.1f}, NPMI {row['npmi']:.3f}, diversity {row['diversity']:.3f}{rec}, dead "
                f"{row['dead']} (scored in {row['eval_s']:.1f} s)")
            key = row_key(row)
            if key in done:
                store["rows"][done[key]] = row
            else:
                done[key] = len(store["rows"])
                store["rows"].append(row)
            new_rows.append(row)
            save_store(store, store_path)
            if out:
                common.write_report(render(store, q), out, echo=False)
    run["minutes"] = (time.perf_counter() - started) / 60
    save_store(store, store_path)
    if out:
        common.write_report(render(store, q), out, echo=False, announce=True)
    # compact summary of this run's rows (ratios against tomotopy rows of this run or already stored)
    allrows = _order(store)
    mine = [r for r in allrows if any(r is n for n in new_rows)]
    print(f"\n{len(mine)} rows in {run['minutes']:.1f} min\n")
    print(md_table(HEADER, table_rows(mine, allrows)) if mine else "(no new rows)")
    if not out:
        print("\n(nothing written: --quick without --out)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
