"""Tests of the file helpers of topicvb.datasets (topicvb/datasets/_files.py)."""

from __future__ import annotations

from topicvb.datasets import find_corpora_dir


def test_find_corpora_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPICVB_CORPORA", str(tmp_path))
    assert find_corpora_dir() == tmp_path
    monkeypatch.setenv("TOPICVB_CORPORA", str(tmp_path / "missing"))
    assert find_corpora_dir() is None
    monkeypatch.delenv("TOPICVB_CORPORA")
    found = find_corpora_dir()
    assert found is None or (found.is_dir() and found.name == "corpora")
