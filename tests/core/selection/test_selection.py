"""The one home of model selection: the grid search (and its edge-of-grid warning) and
the cross-validators, each compared with explicit refits and per-query measures written
out by hand."""

import warnings

import numpy as np
import pytest

from rlscore.core.structure import QueryGroups
from rlscore.core.rankrls import QueryRankRLSModel
from rlscore.core.ranksvm import RankSVMOptions, fit_linear_ranksvm, kfold_ranksvm
from rlscore.core.nystrom import RLSModel
from rlscore.core.selection import EdgeOfGridWarning, LQOCV, NfoldCV, grid_search, query_score
from rlscore.core.selection import RefitCV
from rlscore.measure import UndefinedPerformance, cindex, sqerror


def _per_query_by_hand(measure, y, p, qids):
    """Mean of ``measure`` over the queries where it is defined (it raises
    UndefinedPerformance or returns None elsewhere)."""
    vals = []
    for q in dict.fromkeys(qids):
        rows = [i for i in range(len(qids)) if qids[i] == q]
        try:
            v = measure(y[rows], p[rows])
        except UndefinedPerformance:
            continue
        if v is not None:
            vals.append(v)
    return np.mean(vals)


def _query_data(rng, m=48, nq=8, d=4):
    X = rng.normal(size=(m, d))
    y = X @ rng.normal(size=d) + 0.5 * rng.normal(size=m)
    q = rng.integers(0, nq, size=m)
    q[:nq] = np.arange(nq)
    return X, np.round(y, 1), q


# ------------------------------------------------------------------------ grid search

class _FixedCV:
    """A cross-validator whose performances are given: tests the grid search alone."""

    def __init__(self, perfs, iserror=False):
        self.perfs = dict(perfs)
        self.rls = None

        def measure(y, p):
            return 0.0
        measure.iserror = iserror
        self.measure = measure

    def cv(self, value):
        return self.perfs[value], None


@pytest.mark.parametrize("perfs, iserror, warns", [
    ({1: 0.9, 2: 0.8, 4: 0.7}, False, True),       # still improving at the small end
    ({1: 0.7, 2: 0.8, 4: 0.9}, False, True),       # ... at the large end
    ({1: 0.7, 2: 0.9, 4: 0.8}, False, False),      # interior optimum
    ({1: 0.9, 2: 0.9, 4: 0.7}, False, False),      # plateau reaching the edge
    ({1: 0.1, 2: 0.2, 4: 0.3}, True, True),        # error measure: smallest is best
    ({1: 0.9, 4: 0.7}, False, False),              # two values: no inside to compare
])
def test_edge_of_grid_warning(perfs, iserror, warns):
    cv = _FixedCV(perfs, iserror)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        _, _, best = grid_search(cv, list(perfs))
    hit = [w for w in rec if issubclass(w.category, EdgeOfGridWarning)]
    assert bool(hit) == warns
    assert issubclass(EdgeOfGridWarning, UserWarning)
    expected = (min if iserror else max)(perfs, key=lambda k: perfs[k])
    assert best == expected


def test_quickstart_loo_edge_is_reported():
    # the quickstart's situation: noise-free linear data, LOO keeps improving as the
    # regularization vanishes, so 2^-15 wins and the user is told
    from rlscore.learner import LeaveOneOutRLS
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = X @ rng.normal(size=5)
    with pytest.warns(EdgeOfGridWarning, match="smallest"):
        lrn = LeaveOneOutRLS(X, y)
    assert lrn.regparam == 2.0 ** -15


# ------------------------------------------------------------------ per-query scores

def test_query_score_equals_per_query_loop(rng, cindex_by_hand):
    y = np.round(rng.normal(size=30), 1)
    p = rng.normal(size=30)
    q = rng.integers(0, 6, size=30)
    y[q == 2] = 1.0                                   # a query without pairs: skipped
    groups = QueryGroups.from_qids(q)
    by_hand = _per_query_by_hand(cindex_by_hand, y, p, q)
    assert query_score(cindex, y, p, groups) == pytest.approx(by_hand, rel=1e-12)
    assert query_score(cindex, y, p, q) == pytest.approx(by_hand, rel=1e-12)
    assert query_score(sqerror, y, p, groups) == pytest.approx(
        _per_query_by_hand(lambda a, b: np.mean((a - b) ** 2), y, p, q), rel=1e-12)


# -------------------------------------------------------- cross-validators vs refits

def test_nfold_by_query_equals_refits_scored_per_query(rng, cindex_by_hand):
    X, y, q = _query_data(rng)
    groups = QueryGroups.from_qids(q)
    folds = groups.folds(3, seed=1)
    # RLS holds out any rows exactly; scored per query of the fold
    model = RLSModel(X, y, 1.0, path=True)
    for lam in (0.1, 10.0):
        model.solve(lam)
        perf, preds = NfoldCV(model, cindex, folds, groups=groups).cv(lam)
        manual = []
        for f in folds:
            train = np.setdiff1d(np.arange(len(y)), f)
            refit = RLSModel(X[train], y[train], lam)
            P = refit.predictor.predict(X[f]).ravel()
            manual.append(_per_query_by_hand(cindex_by_hand, y[f], P, q[f]))
        assert perf == pytest.approx(np.mean(manual), rel=1e-9)


