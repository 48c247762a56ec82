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

import inspect
import warnings

import numpy as np

from rlscore._progress import progress
from rlscore._validation import user_stacklevel

__all__ = ["DEFAULT_REGPARAMS", "grid_search", "grid_search_params", "query_score",
           "defined_queries", "LOOCV",
           "NfoldCV", "TrainTestCV", "LPOCV", "QueryLPOCV", "LQOCV", "lpo_pairs",
           "lpo_ranking_accuracy", "EdgeOfGridWarning", "holdout_of"]

#: the regparam grid the learners search when none is given: 2^-15 ... 2^15
DEFAULT_REGPARAMS = [2 ** x for x in range(-15, 16)]


class EdgeOfGridWarning(UserWarning):
    """The grid search chose a value on an edge of the grid while the performance was
    still improving towards that edge: the optimum may lie outside the grid."""


def _undefined():
    from rlscore.measure.measure_utilities import UndefinedPerformance
    return UndefinedPerformance


# ---------------------------------------------------------------------------------------
# the grid search


def _edge_warning(values, perfs, best_index, iserror, name):
    """Warn when the chosen value is the smallest or largest of >= 3 distinct values
    and strictly better than the next value inwards (a plateau reaching the edge is no
    sign that the optimum lies outside)."""
    try:
        keys = np.asarray([float(v) for v in values])
    except (TypeError, ValueError):
        return
    distinct = np.unique(keys)
    if distinct.size < 3:
        return
    chosen = keys[best_index]
    if chosen == distinct[0]:
        inner, side = distinct[1], "smallest"
    elif chosen == distinct[-1]:
        inner, side = distinct[-2], "largest"
    else:
        return
    neighbour = perfs[keys == inner]
    neighbour = neighbour[~np.isnan(neighbour)]
    if neighbour.size == 0:
        return
    better = perfs[best_index] < neighbour.min() if iserror else \
        perfs[best_index] > neighbour.max()
    if better:
        warnings.warn(
            f"the selected {name} {values[best_index]!r} is the {side} value of the grid "
            f"and performs better than its neighbour {inner:g}: the optimum may lie "
            f"outside the grid; extend the grid past {values[best_index]!r}",
            EdgeOfGridWarning, stacklevel=user_stacklevel())


def grid_search(crossvalidator, grid, name="regparam"):
    """Pick the grid value with the best cross-validated performance.

    For each value in ``grid`` (in order), call ``crossvalidator.rls.solve(value)``
    (unless ``rls`` is None) and then ``crossvalidator.cv(value)``, which returns
    ``(performance, predictions)``. The best value is the first arg-min of the
    performances when ``crossvalidator.measure.iserror`` is true, else the first
    arg-max. The model is finally re-solved at the chosen value.

    Parameters
    ----------
    crossvalidator : object
        Duck-typed: attributes ``rls`` (a model with ``solve(value)``, or None) and
        ``measure`` (a function with a boolean ``iserror`` attribute), and a method
        ``cv(value) -> (performance, predictions)``; an optional ``prepare(grid)`` is
        called first with the whole grid (LOOCV computes the whole path at once, the
        refitting cross-validators visit it with warm starts).
    grid : iterable
        Candidate values (consumed once): regularization parameters, or any other
        parameter the model's ``solve`` takes (e.g. a kernel width).
    name : str
        The parameter's name in the warning.

    Returns
    -------
    performances : numpy.ndarray, shape (len(grid),)
    predictions : list
        The predictions returned by ``cv``, one entry per grid point.
    best : object
        The chosen grid element itself, type kept (e.g. the int ``16``).

    Raises
    ------
    ValueError
        If ``grid`` is empty, or every performance is NaN.

    Warns
    -----
    EdgeOfGridWarning (a UserWarning)
        When the chosen value is the smallest or the largest of at least three distinct
        grid values and performs strictly better than the next value inwards.
    RuntimeWarning
        When some (not all) performances are NaN; they are never selected.
    rlscore.measure.ShortQueryWarning
        Once per search, when the measure is NDCG@k under the LETOR 4.0 rules and
        queries shorter than k were scored 0.

    Notes
    -----
    ``len(grid)`` calls of ``solve`` and ``cv``, plus one ``solve``.
    """
    values = list(grid)
    if not values:
        raise ValueError("the regularization parameter grid is empty")
    learner = crossvalidator.rls
    if hasattr(crossvalidator, "prepare"):
        crossvalidator.prepare(values)
    performances = []
    predictions = []
    measure_name = getattr(crossvalidator.measure, "__name__", "performance")
    from rlscore.measure import short_query_warnings_once
    # one note on NDCG@k's short queries for the whole search, not one per fold and value
    with short_query_warnings_once(), \
            progress(f"{name} grid", len(values)) as report:   # logged (rlscore._progress)
        for value in values:
            if learner is not None:
                learner.solve(value)
            perf, pred = crossvalidator.cv(value)
            performances.append(perf)
            predictions.append(pred)
            report.step(**{name: value, measure_name: perf})
    perfs = np.array(performances, dtype=np.float64)
    if perfs.ndim != 1:
        raise ValueError("cv() must return one scalar performance per grid point")
    nan = np.isnan(perfs)
    if nan.all():
        raise ValueError("every grid point gave an undefined (NaN) performance")
    if nan.any():
        warnings.warn(f"{int(nan.sum())} grid point(s) gave a NaN performance and were "
                      f"not considered", RuntimeWarning, stacklevel=2)
    iserror = bool(getattr(crossvalidator.measure, "iserror", False))
    best_index = int(np.nanargmin(perfs) if iserror else np.nanargmax(perfs))
    best = values[best_index]
    _edge_warning(values, perfs, best_index, iserror, name)
    if learner is not None:
        learner.solve(best)
    return perfs, predictions, best


