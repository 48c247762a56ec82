"""Information-retrieval ranking measures: NDCG, mean NDCG, precision at k, MAP, MRR and
ERR.

Every measure ranks the documents of each query by decreasing prediction, scores each
query on its own and averages over queries. ``qids`` (one query id per row, or a
:class:`rlscore._groups.QueryGroups`) defines the queries; without it the whole input is
one query. Several label columns are scored one by one and the column values averaged.

Conventions
-----------
``convention="letor"`` (the default of every measure here; ``"letor4"`` is the same)
follows the official LETOR 4.0 evaluation script ``Eval-Score-4.0.pl`` (Qin & Liu,
*Introducing LETOR 4.0 Datasets*, arXiv:1306.2597, 2013), so that values can be put
beside published LETOR tables:

* gain ``2**label - 1``; ranks 1 and 2 are not discounted, rank r >= 3 is discounted by
  ``1 / log2(r)``;
* a query whose ideal DCG is 0 (no relevant document) scores 0 and still counts;
* a query with fewer than k documents has NDCG@k = 0 (the script leaves it undefined and
  sums it as 0); :func:`ndcg` then warns (:class:`ShortQueryWarning`, naming how many
  queries are shorter than k and how to score them), once per call or, inside
  :func:`short_query_warnings_once` (every grid search of the library), once per
  search;
* P@k divides by k, counting the missing positions of a short query as irrelevant;
* relevant means label > 0 for P@k and MAP; AP = 0 for a query without relevant
  documents;
* tied predictions keep the input (file) order (the script's sort is stable);
* every mean is over all queries.

``convention="letor3"`` (:func:`ndcg`, :func:`precision_at_k`,
:func:`mean_average_precision`) follows LETOR 3.0's ``Eval-Score-3.0.pl`` (Jun Xu and
Tie-Yan Liu; the script of the LETOR 3.0 tables, e.g. OHSUMED in T.-Y. Liu, *Learning to
Rank for Information Retrieval*, Springer 2011, Table 11.7). It differs from 4.0 in one
rule: its precision loop stops at the last document of a query, so P@k of a query with
fewer than k documents is undefined and summed as 0 (4.0 counts the missing positions
as irrelevant: the relevant documents of the query divided by k). Everything else is the
same: the gain table ``{2: 3, 1: 1, 0: 0}`` (= ``2**label - 1``), no discount at ranks 1
and 2, NDCG@k = 0 for a query shorter than k (both scripts leave it undefined), IDCG = 0
scores 0, relevant means label 1 or 2, AP = 0 without relevant documents, ties in file
order, means over all queries. (3.0 has no MeanNDCG; :func:`mean_ndcg` is 4.0 only.)
Both scripts look labels up in a table of 0, 1 and 2 only; rlscore extends the table
to any grade as ``2**label - 1`` and relevant as label > 0.

``convention="standard"`` (:func:`ndcg` only) is scikit-learn's ``ndcg_score``: gain
equal to the label, discount ``1 / log2(1 + r)`` for every rank, tied predictions
averaged (the expected DCG over the orders of the tie, ``ignore_ties=False``), a query
with ideal DCG 0 scores 0 and counts, a query shorter than k is scored on its documents.

``convention="lightgbm"``, ``"xgboost"`` and ``"xgboost-"`` (:func:`ndcg` only) are
the NDCG that the gradient-boosting rankers print, read from their sources and checked
against their own evaluation (LightGBM 4.7, XGBoost 3.2): gain ``2**label - 1`` (their
default label gain), discount ``1 / log2(1 + r)`` at every rank, tied predictions in
input order (both sort stably), a query shorter than k scored on the documents it has
(DCG and IDCG both cut at ``min(k, n)``), a query whose IDCG is 0 scoring 1
(LightGBM, XGBoost's ``ndcg@k``) or 0 (XGBoost's ``ndcg@k-``), every query counting.

The TREC measures: :func:`mean_average_precision` with a cutoff k is trec_eval's
``map_cut_k`` (the AP of the first k ranks, divided by all the relevant documents of
the query); :func:`reciprocal_rank` is trec_eval's ``recip_rank`` (with k,
ir-measures' ``RR@k``); :func:`expected_reciprocal_rank` is ERR@k (Chapelle et al.,
CIKM 2009) with the top grade ``max_grade`` (default the largest label of the input;
4 for gdeval.pl, ir-measures' ``ERR@k``). Ranking ties keep the input order here;
trec_eval breaks them by docid, so the values agree when no scores tie.

Labels: graded relevance ``0, 1, 2, ...``; binary labels ``0/1``, booleans or ``-1/+1``
are accepted everywhere (1 / True / +1 is relevant; -1 counts as 0 for NDCG). Labels of
any size are scored exactly: each query's gains are scaled by a power of two (its
largest label's), which the ratio DCG / IDCG does not see and float64 represents
exactly, so a label of 1024 or more, whose ``2**label`` overflows float64, gives the
exact NDCG instead of NaN, and LETOR's small labels give the unscaled values.
"""

