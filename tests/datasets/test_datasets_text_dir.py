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


def test_read_text_dir_reads_each_folder_once_and_nothing_above_it(tmp_path, stub_vectorizer, caplog):
    """A link to the folder above the corpus read the files beside it; a link to a folder of the corpus (latest ->
    pos) read its files twice under two labels; links that fork and meet again were walked 2^n times."""
    root = tmp_path / "corpus"
    (root / "pos").mkdir(parents=True)
    (root / "pos" / "a.txt").write_text("good film")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "secret.txt").write_text("not part of the corpus")
    (root / "up").symlink_to("..", target_is_directory=True)
    (root / "latest").symlink_to("pos", target_is_directory=True)  # sorted before pos: still read as pos
    with caplog.at_level("WARNING", logger="topicvb.datasets"):
        c = read_text_dir(root, vectorizer=stub_vectorizer)
    assert c.doc_ids == ["pos/a.txt"]
    assert "2 link(s) to folders not followed" in caplog.text
    chain = tmp_path / "chain"
    for i in range(20):
        (chain / f"d{i}").mkdir(parents=True)
        (chain / f"d{i}" / "f.txt").write_text(f"word{i} film")
    for i in range(19):  # two links from each folder to the next: 2^19 paths to d19
        (chain / f"d{i}" / "x").symlink_to(f"../d{i + 1}", target_is_directory=True)
        (chain / f"d{i}" / "y").symlink_to(f"../d{i + 1}", target_is_directory=True)
    c = read_text_dir(chain, vectorizer=stub_vectorizer)
    assert c.doc_ids == sorted(f"d{i}/f.txt" for i in range(20))


def test_read_text_dir_drops_a_utf8_byte_order_mark(tmp_path):
    """The other readers drop it; here it stayed at the start of the text, and clean="email" then kept the
    headers of such files (the first line no longer started with "From:")."""
    from topicvb.text import Tokenizer, Vectorizer

    post = "From: someone@nasa.gov\nSubject: orbits\nOrganization: NASA\n\nThe planets are elliptic orbits.\n"
    (tmp_path / "a.txt").write_bytes(post.encode("utf-8"))
    (tmp_path / "b.txt").write_bytes(b"\xef\xbb\xbf" + post.encode("utf-8"))
    c = read_text_dir(tmp_path, vectorizer=Vectorizer(tokenizer=Tokenizer(clean="email", stop_words=None)))
    assert c.texts[1] == c.texts[0]
    assert c.X[0].toarray().tolist() == c.X[1].toarray().tolist()
    assert "nasa" not in c.vocabulary
