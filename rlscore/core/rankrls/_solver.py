"""The linear algebra under RankRLS training: the dual system of the rotated kernel
(:class:`RotatedSolver`) and the symmetric Gram matrices of the primal
(:func:`gram_matrix`, :func:`symmetrize`; the primal system itself is
:class:`rlscore.core.rls.KernelSolver` on them).

The rotated kernel K' = B^T K B (B an orthonormal basis of the range of the
block-centering projection, one Householder reflection per block; see
:meth:`rlscore._groups.QueryGroups.rotate_kernel`) is held embedded in an m x m array
whose rows and columns ``first`` (one per block) are decoupled. One Cholesky factor per
lambda (:func:`rlscore.core.optim.regularized_cholesky`, O(m^3/3)) until a second lambda is
asked for; then one eigendecomposition of the (m - g) x (m - g) block (O(m^3)) and
O(m^2 p) per lambda.
"""

import numpy as np
import scipy.linalg as la
from scipy.linalg import blas, lapack

from rlscore.core.optim import psd_eigh, regularized_cholesky, symmetric_from_triangle

__all__ = ["RotatedSolver", "gram_matrix", "symmetrize"]


def symmetrize(C):
    """0.5 (C + C^T) as a C-contiguous float64 array (a Gram matrix assembled from
    sparse products, symmetric up to rounding)."""
    C = np.asarray(C, dtype=np.float64)
    return np.ascontiguousarray(0.5 * (C + C.T))


def gram_matrix(Phi):
    """Phi^T Phi for a dense (m, d) array, via SYRK on the Fortran view Phi^T (no copy
    of Phi): O(m d^2 / 2) flops, one d x d result."""
    return symmetric_from_triangle(blas.dsyrk(1.0, Phi.T, trans=0, lower=0), lower=False)


class RotatedSolver:
    """(K' + mu I)^{-1} Y' for the rotated kernel K' = B^T K B, held embedded in an
    m x m array whose rows and columns ``first`` are decoupled (1 on the diagonal, the
    right-hand side 0 there, so the solution is 0 there).

    One Cholesky (O(m^3/3)) per mu until a second mu is requested; then one
    eigendecomposition of the (m - g) x (m - g) block (O(m^3)) and O(m^2 p) per mu.
    """

    def __init__(self, K, Y, rest):
        self.K = K
        self.Y = Y
        self.rest = rest
        self._chol = None          # (mu, Fortran lower Cholesky factor)
        self._eig = None           # (s2, V (m - g, m - g), V^T Y[rest])
        self._x = None             # (mu, solution)

    @property
    def decomposed(self):
        return self._eig is not None

    def decompose(self):
        if self._eig is None:
            sub = self.K[np.ix_(self.rest, self.rest)]
            s2, V = psd_eigh(sub)
            del sub
            self._eig = (s2, V, V.T @ self.Y[self.rest])
            self._chol = None
        return self._eig

    def _cho(self, mu):
        if self._chol is None or self._chol[0] != mu:
            self._chol = None
            self._chol = (mu, regularized_cholesky(self.K, mu, "the centred kernel matrix",
                                        scaled=True))
        return self._chol[1]

    def solve(self, mu):
        if self._x is not None and self._x[0] == mu:
            return self._x[1]
        if self._eig is None and self._x is not None:
            self.decompose()
        if self._eig is not None:
            s2, V, c = self._eig
            denom = s2 + mu
            if np.any(denom <= 0):
                raise ValueError("regparam=0 with a singular centred kernel matrix: the "
                                 "problem has no unique solution; use regparam > 0")
            x = np.zeros_like(self.Y)
            x[self.rest] = V @ (c / denom[:, None])
        else:
            x = la.cho_solve((self._cho(mu), True), self.Y, check_finite=False)
        self._x = (mu, x)
        return x

    def solve_cholesky(self, mu):
        """The solution at mu from a Cholesky factorization, whatever the path state."""
        if self._x is not None and self._x[0] == mu:
            return self._x[1]
        return la.cho_solve((self._cho(mu), True), self.Y, check_finite=False)

    def inverse(self, mu):
        """(K' + mu I)^{-1} embedded in m x m (garbage in the decoupled rows/columns),
        from the Cholesky factor: O(m^3)."""
        c = self._cho(mu)
        G, info = lapack.dpotri(c, lower=1, overwrite_c=0)
        if info != 0:
            raise ValueError("could not invert the regularized kernel matrix")
        return symmetric_from_triangle(G, lower=True)
