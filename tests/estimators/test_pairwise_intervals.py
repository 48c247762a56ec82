"""PairwiseRLS.predict_interval against brute-force jackknife+ / CV+: every hold-out
model refitted in the test (the explicit pair-kernel system without the held-out
pair / drug / target), its residuals and its predictions at the test pairs, and the
order statistics of Barber et al. (2021) taken by sorting."""

import math

import numpy as np
import pytest
from sklearn.model_selection import GroupKFold

from rlscore.estimators import PairwiseRLS, PairwiseRLSCV

N1, N2, LAM, GAMMA = 7, 6, 0.3, 0.5


def _rbf(A, B):
    return np.exp(-GAMMA * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    X1, X2 = rng.normal(size=(N1 + 3, 2)), rng.normal(size=(N2 + 2, 3))
    train = np.array([(i, j) for i in range(N1) for j in range(N2)])
    y = np.sin(X1[train[:, 0], 0]) * X2[train[:, 1], 1] + 0.3 * rng.normal(size=len(train))
    test = np.array([(i, j) for i in range(N1 + 3) for j in range(N2 + 2)])
    return X1, X2, train, y, test


def _pair_kernel(X1, X2, P, Q):
    return _rbf(X1[P[:, 0]], X1[Q[:, 0]]) * _rbf(X2[P[:, 1]], X2[Q[:, 1]])


def _refit(X1, X2, train, y, keep, points):
    """Predictions at ``points`` of the model trained on the pairs ``keep``."""
    T = train[keep]
    a = np.linalg.solve(_pair_kernel(X1, X2, T, T) + LAM * np.eye(len(T)), y[keep])
    return _pair_kernel(X1, X2, points, T) @ a


def _brute_force(X1, X2, train, y, test, groups, alpha, method):
    """Hold out each group (a pair, a drug, a fold...) in turn."""
    m = len(y)
    R = np.empty(m)
    mu = np.empty((len(test), m))
    for g in np.unique(groups):
        out = groups == g
        R[out] = np.abs(y[out] - _refit(X1, X2, train, y, ~out, train[out]))
        mu[:, out] = _refit(X1, X2, train, y, ~out, test)[:, None]
    k_hi = math.ceil((1 - alpha) * (m + 1) - 1e-9)
    k_lo = m + 1 - k_hi
    full = _refit(X1, X2, train, y, np.ones(m, bool), test)
    if method.endswith("+"):
        lo = np.sort(mu - R, axis=1)[:, k_lo - 1]
        hi = np.sort(mu + R, axis=1)[:, k_hi - 1]
    else:
        q = np.sort(R)[k_hi - 1]
        lo, hi = full - q, full + q
    return full, lo, hi


@pytest.mark.parametrize("by, n_folds, method", [
    ("pairs", None, "jackknife+"), ("pairs", None, "jackknife"),
    ("drugs", None, "jackknife+"), ("drugs", 3, "cv+"), ("targets", None, "cv+"),
    ("targets", 4, "cv")])
def test_intervals_equal_refits(data, by, n_folds, method):
    X1, X2, train, y, test = data
    est = PairwiseRLS(X1, X2, alpha=LAM, kernel="rbf", gamma=GAMMA).fit(train, y)
    pred, lo, hi = est.predict_interval(test, alpha=0.2, method=method, by=by,
                                        n_folds=n_folds)
    if by == "pairs":
        groups = np.arange(len(y))
    else:
        col = 0 if by == "drugs" else 1
        ids = train[:, col]
        if n_folds is None:
            groups = ids
        else:
            n = N1 if col == 0 else N2
            fold = np.empty(n, int)
            for k, (_, te) in enumerate(GroupKFold(n_folds).split(np.arange(n),
                                                                  groups=np.arange(n))):
                fold[te] = k
            groups = fold[ids]
    full, elo, ehi = _brute_force(X1, X2, train, y, test, groups, 0.2, method)
    np.testing.assert_allclose(pred, est.predict(test), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pred, full, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(lo, elo, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(hi, ehi, rtol=1e-8, atol=1e-10)


def test_linear_kernel_and_cv_estimator_default(data):
    X1, X2, train, y, test = data
    cv = PairwiseRLSCV(X1, X2, alphas=[0.1, 1.0, 10.0], cv="drugs").fit(train, y)
    ref = PairwiseRLS(X1, X2, alpha=cv.alpha_).fit(train, y)
    a = cv.predict_interval(test, alpha=0.2)                 # by the estimator's cv
    b = ref.predict_interval(test, alpha=0.2, by="drugs")
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-12)
    assert np.all(a[1] <= a[0]) and np.all(a[0] <= a[2])


def test_bad_input(data):
    X1, X2, train, y, test = data
    est = PairwiseRLS(X1, X2, alpha=LAM).fit(train, y)
    with pytest.raises(ValueError, match="by must be"):
        est.predict_interval(test, by="drug")      # "both" is setting D (issue #45)
    with pytest.raises(ValueError, match="jackknife"):
        est.predict_interval(test, method="cv+")
    with pytest.raises(ValueError, match="n_folds"):
        est.predict_interval(test, by="drugs", n_folds=1)
    sampled = PairwiseRLS(X1, X2, alpha=LAM).fit(train[:-2], y[:-2])
    with pytest.raises(ValueError, match="closed form"):
        sampled.predict_interval(test)
