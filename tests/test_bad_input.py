"""Systematic bad-input tests for every public entry point of topicvb.

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
XPASS failure and the mark must then be removed. The 65 such cases found when this module was
written are all fixed now; the ``bug`` helper stays for the next one.
"""

from __future__ import annotations

import contextlib
import copy
import faulthandler
import functools
import gzip
import io
import json
import os
import pickle
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from topicvb import persistence
from topicvb.cli import main as cli_main
from topicvb.datasets import (
    Corpus,
    make_lda_corpus,
    read_csv,
    read_jsonl,
    read_ldac,
    read_matrix_market,
    read_text_dir,
    read_uci,
    write_ldac,
    write_uci,
)
from topicvb.evaluation import coherence, heldout_perplexity, per_word_bound, select_n_topics, topic_diversity
from topicvb.inspection import summary, top_words
from topicvb.models import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA
from topicvb.text import PhraseDetector, Tokenizer, Vectorizer, Vocabulary

pytestmark = [
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


# ----------------------------------------------------------------------------- subprocess isolation
_ISOLATED_FIT = textwrap.dedent(r'''
    import json, sys, warnings
    warnings.simplefilter("ignore")
    import numpy as np, scipy.sparse as sp
    import topicvb.models as tm

    def make_X(case):
        if case == "csr_index_out_of_range":
            return sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([0, 700000, 1]), np.array([0, 2, 3])), shape=(2, 3))
        if case == "huge_1e9":
            return np.array([[1e9, 1.0, 0.0], [0.0, 1.0, 2.0], [3.0, 0.0, 0.0]])
        if case == "huge_1e9_float32":
            return np.array([[1e9, 1.0, 0.0], [0.0, 1.0, 2.0], [3.0, 0.0, 0.0]], dtype=np.float32)
        if case == "huge_1e30":
            return np.array([[1e30, 1.0, 0.0], [0.0, 1.0, 2.0]])
        if case == "absurd_1e300":
            return np.full((3, 3), 1e300)
        raise KeyError(case)

    for pair in sys.argv[1].split(","):
        case, name = pair.split(":")
        print("START", pair, flush=True)
        try:
            X = make_X(case)
            kw = {"dtype": "float32"} if case.endswith("float32") else {}
            m = getattr(tm, name)(2, max_iter=5, random_state=0, n_jobs=1, **kw).fit(X)
            T = np.asarray(m.transform(X), dtype=np.float64)
            out = {"ok": True,
                   "components_finite": bool(np.all(np.isfinite(m.components_))),
                   "bound_finite": bool(np.all(np.isfinite(m.bound_history_))),
                   "transform_finite": bool(np.all(np.isfinite(T))),
                   "rows_sum_to_1": bool(np.allclose(T.sum(axis=1), 1.0, atol=1e-5))}
        except Exception as exc:
            out = {"ok": False, "type": type(exc).__name__, "module": type(exc).__module__, "msg": str(exc)}
        print("RESULT", pair, json.dumps(out), flush=True)
''')


@functools.lru_cache(maxsize=None)
def isolated_fits(pairs: tuple) -> dict:
    """Fit models on risky inputs in subprocesses; a crash is recorded, not suffered.

    ``pairs`` holds "case:Model" strings. Returns {pair: outcome dict}; a crash gives
    {"crashed": returncode} and the remaining pairs run in a fresh process; a hang gives {"timeout": True}.
    """
    results, remaining = {}, list(pairs)
    while remaining:
        try:
            proc = subprocess.run([sys.executable, "-c", _ISOLATED_FIT, ",".join(remaining)],
                                  capture_output=True, text=True, timeout=300)
            stdout, rc = proc.stdout, proc.returncode
        except subprocess.TimeoutExpired as exc:
            stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            rc = None
        started = None
        for line in stdout.splitlines():
            if line.startswith("START "):
                started = line.split()[1]
            elif line.startswith("RESULT "):
                _, pair, payload = line.split(" ", 2)
                results[pair] = json.loads(payload)
                started = None
        if started is None:
            started = next((p for p in remaining if p not in results), None)
            if started is None:
                break
        if started not in results:
            results[started] = {"timeout": True} if rc is None else {"crashed": rc, "stderr": proc.stderr[-300:]}
        remaining = [p for p in remaining if p not in results]
    return results


def assert_works_or_clean_error(outcome: dict, *, owner: str):
    assert "crashed" not in outcome, f"the interpreter crashed (return code {outcome.get('crashed')})"
    assert "timeout" not in outcome, "hang"
    if outcome["ok"]:
        assert outcome["components_finite"] and outcome["bound_finite"], outcome
        assert outcome["transform_finite"] and outcome["rows_sum_to_1"], outcome
    else:
        assert outcome["type"] in ("ValueError", "TypeError"), outcome
        assert not any(w in outcome["msg"] + outcome["module"] for w in NUMBA_WORDS), outcome


# ============================================================================= models: fit on bad X
def _obj_str():
    return np.array([[1, "a"], [2, 3]], dtype=object)


FIT_ERRORS = [
    # (id, X factory, exception, match, bug reason or None)
    ("1d", lambda: np.ones(5), ValueError, r"Expected 2D array, got 1D array", None),
    ("3d", lambda: np.ones((2, 3, 4)), ValueError, r"dim 3.*dim <= 2", None),
    ("complex", lambda: np.ones((3, 3)) + 1j, ValueError, r"Complex data not supported", None),
    ("nan_dense", lambda: np.where(np.eye(3) > 0, np.nan, 1.0), ValueError, r"Input X contains NaN", None),
    ("nan_sparse", lambda: sp.csr_matrix(np.where(np.eye(3) > 0, np.nan, 1.0)), ValueError, r"Input X contains NaN", None),
    ("inf", lambda: np.where(np.eye(3) > 0, np.inf, 1.0), ValueError, r"Input X contains infinity", None),
    ("minus_inf", lambda: np.where(np.eye(3) > 0, -np.inf, 1.0), ValueError, r"Input X contains infinity", None),
    ("negative", lambda: -np.eye(3), ValueError, r"fit.*non-negative.*3 negative entries", None),
    ("negative_sparse", lambda: sp.csr_matrix(-np.eye(3)), ValueError, r"fit.*non-negative.*3 negative entries", None),
    ("zero_docs", lambda: np.zeros((0, 4)), ValueError, r"0 sample\(s\).*minimum of 1", None),
    ("zero_docs_sparse", lambda: sp.csr_matrix((0, 4)), ValueError, r"0 sample\(s\).*minimum of 1", None),
    ("zero_terms", lambda: np.zeros((3, 0)), ValueError, r"0 feature\(s\).*minimum of 1", None),
    ("str", lambda: "abc", TypeError, "OWNER", None),
    ("none", lambda: None, TypeError, "OWNER", None),
    ("dict", lambda: {"a": 1}, TypeError, "OWNER", None),
    ("raw_texts", lambda: ["a text", "another text"], TypeError, "OWNER", None),
    ("object_with_str", _obj_str, (TypeError, ValueError), "OWNER", None),
]


@pytest.mark.parametrize("cls", MODELS, ids=MODEL_NAMES)
@pytest.mark.parametrize("case", [pytest.param(c, id=c[0], marks=[bug(c[4])] if c[4] else []) for c in FIT_ERRORS])
def test_fit_rejects_bad_X(cls, case):
    _, factory, exc, match, _ = case
    if match == "OWNER":
        match = wrong_type_msg(cls.__name__)
    model = make(cls)
    with clean_raises(exc, match):
        model.fit(factory())
    assert not hasattr(model, "components_") and not hasattr(model, "n_features_in_")


FIT_WORKS = [
    ("fractional_weights", lambda: np.full((4, 3), 0.5)),
    ("mixed_fractional", lambda: np.array([[0.25, 1.5, 0.0], [3.0, 0.0, 0.75], [0.0, 0.1, 0.0]])),
    ("one_document", lambda: np.array([[1.0, 2.0, 3.0]])),
    ("one_term", lambda: np.array([[3.0], [1.0], [0.0]])),
    ("one_doc_one_term", lambda: np.array([[4.0]])),
    ("one_token", lambda: np.array([[0.0, 1.0, 0.0]])),
    ("some_empty_docs", lambda: np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.0]])),
    ("empty_term_columns", lambda: np.array([[0.0, 2.0, 0.0], [0.0, 1.0, 3.0]])),
    ("bool", lambda: np.eye(3, dtype=bool)),
    ("int8", lambda: np.ones((3, 3), dtype=np.int8)),
    ("uint64", lambda: np.arange(9, dtype=np.uint64).reshape(3, 3)),
    ("float32", lambda: np.arange(9, dtype=np.float32).reshape(3, 3)),
    ("nested_list", lambda: [[1, 2], [3, 4]]),
    ("csc", lambda: sp.csc_matrix(np.arange(9.0).reshape(3, 3))),
    ("coo_duplicates", lambda: sp.coo_matrix((np.array([1.0, 2.0, 3.0]), (np.array([0, 0, 1]), np.array([1, 1, 2]))),
                                               shape=(2, 3))),
    ("csr_explicit_zeros", lambda: sp.csr_matrix((np.array([0.0, 2.0, 0.0]), np.array([0, 1, 2]), np.array([0, 2, 3])),
                                                  shape=(2, 3))),
    ("tiny_1e-300", lambda: np.full((3, 3), 1e-300)),
    ("subnormal", lambda: np.full((3, 3), 5e-324)),
]


_WORKS_BUGS = {}  # fixed: weights below 1e-200 (subnormal ones among them) count as 0, as they are negligible


@pytest.mark.parametrize("factory,cls", [
    pytest.param(f, m, id=f"{i}-{m.__name__}", marks=[bug(_WORKS_BUGS[(i, m.__name__)])] if (i, m.__name__) in _WORKS_BUGS else [])
    for i, f in FIT_WORKS for m in MODELS])
def test_fit_accepts_unusual_but_valid_X(cls, factory):
    X = factory()
    model = make(cls).fit(X)
    check_fitted_model(model, X)


@pytest.mark.parametrize("cls", MODELS, ids=MODEL_NAMES)
@pytest.mark.parametrize("n_components", [5, 40])
def test_more_topics_than_documents(cls, n_components):
    X = np.array([[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 3.0, 0.0]])
    model = make(cls, n_components=n_components).fit(X)
    check_fitted_model(model, X)


_ALL_EMPTY_BUG = {}  # fixed: PLSA topics with no expected counts fall back on the uniform distribution


@pytest.mark.parametrize("cls", [pytest.param(m, id=m.__name__, marks=[bug(_ALL_EMPTY_BUG[m.__name__])]
                                              if m.__name__ in _ALL_EMPTY_BUG else []) for m in MODELS])
def test_all_empty_corpus_gets_prior_mean(cls):
    X = np.zeros((4, 5))
    model = make(cls).fit(X)
    doc_topic = check_fitted_model(model, X)
    np.testing.assert_allclose(doc_topic, 0.5)


@pytest.mark.parametrize("cls", [m for m in MODELS if m is not PLSA], ids=[n for n in MODEL_NAMES if n != "PLSA"])
def test_empty_documents_get_asymmetric_prior_mean(cls):
    model = make(cls, doc_topic_prior=[1.0, 3.0]).fit(train_matrix())
    doc_topic = model.transform(np.zeros((3, N_TERMS)))
    np.testing.assert_allclose(doc_topic, [[0.25, 0.75]] * 3, atol=1e-6)


def test_plsa_folding_in_rejects_asymmetric_prior_clearly():
    model = make(PLSA, doc_topic_prior=[1.0, 3.0])
    with clean_raises(ValueError, r"symmetric doc_topic_prior"):
        model.fit(train_matrix()).transform(train_matrix())


# ----------------------------------------------------------------------------- risky inputs, in a subprocess
_ABSURD_BUG = {
    "CollapsedLDA": "CollapsedLDA(2, max_iter=5).fit(np.full((3, 3), 1e300)) returns NaN components_, "
                    "bound_history_ and transform rows; expected finite results or a ValueError on counts this large",
    "StochasticCollapsedLDA": "StochasticCollapsedLDA(2, max_iter=5).fit(np.full((3, 3), 1e300)).transform(...) "
                              "returns NaN rows; expected finite rows summing to 1 or a ValueError",
}
_CSR_BUG_CRASH = ("a CSR matrix whose column index (700000) exceeds its width (3) is not validated: fit crashes the "
                  "interpreter (SIGSEGV in the numba kernel). Corpus.load of a corrupt file produces exactly such a "
                  "matrix. Expected ValueError naming X and the bad index (e.g. X.check_format(full_check=True) in "
                  "_validate_counts)")
