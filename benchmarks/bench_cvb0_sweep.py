"""Per-sweep time of CollapsedLDA's sweeps (issue #22): counts-only against stored responsibilities.

    python benchmarks/bench_cvb0_sweep.py [K]        # default K = 100

On the 20 Newsgroups training matrix (``common.load_matrices``), from the seeded start at fixed priors
1/K: the stored-responsibility sequential sweep (``cvb0.sweep``, one thread) and the counts-only sweep
(``cvb0_counts.counts_sweep``) with ``refine`` 1 on 1 and 2 threads and ``refine`` 0 on 1 thread; each
timed 3 times, interleaved, after one warm-up call; medians of wall and CPU seconds per sweep. Prints
one line per sweep kind.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def main(argv=None):
    from topicvb._config import threads
    from topicvb._kernels.cvb0 import prior_arrays, sweep
    from topicvb._kernels.cvb0_counts import counts_sweep, fixed_point_shift
    from topicvb._validation import csr_arrays
    from topicvb.models._collapsed_start import start_counts, start_responsibilities

    argv = sys.argv[1:] if argv is None else argv
    K = int(argv[0]) if argv else 100
    X = common.load_matrices(verbose=False).X_train
    indptr, indices, data = csr_arrays(X)
    alpha, eta = np.full(K, 1.0 / K), 1.0 / K
    n_dk, n_wk, v_dk, v_wk = start_counts(X, np.random.RandomState(0), K, np.float64, "seeded", eta, False)
    shift, max_cells = fixed_point_shift(data.sum()), int(np.diff(indptr).max())
    gamma = start_responsibilities(X, np.random.RandomState(0), K, np.float64, "seeded", eta)
    stored_dk, stored_wk, empty = n_dk.copy(), n_wk.copy(), np.zeros((0, K))

    def stored():
        sweep(indptr, indices, data, gamma, stored_dk, stored_wk, stored_wk.sum(axis=0), empty, empty, np.zeros(K),
              alpha, eta, False)

    def counts(refine, n_jobs):
        def run():
            with threads(n_jobs):
                counts_sweep(indptr, indices, data, n_dk, v_dk, n_wk, v_wk, alpha, *prior_arrays(eta, K), False,
                             refine, shift, max_cells)
        return run

    fns = {"stored, sequential, 1 thread": stored, "counts, refine 1, 1 thread": counts(1, 1),
           "counts, refine 1, 2 threads": counts(1, 2), "counts, refine 0, 1 thread": counts(0, 1)}
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    for _ in range(3):
        for name, fn in fns.items():
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t0, time.process_time() - c0))
    print(f"20 Newsgroups, K = {K} ({common.machine_line()})")
    for name, values in times.items():
        print(f"{name}: wall {np.median([w for w, _ in values]):.3f} s, CPU {np.median([c for _, c in values]):.3f} s")


if __name__ == "__main__":
    main()
