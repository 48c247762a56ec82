"""The Gaussian-process evidence criterion of RLS (core.rls._evidence_gradient): its
value against the explicit formula and scikit-learn's GaussianProcessRegressor log
marginal likelihood at the profiled amplitude, its gradient against central
differences, and learn_kernel(criterion="evidence")."""

import numpy as np
import pytest

from rlscore.core.hyper import LearnableKernel
from rlscore.core.selection import SearchOptions
from rlscore.core.hyper import EvidenceObjective, evidence_gradient, learn_kernel
from rlscore.kernel import GaussianFamily, PolynomialFamily, SumFamily


def data(m=25, d=3, t=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)) * rng.uniform(0.5, 2, size=d)
    Y = np.sin(X[:, :1]) + X[:, 1:2] ** 2 / 3 + 0.1 * rng.normal(size=(m, t))
    return X, (Y[:, 0] if t == 1 else Y)


def explicit(K, Y, lam):
    """min over the amplitude s of -log N(y; 0, s (K + lam I)) per example, by
    a dense solve and slogdet, outputs averaged."""
    Y = Y.reshape(len(Y), -1)
    m = len(Y)
    C = K + lam * np.eye(m)
    _, logdet = np.linalg.slogdet(C)
    out = []
    for y in Y.T:
        s = y @ np.linalg.solve(C, y) / m
        out.append(0.5 * m * np.log(2 * np.pi * s) + 0.5 * logdet
                   + 0.5 * y @ np.linalg.solve(C, y) / s)
    return np.mean(out) / m


@pytest.mark.parametrize("t", [1, 3])
def test_value_equals_explicit_formula(t):
    X, Y = data(t=t)
    fam = GaussianFamily(X, ard=True)
    K, _ = fam.evaluate(fam.start())
    for lam in (1e-3, 0.1, 5.0):
        res = evidence_gradient(K, Y, lam)
        assert np.isclose(res.value, explicit(K, Y, lam), rtol=1e-10)


def test_value_equals_sklearn_gpr():
    sk = pytest.importorskip("sklearn.gaussian_process")
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    X, y = data(m=30, d=3, seed=3)
    ls = np.array([0.7, 1.9, 3.0])
    lam = 0.05
    fam = GaussianFamily(X, ard=True)
    theta = -np.log(2 * ls ** 2)
    K, _ = fam.evaluate(theta)
    res = evidence_gradient(K, y, lam)
    s = res.amplitude[0]
    kern = ConstantKernel(s) * RBF(ls) + WhiteKernel(s * lam)
    gpr = sk.GaussianProcessRegressor(kern, optimizer=None).fit(X, y)
    assert np.isclose(-gpr.log_marginal_likelihood_value_ / len(y), res.value, rtol=1e-9)


@pytest.mark.parametrize("make", [lambda X: GaussianFamily(X),
                                  lambda X: GaussianFamily(X, ard=True),
                                  lambda X: PolynomialFamily(X, 2),
                                  lambda X: SumFamily([GaussianFamily(X),
                                                       PolynomialFamily(X, 2)])])
@pytest.mark.parametrize("t", [1, 2])
def test_gradient_central_differences(check_gradient, make, t):
    X, Y = data(t=t, seed=1)
    fam = make(X)
    obj = EvidenceObjective(fam, Y)
    z = np.concatenate([[np.log(0.07)], fam.start() + 0.2])
    check_gradient(obj, z)


def test_learn_kernel_evidence():
    """criterion='evidence' minimizes the evidence (lower than at the LOO optimum and
    at the start), ARD switches a noise feature off, bad combinations are refused."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 3))
    y = np.sin(2 * X[:, 0]) + 0.05 * rng.normal(size=80)
    ev = learn_kernel(X, y, LearnableKernel(ard=True), search=SearchOptions(restarts=0),
                      criterion="evidence")
    loo = learn_kernel(X, y, LearnableKernel(ard=True), search=SearchOptions(restarts=0))
    obj = EvidenceObjective(GaussianFamily(X, ard=True), y)
    assert np.isclose(ev.criterion, obj.value(ev.search.x), rtol=1e-12)
    assert ev.criterion < obj.value(ev.search.restarts[0]["x0"])
    assert ev.criterion <= obj.value(loo.search.x) + 1e-6
    assert ev.length_scales[1:].min() > 10 * ev.length_scales[0]
    for bad in (dict(criterion="likelihood"), dict(criterion="evidence", penalty="bayes"),
                dict(criterion="evidence", basis_vectors=X[:5])):
        with pytest.raises(ValueError, match="criterion"):
            learn_kernel(X, y, **bad)
    with pytest.raises(ValueError, match="all-zero"):
        evidence_gradient(np.eye(3), np.zeros(3), 1.0)


def test_regularized_inverse_logdet_both_branches():
    """(G, log det) from the Cholesky branch and from the eigendecomposition fallback
    (an indefinite K whose negative eigenvalue is clipped) against numpy."""
    from rlscore.core.hyper import regularized_inverse
    rng = np.random.default_rng(0)
    B = rng.normal(size=(6, 6))
    K = B @ B.T
    G, ld = regularized_inverse(K, 0.3, logdet=True)
    np.testing.assert_allclose(G, np.linalg.inv(K + 0.3 * np.eye(6)), rtol=1e-10)
    assert np.isclose(ld, np.linalg.slogdet(K + 0.3 * np.eye(6))[1], rtol=1e-12)
    mu, V = np.linalg.eigh(K)
    mu[0] = -5.0                                   # not PSD: K + 0.3 I indefinite
    Kn = (V * mu) @ V.T
    G, ld = regularized_inverse(Kn, 0.3, logdet=True)
    clipped = (V * (np.maximum(mu, 0) + 0.3)) @ V.T
    np.testing.assert_allclose(G, np.linalg.inv(clipped), rtol=1e-9)
    assert np.isclose(ld, np.linalg.slogdet(clipped)[1], rtol=1e-12)
