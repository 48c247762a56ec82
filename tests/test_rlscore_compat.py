"""RLScore compatibility: scripts in the style of RLScore's documentation tutorials,
each checked against the brute force it stands for (refitting without the held-out
examples, explicit Kronecker systems, RLScore's fold algorithm written out), so a
compatibility regression shows in CI.

The data imitate the tutorials' (the housing regression data: 13 unscaled features of
very different magnitudes; drug-target style kernels), generated here.
"""


import numpy as np
import pytest
import scipy.linalg as la

from rlscore.learner import (RLS, GlobalRankRLS, KfoldRLS, KronRLS, LeaveOneOutRLS,
                             TwoStepRLS)
from rlscore.measure import auc, cindex, sqerror
from rlscore.utilities.cross_validation import random_folds


def housing_like(m=100, seed=0):
    """13 features with the ranges of the Boston housing data (0..711), labels ~22."""
    rng = np.random.default_rng(seed)
    lo = np.array([0, 0, 0, 0, .38, 3.5, 3, 1.1, 1, 187, 12.6, .3, 1.7])
    hi = np.array([89, 100, 28, 1, .87, 8.8, 100, 12, 24, 711, 22, 397, 38])
    X = lo + (hi - lo) * rng.beta(.7, .9, size=(m, 13))
    X[:, 3] = X[:, 3] > .9
    y = X @ rng.normal(size=13) * 0.05 + rng.normal(size=m) * 4 + 22
    return X, y


def refit_loo(X, y, **params):
    m = len(y)
    out = np.empty(m)
    for i in range(m):
        keep = np.r_[0:i, i + 1:m]
        out[i] = np.ravel(RLS(X[keep], y[keep], **params).predict(X[i:i + 1]))[0]
    return out


# -- RLS tutorial: leave-one-out with a linear and a polynomial kernel ----------------

def test_rls_loo_linear_kernel_equals_refit():
    X, y = housing_like()
    learner = RLS(X, y, regparam=1.0)
    P = learner.leave_one_out()
    ref = refit_loo(X, y, regparam=1.0)
    np.testing.assert_allclose(P, ref, rtol=1e-8, atol=1e-8)
    assert sqerror(y, P) == pytest.approx(sqerror(y, ref), rel=1e-10)


def test_rls_loo_unscaled_polynomial_kernel_equals_refit():
    """The case the eigenvalue rule fixes: max eigenvalue ~1e13, where the former
    threshold m eps max ~ 0.3 discarded real spectrum (LOO MSE off by 1.2e-5
    relative here, by 4e-3 at regparam 1)."""
    X, y = housing_like()
    params = dict(regparam=100.0, kernel="PolynomialKernel", degree=2, coef0=1, gamma=1)
    learner = RLS(X, y, **params)
    P = learner.leave_one_out()
    ref = refit_loo(X, y, **params)
    assert sqerror(y, P) == pytest.approx(sqerror(y, ref), rel=5e-6)
    # the regparam selection tutorial: LeaveOneOutRLS picks by the same LOO errors
    sel = LeaveOneOutRLS(X, y, regparams=[10.0, 100.0, 1000.0], kernel="PolynomialKernel",
                         degree=2, coef0=1, gamma=1)
    assert sel.cv_performances[1] == pytest.approx(sqerror(y, ref), rel=5e-6)


# -- K-fold with seeded folds ---------------------------------------------------------

def test_kfold_with_seeded_folds_equals_refit(rlscore_reference_folds):
    X, y = housing_like(m=60)
    folds = random_folds(60, 5, seed=12345)
    assert folds == rlscore_reference_folds(60, 5, 12345)
    grid = [0.1, 10.0]
    sel = KfoldRLS(X, y, folds, regparams=grid)
    for j, lam in enumerate(grid):
        P = np.empty(60)
        for fold in folds:
            keep = np.setdiff1d(np.arange(60), fold)
            P[fold] = RLS(X[keep], y[keep], regparam=lam).predict(X[fold])
        assert sel.cv_performances[j] == pytest.approx(sqerror(y, P), rel=1e-9)


# -- leave-pair-out AUC ---------------------------------------------------------------

def test_leave_pair_out_auc_equals_refit():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(24, 4))
    y = np.where(X[:, 0] + rng.normal(size=24) > 0, 1.0, -1.0)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    s, e = np.repeat(pos, len(neg)), np.tile(neg, len(pos))
    learner = RLS(X, y, regparam=1.0, kernel="GaussianKernel", gamma=0.5)
    ps, pe = learner.leave_pair_out(s, e)
    hits = []
    for i, j in zip(s, e):
        keep = np.setdiff1d(np.arange(24), [i, j])
        p = RLS(X[keep], y[keep], regparam=1.0, kernel="GaussianKernel",
                gamma=0.5).predict(X[[i, j]])
        hits.append(1.0 if p[0] > p[1] else 0.5 if p[0] == p[1] else 0.0)
    lpo_auc = np.mean((ps > pe) + 0.5 * (ps == pe))
    assert lpo_auc == pytest.approx(np.mean(hits), abs=1e-12)
    assert 0.5 < lpo_auc <= auc(y, learner.predict(X)) + 0.1


# -- Kronecker: KronRLS and TwoStepRLS settings -----------------------------------------

@pytest.fixture(scope="module")
def pairwise():
    rng = np.random.default_rng(9)
    X1, X2 = rng.normal(size=(9, 3)), rng.normal(size=(7, 2))
    K1 = np.exp(-0.5 * ((X1[:, None] - X1[None]) ** 2).sum(-1))
    K2 = np.exp(-0.5 * ((X2[:, None] - X2[None]) ** 2).sum(-1))
    Y = np.sin(X1[:, :1] @ np.ones((1, 7))) + X2[:, 0][None, :] + 0.1 * rng.normal(size=(9, 7))
    return K1, K2, Y


