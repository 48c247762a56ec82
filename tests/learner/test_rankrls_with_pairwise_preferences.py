"""PPRankRLS: RLScore's contract (closed form, keywords, pairs attribute) and the
preference-graph options (weights, magnitudes, the three costs of the paper)."""

import warnings

import numpy as np
import pytest

from rlscore.kernel import GaussianKernel
from rlscore.learner.rankrls_with_pairwise_preferences import PPRankRLS


def closed_form(K, s, e, lam, c=None, z=None):
    m = K.shape[0]
    n = len(s)
    C = np.zeros((n, m))
    C[np.arange(n), s] = 1
    C[np.arange(n), e] = -1
    c = np.ones(n) if c is None else np.asarray(c, float)
    z = np.ones(n) if z is None else np.asarray(z, float)
    L = C.T @ np.diag(c) @ C
    return np.linalg.solve(L @ K + lam * np.eye(m), C.T @ (c * z))


def test_upstream_style_closed_form(rng):
    m = 30
    X = rng.random((m, 5))
    y = rng.random(m)
    s, e = [], []
    for i in range(m):
        for j in range(m):
            if y[i] > y[j] and rng.random() < 0.2:
                s.append(i), e.append(j)
    K = GaussianKernel(X).getKM(X)
    for lam in [1e-8, 1.0, 1e8]:
        with pytest.warns(UserWarning, match="bias"):
            learner = PPRankRLS(X=np.asmatrix(X), pairs_start_inds=s, pairs_end_inds=e,
                                regparam=lam, kernel="GaussianKernel", bias=1.0)
        P = learner.predictor.predict(np.asmatrix(X))
        np.testing.assert_almost_equal(P, K @ closed_form(K, s, e, lam), decimal=3)
    assert learner.pairs.shape == (len(s), 2)
    assert learner.pairs[:, 0].tolist() == s


def test_linear_bias_is_zero_and_solve(rng):
    X = rng.random((12, 3))
    s, e = [0, 1, 2, 3, 5], [1, 2, 3, 4, 7]
    learner = PPRankRLS(X, s, e, regparam=2.0, bias=3.0)
    assert learner.predictor.b == 0.0
    K = X @ X.T + 3.0
    np.testing.assert_allclose(learner.predict(X), K @ closed_form(K, s, e, 2.0),
                               rtol=1e-7, atol=1e-10)
    learner.solve(0.1)
    assert learner.regparam == 0.1
    np.testing.assert_allclose(learner.predict(X), K @ closed_form(K, s, e, 0.1),
                               rtol=1e-7, atol=1e-9)
    with pytest.raises(TypeError):
        learner.solve()


def test_weights_magnitudes_costs(rng):
    X = rng.random((10, 3))
    K = GaussianKernel(X, gamma=0.5).getKM(X)
    s, e = [0, 1, 2, 3, 4], [1, 2, 3, 4, 9]
    w = [1.0, 2.0, 0.5, 1.0, 3.0]
    y = [1.0, 0.5, 0.0, 2.0, 1.5]
    cases = {"magnitude": (w, y), "unit": (np.multiply(w, np.array(y) > 0), None),
             "inverse": ([wi / yi ** 2 if yi > 0 else 0.0 for wi, yi in zip(w, y)], y)}
    for cost, (c, z) in cases.items():
        learner = PPRankRLS(X, s, e, 1.0, kernel="GaussianKernel", gamma=0.5, weights=w,
                            magnitudes=y, cost=cost)
        np.testing.assert_allclose(learner.predict(X), K @ closed_form(K, s, e, 1.0, c, z),
                                   rtol=1e-6, atol=1e-12)
    # duplicates count as weight
    a = PPRankRLS(X, [0, 0, 1], [1, 1, 2], 1.0).predict(X)
    b = PPRankRLS(X, [0, 1], [1, 2], 1.0, weights=[2, 1]).predict(X)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-14)


def test_bad_input(rng):
    X = rng.random((6, 2))
    with pytest.raises(ValueError, match="empty"):
        PPRankRLS(X, [], [])
    with pytest.warns(UserWarning, match="1 self-pair"):      # RLScore accepted them
        np.testing.assert_allclose(PPRankRLS(X, [0, 2], [1, 2]).predict(X),
                                   PPRankRLS(X, [0], [1]).predict(X), rtol=1e-12)
    with pytest.raises(ValueError, match="self-pair"), \
            pytest.warns(UserWarning, match="self-pair"):       # nothing else remains
        PPRankRLS(X, [2], [2])
    with pytest.raises(IndexError):
        PPRankRLS(X, [0, 6], [1, 2])
    with pytest.raises(ValueError, match="length"):
        PPRankRLS(X, [0, 1, 2], [1, 2])
    with pytest.raises(ValueError, match="cost"):
        PPRankRLS(X, [0], [1], cost="squared")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PPRankRLS(X, np.array([0, 1]), np.array([1, 2]), regparam=1)
