"""CV+ intervals for pairs of two new objects (setting D) and over folds of pairs
(setting A): equal to the intervals computed from np.kron refits without each block /
fold, in the core, the learner KronRLS and the estimators."""

import numpy as np
import pytest

from rlscore.core.kronecker import IntervalScheme, kron_interval_model


def _data(n1=7, n2=6, u1=3, u2=2, seed=0):
    rng = np.random.default_rng(seed)
    X1, X2 = rng.normal(size=(n1 + u1, 2)), rng.normal(size=(n2 + u2, 2))
    k = lambda A, B, g: np.exp(-g * ((A[:, None] - B[None]) ** 2).sum(-1))  # noqa: E731
    K1, K2 = k(X1, X1, 0.5), k(X2, X2, 0.8)
    Yall = np.sin(X1[:, :1]) @ np.cos(X2[:, 1:]).T + 0.3 * rng.normal(size=(n1 + u1,
                                                                             n2 + u2))
    return K1, K2, Yall, n1, n2


def _refit_dual(K1, K2, Y, T1, T2, lam):
    K = np.kron(K2[np.ix_(T2, T2)], K1[np.ix_(T1, T1)])
    a = np.linalg.solve(K + lam * np.eye(K.shape[0]), Y[np.ix_(T1, T2)].ravel(order="F"))
    return a.reshape((T1.size, T2.size), order="F")


def _brute_both(K1, K2, Yall, n1, n2, lam, rowfolds, colfolds, tests, alpha, cv_plus):
    """CV+ (``cv_plus``: the conftest fixture) from np.kron refits without each block
    rowfold x colfold."""
    Y = Yall[:n1, :n2]
    mus, res = [], []
    for R in rowfolds:
        T1 = np.setdiff1d(np.arange(n1), R)
        for C in colfolds:
            T2 = np.setdiff1d(np.arange(n2), C)
            A = _refit_dual(K1, K2, Y, T1, T2, lam)
            P = K1[np.ix_(R, T1)] @ A @ K2[np.ix_(T2, C)]
            for (i, j), p in zip([(i, j) for i in R for j in C], P.ravel()):
                res.append(Y[i, j] - p)
                mus.append([K1[u, T1] @ A @ K2[T2, v] for u, v in tests])
    return np.column_stack(cv_plus(np.array(mus).T, np.array(res), alpha))


