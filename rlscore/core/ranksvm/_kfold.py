"""Model selection of the linear RankSVM by K-fold cross-validation over queries: the
cross-validator (:func:`ranksvm_kfold_cv`, for :func:`rlscore.core.selection.grid_search`)
and the whole selection with the final training (:func:`kfold_ranksvm`)."""

import numbers
from dataclasses import replace

import numpy as np

from rlscore.core.structure import QueryGroups, as_query_groups
from rlscore.core.ranksvm._model import RankSVMModel
from rlscore.core.ranksvm._options import RankSVMOptions
from rlscore.core.ranksvm._ranksvm import (fit_linear_ranksvm, make_risk, ranksvm_regparam,
                                           train_ranksvm)
from rlscore.core.ranksvm._risk import _as_features, check_utilities
from rlscore._validation import check_index_folds, check_positive_int

__all__ = ["ranksvm_kfold_cv", "kfold_ranksvm"]

#: The grid of :func:`kfold_ranksvm` when none is given: 10^-6, 10^-5, ..., 10^2.
DEFAULT_REGPARAMS = tuple(10.0 ** k for k in range(-6, 3))


def ranksvm_kfold_cv(X, y, qids=None, *, folds=5, measure=None, seed=0, options=None):
    """The K-fold cross-validator of the linear RankSVM (folds of whole queries), for
    :func:`rlscore.core.selection.grid_search`.

    Parameters
    ----------
    X, y, qids, folds, measure, seed, options : as for :func:`kfold_ranksvm`.

    Returns
    -------
    rlscore.core.selection.RefitCV
        One risk structure per fold; ``cv(regparam)`` trains every fold at that
        regparam from a cold start (as :func:`fit_linear_ranksvm` on the fold's
        training rows would: the solvers stop within tol of the minimizer, so a warm
        start from another regparam would make the estimate depend on the rest of the
        grid). Its model (``rls``) is a :class:`rlscore.core.selection.RefitModel` of
        :class:`RankSVMModel` on all rows: the ``model`` of the grid search's
        :class:`~rlscore.core.selection.SelectionResult` trains once, at the chosen
        regparam, when its ``learner`` or ``predictor`` is first read. The fold
        trainings run without ConvergenceWarning and progress lines, the final one
        without progress lines.

    Raises
    ------
    ValueError
        Bad labels or qids, folds that overlap, split a query or are fewer than 2.

    Notes
    -----
    O(m log m) per fold for its risk structure, here; each ``cv(regparam)`` then K
    trainings on (K - 1) / K of the data, O(iterations (m log m + nnz)) each.
    """
    from rlscore.core.selection import RefitCV, RefitModel
    from rlscore.measure import cindex

    options = RankSVMOptions() if options is None else options
    Xf = _as_features(X)
    m = Xf.shape[0]
    y = check_utilities(y, m)
    groups = as_query_groups(qids, m)
    if isinstance(folds, numbers.Integral) and not isinstance(folds, bool):
        n_folds = check_positive_int(folds, "folds")
        folds = (groups or QueryGroups.singletons(m)).folds(n_folds, seed)
    else:
        folds = check_index_folds(folds, m, "folds")
    if len(folds) < 2:
        raise ValueError("K-fold cross-validation needs at least 2 folds")
    if groups is not None and not all(groups.whole(f) for f in folds):
        raise ValueError("a fold splits a query: folds must hold whole queries")
    final_options = replace(options, verbose=False)
    fold_options = replace(final_options, warn=False)
    codes = None if groups is None else groups.codes

    def fit_split(train, test):
        try:
            risk = make_risk(Xf[train], y[train], None if codes is None else codes[train],
                             options.loss, options.normalize)
        except ValueError:
            return None            # no pairs in this training set
        Xte = Xf[test]

        def predict_at(regparam):
            sol = train_ranksvm(risk, regparam, fold_options)
            return np.asarray(Xte @ sol.w).ravel()
        return predict_at

    def train_all(rows, regparam):
        if rows is None:            # all rows: the data as they are, not a copy
            return RankSVMModel.fit(Xf, y, groups, regparam, options=final_options)
        return RankSVMModel.fit(Xf[rows], y[rows], None if codes is None else codes[rows],
                                regparam, options=final_options)

    splits = [(np.setdiff1d(np.arange(m), f), f) for f in folds]
    return RefitCV(y, measure if measure is not None else cindex, splits, fit_split,
                   groups=groups, rls=RefitModel(train_all, Xf, y))


def kfold_ranksvm(X, y, qids=None, *, folds=5, regparams=None, measure=None, seed=0,
                  options=None):
    """Choose regparam by K-fold cross-validation (folds of whole queries), then train
    on all the data: :func:`ranksvm_kfold_cv` and
    :func:`rlscore.core.selection.grid_search`.

    Parameters
    ----------
    X, y : data and utilities.
    qids : query ids, a :class:`rlscore.core.structure.QueryGroups`, or None (one global
        ranking, folds of examples).
    folds : int or list of index lists, default 5
        An int: that many random folds of whole queries drawn with ``seed``
        (:meth:`QueryGroups.folds`; of examples without qids); a list: the folds.
    regparams : grid, default 10^-6 ... 10^2 (9 values). Every regparam of every fold
        is trained from a cold start (as :func:`fit_linear_ranksvm` on the fold's
        training rows would), so the estimate at a regparam does not depend on which
        other values the grid holds.
    options : RankSVMOptions or None, as in :func:`fit_linear_ranksvm` (loss,
        normalize, optimizer, rtol, maxiter; "squared_hinge" trains with the
        trust-region Newton method by default). The fold trainings run without
        ConvergenceWarning and progress lines.
    measure : f(Y, P) with ``iserror``; default the c-index. With qids every measure
        is evaluated per query (:func:`rlscore.core.selection.query_score`: the mean
        over the fold's queries, queries where it is undefined -- e.g. without a pair
        -- skipped; a measure with a ``qids`` parameter gets the fold's query ids).

    Returns
    -------
    dict with keys regparams, cv_performances (per regparam, mean over folds),
    fold_performances (n_regparams, n_folds), best_regparam, solution (trained on all
    the data), risk, folds.

    Notes
    -----
    K (folds) x n_regparams RankSVM trainings on (K - 1) / K of the data, each
    O(iterations (m log m + nnz)), plus one risk structure per fold (O(m log m)).
    """
    from rlscore.core.selection import grid_search

    options = RankSVMOptions() if options is None else options
    Xf = _as_features(X)
    groups = as_query_groups(qids, Xf.shape[0])                   # encoded once
    grid = [ranksvm_regparam(r, "regparams")
            for r in (DEFAULT_REGPARAMS if regparams is None else regparams)]
    if not grid:
        raise ValueError("regparams is empty")
    cv = ranksvm_kfold_cv(Xf, y, groups, folds=folds, measure=measure, seed=seed,
                          options=options)
    try:
        mean, _, best = grid_search(cv, grid)
    except ValueError as exc:
        if "NaN" not in str(exc):
            raise
        raise ValueError("the cross-validation measure is undefined on every fold") \
            from None
    perfs = np.array([cv.split_performances[float(r)] for r in grid])
    sol, risk = fit_linear_ranksvm(cv.rls.X, cv.rls.Y, groups, best,
                                   options=replace(options, verbose=False))
    return dict(regparams=np.asarray(grid), cv_performances=mean,
                fold_performances=perfs, best_regparam=best, solution=sol,
                risk=risk, folds=[test for _, test in cv.splits])
