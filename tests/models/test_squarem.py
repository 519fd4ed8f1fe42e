"""SQUAREM cycles on CollapsedLDA's counts sweeps (acceleration="squarem", issue #18): the extrapolation against
its NumPy reference, the cycle's rules (an extrapolation that loses is undone, convergence is tested on whole
cycles), exact resumption mid-cycle, and the fit's answers against the plain sweeps'."""

import logging
import re

import numpy as np
import pytest

from topicvb import CollapsedLDA
from topicvb.datasets import make_lda_corpus
from topicvb.models import _squarem
from topicvb.models._squarem import extrapolate, step_length

import reference as ref

from collapsed_helpers import fit_counts, lda_corpus, recovery, resume_counts


@pytest.fixture
def states():
    rng = np.random.default_rng(0)
    a0 = rng.gamma(1.0, 2.0, size=(37, 6))
    a1 = a0 + rng.normal(0, 0.5, size=a0.shape)
    a2 = a1 + 0.6 * (a1 - a0) + rng.normal(0, 0.1, size=a0.shape)
    b0 = rng.gamma(1.0, 2.0, size=(11, 6))
    b1, b2 = b0 * 1.1, b0 * 1.15
    return (a0, b0), (np.maximum(a1, 0), b1), (np.maximum(a2, 0), b2)


@pytest.mark.parametrize("block", [4096, 5])
def test_the_step_and_the_extrapolation_match_the_formulas(states, block, monkeypatch):
    monkeypatch.setattr(_squarem, "BLOCK", block)  # (several blocks of rows, and one)
    x0, x1, x2 = states
    s = step_length(x0, x1, x2)
    assert s == pytest.approx(ref.squarem_step(x0, x1, x2), rel=1e-12)
    assert s < -1.0
    for a0, a1, a2 in zip(x0, x1, x2):
        want = ref.squarem_extrapolation(a0, a1, a2, s)
        got = np.empty_like(a2)
        extrapolate(a0, a1, a2, s, out=got)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        over = a0.copy()  # (written over the first state, as the fit does)
        extrapolate(over, a1, a2, s, out=over)
        np.testing.assert_array_equal(over, got)


def test_the_projection_keeps_counts_valid(states):
    (a0, _), (a1, _), (a2, _) = states
    a2 = a2.copy()
    a2[3] = a1[3] - 50 * (a1[3] - a0[3])  # (a row that a long step sends below 0 everywhere it moved)
    a2[3] = np.maximum(a2[3], 0.0)
    totals = a2.sum(axis=1)
    out = np.empty_like(a2)
    extrapolate(a0, a1, a2, -40.0, out=out)
    assert np.all(out >= 0.0)
    np.testing.assert_allclose(out.sum(axis=1), totals, rtol=1e-12)
    lost = np.maximum(a0 + 80.0 * (a1 - a0) + 1600.0 * (a2 - 2 * a1 + a0), 0.0).sum(axis=1) == 0
    np.testing.assert_array_equal(out[lost], a2[lost])  # (a row with nothing left keeps theta2's counts)


def test_no_curvature_is_a_plain_step():
    a = np.ones((4, 3))
    assert step_length((a,), (a,), (a,)) == -1.0
    assert step_length((a,), (2 * a,), (3 * a,)) == -1.0  # (on a line: v = 0)


@pytest.fixture(scope="module")
def corpus():
    return lda_corpus()


def _fit(X, **params):
    return fit_counts(X, **{"acceleration": "squarem", **params})


@pytest.mark.parametrize("learn_priors", [False, True])
def test_recovers_the_topics_and_the_plain_sweeps_optimum(corpus, learn_priors):
    X, topic_word = corpus
    fast = _fit(X, learn_priors=learn_priors)
    plain = _fit(X, learn_priors=learn_priors, acceleration=None)
    assert recovery(topic_word, fast.topic_word_distribution()) > 0.995
    assert abs(fast.score(X) - plain.score(X)) < 2e-3
    assert np.all(np.isfinite(fast.bound_history_))


STEP_LINE = re.compile(r"SQUAREM step (\S+) (kept|undone) in sweep (\d+) \(objective (\S+) after it, (\S+) before\)")