_CSR_BUG_MSG = ("a CSR matrix whose column index (700000) exceeds its width (3) raises scipy's 'axis 1 index 700000 "
                "exceeds matrix dimension 3' from inside the initialisation (names neither X nor the estimator); "
                "expected a ValueError from input validation naming X")
_ISOLATED_CASES = [
    ("huge_1e9", {}),
    ("huge_1e9_float32", {}),
    ("huge_1e30", {}),
    ("absurd_1e300", {}),  # fixed: counts above 1e15 are refused by validation
    ("csr_index_out_of_range", {}),  # fixed: the sparse structure is checked before any kernel runs
]


_ISOLATED_PAIRS = tuple(f"{case}:{name}" for case, _ in _ISOLATED_CASES for name in MODEL_NAMES)


@pytest.mark.parametrize("name,case", [
    pytest.param(name, case, id=f"{case}-{name}", marks=[bug(bugs[name])] if name in bugs else [])
    for case, bugs in _ISOLATED_CASES for name in MODEL_NAMES])
def test_risky_input_in_subprocess(name, case):
    outcome = isolated_fits(_ISOLATED_PAIRS)[f"{case}:{name}"]
    if case == "csr_index_out_of_range":  # invalid input: must be refused by validation, clearly
        assert "crashed" not in outcome and "timeout" not in outcome, outcome
        assert not outcome["ok"] and outcome["type"] == "ValueError", outcome
        assert re.search(rf"(\bX\b|{name})", outcome["msg"]) and re.search(r"(?i)indic|index", outcome["msg"]), outcome
    elif case.startswith("huge"):  # one cell of 1e9 (or 1e30) counts is valid input: it must work
        assert outcome.get("ok"), outcome
        assert_works_or_clean_error(outcome, owner=name)
    else:
        assert_works_or_clean_error(outcome, owner=name)


# ============================================================================= models: parameters
BAD_PARAMS = [
    (dict(n_components=0), ValueError, r"n_components == 0, must be >= 1", None),
    (dict(n_components=2.5), TypeError, r"n_components must be an instance of int", None),
    (dict(n_components="3"), TypeError, r"n_components must be an instance of int, not str", None),
    (dict(n_components=None), TypeError, r"n_components must be an instance of int", None),
    (dict(doc_topic_prior=-1.0), ValueError, r"doc_topic_prior must be a positive finite number, got -1", None),
    (dict(doc_topic_prior=np.nan), ValueError, r"doc_topic_prior must be a positive finite number, got nan", None),
    (dict(doc_topic_prior=[1.0, 2.0, 3.0]), ValueError, r"doc_topic_prior .*length 2, got shape \(3,\)", None),
    (dict(doc_topic_prior=[1.0, np.inf]), ValueError, r"doc_topic_prior .*positive finite.*inf", None),
    (dict(doc_topic_prior="big"), TypeError, r"doc_topic_prior must be a positive number", None),
    (dict(topic_word_prior=0), ValueError, r"topic_word_prior must be a positive finite number, got 0", None),
    (dict(topic_word_prior=[0.1, 0.2]), TypeError, r"topic_word_prior must be a positive number", None),
    (dict(max_iter=0), ValueError, r"max_iter == 0, must be >= 1", None),
    (dict(tol=-1.0), ValueError, r"tol == -1.0, must be >= 0", None),
    (dict(tol=np.nan), ValueError, r"tol.*nan", None),
    (dict(dtype="int32"), ValueError, r"dtype must be one of \{'float32', 'float64'\}, got 'int32'", None),
    (dict(n_jobs=0), ValueError, r"n_jobs must be None or a non-zero integer, got 0", None),
    (dict(verbose=-1), ValueError, r"verbose == -1, must be >= 0", None),
    (dict(random_state="seed"), ValueError, r"'seed' cannot be used to seed", None),
]


@pytest.mark.parametrize("cls", MODELS, ids=MODEL_NAMES)
@pytest.mark.parametrize("case", [pytest.param(c, id=repr(c[0]), marks=[bug(c[3])] if c[3] else [])
                                  for c in BAD_PARAMS])
def test_bad_parameters_and_fitted_model_unchanged(cls, case):
    params, exc, match, _ = case
    model = fitted(cls.__name__)
    before = pickle.dumps(model)
    old = {k: model.get_params()[k] for k in params}
    model.set_params(**params)
    with clean_raises(exc, match):
        model.fit(train_matrix())
    model.set_params(**old)
    assert pickle.dumps(model) == before, "a failed fit changed the fitted model"


# ============================================================================= models: fitted-model methods
METHOD_ERRORS = [
    ("wider", lambda: np.ones((2, N_TERMS + 1)), ValueError, r"X has 7 features, but \w+ is expecting 6 features", None),
    ("narrower", lambda: np.ones((2, N_TERMS - 1)), ValueError, r"X has 5 features, but \w+ is expecting 6 features", None),
    ("narrower_sparse", lambda: sp.csr_matrix(np.ones((2, 2))), ValueError, r"X has 2 features, but \w+ is expecting 6", None),
    ("nan", lambda: np.full((2, N_TERMS), np.nan), ValueError, r"Input X contains NaN", None),
    ("negative", lambda: -np.ones((2, N_TERMS)), ValueError, r"non-negative.*12 negative entries", None),
    ("zero_docs", lambda: np.zeros((0, N_TERMS)), ValueError, r"0 sample\(s\)", None),
    ("1d", lambda: np.ones(N_TERMS), ValueError, r"Expected 2D array, got 1D array", None),
    ("3d", lambda: np.ones((2, N_TERMS, 2)), ValueError, r"(dim 3|features)", None),
    ("str", lambda: "abc", TypeError, "OWNER", None),
]
METHODS = ["transform", "score", "perplexity"]


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", [pytest.param(c, id=c[0], marks=[bug(c[4])] if c[4] else []) for c in METHOD_ERRORS])
def test_methods_reject_bad_X(name, method, case):
    _, factory, exc, match, _ = case
    if match == "OWNER":
        match = wrong_type_msg(name)
    model = fitted(name)
    before = pickle.dumps(model)
    with clean_raises(exc, match):
        getattr(model, method)(factory())
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_methods_on_empty_and_huge_documents(name):
    model = fitted(name)
    empty = np.zeros((3, N_TERMS))
    np.testing.assert_allclose(model.transform(empty), 0.5)
    assert np.isfinite(model.score(empty))
    with clean_raises(ValueError, r"at least one token in X"):
        model.perplexity(empty)
    huge = np.zeros((2, N_TERMS))
    huge[0, 0] = 1e9
    huge[1, 3] = 0.5
    doc_topic = model.transform(huge)
    assert np.all(np.isfinite(doc_topic))
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0, atol=1e-6)
    assert np.isfinite(model.score(huge)) and np.isfinite(model.perplexity(huge))


@pytest.mark.parametrize("cls", MODELS, ids=MODEL_NAMES)
@pytest.mark.parametrize("method", ["transform", "score", "perplexity", "top_words"])
def test_unfitted_model_methods(cls, method):
    args = () if method == "top_words" else (train_matrix(),)
    with clean_raises(NotFittedError, rf"This {cls.__name__} instance is not fitted yet"):
        getattr(make(cls), method)(*args)


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("args,exc,match", [
    pytest.param((0,), ValueError, r"n == 0, must be >= 1", id="n-0"),
    pytest.param((2.5,), TypeError, r"n must be an instance of int", id="n-float"),
    pytest.param((3, ["a"]), ValueError, r"vocabulary has 1 terms, but this \w+ was fitted on 6", id="vocab-size"),
    pytest.param((3, "abcdef"), TypeError, r"vocabulary must be a sequence of terms, got a single str", id="vocab-str"),
])
def test_model_top_words_bad_arguments(name, args, exc, match):
    with clean_raises(exc, match):
        fitted(name).top_words(*args)


# ----------------------------------------------------------------------------- failed fit / partial_fit: no change
UNCHANGED_CASES = [
    ("negative", lambda: -train_matrix(), ValueError, r"non-negative"),
    ("nan", lambda: np.full((3, N_TERMS), np.nan), ValueError, r"Input X contains NaN"),
    ("inf", lambda: np.full((3, N_TERMS), np.inf), ValueError, r"Input X contains infinity"),
    ("nan_other_width", lambda: np.full((3, 9), np.nan), ValueError, r"(Input X contains NaN|X has 9 features)"),
    ("3d", lambda: np.ones((2, 3, 4)), ValueError, r"dim 3"),
    ("zero_docs", lambda: np.zeros((0, N_TERMS)), ValueError, r"0 sample\(s\)"),
    ("complex", lambda: np.ones((2, N_TERMS)) + 1j, ValueError, r"Complex data not supported"),
]


@pytest.mark.parametrize("name", MODEL_NAMES)
@pytest.mark.parametrize("case", UNCHANGED_CASES, ids=[c[0] for c in UNCHANGED_CASES])
def test_failed_fit_leaves_fitted_model_unchanged(name, case):
    _, factory, exc, match = case
    model = fitted(name)
    before = pickle.dumps(model)
    with clean_raises(exc, match):
        model.fit(factory())
    assert pickle.dumps(model) == before
    check_fitted_model(model, train_matrix())


PARTIAL_CASES = UNCHANGED_CASES + [
    ("wider", lambda: np.ones((2, N_TERMS + 2)), ValueError, r"X has 8 features, but \w+ is expecting 6 features"),
    ("narrower", lambda: np.ones((2, 1)), ValueError, r"X has 1 features, but \w+ is expecting 6 features"),
]


@pytest.mark.parametrize("cls", STREAMING, ids=[c.__name__ for c in STREAMING])
@pytest.mark.parametrize("case", PARTIAL_CASES, ids=[c[0] for c in PARTIAL_CASES])
def test_failed_partial_fit_leaves_model_unchanged(cls, case):
    _, factory, exc, match = case
    model = fitted(cls.__name__)
    before = pickle.dumps(model)
    with clean_raises(exc, match):
        model.partial_fit(factory())
    assert pickle.dumps(model) == before
    # and a first partial_fit that fails leaves the model unfitted
    fresh = make(cls)
    if case[0] not in ("wider", "narrower"):
        with clean_raises(exc, match):
            fresh.partial_fit(factory())
        assert not hasattr(fresh, "components_") and not hasattr(fresh, "n_features_in_")


@pytest.mark.parametrize("cls", STREAMING, ids=[c.__name__ for c in STREAMING])
@pytest.mark.parametrize("X", [
    pytest.param(np.zeros((3, N_TERMS)), id="all_empty"),
    pytest.param(np.full((2, N_TERMS), 0.25), id="fractional"),
    pytest.param(np.eye(1, N_TERMS) * 1e9, id="one_doc_1e9"),
    pytest.param(np.eye(1, N_TERMS), id="one_token"),
])
def test_partial_fit_on_unusual_batches(cls, X):
    model = fitted(cls.__name__)
    model.partial_fit(X)
    check_fitted_model(model, train_matrix())
    first = make(cls).partial_fit(X)
    check_fitted_model(first, X)


@pytest.mark.parametrize("cls", STREAMING, ids=[c.__name__ for c in STREAMING])
def test_partial_fit_too_many_documents_for_total(cls):
    if cls is OnlineLDA:
        model = make(cls, total_samples=2)
        with clean_raises(ValueError, r"total_samples=2 is smaller than the 12 documents"):
            model.partial_fit(train_matrix())
        assert not hasattr(model, "components_")
    else:
        with clean_raises(ValueError, r"total_tokens == 0"):
            make(cls, total_tokens=0).partial_fit(train_matrix())


# ----------------------------------------------------------------------------- hypothesis: matrices
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


@pytest.mark.parametrize("cls", [pytest.param(m, id=m.__name__) for m in MODELS])
@HYPO
@given(X=count_matrices(), n_components=st.integers(1, 4))
def test_property_fit_gives_finite_model(cls, X, n_components):
    model = make(cls, n_components=n_components, max_iter=3)
    model.fit(X)
    check_fitted_model(model, X)
    if cls in STREAMING:
        model.partial_fit(X)
        check_fitted_model(model, X)


