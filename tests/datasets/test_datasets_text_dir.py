"""Tests of read_text_dir, the reader of folders of text files (topicvb/datasets/_text_dir.py)."""

from __future__ import annotations

import logging

import pytest

from datasets_support import needs_text

from topicvb.datasets import read_text_dir


@pytest.fixture
def text_dir(tmp_path):
    root = tmp_path / "reviews"
    (root / "pos").mkdir(parents=True)
    (root / "neg").mkdir()
    (root / ".git").mkdir()
    (root / "pos" / "a.txt").write_text("good great film")
    (root / "pos" / "b.txt").write_text("great acting")
    (root / "neg" / "c.txt").write_bytes(b"bad \xff\xfe film")
    (root / "neg" / "notes.md").write_text("ignored by pattern")
    (root / "pos" / ".hidden.txt").write_text("hidden")
    (root / ".git" / "x.txt").write_text("hidden folder")
    return root


def test_read_text_dir(text_dir, stub_vectorizer, caplog):
    with caplog.at_level(logging.WARNING, logger="topicvb.datasets"):
        c = read_text_dir(text_dir, vectorizer=stub_vectorizer, pattern="*.txt")
    assert c.doc_ids == ["neg/c.txt", "pos/a.txt", "pos/b.txt"]
    assert c.label_names == ["neg", "pos"]
    assert c.labels.tolist() == [0, 1, 1]
    assert c.texts[0] == "bad \ufffd\ufffd film"
    assert "1 of 3 files" in caplog.text
    assert c.vocabulary == ["acting", "bad", "film", "good", "great"]
    assert c.X.sum() == 7
    assert c.name == "reviews"
    every = read_text_dir(text_dir, vectorizer=stub_vectorizer)
    assert every.doc_ids == ["neg/c.txt", "neg/notes.md", "pos/a.txt", "pos/b.txt"]


def test_read_text_dir_flat_has_no_labels(tmp_path, stub_vectorizer):
    (tmp_path / "1.txt").write_text("one two")
    (tmp_path / "2.txt").write_text("two three", encoding="latin-1")
    c = read_text_dir(tmp_path, vectorizer=stub_vectorizer)
    assert c.labels is None and c.label_names is None
    assert c.doc_ids == ["1.txt", "2.txt"]


def test_read_text_dir_errors(tmp_path, stub_vectorizer):
    with pytest.raises(FileNotFoundError, match=r"read_text_dir: folder '.*nowhere' does not exist"):
        read_text_dir(tmp_path / "nowhere", vectorizer=stub_vectorizer)
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(ValueError, match=r"expects a folder, but '.*f.txt' is a file"):
        read_text_dir(tmp_path / "f.txt", vectorizer=stub_vectorizer)
    with pytest.raises(ValueError, match=r"found no files matching pattern '\*.csv' under"):
        read_text_dir(tmp_path, vectorizer=stub_vectorizer, pattern="*.csv")
    with pytest.raises(TypeError, match="vectorizer must have a fit_transform"):
        read_text_dir(tmp_path, vectorizer=object())


@needs_text
def test_text_readers_default_vectorizer(text_dir):
    c = read_text_dir(text_dir, pattern="*.txt")
    assert c.n_docs == 3
    assert c.X.shape[1] == len(c.vocabulary) > 0
    assert "great" in c.vocabulary


def test_read_text_dir_follows_symlinked_folders_without_looping(tmp_path, stub_vectorizer):
    # (rglob skipped a symlinked sub-folder silently; its files were left out of the corpus)
    root = tmp_path / "reviews"
    (root / "pos").mkdir(parents=True)
    (root / "pos" / "a.txt").write_text("good film")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "b.txt").write_text("bad film")
    (outside / "back").symlink_to(root, target_is_directory=True)  # a loop through the link
    (root / "neg").symlink_to(outside, target_is_directory=True)
    (root / "pos" / "self").symlink_to(root / "pos", target_is_directory=True)  # a loop onto itself
    c = read_text_dir(root, vectorizer=stub_vectorizer)
    assert c.doc_ids == ["neg/b.txt", "pos/a.txt"]
    assert c.label_names == ["neg", "pos"]
