"""PooledQueryCV, ValidationCV and RefitModel (rlscore.core.selection) against
brute force written out here: for each fold the model retrained without it, its
predictions pooled, and the measure of each query on its own (the c-index of the query's
rows, or NDCG@5 by the LETOR rules written below) averaged over every query by a loop;
the validation measure of a model trained at each regparam; the grid search's choice the
arg-max of those values."""

import warnings

import numpy as np
import pytest

from rlscore.core.structure import QueryGroups
from rlscore.core.rankrls import QueryRankRLSModel
from rlscore.core.nystrom import RLSModel
from rlscore.core.selection import EdgeOfGridWarning, NfoldCV, grid_search
from rlscore.core.selection import PooledQueryCV, RefitModel, ValidationCV
from rlscore.learner import LinearRankSVM
from rlscore.measure import UndefinedPerformance, cindex, ndcg, sqerror

GRID = [1e-3, 0.1, 10.0, 1e3]


def _ndcg5_by_hand(y, p):
    """LETOR 4.0 NDCG@5 of one query (Eval-Score-4.0.pl): gain 2^l - 1, ranks 1, 2
    undiscounted, 1/log2(r) after; 0 without a relevant document or with < 5 rows."""
    if len(y) < 5:
        return 0.0
    disc = [1.0 if r <= 2 else 1.0 / np.log2(r) for r in range(1, 6)]
    order = sorted(range(len(y)), key=lambda i: -p[i])          # stable: ties keep order
    dcg = sum((2.0 ** y[i] - 1) * d for i, d in zip(order[:5], disc))
    idcg = sum((2.0 ** g - 1) * d for g, d in zip(sorted(y, reverse=True)[:5], disc))
    return dcg / idcg if idcg > 0 else 0.0


def _mean_over_queries(per_query, y, p, q):
    """The per-query measure of every query (in a loop), undefined queries skipped, the
    plain mean of the rest: each query weighs the same."""
    vals = []
    for g in dict.fromkeys(q.tolist()):
        rows = np.flatnonzero(q == g)
        try:
            vals.append(per_query(y[rows], p[rows]))
        except UndefinedPerformance:
            pass
    return np.mean(vals) if vals else np.nan


def _pooled_by_hand(fit_predict, X, y, q, folds, lam):
    """Predictions of every row by the model trained without its fold."""
    P = np.full(len(y), np.nan)
    for fold in folds:
        rest = np.setdiff1d(np.arange(len(y)), fold)
        P[fold] = np.ravel(fit_predict(X[rest], y[rest], q[rest], lam, X[fold]))
    assert not np.isnan(P).any()
    return P


def _data(rng, nq=12, per=(3, 9)):
    sizes = rng.integers(per[0], per[1], size=nq)
    q = np.repeat(np.arange(nq), sizes)
    rng.shuffle(q)                                    # queries need not be contiguous
    X = rng.normal(size=(q.size, 4))
    y = np.clip(np.round(X @ [0.9, -0.6, 0.4, 0.0] + 0.8 * rng.normal(size=q.size)), 0, 3)
    y[q == 3] = 1.0                                   # all tied: no pair for the c-index
    return X, y, q


def _ndcg5(Y, P, qids=None):
    return ndcg(Y, P, qids, k=5)


_ndcg5.iserror = False

# (measure given to the cross-validator, the measure of one query in the loop by hand)
MEASURES = {"cindex": (cindex, cindex), "ndcg5": (_ndcg5, _ndcg5_by_hand)}


def _rls(Xt, yt, qt, lam, Xf):
    return RLSModel(Xt, yt, lam).predictor.predict(Xf)


def _qrank(Xt, yt, qt, lam, Xf):
    return QueryRankRLSModel(Xt, yt, qt, lam).predictor.predict(Xf)


def _ranksvm(Xt, yt, qt, lam, Xf):
    return LinearRankSVM(Xt, yt, qt, regparam=lam).predict(Xf)


def _ranksvm_refit(X, y, q):
    def train(rows, lam):
        rows = slice(None) if rows is None else rows
        return LinearRankSVM(X[rows], y[rows], q[rows], regparam=lam)
    return RefitModel(train, X, y)


def _select(cv, grid):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EdgeOfGridWarning)
        return grid_search(cv, grid)


# --------------------------------------------------------------- PooledQueryCV

