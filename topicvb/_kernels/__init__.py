"""Numba kernels: NumPy arrays in, NumPy arrays out, no Python objects inside.

One module per algorithm (``estep`` for batch/online VB LDA, ``plsa``, ``cvb0``), plus the
shared pieces ``special`` (digamma, lgamma), ``sparse`` (CSR column passes) and ``bounds``.
Only numpy, numba and math are imported here; validation happens before a kernel is called.

Parallel loops are not ``prange`` (no kernel is compiled with ``parallel=True``, whose compile time
was a large share of a cold first fit): a kernel that works on independent work items takes
``worker, workers`` and handles its share of the items, a contiguous range, and ``workers.run_items``
calls it from ``n_jobs`` threads (it is compiled ``nogil``). Document loops use work items of about
64 documents (each item owns its scratch buffers). Item ``c`` of ``n`` holds the documents ``c, c + n,
c + 2n, ...`` (strided), not a contiguous block: corpora are often sorted (by newsgroup, by source),
and with contiguous blocks split among threads in contiguous ranges, one thread of two had 1.58 times
the E-step work of the other on 20 Newsgroups; strided items put 1.03 times (measured from the
per-document update counts of a fitted BatchLDA). Every item is computed on its own by one thread, so
the assignment changes no result. Fixed shares still leave one thread waiting for the other when the two
run at different speeds (a core shared with other work: on a 2-core virtual machine one thread of two
was idle for a fifth of the E-step and a sixth of the counts sweep), so the kernels on the fits' main
paths have the threads claim small units of items as they go (``workers.run_claimed``, and
``workers.run_units`` for an unchanged work-item kernel without scratch per thread); the same items are
computed as before, so the results are the same.

The functions called from Python are few per estimator (``topicvb._jit.KERNELS`` lists them), and the
ones that only allocate arrays and call a kernel are plain Python (``estep.e_step``,
``bounds.topic_terms``, ...): a compiled wrapper would hold, and on its first compilation re-optimise,
a second copy of everything it calls. Flags that select a code path at compile time are passed as
None or a value (``estep``'s ``plain``), so a fit compiles only the path it takes; flags passed as
literal constants (``True``, ``0``) would compile the callee once per value, so they are runtime
values. ``benchmarks/bench_coldstart.py`` measures the first-run cost.

Two departures from the plain ``@njit(cache=True)`` preset, each limited to arithmetic leaves and
each measured (``benchmarks/bench_models.py``, ``BENCHMARKS.md``):

* ``vec.dot``, ``vec.axpy``, ``vec.dot4``, ``vec.axpy4``, ``vec.matvec_t`` and ``vec.matvec_add`` (the
  inner loops of PLSA, the seeding and the E-step) use ``fastmath``
  with only the ``reassoc`` and ``contract`` flags, so LLVM vectorises the reduction; NaN/Inf
  semantics are untouched. Results stay deterministic and independent of the thread count, but the
  last bits follow the CPU's vector width (and, for PLSA's cache-blocked ``plsa.sweep``, the size of
  the L2 cache, which sets where its groups of four entries restart).
* Loops that evaluate digamma, lgamma or exp over many values (``special.digamma_row``,
  ``special.dirichlet_expectation_row``, ``special.lgamma_sum``, ``estep._theta_row``,
  ``bounds.exp_shifted_row``, ``bounds.rescaled_exp_block``, ``bounds._topic_block``) compile with
  ``error_model="numpy"``: numba then omits its ZeroDivisionError checks, which otherwise keep the
  loops scalar. Their divisors are positive by construction, and their results are bit for bit
  those of the scalar ``special.digamma`` and ``bounds.exp_nonpositive`` (tested).

Developers: numba's on-disk cache (``cache=True``) checks only the source file of the function it
holds. A kernel that calls one from another module (``estep`` and ``plsa`` call
``vec.dot``, for example) keeps its cached copy of the old callee after the callee's
file changes, so after editing a kernel delete ``topicvb/_kernels/__pycache__/*.nbi`` and ``*.nbc``
(benchmarks here always ran on a cleared cache). An installed package is not affected: installing
gives every file a new timestamp, which invalidates the whole cache.
"""
