"""Guided topics benchmark (issue #21): seeded topics on 20 Newsgroups against tomotopy's word priors.

Run from the repository root::

    python benchmarks/bench_guided.py                      # -> results/guided.md, .json
    python benchmarks/bench_guided.py --quick              # smoke run (fewer sweeps), writes nothing

Corpus: 20 Newsgroups by-date (the shared corpora), the vectorizer settings of ``common`` (tokens of
>= 3 letters, English stop words, min_df 5, max_df 0.5; vocabulary from the training split); empty
training documents are dropped (tomotopy cannot hold them). K = 20 topics.

Seeds: 2-5 words for each of 6 newsgroups (``SEEDS``, chosen from the group names and common
knowledge of their subjects before any fit, not tuned). ``topicvb.guided.seed_topic_prior`` turns
them into a (K, V) topic-word prior (``--seed-confidence``); seeded topic i is the i-th group.
``--seed-set confused`` seeds three pairs of newsgroups that share most of their vocabulary instead
(``CONFUSED_SEEDS``: Mac / PC hardware, autos / motorcycles, atheism / Christianity; report
``results/guided_confused.md``); ``--k`` sets the number of topics (default 20).

Systems, each with ``random_state`` / seed 0 (``--fit-seeds`` runs the first three at several seeds and adds a
table of means, with the seeded fit's capture minus each system's paired by seed):

* ``topicvb seeded``: the recommended estimator (``recommended_estimator()``) with that prior;
* ``topicvb unseeded``: the same estimator without a prior;
* ``tomotopy seeded``: ``tomotopy.LDAModel`` (collapsed Gibbs, alpha 1/K fixed, ``eta`` = the prior's
  base value) with ``set_word_prior`` giving every seed word the same prior column as the matrix (the
  same prior mass), ``--tomotopy-iters`` sweeps on 2 threads;
* ``topicvb seeded, 10x iterations``: the seeded estimator with ``max_iter`` ten times its default and
  ``tol=0`` (do the seeds hold as iterations grow?).

Metrics (the same evaluator for every system: a ``FixedTopicModel`` holding the system's topic-word
matrix and document-topic prior infers each test document's topic proportions):

* capture: for each seeded group, the share of its test documents whose largest topic is the group's
  seeded topic; for the unseeded fit, the best topic for that group (the topic that is the largest for
  most of the group's test documents, chosen after the fact: a generous baseline); the mean over the groups;
* precision: the share of the test documents whose largest topic is that topic that belong to the group
  (capture alone does not see a topic that also takes other groups' documents); F1, the harmonic mean of a
  group's capture and precision, averaged over the groups;
* seed words in top 10: the share of each seeded topic's seed words among its 10 most probable words;
* held-out perplexity by document completion (``common.DocCompletion``, half of each test document
  observed, seed 0) and NPMI of the top 10 words (document co-occurrence in the training matrix);
* wall time of the fit.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

K = 20
SEED = 0  # the document completion's seed
FIT_SEED = 0  # random_state of the topicvb fits and tomotopy's seed (--fit-seeds)
SEEDS = {
    "space": ("sci.space", ["space", "nasa", "orbit", "shuttle", "launch"]),
    "hockey": ("rec.sport.hockey", ["hockey", "nhl", "puck", "goalie"]),
    "crypto": ("sci.crypt", ["encryption", "clipper", "crypto", "keys"]),
    "medicine": ("sci.med", ["doctor", "disease", "patients", "medical"]),
    "guns": ("talk.politics.guns", ["gun", "guns", "firearms", "weapons"]),
    "graphics": ("comp.graphics", ["graphics", "image", "images", "polygon"]),
}
# A second set (--seed-set confused): three pairs of newsgroups that share most of their vocabulary, which an
# unseeded fit at K = 20 may merge into one topic per pair (chosen from the group names and common knowledge of
# their subjects before any fit, not tuned). A merged topic is the best topic of both groups of its pair, so the
# unseeded baseline's capture stays high there: precision and F1 say whether the seeds split the pair.
CONFUSED_SEEDS = {
    "mac": ("comp.sys.mac.hardware", ["mac", "apple", "quadra", "powerbook"]),
    "pc": ("comp.sys.ibm.pc.hardware", ["motherboard", "bios", "ide", "isa"]),
    "autos": ("rec.autos", ["car", "cars", "engine", "ford"]),
    "motorcycles": ("rec.motorcycles", ["bike", "motorcycle", "riding", "helmet"]),
    "atheism": ("alt.atheism", ["atheism", "atheists", "atheist", "religion"]),
    "christian": ("soc.religion.christian", ["church", "christ", "christians", "bible"]),
}
SEED_SETS = {"groups": SEEDS, "confused": CONFUSED_SEEDS}
OUT = Path(__file__).resolve().parent / "results" / "guided.md"
OUTS = {"groups": OUT, "confused": OUT.with_name("guided_confused.md")}


def log(msg: str) -> None:
    print(f"[guided] {msg}", file=sys.stderr, flush=True)


def load():
    """Train and test matrices, labels (group names), vocabulary; empty training documents dropped."""
    from topicvb.datasets import load_20newsgroups

    vec = common._make_vectorizer("topicvb")
    train = load_20newsgroups("train", vectorizer=vec, download_if_missing=False)
    test = load_20newsgroups("test", vectorizer=common._Frozen(vec), download_if_missing=False)
    Xtr, Xte = sp.csr_matrix(train.X, dtype=np.float64), sp.csr_matrix(test.X, dtype=np.float64)
    names = list(train.label_names)
    ytr = np.array([names[i] for i in train.labels])
    yte = np.array([list(test.label_names)[i] for i in test.labels])
    keep = np.diff(Xtr.indptr) > 0
    vocab = [str(t) for t in vec.get_feature_names_out()]
    return Xtr[keep], ytr[keep], Xte, yte, vocab


def tomotopy_seeded(X, prior, base, iters):
    """tomotopy LDAModel with the seed words' prior columns set by ``set_word_prior``; returns (phi, seconds)."""
    import tomotopy as tp
    from bench_peers import tomotopy_fit

    t0 = time.perf_counter()
    mdl = tp.LDAModel(k=K, alpha=1.0 / K, eta=base, seed=FIT_SEED)
    mdl.optim_interval = 0
    mdl.burn_in = 0
    counts = X.data.astype(np.int64)
    for d in range(X.shape[0]):
        s, e = X.indptr[d], X.indptr[d + 1]
        mdl.add_doc(np.repeat(X.indices[s:e], counts[s:e]).astype(str).tolist())
    special = np.flatnonzero(np.any(prior != base, axis=0))
    for w in special:
        mdl.set_word_prior(str(int(w)), [float(v) for v in prior[:, w]])
    mdl.train(iters, workers=2)
    seconds = time.perf_counter() - t0
    return tomotopy_fit(mdl, X.shape[1]).topic_word, np.full(K, 1.0 / K), seconds