@pytest.mark.parametrize("name", MODEL_NAMES)
@HYPO
@given(X=count_matrices(n_terms=N_TERMS))
def test_property_transform_and_score_on_new_documents(name, X):
    model = _fitted_cached(name)
    doc_topic = model.transform(X)
    assert np.all(np.isfinite(doc_topic))
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0, atol=1e-6)
    assert np.isfinite(model.score(X))
    dense = X.toarray() if sp.issparse(X) else X
    empty = dense.sum(axis=1) == 0
    np.testing.assert_allclose(doc_topic[empty], 0.5)


# ============================================================================= text pipeline
_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40)


@HYPO
@given(texts=st.lists(_TEXT, max_size=5))
def test_property_tokenizer_and_vectorizer_on_arbitrary_unicode(texts):
    tok = Tokenizer()
    counts = [tok.count(t) for t in texts]
    for t in texts:
        tokens = tok(t)
        assert all(isinstance(w, str) and w for w in tokens)
    if not texts:
        with clean_raises(ValueError, r"Vectorizer.fit received 0 documents"):
            Vectorizer().fit_transform(texts)
    elif not any(counts):
        with clean_raises(ValueError, r"Vectorizer.fit found no terms in \d+ document"):
            Vectorizer().fit_transform(texts)
    else:
        vec = Vectorizer()
        X = vec.fit_transform(texts)
        assert X.shape == (len(texts), len(vec.get_feature_names_out()))
        assert X.sum() == sum(sum(c.values()) for c in counts)
        assert vec.transform(texts).shape == X.shape


@HYPO
@given(docs=st.lists(st.binary(max_size=40), min_size=1, max_size=4))
def test_property_vectorizer_on_arbitrary_bytes(docs):
    tok = Tokenizer()
    n_tokens = sum(len(tok(d)) for d in docs)
    if n_tokens == 0:
        with clean_raises(ValueError, r"found no terms"):
            Vectorizer().fit_transform(docs)
    else:
        X = Vectorizer().fit_transform(docs)
        assert X.shape[0] == len(docs) and X.sum() == n_tokens


@HYPO
@given(docs=st.lists(st.lists(st.sampled_from(["new", "york", "city", "", "é", "\x00", "a b"]), max_size=8),
                     max_size=6))
def test_property_phrase_detector_on_token_lists(docs):
    det = PhraseDetector(min_count=1).fit(docs)
    out = det.transform(docs)
    assert len(out) == len(docs)
    assert all(isinstance(t, str) for doc in out for t in doc)


TEXT_CASES = [
    # Tokenizer
    C("Tokenizer-None", lambda tmp: Tokenizer()(None), Raises(TypeError, r"Tokenizer expects a str or bytes document, got NoneType")),
    C("Tokenizer-int", lambda tmp: Tokenizer()(5), Raises(TypeError, r"got int")),
    C("Tokenizer-list", lambda tmp: Tokenizer()(["a list"]), Raises(TypeError, r"got list")),
    C("Tokenizer.count-dict", lambda tmp: Tokenizer().count({"a": 1}), Raises(TypeError, r"got dict")),
    C("Tokenizer-empty", lambda tmp: Tokenizer()(""), Works(lambda r: r == [])),
    C("Tokenizer-non-utf8-bytes", lambda tmp: Tokenizer()(b"\xff\xfe caf\xe9 bytes"), Works(lambda r: "bytes" in r)),
    C("Tokenizer-control-chars", lambda tmp: Tokenizer()("\x00\x01\x07 ctrl word\x1f"), Works(lambda r: r == ["ctrl", "word"])),
    C("Tokenizer-normalize", lambda tmp: Tokenizer(normalize="XYZ")("a"), Raises(ValueError, r"normalize must be one of .*got 'XYZ'")),
    C("Tokenizer-bad-regex", lambda tmp: Tokenizer(token_pattern="(")("a"), Raises(ValueError, r"token_pattern is not a valid regular expression")),
    C("Tokenizer-two-groups", lambda tmp: Tokenizer(token_pattern="(a)(b)")("ab"), Raises(ValueError, r"at most one capturing group")),
    C("Tokenizer-min_length", lambda tmp: Tokenizer(min_length=-1)("a"), Raises(ValueError, r"min_length must be >= 0, got -1")),
    C("Tokenizer-min_length-str", lambda tmp: Tokenizer(min_length="a")("a"), Raises(TypeError, r"min_length must be an int")),
    C("Tokenizer-stop_words", lambda tmp: Tokenizer(stop_words="french")("a"), Raises(ValueError, r"stop_words must be one of")),
    C("Tokenizer-stop_words-int", lambda tmp: Tokenizer(stop_words=5)("a"), Raises(TypeError, r"stop_words must be")),
    C("Tokenizer-stemmer", lambda tmp: Tokenizer(stemmer="lancaster")("a"), Raises(ValueError, r"stemmer must be one of")),
    C("Tokenizer-encoding", lambda tmp: Tokenizer(encoding="no-such-codec")(b"a"), Raises(ValueError, r"encoding must be a known codec")),
    C("Tokenizer-max_length", lambda tmp: Tokenizer(max_length=0)("a"), Raises(ValueError, r"max_length must be >= min_length")),
    C("Tokenizer-lowercase", lambda tmp: Tokenizer(lowercase="yes")("a"), Raises(ValueError, r"lowercase must be one of")),
    # Vectorizer
    C("Vectorizer-0-docs", lambda tmp: Vectorizer().fit_transform([]), Raises(ValueError, r"Vectorizer.fit received 0 documents")),
    C("Vectorizer-empty-doc", lambda tmp: Vectorizer().fit_transform([""]), Raises(ValueError, r"found no terms in 1 document")),
    C("Vectorizer-all-empty", lambda tmp: Vectorizer().fit_transform(["", " ", "\x00"]), Raises(ValueError, r"found no terms in 3 document")),
    C("Vectorizer-str", lambda tmp: Vectorizer().fit_transform("single string"), Raises(TypeError, r"got a single str. Wrap it in a list")),
    C("Vectorizer-None", lambda tmp: Vectorizer().fit_transform(None), Raises(TypeError, r"iterable of documents .*got NoneType")),
    C("Vectorizer-int", lambda tmp: Vectorizer().fit(5), Raises(TypeError, r"got int")),
    C("Vectorizer-None-doc", lambda tmp: Vectorizer().fit_transform(["ok", None]), Raises(TypeError, r"document 1 is NoneType")),
    C("Vectorizer-2d-array", lambda tmp: Vectorizer().fit_transform(np.array([["a"]])), Raises(TypeError, r"array of shape \(1, 1\)")),
    C("Vectorizer-sparse", lambda tmp: Vectorizer().fit_transform(sp.csr_matrix((2, 2))), Raises(TypeError, r"array of shape \(2, 2\)")),
    C("Vectorizer-non-utf8", lambda tmp: Vectorizer().fit_transform([b"\xff\xfe bad bytes", "ok text"]), Works(lambda X: X.shape[0] == 2)),
    C("Vectorizer-one-doc-one-term", lambda tmp: Vectorizer().fit_transform(["the the the"]), Works(lambda X: X.shape == (1, 1) and X.sum() == 3)),
    C("Vectorizer-generator", lambda tmp: Vectorizer().fit_transform(t for t in ["a text", "more text"]), Works(lambda X: X.shape[0] == 2)),
    C("Vectorizer-min_df", lambda tmp: Vectorizer(min_df=-1).fit(["a b"]), Raises(ValueError, r"min_df must be >= 0")),
    C("Vectorizer-min_df-frac", lambda tmp: Vectorizer(min_df=2.5).fit(["a b"]), Raises(ValueError, r"min_df must be in \[0, 1\]")),
    C("Vectorizer-min_df-str", lambda tmp: Vectorizer(min_df="x").fit(["a b"]), Raises(TypeError, r"min_df must be an int")),
    C("Vectorizer-max_df", lambda tmp: Vectorizer(max_df=1.5).fit(["a b"]), Raises(ValueError, r"max_df must be in \[0, 1\]")),
    C("Vectorizer-pruned-all", lambda tmp: Vectorizer(min_df=5).fit(["hello world", "world peace"]), Raises(ValueError, r"min_df=5 .*Lower min_df or raise max_df")),
    C("Vectorizer-max_features", lambda tmp: Vectorizer(max_features=0).fit(["ab cd"]), Raises(ValueError, r"max_features == 0")),
    C("Vectorizer-vocab-empty", lambda tmp: Vectorizer(vocabulary=[]).fit(["ab"]), Raises(ValueError, r"vocabulary must hold at least one term")),
    C("Vectorizer-vocab-dup", lambda tmp: Vectorizer(vocabulary=["aa", "aa"]).fit(["aa"]), Raises(ValueError, r"'aa' appears more than once")),
    C("Vectorizer-vocab-ids", lambda tmp: Vectorizer(vocabulary={"aa": 5}).fit(["aa"]), Raises(ValueError, r"got id 5 for 'aa'")),
    C("Vectorizer-input", lambda tmp: Vectorizer(input="bogus").fit(["aa"]), Raises(ValueError, r"input must be one of")),
    C("Vectorizer-dtype", lambda tmp: Vectorizer(dtype="str").fit(["aa"]), Raises(ValueError, r"dtype must be an integer or floating dtype")),
    C("Vectorizer-n_jobs", lambda tmp: Vectorizer(n_jobs=0).fit(["aa"]), Raises(ValueError, r"n_jobs must be")),
    C("Vectorizer-tokenizer", lambda tmp: Vectorizer(tokenizer=5).fit(["aa"]), Raises(TypeError, r"tokenizer must be a Tokenizer")),
    C("Vectorizer-phrases", lambda tmp: Vectorizer(phrases="yes").fit(["aa"]), Raises(TypeError, r"phrases must be a bool or a PhraseDetector")),
    C("Vectorizer-missing-file", lambda tmp: Vectorizer(input="filename").fit([str(tmp / "missing.txt")]),
      Raises((ValueError, OSError), r"missing\.txt")),
    C("Vectorizer-transform-unfitted", lambda tmp: Vectorizer().transform(["a b"]), Raises(NotFittedError, r"Vectorizer instance is not fitted")),
    C("Vectorizer-transform-str", lambda tmp: Vectorizer().fit(["aa bb"]).transform("aa"), Raises(TypeError, r"Vectorizer.transform .*single str")),
    C("Vectorizer-transform-int-doc", lambda tmp: Vectorizer().fit(["aa bb"]).transform([5]), Raises(TypeError, r"document 0 is int")),
    C("Vectorizer-transform-0-docs", lambda tmp: Vectorizer().fit(["aa bb"]).transform([]), Works(lambda X: X.shape == (0, 2))),
    C("Vectorizer-transform-unknown-terms", lambda tmp: Vectorizer().fit(["aa bb"]).transform(["zz", ""]), Works(lambda X: X.shape == (2, 2) and X.nnz == 0)),
    # PhraseDetector
    C("Phrases-fit-str", lambda tmp: PhraseDetector().fit("new york"), Raises(TypeError, r"PhraseDetector.fit expects an iterable of tokenised documents .*got str")),
    C("Phrases-fit-None", lambda tmp: PhraseDetector().fit(None), Raises(TypeError, r"got NoneType")),
    C("Phrases-fit-untokenised", lambda tmp: PhraseDetector().fit(["not tokenized"]), Raises(TypeError, r"got a str at position 0. Tokenise first")),
    C("Phrases-fit-empty", lambda tmp: PhraseDetector(min_count=1).fit([]), Works(lambda d: d.phrases_ == [])),
    C("Phrases-fit-empty-doc", lambda tmp: PhraseDetector(min_count=1).fit([[]]), Works(lambda d: d.phrases_ == [])),
    C("Phrases-fit-int-tokens", lambda tmp: PhraseDetector(min_count=1).fit([[1, 2]] * 3),
      Raises(TypeError, r"(?i)tokens? .*str.*int|int.*str")),
    C("Phrases-fit-None-tokens", lambda tmp: PhraseDetector(min_count=1).fit([[None, None]]),
      Raises(TypeError, r"(?i)str.*NoneType|NoneType.*str")),
    C("Phrases-scoring", lambda tmp: PhraseDetector(scoring="xyz").fit([["a"]]), Raises(ValueError, r"scoring must be one of")),
    C("Phrases-min_count", lambda tmp: PhraseDetector(min_count=0).fit([["a"]]), Raises(ValueError, r"min_count == 0")),
    C("Phrases-threshold-str", lambda tmp: PhraseDetector(threshold="a").fit([["a"]]), Raises(TypeError, r"threshold must be")),
    C("Phrases-threshold-nan", lambda tmp: PhraseDetector(threshold=float("nan")).fit([["new", "york"]] * 10),
      Raises(ValueError, r"threshold.*nan")),
    C("Phrases-delimiter-int", lambda tmp: PhraseDetector(delimiter=5).fit([["a"]]), Raises(TypeError, r"delimiter must be a str")),
    C("Phrases-apply-unfitted", lambda tmp: PhraseDetector().apply(["a", "b"]), Raises(NotFittedError, r"not fitted")),
    C("Phrases-apply-str", lambda tmp: PhraseDetector(min_count=1).fit([["new", "york"]] * 3).apply("new york"),
      Raises(TypeError, r"PhraseDetector.apply expects .*list of (str|tokens).*got (a )?str")),
    C("Phrases-apply-None", lambda tmp: PhraseDetector(min_count=1).fit([["new", "york"]] * 3).apply(None),
      Raises(TypeError, r"PhraseDetector.apply expects .*got NoneType")),
    C("Phrases-apply-nested", lambda tmp: PhraseDetector(min_count=1).fit([["new", "york"]] * 3).apply([["a"]]),
      Raises(TypeError, r"PhraseDetector.apply expects .*str")),
    C("Phrases-transform-flat-ints", lambda tmp: PhraseDetector(min_count=1).fit([["new", "york"]] * 3).transform([1, 2]),
      Raises(TypeError, r"PhraseDetector.transform expects .*int")),
    # Vocabulary
    C("Vocabulary-str", lambda tmp: Vocabulary.from_list("abc"), Raises(TypeError, r"got a single str. Wrap it in a list")),
    C("Vocabulary-ints", lambda tmp: Vocabulary.from_list([1, 2]), Raises(TypeError, r"terms must contain only str, got 1 of type int")),
    C("Vocabulary-dup", lambda tmp: Vocabulary.from_list(["a", "a"]), Raises(ValueError, r"'a' appears more than once")),
    C("Vocabulary-None", lambda tmp: Vocabulary(None), Raises(TypeError, r"terms must be an iterable of str.*NoneType")),
    C("Vocabulary.from_list-None", lambda tmp: Vocabulary.from_list(None), Raises(TypeError, r"terms must be an iterable of str.*NoneType")),
    C("Vocabulary.from_mapping-pairs", lambda tmp: Vocabulary.from_mapping([("a", 0)]), Raises(TypeError, r"mapping.*list")),
    C("Vocabulary.from_mapping-None", lambda tmp: Vocabulary.from_mapping(None), Raises(TypeError, r"mapping.*NoneType")),
    C("Vocabulary.from_mapping-gap", lambda tmp: Vocabulary.from_mapping({"a": 1}), Raises(ValueError, r"each column id 0..0 once; got id 1")),
    C("Vocabulary.from_mapping-str-id", lambda tmp: Vocabulary.from_mapping({"a": "x"}), Raises((TypeError, ValueError), r"got id 'x' for 'a'")),
    C("Vocabulary-doc_freq-len", lambda tmp: Vocabulary(["a", "b"], doc_freq=[1]), Raises(ValueError, r"doc_freq must have one entry per term \(2\)")),
    C("Vocabulary-doc_freq-negative", lambda tmp: Vocabulary(["a", "b"], doc_freq=[-1, 1]), Raises(ValueError, r"doc_freq .*non-negative")),
    C("Vocabulary-doc_freq-nan", lambda tmp: Vocabulary(["a", "b"], doc_freq=[np.nan, 1]), Raises(ValueError, r"doc_freq")),
    C("Vocabulary-n_docs-negative", lambda tmp: Vocabulary(["a"], doc_freq=[1], n_docs=-1), Raises(ValueError, r"n_docs")),
    C("Vocabulary.prune-min_df", lambda tmp: Vocabulary(["a", "b"], doc_freq=[1, 2], term_freq=[1, 2], n_docs=2).prune(min_df=-1),
      Raises(ValueError, r"min_df must be >= 0")),
    C("Vocabulary.prune-max_df", lambda tmp: Vocabulary(["a", "b"], doc_freq=[1, 2], term_freq=[1, 2], n_docs=2).prune(max_df=2.0),
      Raises(ValueError, r"max_df must be in \[0, 1\]")),
    C("Vocabulary.prune-max_features", lambda tmp: Vocabulary(["a", "b"], doc_freq=[1, 2], term_freq=[1, 2], n_docs=2).prune(max_features=0),
      Raises(ValueError, r"max_features must be a positive int")),
    C("Vocabulary.prune-no-counts", lambda tmp: Vocabulary(["a"]).prune(min_df=2), Raises(ValueError, r"needs doc_freq and n_docs")),
    C("Vocabulary.load-missing", lambda tmp: Vocabulary.load(tmp / "missing.json"), Raises(FileNotFoundError, r"missing\.json")),
    C("Vocabulary.load-png", lambda tmp: (tmp / "v.png").write_bytes(PNG) and Vocabulary.load(tmp / "v.png"),
      Raises(ValueError, r"v\.png")),
    C("Vocabulary.load-wrong-json", lambda tmp: (tmp / "v.json").write_text('{"wrong": 1}') and Vocabulary.load(tmp / "v.json"),
      Raises(ValueError, r"is not a topicvb vocabulary file: it has no 'terms' list")),
    C("Vocabulary.save-unwritable", lambda tmp: (tmp / "afile").write_text("x") and Vocabulary(["a"]).save(tmp / "afile" / "v.json"),
      Raises(OSError, r"afile")),
]


