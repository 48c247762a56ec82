"""KernelRLS: equality with scikit-learn's KernelRidge/Ridge and with the core model,
fitted attributes, parameter validation, pipelines, pickling, optional scikit-learn."""

import pickle
import subprocess
import tempfile
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("sklearn")

from numpy.testing import assert_allclose  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel  # noqa: E402
from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from rlscore.core.nystrom import RLSModel
from rlscore.estimators import KernelRLS, KernelRLSCV  # noqa: E402

RTOL = 1e-7


def _data(m=40, d=5, p=3, n_test=15, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    Y = X @ rng.normal(size=(d, p)) + 0.3 * rng.normal(size=(m, p))
    Xt = rng.normal(size=(n_test, d))
    return X, Y, Xt


def _targets(Y):
    """1-D, one column, several columns."""
    return [Y[:, 0], Y[:, :1], Y]


# --------------------------------------------------------------------------------------
# equality with scikit-learn


@pytest.mark.parametrize("alpha", [1e-3, 1.0, 1e3, 1e6])
def test_linear_no_bias_equals_kernel_ridge(alpha):
    X, Y, Xt = _data()
    for y in _targets(Y):
        ours = KernelRLS(alpha=alpha, bias=0).fit(X, y)
        ref = KernelRidge(alpha=alpha, kernel="linear").fit(X, y)
        assert ours.predict(Xt).shape == ref.predict(Xt).shape == (Xt.shape[0],) + y.shape[1:]
        assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=RTOL)
        # the primal weights are the dual's X^T a
        assert_allclose(ours.coef_, (X.T @ ref.dual_coef_).T, rtol=RTOL)


@pytest.mark.parametrize("alpha", [1e-6, 1e-3, 1.0, 1e3, 1e6])
def test_linear_no_bias_equals_ridge(alpha):
    # Ridge (primal) is well conditioned at small alpha, where the dual KernelRidge
    # loses digits
    X, Y, Xt = _data()
    for y in _targets(Y):
        ours = KernelRLS(alpha=alpha, bias=0).fit(X, y)
        ref = Ridge(alpha=alpha, fit_intercept=False, solver="cholesky").fit(X, y)
        P = ours.predict(Xt)
        assert_allclose(P, np.reshape(ref.predict(Xt), P.shape), rtol=RTOL)
        assert_allclose(ours.coef_, np.reshape(ref.coef_, ours.coef_.shape), rtol=RTOL)
        assert np.all(ours.intercept_ == 0)


def test_linear_bias_is_a_regularized_constant_feature():
    X, Y, Xt = _data()
    bias = 2.5
    aug = lambda Z: np.hstack([Z, np.full((Z.shape[0], 1), np.sqrt(bias))])  # noqa: E731
    for y in _targets(Y):
        ours = KernelRLS(alpha=0.7, bias=bias).fit(X, y)
        ref = KernelRidge(alpha=0.7, kernel="linear").fit(aug(X), y)
        assert_allclose(ours.predict(Xt), ref.predict(aug(Xt)), rtol=RTOL)
        assert_allclose(ours.predict(Xt), Xt @ ours.coef_.T + ours.intercept_, rtol=RTOL)


@pytest.mark.parametrize("alpha", [1e-6, 1e-3, 1.0, 1e3, 1e6])
@pytest.mark.parametrize("gamma", [None, 0.5])
def test_rbf_equals_kernel_ridge(alpha, gamma):
    X, Y, Xt = _data()
    for y in _targets(Y):
        ours = KernelRLS(alpha=alpha, kernel="rbf", gamma=gamma).fit(X, y)
        ref = KernelRidge(alpha=alpha, kernel="rbf", gamma=gamma).fit(X, y)
        assert ours.predict(Xt).shape == ref.predict(Xt).shape
        assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=RTOL)
        assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=RTOL)


