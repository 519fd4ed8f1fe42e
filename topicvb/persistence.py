"""Saving and loading fitted models: plain arrays plus JSON metadata in one ``.npz`` file.

This module stores *records*: a fitted model, optionally the fitted
:class:`topicvb.text.Vectorizer` that counted its corpus, and the vocabulary. :func:`save` writes
one, :func:`read` returns one (a :class:`ModelRecord`) and :func:`load` returns its model. Turning a
record with a vectorizer into a :class:`topicvb.TopicPipeline` is the pipeline's job:
:func:`topicvb.save` and :func:`topicvb.load` (defined in :mod:`topicvb.pipeline`) are the
public entry points that save and restore a whole pipeline.

Loading never unpickles (``allow_pickle=False``), so a model file cannot execute code. The file
holds a format version; a file from a newer version, a truncated file, a file that is not a
topicvb model, or one whose arrays have inconsistent shapes is refused with a clear message.
Which classes a file may hold, the fitted state each needs and what each fitted attribute may hold
come from the estimator registry (:mod:`topicvb.models._registry`): loading accepts only the
attributes listed there (so a file cannot set ``transform`` or any other name), checks the
parameters as ``fit`` does, and checks every array's dtype, shape and values (finite, priors and
LDA topic-term weights within :data:`topicvb.models._registry.VALUE_LIMITS`, pLSA's distributions
summing to 1, counters non-negative integers), so that a loaded model cannot produce NaN or an
internal error. Every refusal is a ``ValueError`` naming the file and the attribute. Ordinary
pickling of the estimators also works, for scikit-learn workflows. The parts of a file beside the
model's own state (the vectorizer record, the vocabulary, a matrix prior) are built and checked in
:mod:`topicvb._persistence_parts`.

The format (version 3; version 2 files, which have no topic names, and version 1 files, which also
have no vectorizer record, still load, and their models have no ``topic_labels_``):

``meta``
    A JSON record: ``format`` ("topicvb-model"), ``version``, ``class`` (the estimator's name),
    ``params`` (its ``get_params()``; values that are not plain JSON, such as a ``RandomState``,
    are stored as null, except a matrix ``topic_word_prior``, below), ``scalars`` (fitted scalar
    attributes such as ``n_iter_``) and, when a :class:`topicvb.text.Vectorizer` is saved with the
    model, ``vectorizer`` (its parameters, its tokenizer's parameters and its learned phrases).
``attr__<name>``
    Each fitted array attribute of the model (``components_``, ``bound_history_``, ...), the topic
    names ``topic_labels_`` as a string array, and ``topic_word_prior_`` when the prior is a matrix.
``param__topic_word_prior``
    A matrix ``topic_word_prior`` parameter (a :class:`topicvb.SeededPrior`, an array, a sparse
    matrix: stored dense); its ``params`` entry is then a JSON object ``{"array":
    "param__topic_word_prior", "type": "SeededPrior" or "ndarray", ...}`` holding a SeededPrior's
    labels, seed words, ``seed_confidence``, ``base_prior``, missing and excluded words, so the loaded
    model's parameter is an equal :class:`~topicvb.SeededPrior` (or the dense array) and refits alike.
``fit``
    (Optional: older files lack it, and their models are continued unchecked.) What ``partial_fit`` and
    :func:`topicvb.plotting.plot_bound_history` know of the fit that made the model beside its fitted
    attributes: ``changed_priors``, the digests of the prior parameters the fit started with that were set to
    other values before saving (``partial_fit`` refuses to continue with other priors), and
    ``fit_batches``, the mini-batches of ``fit``'s passes (stochastic models).
``vocabulary``
    The column terms (optional).
``vectorizer__doc_freq``, ``vectorizer__term_freq``
    The vectorizer's term statistics (with a vectorizer only; its terms are ``vocabulary``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ._persistence_parts import (PRIOR_ARRAY, check_prior_state, check_vocabulary, plain, prior_record,
                                 rebuild_prior, rebuild_vectorizer, string_array, vectorizer_arrays,
                                 vocabulary_arrays)
from .datasets._files import NPZ_READ_ERRORS
from .models import _registry

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelRecord", "load", "read", "save"]

FORMAT = "topicvb-model"
FORMAT_VERSION = 3

_SCALAR_TYPES = (bool, int, float, str, type(None))


class ModelRecord(NamedTuple):
    """What a model file holds: the fitted model, its vocabulary and its vectorizer.

    Attributes
    ----------
    model : estimator
        The fitted topicvb model.
    vocabulary : list of str or None
        The column terms, when the file has them.
    vectorizer : Vectorizer or None
        The fitted :class:`topicvb.text.Vectorizer` saved with the model, if any.
    """

    model: Any
    vocabulary: list | None
    vectorizer: Any


def _jsonable(value):
    if isinstance(value, _SCALAR_TYPES):
        return True
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, (int, float)) for v in value)
    return False


def _check_path(path, caller: str) -> Path:
    from .datasets._files import check_path_type

    check_path_type(path, f"{caller}: path")
    return Path(path)


# ---------------------------------------------------------------------------- save
def save(model, path, vocabulary=None, *, vectorizer=None) -> Path:
    """Save a fitted topicvb model (with its vocabulary, and its vectorizer if any) to ``path``.

    To save a :class:`topicvb.TopicPipeline` (or any ``Pipeline`` of a Vectorizer and a model),
    use :func:`topicvb.save` or :meth:`topicvb.TopicPipeline.save`, which split the pipeline and
    call this function.

    Parameters
    ----------
    model : PLSA, BatchLDA, CollapsedLDA, OnlineLDA or StochasticCollapsedLDA
        A fitted model of a class in the estimator registry.
    path : str or Path
        Destination (``.npz`` is added if missing); written atomically (a temporary file renamed
        into place), so an interrupted save never leaves a half-written model at ``path``.
    vocabulary : sequence of str, optional
        Column names to keep with the model (defaults to the vectorizer's terms, else
        ``feature_names_in_`` when present).
    vectorizer : Vectorizer, optional
        The fitted vectorizer that counted the model's corpus: its vocabulary, tokenizer settings
        and phrases are saved too, so :func:`topicvb.load` returns a pipeline that reads raw text.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    TypeError
        Not a topicvb model; a vectorizer whose tokenizer is an arbitrary callable (a file stores
        parameters, not code: pickle such a pipeline instead).
    NotFittedError
        The model or vectorizer is not fitted.
    """
    from sklearn.utils.validation import check_is_fitted

    _check_saveable(model)
    check_is_fitted(model)
    meta, arrays = _model_state(model)
    if vectorizer is not None:
        meta["vectorizer"], vec_arrays = vectorizer_arrays(vectorizer, model, vocabulary)
        arrays.update(vec_arrays)
    else:
        arrays.update(vocabulary_arrays(model, vocabulary))
    record = json.dumps(meta)
    try:  # what load would refuse is not written (a fit on huge counts, a model changed by hand)
        _parse(json.loads(record), arrays, Path("the model"))
    except ValueError as exc:
        raise ValueError(f"save: {type(model).__name__} not saved, since topicvb.load would refuse the file: {exc}") \
            from None
    arrays["meta"] = np.asarray(record)
    return _write_npz(arrays, path)


def _check_saveable(model) -> None:
    """TypeError unless ``model`` is an instance of a registered estimator class."""
    if not isinstance(model, type) and _registry.entry_of(model) is not None:
        return
    name = type(model).__name__
    hint = ""
    if hasattr(model, "steps"):  # a scikit-learn Pipeline: the pipeline layer splits it
        hint = " To save a pipeline with its vectorizer, use topicvb.save (or TopicPipeline.save)."
    raise TypeError(f"save expects a topicvb model ({', '.join(sorted(_registry.class_names()))}), got {name}.{hint}")


def _model_state(model):
    """The JSON metadata (class, parameters, fitted scalars) and the fitted arrays of a model."""
    params, arrays = {}, {}
    for key, value in model.get_params().items():
        if key == "topic_word_prior":
            record, matrix = prior_record(value)
            if record is not None:
                params[key], arrays[PRIOR_ARRAY] = record, matrix
                continue
        value = plain(value)
        params[key] = value if _jsonable(value) else None  # e.g. a RandomState: not reproducible from a file
    scalars = {}
    for key, value in vars(model).items():
        if not key.endswith("_") or key.startswith("_") or key == "random_state_":
            continue
        if key in ("topic_labels_", "feature_names_in_") and value is not None:
            arrays["attr__" + key] = string_array(value, key)
        elif isinstance(value, np.ndarray) and value.dtype != object:
            arrays["attr__" + key] = value
        elif isinstance(value, (np.generic, int, float)) and not isinstance(value, bool):
            scalars[key] = value.item() if isinstance(value, np.generic) else value
        elif value is None:
            scalars[key] = None
    meta = {"format": FORMAT, "version": FORMAT_VERSION, "class": type(model).__name__, "params": params,
            "scalars": scalars}
    rng = getattr(model, "random_state_", None)
    if isinstance(rng, np.random.RandomState):  # the stream partial_fit continues (OnlineLDA, SCVB0)
        _, keys, pos, has_gauss, cached = rng.get_state()
        meta["random_state_"] = {"keys": [int(k) for k in keys], "pos": int(pos), "has_gauss": int(has_gauss),
                                 "cached_gaussian": float(cached)}
    record = _fit_record(model)
    if record:
        meta["fit"] = record
    fitted = getattr(model, "components_", None)
    if isinstance(fitted, np.ndarray) and fitted.dtype.name != np.dtype(model._float).name:
        meta["fitted_dtype"] = fitted.dtype.name  # (a dtype set after the fit: the arrays keep the fit's)
    return meta, arrays


_PRIOR_NAMES = ("doc_topic_prior", "topic_word_prior")  # (the order of _prior_params' digests)


def _fit_record(model) -> dict:
    """What a continued fit needs of the fit that made ``model`` beside its fitted attributes (the ``fit``
    record): the digests of the prior parameters it started with that differ from those saved (a loaded model
    gets the saved parameters, whose digests are those of the values it is loaded with), and ``fit_batches``."""
    state, record = vars(model), {}
    started = state.get("_started_priors")
    if started is not None:
        now = model._prior_params()
        record["changed_priors"] = {name: old for name, old, new in zip(_PRIOR_NAMES, started, now) if old != new}
    if state.get("_fit_batches") is not None:
        record["fit_batches"] = int(state["_fit_batches"])
    return record


def _restore_fit_record(model, meta, where: str) -> None:
    """Set on a loaded ``model`` what its file's ``fit`` record holds (:func:`_fit_record`); nothing for a file
    without one. ValueError naming the file for a record save does not write."""
    record = meta.get("fit")
    if record is None:
        return
    ok = isinstance(record, dict) and set(record) <= {"changed_priors", "fit_batches"}
    changed = record.get("changed_priors", {}) if ok else None
    ok = ok and isinstance(changed, dict) and set(changed) <= set(_PRIOR_NAMES) \
        and all(isinstance(v, str) and len(v) <= 10_000 for v in changed.values())
    batches = record.get("fit_batches") if ok else None
    ok = ok and (batches is None or (isinstance(batches, int) and not isinstance(batches, bool)
                                     and 0 <= batches <= _registry.MAX_INT))
    if not ok:
        raise ValueError(f"{where!r} has an invalid fit record (expected a JSON object with changed_priors, an "
                         "object of prior names to digests, and fit_batches, a non-negative int).")
    if "changed_priors" in record:
        model._started_priors = tuple(changed.get(name, digest)
                                      for name, digest in zip(_PRIOR_NAMES, model._prior_params()))
    if batches is not None:
        model._fit_batches = batches


def _write_npz(arrays: dict, path) -> Path:
    """Write ``arrays`` to ``path`` (``.npz`` added if missing) atomically; the path written."""
    from .datasets._files import check_file_target, create_temp_file

    path = check_file_target(_check_path(path, "save"), "save")  # (else "models/" would be written as models.npz)
    if path.suffix != ".npz":
        path = check_file_target(path.with_name(path.name + ".npz"), "save")
    path.parent.mkdir(parents=True, exist_ok=True)

    fd, tmp = create_temp_file(path)  # mode 0o666 less the umask, not mkstemp's 0o600
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# ---------------------------------------------------------------------------- load
def _read(path: Path):
    """The metadata record and arrays of a model file (ValueError if it is not one)."""
    if not path.exists():
        raise FileNotFoundError(f"Model file {str(path)!r} does not exist.")
    if path.is_file():
        with open(path, "rb") as f:
            magic = f.read(4)
        # (a truncated archive still starts like one and is reported below; a file of fewer bytes is none, and
        # numpy would call it pickled data)
        if not magic:
            raise ValueError(f"{str(path)!r} is not a readable topicvb model file (an empty file).")
        if magic != b"PK\x03\x04":
            raise ValueError(f"{str(path)!r} is not a topicvb model file (not an .npz archive).")
    try:
        with np.load(path, allow_pickle=False) as f:
            files = list(f.files)
            members = {k: f[k] for k in files} if "meta" in files else {}
            # (numpy gives the raw bytes of a member that is not a .npy array)
            raw = next((k for k, v in members.items() if not isinstance(v, np.ndarray)), None)
            if raw is None and members:
                meta = json.loads(str(members.pop("meta")[()]))
                arrays = members
    except (zipfile.BadZipFile, EOFError, OSError, json.JSONDecodeError, KeyError) as exc:
        raise ValueError(f"{str(path)!r} is not a readable topicvb model file (truncated or corrupt: {exc}).") from None
    except RecursionError:  # (a JSON record nested deeper than the parser goes: no file save writes)
        raise ValueError(f"{str(path)!r} is not a readable topicvb model file (its metadata record is nested too "
                         "deeply).") from None
    except ValueError as exc:  # an object (pickled) array, an int of too many digits in the JSON record, ...
        raise ValueError(f"{str(path)!r} is not a readable topicvb model file ({exc}).") from None
    except NPZ_READ_ERRORS as exc:  # a damaged zip directory or .npy header (NotImplementedError, SyntaxError, ...)
        raise ValueError(f"{str(path)!r} is not a readable topicvb model file (truncated or corrupt: "
                         f"{type(exc).__name__}: {exc}).") from None
    if "meta" not in files:
        raise ValueError(f"{str(path)!r} is not a topicvb model file (no metadata record).")
    if raw is not None:
        raise ValueError(f"{str(path)!r} is not a topicvb model file (its member {raw!r} is not a NumPy array).")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a topicvb model file.")
    version = meta.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"{str(path)!r} has an invalid format version {_registry._show(version)} (expected a "
                         "positive int).")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)!r} was written by a newer topicvb (model format {_registry._show(version)}); this version "
            f"reads format {FORMAT_VERSION} and older. Upgrade topicvb."
        )
    for key, kind in (("params", dict), ("scalars", dict), ("vectorizer", dict), ("fit", dict)):
        if key in meta and not isinstance(meta[key], kind) and not (key == "vectorizer" and meta[key] is None):
            raise ValueError(f"{str(path)!r} is not a valid topicvb model file: its {key!r} record is a "
                             f"{type(meta[key]).__name__}, expected a JSON object.")
    return meta, arrays


# The arrays of a model file besides the fitted attributes (``attr__<name>``) and the metadata.
_OTHER_ARRAYS = ("vocabulary", "vectorizer__doc_freq", "vectorizer__term_freq", PRIOR_ARRAY)


def _new_model(meta, path: Path, arrays=None):
    """The registry entry and an unfitted estimator with the file's parameters, checked as ``fit`` checks them."""
    from sklearn.utils import check_random_state

    where = str(path)
    name = meta.get("class")
    if not isinstance(name, str) or name not in _registry.class_names():
        raise ValueError(f"{where!r} holds an unknown model class {_registry._show(name)}; expected one of "
                         f"{_registry.class_names()}.")
    entry = _registry.entry(name)
    cls = entry.cls
    valid = set(cls().get_params())
    params = {k: v for k, v in meta.get("params", {}).items() if k in valid}
    matrix_prior = isinstance(params.get("topic_word_prior"), dict)
    if PRIOR_ARRAY in (arrays or {}) and not matrix_prior:
        raise ValueError(f"{where!r} holds the array {PRIOR_ARRAY!r} but its topic_word_prior parameter does not "
                         "refer to it.")
    if matrix_prior and "n_components" not in valid:  # (HDP: a number of topics only after the fit, no matrix prior)
        raise ValueError(f"{where!r} has an invalid or inconsistent parameter: topic_word_prior refers to a matrix "
                         f"prior, which {name} does not take.")
    if matrix_prior:  # a matrix prior, stored as an array
        n_components = params.get("n_components", cls().n_components)
        if isinstance(n_components, bool) or not isinstance(n_components, int) or not 1 <= n_components <= 2**31:
            raise ValueError(f"{where!r} has an invalid or inconsistent parameter: n_components is "
                             f"{_registry._show(n_components)}.")
        params["topic_word_prior"] = rebuild_prior(params["topic_word_prior"], arrays or {}, n_components, where)
    for key, value in params.items():  # what no parameter of a fitted model holds, whatever fit's checks say
        if not (matrix_prior and key == "topic_word_prior") and not _plain_number(value):
            raise ValueError(f"{where!r} has an invalid or inconsistent parameter: {key} is "
                             f"{_registry._show(value)} (not finite, or an integer beyond {_registry.MAX_INT}).")
    model = cls(**params)
    try:
        model._check_params()
        rng = check_random_state(model.random_state)  # fit checks it; none of the above does
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{where!r} has an invalid or inconsistent parameter: {exc}") from None
    if entry.keeps_random_state:  # the random stream partial_fit continues: the file's, or (older files) a new one
        if "random_state_" in meta:
            if model.random_state is None:  # (NumPy's global stream, for a fit with random_state=None: a new one)
                rng = np.random.RandomState()
            _restore_stream(rng, meta["random_state_"], where)
        model.random_state_ = rng
    return entry, model


