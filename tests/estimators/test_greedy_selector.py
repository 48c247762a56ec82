"""GreedyRLSSelector: scikit-learn's estimator checks, use in a Pipeline, agreement
with the RLScore-compatible GreedyRLS / GreedyRankRLS and with brute-force LOO."""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from rlscore.estimators._cg import CGRLSRegressor  # noqa: E402
from rlscore.estimators._greedy import GreedyRLSSelector  # noqa: E402
from rlscore.learner.greedy_rls import GreedyRankRLS, GreedyRLS  # noqa: E402


@parametrize_with_checks([GreedyRLSSelector(), GreedyRLSSelector(3, alpha=0.1, bias=0.0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_recovers_the_informative_features(rng):
    X = rng.normal(size=(200, 30))
    y = 3 * X[:, 4] - 2 * X[:, 17] + X[:, 9] + 0.1 * rng.normal(size=200)
    sel = GreedyRLSSelector(3, alpha=1e-2).fit(X, y)
    assert sel.selected_features_.tolist() == [4, 17, 9]
    assert sel.get_support(indices=True).tolist() == [4, 9, 17]
    assert sel.transform(X).shape == (200, 3)
    assert np.all(np.diff(sel.performances_) < 0)
    assert sel.coef_.shape == (30,) and np.count_nonzero(sel.coef_) == 3


def test_agrees_with_learners(rng):
    X = rng.random((40, 15))
    Y = rng.normal(size=(40, 2))
    sel = GreedyRLSSelector(5, alpha=2.0, bias=0.5).fit(X, Y)
    g = GreedyRLS(X, Y, 5, regparam=2.0, bias=0.5)
    assert sel.selected_features_.tolist() == g.selected
    np.testing.assert_allclose(sel.performances_, g.performances)
    np.testing.assert_allclose(sel.coef_, g.A.T)
    np.testing.assert_allclose(sel.intercept_, g.b[0])
    q = np.repeat(np.arange(8), 5)
    sel = GreedyRLSSelector(4, alpha=2.0).fit(X, Y[:, 0], qid=q)
    r = GreedyRankRLS(X, Y[:, 0], q, 4, regparam=2.0)
    assert sel.selected_features_.tolist() == r.selected
    sel2 = GreedyRLSSelector(4, alpha=2.0).fit(X, Y[:, 0], groups=q)
    assert sel2.selected_features_.tolist() == r.selected and sel2.intercept_ == 0.0
    with pytest.raises(ValueError, match="not both"):
        GreedyRLSSelector(4).fit(X, Y[:, 0], qid=q, groups=q)


def test_pipeline_and_parameters(rng):
    X = rng.normal(size=(100, 20))
    y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=100)
    pipe = make_pipeline(GreedyRLSSelector(2, alpha=0.1), CGRLSRegressor(alpha=0.1))
    pipe.fit(X, y)
    assert pipe.score(X, y) > 0.95
    assert GreedyRLSSelector(0.25).fit(X, y).selected_features_.size == 5
    assert GreedyRLSSelector().fit(X, y).selected_features_.size == 10
    assert GreedyRLSSelector(25).fit(X, y).selected_features_.size == 20
    for bad in (0, 1.5, -0.1, "3"):
        with pytest.raises((ValueError, TypeError)):
            GreedyRLSSelector(bad).fit(X, y)
    with pytest.raises(ValueError):
        GreedyRLSSelector(2, alpha=0.0).fit(X, y)
    Xc = X.copy()
    Xc[:, :19] = 1.0
    with pytest.warns(UserWarning, match="skipped"):
        assert GreedyRLSSelector(2).fit(Xc, y).selected_features_.tolist() == [19]
    with pytest.warns(UserWarning, match="skipped"):
        with pytest.raises(ValueError, match="usable"):
            GreedyRLSSelector(2).fit(np.ones((10, 3)), y[:10])
