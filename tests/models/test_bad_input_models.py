"""Bad input for the estimators: fit on bad X, bad parameters, fitted-model methods, partial_fit.

Part of the bad-input suite; the shared helpers and the case conventions are in ``tests/bad_input_helpers.py``.
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from bad_input_helpers import (
    HYPO,
    MODEL_NAMES,
    MODELS,
    N_TERMS,
    NUMBA_WORDS,
    PYTESTMARK,
    STREAMING,
    _fitted_cached,
    _hang_guard,  # noqa: F401  (autouse fixture)
    bug,
    check_fitted_model,
    clean_raises,
    count_matrices,
    fitted,
    make,
    train_matrix,
    wrong_type_msg,
)
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from topicvb.models import PLSA, OnlineLDA

pytestmark = PYTESTMARK


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
                                  capture_output=True, text=True, timeout=300,
                                  cwd=os.path.dirname(__file__))  # python -c imports this process's topicvb
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


def test_plsa_folding_in_takes_an_asymmetric_prior():
    # it used to refuse one (fit accepted it, transform did not); folding-in now uses each topic's prior
    model = make(PLSA, doc_topic_prior=[1.0, 3.0])
    theta = model.fit(train_matrix()).transform(train_matrix())
    assert np.all(np.isfinite(theta)) and np.allclose(theta.sum(axis=1), 1.0)


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
    (dict(n_components=0), ValueError, r"n_components must be an int in \[1, 2147483647\], got 0\.", None),
    (dict(n_components=2.5), TypeError, r"n_components must be an int in \[1, 2147483647\], got 2\.5 \(a float\)\.", None),
    (dict(n_components="3"), TypeError, r"n_components must be an int in \[1, 2147483647\], got '3'\.", None),
    (dict(n_components=None), TypeError, r"n_components must be an int in \[1, 2147483647\], got None\.", None),
    (dict(doc_topic_prior=-1.0), ValueError, r"doc_topic_prior must be a positive finite number in \[1e-12, 1e\+12\] or a vector of such numbers, or None, got -1\.0\.", None),
    (dict(doc_topic_prior=np.nan), ValueError, r"doc_topic_prior must be a positive finite number in \[1e-12, 1e\+12\] or a vector of such numbers, or None, got nan\.", None),
    (dict(doc_topic_prior=[1.0, 2.0, 3.0]), ValueError, r"doc_topic_prior .*length 2, got shape \(3,\)", None),
    (dict(doc_topic_prior=[1.0, np.inf]), ValueError, r"doc_topic_prior must be a positive finite number in \[1e-12, 1e\+12\] or a vector of such numbers, or None, got \[1\.0, inf\]; entry 1 is inf\.", None),
    (dict(doc_topic_prior="big"), TypeError, r"doc_topic_prior must be a positive finite number in \[1e-12, 1e\+12\] or a vector of such numbers, or None, got 'big'\.", None),
    (dict(topic_word_prior=0), ValueError, r"topic_word_prior must be a positive finite number in \[1e-12, 1e\+12\], an array of shape \(n_components, n_features\) or None, got 0\.", None),
    (dict(topic_word_prior=[0.1, 0.2]), TypeError, r"topic_word_prior must be a positive finite number in \[1e-12, 1e\+12\], an array of shape \(n_components, n_features\) or None, got \[0\.1, 0\.2\] \(a list\)\.", None),
    (dict(max_iter=0), ValueError, r"max_iter must be an int in \[1, 2147483647\], got 0\.", None),
    (dict(tol=-1.0), ValueError, r"tol must be a finite number >= 0, got -1\.0\.", None),
    (dict(tol=np.nan), ValueError, r"tol must be a finite number >= 0, got nan\.", None),
    (dict(dtype="int32"), ValueError, r"dtype must be one of \{'float32', 'float64'\}, got 'int32'\.", None),
    (dict(n_jobs=0), ValueError, r"n_jobs must be an int in \[1, 2147483647\], an int in \[-2147483647, -1\] or None, got 0\.", None),
    (dict(verbose=-1), ValueError, r"verbose must be an int in \[0, 2147483647\], got -1\.", None),
    (dict(random_state="seed"), TypeError, r"random_state must be an int in \[0, 4294967295\], a numpy\.random\.RandomState or None, got 'seed'\.", None),
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
    with clean_raises(ValueError, rf"{type(model).__name__}\.score needs at least one token in X"):
        model.score(empty)
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
        with clean_raises(ValueError, r"total_tokens must be a finite number in \(0, 1e\+14\] or None, got 0\."):
            make(cls, total_tokens=0).partial_fit(train_matrix())


# ----------------------------------------------------------------------------- hypothesis: matrices
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
    try:  # the held-out log-likelihood per token: needs a token that the fixed split holds out
        assert np.isfinite(model.score(X))
    except ValueError as exc:
        assert re.search(r"needs at least one token in X|found no held-out token in X", str(exc)), exc
    dense = X.toarray() if sp.issparse(X) else X
    empty = dense.sum(axis=1) == 0
    np.testing.assert_allclose(doc_topic[empty], 0.5)


def test_a_partial_fit_interrupted_mid_work_leaves_the_random_stream_as_it_was(monkeypatch):
    """A hunt: a partial_fit stopped inside its work (Ctrl-C in the E-step) left OnlineLDA's random_state_ advanced
    in place, so the next partial_fit differed from the model's without the failed call (topics by up to 2)."""
    import topicvb.models._vb_fit as vb_fit

    X = sp.csr_matrix(np.random.RandomState(1).poisson(1.0, (60, N_TERMS)).astype(float))
    clean = OnlineLDA(3, batch_size=20, random_state=0).partial_fit(X[:20])
    hit = OnlineLDA(3, batch_size=20, random_state=0).partial_fit(X[:20])
    real = vb_fit.online_local_step

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # (a Ctrl-C during the E-step, after the batch's random start was drawn)

    monkeypatch.setattr(vb_fit, "online_local_step", interrupted)
    before = pickle.dumps(hit)
    with pytest.raises(KeyboardInterrupt):
        hit.partial_fit(X[20:40])
    assert pickle.dumps(hit) == before
    monkeypatch.setattr(vb_fit, "online_local_step", real)
    for model in (clean, hit):
        model.partial_fit(X[20:40])
    np.testing.assert_array_equal(hit.components_, clean.components_)