def test_an_extrapolation_is_kept_only_when_it_does_not_lose(corpus, caplog):
    """The objective after the sweep from an extrapolation is compared with theta2's: every kept step is at
    least theta2's, every undone one below it, and an undone step leaves the state exactly at theta2."""
    X, _ = corpus
    with caplog.at_level(logging.DEBUG, logger="topicvb.models.collapsed_lda"):
        model = _fit(X, n_components=12, init="random", learn_priors=True, max_iter=60, tol=0, moves=False)
    lines = [m for m in map(STEP_LINE.search, caplog.messages) if m]
    assert lines
    for m in lines:
        _, verdict, _, after, before = m.groups()
        assert (float(after) >= float(before)) == (verdict == "kept")
    assert model.n_iter_ == 60 and len(model.bound_history_) == 60  # (one objective per sweep)
    # a cycle's third sweep (i) reports theta2's objective (history[i - 2], the first sweep reporting none); when it
    # is undone the state is theta2 again, whose objective the next sweep reports once more
    undone = [int(m.group(3)) for m in lines if m.group(2) == "undone"]
    assert all(model.bound_history_[i - 2] == model.bound_history_[i - 1] for i in undone if i < 60)


@pytest.mark.parametrize("learn_priors", [False, True])
def test_convergence_is_tested_on_whole_cycles(corpus, learn_priors):
    """A fit that stops on its own stops on a cycle's third sweep; with learned priors the cycles start after the
    ``prior_burn_in`` sweeps (10)."""
    X, _ = corpus
    model = _fit(X, learn_priors=learn_priors, moves=False)
    assert (model.n_iter_ - (10 if learn_priors else 0)) % 3 == 0 and model.n_iter_ < 200


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_fit_left_above_the_fixed_point_by_a_kept_step_stops(seed):
    """CVB0 is no ascent on its objective: a kept extrapolation can leave the counts above the objective of the
    fixed point, which the sweeps after it then approach from above, falling a little every cycle (every later
    extrapolation is undone). The fit must stop when those falls are below tol, as a plain one stops on gains below
    it: the one-sided test waited for falls below rounding (121 to 300 sweeps on these corpora, to max_iter,
    against 25 to 29 plain ones)."""
    X = make_lda_corpus(300, 80, 5, doc_length=50, topic_word_prior=0.1, doc_topic_prior=0.3,
                        random_state=seed).corpus.X
    fast = fit_counts(X, n_components=5, acceleration="squarem", moves=False, max_iter=300, random_state=0)
    plain = fit_counts(X, n_components=5, acceleration=None, moves=False, max_iter=300, random_state=0)
    rel = np.diff(fast.bound_history_) / np.abs(fast.bound_history_[1:])
    assert np.any(rel < -1e-9)  # (the case: the objective fell after a kept step)
    assert fast.n_iter_ <= 2 * plain.n_iter_ + 6, (fast.n_iter_, plain.n_iter_)
    assert fast.n_iter_ % 3 == 0  # (on a cycle's third sweep)
    assert abs(fast.score(X) - plain.score(X)) < 2e-3


@pytest.mark.parametrize("burn_in", [4, 10])  # (4: not a multiple of 3, as 10)
def test_with_learned_priors_the_cycles_start_after_the_burn_in(corpus, burn_in, tmp_path):
    """The ``prior_burn_in`` sweeps before the priors are first learned are plain sweeps, bit for bit, and leave no
    copy of a cycle; the next sweep starts a cycle. Fixed priors cycle from the first sweep."""
    X, _ = corpus
    kw = dict(learn_priors=True, prior_burn_in=burn_in, tol=0, moves=False)
    plain = fit_counts(X, max_iter=burn_in + 1, **kw)
    fast = _fit(X, max_iter=burn_in + 1, **kw)
    # (the objectives after sweeps 1 to burn_in + 1: the first sweep of a cycle is a plain sweep too)
    np.testing.assert_array_equal(fast.bound_history_, plain.bound_history_)
    path = tmp_path / "ck.npz"
    for stop, copies in ((burn_in, 0), (burn_in + 1, 1), (burn_in + 2, 2)):
        _fit(X, max_iter=stop, checkpoint_path=path, **kw)
        with np.load(path) as saved:
            assert saved["cycle_dk"].shape[0] == copies, stop
        path.unlink()
    _fit(X, max_iter=1, tol=0, moves=False, checkpoint_path=path)  # fixed priors: sweep 1 opens a cycle
    with np.load(path) as saved:
        assert saved["cycle_dk"].shape[0] == 1


