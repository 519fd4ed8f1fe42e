"""The checkpoint validator (issue #19): a damaged or edited checkpoint is refused, naming the file and the
array, instead of resuming into a NaN model.

A real interrupted fit writes each checkpoint (``checkpoint_path`` with a small ``max_iter``); one array is
then corrupted (the strategies of ``tests/test_persistence_validation.py``: NaN, inf, negative, zero rows,
huge and tiny values, strings, float16, object and other dtypes, wrong shapes), and ``fit(resume=True)``
must either raise a ``ValueError`` naming the checkpoint file and leave the model exactly as it was, or
resume into a model whose attributes, ``transform`` and ``score`` are finite.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import pickle
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from bad_input_helpers import HYPO, PYTESTMARK, assert_not_numba
from bad_input_helpers import _hang_guard  # noqa: F401  (autouse fixture)
from hypothesis import given, settings
from hypothesis import strategies as st
from test_persistence_validation import corrupted_array, with_dtype

from topicvb.models import PLSA, BatchLDA, CollapsedLDA, OnlineLDA
from topicvb.models._checkpoint import CHECKPOINT_ARRAYS, check_checkpoint_arrays, fingerprint, load_checkpoint

pytestmark = PYTESTMARK

# every estimator that writes checkpoints, with the options that change what a checkpoint holds
CASES = {
    "plsa": (PLSA, {}),
    "plsa-early": (PLSA, {"early_stopping": True, "validation_fraction": 0.3, "n_iter_no_change": 5}),
    "batch": (BatchLDA, {}),
    "batch-float32": (BatchLDA, {"dtype": "float32"}),
    "collapsed": (CollapsedLDA, {}),
    "collapsed-cvb": (CollapsedLDA, {"variant": "cvb"}),
    "online": (OnlineLDA, {"batch_size": 4}),
}


def counts():
    return sp.csr_matrix(np.random.RandomState(1).poisson(1.0, (12, 7)).astype(float))


def make(case_id, **kw):
    cls, params = CASES[case_id]
    return cls(3, random_state=0, n_jobs=1, tol=0.0, **params, **kw)


@functools.lru_cache(maxsize=None)
def _written(case_id: str, folder: str):
    """The arrays of the checkpoint a 2-iteration fit writes, and that fitted model (read-only)."""
    path = f"{folder}/{case_id}.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make(case_id, max_iter=2, checkpoint_path=path).fit(counts())
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    return arrays, model


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("checkpoints"))


def written(case_id, folder):
    arrays, model = _written(case_id, folder)
    return {k: v.copy() for k, v in arrays.items()}, copy.deepcopy(model)


def write(path, arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def resume(model, path):
    """fit(resume=True) from ``path``: refused naming the file with the model unchanged, or a finite model."""
    model.set_params(checkpoint_path=str(path), max_iter=4)
    before = pickle.dumps(model)
    try:
        model.fit(counts(), resume=True)
    except ValueError as exc:
        assert path.name in str(exc), f"the message does not name the checkpoint: {exc}"
        assert_not_numba(exc)
        assert pickle.dumps(model) == before, "a refused resume changed the model"
        return exc
    X = counts()
    assert np.all(np.isfinite(model.components_)) and np.all(model.components_ >= 0)
    assert np.all(np.isfinite(model.bound_history_))
    doc_topic = model.transform(X)
    assert np.all(np.isfinite(doc_topic))
    np.testing.assert_allclose(doc_topic.sum(axis=1), 1.0, atol=1e-5)
    assert np.isfinite(model.score(X))
    return None


# ----------------------------------------------------------------------------- the property
@st.composite
def corrupted_checkpoint(draw, arrays: dict):
    keys = sorted(k for k in arrays if k != "checkpoint__meta")
    kind = draw(st.sampled_from(["array", "array", "array", "array", "drop", "swap"]))
    key = draw(st.sampled_from(keys))
    if kind == "array":
        arrays[key] = draw(corrupted_array(arrays[key]))
    elif kind == "drop":
        del arrays[key]
    else:  # another array of the checkpoint in its place (right dtype, maybe the right shape, wrong meaning)
        arrays[key] = arrays[draw(st.sampled_from(keys))].copy()
    return kind, key, arrays


@pytest.mark.parametrize("case_id", list(CASES))
@settings(HYPO, max_examples=60)  # each example is one load (resume): cheap, so more than HYPO's 25
@given(data=st.data())
def test_property_a_corrupted_checkpoint_is_refused_or_resumes_finite(case_id, data, folder, tmp_path):
    arrays, model = written(case_id, folder)
    _, _, arrays = data.draw(corrupted_checkpoint(arrays))
    resume(model, write(tmp_path / "corrupt.npz", arrays))


@pytest.mark.parametrize("case_id", list(CASES))
def test_an_untouched_checkpoint_resumes_as_the_uninterrupted_fit(case_id, folder, tmp_path):
    arrays, model = written(case_id, folder)
    assert resume(model, write(tmp_path / "ck.npz", arrays)) is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        straight = make(case_id, max_iter=4).fit(counts())
    np.testing.assert_array_equal(model.components_, straight.components_)


# ----------------------------------------------------------------------------- every array
def _float_arrays():
    table = {"plsa": "PLSA", "plsa-early": "PLSA", "batch": "BatchLDA", "batch-float32": "BatchLDA",
             "collapsed": "CollapsedLDA", "collapsed-cvb": "CollapsedLDA", "online": "OnlineLDA"}
    out = []
    for case_id, name in table.items():
        for spec in CHECKPOINT_ARRAYS[name]:
            if spec.dtype != "int" and (spec.required or case_id in ("plsa-early", "online")):
                if case_id == "collapsed" and spec.name in ("v_dk", "v_wk"):
                    continue  # empty for CVB0
                out.append(pytest.param(case_id, spec.name, id=f"{case_id}-{spec.name}"))
    return out


@pytest.mark.parametrize("case_id, key", _float_arrays())
@pytest.mark.parametrize("bad", ["nan", "inf", "string", "float16"])
def test_every_float_array_with_nan_inf_or_a_bad_dtype_is_refused_naming_it(case_id, key, bad, folder, tmp_path):
    """The issue's example: a checkpoint whose arrays hold NaN used to resume silently into a NaN model."""
    arrays, model = written(case_id, folder)
    arr = arrays[key].copy() if arrays[key].size else np.ones(1)
    if bad in ("nan", "inf"):
        arr.flat[-1] = np.nan if bad == "nan" else np.inf
    else:
        arr = with_dtype(arr, "str" if bad == "string" else "float16")
    exc = resume(model, write(tmp_path / "ck.npz", {**arrays, key: arr}))
    assert exc is not None and re.search(rf"ck\.npz' cannot be resumed: {key} must", str(exc)), exc


