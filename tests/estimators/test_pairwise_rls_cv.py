"""PairwiseRLSCV: the exact hold-outs of settings A-D against refits without the
held-out pairs / drugs / targets (np.kron systems solved in the test), and against
scikit-learn's GridSearchCV(PairwiseRLS) where a splitter expresses the setting."""

import numpy as np
import pytest
from sklearn.model_selection import (GridSearchCV, GroupKFold, KFold, LeaveOneGroupOut,
                                     LeaveOneOut)

from rlscore.estimators import PairwiseRLS, PairwiseRLSCV

N1, N2 = 12, 9
GAMMA1, GAMMA2 = 0.4, 0.3
ALPHAS = [0.003, 0.03, 0.3, 3.0, 30.0]


def _rbf(X, g):
    d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-g * d)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X1, X2 = rng.normal(size=(N1, 3)), rng.normal(size=(N2, 4))
    pairs = np.array([(i, j) for i in range(N1) for j in range(N2)])
    rng.shuffle(pairs)
    y = np.sin(X1[pairs[:, 0], 0]) * X2[pairs[:, 1], 1] + 0.3 * rng.normal(size=len(pairs))
    return X1, X2, pairs, y


def _refit_predict(K, y, train, test, alpha):
    """The Kronecker RLS trained on the pairs ``train`` only, by the explicit pair
    kernel system; its predictions for ``test``."""
    A = np.linalg.solve(K[np.ix_(train, train)] + alpha * np.eye(train.size), y[train])
    return K[np.ix_(test, train)] @ A


def _brute_force(X1, X2, pairs, y, splits, alpha):
    """Mean over splits of the test MSE of refits (splits: (train, test) samples)."""
    K1, K2 = _rbf(X1, GAMMA1), _rbf(X2, GAMMA2)
    lin = pairs[:, 0] + N1 * pairs[:, 1]
    K = np.kron(K2, K1)[np.ix_(lin, lin)]       # pair kernel, vec_F positions
    errs = [np.mean((_refit_predict(K, y, tr, te, alpha) - y[te]) ** 2)
            for tr, te in splits]
    return float(np.mean(errs))


def _splits(setting, n_folds, pairs, y):
    r, c = pairs[:, 0], pairs[:, 1]
    every = np.arange(len(y))
    if setting == "pairs":
        sp = LeaveOneOut() if n_folds is None else KFold(n_folds)
        return list(sp.split(pairs))
    if setting in ("drugs", "targets"):
        g = r if setting == "drugs" else c
        sp = LeaveOneGroupOut() if n_folds is None else GroupKFold(n_folds)
        return list(sp.split(pairs, y, groups=g))
    # both: train without every pair of the fold's drugs or targets
    def folds(g, n):
        if n_folds is None:
            return [np.array([i]) for i in range(n)]
        return [np.unique(g[te]) for _, te in GroupKFold(n_folds).split(pairs, y, groups=g)]
    out = []
    for R in folds(r, N1):
        for C in folds(c, N2):
            te = every[np.isin(r, R) & np.isin(c, C)]
            tr = every[~np.isin(r, R) & ~np.isin(c, C)]
            out.append((tr, te))
    return out


CASES = [("pairs", None), ("pairs", 4), ("drugs", None), ("drugs", 4),
         ("targets", None), ("targets", 3), ("both", 3), ("both", None)]


@pytest.mark.parametrize("cv, n_folds", CASES)
def test_cv_results_equal_refits(data, cv, n_folds):
    X1, X2, pairs, y = data
    est = PairwiseRLSCV(X1, X2, alphas=ALPHAS, cv=cv, n_folds=n_folds, kernel="rbf",
                        gamma=None)
    est.set_params(X1=X1 * np.sqrt(GAMMA1 * 3), X2=X2 * np.sqrt(GAMMA2 * 4))
    # gamma=None is 1 / n_features: the scaled features give the kernels above
    est.fit(pairs, y)
    splits = _splits(cv, n_folds, pairs, y)
    expected = [_brute_force(X1, X2, pairs, y, splits, a) for a in ALPHAS]
    np.testing.assert_allclose(est.cv_results_["cv_performances"], expected,
                               rtol=1e-8, atol=1e-10)
    assert est.alpha_ == ALPHAS[int(np.argmin(expected))]
    assert est.best_score_ == pytest.approx(-min(expected), rel=1e-8)
    # the final model is PairwiseRLS at the chosen alpha
    ref = PairwiseRLS(est.X1, est.X2, alpha=est.alpha_, kernel="rbf").fit(pairs, y)
    np.testing.assert_allclose(est.predict(pairs), ref.predict(pairs), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("cv, n_folds, splitter, col", [
    ("pairs", 5, KFold(5), None), ("drugs", None, LeaveOneGroupOut(), 0),
    ("drugs", 4, GroupKFold(4), 0), ("targets", 3, GroupKFold(3), 1)])
def test_same_choice_as_gridsearchcv(data, cv, n_folds, splitter, col):
    X1, X2, pairs, y = data
    est = PairwiseRLSCV(X1, X2, alphas=ALPHAS, cv=cv, n_folds=n_folds,
                        kernel="rbf").fit(pairs, y)
    gs = GridSearchCV(PairwiseRLS(X1, X2, kernel="rbf"), {"alpha": ALPHAS}, cv=splitter,
                      scoring="neg_mean_squared_error")
    gs.fit(pairs, y, groups=None if col is None else pairs[:, col])
    assert est.alpha_ == gs.best_params_["alpha"]
    np.testing.assert_allclose(est.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], rtol=1e-8)


def test_linear_kernel_and_other_measure(data):
    X1, X2, pairs, y = data
    est = PairwiseRLSCV(X1, X2, alphas=ALPHAS, cv="drugs", n_folds=3,
                        scoring="cindex").fit(pairs, y)
    gs = GridSearchCV(PairwiseRLS(X1, X2), {"alpha": ALPHAS}, cv=GroupKFold(3),
                      scoring=lambda e, X, t: __import__("rlscore").measure.cindex(
                          t, e.predict(X)))
    gs.fit(pairs, y, groups=pairs[:, 0])
    np.testing.assert_allclose(est.cv_results_["mean_test_score"],
                               gs.cv_results_["mean_test_score"], rtol=1e-8)


def test_bad_input(data):
    X1, X2, pairs, y = data
    with pytest.raises(ValueError, match="cv must be"):
        PairwiseRLSCV(X1, X2, cv="new").fit(pairs, y)
    with pytest.raises(ValueError, match="n_folds"):
        PairwiseRLSCV(X1, X2, cv="drugs", n_folds=1).fit(pairs, y)
    with pytest.raises(ValueError, match="complete"):
        PairwiseRLSCV(X1, X2).fit(pairs[:-3], y[:-3])
    with pytest.raises(ValueError, match="n_folds=20"):
        PairwiseRLSCV(X1, X2, cv="targets", n_folds=20).fit(pairs, y)
    with pytest.raises(ValueError, match="two domains"):
        PairwiseRLSCV(X1).fit(pairs, y)