import numbers

import numpy as np

from rlscore.measure.measure_utilities import UndefinedPerformance, _finish
# the mechanism and the short-query note live in private modules; every name stays
# importable from here
from rlscore.measure._ranked import (  # noqa: F401
    CONVENTIONS, GBDT_CONVENTIONS, LETOR_CONVENTIONS, _check_convention, _check_k,
    _letor_discount, _ndcg_gbdt_column, _ndcg_letor_column, _ndcg_standard_column,
    _per_query)
from rlscore.measure._short_queries import (  # noqa: F401
    ShortQueryWarning, _warn_short_queries, short_query_message, short_query_warnings_once)

__all__ = ["ndcg", "mean_ndcg", "precision_at_k", "mean_average_precision",
           "reciprocal_rank", "expected_reciprocal_rank",
           "ShortQueryWarning", "short_query_message", "short_query_warnings_once"]


def ndcg_per_query(Y, P, qids=None, k=10, convention="letor"):
    """NDCG@k of every query: array (n_queries,) (the mean over label columns), queries
    in order of first appearance. See :func:`ndcg`."""
    k = _check_k(k)
    _check_convention(convention)
    if convention in LETOR_CONVENTIONS:         # 3.0 and 4.0 compute NDCG alike
        warn = None if k is None else (
            lambda g: _warn_short_queries(g.sizes, k, convention))
        return _per_query(Y, P, qids, lambda R: _ndcg_letor_column(R, k), "ndcg",
                          on_groups=warn)
    if convention in GBDT_CONVENTIONS:
        empty = 0.0 if convention == "xgboost-" else 1.0
        return _per_query(Y, P, qids, lambda R: _ndcg_gbdt_column(R, k, empty), "ndcg")
    return _per_query(Y, P, qids, lambda y, p, g: _ndcg_standard_column(y, p, g, k),
                      "ndcg", ranked=False)


