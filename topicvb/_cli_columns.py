"""The command line's guess of the text column of a CSV file (the field of JSON lines): a column named ``text``, or
the only column of strings (of several, the only one with spaces in its values); otherwise the error lists the
columns and ``--text-column`` chooses. A JSON lines file whose first record cannot be read says why (a JSON array in a
``.json`` file is named as one)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

_SAMPLE_ROWS = 200  # rows (lines) looked at to guess the text column


def _shown(path) -> str:
    return repr(str(path))


def _reraise_read_error(exc: Exception, p) -> None:
    """Raise ``exc`` as a ValueError naming the file when it is an error of reading a file (a damaged compressed
    one), else as it is."""
    from topicvb.datasets._files import READ_ERRORS  # (here: the command line's start imports no SciPy)

    if isinstance(exc, READ_ERRORS):
        raise ValueError(f"could not read {_shown(p)}: {exc}.") from None
    raise exc


def csv_delimiter(p: Path) -> str:
    """A tab for ``.tsv`` files, else a comma."""
    return "\t" if p.name.lower().endswith((".tsv", ".tsv.gz", ".tsv.bz2", ".tsv.xz")) else ","


def _numeric(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _pick_text(names: list[str], strings: list[str], spaced: list[str]) -> str | None:
    """``text`` (exact, then in any case), else the single string column, else the single one with spaces."""
    if "text" in names:
        return "text"
    folded = [n for n in names if n.lower() == "text"]
    if len(folded) == 1:
        return folded[0]
    if len(strings) == 1:
        return strings[0]
    if len(spaced) == 1:
        return spaced[0]
    return None


def _csv_columns(p: Path, enc: str, delimiter: str) -> tuple[list[str], list[str], list[str]]:
    """The header names, the columns holding non-numbers, and those with spaces, from the first rows."""
    from topicvb.datasets._files import open_text

    old_limit = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        with open_text(p, encoding=enc, newline="") as f:
            reader = csv.reader(f, delimiter=delimiter)
            header = next(reader, None) or []
            strings, spaced = set(), set()
            for i, row in enumerate(reader):
                if i >= _SAMPLE_ROWS:
                    break
                for j, value in enumerate(row[: len(header)]):
                    if value.strip() and not _numeric(value):
                        strings.add(j)
                        if any(c.isspace() for c in value.strip()):
                            spaced.add(j)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{_shown(p)} is not valid {enc} text ({exc.reason}); pass the right --encoding "
                         "(for example --encoding latin-1).") from None
    except csv.Error as exc:
        raise ValueError(f"{_shown(p)} is not valid CSV: {exc}.") from None
    except Exception as exc:  # a damaged compressed file (zlib.error, EOFError, ...: the readers' READ_ERRORS)
        _reraise_read_error(exc, p)
    finally:
        csv.field_size_limit(old_limit)
    return header, [header[j] for j in sorted(strings)], [header[j] for j in sorted(spaced)]


def _not_json_lines(p: Path, line: str, why: str) -> str:
    """The message for JSON lines whose first record cannot be read: a JSON array (a ``.json`` file) named as one."""
    if line.lstrip().startswith("["):
        return (f"{_shown(p)} is not JSON lines: it starts with '[' (a JSON array?). topicvb reads one JSON object per "
                "line; convert the file, for example with jq -c '.[]' FILE > FILE.jsonl.")
    return (f"{_shown(p)}: its first record {why}; topicvb reads JSON lines, one object per line (for example "
            '{"text": "..."}).')


def _jsonl_fields(p: Path, enc: str) -> tuple[list[str], list[str], list[str]]:
    """The fields of the first objects, those holding only strings, and those with spaces."""
    from topicvb.datasets._files import open_text

    names, kinds, spaced = [], {}, set()
    try:
        with open_text(p, encoding=enc) as f:
            seen = 0
            for line in f:
                if not line.strip():
                    continue
                seen += 1
                if seen > _SAMPLE_ROWS:
                    break
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    if not names:  # (nothing to guess from: say why, rather than "its fields are none")
                        raise ValueError(_not_json_lines(p, line, f"is not valid JSON ({exc.msg})")) from None
                    break  # the reader reports the bad line
                if not isinstance(obj, dict):
                    if not names:
                        kind = {str: "string", list: "array", bool: "boolean", type(None): "null"}.get(type(obj),
                                                                                                       "number")
                        raise ValueError(_not_json_lines(p, line, f"is a JSON {kind}, not an object"))
                    break
                for key, value in obj.items():
                    if key not in kinds:
                        names.append(key)
                        kinds[key] = True
                    if not isinstance(value, str):
                        kinds[key] = False
                    elif any(c.isspace() for c in value.strip()):
                        spaced.add(key)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{_shown(p)} is not valid {enc} text ({exc.reason}); pass the right --encoding "
                         "(for example --encoding latin-1).") from None
    except Exception as exc:  # a damaged compressed file (zlib.error, EOFError, ...: the readers' READ_ERRORS)
        _reraise_read_error(exc, p)
    strings = [k for k in names if kinds[k]]
    return names, strings, [k for k in strings if k in spaced]


def text_column(path, fmt: str, args, note, enc: str) -> str:
    """``--text-column`` as given, else the obvious text column of the CSV (field of the JSON lines).

    ``note(line)`` tells the user which column was picked when it was guessed from the values; ``enc`` is the
    encoding the file is read in. Raises ValueError listing the columns when none is obvious.
    """
    if args.text_column is not None:
        return args.text_column
    p = Path(path)
    from topicvb.datasets._files import check_input_file

    check_input_file(p, "the input")
    what = "column" if fmt == "csv" else "field"
    if fmt == "csv":
        names, strings, spaced = _csv_columns(p, enc, csv_delimiter(p))
    else:
        names, strings, spaced = _jsonl_fields(p, enc)
    choice = _pick_text(names, strings, spaced)
    if choice is None:
        listed = ", ".join(repr(n) for n in names) or "none"
        hint = ""
        if len(strings) > 1:
            hint = f" ({', '.join(repr(n) for n in strings)} hold text)"
        raise ValueError(f"--text-column is required: cannot tell which {what} of {str(path)!r} holds the text; "
                         f"its {what}s are {listed}{hint}. Pass --text-column NAME.")
    if choice.lower() != "text":
        note(f"topicvb: reading the text from the {what} {choice!r} of {str(path)!r} "
             f"(choose another with --text-column)")
    return choice