@pytest.mark.parametrize("fn,expect", TEXT_CASES)
def test_text_pipeline_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)


# ============================================================================= datasets: readers and writers
def _write(tmp, name, data):
    p = tmp / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return p


def _uci(data):
    return lambda tmp: read_uci(_write(tmp, "docword.test.txt", data))


def _ldac(data, **kw):
    return lambda tmp: read_ldac(_write(tmp, "corpus.ldac", data), **kw)


def _mm(data):
    return lambda tmp: read_matrix_market(_write(tmp, "m.mtx", data))


def _csv(data, *args, **kw):
    return lambda tmp: read_csv(_write(tmp, "t.csv", data), *args, **kw)


def _jsonl(data, *args, **kw):
    return lambda tmp: read_jsonl(_write(tmp, "t.jsonl", data), *args, **kw)


def _shape(shape, total=None):
    return Works(lambda c: c.X.shape == shape and (total is None or c.X.sum() == total))


MM = "%%MatrixMarket matrix coordinate {} general\n"
X3 = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]]))
V3 = ["a", "b", "c"]


def _textdir(files):
    def make_dir(tmp):
        root = tmp / "docs"
        root.mkdir()
        for name, data in files.items():
            _write(root, name, data)
        return root
    return make_dir


def _afile(tmp):
    (tmp / "afile").write_text("not a folder")
    return tmp / "afile"


def _corpus_file(tmp, **changes):
    """A valid Corpus.save file with some arrays replaced."""
    Corpus(X3, V3).save(tmp / "good.npz")
    with np.load(tmp / "good.npz") as f:
        arrays = {k: f[k] for k in f.files}
    arrays.update(changes)
    np.savez(tmp / "bad.npz", **arrays)
    return tmp / "bad.npz"


def _meta(obj):
    return np.frombuffer(obj if isinstance(obj, bytes) else json.dumps(obj).encode(), dtype=np.uint8)