def capture(theta, y_test, groups, slots=None):
    """Per group: share of its test documents whose largest topic is its slot (or its best topic); the
    topics used; and per group the precision of that topic, the share of the test documents whose largest
    topic it is that belong to the group (how pure a topic the group got; nan when it is no document's)."""
    top = np.argmax(theta, axis=1)
    out, used, precision = {}, {}, {}
    for label, group in groups.items():
        mine = top[y_test == group]
        if slots is None:
            counts = np.bincount(mine, minlength=theta.shape[1])
            k = int(np.argmax(counts))
        else:
            k = slots[label]
        out[label] = float(np.mean(mine == k)) if mine.size else float("nan")
        used[label] = k
        theirs = y_test[top == k]
        precision[label] = float(np.mean(theirs == group)) if theirs.size else float("nan")
    return out, used, precision


def f1(capture_share, precision):
    """The harmonic mean of a group's capture (recall) and its topic's precision."""
    total = capture_share + precision
    return 2.0 * capture_share * precision / total if total > 0 else 0.0


def evaluate(name, phi, alpha, seconds, data, scorer, slots=None):
    from topicvb.evaluation import FixedTopicModel, coherence
    from topicvb.inspection import top_words

    Xtr, ytr, Xte, yte, vocab = data
    phi = np.asarray(phi, dtype=np.float64)
    phi = phi / phi.sum(axis=1, keepdims=True)
    theta = FixedTopicModel(phi, doc_topic_prior=alpha, max_iter=100, tol=1e-3).transform(Xte)
    groups = {label: group for label, (group, _) in SEEDS.items()}
    shares, used, precision = capture(theta, yte, groups, slots)
    index = {w: i for i, w in enumerate(vocab)}
    in_top = {}
    for label, (_, words) in SEEDS.items():
        top10 = set(np.argsort(-phi[used[label]])[:10].tolist())
        known = [index[w] for w in words if w in index]
        in_top[label] = sum(i in top10 for i in known) / max(1, len(known))
    model = FixedTopicModel(phi, doc_topic_prior=alpha, max_iter=100, tol=1e-3)
    words = [[w for w, _ in t] for t in top_words(model, vocab, 10)]
    npmi = float(coherence(words, data_reference(Xtr, vocab), measure="c_npmi").mean)
    scores = {label: f1(shares[label], precision[label]) for label in shares}
    row = {"system": name, "capture": shares, "mean_capture": float(np.mean(list(shares.values()))),
           "precision": precision, "mean_precision": float(np.nanmean(list(precision.values()))),
           "f1": scores, "mean_f1": float(np.mean(list(scores.values()))),
           "topics": used, "seeds_in_top10": in_top, "mean_seeds_in_top10": float(np.mean(list(in_top.values()))),
           "perplexity": float(scorer(phi, alpha)), "npmi": npmi, "seconds": seconds}
    log(f"{name}: mean capture {row['mean_capture']:.3f}, precision {row['mean_precision']:.3f}, F1 "
        f"{row['mean_f1']:.3f}, seeds in top 10 {row['mean_seeds_in_top10']:.2f}, "
        f"perplexity {row['perplexity']:.1f}, NPMI {npmi:.3f}, {seconds:.1f} s")
    return row


