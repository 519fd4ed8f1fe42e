"""The model-file validator (issue #19): nothing a file holds can make a loaded model produce NaN or an
internal error.

Every array and every scalar of a saved model of every registered estimator is corrupted (NaN, inf,
negative, zero rows, huge and tiny values, strings, float16, object and other dtypes, wrong shapes,
missing attributes, unknown names such as ``transform``, bad parameters); ``load`` must either raise a
``ValueError``/``TypeError`` whose message names the file, or return a model whose ``transform``,
``score`` and ``top_words`` are finite. The corruption strategies are shared with
``tests/models/test_checkpoint_validation.py``.

Part of the bad-input suite; the shared helpers and the case conventions are in ``tests/bad_input_helpers.py``.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from bad_input_helpers import HYPO, PYTESTMARK, assert_not_numba
from bad_input_helpers import _hang_guard  # noqa: F401  (autouse fixture)
from hypothesis import given, settings
from hypothesis import strategies as st

from topicvb import persistence
from topicvb.models._registry import ENTRIES, VALUE_LIMITS, entry

pytestmark = PYTESTMARK

N_TERMS = 8
# (registry entry, extra parameters): every estimator, both dtypes where the kernels differ, and PLSA with
# early stopping (which stores validation_history_ as an array)
CASES = [(e, {}) for e in ENTRIES] + [
    (entry("PLSA"), {"early_stopping": True, "validation_fraction": 0.3}),
    (entry("BatchLDA"), {"dtype": "float32"}),
    (entry("CollapsedLDA"), {"dtype": "float32"}),
    (entry("PLSA"), {"dtype": "float32"}),
]
CASE_IDS = [e.cli_name for e in ENTRIES] + ["plsa-early_stopping", "batch-float32", "collapsed-float32", "plsa-float32"]


def train_counts():
    return sp.csr_matrix(np.random.RandomState(0).poisson(1.0, (15, N_TERMS)).astype(float))


def new_counts():
    """Documents to transform: the training ones, an empty one, a long one and single-term ones."""
    X = train_counts().toarray()
    extra = np.vstack([np.zeros(N_TERMS), np.full(N_TERMS, 1e4), 7 * np.eye(N_TERMS)[:2]])
    return sp.csr_matrix(np.vstack([X, extra]))


@functools.lru_cache(maxsize=None)
def _saved(case_id: str, tmp_dir: str):
    """The arrays and the metadata record of a file written by ``save`` for one case (read-only copies)."""
    e, kw = CASES[CASE_IDS.index(case_id)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = e.cls(3, max_iter=4, random_state=0, n_jobs=1, **kw).fit(train_counts())
    path = persistence.save(model, f"{tmp_dir}/{case_id}.npz", vocabulary=[f"t{i}" for i in range(N_TERMS)])
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("meta")[()]))
    return arrays, meta


@pytest.fixture(scope="module")
def saved_dir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("saved"))


def saved(case_id, saved_dir):
    arrays, meta = _saved(case_id, saved_dir)
    return {k: v.copy() for k, v in arrays.items()}, json.loads(json.dumps(meta))


def write(path, arrays, meta):
    """Write a model file as ``save`` would, but with whatever arrays and record we like."""
    payload = dict(arrays)
    payload["meta"] = np.asarray(meta if isinstance(meta, str) else json.dumps(meta))
    with open(path, "wb") as f:
        np.savez(f, **payload)
    return path


def check_load(path):
    """``load`` either refuses the file, naming it, with a ValueError/TypeError, or gives a finite model."""
    try:
        model = persistence.load(path)
    except (ValueError, TypeError) as exc:
        assert path.name in str(exc), f"the message does not name the file: {exc}"
        assert_not_numba(exc)
        return None
    X = new_counts()
    doc_topic = model.transform(X)
    assert doc_topic.shape == (X.shape[0], model.n_components)
    assert np.all(np.isfinite(doc_topic)), "transform gave NaN/inf"
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0, atol=1e-5)
    assert np.isfinite(model.score(X)), "score is not finite"
    for topic in model.top_words(3):
        assert all(np.isfinite(p) and 0 <= p <= 1 for _, p in topic), "top_words gave a non-finite probability"
    assert callable(model.transform) and callable(model.score) and callable(model.fit)
    return model


# ----------------------------------------------------------------------------- corruption strategies
BAD_FLOATS = st.one_of(
    st.sampled_from([np.nan, np.inf, -np.inf, -1.0, 0.0, -0.0, 1e308, 1.7e308, 1e200, 1e101, 1e16, 1e-16, 1e-200,
                     1e-320, 5e-324, -5e-324, 0.5, 2.0]),
    st.floats(allow_nan=True, allow_infinity=True),
)
BAD_DTYPES = ["str", "bytes", "float16", "object", "int64", "uint8", "bool", "complex128", "datetime64[s]",
              "float32", "longdouble"]
BAD_SHAPES = ["transpose", "drop-first-row", "drop-last-column", "add-axis", "ravel", "scalar", "empty", "add-row",
              "add-column", "3-d"]


def with_dtype(arr: np.ndarray, dtype: str) -> np.ndarray:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype == "str":
            return arr.astype(str)
        if dtype == "bytes":
            return arr.astype(bytes)
        if dtype == "object":
            return arr.astype(object)
        try:
            return arr.astype(dtype)
        except (TypeError, ValueError):  # the topic names (strings) have no numeric value: numbers of that dtype
            return np.ones(arr.shape, dtype=dtype)


def with_shape(arr: np.ndarray, how: str) -> np.ndarray:
    a = np.atleast_1d(arr)
    if how == "transpose":
        return a.T.copy() if a.ndim > 1 else a[:, None]
    if how == "drop-first-row":
        return a[1:]
    if how == "drop-last-column":
        return a[..., :-1] if a.ndim > 1 else a[:-1]
    if how == "add-axis":
        return a[None]
    if how == "ravel":
        return a.ravel()
    if how == "scalar":
        return np.asarray(a.flat[0] if a.size else 1.0)
    if how == "empty":
        return a[:0]
    if how == "add-row":
        return np.concatenate([a, a[:1]]) if a.size else np.ones((1,) + a.shape[1:], a.dtype)
    if how == "add-column":
        return np.concatenate([a, a[..., :1]], axis=-1) if a.ndim > 1 and a.size else np.append(a, 1)
    return np.broadcast_to(a, (2,) + a.shape).copy()  # 3-d (or one more axis)


@st.composite
def corrupted_array(draw, arr: np.ndarray) -> np.ndarray:
    """``arr`` with bad values somewhere, a bad dtype, a bad shape, a zero row or a uniform rescaling."""
    kind = draw(st.sampled_from(["values", "values", "dtype", "shape", "zero-row", "scale"]))
    if kind == "dtype":
        return with_dtype(arr, draw(st.sampled_from(BAD_DTYPES)))
    if kind == "shape":
        return with_shape(arr, draw(st.sampled_from(BAD_SHAPES)))
    if arr.dtype.kind not in "fiu" or arr.size == 0:
        return with_shape(arr, "add-row")
    out = arr.astype(np.float64)
    if kind == "scale":
        out = out * draw(st.sampled_from([-1.0, 0.0, 1e-300, 1e-20, 1e20, 1e300, np.inf]))
    elif kind == "zero-row":
        out = np.atleast_1d(out)
        out[draw(st.integers(0, out.shape[0] - 1))] = 0.0
    else:
        value = draw(BAD_FLOATS)
        where = draw(st.sampled_from(["one", "all", "row", "column"]))
        flat = out.reshape(-1) if out.ndim else out.reshape(1)
        if where == "all" or out.ndim == 0:
            flat[:] = value
        elif where == "one":
            flat[draw(st.integers(0, flat.size - 1))] = value
        elif where == "row" or out.ndim == 1:
            out[draw(st.integers(0, out.shape[0] - 1))] = value
        else:
            out[..., draw(st.integers(0, out.shape[-1] - 1))] = value
    with np.errstate(all="ignore"):
        return out.astype(arr.dtype)


BAD_SCALARS = st.sampled_from([np.nan, np.inf, -np.inf, -1, 0, -0.5, 1e308, 1e-320, 2.5, 10**30, 10**400, "x", "",
                               None, True, False, [1], [], {"a": 1}, 1, 3, 1e-200, 1e200])
UNKNOWN_NAMES = ["transform", "fit", "score", "top_words", "__class__", "__dict__", "n_components", "dtype", "foo_",
                 "random_state_", "_float", "get_params", "components", "n_features_in"]


@st.composite
def corrupted_file(draw, arrays: dict, meta: dict):
    """(what was done, arrays, meta) of one corrupted copy of a saved model's content."""
    attrs = sorted(k for k in arrays if k.startswith("attr__"))
    scalars = sorted(meta["scalars"])
    kind = draw(st.sampled_from(["array", "array", "array", "drop-array", "scalar", "scalar", "drop-scalar",
                                 "unknown-scalar", "unknown-array", "param", "scalar-as-array", "vocabulary"]))
    if kind == "array":
        key = draw(st.sampled_from(attrs))
        arrays[key] = draw(corrupted_array(arrays[key]))
    elif kind == "drop-array":
        key = draw(st.sampled_from(attrs))
        del arrays[key]
    elif kind == "scalar":
        key = draw(st.sampled_from(scalars))
        meta["scalars"][key] = draw(BAD_SCALARS)
    elif kind == "drop-scalar":
        key = draw(st.sampled_from(scalars))
        del meta["scalars"][key]
    elif kind == "unknown-scalar":
        key = draw(st.sampled_from(UNKNOWN_NAMES + [a[len("attr__"):] for a in attrs]))
        meta["scalars"][key] = draw(BAD_SCALARS)
    elif kind == "unknown-array":
        key = draw(st.sampled_from(UNKNOWN_NAMES + scalars + ["other", "vectorizer__x"]))
        arrays[key if key in ("other", "vectorizer__x") else "attr__" + key] = np.ones(3)
    elif kind == "param":
        key = draw(st.sampled_from(sorted(meta["params"])))
        meta["params"][key] = draw(st.one_of(BAD_SCALARS, st.sampled_from(["float16", "float32", [1.0, -1.0, 1.0],
                                                                           [0.1] * 5, 2, 4])))
    elif kind == "scalar-as-array":
        key = draw(st.sampled_from([s for s in scalars if meta["scalars"][s] is not None]))
        value = meta["scalars"].pop(key)
        arrays["attr__" + key] = draw(st.sampled_from([np.asarray(value), np.asarray([value]), np.asarray(str(value)),
                                                       np.asarray(value, dtype=np.float16), np.asarray(-1)]))
    else:
        arrays["vocabulary"] = draw(st.sampled_from([np.arange(N_TERMS), np.array(["a"] * (N_TERMS + 1)),
                                                     np.array([["a"] * N_TERMS]), np.array(["t"] * N_TERMS)]))
    return kind, arrays, meta