def test_kronrls_in_sample_loo_equals_explicit_system(pairwise):
    K1, K2, Y = pairwise
    lam = 0.5
    y = Y.ravel(order="F")
    learner = KronRLS(K1=K1, K2=K2, Y=y, regparam=lam)
    G = np.kron(K2, K1)
    n = G.shape[0]
    ref = np.empty(n)
    for i in range(n):                             # refit without pair i
        keep = np.r_[0:i, i + 1:n]
        a = la.solve(G[np.ix_(keep, keep)] + lam * np.eye(n - 1), y[keep], assume_a="pos")
        ref[i] = G[i, keep] @ a
    np.testing.assert_allclose(learner.in_sample_loo(), ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.ravel(learner.A, order="F"),
                               la.solve(G + lam * np.eye(n), y, assume_a="pos"), rtol=1e-8)
    assert cindex(y, learner.in_sample_loo()) > 0.6


def _two_step(K1, K2, Y, l1, l2):
    A = la.solve(K1 + l1 * np.eye(len(K1)), Y) @ la.inv(K2 + l2 * np.eye(len(K2)))
    return A


def test_two_step_loo_variants_equal_refit(pairwise):
    K1, K2, Y = pairwise
    l1, l2 = 0.5, 2.0
    n1, n2 = Y.shape
    learner = TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=l1, regparam2=l2)

    def grid(v):
        return np.asarray(v).reshape(n1, n2, order="F")

    # setting B: leave drug (row) i out; C: leave target j out; D: both
    B, C, D = np.empty((n1, n2)), np.empty((n1, n2)), np.empty((n1, n2))
    for i in range(n1):
        r = np.r_[0:i, i + 1:n1]
        A = _two_step(K1[np.ix_(r, r)], K2, Y[r], l1, l2)
        B[i] = K1[i, r] @ A @ K2
    for j in range(n2):
        c = np.r_[0:j, j + 1:n2]
        A = _two_step(K1, K2[np.ix_(c, c)], Y[:, c], l1, l2)
        C[:, j] = K1 @ A @ K2[c, j]
    for i in range(n1):
        for j in range(n2):
            r, c = np.r_[0:i, i + 1:n1], np.r_[0:j, j + 1:n2]
            A = _two_step(K1[np.ix_(r, r)], K2[np.ix_(c, c)], Y[np.ix_(r, c)], l1, l2)
            D[i, j] = K1[i, r] @ A @ K2[c, j]
    np.testing.assert_allclose(grid(learner.leave_x1_out()), B, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(grid(learner.leave_x2_out()), C, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(grid(learner.out_of_sample_loo()), D, rtol=1e-8, atol=1e-10)
    # setting A: each entry alone = RLS LOO with the pairwise kernel of two-step RLS
    H1 = K1 @ la.inv(K1 + l1 * np.eye(n1))
    H2 = K2 @ la.inv(K2 + l2 * np.eye(n2))
    F = H1 @ Y @ H2
    h = np.outer(np.diag(H1), np.diag(H2))
    np.testing.assert_allclose(grid(learner.in_sample_loo()), (F - h * Y) / (1 - h),
                               rtol=1e-8, atol=1e-10)


def test_two_step_symmetric_loo_and_vertex_out_equal_refit():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(7, 3))
    K = X @ X.T + np.eye(7)
    lam = 1.0
    n = 7
    for sign in (1.0, -1.0):
        M = rng.normal(size=(n, n))
        Y = M + sign * M.T
        learner = TwoStepRLS(K1=K, K2=K, Y=Y, regparam1=lam, regparam2=lam)
        P = np.asarray(learner.in_sample_loo_symmetric()).reshape(n, n, order="F")
        G = np.kron(K @ la.inv(K + lam * np.eye(n)), K @ la.inv(K + lam * np.eye(n)))
        # two-step = RLS with the kernel Gt = G (I - G)^-1 at regparam 1; hold out
        # (a, b) and (b, a) together with the hat matrix G: f = (I - G_SS)^-1 (F_S - G_SS y_S)
        y = Y.ravel(order="F")
        Fv = G @ y
        for a, b in [(1, 4), (6, 0), (3, 3)]:
            S = sorted({a + n * b, b + n * a})
            GSS = G[np.ix_(S, S)]
            f = la.solve(np.eye(len(S)) - GSS, Fv[S] - GSS @ y[S])
            assert P[a, b] == pytest.approx(f[S.index(a + n * b)], rel=1e-7, abs=1e-10)
        # leave vertex a out: every pair with a removed, then predict (a, b)
        V = np.asarray(learner.leave_vertex_out()).reshape(n, n, order="F")
        a = 2
        keep = np.r_[0:a, a + 1:n]
        A = _two_step(K[np.ix_(keep, keep)], K[np.ix_(keep, keep)], Y[np.ix_(keep, keep)],
                      lam, lam)
        np.testing.assert_allclose(V[a], K[a, keep] @ A @ K[keep], rtol=1e-7, atol=1e-10)


def test_global_rankrls_kfold_tutorial_equals_refit():
    """The ranking tutorial: GlobalRankRLS hold-out per seeded fold vs refitting."""
    X, y = housing_like(m=40, seed=3)
    folds = random_folds(40, 4, seed=1)
    learner = GlobalRankRLS(X, y, regparam=10.0)
    for fold in folds:
        keep = np.setdiff1d(np.arange(40), fold)
        ref = GlobalRankRLS(X[keep], y[keep], regparam=10.0).predict(X[fold])
        got = learner.holdout(fold)
        np.testing.assert_allclose(got - got.mean(), ref - ref.mean(), rtol=1e-7, atol=1e-7)
