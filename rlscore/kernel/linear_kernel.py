"""Linear kernel k(x, z) = <x, z> + bias."""

import numpy as np

from rlscore.kernel._base import KernelBase, as_kernel_input, dot_dense


class LinearKernel(KernelBase):
    """Linear kernel k(x, z) = <x, z> + bias.

    A bias c equals appending the constant feature sqrt(c) to every vector.

    Parameters
    ----------
    X : array-like or sparse matrix, (n_basis, d)
        Basis data, stored as ``train_X``.
    bias : float, default 1.0

    Notes
    -----
    ``getKM`` costs O(n n_basis d) for dense and O(nnz-product) for sparse input.
    """

    def __init__(self, X, bias=1.0):
        self.train_X = as_kernel_input(X)
        self.bias = float(bias)
        if not np.isfinite(self.bias):
            raise ValueError(f"bias must be finite, got {bias!r}")

    def getKM(self, X):
        K = dot_dense(self._prepare(X), self.train_X)
        if self.bias != 0:
            K += self.bias
        return K

    def get_params(self):
        return {"bias": self.bias}