@pytest.mark.parametrize("case_id", list(CASES))
def test_every_missing_array_is_refused_naming_it(case_id, folder, tmp_path):
    arrays, _ = written(case_id, folder)
    # OnlineLDA: without doc_gamma the next pass restarts every document; without reseeded the resumed
    # fit takes its last pass as one that re-seeded no topic (as a checkpoint written before moves did)
    optional = {"doc_gamma", "reseeded"}
    for key in [k for k in arrays if k != "checkpoint__meta" and k not in optional]:
        _, model = written(case_id, folder)
        exc = resume(model, write(tmp_path / "ck.npz", {k: v for k, v in arrays.items() if k != key}))
        assert exc is not None and f"lacks the array(s) {key}" in str(exc), (key, exc)


@pytest.mark.parametrize("case_id, key, how, match", [
    ("batch", "lam", lambda a: a[:, :-1], r"lam does not match n_components x n_features_in_ \(lam is \(3, 6\), "
                                          r"expected \(3, 7\)\)"),
    ("batch", "gamma", lambda a: a[1:], r"gamma does not match n_docs x n_components"),
    ("batch", "alpha", lambda a: np.append(a, 1.0), r"alpha does not match n_components"),
    ("batch", "eta", lambda a: np.array([a, a]), r"eta does not match a single number"),
    ("online", "doc_gamma", lambda a: a.T.copy(), r"doc_gamma does not match n_docs x n_components"),
    ("collapsed", "gamma", lambda a: a[:-1], r"gamma does not match the non-zeros of X x n_components"),
    ("collapsed", "v_dk", lambda a: np.zeros((12, 3)), r"v_dk and v_wk must both have 0 rows|v_dk does not match"),
    ("collapsed-cvb", "v_wk", lambda a: a[:0], r"v_wk does not match"),
    ("collapsed-cvb", "v_wk", lambda a: a * 3 + 1, r"v_wk exceeds n_wk at entry"),
    ("collapsed", "n_dk", lambda a: a * 2, r"n_dk adds up to \S+ tokens, but X has"),
    ("collapsed", "n_wk", lambda a: np.zeros_like(a), r"n_wk adds up to 0 tokens, but X has"),
    ("collapsed", "gamma", lambda a: a * 0.5, r"gamma must hold probability distributions \(each row summing to 1\)"),
    ("plsa", "phi_t", lambda a: a.T.copy(), r"phi_t does not match n_features_in_ x n_components"),
    ("plsa", "phi_t", lambda a: a * 2, r"phi_t must hold probabilit"),
    ("plsa", "theta", lambda a: np.ones_like(a), r"theta must hold probability distributions \(each row summing"),
    ("plsa-early", "best_iter", lambda a: np.array(9), r"best_iter is 9"),
    ("plsa", "history", lambda a: np.append(a, 1.0), r"history holds 2 values, but a PLSA checkpoint at iteration 2 "
                                                     r"holds 1"),
    ("batch", "history", lambda a: a[:0], r"history holds 0 values, but a BatchLDA checkpoint at iteration 2"),
    ("batch", "iteration", lambda a: np.array(7), r"it is at iteration 7, past max_iter=4; resume with max_iter >= 7"),
    ("batch", "iteration", lambda a: np.array(-1), r"iteration must hold integers from 0"),
    ("batch", "iteration", lambda a: np.array(2.0), r"iteration must hold integers, got dtype float64"),
    ("online", "n_batch_iter", lambda a: a + 1, r"history holds 6 values, but n_batch_iter is 7"),
    ("online", "means", lambda a: a[:1], r"means holds 1 values, but a OnlineLDA checkpoint at iteration 2 holds 2"),
    ("batch", "rng__keys", lambda a: np.zeros_like(a), r"rng__keys is not a random generator state"),
    ("batch", "rng__scalars", lambda a: np.array([625, 0]), r"rng__scalars is not a random generator state"),
    ("batch", "lam", lambda a: np.full_like(a, 1e300), r"lam must be positive, from 1e-150 to 1e\+100 for a float64"),
    ("batch-float32", "lam", lambda a: np.full(a.shape, 1e20), r"lam must be positive, from 1e-15 to 1e\+15 for a "
                                                                r"float32 model"),
    ("batch", "alpha", lambda a: np.zeros_like(a), r"alpha must be positive"),
    ("batch", "eta", lambda a: np.array(-1.0), r"eta must be positive, .*its value is -1\.0"),
])
def test_inconsistent_checkpoints_are_refused_with_a_clear_message(case_id, key, how, match, folder, tmp_path):
    arrays, model = written(case_id, folder)
    exc = resume(model, write(tmp_path / "ck.npz", {**arrays, key: how(arrays[key])}))
    assert exc is not None and re.search(r"The checkpoint '.*ck\.npz' cannot be resumed: .*" + match, str(exc)), exc


