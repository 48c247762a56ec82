"""Polynomial kernel k(x, z) = (gamma <x, z> + coef0)^degree."""

import numpy as np

from rlscore.kernel._base import KernelBase, as_kernel_input, dot_dense


class PolynomialKernel(KernelBase):
    """Polynomial kernel k(x, z) = (gamma <x, z> + coef0)^degree.

    Parameters
    ----------
    X : array-like or sparse matrix, (n_basis, d)
    degree : int >= 1, default 2
    gamma : float, default 1.0
    coef0 : float, default 0

    Notes
    -----
    ``getKM`` costs O(n n_basis d). High degrees overflow unless the inputs are scaled
    (e.g. to unit norm).
    """

    def __init__(self, X, degree=2, gamma=1.0, coef0=0):
        if int(degree) != degree or degree < 1:
            raise ValueError(f"degree must be a positive integer, got {degree!r}")
        self.train_X = as_kernel_input(X)
        self.degree = int(degree)
        self.gamma = float(gamma)
        self.coef0 = float(coef0)

    def getKM(self, X):
        K = dot_dense(self._prepare(X), self.train_X)
        K *= self.gamma
        K += self.coef0
        return K ** self.degree if self.degree > 1 else K

    def get_params(self):
        return {"degree": self.degree, "gamma": self.gamma, "coef0": self.coef0}
