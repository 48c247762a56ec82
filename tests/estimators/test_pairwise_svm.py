"""PairwiseSVM, the scikit-learn face of the Kronecker SVM: equal to the learner
KronSVM on the same pairs, to an explicit squared-hinge minimization over the pair
features np.kron(X2[c], X1[r]) for the linear kernel, and usable by GridSearchCV."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold

from rlscore.estimators import PairwiseSVM
from rlscore.learner import KronSVM


def _data(seed=0, n1=10, n2=8, q=50):
    rng = np.random.default_rng(seed)
    X1, X2 = rng.normal(size=(n1, 4)), rng.normal(size=(n2, 3))
    pairs = np.column_stack([rng.integers(0, n1, q), rng.integers(0, n2, q)])
    f = X1[pairs[:, 0], 0] * X2[pairs[:, 1], 1] + 0.3 * rng.normal(size=q)
    y = np.where(f > 0, "bind", "none")
    return X1, X2, pairs, y


def _rbf(A, B, g):
    return np.exp(-g * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_equals_learner_kronsvm(kernel):
    X1, X2, pairs, y = _data()
    est = PairwiseSVM(X1, X2, alpha=0.3, kernel=kernel, gamma=0.5, tol=1e-12,
                      max_iter=500).fit(pairs, y)
    assert est.classes_.tolist() == ["bind", "none"]
    signs = np.where(y == "none", 1.0, -1.0)          # classes_[1] is +1
    test = np.array([(i, j) for i in range(X1.shape[0]) for j in range(X2.shape[0])])
    if kernel == "linear":
        learner = KronSVM(X1=X1, X2=X2, Y=signs, label_row_inds=pairs[:, 0],
                          label_col_inds=pairs[:, 1], regparam=0.3, tol=1e-12,
                          maxiter=500)
        P = learner.predict(X1, X2, test[:, 0], test[:, 1])
    else:
        K1, K2 = _rbf(X1, X1, 0.5), _rbf(X2, X2, 0.5)
        learner = KronSVM(K1=K1, K2=K2, Y=signs, label_row_inds=pairs[:, 0],
                          label_col_inds=pairs[:, 1], regparam=0.3, tol=1e-12,
                          maxiter=500)
        P = learner.predict(K1, K2, test[:, 0], test[:, 1])
    np.testing.assert_allclose(est.decision_function(test), P, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(est.predict(test),
                                  np.where(P > 0, "none", "bind"))
    assert est.score(pairs, y) == np.mean(est.predict(pairs) == y)


def test_linear_equals_explicit_squared_hinge():
    X1, X2, pairs, y = _data(seed=1)
    lam = 0.2
    s = np.where(y == "none", 1.0, -1.0)
    Z = np.array([np.kron(X2[c], X1[r]) for r, c in pairs])

    def fun(w):
        z = np.maximum(1 - s * (Z @ w), 0)
        return 0.5 * (z @ z + lam * w @ w), -Z.T @ (s * z) + lam * w
    w = minimize(fun, np.zeros(Z.shape[1]), jac=True, method="BFGS",
                 options={"gtol": 1e-12, "maxiter": 10000}).x
    for _ in range(20):     # polish on the final margin set (exact normal equations)
        S = s * (Z @ w) < 1
        w = np.linalg.solve(Z[S].T @ Z[S] + lam * np.eye(Z.shape[1]), Z[S].T @ s[S])
    est = PairwiseSVM(X1, X2, alpha=lam, tol=1e-12, max_iter=500).fit(pairs, y)
    np.testing.assert_allclose(est.coef_, w.reshape((4, 3), order="F"), rtol=1e-8,
                               atol=1e-10)
    np.testing.assert_allclose(est.decision_function(pairs), Z @ w, rtol=1e-8,
                               atol=1e-10)


def test_gridsearchcv_over_alpha():
    X1, X2, pairs, y = _data(seed=2, q=60)
    alphas = [0.01, 1.0, 100.0]
    gs = GridSearchCV(PairwiseSVM(X1, X2, kernel="rbf"), {"alpha": alphas},
                      cv=KFold(3)).fit(pairs, y)
    acc = []
    for a in alphas:
        fold = []
        for tr, te in KFold(3).split(pairs):
            m = clone(PairwiseSVM(X1, X2, kernel="rbf", alpha=a)).fit(pairs[tr], y[tr])
            fold.append(np.mean(m.predict(pairs[te]) == y[te]))
        acc.append(np.mean(fold))
    np.testing.assert_allclose(gs.cv_results_["mean_test_score"], acc)
    assert gs.best_params_["alpha"] == alphas[int(np.argmax(acc))]


def test_bad_input():
    X1, X2, pairs, y = _data()
    with pytest.raises(ValueError, match="two classes"):
        PairwiseSVM(X1, X2).fit(pairs, np.arange(len(pairs)) % 3)
    with pytest.raises(ValueError, match="alpha"):
        PairwiseSVM(X1, X2, alpha=0).fit(pairs, y)
    with pytest.raises(ValueError, match="needs the objects"):
        PairwiseSVM().fit(pairs, y)
    with pytest.raises(ValueError, match="learns no kernel"):
        PairwiseSVM(X1, X2, kernel="rbf", gamma="learn").fit(pairs, y)
