"""Distributed fits check their partitions as fit checks its input, keep no topic history they cannot use, say
when the workers compile, and take dask arrays; warm_up_workers checks its arguments."""

import glob
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("dask", reason="dask is not installed; pip install 'topicvb[dask]' to test topicvb.distributed")
pytest.importorskip("distributed", reason="distributed is not installed; pip install 'topicvb[dask]' to test "
                                          "topicvb.distributed")

import dask.array as da  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from test_distributed_fit import K, client, corpus  # noqa: E402,F401  (the module's cluster and corpus)
from topicvb import BatchLDA, OnlineLDA  # noqa: E402
from topicvb.distributed import fit_distributed, transform_distributed, warm_up_workers  # noqa: E402
from topicvb.distributed._partitions import load_shard  # noqa: E402


def _batch(**kw):
    return BatchLDA(K, random_state=0, max_iter=3, init="random", tol=0, **kw)


# ---------------------------------------------------------------------------------------------
# 1. the partitions are checked as fit checks its input
# ---------------------------------------------------------------------------------------------
def test_a_partition_with_an_index_beyond_its_width_is_refused_naming_it(corpus):
    # (before: the kernels read out of bounds: a worker process died, "cannot be re-read" RuntimeError, and
    # transform_distributed returned rows computed from garbage; a cluster of its own, as workers died)
    X, parts, paths = corpus
    bad = parts[0].copy()
    bad.indices[0] = X.shape[1] + 10
    model = BatchLDA(K, random_state=0, max_iter=2).fit(X)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        with pytest.raises(ValueError, match=r"X passed to fit_distributed \(partition 0\) is not a valid sparse "
                                             r"matrix \(bad index structure"):
            fit_distributed(_batch(), [bad, parts[1]], c)
        with pytest.raises(ValueError, match=r"transform_distributed \(partition 1\) is not a valid sparse matrix"):
            transform_distributed(model, [parts[0], bad], c)


def test_a_shard_file_with_a_bad_index_is_refused_on_its_worker(client, corpus, tmp_path):
    # (the check runs where the shard is read: a shard file is read by a worker)
    X, parts, _ = corpus
    bad = parts[1].copy()
    bad.indices[-1] = X.shape[1] + 3
    path = str(tmp_path / "bad.npz")
    sp.save_npz(path, bad, compressed=False)
    with pytest.raises(ValueError, match=r"fit_distributed \(partition 1\) is not a valid sparse matrix"):
        fit_distributed(_batch(), [parts[0], path], client)


_HANG_OR_CRASH = textwrap.dedent("""
    import logging, warnings
    import numpy as np
    from distributed import Client
    from topicvb import BatchLDA
    from topicvb.datasets import make_lda_corpus
    from topicvb.distributed import fit_distributed
    warnings.simplefilter("ignore")
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    X = make_lda_corpus(120, 30, 3, random_state=0).corpus.X.tocsr().astype(np.float64)
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as c:
        G = X.copy()
        G.data *= 1e250
        try:
            fit_distributed(BatchLDA(3, random_state=0, max_iter=3), [G[:50], G[50:]], c)
            print("HUGE accepted", flush=True)
        except ValueError as exc:
            print("HUGE", exc, flush=True)
        bad = X[:50].copy()
        bad.indices[0] = 40
        try:
            fit_distributed(BatchLDA(3, random_state=0, max_iter=3), [bad, X[50:]], c)
            print("BADIDX accepted", flush=True)
        except ValueError as exc:
            print("BADIDX", exc, flush=True)
""")


