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
pickling of the estimators also works, for scikit-learn workflows.

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

from .models import _registry

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelRecord", "load", "read", "save"]

FORMAT = "topicvb-model"
FORMAT_VERSION = 3
_PRIOR_ARRAY = "param__topic_word_prior"  # a matrix topic_word_prior parameter

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
        tok = None
        if record["tokenizer"] is not None:
            tok_params = dict(record["tokenizer"])
            # files written before the letters-only default keep the rule they were counted with
            tok_params.setdefault("alphabetic", False)
            tok = Tokenizer(**tok_params)
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


def _prior_record(value):
    """``(JSON record, dense float64 array)`` of a matrix ``topic_word_prior`` (None, None for a number)."""
    import numbers

    import scipy.sparse as sp

    from .guided import SeededPrior

    if value is None or (isinstance(value, (numbers.Real, np.number)) and not isinstance(value, bool)):
        return None, None
    if isinstance(value, SeededPrior):
        record = {"array": _PRIOR_ARRAY, "type": "SeededPrior", "labels": list(value.labels),
                  "seed_topics": value.seed_topics, "seed_confidence": value.seed_confidence,
                  "base_prior": value.base_prior, "missing": value.missing, "exclude": value.exclude}
        return record, np.array(value.matrix, dtype=np.float64)
    try:
        arr = np.asarray(value.toarray() if sp.issparse(value) else value, dtype=np.float64)
    except (TypeError, ValueError):
        return None, None
    if arr.ndim != 2:
        return None, None
    return {"array": _PRIOR_ARRAY, "type": "ndarray"}, arr


def _model_state(model):
    """The JSON metadata (class, parameters, fitted scalars) and the fitted arrays of a model."""
    params, arrays = {}, {}
    for key, value in model.get_params().items():
        if key == "topic_word_prior":
            record, matrix = _prior_record(value)
            if record is not None:
                params[key], arrays[_PRIOR_ARRAY] = record, matrix
                continue
        value = _plain(value)
        params[key] = value if _jsonable(value) else None  # e.g. a RandomState: not reproducible from a file
    scalars = {}
    for key, value in vars(model).items():
        if not key.endswith("_") or key.startswith("_") or key == "random_state_":
            continue
        if key == "topic_labels_" and value is not None:
            arrays["attr__" + key] = np.asarray([str(v) for v in value], dtype=str)
        elif isinstance(value, np.ndarray) and value.dtype != object:
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
    from .datasets._files import create_temp_file

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
    if path.is_file() and path.stat().st_size >= 4:
        with open(path, "rb") as f:
            magic = f.read(4)
        if magic != b"PK\x03\x04":  # a truncated archive still starts like one and is reported below
            raise ValueError(f"{str(path)!r} is not a topicvb model file (not an .npz archive).")
    try:
        with np.load(path, allow_pickle=False) as f:
            files = list(f.files)
            if "meta" in files:
                meta = json.loads(str(f["meta"][()]))
                arrays = {k: f[k] for k in files if k != "meta"}
    except (zipfile.BadZipFile, EOFError, OSError, json.JSONDecodeError, KeyError) as exc:
        raise ValueError(f"{str(path)!r} is not a readable topicvb model file (truncated or corrupt: {exc}).") from None
    except ValueError as exc:  # an object (pickled) array, an int of too many digits in the JSON record, ...
        raise ValueError(f"{str(path)!r} is not a readable topicvb model file ({exc}).") from None
    if "meta" not in files:
        raise ValueError(f"{str(path)!r} is not a topicvb model file (no metadata record).")
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
    for key, kind in (("params", dict), ("scalars", dict), ("vectorizer", dict)):
        if key in meta and not isinstance(meta[key], kind) and not (key == "vectorizer" and meta[key] is None):
            raise ValueError(f"{str(path)!r} is not a valid topicvb model file: its {key!r} record is a "
                             f"{type(meta[key]).__name__}, expected a JSON object.")
    return meta, arrays


# The arrays of a model file besides the fitted attributes (``attr__<name>``) and the metadata.
_OTHER_ARRAYS = ("vocabulary", "vectorizer__doc_freq", "vectorizer__term_freq", _PRIOR_ARRAY)


