"""Model selection: the one home of the cross-validation estimates and the grid search.

Every face (:mod:`rlscore.learner`'s selection wrappers, :mod:`rlscore.estimators`'
``*CV`` estimators, :mod:`rlscore.distributed`, RLScore's
:func:`rlscore.utilities.cross_validation.grid_search`) builds one of the
cross-validators below (or of :mod:`rlscore.core.selection`, which builds on
this module) and hands it to :func:`grid_search`; no module but these two loops over
folds or over a regularization grid.

A cross-validator follows RLScore's protocol: attributes ``rls`` (the model, with
``solve(lambda)``; None when the cross-validator refits per fold itself) and ``measure``
(with a boolean ``iserror``), and ``cv(lambda) -> (performance, predictions)`` for the
model's current lambda; an optional ``prepare(grid)`` is given the whole grid first.

========================  ============================================================
:class:`LOOCV`            leave-one-out from the model's ``leave_one_out`` shortcut
                          (with groups: scored within each query, mean over queries)
:class:`NfoldCV`          K-fold (by sample, or by query with folds of whole queries)
                          from ``holdout(fold)`` (``holdout_rows`` for query RankRLS:
                          several queries at once), each fold scored on its own
:class:`TrainTestCV`      splits whose training set is not the test set's complement
:class:`LPOCV`            leave-pair-out over all pairs with different labels
:class:`QueryLPOCV`       leave-pair-out within queries (``holdout([i, j])``, or the
                          batched ``leave_pair_out`` of a model trained without the
                          queries), the mean over queries of each query's fraction
:class:`LQOCV`            leave-query-out from ``leave_query_out`` (all queries at once)
:class:`PooledQueryCV`    folds of whole queries, the hold-out predictions of all folds
                          pooled, the measure per query over every query
:class:`ValidationCV`     the measure of a validation set (per query with groups)
:class:`RefitCV`          any splits, one model trained per split (where no hold-out
                          shortcut exists: RankSVM)
:class:`RefitModel`       ``solve`` / ``holdout`` / ``predictor`` by retraining: a model
                          for NfoldCV, PooledQueryCV or ValidationCV without a shortcut
========================  ============================================================

The last four live in :mod:`rlscore.core.selection` (import them from there: it
builds on this module, which does not import it back).

With query groups (:class:`rlscore.core.structure.QueryGroups`) every estimate is
per query: a fold's performance is :func:`query_score`, the mean over its queries.
"""

import numpy as np

from rlscore.core.selection._protocols import capabilities
from rlscore.core.selection._scores import (_mean_of_defined, _score, _undefined,
                                            groups_of, query_score, subset_groups)

__all__ = ["LOOCV", "NfoldCV", "TrainTestCV", "LPOCV", "QueryLPOCV", "LQOCV", "lpo_pairs",
           "lpo_ranking_accuracy", "holdout_of"]



def holdout_of(rls):
    """The model's exact hold-out of any set of rows: ``rls.holdout_rows`` where the
    model has one (query RankRLS, whose ``holdout`` takes rows of one query only: its
    ``holdout_rows`` holds out several queries at once, a fold of K-fold by query), else
    ``rls.holdout``."""
    return rls.holdout_rows if "holdout_rows" in capabilities(rls) else rls.holdout


class LOOCV:
    """Leave-one-out: performance = measure(Y, loo predictions). O(m^2) per lambda
    (dual, after the decomposition) or O(m r) (primal). ``prepare(grid)`` computes the
    predictions of a whole grid at once when the model can batch them
    (``leave_one_out_path``); ``cv`` then reads them.

    With ``groups`` (the query structure of the rows; the model itself is trained
    without it, e.g. RLS) the leave-one-out predictions are scored per query
    (:func:`query_score`): each query's predictions, every one from the model trained
    without that row, scored within the query, the mean over queries."""

    def __init__(self, rls, measure, groups=None):
        self.rls = rls
        self.measure = measure
        self.groups = groups_of(groups, np.shape(rls.Y)[0])
        self._path = {}

    def prepare(self, grid):
        if "leave_one_out_path" in capabilities(self.rls):
            grid = list(grid)
            self._path = dict(zip(map(float, grid), self.rls.leave_one_out_path(grid)))

    def cv(self, regparam):
        P = self._path.pop(float(regparam), None)
        if P is None:
            P = self.rls.leave_one_out()
        return _score(self.measure, self.rls.Y, P, self.groups), P


