"""Tests of the built-in docstring corpus (topicvb/datasets/_builtin.py)."""

from __future__ import annotations

import logging
import re
import shutil

import pytest

from datasets_support import needs_text

from topicvb import datasets
from topicvb.datasets import collect_docstrings, load_builtin_corpus


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TOPICVB_CACHE", str(folder))
    return folder


def test_collect_docstrings_small(cache_dir):
    texts, labels, ids = collect_docstrings(["json", "csv"], min_words=20)
    assert len(texts) >= 10
    assert set(labels) == {"csv", "json"}
    assert labels == sorted(labels)  # modules in sorted order
    assert "json" in ids and "json.dumps" in ids
    assert not any(line.lstrip().startswith(">>>") for t in texts for line in t.splitlines())
    assert len(set(texts)) == len(texts)
    assert all(len(re.findall(r"[A-Za-z]{2,}", t)) >= 20 for t in texts)
    again = collect_docstrings(["csv", "json"], min_words=20, cache=False)
    assert again == (texts, labels, ids)


def test_builtin_corpus_cache(cache_dir, monkeypatch, stub_vectorizer):
    first = load_builtin_corpus(stub_vectorizer, packages=["json"], min_words=20)
    assert len(list(cache_dir.glob("builtin-corpus-*.json.gz"))) == 1

    def fail(*args, **kwargs):
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(datasets._builtin, "_docstrings", fail)
    second = load_builtin_corpus(stub_vectorizer, packages=["json"], min_words=20)
    assert second.texts == first.texts and second.doc_ids == first.doc_ids
    assert second.label_names == ["json"] and second.name == "builtin-docstrings"
    assert (second.X != first.X).nnz == 0


def test_builtin_corpus_without_writable_cache(tmp_path, monkeypatch, stub_vectorizer):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TOPICVB_CACHE", str(blocker / "sub"))
    c = load_builtin_corpus(stub_vectorizer, packages=["json"], min_words=20)
    assert c.n_docs > 0


def test_builtin_corpus_limits(cache_dir, stub_vectorizer, caplog):
    c = load_builtin_corpus(stub_vectorizer, packages=["json", "csv"], min_words=20, max_docs=3)
    assert c.n_docs == 3
    cached = sorted(cache_dir.iterdir())
    with caplog.at_level(logging.WARNING, logger="topicvb.datasets"):
        partial = collect_docstrings(["json"], min_words=20, time_limit=0.0)
    assert partial == ([], [], [])
    assert "stopped after time_limit" in caplog.text
    assert sorted(cache_dir.iterdir()) == cached  # a partial result is not cached
    with pytest.raises(ValueError, match=r"found no docstrings with at least min_words=100000 words"):
        load_builtin_corpus(stub_vectorizer, packages=["json"], min_words=100_000)
    with pytest.raises(ValueError, match=r"packages must hold top-level module names or 'stdlib', got 'a b'"):
        load_builtin_corpus(stub_vectorizer, packages=["a b"])


@pytest.mark.slow
def test_builtin_corpus_full(cache_dir, builtin_corpus_cache):
    texts, labels, ids = collect_docstrings()  # collected here: cache_dir is a new, empty folder
    assert len(texts) >= 3000
    assert {"numpy", "json", "collections"} <= set(labels)
    assert not {"antigravity", "this", "tkinter", "idlelib"} & set(labels)
    assert not any(".tests." in q or q.startswith("test.") for q in ids)
    assert len(set(ids)) == len(ids)
    # the later tests that load the whole corpus (README tour, notebook) read this collection
    for path in cache_dir.glob("builtin-corpus-*.json.gz"):
        if not (builtin_corpus_cache / path.name).exists():
            shutil.copyfile(path, builtin_corpus_cache / path.name)


@needs_text
def test_builtin_corpus_default_vectorizer(cache_dir):
    c = load_builtin_corpus(packages=["json", "csv"], min_words=20)
    assert c.n_docs > 10 and c.n_terms > 50
    assert c.X.shape == (len(c.texts), len(c.vocabulary))
