"""Fit and apply BatchLDA and OnlineLDA on a Dask cluster, with the corpus in partitions on the workers.

The distributed fits are the in-process fits with another *map* of the variational core's local
step (:mod:`topicvb.models._vb`): :func:`fit_distributed` runs ``BatchLDA``'s and ``OnlineLDA``'s
own loops (:mod:`topicvb.models._vb_fit`) over maps whose local steps run on the workers.

The corpus never passes through the client: every partition (a shard file that a worker reads
itself, an in-memory CSR matrix scattered once, or a partition of a dask bag) lives on a worker
for the whole fit. Each BatchLDA iteration broadcasts the topics' exp(E[log beta]) once, runs the
local step on every partition on the worker holding it (the new gamma stay there), and sums the
statistics with a tree reduction (pairwise on each worker, then across workers), so one V x K
array reaches the client, which makes the M-step (:mod:`._batch`). An OnlineLDA mini-batch takes a
contiguous run of rows from every partition, and the client makes the stochastic step after
each one (:mod:`._online`).

Random restarts: ``random_streams="partition"`` (default) draws partition p's restarts of step t
from ``SeedSequence(entropy, spawn_key=(t, p))``: nothing is sequential, and the result depends
on the seed and the partitioning only. ``random_streams="global"`` uses pieces of the model's one
random stream, so the fit equals ``model.fit`` of the stacked partitions (for OnlineLDA, in
:func:`interleaved_order` with ``shuffle=False`` and ``restart_every=1``) up to the rounding of
the partitions' sums.

Failures: tasks run with ``retries``; shards read from files are re-read by another worker, a
lost BatchLDA partition's gamma is rebuilt by replaying its E-steps with the topics of every past
iteration, and an OnlineLDA mini-batch whose tasks Dask cannot recompute is re-submitted by the
client with the same restarts. The statistics are summed in groups of partitions fixed when the fit
starts (those of one worker), wherever the partitions are later, so the fit ends with the same
result, bit for bit, as without the failure. In-memory partitions cannot be re-read: losing
one stops the fit with a message; use shard files for fault tolerance.

Compilation: the numba kernels compile (or load from numba's on-disk cache) once per worker
process; :func:`warm_up_workers` runs a tiny fit on every worker at the start of every distributed
fit. With workers on several machines, point ``NUMBA_CACHE_DIR`` at a folder every worker can write.
"""

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "topicvb.distributed needs dask and distributed; install them with pip install 'topicvb[dask]'."
    ) from exc

from ._fit import fit_distributed, transform_distributed, warm_up_workers
from ._online import interleaved_order
from ._partitions import load_shard

__all__ = ["fit_distributed", "transform_distributed", "warm_up_workers", "load_shard", "interleaved_order"]
