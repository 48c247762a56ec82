"""Polynomial kernel k(x, z) = (gamma <x, z> + coef0)^degree."""

from rlscore._validation import check_coef0, check_degree, check_gamma
from rlscore.kernel._base import KernelBase, as_kernel_input
from rlscore.kernel._blocked import kernel_block


class PolynomialKernel(KernelBase):
    """Polynomial kernel k(x, z) = (gamma <x, z> + coef0)^degree.

    Parameters
    ----------
    X : array-like or sparse matrix, (n_basis, d)
    degree : int in 1 .. MAX_DEGREE (64), default 2
    gamma : float > 0, default 1.0
    coef0 : float, default 0

    Notes
    -----
    ``getKM`` costs O(n n_basis d). High degrees overflow unless the inputs are scaled
    (e.g. to unit norm).
    """

    _block_kind = "polynomial"      # computed by rlscore.kernel._blocked.kernel_block

    def __init__(self, X, degree=2, gamma=1.0, coef0=0):
        self.degree = check_degree(degree)
        self.gamma = check_gamma(gamma)
        self.coef0 = check_coef0(coef0)
        self.train_X = as_kernel_input(X)

    def getKM(self, X):
        return kernel_block(self, self._prepare(X))

    def get_params(self):
        return {"degree": self.degree, "gamma": self.gamma, "coef0": self.coef0}
