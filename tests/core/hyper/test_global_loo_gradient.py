"""Leave-one-out criterion of global RankRLS (intercept refit on each training set)
against refits of the GlobalRankRLS learner, and its gradient against central
differences."""

import numpy as np
import pytest

from rlscore.core.hyper import GlobalLOOObjective, global_loo_error_gradient
from rlscore.kernel import GaussianFamily, GaussianKernel, PolynomialFamily
from rlscore.learner import GlobalRankRLS


def data(m=25, t=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    Y = X[:, :1] + 0.5 * np.sin(X[:, 1:2]) + 0.3 * rng.normal(size=(m, t))
    return X, (Y[:, 0] if t == 1 else Y)


@pytest.mark.parametrize("lam", [1e-3, 0.5, 30.0])
def test_criterion_is_refit_loo(lam):
    X, y = data()
    gamma = 0.4
    K = GaussianKernel(X, gamma=gamma).getKM(X)
    R = []
    for i in range(len(y)):
        tr = np.delete(np.arange(len(y)), i)
        # the learner's loss is (y - f)'(n I - 1 1')(y - f): its regparam is n lambda
        lrn = GlobalRankRLS(X[tr], y[tr], regparam=lam * tr.size, kernel="GaussianKernel",
                            gamma=gamma)
        b = np.mean(y[tr] - lrn.predict(X[tr]))          # least-squares intercept
        R.append(y[i] - float(lrn.predict(X[i:i + 1])) - b)
    np.testing.assert_allclose(global_loo_error_gradient(K, y, lam)[0],
                               np.mean(np.square(R)), rtol=1e-8)


@pytest.mark.parametrize("make", [lambda X: GaussianFamily(X),
                                  lambda X: GaussianFamily(X, ard=True),
                                  lambda X: PolynomialFamily(X, 2)])
@pytest.mark.parametrize("lam,t", [(1e-2, 1), (1.0, 2)])
def test_gradient_is_central_differences(make, lam, t, check_gradient):
    X, Y = data(t=t)
    fam = make(X)
    obj = GlobalLOOObjective(fam, Y)
    z = np.concatenate([[np.log(lam)], fam.start() + 0.1])
    check_gradient(obj, z)


def test_bad_input():
    with pytest.raises(ValueError, match="regparam"):
        global_loo_error_gradient(np.eye(4), np.arange(4.0), 0.0)
    with pytest.raises(ValueError, match="3 examples"):
        global_loo_error_gradient(np.eye(2), np.arange(2.0), 1.0)
