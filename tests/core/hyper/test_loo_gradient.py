"""The LOO criterion of dual RLS and its adjoint gradient (core.rls._loo_gradient) against
brute force: refits without each row, and central finite differences; the kernel
families' contractions against their explicit derivative matrices; learn_kernel against a
grid and on irrelevant features."""

import numpy as np
import pytest

from rlscore.core.hyper import LearnableKernel, learning_options
from rlscore.core.selection import Penalty, SearchOptions
from rlscore.core.hyper import LOOObjective, learn_kernel, loo_error_gradient
from rlscore.kernel import (FixedFamily, GaussianFamily, GaussianKernel, LinearKernel,
                            PolynomialFamily, SumFamily, PolynomialKernel)


def refit_loo(K, Y, regparam):
    """Mean squared LOO residual by m refits."""
    Y = Y.reshape(len(Y), -1)
    m = K.shape[0]
    R = np.empty_like(Y)
    for i in range(m):
        k = np.delete(np.arange(m), i)
        A = np.linalg.solve(K[np.ix_(k, k)] + regparam * np.eye(m - 1), Y[k])
        R[i] = Y[i] - K[i, k] @ A
    return np.mean(R ** 2)


def central_differences(f, z, h=1e-5):
    return np.array([(f(z + h * e) - f(z - h * e)) / (2 * h) for e in np.eye(len(z))])


def data(m=25, d=4, t=1, seed=0, labels=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) * rng.uniform(0.5, 2, size=d)
    Y = np.sin(X[:, :1]) + X[:, 1:2] ** 2 / 3 + 0.1 * rng.normal(size=(m, t))
    if labels:
        Y = np.where(Y > np.median(Y), 1.0, -1.0)
    return X, (Y[:, 0] if t == 1 else Y)


def families(X):
    return {
        "gaussian": GaussianFamily(X),
        "gaussian-ard": GaussianFamily(X, ard=True),
        "polynomial": PolynomialFamily(X, degree=3),
        "sum": SumFamily([GaussianFamily(X, ard=True), FixedFamily(LinearKernel(X), X),
                          PolynomialFamily(X, 2)]),
    }


@pytest.mark.parametrize("name", ["gaussian", "gaussian-ard", "polynomial", "sum"])
@pytest.mark.parametrize("t,labels", [(1, False), (3, False), (1, True)])
@pytest.mark.parametrize("regparam", [1e-3, 0.3, 30.0])
def test_criterion_is_refit_loo_and_gradient_is_finite_differences(name, t, labels,
                                                                   regparam):
    X, Y = data(t=t, labels=labels)
    fam = families(X)[name]
    rng = np.random.default_rng(1)
    theta = fam.start() + 0.2 * rng.normal(size=fam.n_params)
    z = np.concatenate([[np.log(regparam)], theta])
    obj = LOOObjective(fam, Y)
    value, grad = obj(z)
    K, _ = fam.evaluate(theta)
    np.testing.assert_allclose(value, refit_loo(K, Y, regparam), rtol=1e-9)
    fd = central_differences(obj.value, z)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6 * np.abs(fd).max())


@pytest.mark.parametrize("name", ["gaussian", "gaussian-ard", "polynomial", "sum"])
def test_contract_equals_explicit_derivatives(name):
    X, Y = data()
    fam = families(X)[name]
    theta = fam.start() + 0.1
    K, state = fam.evaluate(theta)
    M = loo_error_gradient(K, Y, 0.1).M
    explicit = np.array([np.vdot(D, M) for D in fam.derivatives(theta)])
    np.testing.assert_allclose(fam.contract(theta, state, M), explicit, rtol=1e-10,
                               atol=1e-14)


