"""Run a serial kernel's work items on several threads: the parallel loops of the kernels.

A kernel that works on independent items (chunks of documents, blocks of terms) takes ``worker`` and
``workers`` as its first two arguments and handles the items of its share: items
``worker * n // workers`` to ``(worker + 1) * n // workers`` (excluded) of the n, a contiguous range,
as numba's ``prange`` split them. :func:`run_items` calls it once per thread with ``worker = 0, 1, ...,
workers - 1``. The kernels are compiled with ``nogil=True``, so the threads run at once. A kernel's
per-thread scratch is indexed by ``worker``; per-item scratch rows of neighbouring items belong to the
same thread, except at the ends of the shares (items written by different threads next to each other
in memory would share cache lines).

Why not numba's ``parallel=True``: a ``prange`` loop costs compile time on every first run (numba
analyses the function for parallelism and compiles the loop body a second time, as a separate
function holding every kernel it calls), a cost that grows with the size of the loop body: for the VB
E-step it was a quarter of a cold first fit (``benchmarks/bench_coldstart.py``). A plain
compiled function called from a few threads does the same work with the compile cost of the serial
kernel only. Each item is computed on its own by one thread, in a fixed order, so results do not
depend on the number of threads, as with ``prange``.

The work-item kernels are compiled with ``error_model="numpy"`` and ``_nrt=False``, as numba compiled
the body of a ``prange`` loop: no ZeroDivisionError checks in the loops, and no reference counting of
the array views made in them (rows of 2-D arrays; with reference counting, each costs two atomic
updates, which made the PLSA sweep 2.8 times slower). They therefore allocate no arrays: their
scratch comes from the caller (numba's ``_nrt`` option is not documented; numba's developers
suggest it for this purpose, numba/numba#2345).

The thread count is numba's (``numba.get_num_threads()``), which ``topicvb._config.threads`` sets
from an estimator's ``n_jobs`` around its kernel calls.

Fixed shares leave the faster thread idle at the end when the threads run at different speeds (another
process on one core, a virtual machine's cores; measured on this project's 2-core VM: one thread of two
idle for 13-32% of the E-step, the counts sweep and the column passes). :func:`run_claimed` has the
threads claim units of items one at a time instead (the kernel takes ``slot, first, stop``: its thread's
scratch and a range of units), and :func:`run_units` does the same for an unchanged work-item kernel that
keeps no scratch per thread (each unit is its share as one of ``n_units`` workers).
"""

from __future__ import annotations

import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_pid = 0


MIN_WORK = 200_000  # about 0.1 ms of arithmetic: less than this per thread, a helper costs more than it saves