# ----------------------------------------------------------------------------- the property
@pytest.mark.parametrize("case_id", CASE_IDS)
@settings(HYPO, max_examples=100)  # each example is one load (resume): cheap, so more than HYPO's 25
@given(data=st.data())
def test_property_a_corrupted_model_file_is_refused_or_loads_finite(case_id, data, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    _, arrays, meta = data.draw(corrupted_file(arrays, meta))
    check_load(write(tmp_path / "corrupt.npz", arrays, meta))


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_an_uncorrupted_file_loads_and_round_trips(case_id, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    model = check_load(write(tmp_path / "m.npz", arrays, meta))
    assert model is not None
    for key, value in arrays.items():
        if key == "attr__topic_labels_":  # stored as a str array, loaded as fit sets it: dtype object
            assert model.topic_labels_.dtype == object
            assert model.topic_labels_.tolist() == value.tolist() == ["topic_0", "topic_1", "topic_2"]
        elif key.startswith("attr__"):
            loaded = getattr(model, key[len("attr__"):])
            assert loaded.dtype == value.dtype
            np.testing.assert_array_equal(loaded, value)
    for key, value in meta["scalars"].items():
        assert getattr(model, key) == value


# ----------------------------------------------------------------------------- every array, every scalar
def _array_cases():
    return [pytest.param(case_id, key, id=f"{case_id}-{key[len('attr__'):]}")
            for case_id in CASE_IDS for key in sorted(_saved_keys(case_id)) if key.startswith("attr__")]


def _saved_keys(case_id):
    e, kw = CASES[CASE_IDS.index(case_id)]
    keys = ["attr__components_", "attr__bound_history_"]
    keys += ["attr__doc_topic_", "attr__topic_tokens_"] if e.class_name == "PLSA" else ["attr__doc_topic_prior_"]
    return keys + (["attr__validation_history_"] if kw.get("early_stopping") else [])


@pytest.mark.parametrize("case_id, key", _array_cases())
@pytest.mark.parametrize("bad", ["nan", "inf", "string", "float16", "object", "shape"])
def test_every_array_with_a_bad_entry_dtype_or_shape_is_refused_naming_file_and_array(case_id, key, bad, saved_dir,
                                                                                      tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    arr = arrays[key]
    if bad in ("nan", "inf"):
        arr = arr.copy()
        arr.flat[-1] = np.nan if bad == "nan" else np.inf
    elif bad == "string":
        arr = arr.astype(str)
    elif bad in ("float16", "object"):
        arr = arr.astype(bad)
    else:
        arr = arr[..., :-1] if arr.ndim > 1 else np.append(arr, arr[:1]).reshape(1, -1)
    arrays[key] = arr
    path = write(tmp_path / "bad.npz", arrays, meta)
    names = "Object arrays cannot be loaded" if bad == "object" else re.escape(key[len("attr__"):])
    with pytest.raises(ValueError, match=rf"bad\.npz.*{names}"):
        persistence.load(path)


def _scalar_cases():
    out = []
    for case_id in CASE_IDS:
        e, _ = CASES[CASE_IDS.index(case_id)]
        for spec in e.scalars:
            if spec.kind != "array_or_none":
                out.append(pytest.param(case_id, spec.name, id=f"{case_id}-{spec.name}"))
    return out


@pytest.mark.parametrize("case_id, key", _scalar_cases())
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1, "3", None, True, [1], 10**400, 1e308])
def test_every_scalar_with_a_bad_value_is_refused_naming_file_and_scalar(case_id, key, bad, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    if bad is None and entry(CASES[CASE_IDS.index(case_id)][0].class_name).scalar_spec(key).kind == "positive_or_none":
        return  # None is a valid value of this attribute (PLSA without a topic-word prior)
    meta["scalars"][key] = bad
    with pytest.raises(ValueError, match=rf"bad\.npz.*{key}"):
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("name", UNKNOWN_NAMES)
def test_unknown_scalar_names_are_refused_and_never_shadow_a_method(case_id, name, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    meta["scalars"][name] = 1
    with pytest.raises(ValueError, match=rf"bad\.npz' holds unknown fitted attribute\(s\) '{re.escape(name)}'"):
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))
    arrays, meta = saved(case_id, saved_dir)
    arrays["attr__" + name] = np.ones(3)
    with pytest.raises(ValueError, match=rf"bad\.npz' holds unknown fitted attribute\(s\) '{re.escape(name)}'"):
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_a_missing_attribute_is_refused_naming_it(case_id, saved_dir, tmp_path):
    e, _ = CASES[CASE_IDS.index(case_id)]
    for name in e.required:
        arrays, meta = saved(case_id, saved_dir)
        arrays.pop("attr__" + name, None)
        meta["scalars"].pop(name, None)
        with pytest.raises(ValueError, match=rf"bad\.npz' lacks the fitted attribute\(s\) {name}"):
            persistence.load(write(tmp_path / "bad.npz", arrays, meta))


# ----------------------------------------------------------------------------- the examples of issue #19
LDA_CASES = [c for c in CASE_IDS if not c.startswith("plsa")]


@pytest.mark.parametrize("case_id", LDA_CASES)
@pytest.mark.parametrize("value, match", [
    (np.nan, r"doc_topic_prior_ must be finite; entry 0 is nan"),
    (-0.5, r"doc_topic_prior_ must be positive, from \S+ to \S+ for a float\d\d model; entry 0 is -0.5"),
    (0.0, r"doc_topic_prior_ must be positive"),
])
def test_issue_19_a_nan_negative_or_zero_doc_topic_prior_is_refused(case_id, value, match, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    arrays["attr__doc_topic_prior_"][0] = value
    with pytest.raises(ValueError, match=r"bad\.npz' has inconsistent shapes or values: " + match):
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("fill, match", [
    (0.0, r"components_ must (be positive|hold probability distributions \(each row summing to 1\); row 0 sums "
          r"to 0\.0)"),
    (1e308, r"components_ must (be positive|be finite as float32|hold probabilities)"),
    (1e200, r"components_ must (be positive|be finite as float32|hold probabilities)"),
])
def test_issue_19_all_zero_or_huge_components_are_refused(case_id, fill, match, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    arrays["attr__components_"] = np.full(arrays["attr__components_"].shape, fill)
    with pytest.raises(ValueError, match=r"bad\.npz' has inconsistent shapes or values: " + match):
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))


@pytest.mark.parametrize("case_id", CASE_IDS)
@pytest.mark.parametrize("dtype", ["str", "float16", "int64", "complex128"])
def test_issue_19_string_or_float16_components_are_refused_before_numba(case_id, dtype, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    arrays["attr__components_"] = with_dtype(arrays["attr__components_"], dtype)
    with pytest.raises(ValueError, match=r"bad\.npz' has inconsistent shapes or values: components_ must hold "
                                         r"float32 or float64 numbers, got dtype") as info:
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))
    assert_not_numba(info.value)


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_issue_19_a_scalar_named_transform_is_refused(case_id, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    meta["scalars"]["transform"] = 5
    with pytest.raises(ValueError, match=r"bad\.npz' holds unknown fitted attribute\(s\) 'transform' for a \w+; a "
                                         r"\w+ file may hold .*components_"):
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))


