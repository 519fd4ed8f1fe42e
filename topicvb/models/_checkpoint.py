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
import threading
import warnings
from pathlib import Path

import numbers

import numpy as np
import scipy.sparse as sp

from .._validation import user_stacklevel
from ._registry import PROBABILITY_TOLERANCE, ArraySpec, check_state_array

_FORMAT = "topicvb-checkpoint"
_VERSION = 1


class Fingerprint(str):
    """The digest :func:`fingerprint` returns (a str), carrying what a checkpoint for it must match.

    ``expected`` holds the estimator's class name, its float dtype and the lengths of the shape
    symbols of :data:`CHECKPOINT_ARRAYS` (K topics, D documents, V terms, N non-zeros), so that
    :func:`load_checkpoint` checks a checkpoint's arrays against the model and X it resumes.
    """

    expected: dict | None = None
    params: dict | None = None  # each digested parameter's shown value (what a refused checkpoint names)
    legacy: str | None = None  # the digest of topicvb before the values were normalised (see fingerprint)


def _plain_param(value):
    """A parameter's value as :func:`fingerprint` digests it: numpy scalars as Python numbers and an integral
    float as an int, so that values that are equal (1 and 1.0, np.float64(0.5) and 0.5) digest alike, and a
    ``RandomState`` instance as that alone."""
    if isinstance(value, (list, tuple)):
        return type(value)(_plain_param(v) for v in value)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.random.RandomState):  # (its repr holds its address, new in every process; its state
        return "<a numpy.random.RandomState>"    # is the checkpoint's: a resumed fit restores it from there)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2.0 ** 53:
        return int(value)
    return value


def _is_array_param(value) -> bool:
    """Whether a parameter's value is array-valued (a numpy array, a scipy sparse matrix or any object with
    ``__array__``, such as a :class:`topicvb.SeededPrior`): its repr may be truncated (numpy elides the middle
    of large arrays with '...'), so :func:`fingerprint` digests its values instead."""
    if value is None or isinstance(value, (str, bytes, numbers.Number)):
        return False
    return isinstance(value, np.ndarray) or sp.issparse(value) or hasattr(value, "__array__")


def _array_param_token(value) -> str:
    """A parameter's array value as a digest of its type, shape, dtype and bytes (as float64 when numeric),
    plus the ``labels`` an object such as :class:`topicvb.SeededPrior` carries."""
    arr = value.toarray() if sp.issparse(value) else np.asarray(value)
    if arr.dtype.kind in "biuf":
        arr = arr.astype(np.float64)
    h = hashlib.sha256()
    h.update(repr((type(value).__name__, arr.shape, str(arr.dtype))).encode())
    h.update(np.ascontiguousarray(arr).tobytes() if arr.dtype != object else repr(arr.tolist()).encode())
    labels = getattr(value, "labels", None)
    if labels is not None:
        h.update(repr([str(x) for x in labels]).encode())
    return f"<array {h.hexdigest()}>"


def fingerprint(estimator, X) -> str:
    """A digest of the data and of the parameters that shape the fit (not verbosity or threads).

    Parameters are digested by the repr of their value (:func:`_plain_param`: 1 and 1.0 alike), except
    array-valued ones (a matrix ``topic_word_prior``, a
    vector ``doc_topic_prior`` given as an array), digested by their values and labels
    (:func:`_array_param_token`): a large array's repr is truncated, and two priors that differ only in
    the elided entries would otherwise share a fingerprint.

    Returns a :class:`Fingerprint`: the hex digest, with what a checkpoint must match attached.
    """
    all_params = estimator.get_params()
    arrays = {k for k, v in all_params.items() if _is_array_param(v)}
    given = {k: (_array_param_token(v) if k in arrays else v) for k, v in all_params.items()
             if k not in ("verbose", "n_jobs", "max_iter", "tol", "checkpoint_path", "checkpoint_every")}
    params = {k: v if k in arrays else _plain_param(v) for k, v in given.items()}

    def digest(values):
        h = hashlib.sha256()
        h.update(type(estimator).__name__.encode())
        h.update(repr(sorted(values.items(), key=lambda kv: kv[0])).encode())
        h.update(repr((X.shape, X.nnz)).encode())
        for arr in (X.indptr, X.indices, X.data):
            h.update(np.ascontiguousarray(arr).tobytes())
        return h.hexdigest()

    fp = Fingerprint(digest(params))
    # a checkpoint written before the values were normalised (it records no params) has the digest of the
    # parameters as given: still the same fit (learning_offset=10.0 is now digested as 10)
    fp.legacy = fp if repr(sorted(given.items())) == repr(sorted(params.items())) else digest(given)
    fp.expected = expected_state(estimator, X)
    fp.params = {k: v if k in arrays else repr(v) for k, v in sorted(params.items())}
    return fp