def test_a_checkpoint_that_is_not_one_is_refused_naming_the_file(folder, tmp_path):
    arrays, model = written("batch", folder)
    meta = json.loads(str(arrays["checkpoint__meta"][()]))
    for bad_meta in ([1, 2], {**meta, "version": True}, {**meta, "format": "other"}):
        arrays["checkpoint__meta"] = np.asarray(json.dumps(bad_meta))
        exc = resume(model, write(tmp_path / "ck.npz", arrays))
        assert exc is not None and "is not a topicvb checkpoint" in str(exc)
    arrays, model = written("batch", folder)
    arrays["lam"] = arrays["lam"].astype(object)
    exc = resume(model, write(tmp_path / "ck.npz", arrays))
    assert exc is not None and "is not a readable topicvb checkpoint" in str(exc)


def test_without_the_fits_expectations_the_arrays_must_agree_with_each_other(folder):
    """A plain digest (no :class:`Fingerprint`) still gets every check that needs no model or X."""
    arrays, _ = written("batch", folder)
    arrays.pop("checkpoint__meta")
    checked = check_checkpoint_arrays(arrays)
    assert checked["rng__keys"].dtype == np.uint32 and checked["iteration"].dtype == np.int64
    with pytest.raises(ValueError, match=r"gamma does not match n_docs x n_components \(gamma is \(12, 4\), "
                                         r"expected \(12, 3\)\)"):
        check_checkpoint_arrays({**arrays, "gamma": np.ones((12, 4))})
    with pytest.raises(ValueError, match=r"holds none of the arrays a topicvb fit writes"):
        check_checkpoint_arrays({"x": np.ones(3)})


