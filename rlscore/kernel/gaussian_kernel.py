"""Gaussian kernel k(x, z) = exp(-gamma ||x - z||^2)."""

import numpy as np

from rlscore._validation import check_finite_result, check_gamma
from rlscore.kernel._base import KernelBase, as_kernel_input, dot_dense, sq_norms


class GaussianKernel(KernelBase):
    """Gaussian (RBF) kernel k(x, z) = exp(-gamma ||x - z||^2).

    Parameters
    ----------
    X : array-like or sparse matrix, (n_basis, d)
        Basis data, stored as ``train_X``.
    gamma : float > 0, default 1.0

    Notes
    -----
    ``getKM`` costs O(n n_basis d) (one matrix product plus n n_basis exponentials).
    """

    def __init__(self, X, gamma=1.0):
        gamma = check_gamma(gamma)
        self.train_X = as_kernel_input(X)
        self.gamma = gamma
        self._train_norms = sq_norms(self.train_X)

    def getKM(self, X):
        X = self._prepare(X)
        K = dot_dense(X, self.train_X)
        # -gamma ||x - z||^2 = gamma (2 <x, z> - ||x||^2 - ||z||^2), built in place
        K *= 2.0 * self.gamma
        K -= self.gamma * sq_norms(X)[:, None]
        K -= self.gamma * self._train_norms[None, :]
        np.minimum(K, 0.0, out=K)
        np.exp(K, out=K)
        return check_finite_result(K, "the Gaussian kernel matrix")

    def get_params(self):
        return {"gamma": self.gamma}
