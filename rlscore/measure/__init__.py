"""Performance measures.

Every measure has the form ``f(Y, P)``; the ranking measures (``cindex``, ``auc``,
``ndcg``, ``mean_ndcg``, ``precision_at_k``, ``mean_average_precision``,
``reciprocal_rank``, ``expected_reciprocal_rank``) also take
``qids`` (one query id per row, or a :class:`rlscore.core.structure.QueryGroups`) and then
score each query on its own and average over queries. Each returns a ``numpy.float64``; its boolean attribute ``iserror`` is True when smaller
is better (``sqerror``, ``sqmprank``) and False otherwise. Y and P may be 1-D or 2-D
(one column per task, scored separately and averaged); an (m,) and an (m, 1) input are
compatible, other shape differences raise :class:`UndefinedPerformance`.

Tie conventions: in the pairwise measures (``cindex``, ``auc``) label ties are not pairs
and prediction ties count 1/2; ``kendall_tau_b`` corrects for ties in both. The IR
measures (``ndcg``, ``mean_ndcg``, ``precision_at_k``, ``mean_average_precision``)
follow the LETOR 4.0 evaluation script by default (tied predictions keep the input
order, every query counts); ``convention="letor3"`` follows LETOR 3.0's script (P@k of a
query shorter than k is 0); ``ndcg(..., convention="standard")`` is scikit-learn's
``ndcg_score`` (ties averaged); ``convention="lightgbm"`` / ``"xgboost"`` /
``"xgboost-"`` is the NDCG that LightGBM and XGBoost print. See
:mod:`rlscore.measure.ranking_measures`.

Binary labels: ``cindex`` and the IR measures accept -1/+1, 0/1 and booleans (+1 / 1 /
True is the positive, relevant class); ``auc`` keeps RLScore's -1/+1 contract (0/1 and
booleans with ``zero_one=True``, as the measure named ``"auc"`` passes); ``accuracy``
and ``fscore`` take -1/+1.

Survival: :func:`concordance_index_censored` (Harrell's C) and
:func:`concordance_index_ipcw` (Uno's C) take right-censored outcomes with
scikit-survival's signatures and tie rules; their risk scores are "higher risk =
earlier event". See :mod:`rlscore.measure.survival_measures`.

Names: :func:`measure_by_name` is the one table of measure names (``"ndcg@5"``,
``"p@5"``, ``"map"``, ``"cindex"``, ``"auc"``, ...) that the command line's
``--measure`` and the estimators' ``scoring`` take; see :mod:`rlscore.measure._names`.
"""

from rlscore.measure.accuracy_measure import accuracy
from rlscore.measure.auc_measure import auc
from rlscore.measure.cindex_measure import cindex, cindex_per_query, pair_counts
from rlscore.measure.fscore_measure import fscore
from rlscore.measure.kendall_measure import kendall_tau_b
from rlscore.measure.measure_utilities import UndefinedPerformance
from rlscore.measure.multi_accuracy_measure import ova_accuracy
from rlscore.measure._names import MEASURE_NAMES, Measure, measure_by_name
from rlscore.measure.query_measures import (
    query_average, query_cindex, query_kendall_tau_b, query_mean_average_precision,
    query_ndcg, query_values)
from rlscore.measure.ranking_measures import (
    ShortQueryWarning, average_precision_per_query, expected_reciprocal_rank,
    expected_reciprocal_rank_per_query, mean_average_precision, mean_ndcg,
    mean_ndcg_per_query, ndcg, ndcg_per_query, precision_at_k, precision_at_k_per_query,
    reciprocal_rank, reciprocal_rank_per_query, short_query_message,
    short_query_warnings_once)
from rlscore.measure.rm2_measure import rm2
from rlscore.measure.spearman_measure import spearman
from rlscore.measure.survival_measures import (
    concordance_index_censored, concordance_index_ipcw)
from rlscore.measure.sq_mprank_measure import sqmprank
from rlscore.measure.sqerror_measure import sqerror

#: The vectorised per-query functions by the short names of the LETOR tools (``ndcg``,
#: ``p`` for precision@k, ``map`` for average precision, ``meanndcg``) and ``cindex``:
#: ``PER_QUERY[name](Y, P, qids, **kw)`` is the array (n_queries,) of the measure of
#: every query, NaN where it is undefined; ``k`` (the cutoff) is a keyword of "ndcg"
#: and "p". The one name -> per-query function mapping (the CLI and
#: :mod:`rlscore.distributed` use it); other measures go through :func:`query_values`.
PER_QUERY = {
    "cindex": cindex_per_query,
    "ndcg": ndcg_per_query,
    "p": precision_at_k_per_query,
    "map": average_precision_per_query,
    "meanndcg": mean_ndcg_per_query,
    "rr": reciprocal_rank_per_query,
    "err": expected_reciprocal_rank_per_query,
}

__all__ = [
    "PER_QUERY", "accuracy", "auc", "cindex", "fscore", "ova_accuracy", "sqmprank", "sqerror",
    "spearman", "rm2", "kendall_tau_b", "ndcg", "mean_ndcg", "precision_at_k",
    "mean_average_precision", "cindex_per_query", "ndcg_per_query", "mean_ndcg_per_query",
    "precision_at_k_per_query", "average_precision_per_query", "reciprocal_rank",
    "reciprocal_rank_per_query", "expected_reciprocal_rank",
    "expected_reciprocal_rank_per_query",
    "query_average", "query_values", "query_cindex", "query_kendall_tau_b",
    "query_ndcg", "query_mean_average_precision", "UndefinedPerformance",
    "Measure", "measure_by_name", "MEASURE_NAMES", "ShortQueryWarning",
    "short_query_message", "short_query_warnings_once", "pair_counts",
    "concordance_index_censored", "concordance_index_ipcw",
]