def _restore_stream(rng, record, where: str) -> None:
    """Set ``rng`` (a RandomState) to the state a file recorded (``save``: ``meta["random_state_"]``)."""
    try:
        keys = record["keys"]
        ok = (isinstance(keys, list) and len(keys) == 624
              and all(isinstance(k, int) and not isinstance(k, bool) and 0 <= k < 2**32 for k in keys))
        pos, has_gauss, cached = record["pos"], record["has_gauss"], record["cached_gaussian"]
        ok = ok and all(isinstance(v, int) and not isinstance(v, bool) for v in (pos, has_gauss))
        ok = ok and 0 <= pos <= 624 and has_gauss in (0, 1) and isinstance(cached, (int, float)) \
            and not isinstance(cached, bool) and bool(np.isfinite(cached))
    except (TypeError, KeyError):
        ok = False
    if not ok:
        raise ValueError(f"{where!r} has an invalid random_state_ record (expected the state of a Mersenne Twister: "
                         "624 keys, a position, and a cached Gaussian).")
    rng.set_state(("MT19937", np.asarray(keys, dtype=np.uint32), pos, has_gauss, float(cached)))


def _plain_number(value) -> bool:
    """False for a NaN or infinite float and an int beyond MAX_INT, also inside a list (a prior vector)."""
    if isinstance(value, list):
        return all(_plain_number(v) for v in value)
    if isinstance(value, float):
        return bool(np.isfinite(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) <= _registry.MAX_INT
    return True


def _fitted_state(entry, model, meta, arrays, path: Path) -> dict:
    """The fitted attributes a file's record holds, each checked against the registry (dtype, shape,
    values) and converted: ``{name: value}``. ValueError naming the file and the attribute otherwise."""
    where, name = str(path), entry.class_name
    scalars = dict(meta.get("scalars", {}))
    stored = {k[len("attr__"):]: v for k, v in arrays.items() if k.startswith("attr__")}
    stray = sorted(k for k in arrays if not k.startswith("attr__") and k not in _OTHER_ARRAYS)
    if stray:
        raise ValueError(f"{where!r} holds unknown array(s) {', '.join(map(repr, stray))}; a topicvb model file "
                         f"holds attr__<name>, {', '.join(_OTHER_ARRAYS)} and meta only.")
    known = entry.known_state
    unknown = [k for k in list(scalars) + list(stored) if k not in known]
    if unknown:
        raise ValueError(f"{where!r} holds unknown fitted attribute(s) {', '.join(map(repr, unknown))} for a {name}; "
                         f"a {name} file may hold {', '.join(known)} only.")
    shadowing = [k for k in list(scalars) + list(stored) if hasattr(type(model), k)]
    if shadowing:  # the registry names fitted attributes only; this guards against a slip there
        raise ValueError(f"{where!r} would overwrite {', '.join(shadowing)} of the {name} class.")
    twice = [k for k in scalars if k in stored]
    if twice:
        raise ValueError(f"{where!r} holds {', '.join(twice)} both as a scalar and as an array.")
    # the dtype of the fit: the parameter's, or the one a model saved with another dtype set since its fit records
    # (that dtype waits for the next fit, in the saved model as in the file)
    float_dtype = np.dtype(meta.get("fitted_dtype") if meta.get("fitted_dtype") in ("float32", "float64")
                           else model._float)
    state = {}
    try:
        for key, value in scalars.items():
            spec = entry.scalar_spec(key)
            if spec is None:
                raise ValueError(f"{key} must be an array (attr__{key}), got {type(value).__name__} in the "
                                 "scalars record.")
            state[key] = _registry.check_state_scalar(value, spec, float_dtype)
        for key, value in list(stored.items()):
            spec = entry.array_spec(key)
            if spec is not None and value.ndim == 0 and entry.scalar_spec(key) is not None:
                spec = None  # topic_word_prior_: a number written as a 0-d array (a matrix has 2 axes)
                del stored[key]
            if spec is None:  # a scalar written as a 0-d array
                if value.ndim != 0 or value.dtype.kind not in "iuf":
                    raise ValueError(f"{key} must be a single number, got an array of shape {value.shape} and dtype "
                                     f"{value.dtype}.")
                value = value.item()
                state[key] = _registry.check_state_scalar(value, entry.scalar_spec(key), float_dtype)
        # (HDP has no n_components: its K, n_components_, is bound by components_ and checked below)
        dims = {"K": getattr(model, "n_components", None), "V": state.get("n_features_in_")}
        matrix_prior = "topic_word_prior_" in stored
        for spec in entry.arrays:  # in the registry's order: components_ first
            if spec.values == "zero_or_positive" and spec.name == "components_" and not matrix_prior:
                spec = dataclasses.replace(spec, values="positive")  # zeros only where a matrix prior excludes a term
            if spec.name in stored:
                state[spec.name] = _registry.check_state_array(stored[spec.name], spec, dims, float_dtype)
        inferred = state.get("n_components_")
        if inferred is not None and "components_" in state and state["components_"].shape[0] != inferred:
            raise ValueError(f"components_ has {state['components_'].shape[0]} topics but n_components_ is "
                             f"{inferred}.")
    except ValueError as exc:
        raise ValueError(f"{where!r} has inconsistent shapes or values: {exc}") from None
    return state


def _check_model(model, entry, path: Path) -> None:
    """Refuse a model that lacks a fitted attribute its class needs."""
    missing = [a for a in entry.required if getattr(model, a, None) is None]
    if missing:
        raise ValueError(f"{str(path)!r} lacks the fitted attribute(s) {', '.join(missing)} that a "
                         f"{entry.class_name} needs.")


def _rebuild_model(meta, arrays, path: Path):
    """The registry entry and the estimator a file's record describes, with its fitted attributes set
    (each one checked; whether all the needed ones are there is :func:`_check_model`'s job)."""
    entry, model = _new_model(meta, path, arrays)
    state = _fitted_state(entry, model, meta, arrays, path)
    check_prior_state(model, state, path)
    for key, value in state.items():
        setattr(model, key, value)
    _restore_fit_record(model, meta, str(path))
    return entry, model


def read(path) -> ModelRecord:
    """Read a file written by :func:`save`: the model, its vocabulary and its vectorizer.

    Every array is validated; nothing is unpickled. The file's parameters must pass the checks of
    ``fit``; its fitted attributes must be the ones its class has (the estimator registry,
    :mod:`topicvb.models._registry`, lists them: any other name, such as one of a method, is
    refused), each of the right type, dtype (float32 or float64, converted to the model's dtype)
    and shape (``n_components`` x ``n_features_in_``), finite and in range (priors and LDA topic-term
    weights positive and far from overflow, pLSA's distributions summing to 1, counts non-negative
    integers), so that a loaded model's ``transform`` and ``score`` are finite.

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file.

    Returns
    -------
    ModelRecord
        ``(model, vocabulary, vectorizer)``; ``vocabulary`` (a list of str) and ``vectorizer``
        are None when the file has none.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Not a topicvb model file, truncated or corrupt, from a newer format version, with invalid
        parameters, with unknown fitted attributes, with arrays of a wrong dtype, inconsistent shapes or
        values out of range, or lacking a fitted attribute the model needs. The message names the file
        and the attribute.
    """
    path = _check_path(path, "load")
    meta, arrays = _read(path)
    return _parse(meta, arrays, path)


def _parse(meta, arrays, path: Path) -> ModelRecord:
    """The model, vocabulary and vectorizer of a file's record, every part checked (:func:`read`)."""
    entry, model = _rebuild_model(meta, arrays, path)
    vocabulary = check_vocabulary(arrays, getattr(model, "n_features_in_", None), path)
    _check_model(model, entry, path)
    vectorizer = None
    if meta.get("vectorizer") is not None:
        if vocabulary is None:
            raise ValueError(f"{str(path)!r} has a vectorizer record but no vocabulary.")
        vectorizer = rebuild_vectorizer(meta["vectorizer"], arrays, path)
    return ModelRecord(model, None if vocabulary is None else vocabulary.tolist(), vectorizer)


def load(path, *, return_vocabulary: bool = False):
    """Load the model of a file written by :func:`save` (without its vectorizer).

    :func:`topicvb.load` is the public entry point: it returns a :class:`topicvb.TopicPipeline`
    when the file holds a vectorizer. This function returns the model alone in every case; use
    :func:`read` for all the parts of a file.

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file.
    return_vocabulary : bool, default=False
        Also return the stored vocabulary (a list of str, or None).

    Returns
    -------
    model, or (model, vocabulary)
        The fitted model.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        As for :func:`read`.
    """
    record = read(path)
    return (record.model, record.vocabulary) if return_vocabulary else record.model
