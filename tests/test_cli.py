"""The command line on raw text: fit keeps the vectorizer, so infer/evaluate/topics read new text."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from topicvb import TopicPipeline, load
from topicvb.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

FRUIT = "apples pears plums fruit salad orchard harvest juice sweet ripe"
CITY = "subway taxi traffic street bridge tower downtown crowd noise city"


def _texts(rng, n):
    out = []
    for i in range(n):
        words = (FRUIT if i % 2 == 0 else CITY).split()
        out.append(" ".join(rng.choice(words, size=30)))
    return out


def _folder(path, texts):
    path.mkdir()
    for i, text in enumerate(texts):
        (path / f"doc{i:03d}.txt").write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    train = _folder(tmp / "train", _texts(rng, 40))
    test = _folder(tmp / "test", _texts(rng, 10))
    model = tmp / "m.npz"
    assert main(["fit", str(train), "-k", "2", "--max-iter", "30", "--min-df", "1", "-o", str(model)]) == 0
    return tmp, model, test


def test_fit_on_raw_text_saves_the_vectorizer(fitted, capsys):
    _, model, _ = fitted
    pipe = load(model)
    assert isinstance(pipe, TopicPipeline)
    assert set(pipe.vectorizer.get_feature_names_out()) == set(FRUIT.split()) | set(CITY.split())


def test_infer_gives_the_pipeline_topics_of_new_text(fitted, capsys):
    tmp, model, test = fitted
    out = tmp / "theta.csv"
    assert main(["infer", str(model), str(test), "-o", str(out), "--top", "1"]) == 0
    printed = capsys.readouterr().out
    assert "doc000" in printed and "topic" in printed
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["document", "topic_0", "topic_1"]
    theta = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    texts = [(test / f"{r[0]}").read_text(encoding="utf-8") if (test / r[0]).exists()
             else (test / f"{r[0]}.txt").read_text(encoding="utf-8") for r in rows[1:]]
    np.testing.assert_allclose(theta, load(model).document_topics(texts), rtol=1e-5)
    # the two kinds of documents fall into different topics
    kinds = np.array(["apples" in t or "pears" in t or "plums" in t or "fruit" in t for t in texts])
    assert len(set(theta[kinds].argmax(axis=1))) == 1 and len(set(theta[~kinds].argmax(axis=1))) == 1
    assert theta[kinds][0].argmax() != theta[~kinds][0].argmax()


def test_evaluate_and_topics_read_raw_text_with_the_saved_vectorizer(fitted, capsys):
    _, model, test = fitted
    assert main(["evaluate", str(model), str(test)]) == 0
    out = capsys.readouterr().out
    assert "held-out perplexity" in out
    assert main(["topics", str(model), "--corpus", str(test), "--n", "3"]) == 0
    assert "%" in capsys.readouterr().out  # prevalence measured on the new corpus


def test_infer_with_a_count_model_and_text_input_says_what_is_wrong(fitted, tmp_path, capsys):
    _, _, test = fitted
    rng = np.random.default_rng(1)
    corpus = tmp_path / "c.npz"
    assert main(["vectorize", str(_folder(tmp_path / "t", _texts(rng, 20))), "--min-df", "1", "-o", str(corpus)]) == 0
    model = tmp_path / "counts.npz"
    assert main(["fit", str(corpus), "-k", "2", "--max-iter", "3", "-o", str(model)]) == 0
    assert not isinstance(load(model), TopicPipeline)  # fitted on a count matrix: no vectorizer to keep
    capsys.readouterr()
    # new text counted with a fresh vectorizer has other columns: refused with a one-line reason
    assert main(["infer", str(model), str(_folder(tmp_path / "n", ["zebra lion", "tiger"])), "--min-df", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "different vocabulary" in err[0]