def test_the_fingerprint_carries_what_the_checkpoint_must_match(folder):
    model = make("collapsed-cvb")
    X = counts()
    fp = fingerprint(model, X)
    assert isinstance(fp, str) and len(fp) == 64 and json.loads(json.dumps(fp)) == fp
    assert fp.expected["estimator"] == "CollapsedLDA"
    assert fp.expected["dims"] == {"K": 3, "D": 12, "V": 7, "N": X.nnz, "Dv": 12, "Vv": 7}
    with pytest.raises(FileNotFoundError, match=r"No checkpoint to resume from"):
        load_checkpoint(f"{folder}/none.npz", fp)


# ---------------------------------------------------------------------------------- found by an edge-case hunt
def test_equal_parameters_of_another_type_resume_and_other_ones_are_named(tmp_path):
    # (before, np.float64(0.5) then 0.5, or 1 then 1.0, were "other parameters"; and the refusal named none)
    import warnings

    from topicvb import BatchLDA, make_lda_corpus

    X = make_lda_corpus(30, 20, 3, doc_length=15, random_state=0).corpus.X
    path = tmp_path / "ck.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        BatchLDA(3, doc_topic_prior=np.float64(0.5), topic_word_prior=1, max_iter=3, random_state=0,
                 checkpoint_path=path).fit(X)
        for alpha, eta in ((0.5, 1.0), (np.float32(0.5), np.int64(1))):
            BatchLDA(3, doc_topic_prior=alpha, topic_word_prior=eta, max_iter=3, random_state=0,
                     checkpoint_path=tmp_path / "other.npz").fit(X)  # (a checkpoint of its own, not overwritten)
            BatchLDA(3, doc_topic_prior=alpha, topic_word_prior=eta, max_iter=4, random_state=0,
                     checkpoint_path=path).fit(X, resume=True)
        with pytest.raises(ValueError, match=r"written for other parameters \(doc_topic_prior=0.5 then, 0.25 now\)"):
            BatchLDA(3, doc_topic_prior=0.25, topic_word_prior=1, max_iter=5, random_state=0,
                     checkpoint_path=path).fit(X, resume=True)
        with pytest.raises(ValueError, match=r"written for other data \(the same parameters\)"):
            BatchLDA(3, doc_topic_prior=0.5, topic_word_prior=1, max_iter=5, random_state=0,
                     checkpoint_path=path).fit(X[:20], resume=True)


@pytest.mark.parametrize("cls", [BatchLDA, CollapsedLDA])
def test_a_random_state_instance_resumes_as_the_uninterrupted_fit(cls, tmp_path):
    # (before, the fingerprint held the instance's repr, with its memory address: a fit with
    # random_state=np.random.RandomState(0) could never be resumed, in a new process or in the same one)
    import warnings

    from topicvb import make_lda_corpus

    X = make_lda_corpus(40, 20, 3, doc_length=15, random_state=0).corpus.X
    path = tmp_path / "ck.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = cls(3, max_iter=3, tol=0, random_state=np.random.RandomState(0), checkpoint_path=path).fit(X)
        resumed = cls(3, max_iter=6, tol=0, random_state=np.random.RandomState(0), checkpoint_path=path).fit(
            X, resume=True)  # (another instance: ``first`` holds its own alive, at another address)
        straight = cls(3, max_iter=6, tol=0, random_state=np.random.RandomState(0)).fit(X)
        assert resumed.n_iter_ == straight.n_iter_ == 6 and first.random_state is not resumed.random_state
        np.testing.assert_array_equal(resumed.components_, straight.components_)
        with pytest.raises(ValueError, match=r"written for other parameters \(random_state="):
            cls(3, max_iter=6, tol=0, random_state=0, checkpoint_path=path).fit(X, resume=True)


def test_a_checkpoint_path_that_cannot_be_a_file_is_refused_before_the_fit(tmp_path):
    # (before, a folder or a path below a file failed with a raw OSError after the first iteration)
    from topicvb import BatchLDA, make_lda_corpus

    X = make_lda_corpus(20, 10, 2, doc_length=10, random_state=0).corpus.X
    (tmp_path / "afile").write_text("x")
    model = BatchLDA(2, max_iter=3, checkpoint_path=tmp_path)
    with pytest.raises(IsADirectoryError, match=r"checkpoint_path: .* is a folder; give the path of a file"):
        model.fit(X)
    assert not hasattr(model, "components_")
    with pytest.raises(NotADirectoryError, match=r"checkpoint_path: cannot write .*afile' is not a folder"):
        BatchLDA(2, max_iter=3, checkpoint_path=tmp_path / "afile" / "ck.npz").fit(X)


