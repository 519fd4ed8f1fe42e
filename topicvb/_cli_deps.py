"""Optional dependencies of command-line options, checked before any work.

An option that needs a package outside topicvb's requirements (``select-k --plot`` needs
matplotlib) is refused at once, with how to install it, rather than after every fit.
"""

from __future__ import annotations

import importlib

# option (its argparse dest) -> (the option as typed, the module it needs, how to install it)
OPTIONAL = {
    "plot": ("--plot", "matplotlib", "pip install matplotlib (or pip install 'topicvb[plot]')"),
}


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def check_optional_dependencies(args) -> None:
    """Raise ImportError (one line: the option, the package, how to install it) for an option given
    whose package is missing."""
    for dest, (option, module, install) in OPTIONAL.items():
        if getattr(args, dest, None) is not None and not _importable(module):
            raise ImportError(f"{option} needs {module}, which is not installed; install it with: {install}.")
