"""fit_distributed, transform_distributed: the variational core's drivers with a Dask map."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from numbers import Integral

import dask
import dask.array as da
import numpy as np
from distributed import Client, default_client
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import MAX_INT, check_choice, writable
from .._constraints import InstanceOf, Interval, StrOptions, validate_params
from ..models import BatchLDA, OnlineLDA
from ..models._priors import learn_flags
from ..models._start import initial_topics, prior_excess, prior_informed_start
from ..models._vb import expectations, is_matrix
from ..models._vb_fit import batch_loop, online_loop
from ._batch import DaskCorpusMap
from ._online import DaskMiniBatchMap, interleaved_order
from ._partitions import Partitions, check_client, resolve_client, seeding_sample
from ._tasks import transform_partition, warm_up

logger = logging.getLogger("topicvb.distributed")


WARM_UP_DTYPES = {"float32", "float64"}


def warm_up_workers(client: Client | None = None, dtypes=("float64",)) -> dict:
    """Compile the E-step and bound kernels once on every worker (``client.run``).

    Numba compiles a kernel once per process and per signature, and caches the machine code on
    disk (next to the package, or under ``NUMBA_CACHE_DIR``), so later workers on the same machine
    only load it. Warming up keeps compilation out of the first iteration and out of task timings.

    Parameters
    ----------
    client : distributed.Client, default=None
        The cluster; None uses the default client.
    dtypes : str or sequence of str, default=("float64",)
        The model dtypes to compile the kernels for: "float32", "float64" or both.

    Returns a mapping worker address -> seconds spent.
    """
    if client is None:
        try:
            client = default_client()
        except ValueError:
            raise ValueError("warm_up_workers needs a Dask client: pass client= or start one first "
                             "(Client(LocalCluster()) for this machine).") from None
    check_client(client)
    if isinstance(dtypes, str):
        dtypes = (dtypes,)
    try:
        dtypes = tuple(dtypes)
    except TypeError:
        raise TypeError(f"dtypes must be a dtype name or a sequence of them, got {type(dtypes).__name__}.") from None
    if not dtypes:
        raise ValueError(f"dtypes must name at least one of {sorted(WARM_UP_DTYPES)}, got {dtypes!r}.")
    names = []
    for d in dtypes:  # (a name, or a numpy dtype or type: np.float32)
        name = np.dtype(d).name if isinstance(d, np.dtype) or (isinstance(d, type) and issubclass(d, np.generic)) \
            else d
        check_choice(name, "warm_up_workers: each of dtypes", WARM_UP_DTYPES)
        names.append(name)
    return client.run(warm_up, tuple(dict.fromkeys(names)))


def _warm_up(model, client) -> None:
    """:func:`warm_up_workers` for a fit, said: logged at INFO before and after (the workers compile the kernels
    on first use, for seconds), and on stderr when the model is ``verbose``, as the estimators say their own
    first compilation (:meth:`topicvb.models._base.TopicModelBase._compile_notice`)."""
    name, n = type(model).__name__, len(client.nthreads())
    logger.info("warming up %d workers (compiling kernels on first use)", n)
    if model.verbose:
        sys.stderr.write(f"{name}  warming up {n} workers (compiling kernels on first use)\n")
        sys.stderr.flush()
    started = time.perf_counter()
    seconds = warm_up_workers(client, (model.dtype,))
    elapsed = time.perf_counter() - started
    slowest = max(seconds.values(), default=0.0)
    logger.info("warmed up %d workers in %.1fs (slowest worker %.1fs)", len(seconds), elapsed, slowest)
    if model.verbose:
        sys.stderr.write(f"{name}  warmed up {len(seconds)} workers in {elapsed:.1f}s (slowest worker "
                         f"{slowest:.1f}s)\n")
        sys.stderr.flush()


def _initial_topics(model, client, parts, rng, init_sample_size, eta, total=None):
    """The model's initial topics, as its ``fit`` draws them: seeded on the whole corpus (for OnlineLDA
    in visiting order) when it has at most ``init_sample_size`` documents, else on the first rows of
    every partition, scaled to the whole corpus; with a matrix prior ``eta`` they then lean towards the terms
    its rows favour and the words of the documents (of that sample) that use them, as in ``fit``
    (:func:`topicvb.models._start.prior_informed_start`)."""
    K, V, dtype = model.n_components, parts.n_terms, np.dtype(model._float)
    # (the documents: for the seeded start, and for a guided one, whose seeded topics start on the words of the
    # documents that use their seed words: without them a distributed guided fit started elsewhere than fit)
    X, whole = seeding_sample(client, parts, init_sample_size) if model.init != "random" or is_matrix(eta) else (
        None, False)
    if model.init == "random":
        lam = rng.gamma(100.0, 0.01, size=(K, V)).astype(dtype)
    elif total is not None:  # OnlineLDA: seeds scaled to the corpus size
        if whole:
            X = X[interleaved_order(parts.n_docs)]
        lam = initial_topics("seeded", X, K, rng, dtype, scale=total / X.shape[0])
    elif whole:  # the whole corpus: exactly BatchLDA's seeding
        lam = initial_topics("seeded", X, K, rng, dtype)
    else:
        sample_tokens = float(X.sum())
        lam = initial_topics("seeded", X, K, rng, dtype, scale=parts.n_tokens / sample_tokens if sample_tokens > 0
                             else 1.0)
    return np.ascontiguousarray(prior_informed_start(lam, eta, X), dtype=lam.dtype) if is_matrix(eta) else lam


def _fit_batch(model, client, parts, *, random_streams, kernel_threads, retries, max_repairs, init_sample_size,
               callback, hook):
    """BatchLDA's loop (:func:`topicvb.models._vb_fit.batch_loop`) over a :class:`DaskCorpusMap`."""
    rng = check_random_state(model.random_state)
    alpha, eta = model._resolve_priors(parts.n_terms)
    lam = _initial_topics(model, client, parts, rng, init_sample_size, eta)
    mapper = DaskCorpusMap(model, client, parts, rng, random_streams=random_streams, kernel_threads=kernel_threads,
                           retries=retries, max_repairs=max_repairs, hook=hook)
    learn_alpha, learn_eta = learn_flags(model.learn_priors, type(model).__name__)

    def report(it, bound):
        if callback is not None:
            callback({"iteration": it, "bound": bound, "seconds": mapper.timings[-1],
                      "bytes_scattered": mapper.bytes_scattered})

    try:
        lam, alpha, eta, history, it, converged = batch_loop(
            model, mapper, lam, alpha, eta, learn_alpha=learn_alpha, learn_eta=learn_eta, started=time.perf_counter(),
            on_bound=report)
    finally:
        mapper.close()
    model._warn_not_converged(it, converged)
    return {"components_": lam, "doc_topic_prior_": alpha, "topic_word_prior_": eta,
            "bound_history_": np.asarray(history), "n_iter_": it, "n_features_in_": parts.n_terms}


