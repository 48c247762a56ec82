"""Kronecker RLS on complete pairwise data (every pair of the two domains labelled):
RLScore's keyword interface over :class:`rlscore.core.kronecker.KronRLSModel`."""

from rlscore.core.kronecker import KronRLSModel
from rlscore._validation import warn_unused_kwargs
from rlscore.learner._common import adapted_doc, exclusive, reports_progress

__all__ = ["KronRLS"]

_KEYS = ("X1", "X2", "K1", "K2", "Y", "regparam", "pairwise_kernel", "indefinite")


class KronRLS(KronRLSModel):
    __doc__ = adapted_doc(
        KronRLSModel.__doc__,
        "    The core object behind :class:`rlscore.learner.KronRLS` (RLScore's keyword\n"
        "    interface) and :class:`rlscore.estimators.PairwiseRLS` (closed-form solver).\n",
        "    Keyword arguments only (positional arguments raise TypeError); other\n"
        "    keywords are ignored with a UserWarning. The implementation is\n"
        "    :class:`rlscore.core.kronecker.KronRLSModel`.\n")

    @reports_progress
    def __init__(self, **kwargs):
        warn_unused_kwargs(kwargs, set(_KEYS), "KronRLS")
        super().__init__(**{k: kwargs[k] for k in _KEYS if k in kwargs})

    @exclusive
    def solve(self, regparam):
        """Re-train for a new regparam with the cached decompositions (refused with a
        RuntimeError while another thread runs it on this learner).
        O(n1 n2 (n1 + n2))."""
        return super().solve(regparam)
