"""Model selection on pooled hold-out predictions, on a validation set, and by refits.

The cross-validators of :mod:`rlscore.core.selection` score each fold on its own. The
ones here cover what a fold-wise score does not, and the learners without a hold-out
shortcut:

=======================  ==============================================================
:class:`PooledQueryCV`   folds of whole queries; the hold-out predictions of all folds
                         pooled and the measure computed per query over every query
                         (each query predicted by the model trained without its fold)
:class:`ValidationCV`    the measure of a separate validation set (per query when it has
                         query groups) for the model at each regparam
:class:`RefitModel`      ``solve`` / ``holdout`` / ``predictor`` by retraining, so that
                         any learner stands where a hold-out shortcut is expected
:class:`RefitCV`         any (train, test) splits, one model trained per split
=======================  ==============================================================

Each follows the cross-validator protocol of :func:`rlscore.core.selection.grid_search`;
this module builds on :mod:`rlscore.core.selection` (which does not import it back).
The fold loop is :meth:`rlscore.core.selection.NfoldCV.predictions`, the per-query score
:func:`rlscore.core.selection.query_score`, the query structure a
:class:`rlscore.core.structure.QueryGroups`.

Example: choose the regparam of a linear RankSVM (no hold-out shortcut: it is retrained
without each fold) by 4-fold cross-validation over whole queries, NDCG@5 per query::

    import numpy as np
    from rlscore.core.structure import QueryGroups
    from rlscore.core.selection import grid_search
    from rlscore.core.selection import PooledQueryCV, RefitModel
    from rlscore.learner import LinearRankSVM
    from rlscore.measure import ndcg

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    q = np.repeat(np.arange(20), 6)
    y = np.clip(np.round(X @ [1.0, -0.5, 0.3, 0.0, 0.2] + rng.normal(size=120)), 0, 2)
    groups = QueryGroups.from_qids(q)

    def train(rows, regparam):            # rows None: all rows
        rows = slice(None) if rows is None else rows
        return LinearRankSVM(X[rows], y[rows], q[rows], regparam=regparam)

    def ndcg5(Y, P, qids=None):
        return ndcg(Y, P, qids, k=5)

    cv = PooledQueryCV(RefitModel(train, X, y), ndcg5, groups,
                       folds=groups.folds(4, seed=0))
    perfs, _, best = grid_search(cv, [0.01, 1.0, 100.0])
"""

import numpy as np

from rlscore._groups import as_query_groups
from rlscore._validation import as_index_array, fold_membership
from rlscore.measure import UndefinedPerformance
from rlscore.core.selection._cv import NfoldCV
from rlscore.core.selection._scores import _score, groups_of, query_score, subset_groups

__all__ = ["PooledQueryCV", "ValidationCV", "RefitModel", "RefitCV"]


def _n_rows(X, name):
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) == 0:
        raise TypeError(f"{name} must be an array or sparse matrix with one row per "
                        f"example, got {type(X).__name__}")
    return int(shape[0])


def _labels(Y, m, name="Y"):
    Y = np.asarray(Y)
    if Y.ndim not in (1, 2) or Y.shape[0] != m:
        raise ValueError(f"{name} must have {m} rows (one label per row of X), got shape "
                         f"{Y.shape}")
    return Y


def _or_nan(score):
    """``score()``, or NaN when the measure is undefined (the grid search skips NaN)."""
    try:
        return float(score())
    except UndefinedPerformance:
        return np.nan


# ---------------------------------------------------------------------------------------
# retraining in place of a hold-out shortcut