def ndcg(Y, P, qids=None, k=10, convention="letor"):
    """Normalized discounted cumulative gain at rank k (NDCG@k), mean over queries.

    ``convention="letor"`` (default), the LETOR 4.0 evaluation script
    ``Eval-Score-4.0.pl``: per query, documents ranked by decreasing prediction (ties in
    input order), ``DCG@k = sum_{r=1..min(k, n)} (2**rel_r - 1) * d(r)`` with
    ``d(1) = d(2) = 1`` and ``d(r) = 1 / log2(r)`` for r >= 3; NDCG@k = DCG@k / IDCG@k,
    the ideal DCG of the documents sorted by decreasing relevance. A query with IDCG@k = 0
    scores 0; a query with fewer than k documents scores 0 (with a
    :class:`ShortQueryWarning` naming how many there are and how to score them). The
    mean is over all queries. ``"letor4"`` is the same; ``"letor3"``
    (``Eval-Score-3.0.pl``) computes NDCG by the same rules (see the module notes for
    where 3.0 and 4.0 differ).

    ``convention="standard"``: scikit-learn's ``ndcg_score`` (Järvelin & Kekäläinen
    2002 with linear gain): ``DCG@k = sum_{r<=k} rel_r / log2(1 + r)``, tied predictions
    averaged, IDCG = 0 scores 0; per query, then the mean over all queries.
    ``ndcg(y, p, convention="standard")`` equals ``sklearn.metrics.ndcg_score([y], [p])``.

    ``convention="lightgbm"``, ``"xgboost"`` and ``"xgboost-"``: the NDCG that the
    gradient-boosting rankers print (LightGBM's metric ``ndcg`` with its default
    ``label_gain``, XGBoost's ``ndcg@k`` and ``ndcg@k-``, both with their default
    exponential gain): gain ``2**label - 1``, discount ``1 / log2(1 + r)`` at every
    rank, tied predictions in input order (both libraries sort stably), a query
    shorter than k scored on the documents it has, and a query without a relevant
    document (IDCG = 0) scoring 1 (LightGBM, ``"xgboost"``) or 0 (``"xgboost-"``,
    XGBoost's ``ndcg@k-``); the mean over all queries. Equal to the libraries' own
    evaluation of the same predictions (tests/measure/test_gbdt_ranking.py checks it
    against both).

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Relevance grades >= 0 (0, 1, 2, ...), or binary 0/1, boolean or -1/+1 labels
        (-1 is relevance 0).
    P : array-like, same shape as Y
        Predicted scores.
    qids : sequence of length m or QueryGroups, optional
        Query id of each row (any hashable ids, rows need not be contiguous). Default:
        one query.
    k : int >= 1 or None, default 10
        Rank cutoff; None uses every rank of each query (no short-query rule).
    convention : {"letor", "letor4", "letor3", "standard", "lightgbm", "xgboost", \
"xgboost-"}

    Returns
    -------
    numpy.float64
        In [0, 1]; several label columns are averaged.

    Raises
    ------
    UndefinedPerformance
        Shapes differ, empty input, or negative labels other than -1/+1.
    ValueError
        Non-numeric, NaN or infinite input; bad k, convention or qids.

    Warns
    -----
    ShortQueryWarning
        With the LETOR convention, when some query has fewer than k documents (once
        per call; once per search inside :func:`short_query_warnings_once`).

    Notes
    -----
    O(m log m) time (two sorts per column), O(m) memory. Exact for labels of any size
    (gains scaled per query by a power of two, see the module notes): a label >= 1024
    does not overflow.
    """
    return np.float64(np.mean(ndcg_per_query(Y, P, qids, k, convention)))


def mean_ndcg_per_query(Y, P, qids=None):
    """MeanNDCG of every query (see :func:`mean_ndcg`), array (n_queries,)."""
    def col(R):
        disc = _letor_discount(R.pos)
        start = R.groups.starts[R.codes]
        # DCG@j and IDCG@j for every position j of every query: prefix sums per query
        gain, ideal_gain = R.gains()
        c = np.cumsum(gain * disc)
        ci = np.cumsum(ideal_gain * disc)
        c0 = np.concatenate(([0.0], c))[start]
        ci0 = np.concatenate(([0.0], ci))[start]
        dcg, idcg = c - c0, ci - ci0
        with np.errstate(invalid="ignore", divide="ignore"):
            at = np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
        return R.per_query(at) / R.groups.sizes
    return _per_query(Y, P, qids, col, "mean_ndcg")


def mean_ndcg(Y, P, qids=None):
    """LETOR 4.0 MeanNDCG: per query the mean of NDCG@j over j = 1 .. n_q (every rank of
    the query, n_q its number of documents), then the mean over all queries.

    NDCG@j follows ``convention="letor"`` of :func:`ndcg` (gain 2**rel - 1, ranks 1 and
    2 undiscounted, ties in input order, IDCG = 0 scores 0). The range j = 1 .. n_q is
    the ``MeanNDCG`` column of ``Eval-Score-4.0.pl`` (the script averages the NDCG of all
    positions of the query, not only of 1..10). Checked against the script's own output
    on LETOR 4.0 MQ2008 (``docs/tutorials/letor_eval_check.py``: every per-query value
    equal to its four printed decimals).

    Parameters
    ----------
    Y, P, qids : as in :func:`ndcg`

    Returns
    -------
    numpy.float64
        The MeanNDCG, in [0, 1].

    Notes
    -----
    O(m log m) time, O(m) memory.
    """
    return np.float64(np.mean(mean_ndcg_per_query(Y, P, qids)))


