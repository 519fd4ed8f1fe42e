"""Numba and threading settings shared by every kernel.

Every kernel is decorated with ``@njit(cache=True, ...)`` written out in full at its definition
(rather than through a preset dictionary) so a reader, and a grep, sees at once that it is cached.
The on-disk cache follows numba's own ``NUMBA_CACHE_DIR`` when the package folder is read-only.

Thread counts: estimators take ``n_jobs``; :func:`n_threads` turns it into a thread count and
:func:`threads` sets numba's count for the duration of a kernel call.
"""

from __future__ import annotations

import contextlib
import functools
import numbers
import threading


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



_LOCAL = threading.local()


@contextlib.contextmanager
def quiet_convergence():
    """In this thread, topicvb's fits do not warn that they reached ``max_iter`` (``ConvergenceWarning``): for the
    callers that cap ``max_iter`` on purpose (``perplexity_trace``) or fit many candidates (``select_n_topics``).
    Unlike ``warnings.catch_warnings``, which swaps the process-wide filter list, it leaves every other thread's
    warnings, and the filters, alone."""
    before = getattr(_LOCAL, "quiet_convergence", False)
    _LOCAL.quiet_convergence = True
    try:
        yield
    finally:
        _LOCAL.quiet_convergence = before


def convergence_warnings_wanted() -> bool:
    """False inside :func:`quiet_convergence` (in this thread)."""
    return not getattr(_LOCAL, "quiet_convergence", False)


_DEFAULT_L2_BYTES = 1 << 20


def _parse_cache_size(text: str) -> int | None:
    """'2048K' / '1M' / '524288' (the format of Linux's sysfs cache ``size`` files) in bytes."""
    text = text.strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in "KMG" else text
    return int(digits) * scale if digits.isdigit() and int(digits) > 0 else None


@functools.lru_cache(maxsize=None)
def l2_cache_bytes() -> int:
    """Size of one core's level-2 data cache, read from Linux's sysfs; 1 MiB where it cannot be read.

    Cached-blocking kernels (the PLSA sweeps) size their blocks from it; a wrong guess costs speed,
    never correctness.
    """
    from pathlib import Path

    root = Path("/sys/devices/system/cpu/cpu0/cache")
    try:
        for entry in sorted(root.glob("index*")):
            if (entry / "level").read_text().strip() == "2" and \
                    (entry / "type").read_text().strip() in ("Data", "Unified"):
                size = _parse_cache_size((entry / "size").read_text())
                if size:
                    return size
    except (OSError, ValueError):
        pass
    return _DEFAULT_L2_BYTES


def block_rows(n_cols: int, itemsize: int) -> int:
    """Rows of an (n, n_cols) array of the given itemsize that fill half of a core's L2 cache (at least 16)."""
    return max(16, (l2_cache_bytes() // 2) // max(1, n_cols * itemsize))


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library is not glibc."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def return_free_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc ``malloc_trim(0)``; nothing elsewhere).

    NumPy arrays of a few MB come from the C heap once an array of that size has been freed (glibc raises
    its threshold for memory-mapped blocks), and freed heap pages stay in the process's resident set. A
    fit that holds little between phases with large temporaries (CollapsedLDA with ``storage="counts"``:
    the start, a move's proposal) calls this at their ends, so that the next phase's arrays are not added
    on top of pages nothing uses. A few milliseconds; changes no result."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