def test_a_cycle_held_during_the_burn_in_is_dropped(corpus, tmp_path):
    """A checkpoint written during the burn-in by a version whose cycles ran from the first sweep holds copies of a
    cycle: resumed, the next burn-in sweep drops them, and the fit ends as an uninterrupted one does."""
    X, _ = corpus
    kw = dict(learn_priors=True, tol=0, moves=False)
    straight = _fit(X, max_iter=16, **kw)
    path = tmp_path / "ck.npz"
    _fit(X, max_iter=5, checkpoint_path=path, **kw)
    with np.load(path) as saved:
        arrays = {name: saved[name] for name in saved.files}
    arrays["cycle_dk"] = np.stack([0.5 * arrays["n_dk"], arrays["n_dk"]])  # (two copies, as after sweep 5 then)
    arrays["cycle_wk"] = np.stack([0.5 * arrays["n_wk"], arrays["n_wk"]])
    arrays["cycle_ends"] = np.array([-1e9])
    arrays["cycle_end"] = np.array(1)
    np.savez(path, **arrays)
    resumed = resume_counts(X, path, acceleration="squarem", max_iter=16, **kw)
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)


# (a checkpoint at the end of the burn-in, then with no, one and two copies of the cycle: each resumed fit extrapolates
# from what the checkpoint held at sweep 16 at the latest, before the late moves after sweep max_iter - 10 = 20
# (_moves.late_window), which start the cycle afresh; the interrupted fits, shorter than 20 sweeps, try none)
@pytest.mark.parametrize("stop", [10, 13, 14, 15])
def test_an_interrupted_fit_resumes_exactly_mid_cycle(corpus, stop, tmp_path):
    X, _ = corpus
    params = dict(max_iter=30, tol=0, learn_priors=True)
    straight = _fit(X, **params)
    path = tmp_path / "ck.npz"
    _fit(X, **{**params, "max_iter": stop}, checkpoint_path=path)
    with np.load(path) as saved:
        # (sweeps 1 and 2 of a cycle keep a copy, its third none; the cycles start after the 10 burn-in sweeps)
        assert saved["cycle_dk"].shape[0] == (stop - 10) % 3
    resumed = resume_counts(X, path, acceleration="squarem", **params)
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)
    np.testing.assert_array_equal(resumed.doc_topic_prior_, straight.doc_topic_prior_)


def test_a_checkpoint_with_part_of_the_cycle_is_refused(corpus, tmp_path):
    X, _ = corpus
    path = tmp_path / "ck.npz"
    _fit(X, max_iter=4, tol=0, checkpoint_path=path)
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    partial = {k: v for k, v in arrays.items() if k != "cycle_ends"}
    np.savez(path, **partial)
    with pytest.raises(ValueError, match="cycle_ends"):
        CollapsedLDA(10, random_state=0, storage="counts", acceleration="squarem", max_iter=8, tol=0,
                     checkpoint_path=path).fit(X, resume=True)
    assert arrays["cycle_dk"].shape[0] == 1  # (written after a cycle's first sweep: one copy)
    np.savez(path, **{**arrays, "cycle_wk": arrays["cycle_wk"][:0]})  # (copies of n_dk and n_wk in different numbers)
    with pytest.raises(ValueError, match="SQUAREM cycle holds 1 copies of n_dk and 0 of n_wk"):
        CollapsedLDA(10, random_state=0, storage="counts", acceleration="squarem", max_iter=8, tol=0,
                     checkpoint_path=path).fit(X, resume=True)