def _storage(estimator, X):
    """CollapsedLDA's storage for ``X`` ("auto" resolved); None for the other estimators."""
    resolve = getattr(estimator, "_resolve_storage", None)
    return resolve(X) if resolve is not None else None


def expected_state(estimator, X) -> dict:
    """What a checkpoint of ``estimator`` fitting ``X`` must match (see :func:`check_checkpoint_arrays`)."""
    D, V = X.shape
    # the topics of the state: HDP's truncation level (its n_components is the fitted number), else n_components
    K = getattr(estimator, "max_components", None) or getattr(estimator, "n_components", None)
    second = getattr(estimator, "variant", None) == "cvb"  # CollapsedLDA's CVB keeps count variances, and so
    # does CVB0 with stored responsibilities and learned priors (refreshed every few sweeps: not exact, see below)
    learned = getattr(estimator, "learn_priors", None) not in (None, False)
    stale = learned and not second and _storage(estimator, X) == "responsibilities"
    max_iter = getattr(estimator, "max_iter", None)
    # the class whose checkpoints these are (a subclass of BatchLDA writes BatchLDA's)
    name = next((c.__name__ for c in type(estimator).__mro__ if c.__name__ in CHECKPOINT_ARRAYS),
                type(estimator).__name__)
    return {"estimator": name,
            "eta_matrix": _is_array_param(getattr(estimator, "topic_word_prior", None)),
            "dtype": np.dtype(getattr(estimator, "_float", np.float64)),
            "dims": {"K": K, "D": D, "V": V, "N": 0 if _storage(estimator, X) == "counts" else X.nnz,
                     "Dv": D if second or stale else 0, "Vv": V if second or stale else 0},
            "stale_variances": stale,
            # (an Integral, such as np.int64, is a max_iter the parameter check takes)
            "max_iter": int(max_iter) if isinstance(max_iter, numbers.Integral) else None,
            "n_tokens": float(X.sum())}


def rng_state_arrays(rng) -> dict:
    name, keys, pos, has_gauss, cached = rng.get_state()
    return {"rng__keys": np.asarray(keys, dtype=np.uint32),
            "rng__scalars": np.array([pos, has_gauss], dtype=np.int64),
            "rng__gauss": np.array([cached], dtype=np.float64)}


def restore_rng(rng, arrays) -> None:
    pos, has_gauss = (int(v) for v in arrays["rng__scalars"])
    rng.set_state(("MT19937", arrays["rng__keys"], pos, has_gauss, float(arrays["rng__gauss"][0])))


def check_checkpoint_folder(path) -> None:
    """Before a fit's work: the folder of ``checkpoint_path`` exists (created, as :func:`save_checkpoint` would
    create it) and a file can be created in it, else a ValueError naming ``checkpoint_path``. Said now, not at the
    first checkpoint, after ``checkpoint_every`` iterations of work that the failure would throw away."""
    from ..datasets._files import create_temp_file

    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = create_temp_file(path)
    except OSError as exc:
        raise ValueError(f"checkpoint_path: cannot write {str(path)!r}: no file can be created in the folder "
                         f"{str(path.parent)!r} ({exc.strerror or type(exc).__name__}).") from None
    os.close(fd)
    tmp.unlink(missing_ok=True)


