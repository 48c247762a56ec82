"""CGRLSRegressor and CGRankRLSRanker: scikit-learn's estimator checks, agreement with
the closed-form estimators / learners, query ids, early stopping."""

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from rlscore.estimators import KernelRLS  # noqa: E402
from rlscore.estimators._cg import CGRankRLSRanker, CGRLSRegressor  # noqa: E402
from rlscore.measure import cindex, query_cindex  # noqa: E402


@parametrize_with_checks([
    CGRLSRegressor(), CGRLSRegressor(solver="dual", bias=0.0, precondition="jacobi"),
    CGRLSRegressor(early_stopping=True, random_state=0), CGRankRLSRanker(),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("solver", ["auto", "primal", "dual"])
@pytest.mark.parametrize("sparse", [False, True])
def test_regressor_equals_kernel_rls(rng, solver, sparse):
    X = rng.normal(size=(60, 25))
    if sparse:
        X[rng.random(X.shape) < 0.6] = 0
        X = sp.csr_matrix(X)
    Y = rng.normal(size=(60, 2))
    a = CGRLSRegressor(alpha=0.3, bias=2.0, solver=solver, tol=1e-12).fit(X, Y)
    b = KernelRLS(alpha=0.3, bias=2.0).fit(X, Y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-8, atol=1e-12)
    assert a.converged_ and a.n_iter_ > 0


def test_regressor_early_stopping(rng):
    w = np.zeros(300)
    w[:5] = 1.0
    X = rng.normal(size=(150, 300))
    y = X @ w + 2 * rng.normal(size=150)
    es = CGRLSRegressor(alpha=1e-6, bias=0.0, early_stopping=True, n_iter_no_change=3,
                        random_state=0).fit(X, y)
    full = CGRLSRegressor(alpha=1e-6, bias=0.0).fit(X, y)
    assert es.n_iter_ < full.n_iter_ and not es.converged_
    Xt = rng.normal(size=(500, 300))
    yt = Xt @ w
    assert np.mean((es.predict(Xt) - yt) ** 2) < np.mean((full.predict(Xt) - yt) ** 2)
    for bad in (dict(validation_fraction=1.0), dict(n_iter_no_change=0)):
        with pytest.raises(ValueError):
            CGRLSRegressor(early_stopping=True, **bad).fit(X, y)


def test_ranker_queries_and_score(rng):
    X = rng.normal(size=(90, 12))
    y = X[:, 0] + 0.3 * rng.normal(size=90)
    q = np.repeat(np.arange(9), 10)
    r = CGRankRLSRanker(alpha=0.5, tol=1e-12).fit(X, y, qid=q)
    L = np.eye(90)
    for g in range(9):
        idx = np.flatnonzero(q == g)
        L[np.ix_(idx, idx)] -= 0.1
    W = np.linalg.solve(X.T @ L @ X + 0.5 * np.eye(12), X.T @ L @ y)
    np.testing.assert_allclose(r.coef_, W, rtol=1e-8, atol=1e-12)
    assert r.intercept_ == 0.0
    assert r.score(X, y, qid=q) == pytest.approx(query_cindex(y, r.predict(X), q))
    assert r.score(X, y) == pytest.approx(cindex(y, r.predict(X)))
    g = CGRankRLSRanker(alpha=0.5, tol=1e-12).fit(X, y, groups=q)
    np.testing.assert_allclose(g.coef_, r.coef_)
    es = CGRankRLSRanker(alpha=1e-6, early_stopping=True, validation_fraction=0.3,
                         n_iter_no_change=2, random_state=0).fit(X, y, qid=q)
    assert es.coef_.shape == (12,)
    with pytest.raises(ValueError, match="not both"):
        CGRankRLSRanker().fit(X, y, qid=q, groups=q)