@pytest.mark.parametrize("params", [{"variant": "cvb"}, {"storage": "responsibilities"}])
def test_the_acceleration_applies_to_counts_cvb0_only(corpus, params):
    X, _ = corpus
    kw = dict(max_iter=12, tol=0, **params)
    np.testing.assert_array_equal(_fit(X, **kw).components_, _fit(X, acceleration=None, **kw).components_)


def test_a_bad_acceleration_is_named():
    X = make_lda_corpus(30, 20, 2, random_state=0).corpus.X
    with pytest.raises(ValueError, match="acceleration"):
        CollapsedLDA(2, acceleration="anderson").fit(X)


def test_an_undone_step_returns_exactly_to_theta2(corpus, monkeypatch):
    """Every extrapolation made hopeless (all of each row's counts on one topic) and undone: each cycle's third
    sweep is then spent and the fit is the plain one with a third fewer sweeps, to the last bit, learned priors
    (whose step the undone sweep also made) included; so are the objectives, theta2's recorded once more for
    each spent sweep."""
    from topicvb.models import _collapsed_sweeps

    def hopeless(a0, a1, a2, s, out):
        totals = a2.sum(axis=1)
        out[:] = 0.0
        out[:, 0] = totals

    monkeypatch.setattr(_collapsed_sweeps, "step_length", lambda *states: -2.0)
    monkeypatch.setattr(_collapsed_sweeps, "extrapolate", hopeless)
    X, _ = corpus
    kw = dict(tol=0, moves=False, learn_priors=True, prior_burn_in=0)
    spent = _fit(X, max_iter=12, **kw)
    plain = _fit(X, max_iter=8, acceleration=None, **kw)
    np.testing.assert_array_equal(spent.components_, plain.components_)
    np.testing.assert_array_equal(spent.doc_topic_prior_, plain.doc_topic_prior_)
    h = spent.bound_history_  # (one value per sweep: theta2's twice for each spent sweep)
    assert len(h) == 12
    np.testing.assert_array_equal(h[np.r_[True, np.diff(h) != 0]], plain.bound_history_)


def test_a_checkpoint_after_an_undone_step_resumes_exactly(tmp_path, caplog):
    """An undone step leaves the state at theta2 with its objective pending, so the history keeps one value per
    sweep and a checkpoint written after it resumes exactly (the checkpoint's history has the length a plain
    fit's has)."""
    X = make_lda_corpus(300, 200, 6, random_state=0).corpus.X
    kw = dict(n_components=10, learn_priors=True, init="seeded", moves=False, tol=0)
    with caplog.at_level(logging.DEBUG, logger="topicvb.models.collapsed_lda"):
        straight = _fit(X, max_iter=50, **kw)
    undone = [int(m.group(3)) for m in map(STEP_LINE.search, caplog.messages) if m and m.group(2) == "undone"]
    assert undone and undone[0] < 50
    path = tmp_path / "ck.npz"
    _fit(X, max_iter=undone[0], checkpoint_path=path, **kw)  # (written right after the undone step)
    resumed = resume_counts(X, path, acceleration="squarem", max_iter=50, **kw)
    np.testing.assert_array_equal(resumed.components_, straight.components_)
    np.testing.assert_array_equal(resumed.bound_history_, straight.bound_history_)


def test_an_accepted_move_is_followed_by_a_cycle_of_its_own(monkeypatch):
    """After an accepted move the fit is not settled until a whole SQUAREM cycle of the moved state has been
    tested: the cycle test of the state before the move does not carry over."""
    from topicvb.models._collapsed_sweeps import CountSweeps
    from topicvb.models._moves import TRIAL_SWEEPS

    accepted = []
    try_move = CountSweeps.try_move

    def recording(self, state, history, it, candidate, rng):
        out = try_move(self, state, history, it, candidate, rng)
        if isinstance(out, tuple):
            accepted.append(it)
        return out

    monkeypatch.setattr(CountSweeps, "try_move", recording)
    X = make_lda_corpus(400, 300, 8, random_state=2).corpus.X
    model = _fit(X, n_components=10, learn_priors=True, init="random")
    assert accepted
    assert model.n_iter_ >= accepted[-1] + TRIAL_SWEEPS + 3