@pytest.mark.parametrize("params", [{}, {"degree": 2, "gamma": 0.3, "coef0": 0.5}])
@pytest.mark.parametrize("alpha", [1e-3, 1.0, 1e3])
def test_poly_equals_kernel_ridge(alpha, params):
    X, Y, Xt = _data()
    for y in _targets(Y):
        ours = KernelRLS(alpha=alpha, kernel="poly", **params).fit(X, y)
        ref = KernelRidge(alpha=alpha, kernel="poly", **params).fit(X, y)
        assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=RTOL)


def test_sparse_input_equals_dense():
    X, Y, Xt = _data()
    X[np.abs(X) < 0.7] = 0
    Xt[np.abs(Xt) < 0.7] = 0
    for kernel in ["linear", "rbf", "poly"]:
        for fmt in [sp.csr_matrix, sp.csc_array, sp.coo_matrix]:
            dense = KernelRLS(kernel=kernel).fit(X, Y)
            sparse = KernelRLS(kernel=kernel).fit(fmt(X), Y)
            assert_allclose(sparse.predict(fmt(Xt)), dense.predict(Xt), rtol=RTOL)


def test_float32_input():
    X, Y, Xt = _data()
    ours = KernelRLS(kernel="rbf").fit(X.astype(np.float32), Y[:, 0])
    ref = KernelRLS(kernel="rbf").fit(X.astype(np.float32).astype(np.float64), Y[:, 0])
    assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=RTOL)


# --------------------------------------------------------------------------------------
# equality with the core model; reduced-set and precomputed kernels


@pytest.mark.parametrize("kernel, rlscore_name, params", [
    ("linear", "LinearKernel", {"bias": 1.0}),
    ("linear", "LinearKernel", {"bias": 0.0}),
    ("rbf", "GaussianKernel", {"gamma": 0.3}),
    ("poly", "PolynomialKernel", {"gamma": 0.2, "degree": 3, "coef0": 1.0}),
])
def test_equals_core_model(kernel, rlscore_name, params):
    X, Y, Xt = _data()
    for y in _targets(Y):
        ours = KernelRLS(alpha=0.3, kernel=kernel, **params).fit(X, y)
        core = RLSModel(X, y, regparam=0.3, kernel=rlscore_name, **params)
        P = np.asarray(core.predictor.predict(Xt)).reshape(Xt.shape[0], -1)
        assert_allclose(ours.predict(Xt).reshape(Xt.shape[0], -1), P, rtol=1e-12)
        # RLScore kernel names are accepted too
        same = KernelRLS(alpha=0.3, kernel=rlscore_name, **params).fit(X, y)
        assert_allclose(same.predict(Xt), ours.predict(Xt), rtol=1e-12)
        assert isinstance(ours.model_, RLSModel)
        assert_allclose(ours.model_.leave_one_out(), core.leave_one_out(), rtol=1e-10)


def test_gamma_default_is_one_over_n_features():
    X, Y, Xt = _data(d=4)
    a = KernelRLS(kernel="rbf").fit(X, Y)
    b = KernelRLS(kernel="rbf", gamma=0.25).fit(X, Y)
    assert_allclose(a.predict(Xt), b.predict(Xt), rtol=1e-14)
    a = KernelRLS(kernel="poly").fit(X, Y)
    b = KernelRLS(kernel="poly", gamma=0.25).fit(X, Y)
    assert_allclose(a.predict(Xt), b.predict(Xt), rtol=1e-14)


def test_dual_attributes_reproduce_predictions():
    X, Y, Xt = _data()
    for y in _targets(Y):
        est = KernelRLS(kernel="rbf", gamma=0.2).fit(X, y)
        assert est.dual_coef_.shape == (X.shape[0],) + y.shape[1:]
        assert_allclose(rbf_kernel(Xt, est.X_fit_, gamma=0.2) @ est.dual_coef_,
                        est.predict(Xt), rtol=RTOL)
        assert not hasattr(est, "coef_")
        lin = KernelRLS().fit(X, y)
        assert lin.coef_.shape == ((X.shape[1],) if y.ndim == 1 else (y.shape[1], X.shape[1]))
        assert np.shape(lin.intercept_) == (() if y.ndim == 1 else (y.shape[1],))
        assert not hasattr(lin, "dual_coef_")


