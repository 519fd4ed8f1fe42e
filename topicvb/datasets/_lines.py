"""A plain text file with one document per line (MALLET's and gensim's ``LineSentence`` layout)."""

from __future__ import annotations

import logging

from .._validation import check_encoding
from ._corpus import Corpus
from ._files import READ_ERRORS, check_input_file, open_text
from ._text import build_text_corpus

logger = logging.getLogger(__name__)


def read_lines(path, *, vectorizer=None, encoding: str = "utf-8", name: str | None = None) -> Corpus:
    """Read a text file with one document per line.

    Blank lines (empty or only whitespace) are no documents; each document's id is its line number
    (from 1), so that results can be traced back to the file. Lines end with ``"\\n"``, ``"\\r\\n"``
    or ``"\\r"``; gzip-, bz2- and xz-compressed files are read transparently.

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
        If the file is not valid text in ``encoding``, cannot be read, or holds no document.

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
        with open_text(p, encoding=encoding) as f:  # (universal newlines: "\r\n" and "\r" end lines too)
            for line_no, line in enumerate(f, start=1):
                text = line.rstrip("\n")
                if text.strip():
                    texts.append(text)
                    ids.append(str(line_no))
    except UnicodeDecodeError as exc:
        raise ValueError(f"read_lines: {str(p)!r} is not valid {encoding} text ({exc.reason}); pass the right "
                         "encoding=.") from None
    except READ_ERRORS as exc:
        raise ValueError(f"read_lines: could not read {str(p)!r}: {exc}.") from None
    if not texts:
        raise ValueError(f"read_lines: {str(p)!r} has no documents (every line is blank); expected one document "
                         "per line.")
    logger.info("read_lines: read %d documents from %s.", len(texts), p)
    return build_text_corpus(texts, vectorizer, doc_ids=ids, name=name or p.name,
                             description=f"Documents read from the text file {p.name}, one per line.")
