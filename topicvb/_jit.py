"""The one-time cost of compiling the numba kernels: whether it is still due, and saying so when it happens.

The kernels of :mod:`topicvb._kernels` are compiled on their first use and kept in numba's disk cache
(``cache=True``: ``__pycache__`` beside the package, or ``$NUMBA_CACHE_DIR``), so only the first fit on
a machine (after installing or upgrading topicvb) pays for compilation: a few seconds to a few tens of
seconds depending on the estimator (``benchmarks/results/coldstart.md``). This module makes that cost
visible:

* :func:`uncompiled` / :func:`is_compiled` tell whether the kernels an estimator calls are already
  compiled, in this process or in the disk cache (for this machine and these sources), without
  compiling or loading anything;
* :func:`compile_notice` is a context manager that watches numba's compilations inside its block and,
  when the first one starts, logs ``compiling kernels (first run only) ...`` (INFO), then one line per
  kernel compiled (INFO) and a summary at the end; a ``progress`` callback can drive a progress bar.
  Nothing is logged when every kernel comes from the cache;
* :func:`estimator_notice` is :func:`compile_notice` for one estimator, with the expected number of
  kernels (for ``progress``); :func:`watch_compilation` only calls back (the command line's hook);
* :func:`precompile` pays the cost ahead of time (a tiny fit of each estimator), e.g. when building a
  container image.

Kernel names are ``"module.function"`` within :mod:`topicvb._kernels` (``"estep._doc_updates"``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import logging
import threading
import time
from typing import Callable, Iterable

logger = logging.getLogger(__name__)

MESSAGE = "compiling kernels (first run only) ..."
_active = threading.local()  # the compile_notice in effect in this thread

# The kernels each estimator's fit (with the default parameters, moves and learned priors included) and
# its transform may call from Python: the ones whose compiled code must exist; each holds, compiled in,
# every kernel it calls. (tests/kernels/test_jit.py checks that real fits call no others.) Parameters
# outside the defaults may need other compiled versions of the same kernels (e.g. dtype="float32", or
# e_step_acceleration=None for the VB E-step).
_VB_FIT = ("estep._doc_updates", "sparse.column_index", "sparse._accumulate_columns", "special.digamma_row",
           "bounds._row_block_sums", "bounds._totals_from", "bounds._term_blocks", "bounds._sum_blocks",
           "bounds._elog_rows", "bounds._rescaled_blocks", "seeding._candidates", "seeding._nearest",
           "seeding._cluster_means", "cvb0._sweep")
_VB_TRANSFORM = ("bounds._elog_rows", "bounds._rescaled_blocks")
KERNELS = {
    "BatchLDA": {"fit": _VB_FIT, "transform": _VB_TRANSFORM},
    "OnlineLDA": {"fit": _VB_FIT + ("bounds._svi_blocks", "bounds._doc_bounds"), "transform": _VB_TRANSFORM},
    "PLSA": {"fit": ("plsa._sweep_parts", "plsa.balanced_bounds", "plsa._normalise_row_chunks", "plsa._clamp_blocks",
                     "plsa._inverse_sums", "plsa._scale_blocks", "plsa._log_likelihoods", "seeding._candidates",
                     "seeding._nearest", "seeding._cluster_means", "cvb0._sweep"),
             "transform": ("plsa._fold_in_chunks",)},
    "CollapsedLDA": {"fit": ("cvb0._sweep", "cvb0._document_count_chunks", "cvb0._term_count_chunks",
                             "plsa._log_likelihoods", "sparse.column_index", "seeding._candidates",
                             "seeding._nearest", "seeding._cluster_means", "priors._gain_blocks",
                             "priors._gain_sum_blocks", "priors._cell_variance_parts"),
                     "transform": ("cvb0._sweep_chunks",)},
    "HDP": {"fit": ("cvb0._sweep", "cvb0._document_count_chunks", "cvb0._term_count_chunks", "plsa._log_likelihoods",
                    "sparse.column_index", "seeding._candidates", "seeding._nearest", "seeding._cluster_means",
                    "priors._cell_variance_parts", "hdp._loggamma_sum_blocks"),
            "transform": ("cvb0._sweep_chunks",)},
    "StochasticCollapsedLDA": {"fit": ("cvb0._scvb0_chunks", "cvb0._sweep_chunks", "cvb0._document_count_chunks",
                                       "cvb0._term_count_chunks", "cvb0._sweep", "plsa._log_likelihoods",
                                       "sparse.column_index"),
                               "transform": ("cvb0._sweep_chunks",)},
}
PHASES = ("fit", "transform")


def _estimator_name(estimator) -> str:
    if isinstance(estimator, str):
        name = estimator
    elif isinstance(estimator, type):
        name = estimator.__name__
    else:
        name = type(estimator).__name__
    if name not in KERNELS:
        raise ValueError(f"estimator must be one of {sorted(KERNELS)} (a name, class or instance), got {name!r}.")
    return name


def kernel_names(estimator, phases: Iterable[str] = PHASES) -> list[str]:
    """The kernels (``"module.function"``) that ``estimator`` (a name, class or instance) calls in ``phases``."""
    name = _estimator_name(estimator)
    phases = tuple(phases)
    for phase in phases:
        if phase not in PHASES:
            raise ValueError(f"phases must hold only {PHASES}, got {phase!r}.")
    out = []
    for phase in phases:
        out += [k for k in KERNELS[name][phase] if k not in out]
    return out


def _dispatcher(name: str):
    module, function = name.rsplit(".", 1)
    return getattr(importlib.import_module(f"topicvb._kernels.{module}"), function)


def _cached_on_disk(dispatcher) -> bool:
    """Whether numba's disk cache holds a version of ``dispatcher`` for this machine and its current source
    (any signature). Reads the cache's small index file; compiles and loads nothing."""
    try:
        cache_file = dispatcher._cache._cache_file  # (numba's own cache: absent when caching is off)
        index = cache_file._load_index()  # {} when missing or stale (the source file changed)
        if not index:
            return False
        magic = dispatcher.targetctx.codegen().magic_tuple()
        code = hashlib.sha256(dispatcher.py_func.__code__.co_code).hexdigest()
        return any(len(key) == 3 and key[1] == magic and key[2][0] == code for key in index)
    except Exception:  # another numba version's internals: say "not known to be compiled"
        logger.debug("could not read numba's cache index of %s", dispatcher, exc_info=True)
        return False


