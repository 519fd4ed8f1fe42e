"""Readers of raw text: folders of files, CSV, JSON Lines, 20 Newsgroups and NLTK corpora.

Each reader collects the texts, then turns them into counts with a vectorizer (by default a fresh
:class:`topicvb.text.Vectorizer`, imported only when needed) and returns a :class:`Corpus` that keeps
the texts, so a different vectorizer can be tried later without reading the files again.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import re
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

from .._validation import check_choice, check_encoding
from ._corpus import Corpus, encode_labels
from ._files import check_input_file, check_path_type, find_corpora_dir, open_text

logger = logging.getLogger(__name__)


def vectorize_texts(texts: Sequence[str], vectorizer=None):
    """Fit ``vectorizer`` on ``texts`` and return ``(X, vocabulary)``.

    Parameters
    ----------
    texts : sequence of str
        The documents.
    vectorizer : object, default=None
        Anything with ``fit_transform(texts)`` returning a sparse count matrix and
        ``get_feature_names_out()`` (a :class:`topicvb.text.Vectorizer`, or scikit-learn's
        ``CountVectorizer``). None creates ``topicvb.text.Vectorizer()``.

    Returns
    -------
    X : sparse matrix of shape (n_docs, n_terms)
    vocabulary : list of str
    """
    if vectorizer is None:
        from ..text import Vectorizer

        vectorizer = Vectorizer()
    for method in ("fit_transform", "get_feature_names_out"):
        if not callable(getattr(vectorizer, method, None)):
            raise TypeError(
                f"vectorizer must have a {method}() method (like topicvb.text.Vectorizer), "
                f"got {type(vectorizer).__name__}."
            )
    X = vectorizer.fit_transform(texts)
    vocabulary = [str(t) for t in vectorizer.get_feature_names_out()]
    return X, vocabulary


def _build(texts, vectorizer, *, labels=None, doc_ids=None, name="", description="") -> Corpus:
    X, vocabulary = vectorize_texts(texts, vectorizer)
    codes, label_names = (None, None) if labels is None else encode_labels(labels)
    return Corpus(
        X=X,
        vocabulary=vocabulary,
        doc_ids=doc_ids,
        labels=codes,
        label_names=label_names,
        texts=list(texts),
        name=name,
        description=description,
    )


# --------------------------------------------------------------------------- folders of files


def read_text_dir(
    path, vectorizer=None, encoding: str = "utf-8", pattern: str = "*", *, name: str | None = None
) -> Corpus:
    """Read a folder of text files, one document per file, with labels from sub-folder names.

    Files are searched recursively and read in sorted order of their relative paths; hidden files
    and folders (names starting with ``.``) are skipped. When some files sit in sub-folders, the
    label of each file is the name of its top-level sub-folder (``""`` for files directly in
    ``path``); when all files sit directly in ``path``, the corpus has no labels.

    Parameters
    ----------
    path : str or os.PathLike
        The folder, for example ``reviews/`` with ``reviews/pos/*.txt`` and ``reviews/neg/*.txt``.
    vectorizer : object, default=None
        Turns the texts into counts (see :func:`vectorize_texts`); None uses
        ``topicvb.text.Vectorizer()``.
    encoding : str, default="utf-8"
        Text encoding. Undecodable bytes are replaced by U+FFFD, and the number of files that had
        any is logged as a warning.
    pattern : str, default="*"
        Glob pattern that file names must match, such as ``"*.txt"``.
    name : str, default=None
        Name of the corpus; defaults to the folder name.

    Returns
    -------
    corpus : Corpus
        With ``texts``, ``doc_ids`` (relative POSIX paths) and, when there are sub-folders,
        ``labels`` (codes into ``label_names``).

    Raises
    ------
    TypeError
        If ``path`` is not a path.
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If ``path`` is not a folder, ``encoding`` is unknown, no file matches ``pattern``, or a file
        cannot be read.
    """
    check_path_type(path, "read_text_dir: path")
    check_encoding(encoding)
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"read_text_dir: folder {str(root)!r} does not exist.")
    if not root.is_dir():
        raise ValueError(f"read_text_dir expects a folder, but {str(root)!r} is a file.")
    files = []
    for f in root.rglob(pattern):
        rel = f.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or not f.is_file():
            continue
        files.append((rel.as_posix(), f))
    files.sort()
    if not files:
        raise ValueError(f"read_text_dir found no files matching pattern {pattern!r} under {str(root)!r}.")
    texts, n_bad = [], 0
    for rel, f in files:
        try:
            raw = f.read_bytes()
        except OSError as exc:
            raise ValueError(f"read_text_dir could not read {str(f)!r}: {exc}.") from exc
        try:
            texts.append(raw.decode(encoding))
        except UnicodeDecodeError:
            n_bad += 1
            texts.append(raw.decode(encoding, errors="replace"))
    if n_bad:
        logger.warning(
            "read_text_dir: %d of %d files under %s had bytes that are not valid %s; they were replaced by U+FFFD.",
            n_bad,
            len(files),
            root,
            encoding,
        )
    doc_ids = [rel for rel, _ in files]
    has_dirs = any("/" in rel for rel in doc_ids)
    labels = [rel.split("/", 1)[0] if "/" in rel else "" for rel in doc_ids] if has_dirs else None
    logger.info("read_text_dir: read %d files from %s.", len(files), root)
    return _build(
        texts,
        vectorizer,
        labels=labels,
        doc_ids=doc_ids,
        name=name or root.name,
        description=f"Text files read from {root.name}/ (pattern {pattern!r}).",
    )


# --------------------------------------------------------------------------- CSV and JSON Lines


def _column_index(column, header, what: str, path: Path) -> int:
    if isinstance(column, bool) or not isinstance(column, (str, int)):
        raise TypeError(f"{what} must be a column name (str) or a 0-based index (int), got {column!r}.")
    if isinstance(column, int):
        if header is not None and not (0 <= column < len(header)):
            raise ValueError(f"{what}={column} is out of range; {str(path)!r} has {len(header)} columns.")
        return column
    if header is None:
        raise ValueError(f"{what}={column!r} is a column name, but header=False; pass a 0-based index instead.")
    if column not in header:
        raise ValueError(f"{what}={column!r} is not a column of {str(path)!r}; its columns are {header}.")
    return header.index(column)


def read_csv(
    path,
    text_column,
    label_column=None,
    *,
    id_column=None,
    vectorizer=None,
    encoding: str = "utf-8",
    delimiter: str = ",",
    header: bool = True,
    name: str | None = None,
) -> Corpus:
    """Read documents from a CSV file (plain or gzip-compressed), one document per row.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file. Quoted fields may span several lines.
    text_column : str or int
        The column holding the text, by header name or 0-based index.
    label_column : str or int, default=None
        The column holding a label for each document.
    id_column : str or int, default=None
        The column holding a document key; kept as ``doc_ids``.
    vectorizer : object, default=None
        Turns the texts into counts (see :func:`vectorize_texts`); None uses
        ``topicvb.text.Vectorizer()``.
    encoding : str, default="utf-8"
        Text encoding of the file.
    delimiter : str, default=","
        Field separator, for example ``"\\t"`` for TSV.
    header : bool, default=True
        Whether the first row holds column names.
    name : str, default=None
        Name of the corpus; defaults to the file name.

    Returns
    -------
    corpus : Corpus

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If a column is missing, a row is too short, the file cannot be decoded, or it holds no rows.
    """
    p = check_input_file(path, "path")
    check_encoding(encoding)
    texts, labels, ids = [], [], []
    old_limit = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        with open_text(p, encoding=encoding, newline="") as f:
            reader = csv.reader(f, delimiter=delimiter)
            head = None
            if header:
                head = next(reader, None)
                if head is None:
                    raise ValueError(f"read_csv: {str(p)!r} is empty; expected a header row and at least one data row.")
            cols = {"text_column": _column_index(text_column, head, "text_column", p)}
            if label_column is not None:
                cols["label_column"] = _column_index(label_column, head, "label_column", p)
            if id_column is not None:
                cols["id_column"] = _column_index(id_column, head, "id_column", p)
            need = max(cols.values()) + 1
            for row in reader:
                if not row:
                    continue
                if len(row) < need:
                    raise ValueError(
                        f"read_csv: {str(p)!r}, line {reader.line_num} has {len(row)} fields; "
                        f"expected at least {need} (text_column, label_column and id_column)."
                    )
                texts.append(row[cols["text_column"]])
                if "label_column" in cols:
                    labels.append(row[cols["label_column"]])
                if "id_column" in cols:
                    ids.append(row[cols["id_column"]])
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"read_csv: {str(p)!r} is not valid {encoding} text ({exc.reason}); pass the right encoding=."
        ) from None
    except csv.Error as exc:
        raise ValueError(f"read_csv: {str(p)!r} is not valid CSV: {exc}.") from exc
    finally:
        csv.field_size_limit(old_limit)
    if not texts:
        raise ValueError(f"read_csv: {str(p)!r} has no data rows; expected at least one document.")
    logger.info("read_csv: read %d documents from %s.", len(texts), p)
    return _build(
        texts,
        vectorizer,
        labels=labels if label_column is not None else None,
        doc_ids=ids if id_column is not None else None,
        name=name or p.name,
        description=f"Documents read from the CSV file {p.name}.",
    )


def read_jsonl(
    path,
    text_field: str,
    label_field: str | None = None,
    *,
    id_field: str | None = None,
    vectorizer=None,
    encoding: str = "utf-8",
    name: str | None = None,
) -> Corpus:
    """Read documents from a JSON Lines file (plain or gzip-compressed), one JSON object per line.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.jsonl`` file. Blank lines are skipped.
    text_field : str
        The key holding the text of each document.
    label_field : str, default=None
        The key holding a label for each document.
    id_field : str, default=None
        The key holding a document key; kept (as str) as ``doc_ids``.
    vectorizer : object, default=None
        Turns the texts into counts (see :func:`vectorize_texts`); None uses
        ``topicvb.text.Vectorizer()``.
    encoding : str, default="utf-8"
        Text encoding of the file.
    name : str, default=None
        Name of the corpus; defaults to the file name.

    Returns
    -------
    corpus : Corpus

    Raises
    ------
    TypeError
        If ``text_field`` is not a str, or ``label_field`` / ``id_field`` not a str or None.
    FileNotFoundError
        If the file does not exist.
    ValueError
        If a line is not a JSON object, lacks a field, has a text that is not a string, or the file
        holds no documents.
    """
    if not isinstance(text_field, str):
        raise TypeError(f"text_field must be a str (a field name), got {text_field!r}.")
    for what, field in (("label_field", label_field), ("id_field", id_field)):
        if field is not None and not isinstance(field, str):
            raise TypeError(f"{what} must be a str (a field name) or None, got {field!r}.")
    p = check_input_file(path, "path")
    check_encoding(encoding)
    texts, labels, ids = [], [], []
    try:
        with open_text(p, encoding=encoding) as f:
            for line_no, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"read_jsonl: {str(p)!r}, line {line_no} is not valid JSON: {exc.msg}.") from None
                if not isinstance(obj, dict):
                    raise ValueError(
                        f"read_jsonl: {str(p)!r}, line {line_no}: expected a JSON object, got {type(obj).__name__}."
                    )
                for key in (text_field, label_field, id_field):
                    if key is not None and key not in obj:
                        raise ValueError(
                            f"read_jsonl: {str(p)!r}, line {line_no} has no field {key!r}; "
                            f"its fields are {sorted(obj)}."
                        )
                text = obj[text_field]
                if not isinstance(text, str):
                    raise ValueError(
                        f"read_jsonl: {str(p)!r}, line {line_no}: field {text_field!r} must be a string, "
                        f"got {type(text).__name__}."
                    )
                texts.append(text)
                if label_field is not None:
                    labels.append(obj[label_field])
                if id_field is not None:
                    ids.append(str(obj[id_field]))
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"read_jsonl: {str(p)!r} is not valid {encoding} text ({exc.reason}); pass the right encoding=."
        ) from None
    if not texts:
        raise ValueError(f"read_jsonl: {str(p)!r} has no documents; expected at least one JSON object line.")
    logger.info("read_jsonl: read %d documents from %s.", len(texts), p)
    return _build(
        texts,
        vectorizer,
        labels=labels if label_field is not None else None,
        doc_ids=ids if id_field is not None else None,
        name=name or p.name,
        description=f"Documents read from the JSON Lines file {p.name}.",
    )


# --------------------------------------------------------------------------- 20 Newsgroups

_NG_SPLITS = {"train": "20news-bydate-train", "test": "20news-bydate-test"}
_NG_REMOVE = {"headers", "footers", "quotes"}
_QUOTE_RE = re.compile(r"(writes in|writes:|wrote:|says:|said:|^In article|^Quoted from|^\||^>)")


def _strip_header(text: str) -> str:
    """Drop the header block, everything up to the first blank line."""
    _, _, after = text.partition("\n\n")
    return after


def _strip_quotes(text: str) -> str:
    """Drop lines that quote another post (``>`` or ``|`` prefixes, "... writes:" attributions)."""
    return "\n".join(line for line in text.split("\n") if not _QUOTE_RE.search(line))


def _strip_footer(text: str) -> str:
    """Drop the signature: everything after the last line made only of dashes (or blank)."""
    lines = text.strip().split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip().strip("-") == "":
            break
    return "\n".join(lines[:i]) if i > 0 else text


def _clean_post(text: str, remove) -> str:
    # Same order and rules as scikit-learn's fetch_20newsgroups, so results are comparable.
    if "headers" in remove:
        text = _strip_header(text)
    if "footers" in remove:
        text = _strip_footer(text)
    if "quotes" in remove:
        text = _strip_quotes(text)
    return text


def _find_20ng(data_home) -> tuple[str, Path] | None:
    """Locate a local copy of 20news-bydate: ``("tar", file)`` or ``("dir", folder)``, or None."""
    roots = []
    if data_home is not None:
        roots.append(Path(data_home).expanduser())
    shared = find_corpora_dir()
    if shared is not None:
        roots.append(shared)
    # scikit-learn's data folder (computed here: sklearn's get_data_home would create it).
    sk_home = data_home if data_home is not None else os.environ.get("SCIKIT_LEARN_DATA", "~/scikit_learn_data")
    roots.append(Path(sk_home).expanduser() / "20news_home")
    for root in roots:
        for base in (root, root / "20news-bydate"):
            tar = base / "20news-bydate.tar.gz"
            if tar.is_file():
                return "tar", tar
            if (base / _NG_SPLITS["train"]).is_dir() and (base / _NG_SPLITS["test"]).is_dir():
                return "dir", base
    return None


def _read_20ng_tar(path: Path, splits) -> list[tuple[str, str, str, str]]:
    wanted = {_NG_SPLITS[s]: s for s in splits}
    posts = []
    try:
        with tarfile.open(path, "r:*") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                parts = member.name.split("/")
                if len(parts) < 3 or parts[-3] not in wanted:
                    continue
                f = tar.extractfile(member)
                posts.append((wanted[parts[-3]], parts[-2], parts[-1], f.read().decode("latin-1")))
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ValueError(f"load_20newsgroups could not read the archive {str(path)!r}: {exc}.") from exc
    return posts


def _read_20ng_dir(base: Path, splits) -> list[tuple[str, str, str, str]]:
    posts = []
    for split in splits:
        for group_dir in sorted((base / _NG_SPLITS[split]).iterdir()):
            if not group_dir.is_dir() or group_dir.name.startswith("."):
                continue
            for f in sorted(group_dir.iterdir()):
                if f.is_file() and not f.name.startswith("."):
                    posts.append((split, group_dir.name, f.name, f.read_bytes().decode("latin-1")))
    return posts


def load_20newsgroups(
    subset: str = "train",
    data_home=None,
    vectorizer=None,
    remove: Sequence[str] = (),
    *,
    categories: Sequence[str] | None = None,
    download_if_missing: bool = True,
) -> Corpus:
    """Load the 20 Newsgroups "bydate" corpus from a local copy, downloading only as a last resort.

    The local copy is searched, in order, in ``data_home``, in the shared corpora folder (see
    :func:`find_corpora_dir`, the environment variable ``TOPICVB_CORPORA``) and in scikit-learn's
    data folder. Each may hold ``20news-bydate.tar.gz`` or the extracted folders
    ``20news-bydate-train/`` and ``20news-bydate-test/``, directly or in a ``20news-bydate/``
    sub-folder. Posts are decoded as latin-1 and kept in sorted order (split, newsgroup, file name),
    without shuffling. When no copy is found, scikit-learn's
    :func:`~sklearn.datasets.fetch_20newsgroups` is used, which reads its own cache or downloads
    (about 14 MB) unless ``download_if_missing=False``.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        Which part of the by-date split to load; "all" is train followed by test.
    data_home : str or os.PathLike, default=None
        A folder to search first (also passed on to scikit-learn).
    vectorizer : object, default=None
        Turns the texts into counts (see :func:`vectorize_texts`); None uses
        ``topicvb.text.Vectorizer()``.
    remove : sequence of {"headers", "footers", "quotes"}, default=()
        Parts of each post to drop, with the same rules as scikit-learn.
    categories : sequence of str, default=None
        Newsgroups to keep, for example ``["sci.space", "rec.autos"]``; None keeps all 20.
    download_if_missing : bool, default=True
        Whether scikit-learn may download the data when no local copy exists.

    Returns
    -------
    corpus : Corpus
        With ``texts``, ``labels`` (codes into ``label_names``, the sorted newsgroup names) and
        ``doc_ids`` of the form ``"train/sci.space/60804"``.

    Raises
    ------
    ValueError
        If ``subset``, ``remove`` or ``categories`` has an unknown value.
    FileNotFoundError
        If there is no local copy and ``download_if_missing=False``.
    """
    check_choice(subset, "subset", {"train", "test", "all"})
    if isinstance(remove, str):
        remove = (remove,)
    unknown = set(remove) - _NG_REMOVE
    if unknown:
        raise ValueError(f"remove may contain only {sorted(_NG_REMOVE)}, got {sorted(unknown)}.")
    splits = ["train", "test"] if subset == "all" else [subset]
    found = _find_20ng(data_home)
    if found is None:
        return _fetch_20ng_sklearn(subset, data_home, vectorizer, remove, categories, download_if_missing)
    kind, where = found
    logger.info("load_20newsgroups: reading %s.", where)
    posts = _read_20ng_tar(where, splits) if kind == "tar" else _read_20ng_dir(where, splits)
    order = {s: i for i, s in enumerate(splits)}
    posts.sort(key=lambda t: (order[t[0]], t[1], t[2]))
    if categories is not None:
        available = sorted({t[1] for t in posts})
        missing = sorted(set(categories) - set(available))
        if missing:
            raise ValueError(f"categories has unknown newsgroups {missing}; the newsgroups are {available}.")
        posts = [t for t in posts if t[1] in set(categories)]
    if not posts:
        raise ValueError(f"load_20newsgroups found no posts for subset={subset!r} in {str(where)!r}.")
    texts = [_clean_post(t[3], remove) for t in posts]
    return _build(
        texts,
        vectorizer,
        labels=[t[1] for t in posts],
        doc_ids=[f"{t[0]}/{t[1]}/{t[2]}" for t in posts],
        name=f"20newsgroups-{subset}",
        description=f"20 Newsgroups by-date, subset {subset!r}"
        + (f", removed {sorted(remove)}" if remove else "")
        + ".",
    )


def _fetch_20ng_sklearn(subset, data_home, vectorizer, remove, categories, download_if_missing) -> Corpus:
    from sklearn.datasets import fetch_20newsgroups

    try:
        bunch = fetch_20newsgroups(
            data_home=data_home,
            subset=subset,
            categories=categories,
            shuffle=False,
            remove=tuple(remove),
            download_if_missing=download_if_missing,
        )
    except OSError as exc:
        raise FileNotFoundError(
            "load_20newsgroups found no local copy of 20news-bydate (searched data_home, TOPICVB_CORPORA and "
            f"scikit-learn's data folder) and could not download it: {exc}. Put 20news-bydate.tar.gz in a "
            "folder and pass data_home=, or set TOPICVB_CORPORA."
        ) from exc
    doc_ids = []
    for fname in bunch.filenames:
        parts = Path(fname).parts
        split = "train" if parts[-3].endswith("train") else "test"
        doc_ids.append(f"{split}/{parts[-2]}/{parts[-1]}")
    names = list(bunch.target_names)
    return _build(
        list(bunch.data),
        vectorizer,
        labels=[names[t] for t in bunch.target],
        doc_ids=doc_ids,
        name=f"20newsgroups-{subset}",
        description=f"20 Newsgroups by-date via scikit-learn, subset {subset!r}.",
    )


# --------------------------------------------------------------------------- NLTK


def nltk_corpus(name, vectorizer=None, *, fileids: Sequence[str] | None = None) -> Corpus:
    """Read an NLTK corpus (already downloaded with ``nltk.download``), one document per file id.

    Parameters
    ----------
    name : str or nltk.corpus.reader.CorpusReader
        The name of a corpus in :mod:`nltk.corpus` (``"movie_reviews"``, ``"reuters"``,
        ``"brown"``, ...) or a corpus reader object.
    vectorizer : object, default=None
        Turns the texts into counts (see :func:`vectorize_texts`); None uses
        ``topicvb.text.Vectorizer()``.
    fileids : sequence of str, default=None
        The documents to read; None reads all of them.

    Returns
    -------
    corpus : Corpus
        With ``texts`` (``reader.raw(fileid)``), ``doc_ids`` (the file ids) and, for categorized
        corpora, ``labels``: the first (alphabetical) category of each file.

    Raises
    ------
    FileNotFoundError
        If the corpus data is not installed; the message names the ``nltk.download`` call.
    ValueError
        If ``name`` is not a corpus of :mod:`nltk.corpus` or the corpus has no documents.
    """
    import nltk.corpus
    from nltk.corpus.reader import CorpusReader
    from nltk.corpus.util import LazyCorpusLoader

    if isinstance(name, str):
        reader = getattr(nltk.corpus, name, None)
        if not isinstance(reader, (LazyCorpusLoader, CorpusReader)):
            raise ValueError(
                f"name={name!r} is not a corpus of nltk.corpus; use a corpus name such as 'movie_reviews', "
                "'reuters' or 'brown', or pass a CorpusReader."
            )
        label = name
    elif isinstance(name, (LazyCorpusLoader, CorpusReader)):
        reader, label = name, type(name).__name__
    else:
        raise TypeError(f"name must be an NLTK corpus name or a CorpusReader, got {type(name).__name__}.")
    try:
        ids = list(reader.fileids()) if fileids is None else list(fileids)
    except LookupError:
        import nltk.data

        raise FileNotFoundError(
            f"The NLTK corpus {label!r} is not installed (NLTK searched {list(nltk.data.path)}). "
            f"Install it once with: python -c \"import nltk; nltk.download('{label}')\"."
        ) from None
    if not ids:
        raise ValueError(f"The NLTK corpus {label!r} has no documents.")
    texts = [reader.raw(fid) for fid in ids]
    labels = None
    if callable(getattr(reader, "categories", None)):
        try:
            cats = [sorted(reader.categories(fid)) for fid in ids]
        except (ValueError, KeyError, TypeError):
            cats = None
        if cats and all(cats):
            labels = [c[0] for c in cats]
    logger.info("nltk_corpus: read %d documents from %s.", len(ids), label)
    return _build(texts, vectorizer, labels=labels, doc_ids=ids, name=str(label), description=f"NLTK corpus {label!r}.")
