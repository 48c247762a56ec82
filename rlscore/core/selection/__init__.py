"""Model selection: the one home of fold loops, grid search and hold-out selection.

What lives here
    The boundary every face crosses: :class:`HoldoutModel` (what a trained model
    offers to selection) and :class:`CrossValidator` (protocols), :func:`grid_search`
    (the one selection driver) over a regularization path (edge-of-grid warning),
    returning one :class:`SelectionResult` that each face only renames; the
    cross-validators :class:`LOOCV`, :class:`NfoldCV` (the one fold loop: K-fold by
    sample or by query), :class:`LQOCV`, :class:`LPOCV` and the pooled/validation/refit
    selectors of ``_holdout`` (:class:`PooledQueryCV`, :class:`ValidationCV`,
    :class:`RefitModel`, :class:`RefitCV`), :func:`query_score` (per-query scoring), :func:`defined_queries` (the queries it
    scores) and
    :func:`lpo_cindex` (held-out pair predictions scored as a c-index, O(n_pairs)),
    :func:`holdout_of` (a model's exact hold-out of any rows: ``holdout_rows`` where
    its ``holdout`` takes one query, as query RankRLS's).
    A cross-validator costs what the model's hold-out shortcut costs; selection adds
    O(n_grid * cost of the measure). :func:`minimize_criterion` (``_kernel_search``) is
    the gradient-based alternative to a grid: L-BFGS-B over log-scale parameters of any
    callable returning a CV criterion and its gradient (the learner families supply it,
    e.g. :class:`rlscore.core.hyper.LOOObjective`), with restarts, a stop rule in the
    criterion, an optional Cawley & Talbot penalty (fixed weight, or ``"bayes"`` with
    the weight integrated out: :class:`PenalizedCriterion`) and progress per step; O(p)
    per evaluation beyond the callable's cost.

Builds on
    ``structure`` and ``optim``; it calls models through their ``holdout`` /
    ``leave_one_out`` methods and never imports a learner family, so every learner
    family (rls, rankrls, ranksvm, kronecker) may use it, as scikit-learn's estimators use
    ``model_selection``.

Module order
    ``_protocols``, ``_scores``, ``_search`` (the grid search and its
    :class:`SelectionResult`) -> ``_lpo`` -> ``_cv`` -> ``_holdout``; ``_kernel_search``
    (standalone).
"""

from rlscore.core.selection._lpo import lpo_cindex
from rlscore.core.selection._protocols import (HoldoutModel, CrossValidator,
                                               HOLDOUT_CAPABILITIES, capabilities)
from rlscore.core.selection._scores import query_score, defined_queries
from rlscore.core.selection._search import (DEFAULT_REGPARAMS, EdgeOfGridWarning,
                                            SelectionResult, grid_search,
                                            grid_search_params)
from rlscore.core.selection._cv import (LOOCV, NfoldCV, TrainTestCV, LPOCV, QueryLPOCV,
                                        LQOCV, lpo_pairs, lpo_ranking_accuracy, holdout_of)
from rlscore.core.selection._holdout import (PooledQueryCV, ValidationCV, RefitModel,
                                             RefitCV)
from rlscore.core.selection._kernel_search import (minimize_criterion, CriterionSearchResult,
                                                   PenalizedCriterion, Penalty,
                                                   SearchOptions, restart_points)

__all__ = [
    "HoldoutModel",
    "CrossValidator",
    "HOLDOUT_CAPABILITIES",
    "capabilities",
    "SelectionResult",
    "lpo_cindex",
    "DEFAULT_REGPARAMS",
    "grid_search",
    "grid_search_params",
    "query_score",
    "defined_queries",
    "LOOCV",
    "NfoldCV",
    "TrainTestCV",
    "LPOCV",
    "QueryLPOCV",
    "LQOCV",
    "lpo_pairs",
    "lpo_ranking_accuracy",
    "EdgeOfGridWarning",
    "PooledQueryCV",
    "ValidationCV",
    "RefitModel",
    "RefitCV",
    "minimize_criterion",
    "PenalizedCriterion",
    "Penalty",
    "SearchOptions",
    "CriterionSearchResult",
]
