"""Documents from tables: CSV files (one row per document) and JSON Lines (one object per line)."""

from __future__ import annotations

import csv
import itertools
import json
import logging
import numbers
import sys
from pathlib import Path

import numpy as np

from .._validation import check_bool, check_encoding
from ._corpus import Corpus
from ._files import READ_ERRORS, check_input_file, open_text
from ._text import build_text_corpus

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------- CSV


def _column_index(column, header, what: str, path: Path, n_columns: int | None) -> int:
    """The 0-based index of ``column`` in a file of ``n_columns`` columns (None: not known, no rows)."""
    if isinstance(column, (bool, np.bool_)) or not isinstance(column, (str, numbers.Integral)):
        raise TypeError(f"{what} must be a column name (str) or a 0-based index (int), got {column!r}.")
    if isinstance(column, numbers.Integral):
        column = int(column)
        if column < 0 or (n_columns is not None and column >= n_columns):
            has = f"{str(path)!r} has {n_columns} columns" if n_columns is not None else "0-based indices are >= 0"
            raise ValueError(f"{what}={column} is out of range; {has}.")
        return column
    if header is None:
        raise ValueError(f"{what}={column!r} is a column name, but header=False; pass a 0-based index instead.")
    if column not in header:
        raise ValueError(f"{what}={column!r} is not a column of {str(path)!r}; its columns are {header}.")
    return header.index(column)


def _csv_column_indices(reader, header: bool, columns: dict, p: Path) -> tuple[dict[str, int], list | None]:
    """Read the header row (when there is one) and resolve the wanted columns to 0-based indices.

    ``columns`` maps ``"text_column"``, ``"label_column"`` and ``"id_column"`` to what the caller
    passed; a label or id column passed as None is left out of the result. Without a header, the
    first non-empty row gives the number of columns; it is returned too (None with a header), as
    it was taken from ``reader``.
    """
    head = first = None
    if header:
        head = next(reader, None)
        if head is None:
            raise ValueError(f"read_csv: {str(p)!r} is empty; expected a header row and at least one data row.")
    else:
        first = next((row for row in reader if row), None)
    n_columns = len(head) if head is not None else len(first) if first is not None else None
    cols = {
        what: _column_index(col, head, what, p, n_columns)
        for what, col in columns.items()
        if what == "text_column" or col is not None
    }
    return cols, first


def _collect_csv_rows(reader, cols: dict[str, int], p: Path, first=None) -> tuple[list, list, list]:
    """The texts, labels and ids of the non-empty rows (labels and ids empty when not asked for).

    ``first`` is a row already taken from ``reader`` (the first one, without a header), or None.
    """
    texts, labels, ids = [], [], []
    need = max(cols.values()) + 1
    for row in itertools.chain([first] if first is not None else [], reader):
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
    return texts, labels, ids


def _read_csv_columns(p: Path, columns: dict, encoding: str, delimiter: str, header: bool):
    """Texts, labels and ids from the CSV file, with decoding and CSV errors turned into ValueError."""
    old_limit = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        with open_text(p, encoding=encoding, newline="") as f:
            reader = csv.reader(f, delimiter=delimiter)
            cols, first = _csv_column_indices(reader, header, columns, p)
            return _collect_csv_rows(reader, cols, p, first)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"read_csv: {str(p)!r} is not valid {encoding} text ({exc.reason}); pass the right encoding=."
        ) from None
    except csv.Error as exc:
        raise ValueError(f"read_csv: {str(p)!r} is not valid CSV: {exc}.") from exc
    except READ_ERRORS as exc:  # (a damaged compressed file: zlib.error, EOFError, ... are not all OSErrors)
        raise ValueError(f"read_csv: could not read {str(p)!r}: {exc}.") from None
    finally:
        csv.field_size_limit(old_limit)


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
    """Read documents from a CSV file (plain, or gzip-, bz2- or xz-compressed), one document per row.

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
    TypeError
        If a column is not a str or an int, or ``header`` is not a bool.
    FileNotFoundError
        If the file does not exist.
    ValueError
        If a column is missing or its index out of range, a row is too short, the file cannot be
        decoded, or it holds no rows.
    """
    header = check_bool(header, "header")
    p = check_input_file(path, "path")
    check_encoding(encoding)
    columns = {"text_column": text_column, "label_column": label_column, "id_column": id_column}
    texts, labels, ids = _read_csv_columns(p, columns, encoding, delimiter, header)
    if not texts:
        raise ValueError(f"read_csv: {str(p)!r} has no data rows; expected at least one document.")
    logger.info("read_csv: read %d documents from %s.", len(texts), p)
    return build_text_corpus(
        texts,
        vectorizer,
        labels=labels if label_column is not None else None,
        doc_ids=ids if id_column is not None else None,
        name=name or p.name,
        description=f"Documents read from the CSV file {p.name}.",
    )


