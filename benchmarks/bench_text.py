"""Raw text to a document-term matrix: topicvb's Vectorizer against scikit-learn's CountVectorizer in one
process, and topicvb with ``n_jobs=2`` against ``n_jobs=1``, as ratios measured in one run.

Run from the repository root::

    python benchmarks/bench_text.py                        # full run, ~10 minutes on 2 cores -> results/text.md
    python benchmarks/bench_text.py --imdb /tmp/aclImdb     # the same, IMDB read from an unpacked folder (faster)
    python benchmarks/bench_text.py --quick                 # smoke run: smaller corpora, 1 run each, writes nothing

Section 1, one process: the 11,314 training posts of 20 Newsgroups (by-date, decoded as latin-1), every
configuration with ``min_df=5, max_df=0.5``; the reference is ``CountVectorizer(stop_words="english")``,
the default is ``Vectorizer(tokenizer=Tokenizer(stop_words="english"))``.

Section 2, processes: the default Vectorizer with ``n_jobs=1`` and ``n_jobs=2`` on the 25,000 IMDB training
reviews, on all 100,000 IMDB reviews, on the 20 Newsgroups training posts and on 4,000 reviews (under the
size below which ``n_jobs`` falls back to one process); the two matrices are compared.

All texts are read into memory before any timing. Runs are interleaved (A B, A B, ...) and the median of
``--repeats`` runs is reported; every run first waits (up to ``--quiet-wait`` s) for other processes to use
less than 15% of the machine, and the share they used during the run is reported. CPU seconds are this
process plus its worker processes.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tarfile
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as SK_STOP_WORDS
from sklearn.feature_extraction.text import CountVectorizer

from topicvb.text import PhraseDetector, Tokenizer, Vectorizer
from topicvb.text._vectorize_pool import _PARALLEL_MIN_CHARS

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

REPO = common.REPO
SETTINGS = dict(min_df=5, max_df=0.5)
IMDB_TRAIN = ("train/pos", "train/neg")
IMDB_ALL = ("train/pos", "train/neg", "train/unsup", "test/pos", "test/neg")


def log(msg: str) -> None:
    print(f"[bench_text] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- corpora
def read_20ng_train(path: Path) -> list[str]:
    posts = []
    with tarfile.open(path) as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) >= 3 and parts[-3] == "20news-bydate-train":
                posts.append((member.name, tar.extractfile(member).read().decode("latin-1")))
    posts.sort()
    return [text for _, text in posts]


def imdb_location(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    from topicvb.datasets import find_corpora_dir

    root = find_corpora_dir()
    return (root or REPO.parent / "shared" / "corpora") / "imdb-aclImdb" / "aclImdb_v1-text.tar.xz"


def read_imdb(where: Path) -> dict[str, list[str]]:
    """Reviews of each split folder (``train/pos``...), sorted by file name, from the archive or a folder."""
    out = {folder: [] for folder in IMDB_ALL}
    if where.is_dir():
        base = where / "aclImdb" if (where / "aclImdb").is_dir() else where
        for folder in IMDB_ALL:
            files = sorted((base / folder).iterdir())
            out[folder] = [f.read_bytes().decode("utf-8") for f in files if f.suffix == ".txt"]
        return out
    pairs = {folder: [] for folder in IMDB_ALL}
    with tarfile.open(where) as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) >= 4 and f"{parts[-3]}/{parts[-2]}" in pairs:
                pairs[f"{parts[-3]}/{parts[-2]}"].append((parts[-1], tar.extractfile(member).read().decode("utf-8")))
    return {folder: [text for _, text in sorted(items)] for folder, items in pairs.items()}


# --------------------------------------------------------------------------- configurations
def sk_equivalent() -> Tokenizer:
    return Tokenizer(stop_words=SK_STOP_WORDS, numbers="keep", urls="keep", emails="keep", normalize=None,
                     alphabetic=False, min_length=2)


def one_process_configurations(extras: bool):
    """(label, factory) pairs; each factory returns a fresh object with fit_transform."""
    configs = [
        ("scikit-learn CountVectorizer(stop_words='english')", lambda: CountVectorizer(stop_words="english", **SETTINGS)),
        ("topicvb default: Vectorizer(tokenizer=Tokenizer(stop_words='english'))",
         lambda: Vectorizer(tokenizer=Tokenizer(stop_words="english"), **SETTINGS)),
        ("topicvb, CountVectorizer-equivalent tokenizer", lambda: Vectorizer(tokenizer=sk_equivalent(), **SETTINGS)),
    ]
    if extras:
        configs += [
            ("topicvb default + stemmer='porter'",
             lambda: Vectorizer(tokenizer=Tokenizer(stop_words="english", stemmer="porter"), **SETTINGS)),
            ("topicvb default + clean='email'",
             lambda: Vectorizer(tokenizer=Tokenizer(stop_words="english", clean="email"), **SETTINGS)),
            ("topicvb default + phrases=PhraseDetector()",
             lambda: Vectorizer(tokenizer=Tokenizer(stop_words="english"), phrases=PhraseDetector(), **SETTINGS)),
        ]
    return configs


def default_vectorizer(n_jobs: int) -> Vectorizer:
    return Vectorizer(tokenizer=Tokenizer(stop_words="english"), n_jobs=n_jobs, **SETTINGS)


def same_matrix(a, b) -> bool:
    return a.shape == b.shape and (a != b).nnz == 0


def split_cpu(fn, log: list):
    """Run ``fn``; append (CPU s of this process, CPU s of its joined worker processes) to ``log``."""
    t0 = os.times()
    out = fn()
    t1 = os.times()
    log.append((t1.user + t1.system - t0.user - t0.system,
                t1.children_user + t1.children_system - t0.children_user - t0.children_system))
    return out


# --------------------------------------------------------------------------- main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="runs per configuration (median reported)")
    parser.add_argument("--corpus", default=None, help="path of 20news-bydate.tar.gz")
    parser.add_argument("--imdb", default=None, help="aclImdb_v1-text.tar.xz, or the folder it was unpacked into")
    parser.add_argument("--quick", action="store_true", help="small corpora, 1 run, no extra configurations, writes nothing")
    parser.add_argument("--quiet-wait", type=float, default=common.QUIET_WAIT,
                        help="seconds each run waits at most for other processes to calm down (0: never)")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "text.md"), help="markdown output")
    args = parser.parse_args(argv)
    common.QUIET_WAIT = args.quiet_wait
    repeats = 1 if args.quick else args.repeats

    ng_path = Path(args.corpus) if args.corpus else common.corpus_archive()
    imdb_path = imdb_location(args.imdb)
    for what, path in (("20 Newsgroups archive", ng_path), ("IMDB reviews", imdb_path)):
        if not path.exists():
            print(f"{what} not found at {path}; pass --corpus / --imdb or set TOPICVB_CORPORA.", file=sys.stderr)
            return 1
    log(f"reading {ng_path} and {imdb_path}")
    ng = read_20ng_train(ng_path)
    imdb = read_imdb(imdb_path)
    imdb_train = [t for folder in IMDB_TRAIN for t in imdb[folder]]
    imdb_all = [t for folder in IMDB_ALL for t in imdb[folder]]
    if args.quick:
        ng, imdb_train, imdb_all = ng[:2000], imdb_train[:5000], imdb_all[:10000]
    n_tokens = sum(len(re.findall(r"(?u)\b\w\w+\b", d.lower())) for d in ng)

    def chars(texts):
        return sum(map(len, texts)) / 1e6

    # ---- section 1: one process on 20 Newsgroups train
    configs = one_process_configurations(extras=not args.quick)
    log(f"section 1: {len(configs)} configurations x {repeats} runs on {len(ng)} posts")
    res = common.interleaved_times({label: (lambda make=make: make().fit_transform(ng)) for label, make in configs},
                                   repeats)
    ref_label = configs[0][0]
    ref = res[ref_label]
    ref_X = ref["result"]
    rows1 = []
    for label, _ in configs:
        r = res[label]
        X = r["result"]
        if label == ref_label:
            ident = "reference"
        elif "equivalent" in label:
            ident = "yes" if same_matrix(X, ref_X) else "no"
        else:
            ident = "n/a"
        rows1.append([label, r["median"], min(r["times"]), n_tokens / r["median"] / 1e6,
                      f"{ref['median'] / r['median']:.2f}x", float(np.median(r["own"])),
                      f"{np.median(ref['own']) / np.median(r['own']):.2f}x", X.shape[1], X.nnz, ident,
                      common.foreign_str(r["foreign"])])
        log(f"{label}: median {r['median']:.2f} s")

    # ---- section 2: n_jobs=2 against n_jobs=1
    corpora = [
        (f"IMDB training reviews ({len(imdb_train):,})", imdb_train),
        (f"IMDB, all reviews ({len(imdb_all):,})", imdb_all),
        (f"20 Newsgroups training posts ({len(ng):,})", ng),
        ("IMDB, 4,000 reviews (under the one-process threshold)", imdb_train[:: max(1, len(imdb_train) // 4000)][:4000]),
    ]
    rows2 = []
    for name, texts in corpora:
        log(f"section 2: {name}, n_jobs 1 and 2 x {repeats} runs")
        cpu = {1: [], 2: []}
        r = common.interleaved_times(
            {nj: (lambda t=texts, nj=nj: split_cpu(lambda: default_vectorizer(nj).fit_transform(t), cpu[nj]))
             for nj in (1, 2)}, repeats)
        ident = all(same_matrix(x, r[1]["results"][0]) for x in r[2]["results"])
        one_cpu = statistics.median(a + b for a, b in cpu[1])
        main_cpu = statistics.median(a for a, _ in cpu[2])
        worker_cpu = statistics.median(b for _, b in cpu[2])
        # on two free cores the wall time is at least the busier process's CPU time
        bound = one_cpu / max(main_cpu, worker_cpu, 1e-9)
        rows2.append([name, f"{chars(texts):.1f}", r[1]["median"], r[2]["median"],
                      f"{r[1]['median'] / r[2]['median']:.2f}x", round(one_cpu, 2), round(main_cpu, 2),
                      round(worker_cpu, 2),
                      f"{one_cpu / (main_cpu + worker_cpu):.2f}", f"{bound:.2f}x", "yes" if ident else "no",
                      common.foreign_str(r[1]["foreign"] + r[2]["foreign"])])
        log(f"{name}: {r[1]['median']:.2f} s -> {r[2]['median']:.2f} s (CPU {one_cpu:.2f} -> {main_cpu:.2f} + "
            f"{worker_cpu:.2f})")

    info = common.machine_info()
    cmd = "python benchmarks/bench_text.py" + ("" if argv is None else " " + " ".join(argv))
    if argv is None:
        cmd = "python " + " ".join(["benchmarks/bench_text.py", *sys.argv[1:]])
    lines = [
        "# Text pipeline: raw text to a document-term matrix",
        "",
        f"Command: `{cmd}` (from the repository root)",
        "",
        *[f"- {k}: {v}" for k, v in info.items()],
        "",
        "All texts are read into memory before timing. Every row: `fit_transform` with `min_df=5, max_df=0.5`; "
        f"median (and best) of {repeats} interleaved runs. CPU seconds are user + system of this process and its "
        "worker processes. \"Other load\" is the largest share of the machine's CPU that other processes used "
        "during one of the row's runs: the machine is shared, so wall times of rows with a high share are slowed "
        "by contention (n_jobs=2 rows most, since they need both cores).",
    ]
    note = common.load_note()
    if note:
        lines += ["", note]
    lines += [
        "",
        f"## One process: 20 Newsgroups training posts ({len(ng):,} posts, {chars(ng):.1f} M characters, "
        f"{n_tokens / 1e6:.2f} M raw tokens)",
        "",
        "\"M tokens/s\" divides the raw tokens (matches of `\\b\\w\\w+\\b` on the lower-cased text, stop words "
        "included) by the median time, so all rows share one numerator. The topicvb default keeps words of three "
        "or more letters (no digits) and drops numbers, URLs and e-mail addresses, so it has fewer terms; the "
        "CountVectorizer-equivalent tokenizer (`alphabetic=False, min_length=2, numbers/urls/emails='keep', "
        "normalize=None`, scikit-learn's stop words) must give the same matrix.",
        "",
        common.md_table(["configuration", "median s", "best s", "M tokens/s", "speed vs CountVectorizer",
                         "median CPU s", "CPU speed vs CountVectorizer", "terms", "nonzeros",
                         "identical to CountVectorizer", "other load"], rows1),
        "",
        "## Processes: n_jobs=2 against n_jobs=1 (default Vectorizer)",
        "",
        "`n_jobs=2` counts in this process and one worker process; corpora under "
        f"{_PARALLEL_MIN_CHARS / 1e6:g} million characters are "
        "counted in one process whatever `n_jobs` is. \"speed-up\" is the ratio of the median wall times, which "
        "needs a second core free of other processes; the CPU columns show the work itself: n_jobs=1 CPU s over "
        "the sum of the two processes' CPU s is the efficiency (1 = no overhead), and n_jobs=1 CPU s over the "
        "busier process's CPU s bounds the speed-up on two free cores (the wall time cannot be shorter than the "
        "busier process's CPU time). \"identical\" compares every n_jobs=2 matrix with the n_jobs=1 one.",
        "",
        common.md_table(["corpus", "M characters", "n_jobs=1 s", "n_jobs=2 s", "speed-up", "n_jobs=1 CPU s",
                         "n_jobs=2: this process CPU s", "n_jobs=2: worker CPU s", "efficiency",
                         "speed-up bound on 2 free cores", "identical", "other load"], rows2),
        "",
    ]
    common.write_report("\n".join(lines), None if args.quick else args.out, announce=not args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
