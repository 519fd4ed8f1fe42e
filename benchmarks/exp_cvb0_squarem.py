"""Experiment (issue #18): SQUAREM on the counts-only CVB0 sweep, with fixed priors; ``--fit``: the shipped cycles.

CollapsedLDA's default fit spends most of its time in the slow tail of CVB0's fixed-point iteration (on
90,000 IMDB reviews at K = 50, 162 sweeps until the training log-likelihood changes by less than 1e-5 per
sweep). This script measures whether SQUAREM (Varadhan & Roland 2008, scheme S3; the VB E-step's
per-document acceleration, :mod:`topicvb._kernels.estep`) applied to the whole counts state shortens it.

The map F is one sweep of :func:`topicvb._kernels.cvb0_counts.counts_sweep` (``storage="counts"``, CVB0,
one undamped rebuild step: the fixed-prior setting of ``CountSweeps``) from the state (n_dk, n_wk), with the
symmetric priors alpha = eta = 1 / K held fixed. One SQUAREM cycle from theta: theta1 = F(theta),
theta2 = F(theta1), r = theta1 - theta, v = theta2 - 2 theta1 + theta, s = min(-|r| / |v|, -1),
theta' = theta - 2 s r + s^2 v; unless s = -1 (theta' = theta2), theta' is projected onto valid counts
(negative entries set to 0, each row of n_dk and n_wk scaled back to its sum in theta2: a document's length,
a term's total) and swept once, F(theta'), which is kept only when its training log-likelihood is at least
theta2's (else theta2 is). Step halving towards -1 for non-negativity instead of the projection leaves
s at about -1 (some counts are always near 0): no gain.

Reported: the training log-likelihood (``counts_log_likelihood``) after each sweep of the plain iteration,
the number of sweeps SQUAREM needs to reach it, and held-out perplexity by document completion
(``common.DocCompletion``, topics (n_wk + eta) normalised, alpha = 1 / K) at a few sweep counts.

Run from the repository root::

    python benchmarks/exp_cvb0_squarem.py --corpus 20ng --sweeps 100 --out /tmp/squarem_20ng.md
    python benchmarks/exp_cvb0_squarem.py --corpus imdb --sweeps 100 --out /tmp/squarem_imdb.md   # 90,000 reviews

``--fit`` runs whole fits of the recommended estimator (learned priors, moves, its stopping rule) with
``storage="counts"``, plain (``acceleration=None``) and with the SQUAREM cycles this study led to, which the
recommended configuration runs (``acceleration="squarem"``: :mod:`topicvb.models._squarem`, with the learned
priors' step in every sweep, the cycles from the first sweep after the prior burn-in, and convergence tested on
whole cycles)::

    python benchmarks/exp_cvb0_squarem.py --corpus 20ng --fit --out /tmp/squarem_fit_20ng.md

``--corpus imdb`` splits the 100,000 IMDB reviews as ``bench_end_to_end.py`` does (a seeded tenth held out) and
counts them with the command line's text defaults.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

MARKS = (20, 40, 60, 100, 150, 200)


def load(corpus: str, n_docs):
    if corpus == "20ng":
        m = common.load_matrices()
        return m.X_train, m.X_test, "20 Newsgroups (common.load_matrices: the training and test splits)", list(m.vocabulary)
    import bench_end_to_end as e2e
    from topicvb._cli_inputs import TEXT_DEFAULTS
    from topicvb.text import Tokenizer, Vectorizer

    root = e2e.unpack(e2e.imdb_archive(None), common.CACHE_DIR)
    train, test = e2e.split_reviews(e2e.list_reviews(root), n_docs)
    vec = Vectorizer(tokenizer=Tokenizer(stop_words=TEXT_DEFAULTS["stop_words"]), min_df=TEXT_DEFAULTS["min_df"],
                     max_df=TEXT_DEFAULTS["max_df"])
    X = vec.fit_transform(e2e.read_texts(root, train))
    return X, vec.transform(e2e.read_texts(root, test)), (f"IMDB reviews, {len(train):,} training / {len(test):,} "
                                                          "held out (bench_end_to_end.py's split)"), \
        [str(t) for t in vec.get_feature_names_out()]


class Sweeps:
    """F (one counts-only CVB0 sweep, fixed symmetric priors) and the training log-likelihood."""

    def __init__(self, X, K):
        from topicvb._kernels.cvb0 import prior_arrays
        from topicvb._kernels.cvb0_counts import SweepBuffers, fixed_point_shift

        X = sp.csr_matrix(X, dtype=np.float64)
        self.X, self.K = X, K
        self.indptr, self.indices, self.data = X.indptr.astype(np.int64), X.indices.astype(np.int32), X.data
        self.alpha = np.full(K, 1.0 / K)
        self.eta = 1.0 / K
        self.value, self.eta_t, self.eta_sum = prior_arrays(self.eta, K)
        self.shift = fixed_point_shift(float(self.data.sum()))
        self.max_cells = int(np.max(np.diff(self.indptr)))
        self.buffers = SweepBuffers()
        self.none = np.zeros((0, K))

    def start(self, seed=0):
        from topicvb.models._collapsed_start import start_counts

        n_dk, n_wk, _, _ = start_counts(self.X, np.random.RandomState(seed), self.K, np.float64, "seeded", self.eta,
                                        False)
        return n_dk, n_wk

    def __call__(self, n_dk, n_wk):
        from topicvb._kernels.cvb0_counts import counts_sweep

        n_dk, n_wk = n_dk.copy(), n_wk.copy()
        counts_sweep(self.indptr, self.indices, self.data, n_dk, self.none, n_wk, self.none, self.alpha, self.value,
                     self.eta_t, self.eta_sum, False, 1, self.shift, self.max_cells, False, 1.0, self.buffers, None,
                     None)
        return n_dk, n_wk

    def loglik(self, n_dk, n_wk):
        from topicvb._kernels.cvb0_counts import counts_log_likelihood

        return float(counts_log_likelihood(self.indptr, self.indices, self.data, n_dk, n_wk, self.alpha, self.value,
                                           self.eta_t, self.eta_sum))


def project(new, reference):
    """Negative entries to 0, each row scaled back to the row sums of ``reference`` (in place)."""
    totals = reference.sum(axis=1, keepdims=True)
    np.maximum(new, 0.0, out=new)
    got = new.sum(axis=1, keepdims=True)
    new *= np.where(got > 0, totals / np.where(got > 0, got, 1.0), 0.0)
    return new


def squarem_cycle(F, a, b):
    """One cycle from (a, b) = (n_dk, n_wk): (new state, sweeps used, step s)."""
    a1, b1 = F(a, b)
    a2, b2 = F(a1, b1)
    r2 = float(np.sum((a1 - a) ** 2) + np.sum((b1 - b) ** 2))
    v2 = float(np.sum((a2 - 2 * a1 + a) ** 2) + np.sum((b2 - 2 * b1 + b) ** 2))
    s = min(-np.sqrt(r2) / max(np.sqrt(v2), 1e-300), -1.0)
    if s == -1.0:
        return (a2, b2), 2, s
    an = project(a - 2 * s * (a1 - a) + s * s * (a2 - 2 * a1 + a), a2)
    bn = project(b - 2 * s * (b1 - b) + s * s * (b2 - 2 * b1 + b), b2)
    an, bn = F(an, bn)
    if F.loglik(an, bn) < F.loglik(a2, b2):
        return (a2, b2), 3, -1.0
    return (an, bn), 3, s


def report_head(title: str, argv) -> list[str]:
    """The first lines of a report: its title, the command that made it, the date, machine and topicvb."""
    cmd = "python benchmarks/exp_cvb0_squarem.py " + " ".join(argv if argv is not None else sys.argv[1:])
    info = common.machine_info()
    return [f"# {title}", "", f"Command: `{cmd}`  ",
            f"Date: {info['date']}; {common.machine_line()}; topicvb {info['topicvb']}", ""]


def finish(text: list[str], out) -> int:
    """Write the report to ``out`` (or print it)."""
    if out:
        common.write_report("\n".join(text), Path(out), announce=True)
    else:
        print("\n".join(text))
    return 0


def fit_mode(args, X, X_test, corpus_line, vocab, argv) -> int:
    """Whole fits of the recommended estimator with storage="counts", plain (``acceleration=None``) and with the
    shipped SQUAREM cycles (``acceleration="squarem"``, :mod:`topicvb.models._squarem`): sweeps, seconds,
    held-out perplexity (document completion) and NPMI of the top 10 words on the training documents."""
    from topicvb import CollapsedLDA
    from topicvb.evaluation import ReferenceCorpus, coherence
    from topicvb.inspection import top_words

    evaluator = common.DocCompletion(X_test)
    reference = ReferenceCorpus(X=X, vocabulary=vocab)
    rows = []
    for name in args.fits:
        est = CollapsedLDA(n_components=args.k, learn_priors=True, storage="counts", random_state=args.seed,
                           acceleration="squarem" if name == "SQUAREM" else None)
        t0 = time.perf_counter()
        est.fit(X)
        seconds = time.perf_counter() - t0
        perplexity = evaluator(est.topic_word_distribution(), np.asarray(est.doc_topic_prior_, dtype=np.float64))
        words = [[w for w, _ in t] for t in top_words(est, vocab, 10)]
        npmi = float(coherence(words, reference, measure="c_npmi").mean)
        rows.append([name, est.n_iter_, f"{seconds:.1f}", f"{perplexity:.1f}", f"{npmi:.4f}",
                     f"{float(np.mean(est.doc_topic_prior_)):.4f}", f"{float(np.mean(est.topic_word_prior_)):.4f}"])
        print(rows[-1], flush=True)
    text = report_head("SQUAREM in a whole CollapsedLDA fit (issue #18)", argv) + [
            f"Corpus: {corpus_line}: {X.shape[0]:,} documents, {X.shape[1]:,} terms, {X.nnz:,} non-zeros. "
            f"`CollapsedLDA(n_components={args.k}, learn_priors=True, storage='counts', random_state={args.seed})` "
            "to its stopping rule (tol 1e-5, max_iter 200, moves on), with `acceleration=None` (plain) and "
            "`acceleration='squarem'` (the recommended configuration's).", "",
            common.md_table(["fit", "sweeps", "seconds", "held-out perplexity", "NPMI (top 10)", "mean alpha",
                             "mean eta"], rows), ""]
    return finish(text, args.out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", choices=("20ng", "imdb"), default="20ng")
    p.add_argument("--n-docs", type=int, default=None, help="IMDB reviews used (default: all 100,000)")
    p.add_argument("--k", type=int, default=50)
    p.add_argument("--sweeps", type=int, default=100)
    p.add_argument("--out", default=None, help="markdown report (default: printed only)")
    p.add_argument("--fit", action="store_true",
                   help="whole CollapsedLDA(learn_priors=True, storage='counts') fits to their stopping rule, plain and "
                        "with acceleration=None and with the shipped SQUAREM cycles (see fit_mode)")
    p.add_argument("--fits", nargs="+", choices=("plain", "SQUAREM"), default=["plain", "SQUAREM"],
                   help="with --fit: which fits (default both)")
    p.add_argument("--seed", type=int, default=0, help="with --fit: random_state of the fits")
    args = p.parse_args(argv)
    X, X_test, corpus_line, vocab = load(args.corpus, args.n_docs)
    if args.fit:
        return fit_mode(args, X, X_test, corpus_line, vocab, argv)
    F = Sweeps(X, args.k)
    evaluator = common.DocCompletion(X_test)

    def perplexity(n_wk):
        topics = (n_wk + F.eta).T
        return evaluator(topics / topics.sum(axis=1, keepdims=True), F.alpha)

    marks = [m for m in MARKS if m <= args.sweeps]
    start = F.start()
    rows_plain, plain = [], []
    state, t0 = start, time.perf_counter()
    for i in range(1, args.sweeps + 1):
        state = F(*state)
        plain.append(F.loglik(*state))
        if i in marks:
            rows_plain.append((i, plain[-1], perplexity(state[1]), time.perf_counter() - t0))
            print(f"plain {i}: loglik {plain[-1]:.1f}, perplexity {rows_plain[-1][2]:.1f}", flush=True)
    sq, rows_sq, steps = [], [], []
    state, done, t0, next_mark = start, 0, time.perf_counter(), 0
    while done < args.sweeps:
        state, used, s = squarem_cycle(F, *state)
        done += used
        steps.append(s)
        sq.append((done, F.loglik(*state)))
        while next_mark < len(marks) and done >= marks[next_mark]:
            rows_sq.append((done, sq[-1][1], perplexity(state[1]), time.perf_counter() - t0))
            print(f"squarem {done}: loglik {sq[-1][1]:.1f}, perplexity {rows_sq[-1][2]:.1f}", flush=True)
            next_mark += 1
    reach = []
    for m in marks:
        hit = next((n for n, ll in sq if ll >= plain[m - 1]), None)
        reach.append((m, hit))
    text = report_head("SQUAREM on the counts-only CVB0 sweep (an experiment for issue #18)", argv) + [
            f"Corpus: {corpus_line}: {X.shape[0]:,} documents, {X.shape[1]:,} terms, {X.nnz:,} non-zeros. K = {args.k}, "
            f"alpha = eta = 1/K fixed, the seeded start (seed 0), one undamped rebuild step. See the script's "
            "docstring for the scheme.", "",
            "Sweeps SQUAREM needs to reach the plain iteration's training log-likelihood:", "",
            common.md_table(["plain sweeps", "SQUAREM sweeps to the same log-likelihood", "ratio"],
                            [[m, "not reached" if h is None else h, "" if h is None else f"{m / h:.2f}x"]
                             for m, h in reach]), "",
            "Held-out perplexity (document completion) and training log-likelihood:", "",
            common.md_table(["iteration", "sweeps", "training log-likelihood", "held-out perplexity", "seconds"],
                            [["plain", n, f"{ll:.1f}", f"{pp:.1f}", f"{s:.1f}"] for n, ll, pp, s in rows_plain]
                            + [["SQUAREM", n, f"{ll:.1f}", f"{pp:.1f}", f"{s:.1f}"] for n, ll, pp, s in rows_sq]), "",
            f"SQUAREM steps s of the first 30 cycles: {', '.join(f'{s:.1f}' for s in steps[:30])}.", ""]
    return finish(text, args.out)


if __name__ == "__main__":
    sys.exit(main())