def _fit_online(model, client, parts, *, random_streams, kernel_threads, retries, max_repairs, init_sample_size,
                callback, hook):
    """OnlineLDA's loop (:func:`topicvb.models._vb_fit.online_loop`) over a :class:`DaskMiniBatchMap`."""
    n_docs = int(sum(parts.n_docs))
    total = n_docs if model.total_samples is None else float(model.total_samples)
    if total < n_docs:
        raise ValueError(f"total_samples={model.total_samples} is smaller than the {n_docs} documents in "
                         "the partitions; use None or the corpus size.")
    rng = check_random_state(model.random_state)
    alpha, eta = model._resolve_priors(parts.n_terms)
    lam = np.array(_initial_topics(model, client, parts, rng, init_sample_size, eta, total), order="C")
    if is_matrix(eta):
        lam += prior_excess(eta)  # (as OnlineLDA's start: the seed words' extra pseudo-counts)
    mapper = DaskMiniBatchMap(model, client, parts, rng, total, random_streams=random_streams,
                              kernel_threads=kernel_threads, retries=retries, max_repairs=max_repairs, hook=hook)
    n_workers = max(1, len(client.nthreads()))
    if min(int(model.batch_size), n_docs) < 1000 * n_workers:
        logger.info("OnlineLDA mini-batches of %d documents on %d workers: each mini-batch costs a broadcast and "
                    "a round trip (tens of ms), which will dominate; a batch_size of thousands of documents per "
                    "worker keeps the workers busy", min(int(model.batch_size), n_docs), n_workers)
    if model.restart_every > 1 and model.max_iter > 1:
        logger.warning("fit_distributed restarts every document in every pass: the fit corresponds to "
                       "OnlineLDA(restart_every=1), not to restart_every=%d", model.restart_every)
    state = {"components_": lam, "doc_topic_prior_": alpha, "topic_word_prior_": eta, "n_batch_iter_": 0,
             "n_docs_seen_": 0, "n_iter_": 0, "bound_history_": np.zeros(0), "random_state_": rng}
    timing = {"tick": time.perf_counter(), "bytes": 0}

    def report(it, means, n_batches):
        if callback is not None:
            callback({"iteration": it, "bound": means[-1], "seconds": time.perf_counter() - timing["tick"],
                      "n_batches": n_batches, "bytes_scattered": mapper.bytes_scattered - timing["bytes"]})
        timing.update(tick=time.perf_counter(), bytes=mapper.bytes_scattered)

    it, converged = online_loop(model, mapper, state, [], time.perf_counter(), on_pass=report)
    model._warn_not_converged(it, converged)
    return {**state, "n_features_in_": parts.n_terms}


