"""RankSVMModel and ranksvm_kfold_cv: the core objects the command line's RankSVM rows
train and select with, against the solvers they wrap and against cold refits fold by
fold (the brute force of the K-fold estimate)."""

import numpy as np
import pytest

from rlscore.core.ranksvm import (RankSVMModel, RankSVMOptions, fit_kernel_ranksvm,
                                  fit_linear_ranksvm, kfold_ranksvm, ranksvm_kfold_cv)
from rlscore.core.selection import RefitModel, grid_search
from rlscore.measure import cindex, sqerror

pytestmark = pytest.mark.filterwarnings("ignore:the selected regparam")


def _data(seed=3, m=90, d=4, queries=True):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    s = X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(m)
    y = np.digitize(s, np.quantile(s, [0.4, 0.75])).astype(float)
    q = np.repeat(np.arange(m // 6), 6) if queries else None
    return X, y, q


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_linear_model_is_the_linear_solver(loss):
    X, y, q = _data()
    options = RankSVMOptions(loss=loss)
    model = RankSVMModel.fit(X, y, q, 0.1, options=options)
    sol, _ = fit_linear_ranksvm(X, y, q, 0.1, options=options)
    np.testing.assert_array_equal(model.solution.w, sol.w)
    np.testing.assert_allclose(model.predict(X), X @ sol.w, rtol=1e-12, atol=1e-14)
    assert model.regparam == 0.1 and model.options is options


def test_kernel_model_is_the_kernel_solver():
    X, y, q = _data()
    model = RankSVMModel.fit(X, y, q, 0.1, "GaussianKernel", X[:20], gamma=0.3)
    sol, predictor = fit_kernel_ranksvm(X, y, q, 0.1, "GaussianKernel", X[:20],
                                        gamma=0.3)
    np.testing.assert_array_equal(model.solution.w, sol.w)
    np.testing.assert_array_equal(model.predict(X), predictor.predict(X))


def test_model_refuses_a_bad_regparam():
    X, y, q = _data()
    with pytest.raises(ValueError, match="regparam"):
        RankSVMModel.fit(X, y, q, -1.0)


@pytest.mark.parametrize("queries", [True, False])
def test_kfold_cv_is_cold_refits_fold_by_fold(queries):
    """grid_search over ranksvm_kfold_cv: each grid value's estimate is the mean over
    the folds of the measure of a cold refit on the fold's training rows (per query
    with qids), its best value and model those of kfold_ranksvm."""
    X, y, q = _data(queries=queries)
    m = X.shape[0]
    folds = ([np.flatnonzero(q % 3 == k) for k in range(3)] if queries
             else [np.arange(k, m, 3) for k in range(3)])
    grid = [1e-3, 0.1, 10.0]
    sel = grid_search(ranksvm_kfold_cv(X, y, q, folds=folds, measure=sqerror), grid)
    brute = []
    for r in grid:
        per_fold = []
        for f in folds:
            train = np.setdiff1d(np.arange(m), f)
            sol, _ = fit_linear_ranksvm(X[train], y[train],
                                        None if q is None else q[train], r)
            p = X[f] @ sol.w
            if q is None:
                per_fold.append(sqerror(y[f], p))
            else:
                per_fold.append(np.mean([sqerror(y[f][q[f] == g], p[q[f] == g])
                                         for g in np.unique(q[f])]))
        brute.append(np.mean(per_fold))
    np.testing.assert_allclose(sel.performances, brute, rtol=1e-10)
    assert sel.best == grid[int(np.argmin(brute))]
    out = kfold_ranksvm(X, y, q, folds=folds, regparams=grid, measure=sqerror)
    np.testing.assert_allclose(out["cv_performances"], sel.performances, rtol=1e-12)
    assert out["best_regparam"] == sel.best
    assert isinstance(sel.model, RefitModel)
    final = sel.model.learner
    assert isinstance(final, RankSVMModel) and final.regparam == sel.best
    np.testing.assert_allclose(final.solution.w, out["solution"].w, rtol=1e-12)
    np.testing.assert_array_equal([np.sort(f) for f in out["folds"]],
                                  [np.sort(f) for f in folds])


def test_kfold_cv_refuses_bad_folds():
    X, y, q = _data()
    with pytest.raises(ValueError, match="at least 2 folds"):
        ranksvm_kfold_cv(X, y, q, folds=[np.arange(X.shape[0])])
    with pytest.raises(ValueError, match="splits a query"):
        ranksvm_kfold_cv(X, y, q, folds=[np.arange(0, 40), np.arange(40, 90)])


def test_kfold_cv_default_measure_is_the_cindex():
    X, y, _ = _data(queries=False)
    folds = [np.arange(k, 90, 3) for k in range(3)]
    a = grid_search(ranksvm_kfold_cv(X, y, folds=folds), [0.1])
    b = grid_search(ranksvm_kfold_cv(X, y, folds=folds, measure=cindex), [0.1])
    np.testing.assert_array_equal(a.performances, b.performances)