class NfoldCV:
    """K-fold with given folds: the unweighted mean of the per-fold performances of
    the hold-out predictions (``rls.holdout(fold)``); folds whose measure is undefined
    are skipped. With ``groups`` (query structure of the rows) a fold's performance is
    per query (:func:`query_score`) -- folds should then hold whole queries
    (:meth:`rlscore.core.structure.QueryGroups.folds`). With ``disjoint=True`` (the
    K-fold learners' user folds) the folds are checked by
    :func:`rlscore._validation.check_index_folds`: indices of the model's rows, no row
    in two folds; False (repeated splits of the estimators, scored one by one) lets
    them overlap. O(sum_f n_f^2 m) per lambda for a dual model."""

    def __init__(self, rls, measure, folds, groups=None, disjoint=False):
        if measure is None:
            from rlscore.measure import sqerror
            measure = sqerror
        self.rls = rls
        self.measure = measure
        if disjoint:
            from rlscore._validation import check_index_folds
            folds = check_index_folds(folds, np.shape(rls.Y)[0], "folds")
        self.folds = [np.asarray(f) for f in folds]
        if len(self.folds) == 0:
            raise ValueError("folds is empty")
        self._fold_groups = subset_groups(groups_of(groups, np.shape(rls.Y)[0]), self.folds)
        self._path = {}

    def prepare(self, grid):
        """When the model batches the hold-outs of a whole grid (``holdout_path(folds,
        grid)``, the streamed reduced set: one pass over the data for every fold and
        lambda), compute them at once; :meth:`cv` then reads them."""
        self._path = {}
        if "holdout_path" in capabilities(self.rls):
            grid = list(grid)
            self._path = dict(zip(map(float, grid),
                                  self.rls.holdout_path(self.folds, grid)))

    def predictions(self):
        """The hold-out predictions of every fold at the model's current regparam: the
        one fold loop of the library (:class:`PooledQueryCV` pools them)."""
        holdout = holdout_of(self.rls)
        return [holdout(fold) for fold in self.folds]

    def cv(self, regparam):
        UndefinedPerformance = _undefined()
        preds = self._path.pop(float(regparam), None)
        perfs, preds = [], self.predictions() if preds is None else preds
        for fold, P, fold_groups in zip(self.folds, preds, self._fold_groups):
            try:
                perfs.append(_score(self.measure, self.rls.Y[fold], P, fold_groups))
            except UndefinedPerformance:
                pass
        return _mean_of_defined(perfs, "fold"), preds


class TrainTestCV:
    """Cross-validator for splits whose training set is not the complement of the
    test set (e.g. ``TimeSeriesSplit``, ``ShuffleSplit(train_size=...)``).

    For each split the model holds out every non-training row at once (the exact
    hold-out shortcut: the predictions of the model trained on ``train`` only,
    :func:`holdout_of`) and the measure is applied to the ``test`` rows among them --
    per query (:func:`query_score`) when ``groups`` gives the query structure of the
    rows. Like :class:`NfoldCV`, the performance is the unweighted mean over the splits,
    and splits whose measure is undefined are skipped. O(h^2 m + h^3) per split and
    lambda for a dual model, h being the number of rows not used for training.
    """

    def __init__(self, rls, measure, splits, groups=None):
        self.rls = rls
        self.measure = measure
        m = rls.Y.shape[0]
        self.parts = []
        for train, test in splits:
            held = np.setdiff1d(np.arange(m), train)       # sorted, contains test
            self.parts.append((held, np.searchsorted(held, test), test))
        self._test_groups = subset_groups(groups_of(groups, m), [t for _, _, t in self.parts])

    def cv(self, regparam):
        UndefinedPerformance = _undefined()
        perfs, preds = [], []
        holdout = holdout_of(self.rls)
        for (held, pos, test), test_groups in zip(self.parts, self._test_groups):
            P = holdout(held)[pos]
            preds.append(P)
            try:
                perfs.append(_score(self.measure, self.rls.Y[test], P, test_groups))
            except UndefinedPerformance:
                pass
        return _mean_of_defined(perfs, "split"), preds


