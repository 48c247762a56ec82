"""The in-sample leave-one-pair-out criterion of complete-data KronRLS and its gradient
for the kernel parameters of both domains (core.kronecker._loo_gradient) against brute
force: refits of the explicit Kronecker system without each pair, the learner's own LOO,
central finite differences; learn_kron_kernel against a grid over both gammas."""

import numpy as np
import pytest

from rlscore.core.hyper import LearnableKernel, kron_learning_options
from rlscore.core.selection import SearchOptions
from rlscore.core.hyper import KronLOOObjective, kron_loo_error_gradient, learn_kron_kernel
from rlscore.core.kronecker import KronRLSModel
from rlscore.kernel import (FixedFamily, GaussianFamily, LinearKernel, PolynomialFamily,
                            SumFamily)


def pairs(n1=7, n2=5, d1=3, d2=2, seed=0):
    rng = np.random.default_rng(seed)
    X1 = rng.normal(size=(n1, d1))
    X2 = rng.normal(size=(n2, d2))
    Y = (np.sin(X1[:, :1]) @ np.cos(X2[:, :1]).T + 0.5 * X1[:, 1:2] * X2[:, 1:2].T
         + 0.1 * rng.normal(size=(n1, n2)))
    return X1, X2, Y


def refit_loo(K1, K2, Y, regparam):
    """Leave-one-pair-out residuals (n1 x n2) by n1 n2 refits of the explicit system
    (K2 kron K1 + regparam I) a = vec_F(Y) without the pair."""
    K = np.kron(K2, K1)
    y = Y.ravel(order="F")
    n = y.size
    r = np.empty(n)
    for i in range(n):
        k = np.delete(np.arange(n), i)
        a = np.linalg.solve(K[np.ix_(k, k)] + regparam * np.eye(n - 1), y[k])
        r[i] = y[i] - K[i, k] @ a
    return r.reshape(Y.shape, order="F")


def side_families(X, kind):
    return {
        "gaussian": lambda: GaussianFamily(X),
        "ard": lambda: GaussianFamily(X, ard=True),
        "linear": lambda: FixedFamily(LinearKernel(X), X),
        "polynomial": lambda: PolynomialFamily(X, 2),
        "mix": lambda: SumFamily([FixedFamily(LinearKernel(X), X), GaussianFamily(X)]),
    }[kind]()


@pytest.mark.parametrize("kinds", [("gaussian", "gaussian"), ("ard", "gaussian"),
                                   ("linear", "gaussian"), ("gaussian", "linear"),
                                   ("mix", "polynomial"), ("ard", "mix")])
@pytest.mark.parametrize("regparam", [1e-3, 0.3, 30.0])
def test_criterion_is_refit_loo_and_gradient_is_finite_differences(kinds, regparam,
                                                                   check_gradient):
    X1, X2, Y = pairs()
    f1, f2 = side_families(X1, kinds[0]), side_families(X2, kinds[1])
    rng = np.random.default_rng(1)
    z = np.concatenate([[np.log(regparam)],
                        f1.start() + 0.3 * rng.normal(size=f1.n_params),
                        f2.start() + 0.3 * rng.normal(size=f2.n_params)])
    obj = KronLOOObjective(f1, f2, Y)
    _, t1, t2 = obj.split(z)
    K1, K2 = f1.evaluate(t1)[0], f2.evaluate(t2)[0]
    res = kron_loo_error_gradient(K1, K2, Y, regparam)
    R = refit_loo(K1, K2, Y, regparam)
    np.testing.assert_allclose(res.residuals, R, rtol=1e-8, atol=1e-10 * np.abs(R).max())
    np.testing.assert_allclose(res.value, np.mean(R ** 2), rtol=1e-9)
    value = check_gradient(obj, z)
    np.testing.assert_allclose(value, res.value, rtol=1e-12)


def test_adjoints_are_the_partial_traces_of_the_dual_rls_adjoint():
    # S1 and S2 are the partial traces of the (n1 n2) x (n1 n2) adjoint of dual RLS with
    # the kernel K2 kron K1: <dK2 kron K1 + K2 kron dK1, M> for random symmetric dK
    from rlscore.core.hyper import loo_error_gradient
    X1, X2, Y = pairs(n1=6, n2=4, seed=2)
    K1 = GaussianFamily(X1).evaluate(np.log([0.4]))[0]
    K2 = GaussianFamily(X2).evaluate(np.log([0.7]))[0]
    res = kron_loo_error_gradient(K1, K2, Y, 0.05)
    full = loo_error_gradient(np.kron(K2, K1), Y.ravel(order="F"), 0.05)
    rng = np.random.default_rng(3)
    for _ in range(3):
        D1 = rng.normal(size=K1.shape)
        D1 += D1.T
        D2 = rng.normal(size=K2.shape)
        D2 += D2.T
        np.testing.assert_allclose(np.vdot(D1, res.S1), np.vdot(np.kron(K2, D1), full.M),
                                   rtol=1e-9)
        np.testing.assert_allclose(np.vdot(D2, res.S2), np.vdot(np.kron(D2, K1), full.M),
                                   rtol=1e-9)
    np.testing.assert_allclose(res.d_log_regparam, full.d_log_regparam, rtol=1e-9)
    np.testing.assert_allclose(res.value, full.value, rtol=1e-12)