@pytest.mark.parametrize("param, value, match", [
    ("n_components", 0, r"n_components"),
    ("n_components", "two", r"n_components"),
    ("n_components", 5, r"components_ does not match n_components x n_features_in_ \(components_ is \(3, 8\), "
                        r"expected \(5, 8\)\)"),
    ("dtype", "float16", r"dtype"),
    ("doc_topic_prior", float("nan"), r"doc_topic_prior"),
])
def test_bad_parameters_in_a_file_are_refused(param, value, match, saved_dir, tmp_path):
    arrays, meta = saved("batch", saved_dir)
    meta["params"][param] = value
    with pytest.raises(ValueError, match=r"bad\.npz.*" + match):
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))


@pytest.mark.parametrize("param, value", [("max_doc_update_iter", 10**30), ("n_jobs", -10**30), ("tol", float("nan")),
                                          ("doc_topic_prior", [0.1, float("inf"), 0.1]), ("random_state", "seed"),
                                          ("random_state", -1)])
def test_parameters_no_fit_could_have_had_are_refused(param, value, saved_dir, tmp_path):
    arrays, meta = saved("batch", saved_dir)
    meta["params"][param] = value
    with pytest.raises(ValueError, match=r"bad\.npz' has an invalid or inconsistent parameter: "):
        persistence.load(write(tmp_path / "bad.npz", arrays, meta))


