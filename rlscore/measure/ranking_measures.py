"""Information-retrieval ranking measures: NDCG and (mean) average precision.

Both rank the items of a query by decreasing prediction. Tied predictions are handled by
averaging: the value returned is the exact expectation of the measure over a uniformly
random order of the tied items (McSherry & Najork, ECIR 2008), computed in closed form
(no enumeration). It is neither optimistic nor pessimistic, is invariant to the input
order, and a constant predictor gets the value of a random ranking.
"""

import numbers

import numpy as np

from rlscore.measure.measure_utilities import (
    UndefinedPerformance, _combine, _finish, _labels_and_predictions)

__all__ = ["ndcg", "mean_average_precision"]


def _check_k(k):
    if k is None:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise ValueError(f"k must be a positive integer or None, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be a positive integer or None, got {k!r}")
    return int(k)


def _sorted_cells(Y, P, codes, nq):
    """Sort all entries by (cell, decreasing prediction) and describe the tie groups.

    Returns a dict with the flattened labels ``y``, cell ids ``groups``, number of
    cells ``G``, the sort ``order``, sorted cell ids ``gs``, 0-based position of each
    sorted entry inside its cell ``gpos``, and tie-group ids ``tie`` (runs of equal
    predictions inside a cell).
    """
    m, l = Y.shape
    y = np.ascontiguousarray(Y.T).ravel()
    p = np.ascontiguousarray(P.T).ravel()
    if codes is None:
        codes = np.zeros(m, dtype=np.intp)
        nq = 1
    groups = (np.arange(l, dtype=np.intp)[:, None] * nq + codes[None, :]).ravel()
    G = l * nq
    n = y.shape[0]
    order = np.lexsort((-p, groups))
    gs = groups[order]
    ps = p[order]
    sizes = np.bincount(groups, minlength=G)
    starts = np.zeros(G, dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    gpos = np.arange(n, dtype=np.intp) - starts[gs]
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = (gs[1:] != gs[:-1]) | (ps[1:] != ps[:-1])
    tie = np.cumsum(new) - 1
    return dict(y=y, groups=groups, G=G, shape=(l, nq), order=order, gs=gs, gpos=gpos,
                tie=tie, new=new)


def _ndcg_cells(Y, P, codes=None, nq=1, k=10):
    """Per (column, query) NDCG@k and validity (cells with a nonzero ideal DCG)."""
    k = _check_k(k)
    if np.any(Y < 0):
        raise UndefinedPerformance("ndcg needs relevance labels >= 0")
    s = _sorted_cells(Y, P, codes, nq)
    G, gs, gpos, tie = s["G"], s["gs"], s["gpos"], s["tie"]
    gain = np.exp2(s["y"]) - 1.0
    disc = 1.0 / np.log2(gpos + 2.0)
    if k is not None:
        disc[gpos >= k] = 0.0
    gain_sorted = gain[s["order"]]
    tie_mean = np.bincount(tie, weights=gain_sorted) / np.bincount(tie)
    dcg = np.bincount(gs, weights=tie_mean[tie] * disc, minlength=G)
    # the ideal order: decreasing relevance (label ties have equal gains)
    ideal = np.lexsort((-s["y"], s["groups"]))
    idcg = np.bincount(s["groups"][ideal], weights=gain[ideal] * disc, minlength=G)
    valid = idcg > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.minimum(dcg / idcg, 1.0)
    return values.reshape(s["shape"]), valid.reshape(s["shape"])


def _ap_cells(Y, P, codes=None, nq=1):
    """Per (column, query) average precision and validity (cells with a relevant item)."""
    s = _sorted_cells(Y, P, codes, nq)
    G, gs, gpos, tie, new = s["G"], s["gs"], s["gpos"], s["tie"], s["new"]
    rel = (s["y"] > 0).astype(np.float64)
    rel_sorted = rel[s["order"]]
    n_tie = np.bincount(tie).astype(np.float64)          # size of each tie group
    r_tie = np.bincount(tie, weights=rel_sorted)          # relevant items in it
    first = np.flatnonzero(new)                           # first entry of each tie group
    excl = np.cumsum(rel_sorted) - rel_sorted             # relevant entries before, global
    cell_first = np.zeros(G, dtype=np.intp)
    sizes = np.bincount(s["groups"], minlength=G)
    np.cumsum(sizes[:-1], out=cell_first[1:])
    before = excl[first] - excl[cell_first[gs[first]]]    # relevant before, in the cell
    c_tie = gpos[first]                                   # items before, in the cell
    # expected precision contribution of the j-th slot of a tie group (n items, r
    # relevant, R_c relevant and c items before it): P(relevant) = r/n, and given that,
    # the expected number of relevant items in the slots before it (in the group) is
    # (j-1)(r-1)/(n-1).
    pos = gpos + 1.0
    j = pos - c_tie[tie]
    n_t, r_t = n_tie[tie], r_tie[tie]
    inner = np.where(n_t > 1, (j - 1.0) * (r_t - 1.0) / np.maximum(n_t - 1.0, 1.0), 0.0)
    term = (r_t / n_t) * (before[tie] + 1.0 + inner) / pos
    total = np.bincount(gs, weights=term, minlength=G)
    R = np.bincount(s["groups"], weights=rel, minlength=G)
    valid = R > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.minimum(total / R, 1.0)
    return values.reshape(s["shape"]), valid.reshape(s["shape"])


def ndcg(Y, P, k=10):
    """Normalized discounted cumulative gain at rank k (NDCG@k).

    The items are ranked by decreasing prediction. With graded relevance labels
    ``rel >= 0``, ``DCG@k = sum over ranks r = 1..k of (2**rel_(r) - 1) / log2(r + 1)``
    and NDCG@k = DCG@k / IDCG@k, IDCG@k being the DCG@k of the ideal ranking (by
    decreasing relevance). This is the LETOR / Burges et al. (2005) definition.

    Tied predictions are averaged: every item of a tie group contributes the mean gain
    of the group at each of the group's positions, which is exactly the expected DCG@k
    over a random order of the tied items (the convention of scikit-learn's
    ``ndcg_score(ignore_ties=False)``).

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Relevance grades, real values >= 0 (typically 0, 1, 2, ...).
    P : array-like, same shape as Y
        Predicted scores.
    k : int >= 1 or None, default 10
        Rank cutoff; None uses all m ranks.

    Returns
    -------
    numpy.float64
        NDCG@k in [0, 1], averaged over the columns that have a relevant item.

    Raises
    ------
    UndefinedPerformance
        If the shapes differ, a label is negative, or every column has all relevance
        labels zero (IDCG = 0; LETOR leaves such queries undefined). A column with all
        labels zero is dropped from the average.
    ValueError
        For non-numeric, NaN or infinite input, or an invalid k.

    Notes
    -----
    O(m log m) time per column (one sort by prediction, one by label), O(m) memory.
    """
    Y, P = _labels_and_predictions(Y, P)
    values, valid = _ndcg_cells(Y, P, k=k)
    return _combine(values, valid, "ndcg is undefined: all relevance labels are zero")


def mean_average_precision(Y, P):
    """Average precision of the ranking by decreasing prediction (binary relevance).

    An item is relevant iff its label is > 0. With R relevant items,
    ``AP = (1/R) * sum over relevant items i of precision@rank(i)``, precision@r being
    the fraction of relevant items among the first r. For a single query (one column)
    this is its average precision; over several columns it is their mean (use
    :func:`rlscore.measure.query_mean_average_precision` for MAP over queries).

    Tied predictions are averaged: the value is the exact expectation of AP over a
    random order of the tied items (closed form, McSherry & Najork 2008).

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Labels; > 0 means relevant (so -1/+1, 0/1 and graded 0..4 labels all work).
    P : array-like, same shape as Y
        Predicted scores.

    Returns
    -------
    numpy.float64
        In (0, 1], averaged over the columns that have a relevant item.

    Raises
    ------
    UndefinedPerformance
        If the shapes differ or no column has a relevant item (a column without one
        is dropped from the average).
    ValueError
        For non-numeric, NaN or infinite input.

    Notes
    -----
    O(m log m) time per column, O(m) memory.
    """
    Y, P = _labels_and_predictions(Y, P)
    values, valid = _ap_cells(Y, P)
    return _combine(values, valid,
                    "mean_average_precision is undefined: no relevant item")


_finish(ndcg, iserror=False)
_finish(mean_average_precision, iserror=False)