def save_checkpoint(path, arrays: dict, fp: str, meta: dict | None = None) -> None:
    """Write ``arrays`` plus metadata to ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = dict(arrays)
    shown = getattr(fp, "params", None)  # (so that a checkpoint refused for other parameters can name them)
    payload["checkpoint__meta"] = np.asarray(json.dumps({"format": _FORMAT, "version": _VERSION, "fingerprint": fp,
                                                         **({} if shown is None else {"params": shown}),
                                                         **(meta or {})}))
    from ..datasets._files import create_temp_file

    fd, tmp = create_temp_file(path)  # mode 0o666 less the umask, not mkstemp's 0o600
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_checkpoint(path, fp: str, *, expected: dict | None = None) -> dict:
    """Read a checkpoint written by :func:`save_checkpoint` for the same data and parameters.

    Every array the fit reads is checked (:func:`check_checkpoint_arrays`) against ``expected``
    (by default the one ``fp`` carries when it comes from :func:`fingerprint`), so that a damaged or
    edited checkpoint is refused, naming the file and the array, instead of resuming into NaN.

    Raises
    ------
    FileNotFoundError
        No file at ``path``.
    ValueError
        Not a readable checkpoint of a version this topicvb reads, written for other data or
        parameters, or with a missing array or one of a wrong dtype, shape or values.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"No checkpoint to resume from at {str(path)!r}.")
    from ..datasets._files import NPZ_READ_ERRORS, not_pickled

    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        raw = next((k for k, v in arrays.items() if not isinstance(v, np.ndarray)), None)
        if raw is not None:  # (numpy gives the bytes of a member that is not a .npy array)
            raise ValueError(f"its member {raw!r} is not a NumPy array")
        meta = json.loads(str(arrays.pop("checkpoint__meta")[()]))
    except NPZ_READ_ERRORS as exc:
        raise ValueError(f"{str(path)!r} is not a readable topicvb checkpoint ({not_pickled(exc)}).") from None
    if (not isinstance(meta, dict) or meta.get("format") != _FORMAT or isinstance(meta.get("version"), bool)
            or not isinstance(meta.get("version"), int) or meta["version"] > _VERSION):
        raise ValueError(f"{str(path)!r} is not a topicvb checkpoint of a version this topicvb reads.")
    legacy = "params" not in meta and meta.get("fingerprint") == getattr(fp, "legacy", None)
    if meta.get("fingerprint") != fp and not legacy:
        raise ValueError(f"The checkpoint {str(path)!r} was written for {_what_differs(meta, fp)}; resume with the "
                         "same X and parameters, or delete it.")
    if expected is None:
        expected = getattr(fp, "expected", None)
    try:
        arrays = check_checkpoint_arrays(arrays, expected)
    except ValueError as exc:
        raise ValueError(f"The checkpoint {str(path)!r} cannot be resumed: {exc} Delete it to start afresh.") from None
    arrays["__meta__"] = meta
    return arrays


def _what_differs(meta: dict, fp) -> str:
    """"other data or other parameters", naming the parameters that differ when the checkpoint records them."""
    then, now = meta.get("params"), getattr(fp, "params", None)
    if not isinstance(then, dict) or now is None:
        return "other data or other parameters"
    names = sorted(k for k in set(then) | set(now) if then.get(k) != now.get(k))
    if not names:
        return "other data (the same parameters)"
    def show(value):  # (an array parameter's digest, shortened)
        return value[:20] + "...>" if isinstance(value, str) and value.startswith("<array ") else value

    shown = "; ".join(f"{k}={show(then.get(k, '(none)'))} then, {show(now.get(k, '(none)'))} now" for k in names[:5])
    return f"other parameters ({shown}{'; ...' if len(names) > 5 else ''})"


# ---------------------------------------------------------------------------- what a checkpoint may hold
_RNG_ARRAYS = (ArraySpec("rng__keys", (624,), "int", "count"), ArraySpec("rng__scalars", (2,), "int", "count"),
               ArraySpec("rng__gauss", (1,), "float64", "finite"))
_PRIORS = (ArraySpec("alpha", ("K",), "float64", "positive"), ArraySpec("eta", (), "float64", "positive"))
# With a matrix topic-word prior (guided topics) eta is that matrix, 0 where a term is excluded from a topic, and
# the topics lam are 0 there (positive elsewhere): these replace the specs of eta and lam (_matrix_prior_specs).
_ETA_MATRIX = ArraySpec("eta", ("K", "V"), "float64", "nonnegative")
_HISTORY = ArraySpec("history", (None,), "float64", "finite")
_ITERATION = ArraySpec("iteration", (), "int", "count")

