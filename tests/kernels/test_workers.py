"""The thread runner of the kernels' parallel loops (topicvb._kernels.workers)."""

import threading

import numba
import numpy as np
import pytest
from numba import njit

from topicvb._config import threads
from topicvb._kernels.workers import MIN_WORK, n_workers, run_items


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
