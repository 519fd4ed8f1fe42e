"""Distributed BatchLDA and OnlineLDA on a Dask LocalCluster: same results as one process, survives a killed
worker."""

import logging
import os
import signal
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("dask", reason="dask is not installed; pip install 'topicvb[dask]' to test topicvb.distributed")
pytest.importorskip("distributed", reason="distributed is not installed; pip install 'topicvb[dask]' to test "
                                          "topicvb.distributed")

import dask.bag as db  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from sklearn.utils import check_random_state  # noqa: E402

import reference as ref  # noqa: E402
from topicvb import PLSA, BatchLDA, OnlineLDA  # noqa: E402
from topicvb._kernels.bounds import lda_doc_bound, lda_topic_bound  # noqa: E402
from topicvb._kernels.estep import e_step  # noqa: E402
from topicvb._validation import csr_arrays  # noqa: E402
from topicvb.datasets import make_lda_corpus, write_uci  # noqa: E402
from topicvb.distributed import fit_distributed, interleaved_order, transform_distributed  # noqa: E402
from topicvb.distributed._tasks import restart_block as _restart_block  # noqa: E402
from topicvb.distributed._tasks import warm_up  # noqa: E402
from topicvb.models._start import start_points as _start_points  # noqa: E402
from topicvb.models._vb import expectations as _expectations  # noqa: E402

K, SIZES = 4, (150, 100, 200, 150)  # uneven partitions on purpose


@pytest.fixture(scope="module")
def client():
    # The kernels the workers warm up (fit_distributed's warm_up_workers: the accelerated and the plain
    # E-step) are compiled here first, so that with an empty numba cache the two workers load them from
    # the disk cache instead of both compiling the same kernels at once (each worker still warms up).
    warm_up()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            yield c


