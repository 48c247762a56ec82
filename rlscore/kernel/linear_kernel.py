"""Linear kernel k(x, z) = <x, z> + bias."""

from rlscore._validation import check_bias
from rlscore.kernel._base import KernelBase, as_kernel_input
from rlscore.kernel._blocked import kernel_block


class LinearKernel(KernelBase):
    """Linear kernel k(x, z) = <x, z> + bias.

    A bias c equals appending the constant feature sqrt(c) to every vector.

    Parameters
    ----------
    X : array-like or sparse matrix, (n_basis, d)
        Basis data, stored as ``train_X``.
    bias : float >= 0, default 1.0

    Notes
    -----
    ``getKM`` costs O(n n_basis d) for dense and O(nnz-product) for sparse input.
    """

    _block_kind = "linear"      # computed by rlscore.kernel._blocked.kernel_block

    def __init__(self, X, bias=1.0):
        self.bias = check_bias(bias)
        self.train_X = as_kernel_input(X)

    def getKM(self, X):
        return kernel_block(self, self._prepare(X))

    def get_params(self):
        return {"bias": self.bias}