@pytest.mark.parametrize("case_id", ["online", "scvb0"])
def test_a_loaded_streaming_model_continues_with_partial_fit(case_id, saved_dir, tmp_path):
    """A file written before the random stream was saved: a loaded model starts one from its random_state."""
    arrays, meta = saved(case_id, saved_dir)
    del meta["random_state_"]
    model = check_load(write(tmp_path / "m.npz", arrays, meta))
    model.partial_fit(new_counts())
    assert model.n_batch_iter_ > meta["scalars"]["n_batch_iter_"]
    check_load(persistence.save(model, tmp_path / "again.npz"))


def test_a_scalar_stored_as_a_0d_array_still_loads(saved_dir, tmp_path):
    arrays, meta = saved("batch", saved_dir)
    arrays["attr__topic_word_prior_"] = np.asarray(meta["scalars"].pop("topic_word_prior_"))
    model = check_load(write(tmp_path / "m.npz", arrays, meta))
    assert isinstance(model.topic_word_prior_, float)


@pytest.mark.parametrize("case_id", ["batch-float32", "collapsed-float32"])
def test_float64_arrays_are_cast_to_a_float32_model(case_id, saved_dir, tmp_path):
    arrays, meta = saved(case_id, saved_dir)
    arrays["attr__components_"] = arrays["attr__components_"].astype(np.float64)
    model = check_load(write(tmp_path / "m.npz", arrays, meta))
    assert model.components_.dtype == np.float32
    arrays["attr__components_"][0, 0] = 1e39  # finite in float64, not in float32
    with pytest.raises(ValueError, match=r"m\.npz' .*components_ must be finite as float32 \(the model's dtype\); "
                                         r"entry \(0, 0\) is 1e\+39"):
        persistence.load(write(tmp_path / "m.npz", arrays, meta))


