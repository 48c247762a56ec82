"""From the scikit-learn ``cv`` and ``scoring`` arguments to the cross-validators of
:mod:`rlscore.core.selection`, which compute every estimate with the exact hold-out
shortcuts of the core model (no retraining)."""

import numbers

import numpy as np
from sklearn.model_selection import check_cv

from rlscore import measure as _measures
from rlscore._validation import as_index_array
from rlscore.core.selection import LOOCV, LPOCV, NfoldCV, TrainTestCV, grid_search

__all__ = ["resolve_scoring", "make_crossvalidator", "split_crossvalidator",
           "search_alphas"]


def _measure_by_name(name):
    """The measure of a name of the library's one table of measure names
    (:func:`rlscore.measure.measure_by_name`: ``"cindex"``, ``"ndcg@5"``, ``"p@5"``,
    ``"map"``, ``"roc_auc"``, ...). The per-query measures come as their
    :class:`~rlscore.measure.Measure` (called with query ids, scored per query, a cutoff
    or convention kept); the others as the plain function, which the cross-validators
    average over queries when there are groups
    (:func:`rlscore.core.selection.query_score`)."""
    try:
        m = _measures.measure_by_name(name, "scoring")
    except ValueError as exc:
        raise ValueError(f"{exc}; scoring={name!r} is not an rlscore measure name: give "
                         f"one of the table or pass a measure function") from None
    return m if m.per_query else m.function


def resolve_scoring(scoring, cv):
    """The rlscore measure for ``scoring``: None, a name of the library's table of
    measure names (:func:`rlscore.measure.measure_by_name`: ``"ndcg@5"``, ``"p@5"``,
    ``"map"``, ``"kendall"``, scikit-learn's ``"roc_auc"``, and the function names such
    as ``"mean_average_precision"``) or a measure function ``f(Y, P)`` with a boolean
    ``iserror`` attribute."""
    is_lpo = isinstance(cv, str) and cv == "lpo"
    if isinstance(scoring, str):
        f = _measure_by_name(scoring)
    elif scoring is None:
        f = _measures.cindex if is_lpo else _measures.sqerror
    elif callable(scoring):
        if not isinstance(getattr(scoring, "iserror", None), (bool, np.bool_)):
            raise TypeError(
                "scoring must be an rlscore measure: a function f(Y, P) with a boolean "
                "attribute iserror (True when smaller is better); set "
                "f.iserror = True or False on your function")
        f = scoring
    else:
        raise TypeError(f"scoring must be None, a measure name or a measure function, "
                        f"got {scoring!r}")
    pairwise = (f in (_measures.cindex, _measures.auc)
                or getattr(f, "kind", None) in ("cindex", "auc"))
    if is_lpo and not pairwise:
        raise ValueError(
            "cv='lpo' estimates the pairwise ranking accuracy (c-index / AUC): scoring "
            "must be None, 'cindex' or 'auc'")
    return f


def _splits(cv, X, y, groups, m):
    """List of (train, test) index arrays from an int, a splitter or an iterable."""
    splitter = check_cv(cv, y, classifier=False)
    splits = []
    for k, (train, test) in enumerate(splitter.split(X, y, groups)):
        train = as_index_array(train, m, f"the training indices of split {k}",
                               allow_empty=True, mask=True)
        test = as_index_array(test, m, f"the test indices of split {k}",
                              allow_empty=True, mask=True)
        if test.size == 0:
            raise ValueError(f"split {k} has no test samples")
        if train.size == 0:
            raise ValueError(f"split {k} has no training samples")
        if np.intersect1d(train, test).size:
            raise ValueError(f"split {k}: training and test indices overlap")
        splits.append((train, test))
    if not splits:
        raise ValueError("cv produced no splits")
    return splits


def make_crossvalidator(cv, model, measure, X, y, groups):
    """The cross-validator of :mod:`rlscore.core.selection` for ``cv``.

    ``"loo"`` gives :class:`LOOCV`, ``"lpo"`` :class:`LPOCV`; an int k the K-fold test
    folds of ``sklearn.model_selection.KFold(k)`` and a splitter or an iterable of
    (train, test) their splits, all through :class:`NfoldCV` when every training set is
    the complement of its test set, else through :class:`TrainTestCV`.
    """
    m = model.Y.shape[0]
    if isinstance(cv, str):
        if cv == "loo":
            return LOOCV(model, measure)
        if cv == "lpo":
            return LPOCV(model, measure)
        raise ValueError(f"cv must be 'loo', 'lpo', an int, a CV splitter or an "
                         f"iterable of (train, test) splits, got {cv!r}")
    if isinstance(cv, (bool, np.bool_)) or (
            isinstance(cv, numbers.Real) and not isinstance(cv, numbers.Integral)):
        raise ValueError(f"cv must be 'loo', 'lpo', an int >= 2, a CV splitter or an "
                         f"iterable of (train, test) splits, got {cv!r}")
    return split_crossvalidator(model, measure, _splits(cv, X, y, groups, m))


def split_crossvalidator(model, measure, splits, groups=None):
    """:class:`NfoldCV` over the test sets when every training set is the complement of
    its test set, else :class:`TrainTestCV`; both hold out with the model's exact
    shortcut (``holdout_rows`` of query RankRLS for several queries at once) and score
    a split per query when ``groups`` (a QueryGroups of the model's rows) is given."""
    m = model.Y.shape[0]
    if all(train.size + test.size == m for train, test in splits):
        return NfoldCV(model, measure, [test for _, test in splits], groups)
    return TrainTestCV(model, measure, splits, groups)


def search_alphas(estimator, build_crossvalidator, alphas):
    """Choose alpha for a fitted CV estimator whose ``model_`` was fitted with
    ``path=True``: run the grid search of ``build_crossvalidator()`` (called once),
    then set the fitted attributes, ``alpha_``, ``best_index_``, ``best_score_`` and
    ``cv_results_`` (scores in scikit-learn's larger-is-better convention). An undefined
    measure becomes a ValueError. O(len(alphas)) cross-validations."""
    try:
        crossvalidator = build_crossvalidator()
        perfs, _, best = grid_search(crossvalidator, alphas)
    except _measures.UndefinedPerformance as exc:
        raise ValueError(f"the cross-validation measure is undefined on these "
                         f"data: {exc}") from exc
    best_index = alphas.index(best)
    # grid_search re-solved the model at the best alpha
    estimator._set_fitted_attributes()
    iserror = bool(getattr(crossvalidator.measure, "iserror", False))
    scores = -perfs if iserror else perfs.copy()
    order = np.where(np.isnan(scores), -np.inf, scores)
    rank = 1 + np.array([np.sum(order > s) for s in order], dtype=np.int32)
    estimator.alpha_ = float(best)
    estimator.best_index_ = int(best_index)
    estimator.best_score_ = float(scores[best_index])
    estimator.cv_results_ = {
        "alphas": np.asarray(alphas, dtype=np.float64),
        "cv_performances": np.asarray(perfs, dtype=np.float64),
        "mean_test_score": scores,
        "rank_test_score": rank,
    }
    return estimator