DATASET_CASES = [
    # read_uci
    C("uci-png", _uci(PNG), Raises(ValueError, r"UCI file .*line 1: expected the number of documents D")),
    C("uci-empty", _uci(b""), Raises(ValueError, r"ends before line 1")),
    C("uci-ok", _uci("2\n3\n2\n1 1 2\n2 3 1\n"), _shape((2, 3), 3)),
    C("uci-no-data-lines", _uci("3\n4\n0\n"), _shape((3, 4), 0)),
    C("uci-huge-1e9", _uci("1\n1\n1\n1 1 1000000000\n"), _shape((1, 1), 10**9)),
    C("uci-negative", _uci("2\n3\n1\n1 1 -2\n"), Raises(ValueError, r"line 4: count must be non-negative")),
    C("uci-fractional", _uci("2\n3\n1\n1 1 2.5\n"), Raises(ValueError, r"line 4: expected 'docID wordID count' \(three integers\)")),
    C("uci-doc-out-of-range", _uci("2\n3\n1\n3 1 2\n"), Raises(ValueError, r"docID must be between 1 and D=2")),
    C("uci-word-out-of-range", _uci("2\n3\n1\n1 9 2\n"), Raises(ValueError, r"wordID must be between 1 and W=3")),
    C("uci-zero-id", _uci("2\n3\n1\n0 1 2\n"), Raises(ValueError, r"docID must be between 1 and D=2")),
    C("uci-truncated", _uci("2\n3\n5\n1 1 2\n"), Raises(ValueError, r"NNZ=5 data lines, but the file has 1")),
    C("uci-D0", _uci("0\n3\n0\n"), Raises(ValueError, r"describes an empty corpus \(D=0")),
    C("uci-overflow", _uci("1\n1\n1\n1 1 99999999999999999999999\n"), Raises(ValueError, r"line 4: expected 'docID wordID count'")),
    C("uci-header-negative", _uci("-1\n3\n0\n"), Raises(ValueError, r"line 1: expected the number of documents D .*got '-1'")),
    C("uci-header-float", _uci("2.5\n3\n0\n"), Raises(ValueError, r"got '2.5'")),
    C("uci-two-columns", _uci("2\n3\n1\n1 1\n"), Raises(ValueError, r"three integers\), got '1 1'")),
    C("uci-non-ascii", _uci(b"2\n3\n1\n1 1 \xe9\n"), Raises(ValueError, r"line 4: expected 'docID wordID count'")),
    C("uci-utf16", _uci("2\n3\n".encode("utf-16")), Raises(ValueError, r"line 1: expected the number of documents")),
    C("uci-gzip-garbage", _uci(b"\x1f\x8b\x08garbage"), Raises(ValueError, r"Could not read docword_path")),
    C("uci-gzip-ok", _uci(gzip.compress(b"1\n2\n1\n1 2 4\n")), _shape((1, 2), 4)),
    C("uci-missing", lambda tmp: read_uci(tmp / "nope.txt"), Raises(FileNotFoundError, r"docword_path .*nope\.txt' does not exist")),
    C("uci-None", lambda tmp: read_uci(None), Raises(TypeError, r"docword_path must be a path \(str or os.PathLike\), got NoneType")),
    C("uci-folder", lambda tmp: read_uci(tmp), Raises(ValueError, r"is a folder; expected a file")),
    C("uci-vocab-png", lambda tmp: read_uci(_write(tmp, "docword.t.txt", "1\n3\n1\n1 1 2\n"), _write(tmp, "v.png", PNG)),
      Raises(ValueError, r"vocab_path .*v\.png' is not valid utf-8 text")),
    C("uci-vocab-size", lambda tmp: read_uci(_write(tmp, "docword.t.txt", "1\n3\n1\n1 1 2\n"), _write(tmp, "v.txt", "a\n")),
      Raises(ValueError, r"has 1 terms, but .* says W=3")),
    C("uci-vocab-missing", lambda tmp: read_uci(_write(tmp, "docword.t.txt", "1\n3\n1\n1 1 2\n"), tmp / "nov.txt"),
      Raises(FileNotFoundError, r"vocab_path .*nov\.txt")),
    # read_ldac
    C("ldac-png", _ldac(PNG), Raises(ValueError, r"LDA-C file .*line 1: expected 'M id:count")),
    C("ldac-empty", _ldac(b""), Raises(ValueError, r"LDA-C file .* is empty")),
    C("ldac-blank", _ldac("\n\n"), Raises(ValueError, r"is empty")),
    C("ldac-ok", _ldac("2 0:1 2:3\n1 1:1\n"), _shape((2, 3), 5)),
    C("ldac-negative", _ldac("1 0:-1\n"), Raises(ValueError, r"line 1: counts must be non-negative, got -1")),
    C("ldac-fractional", _ldac("1 0:1.5\n"), Raises(ValueError, r"line 1: expected 'M id:count")),
    C("ldac-bad-token", _ldac("1 0-1\n"), Raises(ValueError, r"got '1 0-1'")),
    C("ldac-M-mismatch", _ldac("3 0:1\n"), Raises(ValueError, r"leading count M=3 disagrees")),
    C("ldac-negative-id", _ldac("1 -1:1\n"), Raises(ValueError, r"term id -1 is out of range")),
    C("ldac-non-utf8", _ldac(b"1 0:1 \xff\n"), Raises(ValueError, r"line 1: expected 'M id:count")),
    C("ldac-huge-count", _ldac("1 0:99999999999999999999999\n"), Raises(ValueError, r"LDA-C file .*line 1")),
    C("ldac-no-terms", _ldac("0\n"), Raises(ValueError, r"(?i)LDA-C file .*(no terms|empty|at least one term)")),
    C("ldac-n_terms-small", _ldac("2 0:1 2:3\n", n_terms=1), Raises(ValueError, r"term id 2 is out of range")),
    C("ldac-n_terms-negative", _ldac("1 0:1\n", n_terms=-1), Raises(ValueError, r"n_terms must be .*got -1")),
    C("ldac-n_terms-str", _ldac("1 0:1\n", n_terms="x"), Raises(TypeError, r"n_terms must be .*got 'x'")),
    C("ldac-missing", lambda tmp: read_ldac(tmp / "nope.ldac"), Raises(FileNotFoundError, r"nope\.ldac' does not exist")),
    # read_matrix_market (binary garbage is in the subprocess test below)
    C("mm-empty", _mm(b""), Raises(ValueError, r"Could not read path .*m\.mtx' as MatrixMarket")),
    C("mm-ok", _mm(MM.format("integer") + "2 3 2\n1 1 2\n2 3 1\n"), _shape((2, 3), 3)),
    C("mm-negative", _mm(MM.format("integer") + "1 1 1\n1 1 -2\n"), Raises(ValueError, r"m\.mtx' expects non-negative term counts")),
    C("mm-fractional", _mm(MM.format("real") + "1 1 1\n1 1 2.5\n"), Works(lambda c: c.X.dtype.kind == "f" and c.X.sum() == 2.5)),
    C("mm-nan", _mm(MM.format("real") + "1 2 1\n1 1 nan\n"), Raises(ValueError, r"m\.mtx.*(NaN|finite)")),
    C("mm-inf", _mm(MM.format("real") + "1 2 1\n1 1 inf\n"), Raises(ValueError, r"m\.mtx.*(inf|finite)")),
    C("mm-complex", _mm(MM.format("complex") + "1 1 1\n1 1 1 2\n"), Raises(ValueError, r"holds complex values")),
    C("mm-truncated", _mm(MM.format("integer") + "2 3 5\n1 1 2\n"), Raises(ValueError, r"as MatrixMarket: .*Truncated")),
    C("mm-zero-shape", _mm(MM.format("integer") + "0 0 0\n"), Raises(ValueError, r"holds an empty matrix of shape \(0, 0\)")),
    C("mm-index-out-of-range", _mm(MM.format("integer") + "2 2 1\n3 3 1\n"), Raises(ValueError, r"as MatrixMarket: .*out of bounds")),
    C("mm-missing", lambda tmp: read_matrix_market(tmp / "nope.mtx"), Raises(FileNotFoundError, r"nope\.mtx' does not exist")),
    # read_text_dir
    C("textdir-empty-folder", _textdir({}), Works(lambda p: True)),  # placeholder replaced below
    C("textdir-non-utf8-and-empty", lambda tmp: read_text_dir(_textdir({"a.txt": b"\xff\xfe caf\xe9 hello world", "b.txt": b""})(tmp)),
      Works(lambda c: c.X.shape[0] == 2 and "hello" in c.vocabulary)),
    C("textdir-binary-file", lambda tmp: read_text_dir(_textdir({"a.txt": "hello world", "b.png": PNG})(tmp)),
      Works(lambda c: c.X.shape[0] == 2)),
    C("textdir-all-empty", lambda tmp: read_text_dir(_textdir({"a.txt": "", "b.txt": "   "})(tmp)),
      Raises(ValueError, r"found no terms in 2 document")),
    C("textdir-no-match", lambda tmp: read_text_dir(_textdir({"a.txt": "hello"})(tmp), pattern="*.xyz"),
      Raises(ValueError, r"found no files matching pattern '\*\.xyz'")),
    C("textdir-missing", lambda tmp: read_text_dir(tmp / "nope"), Raises(FileNotFoundError, r"folder .*nope' does not exist")),
    C("textdir-is-file", lambda tmp: read_text_dir(_afile(tmp)), Raises(ValueError, r"expects a folder, but .*afile' is a file")),
    C("textdir-None", lambda tmp: read_text_dir(None), Raises(TypeError, r"read_text_dir.*path.*NoneType")),
    C("textdir-bad-encoding", lambda tmp: read_text_dir(_textdir({"a.txt": "hello world"})(tmp), encoding="nope"),
      Raises(ValueError, r"encoding must be a known codec name, got 'nope'")),
    # read_csv
    C("csv-ok", _csv("text,label\nhello world,a\nworld peace,b\n", "text"), _shape((2, 3))),
    C("csv-empty", _csv("", "text"), Raises(ValueError, r"read_csv: .* is empty")),
    C("csv-header-only", _csv("text,label\n", "text"), Raises(ValueError, r"has no data rows")),
    C("csv-missing-column", _csv("a,b\n1,2\n", "text"), Raises(ValueError, r"text_column='text' is not a column .*\['a', 'b'\]")),
    C("csv-png", _csv(PNG, "text"), Raises(ValueError, r"t\.csv' is not valid utf-8 text")),
    C("csv-non-utf8", _csv(b"text\nhello \xff world\n", "text"), Raises(ValueError, r"is not valid utf-8 text")),
    C("csv-empty-texts", _csv('text\n""\n', "text"), Raises(ValueError, r"found no terms")),
    C("csv-nul", _csv("text\nhel\x00lo world\n", "text"), Works(lambda c: c.X.shape[0] == 1)),
    C("csv-col-out-of-range", _csv("text\nhello\n", 5), Raises(ValueError, r"text_column=5 is out of range")),
    C("csv-col-None", _csv("text\nhello\n", None), Raises(TypeError, r"text_column must be a column name \(str\) or a 0-based index")),
    C("csv-col-float", _csv("text\nhello\n", 1.5), Raises(TypeError, r"text_column must be .*got 1.5")),
    C("csv-label-missing", _csv("text\nhello\n", "text", "nolabel"), Raises(ValueError, r"label_column='nolabel' is not a column")),
    C("csv-missing-file", lambda tmp: read_csv(tmp / "nope.csv", "text"), Raises(FileNotFoundError, r"nope\.csv' does not exist")),
    # read_jsonl
    C("jsonl-ok", _jsonl('{"text":"hello world","y":1}\n{"text":"world peace","y":2}\n', "text"), _shape((2, 3))),
    C("jsonl-empty", _jsonl("", "text"), Raises(ValueError, r"has no documents")),
    C("jsonl-blank", _jsonl("\n\n", "text"), Raises(ValueError, r"has no documents")),
    C("jsonl-bad-json", _jsonl('{"text": "a"\n', "text"), Raises(ValueError, r"line 1 is not valid JSON")),
    C("jsonl-not-object", _jsonl("[1, 2]\n", "text"), Raises(ValueError, r"line 1: expected a JSON object, got list")),
    C("jsonl-wrong-keys", _jsonl('{"a": 1, "b": 2}\n', "text"), Raises(ValueError, r"has no field 'text'; its fields are \['a', 'b'\]")),
    C("jsonl-text-int", _jsonl('{"text": 5}\n', "text"), Raises(ValueError, r"field 'text' must be a string, got int")),
    C("jsonl-text-null", _jsonl('{"text": null}\n', "text"), Raises(ValueError, r"must be a string, got NoneType")),
    C("jsonl-png", _jsonl(PNG, "text"), Raises(ValueError, r"is not valid utf-8 text")),
    C("jsonl-non-utf8", _jsonl(b'{"text": "caf\xe9"}\n', "text"), Raises(ValueError, r"is not valid utf-8 text")),
    C("jsonl-empty-text", _jsonl('{"text": ""}\n', "text"), Raises(ValueError, r"found no terms")),
    C("jsonl-field-None", _jsonl('{"text": "a b"}\n', None), Raises(TypeError, r"text_field must be a str.*None")),
    C("jsonl-label-missing", _jsonl('{"text": "a b"}\n', "text", "nolabel"), Raises(ValueError, r"has no field 'nolabel'")),
    # writers
    *[C(f"{w.__name__}-{i}", (lambda w, x, v: lambda tmp: w(x, v, tmp / "out.txt"))(w, x, v), Raises(e, m), r)
      for w in (write_uci, write_ldac)
      for i, x, v, e, m, r in [
          ("None", None, V3, TypeError, r"needs a Corpus or a count matrix X, got None", None),
          ("str", "abc", V3, (TypeError, ValueError), r"expects a 2-D count matrix", None),
          ("1d", np.ones(3), V3, ValueError, r"expects a 2-D count matrix \(n_docs, n_terms\), got shape \(3,\)", None),
          ("3d", np.ones((2, 2, 2)), None, ValueError, r"got shape \(2, 2, 2\)", None),
          ("fractional", np.full((2, 3), 0.5), V3, ValueError, r"writes integer term counts; X has 6 non-integer", None),
          ("negative", -X3, V3, ValueError, r"non-negative term counts; X has 3 negative", None),
          ("nan", np.full((2, 3), np.nan), V3, ValueError, r"finite term counts; X has NaN", None),
          ("0-docs", np.zeros((0, 3)), V3, ValueError, r"received an empty corpus of shape \(0, 3\)", None),
          ("vocab-size", X3, ["a"], ValueError, r"vocabulary has 1 terms, but X has 3 columns", None),
          ("vocab-newline", X3, ["a", "b\nc", "d"], ValueError, r"must not contain line breaks", None),
          ("complex", np.ones((2, 3)) + 1j, V3, TypeError, r"expects numeric term counts, got dtype complex128", None),
          ("object", np.array([[1, "a", 2], [1, 2, 3]], dtype=object), V3, TypeError, w.__name__ + r" expects numeric term counts",
           None),
      ]],
    C("write_uci-huge", lambda tmp: write_uci(np.array([[1e9, 0, 1e15]]), V3, tmp / "d.txt"), Works()),
    C("write_uci-all-empty", lambda tmp: write_uci(np.zeros((2, 3)), V3, tmp / "d.txt"), Works()),
    C("write_uci-no-path", lambda tmp: write_uci(X3, V3), Raises(TypeError, r"write_uci needs docword_path")),
    C("write_uci-unwritable", lambda tmp: write_uci(X3, V3, _afile(tmp) / "docword.txt"),
      Raises(FileNotFoundError, r"Cannot write .*afile/docword\.txt'")),
    C("write_uci-to-folder", lambda tmp: write_uci(X3, V3, tmp), Raises(ValueError, r"Cannot write .*: it is a folder")),
    C("write_ldac-unwritable", lambda tmp: write_ldac(X3, V3, _afile(tmp) / "c.ldac"), Raises(FileNotFoundError, r"Cannot write")),
    # Corpus
    C("Corpus-None", lambda tmp: Corpus(None, []), Raises((TypeError, ValueError), r"Corpus X must be")),
    C("Corpus-str", lambda tmp: Corpus("abc", []), Raises((TypeError, ValueError), r"Corpus X must be")),
    C("Corpus-1d", lambda tmp: Corpus(np.ones(3), V3), Raises(ValueError, r"Corpus X must be 2-D .*got shape \(3,\)")),
    C("Corpus-3d", lambda tmp: Corpus(np.ones((2, 2, 2)), V3), Raises(ValueError, r"got shape \(2, 2, 2\)")),
    C("Corpus-nan", lambda tmp: Corpus(np.full((2, 3), np.nan), V3), Raises(ValueError, r"Corpus X must hold finite term counts")),
    C("Corpus-negative", lambda tmp: Corpus(-np.ones((2, 3)), V3), Raises(ValueError, r"non-negative, but X has 6 negative")),
    C("Corpus-complex", lambda tmp: Corpus(np.ones((2, 3)) + 1j, V3), Raises(TypeError, r"Corpus X must hold real numbers")),
    C("Corpus-object", lambda tmp: Corpus(np.array([[1, "a", 2]], dtype=object), V3), Raises(TypeError, r"Corpus X must hold real numbers")),
    C("Corpus-vocab-size", lambda tmp: Corpus(X3, ["a"]), Raises(ValueError, r"vocabulary has 1 terms, but X has 3 columns")),
    C("Corpus-vocab-None", lambda tmp: Corpus(X3, None), Raises(TypeError, r"vocabulary.*NoneType")),
    C("Corpus-labels-length", lambda tmp: Corpus(X3, V3, labels=[1]), Raises(ValueError, r"labels has 1 entries, but X has 2 documents")),
    C("Corpus-0-docs", lambda tmp: Corpus(np.zeros((0, 3)), V3), Works(lambda c: c.n_docs == 0)),
    C("Corpus-fractional", lambda tmp: Corpus(np.full((2, 3), 0.5), V3), Works(lambda c: c.X.sum() == 3.0)),
    C("Corpus.save-unwritable", lambda tmp: Corpus(X3, V3).save(_afile(tmp) / "c.npz"), Raises(FileNotFoundError, r"Cannot write .*afile")),
    C("Corpus.save-folder", lambda tmp: Corpus(X3, V3).save(tmp), Raises(ValueError, r"it is a folder")),
    C("Corpus.save-None", lambda tmp: Corpus(X3, V3).save(None), Raises(TypeError, r"path must be a path .*NoneType")),
    C("Corpus.load-truncated", lambda tmp: Corpus.load(_write(tmp, "t.npz", (Corpus(X3, V3).save(tmp / "c.npz"),
                                                                         (tmp / "c.npz").read_bytes())[1][:200])),
      Raises(ValueError, r"Corpus.load could not read .*t\.npz' as a \.npz file")),
    C("Corpus.load-png", lambda tmp: Corpus.load(_write(tmp, "c.npz", PNG)), Raises(ValueError, r"could not read .*c\.npz' as a \.npz file")),
    C("Corpus.load-json", lambda tmp: Corpus.load(_write(tmp, "c.json", '{"a": 1}')), Raises(ValueError, r"c\.json")),
    C("Corpus.load-missing", lambda tmp: Corpus.load(tmp / "nope.npz"), Raises(FileNotFoundError, r"nope\.npz' does not exist")),
    C("Corpus.load-None", lambda tmp: Corpus.load(None), Raises(TypeError, r"path must be a path \(str or os.PathLike\), got NoneType")),
    C("Corpus.load-other-npz", lambda tmp: (np.savez(tmp / "o.npz", a=np.ones(2)), Corpus.load(tmp / "o.npz")),
      Raises(ValueError, r"not a topicvb corpus \(no 'meta_json' entry\)")),
    C("Corpus.load-model-file", lambda tmp: Corpus.load(persistence.save(fitted("BatchLDA"), tmp / "m.npz")),
      Raises(ValueError, r"not a topicvb corpus")),
    C("Corpus.load-meta-wrong-keys", lambda tmp: Corpus.load(_corpus_file(tmp, meta_json=_meta({"format": "topicvb.Corpus", "version": 1}))),
      Raises(ValueError, r"bad\.npz")),
    C("Corpus.load-meta-not-json", lambda tmp: Corpus.load(_corpus_file(tmp, meta_json=_meta(b"not json"))),
      Raises(ValueError, r"bad\.npz")),
    C("Corpus.load-meta-list", lambda tmp: Corpus.load(_corpus_file(tmp, meta_json=_meta([1]))),
      Raises(ValueError, r"bad\.npz")),
    C("Corpus.load-meta-non-utf8", lambda tmp: Corpus.load(_corpus_file(tmp, meta_json=_meta(b"\xff\xfe"))),
      Raises(ValueError, r"bad\.npz")),
    C("Corpus.load-index-out-of-range", lambda tmp: Corpus.load(_corpus_file(tmp, X_indices=np.array([0, 700000, 1], dtype=np.int32))),
      Raises(ValueError, r"bad\.npz")),  # fixed: Corpus.load checks the sparse structure
    C("Corpus.load-nan-data", lambda tmp: Corpus.load(_corpus_file(tmp, X_data=np.array([1.0, np.nan, 2.0]))),
      Raises(ValueError, r"finite term counts")),
    # make_lda_corpus
    *[C(f"make_lda_corpus-{i}", (lambda kw: lambda tmp: make_lda_corpus(**kw))(kw), Raises(e, m))
      for i, kw, e, m in [
          ("n_docs-0", dict(n_docs=0, n_terms=5, n_topics=2), ValueError, r"n_docs == 0, must be >= 1"),
          ("n_docs-neg", dict(n_docs=-1, n_terms=5, n_topics=2), ValueError, r"n_docs == -1"),
          ("n_docs-float", dict(n_docs=2.5, n_terms=5, n_topics=2), TypeError, r"n_docs must be an instance of int"),
          ("n_docs-str", dict(n_docs="5", n_terms=5, n_topics=2), TypeError, r"n_docs must be an instance of int, not str"),
          ("n_terms-0", dict(n_docs=5, n_terms=0, n_topics=2), ValueError, r"n_terms == 0"),
          ("n_topics-0", dict(n_docs=5, n_terms=5, n_topics=0), ValueError, r"n_topics == 0"),
          ("alpha-neg", dict(n_docs=5, n_terms=5, n_topics=2, doc_topic_prior=-1), ValueError, r"doc_topic_prior must be a positive finite"),
          ("alpha-nan", dict(n_docs=5, n_terms=5, n_topics=2, doc_topic_prior=np.nan), ValueError, r"got nan"),
          ("eta-0", dict(n_docs=5, n_terms=5, n_topics=2, topic_word_prior=0), ValueError, r"topic_word_prior must be a positive"),
          ("length-neg", dict(n_docs=5, n_terms=5, n_topics=2, doc_length=-3), ValueError, r"doc_length must be a non-negative"),
          ("length-nan", dict(n_docs=5, n_terms=5, n_topics=2, doc_length=np.nan), ValueError, r"doc_length .*got nan"),
          ("length-str", dict(n_docs=5, n_terms=5, n_topics=2, doc_length="x"), TypeError, r"doc_length must be a number"),
          ("seed-str", dict(n_docs=5, n_terms=5, n_topics=2, random_state="x"), TypeError, r"random_state must be None, an int"),
      ]],
    C("make_lda_corpus-empty-docs", lambda tmp: make_lda_corpus(5, 5, 2, doc_length=0, random_state=0),
      Works(lambda s: s.corpus.X.shape == (5, 5) and s.corpus.n_tokens == 0)),
    C("make_lda_corpus-1x1x1", lambda tmp: make_lda_corpus(1, 1, 1, random_state=0), Works(lambda s: s.corpus.X.shape == (1, 1))),
    C("make_lda_corpus-K>docs", lambda tmp: make_lda_corpus(3, 5, 10, random_state=0), Works(lambda s: s.corpus.X.shape == (3, 5))),
]
# the placeholder above: an empty folder is an error, not a corpus
DATASET_CASES[[p.id for p in DATASET_CASES].index("textdir-empty-folder")] = C(
    "textdir-empty-folder", lambda tmp: read_text_dir(_textdir({})(tmp)),
    Raises(ValueError, r"read_text_dir found no files matching pattern '\*'"))