_REFERENCE = {}


def data_reference(X, vocab):
    """The document co-occurrence reference of the training matrix (built once)."""
    from topicvb.evaluation import ReferenceCorpus

    if "ref" not in _REFERENCE:
        _REFERENCE["ref"] = ReferenceCorpus(X=X, vocabulary=vocab)
    return _REFERENCE["ref"]


ESTIMATOR = None  # None: the recommended estimator; else a class name of topicvb (--estimator)


def lost_seeds(model):
    """The labels of the seeded topics that lost their seed words (``topicvb.guided.seed_holding``; the fit
    warned with ``SeedLostWarning``)."""
    from topicvb.guided import seed_holding

    return [h.label for h in seed_holding(model) if h.lost]


def fit_topicvb(X, prior, **params):
    import topicvb
    from topicvb.models._registry import recommended_estimator

    if ESTIMATOR is None:
        model = recommended_estimator(n_components=K, random_state=FIT_SEED, **params)
    else:
        model = getattr(topicvb, ESTIMATOR)(n_components=K, random_state=FIT_SEED, **params)
    if prior is not None:
        model.set_params(topic_word_prior=prior)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X)
    seconds = time.perf_counter() - t0
    return model, seconds


def main(argv=None):
    global ESTIMATOR, FIT_SEED, SEEDS, K
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed-confidence", type=float, default=None,
                    help="seed_topic_prior's seed_confidence (default: its default)")
    ap.add_argument("--tomotopy-iters", type=int, default=1000)
    ap.add_argument("--long-factor", type=int, default=10, help="max_iter multiple of the long seeded fit")
    ap.add_argument("--quick", action="store_true", help="100 tomotopy sweeps, no long fit; writes nothing")
    ap.add_argument("--k", type=int, default=K, help=f"number of topics (default {K})")
    ap.add_argument("--seed-set", choices=sorted(SEED_SETS), default="groups",
                    help="groups: 6 newsgroups an unseeded fit finds (default); confused: 3 pairs it may merge")
    ap.add_argument("--out", type=Path, default=None, help="the report (default: results/guided.md, or "
                                                           "results/guided_confused.md for --seed-set confused)")
    ap.add_argument("--estimator", default=None, help="a topicvb class name instead of the recommended estimator")
    ap.add_argument("--no-tomotopy", action="store_true", help="leave tomotopy out (with --quick)")
    ap.add_argument("--fit-seeds", type=int, nargs="+", default=[0],
                    help="random_state of the topicvb fits and tomotopy's seed (default 0); several add a table of "
                         "means over them (the long fit runs at the first only)")
    args = ap.parse_args(argv)
    ESTIMATOR = args.estimator
    SEEDS = SEED_SETS[args.seed_set]
    K = args.k
    if args.out is None:
        args.out = OUTS[args.seed_set]
    from topicvb.guided import seed_topic_prior

    data = load()
    Xtr, ytr, Xte, yte, vocab = data
    log(f"20 Newsgroups: {Xtr.shape[0]} training documents, {Xte.shape[0]} test, {Xtr.shape[1]} terms")
    seeds = {label: words for label, (_, words) in SEEDS.items()}
    options = {} if args.seed_confidence is None else {"seed_confidence": args.seed_confidence}
    prior = seed_topic_prior(vocab, seeds, K, **options)
    matrix = np.asarray(prior, dtype=np.float64)
    base = float(np.median(matrix))
    slots = {label: list(prior.labels).index(label) for label in seeds}
    scorer = common.DocCompletion(Xte, seed=SEED)
    rows, extra = [], []  # the first fit seed's rows; every fit seed's seeded, unseeded and tomotopy rows
    iters = 100 if args.quick else args.tomotopy_iters
    for n, FIT_SEED in enumerate(args.fit_seeds):
        mine = []
        model, seconds = fit_topicvb(Xtr, prior)
        mine.append(evaluate("topicvb seeded", model.components_, model.doc_topic_prior_, seconds, data, scorer,
                             slots))
        mine[-1]["lost"] = lost_seeds(model)
        log(f"topicvb seeded, fit seed {FIT_SEED}: seeded topics that lost their seeds: {mine[-1]['lost'] or 'none'}")
        if n == 0:
            default_iter = model.get_params()["max_iter"]
            labels_ok = [model.topic_labels_[slots[label]] == label for label in seeds]
        model, seconds = fit_topicvb(Xtr, None)
        mine.append(evaluate("topicvb unseeded (best topic per group)", model.components_, model.doc_topic_prior_,
                             seconds, data, scorer))
        if not args.no_tomotopy:
            phi, alpha, seconds = tomotopy_seeded(Xtr, matrix, base, iters)
            mine.append(evaluate(f"tomotopy seeded ({iters} sweeps, 2 threads)", phi, alpha, seconds, data, scorer,
                                 slots))
        for row in mine:
            row["fit_seed"] = FIT_SEED
        (rows if n == 0 else extra).extend(mine)
    extra = rows + extra if len(args.fit_seeds) > 1 else []
    FIT_SEED = args.fit_seeds[0]
    if not args.quick:
        model, seconds = fit_topicvb(Xtr, prior, max_iter=args.long_factor * default_iter, tol=0.0)
        rows.append(evaluate(f"topicvb seeded, {args.long_factor}x iterations (max_iter="
                             f"{args.long_factor * default_iter}, tol=0)", model.components_, model.doc_topic_prior_,
                             seconds, data, scorer, slots))
        rows[-1]["lost"] = lost_seeds(model)
    if args.quick:
        return rows + extra
    write(rows, args, prior, labels_ok, extra)
    return rows + extra


