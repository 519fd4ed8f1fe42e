"""Saving and loading fitted models: plain arrays plus JSON metadata in one ``.npz`` file.

Loading never unpickles (``allow_pickle=False``), so a model file cannot execute code. The file
holds a format version; a file from a newer version, a truncated file, a file that is not a
topicvb model, or one whose arrays have inconsistent shapes is refused with a clear message.
Ordinary pickling of the estimators also works, for scikit-learn workflows.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

FORMAT = "topicvb-model"
FORMAT_VERSION = 1

_SCALAR_TYPES = (bool, int, float, str, type(None))


def _model_classes():
    from . import models

    return {name: getattr(models, name) for name in models.__all__}


def _jsonable(value):
    if isinstance(value, _SCALAR_TYPES):
        return True
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, (int, float)) for v in value)
    return False


def _check_path(path, caller: str) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{caller}: path must be a path (str or os.PathLike), got {type(path).__name__}.")
    return Path(path)


def save(model, path, vocabulary=None) -> Path:
    """Save a fitted topicvb model (and optionally its vocabulary) to ``path`` (.npz added if missing).

    Parameters
    ----------
    model : PLSA, BatchLDA, CollapsedLDA or OnlineLDA
        A fitted model.
    path : str or Path
        Destination; written atomically (a temporary file renamed into place).
    vocabulary : sequence of str, optional
        Column names to keep with the model (defaults to ``feature_names_in_`` when present).

    Returns
    -------
    Path
        The file written.
    """
    from sklearn.utils.validation import check_is_fitted

    classes = _model_classes()
    name = type(model).__name__
    if name not in classes:
        raise TypeError(f"save expects a topicvb model ({', '.join(sorted(classes))}), got {name}.")
    check_is_fitted(model)
    params = {}
    for key, value in model.get_params().items():
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if isinstance(value, np.generic):
            value = value.item()
        if _jsonable(value):
            params[key] = value
        else:
            params[key] = None  # e.g. a RandomState instance: not reproducible from a file
    arrays, scalars = {}, {}
    for key, value in vars(model).items():
        if not key.endswith("_") or key.startswith("_") or key == "random_state_":
            continue
        if isinstance(value, np.ndarray) and value.dtype != object:
            arrays["attr__" + key] = value
        elif isinstance(value, (np.generic, int, float)) and not isinstance(value, bool):
            scalars[key] = value.item() if isinstance(value, np.generic) else value
        elif value is None:
            scalars[key] = None
    if vocabulary is None:
        vocabulary = getattr(model, "feature_names_in_", None)
    if vocabulary is not None:
        vocabulary = np.asarray([str(t) for t in vocabulary], dtype=str)
        if vocabulary.shape[0] != model.n_features_in_:
            raise ValueError(
                f"vocabulary has {vocabulary.shape[0]} terms, but the model was fitted on {model.n_features_in_}."
            )
        arrays["vocabulary"] = vocabulary
    meta = {"format": FORMAT, "version": FORMAT_VERSION, "class": name, "params": params, "scalars": scalars}
    arrays["meta"] = np.asarray(json.dumps(meta))
    path = _check_path(path, "save")
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(f"Cannot write {str(path)!r}: {str(parent)!r} is not a folder.")
            break
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load(path, *, return_vocabulary: bool = False):
    """Load a model written by :func:`save`.

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file.
    return_vocabulary : bool, default=False
        Also return the stored vocabulary (a list of str, or None).

    Returns
    -------
    model, or (model, vocabulary)

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Not a topicvb model file, truncated or corrupt, from a newer format version, or with
        inconsistent shapes.
    """
    path = _check_path(path, "load")
    if not path.exists():
        raise FileNotFoundError(f"Model file {str(path)!r} does not exist.")
    if path.is_file() and path.stat().st_size >= 4:
        with open(path, "rb") as f:
            magic = f.read(4)
        if magic != b"PK\x03\x04":  # a truncated archive still starts like one and is reported below
            raise ValueError(f"{str(path)!r} is not a topicvb model file (not an .npz archive).")
    try:
        with np.load(path, allow_pickle=False) as f:
            if "meta" not in f.files:
                raise ValueError(f"{str(path)!r} is not a topicvb model file (no metadata record).")
            meta = json.loads(str(f["meta"][()]))
            arrays = {k: f[k] for k in f.files if k != "meta"}
    except (zipfile.BadZipFile, EOFError, OSError, json.JSONDecodeError, KeyError) as exc:
        raise ValueError(f"{str(path)!r} is not a readable topicvb model file (truncated or corrupt: {exc}).") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not a topicvb model file.")
    version = meta.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)!r} was written by a newer topicvb (model format {version}); this version reads format "
            f"{FORMAT_VERSION} and older. Upgrade topicvb."
        )
    classes = _model_classes()
    cls = classes.get(meta.get("class"))
    if cls is None:
        raise ValueError(f"{str(path)!r} holds an unknown model class {meta.get('class')!r}.")
    valid = set(cls().get_params())
    model = cls(**{k: v for k, v in meta.get("params", {}).items() if k in valid})
    for key, value in arrays.items():
        if key.startswith("attr__"):
            setattr(model, key[len("attr__"):], value)
    for key, value in meta.get("scalars", {}).items():
        setattr(model, key, value)
    comp = getattr(model, "components_", None)
    n_features = getattr(model, "n_features_in_", None)
    if (comp is None or comp.ndim != 2 or comp.shape[0] != model.n_components or n_features is None
            or comp.shape[1] != n_features or not np.all(np.isfinite(comp))):
        raise ValueError(f"{str(path)!r} has inconsistent shapes or values: components_ does not match "
                         "n_components x n_features_in_.")
    prior = getattr(model, "doc_topic_prior_", None)
    if prior is not None and np.shape(prior) != (model.n_components,):
        raise ValueError(f"{str(path)!r} has inconsistent shapes: doc_topic_prior_ is {np.shape(prior)}.")
    vocabulary = arrays.get("vocabulary")
    if vocabulary is not None and vocabulary.shape[0] != n_features:
        raise ValueError(f"{str(path)!r} has inconsistent shapes: {vocabulary.shape[0]} vocabulary terms for "
                         f"{n_features} features.")
    vocab = None if vocabulary is None else vocabulary.tolist()
    return (model, vocab) if return_vocabulary else model
