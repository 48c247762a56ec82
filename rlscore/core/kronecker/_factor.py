"""One domain of a Kronecker model: its eigendecomposition K = V diag(e) V^T
(:class:`DomainFactor`), how it is made from a kernel or feature matrix
(:func:`make_factor`, with the indefinite-kernel repairs), ordinary RLS over the domain
on that decomposition (:class:`DomainRLS`, the row / column hold-outs of two-step RLS)
and the rotation V1^T Y V2 of a label matrix into both eigenbases (:func:`rotate`).

Kernel mode keeps all n eigenpairs; linear mode with fewer features than objects keeps
the thin form from the SVD of X, whose null space is carried implicitly (``null``).
See :mod:`rlscore.core.kronecker` for the conventions.
"""

import numpy as np

from rlscore.core.kronecker._indefinite import (check_factor_regparam, check_indefinite,
                                                repaired_factor)
from rlscore.core.optim import SingularRegparamError, psd_eigh
from rlscore.core.rls import HoldoutShortcuts

__all__ = ["DomainFactor", "make_factor", "DomainRLS", "rotate"]


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
    repair : :class:`~rlscore.core.kronecker.KernelRepair` or None, the rule that
        carries an indefinite-kernel repair to test kernel rows

    Notes
    -----
    Kernel mode: one ``eigh`` (divide and conquer), O(n^3). Linear mode: X X^T and its
    eigh when d >= n, O(n^2 d + n^3); otherwise X^T X and its eigh, O(n d^2 + d^3).
    """

    def __init__(self, V, e, XtV=None, null=None, name="K", regname="regparam",
                 data=None):
        self.name, self.regname, self.data = name, regname, data
        self.repair = None
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
            raise SingularRegparamError(
                f"{self.name} + {self.regname}*I is singular ({self.regname}="
                f"{regparam!r}, smallest eigenvalue {self.e.min(initial=0.0):.3g})",
                name=self.regname)
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


def make_factor(mode, D, name="K", regname="regparam", indefinite="raise"):
    """The :class:`DomainFactor` of a kernel matrix or a feature matrix.

    A kernel with negative eigenvalues is kept as it is (``indefinite="raise"``: the
    solvers refuse regparams that leave the system indefinite) or repaired
    (``"clip"``, ``"shift"``; see :mod:`rlscore.core.kronecker`), with a warning;
    ``factor.data`` is then the repaired kernel and ``factor.repair`` the rule for test
    rows. O(n^3) (plus O(n^2) for a repair, O(n^3) for "clip")."""
    check_indefinite(indefinite)
    if mode != "kernel":
        f = DomainFactor.from_features(D)
        f.name, f.regname, f.data = name, regname, D
        return f
    e, V = psd_eigh(D)
    e2, D, rule = repaired_factor(D, e, V, indefinite, name)
    f = DomainFactor(V, e2, name=name, regname=regname, data=D)
    f.repair = rule
    return f


class DomainRLS(HoldoutShortcuts):
    """Ordinary RLS over one domain with labels Z (n x p), sharing a
    :class:`DomainFactor`: the hold-out, leave-one-out shortcuts of
    :mod:`rlscore.core.rls` on an existing decomposition (no new O(n^3)
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
            raise SingularRegparamError("regparam=0 needs a nonsingular kernel matrix")
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


def rotate(V1, Y, V2):
    """V1^T Y V2 (V1 n1 x r1, Y n1 x n2, V2 n2 x r2) in the cheaper association order:
    O(min(r1 n2 (n1 + r2), n1 r2 (n2 + r1)))."""
    n1, n2 = Y.shape
    r1, r2 = V1.shape[1], V2.shape[1]
    if r1 * n2 * (n1 + r2) <= n1 * r2 * (n2 + r1):
        return (V1.T @ Y) @ V2
    return V1.T @ (Y @ V2)
