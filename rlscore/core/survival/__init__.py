"""Survival ranking with right-censored outcomes: RankRLS on Harrell's comparability
graph. Risk scores are "higher risk = earlier event" everywhere.

What lives here
    :class:`ComparabilityGraph` -- the graph of Harrell's comparable pairs (i an
    observed event, t_i < t_j, or t_i == t_j with j censored) as an operator: L v, the
    degrees and the pair targets in O(m k) after one O(m log m) sort, never an O(m^2)
    pair list; :class:`SurvivalRankRLSModel` -- preference-graph RankRLS on that graph
    (Pahikkala et al. 2009), linear, kernel or Nystrom, with unit or time-difference
    magnitudes, the lambda path from one eigendecomposition, and the exact hold-out
    (K-fold, leave-one-out) in which held-out rows take their edges with them
    (:meth:`SurvivalRankRLSModel.holdout`, derivation in
    :mod:`rlscore.core.survival._model`); :func:`holdout_cindex` scores hold-out
    predictions by Harrell's C per fold and pooled; :class:`SurvivalCV` -- the
    :class:`rlscore.core.selection.CrossValidator` every face selects regparam with
    (K-fold: the mean of each fold's own C; leave-one-out: the C of the pooled
    scores), the whole grid from one hold-out; for 10^5 - 10^6 rows,
    :func:`pcg_survival_rankrls` -- Nystrom centres, CG (optionally Falkon's
    preconditioner) on the streamed kernel blocks (:class:`ComparabilityGramOperator`: two passes per
    product, O(r^2 + m) memory); :func:`train_survival_ranksvm` -- the linear RankSVM
    (hinge: bundle method, squared hinge: TRON) on the comparable pairs, O(m log m +
    nnz) per solver iteration (the risks live in ``ranksvm``).

Builds on
    ``rls`` (representations, :class:`KernelSolver`), ``rankrls``
    (:func:`laplacian_system`) and ``ranksvm`` (risks, solvers); the measures of :mod:`rlscore.measure`.
"""

import numpy as np

from rlscore.core.survival._graph import ComparabilityGraph
from rlscore.core.survival._model import SurvivalRankRLSModel, holdout_cost
from rlscore.core.survival._pcg import (ComparabilityGramOperator, PCGSurvivalRankRLSModel,
                                        pcg_survival_rankrls, survival_rankrls_model)
from rlscore.core.survival._svm import make_survival_risk, train_survival_ranksvm
from rlscore.core.survival._cv import SurvivalCV, survival_measure
from rlscore.measure import concordance_index_censored

__all__ = ["ComparabilityGraph", "SurvivalRankRLSModel", "holdout_cost", "holdout_cindex",
           "ComparabilityGramOperator", "pcg_survival_rankrls", "PCGSurvivalRankRLSModel",
           "survival_rankrls_model", "make_survival_risk",
           "train_survival_ranksvm", "SurvivalCV", "survival_measure"]


def holdout_cindex(event, time, folds, predictions):
    """Harrell's C of hold-out risk scores (higher risk = earlier event).

    Parameters
    ----------
    event, time : (m,) outcomes of all rows.
    folds : list of index arrays; predictions : list of (size(H),) risk scores, one per fold
        (as :meth:`SurvivalRankRLSModel.holdout` returns them).

    Returns
    -------
    dict
        ``"cindex_per_fold"``: (K,) Harrell's C of each fold's rows on their own (NaN
        for a fold without a comparable pair); ``"cindex_pooled"``: Harrell's C of
        all hold-out predictions together (the folds must then cover each row at most
        once), NaN when there is no comparable pair.

    Notes
    -----
    O(m log m) (:func:`rlscore.measure.concordance_index_censored`).
    """
    event = np.asarray(event)
    time = np.asarray(time)
    per = []
    for h, p in zip(folds, predictions, strict=True):
        h = np.asarray(h)
        try:
            per.append(concordance_index_censored(event[h], time[h], p)[0])
        except ValueError as err:
            if "comparable" not in str(err) and "censored" not in str(err):
                raise
            per.append(np.nan)
    rows = np.concatenate([np.asarray(h) for h in folds])
    if np.unique(rows).size != rows.size:
        raise ValueError("the folds overlap: pooled hold-out predictions need each row "
                         "at most once")
    try:
        pooled = concordance_index_censored(event[rows], time[rows],
                                            np.concatenate(predictions))[0]
    except ValueError as err:
        if "comparable" not in str(err) and "censored" not in str(err):
            raise
        pooled = np.nan
    return {"cindex_per_fold": np.array(per), "cindex_pooled": pooled}
