"""What a continued fit knows of the fit that made a model survives save and load (the file's ``fit`` record):
partial_fit still refuses a prior set to another value since the fit started, and plot_bound_history still tells
the mini-batches of fit's passes from those partial_fit streamed after it. Each test fails on the code before
the record (a loaded model was continued unchecked, and its x-axis judged from round numbers)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from topicvb import OnlineLDA, StochasticCollapsedLDA, persistence, seed_topic_prior
from topicvb.datasets import make_lda_corpus

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning",
                                        "ignore::topicvb.exceptions.DeadTopicWarning")


@pytest.fixture(scope="module")
def lda():
    corpus = make_lda_corpus(120, 30, 3, doc_length=50, random_state=0).corpus
    return corpus.X, list(corpus.vocabulary)


def _reloaded(model, tmp_path, name="m.npz"):
    return persistence.load(persistence.save(model, tmp_path / name))


@pytest.mark.parametrize("cls", [OnlineLDA, StochasticCollapsedLDA])
def test_a_loaded_stream_refuses_another_prior_as_the_saved_one_did(lda, cls, tmp_path):
    X, vocab = lda
    prior = seed_topic_prior(vocab, {"space": [vocab[2], vocab[5]]}, 3)
    seeded = _reloaded(cls(3, topic_word_prior=prior, random_state=0).partial_fit(X[:60]), tmp_path)
    seeded.partial_fit(X[60:80])  # the same prior (an equal SeededPrior rebuilt from the file): goes on
    seeded.set_params(topic_word_prior=None)
    with pytest.raises(ValueError, match=rf"{cls.__name__}.partial_fit: topic_word_prior differs from the value the "
                                         "fit started with"):
        seeded.partial_fit(X[80:])
    seeded.set_params(topic_word_prior=prior).partial_fit(X[80:])
    # a prior set to another value before saving: the loaded model holds the new value, and still refuses it
    changed = cls(3, doc_topic_prior=0.2, random_state=0).partial_fit(X[:60]).set_params(doc_topic_prior=0.5)
    loaded = _reloaded(changed, tmp_path, "changed.npz")
    assert loaded.doc_topic_prior == 0.5
    with pytest.raises(ValueError, match="doc_topic_prior differs"):
        loaded.partial_fit(X[60:])
    loaded.set_params(doc_topic_prior=0.2).partial_fit(X[60:])  # set back: goes on


def test_a_prior_the_file_stores_in_another_form_is_the_same_prior(lda, tmp_path):
    """A sparse matrix prior is stored dense, a list as a list: the loaded model's parameters are the fit's."""
    X, _ = lda
    eta = np.full((3, X.shape[1]), 0.05)
    eta[0, :4] = 1.0
    model = OnlineLDA(3, topic_word_prior=sp.csr_matrix(eta), doc_topic_prior=[0.1, 0.2, 0.3],
                      random_state=0).partial_fit(X[:60])
    loaded = _reloaded(model, tmp_path)
    assert isinstance(loaded.topic_word_prior, np.ndarray)
    loaded.partial_fit(X[60:])  # not refused
    np.testing.assert_allclose(loaded.components_, model.partial_fit(X[60:]).components_)


def test_a_loaded_fit_draws_the_mini_batches_streamed_after_it_as_mini_batches(lda, tmp_path):
    """Two passes of 6 mini-batches, then 6 streamed: 18 mini-batches and 360 documents seen are round numbers
    for 2 passes of 9, which the numbers alone cannot tell from the truth."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from topicvb import plotting

    X, _ = lda
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = OnlineLDA(3, batch_size=20, max_iter=2, tol=0, random_state=0).fit(X)
        for i in range(0, 120, 20):
            model.partial_fit(X[i:i + 20])
    fitted = OnlineLDA(3, batch_size=20, max_iter=2, tol=0, random_state=0).fit(X)
    for m in (model, _reloaded(model, tmp_path)):
        ax = plotting.plot_bound_history(m)
        np.testing.assert_allclose(ax.lines[0].get_xdata(), np.arange(1, 19))
        assert ax.get_xlabel() == "mini-batch"
    for m in (fitted, _reloaded(fitted, tmp_path, "fitted.npz")):  # a fit alone: passes, saved or not
        ax = plotting.plot_bound_history(m)
        np.testing.assert_allclose(ax.lines[0].get_xdata(), np.arange(1, 13) / 6)
        assert ax.get_xlabel().startswith("passes over the corpus")
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("record", [
    [1, 2],
    {"changed_priors": {"alpha": "<array 00>"}},
    {"changed_priors": {"doc_topic_prior": 3}},
    {"fit_batches": -1},
    {"fit_batches": True},
    {"fit_batches": 2, "other": 1},
])
def test_a_damaged_fit_record_is_refused_naming_the_file(lda, tmp_path, record):
    X, _ = lda
    path = persistence.save(OnlineLDA(3, random_state=0, max_iter=2).fit(X), tmp_path / "m.npz")
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("meta")[()]))
    meta["fit"] = record
    np.savez(tmp_path / "bad.npz", meta=np.asarray(json.dumps(meta)), **arrays)
    with pytest.raises(ValueError, match=r"bad\.npz' (has an invalid fit record|is not a valid topicvb model file: its "
                                         r"'fit' record)"):
        persistence.load(tmp_path / "bad.npz")


def test_a_file_without_the_record_still_loads_and_continues(lda, tmp_path):
    """(Files of older versions.)"""
    X, _ = lda
    model = OnlineLDA(3, random_state=0).partial_fit(X[:60])
    path = persistence.save(model, tmp_path / "m.npz")
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("meta")[()]))
    assert "fit" in meta
    del meta["fit"]
    np.savez(tmp_path / "old.npz", meta=np.asarray(json.dumps(meta)), **arrays)
    loaded = persistence.load(tmp_path / "old.npz")
    assert "_started_priors" not in vars(loaded)
    loaded.set_params(doc_topic_prior=0.9).partial_fit(X[60:])  # unchecked, as before
