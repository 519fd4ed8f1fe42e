"""Tests of nltk_corpus (topicvb/datasets/_nltk.py)."""

from __future__ import annotations

import pytest

from topicvb.datasets import nltk_corpus


def test_nltk_corpus_missing_data_names_download(tmp_path, monkeypatch):
    import nltk.data

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(FileNotFoundError, match=r"nltk\.download\('movie_reviews'\)"):
        nltk_corpus("movie_reviews")
    with pytest.raises(ValueError, match=r"name='not_a_corpus' is not a corpus of nltk.corpus"):
        nltk_corpus("not_a_corpus")


def test_nltk_corpus_from_reader(tmp_path, stub_vectorizer, monkeypatch):
    import nltk.data
    from nltk.corpus.reader import CategorizedPlaintextCorpusReader

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])  # NLTK reads only below its data paths

    for cat, name, text in [("neg", "n1.txt", "dull plot"), ("pos", "p1.txt", "fine plot"), ("pos", "p2.txt", "fun")]:
        (tmp_path / cat).mkdir(exist_ok=True)
        (tmp_path / cat / name).write_text(text)
    reader = CategorizedPlaintextCorpusReader(str(tmp_path), r"(neg|pos)/.*\.txt", cat_pattern=r"(neg|pos)/.*")
    c = nltk_corpus(reader, vectorizer=stub_vectorizer)
    assert c.doc_ids == ["neg/n1.txt", "pos/p1.txt", "pos/p2.txt"]
    assert c.label_strings() == ["neg", "pos", "pos"]
    assert c.texts == ["dull plot", "fine plot", "fun"]