# --------------------------------------------------------------------------- JSON Lines


def _check_field_names(text_field, label_field, id_field) -> None:
    if not isinstance(text_field, str):
        raise TypeError(f"text_field must be a str (a field name), got {text_field!r}.")
    for what, field in (("label_field", label_field), ("id_field", id_field)):
        if field is not None and not isinstance(field, str):
            raise TypeError(f"{what} must be a str (a field name) or None, got {field!r}.")


def _parse_jsonl_line(line: str, line_no: int, p: Path, text_field: str, label_field, id_field) -> dict:
    """The JSON object on the line, checked to hold the fields and a string text."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"read_jsonl: {str(p)!r}, line {line_no} is not valid JSON: {exc.msg}.") from None
    if not isinstance(obj, dict):
        raise ValueError(f"read_jsonl: {str(p)!r}, line {line_no}: expected a JSON object, got {type(obj).__name__}.")
    for key in (text_field, label_field, id_field):
        if key is not None and key not in obj:
            raise ValueError(
                f"read_jsonl: {str(p)!r}, line {line_no} has no field {key!r}; its fields are {sorted(obj)}."
            )
    text = obj[text_field]
    if not isinstance(text, str):
        raise ValueError(
            f"read_jsonl: {str(p)!r}, line {line_no}: field {text_field!r} must be a string, "
            f"got {type(text).__name__}."
        )
    return obj


def _read_jsonl_fields(p: Path, encoding: str, text_field: str, label_field, id_field):
    """Texts, labels and ids (as str) from the non-blank lines of the file."""
    texts, labels, ids = [], [], []
    try:
        with open_text(p, encoding=encoding) as f:
            for line_no, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                obj = _parse_jsonl_line(line, line_no, p, text_field, label_field, id_field)
                texts.append(obj[text_field])
                if label_field is not None:
                    labels.append(obj[label_field])
                if id_field is not None:
                    ids.append(str(obj[id_field]))
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"read_jsonl: {str(p)!r} is not valid {encoding} text ({exc.reason}); pass the right encoding=."
        ) from None
    except READ_ERRORS as exc:  # (a damaged compressed file)
        raise ValueError(f"read_jsonl: could not read {str(p)!r}: {exc}.") from None
    return texts, labels, ids


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
    """Read documents from a JSON Lines file (plain, or gzip-, bz2- or xz-compressed), one JSON object per line.

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
    _check_field_names(text_field, label_field, id_field)
    p = check_input_file(path, "path")
    check_encoding(encoding)
    texts, labels, ids = _read_jsonl_fields(p, encoding, text_field, label_field, id_field)
    if not texts:
        raise ValueError(f"read_jsonl: {str(p)!r} has no documents; expected at least one JSON object line.")
    logger.info("read_jsonl: read %d documents from %s.", len(texts), p)
    return build_text_corpus(
        texts,
        vectorizer,
        labels=labels if label_field is not None else None,
        doc_ids=ids if id_field is not None else None,
        name=name or p.name,
        description=f"Documents read from the JSON Lines file {p.name}.",
    )