def precision_at_k_per_query(Y, P, qids=None, k=10, convention="letor"):
    """P@k of every query, array (n_queries,); see :func:`precision_at_k`."""
    k = _check_k(k, allow_none=False)
    letor3 = _check_convention(convention, LETOR_CONVENTIONS) == "letor3"

    def col(R):
        values = R.per_query(((R.y > 0) & (R.pos < k)).astype(np.float64)) / k
        if letor3:
            values[R.groups.sizes < k] = 0.0   # 3.0: undefined past the last document
        return values
    return _per_query(Y, P, qids, col)


def precision_at_k(Y, P, qids=None, k=10, convention="letor"):
    """Precision at k (P@k), LETOR rules, mean over all queries.

    Per query: the number of relevant documents (label > 0) among the k first of the
    ranking by decreasing prediction (ties in input order), divided by k. A query with
    fewer than k documents counts its missing positions as irrelevant
    (``convention="letor"`` or ``"letor4"``, ``Eval-Score-4.0.pl``) or scores 0
    (``"letor3"``, ``Eval-Score-3.0.pl``, whose loop stops at the query's last
    document and sums the missing P@k as 0).

    Parameters
    ----------
    Y, P, qids : as in :func:`ndcg` (binary or graded labels; relevant means > 0)
    k : int >= 1, default 10
    convention : {"letor", "letor4", "letor3"}

    Returns
    -------
    numpy.float64
        P@k, in [0, 1].

    Notes
    -----
    O(m log m) time, O(m) memory.
    """
    return np.float64(np.mean(precision_at_k_per_query(Y, P, qids, k, convention)))


def average_precision_per_query(Y, P, qids=None, convention="letor", k=None):
    """AP (or AP@k) of every query, array (n_queries,); see
    :func:`mean_average_precision`."""
    _check_convention(convention, LETOR_CONVENTIONS)
    k = _check_k(k)

    def col(R):
        rel = (R.y > 0).astype(np.float64)
        c = np.cumsum(rel)
        before = np.concatenate(([0.0], c))[R.groups.starts[R.codes]]
        prec = (c - before) / (R.pos + 1.0)           # precision at each position
        n_rel = R.per_query(rel)
        hits = rel if k is None else rel * (R.pos < k)
        total = R.per_query(prec * hits)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n_rel > 0, total / np.where(n_rel > 0, n_rel, 1.0), 0.0)
    return _per_query(Y, P, qids, col)


def mean_average_precision(Y, P, qids=None, convention="letor", k=None):
    """Mean average precision (MAP, or MAP@k), LETOR rules (3.0 and 4.0 compute it
    alike).

    Per query: documents ranked by decreasing prediction (ties in input order);
    relevant means label > 0; ``AP = (1/R) sum over relevant documents of
    precision@rank`` with R the number of relevant documents of the query, and AP = 0
    when R = 0. MAP is the mean over all queries (without qids, the AP of the input).
    With a cutoff k, AP@k sums over the relevant documents of the first k ranks only
    and still divides by R, all the relevant documents of the query: trec_eval's
    ``map_cut_k`` (ir-measures' ``AP@k``).

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Labels; > 0 is relevant (graded 0..4, 0/1, booleans and -1/+1 all work).
    P : array-like, same shape as Y
    qids : sequence of length m or QueryGroups, optional
    convention : {"letor", "letor4", "letor3"}
        Accepted for symmetry with :func:`ndcg`; both LETOR scripts give the same AP.
    k : int >= 1 or None, default None
        Rank cutoff (None: every rank).

    Returns
    -------
    numpy.float64
        In [0, 1].

    Notes
    -----
    O(m log m) time, O(m) memory. Earlier versions averaged tied predictions and
    skipped queries without a relevant document; it now follows the LETOR script, so
    values are comparable with published LETOR tables.
    """
    return np.float64(np.mean(average_precision_per_query(Y, P, qids, convention, k)))


def reciprocal_rank_per_query(Y, P, qids=None, k=None):
    """RR (or RR@k) of every query, array (n_queries,); see :func:`reciprocal_rank`."""
    k = _check_k(k)

    def col(R):
        hit = R.y > 0
        if k is not None:
            hit &= R.pos < k
        first = np.full(R.groups.n_groups, np.inf)
        np.minimum.at(first, R.codes[hit], R.pos[hit])
        return 1.0 / (first + 1.0)                   # 1 / inf = 0: no relevant document
    return _per_query(Y, P, qids, col)


