"""Texts to a Corpus: the vectorizing step shared by every reader of raw text.

Each reader (:mod:`._text_dir`, :mod:`._csv_jsonl`, :mod:`._newsgroups`, :mod:`._nltk`,
:mod:`._builtin`) collects the texts, then turns them into counts with a vectorizer (by default a
fresh :class:`topicvb.text.Vectorizer`, imported only when needed) and returns a :class:`Corpus`
that keeps the texts, so a different vectorizer can be tried later without reading the files again.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._corpus import Corpus, encode_labels


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


def build_text_corpus(texts, vectorizer, *, labels=None, doc_ids=None, name="", description="") -> Corpus:
    """Vectorize ``texts`` and wrap them in a Corpus that keeps the texts and the encoded labels."""
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
