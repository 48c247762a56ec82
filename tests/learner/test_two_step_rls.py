"""TwoStepRLS: the model and every cross-validation shortcut against retraining (or RLS
with the two-step pairwise kernel G), in kernel and linear mode; the one-domain
(symmetric) shortcuts; bad input."""

import numpy as np
import numpy.linalg as nla
import pytest

from rlscore.learner.rls import RLS
from rlscore.learner.two_step_rls import TwoStepRLS


def xor_task(rng, n1=10, n2=13, d1=15, d2=17):
    X1 = rng.standard_normal((n1, d1))
    X2 = rng.standard_normal((n2, d2)) + 4
    y1 = rng.choice([-1.0, 1.0], n1)
    y2 = rng.choice([-1.0, 1.0], n2)
    Y = np.where(y1[:, None] != y2[None, :], 1.0, -1.0) + 0.1 * rng.standard_normal((n1, n2))
    return X1, X2, Y


def fit(K1, K2, Y, l1, l2):
    return TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=l1, regparam2=l2)


def grid(P, shape):
    return P.reshape(shape, order="F")


@pytest.fixture(params=[(0.001, 10.0), (1.0, 1.0), (50.0, 0.01)])
def setup(rng, request):
    X1, X2, Y = xor_task(rng)
    l1, l2 = request.param
    return X1, X2, X1 @ X1.T, X2 @ X2.T, Y, l1, l2


def test_model_and_predictions(setup):
    X1, X2, K1, K2, Y, l1, l2 = setup
    kern = fit(K1, K2, Y, l1, l2)
    A = nla.solve(K1 + l1 * np.eye(10), Y) @ nla.inv(K2 + l2 * np.eye(13))
    np.testing.assert_allclose(kern.A, A, rtol=1e-7, atol=1e-10 * np.abs(A).max())
    lin = TwoStepRLS(X1=X1, X2=X2, Y=Y.ravel(order="F"), regparam1=l1, regparam2=l2)
    W = nla.solve(X1.T @ X1 + l1 * np.eye(15), X1.T @ Y @ X2) @ nla.inv(X2.T @ X2 + l2 * np.eye(17))
    np.testing.assert_allclose(lin.W, W, rtol=1e-7, atol=1e-10 * np.abs(W).max())
    np.testing.assert_allclose(lin.predict(X1, X2), kern.predict(K1, K2), rtol=1e-7,
                               atol=1e-9)
    # 1-D test rows are one object
    np.testing.assert_allclose(kern.predict(K1[2], K2[4]), (K1[2] @ A @ K2[4])[None], rtol=1e-8)
    np.testing.assert_allclose(lin.predict(X1[2], X2[4]), (X1[2] @ W @ X2[4])[None], rtol=1e-8)