def lpo_pairs(y):
    """All pairs i < j with y_i != y_j (as two index arrays). O(m^2) memory."""
    y = np.asarray(y).ravel()
    i, j = np.triu_indices(y.size, k=1)
    keep = y[i] != y[j]
    return np.ascontiguousarray(i[keep]), np.ascontiguousarray(j[keep])


def lpo_ranking_accuracy(y_start, y_end, p_start, p_end):
    """Fraction of held-out pairs ordered as their labels (ties in predictions: 1/2)."""
    dy = np.sign(y_start - y_end)
    dp = np.sign(p_start - p_end)
    return float(np.mean(np.where(dp == 0, 0.5, (dy == dp).astype(np.float64))))


class LPOCV:
    """Leave-pair-out ranking accuracy (c-index / AUC estimate), averaged over
    outputs; for each output every pair with different labels is held out. The pairs
    are enumerated once (O(m^2) memory), the leave-pair-out predictions per lambda."""

    def __init__(self, rls, measure=None):
        from rlscore.measure import cindex
        self.rls = rls
        self.measure = cindex
        self._pairs = [lpo_pairs(self.rls.Y[:, c]) for c in range(self.rls.Y.shape[1])]

    def cv(self, regparam):
        UndefinedPerformance = _undefined()
        Y = self.rls.Y
        perfs = []
        for c, (s, e) in enumerate(self._pairs):
            if s.size == 0:
                raise UndefinedPerformance(f"all labels of output {c} are equal: no pairs")
            ps, pe = self.rls.leave_pair_out(s, e)
            perfs.append(lpo_ranking_accuracy(Y[s, c], Y[e, c], ps[:, c], pe[:, c]))
        return float(np.mean(perfs)), None


