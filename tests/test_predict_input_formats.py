"""Every predict path takes every scipy sparse format (the matrix and the sparse-array
classes) and np.matrix, and predicts exactly what it predicts for the dense array
(RLScore's own model test feeds COO)."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.kernel import GaussianKernel, LinearKernel, PolynomialKernel
from rlscore.predictor import (KernelPairwisePredictor, KernelPredictor,
                               LinearPairwisePredictor, LinearPredictor)

_FORMATS = ["coo", "csc", "csr", "lil", "dok", "dia", "bsr"]


def _converters():
    out = [pytest.param(lambda X, f=f: sp.coo_matrix(X).asformat(f), id=f"{f}_matrix")
           for f in _FORMATS]
    out += [pytest.param(lambda X, f=f: sp.coo_array(X).asformat(f), id=f"{f}_array")
            for f in _FORMATS]
    out.append(pytest.param(np.matrix, id="np.matrix"))
    return out


CONVERT = _converters()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6))
    X[rng.random(X.shape) < 0.5] = 0.0
    T = rng.normal(size=(9, 6))
    T[rng.random(T.shape) < 0.5] = 0.0
    y = rng.normal(size=30)
    return X, T, y


@pytest.mark.parametrize("convert", CONVERT)
def test_single_task_predictors(data, convert):
    X, T, y = data
    rng = np.random.default_rng(1)
    A = rng.normal(size=(X.shape[0], 2))
    for kern in (GaussianKernel(X, gamma=0.3), PolynomialKernel(X, degree=2, coef0=1.0),
                 LinearKernel(X, bias=1.0)):
        pred = KernelPredictor(A, kern)
        np.testing.assert_allclose(pred.predict(convert(T)), pred.predict(T), atol=1e-12)
    lin = LinearPredictor(rng.normal(size=(6, 2)), np.array([0.5, -1.0]))
    np.testing.assert_allclose(lin.predict(convert(T)), lin.predict(T), atol=1e-12)


@pytest.mark.parametrize("convert", CONVERT)
def test_learner_and_estimator_predict(data, convert):
    from rlscore.estimators import CGRLSRegressor, KernelRLS, RankSVM
    from rlscore.learner import RLS, CGRLS, GlobalRankRLS, QueryRankRLS
    X, T, y = data
    qids = np.repeat(np.arange(6), 5)
    models = [RLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.2),
              RLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.2,
                  basis_vectors=X[:8]),
              RLS(X, y, regparam=0.5),
              CGRLS(X, y, regparam=0.5),
              GlobalRankRLS(X, y, regparam=0.5, kernel="PolynomialKernel"),
              QueryRankRLS(X, y, qids, regparam=0.5, kernel="GaussianKernel"),
              KernelRLS(alpha=0.5, kernel="rbf").fit(X, y),
              CGRLSRegressor(alpha=0.5).fit(X, y),
              RankSVM(kernel="rbf").fit(X, y)]
    for m in models:
        np.testing.assert_allclose(m.predict(convert(T)), m.predict(T), atol=1e-10,
                                   err_msg=type(m).__name__)


@pytest.mark.parametrize("convert", CONVERT)
def test_pairwise_predictors(data, convert):
    from rlscore.learner import CGKronRLS, KronRLS
    rng = np.random.default_rng(2)
    X1, X2 = rng.normal(size=(5, 3)), rng.normal(size=(4, 2))
    K1, K2 = X1 @ X1.T + np.eye(5), X2 @ X2.T + np.eye(4)
    Y = rng.normal(size=(5, 4))
    T1, T2 = rng.normal(size=(3, 5)), rng.normal(size=(2, 4))
    T1[0, :2] = 0.0
    kr = KronRLS(K1=K1, K2=K2, Y=Y, regparam=1.0)
    lin = KronRLS(X1=X1, X2=X2, Y=Y, regparam=1.0)
    r, c = np.array([0, 1, 2, 4, 3]), np.array([0, 1, 3, 2, 0])
    cg = CGKronRLS(K1=K1, K2=K2, Y=Y[r, c], label_row_inds=r, label_col_inds=c,
                   regparam=1.0)
    S1, S2 = T1[:, :3], T2[:, :2]
    for m, (A, B) in ((kr, (T1, T2)), (cg, (T1, T2)), (lin, (S1, S2))):
        np.testing.assert_allclose(m.predict(convert(A), convert(B)), m.predict(A, B),
                                   atol=1e-12)
        np.testing.assert_allclose(m.predict(convert(A), convert(B), [0, 2], [1, 0]),
                                   m.predict(A, B, [0, 2], [1, 0]), atol=1e-12)
    for p, (A, B) in ((KernelPairwisePredictor(kr.A.ravel(order="F")), (T1, T2)),
                      (LinearPairwisePredictor(lin.W), (S1, S2))):
        np.testing.assert_allclose(p.predict(convert(A), convert(B)), p.predict(A, B),
                                   atol=1e-12)
