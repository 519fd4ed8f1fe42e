"""Topic model estimators, one class per algorithm."""

from .batch_lda import BatchLDA
from .plsa import PLSA

__all__ = ["PLSA", "BatchLDA"]
