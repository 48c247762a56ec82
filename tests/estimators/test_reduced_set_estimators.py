"""scikit-learn estimators with n_basis / basis_indices / keep_basis_in_cv."""

import numpy as np
import pytest

from rlscore.estimators import KernelRLS, KernelRLSCV, RankRLS, RankRLSCV, RankSVM
from rlscore.kernel import GaussianKernel


def _data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    return X, X[:, 0] - X[:, 1] ** 2 + 0.1 * rng.normal(size=40)


def sor(X, y, train, basis, lam, test, g):
    k = lambda A, B: GaussianKernel(X=B, gamma=g).getKM(A)  # noqa: E731
    Kr, Krr = k(X[train], X[basis]), k(X[basis], X[basis])
    return k(X[test], X[basis]) @ np.linalg.solve(Kr.T @ Kr + lam * Krr, Kr.T @ y[train])


def test_kernel_rls_cv_removes_basis():
    X, y = _data()
    idx = np.arange(0, 40, 4)
    alphas = [1e-3, 1.0]
    est = KernelRLSCV(alphas=alphas, cv=4, kernel="rbf", gamma=0.5,
                      basis_indices=idx).fit(X, y)
    folds = [np.arange(i * 10, (i + 1) * 10) for i in range(4)]   # KFold(4) unshuffled
    for j, lam in enumerate(alphas):
        mse = np.mean([np.mean((y[f] - sor(X, y, np.setdiff1d(np.arange(40), f),
                                           np.setdiff1d(idx, f), lam, f, 0.5)) ** 2)
                       for f in folds])
        assert -est.cv_results_["mean_test_score"][j] == pytest.approx(mse, rel=1e-8)
    full = KernelRLS(alpha=est.alpha_, kernel="rbf", gamma=0.5, basis_indices=idx).fit(X, y)
    np.testing.assert_allclose(est.predict(X), full.predict(X), atol=1e-10)
    assert full.dual_coef_.shape == (idx.size,)


def test_keep_basis_flag_and_n_basis():
    X, y = _data()
    a = KernelRLSCV(alphas=[1e-3], cv="loo", kernel="rbf", n_basis=8, random_state=0).fit(X, y)
    b = KernelRLSCV(alphas=[1e-3], cv="loo", kernel="rbf", n_basis=8, random_state=0,
                    keep_basis_in_cv=True).fit(X, y)
    assert a.cv_results_["cv_performances"][0] != b.cv_results_["cv_performances"][0]


def test_rank_estimators_with_basis():
    X, y = _data()
    qid = np.repeat(np.arange(8), 5)
    r = RankRLS(alpha=0.1, kernel="rbf", n_basis=10, random_state=0).fit(X, y, qid=qid)
    assert r.predict(X).shape == (40,)
    cv = RankRLSCV(alphas=[0.1, 1.0], cv="lqo", kernel="rbf", n_basis=10,
                   random_state=0).fit(X, y, qid=qid)
    cv2 = RankRLSCV(alphas=[0.1, 1.0], cv=4, kernel="rbf", n_basis=10,
                    random_state=0).fit(X, y, qid=qid)
    # leave-query-out with held-out basis rows removed equals refits without each query
    # (on the remaining basis rows), scored by the per-query c-index
    from rlscore.measure import cindex
    from rlscore.core.nystrom import select_basis
    basis = select_basis(X.shape[0], None, 10, 0)       # the rows n_basis=10 draws
    for i, alpha in enumerate([0.1, 1.0]):
        scores = []
        for q in range(8):
            test = qid == q
            train = np.flatnonzero(~test)
            kept = [int(np.searchsorted(train, b)) for b in basis if not test[b]]
            refit = RankRLS(alpha=alpha, kernel="rbf", basis_indices=kept).fit(
                X[train], y[train], qid=qid[train])
            scores.append(cindex(y[test], refit.predict(X[test])))
        np.testing.assert_allclose(cv.cv_results_["cv_performances"][i], np.mean(scores),
                                   rtol=1e-8)
    assert np.all(np.isfinite(cv2.cv_results_["cv_performances"]))
    s = RankSVM(alpha=0.1, kernel="rbf", basis_indices=[0, 5, 9, 22]).fit(X, y)
    assert s.dual_coef_.shape == (4,)
    with pytest.raises(ValueError, match="every basis vector"):
        RankRLSCV(alphas=[1.0], cv="lqo", kernel="rbf",
                  basis_indices=[0, 1]).fit(X, y, qid=qid)
