"""Bugs of the evaluation functions found by a hunt: warning filters swapped from threads, select_n_topics on
fractional counts and its one split, options checked after the first fit, duplicate reference terms, a DataFrame
model's bound, a class given to perplexity_trace."""

import sys
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from topicvb import BatchLDA
from topicvb.datasets import make_lda_corpus
from topicvb.evaluation import ReferenceCorpus, coherence, heldout_perplexity, per_word_bound, perplexity_trace
from topicvb.evaluation import select_n_topics


@pytest.fixture(scope="module")
def data():
    X = make_lda_corpus(80, 20, 3, doc_length=30, random_state=0).corpus.X.tocsr().astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = BatchLDA(3, max_iter=5, random_state=0).fit(X[:60])
    return X, model


def test_the_evaluation_functions_leave_the_process_wide_warning_filters_alone(data, monkeypatch):
    # (warnings.catch_warnings swaps the process-wide filter list: two threads calling heldout_perplexity or
    # select_n_topics at once left an "ignore" filter behind for the whole process, or lost one another thread set)
    X, model = data
    real, callers = warnings.catch_warnings, []

    def spy(*args, **kwargs):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller.startswith("topicvb."):
            callers.append(caller)
        return real(*args, **kwargs)

    monkeypatch.setattr(warnings, "catch_warnings", spy)
    with real(record=True) as caught:
        warnings.simplefilter("always")
        heldout_perplexity(model, X[60:])
        per_word_bound(model, X[60:])
        select_n_topics(X, [2, 3], model="batch", max_iter=2, tol=1e-12)  # (capped: not converged)
        perplexity_trace(BatchLDA(2, random_state=0, tol=1e-12), X[:60], X[60:], checkpoints=(1, 2))
    assert callers == []
    assert not [w for w in caught if issubclass(w.category, ConvergenceWarning)]  # (still quiet, in this thread)
    before = list(warnings.filters)
    threads = [threading.Thread(target=lambda: [heldout_perplexity(model, X[60:]) for _ in range(20)])
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert warnings.filters == before
    with pytest.warns(ConvergenceWarning):  # (and a fit of one's own still warns)
        BatchLDA(2, max_iter=2, tol=1e-12, random_state=0).fit(X)


def test_select_n_topics_takes_fractional_counts_and_scores_every_candidate_on_one_split(data, monkeypatch):
    # (before, fractional counts failed after the first fit with split_tokens' message about heldout_perplexity,
    # and random_state=None drew a new split of the test documents for every candidate)
    import topicvb.evaluation.selection as selection

    X, _ = data
    splits, real = [], selection.split_cells
    monkeypatch.setattr(selection, "split_cells", lambda *a, **k: splits.append(1) or real(*a, **k))
    result = select_n_topics(X * 0.5, [2, 3, 4], model="batch", max_iter=3, random_state=None)
    assert len(splits) == 1 and np.all(np.isfinite(result.column("perplexity")))
    # an int seed gives the perplexity of each model's own score (the same split)
    result = select_n_topics(X[:60], [2, 3], model="batch", X_test=X[60:], max_iter=3, random_state=0)
    best = result.best_model
    assert np.isclose(result.column("perplexity")[[2, 3].index(result.best_k)], np.exp(-best.score(X[60:])))


def test_select_n_topics_checks_its_coherence_options_before_fitting(data):
    # (before, both were found only after the first candidate's fit)
    X, _ = data
    fits = []

    class Counting(BatchLDA):
        def fit(self, X, y=None, **kw):
            fits.append(1)
            return super().fit(X, y, **kw)

    ref = ReferenceCorpus(X, [f"t{j}" for j in range(X.shape[1])])
    with pytest.raises(ValueError, match="needs tokenised documents"):
        select_n_topics(X, [2, 3], model=Counting(max_iter=2), reference=ref, coherence_measure="c_v")
    with pytest.raises(ValueError, match="vocabulary has 3 terms, but X has 20 columns"):
        select_n_topics(X, [2, 3], model=Counting(max_iter=2), reference=ref, vocabulary=["a", "b", "c"])
    assert fits == []


def test_a_reference_vocabulary_naming_two_columns_alike_is_refused():
    # (before, the last column of a duplicated term was read, the others ignored: a wrong coherence, silently)
    X = sp.csr_matrix(np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]]))
    with pytest.raises(ValueError, match=r"ReferenceCorpus: vocabulary must name each column by a term of its own; "
                                         r"'a' names more than one column"):
        ReferenceCorpus(X, ["a", "b", "a"])
    assert coherence([["a", "b"]], (X, ["a", "b", "c"])).per_topic[0] > 0.9


def test_per_word_bound_of_a_dataframe_model_does_not_warn_about_feature_names(data):
    pd = pytest.importorskip("pandas")
    X, _ = data
    df = pd.DataFrame(X.toarray(), columns=[f"t{j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = BatchLDA(3, max_iter=3, random_state=0).fit(df)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = per_word_bound(model, df)
    assert np.isclose(value, model.bound(df) / X.sum())


@pytest.mark.parametrize("given, what", [("batch", "str 'batch'"), (BatchLDA, "the class BatchLDA")])
def test_perplexity_trace_names_a_model_that_is_not_an_instance(data, given, what):
    X, _ = data
    with pytest.raises(TypeError, match=rf"perplexity_trace needs an estimator instance \(e\.g\. BatchLDA\(10\)\), "
                                        rf"got {what}"):
        perplexity_trace(given, X[:60], X[60:])


def test_select_n_topics_scores_with_its_n_jobs(data, monkeypatch):
    # (before, the held-out scoring of every candidate ran on all cores whatever n_jobs said)
    import topicvb.evaluation.selection as selection

    X, _ = data
    seen, real = [], selection.heldout_perplexity
    monkeypatch.setattr(selection, "heldout_perplexity", lambda *a, **k: seen.append(k.get("n_jobs")) or real(*a, **k))
    select_n_topics(X, [2, 3], model="batch", max_iter=2, n_jobs=1)
    assert seen == [1, 1]



class _CountingLDA(BatchLDA):
    """A BatchLDA that records the max_iter of each fit."""

    fits: list = []

    def fit(self, X, y=None, **params):
        _CountingLDA.fits.append(self.max_iter)
        return super().fit(X, y, **params)


def test_perplexity_trace_fits_the_first_checkpoint_once_untimed(data, monkeypatch):
    """The first checkpoint's time included the one-time compilation of the kernels in a fresh process (seconds,
    against milliseconds for the fit): its fit is now made once before the timed fits."""
    X, _ = data
    monkeypatch.setattr(_CountingLDA, "fits", [])
    trace = perplexity_trace(_CountingLDA(2, random_state=0, tol=1e-12), X[:60], X[60:], checkpoints=(2, 1))
    assert _CountingLDA.fits == [1, 1, 2] and trace["n_iter"] == [1, 2]
