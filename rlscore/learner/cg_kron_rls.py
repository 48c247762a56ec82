"""Kronecker RLS for incomplete pairwise data (a sample of the pairs labelled), trained
iteratively with MINRES and the generalized vec trick: RLScore's keyword interface
over :class:`rlscore.core.kronecker.SampledKronRLSModel`."""

from rlscore.core.kronecker import SampledKronRLSModel, sampled_kron_arguments
from rlscore._validation import warn_unused_kwargs
from rlscore.learner._common import adapted_doc, reports_progress

__all__ = ["CGKronRLS", "CALLBACK_FUNCTION"]

CALLBACK_FUNCTION = "callback"

_KEYS = ("X1", "X2", "K1", "K2", "Y", "label_row_inds", "label_col_inds", "pko",
         "regparam", "weights", "maxiter", "tol", "callback", "compute_risk",
         "conditional_ranking", "pairwise_kernel", "indefinite")


class CGKronRLS(SampledKronRLSModel):
    __doc__ = adapted_doc(
        SampledKronRLSModel.__doc__,
        "    The core object behind :class:`rlscore.learner.CGKronRLS` (RLScore's keyword\n"
        "    interface) and :class:`rlscore.estimators.PairwiseRLS` (iterative solver).\n",
        "    Keyword arguments only; other keywords are ignored with a UserWarning, and\n"
        "    ``callbackfun`` is accepted as an alias of ``callback``; ``kernels`` are the\n"
        "    keywords ``K1``, ``K2`` (or ``pko``), ``features`` ``X1``, ``X2``, the fields\n"
        "    of ``options`` keywords of their own (``options.rtol`` is ``tol``). The\n"
        "    implementation is :class:`rlscore.core.kronecker.SampledKronRLSModel`.\n")

    @reports_progress
    def __init__(self, **kwargs):
        warn_unused_kwargs(kwargs, set(_KEYS) | {"callbackfun"}, "CGKronRLS")
        args = {k: kwargs[k] for k in _KEYS if k in kwargs}
        if "callback" not in args and "callbackfun" in kwargs:
            args["callback"] = kwargs["callbackfun"]
        super().__init__(**sampled_kron_arguments(**args))
