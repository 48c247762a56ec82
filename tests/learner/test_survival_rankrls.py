"""SurvivalRankRLS (learner face) against PPRankRLS on the enumerated comparability
pairs and against refits of itself without the held-out rows."""

import numpy as np
import pytest

from rlscore.learner import PPRankRLS, SurvivalRankRLS


def _data(seed=0, m=30):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 4))
    time = rng.integers(0, 6, m).astype(float)
    event = rng.random(m) < 0.6
    event[0] = True
    time[0] = 0.0
    time[1] = 9.0
    return X, time, event


def _pairs(event, time):
    S, E = [], []
    for i in range(len(time)):
        for j in range(len(time)):
            if event[i] and j != i and (time[i] < time[j]
                                        or (time[i] == time[j] and not event[j])):
                S.append(i)
                E.append(j)
    return S, E


@pytest.mark.parametrize("kw", [{}, {"kernel": "GaussianKernel", "gamma": 0.4}])
def test_learner_equals_pprankrls_on_enumerated_pairs_and_refits(kw):
    X, time, event = _data()
    s, e = _pairs(event, time)
    learner = SurvivalRankRLS(X, time, event, regparam=0.8, **kw)
    ref = PPRankRLS(X, s, e, regparam=0.8, **kw)
    np.testing.assert_allclose(learner.predict(X), ref.predict(X), atol=1e-9)
    learner.solve(3.0)
    ref.solve(3.0)
    np.testing.assert_allclose(learner.predict(X), ref.predict(X), atol=1e-9)
    folds = [np.arange(0, 30, 3), np.arange(1, 30, 3)]
    for h, P in zip(folds, learner.holdout(folds)):
        keep = np.setdiff1d(np.arange(30), h)
        refit = SurvivalRankRLS(X[keep], time[keep], event[keep], regparam=3.0, **kw)
        np.testing.assert_allclose(P, np.ravel(refit.predict(X[h])), atol=1e-10)
    loo = learner.leave_one_out()
    keep = np.arange(1, 30)
    refit = SurvivalRankRLS(X[keep], time[keep], event[keep], regparam=3.0, **kw)
    assert loo[0] == pytest.approx(np.ravel(refit.predict(X[:1]))[0], abs=1e-10)
