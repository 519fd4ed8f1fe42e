"""Shared helpers of the benchmarks: the 20 Newsgroups matrices (cached), timing, memory, machine.

The vectorised matrices are cached under ``benchmarks/.bench_cache/`` (git-ignored), keyed by the
vectorizer settings and the size and modification time of the corpus archive, so every benchmark
(and every subprocess of one) fits the *same* matrix without re-tokenising. Corpus files are read
from ``$TOPICVB_CORPORA`` or ``../shared/corpora`` and are never copied into the repository.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
CACHE_DIR = BENCH_DIR / ".bench_cache"

# Vectorizer settings shared by every model benchmark (vocabulary fitted on the train split).
VECTORIZER_SETTINGS = {"stop_words": "english", "min_df": 5, "max_df": 0.5}


# --------------------------------------------------------------------------- corpus
@dataclass
class Matrices:
    """Train and test count matrices over one vocabulary (fitted on train)."""

    X_train: sp.csr_matrix
    X_test: sp.csr_matrix
    vocabulary: list
    vectorizer: str  # which implementation built them
    source: str      # the archive read

    def describe(self) -> dict:
        return {
            "train shape": f"{self.X_train.shape[0]} x {self.X_train.shape[1]}",
            "train nnz": self.X_train.nnz,
            "train tokens": int(self.X_train.sum()),
            "test shape": f"{self.X_test.shape[0]} x {self.X_test.shape[1]}",
            "test nnz": self.X_test.nnz,
            "test tokens": int(self.X_test.sum()),
            "empty test docs": int(np.sum(np.diff(self.X_test.indptr) == 0)),
            "vectorizer": self.vectorizer,
        }


class _Frozen:
    """Wraps a fitted vectorizer so ``load_20newsgroups`` transforms instead of refitting."""

    def __init__(self, fitted):
        self.fitted = fitted

    def fit_transform(self, texts, y=None):
        return self.fitted.transform(texts)

    def get_feature_names_out(self):
        return self.fitted.get_feature_names_out()


def corpus_archive() -> Path:
    from topicvb.datasets import find_corpora_dir

    root = None
    try:
        root = find_corpora_dir()
    except Exception:  # pragma: no cover - depends on the checkout
        root = None
    if root is None:
        root = Path(os.environ.get("TOPICVB_CORPORA", REPO.parent / "shared" / "corpora"))
    return Path(root) / "20news-bydate" / "20news-bydate.tar.gz"


def _make_vectorizer(kind: str):
    s = VECTORIZER_SETTINGS
    if kind == "topicvb":
        from topicvb.text import Tokenizer, Vectorizer

        return Vectorizer(tokenizer=Tokenizer(stop_words=s["stop_words"]), min_df=s["min_df"], max_df=s["max_df"])
    if kind == "sklearn":
        from sklearn.feature_extraction.text import CountVectorizer

        return CountVectorizer(stop_words=s["stop_words"], min_df=s["min_df"], max_df=s["max_df"])
    raise ValueError(f"vectorizer must be 'topicvb' or 'sklearn', got {kind!r}.")


def _cache_key(kind: str, archive: Path) -> str:
    st = archive.stat()
    from topicvb.datasets._newsgroups import DEFAULT_REMOVE
    from topicvb.text import Tokenizer

    # the reader's cleaning and the tokenizer's defaults shape the matrices too
    defaults = [list(DEFAULT_REMOVE), {k: repr(v) for k, v in Tokenizer().get_params().items()}]
    blob = json.dumps([kind, VECTORIZER_SETTINGS, defaults, st.st_size, int(st.st_mtime)], sort_keys=True)
    return f"20ng-{kind}-{hashlib.sha1(blob.encode()).hexdigest()[:12]}"


def _vectorise(kind: str):
    from topicvb.datasets import load_20newsgroups

    vec = _make_vectorizer(kind)
    train = load_20newsgroups("train", vectorizer=vec, download_if_missing=False)
    test = load_20newsgroups("test", vectorizer=_Frozen(vec), download_if_missing=False)
    Xtr, Xte = sp.csr_matrix(train.X, dtype=np.float64), sp.csr_matrix(test.X, dtype=np.float64)
    vocab = [str(t) for t in vec.get_feature_names_out()]
    if Xtr.shape[1] != Xte.shape[1] or Xtr.shape[1] != len(vocab) or Xtr.nnz == 0:
        raise RuntimeError(f"inconsistent matrices from the {kind} vectorizer: {Xtr.shape}, {Xte.shape}.")
    return Xtr, Xte, vocab


def load_matrices(vectorizer: str = "topicvb", *, verbose: bool = True) -> Matrices:
    """The 20 Newsgroups train/test count matrices, from the cache or built (and cached) once.

    ``vectorizer="topicvb"`` uses ``topicvb.text.Vectorizer`` and falls back on scikit-learn's
    ``CountVectorizer`` (with a message) if it fails; the ``vectorizer`` field says which was used.
    """
    archive = corpus_archive()
    if not archive.exists():
        raise FileNotFoundError(f"20 Newsgroups archive not found at {archive}; set TOPICVB_CORPORA.")
    kinds = [vectorizer] + (["sklearn"] if vectorizer == "topicvb" else [])
    last = None
    for kind in kinds:
        key = _cache_key(kind, archive)
        paths = {p: CACHE_DIR / f"{key}-{p}" for p in ("train.npz", "test.npz", "vocab.json")}
        if all(p.exists() for p in paths.values()):
            return Matrices(sp.load_npz(paths["train.npz"]).tocsr(), sp.load_npz(paths["test.npz"]).tocsr(),
                            json.loads(paths["vocab.json"].read_text()), kind, str(archive))
        try:
            t0 = time.perf_counter()
            Xtr, Xte, vocab = _vectorise(kind)
        except Exception as exc:  # the text pipeline may be mid-rewrite: fall back, and say so
            last = exc
            print(f"[bench] {kind} vectorizer failed ({type(exc).__name__}: {exc}); trying the next one.",
                  file=sys.stderr)
            continue
        if verbose:
            print(f"[bench] vectorised 20 Newsgroups with {kind} in {time.perf_counter() - t0:.1f} s; cached.",
                  file=sys.stderr)
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        sp.save_npz(paths["train.npz"], Xtr)
        sp.save_npz(paths["test.npz"], Xte)
        paths["vocab.json"].write_text(json.dumps(vocab))
        return Matrices(Xtr, Xte, vocab, kind, str(archive))
    raise RuntimeError(f"no vectorizer could build the matrices: {last}")


# --------------------------------------------------------------------------- timing
# The benchmark machine may be shared (other sessions' test runs on the same cores), so every timing
# records how much CPU *other* processes used meanwhile, and timings wait for a quiet machine first.
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
N_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
FOREIGN_LOG: list = []  # foreign-load share of every timed run, for the report
QUIET_WAIT = 20.0  # seconds a timing waits at most for other processes to calm down (0: never wait)


def _busy_seconds() -> float | None:
    """CPU seconds all processes have spent busy since boot (from /proc/stat), or None off Linux."""
    try:
        with open("/proc/stat") as fh:
            f = [int(x) for x in fh.readline().split()[1:]]
    except OSError:
        return None
    idle = f[3] + (f[4] if len(f) > 4 else 0)
    return (sum(f[:8]) - idle) / _TICK


def _own_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class LoadMeter:
    """Measures, over a ``with`` block, the wall time, our own CPU time and other processes' CPU time.

    "Our own" CPU time is ``own_seconds()``: this process and its waited-for children; a subclass may
    count a wider tree (``bench_distributed.py`` adds its LocalCluster's worker processes).
    """

    own_seconds = staticmethod(_own_seconds)

    def __enter__(self):
        self.b0, self.o0, self.t0 = _busy_seconds(), self.own_seconds(), time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.t0
        self.own = self.own_seconds() - self.o0
        b1 = _busy_seconds()
        self.foreign = None if b1 is None or self.b0 is None else max(0.0, (b1 - self.b0) - self.own)
        # share of the whole machine (all CPUs) other processes used while we ran
        self.foreign_share = None if self.foreign is None else self.foreign / max(self.wall * N_CPUS, 1e-9)


def wait_for_quiet(max_wait: float | None = None, threshold: float = 0.15, window: float = 1.0) -> float:
    """Wait (at most ``max_wait`` s, default ``QUIET_WAIT``) until other processes use < ``threshold``
    of the machine over a ``window``; return the share seen last."""
    max_wait = QUIET_WAIT if max_wait is None else max_wait
    if max_wait <= 0:
        return float("nan")
    deadline = time.perf_counter() + max_wait
    share = 0.0
    while True:
        with LoadMeter() as m:
            time.sleep(window)
        share = m.foreign_share or 0.0
        if share < threshold or time.perf_counter() > deadline:
            return share
        time.sleep(2.0)


def median_time(fn, repeats: int = 3, quiet: bool = True):
    """Run ``fn()`` ``repeats`` times (each after waiting for a quiet machine); return
    (median seconds, all times, last result). Each run's foreign-load share goes to ``FOREIGN_LOG``
    and to ``median_time.last_foreign`` (the list for this call)."""
    times, result, foreign, own = [], None, [], []
    for _ in range(repeats):
        if quiet:
            wait_for_quiet()
        with LoadMeter() as m:
            result = fn()
        times.append(m.wall)
        foreign.append(m.foreign_share)
        own.append(m.own)
    FOREIGN_LOG.extend(foreign)
    median_time.last_foreign = foreign
    median_time.last_own = own
    return statistics.median(times), times, result


median_time.last_foreign = []
median_time.last_own = []


def interleaved_times(fns: dict, repeats, quiet: bool = True) -> dict:
    """Time several callables round-robin (A B C, A B C, ...) so slow drifts of the machine hit all alike.

    ``fns`` maps a name to a callable; ``repeats`` is an int or a dict name -> runs (a name with fewer
    runs drops out of the later rounds). Each run waits for a quiet machine first (``quiet``).
    Returns name -> {"median", "times", "foreign", "own", "result", "results"}: the *last* run's
    result and the list of all runs' results; every run's foreign-load share also goes to
    ``FOREIGN_LOG``.
    """
    reps = dict(repeats) if isinstance(repeats, dict) else {name: int(repeats) for name in fns}
    out = {name: {"times": [], "foreign": [], "own": [], "result": None, "results": []} for name in fns}
    for r in range(max(reps.values(), default=0)):
        for name, fn in fns.items():
            if r >= reps.get(name, 0):
                continue
            if quiet:
                wait_for_quiet()
            with LoadMeter() as m:
                res = fn()
            out[name]["result"] = res
            out[name]["results"].append(res)
            out[name]["times"].append(m.wall)
            out[name]["foreign"].append(m.foreign_share)
            out[name]["own"].append(m.own)
    for v in out.values():
        v["median"] = statistics.median(v["times"]) if v["times"] else float("nan")
        FOREIGN_LOG.extend(v["foreign"])
    return out


def foreign_str(shares) -> str:
    """Max foreign-load share of some runs as a percentage string."""
    vals = [s for s in shares if s is not None]
    return "n/a" if not vals else f"{100 * max(vals):.0f}%"


def load_note() -> str | None:
    """The report's sentence on the CPU other processes used during this run's timings (``FOREIGN_LOG``),
    or None when nothing was timed."""
    shares = [x for x in FOREIGN_LOG if x is not None]
    if not shares:
        return None
    return (f"Shared machine: while the timed runs ran, other processes (not this benchmark) used a median "
            f"{100 * statistics.median(shares):.0f}% and at most {100 * max(shares):.0f}% of the machine's CPU "
            f"(from /proc/stat; every timing first waits up to {QUIET_WAIT:g} s for them to drop below 15%). Rows with "
            "a high \"other load\" are slowed by contention, 2-thread rows most.")


# --------------------------------------------------------------------------- memory
def _proc_status(field: str) -> int | None:
    """A ``VmXXX`` field of /proc/self/status in bytes (None off Linux)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def reset_peak_rss() -> bool:
    """Reset this process's resident-set high-water mark (Linux >= 4.0); True on success."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def current_rss() -> int | None:
    return _proc_status("VmRSS")


def peak_rss() -> int:
    """Resident-set high-water mark of this process in bytes (VmHWM, else ru_maxrss)."""
    hwm = _proc_status("VmHWM")
    return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_json_subprocess(args: list[str], env: dict | None = None, timeout: float | None = None) -> dict:
    """Run ``python args...`` in a fresh process that prints one JSON object as its last stdout line.

    Adds ``wall_s`` (seconds from spawn to exit, interpreter start-up included) and
    ``child_maxrss_bytes`` (ru_maxrss of the child as seen from here).
    """
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], env=full_env, capture_output=True, text=True, timeout=timeout,
                          cwd=str(REPO))
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        raise RuntimeError(f"subprocess {args} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.startswith("{")]
    out = json.loads(lines[-1])
    out["wall_s"] = wall
    # RUSAGE_CHILDREN keeps the largest child so far: only meaningful when this child set a new high.
    out["child_maxrss_bytes"] = after * 1024 if after > before else None
    return out


# --------------------------------------------------------------------------- machine
def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict:
    import numba
    import scipy
    import sklearn
    import threadpoolctl

    import topicvb

    blas = [f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads)"
            for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = float("nan")
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout
        rev = rev.strip() + (" (+ uncommitted changes)" if dirty.strip() else "")
    except OSError:
        rev = "unknown"
    pkg = Path(topicvb.__file__).resolve().parent
    digest = hashlib.sha1()
    for f in sorted(pkg.rglob("*.py")):
        digest.update(f.relative_to(pkg).as_posix().encode() + b"\0" + f.read_bytes())
    rev += f"; imported from {pkg}, sha1 of its .py files {digest.hexdigest()[:12]}"
    return {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "machine": f"{os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu_model()}, {mem:.0f} GiB RAM",
        "os": platform.platform(),
        "python": platform.python_version(),
        "topicvb": f"{getattr(topicvb, '__version__', '?')} at git {rev}",
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "numba": f"{numba.__version__} (NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS})",
        "BLAS": "; ".join(blas) or "none found",
    }


def machine_line() -> str:
    """The short machine description of the one-line report headers: ``x86_64, 2 cores, Python 3.11.7``."""
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def write_report(text: str, out=None, *, echo: bool = True, announce: bool = False) -> None:
    """The end of every script: print the report ``text`` (when ``echo``) and write it to ``out`` (when
    given, creating its folder); ``announce`` adds a "wrote OUT" line on stderr."""
    if echo:
        print(text, flush=True)
    if out:
        path = Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if announce:
            print(f"[bench {time.strftime('%H:%M:%S')}] wrote {path}", file=sys.stderr, flush=True)


def corpus_section(m: Matrices, X_train, X_test, *, note: str = "", quick: bool = False) -> list[str]:
    """The "## Corpus" section of a 20 Newsgroups report: where the matrices come from (``m``), a ``note``
    sentence, and the shapes, non-zeros and tokens of ``X_train`` / ``X_test`` (as fitted, perhaps a slice)."""
    desc = m.describe()
    text = (f"20 Newsgroups by-date ({Path(m.source).name}, read from the shared corpora folder), vectorised once "
            f"with {desc['vectorizer']}'s vectorizer (stop_words='english', min_df=5, max_df=0.5; vocabulary fitted "
            "on train, test transformed with it), cached under benchmarks/.bench_cache/." + (" " + note if note else "")
            + (" **--quick: a slice of the rows only.**" if quick else ""))
    table = md_table(["split", "documents x terms", "non-zeros", "tokens"],
                     [["train", f"{X_train.shape[0]} x {X_train.shape[1]}", X_train.nnz, int(X_train.sum())],
                      ["test", f"{X_test.shape[0]} x {X_test.shape[1]}", X_test.nnz, int(X_test.sum())]])
    return ["", "## Corpus", "", text, "", table]


def md_table(header: list[str], rows: list[list]) -> str:
    """A GitHub markdown table; floats are written with 4 significant digits."""

    def fmt(v):
        if isinstance(v, float):
            if v != v:
                return "n/a"
            return f"{v:.4g}" if abs(v) < 1e6 else f"{v:.6g}"
        return "" if v is None else str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def mib(n_bytes) -> float:
    return float("nan") if n_bytes is None else n_bytes / 2**20


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class DocCompletion:
    """Held-out perplexity by document completion, the same for every system's topics.

    One random split of each test document's tokens into an observed half and a held-out half
    (``topicvb.evaluation.split_tokens``); a ``FixedTopicModel`` holding the topic-word matrix
    and the document-topic prior infers theta from the observed half (<= 100 updates, tol 1e-3)
    and ``heldout_perplexity`` scores the held-out half.
    """

    def __init__(self, X_test, seed: int = 0):
        from topicvb.evaluation import split_tokens

        self.obs, self.held = split_tokens(X_test, 0.5, random_state=seed)

    def __call__(self, topic_word, alpha) -> float:
        from topicvb.evaluation import FixedTopicModel, heldout_perplexity

        topic_word = np.asarray(topic_word, dtype=np.float64)
        topic_word = topic_word / topic_word.sum(axis=1, keepdims=True)
        model = FixedTopicModel(topic_word, doc_topic_prior=alpha, max_iter=100, tol=1e-3)
        return heldout_perplexity(model, self.obs, X_heldout=self.held)