@pytest.mark.parametrize("fn,expect", DATASET_CASES)
def test_datasets_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)


_MM_SCRIPT = textwrap.dedent(r'''
    import json, sys
    from topicvb.datasets import read_matrix_market
    try:
        read_matrix_market(sys.argv[1])
        print(json.dumps({"ok": True}))
    except Exception as exc:
        print(json.dumps({"ok": False, "type": type(exc).__name__, "msg": str(exc)}))
''')


@pytest.mark.parametrize("data", [
    pytest.param(PNG, id="png"),  # fixed: mmread reads from an in-memory buffer
    pytest.param(b"%%MatrixMarket matrix coordinate integer general\n" + bytes(range(256)), id="banner-then-binary"),
])
def test_read_matrix_market_binary_garbage_in_subprocess(tmp_path, data):
    path = _write(tmp_path, "garbage.mtx", data)
    proc = subprocess.run([sys.executable, "-c", _MM_SCRIPT, str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"interpreter died (rc={proc.returncode}): {proc.stderr[-300:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"ok": False, "type": "ValueError", "msg": out["msg"]}
    assert "garbage.mtx" in out["msg"] and "MatrixMarket" in out["msg"]


# ============================================================================= evaluation and inspection
def _m():
    return fitted("BatchLDA")


VOCAB = [f"t{i}" for i in range(N_TERMS)]
TOPICS = [["t0", "t1"], ["t2", "t3"]]
REF = (train_matrix(), VOCAB)

EVAL_BAD_X = [
    ("None", None, TypeError, r"needs {X}, a document-term count matrix; got None", None),
    ("str", "abc", ValueError, r"{X} is not a valid count matrix", None),
    ("1d", np.ones(N_TERMS), ValueError, r"{X} is not a valid count matrix: Expected 2D array", None),
    ("wider", np.ones((2, N_TERMS + 1)), ValueError, r"{X} has 7 terms \(columns\), but this BatchLDA was fitted on 6", None),
    ("nan", np.full((2, N_TERMS), np.nan), ValueError, r"{X} is not a valid count matrix: Input {X} contains NaN", None),
    ("negative", -np.ones((2, N_TERMS)), ValueError, r"expects non-negative term counts; {X} has 12 negative", None),
    ("zero-docs", np.zeros((0, N_TERMS)), ValueError, r"{X} is not a valid count matrix: Found array with 0 sample", None),
]

EVAL_CASES = [
    *[C(f"heldout_perplexity-{i}", (lambda x: lambda tmp: heldout_perplexity(_m(), x))(x), Raises(e, m.format(X="X_test")), r)
      for i, x, e, m, r in EVAL_BAD_X],
    *[C(f"per_word_bound-{i}", (lambda x: lambda tmp: per_word_bound(_m(), x))(x), Raises(e, m.format(X="X")), r)
      for i, x, e, m, r in EVAL_BAD_X],
    C("heldout_perplexity-all-empty", lambda tmp: heldout_perplexity(_m(), np.zeros((3, N_TERMS))), Raises(ValueError, r"found no held-out token")),
    C("heldout_perplexity-fractional", lambda tmp: heldout_perplexity(_m(), np.full((2, N_TERMS), 0.3)),
      Raises(ValueError, r"non-integer counts. Split the documents yourself")),
    C("heldout_perplexity-fractional-with-X_heldout", lambda tmp: heldout_perplexity(_m(), np.full((2, N_TERMS), 0.3), X_heldout=np.full((2, N_TERMS), 0.7)),
      Works(lambda v: np.isfinite(v) and v > 0)),
    C("heldout_perplexity-huge", lambda tmp: heldout_perplexity(_m(), np.full((2, N_TERMS), 1e9)), Works(lambda v: np.isfinite(v) and v > 0)),
    C("heldout_perplexity-unfitted", lambda tmp: heldout_perplexity(BatchLDA(2), train_matrix()), Raises(NotFittedError, r"heldout_perplexity needs a fitted model")),
    C("heldout_perplexity-model-str", lambda tmp: heldout_perplexity("model", train_matrix()), Raises(TypeError, r"expects a topic model .*got str")),
    C("heldout_perplexity-model-None", lambda tmp: heldout_perplexity(None, train_matrix()), Raises(TypeError, r"got NoneType")),
    C("heldout_perplexity-fraction-1.5", lambda tmp: heldout_perplexity(_m(), train_matrix(), observed_fraction=1.5), Raises(ValueError, r"observed_fraction == 1.5")),
    C("heldout_perplexity-fraction-0", lambda tmp: heldout_perplexity(_m(), train_matrix(), observed_fraction=0), Raises(ValueError, r"observed_fraction == 0")),
    C("heldout_perplexity-fraction-nan", lambda tmp: heldout_perplexity(_m(), train_matrix(), observed_fraction=np.nan),
      Raises(ValueError, r"observed_fraction.*nan")),
    C("heldout_perplexity-X_heldout-rows", lambda tmp: heldout_perplexity(_m(), train_matrix(), X_heldout=np.ones((3, N_TERMS))),
      Raises(ValueError, r"X_test has 12 documents but X_heldout has 3")),
    C("per_word_bound-fractional", lambda tmp: per_word_bound(_m(), np.full((2, N_TERMS), 0.3)), Works(np.isfinite)),
    C("per_word_bound-all-empty", lambda tmp: per_word_bound(_m(), np.zeros((2, N_TERMS))), Raises(ValueError, r"at least one token in X")),
    C("per_word_bound-PLSA", lambda tmp: per_word_bound(fitted("PLSA"), train_matrix()),
      Raises(TypeError, r"per_word_bound needs a variational LDA model \(BatchLDA or OnlineLDA\), got PLSA")),
    C("per_word_bound-model-None", lambda tmp: per_word_bound(None, train_matrix()), Raises(TypeError, r"got NoneType")),
    # coherence
    C("coherence-ok", lambda tmp: coherence(TOPICS, REF), Works(lambda s: np.all(np.isfinite(s.per_topic)))),
    C("coherence-topics-None", lambda tmp: coherence(None, REF), Raises(TypeError, r"topics must be a list of lists of top words, got NoneType")),
    C("coherence-topics-str", lambda tmp: coherence("abc", REF), Raises(TypeError, r"got str")),
    C("coherence-topics-empty", lambda tmp: coherence([], REF), Raises(ValueError, r"topics is empty")),
    C("coherence-topic-ints", lambda tmp: coherence([[1, 2]], REF), Raises(TypeError, r"top words must be str; topic 0 has 1 of type int")),
    C("coherence-empty-topic", lambda tmp: coherence([[]], REF), Works(lambda s: np.all(np.isfinite(s.per_topic)))),
    C("coherence-unknown-words", lambda tmp: coherence([["zz", "yy"]], REF), Works(lambda s: np.all(np.isfinite(s.per_topic)))),
    C("coherence-ref-None", lambda tmp: coherence(TOPICS, None), Raises(TypeError, r"coherence needs a reference corpus; got None")),
    C("coherence-ref-str", lambda tmp: coherence(TOPICS, "abc"), Raises(TypeError, r"reference must be a ReferenceCorpus.*got str")),
    C("coherence-ref-all-zero", lambda tmp: coherence(TOPICS, (np.zeros((3, N_TERMS)), VOCAB)), Works(lambda s: np.all(np.isfinite(s.per_topic)))),
    C("coherence-ref-nan", lambda tmp: coherence(TOPICS, (np.full((3, N_TERMS), np.nan), VOCAB)), Raises(ValueError, r"X has NaN or infinite counts")),
    C("coherence-ref-negative", lambda tmp: coherence(TOPICS, (-np.ones((3, N_TERMS)), VOCAB)), Raises(ValueError, r"negative")),
    C("coherence-ref-3d", lambda tmp: coherence(TOPICS, (np.ones((2, 2, 2)), VOCAB)), Raises(ValueError, r"2-D")),
    C("coherence-ref-vocab-size", lambda tmp: coherence(TOPICS, (train_matrix(), VOCAB[:3])), Raises(ValueError, r"vocabulary has 3 terms but X has 6 columns")),
    C("coherence-ref-no-docs", lambda tmp: coherence(TOPICS, []), Raises(ValueError, r"reference corpus has no documents")),
    C("coherence-ref-untokenised", lambda tmp: coherence(TOPICS, ["a b"]), Raises(TypeError, r"document 0 is a str. Tokenise it first")),
    C("coherence-measure", lambda tmp: coherence(TOPICS, REF, measure="xyz"), Raises(ValueError, r"measure must be one of .*got 'xyz'")),
    C("coherence-window-0", lambda tmp: coherence(TOPICS, [["t0", "t1"]], window_size=0), Raises(ValueError, r"window_size must be a positive int or None, got 0")),
    C("coherence-epsilon-nan", lambda tmp: coherence(TOPICS, REF, epsilon=np.nan), Raises(ValueError, r"epsilon must be a positive finite number, got nan")),
    C("coherence-c_v-needs-texts", lambda tmp: coherence(TOPICS, REF, measure="c_v"), Raises(ValueError, r"needs tokenised documents")),
    C("topic_diversity-empty", lambda tmp: topic_diversity([]), Raises(ValueError, r"topics is empty")),
    C("topic_diversity-None", lambda tmp: topic_diversity(None), Raises(TypeError, r"got NoneType")),
    C("topic_diversity-n-0", lambda tmp: topic_diversity(TOPICS, n=0), Raises(ValueError, r"n must be a positive int or None, got 0")),
    # select_n_topics
    C("select-ok-K>docs", lambda tmp: select_n_topics(train_matrix()[:3], [5], max_iter=3), Works(lambda r: r.best_k == 5)),
    C("select-all-empty", lambda tmp: select_n_topics(np.zeros((5, N_TERMS)), [2], max_iter=3), Works(lambda r: r.best_k == 2)),
    C("select-candidates-empty", lambda tmp: select_n_topics(train_matrix(), []), Raises(ValueError, r"candidates is empty")),
    C("select-candidates-0", lambda tmp: select_n_topics(train_matrix(), [0, 2]), Raises(ValueError, r"candidates must be positive ints, got 0")),
    C("select-candidates-neg", lambda tmp: select_n_topics(train_matrix(), [-1]), Raises(ValueError, r"got -1")),
    C("select-candidates-float", lambda tmp: select_n_topics(train_matrix(), [2.5]), Raises((TypeError, ValueError), r"candidates must be positive ints, got 2.5")),
    C("select-candidates-None", lambda tmp: select_n_topics(train_matrix(), None), Raises(TypeError, r"candidates must be a sequence of positive ints, got NoneType")),
    C("select-X-nan", lambda tmp: select_n_topics(np.full((4, N_TERMS), np.nan), [2]), Raises(ValueError, r"select_n_topics: X is not a valid count matrix: Input X contains NaN")),
    C("select-X-negative", lambda tmp: select_n_topics(-train_matrix(), [2]), Raises(ValueError, r"non-negative term counts; X has \d+ negative")),
    C("select-X-str", lambda tmp: select_n_topics("abc", [2]), Raises((TypeError, ValueError), r"select_n_topics: X is not a valid count matrix")),
    C("select-model", lambda tmp: select_n_topics(train_matrix(), [2], model="xyz"), Raises(ValueError, r"model must be one of .*got 'xyz'")),
    C("select-criterion", lambda tmp: select_n_topics(train_matrix(), [2], criterion="xyz"), Raises(ValueError, r"criterion must be one of")),
    C("select-test_size", lambda tmp: select_n_topics(train_matrix(), [2], criterion="heldout", test_size=2.0), Raises(ValueError, r"test_size must be in \(0, 1\), got 2.0")),
    C("select-X_test-width", lambda tmp: select_n_topics(train_matrix(), [2], criterion="heldout", X_test=np.ones((2, 9)), max_iter=3),
      Raises(ValueError, r"X_test has 9 terms \(columns\), but X has 6")),
    C("select-coherence-no-ref", lambda tmp: select_n_topics(train_matrix(), [2], criterion="coherence", max_iter=3), Raises(ValueError, r"needs a reference corpus")),
    C("select-bad-model-param", lambda tmp: select_n_topics(train_matrix(), [2], bogus=1), Raises(TypeError, r"bogus")),
    # inspection.top_words
    C("top_words-unfitted", lambda tmp: top_words(BatchLDA(2), VOCAB, 3), Raises(NotFittedError, r"top_words needs a fitted model")),
    C("top_words-model-None", lambda tmp: top_words(None, VOCAB, 3), Raises(TypeError, r"top_words expects a fitted topic model .*got NoneType")),
    C("top_words-model-str", lambda tmp: top_words("m", VOCAB, 3), Raises(TypeError, r"got str")),
    C("top_words-vocab-size", lambda tmp: top_words(_m(), VOCAB[:2], 3), Raises(ValueError, r"vocabulary has 2 terms, but the model has 6")),
    C("top_words-vocab-str", lambda tmp: top_words(_m(), "abcdef", 3), Raises(TypeError, r"vocabulary must be a sequence of terms, got a single str")),
    C("top_words-n-0", lambda tmp: top_words(_m(), VOCAB, 0), Raises(ValueError, r"n must be a positive int, got 0")),
    C("top_words-n-float", lambda tmp: top_words(_m(), VOCAB, 2.5), Raises(TypeError, r"n must be a positive int, got float 2.5")),
    C("top_words-n-str", lambda tmp: top_words(_m(), VOCAB, "3"), Raises(TypeError, r"got str '3'")),
    C("top_words-n-huge", lambda tmp: top_words(_m(), VOCAB, 10**9), Works(lambda r: all(len(t) == N_TERMS for t in r))),
    C("top_words-relevance-2", lambda tmp: top_words(_m(), VOCAB, 3, relevance=2.0), Raises(ValueError, r"relevance must be a number in \[0, 1\]")),
    C("top_words-relevance-nan", lambda tmp: top_words(_m(), VOCAB, 3, relevance=np.nan), Raises(ValueError, r"got nan")),
    C("top_words-relevance-no-tf", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5), Raises(ValueError, r"needs the corpus term frequencies")),
    C("top_words-tf-negative", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, term_frequency=-np.ones(N_TERMS)), Raises(ValueError, r"term_frequency must be non-negative and finite")),
    C("top_words-tf-nan", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, term_frequency=np.full(N_TERMS, np.nan)), Raises(ValueError, r"non-negative and finite")),
    C("top_words-tf-length", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, term_frequency=np.ones(3)), Raises(ValueError, r"one entry per term \(6\), got shape \(3,\)")),
    C("top_words-tf-zeros", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, term_frequency=np.zeros(N_TERMS)), Raises(ValueError, r"term frequencies sum to 0")),
    C("top_words-X-all-empty", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, X=np.zeros((2, N_TERMS))), Raises(ValueError, r"term frequencies sum to 0")),
    # inspection.summary
    C("summary-ok", lambda tmp: summary(_m(), train_matrix(), VOCAB, n=3), Works(lambda t: t.n_topics == 2)),
    C("summary-no-X", lambda tmp: summary(_m(), None, VOCAB, n=3), Works(lambda t: t.n_topics == 2)),
    C("summary-unfitted", lambda tmp: summary(BatchLDA(2), train_matrix(), VOCAB), Raises(NotFittedError, r"summary needs a fitted model")),
    C("summary-model-None", lambda tmp: summary(None, train_matrix(), VOCAB), Raises(TypeError, r"summary expects a fitted topic model")),
    C("summary-X-wider", lambda tmp: summary(_m(), np.ones((2, 7)), VOCAB), Raises(ValueError, r"X has 7 terms \(columns\), but this BatchLDA was fitted on 6")),
    C("summary-X-nan", lambda tmp: summary(_m(), np.full((2, N_TERMS), np.nan), VOCAB), Raises(ValueError, r"X is not a valid count matrix: Input X contains NaN")),
    C("summary-X-all-empty", lambda tmp: summary(_m(), np.zeros((2, N_TERMS)), VOCAB), Raises(ValueError, r"at least one token in X")),
    C("summary-X-str", lambda tmp: summary(_m(), "abc", VOCAB), Raises((TypeError, ValueError), r"X is not a valid count matrix")),
    C("summary-vocab-size", lambda tmp: summary(_m(), train_matrix(), VOCAB[:2]), Raises(ValueError, r"vocabulary has 2 terms")),
    C("summary-n-0", lambda tmp: summary(_m(), train_matrix(), VOCAB, n=0), Raises(ValueError, r"n must be a positive int, got 0")),
    C("summary-coherence-str", lambda tmp: summary(_m(), train_matrix(), VOCAB, coherence="abc"), Raises(TypeError, r"reference must be a ReferenceCorpus")),
    C("summary-to-stringio", lambda tmp: summary(_m(), train_matrix(), VOCAB, n=3).to_csv(io.StringIO()), Works()),
]


