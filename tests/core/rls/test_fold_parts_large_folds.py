"""Primal refits of large hold-out sets (issue #44, item 14: K-fold by query with folds
of many rows) keep Phi_H and V apart instead of forming Phi_H V (an h x d x d product
per fold); the predictions equal the explicit normal equations of the remaining rows,
with and without basis-removal constraints, for RLS and query RankRLS."""

import numpy as np
import pytest

from rlscore.core.rankrls import QueryRankRLSModel
from rlscore.core.nystrom import RLSModel
from rlscore.core.rls import primal_fold_parts, primal_fold_predictions

LAMS = [1e-6, 1.0, 1e4]


def _normal_equations(Phi, L, Y, lam, Phi_test, N=None):
    """Phi_test w, w = argmin (Y - Phi w)^T L (Y - Phi w) + lam |w|^2 (s.t. N^T w = 0),
    through the KKT system."""
    d = Phi.shape[1]
    A = Phi.T @ L @ Phi + lam * np.eye(d)
    rhs = Phi.T @ L @ Y
    if N is not None:
        k = N.shape[1]
        KKT = np.block([[A, N], [N.T, np.zeros((k, k))]])
        rhs = np.vstack([rhs, np.zeros((k, Y.shape[1]))])
        return Phi_test @ np.linalg.solve(KKT, rhs)[:d]
    return Phi_test @ np.linalg.solve(A, rhs)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("constrained", [False, True])
def test_parts_of_a_large_set_keep_phi_and_v_apart(rng, p, constrained):
    m, h, d = 90, 40, 5
    Phi = rng.standard_normal((m, d))
    Y = rng.standard_normal((m, p))
    H, R = np.arange(h), np.arange(h, m)
    N = rng.standard_normal((d, 2)) if constrained else None
    parts = primal_fold_parts(Phi[R].T @ Phi[R], Phi[R].T @ Y[R], Phi[H], N)
    assert parts[2] is None and parts[4] is not None      # no h x d x d product
    for lam in LAMS:
        ref = _normal_equations(Phi[R], np.eye(R.size), Y[R], lam, Phi[H], N)
        np.testing.assert_allclose(primal_fold_predictions(parts, lam), ref, rtol=1e-8,
                                   atol=1e-10 * np.abs(ref).max())
    # a small set still forms the product
    small = primal_fold_parts(Phi[R].T @ Phi[R], Phi[R].T @ Y[R], Phi[:3], N)
    assert small[2] is not None and small[4] is None


def test_rls_folds_of_many_rows(rng):
    m, d = 120, 4
    X = rng.standard_normal((m, d))
    Y = X @ rng.standard_normal((d, 1)) + 0.3 * rng.standard_normal((m, 1))
    model = RLSModel(X, Y, regparam=1.0, path=True, bias=0.0)
    assert model.representation.kind == "primal"
    folds = np.array_split(rng.permutation(m), 3)          # 40 rows > 16 p, > d
    for lam in LAMS:
        model.solve(lam)
        for H in folds:
            R = np.setdiff1d(np.arange(m), H)
            ref = _normal_equations(X[R], np.eye(R.size), Y[R], lam, X[H])
            np.testing.assert_allclose(model.holdout(H), ref, rtol=1e-8,
                                       atol=1e-10 * np.abs(ref).max())


def test_query_rankrls_folds_of_whole_queries(rng):
    sizes = rng.integers(2, 7, 30)
    codes = np.repeat(np.arange(30), sizes)
    m, d = codes.size, 4
    X = rng.standard_normal((m, d))
    Y = np.round(X[:, :1] + rng.standard_normal((m, 1)))
    model = QueryRankRLSModel(X, Y, codes, 1.0, bias=0.0, decompose_now=True)
    assert model.kind == "primal"
    folds = [np.flatnonzero(codes % 3 == f) for f in range(3)]   # whole queries
    assert min(f.size for f in folds) > 16
    for lam in LAMS:
        model.solve(lam)
        for H in folds:
            R = np.setdiff1d(np.arange(m), H)
            E = (codes[R][:, None] == np.unique(codes[R])[None, :]).astype(float)
            L = np.eye(R.size) - (E / E.sum(axis=0)) @ E.T
            ref = _normal_equations(X[R], L, Y[R], lam, X[H])
            np.testing.assert_allclose(model.holdout_rows(H), ref, rtol=1e-8,
                                       atol=1e-10 * np.abs(ref).max())
