"""One spelling and one default across the faces: kernel="precomputed" in the learners,
the polynomial degree of kernel learning, and the complete-data KronRLS pointing to
CGKronRLS for incomplete data."""

import numpy as np
import pytest


@pytest.fixture
def ranking_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 4))
    y = X @ rng.normal(size=4) + 0.1 * rng.normal(size=24)
    qids = np.repeat(np.arange(4), 6)
    T = rng.normal(size=(5, 4))
    return X @ X.T + 1.0, y, qids, T @ X.T + 1.0


def test_learners_take_precomputed_as_alias(ranking_data):
    from rlscore.learner import RLS, GlobalRankRLS, KernelRankSVM, QueryRankRLS
    K, y, qids, Kt = ranking_data
    rls = RLS(K, y, regparam=0.5, kernel="precomputed")
    # brute force: (K + l I) a = y, predictions Kt a
    a = np.linalg.solve(K + 0.5 * np.eye(K.shape[0]), y)
    np.testing.assert_allclose(rls.predict(Kt), Kt @ a, atol=1e-8)
    for make in (lambda k: GlobalRankRLS(K, y, regparam=0.5, kernel=k),
                 lambda k: QueryRankRLS(K, y, qids, regparam=0.5, kernel=k),
                 lambda k: KernelRankSVM(K, y, regparam=0.5, kernel=k)):
        np.testing.assert_allclose(make("precomputed").predict(Kt),
                                   make("PrecomputedKernel").predict(Kt), atol=1e-10)


def test_polynomial_kernel_learning_has_one_default_degree():
    """KronRLS(gamma="learn") and PairwiseRLS(gamma="learn") on the same data learn
    the same model: both use degree 2 unless told otherwise."""
    from rlscore.estimators import PairwiseRLS
    from rlscore.learner import KronRLS
    rng = np.random.default_rng(1)
    X1, X2 = rng.normal(size=(7, 3)), rng.normal(size=(6, 2))
    Y = np.tanh(X1 @ rng.normal(size=(3, 2))) @ np.tanh(X2.T) + 0.1 * rng.normal(
        size=(7, 6))
    kr = KronRLS(X1=X1, X2=X2, Y=Y, gamma="learn", kernel="PolynomialKernel")
    assert kr.kernel1.degree == 2 and kr.kernel2.degree == 2
    pairs = np.array([(i, j) for j in range(6) for i in range(7)])
    est = PairwiseRLS(X1, X2, kernel="poly", gamma="learn").fit(pairs, Y.ravel(order="F"))
    assert est.degree is None         # None: 2 for kernel learning (3 for a fixed kernel)
    assert est.alpha_ == pytest.approx(kr.regparam, rel=1e-6)
    np.testing.assert_allclose(est.predict(pairs),
                               kr.predict(kr.kernel1.getKM(X1), kr.kernel2.getKM(X2)),
                               atol=1e-8)


def test_kronrls_on_incomplete_data_points_to_cgkronrls():
    from rlscore.learner import CGKronRLS, KronRLS
    rng = np.random.default_rng(2)
    K1, K2 = np.eye(4) + 0.1, np.eye(3) + 0.2
    Y = rng.normal(size=(4, 3))
    Y[1, 2] = Y[3, 0] = np.nan
    with pytest.raises(ValueError, match=r"Y contains NaN.*CGKronRLS"):
        KronRLS(K1=K1, K2=K2, Y=Y, regparam=1.0)
    rows, cols = np.where(~np.isnan(Y))
    with pytest.raises(ValueError, match=r"no label_row_inds / label_col_inds.*CGKronRLS"):
        KronRLS(K1=K1, K2=K2, Y=Y[rows, cols], label_row_inds=rows, label_col_inds=cols,
                regparam=1.0)
    # what the message recommends works, and equals the explicit system on the pairs
    cg = CGKronRLS(K1=K1, K2=K2, Y=Y[rows, cols], label_row_inds=rows,
                   label_col_inds=cols, regparam=1.0, tol=1e-14)
    G = K1[np.ix_(rows, rows)] * K2[np.ix_(cols, cols)]
    np.testing.assert_allclose(cg.A, np.linalg.solve(G + np.eye(rows.size),
                                                     Y[rows, cols]), atol=1e-10)
