"""Folds that share a row are refused by every K-fold hold-out that takes user folds
(issue 44.12): the K-fold selections of the learners (KfoldRLS, KfoldRankRLS,
KfoldQueryRankRLS, KfoldLinearRankSVM), the Kronecker fold hold-outs (KronRLS and
TwoStepRLS, folds of objects and of pairs), pooled folds of queries and prediction
intervals from fold models -- all through the one check
(rlscore._validation.fold_membership). Before, a row in two folds silently got the
prediction of the later fold. Repeated splits of the estimators (scored one by one)
still overlap legitimately."""

import numpy as np
import pytest

from rlscore._validation import fold_membership
from rlscore.learner import (KfoldLinearRankSVM, KfoldQueryRankRLS, KfoldRankRLS,
                             KfoldRLS, KronRLS, RLS, TwoStepRLS)

OVERLAP = r"folds\[0\] and folds\[1\] both hold (index 2|the pair)"


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 3))
    y = X @ np.array([1.0, -0.5, 0.2]) + 0.1 * rng.normal(size=12)
    return X, y


def test_fold_membership_names_both_folds_and_the_row():
    assert fold_membership([np.array([3, 1]), np.array([0])], 5).tolist() == \
        [1, 0, -1, 0, -1]
    with pytest.raises(ValueError, match=r"folds\[0\] and folds\[2\] both hold index 4"):
        fold_membership([np.array([4]), np.array([0]), np.array([1, 4])], 5)
    with pytest.raises(ValueError, match="leave 2 of the 5 rows in no fold"):
        fold_membership([np.array([4]), np.array([0, 1])], 5, cover=True)


@pytest.mark.parametrize("learner", [KfoldRLS, KfoldRankRLS])
def test_kfold_learners_refuse_overlapping_folds(data, learner):
    X, y = data
    with pytest.raises(ValueError, match=OVERLAP):
        learner(X, y, folds=[[0, 1, 2], [2, 3, 4], [5, 6]], regparams=[0.1, 1.0])
    # disjoint folds that do not cover every row are still accepted, and equal refits
    folds = [[0, 1, 2], [3, 4], [7, 9]]
    sel = learner(X, y, folds=folds, regparams=[1.0])
    for fold, pred in zip(folds, sel.cv_predictions[0]):
        rest = np.setdiff1d(np.arange(12), fold)
        base = RLS if learner is KfoldRLS else type(sel.learner)
        refit = base(X[rest], y[rest], regparam=1.0)
        np.testing.assert_allclose(pred, refit.predict(X[fold]), rtol=1e-8, atol=1e-10)


def test_kfold_query_rankrls_refuses_overlapping_folds(data):
    X, y = data
    qids = np.repeat([0, 1, 2, 3], 3)
    with pytest.raises(ValueError, match=r"folds\[0\] and folds\[1\] both hold index"):
        KfoldQueryRankRLS(X, y, qids, folds=[[0, 1, 2, 3, 4, 5], [3, 4, 5, 6, 7, 8],
                                             [9, 10, 11]], regparams=[1.0])


def test_kfold_ranksvm_refuses_overlapping_folds(data):
    X, y = data
    with pytest.raises(ValueError, match=OVERLAP):
        KfoldLinearRankSVM(X, y, None, folds=[[0, 1, 2], [2, 3, 4], [5, 6, 7]],
                           regparams=[1.0])


def _kron_data():
    rng = np.random.default_rng(7)
    X1, X2 = rng.normal(size=(6, 3)), rng.normal(size=(5, 4))
    return X1 @ X1.T + np.eye(6), X2 @ X2.T + np.eye(5), rng.normal(size=(6, 5))


@pytest.mark.parametrize("make", [
    lambda K1, K2, Y: KronRLS(K1=K1, K2=K2, Y=Y, regparam=0.5),
    lambda K1, K2, Y: TwoStepRLS(K1=K1, K2=K2, Y=Y, regparam1=0.5, regparam2=2.0)])
def test_kronecker_fold_holdouts_refuse_overlapping_folds(make):
    model = make(*_kron_data())
    bad = [[0, 1, 2], [2, 3]]
    with pytest.raises(ValueError, match=OVERLAP):
        model.x1_kfold_cv(bad)
    with pytest.raises(ValueError, match=OVERLAP):
        model.x2_kfold_cv(bad)
    with pytest.raises(ValueError, match=r"rowfolds\[0\] and rowfolds\[1\] both hold"):
        model.out_of_sample_kfold_cv(bad, [[0, 1], [2, 3]])
    with pytest.raises(ValueError, match=r"colfolds\[0\] and colfolds\[1\] both hold"):
        model.out_of_sample_kfold_cv([[0, 1], [2, 3]], bad)
    # folds of pairs: the pair (row 2, column 1) in both folds, as (rows, cols) and flat
    pairs = [([0, 2], [0, 1]), ([2, 3], [1, 1])]
    with pytest.raises(ValueError, match=r"both hold the pair \(row 2, column 1\)"):
        model.in_sample_kfoldcv(pairs)
    with pytest.raises(ValueError, match=r"both hold the pair \(row 2, column 1\)"):
        model.in_sample_kfoldcv([np.array([0, 8]), np.array([8, 9])])


def test_prediction_intervals_refuse_overlapping_folds(data):
    X, y = data
    rls = RLS(X, y, regparam=1.0)
    with pytest.raises(ValueError, match=r"both hold index 2.*CV\+"):
        rls.predict_interval(X[:2], method="cv+",
                             folds=[[0, 1, 2, 3], [2, 4, 5, 6, 7], [8, 9, 10, 11]])


def test_pooled_query_folds_refuse_overlap(data):
    from rlscore._groups import QueryGroups
    from rlscore.core.nystrom import RLSModel
    from rlscore.core.selection import PooledQueryCV
    from rlscore.measure import cindex
    X, y = data
    groups = QueryGroups.from_qids(np.repeat([0, 1, 2, 3], 3))
    model = RLSModel(X, y, 1.0, path=True)
    with pytest.raises(ValueError, match=r"both hold index 3.*exactly once"):
        PooledQueryCV(model, cindex, groups,
                      folds=[np.arange(0, 6), np.arange(3, 9), np.arange(9, 12)])


def test_repeated_splits_of_the_estimators_still_overlap(data):
    # RepeatedKFold's test sets overlap across repetitions: each split is scored on its
    # own, the mean over the splits (not a K-fold hold-out), as refits give it
    pytest.importorskip("sklearn")
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import RepeatedKFold
    from rlscore.estimators import KernelRLSCV
    X, y = data
    cv = list(RepeatedKFold(n_splits=3, n_repeats=2, random_state=0).split(X))
    est = KernelRLSCV(alphas=[1.0], kernel="linear", bias=0.0, cv=cv).fit(X, y)
    mse = [np.mean((Ridge(alpha=1.0, fit_intercept=False).fit(X[tr], y[tr])
                    .predict(X[te]) - y[te]) ** 2) for tr, te in cv]
    np.testing.assert_allclose(-est.best_score_, np.mean(mse), rtol=1e-8)
