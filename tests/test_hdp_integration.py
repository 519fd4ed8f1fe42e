"""HDP (issue #23) downstream: evaluation, inspection, the HTML report, save / load, the pipeline and the CLI."""

import io
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from topicvb import HDP, load, make_topic_pipeline, save
from topicvb.cli import main
from topicvb.datasets import make_lda_corpus
from topicvb.evaluation import ReferenceCorpus, coherence, heldout_perplexity
from topicvb.inspection import summary, top_words, topic_prevalence
from topicvb.report import report


@pytest.fixture(scope="module")
def corpus():
    return make_lda_corpus(300, 80, 4, doc_length=60, separated=True, random_state=0).corpus


@pytest.fixture(scope="module")
def model(corpus):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return HDP(max_components=10, max_iter=80, random_state=0).fit(corpus.X)


def test_the_model_found_the_four_topics(model):
    assert model.n_components_ == 4


def test_evaluation(model, corpus):
    X = corpus.X
    assert heldout_perplexity(model, X) == pytest.approx(model.perplexity(X), rel=1e-9)
    words = [[w for w, _ in t] for t in top_words(model, corpus.vocabulary, 5)]
    scores = coherence(words, ReferenceCorpus(X=X, vocabulary=corpus.vocabulary))
    assert len(scores.per_topic) == model.n_components_


def test_inspection(model, corpus):
    assert len(model.top_words(5, corpus.vocabulary)) == model.n_components_
    table = summary(model, corpus.X, corpus.vocabulary)
    out = io.StringIO()
    print(table, file=out)
    assert out.getvalue().startswith("HDP") and "    3 " in out.getvalue()
    assert topic_prevalence(model, corpus.X).shape == (model.n_components_,)


def test_report(model, corpus):
    page = report(model, corpus.X, corpus.vocabulary)
    assert "<html" in page[:200].lower() and "HDP" in page


def test_save_and_load(model, corpus, tmp_path):
    path = save(model, tmp_path / "hdp.npz", corpus.vocabulary)
    loaded = load(path)
    assert type(loaded) is HDP and loaded.n_components_ == model.n_components_
    for name in ("components_", "doc_topic_prior_", "all_components_", "topic_weights_", "topic_shares_",
                 "bound_history_", "objective_history_"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
    assert loaded.doc_topic_concentration_ == model.doc_topic_concentration_
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.transform(corpus.X), model.transform(corpus.X))


def test_a_file_whose_topic_count_disagrees_is_refused(model, corpus, tmp_path):
    path = save(model, tmp_path / "hdp.npz")
    with np.load(path, allow_pickle=False) as f:
        arrays = dict(f)
    import json

    meta = json.loads(str(arrays["meta"]))
    meta["scalars"]["n_components_"] = model.n_components_ + 1
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match="n_components_"):
        load(tmp_path / "bad.npz")


def test_a_file_giving_hdp_a_matrix_prior_is_refused(model, tmp_path):
    # (found by the corrupted-file property test: a clear ValueError, not the AttributeError of HDP's
    # n_components, which exists only after a fit)
    import json

    path = save(model, tmp_path / "hdp.npz")
    with np.load(path, allow_pickle=False) as f:
        arrays = dict(f)
    meta = json.loads(str(arrays["meta"]))
    meta["params"]["topic_word_prior"] = {"array": "topic_word_prior"}
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match="HDP does not take"):
        load(tmp_path / "bad.npz")


def test_pipeline_on_texts(tmp_path):
    fruit, city = "apple banana cherry grape lemon mango", "paris london tokyo berlin madrid rome"
    rng = np.random.default_rng(0)
    texts = [" ".join(rng.choice((fruit if i % 2 else city).split(), size=30)) for i in range(40)]
    from topicvb.text import Vectorizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe = make_topic_pipeline(Vectorizer(min_df=1), HDP(max_components=6, max_iter=60, random_state=0))
        doc_topic = pipe.fit_transform(texts)
    assert doc_topic.shape == (40, 2)
    loaded = load(save(pipe, tmp_path / "pipe.npz"))
    np.testing.assert_allclose(loaded.transform(texts), doc_topic)


def test_cli_fits_and_uses_an_hdp(tmp_path, capsys):
    fruit, city = "apple banana cherry grape lemon mango", "paris london tokyo berlin madrid rome"
    rng = np.random.default_rng(0)
    folder = tmp_path / "train"
    folder.mkdir()
    for i in range(40):
        (folder / f"doc{i:03d}.txt").write_text(" ".join(rng.choice((fruit if i % 2 else city).split(), size=30)))
    out = tmp_path / "m.npz"
    assert main(["fit", str(folder), "--model", "hdp", "-k", "6", "--max-iter", "60", "--min-df", "1",
                 "-o", str(out)]) == 0
    assert "HDP" in capsys.readouterr().out
    pipe = load(out)
    assert pipe.model.max_components == 6 and pipe.model.n_components_ == 2
    assert main(["topics", str(out), "--n", "3"]) == 0
    assert main(["evaluate", str(out), str(folder)]) == 0