@pytest.mark.parametrize("fn,expect", EVAL_CASES)
def test_evaluation_and_inspection_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)


# ============================================================================= persistence
_LOAD_MSG_BUG = ("persistence.load of a file that is not a .npz ({}) raises numpy's 'This file contains pickled "
                 "(object) data. If you trust the file you can load it unsafely ...' (misleading: nothing is "
                 "pickled, and the path is not named); expected ValueError \"'<path>' is not a readable topicvb "
                 "model file ...\"")


def _model_file(tmp, meta=None, **arrays):
    base = {"format": "topicvb-model", "version": 1, "class": "BatchLDA", "params": {"n_components": 2},
            "scalars": {"n_features_in_": 3}}
    if meta is not None:
        base = meta if not isinstance(meta, dict) or "format" not in meta else {**base, **meta}
    arrays.setdefault("attr__components_", np.ones((2, 3)))
    np.savez(tmp / "model.npz", meta=np.asarray(base if isinstance(base, str) else json.dumps(base)), **arrays)
    return tmp / "model.npz"


PERSISTENCE_CASES = [
    C("save-ok-roundtrip", lambda tmp: persistence.load(persistence.save(_m(), tmp / "m.npz", vocabulary=VOCAB)),
      Works(lambda m: np.allclose(m.transform(train_matrix()), _m().transform(train_matrix())))),
    C("save-unfitted", lambda tmp: persistence.save(BatchLDA(2), tmp / "m.npz"), Raises(NotFittedError, r"not fitted")),
    C("save-None", lambda tmp: persistence.save(None, tmp / "m.npz"), Raises(TypeError, r"save expects a topicvb model .*got NoneType")),
    C("save-sklearn-model", lambda tmp: persistence.save(__import__("sklearn.decomposition").decomposition.PCA(), tmp / "m.npz"),
      Raises(TypeError, r"save expects a topicvb model .*got PCA")),
    C("save-vocab-size", lambda tmp: persistence.save(_m(), tmp / "m.npz", vocabulary=["a"]), Raises(ValueError, r"vocabulary has 1 terms, but the model was fitted on 6")),
    C("save-path-None", lambda tmp: persistence.save(_m(), None), Raises(TypeError, r"path.*NoneType")),  # fixed
    C("save-under-a-file", lambda tmp: persistence.save(_m(), _afile(tmp) / "m.npz"), Raises(OSError, r"(?i)(not a (folder|directory)|cannot write).*afile")),  # fixed
    C("load-missing", lambda tmp: persistence.load(tmp / "none.npz"), Raises(FileNotFoundError, r"Model file .*none\.npz' does not exist")),
    C("load-None", lambda tmp: persistence.load(None), Raises(TypeError, r"path.*NoneType")),  # fixed
    C("load-folder", lambda tmp: persistence.load(tmp), Raises(ValueError, r"is not a readable topicvb model file")),
    C("load-truncated", lambda tmp: persistence.load(_write(tmp, "t.npz", persistence.save(_m(), tmp / "m.npz").read_bytes()[:300])),
      Raises(ValueError, r"t\.npz' is not a readable topicvb model file \(truncated or corrupt")),
    C("load-empty-file", lambda tmp: persistence.load(_write(tmp, "e.npz", b"")), Raises(ValueError, r"e\.npz' is not a readable topicvb model file")),
    C("load-png", lambda tmp: persistence.load(_write(tmp, "p.npz", PNG)), Raises(ValueError, r"p\.npz' is not a .*topicvb model file")),  # fixed
    C("load-json", lambda tmp: persistence.load(_write(tmp, "m.json", '{"a": 1}')), Raises(ValueError, r"m\.json' is not a .*topicvb model file")),  # fixed
    C("load-corpus-file", lambda tmp: (Corpus(X3, V3).save(tmp / "c.npz"), persistence.load(tmp / "c.npz"))[1],
      Raises(ValueError, r"c\.npz' is not a topicvb model file \(no metadata record\)")),
    C("load-meta-not-json", lambda tmp: persistence.load(_model_file(tmp, meta="not json")), Raises(ValueError, r"truncated or corrupt")),
    C("load-meta-list", lambda tmp: persistence.load(_model_file(tmp, meta="[1, 2]")), Raises(ValueError, r"is not a topicvb model file")),
    C("load-wrong-format", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "other"})), Raises(ValueError, r"is not a topicvb model file")),
    C("load-newer-version", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "version": 99})),
      Raises(ValueError, r"newer topicvb \(model format 99\)")),
    C("load-version-str", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "version": "1"})),
      Raises(ValueError, r"(?i)version.*'1'")),
    C("load-unknown-class", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "class": "Evil"})),
      Raises(ValueError, r"unknown model class 'Evil'")),
    C("load-params-list", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "params": [1]})),
      Raises(ValueError, r"model\.npz")),
    C("load-bad-param-value", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "params": {"n_components": "two"}})),
      Raises(ValueError, r"inconsistent")),
    C("load-components-wrong-shape", lambda tmp: persistence.load(_model_file(tmp, attr__components_=np.ones((3, 3)))),
      Raises(ValueError, r"components_ does not match n_components x n_features_in_")),
    C("load-components-nan", lambda tmp: persistence.load(_model_file(tmp, attr__components_=np.array([[1, np.nan, 1], [1, 1, 1]]))),
      Raises(ValueError, r"inconsistent shapes or values")),
    C("load-components-str", lambda tmp: persistence.load(_model_file(tmp, attr__components_=np.array([["a", "b", "c"]] * 2))),
      Raises(ValueError, r"model\.npz.*components_")),
    C("load-components-negative", lambda tmp: persistence.load(_model_file(tmp, attr__components_=np.array([[1.0, -1.0, 1.0]] * 2),
                                                                             attr__doc_topic_prior_=np.full(2, 0.5))),
      Raises(ValueError, r"model\.npz.*components_")),
    C("load-missing-fitted-attributes", lambda tmp: persistence.load(_model_file(tmp)).transform(np.ones((1, 3))),
      Raises(ValueError, r"model\.npz.*doc_topic_prior_")),
    C("load-doc_topic_prior-shape", lambda tmp: persistence.load(_model_file(tmp, attr__doc_topic_prior_=np.ones(5))),
      Raises(ValueError, r"doc_topic_prior_ is \(5,\)")),
    C("load-vocab-size", lambda tmp: persistence.load(_model_file(tmp, vocabulary=np.array(["a"]))),
      Raises(ValueError, r"1 vocabulary terms for 3 features")),
]