def test_equivalent_rls_kernel_and_in_sample_cv(setup):
    """Two-step RLS = RLS (regparam 1) with G = [l1 l2 K2^-1 x K1^-1 + l1 I x K1^-1 +
    l2 K2^-1 x I]^-1; in-sample LOO and K-fold equal its shortcuts."""
    _, _, K1, K2, Y, l1, l2 = setup
    i1, i2 = nla.inv(K1), nla.inv(K2)
    G = nla.inv(l1 * l2 * np.kron(i2, i1) + l1 * np.kron(np.eye(13), i1)
                + l2 * np.kron(i2, np.eye(10)))
    G = 0.5 * (G + G.T)
    y = Y.ravel(order="F")
    rls = RLS(G, y, 1.0, kernel="PrecomputedKernel")
    learner = fit(K1, K2, Y, l1, l2)
    np.testing.assert_allclose(learner.predict(K1, K2), G @ rls.predictor.W, rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(learner.in_sample_loo(), rls.leave_one_out(), rtol=1e-6,
                               atol=1e-8)
    rows = [0, 3, 3, 9, 5]
    cols = [0, 2, 7, 12, 5]
    folds = [(rows[:3], cols[:3]), (rows[3:], cols[3:])]
    P = learner.in_sample_kfoldcv(folds)
    for r, c in folds:
        h = np.asarray(r) + 10 * np.asarray(c)
        np.testing.assert_allclose(P[h], rls.holdout(h), rtol=1e-6, atol=1e-8)
    untouched = np.setdiff1d(np.arange(130), np.asarray(rows) + 10 * np.asarray(cols))
    assert np.all(P[untouched] == 0)


def test_in_sample_kfold_iterative_path_matches_dense(rng):
    X1, X2, Y = xor_task(rng, n1=8, n2=9, d1=10, d2=11)
    learner = TwoStepRLS(K1=X1 @ X1.T, K2=X2 @ X2.T, Y=Y, regparam1=0.5, regparam2=2.0)
    perm = rng.permutation(72)
    folds = [(p % 8, p // 8) for p in (perm[:30], perm[30:])]
    dense = learner._solver.in_sample_kfold(folds, 0.5, 2.0)
    iterative = learner._solver.in_sample_kfold(folds, 0.5, 2.0, dense_limit=0)
    np.testing.assert_allclose(iterative, dense, rtol=1e-8, atol=1e-10)


def test_in_sample_loo_ignores_own_label(setup):
    _, _, K1, K2, Y, l1, l2 = setup
    base = fit(K1, K2, Y, l1, l2).in_sample_loo()
    for (i, j) in [(2, 4), (0, 0)]:
        Y2 = Y.copy()
        Y2[i, j] = 55.0
        np.testing.assert_allclose(grid(fit(K1, K2, Y2, l1, l2).in_sample_loo(), Y.shape)[i, j],
                                   grid(base, Y.shape)[i, j], rtol=1e-8)


def retrain_predict(K1, K2, Y, l1, l2, rows_out, cols_out, test_rows, test_cols):
    r = np.setdiff1d(np.arange(K1.shape[0]), rows_out)
    c = np.setdiff1d(np.arange(K2.shape[0]), cols_out)
    m = fit(K1[np.ix_(r, r)], K2[np.ix_(c, c)], Y[np.ix_(r, c)], l1, l2)
    P = m.predict(K1[np.ix_(test_rows, r)], K2[np.ix_(test_cols, c)])
    return grid(P, (len(test_rows), len(test_cols)))


@pytest.mark.parametrize("mode", ["kernel", "linear"])
def test_leave_rows_and_columns_out(setup, mode):
    X1, X2, K1, K2, Y, l1, l2 = setup
    learner = fit(K1, K2, Y, l1, l2) if mode == "kernel" else \
        TwoStepRLS(X1=X1, X2=X2, Y=Y, regparam1=l1, regparam2=l2)
    all1, all2 = list(range(10)), list(range(13))
    lro = grid(learner.leave_x1_out(), Y.shape)
    lco = grid(learner.leave_x2_out(), Y.shape)
    for i in [0, 4, 9]:
        np.testing.assert_allclose(lro[i], retrain_predict(K1, K2, Y, l1, l2, [i], [], [i], all2)[0],
                                   rtol=1e-6, atol=1e-8)
    for j in [0, 6, 12]:
        np.testing.assert_allclose(lco[:, j],
                                   retrain_predict(K1, K2, Y, l1, l2, [], [j], all1, [j])[:, 0],
                                   rtol=1e-6, atol=1e-8)
    rowfolds = [[1, 2, 4], [0, 7]]
    colfolds = [[1, 3, 4, 5], [12]]
    lmro = grid(learner.x1_kfold_cv(rowfolds), Y.shape)
    lmco = grid(learner.x2_kfold_cv(colfolds), Y.shape)
    for f in rowfolds:
        np.testing.assert_allclose(lmro[f], retrain_predict(K1, K2, Y, l1, l2, f, [], f, all2),
                                   rtol=1e-6, atol=1e-8)
    for f in colfolds:
        np.testing.assert_allclose(lmco[:, f], retrain_predict(K1, K2, Y, l1, l2, [], f, all1, f),
                                   rtol=1e-6, atol=1e-8)
    assert np.all(lmro[[3, 5, 6, 8, 9]] == 0)


@pytest.mark.parametrize("mode", ["kernel", "linear"])
def test_out_of_sample(setup, mode):
    X1, X2, K1, K2, Y, l1, l2 = setup
    learner = fit(K1, K2, Y, l1, l2) if mode == "kernel" else \
        TwoStepRLS(X1=X1, X2=X2, Y=Y, regparam1=l1, regparam2=l2)
    oos = grid(learner.out_of_sample_loo(), Y.shape)
    for (i, j) in [(0, 0), (2, 4), (9, 12)]:
        np.testing.assert_allclose(oos[i, j],
                                   retrain_predict(K1, K2, Y, l1, l2, [i], [j], [i], [j])[0, 0],
                                   rtol=1e-6, atol=1e-8)
    # stacked ordinary RLS leave-one-out, as in upstream's test
    first = RLS(K2, Y.T, l2, kernel="PrecomputedKernel").leave_one_out().T
    second = RLS(K1, first, l1, kernel="PrecomputedKernel").leave_one_out()
    np.testing.assert_allclose(oos, second, rtol=1e-6, atol=1e-8)
    rowfolds = [[0, 5, 9], [1, 2]]
    colfolds = [[3, 4], [0, 1, 12]]
    P = grid(learner.out_of_sample_kfold_cv(rowfolds, colfolds), Y.shape)
    for R in rowfolds:
        for C in colfolds:
            np.testing.assert_allclose(P[np.ix_(R, C)],
                                       retrain_predict(K1, K2, Y, l1, l2, R, C, R, C),
                                       rtol=1e-6, atol=1e-8)
    assert np.all(P[3] == 0) and np.all(P[:, 5] == 0)


def test_solve_path(setup):
    _, _, K1, K2, Y, l1, l2 = setup
    learner = fit(K1, K2, Y, 1.0, 1.0)
    learner.solve(l1, l2)
    fresh = fit(K1, K2, Y, l1, l2)
    assert (learner.regparam1, learner.regparam2) == (l1, l2)
    np.testing.assert_allclose(learner.A, fresh.A, rtol=1e-12)
    np.testing.assert_allclose(learner.leave_x1_out(), fresh.leave_x1_out(), rtol=1e-12)
    with pytest.raises(TypeError):
        learner.solve(1.0)


# -- one domain ----------------------------------------------------------------------------

@pytest.fixture(params=[0.01, 1.0, 10.0, 1000.0])
def symmetric(rng, request):
    n = 9
    X = rng.standard_normal((n, 12))
    K = X @ X.T
    Y = rng.standard_normal((n, n))
    return K, Y, request.param


def test_out_of_sample_loo_symmetric(symmetric):
    K, Y, lam = symmetric
    n = K.shape[0]
    for Yv in (Y + Y.T, Y):
        learner = fit(K, K, Yv, lam, lam)
        P = grid(learner.out_of_sample_loo_symmetric(), (n, n))
        assert np.all(np.diag(P) == 0)
        for (a, b) in [(2, 4), (4, 2), (0, 8), (5, 1)]:
            out = [a, b]
            ref = retrain_predict(K, K, Yv, lam, lam, out, out, [a], [b])[0, 0]
            np.testing.assert_allclose(P[a, b], ref, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_in_sample_loo_symmetric(symmetric, sign):
    K, Y, lam = symmetric
    n = K.shape[0]
    Ys = Y + sign * Y.T
    learner = fit(K, K, Ys, lam, lam)
    P = grid(learner.in_sample_loo_symmetric(), (n, n))
    iK = nla.inv(K)
    G = nla.inv(lam * lam * np.kron(iK, iK) + lam * np.kron(np.eye(n), iK)
                + lam * np.kron(iK, np.eye(n)))
    G = 0.5 * (G + G.T)
    rls = RLS(G, Ys.ravel(order="F"), 1.0, kernel="PrecomputedKernel")
    for (a, b) in [(2, 4), (7, 0), (3, 3)]:
        hold = sorted({a + n * b, b + n * a})
        pred = np.atleast_1d(rls.holdout(hold))
        np.testing.assert_allclose(P[a, b], pred[hold.index(a + n * b)], rtol=1e-6,
                                   atol=1e-9)
    with pytest.raises(ValueError, match="antisymmetric"):
        fit(K, K, Y, lam, lam).in_sample_loo_symmetric()


def test_leave_vertex_out(symmetric):
    K, Y, lam = symmetric
    n = K.shape[0]
    for Yv in (Y + Y.T, Y - Y.T, Y):
        P = grid(fit(K, K, Yv, lam, lam).leave_vertex_out(), (n, n))
        for a in [0, 4, 8]:
            keep = [i for i in range(n) if i != a]
            ref = retrain_predict(K, K, Yv, lam, lam, [a], [a], [a], keep + [a])[0]
            np.testing.assert_allclose(P[a, keep], ref[:-1], rtol=1e-6, atol=1e-9)
            np.testing.assert_allclose(P[a, a], ref[-1], rtol=1e-6, atol=1e-9)


def test_symmetric_shortcuts_need_square_labels(rng):
    X1, X2, Y = xor_task(rng)
    learner = TwoStepRLS(K1=X1 @ X1.T, K2=X2 @ X2.T, Y=Y, regparam1=1.0, regparam2=1.0)
    with pytest.raises(ValueError, match="square"):
        learner.out_of_sample_loo_symmetric()


def test_bad_input(rng):
    X1, X2, Y = xor_task(rng)
    K1, K2 = X1 @ X1.T, X2 @ X2.T
    with pytest.raises(TypeError, match="regparam2"):
        TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=1.0)
    with pytest.raises(ValueError):
        TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=1.0, regparam2=-2.0)
    with pytest.raises(ValueError, match="transposed"):
        TwoStepRLS(K1=K1, K2=K2, Y=Y.T, regparam1=1.0, regparam2=1.0)
    learner = TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=1.0, regparam2=1.0)
    with pytest.raises(IndexError):
        learner.x1_kfold_cv([[0, 10]])
    with pytest.raises(IndexError):
        learner.x2_kfold_cv([[1, 1]])
    with pytest.raises(ValueError):
        learner.x1_kfold_cv([list(range(10))])
    with pytest.raises(ValueError, match="differ in length"):
        learner.in_sample_kfoldcv([([0, 1], [0])])
    with pytest.raises(IndexError):
        learner.in_sample_kfoldcv([([0, 0], [1, 1])])
    with pytest.raises(IndexError):
        learner.in_sample_kfoldcv([([0, 10], [1, 1])])
    with pytest.raises(TypeError):
        TwoStepRLS(K1, K2, Y, 1.0, 1.0)


def test_sparse_features_equal_dense(rng):
    import scipy.sparse as sp
    X1 = sp.random(9, 5, density=0.5, random_state=3, format="csr")
    X2 = sp.random(7, 4, density=0.5, random_state=4, format="csc")
    Y = rng.standard_normal((9, 7))
    a = TwoStepRLS(X1=X1, X2=X2, Y=Y, regparam1=0.3, regparam2=2.0)
    b = TwoStepRLS(X1=X1.toarray(), X2=X2.toarray(), Y=Y, regparam1=0.3, regparam2=2.0)
    np.testing.assert_allclose(a.W, b.W, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(a.leave_x1_out(), b.leave_x1_out(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.out_of_sample_loo(), b.out_of_sample_loo(), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.slow
def test_larger_problem_shortcuts_match_retraining(rng):
    X1, X2, Y = xor_task(rng, n1=60, n2=45, d1=8, d2=6)
    K1 = np.exp(-0.1 * ((X1[:, None] - X1[None]) ** 2).sum(-1))
    K2 = np.exp(-0.1 * ((X2[:, None] - X2[None]) ** 2).sum(-1))
    learner = fit(K1, K2, Y, 0.1, 0.3)
    oos = grid(learner.out_of_sample_loo(), Y.shape)
    for (i, j) in [(0, 0), (59, 44), (30, 7)]:
        np.testing.assert_allclose(
            oos[i, j], retrain_predict(K1, K2, Y, 0.1, 0.3, [i], [j], [i], [j])[0, 0],
            rtol=1e-6, atol=1e-9)