def uncompiled(estimator, phases: Iterable[str] = PHASES) -> list[str]:
    """The kernels ``estimator`` needs in ``phases`` that are neither compiled in this process nor in numba's
    disk cache for this machine and these sources (so its next fit would compile them). Any compiled
    signature counts, so a first fit with other dtypes than before may still compile."""
    out = []
    for name in kernel_names(estimator, phases):
        d = _dispatcher(name)
        if not getattr(d, "overloads", True) and not _cached_on_disk(d):  # (NUMBA_DISABLE_JIT: plain functions)
            out.append(name)
    return out


def is_compiled(estimator, phases: Iterable[str] = PHASES) -> bool:
    """Whether every kernel ``estimator`` needs in ``phases`` is compiled (see :func:`uncompiled`)."""
    return not uncompiled(estimator, phases)


class _Watcher:
    """numba ``numba:compile`` listener: top-level compilations started from one thread."""

    def __init__(self, notice):
        self.notice, self.thread, self.depth = notice, threading.get_ident(), 0
        self.started = None

    def on_start(self, event):
        if threading.get_ident() != self.thread:
            return
        if self.depth == 0:
            self.started = time.perf_counter()
            self.notice._started(event.data["dispatcher"])
        self.depth += 1

    def on_end(self, event):
        if threading.get_ident() != self.thread:
            return
        self.depth -= 1
        if self.depth == 0:
            self.notice._finished(event.data["dispatcher"], time.perf_counter() - self.started)


class _Notice:
    def __init__(self, what, expected, log, progress):
        self.what, self.expected, self.log, self.progress = what, expected, log, progress
        self.done, self.first, self.total = 0, None, 0.0

    def _started(self, dispatcher):
        if self.first is None:
            self.first = time.perf_counter()
            self.log.info("%s%s", MESSAGE, f" ({self.what})" if self.what else "")

    def _finished(self, dispatcher, seconds):
        self.done += 1
        self.total += seconds
        name = f"{dispatcher.py_func.__module__.replace('topicvb._kernels.', '')}.{dispatcher.py_func.__name__}"
        of = f"/{self.expected}" if self.expected and self.done <= self.expected else ""
        self.log.info("compiled kernel %d%s %s in %.1f s", self.done, of, name, seconds)
        if self.progress is not None:
            self.progress(self.done, self.expected, name, seconds)