def grid_search_params(build, param_grid, regparams, make_cv):
    """Grid search over kernel (or other model) parameters and the regularization.

    For each setting of ``param_grid`` a model is built once (``build(**setting)``,
    decomposed for a regularization path) and :func:`grid_search` runs over
    ``regparams`` on it with the cross-validator ``make_cv(model)``; the setting and
    regparam with the best performance win (the first in grid order on ties).

    Parameters
    ----------
    build : callable ``build(**setting) -> model`` (with ``solve(regparam)``)
    param_grid : dict name -> list of values (every combination is tried, the last
        name varying fastest), or a list of such settings as dicts
    regparams : list of regularization values
    make_cv : callable ``make_cv(model) -> cross-validator``

    Returns
    -------
    dict with ``settings`` (list of dicts), ``performances`` (n_settings,
    n_regparams), ``best_setting``, ``best_regparam``, ``model`` (the best setting's
    model, solved at ``best_regparam``), ``measure``

    Warns
    -----
    EdgeOfGridWarning
        When the chosen regparam, or the chosen value of a parameter with at least
        three values, lies on an edge of its grid and beats its neighbour.

    Notes
    -----
    n_settings model constructions plus n_settings x n_regparams cross-validations.
    """
    if isinstance(param_grid, dict):
        import itertools
        names = list(param_grid)
        settings = [dict(zip(names, combo))
                    for combo in itertools.product(*(list(param_grid[k]) for k in names))]
    else:
        settings = [dict(s) for s in param_grid]
    if not settings:
        raise ValueError("the parameter grid is empty")
    regparams = list(regparams)
    table, models, measure = [], [], None
    for setting in settings:
        model = build(**setting)
        cv = make_cv(model)
        measure = cv.measure
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EdgeOfGridWarning)
            perfs, _, _ = grid_search(cv, regparams)
        table.append(perfs)
        models.append(model)
    table = np.array(table)
    if np.all(np.isnan(table)):
        raise ValueError("every grid point gave an undefined (NaN) performance")
    iserror = bool(getattr(measure, "iserror", False))
    flat = np.where(np.isnan(table), np.inf if iserror else -np.inf, table)
    best = int(np.argmin(flat) if iserror else np.argmax(flat))
    i, j = divmod(best, len(regparams))
    _edge_warning(regparams, table[i], j, iserror, "regparam")
    for name in settings[i]:
        # the best performance of each value of this parameter, the others as chosen
        same = [k for k, st in enumerate(settings)
                if all(st[o] == settings[i][o] for o in st if o != name)]
        values = [settings[k][name] for k in same]
        best_per_value = np.array([np.nanmin(table[k]) if iserror else np.nanmax(table[k])
                                   for k in same])
        _edge_warning(values, best_per_value, same.index(i), iserror, name)
    models[i].solve(regparams[j])
    return dict(settings=settings, performances=table, best_setting=settings[i],
                best_regparam=regparams[j], model=models[i], measure=measure)


# ---------------------------------------------------------------------------------------
# per-query measures


def _takes_qids(measure):
    try:
        params = inspect.signature(measure).parameters
    except (TypeError, ValueError):
        return False
    return "qids" in params or "qid" in params


def query_score(measure, Y, P, groups):
    """``measure`` applied per query and averaged over queries.

    The rule for every per-query estimate of the library: the c-index through
    :func:`rlscore.measure.query_cindex` (one grouped O(m log m) pass); a measure that
    takes query ids itself (a parameter ``qids``) is called with them and follows its
    own documented convention; any other measure through
    :func:`rlscore.measure.query_average` (each query scored on its own, queries where
    the measure is undefined whatever the predictions -- e.g. without a pair --
    skipped, every other query weighted equally).

    Parameters
    ----------
    measure : f(Y, P) with ``iserror``
    Y, P : (m,) or (m, p)
    groups : QueryGroups, or query ids of length m

    Raises
    ------
    UndefinedPerformance
        The measure is undefined on every query.
    """
    from rlscore import measure as _measures
    codes = getattr(groups, "codes", groups)
    if measure is _measures.cindex:
        return float(_measures.query_cindex(Y, P, codes))
    if _takes_qids(measure):
        return float(measure(Y, P, qids=codes))
    return float(_measures.query_average(measure, Y, P, codes))


