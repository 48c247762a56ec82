"""scikit-learn face of RankSVM: estimator checks, qid handling, agreement with the core
solver and with LinearSVC on explicit pair differences."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from rlscore.estimators._ranksvm import RankSVM  # noqa: E402

ESTIMATORS = [RankSVM(), RankSVM(alpha=1e-2, kernel="rbf"), RankSVM(kernel="poly"),
              RankSVM(kernel="precomputed"), RankSVM(loss="squared_hinge")]

# With kernel="precomputed" X is the kernel matrix; these checks feed matrices that are
# not kernel matrices (the empirical kernel map needs a positive semidefinite K).
_NOT_A_KERNEL_MATRIX = {
    "check_positive_only_tag_during_fit":
        "subtracts a constant from a Gram matrix, which makes it indefinite",
    "check_estimators_dtypes":
        "truncates a Gram matrix to integers, which makes it indefinite",
}


def expected_failed_checks(estimator):
    if estimator.kernel == "precomputed":
        return _NOT_A_KERNEL_MATRIX
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _ranking_data(rng, m=120, n=4, nq=None):
    X = rng.standard_normal((m, n))
    y = X @ rng.standard_normal(n) + 0.3 * rng.standard_normal(m)
    q = None if nq is None else rng.integers(0, nq, m)
    return X, y, q


def test_fit_predict_score_with_qid(rng):
    from rlscore.core.ranksvm import RankSVMOptions, fit_linear_ranksvm
    X, y, q = _ranking_data(rng, nq=8)
    est = RankSVM(alpha=1e-2, tol=1e-6).fit(X, y, qid=q)
    sol, _ = fit_linear_ranksvm(X, y, q, 1e-2, options=RankSVMOptions(rtol=1e-6))
    np.testing.assert_allclose(est.coef_, sol.w)
    np.testing.assert_allclose(est.predict(X), X @ sol.w)
    assert 0.5 < est.score(X, y, qid=q) <= 1.0
    assert est.converged_ and est.duality_gap_ <= 1e-6 and est.n_iter_ >= 1
    with pytest.raises(ValueError, match="qid has length 119"):
        est.fit(X, y, qid=q[:-1])
    with pytest.raises(ValueError, match="no pairs"):
        RankSVM().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="alpha"):
        RankSVM(alpha=0.0).fit(X, y)
    with pytest.raises(ValueError, match="normalize"):
        RankSVM(normalize="x").fit(X, y)
    with pytest.raises(TypeError):
        RankSVM(max_iter=1.5).fit(X, y)


def test_matches_linearsvc_on_pair_differences(rng):
    """Same objective as LinearSVC(loss='hinge', C = 1 / (alpha N)) on the pairs."""
    from sklearn.svm import LinearSVC
    X, y, _ = _ranking_data(rng, m=60, n=3)
    u, l = np.nonzero(y[:, None] > y[None, :])
    Z = X[u] - X[l]
    N = len(u)
    alpha = 1e-2
    Zs = np.vstack([Z, -Z])
    t = np.r_[np.ones(N), -np.ones(N)]
    # both signs: the loss doubles, so C is halved
    svc = LinearSVC(loss="hinge", C=1 / (2 * alpha * N), fit_intercept=False, tol=1e-10,
                    max_iter=100000, dual=True).fit(Zs, t)
    est = RankSVM(alpha=alpha, tol=1e-8, max_iter=5000).fit(X, y)

    def J(w):
        return 0.5 * alpha * w @ w + np.mean(np.maximum(0, 1 - Z @ w))
    assert J(est.coef_) <= J(svc.coef_.ravel()) + 1e-8
    assert J(est.coef_) == pytest.approx(J(svc.coef_.ravel()), rel=1e-4)


def test_kernel_models(rng):
    X, y, q = _ranking_data(rng, m=80, nq=4)
    rbf = RankSVM(alpha=1e-2, kernel="rbf", gamma=0.5).fit(X, y, qid=q)
    assert rbf.dual_coef_.shape == (80,) and rbf.X_fit_.shape == (80, 4)
    from rlscore.kernel import GaussianKernel
    K = GaussianKernel(X, gamma=0.5).getKM(X)
    np.testing.assert_allclose(rbf.predict(X), K @ rbf.dual_coef_, atol=1e-9)
    pre = RankSVM(alpha=1e-2, kernel="precomputed").fit(K, y, qid=q)
    np.testing.assert_allclose(pre.predict(K), rbf.predict(X), atol=1e-6)
    red = RankSVM(alpha=1e-2, kernel="rbf", gamma=0.5, basis_vectors=X[:20]).fit(X, y)
    assert red.dual_coef_.shape == (20,)


def test_squared_hinge_estimator(rng):
    """loss="squared_hinge" trains the Newton method of the core on the same objective;
    the bundle method agrees; bad loss / solver values raise on fit."""
    from rlscore.core.ranksvm import RankSVMOptions, fit_linear_ranksvm
    X, y, q = _ranking_data(rng, nq=8)
    est = RankSVM(alpha=1e-2, tol=1e-10, loss="squared_hinge").fit(X, y, qid=q)
    sol, _ = fit_linear_ranksvm(X, y, q, 1e-2,
                                options=RankSVMOptions(rtol=1e-10, loss="squared_hinge"))
    assert sol.solver == "newton"
    np.testing.assert_allclose(est.coef_, sol.w, rtol=1e-12, atol=1e-14)
    assert est.converged_ and np.isnan(est.duality_gap_)
    assert est.objective_ == pytest.approx(sol.objective, rel=1e-12)
    bun = RankSVM(alpha=1e-2, tol=1e-9, max_iter=5000, loss="squared_hinge",
                  solver="bundle").fit(X, y, qid=q)
    np.testing.assert_allclose(bun.coef_, est.coef_, rtol=1e-3, atol=1e-4)
    rbf = RankSVM(alpha=1e-2, kernel="rbf", loss="squared_hinge").fit(X, y)
    assert rbf.score(X, y) > 0.8
    with pytest.raises(ValueError, match="no Hessian"):
        RankSVM(solver="newton").fit(X, y)
    with pytest.raises(ValueError, match="loss must be"):
        RankSVM(loss="l2").fit(X, y)
    with pytest.raises(ValueError, match="solver must be"):
        RankSVM(loss="squared_hinge", solver=1).fit(X, y)
