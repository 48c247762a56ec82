"""KronSVM (RLScore's Kronecker SVM: squared hinge over the pairwise kernel) against the
brute force it stands for: the explicit pair feature matrix (rows np.kron(X2[c], X1[r]))
or the explicit pairwise kernel matrix, minimized by an independent optimizer; and
RLScore's own test of the learner (primal and dual models agree on the training pairs)."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from rlscore.core.kronecker import exact_line_search
from rlscore.learner import KronSVM
from rlscore.measure import cindex


def pair_data(n1=12, n2=9, d1=6, d2=5, q=60, seed=0):
    rng = np.random.default_rng(seed)
    X1 = rng.normal(size=(n1, d1))
    X2 = rng.normal(size=(n2, d2))
    rows = rng.integers(0, n1, q)
    cols = rng.integers(0, n2, q)
    w = rng.normal(size=d1 * d2)
    Z = np.array([np.kron(X2[c], X1[r]) for r, c in zip(rows, cols)])
    y = np.where(Z @ w + 0.5 * rng.normal(size=q) >= 0, 1.0, -1.0)
    return X1, X2, rows, cols, y, Z


def primal_objective(w, Z, y, lam):
    z = np.maximum(1 - y * (Z @ w), 0)
    return 0.5 * (z @ z + lam * w @ w)


@pytest.mark.parametrize("lam", [1e-3, 0.1, 10.0])
def test_linear_kronsvm_equals_explicit_minimizer(lam, squared_hinge_fit):
    X1, X2, rows, cols, y, Z = pair_data()
    learner = KronSVM(X1=X1, X2=X2, Y=y, label_row_inds=rows, label_col_inds=cols,
                      regparam=lam)
    w_ref = squared_hinge_fit(Z, y, lam)
    assert learner.converged
    grad = -Z.T @ (y * np.maximum(1 - y * (Z @ learner.W), 0)) + lam * learner.W
    assert np.linalg.norm(grad) <= 1e-7 * np.linalg.norm(Z.T @ y)
    np.testing.assert_allclose(learner.W, w_ref, rtol=1e-6, atol=1e-7)
    assert learner.objective == pytest.approx(primal_objective(w_ref, Z, y, lam),
                                              rel=1e-10)
    P = learner.predict(X1, X2, rows, cols)
    np.testing.assert_allclose(P, Z @ w_ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("lam", [1e-2, 1.0])
def test_kernel_kronsvm_equals_linear_and_explicit_kernel(lam, squared_hinge_fit):
    """Kernel mode with linear kernels K = X X^T: the same predictions as the primal
    minimizer, on the training pairs and on pairs of new objects; the dual objective
    with the explicit pairwise kernel matrix equals the primal one."""
    X1, X2, rows, cols, y, Z = pair_data(seed=1)
    K1, K2 = X1 @ X1.T, X2 @ X2.T
    learner = KronSVM(K1=K1, K2=K2, Y=y, label_row_inds=rows, label_col_inds=cols,
                      regparam=lam)
    w_ref = squared_hinge_fit(Z, y, lam)
    Kq = K1[np.ix_(rows, rows)] * K2[np.ix_(cols, cols)]
    np.testing.assert_allclose(Kq @ learner.A, Z @ w_ref, rtol=1e-6, atol=1e-7)
    f = Kq @ learner.A
    z = np.maximum(1 - y * f, 0)
    dual_obj = 0.5 * (z @ z + lam * learner.A @ f)
    assert dual_obj == pytest.approx(primal_objective(w_ref, Z, y, lam), rel=1e-9)
    rng = np.random.default_rng(5)
    T1, T2 = rng.normal(size=(4, X1.shape[1])), rng.normal(size=(3, X2.shape[1]))
    P = learner.predict(T1 @ X1.T, T2 @ X2.T)
    Zt = np.array([np.kron(T2[j], T1[i]) for j in range(3) for i in range(4)])
    np.testing.assert_allclose(P, Zt @ w_ref, rtol=1e-6, atol=1e-7)


def test_kronsvm_gaussian_kernel_optimality():
    """A non-linear kernel: the KKT condition of the dual minimizer, f = Kq a with
    a_k = y_k max(0, 1 - y_k f_k) / lambda, holds to the stopping tolerance."""
    rng = np.random.default_rng(2)
    X1, X2 = rng.normal(size=(10, 3)), rng.normal(size=(8, 2))
    K1 = np.exp(-0.5 * ((X1[:, None] - X1[None]) ** 2).sum(-1))
    K2 = np.exp(-0.5 * ((X2[:, None] - X2[None]) ** 2).sum(-1))
    rows, cols = rng.integers(0, 10, 50), rng.integers(0, 8, 50)
    y = np.where(rng.normal(size=50) > 0, 1.0, -1.0)
    lam = 0.3
    learner = KronSVM(K1=K1, K2=K2, Y=y, label_row_inds=rows, label_col_inds=cols,
                      regparam=lam, tol=1e-10)
    Kq = K1[np.ix_(rows, rows)] * K2[np.ix_(cols, cols)]
    f = Kq @ learner.A
    np.testing.assert_allclose(learner.A, y * np.maximum(1 - y * f, 0) / lam,
                               atol=1e-8)


def test_kronsvm_weighted_sum_of_kernels_equals_one_summed_kernel():
    X1, X2, rows, cols, y, _ = pair_data(seed=3)
    rng = np.random.default_rng(3)
    K1a, K2a = X1 @ X1.T, X2 @ X2.T
    B1, B2 = rng.normal(size=(12, 4)), rng.normal(size=(9, 4))
    K1b, K2b = B1 @ B1.T, B2 @ B2.T
    wts = [0.7, 1.6]
    multi = KronSVM(K1=[K1a, K1b], K2=[K2a, K2b], weights=wts, Y=y,
                    label_row_inds=rows, label_col_inds=cols, regparam=0.5)
    Kq = (wts[0] * K1a[np.ix_(rows, rows)] * K2a[np.ix_(cols, cols)]
          + wts[1] * K1b[np.ix_(rows, rows)] * K2b[np.ix_(cols, cols)])
    # the explicit dual minimizer over f = Kq a, by BFGS on a
    def fun(a):
        f = Kq @ a
        z = np.maximum(1 - y * f, 0)
        return 0.5 * (z @ z + 0.5 * a @ f), Kq @ (-y * z + 0.5 * a)
    ref = minimize(fun, np.zeros(y.size), jac=True, method="BFGS",
                   options={"gtol": 1e-12, "maxiter": 20000}).x
    np.testing.assert_allclose(Kq @ multi.A, Kq @ ref, rtol=1e-6, atol=1e-6)


def test_rlscore_kronsvm_test_primal_and_dual_agree():
    """RLScore's own test_kronsvm (rlscore/test/test_learner/test_kronsvm.py), in
    substance: the same data recipe (X1 20 x 300, X2 10 x 200, a quarter of the
    training grid sampled, labels +-1), maxiter 10, inneriter 50, regparam 0.01,
    primal and dual models, predictions on the training pairs within 0.1 %."""
    rng = np.random.RandomState(100)
    X1, X2 = rng.rand(20, 300), rng.rand(10, 200)
    dfold, tfold = [1, 2, 4, 5], [0, 6, 7]
    Y = np.where(rng.randn(20, 10) >= 0, 1.0, -1.0)
    d_tr = sorted(set(range(20)) - set(dfold))
    t_tr = sorted(set(range(10)) - set(tfold))
    X1_tr, X2_tr = X1[d_tr], X2[t_tr]
    Y_tr = Y[np.ix_(d_tr, t_tr)]
    ssize = int(Y_tr.size * 0.25)
    rows = rng.randint(0, X1_tr.shape[0], ssize)
    cols = rng.randint(0, X2_tr.shape[0], ssize)
    y = Y_tr.ravel()[np.ravel_multi_index([rows, cols], Y_tr.shape)]
    calls = []

    class Callback:
        def callback(self, learner):
            calls.append(learner.iterations)

        def finished(self, learner):
            calls.append("finished")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # maxiter 10 may stop before tol
        primal = KronSVM(X1=X1_tr, X2=X2_tr, Y=y, label_row_inds=rows,
                         label_col_inds=cols, maxiter=10, inneriter=50, regparam=0.01,
                         callback=Callback())
        P_linear = primal.predictor.predict(X1_tr, X2_tr, rows, cols)
        K1, K2 = X1_tr @ X1_tr.T, X2_tr @ X2_tr.T
        dual = KronSVM(K1=K1, K2=K2, Y=y, label_row_inds=rows, label_col_inds=cols,
                       maxiter=10, inneriter=50, regparam=0.01)
        P_dual = dual.predictor.predict(K1, K2, rows, cols)
    assert np.max(1.0 - np.abs(P_linear / P_dual)) < 0.001
    assert calls[-1] == "finished" and calls[:-1] == list(range(1, len(calls)))
    assert primal.resource_pool["X1"] is X1_tr
    # held-out objects: both models rank the new pairs the same way
    K1t, K2t = X1[dfold] @ X1_tr.T, X2[tfold] @ X2_tr.T
    Pt = dual.predict(K1t, K2t)
    np.testing.assert_allclose(primal.predict(X1[dfold], X2[tfold]), Pt, rtol=1e-3,
                               atol=1e-6)
    assert cindex(Y[np.ix_(dfold, tfold)].ravel(order="F"), Pt) >= 0.0


def test_compute_risk_records_a_decreasing_objective():
    X1, X2, rows, cols, y, Z = pair_data(seed=4)
    learner = KronSVM(X1=X1, X2=X2, Y=y, label_row_inds=rows, label_col_inds=cols,
                      regparam=1e-3, compute_risk=True)
    r = np.array(learner.risks)
    assert r.size == learner.iterations >= 1
    assert np.all(np.diff(r) <= 1e-12 * r[0])
    assert r[-1] == pytest.approx(primal_objective(learner.W, Z, y, 1e-3), rel=1e-12)


def test_exact_line_search_minimizes_the_piecewise_quadratic():
    rng = np.random.default_rng(6)
    margin, h = rng.normal(size=40), rng.normal(size=40)
    lam, wd, dd = 0.3, -1.2, 2.5

    def phi(t):
        z = np.maximum(margin - t * h, 0)
        return 0.5 * z @ z + 0.5 * lam * (2 * t * wd + t * t * dd)

    t = exact_line_search(margin, h, lam, wd, dd)
    grid = np.linspace(0, 5, 20001)
    assert phi(t) <= min(phi(s) for s in grid) + 1e-12
    eps = 1e-6
    assert phi(t) <= phi(t + eps) and (t == 0 or phi(t) <= phi(t - eps))


@pytest.mark.parametrize("bad, match", [
    (dict(Y=np.array([0.0, 1.0, -1.0] * 20)), "-1 or \\+1"),
    (dict(regparam=0.0), "regparam > 0"),
    (dict(regparam=-1.0), "regparam"),
    (dict(label_row_inds=np.zeros(5, dtype=int)), "same length"),
    (dict(maxiter=0), "maxiter"),
    (dict(tol=2.0), "tol"),
    (dict(X1=None), "K1 and K2"),
])
def test_bad_input_is_named(bad, match):
    X1, X2, rows, cols, y, _ = pair_data()
    args = dict(X1=X1, X2=X2, Y=y, label_row_inds=rows, label_col_inds=cols)
    args.update(bad)
    args = {k: v for k, v in args.items() if v is not None}
    with pytest.raises((ValueError, TypeError), match=match):
        KronSVM(**args)


def test_unknown_keyword_warns():
    X1, X2, rows, cols, y, _ = pair_data()
    with pytest.warns(UserWarning, match="bogus"):
        KronSVM(X1=X1, X2=X2, Y=y, label_row_inds=rows, label_col_inds=cols,
                bogus=1)


def test_kronsvm_imports_from_rlscore_module_path():
    from rlscore.learner.kron_svm import KronSVM as K
    assert K is KronSVM
