"""Exact hold-outs of Kronecker RLS on complete data (settings A-D of Pahikkala et al.
2014 / Stock et al. 2018): folds of pairs, of domain-1 objects (rows), of domain-2
objects (columns), and of both.

With K1 = V1 diag(e1) V1^T, K2 = V2 diag(e2) V2^T and G = (K2 kron K1 + l I)^{-1},
the RLS hold-out identity for a set S of training pairs is

    f_S = Y_S - (M_SS)^{-1} R_S,    M = l G,  R = M vec_F(Y)  (the residual),     (1)

f_S being the predictions of the model trained on every other pair.

Rows (setting B). Rotating the columns of Y by V2 (Z = Y V2) splits the Kronecker
system K1 A K2 + l A = Y into one RLS problem per eigenvector b of K2:
(e2_b K1 + l I) a_b = z_b. Removing rows keeps the rotation valid, so leaving rows R
out is, for every b, an RLS hold-out of rows R over domain 1 with the kernel e2_b K1
and regparam l (equation (1) with M^(b) = V1 diag(l / (e1 e2_b + l)) V1^T), rotated
back with V2^T. Leave-one-row-out costs O(n1 n2 (n1 + n2)); a fold of len(R) rows
O(n2 (len(R)^2 n1 + len(R)^3)). Columns (setting C) are rows of the transposed problem.

Both (setting D). Predictions for R x C from the model trained without rows R and
columns C are computed by that refit, with one decomposition per row fold and per
column fold (O(n1^3) and O(n2^3)) and O(n1 n2 (n1 + n2)) per fold pair.

Pairs (setting A). Equation (1) with M_SS assembled from the eigenvectors
(O(len(S)^2 r1 r2)) for small folds, otherwise solved by conjugate gradients on M_SS
(M is positive definite) with matrix-free products M v = vec_F(V1 ((V1^T Z V2) *
Mw) V2^T), O(n1 n2 (n1 + n2)) each.
"""

import warnings

import numpy as np
import scipy.sparse.linalg as spla

from rlscore.core.kronecker._kronecker import KronRLSSolver
from rlscore.core.kronecker._factor import make_factor
from rlscore._validation import check_index_folds
from rlscore.core.optim import SingularRegparamError
from rlscore.core.structure import check_pair_folds

__all__ = ["kron_rows_holdout", "kron_leave_row_out", "kron_both_holdout",
           "kron_pairs_holdout"]


def _weights(solver, regparam):
    E = solver._denominator(regparam)          # checks definiteness, as training does
    EE = np.multiply.outer(solver.f1.e, solver.f2.e)
    return EE / E, regparam / E


def _rotated(f1, f2, Y, regparam, solver):
    """Z = Y V2, and the residual R = Z - H Z of every per-eigenvector problem."""
    Hw, Mw = _weights(solver, regparam)
    Z = Y @ f2.V
    Yt = f1.V.T @ Z
    if f1.full:
        Res = f1.V @ (Yt * Mw)                 # cancellation-free M z
    else:
        Res = Z - f1.V @ (Yt * Hw)
    return Z, Res, Hw, Mw


def kron_leave_row_out(f1, f2, Y, regparam):
    """Every row i (domain-1 object) predicted by the model trained without it.
    O(n1 n2 (n1 + n2)). Returns the n1 x n2 prediction matrix."""
    solver = KronRLSSolver(f1, f2, Y)
    Z, Res, Hw, Mw = _rotated(f1, f2, Y, regparam, solver)
    if f1.full:
        m = f1.V2 @ Mw
    else:
        m = 1.0 - f1.V2 @ Hw
    if np.any(m <= 0):
        raise SingularRegparamError("leave-row-out is undefined at regparam=0 for a row "
                                    "the others determine exactly")
    return (Z - Res / m) @ f2.V.T


def kron_rows_holdout(f1, f2, Y, folds, regparam, name="folds"):
    """For each fold R of row indices, rows R predicted by the model trained without
    them (rows in no fold are 0). The folds are checked (indices of the rows, no row
    in two folds: :func:`rlscore._validation.check_index_folds`, naming ``name``).
    O(n2 (len(R)^2 n1 + len(R)^3)) per fold after an O(n1 n2 (n1 + n2)) set-up."""
    folds = check_index_folds(folds, Y.shape[0], name)
    solver = KronRLSSolver(f1, f2, Y)
    Z, Res, Hw, Mw = _rotated(f1, f2, Y, regparam, solver)
    out = np.zeros(Z.shape)
    for R in folds:
        if R.size >= f1.n:
            raise ValueError("a fold holds out every object of its domain")
        VR = f1.V[R]
        if f1.full:
            MRR = np.einsum("ia,ja,ab->bij", VR, VR, Mw, optimize=True)
        else:
            MRR = -np.einsum("ia,ja,ab->bij", VR, VR, Hw, optimize=True)
            MRR[:, np.arange(R.size), np.arange(R.size)] += 1.0
        sol = np.linalg.solve(MRR, Res[R].T[:, :, None])[:, :, 0]
        out[R] = Z[R] - sol.T
    P = out @ f2.V.T
    mask = np.zeros(f1.n, dtype=bool)
    for R in folds:
        mask[R] = True
    P[~mask] = 0.0
    return P


