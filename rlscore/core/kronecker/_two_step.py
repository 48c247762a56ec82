"""Two-step kernel RLS on complete data (Pahikkala et al. 2014; Stock et al. 2018):
A = (K1 + l1 I)^{-1} Y (K2 + l2 I)^{-1}, fitted values H1 Y H2 with the hat matrices
H = K (K + l I)^{-1}, and its exact cross-validation shortcuts for the four settings
(pairs of known objects; new rows; new columns; new rows and columns) and for one
domain (homogeneous graphs: K1 = K2, l1 = l2).

Hold-out formulas use the lambda G form (G = (K + lambda I)^{-1}, M = lambda G,
B = I - M) with both cancellation-free right-hand sides, as in
:mod:`rlscore.core.rls`, whose hold-out machinery the row/column
cross-validation reuses through :class:`rlscore.core.kronecker.DomainRLS`.
See :mod:`rlscore.core.kronecker` for the conventions.
"""

import numpy as np
import scipy.linalg as la

from rlscore.core.kronecker._factor import DomainRLS, rotate
from rlscore.core.structure import as_pairs, check_pair_folds
from rlscore._validation import check_index_folds
from rlscore.core.optim import SingularRegparamError

__all__ = ["TwoStepSolver"]


class TwoStepSolver:
    """Two-step kernel RLS on complete data (Pahikkala et al. 2014; Stock et al. 2018):
    A = (K1 + l1 I)^{-1} Y (K2 + l2 I)^{-1}, fitted values H1 Y H2.

    Notes
    -----
    Every cross-validation shortcut below costs O(n1 n2 (n1 + n2)) after the two
    decompositions, except the K-fold variants (plus the per-fold hold-out solves of
    :mod:`rlscore.core.rls`) and ``in_sample_kfold`` (an ``|S| x |S|`` system per
    fold S of entries, or MINRES on it with the vec trick for large folds).
    """

    def __init__(self, f1, f2, Y):
        self.f1, self.f2 = f1, f2
        self.Y = Y
        self.Yt = rotate(f1.V, Y, f2.V)

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
            raise SingularRegparamError("leave-one-out is undefined when a hat-matrix "
                                        "diagonal is 1 (regparam 0)", name="regparams")
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
        equal-length row and column index sequences, or flat indices in vec_F order;
        see :func:`rlscore.core.structure.as_pairs`) is predicted by the model
        trained on all other entries: f_S = Y_S - (M_SS)^{-1} R_S with
        M = I - H2 kron H1 (dense solve for ``|S| <= dense_limit``, else MINRES with the
        vec trick, at most ``maxiter`` iterations). Entries in no fold are 0."""
        from rlscore.core.optim import minres
        from rlscore.core.structure import SampledKronProduct
        n1, n2 = self.Y.shape
        H1, M1 = self.f1.hat(l1), self.f1.complement(l1)
        H2, M2 = self.f2.hat(l2), self.f2.complement(l2)
        R = M1 @ self.Y + (H1 @ self.Y) @ M2
        F = self.fitted(l1, l2)
        out = np.zeros((n1, n2))
        folds = [as_pairs(fold, (n1, n2), "F", f"folds[{f}]")
                 for f, fold in enumerate(folds)]
        check_pair_folds(folds, (n1, n2))
        for r, c in folds:
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
                x, info = minres(lambda z: t1.matvec(z) + t2.matvec(z), RS, rtol=1e-12,
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
        for fold in check_index_folds(folds, self.f1.n, "folds"):
            out[fold] = rls.holdout(l1, fold)
        return out

    def x2_kfold(self, folds, l1, l2):
        rls = self._col_rls(l1)
        out = np.zeros(self.Y.shape)
        for fold in check_index_folds(folds, self.f2.n, "folds"):
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
        rf = check_index_folds(rowfolds, self.f1.n, "rowfolds")
        cf = check_index_folds(colfolds, self.f2.n, "colfolds")
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
            raise SingularRegparamError("the symmetric leave-pair-out system is singular",
                                        remedy="use a larger regparam")
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
            raise SingularRegparamError("a 2 x 2 hold-out block is singular",
                                        remedy="use a larger regparam")
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
