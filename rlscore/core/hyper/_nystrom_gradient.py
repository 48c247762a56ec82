"""Leave-one-out squared error of the reduced-set (Nystrom) RLS model with a fixed basis,
and its gradient, at O(m r^2) per step (never an m x m matrix).

Derivation
----------
The model f(x) = k(x, B) beta over r fixed basis rows B minimizes
||y - Phi beta||^2 + lambda beta' K_rr beta with Phi = K(X, B) (m x r) and K_rr =
K(B, B). With S = Phi' Phi + lambda K_rr it is a linear smoother:
beta = S^-1 Phi' y, yhat = Phi beta, H = Phi S^-1 Phi'. The basis stays fixed when an
example is left out, so the leave-one-out residuals are exactly

    r_i = e_i / (1 - h_i),   e = y - yhat,   h_i = phi_i' S^-1 phi_i = (Z Phi')_ii,

Z = Phi S^-1 (m x r), and E = (1/N) sum r_i^2. Differentiating,
dr_i = (de_i + r_i dh_i) / (1 - h_i); with u_i = r_i / (1 - h_i), v_i = r_i^2 / (1 - h_i)
(v summed over outputs) and zu = Z' u (r x t):

    sum u de = -<dPhi, u beta'> - <dPhi, y zu'> + <dS, zu beta'>,
    sum v dh = 2 <dPhi, diag(v) Z> - <dS, Z' diag(v) Z>,
    dS = dPhi' Phi + Phi' dPhi + dlambda K_rr + lambda dK_rr,
    <dPhi' Phi + Phi' dPhi, T> = <dPhi, Phi (T + T')>.

With T = zu beta' - Z' diag(v) Z (r x r):

    dE = (2/N) [ <dPhi, M_Phi> + lambda <dK_rr, sym(T)> + dlambda <K_rr, T> ],
    M_Phi = -u beta' - y zu' + 2 diag(v) Z + Phi (T + T').

Every product is m x r by r x r or m x r by m x r: O(m r^2) per step, plus the kernel
blocks (O(m r d)) and their contractions (O(m r d) for all ARD widths).

Blocks held out together (leave-query-out). Holding out a block b of rows at once (basis
fixed), the linear-smoother identity becomes R_b = C_b^-1 e_b with C_b = I - H_bb
(symmetric). Then dR_b = C_b^-1 (de_b + dH_bb R_b); with U_b = C_b^-1 R_b and W the
block-diagonal matrix of blocks sym(U_b R_b'), sum_b U_b' de_b = <U, de> as above and
sum_b <dH_bb, U_b R_b'> = <dH, W> = 2 <dPhi, W Z> - <dS, Z' W Z>. So u -> U and
diag(v) -> W in the formulas above: one-row blocks give back u and v.
"""

import numpy as np
import scipy.linalg as la

from rlscore._validation import as_2d_labels

__all__ = ["NystromLOOObjective", "nystrom_loo_error_gradient"]