# ----------------------------------------------------------------------------- the value limits hold
@pytest.mark.parametrize("case_id", LDA_CASES)
def test_the_extreme_values_the_validator_accepts_give_finite_results(case_id, saved_dir, tmp_path):
    """Every combination of the smallest and largest accepted topic-word weights and priors (whole arrays,
    and a large weight among small ones) loads, and transform, score and top_words stay finite."""
    arrays, meta = saved(case_id, saved_dir)
    low, high = VALUE_LIMITS[np.dtype(meta["params"]["dtype"])]
    shape = arrays["attr__components_"].shape
    for comp, alpha, eta in itertools.product(["low", "high", "mixed"], ["low", "high", "mixed"], [low, high]):
        values = {"low": np.full(shape, low), "high": np.full(shape, high), "mixed": np.full(shape, low)}[comp]
        if comp == "mixed":
            values[:, 0] = high
        arrays["attr__components_"] = values.astype(arrays["attr__components_"].dtype)
        prior = np.full(3, high if alpha == "high" else low)
        prior[0] = high if alpha != "low" else low
        arrays["attr__doc_topic_prior_"] = prior
        meta["scalars"]["topic_word_prior_"] = eta
        assert check_load(write(tmp_path / "m.npz", arrays, meta)) is not None, (comp, alpha, eta)