@pytest.mark.parametrize("folds", [None, "k"])
def test_both_new_cv_plus_equals_refits(folds, cv_plus_bounds):
    K1, K2, Yall, n1, n2 = _data()
    lam, alpha = 0.3, 0.2
    rf = [np.array([0, 4]), np.array([1, 5, 6]), np.array([2, 3])] if folds else \
        [np.array([i]) for i in range(n1)]
    cf = [np.array([0, 3]), np.array([1, 4]), np.array([2, 5])] if folds else \
        [np.array([j]) for j in range(n2)]
    tests = [(u, v) for u in range(n1, n1 + 3) for v in range(n2, n2 + 2)]
    D1, D2 = K1[n1:, :n1], K2[n2:, :n2]
    im, method = kron_interval_model(K1[:n1, :n1], K2[:n2, :n2], Yall[:n1, :n2], lam, D1,
                                     D2, IntervalScheme("both",
                                                        None if folds is None else (rf, cf),
                                                        "jackknife+"))
    assert method == "cv+"
    X = np.array([(u - n1, v - n2) for u, v in tests])
    pred, lo, hi = im.predict_interval(X, alpha, method)
    brute = _brute_both(K1, K2, Yall, n1, n2, lam, rf, cf, tests, alpha,
                        cv_plus_bounds)
    np.testing.assert_allclose(lo[:, 0], brute[:, 0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(hi[:, 0], brute[:, 1], rtol=1e-8, atol=1e-10)
    A = _refit_dual(K1, K2, Yall[:n1, :n2], np.arange(n1), np.arange(n2), lam)
    np.testing.assert_allclose(pred[:, 0], [K1[u, :n1] @ A @ K2[:n2, v] for u, v in tests],
                               rtol=1e-10)


def test_pair_folds_cv_plus_equals_refits(cv_plus_bounds):
    K1, K2, Yall, n1, n2 = _data(5, 4, 2, 2, seed=3)
    lam, alpha = 0.2, 0.25
    Y = Yall[:n1, :n2]
    m = n1 * n2
    perm = np.random.default_rng(0).permutation(m)
    folds = [np.sort(perm[k::4]) for k in range(4)]          # vec_F positions
    tests = [(u, v) for u in range(n1, n1 + 2) for v in range(n2 - 1, n2 + 2)]
    im, method = kron_interval_model(K1[:n1, :n1], K2[:n2, :n2], Y, lam, K1[:, :n1],
                                     K2[:, :n2], IntervalScheme("pairs", folds, "cv+"))
    pred, lo, hi = im.predict_interval(np.array(tests), alpha, method)
    K = np.kron(K2[:n2, :n2], K1[:n1, :n1])
    y = Y.ravel(order="F")
    mus, res = np.empty((m, len(tests))), np.empty(m)
    for S in folds:
        T = np.setdiff1d(np.arange(m), S)
        a = np.linalg.solve(K[np.ix_(T, T)] + lam * np.eye(T.size), y[T])
        res[S] = y[S] - K[np.ix_(S, T)] @ a
        kt = np.array([np.kron(K2[v, :n2], K1[u, :n1]) for u, v in tests])
        mus[S] = (kt[:, T] @ a)[None, :]
    brute = np.column_stack(cv_plus_bounds(mus.T, res, alpha))
    np.testing.assert_allclose(lo[:, 0], brute[:, 0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(hi[:, 0], brute[:, 1], rtol=1e-8, atol=1e-10)


def test_faces_reach_setting_d(cv_plus_bounds):
    """PairwiseRLS(by='both', n_folds), PairwiseRLSCV(cv='both') and the learner
    KronRLS(setting='both') give the refits' intervals."""
    from sklearn.model_selection import GroupKFold
    from rlscore.estimators import PairwiseRLS, PairwiseRLSCV
    from rlscore.learner import KronRLS
    K1, K2, Yall, n1, n2 = _data(6, 6, 2, 2, seed=5)
    lam, alpha = 0.4, 0.2
    pairs = np.array([(i, j) for j in range(n2) for i in range(n1)])
    y = Yall[pairs[:, 0], pairs[:, 1]]
    tests = [(u, v) for u in range(n1, n1 + 2) for v in range(n2, n2 + 2)]
    est = PairwiseRLS(K1, K2, kernel="precomputed", alpha=lam).fit(pairs, y)
    _, lo, hi = est.predict_interval(np.array(tests), alpha, by="both", n_folds=3)
    ids = np.arange(n1)
    rf = [t for _, t in GroupKFold(3).split(ids, groups=ids)]
    ids2 = np.arange(n2)
    cf = [t for _, t in GroupKFold(3).split(ids2, groups=ids2)]
    brute = _brute_both(K1, K2, Yall, n1, n2, lam, rf, cf, tests, alpha,
                        cv_plus_bounds)
    np.testing.assert_allclose(lo, brute[:, 0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(hi, brute[:, 1], rtol=1e-8, atol=1e-10)
    # learner: the same folds, pairs of the test objects in vec_F order
    lrn = KronRLS(K1=K1[:n1, :n1], K2=K2[:n2, :n2], Y=Yall[:n1, :n2], regparam=lam)
    _, lo2, hi2 = lrn.predict_interval(K1[n1:, :n1], K2[n2:, :n2], [0, 0, 1, 1],
                                       [0, 1, 0, 1], miscoverage=alpha, setting="both",
                                       folds=(rf, cf))
    np.testing.assert_allclose(lo2, brute[:, 0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(hi2, brute[:, 1], rtol=1e-8, atol=1e-10)
    # PairwiseRLSCV(cv="both"): its own setting by default, one object per fold
    cv = PairwiseRLSCV(K1, K2, kernel="precomputed", cv="both", alphas=[lam]).fit(pairs, y)
    _, lo3, hi3 = cv.predict_interval(np.array(tests), alpha)
    singles = lambda n: [np.array([i]) for i in range(n)]  # noqa: E731
    brute1 = _brute_both(K1, K2, Yall, n1, n2, lam, singles(n1), singles(n2), tests,
                         alpha, cv_plus_bounds)
    np.testing.assert_allclose(lo3, brute1[:, 0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(hi3, brute1[:, 1], rtol=1e-8, atol=1e-10)


def test_estimator_pair_folds_are_kfold_of_samples(cv_plus_bounds):
    from sklearn.model_selection import KFold
    from rlscore.estimators import PairwiseRLS
    K1, K2, Yall, n1, n2 = _data(4, 4, 1, 1, seed=7)
    lam, alpha = 0.3, 0.2
    rng = np.random.default_rng(1)
    pairs = np.array([(i, j) for j in range(n2) for i in range(n1)])[rng.permutation(16)]
    y = Yall[pairs[:, 0], pairs[:, 1]]
    test = np.array([(n1, n2), (0, n2)])
    est = PairwiseRLS(K1, K2, kernel="precomputed", alpha=lam).fit(pairs, y)
    _, lo, hi = est.predict_interval(test, alpha, by="pairs", n_folds=4, method="cv+")
    K = np.array([[K1[a, c] * K2[b, d] for c, d in pairs] for a, b in pairs])
    mus, res = np.empty((16, 2)), np.empty(16)
    for _, S in KFold(4).split(pairs):
        T = np.setdiff1d(np.arange(16), S)
        a = np.linalg.solve(K[np.ix_(T, T)] + lam * np.eye(T.size), y[T])
        res[S] = y[S] - K[np.ix_(S, T)] @ a
        kt = np.array([[K1[u, c] * K2[v, d] for c, d in pairs[T]] for u, v in test])
        mus[S] = (kt @ a)[None, :]
    brute = np.column_stack(cv_plus_bounds(mus.T, res, alpha))
    np.testing.assert_allclose(lo, brute[:, 0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(hi, brute[:, 1], rtol=1e-8, atol=1e-10)


def test_bad_setting_and_folds_are_named():
    from rlscore.learner import KronRLS
    K1, K2, Yall, n1, n2 = _data(4, 4, 1, 1)
    lrn = KronRLS(K1=K1[:n1, :n1], K2=K2[:n2, :n2], Y=Yall[:n1, :n2], regparam=1.0)
    with pytest.raises(ValueError, match="setting"):
        lrn.predict_interval(K1[n1:, :n1], K2[n2:, :n2], setting="drug")
    with pytest.raises(ValueError, match="folds"):
        kron_interval_model(K1[:n1, :n1], K2[:n2, :n2], Yall[:n1, :n2], 1.0, K1[n1:, :n1],
                            K2[n2:, :n2], IntervalScheme("pairs", [np.array([0, 1])], "cv+"))
