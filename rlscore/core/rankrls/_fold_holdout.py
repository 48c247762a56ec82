"""Exact hold-out of several queries at once for query RankRLS: K-fold cross-validation
by whole queries without refits.

:meth:`rlscore.core.rankrls.CenteredRankModel.holdout` takes rows of one query; this
module holds out any set H of rows -- several whole queries (a fold of K-fold by query),
parts of several queries, or both -- and returns the predictions for H of the model
retrained on the other rows, for dual, primal and Nystrom models (with
``remove_basis``, the basis vectors among H are removed as well, as leave-query-out
does). :meth:`rlscore.core.rankrls.QueryRankRLSModel.holdout_rows` is the entry point.

The formula (extends Pahikkala et al. 2009, Mach. Learn. 75(1), Sect. 3.3, eq. 33)
-------------------------------------------------------------------------------------
Notation of :mod:`rlscore.core.rankrls` (``_centered``): P the block-centring projection
(one block per query), U diag(s2) U^T the centred kernel P K P (or the left singular
vectors of the centred features), w = 1 / (s2 + mu),
M = mu P G_c P, N = P - M, R = P (Y - F), F the fit of the full model and
t_q = Kbar_q P G_c P (Kbar_q the mean kernel row of query q), so that the full fit is
F = N Y + D T Y with D the (m, g) query indicator and T the (g, m) matrix of rows t_q.

Eq. 33 retrains without U, a union of whole objects, through the m x m inverse
R = (L K + lambda I)^{-1}: with L_{U Ubar} = 0, (R^{-1})_{Ubar Ubar} is the retrained
system and its inverse follows by the block-inverse lemma. In the centred form the same
argument, applied to ridge regression with one unpenalized offset per query (the
bordered system [[P K P + mu I, .], [D^T, .]]), runs over the rows H and the offsets of
the touched queries. Two facts make it block-separable over queries: D^T D is diagonal
(the offsets of different queries do not couple) and P is block diagonal, so P restricted
to H is sum_q (I - [H_q = q] 1 1^T / n_q) over the touched queries q (H_q = H cap q).
The Schur complement on H is therefore

    S = M_HH + sum_{q : H_q = q} 1_{H_q} 1_{H_q}^T / n_q,

one 1 1^T / n_q block per query held out whole (a query held out in part keeps its
offset, fitted on its remaining rows, and adds nothing), and the offset correction is one
term per touched query:

    X   = S^{-1} R_H,
    f_H = F_H - N_HH X - sum_q 1_{H_q} (t_q[H] X),

which for H inside one query is the formula of ``CenteredRankModel.holdout``, and for
H = U whole queries is eq. 33 without its m x m inverse (N, M and t_q from the
eigendecomposition; no L K inverse is formed). With the primal's U of rank r < m - g,
M_HH gains (P - U U^T)_HH, so S = I - U_H U_H^T - sum_{q partial} 1 1^T / n_q +
U_H diag(mu w) U_H^T: for whole queries the 1 1^T / n_q terms of P and of the offsets
cancel exactly. Verified against refits to ~1e-14 (tests/core/test_query_kfold.py).

Costs and the two sides of the algebra
--------------------------------------
h = |H|, r the rank of the centred kernel (dual r ~ m - g; primal r <= k features):

* hold-out side (above): O(h^2 r + h^3) per lambda (plus O(h^2 r) once per fold in the
  primal, cached);
* feature side (primal and Nystrom only): the centred Gram matrix of the remaining rows
  by a downdate of the touched queries -- C_f = C - Pc_T^T Pc_T + Rc^T Rc, Pc_T the rows
  of the touched queries centred by their full means, Rc their remaining rows centred by
  the new means -- or directly from the remaining rows when they are fewer
  (O(min(h + n_T, m - h) k^2) once per fold, cached), then one Cholesky of C_f + mu I per
  lambda, O(k^3 / 3 + k^2 p + h k p). The removal of the held-out basis vectors is the
  constraint N_b^T w = 0 (:meth:`rlscore.core.rls.NystromMap.removal_directions`),
  applied by restricting w = Z v to an orthonormal basis Z of its null space (one
  complete QR of N_b, O(k^3) once per fold); the regularizer v^T v = w^T w is unchanged,
  so the fold's system is Z^T C_f Z + mu I.

The primal takes the feature side when a fold holds basis vectors to remove, or when
3 h^2 k + h^3 > k^3 (the hold-out side's products and solve, with r <= k taken as k,
would cost more than the Cholesky); the dual always takes the hold-out side (its "features" are m - h rows).
The lambda-independent parts of each fold are kept between calls (least recently used
first out, at most ``_CACHE`` elements in all), so a grid of L lambdas over K folds costs
O(K (h k^2 + k^3)) + O(L K (k^3 / 3 + h k p)) for a Nystrom model, against
O(L K (m k^2 + k^3)) for refits (plus their kernel evaluations).
"""