# The arrays each estimator's checkpoint holds (as its ``_fit`` writes and reads them), with their shapes in
# the symbols K (topics), D (documents), V (terms), N (non-zeros of X), Dv / Vv (D / V with CollapsedLDA's
# CVB variances, else 0), and their values (see :class:`topicvb.models._registry.ArraySpec`).
CHECKPOINT_ARRAYS = {
    "PLSA": (
        ArraySpec("theta", ("D", "K"), "model", "probabilities", sum_axis=1),  # P(z | d)
        ArraySpec("phi_t", ("V", "K"), "model", "probabilities", sum_axis=0),  # P(w | z), term-major
        _HISTORY,
        ArraySpec("v_history", (None,), "float64", "finite"),
        ArraySpec("best_value", (), "float64", "finite", required=False),  # early stopping's best model
        ArraySpec("best_iter", (), "int", "count", required=False),
        ArraySpec("best_theta", ("D", "K"), "model", "probabilities", sum_axis=1, required=False),
        ArraySpec("best_phi_t", ("V", "K"), "model", "probabilities", sum_axis=0, required=False),
        _ITERATION,
    ) + _RNG_ARRAYS,
    "BatchLDA": (
        ArraySpec("lam", ("K", "V"), "model", "positive"),
        ArraySpec("gamma", ("D", "K"), "model", "positive"),  # the documents' variational Dirichlets
    ) + _PRIORS + (_HISTORY, _ITERATION) + _RNG_ARRAYS,
    "CollapsedLDA": (
        # responsibilities per non-zero ((0, K) with storage="counts", whose state is the counts)
        ArraySpec("gamma", ("N", "K"), "model", "probabilities", sum_axis=1),
        ArraySpec("n_dk", ("D", "K"), "model", "nonnegative"),
        ArraySpec("n_wk", ("V", "K"), "model", "nonnegative"),
        # (float64: CVB0's learned-prior variances are kept in float64; CVB's, in the model's dtype, convert exactly)
        ArraySpec("v_dk", ("Dv", "K"), "float64", "nonnegative"),
        ArraySpec("v_wk", ("Vv", "K"), "float64", "nonnegative"),
        ArraySpec("eta_scale", (), "float64", "positive", required=False),  # a matrix prior's learned scale
        # a SQUAREM cycle (storage="counts", acceleration="squarem"): the counts at its first sweeps (0 to 2 of
        # each), the objectives at the cycles' ends, whether the last sweep ended one
        ArraySpec("cycle_dk", (None, "D", "K"), "model", "nonnegative", required=False),
        ArraySpec("cycle_wk", (None, "V", "K"), "model", "nonnegative", required=False),
        ArraySpec("cycle_ends", (None,), "float64", "finite", required=False),
        ArraySpec("cycle_end", (), "int", "count", required=False),
    ) + _PRIORS + (_HISTORY, _ITERATION) + _RNG_ARRAYS,
    "HDP": (  # K: the truncation level T
        ArraySpec("gamma", ("N", "K"), "model", "probabilities", sum_axis=1),
        ArraySpec("n_dk", ("D", "K"), "model", "nonnegative"),
        ArraySpec("n_wk", ("V", "K"), "model", "nonnegative"),
        ArraySpec("beta", ("K",), "float64", "nonnegative"),  # the topic weights (a merged topic's: 0)
        ArraySpec("alpha0", (), "float64", "positive"),
        ArraySpec("conc", (), "float64", "positive"),
        ArraySpec("eta", (), "float64", "positive"),
        _HISTORY,
        ArraySpec("objectives", (None,), "float64", "finite"),
        ArraySpec("converged", (), "int", "count"),
        ArraySpec("ever_converged", (), "int", "count"),
        ArraySpec("n_merges", (), "int", "count"),
        _ITERATION,
    ) + _RNG_ARRAYS,
    "OnlineLDA": (
        ArraySpec("lam", ("K", "V"), "model", "positive"),
    ) + _PRIORS + (
        ArraySpec("n_batch_iter", (), "int", "count"),
        ArraySpec("n_docs_seen", (), "int", "count"),
        _HISTORY,
        ArraySpec("means", (None,), "float64", "finite"),
        ArraySpec("doc_gamma", ("D", "K"), "model", "positive", required=False),
        ArraySpec("reseeded", (), "int", "count", required=False),  # the last pass re-seeded a dead topic
        _ITERATION,
    ) + _RNG_ARRAYS,
}
# Arrays that come together or not at all.
_GROUPS = {"PLSA": (("best_value", "best_iter", "best_theta", "best_phi_t"),),
           "CollapsedLDA": (("cycle_dk", "cycle_wk", "cycle_ends", "cycle_end"),)}
# Which estimator wrote a checkpoint, from an array only its checkpoints hold (when no ``expected`` says).
_SIGNATURES = (("theta", "PLSA"), ("alpha0", "HDP"), ("n_dk", "CollapsedLDA"), ("means", "OnlineLDA"),
               ("lam", "BatchLDA"))


