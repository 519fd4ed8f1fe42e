"""Starting child processes for the tests that interrupt them."""

import sys

# (the child's SIGINT reset by a launcher that then execs the command: an exec keeps SIG_DFL, and Python then
# installs its KeyboardInterrupt handler; a preexec_fn would do it in the forked child of a threaded process)
_LAUNCHER = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"


def ctrl_c_reaches(argv: list) -> list:
    """``argv`` started so that the child takes Ctrl-C (SIGINT) as a program started from a terminal does:
    its SIGINT disposition reset to the default before the command starts. A child inherits an ignored SIGINT
    (a test run started in the background by a non-interactive shell, or under nohup, has it ignored), and
    Python then leaves it ignored, as topicvb does: a test of what Ctrl-C does would otherwise test nothing
    there (and fail). ``argv[0]`` must be a path to an executable (``sys.executable``)."""
    return list(argv) if sys.platform == "win32" else [sys.executable, "-c", _LAUNCHER, *map(str, argv)]
