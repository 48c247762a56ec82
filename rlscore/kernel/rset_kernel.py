"""Reduced-set (Nystrom-style) kernel built on a base kernel and basis features."""

import numpy as np
import scipy.linalg as la

from rlscore.kernel._base import KernelBase, as_kernel_input


class RsetKernel(KernelBase):
    """Reduced-set kernel k~(t, x) = k(t, B) k(B, B)^{-1} k(B, x).

    Parameters
    ----------
    base_kernel : kernel object built on the basis features B
        (``base_kernel.getKM(Z)`` = k(Z, B)).
    X : array-like, (n, d)
        The data the kernel is evaluated against (``train_X``).
    basis_features : array-like, (b, d)

    Notes
    -----
    Construction costs O(b^3 + n b^2) for b basis features; ``getKM(T)`` costs
    O(n_T b (d + n)).
    """

    def __init__(self, base_kernel, X, basis_features):
        self.base_kernel = base_kernel
        self.train_X = as_kernel_input(X)
        self.basis_features = as_kernel_input(basis_features, name="basis_features")
        K_bb = base_kernel.getKM(self.basis_features)
        K_xb = base_kernel.getKM(self.train_X)
        # R = k(X, B) k(B, B)^{-1}, through a symmetric solve
        self._R = la.solve(K_bb, K_xb.T, assume_a="sym").T

    def getKM(self, X):
        return np.ascontiguousarray(self.base_kernel.getKM(as_kernel_input(X)) @ self._R.T)
