"""The grid search: the one selection driver of every face, and its result."""

import dataclasses
import warnings

import numpy as np

from rlscore._progress import progress
from rlscore._validation import RegparamGrid, user_stacklevel

__all__ = ["DEFAULT_REGPARAMS", "EdgeOfGridWarning", "SelectionResult", "grid_search",
           "grid_search_params"]

#: the regparam grid the learners search when none is given: 2^-15 ... 2^15
DEFAULT_REGPARAMS = [2 ** x for x in range(-15, 16)]


class EdgeOfGridWarning(UserWarning):
    """The grid search chose a value on an edge of the grid while the performance was
    still improving towards that edge: the optimum may lie outside the grid."""




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


@dataclasses.dataclass(frozen=True, eq=False)
class SelectionResult:
    """The result of :func:`grid_search`, the one shape every face renames.

    Attributes
    ----------
    grid : tuple
        The candidate values, in the order searched (types kept).
    performances : ndarray, shape (len(grid),)
        The cross-validated performance of each value (NaN where undefined), in the
        measure's own direction.
    predictions : list
        What the cross-validator returned with each performance (hold-out predictions).
    best_index : int
        The first arg-min (error measures) or arg-max of ``performances``, NaN never.
    iserror : bool
        Whether smaller performances are better.
    model : HoldoutModel or None
        The cross-validator's model, re-solved at :attr:`best`.
    measure : callable or None
        The measure of the estimates.
    cv_name : str or None
        Which cross-validation produced the estimates ("loo", "kfold", "lqo", ...), as
        the face named it.

    It reads as RLScore's tuple ``(performances, predictions, best)`` (unpacking,
    indexing, ``len``).
    """

    grid: tuple
    performances: np.ndarray
    predictions: list
    best_index: int
    iserror: bool
    model: object = None
    measure: object = None
    cv_name: str = None

    @property
    def best(self):
        """The chosen grid value itself."""
        return self.grid[self.best_index]

    @property
    def best_performance(self):
        return float(self.performances[self.best_index])

    @property
    def scores(self):
        """The performances in scikit-learn's larger-is-better convention (error
        measures negated)."""
        return -self.performances if self.iserror else self.performances.copy()

    @property
    def ranks(self):
        """scikit-learn's ``rank_test_score``: 1 for the best score, ties sharing the
        smaller rank, NaN last. O(n^2) for n grid values."""
        order = np.where(np.isnan(self.scores), -np.inf, self.scores)
        return 1 + np.array([np.sum(order > s) for s in order], dtype=np.int32)

    def named(self, cv_name):
        """The same result with ``cv_name`` set."""
        return dataclasses.replace(self, cv_name=cv_name)

    def _rlscore_tuple(self):
        return (self.performances, self.predictions, self.best)

    def __iter__(self):
        return iter(self._rlscore_tuple())

    def __getitem__(self, index):
        return self._rlscore_tuple()[index]

    def __len__(self):
        return 3


def grid_search(crossvalidator, grid, name="regparam", cv_name=None):
    """Pick the grid value with the best cross-validated performance.

    For each value in ``grid`` (in order), call ``crossvalidator.rls.solve(value)``
    (unless ``rls`` is None) and then ``crossvalidator.cv(value)``, which returns
    ``(performance, predictions)``. The best value is the first arg-min of the
    performances when ``crossvalidator.measure.iserror`` is true, else the first
    arg-max. The model is finally re-solved at the chosen value.

    Parameters
    ----------
    crossvalidator : CrossValidator
        Attributes ``rls`` (a :class:`HoldoutModel` with ``solve(value)``, or None) and
        ``measure`` (a function with a boolean ``iserror`` attribute), and a method
        ``cv(value) -> (performance, predictions)``; an optional ``prepare(grid)`` is
        called first with the whole grid (LOOCV computes the whole path at once, the
        refitting cross-validators visit it with warm starts).
    grid : iterable
        Candidate values (consumed once): regularization parameters, or any other
        parameter the model's ``solve`` takes (e.g. a kernel width).
    name : str
        The parameter's name in the warning.
    cv_name : str, optional
        The face's name of the cross-validation, kept on the result.

    Returns
    -------
    SelectionResult
        ``performances``, ``predictions`` (one entry per grid point), ``best`` (the
        chosen grid element itself, type kept, e.g. the int ``16``), ``best_index``,
        ``model`` (re-solved at ``best``); unpacking it gives RLScore's
        ``(performances, predictions, best)``.

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
    # a grid checked at the face's boundary: its values as given for the result, the
    # checked ones (Regparam) for solve
    checked = grid.checked if isinstance(grid, RegparamGrid) else None
    values = list(grid)
    if not values:
        raise ValueError("the regularization parameter grid is empty")
    learner = crossvalidator.rls
    if hasattr(crossvalidator, "prepare"):
        crossvalidator.prepare(values if checked is None else checked)
    performances = []
    predictions = []
    measure_name = getattr(crossvalidator.measure, "__name__", "performance")
    from rlscore.measure import short_query_warnings_once
    # one note on NDCG@k's short queries for the whole search, not one per fold and value
    with short_query_warnings_once(), \
            progress(f"{name} grid", len(values)) as report:   # logged (rlscore._progress)
        for i, value in enumerate(values):
            if learner is not None:
                learner.solve(value if checked is None else checked[i])
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
        learner.solve(best if checked is None else checked[best_index])
    return SelectionResult(tuple(values), perfs, predictions, best_index, iserror,
                           learner, crossvalidator.measure, cv_name)


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