def test_a_file_written_before_the_letters_only_default_keeps_its_token_rule(tmp_path):
    # model files from before Tokenizer(alphabetic=...) existed were counted with the old rule (digits
    # and letters mixed kept): loading them must not switch to the new letters-only default
    import topicvb
    from topicvb import PLSA, Tokenizer, Vectorizer, make_topic_pipeline

    texts = ["model x11 runs on a 486dx board", "the x11 server and the board", "a board model runs"] * 4
    pipe = make_topic_pipeline(Vectorizer(tokenizer=Tokenizer(alphabetic=False, min_length=2)),
                               PLSA(2, max_iter=3, random_state=0)).fit(texts)
    path = topicvb.save(pipe, tmp_path / "new.npz")
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays.pop("meta")[()]))
    old_meta = json.loads(json.dumps(meta))
    tokenizer_record = [v for v in _records_with_key(old_meta, "alphabetic")]
    assert tokenizer_record, "the record stores the tokenizer's alphabetic flag"
    for record in tokenizer_record:
        del record["alphabetic"]
    old = topicvb.load(write(tmp_path / "old.npz", arrays, old_meta))
    vec = old.steps[0][1]
    assert vec.tokenizer.alphabetic is False
    assert "x11" in vec.get_feature_names_out()


def _records_with_key(node, key):
    """Every dict inside a JSON record that has ``key``."""
    if isinstance(node, dict):
        if key in node:
            yield node
        for value in node.values():
            yield from _records_with_key(value, key)
    elif isinstance(node, list):
        for value in node:
            yield from _records_with_key(value, key)


