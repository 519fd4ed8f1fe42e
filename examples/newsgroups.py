"""Four topic models of 20 Newsgroups, side by side.

Fits PLSA, BatchLDA, CollapsedLDA (CVB0) and OnlineLDA on the training split of the 20 Newsgroups
"bydate" corpus and compares them on the test split:

* a topic table for each model (top words, share of the corpus, NPMI coherence per topic);
* one table with held-out perplexity by document completion (lower is better), mean NPMI
  coherence (higher is better), topic diversity and fitting time;
* plots in ``--out``: the training bound of every model against iterations, held-out perplexity
  against fitting time, and the top words of the BatchLDA topics.

Posts are cleaned of their mail headers, quoted replies and signatures (the reader's default),
English stop words are dropped, and terms in fewer than ``--min-df`` posts or in more than
``--max-df`` of them are pruned. The vocabulary is learned on the training posts only; the test
posts are counted over that fixed vocabulary. Coherence is measured by document co-occurrence in
the test posts, so the topics are judged on text they were not fitted to.

Run from the repository root::

    python examples/newsgroups.py                      # all 11,314 training posts, K = 20 (minutes)
    python examples/newsgroups.py --max-docs 1000 -k 10 --out ng-plots
    python examples/newsgroups.py --data-home ~/data   # a folder holding 20news-bydate.tar.gz

The corpus is read from a local copy when there is one (``--data-home``, then the folder named by
``$TOPICVB_CORPORA``, then scikit-learn's data folder); otherwise scikit-learn downloads it
(about 14 MB).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

from topicvb import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, Tokenizer, Vectorizer  # noqa: E402
from topicvb.datasets import Corpus, load_20newsgroups  # noqa: E402
from topicvb.evaluation import coherence, heldout_perplexity, perplexity_trace, topic_diversity  # noqa: E402
from topicvb.inspection import summary, top_words  # noqa: E402
from topicvb.plotting import plot_bound_history, plot_perplexity_vs_time, plot_top_words  # noqa: E402

N_TOP_WORDS = 10


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Fit PLSA, BatchLDA, CollapsedLDA and OnlineLDA on 20 Newsgroups and compare them.",
    )
    parser.add_argument("--data-home", type=Path, default=None,
                        help="folder holding 20news-bydate.tar.gz or its extracted folders (default: "
                             "$TOPICVB_CORPORA, scikit-learn's data folder, else download)")
    parser.add_argument("--max-docs", type=int, default=None, metavar="N",
                        help="use a random sample of N training and N test posts (for quick runs; default: all)")
    parser.add_argument("-k", "--n-topics", type=int, default=20, help="number of topics (default: 20)")
    parser.add_argument("--max-iter", type=int, default=50,
                        help="iterations of PLSA, BatchLDA and CollapsedLDA (default: 50)")
    parser.add_argument("--passes", type=int, default=5, help="passes of OnlineLDA over the data (default: 5)")
    parser.add_argument("--min-df", type=int, default=5, help="drop terms in fewer posts (default: 5)")
    parser.add_argument("--max-df", type=float, default=0.5,
                        help="drop terms in more than this share of posts (default: 0.5)")
    parser.add_argument("--no-trace", action="store_true",
                        help="skip the perplexity-against-time traces (they refit every model several times)")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the sample and the models (default: 0)")
    parser.add_argument("--out", type=Path, default=Path("newsgroups-plots"),
                        help="folder for the PNG plots (default: ./newsgroups-plots)")
    args = parser.parse_args(argv)
    for name in ("max_docs", "n_topics", "max_iter", "passes", "min_df"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be a positive integer, got {value}.")
    if not 0.0 < args.max_df <= 1.0:
        parser.error(f"--max-df must be in (0, 1], got {args.max_df}.")
    return args


def _sample(corpus: Corpus, n: int | None, rng: np.random.Generator) -> Corpus:
    """A random sample of ``n`` documents, in corpus order (all of them when ``n`` is None)."""
    if n is None or n >= corpus.n_docs:
        return corpus
    return corpus.subset(np.sort(rng.choice(corpus.n_docs, size=n, replace=False)))


def load_corpora(args) -> tuple[Corpus, Corpus]:
    """Train and test corpora over one vocabulary learned on the (sampled) training posts."""
    tokenizer = Tokenizer(stop_words="english")
    vectorizer = Vectorizer(tokenizer=tokenizer, min_df=args.min_df, max_df=args.max_df)
    rng = np.random.default_rng(args.seed)
    train = load_20newsgroups("train", data_home=args.data_home, vectorizer=vectorizer)
    if args.max_docs is not None and args.max_docs < train.n_docs:
        # Learn the vocabulary (and its min_df / max_df pruning) on the sample actually used.
        train = _sample(train, args.max_docs, rng)
        X = vectorizer.fit_transform(train.texts)
        train = Corpus(X=X, vocabulary=list(vectorizer.get_feature_names_out()), doc_ids=train.doc_ids,
                       labels=train.labels, label_names=train.label_names, texts=train.texts,
                       name=train.name, description=train.description + f" Random sample of {args.max_docs}.")
    # The test posts are counted over the training vocabulary (a fixed vocabulary is never pruned).
    fixed = Vectorizer(tokenizer=tokenizer, vocabulary=vectorizer.vocab_)
    test = _sample(load_20newsgroups("test", data_home=args.data_home, vectorizer=fixed), args.max_docs, rng)
    return train, test


def make_models(args) -> dict:
    k, seed, it = args.n_topics, args.seed, args.max_iter
    return {
        "PLSA": PLSA(k, max_iter=it, random_state=seed),
        "BatchLDA": BatchLDA(k, max_iter=it, random_state=seed),
        "CollapsedLDA": CollapsedLDA(k, max_iter=it, random_state=seed),
        "OnlineLDA": OnlineLDA(k, max_iter=args.passes, random_state=seed),
    }


def warm_up(X, X_test) -> None:
    """Fit each model once on a few documents, so that compiling the numba kernels (the first run
    after installing; later runs load them from the disk cache) is not counted in the timings."""
    for model in (PLSA(2, max_iter=2), BatchLDA(2, max_iter=2), CollapsedLDA(2, max_iter=2),
                  OnlineLDA(2, max_iter=1, batch_size=8)):
        heldout_perplexity(model.fit(X[:20]), X_test[:20])


def _checkpoints(last: int) -> list[int]:
    """Roughly geometric iteration counts up to ``last``."""
    points = [c for c in (1, 2, 5, 10, 20, 50, 100, 200, 500) if c < last]
    return points + [last]


def print_table(rows: list[dict]) -> None:
    head = ["model", "iter", "fit (s)", "perplexity", "NPMI", "diversity"]
    lines = [head] + [[r["model"], str(r["n_iter"]), f"{r['fit_time']:.1f}", f"{r['perplexity']:.0f}",
                       f"{r['npmi']:.3f}", f"{r['diversity']:.2f}"] for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    for n, line in enumerate(lines):
        print("  ".join([line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:], widths[1:])]))
        if n == 0:
            print("  ".join("-" * w for w in widths))


def main(argv=None) -> int:
    args = parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)  # the iteration budget is set on purpose

    t0 = time.perf_counter()
    try:
        train, test = load_corpora(args)
    except FileNotFoundError as exc:  # no local copy and no download possible
        print(f"newsgroups.py: {exc}", file=sys.stderr)
        return 2
    print(f"20 Newsgroups: {train.n_docs} training posts ({train.n_tokens:,} tokens, {train.n_terms:,} terms), "
          f"{test.n_docs} test posts; loaded in {time.perf_counter() - t0:.1f} s.\n")
    reference = (test.X, test.vocabulary)  # coherence by document co-occurrence in the test posts

    warm_up(train.X, test.X)
    models, rows = make_models(args), []
    for name, model in models.items():
        start = time.perf_counter()
        model.fit(train.X)
        fit_time = time.perf_counter() - start
        words = top_words(model, train.vocabulary, N_TOP_WORDS)
        npmi = coherence(words, reference, measure="c_npmi")
        table = summary(model, train.X, train.vocabulary, n=N_TOP_WORDS, coherence=npmi)
        table.title = f"{name} ({model.n_iter_} iterations, {fit_time:.1f} s)"
        print(table, end="\n\n")
        rows.append({
            "model": name,
            "n_iter": model.n_iter_,
            "fit_time": fit_time,
            "perplexity": heldout_perplexity(model, test.X, random_state=args.seed),
            "npmi": npmi.mean,
            "diversity": topic_diversity(words),
        })

    print(f"Held-out perplexity (document completion on {test.n_docs} test posts, half of each post observed;"
          f" lower is better),\nmean NPMI of the top {N_TOP_WORDS} words in the test posts (higher is better), "
          "topic diversity and fitting time:\n")
    print_table(rows)

    # Plots: the training bound of each model (their bounds differ in meaning, so one panel each).
    args.out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    for ax, (name, model) in zip(axes.ravel(), models.items()):
        plot_bound_history(model, ax=ax)
        ax.set_title(name)
    fig.suptitle("Training bound per iteration (OnlineLDA: per mini-batch estimate, by pass)")
    fig.tight_layout()
    written = [args.out / "bound_history.png"]
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    axes = plot_top_words(models["BatchLDA"], train.vocabulary, n=N_TOP_WORDS, ncols=5)
    fig = np.ravel(axes)[0].figure
    written.append(args.out / "top_words_batchlda.png")
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    if not args.no_trace:
        print("\nPerplexity against fitting time (each point is a fit from scratch with that many iterations):")
        traces = {}
        for name, model in make_models(args).items():
            checkpoints = _checkpoints(model.max_iter)
            traces[name] = perplexity_trace(model, train.X, test.X, checkpoints=checkpoints,
                                            random_state=args.seed)
            trace = traces[name]
            points = ", ".join(f"{n}: {p:.0f} ({t:.1f} s)"
                               for n, p, t in zip(trace["n_iter"], trace["perplexity"], trace["time"]))
            print(f"  {name:<12} {points}")
        ax = plot_perplexity_vs_time(traces, log_time=True)
        ax.set_title(f"20 Newsgroups, K = {args.n_topics}: held-out perplexity against fitting time")
        written.append(args.out / "perplexity_vs_time.png")
        ax.figure.savefig(written[-1], dpi=100, bbox_inches="tight")
        plt.close(ax.figure)

    print("\nPlots: " + ", ".join(str(p) for p in written))
    print(f"Total time {time.perf_counter() - t0:.1f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
