"""topicvb._jit: which kernels an estimator needs, whether they are compiled, and the first-run notice."""

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from topicvb import _jit


def _python(code, **env):
    """Run ``code`` in a fresh interpreter; return its last stdout line parsed as JSON. It runs in this test
    folder, so that ``python -c`` imports the topicvb this process imports (from the repository root it
    would import the checkout's ./topicvb instead of the installed package, and compile its own kernels)."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=600, cwd=Path(__file__).parent)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_every_listed_kernel_is_a_cached_numba_kernel():
    for name in _jit.KERNELS:
        for kernel in _jit.kernel_names(name):
            d = _jit._dispatcher(kernel)
            assert hasattr(d, "overloads") and not d.targetoptions.get("parallel"), kernel
            assert d._cache._cache_file is not None  # cache=True


def test_unknown_estimators_and_phases_are_rejected():
    with pytest.raises(ValueError, match="estimator must be one of"):
        _jit.kernel_names("LDA")
    with pytest.raises(ValueError, match="phases must hold only"):
        _jit.kernel_names("PLSA", ["score"])
    from topicvb import PLSA

    assert _jit.kernel_names(PLSA) == _jit.kernel_names(PLSA()) == _jit.kernel_names("PLSA")


def test_the_lists_hold_every_kernel_a_fit_and_transform_call():
    # every kernel requested from Python (a compile or cache-load request outside another compilation)
    # during a fit and a transform must be listed, or is_compiled could say yes while a fit still compiles
    out = _python("""
        import json, threading, warnings
        from numba.core.dispatcher import Dispatcher
        depth, calls = threading.local(), []
        original = Dispatcher.compile

        def compile(self, sig):
            d = getattr(depth, "d", 0)
            if d == 0:
                calls.append(self.py_func.__module__.replace("topicvb._kernels.", "") + "." + self.py_func.__name__)
            depth.d = d + 1
            try:
                return original(self, sig)
            finally:
                depth.d = d

        Dispatcher.compile = compile
        import topicvb
        from topicvb.datasets import make_lda_corpus
        X = make_lda_corpus(120, 60, 4, random_state=0).corpus.X
        seen = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, params in [("BatchLDA", {}), ("OnlineLDA", {"batch_size": 32}), ("PLSA", {}),
                                 ("CollapsedLDA", {"learn_priors": True}), ("StochasticCollapsedLDA", {}),
                                 ("HDP", {})]:
                del calls[:]
                getattr(topicvb, name)(4, max_iter=15, random_state=0, **params).fit(X).transform(X[:10])
                seen[name] = sorted(set(calls))
        print(json.dumps(seen))
    """)
    for name, kernels in out.items():
        assert kernels, name
        missing = set(kernels) - set(_jit.kernel_names(name))
        assert not missing, f"{name} calls {sorted(missing)}, not in topicvb._jit.KERNELS"


def test_the_cache_check_sees_compiled_kernels_in_a_new_process(tmp_path):
    # an empty cache: everything is due; after one fit in another process, the kernels that fit used come
    # from the disk cache (no compilation, no notice); the others (moves, not tried in 2 passes) are still due
    code = """
        import json, logging, warnings, io
        import topicvb
        from topicvb import _jit
        from topicvb.datasets import make_lda_corpus
        X = make_lda_corpus(80, 50, 3, random_state=0).corpus.X
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        logging.getLogger("topicvb._jit").addHandler(handler)
        logging.getLogger("topicvb._jit").setLevel(logging.INFO)
        before = _jit.uncompiled("StochasticCollapsedLDA", ["fit"])
        with warnings.catch_warnings(), _jit.estimator_notice("StochasticCollapsedLDA") as notice:
            warnings.simplefilter("ignore")
            topicvb.StochasticCollapsedLDA(3, max_iter=2, random_state=0).fit(X)
        used = [k for k in _jit.kernel_names("StochasticCollapsedLDA", ["fit"]) if _jit._dispatcher(k).overloads]
        print(json.dumps({"before": before, "compiled": notice.done, "log": stream.getvalue(), "used": used,
                          "ready": _jit.is_compiled("StochasticCollapsedLDA", ["fit"])}))
    """
    first = _python(code, NUMBA_CACHE_DIR=str(tmp_path))
    listed = _jit.kernel_names("StochasticCollapsedLDA", ["fit"])
    assert first["before"] == listed and not first["ready"]
    assert first["compiled"] >= len(first["used"]) >= 3
    assert _jit.MESSAGE in first["log"] and f"compiled kernel 1/{len(listed)} " in first["log"]
    second = _python(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert second["before"] == [k for k in listed if k not in first["used"]]
    assert second["compiled"] == 0 and second["log"] == ""


def test_a_first_fit_says_it_is_compiling_and_a_later_one_does_not(tmp_path):
    # the estimators' own fit wraps itself in the notice: the one-time compilation is logged (INFO, the models'
    # logger) and, with verbose, shown on stderr kernel by kernel; from the cache, neither
    code = """
        import json, logging, warnings, io, contextlib
        import topicvb
        from topicvb.datasets import make_lda_corpus
        X = make_lda_corpus(80, 50, 3, random_state=0).corpus.X
        stream = io.StringIO()
        log = logging.getLogger("topicvb.models")
        log.addHandler(logging.StreamHandler(stream))
        log.setLevel(logging.INFO)
        err = io.StringIO()
        with warnings.catch_warnings(), contextlib.redirect_stderr(err):
            warnings.simplefilter("ignore")
            topicvb.StochasticCollapsedLDA(3, max_iter=2, random_state=0, verbose=1).fit(X)
        print(json.dumps({"log": stream.getvalue(), "stderr": err.getvalue()}))
    """
    first = _python(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert _jit.MESSAGE + " (StochasticCollapsedLDA)" in first["log"]
    assert "StochasticCollapsedLDA  compiling kernels (first run only): 1/" in first["stderr"]
    second = _python(code, NUMBA_CACHE_DIR=str(tmp_path))
    assert _jit.MESSAGE not in second["log"] and "compiling kernels" not in second["stderr"]
    assert "iter 1/2" in second["stderr"]  # (verbose still reports the iterations)


def test_the_notice_speaks_only_when_something_compiles(caplog):
    @njit  # (a new function: never compiled, not cached)
    def fresh(x):
        return x + 1.0

    reports = []
    with caplog.at_level(logging.INFO, logger="topicvb._jit"):
        with _jit.compile_notice("test", expected=1, progress=lambda *a: reports.append(a)) as notice:
            assert fresh(np.float64(1.0)) == 2.0
        assert notice.done == 1
        assert caplog.messages[0] == _jit.MESSAGE + " (test)"
        assert caplog.messages[1].startswith("compiled kernel 1/1 ") and "fresh" in caplog.messages[1]
        assert caplog.messages[2].startswith("compiled 1 kernel(s) in ")
        assert reports and reports[0][:2] == (1, 1)
        caplog.clear()
        with _jit.compile_notice("test") as notice:
            fresh(np.float64(2.0))  # compiled already
        assert notice.done == 0 and caplog.messages == []
        with _jit.compile_notice("outer") as outer, _jit.compile_notice("inner") as inner:
            assert fresh(np.int64(1)) == 2.0  # a new signature: compiled, reported once, by the outer notice
        assert inner is outer and outer.done == 1
        assert caplog.messages[0] == _jit.MESSAGE + " (outer)" and len(caplog.messages) == 3


def test_the_command_line_hook_calls_back_around_each_compilation():
    @njit
    def other(x):
        return 2.0 * x

    calls = []
    with _jit.watch_compilation(lambda name: calls.append(("start", name)),
                                lambda name, seconds: calls.append(("end", name, seconds >= 0.0))):
        assert other(np.float64(2.0)) == 4.0
        other(np.float64(3.0))  # compiled already: no call
    assert [c[0] for c in calls] == ["start", "end"] and calls[1][2]
    assert calls[0][1].endswith(".other") and calls[0][1] == calls[1][1]


def test_precompile_leaves_the_kernels_of_the_named_estimators_compiled():
    import topicvb

    took = topicvb.precompile(["PLSA", "CollapsedLDA"])
    assert sorted(took) == ["CollapsedLDA", "PLSA"] and all(t > 0 for t in took.values())
    assert _jit.is_compiled("PLSA", ["transform"]) and _jit.is_compiled("CollapsedLDA", ["transform"])
    with pytest.raises(ValueError, match="estimator must be one of"):
        topicvb.precompile(["NoSuchModel"])


def _read_only_signatures():
    """(kernel, signature) of every compiled version, in this process, of any kernel of topicvb._kernels that
    takes a read-only array, and the number of compiled versions of all of them."""
    import importlib
    import pkgutil

    from numba.core import types
    from numba.core.dispatcher import Dispatcher

    import topicvb._kernels as kernels

    out, n_compiled = set(), 0
    for info in pkgutil.iter_modules(kernels.__path__):
        module = importlib.import_module(f"topicvb._kernels.{info.name}")
        for attr, d in vars(module).items():
            if isinstance(d, Dispatcher):
                n_compiled += len(d.signatures)
                for sig in d.signatures:
                    if any(isinstance(t, types.Array) and not t.mutable for t in sig):
                        out.add((f"{info.name}.{attr}", str(sig)))
    return out, n_compiled


@pytest.mark.parametrize("name", sorted(_jit.KERNELS))
def test_a_read_only_model_or_input_compiles_no_kernel_again(name, tmp_path):
    # numba types a read-only array apart from a writable one: a model loaded with joblib's mmap_mode="r" (its
    # fitted arrays are read-only memory maps) or read-only input would compile every kernel it reaches again
    # (about 10 s for the VB E-step); the estimators hand the kernels writable arrays instead
    import warnings

    import joblib
    import scipy.sparse as sp

    import topicvb
    from topicvb.datasets import make_lda_corpus

    X = make_lda_corpus(60, 30, 3, random_state=0).corpus.X
    before, _ = _read_only_signatures()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(topicvb, name)(3, max_iter=3, random_state=0).fit(X)
        joblib.dump(model, tmp_path / "m.pkl")
        loaded = joblib.load(tmp_path / "m.pkl", mmap_mode="r")
        assert isinstance(loaded.components_, np.memmap) and not loaded.components_.flags.writeable
        got = loaded.transform(X)
        np.testing.assert_allclose(got, model.transform(X), rtol=1e-12, atol=1e-15)
        loaded.score(X)
        if hasattr(loaded, "partial_fit"):
            loaded.partial_fit(X)
        for dtype in (X.dtype, np.float64):  # (float64 counts are used as they are, not copied: the seeded start
            read_only = sp.csr_matrix(X, dtype=dtype, copy=True)  # compiled its kernels for read-only data again)
            for a in (read_only.data, read_only.indices, read_only.indptr):
                a.flags.writeable = False
            getattr(topicvb, name)(3, max_iter=3, random_state=0).fit(read_only).transform(read_only)
            dense = X.toarray().astype(dtype)
            dense.flags.writeable = False
            getattr(topicvb, name)(3, max_iter=3, random_state=0).fit(dense).transform(dense)
    after, n_compiled = _read_only_signatures()
    assert n_compiled > 0  # (the kernels are numba's: with the JIT disabled this scan would see nothing;
    assert after - before == set()  # checked after the fits: a first test in a process has none before)


@pytest.mark.parametrize("name", ["BatchLDA", "OnlineLDA", "CollapsedLDA", "StochasticCollapsedLDA"])
def test_a_read_only_guided_model_compiles_no_kernel_again(name, tmp_path):
    # the same with a matrix topic-word prior (guided topics), also read-only after loading, and the evaluation
    # functions that take a loaded model or hold a read-only topic matrix
    import warnings

    import joblib

    import topicvb
    from topicvb.datasets import make_lda_corpus
    from topicvb.evaluation import FixedTopicModel, per_word_bound

    X = make_lda_corpus(60, 30, 3, random_state=0).corpus.X
    prior = np.full((3, X.shape[1]), 0.2)
    prior[0, :3] = 5.0
    before, _ = _read_only_signatures()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(topicvb, name)(3, max_iter=3, random_state=0, topic_word_prior=prior).fit(X)
        joblib.dump((model, FixedTopicModel(model.topic_word_distribution())), tmp_path / "m.pkl")
        loaded, fixed = joblib.load(tmp_path / "m.pkl", mmap_mode="r")
        assert not loaded.topic_word_prior_.flags.writeable and not fixed.doc_topic_prior_.flags.writeable
        np.testing.assert_allclose(loaded.transform(X), model.transform(X), rtol=1e-12, atol=1e-15)
        loaded.score(X)
        if name in ("BatchLDA", "OnlineLDA"):  # (the bound of the VB models)
            per_word_bound(loaded, X, include_topic_term=False)
            per_word_bound(loaded, X)
        if hasattr(loaded, "partial_fit"):
            loaded.partial_fit(X)
        np.testing.assert_allclose(fixed.transform(X), FixedTopicModel(model.topic_word_distribution()).transform(X))
    after, n_compiled = _read_only_signatures()
    assert n_compiled > 0  # (the kernels are numba's: with the JIT disabled this scan would see nothing;
    assert after - before == set()  # checked after the fits: a first test in a process has none before)
