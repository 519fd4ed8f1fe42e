"""The command line on raw text: fit keeps the vectorizer, so infer/evaluate/topics read new text."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from topicvb import TopicPipeline, load
from topicvb.cli import main
from topicvb.models._registry import ENTRIES, cli_names

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


# ----------------------------------------------------------------------------- every registered estimator
@pytest.fixture(scope="module")
def count_corpus(tmp_path_factory):
    from topicvb.datasets import make_lda_corpus

    path = tmp_path_factory.mktemp("counts") / "c.npz"
    make_lda_corpus(30, 12, 2, separated=True, random_state=0).corpus.save(path)
    return path


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.cli_name)
def test_fit_offers_every_registered_estimator(entry, count_corpus, tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["fit", str(count_corpus), "--model", entry.cli_name, "-k", "2", "--max-iter", "2", "--tol", "0",
                 "--doc-topic-prior", "0.3", "--batch-size", "8", "-o", str(out)]) == 0
    assert entry.class_name in capsys.readouterr().out
    model = load(out)
    assert type(model) is entry.cls and model.n_components == 2
    params = model.get_params()
    assert params["max_iter"] == 2
    if "max_components" in params:  # HDP: -k is the truncation level; it has no doc-topic prior to set
        assert params["max_components"] == 2 and "doc_topic_prior" not in params
    else:
        assert params["doc_topic_prior"] == 0.3
    if "batch_size" in params:  # the mini-batch models take --batch-size
        assert params["batch_size"] == 8


def test_model_choices_are_the_registry_names():
    from topicvb.cli import build_parser

    parser = build_parser()
    fixed_k = [e.cli_name for e in ENTRIES if "n_components" in e.cls().get_params()]
    assert "hdp" not in fixed_k and len(fixed_k) == len(cli_names()) - 1
    for command, names in ((["fit", "c.npz", "-o", "m.npz", "-k", "2"], cli_names()), (["demo"], cli_names()),
                           (["select-k", "c.npz", "--k", "2"], fixed_k)):  # select-k: the models with a given K
        assert parser.parse_args(command).model == "collapsed"  # the recommended estimator (issue #17)
        for name in names:
            assert parser.parse_args(command + ["--model", name]).model == name


def test_the_default_model_is_the_recommended_configuration(count_corpus, tmp_path):
    from topicvb import load
    from topicvb.models._registry import RECOMMENDED_PARAMS

    assert main(["fit", str(count_corpus), "-k", "2", "--max-iter", "3", "-o", str(tmp_path / "m.npz")]) == 0
    model = load(tmp_path / "m.npz")
    assert type(model).__name__ == "CollapsedLDA"
    assert {k: model.get_params()[k] for k in RECOMMENDED_PARAMS} == RECOMMENDED_PARAMS


def test_an_option_the_model_lacks_is_ignored_with_a_warning(count_corpus, tmp_path, caplog):
    with caplog.at_level("WARNING", logger="topicvb.cli"):
        assert main(["fit", str(count_corpus), "--model", "batch", "-k", "2", "--max-iter", "2", "--variant", "cvb",
                     "-o", str(tmp_path / "m.npz")]) == 0
    assert "--variant does not apply to --model batch (BatchLDA); ignored." in caplog.text


def test_select_k_plot_goes_through_plotting(count_corpus, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png = tmp_path / "k.png"
    assert main(["select-k", str(count_corpus), "--k", "2", "3", "--max-iter", "2", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "plot written to" in capsys.readouterr().out
