"""What the command line shows while it works: one policy for every long stage.

- On a terminal (standard error is a tty): a progress bar (tqdm, on stderr) for every long stage:
  counting text (the Vectorizer's own bar), fitting (a bar over iterations), the measures of
  ``evaluate``, writing a report, inferring topics, and the candidates of ``select-k``.
- Not on a terminal (a pipe, a file, a CI log): no bars.
- ``-q/--quiet``: no bars and no status lines ("... written to ..."); results, warnings and errors
  are still shown.
- ``-v``: log lines too (topicvb's INFO records, one line per fit iteration); ``-vv``: debug records.
- Warnings (Python warnings and topicvb's logged warnings) are one line each on stderr,
  ``topicvb: warning: ...``, written so that they do not break a bar.

The fit bar is fed by the line every estimator writes to the debug log after each iteration
(``TopicModelBase._report``: "CollapsedLDA  iter 12/100  bound -81234.5 ..."), so the CLI asks
no estimator for a callback and the models stay silent (``verbose=0``).

A first Ctrl-C during a fit stops it after the current iteration, and the estimator says so with a
``RuntimeWarning``; :class:`Progress` records it (``interrupted``), so ``fit`` can save the model,
say so and exit with status 130, and commands that cannot use a partial fit stop at once.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import time
import warnings

logger = logging.getLogger("topicvb.cli")

# The logger and the line of TopicModelBase._report (one per iteration, always at DEBUG level).
ITERATION_LOGGER = "topicvb.models"
_ITERATION_LINE = re.compile(r"^(?P<model>\w+)\s+iter (?P<it>\d+)/(?P<max>\d+)\s+bound (?P<bound>\S+)")
# The RuntimeWarning an estimator gives after a first Ctrl-C (topicvb.models._checkpoint.interruptible).
_INTERRUPTED = "was interrupted (Ctrl-C)"


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (then progress bars are shown)."""
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False


COMPILING = "compiling kernels (first run only)"


def compilation_watch(on_start, on_end):
    """A context manager that calls ``on_start(name)`` and ``on_end(name, seconds)`` around each
    compilation of a numba kernel within it (top-level compilations only).

    The place where the command line learns that a first run is compiling kernels, to say
    "compiling kernels (first run only)" instead of showing a frozen bar, and to keep compile
    time out of the fit time. The cold-start work provides it, as
    ``topicvb._jit.watch_compilation(on_start, on_end)`` (nothing outside ``_kernels/`` and
    ``_jit`` imports numba); until then this is a context manager that does nothing, and the fit
    time line separates the start-up (time before the first iteration) instead.
    """
    try:
        from topicvb import _jit  # noqa: PLC0415  (provided by the cold-start work)
    except ImportError:
        return contextlib.nullcontext()
    watch = getattr(_jit, "watch_compilation", None)
    if watch is None:
        return contextlib.nullcontext()
    return watch(on_start, on_end)


class FitTimer:
    """When a fit started, when its first iteration was reported and when it ended."""

    def __init__(self):
        self.start = time.perf_counter()
        self.first = None  # time of the first iteration line
        self.ticks = 0  # iteration lines seen
        self.end = None
        self.compile_s = 0.0  # seconds spent compiling kernels (when topicvb._jit reports them)

    def tick(self) -> None:
        if self.first is None:
            self.first = time.perf_counter()
        self.ticks += 1

    def stop(self) -> None:
        self.end = time.perf_counter()

    @property
    def total(self) -> float:
        return (self.end or time.perf_counter()) - self.start

    def startup(self) -> float:
        """Seconds before the first iteration began (checks, initialisation and, on a first run,
        kernel compilation): the time to the first iteration line less one iteration's time."""
        if self.first is None or self.ticks < 2:
            return 0.0
        end = self.end or time.perf_counter()
        per_iteration = (end - self.first) / (self.ticks - 1)
        return max(0.0, self.first - self.start - per_iteration)

    def describe(self, n_iter: int) -> str:
        """``"20 iterations in 0.7 s"``, with compile time (or else a long start-up) apart: a first
        run's compilation is not fit time."""
        plural = "s" if n_iter != 1 else ""
        if self.compile_s >= 0.05:
            return (f"{n_iter} iteration{plural} in {max(self.total - self.compile_s, 0.0):.1f} s "
                    f"(+ {self.compile_s:.1f} s compiling kernels, first run only)")
        startup = self.startup()
        if startup >= 1.0 and startup > 0.25 * self.total:
            return (f"{n_iter} iteration{plural} in {self.total - startup:.1f} s (+ {startup:.1f} s start-up, "
                    "including any first-run kernel compilation)")
        return f"{n_iter} iteration{plural} in {self.total:.1f} s"