from collections import OrderedDict

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from rlscore.core.optim import regularized_cholesky
from rlscore.core.rankrls._solver import gram_matrix, symmetrize

__all__ = ["holdout_rows"]

_CACHE = 1 << 24          # elements of lambda-independent fold parts kept between calls


def holdout_rows(model, H):
    """Predictions (h, p) for the rows H of a :class:`QueryRankRLSModel` from the model
    retrained without them (and, with ``remove_basis``, without the basis vectors among
    them); see the module docstring.

    Parameters
    ----------
    model : QueryRankRLSModel, solved at its current regparam
    H : validated intp array of distinct row indices, 0 < h < m

    Notes
    -----
    Dual: O(h^2 m + h^3) per call. Primal and Nystrom: O(h^2 r + h^3) or, on the
    feature side, O(k^3 / 3 + h k p) per call after O(min(h, m - h) k^2 (+ k^3 with
    basis removal)) once per fold.
    """
    N = None
    if model.remove_basis:
        N, = _cached(model, _key("removal", H), lambda: (_removal_directions(model, H),))
    if N is not None or (model.kind == "primal" and _feature_side_cheaper(model, H)):
        return _feature_side(model, H, N)
    return _holdout_side(model, H)


# ---------------------------------------------------------------------------------------
# the per-fold cache


def _cached(model, key, make):
    """``make()`` for this fold, kept on the model between calls (LRU, at most
    ``_CACHE`` elements over all folds)."""
    cache = getattr(model, "_fold_parts", None)
    if cache is None:
        cache = model._fold_parts = OrderedDict()
    hit = cache.get(key)
    if hit is not None:
        cache.move_to_end(key)
        return hit
    parts = make()
    size = sum(a.size for a in parts if isinstance(a, np.ndarray))
    if size <= _CACHE:
        cache[key] = parts
        while sum(a.size for v in cache.values() for a in v
                  if isinstance(a, np.ndarray)) > _CACHE:
            cache.popitem(last=False)
    return parts


def _key(kind, H):
    return (kind, H.size, H.tobytes())


# ---------------------------------------------------------------------------------------
# the hold-out side


def _touched(gr, H):
    """Codes of the queries H touches, each row's position among them, and whether the
    query is held out whole."""
    qs, pos = np.unique(gr.codes[H], return_inverse=True)
    whole = np.bincount(pos, minlength=qs.size) == gr.sizes[qs]
    return qs, pos, whole


def _holdout_side(model, H):
    gr = model.groups
    mu = model._mu(model.regparam)
    w, Pr, F = model._state(mu)
    U, s2, c, Yf, qdiag, full = model._parts()
    qs, pos, whole = _touched(gr, H)
    UH = U[H]
    same = pos[:, None] == pos[None, :]
    inv_n = 1.0 / gr.sizes[qs][pos]                       # 1 / n_q of each row's query

    def make():
        # the lambda-independent part of S
        if model.kind == "primal":
            # (P - U U^T)_HH + the whole queries' 1 1^T / n_q: for whole queries the
            # -1/n_q of P and the +1/n_q of the offsets cancel
            B = np.eye(H.size) - UH @ UH.T
            B -= np.where(same & ~whole[pos][None, :], inv_n[None, :], 0.0)
        else:
            B = np.where(same & whole[pos][None, :], inv_n[None, :], 0.0)
        return (B,)
    B, = _cached(model, _key("hold", H), make) if model.kind == "primal" else make()
    S = (UH * (mu * w)) @ UH.T + B
    N = (UH * (s2 * w)) @ UH.T
    X = model._solve_small(S, Pr[H])
    T = (Yf[qs] * w) @ UH.T                                # (touched, h): t_q[H]
    return F[H] - N @ X - (T @ X)[pos]


