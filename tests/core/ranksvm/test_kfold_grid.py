"""K-fold selection of the linear RankSVM: the estimate at a regparam does not depend
on the rest of the grid (issue 44, item 2).

The folds warm-started every regparam from the previous one's solution (and, for the
bundle method, its cutting planes); the solvers stop within tol of the minimizer, so
the estimate at lambda = 0.01 changed with the other values of the grid. Each
estimate must be that of cold refits on the folds' training rows, computed here with
the learner itself, fold by fold.
"""

import numpy as np
import pytest

from rlscore.learner import KfoldLinearRankSVM, LinearRankSVM
from rlscore.measure import sqerror

LAMBDA = 0.01
pytestmark = pytest.mark.filterwarnings("ignore:the selected regparam")


def _data(seed=7, nq=18, size=8, d=5):
    rng = np.random.default_rng(seed)
    m = nq * size
    X = rng.standard_normal((m, d))
    s = X @ rng.standard_normal(d) + rng.standard_normal(m)
    y = np.digitize(s, np.quantile(s, [0.5, 0.8])).astype(float)
    q = np.repeat(np.arange(nq), size)
    folds = [np.flatnonzero(q % 3 == k) for k in range(3)]
    return X, y, q, folds


def _per_query_sqerror(y, p, q):
    """The mean over the queries of the mean squared error inside each query (the
    per-query convention of the selection, written out)."""
    return np.mean([np.mean((y[q == qq] - p[q == qq]) ** 2) for qq in np.unique(q)])


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_estimate_at_lambda_is_the_cold_refit_whatever_the_grid(loss):
    """A continuous measure (the squared error of the scores, per query) sees any
    change of the models, so the estimates must be equal to round-off."""
    X, y, q, folds = _data()
    kw = dict(folds=folds, measure=sqerror, loss=loss)
    grids = ([LAMBDA], [0.1, LAMBDA], [LAMBDA, 0.1, 1.0], [1e-3, 1.0, LAMBDA, 1e-4])
    rows = []
    for grid in grids:
        cv = KfoldLinearRankSVM(X, y, q, regparams=grid, **kw)
        rows.append(cv.fold_performances[grid.index(LAMBDA)])
    m = X.shape[0]
    cold = []
    for f in folds:
        train = np.setdiff1d(np.arange(m), f)
        model = LinearRankSVM(X[train], y[train], q[train], regparam=LAMBDA, loss=loss)
        cold.append(_per_query_sqerror(y[f], model.predict(X[f]), q[f]))
    for row in rows:
        np.testing.assert_allclose(row, cold, rtol=1e-10, atol=0)


def test_learner_selection_uses_the_cold_estimates():
    """cv_performances is the mean of those per-fold cold-refit estimates, and the
    final model is the learner's at the selected regparam."""
    X, y, q, folds = _data(seed=11)
    grid = [1e-3, 0.1, 10.0]
    cv = KfoldLinearRankSVM(X, y, q, folds=folds, regparams=grid, measure=sqerror)
    m = X.shape[0]
    for j, lam in enumerate(grid):
        est = []
        for f in folds:
            train = np.setdiff1d(np.arange(m), f)
            model = LinearRankSVM(X[train], y[train], q[train], regparam=lam)
            est.append(_per_query_sqerror(y[f], model.predict(X[f]), q[f]))
        np.testing.assert_allclose(cv.cv_performances[j], np.mean(est), rtol=1e-10)
    assert cv.regparam == grid[int(np.argmin(cv.cv_performances))]
    ref = LinearRankSVM(X, y, q, regparam=cv.regparam)
    np.testing.assert_allclose(cv.predict(X), ref.predict(X), rtol=1e-12, atol=1e-14)
