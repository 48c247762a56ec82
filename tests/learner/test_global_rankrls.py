"""GlobalRankRLS, KfoldRankRLS and LeavePairOutRankRLS: RLScore's contract (closed
forms, shapes, keywords, index checks) and the selection wrappers against explicit
retraining."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.kernel import GaussianKernel, PolynomialKernel
from rlscore.learner.global_rankrls import GlobalRankRLS, KfoldRankRLS, LeavePairOutRankRLS
from rlscore.measure import cindex, sqerror
from rlscore.measure.measure_utilities import UndefinedPerformance


def lap(m):
    return m * np.eye(m) - np.ones((m, m))


def data(rng, m=20, d=6, p=1):
    X = rng.random((m, d))
    Y = rng.random((m, p)) if p > 1 else rng.random(m)
    return X, Y


def close(a, b, rtol=1e-7):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-2 * np.abs(b).max())


def test_linear_closed_form_and_bias_has_no_effect(rng):
    X, Y = data(rng, p=2)
    m, d = X.shape
    L = lap(m)
    W = np.linalg.solve(X.T @ L @ X + 1.5 * np.eye(d), X.T @ L @ Y)
    for bias in (None, 0.0, 5.0):
        kw = {} if bias is None else {"bias": bias}
        learner = GlobalRankRLS(X, Y, regparam=1.5, **kw)
        close(learner.predictor.W, W)
        assert np.all(learner.predictor.b == 0)
    # dense, np.matrix and sparse inputs of every format give the same weights
    for Xin in (np.asmatrix(X), sp.csr_matrix(X), sp.csc_matrix(X), sp.coo_matrix(X),
                sp.csr_array(X), X.tolist()):
        close(GlobalRankRLS(Xin, np.asmatrix(Y), regparam=1.5).predictor.W, W)


def test_dual_kernels_closed_form(rng):
    X, Y = data(rng, m=15)
    m = X.shape[0]
    L = lap(m)
    K = GaussianKernel(X, gamma=0.3).getKM(X)
    learner = GlobalRankRLS(X, Y, regparam=0.7, kernel="GaussianKernel", gamma=0.3)
    close(learner.predictor.A, np.linalg.solve(L @ K + 0.7 * np.eye(m), L @ Y), 1e-6)
    Kp = PolynomialKernel(X, gamma=1, coef0=1, degree=2).getKM(X)
    learner = GlobalRankRLS(X, Y, regparam=0.7, kernel="PolynomialKernel", gamma=1,
                            coef0=1, degree=2)
    A = np.linalg.solve(L @ Kp + 0.7 * np.eye(m), L @ Y)
    close(learner.predict(X), Kp @ A, 1e-6)


def test_precomputed_and_reduced_set(rng):
    X, Y = data(rng, m=18)
    m = X.shape[0]
    L = lap(m)
    K = GaussianKernel(X, gamma=0.5).getKM(X)
    learner = GlobalRankRLS(K, Y, regparam=2.0, kernel="PrecomputedKernel")
    A = np.linalg.solve(L @ K + 2.0 * np.eye(m), L @ Y)
    close(learner.predictor.W, A, 1e-6)          # the dual vector, in predictor.W
    close(learner.predict(K[:4]), K[:4] @ A, 1e-6)
    # reduced set: A_B = (K_r^T L K_r + lambda K_rr)^{-1} K_r^T L Y
    basis = [0, 2, 5, 7, 11]
    K_r = K[:, basis]
    K_rr = K[np.ix_(basis, basis)]
    AB = np.linalg.solve(K_r.T @ L @ K_r + 2.0 * K_rr, K_r.T @ L @ Y)
    pre = GlobalRankRLS(K_r, Y, regparam=2.0, kernel="PrecomputedKernel",
                        basis_vectors=K_rr)
    close(pre.predictor.W, AB, 1e-6)
    gau = GlobalRankRLS(X, Y, regparam=2.0, kernel="GaussianKernel", gamma=0.5,
                        basis_vectors=X[basis])
    close(gau.predictor.A, AB, 1e-6)


def test_output_shapes_follow_the_squeeze_rule(rng):
    X, y = data(rng)
    learner = GlobalRankRLS(X, y)
    assert learner.predictor.W.shape == (6,)
    assert learner.holdout([3]).shape == ()
    assert learner.holdout([3, 4]).shape == (2,)
    assert learner.leave_one_out().shape == (20,)
    ps, pe = learner.leave_pair_out([0], [1])
    assert ps.shape == () and pe.shape == ()
    assert learner.predict(X[0]).shape == ()
    same = GlobalRankRLS(X, y.reshape(-1, 1))
    assert same.holdout([3, 4]).shape == (2,)
    _, Y = data(rng, p=3)
    multi = GlobalRankRLS(X, Y)
    assert multi.holdout([3]).shape == (3,)
    ps, pe = multi.leave_pair_out([0, 1], [2, 3])
    assert ps.shape == (2, 3)
    assert multi.leave_pair_out([0], [2])[0].shape == (3,)
    # one row or all rows: the same value up to the BLAS kernel's summation order
    assert multi.predictor.predict(X)[0, 1] == pytest.approx(multi.predict(X[:1])[1],
                                                             rel=1e-14, abs=1e-15)
    assert multi.holdout([1, 2])[0, 2] == pytest.approx(
        GlobalRankRLS(np.delete(X, [1, 2], 0), np.delete(Y, [1, 2], 0)).predict(X[1])[2])


@pytest.mark.parametrize("kernel,kw", [("LinearKernel", {}),
                                       ("GaussianKernel", {"gamma": 0.5})])
def test_solve_holdout_loo_lpo_equal_retraining(rng, kernel, kw):
    X, Y = data(rng, m=16, d=4, p=2)
    m = X.shape[0]
    learner = GlobalRankRLS(X, Y, regparam=1.0, kernel=kernel, **kw)
    for lam in [1e-3, 1.0, 1e3]:
        learner.solve(lam)
        assert learner.regparam == lam
        fresh = GlobalRankRLS(X, Y, regparam=lam, kernel=kernel, **kw)
        close(learner.predict(X), fresh.predict(X), 1e-6)
        for H in ([5], [0, 9], [1, 2, 3, 15]):
            rest = np.setdiff1d(np.arange(m), H)
            ref = GlobalRankRLS(X[rest], Y[rest], regparam=lam, kernel=kernel, **kw)
            close(learner.holdout(H), np.squeeze(ref.predict(X[H])), 1e-6)
        loo = learner.leave_one_out()
        for i in (0, 7):
            close(loo[i], learner.holdout([i]), 1e-9)
        ps, pe = learner.leave_pair_out([0, 4], [1, 11])
        close(np.vstack([ps[1], pe[1]]), learner.holdout([4, 11]), 1e-9)


def test_holdout_index_errors(rng, check_holdout_index_errors):
    X, y = data(rng, m=10)
    learner = GlobalRankRLS(X, y)
    check_holdout_index_errors(learner.holdout)
    with pytest.raises(ValueError):
        learner.holdout(list(range(10)))
    with pytest.raises(ValueError):
        learner.leave_pair_out([0, 1], [1, 1])
    with pytest.raises(ValueError):
        learner.leave_pair_out([0, 1], [2])
    with pytest.raises(IndexError):
        learner.leave_pair_out([0], [10])


def test_keywords_bad_input(rng):
    X, y = data(rng, m=10)
    with pytest.warns(UserWarning, match="kenerl"):
        GlobalRankRLS(X, y, kenerl="PolynomialKernel")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GlobalRankRLS(**{"X": X, "Y": y, "regparam": 2.0, "bias": 3.0})
    with pytest.raises(ValueError, match="tied"):
        GlobalRankRLS(X, np.ones(10))
    with pytest.raises(ValueError):
        GlobalRankRLS(X, y[:8])
    with pytest.raises(ValueError):
        GlobalRankRLS(X, y, regparam=-1)
    with pytest.raises(ValueError):
        GlobalRankRLS(X, np.where(y > 0.5, np.nan, y))


@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_kfold_rankrls_defaults_to_cindex(rng):
    X, y = data(rng, m=24, d=3)
    X = X + 0.3 * rng.standard_normal(X.shape)
    folds = [list(range(i, 24, 4)) for i in range(4)]
    grid = [2.0 ** k for k in range(-6, 6, 3)]
    sel = KfoldRankRLS(X, y, folds, regparams=grid)
    assert sel.measure is cindex
    assert len(sel.cv_predictions) == len(grid) and len(sel.cv_predictions[0]) == 4
    for g, lam in enumerate(grid):
        perfs = []
        for f, fold in enumerate(folds):
            rest = np.setdiff1d(np.arange(24), fold)
            P = GlobalRankRLS(X[rest], y[rest], regparam=lam).predict(X[fold])
            close(sel.cv_predictions[g][f], P, 1e-6)
            perfs.append(cindex(y[fold], P))
        assert sel.cv_performances[g] == pytest.approx(np.mean(perfs))
    best = grid[int(np.argmax(sel.cv_performances))]
    assert sel.regparam == best
    close(sel.predict(X), GlobalRankRLS(X, y, regparam=best).predict(X), 1e-6)
    # an explicit error measure is minimised
    err = KfoldRankRLS(X, y, folds, regparams=grid, measure=sqerror)
    assert err.regparam == grid[int(np.argmin(err.cv_performances))]


def test_kfold_rankrls_default_grid(rng):
    X, y = data(rng, m=12, d=3)
    sel = KfoldRankRLS(X, y, [[0, 1, 2], [3, 4, 5]])
    assert sel.cv_performances.shape == (30,)
    assert sel.regparam in [2 ** x for x in range(-15, 15)]


@pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")
def test_leave_pair_out_rankrls_matches_retraining(rng, lpo_by_refit):
    m = 9
    X = rng.standard_normal((m, 2))
    y = np.array([1, -1, 1, 1, -1, -1, 1, -1, 1], dtype=float)
    grid = [0.01, 1.0, 100.0]
    sel = LeavePairOutRankRLS(X, y, regparams=grid, kernel="GaussianKernel", gamma=0.5)
    assert sel.measure is cindex and sel.cv_predictions == [None] * 3
    for g, lam in enumerate(grid):
        def refit_pair(i, j):
            rest = np.setdiff1d(np.arange(m), [i, j])
            r = GlobalRankRLS(X[rest], y[rest], regparam=lam, kernel="GaussianKernel",
                              gamma=0.5)
            return r.predict(X[[i, j]])
        assert sel.cv_performances[g] == pytest.approx(lpo_by_refit(y, refit_pair))
    assert sel.regparam == grid[int(np.argmax(sel.cv_performances))]


def test_leave_pair_out_rankrls_default_grid_and_multioutput(rng):
    X, Y = data(rng, m=14, d=3, p=2)
    sel = LeavePairOutRankRLS(X, Y)
    assert sel.cv_performances.shape == (31,)
    assert isinstance(sel.regparam, (int, float))
    assert sel.predict(X).shape == (14, 2)
    Y[:, 1] = 1.0
    with pytest.raises(UndefinedPerformance):
        LeavePairOutRankRLS(X, Y, regparams=[1.0])
