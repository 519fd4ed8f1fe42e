"""Where a PLSA iteration's time goes: the two sweeps with and without cache blocking, and the M-steps.

    python benchmarks/profile_plsa.py [--k 20 100] [--repeats 5]

On the 20 Newsgroups training matrix (``common.load_matrices``), 1 thread, fixed random theta and
phi: median seconds of the document sweep (n_dk and the log-likelihood), the term sweep (n_wk), and
the two M-step kernels, with the blocks that PLSA uses (half a core's L2 cache,
``topicvb._config.block_rows``) and with one block (no cache blocking; the same kernel and
arithmetic otherwise). Prints a markdown table; results must be equal to rounding either way.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from common import md_table  # noqa: E402


def median_seconds(fn, repeats):
    fn()  # compile / warm up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--k", type=int, nargs="+", default=[20, 100])
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)

    from topicvb._config import block_rows, l2_cache_bytes
    from topicvb._kernels.plsa import normalise_columns, normalise_rows, sweep
    from topicvb._validation import csr_arrays

    X = common.load_matrices(verbose=False).X_train
    D, V = X.shape
    indptr, indices, data = csr_arrays(X)
    Xc = X.tocsc()  # the term sweep's arrays, as PLSA builds them
    Xc.sort_indices()
    colptr, rows, col_data = Xc.indptr.astype(np.int64), Xc.indices.astype(np.int32), Xc.data
    numba.set_num_threads(1)
    table = []
    for K in args.k:
        rng = np.random.default_rng(0)
        theta = rng.dirichlet(np.ones(K), D)
        phi_t = np.ascontiguousarray(rng.dirichlet(np.ones(V), K).T)
        n_dk, n_wk = np.empty_like(theta), np.empty_like(phi_t)
        ll_d, ll_w = np.empty(D), np.empty(V)
        blocked = block_rows(K, 8)
        out = {}
        for label, b_doc, b_term in (("blocked", blocked, blocked), ("one block", V, D)):
            t_doc = median_seconds(lambda: sweep(indptr, indices, data, theta, phi_t, theta, phi_t, False, True,
                                                 b_doc, 1, n_dk, ll_d), args.repeats)
            t_term = median_seconds(lambda: sweep(colptr, rows, col_data, phi_t, theta, phi_t, theta, False, False,
                                                  b_term, 1, n_wk, ll_w), args.repeats)
            out[label] = (n_dk.copy(), n_wk.copy(), ll_d.sum())
            table.append([K, label, f"{b_doc} / {b_term}", f"{t_doc:.4f}", f"{t_term:.4f}"])
        for a, b in zip(out["blocked"], out["one block"]):
            np.testing.assert_allclose(a, b, rtol=1e-10)
        t_rows = median_seconds(lambda: normalise_rows(n_dk.copy(), np.zeros(K), np.full(K, 1.0 / K)), args.repeats)
        t_cols = median_seconds(lambda: normalise_columns(n_wk.copy(), 0.0, 1.0 / V), args.repeats)
        table.append([K, "M-steps (incl. a copy each)", "", f"{t_rows:.4f}", f"{t_cols:.4f}"])
    print(f"20 Newsgroups train {D} x {V}, {X.nnz} non-zeros; L2 per core {l2_cache_bytes() // 1024} KiB; "
          f"1 thread; medians of {args.repeats}; {common.cpu_model()}\n")
    print(md_table(["K", "variant", "rows per block (phi_t / theta)", "document sweep / normalise_rows (s)",
                    "term sweep / normalise_columns (s)"], table))


if __name__ == "__main__":
    main()