@contextlib.contextmanager
def compile_notice(what: str = "", *, expected: int | None = None, log: logging.Logger | None = None,
                   progress: Callable[[int, int | None, str, float], None] | None = None):
    """Say so when numba compiles kernels inside the ``with`` block (this thread's compilations only).

    On the first compilation: ``compiling kernels (first run only) ... (what)`` at INFO on ``log`` (this
    module's logger by default); after each kernel: ``compiled kernel 3/7 estep._doc_updates in 4.1 s``
    (INFO) and ``progress(done, expected, name, seconds)`` when given; at the end of the block, when
    anything was compiled, the total. Nothing is logged when no kernel is compiled (all came from the
    cache). ``expected`` is the number of kernels expected to compile (e.g. ``len(uncompiled(est))``),
    only used in the messages and passed to ``progress``.

    Inside another ``compile_notice`` block of the same thread (the command line's around an estimator's),
    it does nothing of its own: the outer one reports.

    Yields the notice, whose ``done`` attribute counts the kernels compiled so far.
    """
    from numba.core import event

    outer = getattr(_active, "notice", None)
    if outer is not None:
        yield outer
        return
    notice = _Notice(what, expected, log or logger, progress)
    watcher = _Watcher(notice)
    listener = _listener(watcher)
    event.register("numba:compile", listener)
    _active.notice = notice
    try:
        yield notice
    finally:
        _active.notice = None
        event.unregister("numba:compile", listener)
        if notice.first is not None:
            notice.log.info("compiled %d kernel(s) in %.1f s (%.1f s in all, once per installation; later runs "
                            "load them from numba's cache)", notice.done, notice.total,
                            time.perf_counter() - notice.first)


def _listener(watcher):
    from numba.core import event  # (here, so that importing this module does not import numba)

    class Listener(event.Listener):
        def on_start(self, ev):
            watcher.on_start(ev)

        def on_end(self, ev):
            watcher.on_end(ev)

    return Listener()


@contextlib.contextmanager
def watch_compilation(on_start: Callable[[str], None], on_end: Callable[[str, float], None]):
    """Call ``on_start(name)`` when numba starts compiling a kernel inside the ``with`` block (top-level
    compilations of this thread only) and ``on_end(name, seconds)`` when it is done; ``name`` is
    ``"module.function"``. The command line's hook (``topicvb._cli_progress.compilation_watch``): it shows
    "compiling kernels (first run only)" instead of a frozen bar and keeps compile time out of the fit
    time. Unlike :func:`compile_notice` it logs nothing itself, and it works inside one."""
    from numba.core import event

    state = {"depth": 0, "started": 0.0}
    thread = threading.get_ident()

    def name_of(event_):
        f = event_.data["dispatcher"].py_func
        return f"{f.__module__.replace('topicvb._kernels.', '')}.{f.__name__}"

    class Listener(event.Listener):
        def on_start(self, ev):
            if threading.get_ident() != thread:
                return
            if state["depth"] == 0:
                state["started"] = time.perf_counter()
                on_start(name_of(ev))
            state["depth"] += 1

        def on_end(self, ev):
            if threading.get_ident() != thread:
                return
            state["depth"] -= 1
            if state["depth"] == 0:
                on_end(name_of(ev), time.perf_counter() - state["started"])

    listener = Listener()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)


def estimator_notice(estimator, phases: Iterable[str] = ("fit",), *, log: logging.Logger | None = None,
                     progress=None):
    """:func:`compile_notice` for ``estimator`` (a name, class or instance): ``what`` is its class name and
    ``expected`` the number of its kernels in ``phases`` not yet compiled (:func:`uncompiled`)."""
    name = _estimator_name(estimator)
    return compile_notice(name, expected=len(uncompiled(name, phases)) or None, log=log, progress=progress)


def precompile(estimators: Iterable[str] | None = None, *, dtype: str = "float64",
               progress=None) -> dict[str, float]:
    """Compile (or load) the kernels of ``estimators`` (names; default: all) now, by a tiny fit and
    transform of each, so that later first fits find them in numba's cache. Returns the seconds each took.
    """
    import warnings

    import numpy as np
    import scipy.sparse as sp

    import topicvb

    names = list(KERNELS) if estimators is None else [_estimator_name(e) for e in estimators]
    rng = np.random.default_rng(0)
    X = sp.random(60, 40, density=0.2, format="csr", random_state=0,
                  data_rvs=lambda n: rng.integers(1, 5, n).astype(np.float64))
    out = {}
    for name in names:
        started = time.perf_counter()
        with estimator_notice(name, PHASES, progress=progress), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = getattr(topicvb, name)(3, max_iter=2, random_state=0, dtype=dtype).fit(X)
            model.transform(X[:5])
        out[name] = time.perf_counter() - started
    return out
