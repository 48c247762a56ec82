"""Regularized least squares: dual and primal solvers, their hold-out shortcuts, reduced
sets (Nystrom), hold-out models and prediction intervals.

from rlscore.core.rls._solvers import (HoldoutShortcuts, KernelSolver, LinearSolver,
                                       loo_combine, loo_rows)
from rlscore.core.rls._nystrom import (NystromMap, ReducedMap, NystromSolver, select_basis,
                                       basis_positions, constrained_solve,
                                       removal_directions_eigen, loo_removal_rows)
from rlscore.core.rls._representation import (Representation, build_representation,
                                              kernel_param_names, NystromFeatureMap,
                                              nystrom_features)
from rlscore.core.rls._holdout_models import (influence_coefficients, apply_influence,
                                              loo_models, fold_models, HoldoutModels)
from rlscore.core.rls._intervals import (METHODS, conformal_ranks, check_miscoverage,
                                         IntervalModel, interval_model, folds_from_groups)
from rlscore.core.rls._streamed import (StreamedReducedSet, block_statistics,
                                        add_statistics, gram_and_rhs, effective_regparam)
from rlscore.core.rls._pcg import (NystromPreconditioner, StreamedGramOperator,
                                   pcg_reduced_set)
from rlscore.core.rls._streamed_fit import (StreamedFit, streamed_fit)
from rlscore.core.rls._model import (RLSModel, make_solver, n_rows)
from rlscore.core.rls._cg import (DataOperator, RLSOperator, as_cg_data, cg_data_and_labels,
                                  cg_rls)
from rlscore.core.rls._greedy import (GreedyRLSState, greedy_forward_selection,
                                      check_subsetsize)

__all__ = [
    "HoldoutShortcuts",
    "KernelSolver",
    "LinearSolver",
    "loo_combine",
    "loo_rows",
    "removal_directions_eigen",
    "loo_removal_rows",
    "NystromMap",
    "ReducedMap",
    "NystromSolver",
    "select_basis",
    "basis_positions",
    "constrained_solve",
    "Representation",
    "build_representation",
    "kernel_param_names",
    "NystromFeatureMap",
    "nystrom_features",
    "StreamedReducedSet",
    "block_statistics",
    "add_statistics",
    "gram_and_rhs",
    "effective_regparam",
    "NystromPreconditioner",
    "StreamedGramOperator",
    "pcg_reduced_set",
    "StreamedFit",
    "streamed_fit",
    "influence_coefficients",
    "apply_influence",
    "loo_models",
    "fold_models",
    "HoldoutModels",
    "METHODS",
    "conformal_ranks",
    "check_miscoverage",
    "IntervalModel",
    "interval_model",
    "folds_from_groups",
    "RLSModel",
    "make_solver",
    "n_rows",
    "DataOperator",
    "RLSOperator",
    "as_cg_data",
    "cg_data_and_labels",
    "cg_rls",
    "GreedyRLSState",
    "greedy_forward_selection",
    "check_subsetsize",
]
