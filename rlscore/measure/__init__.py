"""Performance measures.

Every measure has the form ``f(Y, P)`` (the query-averaged forms also take ``qids``)
and returns a ``numpy.float64``; its boolean attribute ``iserror`` is True when smaller
is better (``sqerror``, ``sqmprank``) and False otherwise. Y and P may be 1-D or 2-D
(one column per task, scored separately and averaged); an (m,) and an (m, 1) input are
compatible, other shape differences raise :class:`UndefinedPerformance`.

Tie conventions: in the pairwise measures (``cindex``, ``auc``) label ties are not pairs
and prediction ties count 1/2; ``kendall_tau_b`` corrects for ties in both; ``ndcg``
and ``mean_average_precision`` average over the orders of tied predictions.
"""

from rlscore.measure.accuracy_measure import accuracy
from rlscore.measure.auc_measure import auc
from rlscore.measure.cindex_measure import cindex
from rlscore.measure.fscore_measure import fscore
from rlscore.measure.kendall_measure import kendall_tau_b
from rlscore.measure.measure_utilities import UndefinedPerformance
from rlscore.measure.multi_accuracy_measure import ova_accuracy
from rlscore.measure.query_measures import (
    query_average, query_cindex, query_kendall_tau_b, query_mean_average_precision,
    query_ndcg)
from rlscore.measure.ranking_measures import mean_average_precision, ndcg
from rlscore.measure.spearman_measure import spearman
from rlscore.measure.sq_mprank_measure import sqmprank
from rlscore.measure.sqerror_measure import sqerror

__all__ = [
    "accuracy", "auc", "cindex", "fscore", "ova_accuracy", "sqmprank", "sqerror",
    "spearman", "kendall_tau_b", "ndcg", "mean_average_precision",
    "query_average", "query_cindex", "query_kendall_tau_b", "query_ndcg",
    "query_mean_average_precision", "UndefinedPerformance",
]
