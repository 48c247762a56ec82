"""Concordance index (c-index), the pairwise ranking accuracy."""

import numpy as np

from rlscore.measure._pairs import grouped_pair_counts
from rlscore.measure.measure_utilities import (
    _by_query, _combine, _finish, _query_cells)

__all__ = ["cindex", "cindex_per_query", "pair_counts"]


def _cindex_cells(Y, P, groups):
    """Per (column, query) c-index values and validity (cells with at least one pair)."""
    counts, _ = grouped_pair_counts(Y, P, groups.codes, groups.n_groups)
    pairs = counts[..., 0]
    valid = pairs > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (counts[..., 1] + 0.5 * counts[..., 2]) / pairs
    return values, valid


def cindex_per_query(Y, P, qids=None):
    """C-index of every query, array (n_queries,) (the mean over label columns that
    have a pair in the query), queries in order of first appearance; NaN for a query
    without pairs. See :func:`cindex`. O(m log m)."""
    return _by_query(*_query_cells(Y, P, qids, _cindex_cells))


def cindex(Y, P, qids=None):
    """Concordance index: the fraction of correctly ordered pairs.

    For each column, over all pairs (i, j) with ``Y[i] > Y[j]``: a pair scores 1 if
    ``P[i] > P[j]``, 1/2 if ``P[i] == P[j]`` and 0 otherwise; the c-index is the mean score.
    Pairs with equal labels are not pairs (label ties do not count); prediction ties
    count 1/2, so a constant predictor scores exactly 0.5.

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Correct scores (any real values).
    P : array-like, same shape as Y (an (m,) and an (m, 1) input are compatible)
        Predicted scores.
    qids : sequence of length m or QueryGroups, optional
        Query id of each row. With qids, pairs are formed only inside a query and the
        c-index is the mean over the queries that have a pair (queries with one
        document or all labels tied are skipped), as in the RankRLS LETOR experiments.

    Returns
    -------
    numpy.float64
        The c-index, averaged over the columns that have at least one pair. A column
        whose labels are all equal is dropped from the average.

    Raises
    ------
    UndefinedPerformance
        If the shapes of Y and P differ, or no column has a pair (e.g. all labels tied).
    ValueError
        For non-numeric (bool included), NaN or infinite input, or more than 2 dims.

    Notes
    -----
    O(m log m) time per column (a radix sort by label and a merge-sort count of the
    discordant pairs), whatever the number of ties; O(m) memory. Equals
    ``(1 + Somers' D) / 2`` and, for binary labels (-1/+1, 0/1 or booleans), the AUC.
    """
    return _combine(*_query_cells(Y, P, qids, _cindex_cells),
                    "cindex is undefined: no pairs with different labels")


_finish(cindex, iserror=False)


def pair_counts(y, p):
    """The counts behind the c-index of one column: (pairs, concordant, tied) over the
    unordered pairs of rows with different labels -- all of them, those whose
    predictions are ordered as the labels, those with equal predictions -- as ints, so
    that counts of disjoint sets of pairs add up (:mod:`rlscore.distributed.measure`
    sums them over partitions). The c-index is (concordant + tied / 2) / pairs.

    Parameters
    ----------
    y, p : array-like (m,), finite real numbers

    Raises
    ------
    ValueError
        Not 1-D, different lengths, non-numeric, NaN or infinite entries.

    Notes
    -----
    O(m log m) (the compiled counting kernel of :func:`cindex`).
    """
    cols = []
    for v, name in ((y, "y"), (p, "p")):
        a = np.asarray(v)
        if a.ndim != 1 or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.number) \
                or np.iscomplexobj(a):
            raise ValueError(f"{name} must be a 1-D array of real numbers")
        a = np.ascontiguousarray(a, dtype=np.float64)
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} contains NaN or infinity")
        cols.append(a[:, None])
    if cols[0].shape != cols[1].shape:
        raise ValueError(f"y and p differ in length ({cols[0].shape[0]} vs "
                         f"{cols[1].shape[0]})")
    if cols[0].shape[0] < 2:
        return 0, 0, 0
    counts, _ = grouped_pair_counts(cols[0], cols[1])
    return tuple(int(c) for c in counts[0, 0])
