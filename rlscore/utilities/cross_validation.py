"""RLScore's cross-validation helpers: random folds, folds from ids, and the λ grid
search (a thin call into :mod:`rlscore.core.selection`, the one home of model
selection)."""

import operator
import random

import numpy as np

from rlscore.core.structure import QueryGroups
from rlscore.core.selection import grid_search as _core_grid_search

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

    ``qid_folds(['b', 'a', 'b', 3])`` gives ``[[0, 2], [1], [3]]`` (the grouping of
    :class:`rlscore.core.structure.QueryGroups`, the library's one home of query
    structure). The result can be used as the folds of a leave-query-out
    cross-validation.

    Parameters
    ----------
    qids : sequence of hashable
        One id per row (ints, integral floats, strings, numpy scalars).

    Returns
    -------
    folds : list of list of int
        Empty for an empty input.

    Raises
    ------
    ValueError, TypeError
        As :meth:`rlscore.core.structure.QueryGroups.from_qids` (not 1-D, NaN,
        non-integral floats, unhashable ids).

    Notes
    -----
    Complexity: O(len(qids) log len(qids)).
    """
    if len(qids) == 0:
        return []
    return [rows.tolist() for rows in QueryGroups.from_qids(qids).split()]


def grid_search(crossvalidator, grid):
    """Pick the regularization parameter with the best cross-validated performance.

    RLScore's name for :func:`rlscore.core.selection.grid_search` (see there): for
    each λ in ``grid`` (in order) ``crossvalidator.rls.solve(λ)`` then
    ``crossvalidator.cv(λ) -> (performance, predictions)``; the first arg-min when
    ``crossvalidator.measure.iserror`` is true, else the first arg-max; the learner is
    re-solved at the chosen λ. Returns ``(performances, predictions, best)``.

    NaN performances are never selected (upstream's ``numpy.argmin`` would have
    picked the first NaN); a value chosen on an edge of the grid while the performance
    still improves towards it gives a
    :class:`rlscore.core.selection.EdgeOfGridWarning` (a UserWarning).
    Complexity: ``len(grid)`` calls of ``solve`` and ``cv``, plus one ``solve``.
    """
    return _core_grid_search(crossvalidator, grid)
