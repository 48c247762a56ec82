"""The mechanism of the ranking measures: the conventions and their checks, one label
column ranked inside each query (:class:`_Ranked`), the NDCG of a column under each
convention, and the per-query driver :func:`_per_query`. O(m log m) per column."""

import numbers

import numpy as np

from rlscore.measure.measure_utilities import (
    UndefinedPerformance, _by_query, _column_cells, _query_cells)


#: the LETOR conventions: "letor" (= "letor4", the default) and "letor3"
LETOR_CONVENTIONS = ("letor", "letor4", "letor3")


#: the gradient-boosting rankers' NDCG: LightGBM's (``lambdarank`` / ``rank_xendcg``
#: metric ``ndcg``), XGBoost's ``ndcg@k`` and ``ndcg@k-``
GBDT_CONVENTIONS = ("lightgbm", "xgboost", "xgboost-")


CONVENTIONS = LETOR_CONVENTIONS + ("standard",) + GBDT_CONVENTIONS


def _check_k(k, allow_none=True):
    if k is None and allow_none:
        return None
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be a positive integer{' or None' if allow_none else ''}"
                         f", got {k!r}")
    return int(k)


def _check_convention(convention, allowed=CONVENTIONS):
    if convention not in allowed:
        raise ValueError(f"convention must be one of {', '.join(map(repr, allowed))}, "
                         f"got {convention!r}")
    return convention


def _relevance(Y, measure):
    """Graded relevance >= 0 for the NDCG gain; -1/+1 labels become 0/1."""
    if np.any(Y < 0):
        if np.all((Y == 1.0) | (Y == -1.0)):
            return (Y > 0).astype(np.float64)
        raise UndefinedPerformance(f"{measure} needs relevance labels >= 0 (or binary "
                                   f"-1/+1 labels)")
    return Y


class _Ranked:
    """One label column ranked inside each query.

    ``y`` are the labels in ranked order (query by query, decreasing prediction, ties
    in input order), ``codes`` their query codes, ``pos`` the 0-based position inside
    the query, ``ideal`` the labels in decreasing order inside each query.
    O(m log m).
    """

    def __init__(self, y, p, groups):
        codes = groups.codes
        order = groups.rank_order(p)               # stable: ties keep input order
        self.codes = codes[order]
        self.pos = np.arange(codes.shape[0]) - groups.starts[self.codes]
        self.y = y[order]
        self.ideal = y[np.lexsort((-y, codes))]
        self.groups = groups

    def per_query(self, weights):
        return np.bincount(self.codes, weights=weights, minlength=self.groups.n_groups)

    def gains(self):
        """The LETOR gains ``2**label - 1`` of ``y`` and ``ideal``, each query's scaled
        by ``2**-s``, s the integer part of the query's largest label.

        A per-query factor cancels in every ratio DCG / IDCG, and a power of two is
        exact: for labels below 2**52 the ratios are those of the unscaled gains to
        the last bit, and a label of 1024 or more, whose ``2**label`` overflows
        float64, gives a finite gain (the query's largest gain is below 2)."""
        top = self.ideal[self.groups.starts[:-1]]          # each query's largest label
        shift = np.floor(np.maximum(top, 0.0))[self.codes]
        low = np.exp2(-shift)                              # 2**-s: 1 for labels below 1
        return np.exp2(self.y - shift) - low, np.exp2(self.ideal - shift) - low


def _letor_discount(pos):
    """LETOR 4.0 discount of 0-based positions: 1 for ranks 1, 2; 1/log2(r) after."""
    r = pos + 1.0
    return np.where(r <= 2.0, 1.0, 1.0 / np.log2(np.maximum(r, 2.0)))


def _ndcg_gains(R, disc, k, empty):
    """Per query DCG@k / IDCG@k of the gains ``2**label - 1`` under the discount
    ``disc`` of each ranked position, ``empty`` where the IDCG is 0."""
    if k is not None:
        disc = np.where(R.pos < k, disc, 0.0)
    gain, ideal_gain = R.gains()
    dcg = R.per_query(gain * disc)
    idcg = R.per_query(ideal_gain * disc)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), empty)


def _ndcg_letor_column(R, k):
    values = _ndcg_gains(R, _letor_discount(R.pos), k, 0.0)
    if k is not None:
        values[R.groups.sizes < k] = 0.0
    return values


def _ndcg_gbdt_column(R, k, empty):
    """NDCG@k of LightGBM and XGBoost: gain ``2**label - 1``, discount
    ``1 / log2(1 + r)`` at every rank r, ties in input order, a query shorter than k
    scored on its documents, ``empty`` for a query whose ideal DCG is 0."""
    return _ndcg_gains(R, 1.0 / np.log2(R.pos + 2.0), k, empty)


def _ndcg_standard_column(y, p, groups, k):
    codes = groups.codes
    m = codes.shape[0]
    # each query's labels scaled by a power of two (exact, and cancelling in DCG / IDCG)
    # so that its largest is below 1: sums of labels near the float64 limit stay finite
    by_label = np.lexsort((-y, codes))
    y = np.ldexp(y, -np.frexp(y[by_label][groups.starts[:-1]])[1][codes])
    order = np.lexsort((-p, codes))
    cs, ps = codes[order], p[order]
    pos = np.arange(m) - groups.starts[cs]
    disc = 1.0 / np.log2(pos + 2.0)
    if k is not None:
        disc = np.where(pos < k, disc, 0.0)
    new = np.ones(m, dtype=bool)
    new[1:] = (cs[1:] != cs[:-1]) | (ps[1:] != ps[:-1])
    tie = np.cumsum(new) - 1
    # every member of a tie group gets the group's mean gain at each of its positions:
    # the expected DCG over the orders of the tie (scikit-learn's _tie_averaged_dcg)
    tie_mean = np.bincount(tie, weights=y[order]) / np.bincount(tie)
    dcg = np.bincount(cs, weights=tie_mean[tie] * disc, minlength=groups.n_groups)
    ideal = y[by_label]
    idcg = np.bincount(cs, weights=ideal * disc, minlength=groups.n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)


def _per_query(Y, P, qids, column, relevance_for=None, ranked=True, on_groups=None):
    """(n_queries,) values through the measures' one per-query mechanism
    (:func:`rlscore.measure.measure_utilities._query_cells`): ``column`` scores one label
    column in every query, given its :class:`_Ranked` order (``ranked``) or
    ``(y, p, groups)``; the mean over the label columns. ``relevance_for``: the measure's
    name when it needs graded relevance (:func:`_relevance`); ``on_groups(groups)`` is
    called once with the queries."""
    def one_column(y, p, groups):
        return column(_Ranked(y, p, groups)) if ranked else column(y, p, groups)

    def cells(Y, P, groups):
        if on_groups is not None:
            on_groups(groups)
        if relevance_for is not None:
            Y = _relevance(Y, relevance_for)
        return _column_cells(one_column)(Y, P, groups)
    return _by_query(*_query_cells(Y, P, qids, cells))
