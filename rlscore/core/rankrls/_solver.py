"""The linear algebra under RankRLS training: the dual system of the rotated kernel
(:class:`RotatedSolver`) and the symmetric Gram matrices of the primal
(:func:`gram_matrix`, :func:`symmetrize`; the primal system itself is
:class:`rlscore.core.rls.KernelSolver` on them).

The rotated kernel K' = B^T K B (B an orthonormal basis of the range of the
block-centering projection, one Householder reflection per block; see
:meth:`rlscore._groups.QueryGroups.rotate_kernel`) is the (m - g) x (m - g) block
``rest`` of an m x m array whose rows and columns ``first`` (one per block) are
decoupled. :class:`RotatedSolver` is :class:`rlscore.core.rls.KernelSolver` on that
array -- its caches, its lambda-path policy (one Cholesky per lambda, O(m^3/3), until
a second lambda is asked for; then one eigendecomposition and O(m^2 p) per lambda),
its inverse and its errors -- with the eigendecomposition restricted to the block.
"""

import numpy as np
from scipy.linalg import blas

from rlscore.core.optim import psd_eigh, symmetric_from_triangle
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


class RotatedSolver(KernelSolver):
    """(K' + mu I)^{-1} Y' for the rotated kernel K' = B^T K B given embedded in an
    m x m array K whose rows and columns ``first`` are decoupled (1 on the diagonal,
    0 off it; the right-hand side is 0 there, so the solution is 0 there).

    :class:`rlscore.core.rls.KernelSolver` on K (the errors name "the centred kernel
    matrix" and the scaled regparam mu), except that the eigendecomposition is that
    of the block K[rest, rest], its eigenvectors embedded in m rows (0 in the rows
    ``first``): the decoupled directions carry no eigenvalue.

    Parameters
    ----------
    K : ndarray (m, m), the embedded rotated kernel (held, not copied)
    Y : ndarray (m, p), the rotated labels (0 in the rows ``first``)
    rest : ndarray of int (m - g,), the rows of the block

    Notes
    -----
    The costs of KernelSolver at size m, the eigendecomposition O((m - g)^3).
    ``inverse`` after a decomposition is 0 in the decoupled rows and columns.
    """

    def __init__(self, K, Y, rest):
        super().__init__(K, Y, what="the centred kernel matrix", scaled=True)
        self.rest = rest

    def _eigh(self):
        sub = self.K[np.ix_(self.rest, self.rest)]
        s2, Vb = psd_eigh(sub)
        del sub
        V = np.zeros((self.m, Vb.shape[1]))
        V[self.rest] = Vb
        return s2, V