def _rebuild_prior(record, arrays, n_components, where: str):
    """The ``topic_word_prior`` parameter of a file's JSON record (a matrix stored as an array)."""
    from ._validation import check_topic_word_prior
    from .guided import SeededPrior

    def bad(why):
        return ValueError(f"{where!r} has an invalid or inconsistent parameter: topic_word_prior {why}.")

    if record.get("array") != _PRIOR_ARRAY or _PRIOR_ARRAY not in arrays:
        raise bad(f"names no stored matrix (expected the array {_PRIOR_ARRAY!r} in the file)")
    arr = arrays[_PRIOR_ARRAY]
    if arr.dtype not in (np.float32, np.float64) or arr.ndim != 2:
        raise bad(f"must be a 2-D float array, got dtype {arr.dtype} and shape {arr.shape}")
    try:
        matrix = check_topic_word_prior(arr, n_components, arr.shape[1])
    except (TypeError, ValueError) as exc:
        raise bad(f"is not a valid prior matrix ({exc})") from None
    kind = record.get("type")
    if kind == "ndarray":
        return matrix
    if kind != "SeededPrior":
        raise bad(f"has an unknown type {_registry._show(kind)} (expected 'SeededPrior' or 'ndarray')")
    try:
        words = {}
        for key in ("seed_topics", "missing", "exclude"):
            value = record.get(key) or {}
            if not isinstance(value, dict) or not all(
                    isinstance(v, list) and all(isinstance(w, str) for w in v) for v in value.values()):
                raise ValueError(f"its {key} must map labels to lists of words")
            words[key] = value
        numbers_ = {}
        for key in ("seed_confidence", "base_prior"):
            value = record.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not np.isfinite(value)):
                raise ValueError(f"its {key} must be a finite number or null, got {_registry._show(value)}")
            numbers_[key] = value
        return SeededPrior(matrix, record.get("labels"), **words, **numbers_)
    except (TypeError, ValueError) as exc:
        raise bad(f"is not a valid SeededPrior ({exc})") from None


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
    if _PRIOR_ARRAY in (arrays or {}) and not matrix_prior:
        raise ValueError(f"{where!r} holds the array {_PRIOR_ARRAY!r} but its topic_word_prior parameter does not "
                         "refer to it.")
    if matrix_prior and "n_components" not in valid:  # (HDP: a number of topics only after the fit, no matrix prior)
        raise ValueError(f"{where!r} has an invalid or inconsistent parameter: topic_word_prior refers to a matrix "
                         f"prior, which {name} does not take.")
    if matrix_prior:  # a matrix prior, stored as an array
        n_components = params.get("n_components", cls().n_components)
        if isinstance(n_components, bool) or not isinstance(n_components, int) or not 1 <= n_components <= 2**31:
            raise ValueError(f"{where!r} has an invalid or inconsistent parameter: n_components is "
                             f"{_registry._show(n_components)}.")
        params["topic_word_prior"] = _rebuild_prior(params["topic_word_prior"], arrays or {}, n_components, where)
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
    if entry.keeps_random_state:  # partial_fit continues a random stream that a file does not hold: start one
        model.random_state_ = rng
    return entry, model


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
    float_dtype = np.dtype(model._float)
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
    _check_prior_state(model, state, path)
    for key, value in state.items():
        setattr(model, key, value)
    return entry, model


def _check_prior_state(model, state: dict, path: Path) -> None:
    """With a matrix prior: the parameter's width is the model's, every topic and term keeps a positive
    prior entry, and the LDA topics are 0 exactly where the fitted prior excludes a term (so a loaded model
    never takes the log of a zero it does not expect); with a number, the LDA topics are positive."""
    where = str(path)
    V = state.get("n_features_in_")
    param = model.topic_word_prior
    if V is not None and param is not None and np.ndim(param) == 2 and np.shape(param)[1] != V:
        raise ValueError(f"{where!r} has inconsistent shapes: the topic_word_prior parameter has {np.shape(param)[1]} "
                         f"terms, but the model was fitted on {V}.")
    prior, comp = state.get("topic_word_prior_"), state.get("components_")
    if isinstance(prior, np.ndarray):
        if not (np.all(np.any(prior > 0, axis=1)) and np.all(np.any(prior > 0, axis=0))):
            raise ValueError(f"{where!r} has inconsistent values: topic_word_prior_ leaves a topic or a term with no "
                             "positive entry.")
    spec = _registry.entry_of(model).array_spec("components_")
    if comp is None or spec is None or spec.values != "zero_or_positive":  # PLSA: probabilities, zeros allowed
        return
    if not isinstance(prior, np.ndarray):  # a number: _fitted_state checked that every LDA topic weight is positive
        return
    mismatch = (comp == 0) != (prior == 0)
    if np.any(mismatch):
        k, w = np.unravel_index(int(np.argmax(mismatch)), comp.shape)
        raise ValueError(f"{where!r} has inconsistent values: components_ entry ({k}, {w}) is {comp[k, w].item()!r} "
                         f"but topic_word_prior_ there is {prior[k, w].item()!r}; an LDA topic is 0 exactly where its "
                         "prior excludes the term.")


def _check_vocabulary(arrays, n_features, path: Path):
    """The file's vocabulary (None when it has none), checked against the model's width."""
    where = str(path)
    vocabulary = arrays.get("vocabulary")
    if n_features is None:  # no n_features_in_: _check_model says so
        return vocabulary
    if vocabulary is not None:
        if vocabulary.ndim != 1 or vocabulary.shape[0] != n_features:
            raise ValueError(f"{where!r} has inconsistent shapes: {vocabulary.size} vocabulary terms for "
                             f"{n_features} features.")
        if vocabulary.dtype.kind != "U":
            raise ValueError(f"{where!r}: the vocabulary must hold strings, got dtype {vocabulary.dtype}.")
    for key in ("vectorizer__doc_freq", "vectorizer__term_freq"):
        values = arrays.get(key)
        if values is None:
            continue
        if values.dtype.kind not in "iu" or values.shape != (n_features,) or (values.size and values.min() < 0):
            raise ValueError(f"{where!r} has inconsistent shapes or values: {key} must hold {n_features} "
                             f"non-negative integers, got shape {values.shape} and dtype {values.dtype}.")
    return vocabulary


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
    entry, model = _rebuild_model(meta, arrays, path)
    vocabulary = _check_vocabulary(arrays, getattr(model, "n_features_in_", None), path)
    _check_model(model, entry, path)
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