@pytest.mark.parametrize("mname", list(MEASURES))
@pytest.mark.parametrize("learner", ["rls-kfold", "qrank-lqo", "ranksvm-kfold"])
def test_pooled_query_cv_equals_refits_and_per_query_loop(rng, learner, mname):
    X, y, q = _data(rng)
    groups = QueryGroups.from_qids(q)
    measure, by_hand = MEASURES[mname]
    if learner == "rls-kfold":            # exact hold-out of any rows
        model, fit_predict, folds = RLSModel(X, y, GRID[0], path=True), _rls, \
            groups.folds(4, seed=2)
    elif learner == "qrank-lqo":          # exact hold-out of one query
        model, fit_predict, folds = QueryRankRLSModel(X, y, q, GRID[0], decompose_now=True), \
            _qrank, None
    else:                                 # no shortcut: retrained without each fold
        model, fit_predict, folds = _ranksvm_refit(X, y, q), _ranksvm, \
            groups.folds(3, seed=5)
    cv = PooledQueryCV(model, measure, groups, folds=folds)
    hand_folds = groups.split() if folds is None else folds
    perfs, preds, best = _select(cv, GRID)
    expected = []
    for lam, P in zip(GRID, preds):
        P_hand = _pooled_by_hand(fit_predict, X, y, q, hand_folds, lam)
        np.testing.assert_allclose(np.ravel(P), P_hand, rtol=1e-7, atol=1e-9)
        expected.append(_mean_over_queries(by_hand, y, P_hand, q))
    np.testing.assert_allclose(perfs, expected, rtol=1e-9, atol=1e-12)
    assert best == GRID[int(np.argmax(expected))]
    # the model is left solved at the chosen value
    np.testing.assert_allclose(np.ravel(model.predictor.predict(X)),
                               np.ravel(fit_predict(X, y, q, best, X)), rtol=1e-6,
                               atol=1e-9)


def test_pooled_is_not_the_mean_of_fold_means(rng):
    # every query weighs the same: with folds of unequal numbers of queries the pooled
    # estimate differs from NfoldCV's mean over folds of per-query means
    X, y, q = _data(rng, nq=7)
    groups = QueryGroups.from_qids(q)
    codes = groups.codes
    folds = [np.flatnonzero(codes < 1), np.flatnonzero(codes >= 1)]
    model = RLSModel(X, y, 1.0, path=True)
    pooled, P = PooledQueryCV(model, _ndcg5, groups, folds=folds).cv(1.0)
    per_fold, _ = NfoldCV(model, _ndcg5, folds, groups=groups).cv(1.0)
    assert pooled == pytest.approx(_mean_over_queries(_ndcg5_by_hand, y, P, q), rel=1e-12)
    assert pooled != pytest.approx(per_fold, rel=1e-6)


def test_pooled_query_cv_plain_measure_is_averaged_over_queries(rng):
    X, y, q = _data(rng)
    groups = QueryGroups.from_qids(q)
    model = RLSModel(X, y, 0.5, path=True)
    perf, P = PooledQueryCV(model, sqerror, groups, folds=groups.folds(3)).cv(0.5)
    by_hand = _mean_over_queries(lambda a, b: np.mean((a - b) ** 2), y, np.ravel(P), q)
    assert perf == pytest.approx(by_hand, rel=1e-12)


def test_pooled_query_cv_undefined_everywhere_is_nan(rng):
    X, _, q = _data(rng, nq=5)
    y = np.ones(len(q))
    groups = QueryGroups.from_qids(q)
    perf, _ = PooledQueryCV(RLSModel(X, y, 1.0, path=True), cindex, groups).cv(1.0)
    assert np.isnan(perf)


def test_pooled_query_cv_bad_folds(rng):
    X, y, q = _data(rng, nq=6)
    groups = QueryGroups.from_qids(q)
    model = RLSModel(X, y, 1.0, path=True)
    split = [np.arange(0, 5), np.arange(5, len(y))]           # cuts queries
    with pytest.raises(ValueError, match="whole queries"):
        PooledQueryCV(model, cindex, groups, folds=split)
    with pytest.raises(ValueError, match="exactly once"):
        PooledQueryCV(model, cindex, groups, folds=groups.folds(3)[:2])
    with pytest.raises(ValueError, match="folds is empty"):
        PooledQueryCV(model, cindex, groups, folds=[])
    with pytest.raises(ValueError, match="groups"):
        PooledQueryCV(model, cindex, None)
    with pytest.raises(ValueError, match="groups"):
        PooledQueryCV(model, cindex, q[:-1])


