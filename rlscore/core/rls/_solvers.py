"""Closed-form RLS solvers with the regularization path and exact hold-out shortcuts.

Two solvers share one interface:

* :class:`KernelSolver` (dual): A = (K + lambda I)^{-1} Y for an m x m kernel matrix.
* :class:`LinearSolver` (primal): W = (Phi^T Phi + lambda I)^{-1} Phi^T Y for an m x d
  feature matrix (dense or CSR), which is also how reduced-set (Nystrom) models and the
  linear kernel are trained.

Both train a single lambda with a Cholesky factorization and switch to an
eigendecomposition the first time a regularization path (a second lambda) or a
cross-validation shortcut that profits from it is requested; after that a new lambda
costs O(m^2 p) (dual) or O(d^2 p) (primal) and the shortcuts are cheap.

Hold-out formulas: with G = (K + lambda I)^{-1}, A = G Y, M = lambda G, B = I - M (the
hat matrix K G), R = lambda A and F = B Y, the predictions for the rows H of the model
trained on the other rows are

    f(H) = Y_H - (M_HH)^{-1} R_H            (Airola 2011 thesis, Proposition 1)
         = (M_HH)^{-1} (F_H - B_HH Y_H)     (Pahikkala et al., Theorem 1).

M_HH is always formed from positive weights (lambda / (mu + lambda)) so it has no
cancellation; the first right-hand side cancels when lambda is large (f small against
Y), the second when lambda is small (B near I), so :class:`HoldoutShortcuts` picks the
first when the mean of diag(B_HH) is at least 1/2 and the second otherwise. This keeps
every shortcut within ~1e-12 relative of retraining for lambda from 1e-6 to 1e6.
"""

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.linalg import blas, lapack

from rlscore._ext import _lpo
from rlscore._blocks import batches, get_working_memory
from rlscore._progress import stage
from rlscore._validation import check_peak_memory, check_regparam
from rlscore.core.optim import (SingularRegparamError, psd_eigh, regularized_cholesky,
                                symmetric_from_triangle)
from rlscore.core.rls._folds import FoldCache, primal_fold_parts, primal_fold_predictions
from rlscore.core.rls._shortcuts import (HoldoutBlocks, HoldoutDiagonals, HoldoutShortcuts,
                                         ResidualFit, loo_rows)

__all__ = ["KernelSolver", "LinearSolver"]


