"""Raw text to topics on the IMDB reviews (issue #18): topicvb against gensim and tomotopy, each at its defaults.

Run from the repository root::

    python benchmarks/bench_end_to_end.py --n-docs 3000 --out /tmp/e2e.md   # quick run (~2 minutes on 2 cores)
    python benchmarks/bench_end_to_end.py  # all 100,000 reviews (~20 min, ~10 GiB) -> results/end_to_end.md
    python benchmarks/bench_end_to_end.py --render benchmarks/results/end_to_end.json   # rewrite the report only
    python benchmarks/bench_end_to_end.py --n-docs 25000 --systems topicvb tomotopy
    python benchmarks/bench_end_to_end.py --systems topicvb gensim --topicvb-max-iter 10   # a shorter topicvb fit
    python benchmarks/bench_end_to_end.py --systems topicvb gensim --topicvb-estimator StochasticCollapsedLDA

The archive ``imdb-aclImdb/aclImdb_v1-text.tar.xz`` of the shared corpora folder is unpacked once into
``benchmarks/.bench_cache/imdb-text-<key>/`` (git-ignored; ``--cache`` for another folder), a folder of
100,000 files; the benchmark reads its files from there. ``--n-docs N`` takes a seeded random sample of N
reviews (of all five folders: train/pos, train/neg, train/unsup, test/pos, test/neg); a seeded random
tenth of them is held out, every system trains on the rest.

Systems, each in a fresh Python process of its own (so its timings and peak memory are its own), each
reading the same training files with the same two lines of Python (UTF-8 text of every file):

topicvb   ``Vectorizer(tokenizer=Tokenizer(stop_words="english"), min_df=5, max_df=0.5)`` (the command
          line's text defaults, ``topicvb._cli_inputs.TEXT_DEFAULTS``; one process, the default
          ``n_jobs``) and the recommended estimator, ``recommended_estimator(n_components=K,
          random_state=0)`` (what ``make_topic_pipeline()`` and ``topicvb fit`` use: CollapsedLDA with
          learned priors, all cores).
gensim    ``simple_preprocess`` (its defaults) minus ``gensim.parsing.preprocessing.STOPWORDS``,
          ``Dictionary`` + ``filter_extremes(no_below=5, no_above=0.5)`` + ``doc2bow``, and
          ``LdaMulticore(corpus, id2word, num_topics=K, workers=W, random_state=0)`` with every other
          argument at its default (1 pass, chunksize 2000, 50 iterations, symmetric alpha = 1/K,
          eta = 1/K, eval_every 10, float32). ``--gensim-workers`` (default 1: gensim's own default on
          this 2-core machine is cpu_count() - 1 = 1).
tomotopy  ``tomotopy.utils.SimpleTokenizer()`` (its defaults) with the stop-word rule of tomotopy's
          examples, ``len(word) <= 2 or word in stop_words`` (tomotopy has no list of its own: scikit-learn's
          ENGLISH_STOP_WORDS), terms in more than half of the training reviews dropped in Python
          (tomotopy has no max_df), ``LDAModel(k=K, min_df=5, seed=0)`` (alpha 0.1, eta 0.01, alpha
          optimised every 10 sweeps: its defaults) filled by ``add_doc``, and ``train(1000, workers=2)``.

Stages timed in each process: import of the library, read (the files' text), text (tokenise, vocabulary,
counts / corpus), fit; total = read + text + fit (import listed apart). Peak memory per stage: the
process's resident-set high-water mark (VmHWM, reset at the start of each stage through
/proc/self/clear_refs) and the proportional set size (PSS) of the process and its child processes, sampled
every 0.2 s (gensim's LdaMulticore workers are processes: PSS counts their memory shared with the parent
once); the larger of the two is reported.

One evaluator for all (in this process, after the fits): every system has its own vocabulary, so the
topics are mapped onto the **intersection** of the three vocabularies (the columns of each topic-word
matrix kept, each row renormalised to sum to 1; the mass each system loses is reported). The held-out
reviews are counted over that vocabulary by ``topicvb.text.Vectorizer(vocabulary=common)`` (topicvb's
tokenizer: the same test tokens for every system), and scored by document completion
(``common.DocCompletion``: half of each held-out review's tokens observed, seed 0; theta from the observed
half with the topics fixed; perplexity of the other half), with each system's own document-topic prior.
NPMI: ``topicvb.evaluation.coherence(top 10 words, ReferenceCorpus(X_ref, common), measure="c_npmi")``,
document co-occurrence in the training reviews counted the same way over the common vocabulary;
the top 10 words of each topic are taken after the mapping. Topic diversity: unique share of the top 25.

Every system process first waits (up to ``--quiet-wait`` s) for other processes to use less than 15% of
the machine; the share they used while it ran is reported. ``--repeats R`` runs the systems R times
interleaved (A B C, A B C, ...) and reports the median times and memory (quality of the first run).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import statistics
import sys
import tarfile
import threading
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import md_table, mib  # noqa: E402

SEED = 0
SYSTEMS = ("topicvb", "gensim", "tomotopy")
HOLDOUT = 0.1
N_NPMI, N_DIVERSITY = 10, 25
IMDB_FOLDERS = ("train/pos", "train/neg", "train/unsup", "test/pos", "test/neg")
MIN_DF, MAX_DF = 5, 0.5  # the pruning of every system (topicvb: its CLI's defaults)


def log(msg: str) -> None:
    print(f"[bench_end_to_end {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- corpus
def imdb_archive(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    from topicvb.datasets import find_corpora_dir

    root = None
    try:
        root = find_corpora_dir()
    except Exception:  # pragma: no cover - depends on the checkout
        root = None
    root = Path(root) if root else Path(os.environ.get("TOPICVB_CORPORA", common.REPO.parent / "shared" / "corpora"))
    return root / "imdb-aclImdb" / "aclImdb_v1-text.tar.xz"


def unpack(archive: Path, cache: Path) -> Path:
    """The folder holding ``aclImdb/`` unpacked from ``archive`` (once; a marker file says it is complete)."""
    st = archive.stat()
    folder = cache / f"imdb-text-{st.st_size}-{int(st.st_mtime)}"
    marker = folder / ".complete"
    if marker.exists():
        return folder
    log(f"unpacking {archive} into {folder} (once)")
    t0 = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        members = [m for m in tar if m.isfile() and m.name.endswith(".txt") and "/urls_" not in m.name]
        kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(folder, members=members, **kw)
    marker.write_text(f"{len(members)} files\n")
    log(f"unpacked {len(members)} files in {time.perf_counter() - t0:.0f} s")
    return folder


def list_reviews(folder: Path) -> list[str]:
    """Every review file (relative paths under ``folder``), sorted."""
    out = []
    for sub in IMDB_FOLDERS:
        d = folder / "aclImdb" / sub
        out += [f"aclImdb/{sub}/{f.name}" for f in d.iterdir() if f.suffix == ".txt"]
    return sorted(out)


def split_reviews(files: list[str], n_docs: int | None, seed: int = SEED):
    """(train files, held-out files): a seeded sample of ``n_docs`` reviews, a seeded tenth held out; sorted."""
    rng = np.random.RandomState(seed)
    if n_docs is not None and n_docs < len(files):
        files = [files[i] for i in np.sort(rng.choice(len(files), n_docs, replace=False))]
    perm = rng.permutation(len(files))
    n_test = int(round(HOLDOUT * len(files)))
    test = set(perm[:n_test].tolist())
    return [f for i, f in enumerate(files) if i not in test], [f for i, f in enumerate(files) if i in test]


def read_texts(root: Path, files: list[str]) -> list[str]:
    """The UTF-8 text of every file (the same code for every system)."""
    return [(root / f).read_bytes().decode("utf-8") for f in files]


# --------------------------------------------------------------------------- child: memory and stages
def _pss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return 0
    return 0


class TreeSampler(threading.Thread):
    """Samples the PSS of this process and its child processes (recursively) every ``interval`` s."""

    def __init__(self, interval: float = 0.2):
        super().__init__(daemon=True)
        import psutil

        self.proc = psutil.Process()
        self.interval = interval
        self.peak = 0
        self.n_children = 0
        self._halt = threading.Event()

    def sample(self) -> int:
        total = _pss_bytes(self.proc.pid)
        try:
            kids = self.proc.children(recursive=True)
        except Exception:  # a child may vanish meanwhile
            kids = []
        self.n_children = max(self.n_children, len(kids))
        total += sum(_pss_bytes(k.pid) for k in kids)
        self.peak = max(self.peak, total)
        return total

    def reset(self) -> None:
        self.peak = 0
        self.n_children = 0
        self.sample()

    def run(self):
        while not self._halt.wait(self.interval):
            self.sample()

    def stop(self):
        self._halt.set()
        self.join()


class Stages:
    """Wall time and peak memory of the named stages of one child process."""

    def __init__(self):
        self.sampler = TreeSampler()
        self.sampler.start()
        self.out = {}

    @contextmanager
    def __call__(self, name: str):
        gc.collect()
        common.reset_peak_rss()
        self.sampler.reset()
        start_rss = common.current_rss()
        t0 = time.perf_counter()
        yield
        wall = time.perf_counter() - t0
        self.sampler.sample()
        hwm = common.peak_rss()
        self.out[name] = {"s": wall, "start_rss_bytes": start_rss, "hwm_bytes": hwm,
                          "tree_pss_bytes": self.sampler.peak,
                          "children": self.sampler.n_children, "peak_bytes": max(hwm, self.sampler.peak)}


# --------------------------------------------------------------------------- child: the systems
def child_topicvb(spec: dict, texts_of, stage: Stages) -> dict:
    with stage("import"):
        from topicvb.models._registry import recommended_estimator
        from topicvb.text import Tokenizer, Vectorizer

        try:
            from topicvb._cli_inputs import TEXT_DEFAULTS
        except ImportError:  # pragma: no cover
            TEXT_DEFAULTS = {"min_df": MIN_DF, "max_df": MAX_DF, "stop_words": "english"}
    texts = texts_of(stage)
    with stage("text"):
        vec = Vectorizer(tokenizer=Tokenizer(stop_words=TEXT_DEFAULTS["stop_words"]), min_df=TEXT_DEFAULTS["min_df"],
                         max_df=TEXT_DEFAULTS["max_df"], n_jobs=spec.get("vectorizer_jobs"))
        X = vec.fit_transform(texts)
    del texts
    if spec.get("topicvb_estimator"):  # (--topicvb-estimator: another estimator, at its defaults unless --topicvb-params)
        import topicvb

        est = getattr(topicvb, spec["topicvb_estimator"])(n_components=spec["K"], random_state=SEED,
                                                          **spec.get("topicvb_params", {}))
    else:
        est = recommended_estimator(n_components=spec["K"], random_state=SEED)
    if spec.get("topicvb_max_iter") is not None:  # (--topicvb-max-iter: a shorter fit than the default's)
        est.set_params(max_iter=spec["topicvb_max_iter"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with stage("fit"):
            est.fit(X)
    vocab = [str(t) for t in vec.get_feature_names_out()]
    return {"topic_word": est.topic_word_distribution(), "alpha": np.asarray(est.doc_topic_prior_, dtype=np.float64),
            "vocab": vocab,
            "info": {"docs": X.shape[0], "terms": X.shape[1], "nnz": int(X.nnz), "tokens": int(X.sum()),
                     "iterations": int(est.n_iter_), "estimator": repr(est), "vectorizer": repr(vec),
                     "min_df/max_df": f"{TEXT_DEFAULTS['min_df']}/{TEXT_DEFAULTS['max_df']}",
                     "topic_word_prior_": float(est.topic_word_prior_),
                     "warnings": sorted({f"{type(w.message).__name__}: {w.message}"[:200] for w in caught})}}


def child_gensim(spec: dict, texts_of, stage: Stages) -> dict:
    with stage("import"):
        from gensim.corpora import Dictionary
        from gensim.models import LdaMulticore
        from gensim.parsing.preprocessing import STOPWORDS
        from gensim.utils import simple_preprocess
    texts = texts_of(stage)
    with stage("text"):
        docs = [[w for w in simple_preprocess(t) if w not in STOPWORDS] for t in texts]
        dictionary = Dictionary(docs)
        dictionary.filter_extremes(no_below=MIN_DF, no_above=MAX_DF)
        corpus = [dictionary.doc2bow(d) for d in docs]
    del texts, docs
    with stage("fit"):
        lda = LdaMulticore(corpus, id2word=dictionary, num_topics=spec["K"], workers=spec["gensim_workers"],
                           random_state=SEED)
    vocab = [dictionary[i] for i in range(len(dictionary))]
    return {"topic_word": lda.get_topics().astype(np.float64), "alpha": np.asarray(lda.alpha, dtype=np.float64),
            "vocab": vocab,
            "info": {"docs": len(corpus), "terms": len(dictionary), "nnz": int(sum(len(d) for d in corpus)),
                     "tokens": int(sum(c for d in corpus for _, c in d)), "workers": spec["gensim_workers"],
                     "passes": lda.passes, "chunksize": lda.chunksize, "iterations": lda.iterations,
                     "eta_mean": float(np.mean(lda.eta)), "empty_docs": int(sum(1 for d in corpus if not d))}}


def child_tomotopy(spec: dict, texts_of, stage: Stages) -> dict:
    with stage("import"):
        import tomotopy as tp
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    texts = texts_of(stage)
    with stage("text"):
        tok = tp.utils.SimpleTokenizer()
        stop = set(ENGLISH_STOP_WORDS)
        docs = [[w for w, _, _ in tok(t) if len(w) > 2 and w not in stop] for t in texts]
        df: dict = {}
        for d in docs:
            for w in set(d):
                df[w] = df.get(w, 0) + 1
        too_common = {w for w, n in df.items() if n > MAX_DF * len(docs)}
        mdl = tp.LDAModel(k=spec["K"], min_df=MIN_DF, seed=SEED)
        n_added = 0
        for d in docs:
            words = [w for w in d if w not in too_common]
            if words:
                mdl.add_doc(words)
                n_added += 1
    del texts, docs
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The training result may differ")
        with stage("fit"):
            mdl.train(spec["tomotopy_iters"], workers=spec["tomotopy_workers"])
    vocab = list(mdl.used_vocabs)
    phi = np.array([mdl.get_topic_word_dist(k) for k in range(mdl.k)], dtype=np.float64)
    if phi.shape[1] != len(vocab):
        raise RuntimeError(f"tomotopy: topic-word width {phi.shape[1]} != used vocabulary {len(vocab)}")
    return {"topic_word": phi, "alpha": np.asarray(mdl.alpha, dtype=np.float64), "vocab": vocab,
            "info": {"docs": n_added, "terms": len(vocab), "tokens": int(mdl.num_words),
                     "dropped_max_df": len(too_common), "sweeps": spec["tomotopy_iters"],
                     "workers": spec["tomotopy_workers"], "eta": float(mdl.eta),
                     "optim_interval": int(mdl.optim_interval), "ll_per_word": float(mdl.ll_per_word)}}


CHILDREN = {"topicvb": child_topicvb, "gensim": child_gensim, "tomotopy": child_tomotopy}


def child_main(system: str, spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    stage = Stages()
    root = Path(spec["root"])

    def texts_of(stage):
        with stage("read"):
            return read_texts(root, spec["train_files"])

    t0 = time.perf_counter()
    res = CHILDREN[system](spec, texts_of, stage)
    wall = time.perf_counter() - t0
    stage.sampler.stop()
    out = Path(spec["out_dir"]) / f"{system}.npz"
    np.savez(out, topic_word=res["topic_word"], alpha=res["alpha"], vocab=np.array(res["vocab"], dtype=str))
    print(json.dumps({"system": system, "stages": stage.out, "in_process_s": wall, "info": res["info"],
                      "npz": str(out)}), flush=True)
    return 0


# --------------------------------------------------------------------------- parent: evaluation
def evaluate(outputs: dict, train_texts, test_texts) -> tuple[dict, dict]:
    """Per-system metrics under one evaluator over the common vocabulary, and facts about that vocabulary."""
    from topicvb.evaluation import FixedTopicModel, ReferenceCorpus, coherence, topic_diversity
    from topicvb.inspection import top_words
    from topicvb.text import Tokenizer, Vectorizer

    loaded = {}
    for name, path in outputs.items():
        with np.load(path) as z:
            loaded[name] = (z["topic_word"], z["alpha"], [str(v) for v in z["vocab"]])
    vocab_sets = [set(v) for _, _, v in loaded.values()]
    common_set = set.intersection(*vocab_sets)
    common_vocab = sorted(common_set)
    t0 = time.perf_counter()
    counter = Vectorizer(tokenizer=Tokenizer(stop_words="english"), vocabulary=common_vocab)
    X_test = counter.fit_transform(test_texts).astype(np.float64).tocsr()
    X_ref = counter.transform(train_texts).astype(np.float64).tocsr()
    log(f"common vocabulary {len(common_vocab)} terms; held-out {X_test.shape[0]} x {X_test.shape[1]}, "
        f"{int(X_test.sum())} tokens; reference matrix in {time.perf_counter() - t0:.0f} s")
    scorer = common.DocCompletion(X_test, seed=SEED)
    reference = ReferenceCorpus(X=X_ref, vocabulary=common_vocab)
    metrics = {}
    for name, (phi, alpha, vocab) in loaded.items():
        t0 = time.perf_counter()
        pos = {w: j for j, w in enumerate(vocab)}
        cols = np.array([pos[w] for w in common_vocab])
        phi = phi / phi.sum(axis=1, keepdims=True)
        kept = phi[:, cols]
        lost = 1.0 - kept.sum(axis=1)
        outside = np.setdiff1d(np.arange(len(vocab)), cols)
        mass = phi[:, outside].mean(axis=0)  # mean over topics of each dropped term's probability
        heavy = [f"{vocab[outside[j]]} {100 * mass[j]:.2f}%" for j in np.argsort(-mass)[:8]]
        phi_c = kept / kept.sum(axis=1, keepdims=True)
        model = FixedTopicModel(phi_c, doc_topic_prior=alpha, max_iter=100, tol=1e-3)
        words = [[w for w, _ in t] for t in top_words(model, common_vocab, N_DIVERSITY)]
        metrics[name] = {
            "perplexity": float(scorer(phi_c, alpha)),
            "npmi": float(coherence([w[:N_NPMI] for w in words], reference, measure="c_npmi").mean),
            "diversity": float(topic_diversity(words, n=N_DIVERSITY)),
            "own_terms": len(vocab),
            "mass_outside_common_mean": float(lost.mean()),
            "mass_outside_common_max": float(lost.max()),
            "heaviest_outside_terms": heavy,
            "alpha_sum": float(np.sum(alpha)),
            "top_words": [" ".join(w[:N_NPMI]) for w in words],
            "eval_s": time.perf_counter() - t0,
        }
        log(f"{name}: perplexity {metrics[name]['perplexity']:.1f}, NPMI {metrics[name]['npmi']:.4f}, "
            f"diversity {metrics[name]['diversity']:.3f}, mass outside the common vocabulary "
            f"{100 * lost.mean():.1f}% (max {100 * lost.max():.1f}%)")
    facts = {"common_terms": len(common_vocab), "test_docs": X_test.shape[0], "test_tokens": int(X_test.sum()),
             "empty_test_docs": int(np.sum(np.diff(X_test.indptr) == 0)), "reference_docs": X_ref.shape[0],
             "reference_tokens": int(X_ref.sum()),
             "union_terms": len(set.union(*vocab_sets))}
    return metrics, facts


# --------------------------------------------------------------------------- parent: report
def _stage(run: dict, name: str, key: str = "s"):
    st = run["stages"].get(name)
    return float("nan") if st is None else st[key]


def total_s(run: dict) -> float:
    return sum(_stage(run, s) for s in ("read", "text", "fit"))


def summarise(runs: list[dict]) -> dict:
    """Median over repeats of each stage's time and peak memory, and of the total."""
    out = {"stages": {}, "total_s": statistics.median(total_s(r) for r in runs),
           "process_s": statistics.median(r["wall_s"] for r in runs),
           "foreign": [r["foreign_share"] for r in runs], "times_total": [total_s(r) for r in runs]}
    for s in ("import", "read", "text", "fit"):
        out["stages"][s] = {"s": statistics.median(_stage(r, s) for r in runs),
                            "peak_bytes": statistics.median(_stage(r, s, "peak_bytes") for r in runs),
                            "hwm_bytes": statistics.median(_stage(r, s, "hwm_bytes") for r in runs),
                            "tree_pss_bytes": statistics.median(_stage(r, s, "tree_pss_bytes") for r in runs),
                            "children": max(r["stages"][s]["children"] for r in runs)}
    out["peak_bytes"] = max(out["stages"][s]["peak_bytes"] for s in out["stages"])
    return out


