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
        # squared distances ||x||^2 + ||z||^2 - 2 <x, z>, clipped at 0 (rounding), built
        # in place; finite because every input value is below MAX_ABS_VALUE. Only then
        # scaled by -gamma: a product beyond the float64 range is -inf and exp gives the
        # exact 0, never inf - inf = NaN.
        nx = sq_norms(X)
        K *= -2.0
        K += nx[:, None]
        K += self._train_norms[None, :]
        np.maximum(K, 0.0, out=K)
        # the rounding error of a distance is about 4 eps (||x||^2 + ||z||^2); when gamma
        # makes that error visible (a steep kernel or huge norms), distances within it
        # are 0: points float64 cannot tell apart get k = 1, not exp(-gamma * noise)
        top = (nx.max() if nx.size else 0.0) + (self._train_norms.max()
                                                 if self._train_norms.size else 0.0)
        if self.gamma * 8 * np.finfo(np.float64).eps * top > 1e-12:
            tol = 8 * np.finfo(np.float64).eps * (nx[:, None] + self._train_norms[None, :])
            K[K <= tol] = 0.0
        with np.errstate(over="ignore"):
            K *= -self.gamma
        np.exp(K, out=K)
        return check_finite_result(K, "the Gaussian kernel matrix")

    def get_params(self):
        return {"gamma": self.gamma}
