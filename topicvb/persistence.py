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
Which classes a file may hold, and the fitted state each needs, comes from the estimator registry
(:mod:`topicvb.models._registry`). Ordinary pickling of the estimators also works, for
scikit-learn workflows.

The format (version 2; version 1 files, which have no vectorizer record, still load):

``meta``
    A JSON record: ``format`` ("topicvb-model"), ``version``, ``class`` (the estimator's name),
    ``params`` (its ``get_params()``; values that are not plain JSON, such as a ``RandomState``,
    are stored as null), ``scalars`` (fitted scalar attributes such as ``n_iter_``) and, when a
    :class:`topicvb.text.Vectorizer` is saved with the model, ``vectorizer`` (its parameters, its
    tokenizer's parameters and its learned phrases).
``attr__<name>``
    Each fitted array attribute of the model (``components_``, ``bound_history_``, ...).
``vocabulary``
    The column terms (optional).
``vectorizer__doc_freq``, ``vectorizer__term_freq``
    The vectorizer's term statistics (with a vectorizer only; its terms are ``vocabulary``).
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .models import _registry

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelRecord", "load", "read", "save"]

FORMAT = "topicvb-model"
FORMAT_VERSION = 2

_SCALAR_TYPES = (bool, int, float, str, type(None))
_VECTORIZER_PARAMS = ("min_df", "max_df", "max_features", "input", "encoding", "chunk_size", "n_jobs", "verbose")


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


def _plain(value):
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    return value


def _check_path(path, caller: str) -> Path:
    from .datasets._files import check_path_type

    check_path_type(path, f"{caller}: path")
    return Path(path)


# ---------------------------------------------------------------------------- the vectorizer record
def _vectorizer_record(vec, n_features: int):
    """JSON metadata and arrays describing a fitted Vectorizer; TypeError for what a file cannot hold."""
    from sklearn.utils.validation import check_is_fitted

    from .text import PhraseDetector, Tokenizer

    check_is_fitted(vec, "vocabulary_")
    phrases_param = vec.phrases.get_params() if isinstance(vec.phrases, PhraseDetector) else bool(vec.phrases)
    if len(vec.vocab_) != n_features:
        raise ValueError(f"the vectorizer has {len(vec.vocab_)} terms, but the model was fitted on {n_features}.")
    tok = vec.tokenizer
    if tok is not None and type(tok) is not Tokenizer:
        raise TypeError(
            "save can store the vectorizer's tokenizer only when it is a topicvb.text.Tokenizer (a file holds "
            f"parameters, not code); got {type(tok).__name__}. Pickle the pipeline instead, or save the model alone."
        )
    tok_params = None
    if tok is not None:
        tok_params = {}
        for key, value in tok.get_params().items():
            if isinstance(value, (set, frozenset, list, tuple)):
                value = sorted(str(v) for v in value)
            tok_params[key] = value
    det = vec.phrase_detector_
    phrases = None
    if det is not None:
        phrases = {
            "params": det.get_params(),
            "pairs": [[a, b, det.scores_[(a, b)]] for a, b in det.phrases_],
            "threshold_": det.threshold_,
            "n_docs_": int(det.n_docs_),
            "n_tokens_": int(det.n_tokens_),
        }
    record = {
        "params": {k: _plain(getattr(vec, k)) for k in _VECTORIZER_PARAMS},
        "dtype": np.dtype(vec.dtype).str,
        "fixed_vocabulary": vec.vocabulary is not None,
        "phrases_param": phrases_param,
        "tokenizer": tok_params,
        "phrases": phrases,
        "n_docs_": int(vec.n_docs_),
        "vocab_n_docs": vec.vocab_.n_docs,
    }
    arrays = {"vocabulary": np.asarray(vec.vocab_.terms, dtype=str)}
    for name in ("doc_freq", "term_freq"):
        values = getattr(vec.vocab_, name)
        if values is not None:
            arrays["vectorizer__" + name] = np.asarray(values, dtype=np.int64)
    return record, arrays


def _rebuild_vectorizer(record, arrays, path: Path):
    """The fitted Vectorizer described by a file's record (ValueError naming the file if malformed)."""
    from .text import PhraseDetector, Tokenizer, Vectorizer, Vocabulary

    try:
        terms = arrays["vocabulary"].tolist()
        tok = None if record["tokenizer"] is None else Tokenizer(**record["tokenizer"])
        params = dict(record["params"])
        det = None
        if record["phrases"] is not None:
            ph = record["phrases"]
            det = PhraseDetector(**ph["params"])
            pairs = [(str(a), str(b)) for a, b, _ in ph["pairs"]]
            det.phrases_ = pairs
            det.scores_ = {(str(a), str(b)): float(s) for a, b, s in ph["pairs"]}
            det.threshold_ = float(ph["threshold_"])
            det.n_docs_ = int(ph["n_docs_"])
            det.n_tokens_ = int(ph["n_tokens_"])
        phrases_param = record["phrases_param"]
        if isinstance(phrases_param, dict):
            phrases_param = PhraseDetector(**phrases_param)
        vec = Vectorizer(tokenizer=tok, phrases=phrases_param,
                         vocabulary=list(terms) if record["fixed_vocabulary"] else None,
                         dtype=np.dtype(record["dtype"]), **params)
        vec._check_params()
        vocab = Vocabulary(terms, doc_freq=arrays.get("vectorizer__doc_freq"),
                           term_freq=arrays.get("vectorizer__term_freq"), n_docs=record["vocab_n_docs"])
        n_docs = int(record["n_docs_"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{str(path)!r} has an invalid vectorizer record ({type(exc).__name__}: {exc}).") from None
    vec.vocab_ = vocab
    vec.vocabulary_ = dict(vocab.index)
    vec.phrase_detector_ = det
    vec.n_docs_ = n_docs
    return vec


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
        meta["vectorizer"], vec_arrays = _vectorizer_arrays(vectorizer, model, vocabulary)
        arrays.update(vec_arrays)
    else:
        arrays.update(_vocabulary_arrays(model, vocabulary))
    arrays["meta"] = np.asarray(json.dumps(meta))
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
    params = {}
    for key, value in model.get_params().items():
        value = _plain(value)
        params[key] = value if _jsonable(value) else None  # e.g. a RandomState: not reproducible from a file
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
    meta = {"format": FORMAT, "version": FORMAT_VERSION, "class": type(model).__name__, "params": params,
            "scalars": scalars}
    return meta, arrays


def _vectorizer_arrays(vectorizer, model, vocabulary):
    """The vectorizer record and arrays (its terms are the vocabulary; a different one is refused)."""
    from .text import Vectorizer

    if not isinstance(vectorizer, Vectorizer):
        raise TypeError(f"save: vectorizer must be a topicvb.text.Vectorizer, got {type(vectorizer).__name__}.")
    record, arrays = _vectorizer_record(vectorizer, model.n_features_in_)
    if vocabulary is not None and [str(t) for t in vocabulary] != vectorizer.vocab_.terms:
        raise ValueError("save: vocabulary differs from the vectorizer's terms; leave vocabulary=None.")
    return record, arrays


def _vocabulary_arrays(model, vocabulary) -> dict:
    """``{"vocabulary": terms}`` of a model saved without a vectorizer (empty when there are none)."""
    if vocabulary is None:
        vocabulary = getattr(model, "feature_names_in_", None)
    if vocabulary is None:
        return {}
    if isinstance(vocabulary, (str, bytes)):
        raise TypeError("save: vocabulary must be a sequence of terms, got a single str.")
    vocabulary = np.asarray([str(t) for t in vocabulary], dtype=str)
    if vocabulary.shape[0] != model.n_features_in_:
        raise ValueError(
            f"vocabulary has {vocabulary.shape[0]} terms, but the model was fitted on {model.n_features_in_}."
        )
    return {"vocabulary": vocabulary}


def _write_npz(arrays: dict, path) -> Path:
    """Write ``arrays`` to ``path`` (``.npz`` added if missing) atomically; the path written."""
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


# ---------------------------------------------------------------------------- load
def _read(path: Path):
    """The metadata record and arrays of a model file (ValueError if it is not one)."""
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
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"{str(path)!r} has an invalid format version {version!r} (expected a positive int).")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"{str(path)!r} was written by a newer topicvb (model format {version}); this version reads format "
            f"{FORMAT_VERSION} and older. Upgrade topicvb."
        )
    for key, kind in (("params", dict), ("scalars", dict), ("vectorizer", dict)):
        if key in meta and not isinstance(meta[key], kind) and not (key == "vectorizer" and meta[key] is None):
            raise ValueError(f"{str(path)!r} is not a valid topicvb model file: its {key!r} record is a "
                             f"{type(meta[key]).__name__}, expected a JSON object.")
    return meta, arrays


def _check_model(model, name: str, path: Path) -> None:
    """Refuse a model whose fitted state is missing, misshapen or not finite and non-negative."""
    where = str(path)
    n_features = getattr(model, "n_features_in_", None)
    comp = getattr(model, "components_", None)
    if comp is None:
        raise ValueError(f"{where!r} has no components_ array.")
    if not np.issubdtype(comp.dtype, np.floating) and not np.issubdtype(comp.dtype, np.integer):
        raise ValueError(f"{where!r}: components_ must hold numbers, got dtype {comp.dtype}.")
    if (comp.ndim != 2 or comp.shape[0] != model.n_components or not isinstance(n_features, int)
            or comp.shape[1] != n_features or not np.all(np.isfinite(comp))):
        raise ValueError(f"{where!r} has inconsistent shapes or values: components_ does not match "
                         "n_components x n_features_in_.")
    if np.any(comp < 0):
        raise ValueError(f"{where!r}: components_ has negative entries; topic-word weights must be >= 0.")
    prior = getattr(model, "doc_topic_prior_", None)
    if prior is not None and np.shape(prior) != (model.n_components,):
        raise ValueError(f"{where!r} has inconsistent shapes: doc_topic_prior_ is {np.shape(prior)}.")
    missing = [a for a in _registry.entry(name).required_state if getattr(model, a, None) is None]
    if missing:
        raise ValueError(f"{where!r} lacks the fitted attribute(s) {', '.join(missing)} that a {name} needs.")


def _rebuild_model(meta, arrays, path: Path):
    """The estimator a file's record describes, with its fitted attributes set (not yet checked)."""
    name = meta.get("class")
    if not isinstance(name, str) or name not in _registry.class_names():
        raise ValueError(f"{str(path)!r} holds an unknown model class {name!r}.")
    cls = _registry.estimator_class(name)
    valid = set(cls().get_params())
    model = cls(**{k: v for k, v in meta.get("params", {}).items() if k in valid})
    for key, value in arrays.items():
        if key.startswith("attr__"):
            setattr(model, key[len("attr__"):], value)
    for key, value in meta.get("scalars", {}).items():
        setattr(model, key, value)
    return model


def read(path) -> ModelRecord:
    """Read a file written by :func:`save`: the model, its vocabulary and its vectorizer.

    Every array is validated; nothing is unpickled.

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
        Not a topicvb model file, truncated or corrupt, from a newer format version, with
        inconsistent shapes or values, or lacking a fitted attribute the model needs.
    """
    path = _check_path(path, "load")
    meta, arrays = _read(path)
    model = _rebuild_model(meta, arrays, path)
    vocabulary = arrays.get("vocabulary")
    n_features = getattr(model, "n_features_in_", None)
    if vocabulary is not None and (vocabulary.ndim != 1 or vocabulary.shape[0] != n_features):
        raise ValueError(f"{str(path)!r} has inconsistent shapes: {len(vocabulary)} vocabulary terms for "
                         f"{n_features} features.")
    _check_model(model, meta["class"], path)
    vectorizer = None
    if meta.get("vectorizer") is not None:
        if vocabulary is None:
            raise ValueError(f"{str(path)!r} has a vectorizer record but no vocabulary.")
        vectorizer = _rebuild_vectorizer(meta["vectorizer"], arrays, path)
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