# ---------------------------------------------------------------------------------------
# the feature side (primal, Nystrom)


def _feature_side_cheaper(model, H):
    # r <= k taken as k: deciding must not cost the eigendecomposition and the m x r
    # U that the feature side does without
    h = float(H.size)
    k = float(model.solver.K.shape[0])
    return 3.0 * h * h * k + h ** 3 > k ** 3


def _removal_directions(model, H):
    """N_b (k, nb) of the basis vectors among H, or None when removing them changes
    nothing."""
    from rlscore.core.rls import basis_positions
    rep = model.representation
    nmap = rep.nystrom
    N = nmap.removal_directions(basis_positions(rep.basis_indices, H))
    if N.shape[1] == 0:
        return None
    if N.shape[1] >= nmap.k:
        raise ValueError(
            "the hold-out set contains every basis vector: removing them leaves no "
            "basis; use more basis vectors, other folds, or keep_basis_in_cv=True")
    return N


def _dense_rows(Phi, rows):
    R = Phi[rows]
    return R.toarray() if sp.issparse(R) else np.asarray(R, dtype=np.float64)


def _centred_rows(model, rows):
    """The features of ``rows`` centred within the queries they form among themselves
    (a query's rows in ``rows`` are centred by their own mean)."""
    from rlscore.core.structure import QueryGroups
    R = _dense_rows(model._Phi, rows)
    sub = QueryGroups.from_qids(model.groups.codes[rows])
    return R - sub.expand(sub.mean(R))


def _fold_system(model, H):
    """The centred Gram matrix C_f (k, k) and right-hand side b_f (k, p) of the rows
    not in H. O(min(h + n_T, m - h) k^2)."""
    gr = model.groups
    m = model.m
    keep = np.ones(m, dtype=bool)
    keep[H] = False
    qs, pos, whole = _touched(gr, H)
    T = np.flatnonzero(np.isin(gr.codes, qs))             # rows of the touched queries
    rest = T[keep[T]]                                     # their remaining rows
    if m - H.size <= T.size + rest.size:
        # fewer remaining rows than rows to downdate: the fold's system directly
        rows = np.flatnonzero(keep)
        Rc = _centred_rows(model, rows)
        return gram_matrix(np.ascontiguousarray(Rc)), Rc.T @ model.Y[rows]
    if model._PhiP is not None:
        Pc = model._PhiP[T]
    else:
        Pc = _dense_rows(model._Phi, T) - model._Phibar[gr.codes[T]]
    C = model.solver.K - gram_matrix(np.ascontiguousarray(Pc))
    b = model.solver.Y - Pc.T @ model.Y[T]
    if rest.size:
        Rc = _centred_rows(model, rest)
        C += gram_matrix(np.ascontiguousarray(Rc))
        b += Rc.T @ model.Y[rest]
    return symmetrize(C), b


def _feature_side(model, H, N):
    def make():
        C, b = _fold_system(model, H)
        PhiH = _dense_rows(model._Phi, H)
        if N is None:
            return C, b, PhiH
        # w = Z v, Z an orthonormal basis of the null space of N^T
        Q = la.qr(N, mode="full", check_finite=False)[0]
        Z = np.ascontiguousarray(Q[:, N.shape[1]:])
        return symmetrize(Z.T @ C @ Z), Z.T @ b, PhiH @ Z
    C, b, PhiH = _cached(model, _key("feat" if N is None else "feat-removed", H), make)
    mu = model._mu(model.regparam)
    try:
        L = regularized_cholesky(C, mu, "the fold's centred Gram matrix")
    except ValueError:
        raise ValueError("the hold-out problem is singular (regparam=0 with too few "
                         "remaining examples); use regparam > 0") from None
    v = la.cho_solve((L, True), b, check_finite=False)
    return PhiH @ v