def iterations_text(name: str, info: dict) -> str:
    if name == "gensim":
        return f"{info['passes']} pass(es), chunksize {info['chunksize']}, {info['iterations']} E-step iterations"
    if name == "tomotopy":
        return f"{info['sweeps']} sweeps"
    return f"{info['iterations']} iterations"


def system_label(name: str, args) -> str:
    jobs = "" if args.vectorizer_jobs is None else f"(n_jobs={args.vectorizer_jobs})"
    cap = "" if getattr(args, "topicvb_max_iter", None) is None else f", max_iter={args.topicvb_max_iter}"
    name_of = getattr(args, "topicvb_estimator", None)
    params = "".join(f", {k}={v!r}" for k, v in (getattr(args, "topicvb_params", None) or {}).items())
    model = (f"{name_of}({(params + cap)[2:]})" if name_of else f"CollapsedLDA(learn_priors=True{cap})")
    return {"topicvb": f"topicvb Vectorizer{jobs} + {model}",
            "gensim": f"gensim Dictionary + LdaMulticore(workers={args.gensim_workers})",
            "tomotopy": f"tomotopy LDAModel ({args.tomotopy_iters} sweeps, {args.tomotopy_workers} workers)"}[name]


def render(store: dict, args) -> str:
    res, met, facts = store["summary"], store["metrics"], store["vocabulary"]
    names = [n for n in SYSTEMS if n in res]
    base = "topicvb" if "topicvb" in res else names[0]
    peers = [n for n in names if n != "topicvb"]
    run = store["run"]
    text = ["# End to end: raw IMDB reviews to topics, topicvb against gensim and tomotopy (issue #18)", "",
            f"Command: `{run['command']}`  ",
            f"Date: {run['date']}; {run['machine_line']}; {run['machine']}  ",
            f"topicvb {run['topicvb']}; gensim {run['versions']['gensim']}; tomotopy {run['versions']['tomotopy']}; "
            f"numba threading layer {run.get('threading', '?')}; {run['minutes']:.1f} minutes in all.", ""]
    if args.note:
        text += [args.note, ""]
    if args.n_docs is not None and args.n_docs < store["corpus"]["available"]:
        text += [f"**A sample of {args.n_docs:,} of the {store['corpus']['available']:,} reviews (`--n-docs`).**", ""]
    rep = ("each system ran once (the large run is not repeated: times are single runs)" if args.repeats == 1 else
           f"times and memory are medians of {args.repeats} interleaved runs; quality is from the first run")
    c = store["corpus"]
    text += ["## Corpus", "",
             f"IMDB Large Movie Review Dataset v1.0 (`{Path(c['archive']).name}`, unpacked once to a folder of "
             f"files under `{c['cache_note']}`): {c['docs']:,} reviews ({c['train']:,} training, {c['test']:,} held "
             f"out: a seeded random tenth, seed {SEED}). K = {args.k}; {rep}.", "",
             "## Results", ""]
    header = ["system", "import s", "read s", "tokenise/vectorise s", "fit s", "total s (read+text+fit)",
              "total / topicvb", "peak memory MiB", "held-out perplexity", "perplexity / topicvb", "NPMI",
              "NPMI - topicvb", "diversity", "other load"]
    rows = []
    for n in names:
        s = res[n]
        rows.append([system_label(n, args), s["stages"]["import"]["s"], s["stages"]["read"]["s"],
                     s["stages"]["text"]["s"], s["stages"]["fit"]["s"], s["total_s"],
                     f"{s['total_s'] / res[base]['total_s']:.2f}", mib(s["peak_bytes"]),
                     met[n]["perplexity"], f"{met[n]['perplexity'] / met[base]['perplexity']:.3f}",
                     f"{met[n]['npmi']:.4f}", f"{met[n]['npmi'] - met[base]['npmi']:+.4f}", met[n]["diversity"],
                     common.foreign_str(s["foreign"])])
    text.append(md_table(header, rows))
    if "topicvb" in res and peers:
        fastest = min(peers, key=lambda n: res[n]["total_s"])
        r = res["topicvb"]["total_s"] / res[fastest]["total_s"]
        better_p = met["topicvb"]["perplexity"] <= met[fastest]["perplexity"]
        better_n = met["topicvb"]["npmi"] >= met[fastest]["npmi"]
        text += ["", f"Issue #18's target: topicvb's total wall time at most a third of the faster peer's, at equal or "
                 f"better held-out perplexity and NPMI. Faster peer here: {fastest}; topicvb / {fastest} total time = "
                 f"**{r:.2f}** (target <= 0.33); held-out perplexity {'equal or better' if better_p else 'worse'} "
                 f"({met['topicvb']['perplexity']:.1f} vs {met[fastest]['perplexity']:.1f}); NPMI "
                 f"{'equal or better' if better_n else 'worse'} ({met['topicvb']['npmi']:.4f} vs "
                 f"{met[fastest]['npmi']:.4f}): **{'met' if r <= 1 / 3 and better_p and better_n else 'not met'}**"
                 + ("." if getattr(args, "topicvb_max_iter", None) is None and not getattr(args, "topicvb_estimator", None)
                    else " with another estimator than the recommended one (`--topicvb-estimator`): the target is for "
                    "the recommended estimator at its defaults." if getattr(args, "topicvb_estimator", None) else
                    f" with topicvb's `max_iter={args.topicvb_max_iter}`, not its default (the target is for the "
                    "defaults: run without `--topicvb-max-iter` for them).")]
    text += ["", "### Peak memory per stage (MiB)", "",
             "Each stage's peak: the larger of the process's resident-set high-water mark (reset at the stage's "
             "start) and the sampled PSS of the process with its child processes; the process keeps what earlier "
             "stages built (the counts, the model), which is part of each later stage's peak.", ""]
    mrows = []
    for n in names:
        st = res[n]["stages"]
        mrows.append([n] + [mib(st[s]["peak_bytes"]) for s in ("import", "read", "text", "fit")]
                     + [max(st[s]["children"] for s in st)])
    text.append(md_table(["system", "import", "read", "tokenise/vectorise", "fit", "child processes seen"], mrows))
    text += ["", "### What each system trained on", ""]
    vrows = []
    for n in names:
        info = store["runs"][n][0]["info"]
        vrows.append([n, info.get("docs"), info.get("terms"), info.get("tokens"),
                      f"{100 * met[n]['mass_outside_common_mean']:.1f}% "
                      f"(max {100 * met[n]['mass_outside_common_max']:.1f}%)",
                      f"{met[n]['alpha_sum']:.3g}", iterations_text(n, info)])
    text.append(md_table(["system", "training docs", "own vocabulary", "training tokens",
                          "topic mass outside the common vocabulary (mean over topics)", "sum of alpha",
                          "training length"], vrows))
    text += ["", "Terms outside the common vocabulary with the most topic mass (mean probability over topics): "
             + "; ".join(f"{n}: {', '.join(met[n]['heaviest_outside_terms'])}" for n in names) + "."]
    text += ["", f"Common vocabulary (intersection of the three): {facts['common_terms']:,} terms (union "
             f"{facts['union_terms']:,}). Held-out reviews counted over it: {facts['test_docs']:,} reviews, "
             f"{facts['test_tokens']:,} tokens ({facts['empty_test_docs']} with none); NPMI reference: the "
             f"{facts['reference_docs']:,} training reviews, {facts['reference_tokens']:,} tokens.", ""]
    text += ["## Method", "",
             "Raw text to topics, each system in a fresh Python process (interpreter start-up not counted; the "
             "import of the library is listed apart and not in the total). Every process reads the same training "
             "files with the same Python (`Path.read_bytes().decode('utf-8')`), then:", "",
             "- **topicvb**: `Vectorizer(tokenizer=Tokenizer(stop_words=\"english\"), min_df=5, max_df=0.5)` (the "
             "command line's text defaults; " + ("one process, `n_jobs` at its default" if args.vectorizer_jobs is None
                                                 else f"`n_jobs={args.vectorizer_jobs}`") + ") and "
             + (f"`recommended_estimator(n_components={args.k}, random_state=0)` (CollapsedLDA, CVB0, learned priors, "
                if not getattr(args, "topicvb_estimator", None) else
                f"**`{system_label('topicvb', args).split(' + ', 1)[1]}`** with n_components={args.k}, "
                "random_state=0 instead of the recommended estimator (")
             + ("its default iterations and moves" if getattr(args, "topicvb_max_iter", None) is None else
                  f"**max_iter={args.topicvb_max_iter}** instead of its default, its default moves") + ", numba threads = "
             "all cores). The numba cache was warmed by a small "
             "fit in an earlier process, so no compilation is timed (cold start is `bench_coldstart.py`'s subject).",
             "- **gensim**: `simple_preprocess(text)` minus `STOPWORDS`, `Dictionary`, "
             "`filter_extremes(no_below=5, no_above=0.5)`, `doc2bow`; "
             f"`LdaMulticore(corpus, id2word=dictionary, num_topics={args.k}, workers={args.gensim_workers}, "
             "random_state=0)`, every other argument at its default (passes=1, chunksize=2000, iterations=50, "
             "alpha='symmetric', eta=None (1/K), eval_every=10, dtype float32). gensim's default `workers` is "
             "cpu_count() - 1 (1 on a 2-core machine).",
             "- **tomotopy**: `tomotopy.utils.SimpleTokenizer()` with the stop-word rule of tomotopy's examples "
             "(`len(w) <= 2 or w in stop_words`, scikit-learn's `ENGLISH_STOP_WORDS`: tomotopy has no list), "
             "terms in more than half of the training reviews removed in Python (tomotopy has `min_df` but no "
             f"`max_df`), `LDAModel(k={args.k}, min_df=5, seed=0)` (its default priors alpha=0.1, eta=0.01, alpha "
             "optimised every 10 sweeps) filled with `add_doc`, then "
             f"`train({args.tomotopy_iters}, workers={args.tomotopy_workers})`.", "",
             "One evaluator for all: the three vocabularies differ (three tokenizers, three stop lists), so every "
             "system's topic-word matrix is restricted to the intersection of the three vocabularies and each row "
             "renormalised (the table above gives the share of each system's topic mass that this drops). The "
             "held-out reviews are counted over that vocabulary by topicvb's tokenizer (the same test matrix for "
             "every system) and scored by document completion (`common.DocCompletion`: each held-out review's "
             "tokens split once, half observed, seed 0; theta inferred from the observed half by the VB E-step with "
             "the topics fixed and the system's own document-topic prior, <= 100 updates, tol 1e-3; perplexity of "
             "the other half; lower is better). NPMI: `coherence(top 10 words, ReferenceCorpus(X_ref, common "
             "vocabulary), measure=\"c_npmi\")`, document co-occurrence in the training reviews counted the same way, "
             "mean over topics; the top words are taken after the mapping. Diversity: unique share of the top 25 "
             "words of all topics.", "",
             "Memory: each stage's peak is the larger of VmHWM (the process's resident-set high-water mark, reset "
             "through /proc/self/clear_refs at the stage's start) and the largest sampled (every 0.2 s) PSS of the "
             "process and its child processes (gensim's LdaMulticore forks worker processes; PSS counts the pages "
             "they share with the parent once). \"other load\": the CPU share of the machine that other processes "
             "used while the system ran (`common.LoadMeter`); each system first waited up to "
             f"{common.QUIET_WAIT:g} s for it to drop below 15%."]
    note = common.load_note()
    if note:
        text += ["", note]
    busy = [n for n in names if max((x or 0.0) for x in res[n]["foreign"]) > 0.3]
    if busy:
        text += ["", f"**Contention**: {', '.join(busy)} ran while other processes used more than 30% of the "
                 "machine (\"other load\"); its wall time is inflated by that and is not a clean measurement "
                 "(its quality columns are not affected)."]
    text += ["", "## Top words (first 10 topics of each system, after the mapping)", ""]
    for n in names:
        text += [f"**{n}**", ""] + [f"{k}. {w}" for k, w in enumerate(met[n]["top_words"][:10])] + [""]
    return "\n".join(text).rstrip() + "\n"