# ----------------------------------------------------------------- ValidationCV

@pytest.mark.parametrize("with_groups", [True, False])
@pytest.mark.parametrize("learner", ["rls", "ranksvm"])
def test_validation_cv_equals_models_trained_at_each_regparam(rng, learner, with_groups):
    X, y, q = _data(rng, nq=16)
    tr, va = q < 10, q >= 10
    Xt, yt, qt = X[tr], y[tr], q[tr]
    fit_predict = _rls if learner == "rls" else _ranksvm
    model = RLSModel(Xt, yt, GRID[0], path=True) if learner == "rls" else \
        _ranksvm_refit(Xt, yt, qt)
    cv = ValidationCV(model, cindex, X[va], y[va], q[va] if with_groups else None)
    perfs, preds, best = _select(cv, GRID)
    expected = []
    for lam, P in zip(GRID, preds):
        P_hand = np.ravel(fit_predict(Xt, yt, qt, lam, X[va]))
        np.testing.assert_allclose(np.ravel(P), P_hand, rtol=1e-7, atol=1e-9)
        expected.append(_mean_over_queries(cindex, y[va], P_hand, q[va])
                        if with_groups else cindex(y[va], P_hand))
    np.testing.assert_allclose(perfs, expected, rtol=1e-9, atol=1e-12)
    assert best == GRID[int(np.argmax(expected))]


def test_validation_cv_uses_the_given_predict(rng):
    X, y, q = _data(rng)
    model = RLSModel(X, y, 1.0, path=True)
    shift = np.arange(len(y), dtype=float)
    seen = []

    def predict(predictor, Xv):
        seen.append(predictor)
        return np.ravel(predictor.predict(Xv)) + shift
    perf, P = ValidationCV(model, sqerror, X, y, predict=predict).cv(1.0)
    assert seen == [model.predictor]
    np.testing.assert_allclose(P, np.ravel(model.predictor.predict(X)) + shift)
    assert perf == pytest.approx(np.mean((y - P) ** 2), rel=1e-12)


def test_validation_cv_bad_input(rng):
    X, y, q = _data(rng)
    model = RLSModel(X, y, 1.0)
    with pytest.raises(ValueError, match="Y must have"):
        ValidationCV(model, cindex, X, y[:-1])
    with pytest.raises(ValueError, match="groups"):
        ValidationCV(model, cindex, X, y, q[:-2])
    with pytest.raises(TypeError, match="predict"):
        ValidationCV(model, cindex, X, y, predict="predict")
    with pytest.raises(TypeError, match="X must be"):
        ValidationCV(model, cindex, list(X), y)


# ------------------------------------------------------------------ RefitModel

def test_refit_model_holdout_and_predictor(rng):
    X, y, q = _data(rng)
    calls = []

    def train(rows, lam):
        calls.append(None if rows is None else rows.copy())
        rows = slice(None) if rows is None else rows
        return RLSModel(X[rows], y[rows], lam)
    model = RefitModel(train, X, y)
    with pytest.raises(ValueError, match="solve"):
        model.holdout([0, 1])
    model.solve(0.3)
    hold = [4, 1, 7]
    np.testing.assert_allclose(model.holdout(hold), _rls(np.delete(X, hold, 0),
                                                         np.delete(y, hold), None, 0.3,
                                                         X[hold]), rtol=1e-10)
    np.testing.assert_array_equal(calls[-1], np.setdiff1d(np.arange(len(y)), hold))
    # the full model: trained once per regparam, its predictor exposed
    p1 = model.predictor
    assert model.predictor is p1 and calls[-1] is None and len(calls) == 2
    np.testing.assert_allclose(p1.predict(X), _rls(X, y, None, 0.3, X), rtol=1e-10)
    model.solve(3.0)
    assert model.predictor is not p1 and len(calls) == 3
    with pytest.raises(ValueError, match="every example"):
        model.holdout(np.arange(len(y)))
    with pytest.raises(IndexError):
        model.holdout([len(y)])


def test_refit_model_bad_arguments(rng):
    X, y, _ = _data(rng)
    with pytest.raises(TypeError, match="train"):
        RefitModel("fit", X, y)
    with pytest.raises(ValueError, match="Y must have"):
        RefitModel(lambda rows, lam: None, X, y[:3])