def test_family_kernels_are_the_library_kernels():
    X, _ = data()
    Xt = np.random.default_rng(5).normal(size=(7, X.shape[1]))
    for fam, ref in [(GaussianFamily(X), lambda p: GaussianKernel(X, **p)),
                     (GaussianFamily(X, ard=True), lambda p: GaussianKernel(X, **p)),
                     (PolynomialFamily(X, 3), lambda p: PolynomialKernel(X, **p))]:
        theta = fam.start() - 0.3
        np.testing.assert_allclose(fam.evaluate(theta)[0], ref(fam.params(theta)).getKM(X),
                                   rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(fam.cross(theta, Xt), ref(fam.params(theta)).getKM(Xt),
                                   rtol=1e-12)


def test_ard_kernel_is_gaussian_on_scaled_features():
    X, _ = data()
    g = np.array([0.1, 2.0, 0.5, 1e-3])
    Xt = X[:5] + 0.3
    ref = GaussianKernel(X * np.sqrt(g), gamma=1.0).getKM(Xt * np.sqrt(g))
    np.testing.assert_allclose(GaussianKernel(X, gamma=g).getKM(Xt), ref, rtol=1e-12)
    import scipy.sparse as sp
    np.testing.assert_allclose(GaussianKernel(sp.csr_matrix(X), gamma=g).getKM(
        sp.csr_matrix(Xt)), ref, rtol=1e-12)


def test_regparam_derivative_is_trace_of_adjoint():
    X, Y = data()
    K = GaussianKernel(X, gamma=0.2).getKM(X)
    lam = 0.05
    res = loo_error_gradient(K, Y, lam)
    f = lambda s: loo_error_gradient(K, Y, np.exp(s), gradient=False).value
    fd = (f(np.log(lam) + 1e-5) - f(np.log(lam) - 1e-5)) / 2e-5
    np.testing.assert_allclose(res.d_log_regparam, fd, rtol=1e-6)


def test_indefinite_shift_falls_back_to_eigendecomposition():
    # duplicated rows make K singular; a tiny regparam fails Cholesky at rounding level
    X, Y = data(m=12)
    X = np.vstack([X, X])
    Y = np.concatenate([Y, Y + 0.01])
    K = GaussianKernel(X, gamma=1e-6).getKM(X)
    res = loo_error_gradient(K, Y, 1e-14)
    assert np.isfinite(res.value) and np.all(np.isfinite(res.M))


def test_learned_widths_reach_the_grid_optimum():
    X, Y = data(m=60, d=3, seed=3)
    fam = GaussianFamily(X)
    obj = LOOObjective(fam, Y)
    g0 = fam.start()[0]
    grid = min(obj.value([np.log(lam), g0 + np.log(f)])
               for lam in 10.0 ** np.arange(-6, 2) for f in np.logspace(-2, 2, 13))
    res = learn_kernel(X, Y)
    assert res.criterion <= grid * (1 + 1e-9)
    np.testing.assert_allclose(res.criterion, obj.value(np.concatenate(
        [[np.log(res.regparam)], np.log([res.kernel_params["gamma"]])])), rtol=1e-12)
    assert res.history and res.history[-1]["criterion"] >= res.criterion - 1e-15


@pytest.mark.parametrize("seed,at_bound", [(8, 1.0), (7, 0.5)])
def test_irrelevant_features_get_length_scales_at_the_upper_bound(seed, at_bound):
    # two relevant features, three of noise; with m = 200 the LOO criterion switches the
    # noise off (at m = 120 it still over-fits one of them: Cawley & Talbot's point)
    rng = np.random.default_rng(seed)
    m = 200
    X = rng.normal(size=(m, 5))
    Y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.05 * rng.normal(size=m)
    res = learn_kernel(X, Y, LearnableKernel(ard=True), criterion="loo")
    start = GaussianFamily(X, ard=True).start()
    ls = res.length_scales
    upper = 1.0 / np.sqrt(2 * np.exp(start) * 1e-4)      # default width_range low end
    assert np.all(ls[2:] >= at_bound * upper[2:] * (1 - 1e-6))
    assert np.all(ls[:2] < upper[:2] / 20)


def test_penalties():
    X, Y = data(m=40, d=4, seed=2)
    free = learn_kernel(X, Y, LearnableKernel(ard=True), search=SearchOptions(restarts=0),
                        criterion="loo")
    start = GaussianFamily(X, ard=True).start()
    # log kind: widths pulled towards the start
    tied = learn_kernel(X, Y, LearnableKernel(ard=True), search=SearchOptions(restarts=0),
                        penalty=Penalty(10.0, "log"))
    assert (np.abs(np.log(tied.kernel_params["gamma"]) - start).max()
            < np.abs(np.log(free.kernel_params["gamma"]) - start).max())
    # scale kind (Cawley & Talbot): gamma shrunk towards 0
    shrunk = learn_kernel(X, Y, LearnableKernel(ard=True), search=SearchOptions(restarts=0),
                          penalty=1.0)
    assert (np.sum((shrunk.kernel_params["gamma"] / np.exp(start)) ** 2)
            < np.sum((free.kernel_params["gamma"] / np.exp(start)) ** 2))
    # the penalized objective's gradient: value + penalty, central differences
    from rlscore.core.selection import minimize_criterion
    obj = LOOObjective(GaussianFamily(X, ard=True), Y)
    z0 = np.concatenate([[np.log(0.1)], start])
    for kind in ("scale", "log"):
        res = minimize_criterion(obj, z0, [(-20, 5)] * len(z0),
                                 penalty=Penalty(0.3, kind, index=np.arange(1, len(z0))),
                                 options=SearchOptions(maxiter=3))
        assert res.objective > res.fun
    with pytest.raises(ValueError, match="penalty_kind"):
        learn_kernel(X, Y, penalty=Penalty(0.0, "l1"))


def test_polynomial_learning_runs():
    X, Y = data(m=40, seed=4)
    res = learn_kernel(X, Y, LearnableKernel("PolynomialKernel", degree=2),
                       search=SearchOptions(restarts=0))
    assert res.kernel_params["degree"] == 2 and res.kernel_params["coef0"] > 0


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(kernel="LinearKernel"), ValueError, "learned for"),
    (dict(ard="yes"), TypeError, "ard"),
    (dict(kernel="PolynomialKernel", ard=True), ValueError, "ard=True"),
    (dict(regparam_range=(0, 1)), ValueError, "regparam_range"),
    (dict(width_range=(1.0, np.inf)), ValueError, "width_range"),
    (dict(restarts=-1), ValueError, "restarts"),
    (dict(penalty=-1.0), ValueError, "penalty"),
])
def test_bad_arguments(kwargs, exc, match):
    X, Y = data()
    with pytest.raises(exc, match=match):
        learn_kernel(X, Y, **learning_options(**kwargs))


