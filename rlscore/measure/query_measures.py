"""Query-averaged measures for query-structured (LETOR-style) data.

Each query is scored on its own and the scores are averaged over queries, every query
weighted equally; pairs are never formed across queries. A query is *degenerate* for a
measure when the measure is undefined on it whatever the predictions, i.e. when
``measure(y_q, y_q)`` would raise :class:`UndefinedPerformance`: one item or all labels
tied (c-index, Kendall tau), a single class (AUC). Degenerate queries are skipped.
(The IR measures NDCG, P@k and MAP follow the LETOR 4.0 rules instead: a query without
a relevant document scores 0 and counts; see :mod:`rlscore.measure.ranking_measures`.)
If a non-degenerate query is undefined because of its
predictions (Kendall's tau-b with all predictions of the query tied), the error
propagates rather than silently dropping the query, which would flatter constant
predictors.

Several label columns: each column is query-averaged on its own, columns with no
non-degenerate query are dropped, and the remaining column averages are averaged.
UndefinedPerformance if nothing is left.
"""

import numpy as np

from rlscore.measure.cindex_measure import _cindex_cells
from rlscore.measure.kendall_measure import _kendall_cells
from rlscore.measure.measure_utilities import (
    UndefinedPerformance, _by_query, _combine, _finish, _query_cells)
from rlscore.measure.ranking_measures import mean_average_precision, ndcg

__all__ = ["query_average", "query_values", "query_cindex", "query_kendall_tau_b", "query_ndcg",
           "query_mean_average_precision"]


def query_average(measure, Y, P, qids, **kwargs):
    """Average any measure over queries, skipping degenerate queries.

    Parameters
    ----------
    measure : callable ``measure(y, p, **kwargs)``
        A measure on one column, e.g. :func:`rlscore.measure.auc`.
    Y, P : array-like, shape (m,) or (m, l)
    qids : sequence of length m
        Query id of each row (any hashable values; need not be contiguous).
    **kwargs
        Passed on to ``measure`` (e.g. ``k=5`` for ``ndcg``).

    Returns
    -------
    numpy.float64
        The mean over the non-degenerate queries (then over the label columns).

    Raises
    ------
    UndefinedPerformance
        If the shapes of Y and P differ, every query is degenerate, or ``measure`` is
        undefined on a non-degenerate query.
    ValueError
        For invalid labels/predictions, or qids of the wrong length.

    Notes
    -----
    A Python loop over queries and columns: O(sum over queries of the measure's cost)
    plus O(m log m) to group the rows. A query is degenerate when
    ``measure(y_q, y_q)`` raises UndefinedPerformance (evaluated only for queries where
    ``measure(y_q, p_q)`` raised). The specialised ``query_*`` functions give the same
    values, vectorised.
    """
    return _combine(*_query_cells(Y, P, qids, _each_query(measure, kwargs, True)),
                    "the measure is undefined on every query")


def query_values(measure, Y, P, qids, **kwargs):
    """The measure of every query: array (n_queries,), queries in order of first
    appearance.

    Each query is scored on its own (``measure(y_q, p_q, **kwargs)`` per label column,
    then the mean over the columns where it is defined); NaN for a query on which the
    measure is undefined for every column, whether degenerate or because of the
    predictions. :func:`query_average` is the mean of these values with its
    degenerate-query rule.

    Parameters
    ----------
    measure : callable ``measure(y, p, **kwargs)`` on one column
    Y, P : array-like, shape (m,) or (m, l)
    qids : sequence of length m, or QueryGroups

    Returns
    -------
    numpy.ndarray of float64

    Notes
    -----
    A Python loop over queries and columns, as :func:`query_average`; the IR measures
    and the c-index have vectorised ``*_per_query`` functions.
    """
    return _by_query(*_query_cells(Y, P, qids, _each_query(measure, kwargs, False)))


def _each_query(measure, kwargs, check_degenerate):
    """``cells`` calling ``measure`` on every (column, query). A cell where it raises
    UndefinedPerformance is invalid; with ``check_degenerate`` only when the query is
    degenerate (``measure(y_q, y_q)`` raises too), else the error propagates."""
    def cells(Y, P, groups):
        l, nq = Y.shape[1], groups.n_groups
        values = np.zeros((l, nq))
        valid = np.zeros((l, nq), dtype=bool)
        for q, rows in enumerate(groups.split()):
            for c in range(l):
                y, p = Y[rows, c], P[rows, c]
                try:
                    values[c, q] = measure(y, p, **kwargs)
                except UndefinedPerformance:
                    if check_degenerate:
                        try:
                            measure(y, y, **kwargs)
                        except UndefinedPerformance:
                            continue          # degenerate query: skipped
                        raise
                    continue
                valid[c, q] = True
        return values, valid
    return cells


def query_cindex(Y, P, qids):
    """C-index averaged over queries: :func:`rlscore.measure.cindex` with ``qids``.

    Per query the c-index over the pairs inside the query (label ties are not pairs,
    prediction ties count 1/2); queries with no pair (one item or all labels tied) are
    skipped; the mean over the other queries. This is 1 minus the query-wise pairwise
    disagreement error of the RankRLS LETOR experiments. O(m log m) time, O(m) memory.
    UndefinedPerformance when the shapes differ or no query has a pair.
    """
    return _combine(*_query_cells(Y, P, qids, _cindex_cells),
                    "query_cindex is undefined: no query has a pair")


def query_kendall_tau_b(Y, P, qids):
    """Kendall's tau-b averaged over queries: per query
    :func:`rlscore.measure.kendall_tau_b` of its rows, queries with all labels tied (or
    one item) skipped, the mean over the others. O(m log m) time, O(m) memory (one grouped pair count).

    UndefinedPerformance when the shapes differ, every query is degenerate, or a
    non-degenerate query has all its predictions tied (tau-b is undefined there; use
    :func:`query_cindex`, which scores it 0.5).
    """
    return _combine(*_query_cells(Y, P, qids, _kendall_cells),
                    "query_kendall_tau_b is undefined: every query has all labels tied")


def query_ndcg(Y, P, qids, k=10, convention="letor"):
    """NDCG@k averaged over all queries: ``ndcg(Y, P, qids, k, convention)``.

    Kept for compatibility; see :func:`rlscore.measure.ndcg` for the LETOR 4.0 and
    scikit-learn conventions. Queries without a relevant document score 0 and count.
    """
    return ndcg(Y, P, qids, k=k, convention=convention)


def query_mean_average_precision(Y, P, qids):
    """MAP over all queries: ``mean_average_precision(Y, P, qids)`` (LETOR 4.0 rules;
    a query without a relevant document has AP 0 and counts)."""
    return mean_average_precision(Y, P, qids)


for _f in (query_cindex, query_kendall_tau_b, query_ndcg, query_mean_average_precision):
    _finish(_f, iserror=False)
del _f
