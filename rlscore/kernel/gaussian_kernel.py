"""Gaussian kernel k(x, z) = exp(-gamma ||x - z||^2)."""

from rlscore._validation import check_gamma
from rlscore.kernel._base import KernelBase, as_kernel_input, sq_norms
from rlscore.kernel._blocked import kernel_block


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

    _block_kind = "gaussian"      # computed by rlscore.kernel._blocked.kernel_block

    def __init__(self, X, gamma=1.0):
        gamma = check_gamma(gamma)
        self.train_X = as_kernel_input(X)
        self.gamma = gamma
        self._train_norms = sq_norms(self.train_X)

    def getKM(self, X):
        # one GEMM with the exponential fused (rlscore.kernel._blocked): squared
        # distances ||x||^2 + ||z||^2 - 2 <x, z> clipped at 0, a distance within its
        # rounding error 8 eps (||x||^2 + ||z||^2) taken as 0 (points float64 cannot
        # tell apart get k = 1), finite because every input value is below
        # MAX_ABS_VALUE; -gamma d beyond the float64 range gives exp = 0, never NaN
        return kernel_block(self, self._prepare(X))

    def get_params(self):
        return {"gamma": self.gamma}