class RefitModel:
    """A learner's ``solve`` / ``holdout`` / ``predictor`` by retraining.

    Stands where the cross-validators expect a model with an exact hold-out shortcut
    (:class:`rlscore.core.selection.NfoldCV`, :class:`PooledQueryCV`,
    :class:`ValidationCV`) for learners that have none (RankSVM): ``holdout(rows)``
    trains on the other rows at the current regparam and predicts ``rows``.

    Parameters
    ----------
    train : callable ``train(rows, regparam) -> fitted``
        Trains at ``regparam`` on the rows ``rows`` (an increasing intp array, or None
        for all m rows) and returns an object with ``predict(X_rows)``, or with a
        ``predictor`` that has one (a model of :mod:`rlscore.core`); its ``predictor``,
        when present, is :attr:`predictor`. What stays the same in every retraining
        -- kernel parameters, Nystrom basis vectors, the query ids of the rows -- is
        the callable's business.
    X : array or sparse matrix, m rows
        The rows that ``holdout`` predicts (``X[rows]``).
    Y : array-like, shape (m,) or (m, p)
        The labels (the cross-validators read ``Y``).

    Attributes
    ----------
    Y : ndarray
    regparam : the value of the last ``solve``, None before it

    Raises
    ------
    TypeError
        ``train`` is not callable, or X has no ``shape``.
    ValueError
        Y does not have one row per row of X.

    Notes
    -----
    ``solve`` records the value, O(1); ``holdout(rows)`` is one training on
    m - len(rows) rows and one prediction of len(rows) rows; :attr:`learner` one
    training on all m rows per regparam, done on first access and cached.
    """

    def __init__(self, train, X, Y):
        if not callable(train):
            raise TypeError(f"train must be callable as train(rows, regparam), got "
                            f"{type(train).__name__}")
        self.train = train
        self.X = X
        self.m = _n_rows(X, "X")
        self.Y = _labels(Y, self.m)
        self.regparam = None
        self._learner = None

    def solve(self, regparam):
        """Set the regparam of the next ``holdout`` and ``learner``. O(1)."""
        self.regparam = regparam
        self._learner = None

    def _check_solved(self):
        if self.regparam is None:
            raise ValueError("call solve(regparam) before asking for predictions")

    @property
    def learner(self):
        """The model trained on all m rows at the current regparam (cached)."""
        self._check_solved()
        if self._learner is None:
            self._learner = self.train(None, self.regparam)
        return self._learner

    @property
    def predictor(self):
        """The predictor of :attr:`learner` (the learner itself when it has none)."""
        return getattr(self.learner, "predictor", self.learner)

    def holdout(self, rows):
        """Predictions for ``rows`` of the model trained on the other rows.

        Raises
        ------
        ValueError, IndexError
            Bad indices (as :func:`rlscore._validation.as_index_array`), or ``rows``
            holding every row.
        """
        self._check_solved()
        rows = as_index_array(rows, self.m, name="rows")
        keep = np.setdiff1d(np.arange(self.m), rows)
        if keep.size == 0:
            raise ValueError("rows hold out every example; nothing is left to train on")
        fitted = self.train(keep, self.regparam)
        predict = getattr(fitted, "predict", None)
        if predict is None:
            predict = fitted.predictor.predict
        return predict(self.X[rows])


# ---------------------------------------------------------------------------------------
# pooled folds of whole queries


class PooledQueryCV:
    """Cross-validation over folds of whole queries, scored per query over every query.

    For each fold the model predicts the fold's rows from the other rows
    (``rls.holdout(fold)``: the exact shortcut of RLS / RankRLS, ``rls.holdout_rows``
    of query RankRLS, or retraining through :class:`RefitModel`); the hold-out
    predictions of all folds are pooled into one vector, in which every query is
    predicted by the model trained without its fold, and the measure is computed per
    query and averaged over all queries (:func:`rlscore.core.selection.query_score`).
    A ranking measure is therefore never pooled across queries, and every query weighs
    the same whatever the size of its fold: the *pooled* K-fold estimate.
    (:class:`rlscore.core.selection.NfoldCV` with ``groups`` instead averages the
    per-fold means: K-fold by query as every face computes it -- the command line's
    ``--cv kfold``, ``KfoldQueryRankRLS``, ``RankRLSCV(cv=k)`` --, a different number
    when the folds hold different numbers of queries.) With ``folds=None`` each query
    is its own fold: leave-query-out, where the two agree (the command line's
    ``--cv lqo`` for learners without a leave-query-out class).

    Parameters
    ----------
    rls : model with ``Y``, ``holdout(rows)`` and ``solve(regparam)``
    measure : f(Y, P) with a boolean ``iserror``; a measure taking ``qids`` is called
        with the query codes of all rows
    groups : QueryGroups, or one query id per row
    folds : list of index arrays, optional
        Each holds whole queries; together they hold every row exactly once. Default:
        one fold per query (:meth:`QueryGroups.split`); ``groups.folds(K, seed)`` gives
        K random folds.
    Y : array-like, optional
        Labels to score against; default ``rls.Y``.

    Raises
    ------
    ValueError
        ``folds`` is empty, splits a query, or does not hold every row exactly once;
        ``groups`` or ``Y`` do not match the model's rows.

    Notes
    -----
    ``cv(regparam)`` returns ``(performance, P)``, P the pooled (m,) or (m, p) hold-out
    predictions; the performance is NaN when the measure is undefined on every query.
    Cost per regparam: one ``holdout`` per fold plus one per-query measure, O(m log m)
    for the ranking measures.
    """

    def __init__(self, rls, measure, groups, folds=None, Y=None):
        self.rls = rls
        self.measure = measure
        self.Y = rls.Y if Y is None else Y
        m = np.shape(self.Y)[0]
        self.Y = _labels(self.Y, m)
        self.groups = as_query_groups(groups, m, "groups")
        if self.groups is None:
            raise ValueError("groups is required: the query of each row")
        if folds is None:
            folds = self.groups.split()
        self.folds = [as_index_array(f, m, name=f"folds[{k}]") for k, f in enumerate(folds)]
        if not self.folds:
            raise ValueError("folds is empty")
        fold_membership(self.folds, m, "folds", cover=True,
                        why=f" (pooled folds hold each of the {m} rows exactly once)")
        for k, f in enumerate(self.folds):
            if not self.groups.whole(f):
                raise ValueError(f"folds[{k}] splits a query: folds must hold whole "
                                 f"queries (QueryGroups.folds or QueryGroups.split)")
        self._nfold = NfoldCV(rls, measure, self.folds)

    def cv(self, regparam):
        m = self.Y.shape[0]
        P = None
        for fold, Pf in zip(self.folds, self._nfold.predictions()):
            Pf = np.asarray(Pf, dtype=np.float64).reshape(fold.size, -1)
            if P is None:
                P = np.empty((m, Pf.shape[1]))
            P[fold] = Pf
        P = P[:, 0] if P.shape[1] == 1 else P
        return _or_nan(lambda: query_score(self.measure, self.Y, P, self.groups)), P


