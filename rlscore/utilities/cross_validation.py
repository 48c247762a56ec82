"""Cross-validation helpers: random folds, folds from ids, and the λ grid search used by
the model-selection wrappers of :mod:`rlscore.learner`."""

import operator
import random
import warnings

import numpy as np

__all__ = ["random_folds", "grid_search", "map_ids", "qid_folds"]


def _as_count(value, name):
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got a bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {value!r}") from None


def random_folds(ssize, k, seed=None):
    """Split ``range(ssize)`` into ``k`` random folds.

    Parameters
    ----------
    ssize : int
        Number of samples.
    k : int
        Number of folds, ``1 <= k <= ssize``.
    seed : int, str, bytes or None, optional
        Seed for a private ``random.Random(seed)``; with None the global :mod:`random`
        generator is used (so ``random.seed`` makes the result reproducible).

    Returns
    -------
    folds : list of k lists of int
        A partition of ``range(ssize)``. The first ``ssize % k`` folds have
        ``ssize // k + 1`` members, the rest ``ssize // k``. Members appear in random
        order.

    Raises
    ------
    ValueError
        If ``k < 1``, ``k > ssize``.
    TypeError
        If ``ssize`` or ``k`` is not an integer.

    Notes
    -----
    For the same seed these are exactly RLScore's folds (as RLScore drew them on
    Python 3.6-3.10): fold i is ``rng.sample(tuple(remaining), size_i)`` with
    ``remaining`` the set of indices not yet drawn, which is then replaced by
    ``remaining.difference(fold)``. Python >= 3.11 refuses to sample from a set, and
    the tuple's order is that of CPython's set table, so the order is reproduced by
    :mod:`rlscore.utilities._set_order` (identical on every interpreter).
    Complexity: O(ssize k) (one table copy per fold).
    """
    from rlscore.utilities._set_order import IntSet
    ssize = _as_count(ssize, "ssize")
    k = _as_count(k, "k")
    if k < 1 or k > ssize:
        raise ValueError(f"the number of folds k must satisfy 1 <= k <= ssize = {ssize}, "
                         f"got k = {k}")
    rng = random.Random(seed) if seed is not None else random
    size, extra = divmod(ssize, k)
    remaining = IntSet.from_range(ssize)
    folds = []
    for i in range(k):
        fold = rng.sample(remaining.order(), size + (1 if i < extra else 0))
        remaining = remaining.difference(fold)
        folds.append(fold)
    return folds


def map_ids(ids):
    """Partition indices into runs of consecutive equal ids.

    A value that re-appears after a different one opens a new group, e.g.
    ``map_ids([3, 3, 1, 1, 1, 3, 2])`` gives ``[[0, 1], [2, 3, 4], [5], [6]]``. Use
    :func:`qid_folds` to group equal ids wherever they occur.

    Parameters
    ----------
    ids : sequence
        Ids compared with ``==``.

    Returns
    -------
    groups : list of list of int

    Raises
    ------
    IndexError
        If ``ids`` is empty (as upstream).

    Notes
    -----
    Complexity: O(len(ids)).
    """
    n = len(ids)
    if n == 0:
        raise IndexError("map_ids needs at least one id")
    groups = []
    prev = ids[0]
    current = [0]
    for i in range(1, n):
        cur = ids[i]
        if cur == prev:
            current.append(i)
        else:
            groups.append(current)
            current = [i]
            prev = cur
    groups.append(current)
    return groups


def qid_folds(qids):
    """Group row indices by equal id, groups in order of first appearance.

    ``qid_folds(['b', 'a', 'b', 3])`` gives ``[[0, 2], [1], [3]]`` (the same grouping
    as :func:`rlscore.measure.measure_utilities.qids_to_splits`). The result can be used
    as the folds of a leave-query-out cross-validation.

    Parameters
    ----------
    qids : sequence of hashable
        One id per row (ints, strings, numpy scalars).

    Returns
    -------
    folds : list of list of int
        Empty for an empty input.

    Notes
    -----
    Complexity: O(len(qids)) expected (hashing).
    """
    if isinstance(qids, np.ndarray):
        if qids.ndim != 1:
            raise ValueError(f"qids must be 1-D, got {qids.ndim} dimensions")
        qids = qids.tolist()
    groups = {}
    for i, q in enumerate(qids):
        try:
            groups.setdefault(q, []).append(i)
        except TypeError:
            raise TypeError(f"qids must be hashable, got {type(q).__name__} at position "
                            f"{i}") from None
    return list(groups.values())


def grid_search(crossvalidator, grid):
    """Pick the regularization parameter with the best cross-validated performance.

    For each λ in ``grid`` (in order), call ``crossvalidator.rls.solve(λ)`` and then
    ``crossvalidator.cv(λ)``, which returns ``(performance, predictions)``. The best λ is
    the first arg-min of the performances when ``crossvalidator.measure.iserror`` is
    true, else the first arg-max. The learner is finally re-solved at the chosen λ.

    Parameters
    ----------
    crossvalidator : object
        Duck-typed: attributes ``rls`` (a learner with ``solve(regparam)``) and
        ``measure`` (a function with a boolean ``iserror`` attribute), and a method
        ``cv(regparam) -> (performance, predictions)``.
    grid : iterable
        Candidate regularization parameters (consumed once).

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

    Notes
    -----
    NaN performances (a measure undefined at some λ) are never selected; upstream's
    ``numpy.argmin`` would have picked the first NaN. A ``RuntimeWarning`` reports them.
    Complexity: ``len(grid)`` calls of ``solve`` and ``cv``, plus one ``solve``; a
    cross-validator with a ``prepare(grid)`` method is first given the whole grid (the
    leave-one-out of primal models computes it in two matrix products).
    """
    values = list(grid)
    if not values:
        raise ValueError("the regularization parameter grid is empty")
    learner = crossvalidator.rls
    if hasattr(crossvalidator, "prepare"):
        crossvalidator.prepare(values)     # e.g. LOOCV batches the whole grid
    performances = []
    predictions = []
    for regparam in values:
        learner.solve(regparam)
        perf, pred = crossvalidator.cv(regparam)
        performances.append(perf)
        predictions.append(pred)
    perfs = np.array(performances, dtype=np.float64)
    if perfs.ndim != 1:
        raise ValueError("cv() must return one scalar performance per grid point")
    nan = np.isnan(perfs)
    if nan.all():
        raise ValueError("every grid point gave an undefined (NaN) performance")
    if nan.any():
        warnings.warn(f"{int(nan.sum())} grid point(s) gave a NaN performance and were "
                      f"not considered", RuntimeWarning, stacklevel=2)
    if getattr(crossvalidator.measure, "iserror", False):
        best_index = int(np.nanargmin(perfs))
    else:
        best_index = int(np.nanargmax(perfs))
    best = values[best_index]
    learner.solve(best)
    return np.array(performances), predictions, best
