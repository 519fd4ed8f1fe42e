"""PLSA's seeded start and EM variant: log-likelihood after 20 and 100 iterations on three corpora.

    python benchmarks/bench_plsa_start.py [--out benchmarks/results/plsa_start.md] [--k 20 100]

For each corpus (20 Newsgroups train as in ``bench_models.py``, UCI KOS, Blei's AP; a corpus whose
files are absent from the shared corpora folder is skipped with a message), each K, each weight of
the cluster centre in the seeded start of P(w | z) (``topicvb.models.plsa._CENTRE_WEIGHT``, set here
for the experiment) and each ``update`` (alternating, simultaneous): ``PLSA(K, max_iter=100, tol=0)``
for random_state 0 and 1, and the training log-likelihood per token after 20 and after 100 iterations
(``bound_history_[19]`` and ``[99]``; no priors, so it is the log-likelihood), mean of the two seeds.
No timing: 2 threads. This is the study behind the default weight 0.1 (the LDA fits use 0.5).
"""

from __future__ import annotations

import argparse
import sys
import tarfile
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import md_table  # noqa: E402

WEIGHTS = (0.5, 0.2, 0.1, 0.05, 0.03)
SEEDS = (0, 1)


def corpora(tmp: Path):
    """(name, CSR matrix) for each corpus found; prints what it skips."""
    from topicvb.datasets import find_corpora_dir, read_ldac, read_uci

    root = find_corpora_dir()
    try:
        yield "20 Newsgroups (train)", common.load_matrices(verbose=False).X_train
    except Exception as exc:  # noqa: BLE001 - a benchmark reports and goes on
        print(f"skipping 20 Newsgroups: {exc}", file=sys.stderr)
    kos = None if root is None else root / "uci-kos" / "docword.kos.txt.gz"
    if kos is not None and kos.exists():
        yield "UCI KOS", read_uci(kos).X
    else:
        print("skipping UCI KOS: uci-kos/docword.kos.txt.gz not found in the shared corpora", file=sys.stderr)
    ap = None if root is None else root / "ap-blei" / "ap.tgz"
    if ap is not None and ap.exists():
        with tarfile.open(ap) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith("ap.dat"))
            target = tmp / "ap.dat"
            target.write_bytes(tar.extractfile(member).read())
        yield "AP (Blei)", read_ldac(target).X
    else:
        print("skipping AP: ap-blei/ap.tgz not found in the shared corpora", file=sys.stderr)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--k", type=int, nargs="+", default=[20, 100])
    p.add_argument("--out", default=None, help="markdown file for the tables (default: print only)")
    args = p.parse_args(argv)

    import topicvb.models.plsa as plsa_module
    from topicvb import PLSA

    default = plsa_module._CENTRE_WEIGHT
    started = time.time()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, X in corpora(Path(tmp)):
            X = X.tocsr()
            tokens = float(X.sum())
            for K in args.k:
                for update in ("alternating", "simultaneous"):
                    at20, at100 = [], []
                    for weight in WEIGHTS:
                        plsa_module._CENTRE_WEIGHT = weight
                        h = [PLSA(K, update=update, max_iter=100, tol=0, n_jobs=2, random_state=s).fit(X).bound_history_
                             for s in SEEDS]
                        at20.append(np.mean([x[19] for x in h]) / tokens)
                        at100.append(np.mean([x[99] for x in h]) / tokens)
                    print(f"{name} K={K} {update}: done", file=sys.stderr, flush=True)
                    for label, vals in (("20", at20), ("100", at100)):
                        best = int(np.argmax(vals))
                        rows.append([name, K, update, label]
                                    + [f"**{v:.4f}**" if i == best else f"{v:.4f}" for i, v in enumerate(vals)])
    plsa_module._CENTRE_WEIGHT = default
    text = ["## PLSA: seeded-start weight and EM variant", "",
            f"Command: `python benchmarks/bench_plsa_start.py{' --out ' + args.out if args.out else ''}`; "
            f"{common.machine_info().get('date', '')}; {(time.time() - started) / 60:.1f} min.", "",
            "Training log-likelihood per token after 20 / 100 iterations, mean of random_state 0 and 1; columns: "
            "the weight of the cluster centre in the seeded start of P(w | z) (the rest is uniform); bold: the "
            f"best weight of the row. The default is {default}.", ""]
    text.append(md_table(["corpus", "K", "update", "iterations"] + [f"weight {w}" for w in WEIGHTS], rows))
    common.write_report("\n".join(text) + "\n", args.out)


if __name__ == "__main__":
    main()
