"""Gaussian kernel k(x, z) = exp(-gamma ||x - z||^2)."""

import numpy as np

from rlscore._validation import check_finite_result, check_gaussian_gamma
from rlscore.kernel._base import (KernelBase, as_kernel_input, scale_columns, sq_distances,
                                  sq_norms)


class GaussianKernel(KernelBase):
    """Gaussian (RBF) kernel k(x, z) = exp(-gamma ||x - z||^2).

    Parameters
    ----------
    X : array-like or sparse matrix, (n_basis, d)
        Basis data, stored as ``train_X``.
    gamma : float > 0 or ndarray (d,) of them, default 1.0
        One value: the isotropic kernel. One value per feature (automatic relevance
        determination, what :func:`rlscore.core.rls.learn_kernel` fits):
        k(x, z) = exp(-sum_k gamma_k (x_k - z_k)^2), the length-scale of feature k being
        1 / sqrt(2 gamma_k).

    Notes
    -----
    ``getKM`` costs O(n n_basis d) (one matrix product plus n n_basis exponentials).
    """

    def __init__(self, X, gamma=1.0):
        gamma = check_gaussian_gamma(gamma)
        self.train_X = as_kernel_input(X)
        if np.ndim(gamma) == 1 and gamma.size != self.train_X.shape[1]:
            raise ValueError(f"gamma holds {gamma.size} values, X has "
                             f"{self.train_X.shape[1]} features")
        self.gamma = gamma
        # per-feature gamma: the isotropic kernel (gamma 1) on columns scaled by
        # sqrt(gamma_k)
        self._root = None if np.ndim(gamma) == 0 else np.sqrt(gamma)
        self._scaled_X = (self.train_X if self._root is None
                          else scale_columns(self.train_X, self._root))
        self._train_norms = sq_norms(self._scaled_X)

    def getKM(self, X):
        X = self._prepare(X)
        g = self.gamma
        if self._root is not None:
            X, g = scale_columns(X, self._root), 1.0
        # squared distances ||x||^2 + ||z||^2 - 2 <x, z>, clipped at 0 (rounding);
        # finite because every input value is below MAX_ABS_VALUE. Only then scaled by
        # -gamma: a product beyond the float64 range is -inf and exp gives the exact 0,
        # never inf - inf = NaN.
        nx = sq_norms(X)
        K = sq_distances(X, self._scaled_X, nx, self._train_norms)
        # the rounding error of a distance is about 4 eps (||x||^2 + ||z||^2); when gamma
        # makes that error visible (a steep kernel or huge norms), distances within it
        # are 0: points float64 cannot tell apart get k = 1, not exp(-gamma * noise)
        top = (nx.max() if nx.size else 0.0) + (self._train_norms.max()
                                                 if self._train_norms.size else 0.0)
        if g * 8 * np.finfo(np.float64).eps * top > 1e-12:
            tol = 8 * np.finfo(np.float64).eps * (nx[:, None] + self._train_norms[None, :])
            K[K <= tol] = 0.0
        with np.errstate(over="ignore"):
            K *= -g
        np.exp(K, out=K)
        return check_finite_result(K, "the Gaussian kernel matrix")

    def get_params(self):
        return {"gamma": self.gamma if self._root is None else self.gamma.tolist()}
