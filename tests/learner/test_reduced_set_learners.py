"""Learner faces of the reduced-set models: basis_indices / n_basis, CV wrappers that
remove held-out basis vectors, basis_vectors unchanged, kernel RankSVM via the map."""

import warnings

import numpy as np
import pytest

from rlscore.kernel import GaussianKernel
from rlscore.learner import (GlobalRankRLS, KfoldRLS, LeaveOneOutRLS, QueryRankRLS, RLS)
from rlscore.learner.ranksvm import KernelRankSVM
from rlscore.measure import sqerror

G = 0.3


def gk(A, B):
    return GaussianKernel(X=B, gamma=G).getKM(A)


def sor(X, y, train, basis, lam, test):
    Kr, Krr = gk(X[train], X[basis]), gk(X[basis], X[basis])
    return gk(X[test], X[basis]) @ np.linalg.solve(Kr.T @ Kr + lam * Krr, Kr.T @ y[train])


@pytest.fixture
def data():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    return X, np.sin(X[:, 0]) + 0.1 * rng.normal(size=30)


def test_basis_indices_equals_basis_vectors(data):
    X, y = data
    idx = [1, 4, 9, 16, 25]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = RLS(X, y, 0.1, "GaussianKernel", basis_indices=idx, gamma=G)
    b = RLS(X, y, 0.1, "GaussianKernel", basis_vectors=X[idx], gamma=G)
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-10)
    # basis_vectors: indices unknown, so holdout keeps the basis (documented)
    fold = [1, 2, 3]
    train = np.setdiff1d(np.arange(30), fold)
    np.testing.assert_allclose(b.holdout(fold), sor(X, y, train, idx, 0.1, fold), atol=1e-9)
    np.testing.assert_allclose(a.holdout(fold),
                               sor(X, y, train, [4, 9, 16, 25], 0.1, fold), atol=1e-9)
    c = RLS(X, y, 0.1, "GaussianKernel", n_basis=6, random_state=0, gamma=G)
    d = RLS(X, y, 0.1, "GaussianKernel", n_basis=6, random_state=0, gamma=G)
    np.testing.assert_array_equal(c.predict(X), d.predict(X))


def test_wrappers_select_with_removal(data):
    X, y = data
    idx = np.array([0, 5, 10, 15, 20, 25])
    folds = [np.arange(k, 30, 3) for k in range(3)]
    grid = [1e-3, 1e-1, 10.0]
    kf = KfoldRLS(X, y, folds, "GaussianKernel", regparams=grid, basis_indices=idx, gamma=G)
    loo = LeaveOneOutRLS(X, y, "GaussianKernel", regparams=grid, basis_indices=idx, gamma=G)
    for j, lam in enumerate(grid):
        perf = np.mean([sqerror(y[f], sor(X, y, np.setdiff1d(np.arange(30), f),
                                          np.setdiff1d(idx, f), lam, f)) for f in folds])
        assert kf.cv_performances[j] == pytest.approx(perf, rel=1e-8)
        P = np.array([sor(X, y, np.setdiff1d(np.arange(30), [i]), np.setdiff1d(idx, [i]),
                          lam, [i])[0] for i in range(30)])
        assert loo.cv_performances[j] == pytest.approx(sqerror(y, P), rel=1e-8)
    kk = KfoldRLS(X, y, folds, "GaussianKernel", regparams=grid, basis_indices=idx,
                  keep_basis_in_cv=True, gamma=G)
    perf = np.mean([sqerror(y[f], sor(X, y, np.setdiff1d(np.arange(30), f), idx, grid[0], f))
                    for f in folds])
    assert kk.cv_performances[0] == pytest.approx(perf, rel=1e-8)


def test_rank_learners_accept_basis(data):
    X, y = data
    qids = np.repeat(np.arange(5), 6)
    g = GlobalRankRLS(X, y, 1.0, "GaussianKernel", n_basis=8, random_state=1, gamma=G)
    q = QueryRankRLS(X, y, qids, 1.0, "GaussianKernel", basis_indices=[0, 7, 14, 21],
                     gamma=G)
    assert g.predict(X).shape == (30,) and q.predict(X).shape == (30,)
    # hold-out of rows 0 and 1 (row 0 is a basis vector, removed by default) equals the
    # model retrained without them on the remaining basis rows 7, 14, 21
    keep = np.arange(2, 30)
    refit = QueryRankRLS(X[keep], y[keep], qids[keep], 1.0, "GaussianKernel",
                         basis_indices=[5, 12, 19], gamma=G)
    np.testing.assert_allclose(q.holdout([0, 1]), refit.predict(X[[0, 1]]), rtol=1e-7,
                               atol=1e-10)


def test_kernel_ranksvm_with_indexed_basis(data):
    X, y = data
    idx = [2, 8, 14, 20, 26]
    a = KernelRankSVM(X, y, regparam=0.1, kernel="GaussianKernel", basis_indices=idx,
                      gamma=G, tol=1e-8, max_iter=5000)
    b = KernelRankSVM(X, y, regparam=0.1, kernel="GaussianKernel", basis_vectors=X[idx],
                      gamma=G, tol=1e-8, max_iter=5000)
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-5)
    assert a.predictor.A.shape == (5,)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_one_basis_vector_with_several_outputs_predicts(p):
    """A reduced-set model with ONE basis vector keeps its (1, p) dual coefficients:
    the predictions equal K(X, basis) A computed by hand (the predictor used to squeeze
    A to (p,) and then fail or read it as p basis vectors)."""
    rng = np.random.default_rng(3)
    X, Xt = rng.standard_normal((20, 3)), rng.standard_normal((7, 3))
    Y = rng.standard_normal((20, p))
    learner = RLS(X, Y, kernel="GaussianKernel", gamma=0.4, basis_vectors=X[:1],
                  regparam=0.5)
    Kt = GaussianKernel(X[:1], gamma=0.4).getKM(Xt)
    A = np.asarray(learner.predictor.A).reshape(1, p)
    np.testing.assert_allclose(learner.predict(Xt), np.squeeze(Kt @ A), rtol=1e-12)
    # by hand: the one-feature ridge fit of Y on k(X, b)
    k = GaussianKernel(X[:1], gamma=0.4).getKM(X)[:, 0]
    a = (k @ Y) / (k @ k + 0.5)         # min ||Y - k a||^2 + 0.5 a^2 k(b, b), k(b, b) = 1
    np.testing.assert_allclose(learner.predict(Xt), np.squeeze(np.outer(Kt[:, 0], a)),
                               rtol=1e-10)
