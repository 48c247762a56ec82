"""Kronecker SVM for pairwise data (a sample of labelled pairs), RLScore's
``rlscore.learner.kron_svm.KronSVM``: the squared-hinge loss over the Kronecker pairwise
kernel, trained by Newton's method with the generalized vec trick. RLScore's keyword
interface over :class:`rlscore.core.kronecker.SampledKronSVMModel`."""

import textwrap

from rlscore.core.kronecker import KronSVMOptions, SampledKronSVMModel
from rlscore._validation import warn_unused_kwargs
from rlscore.learner._common import adapted_doc, clean_doc, reports_progress

__all__ = ["KronSVM", "TRAIN_LABELS", "CALLBACK_FUNCTION"]

TRAIN_LABELS = "Y"
CALLBACK_FUNCTION = "callback"

_KEYS = ("X1", "X2", "K1", "K2", "Y", "label_row_inds", "label_col_inds", "regparam",
         "weights", "maxiter", "inneriter", "tol", "callback", "compute_risk")

#: RLScore's keywords that go into :class:`KronSVMOptions` (``tol`` is its ``rtol``)
_OPTIONS = {"maxiter": "maxiter", "inneriter": "inneriter", "tol": "rtol",
            "weights": "weights", "compute_risk": "compute_risk"}

_CORE_DOC = clean_doc(SampledKronSVMModel.__doc__)
_CORE_PARAMETERS = _CORE_DOC[_CORE_DOC.index("kernels : (K1, K2)"):
                             _CORE_DOC.index("\nAttributes\n")]

_FACE_PARAMETERS = textwrap.dedent("""\
    K1, K2 : (n1, n1), (n2, n2) training kernels (kernel mode; lists of them with
        ``weights`` for a weighted sum of Kronecker kernels), or
    X1, X2 : (n1, d1), (n2, d2) feature matrices (linear mode, weights W of size
        d1 d2 in vec_F order, as :class:`rlscore.core.kronecker.SampledKronRLSModel`)
    regparam : float > 0, default 1.0
    weights : term weights for lists of kernels (default all ones)
    maxiter : int, default 100
        Cap on the Newton steps.
    inneriter : int or None, default None
        Cap on the conjugate-gradient iterations of one Newton step (RLScore's 50 QMR
        iterations); None runs CG to ``tol / 10``. A capped step is still a descent
        direction and the line search keeps J decreasing.
    tol : float in (0, 1), default 1e-8
        Stop when the gradient norm is at most ``tol`` times its norm at zero.
    callback : object with ``callback(learner)`` called after each Newton step (with
        ``A`` / ``W`` and ``predictor`` set) and optionally ``finished(learner)``.
    compute_risk : bool, default False
        Record the objective of every Newton step in ``risks`` (J decreases
        monotonically, so the last iterate is the best).
""")


class KronSVM(SampledKronSVMModel):
    __doc__ = adapted_doc(
        SampledKronSVMModel.__doc__,
        "    The core object behind :class:`rlscore.learner.KronSVM` (RLScore's keyword\n"
        "    interface) and :class:`rlscore.estimators.PairwiseSVM`.\n",
        "    Keyword arguments only, as RLScore's ``KronSVM(**params)``; other keywords\n"
        "    are ignored with a UserWarning. ``resource_pool`` holds the keywords given\n"
        "    (RLScore's callbacks read ``learner.resource_pool['X1']``). The\n"
        "    implementation is :class:`rlscore.core.kronecker.SampledKronSVMModel`.\n"
    ).replace(_CORE_PARAMETERS, _FACE_PARAMETERS)

    @reports_progress
    def __init__(self, **kwargs):
        warn_unused_kwargs(kwargs, set(_KEYS), "KronSVM")
        self.resource_pool = kwargs
        given = {k: kwargs[k] for k in _KEYS if k in kwargs}
        options = KronSVMOptions(**{_OPTIONS[k]: given.pop(k) for k in _OPTIONS
                                    if k in given})
        K1, K2, X1, X2 = (given.pop(k, None) for k in ("K1", "K2", "X1", "X2"))
        kernels = None if K1 is None and K2 is None else (K1, K2)
        features = None if X1 is None and X2 is None else (X1, X2)
        super().__init__(**given, kernels=kernels, features=features, options=options)
