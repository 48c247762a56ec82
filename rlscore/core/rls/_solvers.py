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
from rlscore._validation import (check_holdout_rows, check_index_pairs, check_peak_memory,
                                 check_regparam)
from rlscore.core.optim import psd_eigh, regularized_cholesky, symmetric_from_triangle

__all__ = ["HoldoutShortcuts", "KernelSolver", "LinearSolver", "FoldCache", "CheckedRows",
           "primal_fold_parts", "primal_fold_predictions", "prefer_primal_fold",
           "loo_combine", "loo_rows"]


def prefer_primal_fold(h, d):
    """True when the hold-out of h rows is cheaper as a refit in the d primal
    coordinates than through the h x h block of the hold-out formula.

    Cost model (flops): the refit's set-up, a downdated d x d Gram matrix and its
    eigendecomposition, ~6 d^3 + 2 h d^2 once per hold-out set, then O(h d p) per
    lambda; the block formula ~2 h^2 d + h^3 / 3 per lambda plus a fixed cost of about
    1e6 flops (the dozen array operations of a call, ~0.1 ms). The refit is chosen when
    h > d, or when its set-up costs no more than one call of the block formula (small
    d: the whole regparam grid then costs less)."""
    return h > d or 6 * d ** 3 + 2 * h * d * d <= 2 * h * h * d + h ** 3 / 3 + 1e6


def primal_fold_parts(C, b, Phi_H, N=None):
    """The lambda-independent parts of a primal refit without the rows H: with the
    Gram matrix C = Phi_{-H}^T L Phi_{-H} (d, d) and right-hand side
    b = Phi_{-H}^T L Y_{-H} (d, p) of the remaining rows (L = I for RLS, the centring
    for RankRLS), the held-out features Phi_H (h, d) and optionally the constraint
    directions N (d, k) of basis removal: (s2, V^T b, Phi_H V or None, V^T N or None,
    (Phi_H, V) or None) with C = V diag(s2) V^T.

    The product Phi_H V (O(h d^2)) is formed only for small hold-out sets: when
    h >= d and h > 16 p, Phi_H and V are kept instead (no more memory: d^2 <= h d) and
    each lambda applies them in turn (O((d + h) d p)), cheaper than the product up to
    h / p lambdas -- a K-fold grid with large folds saves an h x d x d product per
    fold. O(d^3 + d^2 k), plus O(h d^2) for small sets."""
    s2, V = psd_eigh(0.5 * (C + C.T))
    VtN = None if N is None or N.shape[1] == 0 else V.T @ N
    h, d = Phi_H.shape
    if h >= d and h > 16 * b.shape[1]:
        return s2, V.T @ b, None, VtN, (Phi_H, V)
    return s2, V.T @ b, np.asarray(Phi_H @ V), VtN, None


def primal_fold_predictions(parts, mu):
    """Predictions (h, p) of the refit at regularization mu from
    :func:`primal_fold_parts`: Phi_H V diag(1/(s2 + mu)) V^T b, or with constraint
    directions the refit under N^T w = 0 (basis removal): with M^{-1} the diagonal
    solve in the eigenvector coordinates, u - M^{-1} N (N^T M^{-1} N)^{-1} N^T u for
    u = M^{-1} b. O(h d p) (O((h + d) d p) when the parts keep Phi_H and V apart),
    plus O(d k (p + k) + k^3) with k constraints."""
    s2, Vtb, PhiV, VtN, apart = parts
    denom = s2 + mu
    if denom[0] <= 0:                     # s2 ascending (psd_eigh)
        raise ValueError("the hold-out problem is singular (regparam=0 with too few "
                         "remaining examples); use regparam > 0")
    g = (1.0 / denom)[:, None]
    u = g * Vtb
    if VtN is not None:
        v = g * VtN
        u = u - v @ np.linalg.solve(VtN.T @ v, VtN.T @ u)
    if apart is not None:
        Phi_H, V = apart
        return np.asarray(Phi_H @ (V @ u))
    return PhiV @ u


def _nbytes(item):
    """Bytes of the arrays in ``item`` (nested tuples included)."""
    if isinstance(item, tuple):
        return sum(_nbytes(a) for a in item)
    return getattr(item, "nbytes", 0)


