"""RLScore's public RLS contract (RLSCORE_COMPAT.md sections 0, 4, 5): names, argument
conventions, predictor attributes, output shapes, index errors."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.kernel import GaussianKernel, PolynomialKernel, RsetKernel
from rlscore.learner import RLS, KfoldRLS, LeaveOneOutRLS, LeavePairOutRLS
from rlscore.predictor import KernelPredictor, LinearPredictor


@pytest.fixture
def data(rng):
    X = rng.random((60, 8))
    Y = rng.random((60, 2))
    return X, Y


def test_linear_weights_and_bias_formula(data):
    X, Y = data
    y = Y[:, 0]
    for bias in [0.0, 2.0]:
        for regparam in [0.01, 1.0, 100.0]:
            learner = RLS(X, y, regparam, bias=bias)
            Xa = np.hstack([X, np.full((60, 1), np.sqrt(bias))]) if bias else X
            W = np.linalg.solve(Xa.T @ Xa + regparam * np.eye(Xa.shape[1]), Xa.T @ y)
            assert isinstance(learner.predictor, LinearPredictor)
            if bias:
                np.testing.assert_allclose(learner.predictor.W, W[:-1], rtol=1e-10)
                np.testing.assert_allclose(learner.predictor.b, np.sqrt(bias) * W[-1], rtol=1e-10)
            else:
                np.testing.assert_allclose(learner.predictor.W, W, rtol=1e-10)
                assert learner.predictor.b == 0.0
            assert learner.predictor.W.shape == (8,)


def test_keyword_and_dict_construction_and_solve(data):
    X, Y = data
    a = RLS(X, Y, 2.0, "GaussianKernel", gamma=0.5)
    b = RLS(**{"X": X, "Y": Y, "regparam": 2.0, "kernel": "GaussianKernel", "gamma": 0.5})
    np.testing.assert_array_equal(a.predictor.A, b.predictor.A)
    K = GaussianKernel(X, gamma=0.5).getKM(X)
    for regparam in [2.0, 0.1, 30.0]:
        a.solve(regparam)
        assert a.regparam == regparam
        np.testing.assert_allclose(a.predictor.A, np.linalg.solve(K + regparam * np.eye(60), Y),
                                   rtol=1e-8)


def test_polynomial_reduced_set_dual_coefficients(data):
    X, Y = data
    basis = X[[0, 5, 9, 20, 33]]
    learner = RLS(X, Y, 0.5, "PolynomialKernel", basis_vectors=basis, gamma=1.0, coef0=1.0,
                  degree=2)
    k = PolynomialKernel(basis, gamma=1.0, coef0=1.0, degree=2)
    K_r, K_rr = k.getKM(X), k.getKM(basis)
    A = np.linalg.solve(K_r.T @ K_r + 0.5 * K_rr, K_r.T @ Y)
    assert isinstance(learner.predictor, KernelPredictor)
    np.testing.assert_allclose(learner.predictor.A, A, rtol=1e-6)
    assert learner.predictor.A.shape == (5, 2)


def test_precomputed_kernel_with_and_without_basis(data):
    X, Y = data
    y = Y[:, 0]
    K = GaussianKernel(X, gamma=0.3).getKM(X)
    full = RLS(K, y, 1.0, "PrecomputedKernel")
    np.testing.assert_allclose(full.predictor.W, np.linalg.solve(K + np.eye(60), y), rtol=1e-9)
    np.testing.assert_allclose(full.predict(K[:3]),
                               RLS(X, y, 1.0, "GaussianKernel", gamma=0.3).predict(X[:3]),
                               rtol=1e-9)
    basis = [1, 4, 7, 10]
    red = RLS(K[:, basis], y, 1.0, "PrecomputedKernel", basis_vectors=K[np.ix_(basis, basis)])
    K_r, K_rr = K[:, basis], K[np.ix_(basis, basis)]
    A = np.linalg.solve(K_r.T @ K_r + K_rr, K_r.T @ y)
    np.testing.assert_allclose(red.predictor.W, A, rtol=1e-7)
    assert red.predictor.b == 0.0


def test_sparse_and_dense_inputs_agree(data):
    X, Y = data
    dense = RLS(X, Y, 1.0)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, np.asmatrix):
        other = RLS(fmt(X), np.asmatrix(Y) if fmt is np.asmatrix else Y, 1.0)
        np.testing.assert_allclose(other.predictor.W, dense.predictor.W, rtol=1e-10)
    gd = RLS(X, Y, 1.0, "GaussianKernel", basis_vectors=X[:10])
    gs = RLS(sp.csc_matrix(X), Y, 1.0, "GaussianKernel", basis_vectors=sp.csr_matrix(X[:10]))
    np.testing.assert_allclose(gs.predict(X), gd.predict(X), rtol=1e-9)


def test_holdout_index_errors(data, check_holdout_index_errors):
    X, Y = data
    learner = RLS(X, Y[:, 0], 1.0)
    check_holdout_index_errors(learner.holdout)
    with pytest.raises(ValueError):
        learner.holdout([[0, 1]])
    with pytest.raises(ValueError, match="every example"):
        learner.holdout(np.arange(60))


def test_leave_pair_out_equals_holdout_of_the_pair(data):
    X, Y = data
    for kernel in ["LinearKernel", "GaussianKernel"]:
        learner = RLS(X, Y, 0.7, kernel)
        s, e = [0, 4, 8, 59], [1, 3, 40, 0]
        ps, pe = learner.leave_pair_out(s, e)
        assert ps.shape == (4, 2)
        for k in range(4):
            np.testing.assert_allclose([ps[k], pe[k]], learner.holdout([s[k], e[k]]), rtol=1e-9)
        with pytest.raises(ValueError, match="same example"):
            learner.leave_pair_out([0, 2], [1, 2])
        with pytest.raises(ValueError, match="length"):
            learner.leave_pair_out([0, 2], [1])


def test_output_squeezing_rules(data):
    X, Y = data
    one = RLS(X, Y[:, :1], 1.0, "GaussianKernel")
    assert one.leave_one_out().shape == (60,)
    assert one.holdout([3]).shape == ()
    assert one.predict(X[0]).shape == ()
    two = RLS(X, Y, 1.0, "GaussianKernel")
    assert two.holdout([45]).shape == (2,)
    assert two.predict(X[:1]).shape == (2,)
    assert two.predict(X[:5]).shape == (5, 2)
    K = GaussianKernel(X).getKM(X)
    pre = RLS(K, Y, 1.0, "PrecomputedKernel")
    assert pre.predict(K[:1]).shape == (2,)
    ps, pe = one.leave_pair_out([0], [1])
    assert ps.shape == () and pe.shape == ()


def test_unknown_keywords_warn_but_train(data):
    X, Y = data
    with pytest.warns(UserWarning, match="kenerl"):
        learner = RLS(X, Y, 1.0, kenerl="PolynomialKernel")
    assert isinstance(learner.predictor, LinearPredictor)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RLS(X, Y, 1.0, "GaussianKernel", gamma=0.2)     # used keywords: no warning


def test_reduced_set_kernel(data):
    X, Y = data
    B = X[:12]
    learner = RLS(X, Y, 0.3, kernel="RsetKernel",
                  base_kernel=GaussianKernel(X=B, gamma=0.4), basis_features=B)
    k = GaussianKernel(B, gamma=0.4)
    K_xb, K_bb = k.getKM(X), k.getKM(B)
    K = K_xb @ np.linalg.solve(K_bb, K_xb.T)
    A = np.linalg.solve(K + 0.3 * np.eye(60), Y)
    np.testing.assert_allclose(learner.predict(X[:7]),
                               (K_xb[:7] @ np.linalg.solve(K_bb, K_xb.T)) @ A, rtol=1e-6)
    assert isinstance(RsetKernel(k, X, B).getKM(X[:3]), np.ndarray)


def test_selection_wrappers(data):
    X, Y = data
    y = Y[:, 0]
    loo = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma=0.5)
    assert loo.cv_performances.shape == (31,)
    assert loo.cv_predictions.shape == (31, 60)
    grid = [2 ** x for x in range(-15, 16)]
    best = int(np.argmin(loo.cv_performances))
    assert loo.regparam == grid[best] and type(loo.regparam) is type(grid[best])
    ref = RLS(X, y, grid[best], "GaussianKernel", gamma=0.5)
    np.testing.assert_allclose(loo.predict(X), ref.predict(X), rtol=1e-8)
    # the selected predictions are the leave-one-out predictions at that regparam
    np.testing.assert_allclose(loo.cv_predictions[best], ref.leave_one_out(), rtol=1e-8)

    folds = [list(range(0, 20)), list(range(20, 40)), list(range(40, 60))]
    kf = KfoldRLS(X, y, folds, regparams=[0.1, 1.0, 10.0])
    assert len(kf.cv_predictions) == 3 and len(kf.cv_predictions[0]) == 3
    for i, regparam in enumerate([0.1, 1.0, 10.0]):
        ref = RLS(X, y, regparam)
        perf = np.mean([np.mean((ref.holdout(f) - y[f]) ** 2) for f in folds])
        assert kf.cv_performances[i] == pytest.approx(perf, rel=1e-10)
    assert kf.measure.iserror

    labels = np.where(y > np.median(y), 1.0, -1.0)
    with pytest.warns(UserWarning, match="measure"):
        lpo = LeavePairOutRLS(X, labels, regparams=[0.5, 5.0], measure=None)
    assert lpo.cv_predictions == [None, None]
    assert lpo.regparam in (0.5, 5.0)
