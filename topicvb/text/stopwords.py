"""The English stop-word list shipped with topicvb.

The list lives in ``topicvb/data/english_stopwords.txt`` (one lower-case word per line, ``#`` starts
a comment) and was written for this project: function words (articles, pronouns, auxiliaries,
prepositions, conjunctions, quantifiers, frequent adverbs) plus the contraction fragments that the
default token pattern leaves behind (``"don't"`` gives ``"don"``).
"""

from __future__ import annotations

from importlib import resources

__all__ = ["ENGLISH_STOP_WORDS", "load_stop_words"]


def load_stop_words(name: str = "english") -> frozenset[str]:
    """Read a bundled stop-word list.

    Parameters
    ----------
    name : str, default="english"
        Name of the list; ``topicvb/data/<name>_stopwords.txt`` is read.

    Returns
    -------
    frozenset of str
        The lower-case stop words.

    Raises
    ------
    ValueError
        If no list of that name is bundled.
    """
    path = resources.files("topicvb").joinpath("data", f"{name}_stopwords.txt")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"name must name a bundled stop-word list such as 'english', got {name!r}.") from None
    words = (line.strip() for line in text.splitlines())
    return frozenset(w.lower() for w in words if w and not w.startswith("#"))


#: English stop words (a frozenset of lower-case strings), matched after lowercasing, before stemming.
ENGLISH_STOP_WORDS: frozenset[str] = load_stop_words("english")
