"""Kronecker SVM for pairwise data (a sample of labelled pairs), RLScore's
``rlscore.learner.kron_svm.KronSVM``: the squared-hinge loss over the Kronecker pairwise
kernel, trained by Newton's method with the generalized vec trick. RLScore's keyword
interface over :class:`rlscore.core.kronecker.SampledKronSVMModel`."""

from rlscore.core.kronecker import SampledKronSVMModel
from rlscore._validation import warn_unused_kwargs
from rlscore.learner._common import adapted_doc, reports_progress

__all__ = ["KronSVM", "TRAIN_LABELS", "CALLBACK_FUNCTION"]

TRAIN_LABELS = "Y"
CALLBACK_FUNCTION = "callback"

_KEYS = ("X1", "X2", "K1", "K2", "Y", "label_row_inds", "label_col_inds", "regparam",
         "weights", "maxiter", "inneriter", "tol", "callback", "compute_risk")


class KronSVM(SampledKronSVMModel):
    __doc__ = adapted_doc(
        SampledKronSVMModel.__doc__,
        "    The core object behind :class:`rlscore.learner.KronSVM` (RLScore's keyword\n"
        "    interface) and :class:`rlscore.estimators.PairwiseSVM`.\n",
        "    Keyword arguments only, as RLScore's ``KronSVM(**params)``; other keywords\n"
        "    are ignored with a UserWarning. ``resource_pool`` holds the keywords given\n"
        "    (RLScore's callbacks read ``learner.resource_pool['X1']``). The\n"
        "    implementation is :class:`rlscore.core.kronecker.SampledKronSVMModel`.\n")

    @reports_progress
    def __init__(self, **kwargs):
        warn_unused_kwargs(kwargs, set(_KEYS), "KronSVM")
        self.resource_pool = kwargs
        super().__init__(**{k: kwargs[k] for k in _KEYS if k in kwargs})
