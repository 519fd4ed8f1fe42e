"""Vector leaves shared by the kernels: a dot product and an axpy over the topic axis (singly and four
rows at a time), and the two products of a document's topic-major block with a vector that the VB
E-step makes.

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
def matvec_t(block, x, rows, n_rows, n, out):
    """out[i] = sum_j x[k_j] * block[k_j, i] for i < n over the rows k_j = rows[j], j < n_rows.

    block (K, >= n) topic-major, x (K,), rows int64 (>= n_rows,), out (>= n,). Four rows per pass
    over out, the inner loop over i (contiguous): no horizontal sums.
    """
    j = 0
    if n_rows >= 4:
        k0, k1, k2, k3 = rows[0], rows[1], rows[2], rows[3]
        a0, a1, a2, a3 = x[k0], x[k1], x[k2], x[k3]
        b0, b1, b2, b3 = block[k0], block[k1], block[k2], block[k3]
        for i in range(n):
            out[i] = (a0 * b0[i] + a1 * b1[i]) + (a2 * b2[i] + a3 * b3[i])
        j = 4
    else:
        for i in range(n):
            out[i] = 0.0
    while j + 4 <= n_rows:
        k0, k1, k2, k3 = rows[j], rows[j + 1], rows[j + 2], rows[j + 3]
        a0, a1, a2, a3 = x[k0], x[k1], x[k2], x[k3]
        b0, b1, b2, b3 = block[k0], block[k1], block[k2], block[k3]
        for i in range(n):
            out[i] += (a0 * b0[i] + a1 * b1[i]) + (a2 * b2[i] + a3 * b3[i])
        j += 4
    while j < n_rows:
        a0 = x[rows[j]]
        b0 = block[rows[j]]
        for i in range(n):
            out[i] += a0 * b0[i]
        j += 1


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def matvec_add(block, r, rows, n_rows, n, out):
    """out[k_j] += sum_{i<n} block[k_j, i] * r[i] for the rows k_j = rows[j], j < n_rows.

    block (K, >= n) topic-major, r (>= n,), rows int64 (>= n_rows,), out (K,). Four rows per pass
    over r (float64 accumulators).
    """
    j = 0
    while j + 4 <= n_rows:
        k0, k1, k2, k3 = rows[j], rows[j + 1], rows[j + 2], rows[j + 3]
        b0, b1, b2, b3 = block[k0], block[k1], block[k2], block[k3]
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        for i in range(n):
            ri = r[i]
            s0 += b0[i] * ri
            s1 += b1[i] * ri
            s2 += b2[i] * ri
            s3 += b3[i] * ri
        out[k0] += s0
        out[k1] += s1
        out[k2] += s2
        out[k3] += s3
        j += 4
    while j < n_rows:
        b0 = block[rows[j]]
        s0 = 0.0
        for i in range(n):
            s0 += b0[i] * r[i]
        out[rows[j]] += s0
        j += 1


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def dot4(a, b0, b1, b2, b3):
    """(a . b0, a . b1, a . b2, a . b3) for 1-D float arrays of equal length, in one pass over a
    (float64 accumulators): four rows gathered at once keep four memory streams in flight."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    for k in range(a.shape[0]):
        x = a[k]
        s0 += x * b0[k]
        s1 += x * b1[k]
        s2 += x * b2[k]
        s3 += x * b3[k]
    return s0, s1, s2, s3


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def axpy4(acc, x0, x1, x2, x3, r0, r1, r2, r3):
    """acc[k] += r0 x0[k] + r1 x1[k] + r2 x2[k] + r3 x3[k] in place: one load and store of acc for
    four rows."""
    for k in range(acc.shape[0]):
        acc[k] += (x0[k] * r0 + x1[k] * r1) + (x2[k] * r2 + x3[k] * r3)