@pytest.fixture
def own_client():
    """A cluster of its own for a test that kills workers. A killed worker's nanny starts a fresh one,
    which under load has (rarely) not come back within minutes: the other tests must not depend on it.
    (Nor the next killing test: with one cluster shared by the killing tests, each waiting for both
    workers first, a nanny sometimes closed itself right after a kill; in 10 runs on a loaded machine, 2
    failed and 3 lost a minute waiting for a worker that did not come back.)"""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as c:
            c.wait_for_workers(2, timeout=180)
            yield c


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    X = make_lda_corpus(sum(SIZES), 80, K, random_state=0).corpus.X.tocsr().astype(np.float64)
    bounds = np.cumsum((0,) + SIZES)
    parts = [X[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    folder = tmp_path_factory.mktemp("shards")
    paths = []
    for p, part in enumerate(parts):
        paths.append(str(folder / f"part-{p}.npz"))
        sp.save_npz(paths[-1], part)
    return X, parts, paths


def _assert_same_fit(got, want):
    assert got.n_iter_ == want.n_iter_
    np.testing.assert_allclose(got.components_, want.components_, rtol=1e-9)
    np.testing.assert_allclose(got.bound_history_, want.bound_history_, rtol=1e-11)
    np.testing.assert_allclose(got.doc_topic_prior_, want.doc_topic_prior_, rtol=1e-9)
    np.testing.assert_allclose(got.topic_word_prior_, want.topic_word_prior_, rtol=1e-9)


def _assert_identical_fit(got, want):
    """Bit for bit: a repaired fit adds the same numbers in the same order as an undisturbed one."""
    for name in ("n_iter_", "components_", "bound_history_", "doc_topic_prior_", "topic_word_prior_",
                 "n_batch_iter_", "n_docs_seen_"):
        if hasattr(want, name):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


@pytest.mark.parametrize("init, learn_priors", [("random", False), ("seeded", True)])
def test_global_streams_equal_single_machine_fit(client, corpus, init, learn_priors):
    X, _, paths = corpus
    params = dict(random_state=0, max_iter=25, init=init, learn_priors=learn_priors)
    want = BatchLDA(K, **params, moves=False).fit(X)  # a distributed fit runs no moves (its docstring)
    got = fit_distributed(BatchLDA(K, **params), paths, client, random_streams="global")
    _assert_same_fit(got, want)
    assert got.n_features_in_ == X.shape[1]
    np.testing.assert_allclose(got.transform(X[:20]), want.transform(X[:20]), rtol=1e-8)


def _reference_partition_streams(parts, max_iter, seed=0):
    """BatchLDA's loop in one process, with the restarts of random_streams="partition"."""
    model = BatchLDA(K, random_state=seed, max_iter=max_iter, init="random")
    rng = check_random_state(seed)
    alpha, eta = model._resolve_priors()
    X = sp.vstack(parts, format="csr")
    lam = rng.gamma(100.0, 0.01, size=(K, X.shape[1]))
    entropy = [int(x) for x in rng.randint(0, 2**32, size=4, dtype=np.uint64)]
    indptr, indices, data = csr_arrays(X)
    _, ebeta_t, _ = _expectations(lam)
    gamma, history = np.zeros((0, K)), []
    for it in range(1, max_iter + 1):
        gamma_init = np.vstack([_restart_block(entropy, it, p, part.shape[0], K, np.float64)
                                for p, part in enumerate(parts)])
        gamma_init = _start_points(gamma_init, gamma, 0, model.restart_every, it)
        gamma, sstats_t, _ = e_step(indptr, indices, data, ebeta_t, alpha, gamma_init, gamma, 100, 1e-3, True, True)
        lam = np.add(sstats_t.T, eta, out=np.empty((K, X.shape[1])))  # row-major, as BatchLDA's M-step
        elog, ebeta_t, log_scale = _expectations(lam)
        history.append(float(np.sum(lda_doc_bound(indptr, indices, data, gamma, alpha, ebeta_t, log_scale))
                             + np.sum(lda_topic_bound(lam, elog, eta))))
        if model._converged(history):
            break
    return lam, np.asarray(history)


def test_partition_streams_equal_single_process_reference(client, corpus):
    _, parts, _ = corpus
    lam, history = _reference_partition_streams(parts, max_iter=25)
    got = fit_distributed(BatchLDA(K, random_state=0, max_iter=25, init="random"), parts, client)
    assert got.n_iter_ == len(history)
    np.testing.assert_allclose(got.components_, lam, rtol=1e-9)
    np.testing.assert_allclose(got.bound_history_, history, rtol=1e-11)
    assert np.all(np.diff(got.bound_history_) >= -1e-9 * np.abs(got.bound_history_[1:]))


def _kill_every_worker(c):
    """SIGKILL every worker process (their nannies start fresh ones); returns the addresses killed."""
    pids = c.run(os.getpid)
    for pid in pids.values():
        os.kill(pid, signal.SIGKILL)
    return sorted(pids)


def _wait_for_workers(c, n=2, timeout=180):
    """Wait until ``n`` workers run. A fit's reduction groups are the partitions of each worker at its
    start; a worker that is listed but not yet running gets none (they go to the other), so two fits
    compared bit for bit must both start with every worker running."""
    c.wait_for_workers(n, timeout=timeout)


@pytest.mark.parametrize("random_streams", ["global", "partition"])
def test_worker_killed_mid_iteration_gives_same_result(own_client, corpus, random_streams, caplog):
    _, _, paths = corpus
    params = dict(random_state=0, max_iter=25, init="random")
    _wait_for_workers(own_client)
    want = fit_distributed(BatchLDA(K, **params), paths, own_client, random_streams=random_streams)
    killed = []

    def kill_a_worker(iteration, c):  # called after the iteration's tasks were submitted
        if iteration == 4 and not killed:
            address = sorted(c.nthreads())[0]
            pid = c.run(os.getpid, workers=[address])[address]
            time.sleep(0.05)
            os.kill(pid, signal.SIGKILL)  # the nanny starts a fresh worker
            killed.append(address)

    with caplog.at_level(logging.WARNING, logger="topicvb.distributed"):
        got = fit_distributed(BatchLDA(K, **params), paths, own_client, random_streams=random_streams,
                              _hook=kill_a_worker)
    assert killed
    assert "replaying E-steps" in caplog.text  # the lost gamma were rebuilt, not silently restarted
    # Exactly equal, not only close: the partitions re-read after the failure may sit on other workers
    # than before (where the scheduler puts them depends on how fast the nanny restarts the worker),
    # but the statistics are summed in the reduction groups of the start, in the same order. (Summed
    # by the workers of the moment, as before, the topics differed by up to ~1e-9 relative after 12
    # iterations, around this comparison's old rtol=1e-9: the flake of issue #19.)
    _assert_identical_fit(got, want)


def test_transform_distributed_matches_transform(client, corpus, tmp_path):
    X, parts, paths = corpus
    model = BatchLDA(K, random_state=0, max_iter=5, init="random", tol=0).fit(X)
    want = model.transform(X)
    uci = []
    for p, part in enumerate(parts):
        uci.append(tmp_path / f"docword.{p}.txt")
        write_uci(part, [f"w{j}" for j in range(X.shape[1])], uci[-1], tmp_path / f"vocab.{p}.txt")
    for shards in (paths, parts, uci):
        got = transform_distributed(model, shards, client)
        assert got.shape == want.shape and got.chunks[0] == SIZES
        np.testing.assert_allclose(got.compute(), want, rtol=1e-12)
    rows = [X[i:i + 50] for i in range(0, X.shape[0], 50)]
    bag = db.from_sequence(rows, npartitions=3)
    np.testing.assert_allclose(transform_distributed(model, bag, client).compute(), want, rtol=1e-12)


def test_bad_input_is_reported_and_leaves_model_unchanged(client, corpus):
    X, parts, _ = corpus
    with pytest.raises(TypeError, match="fit_distributed fits a BatchLDA"):
        fit_distributed(object(), parts, client)
    with pytest.raises(ValueError, match="random_streams must be one of"):
        fit_distributed(BatchLDA(K), parts, client, random_streams="shared")
    with pytest.raises(TypeError, match="wrap it in a list"):
        fit_distributed(BatchLDA(K), X, client)
    model = BatchLDA(K, random_state=0, max_iter=3, init="random", tol=0).fit(X)
    before = model.components_.copy()
    bad = parts[1].copy()
    bad.data[0] = -1.0
    with pytest.raises(ValueError, match="Negative values in partition 1"):
        fit_distributed(model, [parts[0], bad], client)
    with pytest.raises(ValueError, match="different numbers of terms"):
        fit_distributed(model, [parts[0], parts[1][:, :40]], client)
    np.testing.assert_array_equal(model.components_, before)
    with pytest.raises(ValueError, match="fitted on 80"):
        transform_distributed(model, [parts[0][:, :40]], client)


# ---------------------------------------------------------------------------------------------
# OnlineLDA
# ---------------------------------------------------------------------------------------------
def test_interleaved_order_takes_from_every_partition_in_proportion():
    assert interleaved_order([2, 1]).tolist() == [0, 2, 1]  # positions 0.25, 0.75 | 0.5
    assert interleaved_order([0, 3, 0]).tolist() == [0, 1, 2]
    assert interleaved_order([1, 1]).tolist() == [0, 1]  # a tie goes to the first partition
    order = interleaved_order(SIZES)
    assert sorted(order) == list(range(sum(SIZES)))
    part = np.repeat(np.arange(len(SIZES)), SIZES)[order]
    for b in range(10):  # batches of 60 = 15 + 10 + 20 + 15, each partition's rows in order
        np.testing.assert_array_equal(np.bincount(part[60 * b:60 * b + 60]), [15, 10, 20, 15])
    starts = np.cumsum((0,) + SIZES)[:-1]
    for p in range(len(SIZES)):
        np.testing.assert_array_equal(order[part == p], starts[p] + np.arange(SIZES[p]))
    with pytest.raises(ValueError, match="non-negative integers"):
        interleaved_order([3, -1])


def _assert_same_online_fit(got, want):
    assert (got.n_iter_, got.n_batch_iter_, got.n_docs_seen_) == (want.n_iter_, want.n_batch_iter_,
                                                                  want.n_docs_seen_)
    np.testing.assert_allclose(got.components_, want.components_, rtol=1e-9)
    np.testing.assert_allclose(got.bound_history_, want.bound_history_, rtol=1e-11)
    np.testing.assert_allclose(got.doc_topic_prior_, want.doc_topic_prior_, rtol=1e-9)
    np.testing.assert_allclose(got.topic_word_prior_, want.topic_word_prior_, rtol=1e-9)


@pytest.mark.parametrize("init, learn_priors, max_iter, tol", [("random", False, 8, 5e-3), ("seeded", True, 3, 0.0)])
def test_online_global_streams_equal_single_machine_fit(client, corpus, init, learn_priors, max_iter, tol):
    X, parts, _ = corpus
    # 70 does not divide the partitions: mini-batches straddle partition boundaries, the last is short
    params = dict(random_state=0, max_iter=max_iter, tol=tol, batch_size=70, shuffle=False, init=init,
                  learn_priors=learn_priors, restart_every=1)  # the runner restarts every pass
    want = OnlineLDA(K, **params).fit(X[interleaved_order(SIZES)])
    got = fit_distributed(OnlineLDA(K, **params), parts, client, random_streams="global")
    _assert_same_online_fit(got, want)
    if tol:
        assert got.n_iter_ < max_iter  # stopped by tol, on the same pass
    assert got.n_batch_iter_ == 9 * got.n_iter_ and len(got.bound_history_) == got.n_batch_iter_
    np.testing.assert_array_equal(got.random_state_.get_state()[1], want.random_state_.get_state()[1])
    np.testing.assert_allclose(got.transform(X[:20]), want.transform(X[:20]), rtol=1e-8)


def _guided_prior(X):
    """A matrix topic-word prior: topic 0 seeded on the three commonest terms of X, term 5 excluded from topic 1.
    (Seed terms that documents use: a seeded topic starts on the words of those documents. On terms no document
    used, the distributed fit, which started without the documents, agreed with fit all the same.)"""
    eta = np.full((K, X.shape[1]), 0.1)
    eta[0, np.argsort(-np.asarray(X.sum(axis=0)).ravel(), kind="stable")[:3]] = 5.0
    eta[1, 5] = 0.0
    return eta


def test_matrix_prior_global_streams_equal_single_machine_fit(client, corpus):
    X, parts, paths = corpus
    eta = _guided_prior(X)
    params = dict(random_state=0, max_iter=12, learn_priors=True, topic_word_prior=eta)
    want = BatchLDA(K, **params, moves=False).fit(X)
    got = fit_distributed(BatchLDA(K, **params), paths, client, random_streams="global")
    _assert_same_fit(got, want)
    assert got.topic_word_prior_.shape == eta.shape and np.all(got.components_[eta == 0] == 0)
    assert list(got.topic_labels_) == list(want.topic_labels_)
    np.testing.assert_allclose(got.transform(X[:20]), want.transform(X[:20]), rtol=1e-8)
    # transform on the workers reads the matrix prior's zeros too
    np.testing.assert_allclose(transform_distributed(got, parts[:2], client).compute(), got.transform(
        sp.vstack(parts[:2], format="csr")), rtol=1e-8, atol=1e-12)
    params = dict(random_state=0, max_iter=2, batch_size=70, shuffle=False, learn_priors=True, restart_every=1,
                  topic_word_prior=eta)
    want = OnlineLDA(K, **params).fit(X[interleaved_order(SIZES)])
    got = fit_distributed(OnlineLDA(K, **params), parts, client, random_streams="global")
    _assert_same_online_fit(got, want)
    assert np.all(got.components_[eta == 0] == 0)


def test_dead_topics_warn_as_fit_warns(client):
    """30 topics on a corpus drawn from 3 (moves off, as in tests/models/test_diagnostics.py): the fit on the
    workers warns of the same dead topics as fit, pointing at the caller's line."""
    from topicvb.exceptions import DeadTopicWarning

    X = make_lda_corpus(300, 60, 3, random_state=0).corpus.X
    params = dict(random_state=0, max_iter=30, moves=False)
    with pytest.warns(DeadTopicWarning) as want:
        BatchLDA(30, **params).fit(X)
    with pytest.warns(DeadTopicWarning, match="of 30 topics carry less than 0.2/K") as got:
        fit_distributed(BatchLDA(30, **params), [X[:150], X[150:]], client, random_streams="global")
    dead = [str(w.message) for w in got if issubclass(w.category, DeadTopicWarning)]
    assert dead == [str(w.message) for w in want if issubclass(w.category, DeadTopicWarning)]
    assert all(w.filename == __file__ for w in got if issubclass(w.category, DeadTopicWarning))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls", [BatchLDA, OnlineLDA])
def test_lost_seed_words_warn_as_fit_warns(client, cls):
    """Two themes, both topics seeded from one: the fit on the workers warns that a seeded topic lost its seed
    words, naming it as fit does; seeds of the two themes do not warn."""
    from topicvb.exceptions import SeedLostWarning
    from topicvb.guided import seed_holding, seed_topic_prior

    rng = np.random.default_rng(0)
    vocab = [f"a{i}" for i in range(10)] + [f"b{i}" for i in range(10)]
    X = sp.csr_matrix(np.array([np.bincount((d % 2) * 10 + rng.integers(0, 10, 30), minlength=20)
                                for d in range(200)], dtype=np.float64))
    parts = [X[:100], X[100:]]
    params = dict(random_state=0, max_iter=30) if cls is BatchLDA else dict(random_state=0, max_iter=10, batch_size=50)
    prior = seed_topic_prior(vocab, {"x": ["a0"], "y": ["a1"]}, 2)
    with pytest.warns(SeedLostWarning, match=r"seeded topic '(x|y)' \(it holds \d+% .* lost its seed words"):
        got = fit_distributed(cls(2, topic_word_prior=prior, **params), parts, client)
    assert [h.lost for h in seed_holding(got)].count(True) == 1
    model = cls(2, topic_word_prior=prior, **params)  # a warning turned into an error leaves the model unfitted
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedLostWarning)
        with pytest.raises(SeedLostWarning):
            fit_distributed(model, parts, client)
    assert not hasattr(model, "components_") and not hasattr(model, "topic_labels_")
    prior = seed_topic_prior(vocab, {"x": ["a0"], "y": ["b0"]}, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedLostWarning)
        got = fit_distributed(cls(2, topic_word_prior=prior, **params), parts, client)
    assert not any(h.lost for h in seed_holding(got))


def test_matrix_prior_of_the_wrong_shape_is_refused(client, corpus):
    _, _, paths = corpus
    with pytest.raises(ValueError, match=r"topic_word_prior must be .*shape \(n_components, n_features\)"):
        fit_distributed(BatchLDA(K, topic_word_prior=np.ones((K, 3))), paths, client)


def _reference_online_partition_streams(parts, batch_size, max_iter, seed=0):
    """OnlineLDA's loop in one process, with the shuffles and restarts of random_streams="partition"."""
    model = OnlineLDA(K, random_state=seed, batch_size=batch_size, init="random")
    sizes = [part.shape[0] for part in parts]
    rng = check_random_state(seed)
    alpha, eta = model._resolve_priors()
    lam = rng.gamma(100.0, 0.01, size=(K, parts[0].shape[1]))
    entropy = [int(x) for x in rng.randint(0, 2**32, size=4, dtype=np.uint64)]
    order = interleaved_order(sizes)
    part_of = np.repeat(np.arange(len(parts)), sizes)[order]
    t, history = 0, []
    for it in range(1, max_iter + 1):
        # every partition shuffled on its own, then interleaved
        perms = [np.random.default_rng(np.random.SeedSequence(entropy + [1, it], spawn_key=(p,))).permutation(n)
                 for p, n in enumerate(sizes)]
        X = sp.vstack([part[perm] for part, perm in zip(parts, perms)], format="csr")[order]
        for lo in range(0, X.shape[0], batch_size):
            t += 1
            batch, ids = X[lo:lo + batch_size], part_of[lo:lo + batch_size]
            gamma0 = np.empty((batch.shape[0], K))
            for p in np.unique(ids):
                gamma0[ids == p] = _restart_block(entropy, t, p, int(np.sum(ids == p)), K, np.float64)
            _, ebeta_t, _ = _expectations(lam)
            gamma, sstats_t, _ = e_step(*csr_arrays(batch), ebeta_t, alpha, gamma0, gamma0[:0], 100, 1e-3, True, True)
            scale = X.shape[0] / batch.shape[0]
            history.append(model._elbo(batch, gamma, lam, alpha, eta, doc_scale=scale))
            lam = ref.svi_lambda_step(lam, eta, sstats_t.T, model._rho(t), scale)
    return lam, np.asarray(history)


def test_online_partition_streams_equal_single_process_reference(client, corpus):
    _, parts, paths = corpus
    lam, history = _reference_online_partition_streams(parts, batch_size=70, max_iter=2)
    got = fit_distributed(OnlineLDA(K, random_state=0, max_iter=2, tol=0, batch_size=70, init="random"), paths,
                          client)
    assert (got.n_iter_, got.n_batch_iter_, got.n_docs_seen_) == (2, len(history), 2 * sum(SIZES))
    np.testing.assert_allclose(got.components_, lam, rtol=1e-9)
    np.testing.assert_allclose(got.bound_history_, history, rtol=1e-11)


def test_online_worker_killed_mid_fit_gives_same_result(own_client, corpus):
    _, parts, paths = corpus
    lam, history = _reference_online_partition_streams(parts, batch_size=70, max_iter=2)
    killed = []

    def kill_a_worker(batch, c):  # called after the mini-batch's tasks were submitted
        if batch == 8 and not killed:
            address = sorted(c.nthreads())[0]
            pid = c.run(os.getpid, workers=[address])[address]
            os.kill(pid, signal.SIGKILL)  # the nanny starts a fresh worker
            killed.append(address)

    got = fit_distributed(OnlineLDA(K, random_state=0, max_iter=2, tol=0, batch_size=70, init="random"), paths,
                          own_client, _hook=kill_a_worker)
    assert killed and killed[0] not in own_client.nthreads()  # the worker died during the fit
    np.testing.assert_allclose(got.components_, lam, rtol=1e-9)
    np.testing.assert_allclose(got.bound_history_, history, rtol=1e-11)


@pytest.mark.parametrize("random_streams, shuffle", [("partition", False), ("global", True)])
def test_online_client_side_replay_of_a_mini_batch_gives_same_result(own_client, corpus, random_streams, shuffle,
                                                                     caplog):
    """Dask recomputes what a dead worker held from the task graph (the previous test), except scattered
    data: the topics broadcast for a mini-batch. Killing every worker while mini-batch 8 runs loses them
    on all workers, so its tasks are cancelled and the client itself must re-read the partitions,
    re-draw the lost shuffles, broadcast the topics again and re-submit the mini-batch (with the same
    restarts); the fit must then end exactly as without the failure."""
    _, _, paths = corpus
    params = dict(random_state=0, max_iter=2, tol=0, batch_size=70, init="random", shuffle=shuffle,
                  restart_every=1)
    _wait_for_workers(own_client)
    want = fit_distributed(OnlineLDA(K, **params), paths, own_client, random_streams=random_streams)
    killed = []

    def kill_every_worker(batch, c):  # called after the mini-batch's tasks were submitted
        if batch == 8 and not killed:
            killed.extend(_kill_every_worker(c))

    with caplog.at_level(logging.WARNING, logger="topicvb.distributed"):
        got = fit_distributed(OnlineLDA(K, **params), paths, own_client, random_streams=random_streams,
                              _hook=kill_every_worker)
    assert len(killed) == 2
    # the client re-submitted mini-batch 8 itself (Dask could not recompute it), and only that one
    replays = [r.getMessage() for r in caplog.records if "re-submitting mini-batch" in r.getMessage()]
    assert replays and all(m.startswith("re-submitting mini-batch 8 ") for m in replays), caplog.text
    _assert_identical_fit(got, want)
    if random_streams == "global":
        np.testing.assert_array_equal(got.random_state_.get_state()[1], want.random_state_.get_state()[1])


def test_online_transform_distributed_and_bad_input(client, corpus):
    X, parts, paths = corpus
    model = OnlineLDA(K, random_state=0, max_iter=2, tol=0, batch_size=100).fit(X)
    got = transform_distributed(model, paths, client)
    assert got.chunks[0] == SIZES
    np.testing.assert_allclose(got.compute(), model.transform(X), rtol=1e-12)
    before = model.components_.copy()
    with pytest.raises(ValueError, match="total_samples=100 is smaller than the 600 documents"):
        fit_distributed(model.set_params(total_samples=100), parts, client)
    np.testing.assert_array_equal(model.components_, before)
    with pytest.raises(TypeError, match="fits a BatchLDA or an OnlineLDA, got PLSA"):
        fit_distributed(PLSA(K), parts, client)


def test_transform_distributed_checks_parameters_set_after_fit(client, corpus):
    # (as transform does: max_doc_update_iter=-5 gave uniform rows silently, dtype="float16" a scipy error)
    X, _, paths = corpus
    model = BatchLDA(K, random_state=0, max_iter=3).fit(X)
    for param, value in (("max_doc_update_iter", -5), ("dtype", "float16")):
        good = model.get_params()[param]
        model.set_params(**{param: value})
        with pytest.raises(ValueError, match=rf"^{param} must be"):
            transform_distributed(model, paths, client)
        model.set_params(**{param: good})
    # a valid dtype or n_components set since the fit waits for the next fit, as in transform (before: the
    # partitions were read and the rows computed in the new dtype)
    want = model.transform(X)
    model.set_params(dtype="float32", n_components=K + 2)
    got = transform_distributed(model, paths, client).compute()
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_a_bag_partition_given_as_an_iterator_is_read_as_its_rows():
    # (before: "float() argument must be a string or a real number, not 'filter'" on every worker, retried, for a
    # bag made with filter, or with map_partitions returning a generator)
    from topicvb.distributed._partitions import load_shard

    X = sp.random(6, 5, density=0.5, random_state=0, format="csr")
    rows = [X[i] for i in range(6)]
    want = load_shard(rows)
    for source in (iter(rows), filter(lambda r: True, rows), (r for r in rows)):
        got = load_shard(source)
        assert got.shape == want.shape and (got != want).nnz == 0


def test_a_shard_loses_its_stored_zeros_as_the_estimators_input_does():
    from topicvb.distributed._partitions import load_shard

    X = sp.csr_matrix((np.array([2.0, 0.0, 1.0, 0.0]), np.array([0, 1, 2, 0]), np.array([0, 3, 4])), shape=(2, 3))
    got = load_shard(X)
    assert got.nnz == 2 and got.has_canonical_format
    np.testing.assert_array_equal(got.toarray(), X.toarray())
    assert X.nnz == 4  # (the caller's matrix is not changed)


def test_a_shard_may_be_a_corpus_file_or_an_upper_case_npz(tmp_path):
    # (before: "does not contain a sparse array or matrix" for a topicvb corpus, and a .NPZ read as a UCI file)
    from topicvb.datasets import Corpus
    from topicvb.distributed._partitions import load_shard

    X = sp.csr_matrix(np.random.default_rng(0).poisson(0.5, size=(20, 8)).astype(float))
    Corpus(X, vocabulary=[f"t{i}" for i in range(8)]).save(tmp_path / "corpus.npz")
    with open(tmp_path / "PLAIN.NPZ", "wb") as fh:  # (save_npz would append .npz to the name)
        sp.save_npz(fh, X)
    for name in ("corpus.npz", "PLAIN.NPZ"):
        np.testing.assert_array_equal(load_shard(str(tmp_path / name)).toarray(), X.toarray())


def test_a_client_that_is_not_one_or_is_closed_is_named(corpus):
    # (before, transform_distributed gave "'str' object has no attribute 'nthreads'", and a closed client
    # "'NoneType' object has no attribute 'broadcast'")
    X, parts, _ = corpus
    model = BatchLDA(K, random_state=0, max_iter=2, init="random").fit(X)
    with pytest.raises(TypeError, match="client must be a distributed.Client or None, got str"):
        transform_distributed(model, parts, "tcp://x")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        closed = Client(cluster)
        closed.close()
        for call in (lambda: transform_distributed(model, parts, closed),
                     lambda: fit_distributed(BatchLDA(K, max_iter=2), parts, closed)):
            with pytest.raises(ValueError, match="client is closed; pass an open distributed.Client"):
                call()
