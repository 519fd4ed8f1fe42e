"""Tests of the file helpers of topicvb.datasets (topicvb/datasets/_files.py)."""

from __future__ import annotations

import pytest

from topicvb.datasets import find_corpora_dir


def test_find_corpora_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPICVB_CORPORA", str(tmp_path))
    assert find_corpora_dir() == tmp_path
    monkeypatch.setenv("TOPICVB_CORPORA", str(tmp_path / "missing"))
    assert find_corpora_dir() is None
    monkeypatch.delenv("TOPICVB_CORPORA")
    found = find_corpora_dir()
    assert found is None or (found.is_dir() and found.name == "corpora")


def test_a_file_numpy_would_read_as_a_pickle_is_not_an_npz_archive(tmp_path):
    # (numpy's own message advised loading it "unsafely using allow_pickle=")
    from topicvb.datasets._npz import read_npz

    path = tmp_path / "binary.npz"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"it is not a \.npz archive \(numpy would read it only as a pickle, which "
                                         r"topicvb never loads\)\.$"):
        read_npz(path)


def test_corpus_load_of_a_pickle_says_it_is_not_a_corpus(tmp_path):
    from topicvb.datasets import Corpus

    path = tmp_path / "binary.npz"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"could not read .* as a \.npz file: it is not a \.npz archive \(numpy would "
                                         r"read it only as a pickle"):
        Corpus.load(path)


def test_a_checkpoint_numpy_would_read_as_a_pickle_is_not_readable(tmp_path):
    from topicvb.models._checkpoint import load_checkpoint

    path = tmp_path / "ck.npz"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"is not a readable topicvb checkpoint \(it is not a \.npz archive \(numpy "
                                         r"would read it only as a pickle, which topicvb never loads\)\)\.$"):
        load_checkpoint(path, "fingerprint")