def test_a_checkpoint_of_the_digest_before_values_were_normalised_still_resumes(tmp_path):
    # (a checkpoint written before 1 and 1.0 digested alike records no params and the digest of the values as
    # given: OnlineLDA's default learning_offset=10.0, now digested as 10, must not make it "other parameters")
    import warnings

    from topicvb import OnlineLDA, make_lda_corpus

    X = make_lda_corpus(30, 20, 3, doc_length=15, random_state=0).corpus.X
    path = tmp_path / "ck.npz"
    make = lambda n: OnlineLDA(3, max_iter=n, random_state=0, checkpoint_path=path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make(2).fit(X)
        model = make(2)
        fp = fingerprint(model, model._validate_counts(X, reset=True, caller="fit"))  # (X as fit digests it)
        assert fp.legacy != fp  # (10.0 is digested as 10 now)
        with np.load(path) as f:
            arrays = {k: f[k] for k in f.files}
        meta = json.loads(str(arrays["checkpoint__meta"][()]))
        del meta["params"]
        meta["fingerprint"] = fp.legacy
        arrays["checkpoint__meta"] = np.asarray(json.dumps(meta))
        np.savez(path, **arrays)
        resumed = make(4).fit(X, resume=True)
        straight = OnlineLDA(3, max_iter=4, random_state=0).fit(X)
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    meta["fingerprint"] = "0" * 64  # (another digest without params: other data or parameters, unnamed)
    arrays["checkpoint__meta"] = np.asarray(json.dumps(meta))
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=r"written for other data or other parameters"):
        make(4).fit(X, resume=True)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc, where no folder can be created")
@pytest.mark.parametrize("cls", [BatchLDA, CollapsedLDA])
def test_a_checkpoint_folder_where_no_file_can_be_written_is_refused_before_the_fit(cls, capsys):
    """A hunt: a folder that cannot be written was found out at the first checkpoint, after checkpoint_every
    iterations of work that the fit then lost, in an error naming a hidden temporary file."""
    model = cls(3, max_iter=50, tol=0.0, checkpoint_every=25, random_state=0, verbose=1,
                checkpoint_path="/proc/no-such-folder/ck.npz")
    with pytest.raises(ValueError, match=r"checkpoint_path: cannot write '/proc/no-such-folder/ck\.npz': no file can "
                                         r"be created in the folder '/proc/no-such-folder'"):
        model.fit(counts())
    assert not hasattr(model, "components_") and "iter" not in capsys.readouterr().err  # (no iteration ran)


@pytest.mark.parametrize("damage", ["compression-method", "npy-header", "raw-member"])
def test_a_checkpoint_damaged_in_its_zip_or_npy_structure_is_refused_naming_the_file(damage, folder, tmp_path):
    """A hunt: one byte of the zip directory (a member's compression method) gave NotImplementedError, one of a
    .npy header a TokenError or SyntaxError, a member that is not a .npy array a TypeError."""
    import zipfile

    arrays, model = written("batch", folder)
    path = write(tmp_path / "ck.npz", arrays)
    good = path.read_bytes()
    if damage == "compression-method":
        bad = bytearray(good)
        bad[good.index(b"PK\x01\x02") + 10] = 99
        path.write_bytes(bytes(bad))
    elif damage == "npy-header":  # an unclosed bracket in a member's header, written with a valid CRC
        with zipfile.ZipFile(path) as z:
            members = {name: z.read(name) for name in z.namelist()}
        first = next(iter(members))
        members[first] = members[first].replace(b"'fortran_order': False", b"'fortran_order':(False", 1)
        with zipfile.ZipFile(path, "w") as z:
            for name, data in members.items():
                z.writestr(name, data)
    else:
        with zipfile.ZipFile(path, "a") as z:
            z.writestr("extra.npy", b"raw bytes")
    exc = resume(model, path)
    assert exc is not None and "ck.npz' is not a readable topicvb checkpoint" in str(exc)


@pytest.mark.parametrize("case_id", ["batch", "collapsed", "plsa", "online"])
def test_a_checkpoint_past_a_numpy_int_max_iter_is_refused(case_id, folder, tmp_path):
    """A hunt: max_iter=np.int64(2) skipped the check that a checkpoint is not past max_iter (an int was refused),
    giving a model with n_iter_ above max_iter."""
    arrays, model = written(case_id, folder)
    path = write(tmp_path / "ck.npz", arrays)
    model.set_params(checkpoint_path=str(path), max_iter=np.int64(1))
    with pytest.raises(ValueError, match=r"past max_iter=1; resume with max_iter >= 2"):
        model.fit(counts(), resume=True)
