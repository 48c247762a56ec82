"""The leave-one-out and leave-fold-out RLS models themselves, not only their predictions
on the training rows: coefficients that predict at any new point, without refitting.

Derivation (dual, any kernel)
-----------------------------
With G = (K + lambda I)^{-1} and the dual coefficients a = G y, let H be a set of held-out
rows and c = a - G[:, H] (G_HH)^{-1} a_H. Then c_H = 0 and
(K + lambda I) c = y - E_H (G_HH)^{-1} a_H, whose rows outside H read
(K_{H'H'} + lambda I) c_{H'} = y_{H'}: c is the dual coefficient vector of the model
trained without H (zero on H). By Proposition 1 of the hold-out formulas
(:mod:`rlscore.core.rls`: f(H) = y_H - (M_HH)^{-1} R_H with M = lambda G,
R = lambda a), (G_HH)^{-1} a_H = y_H - f_{-H}(X_H) =: e_H, the hold-out residuals. So

    f_{-H}(x) = f(x) - k(x)^T G[:, H] e_H,

and for one row (H = {i}, e_i = a_i / G_ii, Cawley & Talbot, JMLR 2004; Rifkin &
Lippert, MIT-CSAIL-TR-2007-025, Sect. 3):

    f_{-i}(x) = f(x) - e_i w_i(x),      w(x) = G k(x).

w(x) is the smoother's weight vector (f(x) = w(x)^T y); at a training point x_j it is the
row j of the hat matrix K G, and the formula gives back the classical
f_{-i}(x_i) = f_i - B_ii e_i. The intercept needs no special care: the linear kernel's
``bias`` is the constant feature sqrt(bias), regularized like the others, so it is part
of k and of G (RLScore's convention; an unpenalized intercept as in scikit-learn's
``Ridge`` would need a centring term).

Primal (Phi (m, d), P = (Phi^T Phi + lambda I)^{-1}): the same algebra with
K = Phi Phi^T gives k(x)^T G = phi(x)^T P Phi^T (push-through identity), i.e. the
Sherman-Morrison downdate W_{-i} = W - P phi_i e_i. The influence coefficients are then
Q = P Phi^T (d, m) instead of G (m, m).

Nystrom with basis removal (Airola et al. 2011): the model without the rows H and
without the basis vectors among them is the constrained ridge solution (constraint
N^T w = 0, N = C^{-1}[:, H_basis], see :mod:`rlscore.core.rls`). Writing its
normal equations with the Woodbury identity shows that it equals the oblique projection

    w_{-H} = u - P N (N^T P N)^{-1} N^T u,   u = w - Q[:, H] e_H,

of the plain downdate u, with e_H the residuals of the removal shortcut
(``holdout_removing`` / ``leave_one_out_removing``).

Costs (m rows, dim = m in the dual, d or the basis size in the primal, p outputs):
the influence coefficients Q once, O(m^3) dual (one inverse) or O(m d^2) primal; the
hold-out models of K folds O(m dim K p) after the K hold-outs; predicting all of them at
n new points one GEMM, (n x dim) by (dim x m) for leave-one-out.
"""

import numpy as np
import scipy.linalg as la

from rlscore._validation import check_memory

__all__ = ["influence_coefficients", "apply_influence", "loo_models", "fold_models",
           "HoldoutModels"]


class HoldoutModels:
    """Coefficients (in the solver's coordinates) of the hold-out models of a trained
    RLS model.

    Attributes
    ----------
    kind : "loo" or "folds"
    coef : (dim, p) the full model
    residuals : (m, p) signed hold-out residuals y_i - f_{-fold(i)}(x_i)
    extra : (dim, c) further coefficient columns:

        * "loo": the influence coefficients Q (dim, m), then for the basis rows of a
          Nystrom model with basis removal the corrections (dim, n_corr * p);
          f_{-i}(x) = f(x) - w_i(x) e_i - [correction of i];
        * "folds": the coefficients of the K hold-out models, column k * p + j is
          output j of the model trained without fold k.
    fold_of : (m,) fold of each row ("folds") or None
    corr_rows : (n_corr,) rows with a correction ("loo") or None
    """

    def __init__(self, kind, coef, residuals, extra, fold_of=None, corr_rows=None):
        self.kind = kind
        self.coef = coef
        self.residuals = residuals
        self.extra = extra
        self.fold_of = fold_of
        self.corr_rows = corr_rows


def _primal_parts(model):
    """(U, s, Vk): Phi Vk = U diag(s) over the nonzero singular values."""
    U, s2, q, P, UtY, U2 = model.solver._cv_parts()
    s2all, V, _ = model.solver._eig
    return U, np.sqrt(s2), V[:, s2all > 0], s2


def influence_coefficients(model):
    """Q with w(x) = Q^T phi(x): G = (K + lambda I)^{-1} (m, m) in the dual,
    P Phi^T (d, m) in the primal. O(m^3) (dual, one inverse) or O(m d^2) (primal)."""
    lam = model.regparam
    if model.representation.kind == "dual":
        return model.solver.inverse(lam)
    U, s, Vk, s2 = _primal_parts(model)
    # P Phi^T = Vk diag(1/(s^2 + lambda)) Vk^T Vk diag(s) U^T (the null directions of
    # Phi contribute nothing)
    return np.ascontiguousarray((Vk * (s / (s2 + lam))) @ U.T)


def apply_influence(model, Z):
    """Q Z for Z (m, c) without forming Q: O(m^2 c) dual, O(m d c) primal."""
    lam = model.regparam
    solver = model.solver
    if model.representation.kind == "dual":
        if solver._G is not None and solver._G[0] == lam:
            return solver._G[1] @ Z
        if solver.decomposed:
            mu, V, _ = solver._eig
            return V @ (solver._weights(lam)[:, None] * (V.T @ Z))
        return la.cho_solve((solver._cho(lam), True), Z, check_finite=False)
    U, s, Vk, s2 = _primal_parts(model)
    return Vk @ ((s / (s2 + lam))[:, None] * (U.T @ Z))


