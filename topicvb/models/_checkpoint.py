"""Checkpoints of a fit in progress, and a Ctrl-C that stops after the current iteration.

A checkpoint is one ``.npz`` of plain arrays (loaded with ``allow_pickle=False``) holding the
whole iteration state, the random generator's state and a fingerprint of the data and
parameters, written to a temporary file in the same folder and renamed into place, so a crash
mid-write leaves the previous checkpoint intact.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import tempfile
import threading
import warnings
import zipfile
from pathlib import Path

import numpy as np

from .._validation import user_stacklevel

_FORMAT = "topicvb-checkpoint"
_VERSION = 1


def fingerprint(estimator, X) -> str:
    """A digest of the data and of the parameters that shape the fit (not verbosity or threads)."""
    h = hashlib.sha256()
    h.update(type(estimator).__name__.encode())
    params = {k: v for k, v in estimator.get_params().items()
              if k not in ("verbose", "n_jobs", "max_iter", "tol", "checkpoint_path", "checkpoint_every")}
    h.update(repr(sorted(params.items(), key=lambda kv: kv[0])).encode())
    h.update(repr((X.shape, X.nnz)).encode())
    for arr in (X.indptr, X.indices, X.data):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


def rng_state_arrays(rng) -> dict:
    name, keys, pos, has_gauss, cached = rng.get_state()
    return {"rng__keys": np.asarray(keys, dtype=np.uint32),
            "rng__scalars": np.array([pos, has_gauss], dtype=np.int64),
            "rng__gauss": np.array([cached], dtype=np.float64)}


def restore_rng(rng, arrays) -> None:
    pos, has_gauss = (int(v) for v in arrays["rng__scalars"])
    rng.set_state(("MT19937", arrays["rng__keys"], pos, has_gauss, float(arrays["rng__gauss"][0])))


def save_checkpoint(path, arrays: dict, fp: str, meta: dict | None = None) -> None:
    """Write ``arrays`` plus metadata to ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = dict(arrays)
    payload["checkpoint__meta"] = np.asarray(json.dumps({"format": _FORMAT, "version": _VERSION, "fingerprint": fp,
                                                         **(meta or {})}))
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_checkpoint(path, fp: str) -> dict:
    """Read a checkpoint written by :func:`save_checkpoint` for the same data and parameters."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"No checkpoint to resume from at {str(path)!r}.")
    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        meta = json.loads(str(arrays.pop("checkpoint__meta")[()]))
    except (zipfile.BadZipFile, EOFError, OSError, KeyError, ValueError) as exc:
        raise ValueError(f"{str(path)!r} is not a readable topicvb checkpoint ({exc}).") from None
    if meta.get("format") != _FORMAT or not isinstance(meta.get("version"), int) or meta["version"] > _VERSION:
        raise ValueError(f"{str(path)!r} is not a topicvb checkpoint of a version this topicvb reads.")
    if meta.get("fingerprint") != fp:
        raise ValueError(f"The checkpoint {str(path)!r} was written for other data or other parameters; "
                         "resume with the same X and parameters, or delete it.")
    arrays["__meta__"] = meta
    return arrays


class _Interrupt:
    requested = False


@contextlib.contextmanager
def interruptible(owner: str):
    """Within the block, a first Ctrl-C only sets ``.requested`` (the fit stops after the current
    iteration); a second one interrupts at once. Outside the main thread it changes nothing."""
    flag = _Interrupt()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        if flag.requested:
            signal.signal(signal.SIGINT, previous)
            raise KeyboardInterrupt
        flag.requested = True

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # e.g. no signal support in this interpreter
        yield flag
        return
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)
    if flag.requested:
        warnings.warn(f"{owner} was interrupted (Ctrl-C) and stopped after its last complete iteration; the "
                      "model holds that iteration's state (see n_iter_).", RuntimeWarning, stacklevel=user_stacklevel())