def test_precomputed_kernel_equals_rbf():
    X, Y, Xt = _data()
    est = KernelRLS(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, Y)
    pre = KernelRLS(alpha=0.5, kernel="precomputed").fit(rbf_kernel(X, gamma=0.3), Y)
    assert pre.n_features_in_ == X.shape[0]
    assert_allclose(pre.predict(rbf_kernel(Xt, X, gamma=0.3)), est.predict(Xt), rtol=RTOL)
    assert_allclose(pre.dual_coef_, est.dual_coef_, rtol=RTOL)
    with pytest.raises(ValueError):
        pre.predict(rbf_kernel(Xt, Xt, gamma=0.3))   # wrong width


def test_precomputed_indefinite_matrix_is_refused():
    K = np.array([[1.0, 2.0], [2.0, 1.0]])           # eigenvalues 3, -1
    with pytest.raises(ValueError, match="positive definite"):
        KernelRLS(alpha=0.5, kernel="precomputed").fit(K, [1.0, 2.0])


def test_basis_vectors():
    X, Y, Xt = _data()
    # all training rows as basis: the full model
    full = KernelRLS(kernel="rbf", gamma=0.2).fit(X, Y)
    red = KernelRLS(kernel="rbf", gamma=0.2, basis_vectors=X).fit(X, Y)
    assert_allclose(red.predict(Xt), full.predict(Xt), rtol=1e-6)
    # a proper subset: the core's reduced-set model, and the Nystrom normal equations
    B = X[:10]
    for kernel, name, Kf, params in [
            ("rbf", "GaussianKernel", lambda A, C: rbf_kernel(A, C, gamma=0.2),
             {"gamma": 0.2}),
            ("poly", "PolynomialKernel",
             lambda A, C: polynomial_kernel(A, C, degree=2, gamma=0.3, coef0=1),
             {"degree": 2, "gamma": 0.3, "coef0": 1})]:
        est = KernelRLS(alpha=0.1, kernel=kernel, basis_vectors=B, **params).fit(X, Y)
        core = RLSModel(X, Y, regparam=0.1, kernel=name, basis_vectors=B, **params)
        assert_allclose(est.predict(Xt), core.predictor.predict(Xt), rtol=1e-12)
        Kr, Kbb = Kf(X, B), Kf(B, B)
        A = np.linalg.solve(Kr.T @ Kr + 0.1 * Kbb, Kr.T @ Y)
        assert_allclose(est.dual_coef_, A, rtol=1e-6)
        assert_allclose(est.predict(Xt), Kf(Xt, B) @ A, rtol=1e-6)
        # precomputed reduced set: X is the samples-vs-basis kernel
        pre = KernelRLS(alpha=0.1, kernel="precomputed", basis_vectors=Kbb).fit(Kr, Y)
        assert_allclose(pre.predict(Kf(Xt, B)), est.predict(Xt), rtol=1e-7)
    # linear reduced set
    with pytest.warns(UserWarning, match="effective rank 5 of 10"):
        lin = KernelRLS(alpha=0.1, basis_vectors=B, bias=0).fit(X, Y)
    Kr, Kbb = X @ B.T, B @ B.T
    A = np.linalg.lstsq(Kr.T @ Kr + 0.1 * Kbb, Kr.T @ Y, rcond=None)[0]
    assert_allclose(lin.predict(Xt), Xt @ B.T @ A, rtol=1e-6)
    with pytest.raises(ValueError, match="features"):
        KernelRLS(kernel="rbf", basis_vectors=B[:, :2]).fit(X, Y)


# --------------------------------------------------------------------------------------
# output layout


