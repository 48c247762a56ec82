"""Hold-outs of more rows than the primal dimension refit in the primal (issue #35,
item 12): folds of h > d rows for RLS, Nystrom RLS with basis removal, global and
query RankRLS (K-fold, leave-query-out), each against the explicit normal equations of
the remaining rows, lambda from 1e-6 to 1e6, dense and sparse, one and two outputs."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.core.rankrls import GlobalRankRLSModel, QueryRankRLSModel
from rlscore.core.nystrom import RLSModel

M, D = 60, 4
LAMS = [1e-6, 1.0, 1e6]


def _data(p=1, seed=12):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((M, D)) + 0.5
    Y = X @ rng.standard_normal((D, p)) + 0.3 * rng.standard_normal((M, p))
    return X, Y


def _folds():
    return np.array_split(np.random.default_rng(1).permutation(M), 4)   # 15 rows > d


def _solve(Phi, L, Y, lam, Phi_test):
    W = np.linalg.solve(Phi.T @ L @ Phi + lam * np.eye(Phi.shape[1]), Phi.T @ L @ Y)
    return Phi_test @ W


def _rest(H):
    return np.setdiff1d(np.arange(M), H)


def _primal_path_used(cache):
    assert cache is not None and len(cache._items) > 0


@pytest.mark.parametrize("lam", LAMS)
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("sparse", [False, True])
def test_rls_folds(lam, p, sparse):
    X, Y = _data(p)
    model = RLSModel(sp.csr_matrix(X) if sparse else X, Y, regparam=lam, path=True)
    assert model.representation.kind == "primal"
    Xa = np.hstack([X, np.ones((M, 1))])                   # bias 1: a constant feature
    for H in _folds():
        R = _rest(H)
        ref = _solve(Xa[R], np.eye(R.size), Y[R], lam, Xa[H])
        np.testing.assert_allclose(model.holdout(H), ref, rtol=1e-8,
                                   atol=1e-10 * np.abs(ref).max())
    _primal_path_used(model.solver._folds)


def _gauss(A, B, gamma=0.3):
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-gamma * np.maximum(d2, 0.0))


@pytest.mark.parametrize("lam", LAMS)
def test_nystrom_folds_remove_basis(lam):
    """Folds of 15 rows against r = 6 basis vectors, removed from each fold's refit."""
    X, Y = _data(2)
    basis = np.array([0, 5, 17, 30, 41, 58])
    model = RLSModel(X, Y, regparam=lam, kernel="GaussianKernel", gamma=0.3,
                     basis_indices=basis, path=True)
    for H in _folds():
        R = _rest(H)
        B = np.setdiff1d(basis, H)
        K_RB = _gauss(X[R], X[B])
        lhs = K_RB.T @ K_RB + lam * _gauss(X[B], X[B])
        b = np.linalg.lstsq(lhs, K_RB.T @ Y[R], rcond=None)[0]
        ref = _gauss(X[H], X[B]) @ b
        np.testing.assert_allclose(model.holdout(H), ref, rtol=1e-7,
                                   atol=1e-9 * np.abs(ref).max())
    _primal_path_used(model.solver._folds)


@pytest.mark.parametrize("lam", LAMS)
@pytest.mark.parametrize("sparse", [False, True])
def test_global_rankrls_folds(lam, sparse):
    X, Y = _data(2)
    model = GlobalRankRLSModel(sp.csr_matrix(X) if sparse else X, Y, regparam=lam,
                               bias=0.0, decompose_now=True)
    assert model.kind == "primal"
    for H in _folds():
        R = _rest(H)
        n = R.size
        L = n * np.eye(n) - np.ones((n, n))
        ref = _solve(X[R], L, Y[R], lam, X[H])
        np.testing.assert_allclose(model.holdout(H), ref, rtol=1e-8,
                                   atol=1e-10 * np.abs(ref).max())
    _primal_path_used(model._folds)


def _query_laplacian(q):
    L = np.eye(q.size)
    for v in np.unique(q):
        idx = np.flatnonzero(q == v)
        L[np.ix_(idx, idx)] -= 1.0 / idx.size
    return L


