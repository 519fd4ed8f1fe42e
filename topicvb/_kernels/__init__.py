"""Numba kernels: NumPy arrays in, NumPy arrays out, no Python objects inside.

One module per algorithm (``estep`` for batch/online VB LDA, ``plsa``, ``cvb0``), plus the
shared pieces ``special`` (digamma, lgamma), ``sparse`` (CSR column passes) and ``bounds``.
Only numpy, numba and math are imported here; validation happens before a kernel is called.
"""