def check_checkpoint_arrays(arrays: dict, expected: dict | None = None) -> dict:
    """The arrays of a checkpoint, each checked and converted to the dtype its fit reads.

    Parameters
    ----------
    arrays : dict
        The checkpoint's arrays (without its metadata).
    expected : dict, optional
        ``{"estimator": class name, "dtype": float dtype, "dims": {"K": ..., "D": ..., ...}}`` (see
        :func:`expected_state`). Without it, the estimator is recognised by its arrays, the float dtype
        is float64 and the shapes need only agree with each other.

    Returns
    -------
    dict
        The checked arrays; arrays no table names are passed through (the fit does not read them).

    Raises
    ------
    ValueError
        A message naming the missing or bad array, without the file (the caller adds it).
    """
    expected = expected or {}
    name = expected.get("estimator") or next((est for key, est in _SIGNATURES if key in arrays), None)
    specs = CHECKPOINT_ARRAYS.get(name)
    if specs is None:
        raise ValueError("it holds none of the arrays a topicvb fit writes." if name is None else
                         f"{name} writes no checkpoints.")
    eta_matrix = expected.get("eta_matrix")
    if eta_matrix is None:  # (no expectation: as the checkpoint holds it)
        eta_matrix = np.ndim(arrays.get("eta", 0.0)) == 2
    if eta_matrix and any(spec.name == "eta" for spec in specs):
        specs = _matrix_prior_specs(specs)
    float_dtype = np.dtype(expected.get("dtype", np.float64))
    dims = {k: v for k, v in expected.get("dims", {}).items() if v is not None}
    missing = [s.name for s in specs if s.required and s.name not in arrays]
    for group in _GROUPS.get(name, ()):
        present = [g for g in group if g in arrays]
        if present and len(present) < len(group):
            missing += [g for g in group if g not in arrays]
    if missing:
        raise ValueError(f"it lacks the array(s) {', '.join(missing)} that a {name} checkpoint holds.")
    checked = dict(arrays)
    for spec in specs:
        if spec.name in arrays:
            checked[spec.name] = check_state_array(arrays[spec.name], spec, dims, float_dtype)
    _check_rng(checked)
    if eta_matrix and "eta" in checked:
        _check_matrix_prior(checked)
    _check_progress(name, checked, expected.get("max_iter"))
    if name == "CollapsedLDA":
        _check_collapsed_counts(checked, dims, expected.get("n_tokens"), PROBABILITY_TOLERANCE[float_dtype],
                                expected.get("stale_variances", False))
    elif name == "HDP":
        _check_token_totals(checked, expected.get("n_tokens"), PROBABILITY_TOLERANCE[float_dtype])
    return checked


def _matrix_prior_specs(specs) -> tuple:
    """The specs of a checkpoint of a fit with a matrix topic-word prior: eta (K, V), lam non-negative
    (:func:`_check_matrix_prior` then checks lam against eta's zeros)."""
    out = []
    for spec in specs:
        if spec.name == "eta":
            spec = _ETA_MATRIX
        elif spec.name == "lam":
            spec = ArraySpec("lam", spec.shape, spec.dtype, "nonnegative", spec.sum_axis, spec.required)
        out.append(spec)
    return tuple(out)


def _check_matrix_prior(arrays: dict) -> None:
    """A matrix prior eta: every topic allows some term and every term some topic; lam (when the checkpoint
    has it) is positive exactly where eta is."""
    eta = arrays["eta"]
    positive = eta > 0
    if not np.all(positive.any(axis=1)) or not np.all(positive.any(axis=0)):
        raise ValueError("eta must give every topic and every term a positive entry (a matrix topic-word prior).")
    if "lam" in arrays:
        lam = arrays["lam"]
        bad = (lam > 0) != positive
        if np.any(bad):
            k, w = np.unravel_index(int(np.argmax(bad)), bad.shape)
            raise ValueError(f"lam must be positive exactly where eta is; entry ({int(k)}, {int(w)}) is "
                             f"{lam[k, w].item()!r} where eta is {eta[k, w].item()!r}.")


# How many objective values each checkpoint holds after `iteration` iterations (the fits' resumption
# relies on it: BatchLDA and PLSA append the bound of an iteration in the next one).
# CollapsedLDA's stored-responsibilities fit computes an objective beside the next sweep: its history lags by 0 or 1.
_HISTORY_LAG = {"PLSA": ("history", (1,)), "BatchLDA": ("history", (1,)), "CollapsedLDA": ("history", (0, 1)),
                "OnlineLDA": ("means", (0,)), "HDP": ("history", (0,))}


