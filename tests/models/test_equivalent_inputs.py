"""Inputs that hold the same counts give the same model, and inputs a model cannot hold are refused up front.

Found by an edge-case hunt (session 14): stored zeros changed results, DOK matrices were refused, 1-D and 3-D
sparse arrays got an unpacking message, ``score`` broke under ``set_output(transform="pandas")`` and warned
about feature names on the DataFrame the model was fitted on, and float32 models took counts whose sum they
cannot hold (silent NaN topics).
"""

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.exceptions import ConvergenceWarning

from topicvb import make_lda_corpus
from topicvb.models._registry import ENTRIES

CLASSES = [e.cls for e in ENTRIES]
IDS = [c.__name__ for c in CLASSES]


def _model(cls, **params):
    k = {} if cls.__name__ == "HDP" else {"n_components": 3}
    return cls(**k, max_iter=4, random_state=0, **params)


@pytest.fixture(scope="module")
def counts():
    return make_lda_corpus(30, 12, 3, random_state=0).corpus.X.tocsr().astype(np.float64)


def _with_stored_zeros(X):
    """The same matrix with every zero cell stored explicitly (and not canonical: the zeros are entries)."""
    dense = X.toarray()
    n_docs, n_terms = dense.shape
    Z = sp.csr_matrix((dense.ravel(), np.tile(np.arange(n_terms), n_docs), np.arange(0, dense.size + 1, n_terms)),
                      shape=dense.shape)
    assert Z.nnz == dense.size and Z.has_canonical_format
    return Z


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_stored_zeros_change_nothing(cls, counts):
    # (before, CollapsedLDA and HDP visited the stored zeros in their sweeps and score split them: other topics,
    # another score)
    Z = _with_stored_zeros(counts)
    plain, zeros = _model(cls).fit(counts), _model(cls).fit(Z)
    np.testing.assert_array_equal(zeros.components_, plain.components_)
    np.testing.assert_array_equal(zeros.transform(Z[:5]), plain.transform(counts[:5]))
    assert zeros.score(Z) == plain.score(counts)
    from topicvb.evaluation import heldout_perplexity  # (and the evaluator that score equals, -log of it)

    assert heldout_perplexity(zeros, Z) == heldout_perplexity(plain, counts)
    np.testing.assert_allclose(-np.log(heldout_perplexity(plain, Z)), plain.score(counts), rtol=1e-12)
    assert Z.nnz == np.prod(counts.shape)  # (the caller's matrix is not changed)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_dok_input_is_accepted_as_the_same_counts(cls, counts):
    # (before, a DOK matrix, a dict subclass, was refused as "got dok_matrix")
    plain = _model(cls).fit(counts)
    for make in (sp.dok_matrix, getattr(sp, "dok_array", sp.dok_matrix)):
        model = _model(cls).fit(make(counts))
        np.testing.assert_array_equal(model.components_, plain.components_)
        np.testing.assert_array_equal(model.transform(make(counts[:4])), plain.transform(counts[:4]))


def _nd_sparse_arrays() -> bool:
    """Whether this SciPy has sparse arrays of other dimensions than 2 (1.15 and later; older ones refuse a 1-D
    shape with "invalid input format")."""
    try:
        return hasattr(sp.coo_array((2,)), "coords")
    except (AttributeError, TypeError, ValueError):
        return False


@pytest.mark.skipif(not _nd_sparse_arrays(), reason="this SciPy has no 1-D or n-D sparse arrays")
@pytest.mark.parametrize("shape", [(9,), (2, 3, 9)])
def test_sparse_arrays_of_another_dim_are_named(shape):
    # (before: "bad index structure: not enough values to unpack (expected 2, got 1)")
    from topicvb import BatchLDA

    X = sp.coo_array(np.ones(shape))
    with pytest.raises(ValueError, match=rf"BatchLDA.fit expects a document-term count matrix X .*got a sparse array "
                                         rf"of dim {len(shape)} \(shape {re.escape(str(shape))}\)"):
        BatchLDA(2).fit(X)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("ignore::topicvb.exceptions.DeadTopicWarning")
@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_score_ignores_pandas_output_and_names_no_missing_feature_names(cls, counts):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(counts.toarray(), columns=[f"w{j}" for j in range(counts.shape[1])])
    model = _model(cls).fit(frame)
    want = model.score(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (before: "X does not have valid feature names, but ... was fitted with")
        assert model.score(frame) == want and model.perplexity(frame) == np.exp(-want)
    model.set_output(transform="pandas")  # (before: a numba TypingError from the DataFrame transform gave score)
    assert isinstance(model.transform(frame), pd.DataFrame)
    assert model.score(frame) == want
    with sklearn.config_context(transform_output="pandas"):
        assert _model(cls).fit(frame).score(frame) == want


@pytest.mark.parametrize("cls", CLASSES, ids=IDS)
def test_counts_a_float32_model_cannot_hold_are_refused(cls, counts):
    # (before, float32 models took counts summing to 8.9e38: NaN topics, or uniform ones, silently)
    huge = counts * 1e30  # (each cell within float32, their sum far beyond what a float32 model holds)
    with pytest.raises(ValueError, match=r"fit got counts summing to .* a float32 model holds at most 1e\+15 tokens in "
                                         r"all .*use dtype='float64' or rescale X"):
        _model(cls, dtype="float32").fit(huge)
    with pytest.raises(ValueError, match=r"fit got counts summing to .* a float64 model holds at most 1e\+100 tokens"):
        _model(cls).fit(counts * (1e100 / counts.sum()) * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = _model(cls, dtype="float32").fit(counts * 1e10)  # (within the limit: a finite model)
    assert np.all(np.isfinite(model.components_)) and np.isfinite(model.score(counts))
    with pytest.raises(ValueError, match=r"transform got counts summing to"):
        model.transform(huge)



@pytest.mark.parametrize("cls", [c for c in CLASSES if c.__name__ in ("BatchLDA", "OnlineLDA", "CollapsedLDA")],
                         ids=lambda c: c.__name__)
def test_weights_negligible_next_to_the_prior_call_no_topic_dead(cls, counts):
    # (before: "3 of 3 topics carry less than 0.2/K of the tokens", impossible since the shares sum to 1: the
    # expected counts of weights of 1e-150 round to nothing next to the prior)
    from topicvb.exceptions import DeadTopicWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("error", DeadTopicWarning)
        model = _model(cls).fit(counts * 1e-150)
    assert np.all(np.isfinite(model.components_))