@pytest.mark.parametrize("lam", LAMS)
@pytest.mark.parametrize("p", [1, 2])
def test_query_rankrls_lqo_and_partial_holdout(lam, p):
    """Queries of 3 (batched formula) and of 12 and 15 rows (> d: primal refits)."""
    X, Y = _data(p)
    sizes = [3, 12, 15, 3, 12, 15]
    qids = np.repeat(np.arange(len(sizes)), sizes)
    model = QueryRankRLSModel(X, Y, qids, regparam=lam, bias=0.0, decompose_now=True)
    preds = model.leave_query_out()
    for q, P in enumerate(preds):
        H = np.flatnonzero(qids == q)
        R = _rest(H)
        ref = _solve(X[R], _query_laplacian(qids[R]), Y[R], lam, X[H])
        np.testing.assert_allclose(P, ref, rtol=1e-8, atol=1e-10 * np.abs(ref).max())
    _primal_path_used(model._folds)
    # part of a query (the rest of it stays a smaller query)
    H = np.flatnonzero(qids == 2)[:10]
    R = _rest(H)
    ref = _solve(X[R], _query_laplacian(qids[R]), Y[R], lam, X[H])
    np.testing.assert_allclose(model.holdout(H), ref, rtol=1e-8,
                               atol=1e-10 * np.abs(ref).max())


def test_singular_fold_at_regparam_zero():
    """regparam=0 with fewer remaining rows than features: a clear ValueError."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 6))
    model = RLSModel(X, rng.standard_normal(12), regparam=0.0, path=True)
    with pytest.raises(ValueError, match="singular"):
        model.holdout(np.arange(8))


@pytest.mark.parametrize("lam", LAMS)
def test_block_formula_still_used_for_small_holdouts_in_many_features(lam):
    """h = 3 rows of a primal model with d = 120 features: the h x h hold-out formula
    (not the refit: its set-up would cost more), for RLS, global and query RankRLS,
    against the same normal equations."""
    rng = np.random.default_rng(5)
    m, d = 200, 120
    X = rng.standard_normal((m, d))
    Y = X @ rng.standard_normal((d, 1)) + rng.standard_normal((m, 1))
    qids = np.repeat(np.arange(20), 10)
    H = np.array([10, 11, 12])
    R = np.setdiff1d(np.arange(m), H)
    Xa = np.hstack([X, np.ones((m, 1))])
    rls = RLSModel(X, Y, regparam=lam, path=True)
    ref = _solve(Xa[R], np.eye(R.size), Y[R], lam, Xa[H])
    np.testing.assert_allclose(rls.holdout(H), ref, rtol=1e-7, atol=1e-9 * np.abs(ref).max())
    assert len(rls.solver._folds._items) == 0
    glob = GlobalRankRLSModel(X, Y, regparam=lam, bias=0.0, decompose_now=True)
    n = R.size
    ref = _solve(X[R], n * np.eye(n) - np.ones((n, n)), Y[R], lam, X[H])
    np.testing.assert_allclose(glob.holdout(H), ref, rtol=1e-7, atol=1e-9 * np.abs(ref).max())
    query = QueryRankRLSModel(X, Y, qids, regparam=lam, bias=0.0, decompose_now=True)
    ref = _solve(X[R], _query_laplacian(qids[R]), Y[R], lam, X[H])
    np.testing.assert_allclose(query.holdout(H), ref, rtol=1e-7,
                               atol=1e-9 * np.abs(ref).max())
    for model in (glob, query):
        assert model._folds is None or len(model._folds._items) == 0


@pytest.mark.parametrize("lam", [1e-3, 1.0, 1e3])
def test_nystrom_block_formula_with_removal(lam):
    """3 held-out rows, one of them a basis vector, of a Nystrom model with r = 80
    basis vectors: the block formula with basis removal (not the refit), against the
    reduced basis refitted."""
    rng = np.random.default_rng(6)
    m = 200
    X = rng.standard_normal((m, 6))
    Y = np.sin(X[:, :1]) + 0.1 * rng.standard_normal((m, 1))
    basis = np.sort(rng.choice(m, 80, replace=False))
    H = np.array([basis[7], *np.setdiff1d(np.arange(m), basis)[:2]])
    model = RLSModel(X, Y, regparam=lam, kernel="GaussianKernel", gamma=0.3,
                     basis_indices=basis, path=True)
    assert model.solver.nmap.k == basis.size          # no dependent basis vectors
    R = np.setdiff1d(np.arange(m), H)
    B = np.setdiff1d(basis, H)
    K_RB = _gauss(X[R], X[B])
    b = np.linalg.lstsq(K_RB.T @ K_RB + lam * _gauss(X[B], X[B]), K_RB.T @ Y[R],
                        rcond=None)[0]
    ref = _gauss(X[H], X[B]) @ b
    np.testing.assert_allclose(model.holdout(H), ref, rtol=1e-6,
                               atol=1e-8 * np.abs(ref).max())
    assert len([k for k in model.solver._folds._items if k[:1] == b"R"]) == 0