def seed_means(rows):
    """Markdown table of means over fit seeds per system, with paired differences of the seeded fit's capture."""
    import statistics

    by = {}
    for r in rows:
        by.setdefault(r["system"], {})[r["fit_seed"]] = r
    seeded = by.get("topicvb seeded", {})

    def ms(vals, fmt):
        return (fmt + " ± " + fmt).format(statistics.mean(vals), statistics.stdev(vals)) if len(vals) > 1 \
            else fmt.format(vals[0])

    table = []
    for system, runs in by.items():
        seeds = sorted(runs)
        caps = [runs[f]["mean_capture"] for f in seeds]
        diff = ""
        if system != "topicvb seeded":
            d = [seeded[f]["mean_capture"] - runs[f]["mean_capture"] for f in seeds if f in seeded]
            if len(d) > 1:
                diff = f"{statistics.mean(d):+.3f} ± {statistics.stdev(d) / len(d) ** 0.5:.3f} (min {min(d):+.3f})"
        fdiff = ""
        if system != "topicvb seeded":
            d = [seeded[f]["mean_f1"] - runs[f]["mean_f1"] for f in seeds if f in seeded]
            if len(d) > 1:
                fdiff = f"{statistics.mean(d):+.3f} ± {statistics.stdev(d) / len(d) ** 0.5:.3f} (min {min(d):+.3f})"
        table.append([system, len(seeds), ms(caps, "{:.3f}"), diff,
                      ms([runs[f]["mean_precision"] for f in seeds], "{:.3f}"),
                      ms([runs[f]["mean_f1"] for f in seeds], "{:.3f}"), fdiff,
                      ms([runs[f]["mean_seeds_in_top10"] for f in seeds], "{:.2f}"),
                      lost_counts([runs[f] for f in seeds]),
                      ms([runs[f]["perplexity"] for f in seeds], "{:.1f}"), ms([runs[f]["npmi"] for f in seeds], "{:.3f}")])
    return common.md_table(["system", "fit seeds", "mean capture", "topicvb seeded minus this (mean ± s.e.)",
                            "mean precision", "mean F1", "F1: topicvb seeded minus this", "seed words in top 10",
                            "fits with a seeded topic that lost its seeds", "held-out perplexity", "NPMI"], table)


