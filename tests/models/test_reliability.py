"""Checkpoints and resumption after a killed process, a clean stop on Ctrl-C, determinism."""

import os
import signal
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from process_helpers import ctrl_c_reaches
from topicvb.datasets import make_lda_corpus
from topicvb.models import HDP, PLSA, BatchLDA, CollapsedLDA, OnlineLDA

CORPUS = "make_lda_corpus(3000, 400, 10, doc_length=120, random_state=5).corpus.X"
PARAMS = {
    "BatchLDA": "n_components=10, max_iter=40, tol=0, random_state=0",
    "OnlineLDA": "n_components=10, max_iter=40, tol=0, batch_size=500, random_state=0",
    "PLSA": "n_components=10, max_iter=60, tol=0, random_state=0",
    "CollapsedLDA": "n_components=10, max_iter=60, tol=0, random_state=0",
    # (the prior step and the objective beside the sweep: a checkpoint holds one objective fewer than sweeps)
    "CollapsedLDA-learned": "n_components=10, max_iter=60, tol=0, random_state=0, learn_priors=True, prior_burn_in=2",
    "HDP": "max_components=14, max_iter=50, tol=0, random_state=0",  # (merges at 30 and 50; the refit after)
}


def _start(script, tmp_path):
    path = tmp_path / "child.py"
    path.write_text(textwrap.dedent(script))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(ctrl_c_reaches([sys.executable, str(path)]), stderr=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)


def _wait_for_iteration(proc, n, timeout=300):
    """Read the child's verbose lines until iteration n is reported."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        if f"iter {n}/" in line:
            return
    proc.kill()
    raise AssertionError(f"child never reported iteration {n}: {proc.stderr.read()[-2000:]}")


@pytest.mark.parametrize("name", list(PARAMS))
def test_resume_after_the_process_was_killed_gives_the_uninterrupted_result(name, tmp_path):
    ckpt = tmp_path / "fit.ckpt.npz"
    model = name.split("-")[0]
    proc = _start(f"""
        from topicvb.datasets import make_lda_corpus
        from topicvb.models import {model}
        X = {CORPUS}
        {model}({PARAMS[name]}, verbose=1, checkpoint_path={str(ckpt)!r}).fit(X)
    """, tmp_path)
    _wait_for_iteration(proc, 3)
    proc.send_signal(signal.SIGKILL)  # no chance to clean up: the last complete checkpoint must be intact
    proc.wait(timeout=60)
    assert ckpt.exists()
    X = eval(CORPUS, {"make_lda_corpus": make_lda_corpus})
    cls = {"BatchLDA": BatchLDA, "OnlineLDA": OnlineLDA, "PLSA": PLSA, "CollapsedLDA": CollapsedLDA, "HDP": HDP}[model]
    params = eval(f"dict({PARAMS[name]})")
    resumed = cls(**params, checkpoint_path=ckpt).fit(X, resume=True)
    straight = cls(**params).fit(X)
    assert resumed.n_iter_ == straight.n_iter_
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)


def test_ctrl_c_stops_after_the_current_iteration(tmp_path):
    proc = _start(f"""
        import warnings, numpy as np
        from topicvb.datasets import make_lda_corpus
        from topicvb.models import BatchLDA
        X = {CORPUS}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = BatchLDA({PARAMS["BatchLDA"]}, verbose=1).fit(X)
        print("n_iter", model.n_iter_, len(model.bound_history_), bool(np.all(np.isfinite(model.components_))))
        print("warned", any("interrupted" in str(w.message) for w in caught))
    """, tmp_path)
    _wait_for_iteration(proc, 3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-2000:]
    n_iter_line = [line for line in out.splitlines() if line.startswith("n_iter")][0].split()
    n_iter, n_hist, finite = int(n_iter_line[1]), int(n_iter_line[2]), n_iter_line[3]
    assert 3 <= n_iter < 40 and n_hist == n_iter and finite == "True"
    assert "warned True" in out


def test_resume_errors(tmp_path, block_corpus):
    with pytest.raises(ValueError, match="fit\\(resume=True\\) needs checkpoint_path"):
        BatchLDA(3).fit(block_corpus, resume=True)
    with pytest.raises(FileNotFoundError, match="No checkpoint to resume from"):
        BatchLDA(3, checkpoint_path=tmp_path / "none.npz").fit(block_corpus, resume=True)
    ckpt = tmp_path / "c.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        BatchLDA(3, max_iter=2, checkpoint_path=ckpt).fit(block_corpus)
        with pytest.raises(ValueError, match=r"written for other data \(the same parameters\)"):
            BatchLDA(3, max_iter=4, checkpoint_path=ckpt).fit(block_corpus[:30], resume=True)
        with pytest.raises(ValueError, match=r"written for other parameters \(n_components=3 then, 4 now\)"):
            BatchLDA(4, max_iter=4, checkpoint_path=ckpt).fit(block_corpus, resume=True)
    ckpt.write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(ValueError, match="is not a readable topicvb checkpoint"):
        BatchLDA(3, max_iter=4, checkpoint_path=ckpt).fit(block_corpus, resume=True)
    with pytest.raises(ValueError, match=r"checkpoint_every must be an int in \[1, 2147483647\], got 0\."):
        BatchLDA(3, checkpoint_every=0, checkpoint_path=ckpt).fit(block_corpus)


@pytest.mark.parametrize("kind", ["ignored", "own handler"])
def test_a_fit_leaves_a_programs_own_sigint_handling_alone(kind):
    """Where the program ignores Ctrl-C or handles SIGINT itself, a fit does not take the signal from it (it had
    replaced the handler for the fit: a first Ctrl-C stopped an ignoring program's fit early, and never reached a
    program's own handler)."""
    import threading

    from topicvb.models._checkpoint import interruptible

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set from the main thread only")
    seen = []
    own = signal.SIG_IGN if kind == "ignored" else (lambda signum, frame: seen.append(signum))
    before = signal.signal(signal.SIGINT, own)
    try:
        with interruptible("BatchLDA") as flag:
            assert signal.getsignal(signal.SIGINT) is own
            signal.raise_signal(signal.SIGINT)
        assert not flag.requested
        assert seen == ([] if kind == "ignored" else [signal.SIGINT])
        assert signal.getsignal(signal.SIGINT) is own
    finally:
        signal.signal(signal.SIGINT, before)


def test_with_pythons_own_handler_a_fit_takes_the_first_ctrl_c_and_gives_it_back():
    import threading

    from topicvb.models._checkpoint import interruptible

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set from the main thread only")
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.warns(RuntimeWarning, match="was interrupted"):
            with interruptible("BatchLDA") as flag:
                assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
                signal.raise_signal(signal.SIGINT)  # (the first: only asks the fit to stop)
                assert flag.requested
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
