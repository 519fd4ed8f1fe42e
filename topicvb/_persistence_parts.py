"""The parts of a model file beside the model's own state: the vectorizer record, the vocabulary and a
matrix ``topic_word_prior``.

:mod:`topicvb.persistence` writes and reads the file (its format is described there); this module turns
each part into JSON metadata and arrays and back, and checks what it reads: a vectorizer is stored as
its parameters, its tokenizer's parameters, its learned phrases and its term statistics (never as code);
a matrix prior (a :class:`topicvb.SeededPrior` or an array) as one dense array plus a JSON record.
Every refusal is a ``ValueError`` (``TypeError`` for what a file cannot hold) naming the file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .models import _registry

PRIOR_ARRAY = "param__topic_word_prior"  # the array of a matrix topic_word_prior parameter
VECTORIZER_PARAMS = ("min_df", "max_df", "max_features", "input", "encoding", "chunk_size", "n_jobs", "verbose")


def plain(value):
    """A NumPy array or scalar as the Python list or number it holds (anything else unchanged)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    return value


def _plain_params(params: dict) -> dict:
    """``get_params()`` with NumPy values as the Python values they hold (what JSON takes)."""
    return {key: plain(value) for key, value in params.items()}


# ---------------------------------------------------------------------------- the vectorizer and vocabulary
def string_array(values, what: str) -> np.ndarray:
    """``values`` as the NumPy string array a file stores, or ValueError naming ``what`` for a string that ends in
    a NUL character: NumPy's string arrays drop trailing NULs, so it would load as another string (or as a
    second copy of one), silently."""
    values = [str(v) for v in values]
    bad = next((v for v in values if v.endswith("\x00")), None)
    if bad is not None:
        raise ValueError(f"save: {what} holds {bad!r}, which ends in a NUL character: a saved string array drops "
                         f"trailing NULs, so it would load as {bad.rstrip(chr(0))!r}. Remove the NUL characters (from "
                         "the texts or the vocabulary before fitting, or from the names).")
    return np.asarray(values, dtype=str)


def vectorizer_record(vec, n_features: int):
    """JSON metadata and arrays describing a fitted Vectorizer; TypeError for what a file cannot hold."""
    from sklearn.utils.validation import check_is_fitted

    from .text import PhraseDetector, Tokenizer

    check_is_fitted(vec, "vocabulary_")
    phrases_param = (_plain_params(vec.phrases.get_params()) if isinstance(vec.phrases, PhraseDetector)
                     else bool(vec.phrases))
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
            tok_params[key] = plain(value)  # (a NumPy int, e.g. min_length=np.int64(3), as the int it holds)
    det = vec.phrase_detector_
    phrases = None
    if det is not None:
        phrases = {
            "params": _plain_params(det.get_params()),
            "pairs": [[a, b, float(det.scores_[(a, b)])] for a, b in det.phrases_],
            "threshold_": plain(det.threshold_),
            "n_docs_": int(det.n_docs_),
            "n_tokens_": int(det.n_tokens_),
        }
    record = {
        "params": {k: plain(getattr(vec, k)) for k in VECTORIZER_PARAMS},
        "dtype": np.dtype(vec.dtype).str,
        "fixed_vocabulary": vec.vocabulary is not None,
        "phrases_param": phrases_param,
        "tokenizer": tok_params,
        "phrases": phrases,
        "n_docs_": int(vec.n_docs_),
        "vocab_n_docs": vec.vocab_.n_docs,
    }
    arrays = {"vocabulary": string_array(vec.vocab_.terms, "the vectorizer's vocabulary")}
    for name in ("doc_freq", "term_freq"):
        values = getattr(vec.vocab_, name)
        if values is not None:
            arrays["vectorizer__" + name] = np.asarray(values, dtype=np.int64)
    return record, arrays


def rebuild_vectorizer(record, arrays, path: Path):
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


