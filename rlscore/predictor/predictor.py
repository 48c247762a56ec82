"""Single-task predictors: linear (primal) and kernel (dual) models."""

import numpy as np
import scipy.sparse as sp

from rlscore._validation import as_data_matrix
from rlscore.kernel import map_kernel_blocks


class PredictorInterface:
    """Mixin of the learners: ``predict`` forwards to ``self.predictor``."""

    def predict(self, X):
        """Predictions of the trained model for the rows of X (see the predictor)."""
        return self.predictor.predict(X)


def _squeeze_coefficients(W):
    W = np.asarray(W, dtype=np.float64)
    if W.ndim == 0:
        return W.reshape(1)
    if W.ndim == 2 and W.shape[0] == 1 and W.shape[1] > 0:
        return W.copy()
    W = np.squeeze(W)
    return W.reshape(1) if W.ndim == 0 else W


class LinearPredictor:
    """Primal model P = X W + b.

    Parameters
    ----------
    W : array-like, (d,) or (d, l)
        Weights; squeezed, except that a (1, l) W stays 2-D.
    b : float or array-like (l,), default 0.0

    Notes
    -----
    ``predict`` costs O(n d l) for dense and O(nnz l) for sparse X.
    """

    def __init__(self, W, b=0.0):
        self.W = _squeeze_coefficients(W)
        self.b = np.squeeze(np.asarray(b, dtype=np.float64))

    def predict(self, X):
        """Predict for X (n, d); dense, np.matrix or sparse. A 1-D X is one sample
        (n samples of one feature when W has one row). Returns squeeze(X W + b)."""
        d = self.W.shape[0]
        if sp.issparse(X):
            # the same checks as dense input (NaN/inf, numeric dtype, overflow)
            X = as_data_matrix(X, name="X")
            if X.shape[1] != d:
                X = X[:, :d] if X.shape[1] > d else _pad(X, d)
        else:
            X = np.asarray(X)
            if X.ndim == 1:
                X = X.reshape(-1, 1) if d == 1 else X.reshape(1, -1)
            X = as_data_matrix(X, name="X")
            if X.shape[1] != d:
                raise ValueError(f"X has {X.shape[1]} features, the model has {d}")
        P = X @ self.W
        P = np.asarray(P) + self.b
        return np.squeeze(P)


def _pad(X, d):
    X = X.copy()
    X.resize((X.shape[0], d))
    return X


class KernelPredictor:
    """Dual model P = kernel.getKM(X) A.

    Parameters
    ----------
    A : array-like, (n_basis,) or (n_basis, l)
        Dual coefficients; squeezed, except that a (1, l) A (one basis vector, l
        outputs) stays 2-D.
    kernel : kernel object whose ``train_X`` holds the basis rows.

    Notes
    -----
    ``predict`` costs one kernel evaluation O(n n_basis d) plus O(n n_basis l).
    """

    def __init__(self, A, kernel):
        self.A = _squeeze_coefficients(A)
        self.kernel = kernel
        self.dim = kernel.train_X.shape[1]

    def predict(self, X):
        """Predict for X (n, d). A 1-D X is one sample (n samples when dim == 1).
        For a structured-input kernel X is passed to it as given (graphs, documents)."""
        if getattr(self.kernel, "structured_input", False):
            return np.squeeze(self.kernel.getKM(X) @ self.A)
        if not sp.issparse(X):
            X = np.asarray(X)
            if X.ndim == 1:
                X = X.reshape(-1, 1) if self.dim == 1 else X.reshape(1, -1)
        return np.squeeze(self._blocked_predict(X))

    def _blocked_predict(self, X):
        """K(X, basis) A by blocks of rows computed side by side (:func:`rlscore.kernel.
        map_kernel_blocks`, cache-sized blocks, one thread each): memory
        O(threads block b + n p) whatever n. O(n b (d + p))."""
        if not hasattr(X, "shape"):
            X = np.asarray(X)
        A = np.asarray(self.A)
        A2 = A.reshape(A.shape[0], -1)
        if X.shape[0] == 0 or type(self.kernel).__dict__.get("_block_kind") is None:
            return np.asarray(self.kernel.getKM(X) @ A)
        out = np.empty((X.shape[0], A2.shape[1]))
        for rows, P in map_kernel_blocks(self.kernel, X, lambda rows, Kb: Kb @ A2,
                                         extra_row_bytes=8 * A2.shape[1]):
            out[rows] = P
        return out.reshape((X.shape[0],) + A.shape[1:])