class FoldCache:
    """Lambda-independent parts per hold-out set (keyed by its rows and a tag), kept
    between the calls of a regparam grid: at most ``max_bytes`` (oldest entries dropped
    first).

    :meth:`use_primal` decides the form of a hold-out: the primal refit when
    :func:`prefer_primal_fold`, or when the set was asked for before (a regparam grid
    revisits every fold), d <= 2.8 h and its parts fit in the cache: from the second
    lambda on the cached refit costs O(h d p) per lambda against O(h^2 d + h^3) for
    the h x h block.
    """

    def __init__(self, max_bytes=1 << 27, max_seen=1 << 16):
        self.max_bytes = max_bytes
        self.max_seen = max_seen
        self._items = {}
        self._bytes = 0
        self._seen = {}

    @staticmethod
    def _key(H, tag):
        return tag + np.asarray(H, dtype=np.intp).tobytes()

    def use_primal(self, H, d):
        """True when the hold-out of the rows H is computed in the d primal
        coordinates (see the class docstring); records H as seen."""
        if prefer_primal_fold(len(H), d):
            return True
        key = self._key(H, b"")
        if key in self._items:
            return True
        if key in self._seen:
            # a revisit: the refit's set-up (O(d^3 + h d^2)) is worth its O(h d p) per
            # lambda when d <= 2.8 h, where it costs a few calls of the block formula
            # (O(h^2 d + h^3) each) at most
            return (d * d <= 8 * len(H) ** 2
                    and self._bytes + 8 * (d * d + len(H) * d) <= self.max_bytes // 2)
        if len(self._seen) >= self.max_seen:
            self._seen.pop(next(iter(self._seen)))
        self._seen[key] = None
        return False

    def cached(self, indices, tag=b""):
        """The parts of ``indices`` when they are a 1-D intp array whose set is cached
        (validated when it was first computed), else None: a grid's later calls skip
        the checks. O(h)."""
        if (isinstance(indices, np.ndarray) and indices.dtype == np.intp
                and indices.ndim == 1 and self._items):
            return self._items.get(tag + indices.tobytes())
        return None

    def get(self, H, build, tag=b""):
        key = self._key(H, tag)
        item = self._items.get(key)
        if item is None:
            item = build()
            size = _nbytes(item)
            while self._items and self._bytes + size > self.max_bytes:
                old = self._items.pop(next(iter(self._items)))
                self._bytes -= _nbytes(old)
            self._items[key] = item
            self._bytes += size
        return item


class CheckedRows:
    """``check(indices)`` remembered for intp index arrays: a fold asked for again at
    the next lambda of a grid is not checked again (O(h) for the key instead of the
    checks' dozen array passes). Other inputs are checked every time."""

    def __init__(self, check, max_items=4096):
        self.check = check
        self.max_items = max_items
        self._seen = {}

    def __call__(self, indices):
        if not (isinstance(indices, np.ndarray) and indices.dtype == np.intp
                and indices.ndim == 1):
            return self.check(indices)
        key = indices.tobytes()
        out = self._seen.get(key)
        if out is None:
            out = self.check(indices)
            if len(self._seen) < self.max_items:
                self._seen[key] = out
        return out


def loo_combine(Y, R, F, mdiag, bdiag):
    """Leave-one-out predictions from R = lambda G Y, F = B Y and the diagonals of M and
    B: per row the better-conditioned of Proposition 1 (Y - R / m_ii) and Theorem 1
    ((F - b_ii Y) / m_ii). O(m p)."""
    if np.any(mdiag <= 0):
        raise ValueError("leave-one-out is undefined at regparam=0 for an example "
                         "the others determine exactly; use regparam > 0")
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


class HoldoutShortcuts:
    """Hold-out, leave-one-out and leave-pair-out from the hooks of a solver:
    ``_rf(lam)`` -> (R, F); ``_blocks(lam, H)`` -> (M_HH, B_HH);
    ``_diags(lam)`` -> (diag M, diag B); ``_lpo(lam, s, e, R, F, bdiag, out_s, out_e)``."""

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


class KernelSolver(HoldoutShortcuts):
    """Dual RLS on a precomputed m x m kernel matrix K and labels Y (m, p).

    Parameters
    ----------
    K : ndarray (m, m), symmetric positive semidefinite
    Y : ndarray (m, p)

    Notes
    -----
    Memory O(m^2) (K, plus V after a decomposition, plus G when an m x m inverse is
    needed). Costs: first lambda O(m^3/3) (Cholesky); ``decompose`` O(m^3); then each
    lambda O(m^2 p); ``holdout`` of h rows O(h^2 m + h^3); ``leave_one_out`` O(m^2);
    ``leave_pair_out`` O(m^3) once per lambda for G, then O(p) per pair.
    """

    def __init__(self, K, Y):
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
            mu, V = psd_eigh(self.K)
            self._eig = (mu, V, V.T @ self.Y)
            self._chol = None
        return self._eig

    def _weights(self, regparam):
        mu = self._eig[0]
        denom = mu + regparam
        if np.any(denom <= 0):
            raise ValueError(
                f"the kernel matrix + regparam*I is singular or indefinite "
                f"(regparam={regparam!r}, smallest kernel eigenvalue {mu.min():.3g}); "
                f"use a larger regparam or a positive semidefinite kernel")
        return 1.0 / denom

    def _cho(self, regparam):
        if self._chol is None or self._chol[0] != regparam:
            self._chol = (regparam, regularized_cholesky(self.K, regparam, "the kernel matrix"))
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

    def fitted(self, regparam):
        """In-sample predictions F = K A."""
        A = self.solve(regparam)
        if self._fit[2] is None:
            self._fit = (regparam, A, self.K @ A)
        return self._fit[2]

    # -- the inverse G = (K + lambda I)^{-1} and its parts ----------------------
    def inverse(self, regparam):
        """The full inverse G = (K + lambda I)^{-1} (m, m): one SYRK after a
        decomposition, one POTRI after a Cholesky; O(m^3)."""
        if self._G is not None and self._G[0] == regparam:
            return self._G[1]
        if self._eig is not None:
            mu, V, _ = self._eig
            B = V * np.sqrt(self._weights(regparam))[None, :]
            G = symmetric_from_triangle(blas.dsyrk(1.0, B.T, trans=1, lower=0), lower=False)
        else:
            G, info = lapack.dpotri(self._cho(regparam), lower=1)
            if info != 0:
                raise ValueError("could not invert the regularized kernel matrix")
            G = symmetric_from_triangle(G, lower=True)
        self._G = (regparam, G)
        return G

    # -- hooks of the hold-out shortcuts -------------------------------------------
    @staticmethod
    def _scale(regparam):
        # M = c G with c = lambda; at lambda = 0 (interpolation, B = I) c = 1 and only
        # Proposition 1 is used
        return regparam if regparam > 0 else 1.0

    def _rf(self, regparam):
        return self._scale(regparam) * self.solve(regparam), self.fitted(regparam)

    def _blocks(self, regparam, H):
        c = self._scale(regparam)
        if self._eig is not None:
            mu, V, _ = self._eig
            VH = V[H]
            w = self._weights(regparam)
            return (VH * (c * w)) @ VH.T, (VH * (mu * w)) @ VH.T
        if self._G is not None and self._G[0] == regparam:
            GH = self._G[1][:, H]
        else:
            E = np.zeros((self.m, H.size))
            E[H, np.arange(H.size)] = 1.0
            GH = la.cho_solve((self._cho(regparam), True), E, check_finite=False)
        return c * GH[H], self.K[H] @ GH

    def _diags(self, regparam):
        if self._eig is None:
            self.decompose()
        mu, V, _ = self._eig
        w = self._weights(regparam)
        if self._V2 is None:
            self._V2 = V * V
        d = self._V2 @ np.column_stack([self._scale(regparam) * w, mu * w])
        return np.ascontiguousarray(d[:, 0]), np.ascontiguousarray(d[:, 1])

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
            raise ValueError("regparam=0 with rank-deficient features: the problem has "
                             "no unique solution; use regparam > 0")
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
        return P + RF[:, :p], np.ascontiguousarray(RF[:, p:])

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
        return M, (UH * (s2 / (s2 + regparam))) @ UH.T

    def _diags(self, regparam):
        U, s2, q, P, UtY, U2 = self._cv_parts()
        d = U2 @ np.column_stack([regparam / (s2 + regparam), s2 / (s2 + regparam)])
        return q + d[:, 0], np.ascontiguousarray(d[:, 1])

    def _lpo(self, regparam, s, e, R, F, out_s, out_e):
        U, s2, q, P, UtY, U2 = self._cv_parts()
        mdiag, bdiag = self._diags(regparam)
        w = np.ascontiguousarray(s2 / (s2 + regparam))
        _lpo.lpo_lowrank(U, w, np.ascontiguousarray(mdiag), np.ascontiguousarray(bdiag),
                         R, F, self.Y, s, e, out_s, out_e)