@pytest.mark.parametrize("fn,expect", PERSISTENCE_CASES)
def test_persistence_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)


# ============================================================================= command line
CLI_CASES = [
    # (id, argv, match on the one stderr line, bug reason or None)
    ("no-command", [], r"required: COMMAND", None),  # fixed: usage errors are one line too
    ("unknown-command", ["bogus"], r"invalid choice: 'bogus'", None),
    ("fit-missing-args", ["fit"], r"the following arguments are required", None),
    ("fit-k-not-int", ["fit", "c.npz", "-k", "x", "-o", "m.npz"], r"invalid int value: 'x'", None),
    ("fit-missing-corpus", ["fit", "nope.npz", "-k", "2", "-o", "m.npz"], r"nope\.npz' does not exist", None),
    ("fit-png", ["fit", "img.png", "-k", "2", "-o", "m.npz"], r"cannot tell the format of 'img\.png'", None),
    ("fit-png-as-uci", ["fit", "img.png", "--format", "uci", "-k", "2", "-o", "m.npz"], r"UCI file 'img\.png', line 1", None),
    ("fit-not-npz", ["fit", "bad.npz", "-k", "2", "-o", "m.npz"], r"bad\.npz", None),
    ("fit-k-0", ["fit", "c.npz", "-k", "0", "-o", "m.npz"], r"n_components == 0, must be >= 1", None),
    ("fit-k-negative", ["fit", "c.npz", "-k", "-3", "-o", "m.npz"], r"n_components == -3", None),
    ("fit-tol-negative", ["fit", "c.npz", "-k", "2", "--tol", "-1", "-o", "m.npz"], r"tol == -1.0, must be >= 0", None),
    ("fit-alpha-nan", ["fit", "c.npz", "-k", "2", "--doc-topic-prior", "nan", "-o", "m.npz"], r"doc_topic_prior must be a positive finite number, got nan", None),
    ("fit-max-iter-0", ["fit", "c.npz", "-k", "2", "--max-iter", "0", "-o", "m.npz"], r"max_iter == 0", None),
    ("fit-output-under-file", ["fit", "c.npz", "-k", "2", "--max-iter", "2", "-o", "afile/m.npz"], r"afile", None),
    ("vectorize-empty-folder", ["vectorize", "empty_dir", "-o", "c2.npz"], r"found no files matching pattern", None),
    ("vectorize-missing-path", ["vectorize", "nope_dir", "-o", "c2.npz"], r"nope_dir' does not exist", None),
    ("vectorize-output-under-file", ["vectorize", "tdir", "--min-df", "1", "--max-df", "1.0", "-o", "afile/c.npz"], r"Cannot write .*afile", None),
    ("vectorize-pruned-all", ["vectorize", "tdir", "-o", "c3.npz", "--min-df", "5"], r"min_df=5 asks for more documents", None),
    ("vectorize-jsonl-no-column", ["vectorize", "wrong.jsonl", "-o", "c4.npz"], r"--text-column is required", None),
    ("vectorize-jsonl-wrong-keys", ["vectorize", "wrong.jsonl", "--text-column", "text", "-o", "c4.npz"], r"has no field 'text'", None),
    ("vectorize-all-empty-texts", ["vectorize", "emptytexts", "--min-df", "1", "--max-df", "1.0", "-o", "c5.npz"], r"found no terms", None),
    ("topics-missing", ["topics", "nope.npz"], r"Model file 'nope\.npz' does not exist", None),
    ("topics-not-npz", ["topics", "bad.npz"], r"bad\.npz' is not a topicvb model file", None),  # fixed
    ("topics-corpus-file", ["topics", "c.npz"], r"'c\.npz' is not a topicvb model file", None),
    ("topics-n-0", ["topics", "model.npz", "--n", "0"], r"n must be a positive int, got 0", None),
]


@pytest.fixture
def cli_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "img.png").write_bytes(PNG)
    (tmp_path / "bad.npz").write_bytes(b"hello, not a zip")
    (tmp_path / "afile").write_text("x")
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "tdir").mkdir()
    (tmp_path / "tdir" / "a.txt").write_text("hello world topic model")
    (tmp_path / "tdir" / "b.txt").write_text("world peace model")
    (tmp_path / "emptytexts").mkdir()
    (tmp_path / "emptytexts" / "a.txt").write_text("")
    (tmp_path / "wrong.jsonl").write_text('{"a": 1}\n')
    make_lda_corpus(20, 10, 2, random_state=0).corpus.save(tmp_path / "c.npz")
    persistence.save(fitted("BatchLDA"), tmp_path / "model.npz", vocabulary=VOCAB)
    return tmp_path


@pytest.mark.parametrize("argv,match", [
    pytest.param(argv, match, id=i, marks=[bug(r)] if r else []) for i, argv, match, r in CLI_CASES])
def test_cli_errors_are_one_line(cli_dir, capsys, argv, match):
    try:
        rc = cli_main(list(argv))
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    assert rc not in (0, None), "a failing command exited with status 0"
    assert "Traceback" not in err
    assert not any(w in err for w in NUMBA_WORDS)
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {err!r}"
    assert lines[0].startswith("topicvb") and "error: " in lines[0]
    assert re.search(match, lines[0]), lines[0]


@pytest.mark.parametrize("data", [
    pytest.param(PNG, id="binary-mtx"),  # fixed with read_matrix_market
])
def test_cli_vectorize_binary_matrix_market_in_subprocess(tmp_path, data):
    (tmp_path / "garbage.mtx").write_bytes(data)
    proc = subprocess.run([sys.executable, "-m", "topicvb", "vectorize", "garbage.mtx", "-o", "c.npz"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1, f"rc={proc.returncode}: {proc.stderr[-300:]}"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topicvb: error:") and "garbage.mtx" in lines[0], proc.stderr


def test_cli_works_with_more_topics_than_documents(cli_dir, capsys):
    assert cli_main(["fit", "c.npz", "-k", "30", "--max-iter", "2", "-o", "m30.npz"]) == 0
    assert cli_main(["topics", "m30.npz", "--n", "3"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"(?m)^\s*29\s", out), out
