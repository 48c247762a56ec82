"""The evidence of complete-data KronRLS (criterion="evidence" of learn_kron_kernel)
against the Gaussian-process negative log marginal likelihood computed with the
explicit np.kron covariance, its gradient against finite differences, and the
search against the explicit criterion."""

import numpy as np
import pytest

from rlscore.core.selection import SearchOptions
from rlscore.core.hyper import kron_evidence_gradient, learn_kron_kernel


def _rbf(X, g):
    return np.exp(-g * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))


def _explicit(K1, K2, Y, lam):
    """min over the amplitude s of -log N(vec Y; 0, s (K2 kron K1 + lam I)), per pair."""
    C = np.kron(K2, K1) + lam * np.eye(Y.size)
    y = Y.ravel(order="F")
    m = y.size
    quad = y @ np.linalg.solve(C, y)
    s = quad / m
    logdet = np.linalg.slogdet(C)[1]
    return (0.5 * m * np.log(2 * np.pi) + 0.5 * m * np.log(s) + 0.5 * logdet
            + 0.5 * quad / s) / m


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(4)
    X1, X2 = rng.normal(size=(7, 2)), rng.normal(size=(5, 3))
    Y = np.sin(X1[:, :1]) * X2[:, 1] + 0.2 * rng.normal(size=(7, 5))
    return X1, X2, Y


def test_value_and_gradient(data):
    X1, X2, Y = data
    g1, g2, lam = 0.7, 0.4, 0.3
    res = kron_evidence_gradient(_rbf(X1, g1), _rbf(X2, g2), Y, lam)
    assert res.value == pytest.approx(_explicit(_rbf(X1, g1), _rbf(X2, g2), Y, lam),
                                      rel=1e-10)
    h = 1e-6

    def E(a, b, l):
        return _explicit(_rbf(X1, a), _rbf(X2, b), Y, l)
    # chain rule through dK/dgamma = -D2 * K for the explicit gradient
    D1 = ((X1[:, None, :] - X1[None, :, :]) ** 2).sum(-1)
    D2 = ((X2[:, None, :] - X2[None, :, :]) ** 2).sum(-1)
    d1 = np.vdot(res.S1, -D1 * _rbf(X1, g1))
    d2 = np.vdot(res.S2, -D2 * _rbf(X2, g2))
    assert d1 == pytest.approx((E(g1 + h, g2, lam) - E(g1 - h, g2, lam)) / (2 * h),
                               rel=1e-5, abs=1e-9)
    assert d2 == pytest.approx((E(g1, g2 + h, lam) - E(g1, g2 - h, lam)) / (2 * h),
                               rel=1e-5, abs=1e-9)
    dl = (E(g1, g2, lam * np.exp(h)) - E(g1, g2, lam * np.exp(-h))) / (2 * h)
    assert res.d_log_regparam == pytest.approx(dl, rel=1e-5, abs=1e-9)


def test_learn_with_evidence_minimizes_the_explicit_criterion(data):
    X1, X2, Y = data
    res = learn_kron_kernel(X1, X2, Y, "GaussianKernel", "GaussianKernel",
                            search=SearchOptions(restarts=1), criterion="evidence")
    g1, g2 = res.kernel_params1["gamma"], res.kernel_params2["gamma"]
    at = _explicit(_rbf(X1, g1), _rbf(X2, g2), Y, res.regparam)
    assert res.criterion == pytest.approx(at, rel=1e-9)
    # a stationary point of the explicit criterion: no coordinate step improves it
    for f in (0.9, 1.1):
        assert at <= _explicit(_rbf(X1, g1 * f), _rbf(X2, g2), Y, res.regparam) + 1e-9
        assert at <= _explicit(_rbf(X1, g1), _rbf(X2, g2 * f), Y, res.regparam) + 1e-9
        assert at <= _explicit(_rbf(X1, g1), _rbf(X2, g2), Y, res.regparam * f) + 1e-9
    with pytest.raises(ValueError, match="criterion"):
        learn_kron_kernel(X1, X2, Y, criterion="bic")


def test_learner_kronrls_passes_the_criterion(data):
    from rlscore.learner import KronRLS
    X1, X2, Y = data
    m = KronRLS(X1=X1, X2=X2, Y=Y, gamma="learn", criterion="evidence")
    ref = learn_kron_kernel(X1, X2, Y, criterion="evidence")
    assert m.regparam == pytest.approx(ref.regparam, rel=1e-10)
    assert m.gamma2 == pytest.approx(ref.kernel_params2["gamma"], rel=1e-10)
