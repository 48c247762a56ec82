"""The exact leave-one-out squared error of dual RLS and its gradient with respect to
log regparam and the kernel parameters, in adjoint form (one factorization per step).

Derivation
----------
Let K be the m x m training kernel, lambda > 0, G = (K + lambda I)^-1, A = G Y (the
dual coefficients, m x t) and d = diag(G). The leave-one-out residuals of RLS are

    R_ij = y_ij - f_{-i}(x_i)_j = A_ij / d_i                                    (1)

(the lambda G form of the hold-out formula), and the criterion is
E = (1/N) sum_ij R_ij^2 with N = m t (``mean=True``) or N = 1.

Differentiate with respect to K (lambda enters as K + lambda I, so d/d lambda is the
case dK = I):

    dG = -G dK G,   dA = -G dK A,   d(d_i) = -(G dK G)_ii,
    dR_ij = (dA_ij - R_ij d(d_i)) / d_i.

With U = R o (1/d) (row i divided by d_i) and w_i = sum_j R_ij^2 / d_i,

    dE = (2/N) sum_ij R_ij dR_ij
       = (2/N) [ sum_ij U_ij dA_ij - sum_i w_i d(d_i) ]
       = (2/N) [ -<dK, G U A'> + <dK, G diag(w) G> ],

and since dK is symmetric only the symmetric part of G U A' counts:

    dE = <dK, M>,   M = (2/N) ( G diag(w) G - sym(G U A') ),                  (2)

sym(B) = (B + B')/2. Hence, for every kernel parameter theta_j,
dE/dtheta_j = <dK/dtheta_j, M>, and dE/dlog lambda = lambda trace(M).

Cost of one step: the Cholesky factor of K + lambda I and G from it (LAPACK potrf +
potri, m^3 flops), G diag(w) G as one symmetric rank-m product (syrk, m^3 flops), and
O(m^2 t) for the rest of M; then O(m^2) per parameter for the contractions (the kernel
families batch them, e.g. O(m^2 d) for d per-feature widths by one matrix product).
Never O(m^3) per parameter. If K + lambda I is not numerically positive definite the
inverse comes from a symmetric eigendecomposition with negative eigenvalues of K
clipped to 0 instead (O(m^3), a constant factor slower).
"""

import numpy as np
import scipy.linalg as la
from scipy.linalg import blas, lapack

from rlscore._validation import as_2d_labels, check_regparam
from rlscore.core.optim import symmetric_from_triangle

__all__ = ["regularized_inverse", "loo_error_gradient", "LOOObjective", "LOOGradient",
           "check_criterion_inputs"]



def check_criterion_inputs(K, Y, regparam, what="leave-one-out"):
    """(Y as 2-D labels, regparam) for a cross-validation criterion of the kernel K
    (m x m): regparam > 0 (the criterion needs (K + regparam I) invertible), Y with m
    rows; ValueError naming the argument otherwise. O(m t)."""
    regparam = check_regparam(regparam)
    if regparam <= 0:
        raise ValueError(f"regparam must be > 0 for the {what} criterion, got "
                         f"{regparam!r}")
    Y = as_2d_labels(Y)
    if K.shape != (Y.shape[0], Y.shape[0]):
        raise ValueError(f"K has shape {K.shape}, Y has {Y.shape[0]} rows")
    return Y, regparam

def regularized_inverse(K, regparam, logdet=False):
    """G = (K + regparam I)^-1 of a symmetric PSD K as a full C-contiguous array (and,
    with ``logdet=True``, log det(K + regparam I) too: returns (G, logdet)).

    Cholesky (potrf) and its inverse (potri), m^3 flops; when the factorization fails
    (K + regparam I not numerically positive definite), a symmetric eigendecomposition
    with the eigenvalues of K clipped at 0, O(m^3).
    """
    S = np.array(K, order="F", dtype=np.float64)
    S.flat[:: S.shape[0] + 1] += regparam
    L, info = lapack.dpotrf(S, lower=1, overwrite_a=1)
    if info == 0:
        ld = 2.0 * float(np.sum(np.log(np.diagonal(L))))
        G, info = lapack.dpotri(L, lower=1, overwrite_c=1)
        if info == 0:
            G = symmetric_from_triangle(G, lower=True)
            return (G, ld) if logdet else G
    mu, V = la.eigh(K, driver="evd", check_finite=False)
    mu = np.maximum(mu, 0.0) + regparam
    W = V / np.sqrt(mu)
    G = W @ W.T                     # exactly symmetric
    return (G, float(np.sum(np.log(mu)))) if logdet else G


