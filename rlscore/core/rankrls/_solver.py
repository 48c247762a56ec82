"""The linear algebra under RankRLS training: the dual system of the rotated kernel
(:class:`RotatedSolver`) and the symmetric Gram matrices of the primal
(:func:`gram_matrix`, :func:`symmetrize`; the primal system itself is
:class:`rlscore.core.rls.KernelSolver` on them).

The rotated kernel K' = B^T K B (B an orthonormal basis of the range of the
block-centering projection, one Householder reflection per block; see
:meth:`rlscore._groups.QueryGroups.rotate_kernel`) is the (m - g) x (m - g) block
``rest`` of an m x m array whose rows and columns ``first`` (one per block) are
decoupled. :class:`RotatedSolver` is :class:`rlscore.core.rls.KernelSolver` on that
block (one Cholesky per lambda, O(m^3/3), until a second lambda is asked for; then one
eigendecomposition, O(m^3), and O(m^2 p) per lambda) with its results embedded in the
m rows.
"""

import numpy as np
from scipy.linalg import blas

from rlscore.core.optim import symmetric_from_triangle
from rlscore.core.rls import KernelSolver

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
    """(K' + mu I)^{-1} Y' for the rotated kernel K' = B^T K B given embedded in an
    m x m array K whose rows and columns ``first`` are decoupled (the right-hand side
    is 0 there, so the solution is 0 there).

    A :class:`rlscore.core.rls.KernelSolver` on the block K[rest, rest] (``block``:
    its caches, its lambda-path policy and its errors, which name "the centred kernel
    matrix" and the scaled regparam mu), with the solutions embedded in m rows.

    Parameters
    ----------
    K : ndarray (m, m)
        The rotated kernel; only the block ``rest`` is read (and copied: the caller
        may free K).
    Y : ndarray (m, p)
        The rotated labels (0 in the rows ``first``).
    rest : ndarray of int (m - g,)
        The rows of the block.

    Notes
    -----
    Memory: the (m - g)^2 block (plus V after ``decompose``). Costs those of
    KernelSolver at size m - g; the embedding adds O(m p) per solution.
    """

    def __init__(self, K, Y, rest):
        self.m = K.shape[0]
        self.rest = rest
        self.block = KernelSolver(K[np.ix_(rest, rest)], np.asarray(Y)[rest],
                                  what="the centred kernel matrix", scaled=True)

    @property
    def decomposed(self):
        return self.block.decomposed

    def decompose(self):
        """(s2, V, V^T Y[rest]) of the block, computed once: O(m^3)."""
        return self.block.decompose()

    def _embed(self, x):
        out = np.zeros((self.m, x.shape[1]))
        out[self.rest] = x
        return out

    def solve(self, mu):
        """The solution (m, p) at mu, 0 in the rows ``first``."""
        return self._embed(self.block.solve(mu))

    def fitted(self, mu):
        """K' times the solution at mu (m, p), 0 in the rows ``first``."""
        return self._embed(self.block.fitted(mu))

    def solve_cholesky(self, mu):
        """The solution at mu from a Cholesky factorization, whatever the path state
        (no eigendecomposition is started)."""
        return self._embed(self.block.solve_cholesky(mu))

    def inverse(self, mu):
        """(K' + mu I)^{-1} embedded in m x m (0 in the decoupled rows and columns):
        O(m^3)."""
        G = np.zeros((self.m, self.m))
        G[np.ix_(self.rest, self.rest)] = self.block.inverse(mu, keep=False)
        return G
