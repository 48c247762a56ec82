"""Reduced-set (Nystrom) RLS with a fixed basis: LOO criterion against refits without
each example (basis unchanged) and its O(m r^2) gradient against central differences."""

import numpy as np
import pytest

from rlscore.core.hyper import LearnableKernel
from rlscore.core.selection import SearchOptions
from rlscore.core.hyper import NystromLOOObjective, nystrom_loo_error_gradient
from rlscore.kernel import GaussianFamily, GaussianKernel


def data(m=40, d=3, t=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) * [1.0, 2.0, 0.5]
    Y = np.sin(X[:, :1]) + 0.1 * rng.normal(size=(m, t))
    return X, (Y[:, 0] if t == 1 else Y)


def refit_loo(Phi, Krr, Y, lam):
    Y = Y.reshape(len(Y), -1)
    R = np.empty_like(Y)
    for i in range(len(Y)):
        k = np.delete(np.arange(len(Y)), i)
        beta = np.linalg.solve(Phi[k].T @ Phi[k] + lam * Krr, Phi[k].T @ Y[k])
        R[i] = Y[i] - Phi[i] @ beta
    return np.mean(R ** 2)


@pytest.mark.parametrize("lam", [1e-3, 0.5, 10.0])
@pytest.mark.parametrize("t", [1, 2])
def test_criterion_is_refit_loo(lam, t):
    X, Y = data(t=t)
    B = X[::4]
    kern = GaussianKernel(B, gamma=0.3)
    Phi, Krr = kern.getKM(X), kern.getKM(B)
    value = nystrom_loo_error_gradient(Phi, Krr, Y, lam)[0]
    np.testing.assert_allclose(value, refit_loo(Phi, Krr, Y, lam), rtol=1e-9)


@pytest.mark.parametrize("ard", [False, True])
@pytest.mark.parametrize("lam", [1e-2, 1.0])
@pytest.mark.parametrize("t", [1, 2])
def test_gradient_is_central_differences(ard, lam, t, check_gradient):
    X, Y = data(t=t)
    B = X[1::5] + 0.05          # basis rows need not be training rows
    obj = NystromLOOObjective(GaussianFamily(X, ard=ard), GaussianFamily(B, ard=ard), Y)
    z = np.concatenate([[np.log(lam)], GaussianFamily(X, ard=ard).start() + 0.2])
    value = check_gradient(obj, z)
    kern = GaussianKernel(B, gamma=np.exp(z[1:]) if ard else np.exp(z[1]))
    np.testing.assert_allclose(value, refit_loo(kern.getKM(X), kern.getKM(B), Y,
                                                lam), rtol=1e-8)


def test_learn_kernel_with_basis_vectors():
    from rlscore.core.hyper import learn_kernel
    from rlscore.learner import RLS
    X, y = data(m=80)
    B = X[::8]
    res = learn_kernel(X, y, LearnableKernel(ard=True), search=SearchOptions(restarts=0),
                       basis_vectors=B)
    obj = NystromLOOObjective(GaussianFamily(X, ard=True), GaussianFamily(B, ard=True), y)
    z = np.concatenate([[np.log(res.regparam)], np.log(res.kernel_params["gamma"])])
    np.testing.assert_allclose(res.criterion, obj.value(z), rtol=1e-12)
    assert res.criterion < obj.value(np.concatenate([[np.log(1e-2)],
                                                     GaussianFamily(X, ard=True).start()]))
    with pytest.raises(ValueError, match="features"):
        learn_kernel(X, y, basis_vectors=B[:, :2])
