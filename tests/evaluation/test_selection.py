"""Choosing the number of topics."""

import json
import warnings

import numpy as np
import pytest

from topicvb import PLSA, BatchLDA, OnlineLDA
from topicvb.evaluation import SelectionResult, heldout_perplexity, select_n_topics
from topicvb.models._registry import ENTRIES


def test_heldout_criterion_finds_the_true_number_of_topics(synthetic, split):
    result = select_n_topics(split[0], [2, 4, 8], criterion="heldout", X_test=split[1], max_iter=50)
    assert isinstance(result, SelectionResult)
    assert result.best_k == 4
    assert [row["n_topics"] for row in result.table] == [2, 4, 8]
    ppl = result.column("perplexity")
    assert ppl[1] == ppl.min()
    # the table's value is the documented heldout_perplexity of the chosen model
    assert ppl[1] == pytest.approx(heldout_perplexity(result.best_model, split[1], random_state=0))
    assert result.best_model.n_components == 4
    assert all(row["fit_time"] > 0 and row["n_iter"] >= 1 for row in result.table)


def test_a_best_k_at_the_edge_of_the_candidates_warns(split):
    # 4 true topics: among 2 and 3 the largest wins, and the best K may lie beyond the range
    with pytest.warns(UserWarning, match=r"best K \(3\) is the largest candidate.*add candidates above it"):
        result = select_n_topics(split[0], [2, 3], criterion="heldout", X_test=split[1], max_iter=50)
    assert result.best_k == 3
    # inside the range: no such warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert select_n_topics(split[0], [2, 4, 8], criterion="heldout", X_test=split[1], max_iter=50).best_k == 4
    assert not [w for w in caught if "best K" in str(w.message)]


def test_elbo_criterion_and_the_result_object(synthetic):
    corpus = synthetic.corpus
    result = select_n_topics(corpus.X, [2, 4], criterion="elbo", reference=corpus, max_iter=40, n_jobs=1)
    bounds = result.column("bound")
    assert result.best_k == [2, 4][int(np.argmax(bounds))]
    assert result.best_model.n_jobs == 1
    # the bound is the final training ELBO
    best_row = result.table[[row["n_topics"] for row in result.table].index(result.best_k)]
    assert best_row["bound"] == pytest.approx(result.best_model.bound_history_[-1])
    assert result.coherence_measure == "c_npmi"
    assert np.all(np.isfinite(result.column("coherence")))
    assert np.isnan(result.column("perplexity")).all()
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["best_k"] == result.best_k and len(data["table"]) == 2
    text = str(result)
    assert "best K" in text and "<- best" in text and "c_npmi" in text


def test_model_given_as_class_string_or_instance(split):
    X = split[0]
    a = select_n_topics(X, [3], model=BatchLDA, max_iter=5, random_state=1)
    b = select_n_topics(X, [3], model="batch", max_iter=5, random_state=1)
    c = select_n_topics(X, [3], model=BatchLDA(max_iter=5), random_state=1)
    np.testing.assert_allclose(a.best_model.components_, b.best_model.components_)
    np.testing.assert_allclose(a.best_model.components_, c.best_model.components_)
    online = select_n_topics(X, [3], model="online", criterion="elbo", max_iter=2)
    assert online.model_name == "OnlineLDA"
    assert online.table[0]["bound"] == pytest.approx(online.best_model.bound(X))
    assert isinstance(select_n_topics(X, [3], model=OnlineLDA(max_iter=1)).best_model, OnlineLDA)


def test_heldout_without_x_test_holds_out_documents(split):
    result = select_n_topics(split[0], [2, 4], model=PLSA, criterion="heldout", max_iter=20)
    assert np.all(np.isfinite(result.column("perplexity")))


def test_coherence_criterion(synthetic):
    corpus = synthetic.corpus
    result = select_n_topics(corpus.X, [2, 4], criterion="coherence", reference=corpus, max_iter=20,
                             coherence_measure="u_mass")
    coh = result.column("coherence")
    assert result.best_k == [2, 4][int(np.argmax(coh))]


def test_selection_bad_input(split):
    X = split[0]
    with pytest.raises(ValueError, match=r"criterion must be one of \{'coherence', 'elbo', 'heldout'\}, got 'aic'"):
        select_n_topics(X, [2], criterion="aic")
    with pytest.raises(ValueError, match="needs a reference corpus"):
        select_n_topics(X, [2], criterion="coherence")
    with pytest.raises(ValueError, match="candidates is empty"):
        select_n_topics(X, [])
    with pytest.raises(ValueError, match="candidates must be positive ints, got 0"):
        select_n_topics(X, [0, 2])
    with pytest.raises(ValueError, match=r"model must be one of .*got 'lsa'"):
        select_n_topics(X, [2], model="lsa")
    with pytest.raises(ValueError, match="X_test has 39 terms"):
        select_n_topics(X, [2], X_test=split[1][:, :39])
    with pytest.raises(TypeError, match="model must be a topic model class"):
        select_n_topics(X, [2], model=3)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.cli_name != "hdp"], ids=lambda e: e.cli_name)
def test_every_registered_estimator_is_offered_by_name(entry, split):
    result = select_n_topics(split[0][:80], [2], model=entry.cli_name, criterion="heldout", max_iter=2)
    assert type(result.best_model) is entry.cls
    assert result.model_name == entry.class_name
    assert np.isfinite(result.table[0]["bound"]) and np.isfinite(result.table[0]["perplexity"])


def test_hdp_is_refused_since_it_chooses_its_own_number_of_topics(split):
    with pytest.raises(TypeError, match="HDP has none .it infers the number of topics itself"):
        select_n_topics(split[0][:80], [2], model="hdp", max_iter=2)


def test_mini_batch_models_report_the_bound_on_the_whole_corpus(split):
    X = split[0][:80]
    result = select_n_topics(X, [2], model="scvb0", criterion="elbo", max_iter=2)
    assert result.table[0]["bound"] == pytest.approx(result.best_model.bound(X))


def test_the_result_does_not_draw_and_names_the_plotting_function(split):
    result = select_n_topics(split[0][:80], [2], max_iter=2)
    with pytest.raises(TypeError, match=r"SelectionResult\.plot was removed.*topicvb\.plotting\.plot_selection"):
        result.plot()