class QueryLPOCV:
    """Leave-pair-out within queries, scored per query.

    Every pair i < j of one query whose labels differ (in some output) is held out in
    turn; per output and query, the fraction of the query's pairs that the held-out
    predictions order as the labels (ties 1/2) -- the query's leave-pair-out c-index
    (AUC for binary labels) --, then the mean over the queries that have a pair (every
    query weighing the same, as every per-query estimate of the library), then the
    mean over outputs.

    Parameters
    ----------
    rls : model with ``Y`` and ``holdout``, or ``leave_pair_out``
    groups : QueryGroups or query ids, optional
        None: the model is query-structured (its ``groups``) and each pair is held out
        with ``holdout([i, j])`` (the model retrained without both, the rest of their
        query forming a smaller query). Given: the query structure of the rows of a
        model trained without it (RLS, RankRLS over all pairs); the pairs are held out
        with the model's batched ``leave_pair_out``.

    Notes
    -----
    With ``groups``: the costs of ``leave_pair_out`` for sum_q n_q^2 / 2 pairs. Without:
    O(m r p) once per lambda, then O(r + p) plus a Python call per pair. The pairs are
    enumerated once (O(sum_q n_q^2)).
    """

    def __init__(self, rls, groups=None):
        from rlscore import measure as _measures
        from rlscore._groups import as_query_groups
        self.rls = rls
        self.measure = _measures.cindex
        Y = rls.Y
        self._batched = groups is not None
        groups = rls.groups if groups is None else as_query_groups(groups, Y.shape[0])
        starts, ends, owner = [], [], []
        for q, rows in enumerate(groups.split()):
            i, j = np.triu_indices(rows.size, k=1)
            keep = np.any(Y[rows[i]] != Y[rows[j]], axis=1)
            starts.append(rows[i[keep]])
            ends.append(rows[j[keep]])
            owner.append(np.full(int(keep.sum()), q))
        self.starts = np.concatenate(starts).astype(np.intp)
        self.ends = np.concatenate(ends).astype(np.intp)
        self._owner = np.concatenate(owner).astype(np.intp)
        self._n_groups = groups.n_groups
        for c in range(Y.shape[1]):
            if not np.any(Y[self.starts, c] != Y[self.ends, c]):
                raise _undefined()(
                    f"all labels of output {c} are tied within every query: no pairs")

    def _pair_predictions(self):
        n, p = self.starts.size, self.rls.Y.shape[1]
        if self._batched:
            ps, pe = self.rls.leave_pair_out(self.starts, self.ends)
            return np.reshape(ps, (n, p)), np.reshape(pe, (n, p))
        ps, pe = np.empty((n, p)), np.empty((n, p))
        for k in range(n):
            P = np.reshape(self.rls.holdout([self.starts[k], self.ends[k]]), (2, p))
            ps[k], pe[k] = P[0], P[1]
        return ps, pe

    def cv(self, regparam):
        Y = self.rls.Y
        ps, pe = self._pair_predictions()
        perfs = []
        for c in range(Y.shape[1]):
            dy = np.sign(Y[self.starts, c] - Y[self.ends, c])
            dp = np.sign(ps[:, c] - pe[:, c])
            pair = dy != 0                     # the pairs of this output
            right = np.where(dp == 0, 0.5, (dy == dp).astype(np.float64))
            q = self._owner[pair]
            count = np.bincount(q, minlength=self._n_groups)
            total = np.bincount(q, weights=right[pair], minlength=self._n_groups)
            has = count > 0
            perfs.append(float(np.mean(total[has] / count[has])))
        return float(np.mean(perfs)), (ps, pe)


class LQOCV:
    """Leave-query-out: for each query the predictions of the model trained without it
    (the model's ``leave_query_out``, all queries at once), scored per query
    (:func:`query_score`: the mean over queries, queries where the measure is
    undefined -- e.g. all labels tied -- skipped). Predictions: a list (one per
    query, first-appearance order) of 2-D arrays.

    Parameters
    ----------
    rls : a query-structured model with ``Y``, ``groups`` and ``leave_query_out``
        (re-solved by the grid search; its hold-outs are read from ``self.model``,
        the same object unless a face wraps its core model: RLScore's
        ``rlscore.learner.query_rankrls.LQOCV`` sets it)
    measure : default ``cindex``

    Notes
    -----
    O(m r p + sum_q (n_q^2 r + n_q^3)) per lambda for RankRLS.
    """

    def __init__(self, rls, measure=None):
        if measure is None:
            from rlscore.measure import cindex as measure
        self.rls = rls
        self.model = rls
        self.measure = measure
        self._path = {}

    def prepare(self, grid):
        """When the model batches the hold-outs of a whole grid (``holdout_path``, the
        streamed RankRLS model: one pass over the data for every query and lambda),
        compute them at once, one fold per query; :meth:`cv` then reads them."""
        self._path = {}
        model = self.model
        if "holdout_path" in capabilities(model):
            grid = list(grid)
            self._path = dict(zip(map(float, grid),
                                  model.holdout_path(model.groups.split(), grid)))

    def cv(self, regparam):
        model = self.model
        preds = self._path.pop(float(regparam), None)
        Y = model.Y
        if preds is None and "leave_query_out_rows" in capabilities(model):
            # the predictions in row order at once (no loop over the queries)
            P = model.leave_query_out_rows()
            preds = model.groups.per_query(P)
        else:
            if preds is None:
                preds = model.leave_query_out()
            P = np.empty_like(Y)
            for rows, Pq in zip(model.groups.split(), preds):
                P[rows] = Pq
        return query_score(self.measure, Y, P, model.groups), preds
