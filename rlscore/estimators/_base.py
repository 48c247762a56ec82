"""Shared machinery of the scikit-learn estimators: parameter checking, the adapter
from (X, y, kernel parameters) to :class:`rlscore.core.rls.RLSModel`, prediction with
the layout of the training ``y``, tags and pickling.

Nothing here computes a model: the algebra lives in :mod:`rlscore.core`.
"""


import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.rls import RLSModel
from rlscore._validation import (check_bias, check_coef0, check_degree, check_gamma,
                                 check_regparam)
from rlscore.predictor import KernelPredictor, LinearPredictor

__all__ = ["KERNEL_NAMES", "resolve_kernel", "check_alpha", "RLSEstimatorBase"]

#: Accepted ``kernel`` values (scikit-learn names and RLScore names) and the RLScore
#: kernel each one means.
KERNEL_NAMES = {
    "linear": "LinearKernel",
    "LinearKernel": "LinearKernel",
    "rbf": "GaussianKernel",
    "gaussian": "GaussianKernel",
    "GaussianKernel": "GaussianKernel",
    "poly": "PolynomialKernel",
    "polynomial": "PolynomialKernel",
    "PolynomialKernel": "PolynomialKernel",
    "precomputed": "PrecomputedKernel",
    "PrecomputedKernel": "PrecomputedKernel",
}


def resolve_kernel(kernel):
    """The RLScore kernel name meant by ``kernel``; ValueError if there is none."""
    if isinstance(kernel, str) and kernel in KERNEL_NAMES:
        return KERNEL_NAMES[kernel]
    raise ValueError(
        f"kernel must be one of {sorted(KERNEL_NAMES)}, got {kernel!r}")


def check_alpha(alpha, name="alpha"):
    """``alpha`` (the regparam under its scikit-learn name), checked by
    :func:`rlscore._validation.check_regparam`."""
    return check_regparam(alpha, name=name)


class RLSEstimatorBase(RegressorMixin, BaseEstimator):
    """Common base of :class:`KernelRLS` and :class:`KernelRLSCV` (not public).

    Subclasses define the constructor parameters ``kernel, gamma, degree, coef0, bias,
    basis_vectors`` and call :meth:`_fit_model` from ``fit``.
    """

    # -- parameters ----------------------------------------------------------------
    def _kernel_spec(self, n_features):
        """(RLScore kernel name, kernel keyword parameters) after validation."""
        name = resolve_kernel(self.kernel)
        if name == "LinearKernel":
            return name, {"bias": check_bias(self.bias)}
        if name == "PrecomputedKernel":
            return name, {}
        if self.gamma is None:
            gamma = 1.0 / n_features
        else:
            gamma = check_gamma(self.gamma)
        if name == "GaussianKernel":
            return name, {"gamma": gamma}
        return name, {"gamma": gamma, "degree": check_degree(self.degree),
                      "coef0": check_coef0(self.coef0)}

    def _basis_params(self, cv=True):
        """The reduced-set keywords of the core model: ``basis_indices`` or
        ``n_basis`` (+ ``random_state``), and ``keep_basis_in_cv`` when ``cv``."""
        if getattr(self, "basis_indices", None) is None and \
                getattr(self, "n_basis", None) is None:
            return {}
        params = {"basis_indices": self.basis_indices, "n_basis": self.n_basis,
                  "random_state": self.random_state}
        if cv:
            params["keep_basis_in_cv"] = bool(self.keep_basis_in_cv)
        return params

    def _is_precomputed(self):
        return isinstance(self.kernel, str) and \
            KERNEL_NAMES.get(self.kernel) == "PrecomputedKernel"

    def _accept_sparse(self):
        return False if self._is_precomputed() else "csr"

    # -- fitting ---------------------------------------------------------------------
    def _validate_fit_data(self, X, y):
        X, y = validate_data(
            self, X, y, accept_sparse=self._accept_sparse(), dtype=np.float64,
            multi_output=True, y_numeric=True)
        y = np.asarray(y.toarray() if sp.issparse(y) else y, dtype=np.float64)
        if y.ndim == 2 and y.shape[1] == 0:
            raise ValueError("y has no columns (shape %s)" % (y.shape,))
        return X, y

    def _fit_model(self, X, y, alpha, path):
        """Train the core model (``X``, ``y`` already validated) and set the fitted
        attributes. ``path=True`` eigendecomposes at once (cross-validation follows)."""
        name, params = self._kernel_spec(X.shape[1])
        self._y_1d = y.ndim == 1
        self.model_ = RLSModel(X, y, regparam=alpha, kernel=name,
                               basis_vectors=self.basis_vectors, path=path,
                               **self._basis_params(), **params)
        self._set_fitted_attributes()
        return self

    def _set_fitted_attributes(self):
        """Public coefficients from the core model's current predictor."""
        for attr in ("coef_", "intercept_", "dual_coef_", "X_fit_"):
            self.__dict__.pop(attr, None)
        model = self.model_
        p = model.Y.shape[1]
        predictor = model.predictor
        self.predictor_ = predictor
        self._n_targets = p
        if isinstance(predictor, LinearPredictor):
            W = np.reshape(predictor.W, (-1, p))
            b = np.broadcast_to(np.asarray(predictor.b, dtype=np.float64), (p,)).copy()
            if resolve_kernel(self.kernel) == "LinearKernel":
                if self._y_1d:
                    self.coef_ = W[:, 0].copy()
                    self.intercept_ = float(b[0])
                else:
                    self.coef_ = np.ascontiguousarray(W.T)
                    self.intercept_ = b
            else:       # precomputed kernel: coefficients of the kernel's columns
                self.dual_coef_ = W[:, 0].copy() if self._y_1d else W.copy()
        elif isinstance(predictor, KernelPredictor):
            A = np.reshape(predictor.A, (-1, p))
            self.dual_coef_ = A[:, 0].copy() if self._y_1d else A.copy()
            self.X_fit_ = predictor.kernel.train_X
        else:  # pragma: no cover - every representation gives one of the two
            raise TypeError(f"unexpected predictor {type(predictor).__name__}")

    # -- prediction -------------------------------------------------------------------
    def predict(self, X):
        """Predict with the fitted model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for ``kernel="precomputed"`` the kernel matrix between the samples
            and the training samples (or the basis vectors), shape (n_samples, n_fit).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
            The same layout as the ``y`` given to ``fit``.

        Notes
        -----
        O(n_samples n_features n_targets) for the linear kernel; O(n_samples n_basis
        (n_features + n_targets)) otherwise, n_basis being the number of training
        samples or basis vectors.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse=self._accept_sparse(),
                          dtype=np.float64)
        P = np.reshape(np.asarray(self.predictor_.predict(X), dtype=np.float64),
                       (X.shape[0], self._n_targets))
        return np.ascontiguousarray(P[:, 0]) if self._y_1d else P

    # -- scikit-learn protocol -------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        precomputed = self._is_precomputed()
        tags.input_tags.sparse = not precomputed
        tags.input_tags.pairwise = precomputed
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        return tags

    def __getstate__(self):
        # The core model holds the training-time decomposition (an m x m kernel matrix
        # and its eigenvectors or Cholesky factor); a pickle keeps only what prediction
        # needs (predictor_ and the coefficients), so model_ is None after unpickling.
        state = super().__getstate__()
        if state.get("model_") is not None:
            state = dict(state)
            state["model_"] = None
        return state
