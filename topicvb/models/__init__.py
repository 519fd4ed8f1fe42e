"""Topic model estimators, one class per algorithm (the list is :mod:`._registry`).

The classes are imported on first use, so reading the registry (the command line builds its
parser from it) does not import scikit-learn, numba and every estimator.
"""

from ._registry import ENTRIES

__all__ = [e.class_name for e in ENTRIES]


def __getattr__(name):
    for e in ENTRIES:
        if e.class_name == name:
            value = e.cls
            globals()[name] = value
            return value
    raise AttributeError(f"module 'topicvb.models' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