class _LogHandler(logging.Handler):
    """topicvb's log records on stderr: warnings always, INFO with -v, DEBUG with -vv."""

    def __init__(self, progress, level):
        super().__init__(level)
        self.progress = progress

    def emit(self, record):
        try:
            message = record.getMessage()
            if record.name.startswith(ITERATION_LOGGER) and _ITERATION_LINE.match(message):
                return  # the iteration handler shows these (with -v)
            if record.levelno >= logging.ERROR:
                line = f"topicvb: error: {message}"
            elif record.levelno >= logging.WARNING:
                line = f"topicvb: warning: {message}"
            else:
                line = f"{record.levelname.lower()}: {record.name}: {message}"
            self.progress.write(line)
        except Exception:  # pragma: no cover - logging must never raise
            self.handleError(record)


class _IterationHandler(logging.Handler):
    """Feeds the fit bar from the estimators' per-iteration debug lines (and shows them with -v)."""

    def __init__(self, progress, bar, timer, on_new_fit=None):
        super().__init__(logging.DEBUG)
        self.progress, self.bar, self.timer, self.on_new_fit = progress, bar, timer, on_new_fit
        self.last = None

    def emit(self, record):
        try:
            message = record.getMessage()
            m = _ITERATION_LINE.match(message)
            if m is None:
                return
            it, max_iter = int(m["it"]), int(m["max"])
            if self.last is not None and it <= self.last:  # another fit began (select-k fits one per K)
                if self.on_new_fit is not None:
                    self.on_new_fit()
                self.bar.reset(total=max_iter)
            self.last = it
            self.timer.tick()
            self.bar.set_description_str(m["model"], refresh=False)
            self.bar.total = max_iter
            self.bar.set_postfix_str(f"bound {m['bound']}", refresh=False)
            self.bar.update(min(it, max_iter) - self.bar.n)  # redraws at most every tqdm mininterval
            if self.progress.verbose >= 1:
                self.progress.write(message)
        except Exception:  # pragma: no cover - logging must never raise
            self.handleError(record)


class _Steps:
    """A bar over the named steps of a command (``with steps.step("coherence"): ...``)."""

    def __init__(self, progress, bar, title):
        self.progress, self.bar, self.title = progress, bar, title

    @contextlib.contextmanager
    def step(self, name: str):
        self.bar.set_description_str(f"{self.title}: {name}", refresh=True)
        logger.info("%s: %s ...", self.title, name)
        t0 = time.perf_counter()
        yield
        logger.info("%s: %s done in %.1f s", self.title, name, time.perf_counter() - t0)
        self.bar.update(1)


