"""Distributed BatchLDA on a Dask LocalCluster: same results as one process, survives a killed worker."""

import logging
import os
import signal
import time

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("dask", reason="dask is not installed; pip install 'topicvb[dask]' to test topicvb.distributed")
pytest.importorskip("distributed", reason="distributed is not installed; pip install 'topicvb[dask]' to test "
                                          "topicvb.distributed")

import dask.bag as db  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from sklearn.utils import check_random_state  # noqa: E402

from topicvb import BatchLDA  # noqa: E402
from topicvb._kernels.bounds import lda_doc_bound, lda_topic_bound  # noqa: E402
from topicvb._kernels.estep import e_step  # noqa: E402
from topicvb._validation import csr_arrays  # noqa: E402
from topicvb.datasets import make_lda_corpus, write_uci  # noqa: E402
from topicvb.distributed import _restart_block, fit_distributed, transform_distributed  # noqa: E402
from topicvb.models.batch_lda import _expectations  # noqa: E402

K, SIZES = 4, (150, 100, 200, 150)  # uneven partitions on purpose


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as c:
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


@pytest.mark.parametrize("init, learn_priors", [("random", False), ("seeded", True)])
def test_global_streams_equal_single_machine_fit(client, corpus, init, learn_priors):
    X, _, paths = corpus
    params = dict(random_state=0, max_iter=25, init=init, learn_priors=learn_priors)
    want = BatchLDA(K, **params).fit(X)
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
        gamma, sstats_t, _ = e_step(indptr, indices, data, ebeta_t, alpha, gamma_init, gamma, 100, 1e-3, True)
        lam = eta + sstats_t.T
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


@pytest.mark.parametrize("random_streams", ["global", "partition"])
def test_worker_killed_mid_iteration_gives_same_result(client, corpus, random_streams, caplog):
    _, _, paths = corpus
    params = dict(random_state=0, max_iter=25, init="random")
    want = fit_distributed(BatchLDA(K, **params), paths, client, random_streams=random_streams)
    killed = []

    def kill_a_worker(iteration, c):  # called after the iteration's tasks were submitted
        if iteration == 4 and not killed:
            address = sorted(c.nthreads())[0]
            pid = c.run(os.getpid, workers=[address])[address]
            time.sleep(0.05)
            os.kill(pid, signal.SIGKILL)  # the nanny starts a fresh worker
            killed.append(address)

    with caplog.at_level(logging.WARNING, logger="topicvb.distributed"):
        got = fit_distributed(BatchLDA(K, **params), paths, client, random_streams=random_streams,
                              _hook=kill_a_worker)
    assert killed
    assert "replaying E-steps" in caplog.text  # the lost gamma were rebuilt, not silently restarted
    _assert_same_fit(got, want)
    deadline = time.time() + 30  # leave two workers for the next test
    while len(client.nthreads()) < 2 and time.time() < deadline:
        time.sleep(0.2)


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
