"""Tests of the corpora/ folder: the tiny fixture files and the recipes that build corpora."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from datasets_support import _shared

from topicvb.datasets import read_csv, read_jsonl, read_ldac, read_text_dir, read_uci


REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "corpora" / "tiny"
RECIPES = REPO / "corpora" / "recipes"


def _recipe(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"recipe_{name}", RECIPES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Lengths:
    """A near-free vectorizer: one column holding each text's length in characters."""

    def fit_transform(self, texts):
        return sp.csr_matrix(np.array([[len(t)] for t in texts]))

    def get_feature_names_out(self):
        return np.array(["length"])


def test_tiny_fixtures_agree(stub_vectorizer):
    uci = read_uci(TINY / "docword.tiny.txt", TINY / "vocab.tiny.txt")
    ldac = read_ldac(TINY / "tiny.dat", TINY / "vocab.tiny.txt")
    assert uci.X.shape == (40, 24) and (uci.doc_lengths == 0).sum() == 2
    assert (uci.X != ldac.X).nnz == 0 and uci.vocabulary == ldac.vocabulary
    topic_word = np.loadtxt(TINY / "tiny_topics.txt")
    assert topic_word.shape == (3, 24)
    np.testing.assert_allclose(topic_word.sum(axis=1), 1.0, atol=1e-4)
    from_csv = read_csv(TINY / "tiny.csv", "text", "label", id_column="id", vectorizer=stub_vectorizer)
    from_jsonl = read_jsonl(TINY / "tiny.jsonl", "text", "label", id_field="id", vectorizer=stub_vectorizer)
    from_dir = read_text_dir(TINY / "texts", vectorizer=stub_vectorizer)
    assert from_csv.n_docs == from_jsonl.n_docs == from_dir.n_docs == 12
    assert from_csv.texts == from_jsonl.texts
    assert from_csv.label_names == from_dir.label_names == ["cooking", "music", "space"]
    by_id = dict(zip(from_csv.doc_ids, from_csv.texts))
    assert all(by_id[Path(p).stem] + "\n" == t for p, t in zip(from_dir.doc_ids, from_dir.texts))


def test_make_tiny_recipe_reproduces_the_files(tmp_path):
    _recipe("make_tiny").make_tiny(tmp_path)
    for name in ("tiny.csv", "tiny.jsonl", "texts/music/m1.txt"):
        assert (tmp_path / name).read_bytes() == (TINY / name).read_bytes()
    again = read_uci(tmp_path / "docword.tiny.txt", tmp_path / "vocab.tiny.txt")
    assert again.X.shape == (40, 24)


def test_recipe_reuters21578():
    archive = _shared("reuters21578", "reuters21578.tar.gz")
    articles = _recipe("reuters21578").read_articles(str(archive))
    assert len(articles) == 21578
    assert [a["newid"] for a in articles] == list(range(1, 21579))
    modapte = [a for a in articles if a["topics_attr"] == "YES"]
    assert sum(a["lewissplit"] == "TRAIN" for a in modapte) == 9603
    assert sum(a["lewissplit"] == "TEST" for a in modapte) == 3299
    assert articles[0]["topics"] == ["cocoa"] and articles[0]["text"].startswith("BAHIA COCOA REVIEW")


def test_recipe_ap_blei():
    archive = _shared("ap-blei", "ap.tgz")
    ap = _recipe("ap_blei").load_ap(str(archive))
    assert ap.n_docs == 2246 and ap.n_tokens == 435838
    assert len(set(ap.doc_ids)) == 2246 and all(d.startswith("AP") for d in ap.doc_ids)