def _check_progress(name: str, arrays: dict, max_iter) -> None:
    """The iteration counters against each other and against ``max_iter``."""
    it = int(arrays["iteration"])
    if max_iter is not None and it > max_iter:
        raise ValueError(f"it is at iteration {it}, past max_iter={max_iter}; resume with max_iter >= {it}.")
    key, lags = _HISTORY_LAG[name]
    if len(arrays[key]) not in [it - lag for lag in lags]:
        raise ValueError(f"{key} holds {len(arrays[key])} values, but a {name} checkpoint at iteration {it} holds "
                         f"{' or '.join(str(it - lag) for lag in lags)}.")
    if name == "PLSA":
        if len(arrays["v_history"]) not in (0, len(arrays["history"])):
            raise ValueError(f"v_history holds {len(arrays['v_history'])} values; expected 0 or as many as history "
                             f"({len(arrays['history'])}).")
        if "best_iter" in arrays and not 1 <= int(arrays["best_iter"]) <= it:
            raise ValueError(f"best_iter is {int(arrays['best_iter'])}, expected 1 to the iteration, {it}.")
    if name == "OnlineLDA" and len(arrays["history"]) != int(arrays["n_batch_iter"]):
        raise ValueError(f"history holds {len(arrays['history'])} values, but n_batch_iter is "
                         f"{int(arrays['n_batch_iter'])} (one bound per mini-batch).")


def _check_collapsed_counts(arrays: dict, dims: dict, n_tokens, tol: float, stale: bool = False) -> None:
    """CollapsedLDA's expected counts: the variances empty together or both kept; each variance at most its
    count (c gamma (1 - gamma) <= c gamma) unless ``stale`` (CVB0's learned-prior variances, refreshed every
    few sweeps, may exceed a count that has since fallen); the counts adding up to the tokens of X."""
    if (dims["Dv"], dims["Vv"]) not in ((0, 0), (dims["D"], dims["V"])):
        raise ValueError(f"v_dk and v_wk must both have 0 rows (CVB0) or match n_dk and n_wk (CVB); they have "
                         f"{dims['Dv']} and {dims['Vv']} rows.")
    for v_name, n_name in (("v_dk", "n_dk"), ("v_wk", "n_wk")):
        var, counts = arrays[v_name], arrays[n_name]
        if var.size and not stale:
            bad = var > counts * (1.0 + tol) + tol
            if np.any(bad):
                i = np.unravel_index(int(np.argmax(bad)), var.shape)
                raise ValueError(f"{v_name} exceeds {n_name} at entry {tuple(int(j) for j in i)} "
                                 f"({var[i].item()!r} > {counts[i].item()!r}); a variance of these counts is at "
                                 "most the count.")
    _check_token_totals(arrays, n_tokens, tol)


def _check_token_totals(arrays: dict, n_tokens, tol: float) -> None:
    """The expected counts n_dk and n_wk each adding up to the tokens of X (when known)."""
    if n_tokens is not None:
        for n_name in ("n_dk", "n_wk"):
            total = float(arrays[n_name].sum(dtype=np.float64))
            if abs(total - n_tokens) > tol * (n_tokens + 1.0):
                raise ValueError(f"{n_name} adds up to {total:.6g} tokens, but X has {n_tokens:.6g}.")


def _check_rng(arrays: dict) -> None:
    """The random generator's state: an MT19937 key of 624 words (not all 0), a position from 0 to
    624 and a 0/1 flag; the key is converted back to uint32."""
    keys, (pos, has_gauss) = arrays["rng__keys"], arrays["rng__scalars"]
    if np.any(keys >= 2**32) or not np.any(keys):
        raise ValueError("rng__keys is not a random generator state (624 words below 2**32, not all 0).")
    if not 0 <= pos <= 624 or has_gauss not in (0, 1):
        raise ValueError(f"rng__scalars is not a random generator state: position {pos} (0 to 624) and flag "
                         f"{has_gauss} (0 or 1).")
    arrays["rng__keys"] = keys.astype(np.uint32)


class _Interrupt:
    requested = False


@contextlib.contextmanager
def interruptible(owner: str):
    """Within the block, a first Ctrl-C only sets ``.requested`` (the fit stops after the current
    iteration); a second one interrupts at once. Outside the main thread it changes nothing, nor where the
    program handles SIGINT itself (ignores it, or has a handler of its own): that handler stays in charge (a
    fit had taken the first Ctrl-C from it, and stopped early where the program ignored Ctrl-C)."""
    flag = _Interrupt()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        yield flag
        return

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