def test_lqocv_equals_refits(rng, cindex_by_hand):
    X, y, q = _query_data(rng, m=36, nq=6)
    model = QueryRankRLSModel(X, y, q, 1.0, decompose_now=True)
    model.solve(0.5)
    perf, preds = LQOCV(model, cindex).cv(0.5)
    manual = []
    for g, rows in enumerate(QueryGroups.from_qids(q).split()):
        train = np.setdiff1d(np.arange(len(y)), rows)
        P = QueryRankRLSModel(X[train], y[train], q[train], 0.5).predictor.predict(X[rows])
        np.testing.assert_allclose(preds[g].ravel(), np.ravel(P), rtol=1e-8, atol=1e-10)
        manual.append(cindex_by_hand(y[rows], np.ravel(P)))
    assert None not in manual                         # every held-out query has a pair
    assert perf == pytest.approx(np.mean(manual), rel=1e-9)


def test_refitcv_grid_search_equals_explicit_refits(rng):
    X = rng.normal(size=(30, 3))
    y = X @ [1.0, -1.0, 0.5] + rng.normal(size=30)
    folds = [np.arange(0, 10), np.arange(10, 20), np.arange(20, 30)]
    splits = [(np.setdiff1d(np.arange(30), f), f) for f in folds]

    def fit_split(train, test):
        return lambda lam: RLSModel(X[train], y[train], lam).predictor.predict(X[test])
    grid = [0.01, 1.0, 100.0]
    cv = RefitCV(y, sqerror, splits, fit_split)
    with pytest.warns(EdgeOfGridWarning):        # noise-free enough: smallest wins
        perfs, _, best = grid_search(cv, grid)
    manual = [np.mean([sqerror(y[te], RLSModel(X[tr], y[tr], lam).predictor.predict(X[te]))
                       for tr, te in splits]) for lam in grid]
    np.testing.assert_allclose(perfs, manual, rtol=1e-12)
    assert best == grid[int(np.argmin(manual))]


def test_kfold_ranksvm_takes_a_per_query_measure(rng):
    X, y, q = _query_data(rng, m=80, nq=10)
    grid = [1e-3, 1e-1, 10.0]

    def top1(y_q, p_q):
        """Per-query measure: the label of the top-scored item (undefined when tied)."""
        if np.all(y_q == y_q[0]):
            raise UndefinedPerformance("tied")
        return float(y_q[np.argmax(p_q)])
    top1.iserror = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EdgeOfGridWarning)
        out = kfold_ranksvm(X, y, q, folds=3, regparams=grid, measure=top1,
                            options=RankSVMOptions(rtol=1e-8))
    folds = QueryGroups.from_qids(q).folds(3, seed=0)
    for k, f in enumerate(out["folds"]):
        np.testing.assert_array_equal(f, folds[k])
    for i, lam in enumerate(grid):
        for k, f in enumerate(folds):
            train = np.setdiff1d(np.arange(len(y)), f)
            sol, _ = fit_linear_ranksvm(X[train], y[train], q[train], lam,
                                        options=RankSVMOptions(rtol=1e-8))
            P = X[f] @ sol.w
            manual = _per_query_by_hand(top1, y[f], P, q[f])
            assert out["fold_performances"][i, k] == pytest.approx(manual, abs=1e-6)
    assert out["best_regparam"] == grid[int(np.argmax(out["cv_performances"]))]


def test_grid_search_params_equals_the_explicit_double_loop(rng):
    from rlscore.core.selection import LOOCV, grid_search_params
    X = rng.normal(size=(40, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    gammas, lams = [0.01, 0.3, 10.0], [1e-3, 1e-1, 10.0]

    def build(gamma):
        return RLSModel(X, y, lams[0], kernel="GaussianKernel", gamma=gamma, path=True)
    out = grid_search_params(build, {"gamma": gammas}, lams,
                             lambda m: LOOCV(m, sqerror))
    manual = np.array([[sqerror(y, RLSModel(X, y, lam, kernel="GaussianKernel",
                                            gamma=g).leave_one_out())
                        for lam in lams] for g in gammas])
    np.testing.assert_allclose(out["performances"], manual, rtol=1e-8)
    i, j = np.unravel_index(np.argmin(manual), manual.shape)
    assert out["best_setting"] == {"gamma": gammas[i]}
    assert out["best_regparam"] == lams[j]
    ref = RLSModel(X, y, lams[j], kernel="GaussianKernel", gamma=gammas[i])
    np.testing.assert_allclose(out["model"].predictor.predict(X),
                               ref.predictor.predict(X), rtol=1e-8)


def test_a_measure_taking_qids_gets_the_fold_query_ids(rng, cindex_by_hand):
    from rlscore.learner import KfoldLinearRankSVM
    from rlscore.measure import query_cindex
    X, y, q = _query_data(rng, m=60, nq=9)
    grid = [1e-3, 1e-1, 10.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EdgeOfGridWarning)
        a = KfoldLinearRankSVM(X, y, q, n_folds=3, regparams=grid, tol=1e-8)
        b = KfoldLinearRankSVM(X, y, q, n_folds=3, regparams=grid, tol=1e-8,
                               measure=query_cindex)
    np.testing.assert_allclose(a.fold_performances, b.fold_performances, rtol=1e-12)
    # and both are the per-query c-index of explicit refits
    for k, f in enumerate(a.folds):
        train = np.setdiff1d(np.arange(len(y)), f)
        sol, _ = fit_linear_ranksvm(X[train], y[train], q[train], grid[1],
                                    options=RankSVMOptions(rtol=1e-8))
        manual = _per_query_by_hand(cindex_by_hand, y[f], X[f] @ sol.w, q[f])
        assert a.fold_performances[1, k] == pytest.approx(manual, abs=1e-6)