def n_workers(n_items: int, work: float | None = None) -> int:
    """Threads to use for ``n_items`` items: numba's thread count for this thread, at most one per item and,
    when the call's ``work`` is given (an estimate of its multiply-adds), at most one per MIN_WORK of it.

    Handing items to a helper thread and collecting them costs some 20-50 microseconds (the pool's threads
    sleep between calls, where numba's OpenMP threads spun); small calls, many times per pass of an online
    fit over small mini-batches, are faster on one thread. The count changes no result.
    """
    n = min(int(numba.get_num_threads()), int(n_items))
    if work is not None:
        n = min(n, int(work // MIN_WORK))
    return max(1, n)


def _helpers(n: int) -> ThreadPoolExecutor:
    """A pool of at least ``n`` threads, kept between calls (a new pool per call cost about 0.5 ms, many
    times per pass of an online fit over small mini-batches); a new one after a fork."""
    global _pool, _pool_size, _pool_pid
    with _lock:
        if _pool is None or _pool_size < n or _pool_pid != os.getpid():
            # The pool it replaces is not shut down: a call in another thread may just have taken it and not yet
            # submitted its work, which a shut-down pool refuses ("cannot schedule new futures after shutdown":
            # concurrent transforms crashed). Unreferenced, its idle threads end when it is garbage-collected.
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="topicvb-kernel")
            _pool_size, _pool_pid = n, os.getpid()
        return _pool


def run_items(kernel, n_items: int, *args, workers: int | None = None, work: float | None = None) -> None:
    """``kernel(worker, n, *args)`` for worker = 0..n-1 on n threads (this one included).

    ``n = workers`` (a caller that sizes per-thread scratch by :func:`n_workers` passes it), by default
    ``n_workers(n_items, work)``; with one thread the kernel runs here, with no pool. A
    kernel not yet used in this process is compiled (or loaded from numba's cache) here first, so that
    compilation happens in the calling thread (where ``topicvb._jit`` watches for it). An exception
    raised by any call is raised here, after every thread has finished.
    """
    n = n_workers(n_items, work) if workers is None else max(1, int(workers))
    if n == 1:
        kernel(0, 1, *args)
        return
    if not getattr(kernel, "overloads", True):  # first use in this process: compile (or load) it here, not in
        kernel.compile(tuple(kernel.typeof_pyval(a) for a in (0, n, *args)))  # a worker (NUMBA_DISABLE_JIT: no)
    pool, futures = _helpers(n - 1), []
    try:  # (submitted inside: if a submission fails, those already made are waited for, not left running)
        for worker in range(1, n):
            futures.append(pool.submit(kernel, worker, n, *args))
        kernel(0, n, *args)
    finally:
        for f in futures:
            f.result()


def run_claimed(kernel, n_units: int, *args, workers: int) -> None:
    """``kernel(slot, first, stop, *args)`` over the units ``0 .. n_units - 1``, on ``workers`` threads (this one
    included), the units claimed one at a time: a thread that finishes its unit takes the next one left, so
    threads that run at different speeds (a core shared with other work, documents of uneven cost) end
    together, where :func:`run_items`'s fixed shares leave the faster one idle. ``slot`` is the thread's
    index (0 .. workers - 1, for its scratch); the kernel handles units ``first`` to ``stop - 1``. With one
    thread (or one unit) the kernel runs here once, on every unit. Which thread takes which unit varies from
    run to run, so a kernel must make its results independent of that: outputs per unit, or per-thread sums
    that are exact in any order (integers). An exception raised by any call is raised here, after every
    thread has finished."""
    n = max(1, min(int(workers), int(n_units)))
    if n == 1:
        kernel(0, 0, n_units, *args)
        return
    if not getattr(kernel, "overloads", True):  # first use in this process: compile (or load) it here (see run_items)
        kernel.compile(tuple(kernel.typeof_pyval(a) for a in (0, 0, n_units, *args)))
    claims = itertools.count()  # (next() on it is atomic: the threads never take the same unit)
    stop = []  # (set when a thread fails or this one is interrupted: the others take no further unit)

    def take(slot):
        try:
            while not stop and (unit := next(claims)) < n_units:
                kernel(slot, unit, unit + 1, *args)
        except BaseException:
            stop.append(True)
            raise

    pool, futures = _helpers(n - 1), []
    try:
        for slot in range(1, n):
            futures.append(pool.submit(take, slot))
        take(0)
    except BaseException:
        stop.append(True)  # (the threads already started take no further unit)
        raise
    finally:
        for f in futures:
            f.result()


UNITS_PER_THREAD = 16  # units per thread of run_units: small enough to even out threads of different speeds
# items per unit at least: units of single items would put neighbouring items' scratch rows (which may share a
# cache line) on different threads, and a claim costs as much as a small item (OnlineLDA's mini-batches)
MIN_UNIT_ITEMS = 4
UNIT_WORK = 4_000_000  # multiply-adds of a unit at least (a few milliseconds: a claim costs some microseconds)


def unit_count(n_items: int, n_threads: int, work: float | None = None) -> int:
    """Units to cut ``n_items`` items into for ``n_threads`` threads that claim them: up to UNITS_PER_THREAD per
    thread, each of at least MIN_UNIT_ITEMS items and (when the call's ``work`` is given) UNIT_WORK of it. At most
    ``n_threads`` means: keep one fixed share per thread (too little work for claiming to pay)."""
    n_units = min(UNITS_PER_THREAD * int(n_threads), int(n_items) // MIN_UNIT_ITEMS)
    if work is not None:
        n_units = min(n_units, int(work // UNIT_WORK))
    return max(0, n_units)


def unit_starts(n_items: int, n_threads: int, work: float | None = None):
    """The first item of each unit and the end, ``[0, ..., n_items]`` (int64), for a kernel whose threads claim
    units of consecutive items (:func:`run_claimed`): :func:`unit_count` units, but at least one per thread (a
    call with little work: one contiguous share each) and at most one per item."""
    import numpy as np  # (here, as numba: importing this module stays light)

    n_units = max(1, min(int(n_items), max(int(n_threads), unit_count(n_items, n_threads, work))))
    return np.arange(n_units + 1, dtype=np.int64) * int(n_items) // n_units


def run_units(kernel, n_items: int, *args, workers: int | None = None, work: float | None = None) -> None:
    """:func:`run_items` with the items claimed as they go: for a work-item kernel that keeps no scratch per
    thread (``worker`` only finds its share; its outputs are per item). The items are cut into up to
    UNITS_PER_THREAD units per thread of consecutive items (:func:`unit_count`; a call with too little work for
    that keeps run_items's fixed shares); ``kernel(unit, n_units, *args)`` handles one unit (its
    share, as if there were ``n_units`` workers), and the threads take the units one at a time
    (:func:`run_claimed`), so that a thread slowed down by other work on its core does not leave the others
    waiting at the end. Each item is computed as with run_items, so the results are the same."""
    n = n_workers(n_items, work) if workers is None else max(1, int(workers))
    n_units = unit_count(n_items, n, work)
    if n == 1 or n_units <= n:  # (one thread, or little work: the fixed shares of run_items, one call per thread)
        run_items(kernel, n_items, *args, workers=n)
        return
    if not getattr(kernel, "overloads", True):  # first use in this process: compile (or load) it here (see run_items)
        kernel.compile(tuple(kernel.typeof_pyval(a) for a in (0, n_units, *args)))

    def units(slot, first, stop, *a):
        for unit in range(first, stop):
            kernel(unit, n_units, *a)

    run_claimed(units, n_units, *args, workers=n)


def _on_one_thread(fn):
    previous = numba.get_num_threads()
    numba.set_num_threads(1)  # (thread-local: this helper's own kernel calls run here, on no other thread)
    try:
        return fn()
    finally:
        numba.set_num_threads(previous)


def start_beside(fn):
    """``fn()`` started on a helper thread, its kernels' work items all on that thread (numba's thread count
    there is 1, whatever it is here); returns the Future. For work that overlaps a serial kernel running in
    this thread (a kernel compiled with ``nogil=True``): the helper uses the core the serial kernel leaves
    idle. The helper is one of :func:`run_items`'s pool; ``fn`` must not call :func:`run_items` (nor
    :func:`run_claimed`, :func:`run_units`) with more than one worker (it could wait on a pool thread that waits
    on it): numba's thread count is 1 inside it, so the kernels' own thread counts are."""
    return _helpers(1).submit(_on_one_thread, fn)
