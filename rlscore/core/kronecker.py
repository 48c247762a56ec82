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
:mod:`rlscore.core.rls_solvers`, whose hold-out machinery the row/column
cross-validation of two-step RLS reuses.
"""

import numpy as np
import scipy.linalg as la

from rlscore.core.indefinite import (check_factor_regparam, check_indefinite,
                                     check_kron_regparam, repair_spectrum)
from rlscore.core.rls_solvers import _HoldoutShortcuts, psd_eigh
from rlscore._validation import as_data_matrix, as_index_array, check_peak_memory

__all__ = ["DomainFactor", "check_pairwise_labels", "check_complete_size",
           "check_square_kernel", "vec_f", "KronRLSSolver", "TwoStepSolver",
           "DomainRLS"]

_EPS = np.finfo(np.float64).eps


def vec_f(Y):
    """Column-major flattening: entry (i, j) of an n1 x n2 matrix goes to i + j n1."""
    return np.asarray(Y).ravel(order="F")


def check_square_kernel(K, name, n=None):
    """A symmetric square kernel matrix as C-contiguous float64 (ValueError otherwise:
    non-square, non-symmetric beyond rounding, NaN/inf, wrong size)."""
    K = as_data_matrix(K, name=name)
    if not isinstance(K, np.ndarray):
        K = K.toarray()
    K = np.ascontiguousarray(K, dtype=np.float64)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square kernel matrix, got shape {K.shape}")
    if n is not None and K.shape[0] != n:
        raise ValueError(f"{name} must be {n} x {n}, got {K.shape}")
    scale = max(np.abs(K).max(), 1e-300)
    if np.abs(K - K.T).max() > 1e-8 * scale:
        raise ValueError(f"{name} must be a symmetric kernel matrix")
    return K


def check_pairwise_labels(Y, n1, n2, name="Y"):
    """The n1 x n2 label matrix from a vec_F vector (length n1 n2, or an (n1 n2, 1) or
    (1, n1 n2) array) or from the matrix itself. Anything else, including the
    transposed n2 x n1 matrix, is a ValueError naming the expected layout."""
    if hasattr(Y, "toarray"):
        raise ValueError(f"{name} must be dense")
    Y = np.asarray(Y)
    if Y.dtype == object or not (np.issubdtype(Y.dtype, np.number)
                                 and not np.issubdtype(Y.dtype, np.bool_)):
        raise ValueError(f"{name} must be numeric, got dtype {Y.dtype}")
    if np.iscomplexobj(Y):
        raise ValueError(f"{name} must be real-valued")
    size = n1 * n2
    if Y.ndim == 1 or (Y.ndim == 2 and (Y.shape == (size, 1) or Y.shape == (1, size))):
        if Y.size != size:
            raise ValueError(
                f"{name} has {Y.size} labels but there are n1 * n2 = {n1} * {n2} = "
                f"{size} pairs; give vec_F of the n1 x n2 label matrix (pair (i, j) at "
                f"i + j * n1) or the matrix itself")
        Ym = Y.reshape((n1, n2), order="F")
    elif Y.ndim == 2:
        if Y.shape != (n1, n2):
            hint = (" (it looks transposed)" if Y.shape == (n2, n1) else "")
            raise ValueError(f"{name} must be the n1 x n2 = {n1} x {n2} label matrix or "
                             f"its vec_F vector, got shape {Y.shape}{hint}")
        Ym = Y
    else:
        raise ValueError(f"{name} must be 1-D or 2-D, got {Y.ndim} dimensions")
    Ym = np.array(Ym, dtype=np.float64, order="C")
    if not np.all(np.isfinite(Ym)):
        raise ValueError(f"{name} contains NaN or infinity")
    return Ym


def check_complete_size(n1, n2, what="the complete-data Kronecker solver"):
    """Refuse (MemoryError) complete-data work whose estimated peak
    (:func:`rlscore._validation.estimate_peak_bytes`) would not fit, suggesting the
    iterative solver for sampled pairs."""
    check_peak_memory("kronecker", n1, n2,
                      what=f"{what} ({n1} x {n2} = {n1 * n2} labelled pairs)")


class DomainFactor:
    """One domain of a Kronecker model: K = V diag(e) V^T.

    Attributes
    ----------
    n : number of objects
    V : (n, r) orthonormal columns; r = n in kernel mode and for wide X
    e : (r,) eigenvalues (squared singular values in linear mode)
    null : (n,) squared norm of each row's component outside span(V) (zeros when r = n)
    XtV : (d, r) or None, X^T V in linear mode (the primal weights are
        XtV1 C XtV2^T for a coefficient matrix C in the eigenbasis)
    full : bool, r = n
    name, regname : names used in messages ("K1", "regparam1", ...)
    data : the kernel or feature matrix the factor was made from (after an
        indefinite-kernel repair, the repaired kernel), or None

    Notes
    -----
    Kernel mode: one ``eigh`` (divide and conquer), O(n^3). Linear mode: X X^T and its
    eigh when d >= n, O(n^2 d + n^3); otherwise X^T X and its eigh, O(n d^2 + d^3).
    """

    def __init__(self, V, e, XtV=None, null=None, name="K", regname="regparam",
                 data=None):
        self.name, self.regname, self.data = name, regname, data
        self.V = np.ascontiguousarray(V)
        self.e = np.ascontiguousarray(e, dtype=np.float64)
        self.n = self.V.shape[0]
        self.full = self.V.shape[1] == self.n
        self.XtV = XtV
        self.null = np.zeros(self.n) if null is None else null
        self._V2 = None

    @classmethod
    def from_kernel(cls, K):
        e, V = psd_eigh(K)
        return cls(V, e)

    @classmethod
    def from_features(cls, X):
        n, d = X.shape
        sparse = not isinstance(X, np.ndarray)
        if d >= n:
            G = X @ X.T
            G = np.asarray(G.toarray() if hasattr(G, "toarray") else G)
            e, V = psd_eigh(0.5 * (G + G.T))
            XtV = np.asarray(X.T @ V)
            return cls(V, e, XtV=np.ascontiguousarray(XtV))
        C = X.T @ X
        C = np.asarray(C.toarray() if hasattr(C, "toarray") else C)
        s2, Vd = psd_eigh(0.5 * (C + C.T))
        keep = s2 > 0
        s2, Vd = s2[keep], Vd[:, keep]
        s = np.sqrt(s2)
        U = np.asarray(X @ Vd) / s[None, :]
        if sparse:
            U = np.asarray(U)
        null = np.maximum(1.0 - np.einsum("ij,ij->i", U, U), 0.0)
        return cls(U, s2, XtV=np.ascontiguousarray(Vd * s[None, :]), null=null)

    @property
    def extremes(self):
        """(smallest, largest) eigenvalue (0 for the implicit null space of a thin
        factor)."""
        lo = float(self.e.min(initial=0.0))
        hi = float(self.e.max(initial=0.0))
        return (min(lo, 0.0), hi) if not self.full else (lo, hi)

    @property
    def V2(self):
        if self._V2 is None:
            self._V2 = self.V * self.V
        return self._V2

    def project(self, Y, side):
        """V^T Y (side 0, Y has n rows) or Y V (side 1, Y has n columns)."""
        return self.V.T @ Y if side == 0 else Y @ self.V

    def weights(self, regparam):
        """(1/(e + l), e/(e + l), l/(e + l)); ValueError when e + l <= 0."""
        check_factor_regparam(self.extremes[0], self.name, regparam, self.regname)
        denom = self.e + regparam
        if np.any(denom <= 0) or (regparam == 0 and not self.full):
            raise ValueError(
                f"{self.name} + {self.regname}*I is singular ({self.regname}="
                f"{regparam!r}, smallest eigenvalue {self.e.min(initial=0.0):.3g}); use "
                f"{self.regname} > 0")
        inv = 1.0 / denom
        return inv, self.e * inv, regparam * inv

    def hat(self, regparam):
        """H = K (K + l I)^{-1} (n x n)."""
        _, f, _ = self.weights(regparam)
        return (self.V * f) @ self.V.T

    def complement(self, regparam):
        """M = I - H = l (K + l I)^{-1} (n x n), without cancellation in kernel mode."""
        _, f, g = self.weights(regparam)
        if self.full:
            return (self.V * g) @ self.V.T
        M = -(self.V * f) @ self.V.T
        M.flat[:: self.n + 1] += 1.0
        return M

    def hat_diag(self, regparam):
        """(diag H, diag M) with diag M computed without cancellation."""
        _, f, g = self.weights(regparam)
        return self.V2 @ f, self.null + self.V2 @ g


class DomainRLS(_HoldoutShortcuts):
    """Ordinary RLS over one domain with labels Z (n x p), sharing a
    :class:`DomainFactor`: the hold-out, leave-one-out shortcuts of
    :mod:`rlscore.core.rls_solvers` on an existing decomposition (no new O(n^3)
    work). Used for leave-row-out / leave-column-out of two-step RLS."""

    def __init__(self, factor, Z):
        self.factor = factor
        self.Y = np.ascontiguousarray(Z, dtype=np.float64)
        self.m = factor.n
        self._VtZ = factor.V.T @ self.Y
        self._P = None
        self._rf_cache = None

    def _w(self, regparam):
        fac = self.factor
        if regparam > 0:
            _, f, g = fac.weights(regparam)
            return g, f
        if not fac.full or np.any(fac.e <= 0):
            raise ValueError("regparam=0 needs a nonsingular kernel matrix")
        return 1.0 / fac.e, np.ones_like(fac.e)

    def _rf(self, regparam):
        # cached: a K-fold run calls it once per fold with the same regparam
        if self._rf_cache is not None and self._rf_cache[0] == regparam:
            return self._rf_cache[1]
        fac = self.factor
        wm, wb = self._w(regparam)
        R = fac.V @ (self._VtZ * wm[:, None])
        if not fac.full:
            if self._P is None:
                self._P = self.Y - fac.V @ self._VtZ
            R = R + self._P
        F = fac.V @ (self._VtZ * wb[:, None])
        self._rf_cache = (regparam, (R, F))
        return R, F

    def _blocks(self, regparam, H):
        fac = self.factor
        wm, wb = self._w(regparam)
        VH = fac.V[H]
        M = (VH * wm) @ VH.T
        if not fac.full:
            M -= VH @ VH.T
            M.flat[:: H.size + 1] += 1.0
        return M, (VH * wb) @ VH.T

    def _diags(self, regparam):
        fac = self.factor
        wm, wb = self._w(regparam)
        return fac.null + fac.V2 @ wm, fac.V2 @ wb

    def _lpo(self, *args):  # pragma: no cover - not used
        raise NotImplementedError


def _rotate(V1, Y, V2):
    """V1^T Y V2 in the cheaper association order."""
    n1, n2 = Y.shape
    r1, r2 = V1.shape[1], V2.shape[1]
    if r1 * n2 * (n1 + r2) <= n1 * r2 * (n2 + r1):
        return (V1.T @ Y) @ V2
    return V1.T @ (Y @ V2)


def _folds(folds, n, name):
    out = []
    for f, fold in enumerate(folds):
        out.append(as_index_array(fold, n, name=f"{name}[{f}]"))
    if not out:
        raise ValueError(f"{name} is empty")
    return out


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
        self.Yt = _rotate(f1.V, Y, f2.V)
        self._thin_resid = None

    def _denominator(self, regparam):
        check_kron_regparam((self.f1.extremes, self.f2.extremes),
                            (self.f1.name, self.f2.name), regparam)
        E = np.multiply.outer(self.f1.e, self.f2.e)
        E += regparam
        if np.any(E <= 0) or (regparam == 0 and not (self.f1.full and self.f2.full)):
            raise ValueError(
                f"{self.f2.name} kron {self.f1.name} + regparam*I is singular (regparam="
                f"{regparam!r}); use regparam > 0")
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
            raise ValueError("leave-one-out is undefined at regparam=0 for a pair the "
                             "others determine exactly; use regparam > 0")
        return np.where(h < 0.5, (F - h * self.Y) / m, self.Y - R / m)


class TwoStepSolver:
    """Two-step kernel RLS on complete data (Pahikkala et al. 2014; Stock et al. 2018):
    A = (K1 + l1 I)^{-1} Y (K2 + l2 I)^{-1}, fitted values H1 Y H2.

    Notes
    -----
    Every cross-validation shortcut below costs O(n1 n2 (n1 + n2)) after the two
    decompositions, except the K-fold variants (plus the per-fold hold-out solves of
    :mod:`rlscore.core.rls_solvers`) and ``in_sample_kfold`` (a |S| x |S| system per
    fold S of entries, or MINRES on it with the vec trick for large folds).
    """

    def __init__(self, f1, f2, Y):
        self.f1, self.f2 = f1, f2
        self.Y = Y
        self.Yt = _rotate(f1.V, Y, f2.V)

    def core(self, l1, l2):
        inv1, _, _ = self.f1.weights(l1)
        inv2, _, _ = self.f2.weights(l2)
        return self.Yt * np.outer(inv1, inv2)

    def dual(self, l1, l2):
        """A = (K1 + l1 I)^{-1} Y (K2 + l2 I)^{-1} (n1 x n2)."""
        f1, f2 = self.f1, self.f2
        A = f1.V @ self.core(l1, l2) @ f2.V.T
        if not (f1.full and f2.full):
            # (K + l I)^{-1} = V diag(1/(e+l)) V^T + (I - V V^T) / l on each side
            G1 = (f1.V / (f1.e + l1)) @ f1.V.T
            G2 = (f2.V / (f2.e + l2)) @ f2.V.T
            if not f1.full:
                G1 += (np.eye(f1.n) - f1.V @ f1.V.T) / l1
            if not f2.full:
                G2 += (np.eye(f2.n) - f2.V @ f2.V.T) / l2
            A = G1 @ self.Y @ G2
        return A

    def primal(self, l1, l2):
        """W = (X1^T X1 + l1 I)^{-1} X1^T Y X2 (X2^T X2 + l2 I)^{-1}."""
        return self.f1.XtV @ self.core(l1, l2) @ self.f2.XtV.T

    def fitted(self, l1, l2):
        _, h1, _ = self.f1.weights(l1)
        _, h2, _ = self.f2.weights(l2)
        return self.f1.V @ (self.Yt * np.outer(h1, h2)) @ self.f2.V.T

    # -- in-sample (setting A) ------------------------------------------------------
    def _residual(self, l1, l2):
        """R = Y - H1 Y H2 = M1 Y + H1 Y M2 (each term free of cancellation)."""
        M1 = self.f1.complement(l1)
        H1 = self.f1.hat(l1)
        M2 = self.f2.complement(l2)
        return M1 @ self.Y + (H1 @ self.Y) @ M2

    def in_sample_loo(self, l1, l2):
        """Each entry of Y left out alone (RLS LOO with the two-step pairwise kernel):
        h_ij = H1_ii H2_jj, LOO = (F - h Y) / (1 - h). O(n1 n2 (n1 + n2))."""
        h1, m1 = self.f1.hat_diag(l1)
        h2, m2 = self.f2.hat_diag(l2)
        h = np.outer(h1, h2)
        m = m1[:, None] + np.outer(h1, m2)       # 1 - h1 h2, no cancellation
        if np.any(m <= 0):
            raise ValueError("leave-one-out is undefined when a hat-matrix diagonal is 1 "
                             "(regparam 0); use regparams > 0")
        F = self.fitted(l1, l2)
        small = h < 0.5
        out = np.empty_like(F)
        out[small] = ((F - h * self.Y) / m)[small]
        if not np.all(small):
            R = self._residual(l1, l2)
            out[~small] = (self.Y - R / m)[~small]
        return out

    def in_sample_kfold(self, folds, l1, l2, maxiter=None, dense_limit=2500):
        """Hold-out predictions for the given folds of entries; each fold S (a pair of
        equal-length row and column index sequences) is predicted by the model
        trained on all other entries: f_S = Y_S - (M_SS)^{-1} R_S with
        M = I - H2 kron H1 (dense solve for |S| <= dense_limit, else MINRES with the
        vec trick, at most ``maxiter`` iterations). Entries in no fold are 0."""
        from rlscore.core.kronecker_cg import minres
        from rlscore.core.vec_trick import SampledKronProduct, as_index_vector
        n1, n2 = self.Y.shape
        H1, M1 = self.f1.hat(l1), self.f1.complement(l1)
        H2, M2 = self.f2.hat(l2), self.f2.complement(l2)
        R = M1 @ self.Y + (H1 @ self.Y) @ M2
        F = self.fitted(l1, l2)
        out = np.zeros((n1, n2))
        for f, fold in enumerate(folds):
            if not isinstance(fold, (tuple, list)) or len(fold) != 2:
                raise ValueError(f"folds[{f}] must be a pair (row_inds, col_inds)")
            r = as_index_vector(fold[0], n1, f"folds[{f}] row indices")
            c = as_index_vector(fold[1], n2, f"folds[{f}] column indices")
            if r.size != c.size:
                raise ValueError(f"folds[{f}]: row and column index sequences differ in "
                                 f"length ({r.size} vs {c.size})")
            if r.size == 0:
                raise ValueError(f"folds[{f}] is empty")
            lin = r.astype(np.int64) + n1 * c.astype(np.int64)
            if np.unique(lin).size != lin.size:
                raise IndexError(f"folds[{f}] holds a pair twice")
            if lin.size >= n1 * n2:
                raise ValueError(f"folds[{f}] holds out every pair")
            yS, RS, FS = self.Y[r, c], R[r, c], F[r, c]
            if r.size <= dense_limit:
                MSS = M2[np.ix_(c, c)] * (r[:, None] == r[None, :]) \
                    + H2[np.ix_(c, c)] * M1[np.ix_(r, r)]
                BSS = H2[np.ix_(c, c)] * H1[np.ix_(r, r)]
                if np.mean(np.diag(BSS)) < 0.5:
                    pred = la.solve(MSS, FS - BSS @ yS, assume_a="pos", check_finite=False)
                else:
                    pred = yS - la.solve(MSS, RS, assume_a="pos", check_finite=False)
            else:
                I1 = np.eye(n1)
                t1 = SampledKronProduct(M2, I1, c, r, c, r)
                t2 = SampledKronProduct(H2, M1, c, r, c, r)
                x, info = minres(lambda z: t1.matvec(z) + t2.matvec(z), RS, tol=1e-12,
                                 maxiter=maxiter)
                pred = yS - x
            out[r, c] = pred
        return out

    # -- leave rows / columns out (settings B, C, D) ----------------------------------
    def _row_rls(self, l2):
        """RLS over domain 1 on labels Y H2 (leave-row-out of two-step RLS reduces to it)."""
        return DomainRLS(self.f1, self.Y @ self.f2.hat(l2))

    def _col_rls(self, l1):
        return DomainRLS(self.f2, (self.f1.hat(l1) @ self.Y).T)

    def leave_x1_out(self, l1, l2):
        """Rows (domain-1 objects) left out one at a time: O(n1 n2 (n1 + n2))."""
        return self._row_rls(l2).leave_one_out(l1)

    def leave_x2_out(self, l1, l2):
        return self._col_rls(l1).leave_one_out(l2).T

    def x1_kfold(self, folds, l1, l2):
        rls = self._row_rls(l2)
        out = np.zeros(self.Y.shape)
        for fold in _folds(folds, self.f1.n, "folds"):
            out[fold] = rls.holdout(l1, fold)
        return out

    def x2_kfold(self, folds, l1, l2):
        rls = self._col_rls(l1)
        out = np.zeros(self.Y.shape)
        for fold in _folds(folds, self.f2.n, "folds"):
            out[:, fold] = rls.holdout(l2, fold).T
        return out

    def out_of_sample_loo(self, l1, l2):
        """Entry (i, j) from the model trained without row i and column j: column LOO
        followed by row LOO. O(n1 n2 (n1 + n2))."""
        Z = DomainRLS(self.f2, self.Y.T).leave_one_out(l2).T
        return DomainRLS(self.f1, Z).leave_one_out(l1)

    def out_of_sample_kfold(self, rowfolds, colfolds, l1, l2):
        """For every (row fold R, column fold C), entries R x C from the model trained
        without rows R and columns C. Entries outside the folds are 0."""
        rf = _folds(rowfolds, self.f1.n, "rowfolds")
        cf = _folds(colfolds, self.f2.n, "colfolds")
        crls = DomainRLS(self.f2, self.Y.T)
        Z = np.zeros(self.Y.shape)
        for fold in cf:
            Z[:, fold] = crls.holdout(l2, fold).T
        rrls = DomainRLS(self.f1, Z)
        out = np.zeros(self.Y.shape)
        colmask = np.zeros(self.f2.n, dtype=bool)
        for fold in cf:
            colmask[fold] = True
        for fold in rf:
            out[fold] = rrls.holdout(l1, fold)
        out[:, ~colmask] = 0.0
        return out

    # -- one domain (homogeneous graph: K1 = K2, l1 = l2) ------------------------------
    def _symmetric_parts(self, l1):
        if self.f1.n != self.Y.shape[1]:
            raise ValueError(f"the symmetric shortcuts need a square Y (one domain of "
                             f"objects), got {self.Y.shape}")
        return self.f1.hat(l1), self.f1.complement(l1)

    def in_sample_loo_symmetric(self, l1):
        """Leave (a, b) and (b, a) out together, for symmetric (Y = Y^T) or
        antisymmetric (Y = -Y^T) labels with K1 = K2, l1 = l2: with h = H_aa H_bb,
        g = H_ab^2 and s = +-1, LOO_ab = (F_ab - h Y_ab - s g Y_ab) / (1 - h - s g).
        Diagonal entries are left out alone. O(n^3)."""
        H, M = self._symmetric_parts(l1)
        Y = self.Y
        scale = max(np.abs(Y).max(), 1e-300)
        if np.abs(Y - Y.T).max() <= 1e-12 * scale:
            s = 1.0
        elif np.abs(Y + Y.T).max() <= 1e-12 * scale:
            s = -1.0
        else:
            raise ValueError("in_sample_loo_symmetric needs symmetric (Y = Y^T) or "
                             "antisymmetric (Y = -Y^T) labels")
        hd = np.diag(H).copy()
        md = np.diag(M).copy()
        F = H @ Y @ H
        R = M @ Y + (H @ Y) @ M
        h = np.outer(hd, hd)
        one_minus_h = md[:, None] + np.outer(hd, md)
        g = H * H
        np.fill_diagonal(g, 0.0)                    # the diagonal is one entry
        d = one_minus_h - s * g
        if np.any(d <= 0):
            raise ValueError("the symmetric leave-pair-out system is singular; use a "
                             "larger regparam")
        small = (h + s * g) < 0.5
        return np.where(small, (F - (h + s * g) * Y) / d, Y - R / d)

    def out_of_sample_loo_symmetric(self, l1):
        """Entry (a, b), a != b, from the model trained without every pair that
        involves a or b (rows and columns a and b removed); diagonal entries 0.
        O(n^3) for the products, then O(1) per pair."""
        H, M = self._symmetric_parts(l1)
        Y = self.Y
        n = Y.shape[0]
        # X below only needs the off-diagonal block M[H, not H] = -H[H, not H]; expand it
        # with whichever of M, H has the smaller diagonal (less cancellation)
        S = H if np.mean(np.diag(H)) < 0.5 else M
        P = S @ Y
        Q = Y @ S
        Z = P @ S
        a, b = np.triu_indices(n, 1)
        Maa, Mab, Mbb = M[a, a], M[a, b], M[b, b]
        det = Maa * Mbb - Mab * Mab
        if np.any(det <= 0):
            raise ValueError("a 2 x 2 hold-out block is singular; use a larger regparam")
        # W = M_HH^{-1} for H = (a, b)
        W = np.empty((a.size, 2, 2))
        W[:, 0, 0] = Mbb / det
        W[:, 1, 1] = Maa / det
        W[:, 0, 1] = W[:, 1, 0] = -Mab / det
        idx = (a, b)
        # X_cd = sum_{k,l not in H} S_ck Y_kl S_ld for c, d in H
        X = np.empty((a.size, 2, 2))
        for ci in range(2):
            c = idx[ci]
            for di in range(2):
                dd = idx[di]
                val = Z[c, dd].copy()
                for k in idx:
                    val -= S[c, k] * Q[k, dd]
                    val -= P[c, k] * S[k, dd]
                for k in idx:
                    for l in idx:
                        val += S[c, k] * Y[k, l] * S[l, dd]
                X[:, ci, di] = val
        T = W @ X @ W
        out = np.zeros((n, n))
        out[a, b] = T[:, 0, 1]
        out[b, a] = T[:, 1, 0]
        return out

    def leave_vertex_out(self, l1):
        """Vertex a left out (row a and column a removed from training): entry (a, b)
        is predicted by the model trained without vertex a, for every b (the diagonal
        entry included). One domain (K1 = K2, l1 = l2). O(n^3)."""
        H, M = self._symmetric_parts(l1)
        Y = self.Y
        md = np.diag(M).copy()
        if np.any(md <= 0):
            raise ValueError("leave-vertex-out is undefined at regparam=0")
        T = -M / md[:, None]
        np.fill_diagonal(T, 0.0)                    # LOO operator rows, zero diagonal
        U = T @ Y
        np.fill_diagonal(U, 0.0)                    # column a is not in the training set
        UM = U @ M
        pred = U - UM + (np.diag(UM) / md)[:, None] * M
        np.fill_diagonal(pred, np.einsum("ij,ij->i", U, T))
        return pred


def resolve_domains(K1=None, K2=None, X1=None, X2=None, one_domain=False):
    """Decide kernel or linear mode from the data arguments of a Kronecker learner.

    K1/K2 win over X1/X2 (RLScore's rule). With ``one_domain`` (symmetric or
    reciprocal pairwise kernels: both elements of a pair come from one set of
    objects) the second matrix may be omitted, and if given must equal the first.

    Returns
    -------
    (mode, D1, D2) with mode "kernel" (D = validated square symmetric kernels) or
    "linear" (D = feature matrices, dense or CSR).
    """
    if K1 is not None or K2 is not None:
        if K1 is None or (K2 is None and not one_domain):
            raise ValueError("give both K1 and K2 (kernel mode) or both X1 and X2 "
                             "(linear mode)")
        K1 = check_square_kernel(K1, "K1")
        if K2 is None:
            K2 = K1
        else:
            K2 = check_square_kernel(K2, "K2")
        if one_domain and (K2.shape != K1.shape or not np.allclose(K1, K2, rtol=1e-10,
                                                                     atol=0)):
            raise ValueError("symmetric and reciprocal pairwise kernels need one domain: "
                             "K2 must equal K1 (or be omitted)")
        return "kernel", K1, K2
    if X1 is not None or X2 is not None:
        if X1 is None or (X2 is None and not one_domain):
            raise ValueError("give both X1 and X2 (linear mode) or both K1 and K2 "
                             "(kernel mode)")
        X1 = as_data_matrix(X1, name="X1")
        X2 = X1 if X2 is None else as_data_matrix(X2, name="X2")
        return "linear", X1, X2
    raise ValueError("no data given: pass K1 and K2 (kernel mode) or X1 and X2 "
                     "(linear mode)")


def make_factor(mode, D, name="K", regname="regparam", indefinite="raise"):
    """The :class:`DomainFactor` of a kernel matrix or a feature matrix.

    A kernel with negative eigenvalues is kept as it is (``indefinite="raise"``: the
    solvers refuse regparams that leave the system indefinite) or repaired
    (``"clip"``, ``"shift"``; see :mod:`rlscore.core.indefinite`), with a warning;
    ``factor.data`` is then the repaired kernel. O(n^3) (plus O(n^2) for a repair)."""
    check_indefinite(indefinite)
    if mode != "kernel":
        f = DomainFactor.from_features(D)
        f.name, f.regname, f.data = name, regname, D
        return f
    e, V = psd_eigh(D)
    e2 = repair_spectrum(e, indefinite, name)
    if e2 is not e:
        if indefinite == "shift":
            D = D.copy()
            D.flat[:: D.shape[0] + 1] += e2[0] - e[0]
        else:
            D = (V * e2) @ V.T
            D = 0.5 * (D + D.T)
    return DomainFactor(V, e2, name=name, regname=regname, data=D)


def centred_domain(mode, D):
    """Domain data whose pairwise model is centred over the domain's objects:
    C K C for a kernel, X - mean(X) for features (C = I - 11^T/n)."""
    if mode == "kernel":
        Kc = D - D.mean(axis=0, keepdims=True)
        Kc -= Kc.mean(axis=1, keepdims=True)
        return 0.5 * (Kc + Kc.T)
    X = D.toarray() if not isinstance(D, np.ndarray) else D
    return X - X.mean(axis=0, keepdims=True)


def symmetrize_labels(Y, pairwise_kernel):
    """Labels for the symmetric (1/2 (Y + Y^T)) or reciprocal (1/2 (Y - Y^T))
    Kronecker kernel on complete one-domain data (Pahikkala et al. 2013, Prop. 4.7):
    ordinary Kronecker RLS on these labels gives the predictions of RLS with the
    symmetric / reciprocal pairwise kernel."""
    if pairwise_kernel == "kronecker":
        return Y
    if Y.shape[0] != Y.shape[1]:
        raise ValueError(f"the {pairwise_kernel} pairwise kernel needs a square label "
                         f"matrix (one domain), got {Y.shape}")
    if pairwise_kernel == "symmetric":
        return 0.5 * (Y + Y.T)
    return 0.5 * (Y - Y.T)


PAIRWISE_KERNELS = ("kronecker", "symmetric", "reciprocal")


def check_pairwise_kernel(name):
    if name not in PAIRWISE_KERNELS:
        raise ValueError(f"pairwise_kernel must be one of {PAIRWISE_KERNELS}, got {name!r}")
    return name
