"""From the scikit-learn ``cv`` and ``scoring`` arguments to the cross-validators of
:mod:`rlscore.core.selection`, which compute every estimate with the exact hold-out
shortcuts of the core model (no retraining)."""

import numbers

import numpy as np
from sklearn.model_selection import BaseCrossValidator, check_cv

from rlscore import measure as _measures
from rlscore.core.structure import QueryGroups
from rlscore._validation import as_index_array
from rlscore.core.selection import (LOOCV, LPOCV, NfoldCV, QueryLPOCV, TrainTestCV,
                                    defined_queries, grid_search)

__all__ = ["resolve_scoring", "make_crossvalidator", "split_crossvalidator",
           "search_alphas", "QuerySplitter"]


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

    ``"loo"`` gives :class:`LOOCV`, ``"lpo"`` :class:`LPOCV`; with ``groups`` (query
    ids) both are scored per query as in every face (:class:`LOOCV` with the groups: a
    per-query measure scores each query's leave-one-out predictions and averages over
    the queries, the others pool; :class:`QueryLPOCV`: the pairs within each query).
    An int k gives the K-fold test folds of ``sklearn.model_selection.KFold(k)`` and a
    splitter or an iterable of (train, test) their splits, all through
    :class:`NfoldCV` when every training set is the complement of its test set, else
    through :class:`TrainTestCV`.
    """
    m = model.Y.shape[0]
    if isinstance(cv, str):
        qg = None if groups is None else QueryGroups.from_qids(groups, m, name="groups")
        if cv == "loo":
            return LOOCV(model, measure, qg)
        if cv == "lpo":
            return LPOCV(model, measure) if qg is None else QueryLPOCV(model, qg)
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
        result = grid_search(build_crossvalidator(), alphas)
    except _measures.UndefinedPerformance as exc:
        raise ValueError(f"the cross-validation measure is undefined on these "
                         f"data: {exc}") from exc
    # grid_search re-solved the model at the best alpha
    estimator._set_fitted_attributes()
    estimator.alpha_ = float(result.best)
    estimator.best_index_ = result.best_index
    estimator.best_score_ = float(result.scores[result.best_index])
    estimator.cv_results_ = {
        "alphas": np.asarray(alphas, dtype=np.float64),
        "cv_performances": np.asarray(result.performances, dtype=np.float64),
        "mean_test_score": result.scores,
        "rank_test_score": result.ranks,
    }
    return estimator


class QuerySplitter(BaseCrossValidator):
    """Splits of whole queries for scikit-learn's model selection, each test set
    holding only the queries on which the score is defined.

    A query whose labels are all tied (or that has one sample) has no pair to rank:
    the c-index is undefined on it. The learners' and ``RankRLSCV``'s cross-validation
    skip such queries (:func:`rlscore.core.selection.query_score`), and a split left
    with none of the others. scikit-learn's ``GridSearchCV`` cannot skip a split: the
    estimator's ``score`` raises there, the split's score becomes NaN, the mean over
    the splits is NaN for every candidate and the first candidate is chosen (with a
    warning). This splitter removes those queries from the test sets beforehand
    (:func:`rlscore.core.selection.defined_queries`), and drops a split left without a
    test query, so that ``GridSearchCV(RankRLS(), cv=QuerySplitter(...))`` computes
    what the library's cross-validation computes: with
    ``LeaveOneGroupOut()``, the scores of ``LeaveQueryOutRankRLS`` and
    ``RankRLSCV(cv="lqo")``; with an int k, those of ``RankRLSCV(cv=k)``,
    ``KfoldQueryRankRLS(folds=k)`` and ``rlscore cv --cv kfold --folds k`` (the mean
    over the folds of each fold's per-query mean). Each training set stays the
    complement of the original test set (the queries skipped in scoring are held out
    too, as in the library's folds).

    Parameters
    ----------
    cv : int >= 2, group splitter or list of (train, test), default=5
        int k: the k folds of whole queries of
        :meth:`rlscore.core.structure.QueryGroups.folds` (seed ``random_state``), the
        library's one rule for K-fold by query. A splitter (``LeaveOneGroupOut()``,
        ``GroupKFold(5)``, ...) is given the query ids as its ``groups``.
    scoring : None, str or measure function, default=None
        The measure that decides which queries are defined, named as in
        ``RankRLSCV``'s ``scoring``; None means the c-index (the ranking estimators'
        ``score``).
    random_state : int or None, default=0
        Seed of the folds of an int ``cv``.

    Notes
    -----
    ``split`` needs ``y`` and ``groups`` (the query ids; requested through metadata
    routing). Cost: one evaluation of the measure per query (O(m log m) for the
    c-index) plus the splits of ``cv``, on every call of ``split`` and
    ``get_n_splits``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import LeaveOneGroupOut
    >>> from rlscore.estimators import QuerySplitter
    >>> y = np.array([0, 1, 2, 1, 1, 1, 0, 2])
    >>> q = np.array([0, 0, 0, 1, 1, 1, 2, 2])          # query 1: labels all tied
    >>> cv = QuerySplitter(LeaveOneGroupOut())
    >>> [test.tolist() for _, test in cv.split(y[:, None], y, q)]
    [[0, 1, 2], [6, 7]]
    """

    __metadata_request__split = {"groups": True}

    def __init__(self, cv=5, *, scoring=None, random_state=0):
        self.cv = cv
        self.scoring = scoring
        self.random_state = random_state

    def _base_splits(self, X, y, ids, groups, m):
        cv = self.cv
        if isinstance(cv, numbers.Integral) and not isinstance(cv, (bool, np.bool_)):
            try:
                folds = groups.folds(int(cv), self.random_state)
            except ValueError as exc:
                raise ValueError(f"QuerySplitter(cv={cv}): {exc}") from None
            every = np.arange(m)
            return [(np.setdiff1d(every, f), f) for f in folds]
        if isinstance(cv, (str, bool, np.bool_, numbers.Number)) or cv is None:
            raise ValueError(f"QuerySplitter: cv must be an int >= 2, a group splitter "
                             f"or a list of (train, test) splits, got {cv!r}")
        # the splitter gets the ids as given (GroupKFold breaks ties by their values)
        return _splits(cv, X, y, ids, m)

    def split(self, X, y=None, groups=None):
        """(train, test) index arrays of whole queries, each test set restricted to
        the queries on which the score is defined; splits left without one are
        dropped.

        Raises
        ------
        ValueError
            ``y`` or ``groups`` missing or of another length than X; no split holds a
            query with a defined score.
        """
        if y is None:
            raise ValueError("QuerySplitter.split needs y: which queries have a score "
                             "depends on their labels")
        if groups is None:
            raise ValueError("QuerySplitter.split needs groups, the query id of each "
                             "sample (with metadata routing: GridSearchCV(...).fit(X, y, "
                             "groups=qid))")
        y = np.asarray(y)
        m = y.shape[0]
        if X is not None and np.shape(X)[0] != m:
            raise ValueError(f"y has {m} rows, but X has {np.shape(X)[0]} samples")
        gr = QueryGroups.from_qids(groups, m, name="groups")
        base = self._base_splits(np.zeros((m, 1)) if X is None else X, y, groups, gr, m)
        measure = _measures.cindex if self.scoring is None else \
            resolve_scoring(self.scoring, None)
        scored = defined_queries(measure, y, gr)[gr.codes]
        kept = [(train, test[scored[test]]) for train, test in base]
        kept = [(train, test) for train, test in kept if test.size]
        if not kept:
            raise ValueError("no split holds a query on which the score is defined "
                             "(every query has a single sample or all its labels tied)")
        return iter(kept)

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of splits ``split`` gives for these data (it depends on the
        labels: needs ``y`` and ``groups``)."""
        return sum(1 for _ in self.split(X, y, groups))