def _block(data, mode, rows, cols):
    if mode == "kernel":
        return data[np.ix_(rows, cols)]
    return data[rows]


def kron_both_holdout(f1, f2, mode, Y, rowfolds, colfolds, regparam, cache=None):
    """For every row fold R and column fold C, the pairs R x C predicted by the model
    trained without rows R and columns C (the refit, with one decomposition per
    fold of each domain). Entries outside the folds are 0. ``cache`` (a dict kept by
    the caller) keeps the fold decompositions across regparams. The folds of each
    domain are checked (:func:`rlscore._validation.check_index_folds`: no object in
    two folds)."""
    n1, n2 = Y.shape
    rowfolds = check_index_folds(rowfolds, n1, "rowfolds")
    colfolds = check_index_folds(colfolds, n2, "colfolds")
    D1, D2 = f1.data, f2.data

    def factors(f, D, folds, n):
        out = []
        for F in folds:
            T = np.setdiff1d(np.arange(n), F)
            if T.size == 0:
                raise ValueError("a fold holds out every object of its domain")
            key = (f.name, n, F.tobytes())
            if cache is not None and key in cache:
                out.append(cache[key])
                continue
            sub = D[np.ix_(T, T)] if mode == "kernel" else D[T]
            out.append((T, make_factor(mode, sub, f.name, f.regname)))
            if cache is not None:
                cache[key] = out[-1]
        return out

    rf, cf = factors(f1, D1, rowfolds, n1), factors(f2, D2, colfolds, n2)
    out = np.zeros((n1, n2))
    for R, (T1, g1) in zip(rowfolds, rf):
        for C, (T2, g2) in zip(colfolds, cf):
            solver = KronRLSSolver(g1, g2, Y[np.ix_(T1, T2)])
            if mode == "kernel":
                A = solver.dual(regparam)
                out[np.ix_(R, C)] = D1[np.ix_(R, T1)] @ A @ D2[np.ix_(T2, C)]
            else:
                W = solver.primal(regparam)
                X1R, X2C = D1[R], D2[C]
                P = X1R @ W
                out[np.ix_(R, C)] = np.asarray((X2C @ np.asarray(P).T).T)
    return out


def kron_pairs_holdout(f1, f2, Y, folds, regparam, dense_limit=2e8, maxiter=None,
                       tol=1e-12):
    """For each fold of pairs (rows, cols), its pairs predicted by the model trained
    on every other pair, by equation (1). Dense when len(S)^2 r1 r2 <= ``dense_limit``,
    otherwise conjugate gradients on M_SS (at most ``maxiter`` iterations, relative
    residual ``tol``; a UserWarning if it stops short). Pairs in no fold are 0."""
    solver = KronRLSSolver(f1, f2, Y)
    Hw, Mw = _weights(solver, regparam)
    full = f1.full and f2.full
    if full:
        Res = f1.V @ (solver.Yt * Mw) @ f2.V.T
    else:
        Res = Y - f1.V @ (solver.Yt * Hw) @ f2.V.T
    n1, n2 = Y.shape
    out = np.zeros((n1, n2))
    r1, r2 = f1.V.shape[1], f2.V.shape[1]
    check_pair_folds(folds, (n1, n2))
    for k, (r, c) in enumerate(folds):
        s = r.size
        if s * s * r1 * r2 <= dense_limit:
            P, Q = f1.V[r], f2.V[c]
            W = Mw if full else Hw
            MSS = np.zeros((s, s))
            for b in range(r2):
                MSS += ((P * W[:, b]) @ P.T) * np.outer(Q[:, b], Q[:, b])
            if not full:
                MSS = np.eye(s) - MSS
            x = np.linalg.solve(MSS, Res[r, c])
        else:
            def mv(v, r=r, c=c):
                Zm = np.zeros((n1, n2))
                Zm[r, c] = v
                T = f1.V.T @ Zm @ f2.V
                if full:
                    return (f1.V @ (T * Mw) @ f2.V.T)[r, c]
                return v - (f1.V @ (T * Hw) @ f2.V.T)[r, c]
            op = spla.LinearOperator((s, s), matvec=mv, dtype=np.float64)
            x, info = spla.cg(op, Res[r, c], rtol=tol, atol=0.0,
                              maxiter=maxiter if maxiter is not None else 10 * s)
            if info > 0:
                warnings.warn(f"in_sample_kfoldcv: conjugate gradients stopped at "
                              f"maxiter on fold {k} before reaching tol={tol}",
                              UserWarning, stacklevel=3)
        out[r, c] = Y[r, c] - x
    return out
