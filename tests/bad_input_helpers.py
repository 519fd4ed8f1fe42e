"""Shared helpers for the systematic bad-input tests of every public entry point of topicvb.

The cases live beside the tests of the part of the package they exercise:

- ``tests/models/test_bad_input_models.py``: estimators (fit, parameters, fitted-model methods, partial_fit)
- ``tests/text/test_bad_input_text.py``: Tokenizer, Vectorizer, PhraseDetector, Vocabulary
- ``tests/datasets/test_bad_input_readers.py``: readers, writers, Corpus, make_lda_corpus
- ``tests/evaluation/test_bad_input_evaluation.py``: perplexity, bound, coherence, diversity, select_n_topics
- ``tests/test_bad_input_inspection.py``, ``tests/test_bad_input_persistence.py``, ``tests/test_bad_input_cli.py``

1285 cases: 973 collected test items, of which 13 are hypothesis properties run with
max_examples=25 each (so 973 - 13 + 13 x 25 = 1285 inputs tried).

Each case either works, and the test asserts the documented behaviour (empty documents get the
prior mean, fractional counts are weights, K > n_docs works, fitted attributes are finite and
``transform`` rows sum to 1), or raises a clear error: the exception type is asserted and
``match=`` checks that the message names the input and what was expected. No message may come
from numba, a failed ``fit``/``partial_fit`` leaves a fitted model unchanged (equal pickles), and
the inputs that could crash the interpreter run in a subprocess with a timeout.

Cases where the library misbehaves today are marked ``xfail(strict=True, reason="BUG: ...")``:
the expectation is the one the library should meet, so fixing the bug turns the xfail into an
XPASS failure and the mark must then be removed. The 65 such cases found when these tests were
written are all fixed now; the ``bug`` helper stays for the next one.

Every bad-input test module sets ``pytestmark = PYTESTMARK`` and imports the autouse ``_hang_guard``
fixture from here (``tests/`` is on ``sys.path``: pyproject sets ``pythonpath = ["tests"]``).
"""

from __future__ import annotations

import contextlib
import copy
import faulthandler
import functools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from topicvb.models import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA

PYTESTMARK = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
]

MODELS = [PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA]
MODEL_NAMES = [m.__name__ for m in MODELS]
STREAMING = [OnlineLDA, StochasticCollapsedLDA]
NUMBA_WORDS = ("numba", "NumbaError", "TypingError", "nopython")
HYPO = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
N_TERMS = 6


# ----------------------------------------------------------------------------- helpers
@pytest.fixture(autouse=True)
def _hang_guard():
    """Kill the run (with tracebacks) instead of hanging forever inside a kernel."""
    faulthandler.dump_traceback_later(240, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def bug(reason: str):
    return pytest.mark.xfail(strict=True, reason="BUG: " + reason)


def assert_not_numba(exc: BaseException) -> None:
    msg = f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    for word in NUMBA_WORDS:
        assert word not in msg, f"numba leaked into the error: {msg}"
    assert str(exc).strip(), "empty error message"


@contextlib.contextmanager
def clean_raises(exc, match):
    with pytest.raises(exc, match=match) as info:
        yield info
    assert_not_numba(info.value)


def make(cls, n_components=2, **kw):
    """A small model; one kernel thread (results do not depend on it, and thread start-up dominates tiny fits)."""
    kw.setdefault("max_iter", 5)
    kw.setdefault("n_jobs", 1)
    kw.setdefault("random_state", 0)
    return cls(n_components, **kw)


def train_matrix():
    return np.random.RandomState(0).poisson(1.0, (12, N_TERMS)).astype(float)


@functools.lru_cache(maxsize=None)
def _fitted_cached(name: str):
    cls = {m.__name__: m for m in MODELS}[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return make(cls).fit(train_matrix())


def fitted(name: str):
    """A fresh copy of a model fitted on ``train_matrix()`` (the cache stays untouched)."""
    return copy.deepcopy(_fitted_cached(name))


def check_fitted_model(model, X, *, n_docs=None):
    """The documented state of a fitted model: finite attributes, transform rows summing to 1."""
    comp = np.asarray(model.components_, dtype=np.float64)
    assert comp.shape == (model.n_components, model.n_features_in_)
    assert np.all(np.isfinite(comp)), "components_ has NaN/inf"
    assert np.all(comp >= 0), "components_ has negative entries"
    assert np.all(np.isfinite(model.bound_history_)), "bound_history_ has NaN/inf"
    doc_topic = model.transform(X)
    n = (X.shape[0] if hasattr(X, "shape") else len(X)) if n_docs is None else n_docs
    assert doc_topic.shape == (n, model.n_components)
    assert np.all(np.isfinite(doc_topic)), "transform gave NaN/inf"
    assert np.all(doc_topic >= 0)
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0, atol=1e-5)
    return doc_topic


def wrong_type_msg(owner: str) -> str:
    """A clear message for X of a wrong type: names the caller, X, and what X must be."""
    return rf"(?s)(?=.*{owner})(?=.*\bX\b)(?=.*(?i:count|matrix))"


class Raises:
    def __init__(self, exc, match):
        self.exc, self.match = exc, match


class Works:
    def __init__(self, check=None):
        self.check = check


def run_case(fn, expect, tmp):
    if isinstance(expect, Raises):
        with clean_raises(expect.exc, expect.match):
            fn(tmp)
    else:
        result = fn(tmp)
        if expect.check is not None:
            expect.check(result)


def C(id_, fn, expect, reason=None):
    """One table case; ``reason`` marks a known library bug (strict xfail)."""
    return pytest.param(fn, expect, id=id_, marks=[bug(reason)] if reason else [])



# ----------------------------------------------------------------------------- files and data shared by several modules
def _write(tmp, name, data):
    p = tmp / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


def _afile(tmp):
    (tmp / "afile").write_text("not a folder")
    return tmp / "afile"


X3 = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]]))
V3 = ["a", "b", "c"]

VOCAB = [f"t{i}" for i in range(N_TERMS)]


def _m():
    return fitted("BatchLDA")


# ----------------------------------------------------------------------------- hypothesis strategies
_VALUES = st.one_of(
    st.just(0.0),
    st.integers(0, 5).map(float),
    st.floats(0.0, 10.0, allow_nan=False, allow_infinity=False),
    st.floats(1e3, 1e9, allow_nan=False, allow_infinity=False),
)


@st.composite
def count_matrices(draw, n_terms=None):
    n_docs = draw(st.integers(1, 6))
    n_terms = n_terms if n_terms is not None else draw(st.integers(1, 6))
    zero_p = draw(st.sampled_from([0.0, 0.5, 0.9, 1.0]))
    cells = draw(st.lists(st.tuples(st.floats(0, 1), _VALUES), min_size=n_docs * n_terms,
                          max_size=n_docs * n_terms))
    X = np.array([0.0 if u < zero_p else v for u, v in cells]).reshape(n_docs, n_terms)
    fmt = draw(st.sampled_from(["dense", "csr", "csc", "coo"]))
    return X if fmt == "dense" else getattr(sp, f"{fmt}_matrix")(X)


_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40)