# --------------------------------------------------------------------------- parent: main
def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n-docs", type=int, default=None, help="reviews used, held-out tenth included (default: all)")
    p.add_argument("--k", type=int, default=50, help="topics (default 50)")
    p.add_argument("--systems", nargs="+", choices=SYSTEMS, default=list(SYSTEMS))
    p.add_argument("--gensim-workers", type=int, default=1, help="LdaMulticore workers (default 1)")
    p.add_argument("--vectorizer-jobs", type=int, default=None,
                   help="topicvb Vectorizer n_jobs (default: its default, one process)")
    p.add_argument("--topicvb-max-iter", type=int, default=None,
                   help="max_iter of topicvb's estimator (default: the estimator's own; a smaller one shows how soon "
                        "a shorter fit reaches the peers' quality)")
    p.add_argument("--topicvb-estimator", default=None,
                   choices=["BatchLDA", "OnlineLDA", "CollapsedLDA", "StochasticCollapsedLDA"],
                   help="a topicvb LDA estimator at its defaults instead of the recommended one")
    p.add_argument("--topicvb-params", type=json.loads, default=None,
                   help='JSON of parameters set on --topicvb-estimator, e.g. \'{"learn_priors": true}\'')
    p.add_argument("--tomotopy-iters", type=int, default=1000, help="tomotopy Gibbs sweeps (default 1000)")
    p.add_argument("--tomotopy-workers", type=int, default=2)
    p.add_argument("--repeats", type=int, default=1, help="interleaved runs of every system (median times)")
    p.add_argument("--imdb", default=None, help="aclImdb_v1-text.tar.xz (default: the shared corpora folder)")
    p.add_argument("--cache", default=None, help="folder to unpack it into (default benchmarks/.bench_cache)")
    p.add_argument("--out", default=None, help="markdown report (default results/end_to_end.md; JSON beside it)")
    p.add_argument("--quiet-wait", type=float, default=20.0, help="seconds each system waits for a quiet machine")
    p.add_argument("--timeout", type=float, default=5400, help="seconds a system's process may take")
    p.add_argument("--note", default=None, help="a line for the report (e.g. where topicvb was imported from)")
    p.add_argument("--render", metavar="JSON", default=None,
                   help="only rewrite the markdown report of a stored run (to --out, default beside the JSON)")
    p.add_argument("--child", nargs=2, metavar=("SYSTEM", "SPEC"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return child_main(*args.child)
    if args.render:
        store = json.loads(Path(args.render).read_text())
        stored = argparse.Namespace(**store["args"])
        common.QUIET_WAIT = store["run"]["quiet_wait_s"]
        common.FOREIGN_LOG.extend(r["foreign_share"] for rs in store["runs"].values() for r in rs)
        target = Path(args.out) if args.out else Path(args.render).with_suffix(".md")
        common.write_report(render(store, stored), target, echo=False, announce=True)
        return 0
    if args.topicvb_params and not args.topicvb_estimator:
        p.error("--topicvb-params needs --topicvb-estimator (the recommended estimator runs at its own settings).")
    if args.k < 1 or (args.n_docs is not None and args.n_docs < 20) or args.repeats < 1:
        p.error("--k and --repeats must be >= 1 and --n-docs >= 20.")
    common.QUIET_WAIT = args.quiet_wait
    started = time.perf_counter()
    out = Path(args.out) if args.out else common.BENCH_DIR / "results" / "end_to_end.md"
    archive = imdb_archive(args.imdb)
    if not archive.exists():
        print(f"IMDB archive not found at {archive}; pass --imdb or set TOPICVB_CORPORA.", file=sys.stderr)
        return 2
    cache = Path(args.cache) if args.cache else common.CACHE_DIR
    root = unpack(archive, cache)
    files = list_reviews(root)
    train_files, test_files = split_reviews(files, args.n_docs)
    log(f"{len(train_files) + len(test_files)} of {len(files)} reviews: {len(train_files)} training, "
        f"{len(test_files)} held out")
    work = cache / f"e2e-work-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    spec = {"root": str(root), "train_files": train_files, "K": args.k, "gensim_workers": args.gensim_workers,
            "tomotopy_iters": args.tomotopy_iters, "vectorizer_jobs": args.vectorizer_jobs,
            "topicvb_max_iter": args.topicvb_max_iter, "topicvb_estimator": args.topicvb_estimator,
            "topicvb_params": args.topicvb_params or {},
            "tomotopy_workers": args.tomotopy_workers, "out_dir": str(work)}
    spec_path = work / "spec.json"
    spec_path.write_text(json.dumps(spec))
    # read every file once (the page cache then serves every system alike) and keep the texts for scoring
    t0 = time.perf_counter()
    train_texts, test_texts = read_texts(root, train_files), read_texts(root, test_files)
    log(f"read the texts once in {time.perf_counter() - t0:.1f} s (warms the page cache)")
    me = [str(Path(__file__).resolve())]
    if "topicvb" in args.systems:  # fill numba's disk cache (not timed): a small fit in a process of its own
        warm = dict(spec, train_files=train_files[:300], K=5, out_dir=str(work / "warm"))
        (work / "warm").mkdir(exist_ok=True)
        (work / "warm.json").write_text(json.dumps(warm))
        t0 = time.perf_counter()
        common.run_json_subprocess(me + ["--child", "topicvb", str(work / "warm.json")], timeout=args.timeout)
        log(f"warm-up fit (numba cache) in {time.perf_counter() - t0:.1f} s")
    runs = {n: [] for n in args.systems}
    for r in range(args.repeats):
        for name in args.systems:
            common.wait_for_quiet()
            log(f"round {r + 1}/{args.repeats}: {name}")
            with common.LoadMeter() as m:
                res = common.run_json_subprocess(me + ["--child", name, str(spec_path)], timeout=args.timeout)
            res["foreign_share"] = m.foreign_share
            common.FOREIGN_LOG.append(m.foreign_share)
            runs[name].append(res)
            st = res["stages"]
            log(f"{name}: read {st['read']['s']:.1f} s, text {st['text']['s']:.1f} s, fit {st['fit']['s']:.1f} s, "
                f"total {total_s(res):.1f} s, peak {mib(max(v['peak_bytes'] for v in st.values())):.0f} MiB, "
                f"other load {common.foreign_str([m.foreign_share])}")
            if r == 0:  # keep the first run's topics for scoring
                os.replace(res["npz"], work / f"{name}-first.npz")
    metrics, facts = evaluate({n: work / f"{n}-first.npz" for n in args.systems}, train_texts, test_texts)

    import numba

    import bench_peers as bp

    info = common.machine_info()
    env = "".join(f"{v}={shlex.quote(os.environ[v])} " for v in ("PYTHONPATH", "NUMBA_CACHE_DIR") if os.environ.get(v))
    cmd = env + " ".join(["python", "benchmarks/bench_end_to_end.py"]
                         + [shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])])
    try:
        threading_layer = numba.threading_layer()
    except ValueError:
        threading_layer = "not initialised in the parent"
    store = {
        "benchmark": "bench_end_to_end.py",
        "run": {"command": cmd, "date": info["date"], "machine_line": common.machine_line(), "machine": info["machine"],
                "topicvb": info["topicvb"], "versions": bp.versions(), "threading": threading_layer,
                "info": info, "quiet_wait_s": common.QUIET_WAIT, "minutes": (time.perf_counter() - started) / 60},
        "args": {k: v for k, v in vars(args).items() if k != "child"},
        "corpus": {"archive": str(archive), "cache_note": str(root.relative_to(common.REPO)) if
                   root.is_relative_to(common.REPO) else str(root), "available": len(files),
                   "docs": len(train_files) + len(test_files), "train": len(train_files), "test": len(test_files)},
        "runs": runs, "summary": {n: summarise(runs[n]) for n in args.systems}, "metrics": metrics, "vocabulary": facts,
    }
    text = render(store, args)
    common.write_report(text, out, announce=True)
    out.with_suffix(".json").write_text(json.dumps(store, indent=1, default=str) + "\n")
    for f in work.rglob("*"):
        if f.is_file():
            f.unlink()
    for d in sorted((d for d in work.rglob("*") if d.is_dir()), reverse=True):
        d.rmdir()
    work.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
