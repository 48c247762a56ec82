"""Gaussian kernel k(x, z) = exp(-gamma ||x - z||^2)."""

import numpy as np

from rlscore._validation import check_gaussian_gamma
from rlscore.kernel._base import KernelBase, as_kernel_input, scale_columns, sq_norms
from rlscore.kernel._blocked import kernel_block


class GaussianKernel(KernelBase):
    """Gaussian (RBF) kernel k(x, z) = exp(-gamma ||x - z||^2).

    Parameters
    ----------
    X : array-like or sparse matrix, (n_basis, d)
        Basis data, stored as ``train_X``.
    gamma : float > 0 or ndarray (d,) of them, default 1.0
        One value: the isotropic kernel. One value per feature (automatic relevance
        determination, what :func:`rlscore.core.hyper.learn_kernel` fits):
        k(x, z) = exp(-sum_k gamma_k (x_k - z_k)^2), the length-scale of feature k being
        1 / sqrt(2 gamma_k).

    Notes
    -----
    ``getKM`` costs O(n n_basis d) (one matrix product plus n n_basis exponentials).
    """

    _block_kind = "gaussian"      # computed by rlscore.kernel._blocked.kernel_block

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
        # one GEMM with the exponential fused (rlscore.kernel._blocked): squared
        # distances ||x||^2 + ||z||^2 - 2 <x, z> clipped at 0, a distance within its
        # rounding error 8 eps (||x||^2 + ||z||^2) taken as 0 (points float64 cannot
        # tell apart get k = 1), finite because every input value is below
        # MAX_ABS_VALUE; -gamma d beyond the float64 range gives exp = 0, never NaN.
        # Per-feature gamma: the columns scaled by sqrt(gamma_k), gamma 1.
        return kernel_block(self, self._prepare(X))

    def get_params(self):
        return {"gamma": self.gamma if self._root is None else self.gamma.tolist()}
