"""NLTK corpora (already downloaded with ``nltk.download``), one document per file id."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ._corpus import Corpus
from ._text import build_text_corpus

logger = logging.getLogger(__name__)


def _resolve_reader(name):
    """``(reader, label)`` for a corpus name of :mod:`nltk.corpus` or a corpus reader object."""
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
        return reader, name
    if isinstance(name, (LazyCorpusLoader, CorpusReader)):
        return name, type(name).__name__
    raise TypeError(f"name must be an NLTK corpus name or a CorpusReader, got {type(name).__name__}.")


def _first_categories(reader, ids) -> list[str] | None:
    """The first (alphabetical) category of each file, or None when the corpus is not categorized."""
    if not callable(getattr(reader, "categories", None)):
        return None
    try:
        cats = [sorted(reader.categories(fid)) for fid in ids]
    except (ValueError, KeyError, TypeError):
        return None
    return [c[0] for c in cats] if cats and all(cats) else None


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
    reader, label = _resolve_reader(name)
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
    labels = _first_categories(reader, ids)
    logger.info("nltk_corpus: read %d documents from %s.", len(ids), label)
    return build_text_corpus(
        texts, vectorizer, labels=labels, doc_ids=ids, name=str(label), description=f"NLTK corpus {label!r}."
    )
