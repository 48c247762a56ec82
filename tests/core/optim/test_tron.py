"""The trust-region Newton method on a smooth problem with an exact Hessian:
L2-regularized logistic regression, against scipy's Newton-CG."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from rlscore.core.optim import tron


class Logistic:
    """f(w) = lam/2 ||w||^2 + sum log(1 + exp(-y x.w)) as a TRON oracle."""

    def __init__(self, X, y, lam):
        self.X, self.y, self.lam = X, y, lam

    def evaluate(self, w, p=None):
        z = self.y * (self.X @ w)
        return 0.5 * self.lam * w @ w + np.sum(np.logaddexp(0, -z)), (w, z)

    def gradient(self, point):
        w, z = point
        return self.lam * w - self.X.T @ (self.y * expit(-z))

    def hessian_vector(self, point, v):
        _, z = point
        s = expit(z) * expit(-z)
        return self.lam * v + self.X.T @ (s * (self.X @ v)), None

    def advance(self, point, zs):
        return None


@pytest.mark.parametrize("lam", [1e-3, 1.0])
def test_tron_against_newton_cg(rng, lam):
    X = rng.standard_normal((200, 6))
    y = np.sign(X @ rng.standard_normal(6) + rng.standard_normal(200))
    oracle = Logistic(X, y, lam)
    res = tron(oracle, np.zeros(6), rtol=1e-10)
    assert res.converged and res.grad_norm <= 1e-10 * res.grad_norm0
    ref = minimize(lambda w: oracle.evaluate(w)[0], np.zeros(6),
                   jac=lambda w: oracle.gradient(oracle.evaluate(w)[1]),
                   method="Newton-CG", options=dict(xtol=1e-14, maxiter=1000))
    assert res.objective <= ref.fun + 1e-12 * abs(ref.fun)
    np.testing.assert_allclose(res.w, ref.x, rtol=1e-6, atol=1e-8)
    assert res.iterations == len(res.history) and res.cg_iterations >= res.iterations
    fs = [h["objective"] for h in res.history]
    assert all(b <= a for a, b in zip(fs, fs[1:]))      # accepted steps only decrease
    # a callback can stop it; max_iter is respected
    stopped = tron(oracle, np.zeros(6), rtol=1e-12, callback=lambda info: True)
    assert stopped.iterations == 1 and not stopped.converged
    capped = tron(oracle, np.zeros(6), rtol=1e-14, maxiter=2)
    assert capped.iterations <= 2