def defined_queries(measure, Y, groups):
    """Which queries :func:`query_score` scores: a boolean per query, False where it
    skips the query because ``measure`` is undefined on it whatever the predictions
    (one document, or all labels tied, for the c-index).

    The rule is :func:`query_score`'s own: a query is defined when ``query_score``
    gives it a value alone, with its labels as the predictions (a measure that is
    undefined on a query with these predictions is undefined with any). Every face
    that holds queries out skips the same queries: the cross-validators here through
    ``query_score``, a scikit-learn search through
    :class:`rlscore.estimators.QuerySplitter`.

    Parameters
    ----------
    measure : f(Y, P) with ``iserror``, as for :func:`query_score`
    Y : (m,) or (m, p) labels
    groups : QueryGroups, or query ids of length m

    Returns
    -------
    ndarray of bool, shape (n_groups,), in the order of the query codes

    Notes
    -----
    One ``query_score`` call per query: O(m log m) in all for the c-index, plus a
    Python call per query.
    """
    from rlscore._groups import as_query_groups
    Y = np.asarray(Y)
    groups = as_query_groups(groups, Y.shape[0], "groups")
    UndefinedPerformance = _undefined()
    defined = np.zeros(groups.n_groups, dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # a probe: e.g. NDCG@k's short-query note
        for q, rows in enumerate(groups.split()):
            try:
                query_score(measure, Y[rows], Y[rows].astype(np.float64),
                            np.zeros(rows.size, dtype=np.intp))
            except UndefinedPerformance:
                continue
            defined[q] = True
    return defined


def _score(measure, Y, P, codes):
    """Per query when ``codes`` is given, else the measure itself."""
    if codes is None:
        return measure(Y, P)
    return query_score(measure, Y, P, codes)


def _mean_of_defined(perfs, what):
    if not perfs:
        raise _undefined()(f"the measure is undefined on every {what}")
    return float(np.mean(perfs))


# ---------------------------------------------------------------------------------------
# cross-validators on hold-out shortcuts


def holdout_of(rls):
    """The model's exact hold-out of any set of rows: ``rls.holdout_rows`` where the
    model has one (query RankRLS, whose ``holdout`` takes rows of one query only: its
    ``holdout_rows`` holds out several queries at once, a fold of K-fold by query), else
    ``rls.holdout``."""
    return getattr(rls, "holdout_rows", None) or rls.holdout


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
        self.codes = None if groups is None else getattr(groups, "codes", groups)
        self._path = {}

    def prepare(self, grid):
        if hasattr(self.rls, "leave_one_out_path"):
            grid = list(grid)
            self._path = dict(zip(map(float, grid), self.rls.leave_one_out_path(grid)))

    def cv(self, regparam):
        P = self._path.pop(float(regparam), None)
        if P is None:
            P = self.rls.leave_one_out()
        return _score(self.measure, self.rls.Y, P, self.codes), P


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
        self.codes = None if groups is None else getattr(groups, "codes", groups)

    def prepare(self, grid):
        """When the model batches the hold-outs of a whole grid (``holdout_path(folds,
        grid)``, the streamed reduced set: one pass over the data for every fold and
        lambda), compute them at once; :meth:`cv` then reads them."""
        self._path = {}
        if hasattr(self.rls, "holdout_path"):
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
        preds = getattr(self, "_path", {}).pop(float(regparam), None)
        perfs, preds = [], self.predictions() if preds is None else preds
        for fold, P in zip(self.folds, preds):
            try:
                perfs.append(_score(self.measure, self.rls.Y[fold], P,
                                    None if self.codes is None else self.codes[fold]))
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
        self.codes = None if groups is None else getattr(groups, "codes", groups)

    def cv(self, regparam):
        UndefinedPerformance = _undefined()
        perfs, preds = [], []
        holdout = holdout_of(self.rls)
        for held, pos, test in self.parts:
            P = holdout(held)[pos]
            preds.append(P)
            try:
                perfs.append(_score(self.measure, self.rls.Y[test], P,
                                    None if self.codes is None else self.codes[test]))
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
    rls : a query-structured model with ``Y``, ``groups`` and ``leave_query_out`` (or
        an object holding one as ``_model``, e.g. :class:`rlscore.learner.QueryRankRLS`)
    measure : default ``cindex``

    Notes
    -----
    O(m r p + sum_q (n_q^2 r + n_q^3)) per lambda for RankRLS.
    """

    def __init__(self, rls, measure=None):
        if measure is None:
            from rlscore.measure import cindex as measure
        self.rls = rls
        self.measure = measure

    def prepare(self, grid):
        """When the model batches the hold-outs of a whole grid (``holdout_path``, the
        streamed RankRLS model: one pass over the data for every query and lambda),
        compute them at once, one fold per query; :meth:`cv` then reads them."""
        self._path = {}
        model = getattr(self.rls, "_model", self.rls)
        if hasattr(model, "holdout_path"):
            grid = list(grid)
            self._path = dict(zip(map(float, grid),
                                  model.holdout_path(model.groups.split(), grid)))

    def cv(self, regparam):
        model = getattr(self.rls, "_model", self.rls)
        preds = getattr(self, "_path", {}).pop(float(regparam), None)
        Y = model.Y
        if preds is None and hasattr(model, "leave_query_out_rows"):
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
