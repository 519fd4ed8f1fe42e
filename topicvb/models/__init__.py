"""Topic model estimators, one class per algorithm."""

from .batch_lda import BatchLDA
from .collapsed_lda import CollapsedLDA
from .online_lda import OnlineLDA
from .plsa import PLSA
from .stochastic_cvb0 import StochasticCollapsedLDA

__all__ = ["PLSA", "BatchLDA", "CollapsedLDA", "OnlineLDA", "StochasticCollapsedLDA"]