def test_bad_data():
    X, Y = data()
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        learn_kernel(Xn, Y)
    with pytest.raises(ValueError, match="Y"):
        learn_kernel(X, np.full(len(Y), np.inf))
    Xc = X.copy()
    Xc[:, 2] = 3.0
    with pytest.raises(ValueError, match="constant features"):
        learn_kernel(Xc, Y, LearnableKernel(ard=True))
    with pytest.raises(ValueError, match="rows"):
        learn_kernel(X, Y[:-1])
    with pytest.raises(ValueError, match="regparam"):
        loo_error_gradient(np.eye(3), np.ones(3), 0.0)


@pytest.mark.parametrize("gamma,exc", [(0.0, ValueError), (-1.0, ValueError),
                                       (np.nan, ValueError), ([1.0, -2.0], ValueError),
                                       ([1.0, np.inf], ValueError), ([[1.0]], ValueError),
                                       ("learn", TypeError)])
def test_gaussian_kernel_rejects_bad_gamma(gamma, exc):
    with pytest.raises(exc, match="gamma"):
        GaussianKernel(np.ones((3, 2)), gamma=gamma)
    with pytest.raises(ValueError, match="gamma holds 3 values"):
        GaussianKernel(np.ones((3, 2)), gamma=[1.0, 1.0, 1.0])


