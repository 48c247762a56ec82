"""The hold-out algebra shared by the dual and primal RLS solvers: leave-one-out from
the diagonals (:func:`loo_combine`, batched over a grid by :func:`loo_rows`) and
hold-out, leave-one-out and leave-pair-out from a solver's hooks
(:class:`HoldoutShortcuts`); the formulas are in :mod:`rlscore.core.rls._solvers`."""

from typing import NamedTuple

import numpy as np

from rlscore._validation import check_holdout_rows, check_index_pairs
from rlscore.core.optim import SingularRegparamError
from rlscore.core.rls._folds import CheckedRows

__all__ = ["HoldoutShortcuts", "ResidualFit", "HoldoutBlocks", "HoldoutDiagonals",
           "loo_combine", "loo_rows"]


def loo_combine(Y, R, F, mdiag, bdiag):
    """Leave-one-out predictions from R = lambda G Y, F = B Y and the diagonals of M and
    B: per row the better-conditioned of Proposition 1 (Y - R / m_ii) and Theorem 1
    ((F - b_ii Y) / m_ii). O(m p)."""
    if np.any(mdiag <= 0):
        raise SingularRegparamError("leave-one-out is undefined at regparam=0 for an "
                                    "example the others determine exactly")
    small_fit = (bdiag < 0.5)[:, None]
    return np.where(small_fit, (F - bdiag[:, None] * Y) / mdiag[:, None],
                    Y - R / mdiag[:, None])


def loo_rows(U, Y, s2, UtY, regparams, q=None, U2=None, P=None):
    """Leave-one-out predictions (b, L, p) of primal RLS for the rows of U, all
    lambdas of ``regparams`` at once.

    U (b, k) are rows of the left singular vectors of the whole feature matrix Phi
    (U = Phi V diag(s)^{-1} over the nonzero s^2 = eigenvalues of Phi^T Phi), Y (b, p)
    their labels, UtY = U_all^T Y_all (k, p) over *all* rows. Any block of rows gives
    its rows of the in-memory result (the streamed path calls it block by block).
    q = 1 - rowsum(U^2), U2 = U * U and P = Y - U UtY may be passed when known.

    Notes
    -----
    Two GEMMs: U (b x k x 2 L p) and U * U (b x k x 2 L); O(b k L p) time, O(b L p)
    memory.
    """
    lam = np.asarray(regparams, dtype=np.float64)
    L, p = lam.size, Y.shape[1]
    if q is None:
        q = np.maximum(1.0 - np.einsum("ij,ij->i", U, U), 0.0)
    if U2 is None:
        U2 = U * U
    if P is None:
        P = Y - U @ UtY
    a = lam[None, :] / (s2[:, None] + lam[None, :])          # (k, L)
    f = s2[:, None] / (s2[:, None] + lam[None, :])            # no cancellation
    D = U2 @ np.hstack([a, f])                                # (b, 2L)
    coef = np.concatenate([(UtY[:, None, :] * a[:, :, None]).reshape(-1, L * p),
                           (UtY[:, None, :] * f[:, :, None]).reshape(-1, L * p)], axis=1)
    RF = U @ coef                                             # (b, 2Lp)
    out = np.empty((U.shape[0], L, p))
    for j in range(L):
        R = P + RF[:, j * p:(j + 1) * p]
        F = RF[:, (L + j) * p:(L + j + 1) * p]
        out[:, j, :] = loo_combine(Y, R, F, q + D[:, j], D[:, L + j])
    return out


class ResidualFit(NamedTuple):
    """The scaled residuals and the fit at one lambda (m, p) each (notation of
    :mod:`rlscore.core.rls._solvers`)."""
    R: np.ndarray           # lambda G Y = Y - F (c G Y with c = 1 at lambda = 0)
    F: np.ndarray           # B Y = K A, the in-sample fit


class HoldoutBlocks(NamedTuple):
    """The h x h blocks of the hold-out formula for the rows H."""
    M: np.ndarray           # M_HH, M = c G (positive weights, no cancellation)
    B: np.ndarray           # B_HH, B = I - M the hat matrix


class HoldoutDiagonals(NamedTuple):
    """diag M and diag B (m,) for leave-one-out."""
    M: np.ndarray
    B: np.ndarray


class HoldoutShortcuts:
    """Hold-out, leave-one-out and leave-pair-out from the hooks of a solver (the
    notation of :mod:`rlscore.core.rls._solvers`):

    * ``_rf(lam)`` -> :class:`ResidualFit` (R, F);
    * ``_blocks(lam, H)`` -> :class:`HoldoutBlocks` (M_HH, B_HH);
    * ``_diags(lam)`` -> :class:`HoldoutDiagonals` (diag M, diag B);
    * ``_lpo(lam, s, e, R, F, out_s, out_e)`` writes the leave-pair-out predictions
      of the pairs (s, e) into out_s, out_e.

    The dual solver scales M = c G by ``_scale(lam)`` (c = lambda, 1 at lambda = 0).
    """

    def holdout(self, regparam, indices):
        """Predictions (h, p) for the h rows H from the model trained without them."""
        H = self._holdout_rows(indices)
        R, F = self._rf(regparam)
        M, B = self._blocks(regparam, H)
        # M is symmetric positive definite and small (h x h): numpy's solve has the
        # least overhead per call (a regparam grid calls this once per fold and lambda)
        if B.trace() < 0.5 * H.size:
            return np.linalg.solve(M, F[H] - B @ self.Y[H])
        return self.Y[H] - np.linalg.solve(M, R[H])

    def _holdout_rows(self, indices):
        rows = self.__dict__.get("_rows")
        if rows is None:
            rows = self._rows = CheckedRows(lambda ind: check_holdout_rows(ind, self.m))
        return rows(indices)

    def _check_peak(self, path):
        """Refuse a dense path that would not fit (kernel solvers; see KernelSolver)."""

    def leave_one_out(self, regparam):
        """Leave-one-out predictions (m, p)."""
        self._check_peak("loo")
        R, F = self._rf(regparam)
        mdiag, bdiag = self._diags(regparam)
        return self._loo_combine(R, F, mdiag, bdiag)

    def _loo_combine(self, R, F, mdiag, bdiag):
        return loo_combine(self.Y, R, F, mdiag, bdiag)

    def leave_pair_out(self, regparam, starts, ends):
        """Predictions (n, p) for both members of each pair from the model trained
        without the pair."""
        s, e = check_index_pairs(starts, ends, self.m)
        self._check_peak("lpo")
        R, F = self._rf(regparam)
        out_s = np.empty((s.size, self.Y.shape[1]))
        out_e = np.empty_like(out_s)
        self._lpo(regparam, s, e, np.ascontiguousarray(R), np.ascontiguousarray(F),
                  out_s, out_e)
        return out_s, out_e