# ---------------------------------------------------------------------------------- found by an edge-case hunt
def test_feature_names_of_a_dataframe_survive_save_and_load(tmp_path):
    # (before, the file kept the column names only as its vocabulary: the loaded model had no feature_names_in_,
    # so top_words showed column numbers and transform took reordered columns silently)
    pd = pytest.importorskip("pandas")
    from topicvb import BatchLDA

    X = train_counts().toarray()
    names = [f"word{j}" for j in range(N_TERMS)]
    frame = pd.DataFrame(X, columns=names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = BatchLDA(2, max_iter=3, random_state=0).fit(frame)
    loaded = persistence.load(persistence.save(model, tmp_path / "m.npz"))
    assert list(loaded.feature_names_in_) == names and loaded.feature_names_in_.dtype == object
    assert loaded.top_words(3) == model.top_words(3)
    np.testing.assert_array_equal(loaded.transform(frame), model.transform(frame))
    with pytest.raises(ValueError, match="feature names should match"):
        loaded.transform(frame[names[::-1]])
    plain = persistence.load(persistence.save(BatchLDA(2, max_iter=3, random_state=0).fit(X), tmp_path / "p.npz"))
    assert not hasattr(plain, "feature_names_in_")


def test_a_file_of_a_few_bytes_is_no_archive_and_save_refuses_a_folder(tmp_path):
    for size in (1, 3):  # (before: numpy's advice to load it "unsafely" with allow_pickle)
        (tmp_path / "tiny.npz").write_bytes(b"\x80" * size)
        with pytest.raises(ValueError, match=r"tiny\.npz' is not a topicvb model file \(not an \.npz archive\)"):
            persistence.load(tmp_path / "tiny.npz")
    from topicvb import BatchLDA

    model = BatchLDA(2, max_iter=2, random_state=0).fit(train_counts())
    folder = tmp_path / "models"
    folder.mkdir()
    for target in (folder, str(folder) + "/"):  # (before: written as models.npz beside the folder)
        with pytest.raises(IsADirectoryError, match=r"models' is a folder; give the path of a file"):
            persistence.save(model, target)
    (tmp_path / "m.npz").mkdir()
    with pytest.raises(IsADirectoryError, match=r"m\.npz' is a folder"):
        persistence.save(model, tmp_path / "m")
    assert not list(tmp_path.glob("*.npz.*")) and list(folder.iterdir()) == []


def test_save_refuses_what_load_would_refuse(tmp_path):
    # (before, a model holding a value beyond the load limits was written, and load then refused the file)
    from topicvb import BatchLDA

    model = BatchLDA(2, max_iter=2, random_state=0).fit(train_counts())
    model.components_[0, 3] = VALUE_LIMITS[np.dtype(np.float64)][1] * 10
    with pytest.raises(ValueError, match=r"save: BatchLDA not saved, since topicvb.load would refuse the file: .*"
                                         r"components_"):
        persistence.save(model, tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("name", ["OnlineLDA", "StochasticCollapsedLDA"])
def test_a_loaded_streaming_model_continues_partial_fit_as_the_saved_one(name, tmp_path):
    """The random stream partial_fit continues is saved: the loaded model's next mini-batches are the ones the saved
    model would have drawn (before: the stream restarted from random_state, OnlineLDA's topics differed by 4)."""
    e = entry(name)
    X = sp.csr_matrix(np.random.RandomState(1).poisson(1.0, (40, N_TERMS)).astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = e.cls(3, random_state=0, n_jobs=1, batch_size=7).partial_fit(X[:20])
        loaded = persistence.load(persistence.save(model, tmp_path / "m.npz"))
        for m in (model, loaded):
            m.partial_fit(X[20:])
    np.testing.assert_array_equal(loaded.components_, model.components_)
    np.testing.assert_array_equal(loaded.random_state_.get_state()[1], model.random_state_.get_state()[1])


@pytest.mark.parametrize("record", [[1, 2], {"keys": [0] * 623, "pos": 0, "has_gauss": 0, "cached_gaussian": 0.0},
                                    {"keys": [0] * 624, "pos": 625, "has_gauss": 0, "cached_gaussian": 0.0},
                                    {"keys": [-1] + [0] * 623, "pos": 0, "has_gauss": 0, "cached_gaussian": 0.0},
                                    {"keys": [0] * 624, "pos": 0, "has_gauss": 2, "cached_gaussian": 0.0},
                                    {"keys": [0] * 624, "pos": 0, "has_gauss": 0}])
def test_an_invalid_random_stream_record_is_refused(record, saved_dir, tmp_path):
    arrays, meta = saved("online", saved_dir)
    meta["random_state_"] = record
    with pytest.raises(ValueError, match=r"m\.npz' has an invalid random_state_ record"):
        persistence.load(write(tmp_path / "m.npz", arrays, meta))


def test_foreign_archives_are_refused_naming_the_file(saved_dir, tmp_path):
    """A hunt: a zip whose member is not a .npy array (numpy gives its raw bytes) gave a TypeError, and a metadata
    record nested beyond the JSON parser's depth a RecursionError."""
    import zipfile

    with zipfile.ZipFile(tmp_path / "a.npz", "w") as z:
        z.writestr("meta.npy", b"not an npy array")
    with pytest.raises(ValueError, match=r"a\.npz' is not a topicvb model file \(its member 'meta' is not a NumPy "
                                         r"array\)"):
        persistence.load(tmp_path / "a.npz")
    arrays, meta = saved("batch", saved_dir)
    path = write(tmp_path / "b.npz", arrays, meta)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("attr__extra.npy", b"raw bytes")
    with pytest.raises(ValueError, match=r"b\.npz' is not a topicvb model file \(its member 'attr__extra' is not"):
        persistence.load(path)
    with pytest.raises(ValueError, match=r"c\.npz' is not a readable topicvb model file \(its metadata record is "
                                         r"nested too deeply\)"):
        persistence.load(write(tmp_path / "c.npz", {}, "[" * 100_000 + "]" * 100_000))


def test_loading_a_model_fitted_with_random_state_none_leaves_numpys_global_stream_alone(tmp_path):
    """A review: a model fitted with random_state=None draws from NumPy's global RandomState, which its file records;
    load restored that record into the global stream itself, reseeding the user's np.random."""
    X = sp.csr_matrix(np.random.RandomState(1).poisson(1.0, (20, N_TERMS)).astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = persistence.save(entry("OnlineLDA").cls(3, batch_size=10, n_jobs=1).partial_fit(X), tmp_path / "m.npz")
    np.random.seed(123)
    expected = np.random.rand(3)
    np.random.seed(123)
    model = persistence.load(path)
    np.testing.assert_array_equal(np.random.rand(3), expected)
    assert model.random_state_ is not np.random.mtrand._rand
