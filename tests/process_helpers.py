"""Starting child processes for the tests that interrupt them."""

import signal
import sys


def _take_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ctrl_c_reaches_the_child() -> dict:
    """Popen keyword arguments under which the child takes Ctrl-C (SIGINT) as a program started from a terminal
    does: its SIGINT disposition reset to the default before it starts, so that Python installs its
    KeyboardInterrupt handler. A child inherits an ignored SIGINT (a test run started in the background by a
    non-interactive shell, or under nohup, has it ignored), and Python then leaves it ignored, as topicvb does:
    a test of what Ctrl-C does would otherwise test nothing there (and fail)."""
    return {} if sys.platform == "win32" else {"preexec_fn": _take_sigint}
