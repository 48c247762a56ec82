"""The Kronecker SVM (squared hinge over the pairwise kernel) as a scikit-learn
classifier on index pairs."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from rlscore.core.kronecker import KronSVMOptions, SampledKronSVMModel
from rlscore.estimators._base import (check_alpha,
                                      check_iteration_params, reports_progress,
                                      store_params)
from rlscore.estimators._pairs import PairsRegressorMixin
from rlscore.estimators._kronecker import PairDomainsMixin

__all__ = ["PairwiseSVM"]


class PairwiseSVM(PairDomainsMixin, PairsRegressorMixin, ClassifierMixin, BaseEstimator):
    """Kronecker SVM on pairs of objects: a binary classifier of pairs (interacts /
    does not) with the squared hinge loss over the pairwise kernel
    k1(a, c) * k2(b, d), trained by Newton's method with the generalized vec trick
    (:class:`rlscore.core.kronecker.SampledKronSVMModel`, the model behind
    :class:`rlscore.learner.KronSVM`). The objective is

        1/2 sum_k max(0, 1 - y_k f(x_k))^2 + alpha/2 ||w||^2,

    with y_k = +1 for the second class of ``classes_`` and -1 for the first.

    Input as in :class:`PairwiseRLS`: the objects at construction, the samples of
    ``fit`` / ``predict`` an integer array (n_pairs, 2) of (X1 row, X2 row); the
    training pairs may be any sample (repeats allowed), so scikit-learn's splitters
    and ``GridSearchCV`` over ``alpha`` work on them.

    Parameters
    ----------
    X1 : array-like of shape (n1, d1), or (n1, n1) with ``kernel="precomputed"``
        All objects of domain 1 (training and test).
    X2 : array-like of shape (n2, d2) or (n2, n2), default=None
        All objects of domain 2; None: both elements of a pair index ``X1``.
    alpha : float > 0, default=1.0
        Regularization parameter (RLScore's ``regparam``).
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
        Kernel of both domains (linear: the primal d1 x d2 weight matrix ``coef_``).
    gamma : float > 0 or None, default=None
        rbf / poly parameter; None means 1 / n_features of each domain.
    degree : int >= 1 or None, default=None
        Degree of the poly kernel (None: 3).
    coef0 : float, default=1
    tol : float in (0, 1), default=1e-8
        Newton's method stops when the gradient norm is at most ``tol`` times its
        norm at zero (a ``ConvergenceWarning`` if ``max_iter`` stops it first).
    max_iter : int, default=100
        Cap on the Newton steps.
    verbose : bool, default=False
        Log the training's steps (:mod:`rlscore._progress`).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the positive class (+1).
    model_ : SampledKronSVMModel
    objects1_, objects2_ : ndarray of int, the training objects (X1 / X2 rows)
    coef_ : ndarray of shape (d1, d2), linear kernel
    dual_coef_ : ndarray of shape (n_pairs,), other kernels
    n_iter_ : int, Newton steps
    n_features_in_ : 2

    Notes
    -----
    Per Newton step: conjugate gradients on the support pairs, each iteration
    O(size(S) (n1 + n2)) (kernel) or O(size(S) (d1 + d2) + d1 d2) (linear), plus one product
    over all q pairs for the line search; the kernels between training objects cost
    O(n^2 d). ``decision_function`` for u pairs: O(u (n1 + n2)) plus the test
    kernels.

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import PairwiseSVM
    >>> rng = np.random.default_rng(0)
    >>> drugs, targets = rng.normal(size=(8, 3)), rng.normal(size=(6, 4))
    >>> pairs = np.array([(i, j) for j in range(6) for i in range(8)])
    >>> y = np.where(drugs[pairs[:, 0], 0] * targets[pairs[:, 1], 1] > 0, "yes", "no")
    >>> clf = PairwiseSVM(drugs, targets, alpha=0.1).fit(pairs, y)
    >>> clf.predict(pairs[:2]).tolist() == y[:2].tolist()
    True
    """

    def __init__(self, X1=None, X2=None, *, alpha=1.0, kernel="linear", gamma=None,
                 degree=None, coef0=1, tol=1e-8, max_iter=100, verbose=False):
        store_params(self, locals())

    def _learns(self):
        return False

    @reports_progress
    def fit(self, X, y):
        """Fit on the labelled pairs ``X`` (n_pairs, 2) with two-class labels ``y``.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For invalid parameters, pairs or labels (other than two classes).
        """
        alpha = check_alpha(self.alpha, positive=True)
        if isinstance(self.gamma, str):
            raise ValueError(f"gamma must be a number > 0 or None (PairwiseSVM learns no "
                             f"kernel parameters), got {self.gamma!r}")
        max_iter, tol = check_iteration_params(self, allow_none=False)
        name, X1, X2 = self._objects()
        self._one_domain = self.X2 is None
        labels = np.asarray(y)
        if labels.ndim != 1:
            raise ValueError(f"y must be a 1-D array of class labels, got shape "
                             f"{labels.shape}")
        classes, codes = np.unique(labels, return_inverse=True)
        if classes.size != 2:
            raise ValueError(f"PairwiseSVM is a binary classifier: y must hold two "
                             f"classes, got {classes.size} ({classes[:5].tolist()})")
        signs = np.where(codes == 1, 1.0, -1.0)
        signs, o1, o2, r, c = self._training_pairs(X, signs, X1.shape[0], X2.shape[0])
        linear = name == "LinearKernel"
        D1 = self._domain_data(name, X1, o1, o1)
        D2 = D1 if self._one_domain else self._domain_data(name, X2, o2, o2, side=1)
        if linear:
            data = {"features": (D1, D2)}
        else:
            D1 = 0.5 * (D1 + D1.T)
            D2 = D1 if self._one_domain else 0.5 * (D2 + D2.T)
            data = {"kernels": (D1, D2)}
        model = SampledKronSVMModel(Y=signs, label_row_inds=r, label_col_inds=c,
                                    regparam=alpha,
                                    options=KronSVMOptions(maxiter=max_iter, rtol=tol),
                                    **data)
        self.classes_ = classes
        self._fitted_objects(model, o1, o2)
        self._linear = linear
        self.n_iter_ = model.iterations
        if linear:
            self.coef_ = model.W.reshape((D1.shape[1], D2.shape[1]), order="F")
            self.__dict__.pop("dual_coef_", None)
        else:
            self.dual_coef_ = model.A
            self.__dict__.pop("coef_", None)
        return self

    def decision_function(self, X):
        """The model's value f for the pairs ``X`` (n_pairs, 2); positive means
        ``classes_[1]``.

        Returns
        -------
        ndarray of shape (n_pairs,)
        """
        check_is_fitted(self, "model_")
        return self._predict_pairs(X)

    def predict(self, X):
        """The class of each pair: ``classes_[1]`` where the decision value is
        positive, else ``classes_[0]``."""
        return self.classes_[(self.decision_function(X) > 0).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
