"""Query-averaged measures for query-structured (LETOR-style) data.

Each query is scored on its own and the scores are averaged over queries, every query
weighted equally; pairs are never formed across queries. A query is *degenerate* for a
measure when the measure is undefined on it whatever the predictions, i.e. when
``measure(y_q, y_q)`` would raise :class:`UndefinedPerformance`: one item or all labels
tied (c-index, Kendall tau), no relevant item (NDCG, MAP), a single class (AUC).
Degenerate queries are skipped. If a non-degenerate query is undefined because of its
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
    UndefinedPerformance, _combine, _finish, _labels_and_predictions, _qid_codes)
from rlscore.measure.ranking_measures import _ap_cells, _ndcg_cells

__all__ = ["query_average", "query_cindex", "query_kendall_tau_b", "query_ndcg",
           "query_mean_average_precision"]


def _prepare(Y, P, qids):
    Y, P = _labels_and_predictions(Y, P)
    codes, nq = _qid_codes(qids, Y.shape[0])
    return Y, P, codes, nq


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
    Y, P, codes, nq = _prepare(Y, P, qids)
    l = Y.shape[1]
    values = np.zeros((l, nq))
    valid = np.zeros((l, nq), dtype=bool)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(nq + 1))
    for q in range(nq):
        rows = order[bounds[q]:bounds[q + 1]]
        for c in range(l):
            y, p = Y[rows, c], P[rows, c]
            try:
                values[c, q] = measure(y, p, **kwargs)
            except UndefinedPerformance:
                try:
                    measure(y, y, **kwargs)
                except UndefinedPerformance:
                    continue          # degenerate query: skipped
                raise
            valid[c, q] = True
    return _combine(values, valid, "the measure is undefined on every query")


def query_cindex(Y, P, qids):
    """C-index averaged over queries.

    Per query, :func:`rlscore.measure.cindex` over the pairs inside the query (label
    ties are not pairs, prediction ties count 1/2); queries with no pair (one item or
    all labels tied) are skipped; the mean over the other queries.

    Parameters
    ----------
    Y, P : array-like, shape (m,) or (m, l)
    qids : sequence of length m, the query id of each row

    Returns
    -------
    numpy.float64

    Raises
    ------
    UndefinedPerformance
        Shapes differ, or every query is degenerate.

    Notes
    -----
    O(m log m) time overall (one compiled radix sort by query and label and a merge-sort
    count per query), O(m) memory. This is 1 minus the query-wise pairwise disagreement error used in the
    RankRLS LETOR experiments.
    """
    Y, P, codes, nq = _prepare(Y, P, qids)
    values, valid = _cindex_cells(Y, P, codes, nq)
    return _combine(values, valid, "query_cindex is undefined: no query has a pair")


def query_kendall_tau_b(Y, P, qids):
    """Kendall's tau-b averaged over queries.

    Queries with all labels tied (or one item) are skipped.

    Parameters
    ----------
    Y, P : array-like, shape (m,) or (m, l)
    qids : sequence of length m, the query id of each row

    Returns
    -------
    numpy.float64

    Raises
    ------
    UndefinedPerformance
        Shapes differ; every query is degenerate; or a non-degenerate query has all its
        predictions tied (tau-b is undefined there; use :func:`query_cindex`, which
        scores it 0.5).

    Notes
    -----
    O(m log m) time overall, O(m) memory.
    """
    Y, P, codes, nq = _prepare(Y, P, qids)
    values, valid = _kendall_cells(Y, P, codes, nq)
    return _combine(values, valid,
                    "query_kendall_tau_b is undefined: every query has all labels tied")


def query_ndcg(Y, P, qids, k=10):
    """NDCG@k averaged over queries (the LETOR mean NDCG@k).

    See :func:`rlscore.measure.ndcg` for the definition and the tie convention.
    Queries whose relevance labels are all zero are skipped.

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l), relevance grades >= 0
    P : array-like, same shape as Y
    qids : sequence of length m, the query id of each row
    k : int >= 1 or None, default 10

    Returns
    -------
    numpy.float64

    Raises
    ------
    UndefinedPerformance
        Shapes differ, a label is negative, or no query has a relevant item.

    Notes
    -----
    O(m log m) time overall, O(m) memory.
    """
    Y, P, codes, nq = _prepare(Y, P, qids)
    values, valid = _ndcg_cells(Y, P, codes, nq, k=k)
    return _combine(values, valid, "query_ndcg is undefined: no query has a relevant item")


def query_mean_average_precision(Y, P, qids):
    """Mean average precision (MAP) over queries.

    Average precision per query, with binary relevance (label > 0) and tied predictions
    averaged (see :func:`rlscore.measure.mean_average_precision`); queries without a
    relevant item are skipped.

    Parameters
    ----------
    Y, P : array-like, shape (m,) or (m, l)
    qids : sequence of length m, the query id of each row

    Returns
    -------
    numpy.float64

    Raises
    ------
    UndefinedPerformance
        Shapes differ, or no query has a relevant item.

    Notes
    -----
    O(m log m) time overall, O(m) memory.
    """
    Y, P, codes, nq = _prepare(Y, P, qids)
    values, valid = _ap_cells(Y, P, codes, nq)
    return _combine(values, valid,
                    "query_mean_average_precision is undefined: no query has a relevant "
                    "item")


for _f in (query_cindex, query_kendall_tau_b, query_ndcg, query_mean_average_precision):
    _finish(_f, iserror=False)
del _f