class KernelSolver(HoldoutShortcuts):
    """Dual RLS on a precomputed m x m kernel matrix K and labels Y (m, p).

    Parameters
    ----------
    K : ndarray (m, m), symmetric positive semidefinite
    Y : ndarray (m, p)
    what : str, default "the kernel matrix"
        K as the errors name it (RankRLS: "the centred kernel matrix").
    scaled : bool, default False
        The caller scaled its regparam (RankRLS's mu); the errors say so.

    Raises
    ------
    rlscore.core.optim.SingularRegparamError
        K + regparam I singular or indefinite (regparam=0 with a singular K).

    Notes
    -----
    Memory O(m^2) (K, plus V after a decomposition, plus G when an m x m inverse is
    needed). Costs: first lambda O(m^3/3) (Cholesky); ``decompose`` O(m^3); then each
    lambda O(m^2 p); ``holdout`` of h rows O(h^2 m + h^3); ``leave_one_out`` O(m^2);
    ``leave_pair_out`` O(m^3) once per lambda for G, then O(p) per pair.
    """

    def __init__(self, K, Y, what="the kernel matrix", scaled=False):
        self.what = what
        self.scaled = scaled
        self.K = np.ascontiguousarray(K, dtype=np.float64)
        self.Y = np.ascontiguousarray(Y, dtype=np.float64)
        self.m = self.K.shape[0]
        self._eig = None            # (mu, V, V^T Y)
        self._V2 = None             # V * V, for diag(G)
        self._chol = None           # (regparam, lower Cholesky factor of K + regparam I)
        self._G = None              # (regparam, G)
        self._fit = None            # (regparam, A, F = K A or None)

    # -- factorizations ----------------------------------------------------------
    @property
    def decomposed(self):
        return self._eig is not None

    def _check_peak(self, path):
        check_peak_memory(path, self.m)

    def decompose(self):
        """Eigendecompose K once (O(m^3)); afterwards every lambda costs O(m^2 p)."""
        if self._eig is None:
            self._check_peak("lambda_path")
            mu, V = self._eigh()
            self._eig = (mu, V, V.T @ self.Y)
            self._chol = None
        return self._eig

    def _eigh(self):
        """(mu, V) of K (psd_eigh); a subclass may restrict it to an invariant block
        (:class:`rlscore.core.rankrls.RotatedSolver`)."""
        return psd_eigh(self.K)

    def _weights(self, regparam):
        mu = self._eig[0]
        denom = mu + regparam
        if np.any(denom <= 0):
            raise SingularRegparamError(
                f"{self.what} + regparam*I is singular or indefinite "
                f"(regparam={regparam!r}{' after scaling' if self.scaled else ''}, "
                f"smallest kernel eigenvalue {mu.min():.3g})",
                remedy="use a larger regparam or a positive semidefinite kernel")
        return 1.0 / denom

    def _cho(self, regparam):
        if self._chol is None or self._chol[0] != regparam:
            self._chol = None           # the old factor is freed before the new one
            self._chol = (regparam, regularized_cholesky(self.K, regparam, self.what,
                                                         scaled=self.scaled))
        return self._chol[1]

    # -- solutions ---------------------------------------------------------------
    def solve(self, regparam):
        """Dual coefficients A (m, p) for ``regparam``.

        After a decomposition, A and the fitted values F = K A come from one product
        V [V^T Y diag-scaled twice] (one pass over V per lambda)."""
        if self._fit is not None and self._fit[0] == regparam:
            return self._fit[1]
        if self._eig is None and self._fit is not None:
            self.decompose()             # a second lambda: a path is being explored
        if self._eig is not None:
            mu, V, VtY = self._eig
            w = self._weights(regparam)[:, None]
            p = VtY.shape[1]
            AF = V @ np.hstack([VtY * w, VtY * (mu[:, None] * w)])
            A, F = np.ascontiguousarray(AF[:, :p]), np.ascontiguousarray(AF[:, p:])
        else:
            c = self._cho(regparam)
            A, F = np.ascontiguousarray(la.cho_solve((c, True), self.Y, check_finite=False)), None
        self._fit = (regparam, A, F)
        return A

    def solve_cholesky(self, regparam):
        """A at ``regparam`` from a Cholesky factorization whatever the path state (no
        eigendecomposition is started): O(m^3/3), or O(1) when A is at hand."""
        if self._fit is not None and self._fit[0] == regparam:
            return self._fit[1]
        return la.cho_solve((self._cho(regparam), True), self.Y, check_finite=False)

    def fitted(self, regparam):
        """In-sample predictions F = K A."""
        A = self.solve(regparam)
        if self._fit[2] is None:
            self._fit = (regparam, A, self.K @ A)
        return self._fit[2]

    # -- the inverse G = (K + lambda I)^{-1} and its parts ----------------------
    def inverse(self, regparam, keep=True):
        """The full inverse G = (K + lambda I)^{-1} (m, m): one SYRK after a
        decomposition, one POTRI after a Cholesky; O(m^3). ``keep``: cache G for the
        hold-out shortcuts at this lambda (else the caller owns the only copy)."""
        if self._G is not None and self._G[0] == regparam:
            return self._G[1] if keep else self._G[1].copy()
        if self._eig is not None:
            mu, V, _ = self._eig
            B = V * np.sqrt(self._weights(regparam))[None, :]
            G = symmetric_from_triangle(blas.dsyrk(1.0, B.T, trans=1, lower=0), lower=False)
        else:
            G, info = lapack.dpotri(self._cho(regparam), lower=1)
            if info != 0:
                raise SingularRegparamError(
                    f"could not invert {self.what} + regparam*I (regparam={regparam!r})",
                    remedy="use a larger regparam")
            G = symmetric_from_triangle(G, lower=True)
        if keep:
            self._G = (regparam, G)
        return G

    # -- hooks of the hold-out shortcuts -------------------------------------------
    @staticmethod
    def _scale(regparam):
        # M = c G with c = lambda; at lambda = 0 (interpolation, B = I) c = 1 and only
        # Proposition 1 is used
        return regparam if regparam > 0 else 1.0

    def _rf(self, regparam):
        return ResidualFit(self._scale(regparam) * self.solve(regparam),
                           self.fitted(regparam))

    def _blocks(self, regparam, H):
        c = self._scale(regparam)
        if self._eig is not None:
            mu, V, _ = self._eig
            VH = V[H]
            w = self._weights(regparam)
            return HoldoutBlocks((VH * (c * w)) @ VH.T, (VH * (mu * w)) @ VH.T)
        if self._G is not None and self._G[0] == regparam:
            GH = self._G[1][:, H]
        else:
            E = np.zeros((self.m, H.size))
            E[H, np.arange(H.size)] = 1.0
            GH = la.cho_solve((self._cho(regparam), True), E, check_finite=False)
        return HoldoutBlocks(c * GH[H], self.K[H] @ GH)

    def _diags(self, regparam):
        if self._eig is None:
            self.decompose()
        mu, V, _ = self._eig
        w = self._weights(regparam)
        if self._V2 is None:
            self._V2 = V * V
        d = self._V2 @ np.column_stack([self._scale(regparam) * w, mu * w])
        return HoldoutDiagonals(np.ascontiguousarray(d[:, 0]), np.ascontiguousarray(d[:, 1]))

    def _lpo(self, regparam, s, e, R, F, out_s, out_e):
        c = self._scale(regparam)
        if self._eig is not None:
            mu, V, _ = self._eig
            B = V * np.sqrt(c * self._weights(regparam))[None, :]
            # M = c G = B B^T by one SYRK: B is C-contiguous, so B.T is the Fortran array
            # B^T and SYRK(trans=1) forms B B^T with its upper triangle valid; the
            # transposed (C-contiguous) view has the lower triangle valid, which is all
            # the pair loop reads
            M = blas.dsyrk(1.0, B.T, trans=1, lower=0).T
            bdiag = self._diags(regparam)[1]
        else:
            G = self.inverse(regparam)
            M = c * G
            bdiag = np.einsum("ij,ij->i", self.K, G)
        _lpo.lpo_dense(M, np.ascontiguousarray(bdiag), R, F, self.Y, s, e, out_s, out_e)


