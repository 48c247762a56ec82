"""Decomposed Nystrom map, Theorem 1 removal and CV with basis removal, against brute
force (explicit subset-of-regressors problems, recomputed maps, retraining)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rlscore._ext import _nystrom
from rlscore.core.nystrom import NystromMap, select_basis
from rlscore.core.rankrls import GlobalRankRLSModel, QueryRankRLSModel
from rlscore.core.nystrom import RLSModel
from rlscore.kernel import GaussianKernel

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)

GAMMA = 0.4
LAMBDAS = [1e-6, 1e-2, 1.0, 1e3]


def gk(A, B):
    return GaussianKernel(X=B, gamma=GAMMA).getKM(A)


@pytest.fixture
def data():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(42, 3))
    Y = rng.normal(size=(42, 2))
    basis = np.array([0, 3, 5, 8, 13, 20, 27, 31, 40])
    return X, Y, basis


def _laplacian(train, qids):
    n = train.size
    if qids is None:
        return n * np.eye(n) - np.ones((n, n))
    q = qids[train]
    same = q[:, None] == q[None, :]
    return np.eye(n) - same / same.sum(axis=1)[None, :]


def sor(X, Y, train, basis, lam, test, qids=None, rank=False, K=None):
    """Explicit subset-of-regressors: argmin_b c(Y, K_MR b) + lam b^T K_RR b, predicted
    on ``test``."""
    if K is None:
        Kr, Krr, Kt = gk(X[train], X[basis]), gk(X[basis], X[basis]), gk(X[test], X[basis])
    else:
        Kr, Krr, Kt = K[np.ix_(train, basis)], K[np.ix_(basis, basis)], K[np.ix_(test, basis)]
    L = _laplacian(train, qids) if rank else np.eye(train.size)
    b = np.linalg.solve(Kr.T @ L @ Kr + lam * Krr, Kr.T @ L @ Y[train])
    return Kt @ b


def test_map_reproduces_nystrom_kernel_and_back_map(data):
    X, Y, basis = data
    nm = NystromMap(gk(X, X[basis]), gk(X[basis], X[basis]))
    Krr = gk(X[basis], X[basis])
    Kt = gk(X, X[basis])
    np.testing.assert_allclose(nm.Phi @ nm.Phi.T, Kt @ np.linalg.solve(Krr, Kt.T),
                               atol=1e-10)
    w = np.random.default_rng(0).normal(size=(basis.size, 2))
    np.testing.assert_allclose(Kt @ nm.back(w), nm.Phi @ w, atol=1e-10)


@pytest.mark.parametrize("H", [[0], [2, 5], [0, 1, 8], [3, 4, 6, 7]])
def test_removal_equals_recomputed_map(data, H):
    X, Y, basis = data
    nm = NystromMap(gk(X, X[basis]), gk(X[basis], X[basis]))
    red = nm.remove(H)
    Lb = basis[np.setdiff1d(np.arange(basis.size), H)]
    Kml, Kll = gk(X, X[Lb]), gk(X[Lb], X[Lb])
    np.testing.assert_allclose(red.Phi @ red.Phi.T, Kml @ np.linalg.solve(Kll, Kml.T),
                               atol=1e-10)
    assert red.Phi.shape == (X.shape[0], Lb.size)
    np.testing.assert_array_equal(basis[red.basis], Lb)
    # a model trained on the updated map predicts, after mapping back, exactly as the
    # model trained on the map recomputed from scratch
    for lam in (1e-3, 1.0):
        W = np.linalg.solve(red.Phi.T @ red.Phi + lam * np.eye(Lb.size), red.Phi.T @ Y)
        fresh = NystromMap(Kml, Kll)
        W2 = np.linalg.solve(fresh.Phi.T @ fresh.Phi + lam * np.eye(Lb.size),
                             fresh.Phi.T @ Y)
        np.testing.assert_allclose(Kml @ red.back(W), Kml @ fresh.back(W2), atol=1e-10)
        np.testing.assert_allclose(Kml @ red.back(W), red.Phi @ W, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(0, 10 ** 6), st.integers(1, 40))
def test_removal_kernel_matches_numpy(h, seed, m):
    rng = np.random.default_rng(seed)
    r = h + rng.integers(1, 8)
    Phi = rng.normal(size=(m, r))
    H = np.sort(rng.choice(r, size=h, replace=False)).astype(np.intp)
    L = np.setdiff1d(np.arange(r), H).astype(np.intp)
    PD, S, Pt = rng.normal(size=(L.size, h)), rng.normal(size=(h, h)), rng.normal(size=(h, L.size))
    out = np.empty((m, L.size))
    _nystrom.removal_update(Phi, L, H, PD, S, Pt, out)
    ref = Phi[:, L] + (Phi[:, L] @ PD + Phi[:, H] @ S) @ Pt
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


def test_removal_kernel_checks_bounds():
    Phi = np.zeros((3, 4))
    with pytest.raises(ValueError, match="outside"):
        _nystrom.removal_update(Phi, np.array([0, 9], dtype=np.intp),
                                np.array([1], dtype=np.intp), np.zeros((2, 1)),
                                np.zeros((1, 1)), np.zeros((1, 2)), np.zeros((3, 2)))


@pytest.mark.parametrize("lam", LAMBDAS)
def test_reduced_set_rls_is_subset_of_regressors(data, lam):
    X, Y, basis = data
    model = RLSModel(X, Y, lam, "GaussianKernel", basis_indices=basis, gamma=GAMMA)
    all_rows = np.arange(X.shape[0])
    np.testing.assert_allclose(model.predictor.predict(X),
                               sor(X, Y, all_rows, basis, lam, all_rows), atol=1e-8)


def _brute_cv(X, Y, basis, lam, fold, rank=False, qids=None, K=None):
    train = np.setdiff1d(np.arange(X.shape[0]), fold)
    return sor(X, Y, train, np.setdiff1d(basis, fold), lam, fold, qids, rank, K)


@pytest.mark.parametrize("lam", LAMBDAS)
@pytest.mark.parametrize("precomputed", [False, True])
def test_rls_cv_with_removal_equals_retraining(data, lam, precomputed):
    X, Y, basis = data
    K = gk(X, X) if precomputed else None
    args = (K, Y, lam, "PrecomputedKernel") if precomputed else (X, Y, lam, "GaussianKernel")
    kw = {} if precomputed else {"gamma": GAMMA}
    model = RLSModel(*args, basis_indices=basis, **kw)
    m = X.shape[0]
    folds = np.array_split(np.random.default_rng(1).permutation(m), 5)
    for fold in folds + [np.array([1, 2]), np.array([0, 3, 5])]:
        scale = max(1.0, np.abs(_brute_cv(X, Y, basis, lam, fold, K=K)).max())
        np.testing.assert_allclose(model.holdout(fold), _brute_cv(X, Y, basis, lam, fold, K=K),
                                   atol=1e-8 * scale)
    loo = model.leave_one_out()
    for i in range(m):
        np.testing.assert_allclose(loo[i], _brute_cv(X, Y, basis, lam, [i], K=K)[0],
                                   atol=1e-8 * max(1.0, np.abs(loo[i]).max()))
    # keep_basis_in_cv: the old behaviour (basis fixed, only rows held out)
    keep = RLSModel(*args, basis_indices=basis, keep_basis_in_cv=True, **kw)
    fold = folds[0]
    train = np.setdiff1d(np.arange(m), fold)
    np.testing.assert_allclose(keep.holdout(fold), sor(X, Y, train, basis, lam, fold, K=K),
                               atol=1e-8)


@pytest.mark.parametrize("lam", [1e-4, 1.0, 1e2])
@pytest.mark.parametrize("precomputed", [False, True])
def test_rankrls_cv_with_removal_equals_retraining(data, lam, precomputed):
    X, Y, basis = data
    m = X.shape[0]
    K = gk(X, X) if precomputed else None
    qids = np.repeat(np.arange(7), 6)
    Xa, kern, kw = (K, "PrecomputedKernel", {}) if precomputed else \
        (X, "GaussianKernel", {"gamma": GAMMA})
    g = GlobalRankRLSModel(Xa, Y, lam, kern, basis_indices=basis, **kw)
    allr = np.arange(m)
    np.testing.assert_allclose(g.predictor.predict(Xa), sor(X, Y, allr, basis, lam, allr,
                                                            rank=True, K=K), atol=1e-8)
    for fold in (np.array([0, 1, 2, 30]), np.array([7, 9])):
        np.testing.assert_allclose(g.holdout(fold),
                                   _brute_cv(X, Y, basis, lam, fold, rank=True, K=K),
                                   atol=1e-8)
    loo = g.leave_one_out()
    for i in basis:
        np.testing.assert_allclose(loo[i], _brute_cv(X, Y, basis, lam, [i], rank=True,
                                                     K=K)[0], atol=1e-8)
    q = QueryRankRLSModel(Xa, Y, qids, lam, kern, basis_indices=basis, **kw)
    np.testing.assert_allclose(q.predictor.predict(Xa), sor(X, Y, allr, basis, lam, allr,
                                                            qids, True, K), atol=1e-8)
    lqo = q.leave_query_out()
    for k in range(7):
        fold = np.flatnonzero(qids == k)
        np.testing.assert_allclose(lqo[k], _brute_cv(X, Y, basis, lam, fold, True, qids, K),
                                   atol=1e-8)
    np.testing.assert_allclose(q.holdout([12, 13]),
                               _brute_cv(X, Y, basis, lam, np.array([12, 13]), True, qids, K),
                               atol=1e-8)


def test_singular_basis_kernel_warns_with_effective_rank(data):
    X, Y, _ = data
    Xd = np.vstack([X, X[:2]])                      # rows 42, 43 duplicate rows 0, 1
    Yd = np.vstack([Y, Y[:2]])
    basis = np.array([0, 1, 5, 9, 42, 43])
    with pytest.warns(UserWarning, match="effective rank 4 of 6"):
        model = RLSModel(Xd, Yd, 0.5, "GaussianKernel", basis_indices=basis, gamma=GAMMA)
    # the dependent basis vectors add nothing: same model as the independent basis
    ref = RLSModel(Xd, Yd, 0.5, "GaussianKernel", basis_indices=[0, 1, 5, 9], gamma=GAMMA)
    np.testing.assert_allclose(model.predictor.predict(X), ref.predictor.predict(X),
                               atol=1e-8)


def test_bad_basis_input(data):
    X, Y, basis = data
    with pytest.raises(IndexError, match="outside"):
        RLSModel(X, Y, 1.0, "GaussianKernel", basis_indices=[0, 99])
    with pytest.raises(IndexError, match="repeated"):
        RLSModel(X, Y, 1.0, "GaussianKernel", basis_indices=[0, 3, 3])
    with pytest.raises(ValueError, match=r"\|R\| > m"):
        RLSModel(X, Y, 1.0, "GaussianKernel", n_basis=43)
    with pytest.raises(ValueError, match=r"\|R\| > m"):
        RLSModel(X, Y, 1.0, "GaussianKernel", basis_indices=np.arange(43) % 42)
    with pytest.raises(ValueError, match="not both"):
        RLSModel(X, Y, 1.0, "GaussianKernel", basis_vectors=X[:3], basis_indices=[0])
    model = RLSModel(X, Y, 1.0, "GaussianKernel", basis_indices=[4, 7], gamma=GAMMA)
    with pytest.raises(ValueError, match="every basis vector"):
        model.holdout([4, 7, 9])
    g = GlobalRankRLSModel(X, Y, 1.0, "GaussianKernel", basis_indices=[4, 7], gamma=GAMMA)
    with pytest.raises(ValueError, match="every basis vector"):
        g.holdout([4, 7])
    one = RLSModel(X, Y, 1.0, "GaussianKernel", basis_indices=[4], gamma=GAMMA)
    with pytest.raises(ValueError, match="only basis vector"):
        one.leave_one_out()
    nm = NystromMap(gk(X, X[basis]), gk(X[basis], X[basis]))
    with pytest.raises(ValueError, match="leaves no basis"):
        nm.remove(np.arange(basis.size))


def test_select_basis_draws_reproducibly():
    a = select_basis(100, n_basis=10, random_state=3)
    b = select_basis(100, n_basis=10, random_state=3)
    np.testing.assert_array_equal(a, b)
    assert a.size == 10 and np.unique(a).size == 10 and a.max() < 100
    with pytest.raises(ValueError):
        select_basis(100, n_basis=0)
    with pytest.raises(TypeError):
        select_basis(100, n_basis=2.5)


def test_batched_loo_path_with_removal_equals_per_lambda(data):
    X, Y, basis = data
    model = RLSModel(X, Y, 1.0, "GaussianKernel", basis_indices=basis, gamma=0.3)
    grid = [1e-6, 1e-2, 1.0, 100.0]
    for lam, P in zip(grid, model.leave_one_out_path(grid)):
        model.solve(lam)
        np.testing.assert_allclose(P, model.leave_one_out(), rtol=1e-10, atol=1e-12)


def _sor_dependent(K, Y, train, basis, lam, test, qids=None, rank=False):
    """Subset of regressors with a possibly singular K_RR: the predictions do not depend
    on which solution of the singular normal equations is taken (lstsq's)."""
    Kr, Krr, Kt = K[np.ix_(train, basis)], K[np.ix_(basis, basis)], K[np.ix_(test, basis)]
    L = _laplacian(train, qids) if rank else np.eye(train.size)
    b = np.linalg.lstsq(Kr.T @ L @ Kr + lam * Krr, Kr.T @ L @ Y[train], rcond=1e-12)[0]
    return Kt @ b


@pytest.fixture
def duplicated_basis(data):
    """Rows 42, 43 duplicate rows 0, 5; both copies are basis vectors, so removing one
    copy (holding out its row) leaves its twin: the basis spans the same space."""
    X, Y, _ = data
    Xd = np.vstack([X, X[[0, 5]]])
    Yd = np.vstack([Y, np.random.default_rng(9).normal(size=(2, 2))])
    basis = np.array([0, 3, 5, 8, 13, 20, 42, 43])
    return Xd, Yd, basis, gk(Xd, Xd)


@pytest.mark.parametrize("lam", [1e-3, 1.0])
def test_rls_cv_removing_a_basis_vector_whose_twin_stays(duplicated_basis, lam):
    X, Y, basis, K = duplicated_basis
    m = X.shape[0]
    with pytest.warns(UserWarning, match="effective rank 6 of 8"):
        model = RLSModel(X, Y, lam, "GaussianKernel", basis_indices=basis, gamma=GAMMA)
    loo = model.leave_one_out()
    for i in range(m):
        train = np.setdiff1d(np.arange(m), [i])
        ref = _sor_dependent(K, Y, train, np.setdiff1d(basis, [i]), lam, [i])
        np.testing.assert_allclose(loo[i], ref[0], atol=1e-7)
    for fold in ([0, 1], [42, 7], [0, 42], [5, 43, 8], [0, 5, 11]):
        fold = np.array(fold)
        train = np.setdiff1d(np.arange(m), fold)
        ref = _sor_dependent(K, Y, train, np.setdiff1d(basis, fold), lam, fold)
        np.testing.assert_allclose(model.holdout(fold), ref, atol=1e-7)
    path = model.solver.leave_one_out_removing_path([lam])[0]
    np.testing.assert_allclose(path, loo, atol=1e-9)



def test_rankrls_cv_removing_a_basis_vector_whose_twin_stays(duplicated_basis):
    X, Y, basis, K = duplicated_basis
    m, lam = X.shape[0], 0.5
    qids = np.repeat(np.arange(11), 4)
    with pytest.warns(UserWarning, match="effective rank"):
        g = GlobalRankRLSModel(X, Y, lam, "GaussianKernel", basis_indices=basis, gamma=GAMMA)
        q = QueryRankRLSModel(X, Y, qids, lam, "GaussianKernel", basis_indices=basis,
                              gamma=GAMMA)
    for fold in ([0, 1], [42, 7], [0, 42], [5, 43, 8]):
        fold = np.array(fold)
        train = np.setdiff1d(np.arange(m), fold)
        kept = np.setdiff1d(basis, fold)
        np.testing.assert_allclose(
            g.holdout(fold), _sor_dependent(K, Y, train, kept, lam, fold, rank=True),
            atol=1e-7)
    for fold in ([0, 1], [42, 41], [40, 42, 43], [4, 5]):   # within one query each
        fold = np.array(fold)
        train = np.setdiff1d(np.arange(m), fold)
        kept = np.setdiff1d(basis, fold)
        np.testing.assert_allclose(
            q.holdout(fold), _sor_dependent(K, Y, train, kept, lam, fold, qids, True),
            atol=1e-7)
    loo = g.leave_one_out()
    for i in basis:
        train = np.setdiff1d(np.arange(m), [i])
        ref = _sor_dependent(K, Y, train, np.setdiff1d(basis, [i]), lam, [i], rank=True)
        np.testing.assert_allclose(loo[i], ref[0], atol=1e-7)


@pytest.mark.parametrize("H", [[0], [6], [0, 2], [0, 7, 3], [6, 7]])
def test_removal_with_a_kept_twin_equals_refit_and_cv(duplicated_basis, H):
    """Removing a basis vector whose duplicate stays in the basis: the reduced map is
    that of the kept basis (its twin restores the direction, whichever copy the pivoted
    Cholesky kept in the map), so a ridge model on it predicts as the subset-of-
    regressors refit on the kept basis (lstsq), and, trained without the rows of the
    removed vectors, as cross-validation."""
    X, Y, basis, K = duplicated_basis
    m, lam = X.shape[0], 0.3
    with pytest.warns(UserWarning, match="effective rank 6 of 8"):
        nm = NystromMap(K[:, basis], K[np.ix_(basis, basis)])
        model = RLSModel(X, Y, lam, "GaussianKernel", basis_indices=basis, gamma=GAMMA)
    kept = np.setdiff1d(basis, basis[H])
    red = nm.remove(H)
    np.testing.assert_allclose(red.Phi @ red.Phi.T,
                               K[:, kept] @ np.linalg.pinv(K[np.ix_(kept, kept)],
                                                           rcond=1e-10) @ K[kept],
                               atol=1e-7)
    rows = np.arange(m)
    W = np.linalg.solve(red.Phi.T @ red.Phi + lam * np.eye(red.Phi.shape[1]),
                        red.Phi.T @ Y)
    np.testing.assert_allclose(red.Phi @ W, _sor_dependent(K, Y, rows, kept, lam, rows),
                               atol=1e-7)
    np.testing.assert_allclose(K[:, basis[red.basis]] @ red.back(W), red.Phi @ W,
                               atol=1e-7)
    fold = basis[H]
    train = np.setdiff1d(rows, fold)
    Pt = red.Phi[train]
    Wt = np.linalg.solve(Pt.T @ Pt + lam * np.eye(Pt.shape[1]), Pt.T @ Y[train])
    np.testing.assert_allclose(red.Phi[fold] @ Wt, model.holdout(fold), atol=1e-7)
