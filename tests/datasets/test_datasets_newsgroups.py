"""Tests of load_20newsgroups (topicvb/datasets/_newsgroups.py)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from datasets_support import _shared

from topicvb.datasets import load_20newsgroups


_POSTS = {
    ("train", "sci.space", "101"): "From: a@b\nSubject: orbit\n\nThe orbit of the moon.\n> quoted line\n--\nsig text\n",
    ("train", "rec.autos", "55"): "From: c@d\nSubject: cars\n\nFast red cars \xe9\n",
    ("train", "rec.autos", "7"): "From: e@f\nSubject: engines\n\nEngines and wheels\n",
    ("test", "sci.space", "300"): "From: g@h\nSubject: rockets\n\nRockets to orbit\n",
}


def _make_20ng(tmp_path: Path, as_tar: bool) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    if as_tar:
        with tarfile.open(home / "20news-bydate.tar.gz", "w:gz") as tar:
            for (split, group, name), text in _POSTS.items():
                data = text.encode("latin-1")
                info = tarfile.TarInfo(f"20news-bydate-{split}/{group}/{name}")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    else:
        for (split, group, name), text in _POSTS.items():
            folder = home / "20news-bydate" / f"20news-bydate-{split}" / group
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(text.encode("latin-1"))
    return home


@pytest.fixture
def no_shared_corpora(monkeypatch, tmp_path):
    """Hide the shared corpora and scikit-learn's data folder, so only data_home is searched."""
    monkeypatch.setenv("TOPICVB_CORPORA", "")
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "sklearn_home"))


@pytest.mark.parametrize("as_tar", [True, False])
def test_load_20newsgroups_local_copy(tmp_path, stub_vectorizer, no_shared_corpora, as_tar):
    home = _make_20ng(tmp_path, as_tar)
    c = load_20newsgroups("train", data_home=home, vectorizer=stub_vectorizer)
    assert c.doc_ids == ["train/rec.autos/55", "train/rec.autos/7", "train/sci.space/101"]
    assert c.label_names == ["rec.autos", "sci.space"]
    assert c.labels.tolist() == [0, 0, 1]
    assert "Fast red cars \xe9" in c.texts[0]
    assert c.name == "20newsgroups-train"
    both = load_20newsgroups("all", data_home=home, vectorizer=stub_vectorizer)
    assert both.doc_ids[-1] == "test/sci.space/300" and both.n_docs == 4
    only = load_20newsgroups("all", data_home=home, vectorizer=stub_vectorizer, categories=["sci.space"])
    assert only.doc_ids == ["train/sci.space/101", "test/sci.space/300"]


def test_load_20newsgroups_remove_and_env(tmp_path, stub_vectorizer, monkeypatch):
    home = _make_20ng(tmp_path, as_tar=True)
    monkeypatch.setenv("TOPICVB_CORPORA", str(home))
    c = load_20newsgroups("train", vectorizer=stub_vectorizer, remove=("headers", "footers", "quotes"))
    space = c.texts[c.doc_ids.index("train/sci.space/101")]
    assert space.strip() == "The orbit of the moon."
    assert "Subject" not in " ".join(c.texts)
    # the default removes the same parts
    assert load_20newsgroups("train", vectorizer=stub_vectorizer).texts == c.texts
    raw = load_20newsgroups("train", vectorizer=stub_vectorizer, remove=())
    assert raw.texts[raw.doc_ids.index("train/sci.space/101")] == _POSTS[("train", "sci.space", "101")]
    assert "raw posts" in raw.description and "removed" in c.description
    only_headers = load_20newsgroups("train", vectorizer=stub_vectorizer, remove="headers")
    assert only_headers.texts[2] == "The orbit of the moon.\n> quoted line\n--\nsig text\n"


def test_load_20newsgroups_cleans_real_posts_by_default(tmp_path, stub_vectorizer, monkeypatch):
    """A post as 20 Newsgroups has them: headers, an attribution, quotes, a signature without "-- "."""
    post = (
        "From: jsmith@cs.example.edu (John Smith)\nSubject: Re: Gamma ray bursters\n"
        "Organization: Example University\nLines: 12\nNNTP-Posting-Host: cs.example.edu\n\n"
        "In article <1993Apr5.123@news.example.com> ann@example.com (Ann Lee) writes:\n"
        ">Where do gamma ray bursts come from?\n\n"
        "Nobody knows yet; the bursts are spread evenly over the sky, which rules out\n"
        "the disk of our galaxy as their source.\n\n"
        "John Smith\njsmith@cs.example.edu\n"
    )
    home = tmp_path / "home"
    folder = home / "20news-bydate" / "20news-bydate-train" / "sci.space"
    folder.mkdir(parents=True)
    (folder / "1").write_bytes(post.encode("latin-1"))
    (home / "20news-bydate" / "20news-bydate-test").mkdir()
    monkeypatch.setenv("TOPICVB_CORPORA", str(home))
    text = load_20newsgroups("train", vectorizer=stub_vectorizer).texts[0]
    assert text.split() == ("Nobody knows yet; the bursts are spread evenly over the sky, which rules out "
                            "the disk of our galaxy as their source.").split()


def test_load_20newsgroups_errors(tmp_path, stub_vectorizer, no_shared_corpora):
    with pytest.raises(ValueError, match=r"subset must be one of \{'all', 'test', 'train'\}, got 'dev'"):
        load_20newsgroups("dev")
    with pytest.raises(
        ValueError, match=r"remove may contain only \['footers', 'headers', 'quotes'\], got \['signatures'\]"
    ):
        load_20newsgroups(remove=("signatures",))
    home = _make_20ng(tmp_path, as_tar=True)
    with pytest.raises(ValueError, match=r"categories has unknown newsgroups \['sci.med'\]"):
        load_20newsgroups(data_home=home, vectorizer=stub_vectorizer, categories=["sci.med"])
    empty = tmp_path / "empty_home"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"found no local copy of 20news-bydate"):
        load_20newsgroups(data_home=empty, vectorizer=stub_vectorizer, download_if_missing=False)


def test_load_20newsgroups_shared_copy():
    _shared("20news-bydate", "20news-bydate.tar.gz")

    class Lengths:
        """A near-free vectorizer: one column holding each post's length in characters."""

        def fit_transform(self, texts):
            return sp.csr_matrix(np.array([[len(t)] for t in texts]))

        def get_feature_names_out(self):
            return np.array(["length"])

    c = load_20newsgroups("train", vectorizer=Lengths())
    assert c.n_docs == 11314
    assert len(c.label_names) == 20
    counts = dict(zip(c.label_names, np.bincount(c.labels)))
    assert counts["alt.atheism"] == 480 and counts["talk.religion.misc"] == 377
    assert len(set(c.doc_ids)) == c.n_docs
