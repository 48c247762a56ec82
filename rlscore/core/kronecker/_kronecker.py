"""Kronecker (pairwise) RLS on complete data: KronRLS, two-step RLS, conditional
ranking, and their cross-validation shortcuts.

Conventions
-----------
Two domains with n1 and n2 objects (kernel matrices K1, K2 or feature matrices X1,
X2). The labels of the n1 x n2 pairs form the matrix Y, and a label *vector* is
vec_F(Y), the column-major flattening: the pair (i, j) sits at position i + j * n1
(domain-1 index fastest). The pairwise kernel of the pairs (i, j) and (k, l) is
K1[i, k] * K2[j, l], i.e. the matrix K2 kron K1 in that order, and

    (K2 kron K1) vec_F(A) = vec_F(K1 A K2).

Each domain is held as a :class:`DomainFactor`: an eigendecomposition
K = V diag(e) V^T (all n eigenpairs in kernel mode; in linear mode with fewer
features than objects the thin form from the SVD of X, whose null space is carried
implicitly). Everything below is then a few matrix products with V (Pahikkala et al.
2013, Prop. 4.4 / Cor. 4.5; Stock et al. 2018 for two-step RLS):

* KronRLS: A = V1 [ (V1^T Y V2) / (e1 e2^T + lambda) ] V2^T, i.e.
  (K2 kron K1 + lambda I) vec_F(A) = vec_F(Y): O(n1^3 + n2^3) for the two
  decompositions, O(n1 n2 (n1 + n2)) per lambda.
* two-step RLS: A = (K1 + l1 I)^{-1} Y (K2 + l2 I)^{-1}; fitted values H1 Y H2 with
  the hat matrices H = K (K + l I)^{-1}.
* conditional ranking (loss sum_i sum_{j,j'} ((Y_ij - F_ij) - (Y_ij' - F_ij'))^2 / n2):
  KronRLS with K2 replaced by C K2 C and Y by Y C, C = I - 11^T / n2.

Hold-out formulas use the lambda G form (G = (K + lambda I)^{-1}, M = lambda G,
B = I - M) with both cancellation-free right-hand sides, as in
:mod:`rlscore.core.rls`, whose hold-out machinery the row/column
cross-validation of two-step RLS reuses.

This module holds :class:`KronRLSSolver` and re-exports the rest of the family, each
from the module of its one job:

* :mod:`rlscore.core.kronecker` -- the vec_F layout, the checks of kernels and
  label matrices, the label / domain transforms of the symmetric and reciprocal
  pairwise kernels and of conditional ranking;
* :mod:`rlscore.core.kronecker` -- :class:`DomainFactor` (one domain's
  eigendecomposition), :func:`make_factor`, :class:`DomainRLS`;
* :mod:`rlscore.core.kronecker` -- :class:`TwoStepSolver` and its
  cross-validation shortcuts;
* :mod:`rlscore.core.kronecker` -- the exact hold-outs of KronRLS;
  :mod:`rlscore.core.kronecker` -- the KronRLS model object both faces adapt.
"""

import numpy as np

from rlscore.core.kronecker._indefinite import check_kron_regparam
from rlscore.core.optim import SingularRegparamError
from rlscore.core.kronecker._data import (PAIRWISE_KERNELS, centred_domain,  # noqa: F401
                                          check_complete_size, check_pairwise_kernel,
                                          check_pairwise_labels, check_square_kernel,
                                          resolve_domains, symmetrize_labels, vec_f)
from rlscore.core.kronecker._factor import (DomainFactor, DomainRLS, make_factor, rotate)  # noqa: F401
from rlscore.core.kronecker._two_step import TwoStepSolver  # noqa: F401

__all__ = ["DomainFactor", "check_pairwise_labels", "check_complete_size",
           "check_square_kernel", "vec_f", "KronRLSSolver", "TwoStepSolver",
           "DomainRLS"]


class KronRLSSolver:
    """Closed-form Kronecker RLS on complete data.

    Parameters
    ----------
    f1, f2 : DomainFactor
    Y : ndarray (n1, n2)

    Notes
    -----
    Construction: the rotated labels V1^T Y V2, O(n1 n2 (r1 + r2)) (two GEMMs).
    ``coefficients(l)``: two more GEMMs, O(n1 n2 (n1 + n2)). ``in_sample_loo(l)``:
    O(n1 n2 (n1 + n2)). Memory: a few n1 x n2 arrays.
    """

    def __init__(self, f1, f2, Y):
        self.f1, self.f2 = f1, f2
        self.Y = Y
        self.Yt = rotate(f1.V, Y, f2.V)
        self._thin_resid = None

    def _denominator(self, regparam):
        check_kron_regparam((self.f1.extremes, self.f2.extremes),
                            (self.f1.name, self.f2.name), regparam)
        E = np.multiply.outer(self.f1.e, self.f2.e)
        E += regparam
        if np.any(E <= 0) or (regparam == 0 and not (self.f1.full and self.f2.full)):
            raise SingularRegparamError(
                f"{self.f2.name} kron {self.f1.name} + regparam*I is singular (regparam="
                f"{regparam!r})")
        return E

    def core(self, regparam):
        """C = Yt / (e1 e2^T + l): the coefficients in the eigenbasis (r1 x r2)."""
        return self.Yt / self._denominator(regparam)

    def dual(self, regparam):
        """A (n1 x n2) with (K2 kron K1 + l I) vec_F(A) = vec_F(Y) (kernel mode)."""
        C = self.core(regparam)
        A = self.f1.V @ C @ self.f2.V.T
        if not (self.f1.full and self.f2.full):
            # null-space part: (Y - projection) / l
            A += self._residual() / regparam
        return A

    def primal(self, regparam):
        """W (d1 x d2) minimizing ||X1 W X2^T - Y||^2 + l ||W||^2 (linear mode)."""
        return self.f1.XtV @ self.core(regparam) @ self.f2.XtV.T

    def _residual(self):
        if self._thin_resid is None:
            self._thin_resid = self.Y - self.f1.V @ self.Yt @ self.f2.V.T
        return self._thin_resid

    def in_sample_loo(self, regparam):
        """Leave-one-pair-out predictions (n1 x n2): for each (i, j), the model
        trained on every other entry of Y. O(n1 n2 (n1 + n2))."""
        f1, f2 = self.f1, self.f2
        E = self._denominator(regparam)
        EE = np.multiply.outer(f1.e, f2.e)
        Hw = EE / E                       # e1 e2 / (e1 e2 + l)
        Mw = regparam / E                 # l / (e1 e2 + l)
        h = f1.V2 @ Hw @ f2.V2.T
        p1 = 1.0 - f1.null
        m = f1.V2 @ Mw @ f2.V2.T + f1.null[:, None] + np.outer(p1, f2.null)
        F = f1.V @ (self.Yt * Hw) @ f2.V.T
        R = f1.V @ (self.Yt * Mw) @ f2.V.T
        if not (f1.full and f2.full):
            R += self._residual()
        if np.any(m <= 0):
            raise SingularRegparamError("leave-one-out is undefined at regparam=0 for a "
                                        "pair the others determine exactly")
        return np.where(h < 0.5, (F - h * self.Y) / m, self.Y - R / m)
