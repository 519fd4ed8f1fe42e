"""Saving and loading fitted models: plain arrays plus JSON metadata in one ``.npz`` file.

Loading never unpickles (``allow_pickle=False``), so a model file cannot execute code. The file
holds a format version; a file from a newer version, a truncated file, a file that is not a
topicvb model, or one whose arrays have inconsistent shapes is refused with a clear message.
Ordinary pickling of the estimators also works, for scikit-learn workflows.

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

import numpy as np

FORMAT = "topicvb-model"
FORMAT_VERSION = 2

_SCALAR_TYPES = (bool, int, float, str, type(None))

# Fitted attributes each model needs beyond components_ and n_features_in_ (load refuses a file without them).
_LDA_STATE = ("doc_topic_prior_", "topic_word_prior_")
_REQUIRED = {
    "PLSA": (),
    "BatchLDA": _LDA_STATE,
    "CollapsedLDA": _LDA_STATE,
    "OnlineLDA": _LDA_STATE + ("n_batch_iter_", "n_docs_seen_"),
    "StochasticCollapsedLDA": _LDA_STATE + ("n_batch_iter_", "n_docs_seen_", "total_tokens_"),
}
_VECTORIZER_PARAMS = ("min_df", "max_df", "max_features", "input", "encoding", "chunk_size", "n_jobs", "verbose")


def _model_classes():
    from . import models

    return {name: getattr(models, name) for name in models.__all__}


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
def _split_pipeline(obj):
    """``(vectorizer, model)`` of a two-step Pipeline ``[Vectorizer, topic model]``, else ``(None, obj)``."""
    from sklearn.pipeline import Pipeline

    if not isinstance(obj, Pipeline):
        return None, obj
    from .text import Vectorizer

    steps = [est for _, est in obj.steps]
    if len(steps) != 2 or not isinstance(steps[0], Vectorizer):
        raise TypeError(
            "save expects a topicvb model or a Pipeline of exactly (Vectorizer, topic model); got a Pipeline of "
            f"({', '.join(type(s).__name__ for s in steps)})."
        )
    return steps[0], steps[1]


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

    Parameters
    ----------
    model : PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA, or a fitted Pipeline
        A fitted model, or a fitted :class:`topicvb.TopicPipeline` (any scikit-learn ``Pipeline``
        of exactly a :class:`topicvb.text.Vectorizer` and a topicvb model): then the vectorizer's
        vocabulary, tokenizer settings and phrases are saved too, and :func:`load` returns a
        :class:`~topicvb.TopicPipeline` that turns raw texts into topics.
    path : str or Path
        Destination (``.npz`` is added if missing); written atomically (a temporary file renamed
        into place), so an interrupted save never leaves a half-written model at ``path``.
    vocabulary : sequence of str, optional
        Column names to keep with the model (defaults to the vectorizer's terms, else
        ``feature_names_in_`` when present).
    vectorizer : Vectorizer, optional
        A fitted vectorizer to store with a bare model (same effect as saving the pipeline).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    TypeError
        Not a topicvb model (or pipeline of one); a vectorizer whose tokenizer is an arbitrary
        callable (a file stores parameters, not code: pickle such a pipeline instead).
    NotFittedError
        The model or vectorizer is not fitted.
    """
    from sklearn.utils.validation import check_is_fitted

    pipe_vec, model = _split_pipeline(model)
    if pipe_vec is not None and vectorizer is not None:
        raise TypeError("save: pass either a Pipeline or vectorizer=, not both.")
    vectorizer = pipe_vec if pipe_vec is not None else vectorizer
    classes = _model_classes()
    name = type(model).__name__
    if name not in classes:
        raise TypeError(f"save expects a topicvb model ({', '.join(sorted(classes))}), got {name}.")
    check_is_fitted(model)
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
    meta = {"format": FORMAT, "version": FORMAT_VERSION, "class": name, "params": params, "scalars": scalars}
    if vectorizer is not None:
        from .text import Vectorizer

        if not isinstance(vectorizer, Vectorizer):
            raise TypeError(f"save: vectorizer must be a topicvb.text.Vectorizer, got {type(vectorizer).__name__}.")
        meta["vectorizer"], vec_arrays = _vectorizer_record(vectorizer, model.n_features_in_)
        if vocabulary is not None and [str(t) for t in vocabulary] != vectorizer.vocab_.terms:
            raise ValueError("save: vocabulary differs from the vectorizer's terms; leave vocabulary=None.")
        arrays.update(vec_arrays)
    else:
        if vocabulary is None:
            vocabulary = getattr(model, "feature_names_in_", None)
        if vocabulary is not None:
            if isinstance(vocabulary, (str, bytes)):
                raise TypeError("save: vocabulary must be a sequence of terms, got a single str.")
            vocabulary = np.asarray([str(t) for t in vocabulary], dtype=str)
            if vocabulary.shape[0] != model.n_features_in_:
                raise ValueError(
                    f"vocabulary has {vocabulary.shape[0]} terms, but the model was fitted on {model.n_features_in_}."
                )
            arrays["vocabulary"] = vocabulary
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
    missing = [a for a in _REQUIRED.get(name, ()) if getattr(model, a, None) is None]
    if missing:
        raise ValueError(f"{where!r} lacks the fitted attribute(s) {', '.join(missing)} that a {name} needs.")


def load(path, *, return_vocabulary: bool = False):
    """Load a model (or a model with its vectorizer) written by :func:`save`.

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file.
    return_vocabulary : bool, default=False
        Also return the stored vocabulary (a list of str, or None).

    Returns
    -------
    model or TopicPipeline, or (that, vocabulary)
        The fitted model; a fitted :class:`topicvb.TopicPipeline` (vectorizer + model) when the
        file was saved with a vectorizer, so ``load(path).document_topics(["some text"])`` works.

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
    classes = _model_classes()
    name = meta.get("class")
    cls = classes.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"{str(path)!r} holds an unknown model class {name!r}.")
    valid = set(cls().get_params())
    model = cls(**{k: v for k, v in meta.get("params", {}).items() if k in valid})
    for key, value in arrays.items():
        if key.startswith("attr__"):
            setattr(model, key[len("attr__"):], value)
    for key, value in meta.get("scalars", {}).items():
        setattr(model, key, value)
    vocabulary = arrays.get("vocabulary")
    n_features = getattr(model, "n_features_in_", None)
    if vocabulary is not None and (vocabulary.ndim != 1 or vocabulary.shape[0] != n_features):
        raise ValueError(f"{str(path)!r} has inconsistent shapes: {len(vocabulary)} vocabulary terms for "
                         f"{n_features} features.")
    _check_model(model, name, path)
    vocab = None if vocabulary is None else vocabulary.tolist()
    result = model
    if meta.get("vectorizer") is not None:
        from .pipeline import make_topic_pipeline

        if vocabulary is None:
            raise ValueError(f"{str(path)!r} has a vectorizer record but no vocabulary.")
        result = make_topic_pipeline(_rebuild_vectorizer(meta["vectorizer"], arrays, path), model)
    return (result, vocab) if return_vocabulary else result
