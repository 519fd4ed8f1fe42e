"""Vector leaves shared by the kernels: a dot product and an axpy over the topic axis.

These are the only kernels compiled with ``fastmath``, and only with the ``reassoc`` and
``contract`` flags: reassociating the sum lets LLVM vectorise the reduction and fuse multiply-adds
(1.5x faster VB E-step at K = 100 on 20 Newsgroups, ``benchmarks/bench_models.py``). No flag
changes NaN/Inf or signed-zero semantics, so the callers' guards keep working; results stay
deterministic on a given machine and independent of the thread count, but the summation order
follows the CPU's vector width, so the last bits may differ between machines.
"""

from numba import njit


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def dot(a, b):
    """sum_k a[k] * b[k] for two 1-D float arrays of equal length (float64 accumulator)."""
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def axpy(acc, x, r):
    """acc[k] += r * x[k] in place (1-D float arrays of equal length, scalar r)."""
    for k in range(acc.shape[0]):
        acc[k] += x[k] * r


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def axpy2(acc, x, r, y, s):
    """acc[k] += r * x[k] + s * y[k] in place: two rows in one pass over acc."""
    for k in range(acc.shape[0]):
        acc[k] += x[k] * r + y[k] * s