# ---------------------------------------------------------------------------------------
# a validation set


class ValidationCV:
    """The measure of a validation set for the model at each regparam.

    ``cv(regparam)`` predicts the validation rows with the model as solved by the grid
    search (``rls.predictor``) and scores them: per query
    (:func:`rlscore.core.selection.query_score`) when ``groups`` is given, else the
    measure of all rows.

    Parameters
    ----------
    rls : model with ``solve(regparam)`` and ``predictor`` (a :class:`RefitModel` for
        learners without a cheap re-solve)
    measure : f(Y, P) with a boolean ``iserror``
    X : array or sparse matrix, the validation rows
    Y : array-like (n,) or (n, p), their labels
    groups : QueryGroups or one query id per validation row, optional
    predict : callable ``predict(predictor, X) -> P``, optional
        How the predictor predicts X; default ``predictor.predict(X)`` (a caller can,
        e.g., correct for features that the model never saw).

    Raises
    ------
    TypeError
        X has no ``shape``, or ``predict`` is not callable.
    ValueError
        Y or groups do not have one entry per row of X.

    Notes
    -----
    ``cv(regparam)`` returns ``(performance, P)`` (NaN when the measure is undefined);
    it costs one prediction of the n validation rows and one measure, after the
    grid search's ``solve``.
    """

    def __init__(self, rls, measure, X, Y, groups=None, predict=None):
        if predict is not None and not callable(predict):
            raise TypeError(f"predict must be callable as predict(predictor, X), got "
                            f"{type(predict).__name__}")
        n = _n_rows(X, "X")
        self.rls = rls
        self.measure = measure
        self.X = X
        self.Y = _labels(Y, n)
        self.groups = as_query_groups(groups, n, "groups")
        self.predict = predict

    def cv(self, regparam):
        predictor = self.rls.predictor
        if self.predict is None:
            P = np.asarray(predictor.predict(self.X), dtype=np.float64)
        else:
            P = self.predict(predictor, self.X)
        return _or_nan(lambda: _score(self.measure, self.Y, P, self.groups)), P


# ---------------------------------------------------------------------------------------
# one model trained per split


class RefitCV:
    """Cross-validation that trains one model per split, for models without a
    hold-out shortcut for these splits.

    Parameters
    ----------
    Y : (m,) or (m, p) labels
    measure : f(Y, P) with ``iserror``
    splits : list of (train, test) index arrays
    fit_split : callable ``fit_split(train, test) -> predict_at`` or None
        Trains on ``train`` and returns ``predict_at(value) -> predictions of the test
        rows`` for a grid value (the returned object may re-solve a decomposition or
        warm-start an iterative solver from its previous value); None skips the split
        (e.g. no pair to learn from in its training rows).
    groups : QueryGroups or None
        Query structure of the rows: a split's performance is then per query.
    order : None or "descending"
        ``prepare(grid)`` visits the grid in this order for every split (warm starts
        along a regularization path run from the most regularized model).
    rls : the model re-solved by :func:`grid_search`, or None.

    Attributes
    ----------
    split_performances : dict value -> ndarray (n_splits,), NaN where undefined

    Notes
    -----
    One training per split, then one ``predict_at`` per split and grid value.
    """

    def __init__(self, Y, measure, splits, fit_split, groups=None, order=None, rls=None):
        self.Y = Y
        self.measure = measure
        self.splits = [(np.asarray(tr), np.asarray(te)) for tr, te in splits]
        if not self.splits:
            raise ValueError("cross-validation needs at least one split")
        self._test_groups = subset_groups(groups_of(groups, np.shape(Y)[0]),
                                          [te for _, te in self.splits])
        self.order = order
        self.rls = rls
        self._fitted = [fit_split(tr, te) for tr, te in self.splits]
        self._cache = {}
        self.split_performances = {}

    def prepare(self, grid):
        if self.order == "descending":
            for value in sorted(grid, key=float, reverse=True):
                self._cache[float(value)] = self._predict(value)

    def _predict(self, value):
        return [None if f is None else f(value) for f in self._fitted]

    def cv(self, value):
        preds = self._cache.pop(float(value), None)
        if preds is None:
            preds = self._predict(value)
        perfs = np.full(len(self.splits), np.nan)
        for k, ((train, test), P) in enumerate(zip(self.splits, preds)):
            if P is None:
                continue
            try:
                perfs[k] = _score(self.measure, self.Y[test], P, self._test_groups[k])
            except UndefinedPerformance:
                pass
        self.split_performances[float(value)] = perfs
        ok = ~np.isnan(perfs)
        return (float(np.mean(perfs[ok])) if ok.any() else np.nan), preds
