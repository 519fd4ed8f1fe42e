"""The :class:`Corpus` container: a document-term count matrix with its vocabulary and metadata."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import check_nonnegative_counts
from ._files import atomic_paths, check_input_file, check_path_type, is_npy, not_pickled

logger = logging.getLogger(__name__)

_FORMAT = "topicvb.Corpus"
_FORMAT_VERSION = 1
_META_KEYS = ("name", "description", "has_doc_ids", "has_texts", "labels", "label_names")
_ARRAY_KEYS = ("X_data", "X_indices", "X_indptr", "X_shape", "vocab_bytes", "vocab_offsets")


def _pack_strings(strings) -> tuple[np.ndarray, np.ndarray]:
    """Encode a list of str as one UTF-8 byte array plus int64 offsets (no pickling needed).

    The strings are encoded one at a time into a single buffer (not a list of encoded strings joined at the end, which
    held the text twice more)."""
    buf = bytearray()
    lengths = []
    for s in strings:
        b = s.encode("utf-8", errors="surrogatepass")
        buf += b
        lengths.append(len(b))
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    if lengths:
        np.cumsum(lengths, out=offsets[1:])
    data = np.frombuffer(buf, dtype=np.uint8)
    return data, offsets


def _unpack_strings(data: np.ndarray, offsets: np.ndarray) -> list[str]:
    """Inverse of :func:`_pack_strings`.

    A byte array as :func:`_pack_strings` makes it is decoded through a memoryview (no copy of the whole table), with
    the offsets as Python ints; anything else as before, through a copy of its bytes (so a corrupt table fails the
    same way)."""
    if data.dtype == np.uint8 and data.ndim == 1 and data.flags.c_contiguous:
        raw = memoryview(data)
    else:
        raw = data.tobytes()
    if offsets.ndim == 1 and offsets.dtype.kind in "iu":  # (slices by ints, as by NumPy integers)
        bounds = offsets.tolist()
        pairs = zip(bounds[:-1], bounds[1:])
    else:
        pairs = zip(offsets[:-1], offsets[1:])
    return [str(raw[a:b], "utf-8", "surrogatepass") for a, b in pairs]


def encode_labels(values) -> tuple[np.ndarray, list]:
    """Turn a sequence of label values into int64 codes and the sorted list of distinct values.

    Values of mixed types are compared as strings. Returns ``(codes, label_names)`` with
    ``label_names[codes[i]] == values[i]``.
    """
    values = list(values)
    try:
        names = sorted(set(values))
    except TypeError:
        values = [str(v) for v in values]
        names = sorted(set(values))
    index = {v: i for i, v in enumerate(names)}
    codes = np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))
    return codes, names


def _storable_labels(labels) -> tuple[str, Any]:
    """How :meth:`Corpus.save` stores the labels: ``("array", numeric ndarray)`` or ``("strings", list of str)``.

    Raises ``TypeError`` for labels that would not load back as they are: anything but numbers (bool,
    int, float) or strings, such as None, or a mix of numbers and strings.
    """
    labels = np.asarray(labels)
    if labels.dtype.kind in "biuf":
        return "array", labels
    expected = ("Corpus.save stores labels that are numbers (bool, int, float) or strings, one per document "
                "and all of one kind")
    if labels.ndim != 1 or labels.dtype.kind not in "UO":
        raise TypeError(f"{expected}; got an array of dtype {labels.dtype} and shape {labels.shape}.")
    values = labels.tolist()
    if all(isinstance(v, str) for v in values):
        return "strings", values
    is_number = lambda v: isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating))
    if all(is_number(v) for v in values):
        numeric = np.asarray(values)
        if numeric.dtype.kind in "biuf":  # (not for ints beyond 64 bits)
            return "array", numeric
        raise TypeError(f"{expected}; the labels hold integers beyond 64 bits.")
    has_str = any(isinstance(v, str) for v in values)
    i = next(i for i, v in enumerate(values) if (not isinstance(v, str) if has_str else not is_number(v)))
    raise TypeError(f"{expected}; labels[{i}] is {type(values[i]).__name__}: {values[i]!r:.80}.")


def _read_meta(arrays: dict, p, invalid: str) -> dict:
    """The metadata of a saved corpus, checked to be a JSON object of a format this version reads."""
    if "meta_json" not in arrays:
        raise ValueError(f"{str(p)!r} is a .npz file but not a topicvb corpus (no 'meta_json' entry).")
    try:
        meta = json.loads(arrays["meta_json"].tobytes().decode("utf-8"))
    except ValueError as exc:  # not UTF-8, or not JSON
        raise ValueError(f"{invalid}: its metadata (meta_json) is not UTF-8 JSON ({exc}).") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{invalid}: its metadata (meta_json) is a JSON {type(meta).__name__}, not an object.")
    if meta.get("format") != _FORMAT:
        raise ValueError(f"{str(p)!r} is not a topicvb corpus (format {meta.get('format')!r}).")
    version = meta.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ValueError(f"{invalid}: it has an invalid format version {version!r} (expected an int).")
    if version > _FORMAT_VERSION:
        raise ValueError(
            f"{str(p)!r} was written by a newer topicvb (corpus format {version}); "
            f"this one reads up to {_FORMAT_VERSION}. Upgrade topicvb."
        )
    return meta


def _check_text_options(value, what: str) -> dict:
    """A text-options record: a dict of str keys and str, bool, int, float or None values (a copy)."""
    if not isinstance(value, dict):
        raise TypeError(f"{what} must be a dict of option names to values, got {type(value).__name__}.")
    for key, item in value.items():
        if not isinstance(key, str) or not (item is None or isinstance(item, (str, bool, int, float))):
            raise TypeError(f"{what} must map option names (str) to str, bool, int, float or None; got "
                            f"{key!r}: {item!r}.")
    return dict(value)


def _stored_text_options(meta: dict, invalid: str):
    """The text options a saved corpus records (None for a file without them)."""
    value = meta.get("text_options")
    if value is None:
        return None
    try:
        return _check_text_options(value, "its text_options record")
    except TypeError as exc:
        raise ValueError(f"{invalid}: {exc}") from None


def _check_entries(meta: dict, arrays: dict, invalid: str) -> list[str]:
    """The array names the metadata calls for, after checking that they and the metadata keys exist."""
    missing = [f"metadata {k!r}" for k in _META_KEYS if k not in meta]
    needed = list(_ARRAY_KEYS)
    needed += ["doc_ids_bytes", "doc_ids_offsets"] if meta.get("has_doc_ids") else []
    needed += ["texts_bytes", "texts_offsets"] if meta.get("has_texts") else []
    needed += {"array": ["labels"], "strings": ["labels_bytes", "labels_offsets"]}.get(meta.get("labels"), [])
    missing += [f"array {k!r}" for k in needed if k not in arrays]
    if missing:
        raise ValueError(f"{invalid}: missing {', '.join(missing)}.")
    return needed


def _checked_npz_path(path):
    """``path`` as a Path to a file that may be a .npz archive (not a single .npy array), for :meth:`Corpus.load`."""
    p = check_input_file(path, "path")
    if is_npy(p):  # np.load would give the single array, not an archive, whatever the file's name
        raise ValueError(f"Corpus.load could not read {str(p)!r} as a .npz file: it is a single NumPy array "
                         "(.npy), not a .npz archive.")
    return p


def _read_npz(p, names=None) -> tuple[dict, list]:
    """The entries of the archive (all, or only those of ``names`` it holds) and the names of all its entries."""
    try:
        with np.load(p, allow_pickle=False) as npz:
            files = list(npz.files)
            arrays = {k: npz[k] for k in files if names is None or k in names}
    except Exception as exc:
        raise ValueError(f"Corpus.load could not read {str(p)!r} as a .npz file: {not_pickled(exc)}.") from None
    return arrays, files


def _stored_shape(arrays: dict, p) -> tuple:
    """The shape of the saved document-term matrix, as the tuple of ints its ``X_shape`` entry holds."""
    try:
        return tuple(int(s) for s in arrays["X_shape"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{str(p)!r} holds an invalid document-term matrix (bad index structure: {exc}).") from None


def _string_table(arrays: dict, key: str, invalid: str) -> list[str]:
    """The strings of the table ``key`` (its ``_bytes`` and ``_offsets`` entries, taken out of ``arrays``)."""
    try:
        return _unpack_strings(arrays.pop(f"{key}_bytes"), arrays.pop(f"{key}_offsets"))
    except (TypeError, ValueError) as exc:  # corrupt string tables (offsets, UTF-8)
        raise ValueError(f"{invalid}: its string tables are corrupt ({exc}).") from None


def _check_vocabulary_size(n_terms: int, n_columns: int) -> None:
    if n_terms != n_columns:
        raise ValueError(
            f"Corpus vocabulary has {n_terms} terms, but X has {n_columns} columns; "
            "they must match (one term per column)."
        )


def read_saved_vocabulary(path) -> tuple[list[str], dict | None]:
    """The vocabulary and text options of a corpus written by :meth:`Corpus.save`, without its counts or texts.

    Only the metadata, the vocabulary and the matrix's shape are read from the archive, and they are checked as
    :meth:`Corpus.load` checks them, with the same errors (for ``--vocab CORPUS.npz``).
    """
    p = _checked_npz_path(path)
    arrays, files = _read_npz(p, ("meta_json", "X_shape", "vocab_bytes", "vocab_offsets"))
    invalid = f"{str(p)!r} is not a valid topicvb corpus"
    meta = _read_meta(arrays, p, invalid)
    _check_entries(meta, files, invalid)
    shape = _stored_shape(arrays, p)
    if len(shape) != 2 or min(shape) < 0:
        raise ValueError(f"{str(p)!r} holds an invalid document-term matrix (bad index structure: its shape is "
                         f"{shape}, not two non-negative sizes).")
    vocabulary = _string_table(arrays, "vocab", invalid)
    _check_vocabulary_size(len(vocabulary), shape[1])
    return vocabulary, _stored_text_options(meta, invalid)


@dataclass(repr=False, eq=False)
class Corpus:
    """A document-term count matrix with its vocabulary and optional document metadata.

    Parameters
    ----------
    X : sparse matrix of shape (n_docs, n_terms)
        Term counts; stored as CSR with sorted indices. Anything :func:`scipy.sparse.csr_matrix`
        accepts (including a dense array) is converted.
    vocabulary : list of str
        The term of each column of ``X``, in column order.
    doc_ids : list of str, default=None
        A unique key per document (a file path, a qualified name, a line number).
    labels : ndarray of shape (n_docs,) or list, default=None
        One label per document. Readers store integer codes into ``label_names``.
    label_names : list, default=None
        The label values, when ``labels`` holds integer codes (as in scikit-learn's ``target_names``).
    texts : list of str, default=None
        The raw text of each document, when it was read from text.
    name : str, default=""
        A short name for the corpus (``"20newsgroups-train"``).
    description : str, default=""
        Where the corpus came from and how it was processed.
    text_options : dict, default=None
        The text options its counts were made with (``{"stop_words": "english", "stem": "none",
        "phrases": False, "clean_email": False}``), as ``topicvb vectorize`` records them, so that texts counted later over
        its vocabulary (``--vocab corpus.npz``) can be checked to use the same; None when unknown. Keys are
        str, values str, bool, int, float or None.

    Attributes
    ----------
    n_docs : int
        Number of documents (rows of ``X``).
    n_terms : int
        Number of terms (columns of ``X``).
    n_tokens : int
        Total number of tokens, the sum of ``X``.

    Examples
    --------
    >>> from topicvb.datasets import make_lda_corpus
    >>> corpus = make_lda_corpus(100, 50, 3, random_state=0).corpus
    >>> corpus.n_docs, corpus.n_terms
    (100, 50)
    """

    X: Any
    vocabulary: list
    doc_ids: list | None = None
    labels: Any = None
    label_names: list | None = None
    texts: list | None = None
    name: str = ""
    description: str = ""
    text_options: dict | None = None

    def __post_init__(self):
        X = self.X
        if not sp.issparse(X):
            try:
                X = np.asarray(X)
            except (TypeError, ValueError):
                raise TypeError(
                    f"Corpus X must be a sparse or dense 2-D matrix, got {type(self.X).__name__}."
                ) from None
            if X.ndim != 2:
                raise ValueError(f"Corpus X must be 2-D (n_docs, n_terms), got shape {X.shape}.")
        if not np.issubdtype(X.dtype, np.number) or np.issubdtype(X.dtype, np.complexfloating):
            raise TypeError(f"Corpus X must hold real numbers (term counts), got dtype {X.dtype}.")
        X = sp.csr_matrix(X)
        if X.nnz and not np.all(np.isfinite(X.data)):
            raise ValueError("Corpus X must hold finite term counts; it has NaN or infinite entries.")
        check_nonnegative_counts(X, "Corpus")
        if not X.has_canonical_format:
            X.sum_duplicates()
        self.X = X
        if isinstance(self.vocabulary, (str, bytes)) or not isinstance(self.vocabulary, Iterable):
            raise TypeError(f"Corpus vocabulary must be a list of str (one per column of X), got "
                            f"{type(self.vocabulary).__name__}.")
        self.vocabulary = [str(t) for t in self.vocabulary]
        _check_vocabulary_size(len(self.vocabulary), X.shape[1])
        n = X.shape[0]
        for attr in ("doc_ids", "labels", "texts"):
            value = getattr(self, attr)
            if value is not None and len(value) != n:
                raise ValueError(f"Corpus {attr} has {len(value)} entries, but X has {n} documents; they must match.")
        if self.doc_ids is not None:
            self.doc_ids = [str(d) for d in self.doc_ids]
        if self.texts is not None:
            self.texts = list(self.texts)
            bad = next((i for i, t in enumerate(self.texts) if not isinstance(t, str)), None)
            if bad is not None:
                raise TypeError(f"Corpus texts must be str (the raw text of each document); texts[{bad}] is "
                                f"{type(self.texts[bad]).__name__}: {self.texts[bad]!r:.80}.")
        if self.labels is not None and not isinstance(self.labels, np.ndarray):
            self.labels = np.asarray(self.labels)
        if self.label_names is not None:
            self.label_names = list(self.label_names)
        if self.text_options is not None:
            self.text_options = _check_text_options(self.text_options, "Corpus text_options")

    # ------------------------------------------------------------------ sizes
    @property
    def n_docs(self) -> int:
        """Number of documents (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_terms(self) -> int:
        """Number of terms (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def n_tokens(self) -> int:
        """Total number of tokens (the sum of ``X``)."""
        total = self.X.data.sum()
        return int(total) if np.issubdtype(self.X.dtype, np.integer) or float(total).is_integer() else float(total)

    @property
    def doc_lengths(self) -> np.ndarray:
        """Tokens per document, an ndarray of shape (n_docs,)."""
        return np.asarray(self.X.sum(axis=1)).ravel()

    def __len__(self) -> int:
        return self.n_docs

    def __repr__(self) -> str:
        parts = [f"n_docs={self.n_docs}", f"n_terms={self.n_terms}", f"n_tokens={self.n_tokens}"]
        if self.name:
            parts.insert(0, f"name={self.name!r}")
        if self.labels is not None:
            n_labels = len(self.label_names) if self.label_names is not None else len(np.unique(self.labels))
            parts.append(f"n_labels={n_labels}")
        parts.append(f"texts={'yes' if self.texts is not None else 'no'}")
        return f"Corpus({', '.join(parts)})"

    def summary(self) -> str:
        """Describe the corpus in a few lines: documents, terms, tokens, lengths, empty documents.

        Returns
        -------
        text : str
            A multi-line, human-readable summary.
        """
        lengths = self.doc_lengths
        n_empty = int(np.count_nonzero(lengths == 0))
        lines = [f"Corpus {self.name!r}" if self.name else "Corpus"]
        if self.description:
            lines.append(f"  {self.description}")
        lines += [
            f"  documents        {self.n_docs:,}",
            f"  terms            {self.n_terms:,}",
            f"  tokens           {self.n_tokens:,}",
            f"  non-zeros        {self.X.nnz:,}",
        ]
        if self.n_docs:
            lines.append(
                f"  doc length       mean {lengths.mean():.1f}, median {np.median(lengths):.0f}, "
                f"min {lengths.min():.0f}, max {lengths.max():.0f}"
            )
        lines.append(f"  empty documents  {n_empty:,}")
        if self.labels is not None:
            n_labels = len(self.label_names) if self.label_names is not None else len(np.unique(self.labels))
            lines.append(f"  labels           {n_labels:,} distinct")
        lines.append(f"  texts            {'kept' if self.texts is not None else 'not kept'}")
        return "\n".join(lines)

    def label_strings(self) -> list | None:
        """The label of each document as a value from ``label_names`` (or ``labels`` as is).

        Returns
        -------
        labels : list or None
            ``None`` when the corpus has no labels.
        """
        if self.labels is None:
            return None
        if self.label_names is None:
            return list(self.labels)
        return [self.label_names[int(c)] for c in self.labels]

    def subset(self, index) -> Corpus:
        """Return a new Corpus with the documents selected by ``index`` (indices, slice or boolean mask).

        Parameters
        ----------
        index : array-like of int or bool, or slice
            Which documents to keep, in which order.

        Returns
        -------
        corpus : Corpus
            The selected documents with the same vocabulary.
        """
        rows = np.arange(self.n_docs)[index]
        pick = lambda seq: None if seq is None else [seq[i] for i in rows]
        return Corpus(
            X=self.X[rows],
            vocabulary=list(self.vocabulary),
            doc_ids=pick(self.doc_ids),
            labels=None if self.labels is None else np.asarray(self.labels)[rows],
            label_names=None if self.label_names is None else list(self.label_names),
            texts=pick(self.texts),
            name=self.name,
            description=self.description,
            text_options=None if self.text_options is None else dict(self.text_options),
        )

    # ------------------------------------------------------------- save/load
    def save(self, path) -> None:
        """Write the corpus to a single ``.npz`` file, atomically.

        The file holds only arrays (counts, strings as UTF-8 bytes, metadata as JSON bytes), so
        :meth:`load` never unpickles anything. The data goes to a temporary file in the same folder
        first, which replaces ``path`` only when complete.

        Parameters
        ----------
        path : str or os.PathLike
            Destination file. NumPy appends ``.npz`` to names that lack it; this method does not,
            so the file is written exactly at ``path``.

        Raises
        ------
        TypeError
            If ``path`` is not a path, or the labels would not load back as they are: labels must be
            numbers (bool, int, float) or strings, not other objects (such as None) nor a mix of both.
        """
        check_path_type(path, "path")
        X = self.X
        arrays: dict[str, np.ndarray] = {
            "X_data": X.data,
            "X_indices": X.indices,
            "X_indptr": X.indptr,
            "X_shape": np.asarray(X.shape, dtype=np.int64),
        }
        arrays["vocab_bytes"], arrays["vocab_offsets"] = _pack_strings(self.vocabulary)
        meta: dict[str, Any] = {
            "format": _FORMAT,
            "version": _FORMAT_VERSION,
            "name": self.name,
            "description": self.description,
            "has_doc_ids": self.doc_ids is not None,
            "has_texts": self.texts is not None,
            "labels": None,
            "label_names": self.label_names,
        }
        if self.text_options is not None:  # (optional: files written before it have none)
            meta["text_options"] = self.text_options
        if self.doc_ids is not None:
            arrays["doc_ids_bytes"], arrays["doc_ids_offsets"] = _pack_strings(self.doc_ids)
        if self.texts is not None:
            arrays["texts_bytes"], arrays["texts_offsets"] = _pack_strings(self.texts)
        if self.labels is not None:
            kind, labels = _storable_labels(self.labels)
            if kind == "array":
                arrays["labels"] = labels
            else:
                arrays["labels_bytes"], arrays["labels_offsets"] = _pack_strings(labels)
            meta["labels"] = kind
        try:
            meta_bytes = json.dumps(meta).encode("utf-8")
        except TypeError as exc:
            raise TypeError(f"Corpus.save can store label_names only as JSON values (str, int, float); {exc}.") from exc
        arrays["meta_json"] = np.frombuffer(meta_bytes, dtype=np.uint8)
        with atomic_paths([path]) as (tmp,), open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
        logger.debug("Saved %r to %s.", self, os.fspath(path))

    @classmethod
    def load(cls, path) -> Corpus:
        """Read a corpus written by :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike
            A file written by :meth:`Corpus.save`.

        Returns
        -------
        corpus : Corpus

        Raises
        ------
        FileNotFoundError
            If ``path`` does not exist.
        ValueError
            If the file is not a corpus written by :meth:`Corpus.save`.
        """
        p = _checked_npz_path(path)
        arrays, _ = _read_npz(p)  # (every entry: one numpy cannot read fails the file, as it always did)
        invalid = f"{str(p)!r} is not a valid topicvb corpus"
        meta = _read_meta(arrays, p, invalid)
        needed = _check_entries(meta, arrays, invalid)
        shape = _stored_shape(arrays, p)
        try:
            X = sp.csr_matrix((arrays.pop("X_data"), arrays.pop("X_indices"), arrays.pop("X_indptr")), shape=shape)
            X.check_format(full_check=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{str(p)!r} holds an invalid document-term matrix (bad index structure: {exc}).") from None
        labels = None
        if meta["labels"] == "array":
            labels = arrays.pop("labels")
        elif meta["labels"] == "strings":
            labels = np.asarray(_string_table(arrays, "labels", invalid), dtype=object)
        # each table's bytes are let go once decoded (the texts are most of a corpus that keeps them)
        strings = {key: _string_table(arrays, key, invalid)
                   for key in ("vocab", "doc_ids", "texts") if f"{key}_bytes" in needed}
        del arrays
        return cls(
            X=X,
            vocabulary=strings["vocab"],
            doc_ids=strings.get("doc_ids"),
            labels=labels,
            label_names=meta["label_names"],
            texts=strings.get("texts"),
            name=meta["name"],
            description=meta["description"],
            text_options=_stored_text_options(meta, invalid),
        )