def lost_counts(runs):
    """'n of N (label: times, ...)' for the runs that record lost seeded topics, else ''."""
    if not all("lost" in r for r in runs):
        return ""
    labels = {}
    for r in runs:
        for label in r["lost"]:
            labels[label] = labels.get(label, 0) + 1
    n = sum(1 for r in runs if r["lost"])
    return f"{n} of {len(runs)}" + (f" ({', '.join(f'{k}: {v}' for k, v in labels.items())})" if labels else "")


def write(rows, args, prior, labels_ok, extra=()):
    labels = list(SEEDS)
    head = (["system", "mean capture"] + labels + ["mean precision", "mean F1", "seed words in top 10",
                                                    "seeded topics that lost their seeds", "held-out perplexity",
                                                    "NPMI", "fit s"])
    table = []
    for r in rows:
        table.append([r["system"], f"{r['mean_capture']:.3f}"]
                     + [f"{r['capture'][lb]:.3f} / {r['precision'][lb]:.2f}" for lb in labels]
                     + [f"{r['mean_precision']:.3f}", f"{r['mean_f1']:.3f}", f"{r['mean_seeds_in_top10']:.2f}",
                        (", ".join(r["lost"]) or "none") if "lost" in r else "",
                        f"{r['perplexity']:.1f}", f"{r['npmi']:.3f}", f"{r['seconds']:.1f}"])
    seeded, unseeded = rows[0], rows[1]
    lines = [
        "# Guided topics on 20 Newsgroups (issue #21)" + ("" if args.seed_set == "groups"
                                                         else f": seed set {args.seed_set!r}"), "",
        f"Command: `python benchmarks/bench_guided.py{'' if args.seed_confidence is None else f' --seed-confidence {args.seed_confidence}'}"
        f"{'' if args.fit_seeds == [0] else ' --fit-seeds ' + ' '.join(map(str, args.fit_seeds))}"
        f"{'' if args.seed_set == 'groups' else ' --seed-set ' + args.seed_set}"
        f"{'' if args.k == 20 else f' --k {args.k}'}`",
        f"({common.machine_line()}). K = {K}; seeds (label: newsgroup, words): "
        + "; ".join(f"{lb}: {g}, {', '.join(ws)}" for lb, (g, ws) in SEEDS.items()) + ".",
        f"Prior: `seed_topic_prior(vocabulary, seeds, {K}"
        f"{'' if args.seed_confidence is None else f', seed_confidence={args.seed_confidence}'})`: {prior!r}.",
        "", common.md_table(head, table), "",
        f"Seeded topics keep their labels: {all(labels_ok)}. Held-out perplexity seeded / unseeded: "
        f"{seeded['perplexity'] / unseeded['perplexity']:.4f}.",
        "Capture: the share of a group's test documents whose largest topic is the group's seeded topic "
        "(unseeded: the group's best topic, chosen after the fact). Per group: capture / precision, the share of "
        "the test documents whose largest topic is that topic that belong to the group (how pure a topic the group "
        "got). F1: their harmonic mean, per group, averaged over the groups.",
    ]
    if extra:
        lines += ["", f"The table above is fit seed {args.fit_seeds[0]}. Means ± standard deviation over fit seeds "
                  f"{', '.join(map(str, args.fit_seeds))} (`random_state` of the topicvb fits, tomotopy's `seed`; the "
                  "same document completion), and the seeded fit's capture minus each system's, paired by seed:", "",
                  seed_means(extra)]
    common.write_report("\n".join(lines) + "\n", args.out)
    args.out.with_suffix(".json").write_text(json.dumps(list(rows) + [r for r in extra if r not in rows], indent=1))


if __name__ == "__main__":
    main()
