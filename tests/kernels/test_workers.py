"""The thread runner of the kernels' parallel loops (topicvb._kernels.workers)."""

import threading
import time

import numba
import numpy as np
import pytest
from numba import njit

from topicvb._config import threads
from topicvb._kernels.workers import (MIN_UNIT_ITEMS, MIN_WORK, UNIT_WORK, UNITS_PER_THREAD, n_workers, run_claimed,
                                      run_items, run_units, unit_count, unit_starts)


@njit(nogil=True)
def _mark(worker, workers, n_items, seen, owner, tag):  # a work-item kernel as the package writes them
    for i in range(worker * n_items // workers, (worker + 1) * n_items // workers):
        seen[i] += 1
        owner[i] = tag + worker


def _run(n_items, n_jobs):
    seen = np.zeros(n_items, dtype=np.int64)
    owner = np.full(n_items, -1, dtype=np.int64)
    with threads(n_jobs):
        run_items(_mark, n_items, n_items, seen, owner, 100)
    return seen, owner


@pytest.mark.parametrize("n_items", [0, 1, 5, 64])
def test_every_item_is_run_once_for_any_thread_count(n_items):
    for n_jobs in (1, -1):
        seen, owner = _run(n_items, n_jobs)
        np.testing.assert_array_equal(seen, np.ones(n_items, dtype=np.int64))
        assert np.all(owner >= 100)


def test_each_thread_gets_a_contiguous_share():
    n = min(2, numba.config.NUMBA_NUM_THREADS)
    if n < 2:
        pytest.skip("one numba thread only")
    _, owner = _run(7, 2)
    np.testing.assert_array_equal(owner, 100 + np.array([0, 0, 0, 1, 1, 1, 1]))  # items 0-2 and 3-6


def test_thread_count_follows_numba_and_the_items():
    with threads(1):
        assert n_workers(100) == 1
    with threads(-1):
        assert n_workers(1) == 1
        assert n_workers(0) == 1
        assert n_workers(100) == numba.config.NUMBA_NUM_THREADS
        assert n_workers(100, work=MIN_WORK - 1) == 1  # a small call stays on this thread
        assert n_workers(100, work=1e12) == numba.config.NUMBA_NUM_THREADS


def test_a_kernel_error_is_raised_in_the_caller_after_all_threads_end():
    done = []

    def kernel(worker, workers, n):
        if worker == 0:
            raise RuntimeError("item 0 failed")
        done.append(threading.get_ident())

    class Fake:  # run_items compiles first when a numba kernel has no overloads; a Python stand-in has some
        overloads = {None: None}

        def __call__(self, *args):
            return kernel(*args)

    with threads(-1), pytest.raises(RuntimeError, match="item 0 failed"):
        run_items(Fake(), 4, 4)
    assert len(done) == n_workers(4) - 1  # the other threads ran to the end before the error came back


class _Claims:
    """A Python stand-in for a claimed-unit kernel (run_claimed compiles a numba kernel that has no overloads
    yet; this one has some): records (slot, first, stop) of every call; ``slow`` slots sleep per unit."""

    overloads = {None: None}

    def __init__(self, slow=(), fail_at=None, sleep=0.05):
        self.calls, self.slow, self.fail_at, self.sleep = [], set(slow), fail_at, sleep
        self.lock = threading.Lock()

    def __call__(self, slot, first, stop, tag):
        assert tag == "args"
        for unit in range(first, stop):
            if unit == self.fail_at:
                raise RuntimeError(f"unit {unit} failed")
            if slot in self.slow:
                time.sleep(self.sleep)
            with self.lock:
                self.calls.append((slot, unit))


@pytest.mark.parametrize("n_units", [0, 1, 5, 64])
def test_claimed_units_are_each_run_once_for_any_thread_count(n_units):
    for workers in (1, 2, 3):
        kernel = _Claims()
        run_claimed(kernel, n_units, "args", workers=workers)
        assert sorted(unit for _, unit in kernel.calls) == list(range(n_units))
        assert {slot for slot, _ in kernel.calls} <= set(range(workers))


def test_one_thread_runs_every_unit_in_one_call():
    calls = []

    @njit(nogil=True)
    def kernel(slot, first, stop, seen):
        for u in range(first, stop):
            seen[u] += 1

    seen = np.zeros(9, dtype=np.int64)
    run_claimed(lambda *a: calls.append(a[:3]) or kernel(*a), 9, seen, workers=1)
    assert calls == [(0, 0, 9)]
    np.testing.assert_array_equal(seen, np.ones(9, dtype=np.int64))


def test_a_slow_thread_takes_fewer_units():
    """The point of claiming: a thread slowed down (here: sleeping 50 ms a unit) leaves the units to the others
    instead of holding a fixed share of them."""
    kernel = _Claims(slow={1})
    run_claimed(kernel, 20, "args", workers=2)
    per_slot = [sum(1 for slot, _ in kernel.calls if slot == s) for s in (0, 1)]
    assert sum(per_slot) == 20 and per_slot[0] > per_slot[1], per_slot


def test_a_claimed_unit_error_is_raised_and_stops_the_claims():
    kernel = _Claims(slow={0, 1, 2}, fail_at=3, sleep=0.002)
    with pytest.raises(RuntimeError, match="unit 3 failed"):
        run_claimed(kernel, 1000, "args", workers=3)
    assert len(kernel.calls) < 100  # (the other threads took a unit or so more, not the remaining 996)


@pytest.mark.parametrize("n_items", [0, 1, 5, 64, 1000])
def test_run_units_runs_every_item_once_in_units_of_consecutive_items(n_items):
    """A work-item kernel unchanged, its items claimed in units: every item once, and each call of the kernel
    (one unit: its share as the unit-th of n_units workers) a contiguous range of them."""
    for n_jobs in (1, -1):
        seen = np.zeros(n_items, dtype=np.int64)
        owner = np.full(n_items, -1, dtype=np.int64)
        with threads(n_jobs):
            n = n_workers(n_items)
            run_units(_mark, n_items, n_items, seen, owner, 0)
        np.testing.assert_array_equal(seen, np.ones(n_items, dtype=np.int64))
        n_units = min(UNITS_PER_THREAD * n, n_items // MIN_UNIT_ITEMS)
        if n == 1 or n_units <= n:  # one thread or few items: run_items's fixed shares, one per thread
            n_units = min(n, n_items)
        assert sorted(set(owner.tolist())) == list(range(n_units))
        assert np.all(np.diff(owner) >= 0)  # unit u holds items u * n // n_units .. (u + 1) * n // n_units - 1
        if n_items == 1000 and n > 1:
            assert n_units == UNITS_PER_THREAD * n  # (claimed units, not fixed shares)


def test_run_units_keeps_fixed_shares_for_a_small_call():
    """Claiming costs a few microseconds a unit: a call with little work (here twice UNIT_WORK) runs as run_items
    does, one contiguous share per thread."""
    seen = np.zeros(1000, dtype=np.int64)
    owner = np.full(1000, -1, dtype=np.int64)
    with threads(-1):
        n = n_workers(1000, work=2 * UNIT_WORK)
        run_units(_mark, 1000, 1000, seen, owner, 0, work=2 * UNIT_WORK)
    np.testing.assert_array_equal(seen, np.ones(1000, dtype=np.int64))
    assert sorted(set(owner.tolist())) == list(range(n)) and np.all(np.diff(owner) >= 0)
    if n > 1:
        assert unit_count(1000, n, 2 * UNIT_WORK) <= n < unit_count(1000, n)


@pytest.mark.parametrize("n_items, n_threads, work", [(1, 2, None), (3, 2, None), (50, 2, 1e3), (1000, 2, None),
                                                      (1000, 2, 20 * UNIT_WORK), (1000, 1, None)])
def test_unit_starts_cut_the_items_into_consecutive_units(n_items, n_threads, work):
    starts = unit_starts(n_items, n_threads, work)
    n_units = starts.shape[0] - 1
    assert starts[0] == 0 and starts[-1] == n_items and np.all(np.diff(starts) >= 1)  # no empty unit
    assert min(n_items, n_threads) <= n_units <= max(n_threads, unit_count(n_items, n_threads, work))


def test_a_pool_taken_by_one_call_still_runs_after_another_call_replaced_it(monkeypatch):
    """A call that needs more threads replaces the shared pool; a call in another thread that had just taken the
    old one must still be able to submit to it (it was shut down: concurrent transforms on machines of three or
    more cores raised "cannot schedule new futures after shutdown")."""
    from topicvb._kernels import workers

    monkeypatch.setattr(workers, "_pool", None)
    monkeypatch.setattr(workers, "_pool_size", 0)
    small = workers._helpers(1)
    large = workers._helpers(4)
    assert large is not small
    assert small.submit(lambda: 42).result(timeout=10) == 42
    assert workers._helpers(2) is large  # (large enough: kept)


def test_calls_from_many_threads_with_different_thread_counts_all_run():
    """Concurrent run_items / run_claimed calls asking for 2 to 8 threads, the shared pool replaced as they grow:
    every item of every call runs once, no call fails."""
    import sys

    from topicvb._kernels import workers

    errors, results = [], {}

    def kernel(worker, n, out):
        out[worker::n] += 1

    def unit(slot, first, stop, out):
        out[first:stop] += 1

    def call(i):
        try:
            for rep in range(20):
                n = 2 + (i + rep) % 7
                a, b = np.zeros(50), np.zeros(30)
                workers.run_items(kernel, 50, a, workers=n)
                workers.run_claimed(unit, 30, b, workers=n)
                results[i, rep] = bool(np.all(a == 1) and np.all(b == 1))
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion below
            errors.append(repr(exc))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (thread switches between taking the pool and submitting to it)
    try:
        for _ in range(3):
            workers._pool, workers._pool_size = None, 0  # (each round grows the pool again from nothing)
            threads_ = [threading.Thread(target=call, args=(i,)) for i in range(8)]
            for t in threads_:
                t.start()
            for t in threads_:
                t.join(timeout=60)
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[:3]
    assert len(results) == 8 * 20 and all(results.values())