class Progress:
    """The output policy of one command: bars, status lines, log lines, warnings, Ctrl-C.

    Parameters
    ----------
    quiet : bool
        ``-q``: no bars, no status lines.
    verbose : int
        ``-v`` count: 1 adds INFO log lines and one line per fit iteration, 2 debug records.
    """

    def __init__(self, quiet: bool = False, verbose: int = 0):
        self.quiet = bool(quiet)
        self.verbose = 0 if self.quiet else int(verbose or 0)
        self.bars = not self.quiet and stderr_is_terminal()
        self.interrupted = False  # a fit stopped early on Ctrl-C (its RuntimeWarning was seen)
        self.abort_on_interrupt = False  # turn that warning into KeyboardInterrupt (no use for a partial fit)

    # ------------------------------------------------------------------ lines
    def write(self, line: str) -> None:
        """One line on stderr that does not break an active bar."""
        if self.bars:
            from tqdm import tqdm

            tqdm.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def note(self, line: str) -> None:
        """A remark on stderr (which column was read, ...), left out with -q."""
        if not self.quiet:
            self.write(line)

    def status(self, line: str) -> None:
        """A status line on stdout ("... written to ..."), left out with -q."""
        if not self.quiet:
            print(line, flush=True)

    @property
    def vectorizer_verbose(self) -> int:
        """The ``verbose`` a Vectorizer gets: 1 (its bar) on a terminal, else 0."""
        return 1 if self.bars else 0

    # ------------------------------------------------------------------ bars
    def _bar(self, **kwargs):
        from tqdm import tqdm

        return tqdm(disable=not self.bars, leave=False, file=sys.stderr, dynamic_ncols=True, **kwargs)

    @contextlib.contextmanager
    def steps(self, title: str, total: int):
        """A bar over ``total`` named steps (see :class:`_Steps`)."""
        bar = self._bar(total=total, desc=title, unit="step")
        try:
            yield _Steps(self, bar, title)
        finally:
            bar.close()

    @contextlib.contextmanager
    def stage(self, name: str):
        """One long stage without a count (reading a corpus, writing a report): a status line on a
        terminal while it runs, a log line with -v. Yields a function that takes the status line
        away early (before a bar of its own, such as the Vectorizer's, starts)."""
        bar = self._bar(total=None, desc=name, bar_format="{desc} ...")
        logger.info("%s ...", name)
        t0 = time.perf_counter()
        try:
            yield bar.close
        finally:
            bar.close()
        logger.info("%s: %.1f s", name, time.perf_counter() - t0)

    @contextlib.contextmanager
    def fitting(self, model, *, fits: int = 1, label: str = ""):
        """A bar over the iterations of the fits made in the block; yields a :class:`FitTimer`.

        ``fits`` > 1 (``select-k``) adds a bar over the fits, advanced when a new fit begins.
        """
        name = type(model).__name__
        max_iter = getattr(model, "max_iter", None)
        outer = self._bar(total=fits, desc=label or "fits", unit="fit") if fits > 1 else None
        bar = self._bar(total=max_iter if isinstance(max_iter, int) else None, desc=name, unit="it")
        timer = FitTimer()
        handler = _IterationHandler(self, bar, timer, on_new_fit=None if outer is None else lambda: outer.update(1))

        def compiling(kernel):
            bar.set_description_str(COMPILING, refresh=True)
            logger.info("%s: %s", COMPILING, kernel)

        def compiled(kernel, seconds):
            timer.compile_s += seconds
            bar.set_description_str(name, refresh=True)

        log = logging.getLogger(ITERATION_LOGGER)
        old_level = log.level
        log.setLevel(logging.DEBUG)
        log.addHandler(handler)
        try:
            with compilation_watch(compiling, compiled):
                yield timer
        finally:
            timer.stop()
            log.removeHandler(handler)
            log.setLevel(old_level)
            bar.close()
            if outer is not None:
                outer.close()

    # ------------------------------------------------------------------ session
    def _show_warning(self, message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if issubclass(category, RuntimeWarning) and _INTERRUPTED in text:
            self.interrupted = True
            if self.abort_on_interrupt:
                raise KeyboardInterrupt
            return  # the command says what happened (fit: what was saved where)
        self.write("topicvb: warning: " + " ".join(text.split()))

    @contextlib.contextmanager
    def session(self):
        """Within the block: topicvb's log records and Python warnings shown by this policy.

        Everything is restored on exit (the command line also runs inside tests and notebooks).
        """
        level = logging.DEBUG if self.verbose >= 2 else logging.INFO if self.verbose == 1 else logging.WARNING
        handler = _LogHandler(self, level)
        top = logging.getLogger("topicvb")
        old_level = top.level
        top.addHandler(handler)
        if top.getEffectiveLevel() > level or top.level == logging.NOTSET:
            top.setLevel(level)
        try:
            with warnings.catch_warnings():
                warnings.showwarning = self._show_warning
                # whatever the filters say, the interruption notice must reach _show_warning
                warnings.filterwarnings("always", message=".*" + re.escape(_INTERRUPTED), category=RuntimeWarning)
                yield self
        finally:
            top.removeHandler(handler)
            top.setLevel(old_level)