def vectorizer_arrays(vectorizer, model, vocabulary):
    """The vectorizer record and arrays (its terms are the vocabulary; a different one is refused)."""
    from .text import Vectorizer

    if not isinstance(vectorizer, Vectorizer):
        raise TypeError(f"save: vectorizer must be a topicvb.text.Vectorizer, got {type(vectorizer).__name__}.")
    record, arrays = vectorizer_record(vectorizer, model.n_features_in_)
    if vocabulary is not None and [str(t) for t in vocabulary] != vectorizer.vocab_.terms:
        raise ValueError("save: vocabulary differs from the vectorizer's terms; leave vocabulary=None.")
    return record, arrays


def vocabulary_arrays(model, vocabulary) -> dict:
    """``{"vocabulary": terms}`` of a model saved without a vectorizer (empty when there are none)."""
    if vocabulary is None:
        vocabulary = getattr(model, "feature_names_in_", None)
    if vocabulary is None:
        return {}
    if isinstance(vocabulary, (str, bytes)):
        raise TypeError("save: vocabulary must be a sequence of terms, got a single str.")
    vocabulary = string_array(vocabulary, "vocabulary")
    if vocabulary.shape[0] != model.n_features_in_:
        raise ValueError(
            f"vocabulary has {vocabulary.shape[0]} terms, but the model was fitted on {model.n_features_in_}."
        )
    return {"vocabulary": vocabulary}


def check_vocabulary(arrays, n_features, path: Path):
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


# ---------------------------------------------------------------------------- a matrix topic_word_prior
def prior_record(value):
    """``(JSON record, dense float64 array)`` of a matrix ``topic_word_prior`` (None, None for a number)."""
    import numbers

    import scipy.sparse as sp

    from .guided import SeededPrior

    if value is None or (isinstance(value, (numbers.Real, np.number)) and not isinstance(value, bool)):
        return None, None
    if isinstance(value, SeededPrior):
        record = {"array": PRIOR_ARRAY, "type": "SeededPrior", "labels": list(value.labels),
                  "seed_topics": value.seed_topics, "seed_confidence": value.seed_confidence,
                  "base_prior": value.base_prior, "base_prior_default": value.base_prior_default,
                  "missing": value.missing, "exclude": value.exclude,
                  "seed_columns": {label: [int(c) for c in cols]
                                   for label, cols in (getattr(value, "seed_columns", None) or {}).items()}}
        return record, np.array(value.matrix, dtype=np.float64)
    try:
        arr = np.asarray(value.toarray() if sp.issparse(value) else value, dtype=np.float64)
    except (TypeError, ValueError):
        return None, None
    if arr.ndim != 2:
        return None, None
    return {"array": PRIOR_ARRAY, "type": "ndarray"}, arr


def rebuild_prior(record, arrays, n_components, where: str):
    """The ``topic_word_prior`` parameter of a file's JSON record (a matrix stored as an array)."""
    from ._validation import check_topic_word_prior
    from .guided import SeededPrior

    def bad(why):
        return ValueError(f"{where!r} has an invalid or inconsistent parameter: topic_word_prior {why}.")

    if record.get("array") != PRIOR_ARRAY or PRIOR_ARRAY not in arrays:
        raise bad(f"names no stored matrix (expected the array {PRIOR_ARRAY!r} in the file)")
    arr = arrays[PRIOR_ARRAY]
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
        columns = record.get("seed_columns", {})  # (files of before seed_columns have none)
        if not isinstance(columns, dict) or not all(isinstance(v, list) for v in columns.values()):
            raise ValueError("its seed_columns must map labels to lists of column indices")
        default = record.get("base_prior_default", False)  # (files of before it: the base prior as given)
        if not isinstance(default, bool):
            raise ValueError(f"its base_prior_default must be true or false, got {_registry._show(default)}")
        return SeededPrior(matrix, record.get("labels"), **words, **numbers_, seed_columns=columns,
                           base_prior_default=default)
    except (TypeError, ValueError) as exc:
        raise bad(f"is not a valid SeededPrior ({exc})") from None


def check_prior_state(model, state: dict, path: Path) -> None:
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