def test_criterion_equals_the_learners_in_sample_loo():
    X1, X2, Y = pairs(n1=9, n2=6, seed=4)
    K1 = GaussianFamily(X1).evaluate(np.log([0.5]))[0]
    K2 = GaussianFamily(X2).evaluate(np.log([0.3]))[0]
    model = KronRLSModel(K1=K1, K2=K2, Y=Y.ravel(order="F"), regparam=0.2)
    loo = model.in_sample_loo()
    res = kron_loo_error_gradient(K1, K2, Y, 0.2, gradient=False)
    np.testing.assert_allclose(Y.ravel(order="F") - res.residuals.ravel(order="F"), loo,
                               rtol=1e-9, atol=1e-12)


def test_indefinite_kernel_side_subtracts_its_negative_columns(check_gradient):
    # a sum family with a fixed indefinite term: the negative eigenvalues of K2 go through
    # the second (subtracted) symmetric product
    X1, X2, Y = pairs(n1=6, n2=5, seed=5)

    class Indefinite(FixedFamily):
        def __init__(self, X):
            super().__init__(LinearKernel(X), X)
            self._K = self._K - 0.3 * np.eye(len(X))

    f1 = GaussianFamily(X1)
    f2 = SumFamily([Indefinite(X2), GaussianFamily(X2)])
    obj = KronLOOObjective(f1, f2, Y)
    z = np.concatenate([[np.log(2.0)], f1.start(), f2.start()])
    K2 = f2.evaluate(obj.split(z)[2])[0]
    assert np.linalg.eigvalsh(K2).min() < 0
    check_gradient(obj, z)


def test_blocked_second_term_matches_one_block(check_gradient):
    from rlscore._blocks import working_memory
    X1, X2, Y = pairs(n1=8, n2=7, seed=6)
    K1 = GaussianFamily(X1).evaluate(np.log([0.5]))[0]
    K2 = GaussianFamily(X2).evaluate(np.log([0.5]))[0]
    whole = kron_loo_error_gradient(K1, K2, Y, 0.1)
    with working_memory(8 * 8 * 8 * 2 / 2**20):     # two columns b per block
        blocked = kron_loo_error_gradient(K1, K2, Y, 0.1)
    np.testing.assert_allclose(blocked.S1, whole.S1, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(blocked.S2, whole.S2, rtol=1e-12, atol=1e-15)


def test_learned_gammas_reach_the_grid_optimum():
    X1, X2, Y = pairs(n1=20, n2=15, seed=7)
    f1, f2 = GaussianFamily(X1), GaussianFamily(X2)
    obj = KronLOOObjective(f1, f2, Y)
    g1, g2 = f1.start()[0], f2.start()[0]
    grid = min(obj.value([np.log(lam), g1 + np.log(a), g2 + np.log(b)])
               for lam in 10.0 ** np.arange(-5, 2) for a in np.logspace(-2, 2, 9)
               for b in np.logspace(-2, 2, 9))
    res = learn_kron_kernel(X1, X2, Y)
    assert res.criterion <= grid * (1 + 1e-9)
    z = np.log([res.regparam, res.kernel_params1["gamma"], res.kernel_params2["gamma"]])
    np.testing.assert_allclose(res.criterion, obj.value(z), rtol=1e-12)
    # the model at the learned parameters has that in-sample LOO
    K1, K2 = res.kernel_matrices()
    model = KronRLSModel(K1=K1, K2=K2, Y=Y.ravel(order="F"), regparam=res.regparam)
    np.testing.assert_allclose(np.mean((model.in_sample_loo() - Y.ravel(order="F")) ** 2),
                               res.criterion, rtol=1e-8)
    assert res.history and res.history[0]["kernel_params2"]["gamma"] > 0


def test_linear_side_and_ard():
    X1, X2, Y = pairs(n1=12, n2=8, seed=8)
    res = learn_kron_kernel(X1, X2, Y, "GaussianKernel", "LinearKernel",
                            search=SearchOptions(restarts=0, maxiter=20))
    assert set(res.kernel_params1) == {"gamma"} and "gamma" not in res.kernel_params2
    res = learn_kron_kernel(X1, X2, Y, LearnableKernel("GaussianKernel", ard=True),
                            LearnableKernel("GaussianKernel", ard=True),
                            search=SearchOptions(restarts=0, maxiter=20))
    assert res.kernel_params1["gamma"].shape == (3,)
    assert res.kernel_params2["gamma"].shape == (2,)


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(kernel1="RsetKernel"), ValueError, "kernel1"),
    (dict(kernel1="LinearKernel", kernel2="LinearKernel"), ValueError, "both kernels"),
    (dict(ard="yes"), TypeError, "ard"),
    (dict(ard=True, kernel2="PolynomialKernel"), ValueError, "ard"),
    (dict(restarts=-1), ValueError, "restarts"),
    (dict(width_range=(0, 1)), ValueError, "width_range"),
    (dict(regparam_range=(1.0, float("nan"))), ValueError, "regparam_range"),
])
def test_bad_arguments(kwargs, exc, match):
    X1, X2, Y = pairs()
    with pytest.raises(exc, match=match):
        learn_kron_kernel(X1, X2, Y, **kron_learning_options(**kwargs))


def test_bad_data():
    X1, X2, Y = pairs()
    with pytest.raises(ValueError, match="shape"):
        learn_kron_kernel(X1, X2, Y.T)
    Yn = Y.copy()
    Yn[0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        learn_kron_kernel(X1, X2, Yn)
    K1 = np.eye(7)
    K2 = np.eye(5)
    with pytest.raises(ValueError, match="regparam"):
        kron_loo_error_gradient(K1, K2, Y, 0.0)
    with pytest.raises(ValueError, match="K2"):
        kron_loo_error_gradient(K1, np.ones((5, 4)), Y, 1.0)
    with pytest.raises(ValueError, match="Y must have shape"):
        kron_loo_error_gradient(K1, K2, Y.T, 1.0)