def nystrom_loo_error_gradient(Phi, Krr, Y, regparam, mean=True, gradient=True,
                               blocks=None):
    """Exact LOO squared error of the reduced-set RLS model with the basis fixed (or,
    with ``blocks``, its error with each block of rows held out at once).

    Parameters
    ----------
    Phi : ndarray (m, r), K(X, B)
    Krr : ndarray (r, r), K(B, B)
    Y : ndarray (m,) or (m, t)
    regparam : float > 0
    blocks : list of index arrays or None
        A partition of the rows into hold-out blocks (e.g. queries); None: one row each
        (leave-one-out).

    Returns
    -------
    value, M_Phi (m, r), M_rr (r, r), d_log_regparam
        dE = <dPhi, M_Phi> + <dK_rr, M_rr> + d_log_regparam dlog(lambda).

    Notes
    -----
    O(m r^2 + r^3): one Cholesky factor of the r x r matrix S and products of m x r
    matrices, plus O(sum_b n_b^2 r + n_b^3) for blocks of n_b rows. Memory O(m r).
    """
    Y = as_2d_labels(Y)
    m, t = Y.shape
    S = Phi.T @ Phi + regparam * Krr
    S = 0.5 * (S + S.T)
    try:
        cho = la.cho_factor(S, lower=True, check_finite=False)
        solve = lambda B: la.cho_solve(cho, B, check_finite=False)  # noqa: E731
    except la.LinAlgError:
        Sinv = la.pinvh(S)
        solve = lambda B: Sinv @ B  # noqa: E731
    Z = solve(Phi.T).T                                    # Phi S^-1
    beta = Z.T @ Y
    E = Y - Phi @ beta
    N = m * t if mean else 1
    if blocks is None:
        h = np.einsum("ij,ij->i", Z, Phi)
        R = E / (1.0 - h)[:, None]
        if not gradient:
            return float(np.sum(R * R)) / N, None, None, None
        U = R / (1.0 - h)[:, None]
        WZ = (np.sum(R * R, axis=1) / (1.0 - h))[:, None] * Z      # diag(v) Z
    else:
        R, U, WZ = _block_holdout(Z, Phi, E, blocks, gradient)
        if not gradient:
            return float(np.sum(R * R)) / N, None, None, None
    value = float(np.sum(R * R)) / N
    zu = Z.T @ U
    T = zu @ beta.T - Z.T @ WZ
    c = 2.0 / N
    M_phi = c * (-U @ beta.T - Y @ zu.T + 2.0 * WZ + Phi @ (T + T.T))
    M_rr = c * regparam * 0.5 * (T + T.T)
    d_log = c * regparam * float(np.vdot(Krr, T))
    return value, M_phi, M_rr, d_log


def _block_holdout(Z, Phi, E, blocks, gradient):
    """Held-out residuals R_b = (I - H_bb)^-1 e_b of each block, U_b = (I - H_bb)^-1 R_b
    and W Z (W block diagonal, blocks sym(U_b R_b')); see the module docstring.
    O(sum_b n_b^2 r + n_b^3)."""
    R = np.empty_like(E)
    U = np.empty_like(E) if gradient else None
    WZ = np.empty_like(Z) if gradient else None
    for idx in blocks:
        C = np.eye(len(idx)) - Z[idx] @ Phi[idx].T
        C = 0.5 * (C + C.T)
        R[idx] = np.linalg.solve(C, E[idx])
        if gradient:
            U[idx] = np.linalg.solve(C, R[idx])
            W = U[idx] @ R[idx].T
            WZ[idx] = 0.5 * (W + W.T) @ Z[idx]
    return R, U, WZ


class NystromLOOObjective:
    """LOO criterion of reduced-set RLS (basis fixed) as a function of z = [log
    regparam, theta], with its gradient.

    Parameters
    ----------
    family : kernel family on the training rows X with ``block``/``contract_block``
        (:class:`rlscore.kernel.GaussianFamily`)
    basis_family : the same kind of family on the basis rows B (its ``X``)
    Y : ndarray (m,) or (m, t)

    Notes
    -----
    Per call O(m r d) for K(X, B) and its contractions, O(r^2 d) for K(B, B), and
    O(m r^2 + r^3) for the criterion: no m x m array.
    """

    def __init__(self, family, basis_family, Y):
        self.family, self.basis_family = family, basis_family
        self.Y = as_2d_labels(Y)
        self.n_params = 1 + family.n_params

    def _parts(self, z):
        theta = np.asarray(z[1:], dtype=np.float64)
        Phi, st = self.family.block(theta, self.basis_family.X)
        Krr, st_rr = self.basis_family.evaluate(theta)
        return theta, Phi, st, Krr, st_rr

    def __call__(self, z):
        z = np.asarray(z, dtype=np.float64)
        theta, Phi, st, Krr, st_rr = self._parts(z)
        value, M_phi, M_rr, d_log = nystrom_loo_error_gradient(Phi, Krr, self.Y,
                                                               float(np.exp(z[0])))
        grad = (self.family.contract_block(theta, st, M_phi)
                + self.basis_family.contract(theta, st_rr, M_rr))
        return value, np.concatenate([[d_log], grad])

    def value(self, z):
        z = np.asarray(z, dtype=np.float64)
        _, Phi, _, Krr, _ = self._parts(z)
        return nystrom_loo_error_gradient(Phi, Krr, self.Y, float(np.exp(z[0])),
                                          gradient=False)[0]