def test_huge_counts_and_bad_indices_in_process_are_refused_not_a_hang_or_a_crash():
    # (before: counts x 1e250 made fit_distributed hang for ever, and an index beyond the width segfaulted the
    # process with Client(processes=False): run in a subprocess, with a time limit)
    try:
        done = subprocess.run([sys.executable, "-c", _HANG_OR_CRASH], capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        pytest.fail("fit_distributed hung on counts of 1e252")
    assert done.returncode == 0, f"the process died (return code {done.returncode}): {done.stderr[-2000:]}"
    assert "HUGE fit_distributed (partition 0) got a count of 1.15e+252 in X; counts above 1e+100" in done.stdout
    assert "BADIDX X passed to fit_distributed (partition 0) is not a valid sparse matrix" in done.stdout


def test_counts_beyond_the_range_fit_accepts_are_refused_over_all_partitions(client, corpus):
    X, parts, _ = corpus
    model = _batch()
    # a count above 1e100 (as fit: "got a count of ...")
    big = parts[2].copy()
    big.data[3] = 1e150
    with pytest.raises(ValueError, match=r"fit_distributed \(partition 2\) got a count of 1e\+150 in X; counts "
                                         r"above 1e\+100 are not supported"):
        fit_distributed(model, [parts[0], parts[1], big], client)
    # float32: every partition below 1e15 tokens, all of them above (fit refuses the stacked matrix)
    scaled = [p * (4e14 / p.sum()) for p in parts[:3]]
    stacked = sp.vstack(scaled, format="csr")
    with pytest.raises(ValueError, match="float32 model holds at most 1e\\+15 tokens"):
        _batch(dtype="float32").fit(stacked)
    with pytest.raises(ValueError, match=r"fit_distributed got counts summing to 1\.2e\+15 in its 3 partitions "
                                         r"\(partition \d holds 4e\+14\); a float32 model holds at most 1e\+15 tokens"):
        fit_distributed(_batch(dtype="float32"), scaled, client)
    # float64: every count below 1e100, their sum above
    scaled = [p * (6e99 / p.sum()) for p in parts[:2]]
    with pytest.raises(ValueError, match=r"got counts summing to 1\.2e\+100 in its 2 partitions .* a float64 model "
                                         r"holds at most 1e\+100 tokens"):
        fit_distributed(_batch(), scaled, client)
    assert not hasattr(model, "components_")


def test_a_finite_count_beyond_float32_is_named_as_such_not_as_infinite(client, corpus):
    # (before: "Partition 0 has 1 NaN or infinite entries" for a finite 1e39, infinite only once cast to float32)
    X, parts, _ = corpus
    big = parts[0].copy()
    big.data[0] = 1e39
    with pytest.raises(ValueError, match=r"Partition 0 has 1 entries too large for dtype 'float32', the model's "
                                         r"dtype .* use dtype='float64'"):
        fit_distributed(_batch(dtype="float32"), [big, parts[1]], client)
    nan = parts[1].copy()
    nan.data[0] = np.nan
    with pytest.raises(ValueError, match="Partition 1 has 1 NaN or infinite entries"):
        fit_distributed(_batch(dtype="float32"), [parts[0], nan], client)


def test_complex_partitions_are_refused_and_numeric_object_arrays_read_as_fit_reads_them(client, corpus):
    # (before: complex counts were taken silently as their real part)
    X, parts, _ = corpus
    with pytest.raises(ValueError, match="Complex data not supported"):
        _batch().fit(parts[0].toarray() + 1j)
    with pytest.raises(ValueError, match=r"fit_distributed \(partition 1\): Complex data not supported"):
        fit_distributed(_batch(), [parts[0], parts[1].toarray() + 1j], client)
    with pytest.raises(ValueError, match=r"fit_distributed \(partition 0\): Complex data not supported"):
        fit_distributed(_batch(), [sp.csr_matrix(parts[0], dtype=np.complex128)], client)
    with pytest.raises(TypeError, match=r"fit_distributed \(partition 0\) expects a document-term count matrix X .* "
                                        "holds text"):
        fit_distributed(_batch(), [np.array([["a", "b"]])], client)
    dense = parts[0].toarray()
    want = fit_distributed(_batch(), [dense], client)
    got = fit_distributed(_batch(), [dense.astype(object)], client)
    np.testing.assert_array_equal(got.components_, want.components_)


def test_negligible_counts_are_dropped_as_fit_drops_them(client, corpus):
    # (before: kept, unlike fit's input, so a corpus of such weights gave another fit than fit's)
    X, parts, _ = corpus
    tiny = parts[0].copy()
    tiny.data[:5] = 1e-250
    got = load_shard(tiny)
    assert got.nnz == tiny.nnz - 5 and got.min() >= 0
    only = parts[0].copy()
    only.data[:] = 1e-250
    want = BatchLDA(K, random_state=0, max_iter=2, init="random").fit(only)
    fitted = fit_distributed(BatchLDA(K, random_state=0, max_iter=2, init="random"), [only], client,
                             random_streams="global")
    np.testing.assert_allclose(fitted.components_, want.components_, rtol=1e-12)
    np.testing.assert_allclose(fitted.bound_history_, want.bound_history_, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# 2. the topic history on the client's disk
# ---------------------------------------------------------------------------------------------
def _history_folders(folder):
    return sorted(glob.glob(os.path.join(folder, "topicvb-distributed-*")))


def test_in_memory_partitions_keep_no_topic_history_on_disk(client, corpus, tmp_path, monkeypatch):
    # (before: every iteration's topics were written to the client's temp folder, though in-memory
    # partitions cannot be re-read and so are never replayed: gigabytes for a large model)
    import tempfile

    X, parts, paths = corpus
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen = []
    fit_distributed(_batch(), parts, client, callback=lambda info: seen.append(_history_folders(tmp_path)))
    assert seen and all(not folders for folders in seen)
    # shard files can be re-read: their E-steps' topics are kept for a replay, and removed at the end
    seen.clear()
    fit_distributed(_batch(), paths, client,
                    callback=lambda info: seen.append([os.listdir(f) for f in _history_folders(tmp_path)]))
    assert len(seen[-1]) == 1 and len(seen[-1][0]) > 0
    assert _history_folders(tmp_path) == []


def test_the_topic_history_is_removed_on_an_interrupt(client, corpus, tmp_path, monkeypatch):
    import tempfile

    X, parts, paths = corpus
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen = []

    def interrupt(info):
        seen.append(_history_folders(tmp_path))
        if info["iteration"] == 2:
            raise KeyboardInterrupt

    model = _batch()
    with pytest.raises(KeyboardInterrupt):
        fit_distributed(model, paths, client, callback=interrupt)
    assert seen[-1] and _history_folders(tmp_path) == []
    assert not hasattr(model, "components_")


def test_fit_distributed_documents_the_history_disk_cost():
    assert "16 GB" in fit_distributed.__doc__ and "temporary folder" in fit_distributed.__doc__


# ---------------------------------------------------------------------------------------------
# 3. the workers' compilation is said
# ---------------------------------------------------------------------------------------------
def test_warming_up_the_workers_is_logged_and_said_when_verbose(client, corpus, caplog, capsys):
    # (before: fit_distributed sat silent while the workers compiled)
    X, parts, _ = corpus
    with caplog.at_level(logging.INFO, logger="topicvb.distributed"):
        fit_distributed(BatchLDA(K, random_state=0, max_iter=1, verbose=1), parts, client)
    messages = [r.getMessage() for r in caplog.records if r.name == "topicvb.distributed"]
    assert "warming up 2 workers (compiling kernels on first use)" in messages
    assert any(m.startswith("warmed up 2 workers in ") for m in messages)
    err = capsys.readouterr().err
    assert "BatchLDA  warming up 2 workers (compiling kernels on first use)" in err
    assert "BatchLDA  warmed up 2 workers in " in err
    fit_distributed(OnlineLDA(K, random_state=0, max_iter=1, verbose=0), parts, client)
    assert "warming up" not in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# 4. warm_up_workers' arguments
# ---------------------------------------------------------------------------------------------
def test_warm_up_workers_takes_one_dtype_name_and_refuses_others(client):
    # (before: "float32" gave "data type 'o' not understood", float16 numba's NotImplementedError, and int64
    # was accepted)
    got = warm_up_workers(client, "float32")
    assert sorted(got) == sorted(client.nthreads())
    assert sorted(warm_up_workers(client, (np.float32, "float64"))) == sorted(client.nthreads())
    for bad in (("float16",), ("int64",), ["float32", "complex128"]):
        with pytest.raises(ValueError, match=r"warm_up_workers: each of dtypes must be one of \{'float32', "
                                             r"'float64'\}, got '(float16|int64|complex128)'"):
            warm_up_workers(client, bad)
    with pytest.raises(ValueError, match="dtypes must name at least one"):
        warm_up_workers(client, ())
    with pytest.raises(TypeError, match="client must be a distributed.Client or None, got str"):
        warm_up_workers("tcp://x", "float64")


# ---------------------------------------------------------------------------------------------
# 5. dask arrays
# ---------------------------------------------------------------------------------------------
def test_a_dask_array_chunked_along_rows_is_fitted_as_its_row_blocks(client, corpus):
    # (before: iterated row by row, "Partition 0 is a Array"; D.to_delayed() "got a single ndarray")
    X, parts, _ = corpus
    dense = X.toarray()
    D = da.from_array(dense, chunks=(150, X.shape[1]))
    blocks = [dense[i:i + 150] for i in range(0, dense.shape[0], 150)]
    want = fit_distributed(_batch(), blocks, client, random_streams="global")
    for shards in (D, D.to_delayed()):
        got = fit_distributed(_batch(), shards, client, random_streams="global")
        np.testing.assert_array_equal(got.components_, want.components_)
        np.testing.assert_array_equal(got.bound_history_, want.bound_history_)
    single = _batch().fit(X)  # (global streams: fit's result up to the rounding of the partitions' sums)
    np.testing.assert_allclose(want.components_, single.components_, rtol=1e-9)
    model = BatchLDA(K, random_state=0, max_iter=2).fit(X)
    np.testing.assert_allclose(transform_distributed(model, D, client).compute(), model.transform(X), rtol=1e-10)


def test_a_dask_array_chunked_along_columns_is_refused_with_the_recipe(client, corpus):
    X, _, _ = corpus
    D = da.from_array(X.toarray(), chunks=(150, 40))
    with pytest.raises(ValueError, match=r"chunked along its columns \(2 column chunks\).*D\.rechunk\(\{1: -1\}\)"):
        fit_distributed(_batch(), D, client)
    with pytest.raises(ValueError, match=r"4 x 2 array of delayed blocks .* D\.rechunk\(\{1: -1\}\)"):
        fit_distributed(_batch(), D.to_delayed(), client)
    with pytest.raises(TypeError, match="wrap it in a list"):  # (an array of numbers is still one matrix)
        fit_distributed(_batch(), X.toarray(), client)
