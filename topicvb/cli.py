"""The ``topicvb`` command: demo, vectorize, fit, topics, evaluate, report, infer, select-k.

Conventions (those of git, pip and scikit-learn tools):

- ``topicvb --version``; ``topicvb COMMAND --help`` describes the command and shows every default.
- Errors are one line on stderr with a non-zero exit status (1 for a failed command, 2 for a
  usage error, an option value out of range included), never a traceback; warnings are one line
  each (``topicvb: warning: ...``).
- Progress (:mod:`topicvb._cli_progress`): bars on stderr for every long stage when it is a
  terminal, none when it is not, none with ``-q`` (which also drops the status lines); ``-v`` adds
  log lines (one per fit iteration), ``-vv`` debug records.
- Ctrl-C: a first one during ``fit`` stops after the current iteration, saves that model, says
  what was saved where and exits with status 130; at any other point (or a second Ctrl-C) the
  command stops with status 130 and a line saying so.
- A closed pipe (``topicvb infer ... | head -1``) ends the command quietly with status 141
  (128 + SIGPIPE, what the shell reports for a command killed by it).

Every check that needs no input comes first, in this order: numeric options
(:func:`check_numeric_options`, with the constraint objects the estimators declare:
``n_components (--k) must be an int in [1, 2147483647], got 0.``), optional dependencies
(:func:`check_optional_dependencies`: ``select-k --plot`` without matplotlib fails at once), and
output paths (:func:`check_output_paths`): an empty name, a folder, a missing or read-only
folder, a device, two outputs with one name, or an output that is one of the command's inputs
is refused with one line naming the option and the path, so no input is ever overwritten and no
work is lost to a bad name. Files are written atomically (a temporary file renamed into place)
with the mode the umask gives.

Inputs (:mod:`topicvb._cli_inputs`): the format comes from the name; CSV and JSON lines need no
``--text-column`` when the text column is obvious; ``--encoding`` applies to everything read as
text; ``--vocab MODEL.npz|CORPUS.npz`` counts an input over a fitted model's or a corpus's
vocabulary (the held-out path: ``topicvb vectorize test/ --vocab model.npz -o test.npz``); an option
that does not apply to the input is ignored with a warning, never silently.

Layout: this module is the entry point (:func:`main`: the checks above, exit statuses, one-line
errors); :mod:`topicvb._cli_parser` builds the parser (options, help texts, ``--version``) and
:mod:`topicvb._cli_commands` does each command's work (``cmd_NAME``). The names of both that
this module has always offered (``build_parser``, the ``cmd_*`` functions, ``TEXT_OPTIONS_NOTE``)
are still imported from here.
"""

from __future__ import annotations

import codecs
import logging
import os
import sys

from ._cli_commands import (
    INTERRUPTED,
    USAGE_ERROR,
    cmd_demo,
    cmd_evaluate,
    cmd_fit,
    cmd_infer,
    cmd_report,
    cmd_select_k,
    cmd_topics,
    cmd_vectorize,
)
from ._cli_deps import check_optional_dependencies
from ._cli_models import check_numeric_options
from ._cli_output import check_output_paths
from ._cli_parser import TEXT_OPTIONS_NOTE, _version, build_parser
from ._cli_progress import Progress
from .datasets._builtin import DOCSTRING_STOP_WORDS  # the demo's stop words (also public there)

__all__ = [
    "BROKEN_PIPE",
    "DOCSTRING_STOP_WORDS",
    "INTERRUPTED",
    "TEXT_OPTIONS_NOTE",
    "USAGE_ERROR",
    "build_parser",
    "cmd_demo",
    "cmd_evaluate",
    "cmd_fit",
    "cmd_infer",
    "cmd_report",
    "cmd_select_k",
    "cmd_topics",
    "cmd_vectorize",
    "main",
]

logger = logging.getLogger(__name__)

BROKEN_PIPE = 141  # 128 + SIGPIPE


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()


def _stdout_closed() -> int:
    """After a closed pipe: point stdout at the null device, so the final flush at exit cannot
    fail again, and return 141 (as the Python documentation on SIGPIPE recommends, without a message)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture): nothing to flush later
        pass
    return BROKEN_PIPE


def main(argv=None) -> int:
    restore = _escape_what_stdout_cannot_encode()
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader of stdout is gone (`topicvb infer ... | head -1`)
        return _stdout_closed()
    except KeyboardInterrupt:  # during start-up (imports, building the parser), before any work
        print("topicvb: interrupted (Ctrl-C).", file=sys.stderr)
        return INTERRUPTED
    finally:
        restore()


def _escape_what_stdout_cannot_encode():
    """Print a character that stdout cannot encode as an escape (``stra\\xdfe``), as Python does on stderr, instead
    of failing the command on the first one: a word where stdout is not UTF-8 (``PYTHONIOENCODING=ascii``, a legacy
    locale, a Windows console redirected to a file), or a document id or path holding bytes that were not UTF-8
    (lone surrogates, which even a strict UTF-8 stdout refuses); returns what puts stdout back as it was."""
    out = sys.stdout
    try:
        codecs.lookup(out.encoding)
    except (AttributeError, LookupError, TypeError):  # (not a text stream of a known encoding: left alone)
        return lambda: None
    if getattr(out, "errors", None) != "strict" or not hasattr(out, "reconfigure"):
        return lambda: None
    out.reconfigure(errors="backslashreplace")
    return lambda: out.reconfigure(errors="strict") if not out.closed else None


def _main(argv) -> int:
    if list(sys.argv[1:] if argv is None else argv) in (["--version"], ["-V"]):
        # at once: the full parser shows the estimators' defaults, which imports scikit-learn
        print(_version().replace("%(prog)s", "topicvb").replace("%%", "%"))
        _flush_stdout()
        raise SystemExit(0)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        _flush_stdout()  # --help or --version into a closed pipe fails here, not at exit
        raise
    progress = args.progress = Progress(args.quiet, args.verbose)
    with progress.session():
        try:  # a value out of range (-k 0) is a usage error, as one of the wrong type (-k abc) is for argparse
            check_numeric_options(args)
        except (ValueError, TypeError) as exc:
            print(f"topicvb: error: {exc}", file=sys.stderr)
            return USAGE_ERROR
        try:
            check_optional_dependencies(args)  # an option that needs a missing package fails before any work
            check_output_paths(args)  # before any input is read or any model fitted
            status = args.func(args)
            _flush_stdout()
            return status
        except BrokenPipeError:
            raise
        except KeyboardInterrupt:
            note = getattr(args, "on_interrupt", None)
            print("topicvb: interrupted (Ctrl-C)" + (f"; {note}." if note else "."), file=sys.stderr)
            return INTERRUPTED
        except (ValueError, TypeError, OSError, KeyError, LookupError, ImportError) as exc:
            msg = str(exc) or type(exc).__name__
            if isinstance(exc, KeyError):
                msg = f"missing key {msg}"
            print(f"topicvb: error: {msg}", file=sys.stderr)
            return 1
        except MemoryError as exc:  # (numpy's says how much it wanted; a bare one says nothing)
            why = f" ({exc})" if str(exc) else ""
            fewer = "fewer topics (-k) or " if hasattr(args, "k") else ""
            print(f"topicvb: error: out of memory{why}; use {fewer}a smaller corpus (fewer documents, or fewer terms: "
                  "--max-features when counting text).", file=sys.stderr)
            return 1
        except Exception as exc:  # anything else: still one line, with the exception type
            print(f"topicvb: error: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