def _apply_P(model, N):
    """P N = (Phi^T Phi + lambda I)^{-1} N in feature coordinates (all directions)."""
    s2all, V, _ = model.solver.decompose()
    return V @ (model.solver._weights(model.regparam)[:, None] * (V.T @ N))


def loo_models(model):
    """The m leave-one-out models of ``model`` (a trained
    :class:`rlscore.core.nystrom.RLSModel`) as :class:`HoldoutModels` of kind "loo".

    Notes
    -----
    O(m^3) dual, O(m d^2) primal (the influence coefficients), plus the leave-one-out
    shortcut; with basis removal O(k^2 (m + k p)) more for the k basis rows.
    """
    m = model.Y.shape[0]
    dim = m if model.representation.kind == "dual" else model.coef.shape[0]
    # Q and the predictor's copy of it (plus the inverse's workspace in the dual)
    check_memory(8 * dim * m * (3 if model.representation.kind == "dual" else 2),
                 f"the {m} leave-one-out models ({dim} x {m} influence coefficients)")
    Q = influence_coefficients(model)
    coef = model.coef
    if model.representation.kind == "dual":
        # e_i = a_i / G_ii (Proposition 1 read as a residual: lambda a_i / lambda G_ii,
        # no subtraction), O(m p) once G is formed; the decomposition behind
        # ``leave_one_out`` (O(m^3) more) is not needed
        E = coef / np.diag(Q)[:, None]
    else:
        E = model.Y - model.leave_one_out()
    if not model.remove_basis:
        return HoldoutModels("loo", coef, E, Q)
    solver = model.solver
    nmap = solver.nmap
    # column j of N: the constraint of removing basis vector cols[j] (none when a kept
    # dependent basis vector still spans its direction)
    cols, N = nmap.single_removal_directions()
    rows = solver.basis_indices[nmap.order[cols]]          # row of column cols[j]
    PN = _apply_P(model, N)
    nPn = np.einsum("ij,ij->j", N, PN)
    # u_j = w - Q[:, row_j] e_j (k, n_corr, p); c_j = N_j^T u_j / N_j^T P N_j
    U3 = coef[:, None, :] - Q[:, rows][:, :, None] * E[rows][None, :, :]
    c = np.einsum("kj,kjp->jp", N, U3) / nPn[:, None]
    corr = PN[:, :, None] * c[None, :, :]                   # (k, n_corr, p)
    p = coef.shape[1]
    extra = np.hstack([Q, corr.reshape(coef.shape[0], rows.size * p)])
    return HoldoutModels("loo", coef, E, np.ascontiguousarray(extra),
                         corr_rows=np.ascontiguousarray(rows, dtype=np.intp))


def _check_partition(folds, m):
    """Fold index of each of the m rows from ``folds`` (a list of index arrays that
    must partition 0..m-1, at least two non-empty folds)."""
    from rlscore._validation import check_index_folds, fold_membership
    if isinstance(folds, (str, bytes)) or not hasattr(folds, "__len__"):
        raise TypeError(f"folds must be a list of index arrays, got {type(folds).__name__}")
    if len(folds) < 2:
        raise ValueError(f"folds must hold at least 2 folds, got {len(folds)}")
    return fold_membership(check_index_folds(folds, m, "folds", disjoint=False), m,
                           "folds", cover=True, why="; CV+ needs a partition of the "
                           "training rows")


def fold_models(model, folds):
    """The K models trained without each fold, as :class:`HoldoutModels` of kind
    "folds".

    Parameters
    ----------
    model : trained :class:`rlscore.core.nystrom.RLSModel`
    folds : list of index arrays partitioning the m training rows

    Notes
    -----
    The K hold-outs (O(sum_k h_k^2 m) dual after the decomposition) plus one
    application of the influence to K p residual columns, O(m^2 K p) (dual) or
    O(m d K p) (primal).
    """
    m = model.Y.shape[0]
    fold_of = _check_partition(folds, m)
    K = int(fold_of.max()) + 1
    members = [np.flatnonzero(fold_of == k) for k in range(K)]
    p = model.Y.shape[1]
    if model.representation.kind == "dual" and not model.solver.decomposed:
        # with G formed (2/3 m^3 after the Cholesky factor) every fold's block is a
        # slice of G, instead of a solve with h_k right-hand sides (2 m^2 h_k per fold)
        check_memory(3 * 8 * m * m, f"the inverse of the {m} x {m} regularized kernel")
        model.solver.inverse(model.regparam)
    E = np.empty_like(model.Y)
    for H in members:
        E[H] = model.Y[H] - model.holdout(H)
    # column block k holds e_H of fold k on its rows: Q Z gives Q[:, H] e_H for every k
    Z = np.zeros((m, K * p))
    for k, H in enumerate(members):
        Z[H, k * p:(k + 1) * p] = E[H]
    coef = model.coef
    F = np.tile(coef, (1, K)) - apply_influence(model, Z)
    if model.remove_basis:
        solver = model.solver
        for k, H in enumerate(members):
            N = solver._removed_directions(H)
            if N.shape[1] == 0:
                continue
            PN = _apply_P(model, N)
            u = F[:, k * p:(k + 1) * p]
            F[:, k * p:(k + 1) * p] = u - PN @ la.solve(N.T @ PN, N.T @ u,
                                                       assume_a="pos", check_finite=False)
    return HoldoutModels("folds", coef, E, np.ascontiguousarray(F), fold_of=fold_of)
