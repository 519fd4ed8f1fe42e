"""Choosing K on LDA-generated corpora: select_n_topics (defaults) and GridSearchCV agree and hit the true K.

    python benchmarks/bench_choose_k.py [--seeds 0 1 2] [--out benchmarks/results/choose_k.md] [--quick]

For each true K in {10, 20} and each seed, a corpus ``make_lda_corpus(n_docs, n_terms, K, doc_length=...,
random_state=seed)`` (alpha 0.1, eta 0.01, Poisson lengths), and for each estimator (the recommended
``CollapsedLDA(learn_priors=True)`` and every class at its defaults, ``random_state=seed``), over the
candidates {5, 10, 20, 40}:

- ``select_n_topics(X, candidates, model=estimator, random_state=seed)`` with its default criterion
  (held-out perplexity by document completion on a seeded 20% of the documents);
- ``GridSearchCV(estimator, {"n_components": candidates}, cv=3, refit=False)``, which ranks by the
  estimators' ``score`` (held-out log-likelihood per token, document completion) on the validation folds;
- for contrast, the K the training bound would pick (``criterion="elbo"``: the largest final bound of the
  same select_n_topics fits, which are fitted on 80% of the documents).

A pick "hits" when it is the true K or a neighbouring candidate (within one step); "agree" when the two
picks are within one step of each other. Times are wall-clock seconds of the whole select_n_topics call
(4 fits) and of the GridSearchCV (12 fits) on a machine shared with other jobs: compare them only roughly.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import md_table  # noqa: E402

CANDIDATES = [5, 10, 20, 40]
TRUE_KS = (10, 20)


def estimators():
    """(label, unfitted estimator) for the recommended configuration and every class at its defaults."""
    from topicvb import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA
    from topicvb.models._registry import recommended_estimator

    return [("CollapsedLDA(learn_priors=True) (recommended)", recommended_estimator()),
            ("PLSA", PLSA()), ("BatchLDA", BatchLDA()), ("CollapsedLDA", CollapsedLDA()),
            ("OnlineLDA", OnlineLDA()), ("StochasticCollapsedLDA", StochasticCollapsedLDA())]


def step(k: int) -> int:
    return CANDIDATES.index(int(k))


def run_one(estimator, X, seed: int) -> dict:
    """The picks of select_n_topics (default criterion, and by the bound) and of GridSearchCV(cv=3)."""
    from sklearn.base import clone
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import GridSearchCV

    from topicvb.evaluation import select_n_topics
    from topicvb.exceptions import DeadTopicWarning

    with warnings.catch_warnings():
        for category in (ConvergenceWarning, DeadTopicWarning, UserWarning):
            warnings.simplefilter("ignore", category)
        t0 = time.perf_counter()
        result = select_n_topics(X, CANDIDATES, model=estimator, random_state=seed)
        t1 = time.perf_counter()
        search = GridSearchCV(clone(estimator).set_params(random_state=seed), {"n_components": CANDIDATES}, cv=3,
                              refit=False).fit(X)
        t2 = time.perf_counter()
    grid_k = int(search.cv_results_["param_n_components"][search.best_index_])
    bound_k = CANDIDATES[int(np.argmax(result.column("bound")))]
    return {"criterion": result.criterion, "select": int(result.best_k), "grid": grid_k, "bound": bound_k,
            "select_time": t1 - t0, "grid_time": t2 - t1,
            "scores": [float(v) for v in search.cv_results_["mean_test_score"]]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--n-docs", type=int, default=800)
    parser.add_argument("--n-terms", type=int, default=400)
    parser.add_argument("--doc-length", type=float, default=80)
    parser.add_argument("--out", default=str(common.BENCH_DIR / "results" / "choose_k.md"))
    parser.add_argument("--quick", action="store_true", help="one seed, the recommended estimator only")
    args = parser.parse_args(argv)
    from topicvb.datasets import make_lda_corpus

    seeds = args.seeds[:1] if args.quick else args.seeds
    models = estimators()[:1] if args.quick else estimators()
    rows, summary = [], {}
    started = time.perf_counter()
    for true_k in TRUE_KS:
        for seed in seeds:
            X = make_lda_corpus(args.n_docs, args.n_terms, true_k, doc_length=args.doc_length,
                                random_state=seed).corpus.X
            for label, est in models:
                r = run_one(est, X, seed)
                hit_s = abs(step(r["select"]) - step(true_k)) <= 1
                hit_g = abs(step(r["grid"]) - step(true_k)) <= 1
                agree = abs(step(r["select"]) - step(r["grid"])) <= 1
                s = summary.setdefault(label, {"n": 0, "select": 0, "grid": 0, "agree": 0, "exact_s": 0,
                                               "exact_g": 0, "bound": 0, "exact_b": 0})
                s["n"] += 1
                s["select"] += hit_s
                s["grid"] += hit_g
                s["agree"] += agree
                s["exact_s"] += r["select"] == true_k
                s["exact_g"] += r["grid"] == true_k
                s["bound"] += abs(step(r["bound"]) - step(true_k)) <= 1
                s["exact_b"] += r["bound"] == true_k
                rows.append([label, true_k, seed, r["select"], r["grid"], r["bound"],
                             "yes" if hit_s and hit_g and agree else "**no**",
                             f"{r['select_time']:.1f}", f"{r['grid_time']:.1f}"])
                print(f"[bench {time.strftime('%H:%M:%S')}] K={true_k} seed={seed} {label}: select {r['select']} "
                      f"grid {r['grid']} bound {r['bound']} (grid scores {np.round(r['scores'], 4).tolist()}) "
                      f"{r['select_time']:.1f}s + {r['grid_time']:.1f}s", file=sys.stderr, flush=True)
    total = time.perf_counter() - started
    lines = [
        "# Choosing K on LDA-generated corpora",
        "",
        f"`python benchmarks/bench_choose_k.py --seeds {' '.join(map(str, seeds))}"
        + (" --quick" if args.quick else "") + "`; " + common.machine_line()
        + f", shared with other jobs (times are rough); {total:.0f} s in all.",
        "",
        f"Corpora: `make_lda_corpus({args.n_docs}, {args.n_terms}, K, doc_length={args.doc_length:g}, "
        "random_state=seed)` (alpha 0.1, eta 0.01, Poisson lengths) for true K in {10, 20}; candidates "
        f"{CANDIDATES}; every model with `random_state=seed`. *select_n_topics*: defaults (criterion "
        "'heldout', a seeded 20% of the documents held out, document completion). *GridSearchCV*: "
        "`GridSearchCV(model, {'n_components': candidates}, cv=3)`, i.e. the models' `score` (held-out "
        "log-likelihood per token) on the validation folds. *bound*: the K with the largest final training "
        "bound among the same select_n_topics fits (criterion='elbo'), for contrast. *ok*: both picks within one "
        "step of the true K and of each other. Times: seconds of the select_n_topics call (4 fits) and of the "
        "grid search (12 fits).",
        "",
        md_table(["estimator", "true K", "seed", "select_n_topics", "GridSearchCV(cv=3)", "bound (elbo)", "ok",
                  "select time (s)", "grid time (s)"], rows),
        "",
        "## Summary",
        "",
        md_table(["estimator", "runs", "select within 1 step", "grid within 1 step", "agree within 1 step",
                  "select exact", "grid exact", "bound within 1 step", "bound exact"],
                 [[label, s["n"], s["select"], s["grid"], s["agree"], s["exact_s"], s["exact_g"], s["bound"],
                   s["exact_b"]]
                  for label, s in summary.items()]),
    ]
    common.write_report("\n".join(lines) + "\n", args.out, announce=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
