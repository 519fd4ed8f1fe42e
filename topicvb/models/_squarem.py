"""SQUAREM for CollapsedLDA's counts sweeps (``storage="counts"``, CVB0; ``acceleration="squarem"``).

CVB0 is a fixed-point iteration theta <- F(theta) on the counts theta = (n_dk, n_wk), and its tail is slow:
on 90,000 IMDB reviews at K = 50 the default fit made 162 sweeps before the training log-likelihood
changed by less than ``tol`` per sweep. SQUAREM (Varadhan & Roland 2008, scheme S3; the VB E-step uses it
per document, :mod:`topicvb._kernels.doc_ascent`) extrapolates along the last two steps. One cycle from
theta0:

    theta1 = F(theta0), theta2 = F(theta1), r = theta1 - theta0, v = theta2 - 2 theta1 + theta0,
    s = min(-|r| / |v|, -1), theta' = theta0 - 2 s r + s^2 v,

and the cycle's third sweep starts from theta' (s = -1 gives theta' = theta2: a plain sweep). Counts must
stay valid: theta' is projected (:func:`extrapolate`) by setting negative entries to 0 and scaling each
row back to its sum in theta2 (a document's length, a term's total count), which the sweep preserves
anyway. The step is kept only when the training log-likelihood after the sweep from theta' is at least
theta2's; otherwise the state returns to theta2 (the sweep is spent). The norms and the extrapolation run
over blocks of rows, so that their temporaries stay small beside the counts.

Why projection rather than step halving: some counts are always near 0, so halving s until theta' has no
negative entry leaves s at about -1 (no gain; benchmarks/exp_cvb0_squarem.py).
"""

from __future__ import annotations

import numpy as np

# Rows per block of the norms and the extrapolation (temporaries of BLOCK x K floats).
BLOCK = 4096


def step_length(first, second, third) -> float:
    """SQUAREM's S3 step s = min(-|r| / |v|, -1) of three states, each a sequence of arrays of the same
    shapes (here (n_dk, n_wk)), r = second - first, v = third - 2 second + first, norms over all arrays."""
    r2 = v2 = 0.0
    for a0, a1, a2 in zip(first, second, third):
        for lo in range(0, a0.shape[0], BLOCK):
            b0, b1, b2 = (np.asarray(a[lo:lo + BLOCK], dtype=np.float64) for a in (a0, a1, a2))
            r = b1 - b0
            r2 += float(np.vdot(r, r))
            r = b2 - 2.0 * b1 + b0
            v2 += float(np.vdot(r, r))
    if not v2 > 0.0:  # (no curvature: the states are on a line, or equal)
        return -1.0
    return min(-float(np.sqrt(r2 / v2)), -1.0)


def extrapolate(a0, a1, a2, s: float, out) -> None:
    """Write into ``out`` (counts, (n, K); it may be ``a0``, ``a1`` or ``a2``) theta0 - 2 s r + s^2 v for the states
    ``a0``, ``a1``, ``a2``, projected onto counts with ``a2``'s row sums: negative entries set to 0, each row
    scaled to its sum in ``a2``; a row with no positive entry left gets ``a2``'s values."""
    for lo in range(0, a0.shape[0], BLOCK):
        b0, b1, b2 = (np.asarray(a[lo:lo + BLOCK], dtype=np.float64) for a in (a0, a1, a2))
        new = b0 - 2.0 * s * (b1 - b0) + s * s * (b2 - 2.0 * b1 + b0)
        np.maximum(new, 0.0, out=new)
        totals = b2.sum(axis=1, keepdims=True)
        got = new.sum(axis=1, keepdims=True)
        ok = got > 0.0
        out[lo:lo + BLOCK] = np.where(ok, new * (totals / np.where(ok, got, 1.0)), b2)  # (the block read first)
