"""A plain text file with one document per line (MALLET's and gensim's ``LineSentence`` layout)."""

from __future__ import annotations

import codecs
import itertools
import logging

from .._validation import check_encoding
from ._corpus import Corpus
from ._files import READ_ERRORS, check_input_file, open_binary, open_text, without_bom
from ._text import build_text_corpus

logger = logging.getLogger(__name__)

_RESCAN_BYTES = 64 * 1024  # bytes decoded at a time when a file that did not decode is read again for the line


def _undecodable_line(p, encoding: str) -> int | None:
    """The line of ``p`` (counted as :func:`read_lines` counts them) holding the first bytes that are not valid
    ``encoding``, or None when the file cannot be read again or now decodes.

    The text reader decodes a block of lines at a time and its error gives an offset in that block only, so
    the file is decoded again here, counting line ends (only after an error: the normal path pays nothing).
    """
    decoder = codecs.getincrementaldecoder(without_bom(encoding))()
    n_lf = n_cr = 0  # the line ends decoded before the error
    try:
        with open_binary(p) as f:
            while True:
                chunk = f.read(_RESCAN_BYTES)
                state = decoder.getstate()
                try:
                    text = decoder.decode(chunk, final=not chunk)
                except UnicodeDecodeError:
                    break
                if not chunk:
                    return None  # (the file decodes now)
                n_lf, n_cr = n_lf + text.count("\n"), n_cr + text.count("\r")
            if chunk:  # (else the file ends in the middle of a character: the error is at its end)
                # decode the failing block again a byte at a time from the state before it, to count the line
                # ends before the failing byte (the error's offset would also count bytes the decoder held back)
                decoder.setstate(state)
                for i in range(len(chunk)):
                    try:
                        text = decoder.decode(chunk[i:i + 1])
                    except UnicodeDecodeError:
                        chunk = chunk[i:]  # the bytes from the error on
                        break
                    n_lf, n_cr = n_lf + text.count("\n"), n_cr + text.count("\r")
                else:
                    return None  # (no error byte by byte: name no line rather than a wrong one)
            if n_lf:
                return n_lf + 1
            # No "\n" before the error: read_lines splits an old Mac file (no "\n" anywhere) at "\r", so look for
            # a "\n" after it, in the raw bytes (which also finds the "\n" of UTF-16 and UTF-32).
            rest = itertools.chain([chunk], iter(lambda: f.read(_RESCAN_BYTES), b""))
            return 1 if any(b"\n" in block for block in rest) else n_cr + 1
    except (READ_ERRORS + (LookupError,)):
        return None


def read_lines(path, *, vectorizer=None, encoding: str = "utf-8", name: str | None = None) -> Corpus:
    """Read a text file with one document per line.

    Blank lines (empty or only whitespace) are no documents; each document's id is its line number
    (from 1), so that results can be traced back to the file. Lines end with ``"\\n"`` or ``"\\r\\n"``
    and are counted as ``wc -l``, ``grep -n`` and ``sed -n`` count them: a lone ``"\\r"`` inside a line
    does not end it but stays in the text, as whitespace (as in gensim's ``LineSentence``). Only a file
    without any ``"\\n"`` is split at ``"\\r"`` (old Mac line ends). gzip-, bz2- and xz-compressed files
    are read transparently.

    Parameters
    ----------
    path : str or os.PathLike
        The text file.
    vectorizer : Vectorizer, default=None
        Counts the texts; default ``topicvb.text.Vectorizer()``.
    encoding : str, default="utf-8"
        Text encoding of the file.
    name : str, default=None
        Name of the corpus; defaults to the file name.

    Returns
    -------
    corpus : Corpus
        With ``texts`` and ``doc_ids`` (the line numbers, as str).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the file is not valid text in ``encoding`` (the line is named), cannot be read, or holds no
        document.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from topicvb.datasets import read_lines
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "docs.txt"
    >>> _ = path.write_text("apples and pears\\n\\nthe city at night\\n", encoding="utf-8")
    >>> corpus = read_lines(path)
    >>> corpus.n_docs, corpus.doc_ids
    (2, ['1', '3'])
    """
    p = check_input_file(path, "path")
    check_encoding(encoding)
    texts, ids = [], []
    try:
        # split at "\n" only (not universal newlines), so that a stray "\r" does not shift every later line number
        with open_text(p, encoding=encoding, newline="\n") as f:
            first = f.readline()
            if "\r" in first and not first.endswith("\n"):
                # the first line is the whole file and it has no "\n": old Mac "\r" line ends, not one long line
                lines = first.split("\r")
            else:
                lines = itertools.chain([first], f)
            for line_no, line in enumerate(lines, start=1):
                text = line.removesuffix("\n").removesuffix("\r")  # (the "\r" of a "\r\n" line end)
                if text.strip():
                    texts.append(text)
                    ids.append(str(line_no))
    except UnicodeDecodeError as exc:
        line_no = _undecodable_line(p, encoding)
        where = f" on line {line_no}" if line_no else ""
        raise ValueError(f"read_lines: {str(p)!r} is not valid {encoding} text ({exc.reason}{where}); pass the "
                         "right encoding=.") from None
    except READ_ERRORS as exc:
        raise ValueError(f"read_lines: could not read {str(p)!r}: {exc}.") from None
    if not texts:
        raise ValueError(f"read_lines: {str(p)!r} has no documents (every line is blank); expected one document "
                         "per line.")
    logger.info("read_lines: read %d documents from %s.", len(texts), p)
    return build_text_corpus(texts, vectorizer, doc_ids=ids, name=name or p.name,
                             description=f"Documents read from the text file {p.name}, one per line.")