def test_prediction_layout_follows_y():
    X, Y, Xt = _data()
    for kernel in ["linear", "rbf"]:
        assert KernelRLS(kernel=kernel).fit(X, Y[:, 0]).predict(Xt).shape == (15,)
        assert KernelRLS(kernel=kernel).fit(X, Y[:, :1]).predict(Xt).shape == (15, 1)
        assert KernelRLS(kernel=kernel).fit(X, Y).predict(Xt).shape == (15, 3)
        # one test sample, one training sample, one feature
        assert KernelRLS(kernel=kernel).fit(X, Y).predict(Xt[:1]).shape == (1, 3)
        assert KernelRLS(kernel=kernel).fit(X, Y[:, 0]).predict(Xt[:1]).shape == (1,)
        one = KernelRLS(kernel=kernel).fit(X[:1], Y[:1, 0])
        assert one.predict(Xt).shape == (15,)
        col = KernelRLS(kernel=kernel).fit(X[:, :1], Y[:, :2])
        assert col.predict(Xt[:, :1]).shape == (15, 2)


def test_score_is_r2():
    from sklearn.metrics import r2_score
    X, Y, Xt = _data()
    est = KernelRLS(kernel="rbf").fit(X, Y)
    assert est.score(X, Y) == pytest.approx(r2_score(Y, est.predict(X)))


# --------------------------------------------------------------------------------------
# parameter validation (at fit time)


def test_unknown_parameter_is_type_error():
    with pytest.raises(TypeError):
        KernelRLS(regparam=1.0)
    with pytest.raises(TypeError):
        KernelRLSCV(alpha=1.0)
    with pytest.raises(ValueError):
        KernelRLS().set_params(lambda_=1.0)


@pytest.mark.parametrize("params, error", [
    ({"alpha": -1.0}, ValueError),
    ({"alpha": np.inf}, ValueError),
    ({"alpha": np.nan}, ValueError),
    ({"alpha": "1.0"}, TypeError),
    ({"alpha": None}, TypeError),
    ({"alpha": [1.0, 2.0]}, TypeError),
    ({"kernel": "sigmoid"}, ValueError),
    ({"kernel": "RBF"}, ValueError),
    ({"kernel": None}, ValueError),
    ({"kernel": "rbf", "gamma": 0.0}, ValueError),
    ({"kernel": "rbf", "gamma": -1.0}, ValueError),
    ({"kernel": "rbf", "gamma": np.nan}, ValueError),
    ({"kernel": "poly", "gamma": "scale"}, TypeError),
    ({"kernel": "poly", "degree": 0}, ValueError),
    ({"kernel": "poly", "degree": 2.5}, ValueError),
    ({"kernel": "poly", "coef0": np.inf}, ValueError),
    ({"bias": -1.0}, ValueError),
    ({"bias": np.nan}, ValueError),
])
def test_invalid_parameters_raise_at_fit(params, error):
    X, Y, _ = _data()
    est = KernelRLS(**params)           # construction never validates
    assert est.get_params()["kernel"] == params.get("kernel", "linear")
    with pytest.raises(error):
        est.fit(X, Y)


def test_alpha_zero_is_allowed():
    X, Y, Xt = _data()
    est = KernelRLS(alpha=0.0, bias=0).fit(X, Y)
    ref = np.linalg.lstsq(X, Y, rcond=None)[0]
    assert_allclose(est.coef_, ref.T, rtol=1e-10)


def test_parameters_of_other_kernels_are_ignored():
    X, Y, Xt = _data()
    a = KernelRLS(kernel="rbf", gamma=0.3).fit(X, Y)
    b = KernelRLS(kernel="rbf", gamma=0.3, bias=-5, degree=0, coef0=np.nan).fit(X, Y)
    assert_allclose(a.predict(Xt), b.predict(Xt))


def test_bad_data():
    X, Y, _ = _data()
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        KernelRLS().fit(Xn, Y)
    with pytest.raises(ValueError):
        KernelRLS().fit(X, Y[:-1])
    with pytest.raises(ValueError):
        KernelRLS().fit(X, None)
    est = KernelRLS().fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :3])


# --------------------------------------------------------------------------------------
# scikit-learn integration