class LOOGradient:
    """The criterion at one point: ``value`` (E), ``M`` (the adjoint matrix (2)),
    ``d_log_regparam`` (dE/dlog lambda), ``residuals`` (R, m x t), ``dual`` (A)."""

    __slots__ = ("value", "M", "d_log_regparam", "residuals", "dual")

    def __init__(self, value, M, d_log_regparam, residuals, dual):
        self.value, self.M, self.d_log_regparam = value, M, d_log_regparam
        self.residuals, self.dual = residuals, dual


def loo_error_gradient(K, Y, regparam, mean=True, gradient=True):
    """Exact leave-one-out squared error of dual RLS, and its adjoint matrix M.

    Parameters
    ----------
    K : ndarray (m, m), symmetric PSD kernel of the training rows
    Y : ndarray (m,) or (m, t), labels (regression values or +-1)
    regparam : float > 0
    mean : bool, default True
        E is the mean of the squared residuals over the m t entries (else the sum).
    gradient : bool, default True
        Form M (else only the value and residuals).

    Returns
    -------
    LOOGradient
        ``value`` = E, ``M`` such that dE = <dK, M> for any symmetric dK (equation (2)
        of the module docstring), ``d_log_regparam`` = regparam trace(M).

    Notes
    -----
    One Cholesky factorization and inverse plus one syrk: about 2 m^3 flops, against
    m^3 / 3 for the Cholesky factor alone; O(m^2 t) beyond that.
    """
    Y, regparam = check_criterion_inputs(K, Y, regparam, "leave-one-out")
    m, t = Y.shape
    G = regularized_inverse(K, regparam)
    A = G @ Y
    d = np.diagonal(G).copy()
    R = A / d[:, None]
    N = m * t if mean else 1
    value = float(np.sum(R * R)) / N
    if not gradient:
        return LOOGradient(value, None, None, R, A)
    U = R / d[:, None]
    w = np.sum(R * R, axis=1) / d
    # G diag(w) G as (G sqrt(w)) (G sqrt(w))': one syrk, lower triangle, w >= 0 (d > 0)
    B = np.asfortranarray(G * np.sqrt(w)[None, :])
    M = blas.dsyrk(2.0 / N, B, lower=1)
    M = symmetric_from_triangle(M, lower=True)
    C = (G @ U) @ A.T
    C += C.T
    C *= 1.0 / N              # (2/N) sym(G U A')
    M -= C
    return LOOGradient(value, M, regparam * float(np.trace(M)), R, A)


class LOOObjective:
    """The LOO criterion of dual RLS as a function of z = [log regparam, theta], with
    its gradient: the callable that :func:`rlscore.core.selection.minimize_criterion`
    minimizes.

    Parameters
    ----------
    family : a kernel family of :mod:`rlscore.kernel` (``GaussianFamily``, ...)
    Y : ndarray (m,) or (m, t)
    mean : bool, default True

    Notes
    -----
    A call costs one kernel evaluation (O(m^2) for an isotropic Gaussian with its
    distances kept, O(m^2 d) for ARD), one :func:`loo_error_gradient` (~2 m^3 flops)
    and the family's contractions (O(m^2) per parameter, O(m^2 d) for ARD).
    """

    def __init__(self, family, Y, mean=True):
        self.family = family
        self.Y = as_2d_labels(Y)
        self.mean = mean
        self.n_params = 1 + family.n_params
        self.names = ["log_regparam"] + list(family.names)

    def _criterion(self, K, regparam, gradient=True):
        """The criterion's result (value, M, d_log_regparam) at the kernel matrix K."""
        return loo_error_gradient(K, self.Y, regparam, self.mean, gradient=gradient)

    def __call__(self, z):
        z = np.asarray(z, dtype=np.float64)
        theta = z[1:]
        K, state = self.family.evaluate(theta)
        res = self._criterion(K, float(np.exp(z[0])))
        grad = np.concatenate([[res.d_log_regparam],
                               self.family.contract(theta, state, res.M)])
        return res.value, grad

    def value(self, z):
        """The criterion alone (no M): one factorization."""
        z = np.asarray(z, dtype=np.float64)
        K, _ = self.family.evaluate(z[1:])
        return self._criterion(K, float(np.exp(z[0])), gradient=False).value
