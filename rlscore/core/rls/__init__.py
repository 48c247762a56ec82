"""Regularized least squares: dual and primal solvers, their hold-out shortcuts,
hold-out models and prediction intervals, matrix-free CG and greedy selection.

What lives here
    :class:`KernelSolver` (dual: eigendecomposition O(m^3) once, then every lambda of a
    path, leave-one-out, K-fold and leave-pair-out in O(m^2) per lambda; Cholesky
    O(m^3/3) for one lambda) and :class:`LinearSolver` (primal in d or r features:
    O(m d^2 + d^3)) with the hold-out algebra of :class:`HoldoutShortcuts`;
    :class:`HoldoutModels` and :func:`interval_model` (jackknife+ / CV+ from the
    same hold-out formulas), matrix-free :func:`cg_rls` and greedy forward selection
    (:func:`greedy_forward_selection`, O(k m d) for k features). Reduced sets, the
    model the faces adapt and the large-data routes are the family above,
    :mod:`rlscore.core.nystrom`; kernel-parameter learning is :mod:`rlscore.core.hyper`.

Builds on
    ``structure``, ``optim``, ``selection``. A new RLS-type learner (a new loss with a
    closed form) goes here; reduced sets, ranking and pairwise learners build on it
    from above.

Module order
    ``_folds`` -> ``_shortcuts`` -> ``_solvers`` -> ``_holdout_models`` -> ``_intervals``; ``_cg`` -> ``_greedy``.
"""

from rlscore.core.rls._folds import (FoldCache, CheckedRows, prefer_primal_fold,
                                     primal_fold_parts, primal_fold_predictions)
from rlscore.core.rls._shortcuts import HoldoutShortcuts, loo_combine, loo_rows
from rlscore.core.rls._solvers import KernelSolver, LinearSolver
from rlscore.core.rls._holdout_models import (influence_coefficients, apply_influence,
                                              loo_models, fold_models, HoldoutModels)
from rlscore.core.rls._intervals import (METHODS, conformal_ranks, check_miscoverage,
                                         IntervalModel, interval_model,
                                         folds_from_groups)
from rlscore.core.rls._cg import (DataOperator, RLSOperator, as_cg_data, cg_data_and_labels,
                                  cg_rls, CGRLSOptions)
from rlscore.core.rls._greedy import (GreedyRLSState, greedy_forward_selection,
                                      check_subsetsize)

__all__ = [
    "HoldoutShortcuts",
    "KernelSolver",
    "LinearSolver",
    "influence_coefficients",
    "loo_models",
    "fold_models",
    "HoldoutModels",
    "METHODS",
    "conformal_ranks",
    "IntervalModel",
    "interval_model",
    "folds_from_groups",
    "DataOperator",
    "RLSOperator",
    "cg_rls",
    "CGRLSOptions",
    "greedy_forward_selection",
]