def test_pipeline_and_grid_search():
    X, Y, Xt = _data(m=60)
    y = Y[:, 0]
    pipe = make_pipeline(StandardScaler(), KernelRLS(kernel="rbf"))
    pipe.fit(X, y)
    Xs = StandardScaler().fit(X)
    direct = KernelRLS(kernel="rbf").fit(Xs.transform(X), y)
    assert_allclose(pipe.predict(Xt), direct.predict(Xs.transform(Xt)), rtol=RTOL)

    grid = {"kernelrls__alpha": [0.01, 0.1, 1.0], "kernelrls__gamma": [0.05, 0.2]}
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    assert search.best_params_["kernelrls__alpha"] in grid["kernelrls__alpha"]
    assert search.predict(Xt).shape == (15,)

    search = GridSearchCV(KernelRLS(), {"alpha": [0.1, 10.0], "kernel": ["linear", "rbf"]},
                          cv=3, scoring="neg_mean_squared_error").fit(X, Y)
    assert search.predict(Xt).shape == (15, 3)

    scores = cross_val_score(make_pipeline(StandardScaler(), KernelRLSCV()), X, y, cv=3)
    assert scores.shape == (3,)


def test_clone_and_get_params():
    est = KernelRLS(alpha=2.0, kernel="rbf", gamma=0.1)
    assert est.get_params() == {"alpha": 2.0, "kernel": "rbf", "gamma": 0.1, "degree": None,
                                "coef0": 1, "bias": 1.0, "basis_vectors": None,
                                "n_basis": None, "basis_indices": None,
                                "random_state": None, "keep_basis_in_cv": False,
                                "memory_budget": "auto", "block_size": None,
                                "solver": "auto", "pcg_tol": None,
                                "pcg_max_iter": None, "verbose": False}
    assert clone(est).get_params() == est.get_params()
    assert repr(est) == "KernelRLS(alpha=2.0, gamma=0.1, kernel='rbf')"


def test_pickle_keeps_predictions_and_drops_the_factorization():
    X, Y, Xt = _data()
    for est in [KernelRLS().fit(X, Y), KernelRLS(kernel="rbf").fit(X, Y[:, 0]),
                KernelRLSCV(kernel="rbf").fit(X, Y)]:
        assert est.model_ is not None
        blob = pickle.dumps(est)
        back = pickle.loads(blob)
        assert back.model_ is None
        assert_allclose(back.predict(Xt), est.predict(Xt), rtol=0, atol=0)
        assert est.model_ is not None       # pickling does not touch the original
    big = KernelRLS(kernel="rbf").fit(np.random.default_rng(0).normal(size=(400, 2)),
                                      np.zeros(400))
    # no m x m matrix in the pickle: far less than the 400 x 400 x 8 bytes of K
    assert len(pickle.dumps(big)) < 400 * 400 * 8 / 10


# --------------------------------------------------------------------------------------
# scikit-learn stays optional


def _run(code):
    # run outside the checkout: "python -c" puts the working directory first on sys.path,
    # which would import the uncompiled source folder instead of the installed package
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=300,
                          cwd=tempfile.gettempdir())


def test_rlscore_and_core_do_not_import_sklearn():
    out = _run("""
        import sys
        import rlscore, rlscore.core, rlscore.core.rls, rlscore.core.selection
        assert not any(k == "sklearn" or k.startswith("sklearn.") for k in sys.modules), \\
            sorted(k for k in sys.modules if k.startswith("sklearn"))
    """)
    assert out.returncode == 0, out.stderr


def test_estimators_without_sklearn_give_a_helpful_import_error():
    out = _run("""
        import sys
        sys.modules["sklearn"] = None        # makes "import sklearn" fail
        try:
            import rlscore.estimators
        except ImportError as exc:
            print(exc)
        else:
            raise SystemExit("no ImportError")
    """)
    assert out.returncode == 0, out.stderr
    assert "pip install rlscore[sklearn]" in out.stdout


def test_docstring_examples():
    import doctest

    import rlscore.estimators._rls as mod
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
