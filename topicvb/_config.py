"""Numba and threading settings shared by every kernel.

Every kernel is decorated with ``@njit(cache=True, ...)`` written out in full at its definition
(rather than through a preset dictionary) so a reader, and a grep, sees at once that it is cached.
The on-disk cache follows numba's own ``NUMBA_CACHE_DIR`` when the package folder is read-only.

Thread counts: estimators take ``n_jobs``; :func:`n_threads` turns it into a thread count and
:func:`threads` sets numba's count for the duration of a kernel call.
"""

from __future__ import annotations

import contextlib
import numbers


def available_threads() -> int:
    """Number of threads numba may use in this process (NUMBA_NUM_THREADS, usually the cores)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def n_threads(n_jobs) -> int:
    """Resolve an ``n_jobs`` parameter to a thread count for numba kernels.

    ``None`` and ``-1`` mean every available core, a positive integer that many threads (capped at
    the available ones), and ``-2`` all but one, as in joblib.
    """
    avail = available_threads()
    if n_jobs is None:
        return avail
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}.")
    if n_jobs < 0:
        return max(1, avail + 1 + int(n_jobs))
    return min(int(n_jobs), avail)


@contextlib.contextmanager
def threads(n_jobs):
    """Run the enclosed kernel calls with ``n_threads(n_jobs)`` numba threads."""
    import numba

    wanted = n_threads(n_jobs)
    previous = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)

