"""Tokenise and vectorise all 20 Newsgroups posts with topicvb and with scikit-learn's CountVectorizer.

Run from the repository root::

    python benchmarks/bench_text.py            # 3 runs each, writes benchmarks/results/text.md

The 18,846 posts are read once from ``20news-bydate.tar.gz`` (decoded as latin-1) into memory, then
every configuration is timed on the same list in the same process; runs are interleaved (round
robin) and the median is reported. "tokens/s" is the number of raw tokens (matches of the default
token pattern on the lower-cased text, stop words included) divided by the median time, so all
rows share one numerator.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import tarfile
import time
from pathlib import Path

import numpy as np
import sklearn
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as SK_STOP_WORDS
from sklearn.feature_extraction.text import CountVectorizer

from topicvb.text import PhraseDetector, Tokenizer, Vectorizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

REPO = common.REPO


def corpus_path(arg: str | None) -> Path:
    return Path(arg) if arg else common.corpus_archive()


def read_20ng(path: Path) -> list[str]:
    docs = []
    with tarfile.open(path) as tar:
        for member in tar:
            if member.isfile():
                docs.append(tar.extractfile(member).read().decode("latin-1"))
    return docs


def sk_equivalent() -> Tokenizer:
    return Tokenizer(stop_words=SK_STOP_WORDS, numbers="keep", urls="keep", emails="keep", normalize=None)


def configurations():
    """(label, factory) pairs; each factory returns a fresh object with fit_transform."""
    return [
        ("scikit-learn CountVectorizer(stop_words='english', min_df=5, max_df=0.5)",
         lambda: CountVectorizer(stop_words="english", min_df=5, max_df=0.5)),
        ("topicvb Vectorizer, CountVectorizer-equivalent tokenizer",
         lambda: Vectorizer(tokenizer=sk_equivalent(), min_df=5, max_df=0.5)),
        ("topicvb Vectorizer, CountVectorizer-equivalent tokenizer, n_jobs=2",
         lambda: Vectorizer(tokenizer=sk_equivalent(), min_df=5, max_df=0.5, n_jobs=2)),
        ("topicvb Vectorizer, Tokenizer(stop_words='english') defaults (NFKC; drop numbers, URLs, e-mails)",
         lambda: Vectorizer(tokenizer=Tokenizer(stop_words="english"), min_df=5, max_df=0.5)),
        ("topicvb Vectorizer, + stemmer='porter'",
         lambda: Vectorizer(tokenizer=Tokenizer(stop_words="english", stemmer="porter"), min_df=5, max_df=0.5)),
        ("topicvb Vectorizer, + clean='email' + stemmer='porter'",
         lambda: Vectorizer(tokenizer=Tokenizer(stop_words="english", stemmer="porter", clean="email"),
                            min_df=5, max_df=0.5)),
        ("topicvb Vectorizer, + phrases=PhraseDetector() (npmi > 0.5, min_count=5)",
         lambda: Vectorizer(tokenizer=Tokenizer(stop_words="english"), phrases=PhraseDetector(), min_df=5, max_df=0.5)),
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="runs per configuration (median reported)")
    parser.add_argument("--corpus", default=None, help="path of 20news-bydate.tar.gz")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "text.md"), help="markdown output")
    args = parser.parse_args(argv)

    path = corpus_path(args.corpus)
    if not path.exists():
        print(f"20 Newsgroups archive not found at {path}; pass --corpus or set TOPICVB_CORPORA.", file=sys.stderr)
        return 1
    t0 = time.perf_counter()
    docs = read_20ng(path)
    t_read = time.perf_counter() - t0
    n_tokens = sum(len(re.findall(r"(?u)\b\w\w+\b", d.lower())) for d in docs)
    print(f"read {len(docs)} documents ({sum(map(len, docs)) / 1e6:.1f} M characters, {n_tokens / 1e6:.2f} M raw tokens) "
          f"in {t_read:.1f} s", file=sys.stderr)

    configs = configurations()
    times = {label: [] for label, _ in configs}
    cpu_times = {label: [] for label, _ in configs}
    shapes, matrices = {}, {}
    for rep in range(args.repeats):
        for label, make in configs:
            est = make()
            c0, t0 = os.times(), time.perf_counter()
            X = est.fit_transform(docs)
            dt, c1 = time.perf_counter() - t0, os.times()
            times[label].append(dt)
            # CPU seconds of this process and of its (joined) worker processes: robust to other load
            cpu_times[label].append(sum(c1[:4]) - sum(c0[:4]))
            shapes[label] = (X.shape, X.nnz)
            if rep == 0 and label.startswith(("scikit-learn", "topicvb Vectorizer, CountVectorizer-equivalent")):
                matrices[label] = (X, list(est.get_feature_names_out()))
            print(f"run {rep + 1}: {dt:7.2f} s  {label}", file=sys.stderr)

    ref_X, ref_names = matrices[configs[0][0]]
    same = {label: (X.shape == ref_X.shape and (X != ref_X).nnz == 0 and names == ref_names)
            for label, (X, names) in matrices.items()}
    ref_time = statistics.median(times[configs[0][0]])
    ref_cpu = statistics.median(cpu_times[configs[0][0]])
    rows = []
    for label, _ in configs:
        med = statistics.median(times[label])
        cpu = statistics.median(cpu_times[label])
        (n_docs, n_terms), nnz = shapes[label]
        ident = "reference" if label == configs[0][0] else ("yes" if same.get(label) else ("no" if label in same else "n/a"))
        rows.append(f"| {label} | {med:.2f} | {min(times[label]):.2f} | {n_tokens / med / 1e6:.2f} | "
                    f"{ref_time / med:.2f}x | {cpu:.2f} | {ref_cpu / cpu:.2f}x | {n_terms} | {nnz} | {ident} |")
    lines = [
        "## Text pipeline: 20 Newsgroups (18,846 posts) to a document-term matrix",
        "",
        f"Command: `python benchmarks/bench_text.py --repeats {args.repeats}` (from the repository root).",
        f"Machine: {os.cpu_count()} CPU cores, {platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}, scikit-learn {sklearn.__version__}, NumPy {np.__version__}.",
        f"Corpus: {len(docs)} posts, {sum(map(len, docs)) / 1e6:.1f} M characters (latin-1), "
        f"{n_tokens / 1e6:.2f} M raw tokens (default pattern, stop words included); all texts in memory before timing.",
        f"Each configuration: fit_transform with min_df=5, max_df=0.5; median (and best) of {args.repeats} interleaved runs.",
        "Wall-clock seconds depend on other load on the machine; CPU seconds (user + system, this process plus its "
        "worker processes) do much less, so compare those when the machine is shared.",
        "",
        "| configuration | median s | best s | M tokens/s | speed vs CountVectorizer | median CPU s | CPU speed vs CountVectorizer | terms | nonzeros | identical to CountVectorizer |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        *rows,
        "",
    ]
    common.write_report("\n".join(lines), args.out, announce=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
