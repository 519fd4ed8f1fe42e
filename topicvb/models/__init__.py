"""Topic model estimators, one class per algorithm."""

from .batch_lda import BatchLDA
from .collapsed_lda import CollapsedLDA
from .online_lda import OnlineLDA
from .plsa import PLSA

__all__ = ["PLSA", "BatchLDA", "CollapsedLDA", "OnlineLDA"]