def reciprocal_rank(Y, P, qids=None, k=None):
    """Mean reciprocal rank (MRR; RR@k with a cutoff), mean over all queries.

    Per query: documents ranked by decreasing prediction (ties in input order); RR is
    1 / the rank of the first relevant document (label > 0), 0 when no relevant
    document is ranked (within the first k ranks with a cutoff). trec_eval's
    ``recip_rank`` (k=None) and ir-measures' ``RR@k``; every query counts (a query
    without a relevant document scores 0).

    Parameters
    ----------
    Y, P, qids, k : as in :func:`mean_average_precision` (k=None: every rank)

    Returns
    -------
    numpy.float64 in [0, 1]; O(m log m) time, O(m) memory.
    """
    return np.float64(np.mean(reciprocal_rank_per_query(Y, P, qids, k)))


def expected_reciprocal_rank_per_query(Y, P, qids=None, k=10, max_grade=None):
    """ERR@k of every query, array (n_queries,); see
    :func:`expected_reciprocal_rank`."""
    k = _check_k(k)
    if max_grade is not None:
        if (isinstance(max_grade, (bool, np.bool_))
                or not isinstance(max_grade, numbers.Real)
                or not np.isfinite(max_grade) or max_grade < 0):
            raise ValueError(f"max_grade must be a finite number >= 0 or None, got "
                             f"{max_grade!r}")

    def col(R):
        top = float(R.y.max()) if max_grade is None else float(max_grade)
        if R.y.max() > top:
            raise ValueError(f"max_grade={max_grade!r} is below the largest label "
                             f"{R.y.max()!r}")
        # probability that the user stops at each document: (2**g - 1) / 2**g_max
        stop = np.exp2(R.y - top) - np.exp2(-top)
        groups = R.groups
        starts, sizes = groups.starts[:-1], groups.sizes
        by_size = np.argsort(-sizes, kind="stable")   # queries still ranked at depth j
        sorted_sizes = sizes[by_size]                 # are a prefix of this order
        depth = int(sorted_sizes[0]) if k is None else min(k, int(sorted_sizes[0]))
        reach = np.ones(by_size.size)                 # P(user reaches rank j + 1)
        err = np.zeros(by_size.size)
        # rank by rank over the queries that have it: O(m) work, <= depth steps
        for j in range(depth):
            n = int(np.searchsorted(-sorted_sizes, -j, side="left"))
            r = stop[starts[by_size[:n]] + j]
            err[:n] += reach[:n] * r / (j + 1.0)
            reach[:n] *= 1.0 - r
        values = np.empty_like(err)
        values[by_size] = err
        return values
    return _per_query(Y, P, qids, col, "err")


def expected_reciprocal_rank(Y, P, qids=None, k=10, max_grade=None):
    """Expected reciprocal rank at k (ERR@k; Chapelle, Metzler, Zhang & Grinspan,
    CIKM 2009), mean over all queries.

    Per query, documents ranked by decreasing prediction (ties in input order): a
    user stops at the document of grade g with probability
    ``R(g) = (2**g - 1) / 2**g_max`` and ``ERR@k = sum_{r=1..k} (1/r) R_r
    prod_{i<r} (1 - R_i)``. A query shorter than k is scored on its documents; a query
    without a relevant document scores 0 and counts.

    Parameters
    ----------
    Y, P, qids : as in :func:`ndcg` (graded relevance >= 0, or binary labels)
    k : int >= 1 or None, default 10
        Rank cutoff (None: every rank).
    max_grade : float >= 0 or None
        ``g_max``, the largest grade of the scale. None: the largest label of the
        input (of each label column). ``max_grade=4`` is the TREC Web track's
        ``gdeval.pl`` (ir-measures' ``ERR@k``) and RankLib's ERR, whatever the
        labels; a label above ``max_grade`` is a ValueError.

    Returns
    -------
    numpy.float64 in [0, 1]. O(m log m) time, O(m) memory: a sort per column, then
    one vectorised step per rank (at most k steps).
    """
    return np.float64(np.mean(expected_reciprocal_rank_per_query(Y, P, qids, k,
                                                                 max_grade)))


for _f in (ndcg, mean_ndcg, precision_at_k, mean_average_precision, reciprocal_rank,
           expected_reciprocal_rank):
    _finish(_f, iserror=False)
del _f