# What fit_distributed's own options accept (the models' _parameter_constraints' convention).
OPTION_CONSTRAINTS = {
    "random_streams": [StrOptions({"partition", "global"})],
    "kernel_threads": [Interval(Integral, 1, MAX_INT)],
    "retries": [Interval(Integral, 0, MAX_INT)],
    "max_repairs": [Interval(Integral, 0, MAX_INT)],
    "init_sample_size": [Interval(Integral, 1, MAX_INT)],
    "callback": [InstanceOf(Callable, "a callable"), None],
}


def _check_options(model, **options) -> None:
    """fit_distributed's own options (:data:`OPTION_CONSTRAINTS`), then the model's parameters, as
    ``fit`` checks them."""
    validate_params(options, OPTION_CONSTRAINTS)
    model._check_params()


def fit_distributed(model: BatchLDA | OnlineLDA, shards, client: Client | None = None, *,
                    random_streams: str = "partition", kernel_threads: int = 1, retries: int = 3,
                    max_repairs: int = 3, init_sample_size: int = 20000, callback=None,
                    _hook=None) -> BatchLDA | OnlineLDA:
    """Fit a :class:`~topicvb.BatchLDA` or an :class:`~topicvb.OnlineLDA` on a corpus split into
    partitions held by Dask workers.

    The model ends up as after ``model.fit(X)`` on the stacked partitions: ``components_``,
    ``bound_history_``, ``n_iter_``, ``doc_topic_prior_``, ``topic_word_prior_`` and
    ``n_features_in_`` are set (and, for OnlineLDA, ``n_batch_iter_``, ``n_docs_seen_`` and
    ``random_state_``), so ``transform``, ``save`` and the inspection helpers work. Every
    parameter of the model is honoured except ``n_jobs`` (see ``kernel_threads``),
    ``checkpoint_path`` (a distributed fit does not write checkpoints) and BatchLDA's ``moves``
    (a move needs every cell's responsibilities in one process: the result is that of
    ``fit(X)`` with ``moves=False``). A matrix ``topic_word_prior`` (guided topics) is used as
    ``fit`` uses it (its shape must be (n_components, the partitions' number of terms)); the workers
    receive only exp(E[log beta]), zero at the excluded entries. As ``fit``, it warns of dead topics
    (:class:`~topicvb.exceptions.DeadTopicWarning`) and of seeded topics that lost their seed words
    (:class:`~topicvb.exceptions.SeedLostWarning`).

    Disk: to survive a lost worker, a BatchLDA fit keeps the topics of every iteration (exp(E[log beta])
    and a scale per term) in a temporary folder on the client, to replay the E-steps of partitions that
    are read again: max_iter x (n_components + 1) x n_features x 8 bytes (float64; half for float32) at
    most, e.g. 16 GB for 100 iterations of 200 topics over 100,000 terms. Nothing is written when no
    partition can be read again (every partition a matrix or a future held in memory: a lost worker
    stops the fit then), and the folder is removed when the fit ends, whichever way it ends.

    An OnlineLDA's mini-batches take from every partition in proportion to its size
    (:func:`interleaved_order`); each costs a broadcast of the topics and a round trip, so choose
    ``batch_size`` large (thousands of documents per worker). ``shuffle=True`` reorders each
    partition on its worker (documents do not move between workers).

    Parameters
    ----------
    model : BatchLDA or OnlineLDA
        The estimator to fit (its parameters are used as given; it is fitted in place).
    shards : list, dask.bag.Bag or dask.array.Array
        The partitions, in document order: paths of ``.npz`` files written by
        :func:`scipy.sparse.save_npz` or of UCI docword files (read by the workers themselves, so
        the files must be visible to every worker), sparse or dense count matrices (scattered to
        the workers once), dask delayed objects or futures of matrices (or an array of delayed
        objects, such as ``Array.to_delayed()``), a dask bag whose partitions are lists of sparse rows
        or matrices, or a dask array chunked along its rows only (each row block a partition). Every
        partition is checked as ``fit`` checks its input (index structure, finite non-negative counts
        within the model dtype's range), each error naming the partition.
    client : distributed.Client, default=None
        The cluster to use. None uses the default client when there is one, and otherwise starts a
        ``LocalCluster`` with one single-threaded worker process per core for the duration of the
        call.
    random_streams : {"partition", "global"}, default="partition"
        How the E-step restarts are drawn (see the module notes): independent streams per
        partition and iteration or mini-batch (parallel; the result depends on the seed and the
        partitioning), or pieces of the model's single random stream. With "global", a BatchLDA
        equals ``model.fit(X)`` (the draws form a sequential chain across partitions) and an
        OnlineLDA with ``shuffle=False`` equals ``model.fit(X[interleaved_order(n_docs)])`` with
        ``restart_every=1`` (the client draws each mini-batch's restarts and sends them with its
        tasks; the runner restarts every document in every pass).
    kernel_threads : int, default=1
        Numba threads per task. The parallelism comes from the partitions: give each worker as
        many Dask threads as cores, or run one single-threaded worker per core.
    retries : int, default=3
        Retries of a task that raised (passed to ``client.submit``).
    max_repairs : int, default=3
        Times an iteration (or mini-batch) may be repaired after losing workers before the fit
        gives up.
    init_sample_size : int, default=20000
        ``init="seeded"`` chooses its seed documents among the whole corpus when it has at most this
        many documents (exactly as ``fit``, the partitions are gathered once) and otherwise
        among the first documents of every partition, this many in all.
    callback : callable, default=None
        Called on the client after every iteration (for OnlineLDA: every pass) with a dict
        (``iteration``, ``bound``, ``seconds``: wall time of the pass, ``bytes_scattered``: bytes
        of topics broadcast in it; OnlineLDA adds ``n_batches``).

    Returns
    -------
    model : BatchLDA or OnlineLDA
        The fitted model. A failed fit leaves it as it was.

    Raises
    ------
    TypeError
        If ``model`` is not a BatchLDA or an OnlineLDA, or a partition has an unsupported type.
    ValueError
        For bad parameters, partitions of different widths, a partition with a bad index structure,
        negative or non-finite counts, counts beyond what the model's dtype holds (as ``fit``), or an
        OnlineLDA ``total_samples`` below the number of documents.
    """
    if isinstance(model, OnlineLDA):
        fit = _fit_online
    elif isinstance(model, BatchLDA):
        fit = _fit_batch
    else:
        raise TypeError(f"fit_distributed fits a BatchLDA or an OnlineLDA, got {type(model).__name__}.")
    _check_options(model, random_streams=random_streams, kernel_threads=kernel_threads, retries=retries,
                   max_repairs=max_repairs, init_sample_size=init_sample_size, callback=callback)
    labels = model._topic_labels()  # (checked before the work, as fit does)
    client, cleanup = resolve_client(client)
    try:
        _warm_up(model, client)
        parts = Partitions(client, shards, model.dtype, retries, caller="fit_distributed")
        fitted = fit(model, client, parts, random_streams=random_streams, kernel_threads=kernel_threads,
                     retries=retries, max_repairs=max_repairs, init_sample_size=init_sample_size, callback=callback,
                     hook=_hook)
    finally:
        if cleanup is not None:
            cleanup()
    return _set_fitted(model, fitted, labels)