class LinearSolver(HoldoutShortcuts):
    """Primal RLS on features Phi (m, d), dense or CSR, and labels Y (m, p).

    Minimizes ``||Y - Phi W||^2 + lambda ||W||^2``.

    Notes
    -----
    Memory O(d^2 + m r) with r = rank(Phi) <= d (the rotated features Z = Phi V are
    kept once a cross-validation shortcut is used). Costs: Phi^T Phi O(m d^2) (O(nnz d)
    sparse), first lambda O(d^3/3), ``decompose`` O(d^3 + m d^2); then each lambda
    O(d^2 p); ``leave_one_out`` O(m r) per lambda; ``holdout`` of h rows O(h^2 r + h^3);
    ``leave_pair_out`` O(r + p) per pair. A hold-out of h > d rows, or one asked for
    again at another lambda, is a refit in the primal instead (:class:`FoldCache`):
    O(h d^2 + d^3) once per hold-out set (the downdated Gram matrix and its
    eigendecomposition, cached for the next lambda), then O(h d p) per lambda.
    """

    def __init__(self, Phi, Y):
        with stage(f"Gram matrix Phi^T Phi ({Phi.shape[1]} x {Phi.shape[1]})"):
            if sp.issparse(Phi):
                Phi = sp.csr_matrix(Phi, dtype=np.float64)
                C = (Phi.T @ Phi).toarray()
            else:
                Phi = np.ascontiguousarray(Phi, dtype=np.float64)
                C = blas.dsyrk(1.0, Phi, trans=1, lower=0)   # Phi^T Phi, upper triangle
                C = symmetric_from_triangle(C, lower=False)
        self.Phi = Phi
        self.Y = np.ascontiguousarray(Y, dtype=np.float64)
        self.m, self.d = Phi.shape
        self.C = C
        self.PhiTY = np.asarray(Phi.T @ self.Y)
        self._eig = None      # (s2, V, V^T Phi^T Y)
        self._cv = None       # (Z, U, s2_r, q): rotated features, left singular vectors
        self._chol = None
        self._W = None
        self._folds = FoldCache()

    def holdout(self, regparam, indices):
        """Predictions (h, p) for the h rows H from the model trained without them:
        the hold-out formula (h x h block) when h <= d, a primal refit by a downdate of
        Phi^T Phi (d x d) when h > d (:func:`prefer_primal_fold`) or when H comes back
        for another lambda (:class:`FoldCache`)."""
        parts = self._folds.cached(indices)
        if parts is not None:
            return primal_fold_predictions(parts, regparam)
        H = self._holdout_rows(indices)
        if self._folds.use_primal(H, self.d):
            return primal_fold_predictions(self._fold_parts(H), regparam)
        return super().holdout(regparam, H)

    def _fold_parts(self, H, N=None):
        """:func:`primal_fold_parts` of the rows H (cached; with the removal
        directions N when given): C - Phi_H^T Phi_H and Phi^T Y - Phi_H^T Y_H.
        O(h d^2 + d^3) the first time."""
        def build():
            Phi_H = self.Phi[H]
            Phi_H = Phi_H.toarray() if sp.issparse(Phi_H) else np.asarray(Phi_H)
            return primal_fold_parts(self.C - Phi_H.T @ Phi_H,
                                     self.PhiTY - Phi_H.T @ self.Y[H], Phi_H, N)
        return self._folds.get(H, build, b"" if N is None else b"R")

    @property
    def decomposed(self):
        return self._eig is not None

    def decompose(self):
        """Eigendecompose Phi^T Phi once: O(d^3)."""
        if self._eig is None:
            s2, V = psd_eigh(self.C)
            self._eig = (s2, V, V.T @ self.PhiTY)
            self._chol = None
        return self._eig

    def _weights(self, regparam):
        denom = self._eig[0] + regparam
        if np.any(denom <= 0):
            raise SingularRegparamError("regparam=0 with rank-deficient features: the "
                                        "problem has no unique solution")
        return 1.0 / denom

    def solve(self, regparam):
        """Primal weights W (d, p) for ``regparam``."""
        if self._W is not None and self._W[0] == regparam:
            return self._W[1]
        if self._eig is None and self._W is not None:
            self.decompose()
        if self._eig is not None:
            s2, V, VtPY = self._eig
            W = V @ (VtPY * self._weights(regparam)[:, None])
        else:
            if self._chol is None or self._chol[0] != regparam:
                self._chol = (regparam, regularized_cholesky(self.C, regparam, "Phi^T Phi"))
            W = la.cho_solve((self._chol[1], True), self.PhiTY, check_finite=False)
        self._W = (regparam, np.ascontiguousarray(W))
        return self._W[1]

    def fitted(self, regparam):
        """In-sample predictions Phi W."""
        return np.asarray(self.Phi @ self.solve(regparam))

    def dual_coefficients(self, regparam):
        """A = (Phi Phi^T + lambda I)^{-1} Y = (Y - Phi W) / lambda (lambda > 0)."""
        if regparam <= 0:
            return None
        return (self.Y - self.fitted(regparam)) / regparam

    # -- hooks of the hold-out shortcuts -------------------------------------------
    def _cv_parts(self):
        """U: left singular vectors of Phi for the nonzero singular values s (so
        Phi V = U diag(s)); q = 1 - rowsum(U^2); P = (I - U U^T) Y; U^T Y; U * U."""
        if self._cv is None:
            s2, V, VtPY = self.decompose()
            keep = s2 > 0
            Vk = V[:, keep]
            U = np.asarray(self.Phi @ Vk) / np.sqrt(s2[keep])[None, :]
            U = np.ascontiguousarray(U)
            q = np.maximum(1.0 - np.einsum("ij,ij->i", U, U), 0.0)
            UtY = U.T @ self.Y
            self._cv = (U, s2[keep], q, self.Y - U @ UtY, UtY, U * U)
        return self._cv

    def _rf(self, regparam):
        # R = lambda G Y = (I - U U^T) Y + U diag(lambda/(s2+lambda)) U^T Y and
        # F = U diag(s2/(s2+lambda)) U^T Y, from one pass over U; neither subtracts
        # nearly equal terms
        U, s2, q, P, UtY, U2 = self._cv_parts()
        p = UtY.shape[1]
        RF = U @ np.hstack([UtY * (regparam / (s2 + regparam))[:, None],
                            UtY * (s2 / (s2 + regparam))[:, None]])
        return ResidualFit(P + RF[:, :p], np.ascontiguousarray(RF[:, p:]))

    def leave_one_out_path(self, regparams, max_bytes=None):
        """Leave-one-out predictions for every lambda of ``regparams``: a list of
        (m, p) arrays, equal to ``leave_one_out`` per lambda.

        The grid is batched: R, F and both diagonals for L lambdas come from one GEMM
        with U (m x r x 2Lp) and one with U * U (m x r x 2L) (:func:`loo_rows`), so U
        is read twice for the whole grid instead of twice per lambda. O(m r L p)
        flops, memory O(m L p) per batch (batches of at most ``max_bytes``, default
        the working-memory budget of :mod:`rlscore._blocks`).
        """
        U, s2, q, P, UtY, U2 = self._cv_parts()
        grid = [float(check_regparam(lam)) for lam in regparams]
        m, p = self.Y.shape
        budget = get_working_memory() * 2**20 if max_bytes is None else max_bytes
        step = max(1, int(budget // (8 * m * (4 * p + 2))))   # at least one lambda
        out = []
        for sl in batches(len(grid), step):
            P_loo = loo_rows(U, self.Y, s2, UtY, np.asarray(grid[sl]), q=q, U2=U2, P=P)
            out.extend(np.ascontiguousarray(P_loo[:, j, :]) for j in range(P_loo.shape[1]))
        return out

    def _blocks(self, regparam, H):
        U, s2, q, P, UtY, U2 = self._cv_parts()
        UH = U[H]
        M = -(UH @ UH.T)
        M.flat[:: H.size + 1] += 1.0
        M += (UH * (regparam / (s2 + regparam))) @ UH.T
        return HoldoutBlocks(M, (UH * (s2 / (s2 + regparam))) @ UH.T)

    def _diags(self, regparam):
        U, s2, q, P, UtY, U2 = self._cv_parts()
        d = U2 @ np.column_stack([regparam / (s2 + regparam), s2 / (s2 + regparam)])
        return HoldoutDiagonals(q + d[:, 0], np.ascontiguousarray(d[:, 1]))

    def _lpo(self, regparam, s, e, R, F, out_s, out_e):
        U, s2, q, P, UtY, U2 = self._cv_parts()
        mdiag, bdiag = self._diags(regparam)
        w = np.ascontiguousarray(s2 / (s2 + regparam))
        _lpo.lpo_lowrank(U, w, np.ascontiguousarray(mdiag), np.ascontiguousarray(bdiag),
                         R, F, self.Y, s, e, out_s, out_e)