@pytest.mark.parametrize("penalty,kind", [("bayes", "scale"), (0.3, "scale"), (0.3, "log")])
def test_penalized_criterion_gradient(check_gradient, penalty, kind):
    """Every penalty form: the objective's gradient against central differences, and
    the value against its formula written out (Cawley & Talbot 2007: with xi
    integrated out, log Q + (N / n) log Omega, Omega = 1/2 sum eta_k^2)."""
    from rlscore.core.selection import PenalizedCriterion
    X, Y = data(m=30, d=3, seed=5)
    obj = LOOObjective(GaussianFamily(X, ard=True), Y)
    start = GaussianFamily(X, ard=True).start()
    z = np.concatenate([[np.log(0.05)], start + np.array([0.3, -0.5, 0.1])])
    idx = np.arange(1, 4)
    crit = PenalizedCriterion(obj, penalty, idx, np.concatenate([[0.0], start]), kind,
                              n_residuals=Y.size)
    check_gradient(crit, z)
    Q = obj.value(z)
    eta = np.exp(z[1:] - start)
    expected = {"bayes": np.log(Q) + 3 / 30 * np.log(0.5 * np.sum(eta ** 2)),
                "scale": Q + 0.3 * 0.5 * np.sum(eta ** 2),
                "log": Q + 0.3 * np.sum(np.log(eta) ** 2)}
    assert np.isclose(crit.value(z), expected["bayes" if penalty == "bayes" else kind],
                      rtol=1e-12)


def test_bayes_penalty_learning():
    """penalty='bayes' runs through learn_kernel, reports the unpenalized LOO error as
    the criterion and the regularized objective (the formula, evaluated apart) below
    its value at the start."""
    from rlscore.core.selection import PenalizedCriterion
    X, Y = data(m=40, d=4, seed=2)
    bayes = learn_kernel(X, Y, LearnableKernel(ard=True), search=SearchOptions(restarts=0),
                         penalty="bayes")
    obj = LOOObjective(GaussianFamily(X, ard=True), Y)
    assert np.isclose(bayes.criterion, obj.value(bayes.search.x), rtol=1e-12)
    center = bayes.search.restarts[0]["x0"]
    crit = PenalizedCriterion(obj, "bayes", np.arange(1, 5), center, n_residuals=40)
    assert np.isclose(crit.value(bayes.search.x), bayes.search.objective, rtol=1e-12)
    assert bayes.search.objective < crit.value(center)
    with pytest.raises(ValueError, match="penalty"):
        learn_kernel(X, Y, penalty="jeffreys")


def test_gaussian_grid_loo_against_refits():
    """The gamma x lambda grid: every cell equals m refits, the best cell is chosen and
    the returned model predicts as RLS at it (explicit solve)."""
    from rlscore.core.hyper import gaussian_grid_loo
    X, Y = data(m=20, d=3, seed=6)
    gammas, lams = [0.05, 0.3, 2.0], [1e-3, 1e-1, 1.0, 10.0]
    res = gaussian_grid_loo(X, Y, gammas, lams)
    table = np.array([[refit_loo(GaussianKernel(X, gamma=g).getKM(X), Y, lam)
                       for lam in lams] for g in gammas])
    np.testing.assert_allclose(res.performances, table, rtol=1e-9)
    i, j = np.unravel_index(np.argmin(table), table.shape)
    assert (res.gamma, res.regparam) == (gammas[i], lams[j])
    assert np.isclose(res.criterion, table[i, j], rtol=1e-9)
    K = GaussianKernel(X, gamma=gammas[i]).getKM(X)
    a = np.linalg.solve(K + lams[j] * np.eye(len(Y)), Y)
    Xt = X[:4] + 0.2
    expected = GaussianKernel(X, gamma=gammas[i]).getKM(Xt) @ a
    np.testing.assert_allclose(res.predict(Xt), expected, rtol=1e-8)
    with pytest.raises(ValueError, match="gammas"):
        gaussian_grid_loo(X, Y, [0.1, -1.0])
    with pytest.raises(ValueError, match="regparams"):
        gaussian_grid_loo(X, Y, [0.1], [np.nan])