def _set_fitted(model, fitted, labels):
    """Give ``model`` a distributed fit's attributes as ``fit`` does: its warnings first (dead topics, lost seed
    words; a warning turned into an error leaves the model as it was), then the attributes, the topic labels among
    them, and no ``feature_names_in_`` (partitions have no column names)."""
    fitted.setdefault("topic_labels_", labels)  # (as every fit sets them)
    model._warn_fitted(fitted)
    if hasattr(model, "feature_names_in_"):
        delattr(model, "feature_names_in_")
    for name, value in fitted.items():
        setattr(model, name, value)
    return model


def transform_distributed(model, shards, client: Client | None = None, *, kernel_threads: int = 1) -> da.Array:
    """Document-topic proportions of partitioned documents, computed on the workers.

    Parameters
    ----------
    model : BatchLDA or OnlineLDA
        A fitted variational LDA model.
    shards : list or dask.bag.Bag
        The partitions, as for :func:`fit_distributed`.
    client : distributed.Client, default=None
        The cluster; None uses the default client (start one first, e.g. ``Client(LocalCluster())``).
    kernel_threads : int, default=1
        Numba threads per task.

    Returns
    -------
    doc_topic : dask.array.Array of shape (n_docs, n_components)
        One chunk per partition, already being computed on the workers; rows sum to 1 and equal
        ``model.transform`` of the stacked partitions. Call ``.compute()`` to gather it, or keep
        it distributed (``.persist()``, ``.to_zarr(...)``).
    """
    check_is_fitted(model)
    model._check_params_after_fit()  # (a parameter set after fit, as transform checks it)
    if not hasattr(model, "max_doc_update_iter"):
        raise TypeError(f"transform_distributed needs a variational LDA model (BatchLDA, OnlineLDA), got "
                        f"{type(model).__name__}.")
    if client is None:
        try:
            client = default_client()
        except ValueError:
            raise ValueError("transform_distributed needs a Dask client: pass client= or start one first "
                             "(Client(LocalCluster()) for this machine).") from None
    check_client(client)
    validate_params({"kernel_threads": kernel_threads}, OPTION_CONSTRAINTS)
    fitted = model._fitted_float  # (as model.transform: the fitted dtype and topics, whatever was set since the fit)
    parts = Partitions(client, shards, np.dtype(fitted).name, retries=3, caller="transform_distributed")
    if parts.n_terms != model.n_features_in_:
        raise ValueError(f"The partitions have {parts.n_terms} terms, but this {type(model).__name__} was fitted on "
                         f"{model.n_features_in_}. Transform with the vectorizer used for fit.")
    # (writable: a model loaded read-only would have the kernels compiled again, see topicvb._validation.writable)
    _, ebeta_t, _ = expectations(writable(np.asarray(model.components_)),
                                 writable(getattr(model, "topic_word_prior_", None)))
    topics = client.scatter([ebeta_t], broadcast=True, hash=False)[0]
    alpha = writable(np.asarray(model.doc_topic_prior_, dtype=np.float64))
    hosts = parts.where()
    chunks = []
    for p, X in enumerate(parts.futures):
        opts = {"workers": [hosts[p]], "allow_other_workers": True} if hosts[p] else {}
        f = client.submit(transform_partition, X, topics, alpha, model._doc_updates(), kernel_threads, fitted,
                          pure=False, retries=3, **opts)
        chunks.append(da.from_delayed(dask.delayed(f), shape=(parts.n_docs[p], model.components_.shape[0]),
                                      dtype=fitted))
    return da.concatenate(chunks, axis=0)
