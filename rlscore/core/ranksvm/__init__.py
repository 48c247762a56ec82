"""TODO docstring."""

from rlscore.core.ranksvm._risk import (NORMALIZATIONS, LOSSES, check_utilities, pair_structure, pair_weights, RankingRisk, SquaredRankingRisk, PairRisk)
from rlscore.core.ranksvm._ranksvm import (ConvergenceWarning, RankSVMSolution, ranksvm_result, solution_attributes, SOLUTION_ATTRIBUTES, ranksvm_regparam, solve_ranksvm, fit_linear_ranksvm, fit_pairwise_ranksvm, empirical_kernel_map, fit_kernel_ranksvm, kfold_ranksvm, SOLVERS, solve_ranksvm_newton, check_loss_solver, make_risk, train_ranksvm, run_newton)
from rlscore.core.ranksvm._pairwise_loss import (PairwiseRankingLoss)
from rlscore.core.ranksvm._lambda_max import (ranksvm_lambda_max, grid_below)

__all__ = [
    "NORMALIZATIONS",
    "LOSSES",
    "check_utilities",
    "pair_structure",
    "pair_weights",
    "RankingRisk",
    "SquaredRankingRisk",
    "PairRisk",
    "ConvergenceWarning",
    "RankSVMSolution",
    "ranksvm_result",
    "solution_attributes",
    "SOLUTION_ATTRIBUTES",
    "ranksvm_regparam",
    "solve_ranksvm",
    "fit_linear_ranksvm",
    "fit_pairwise_ranksvm",
    "empirical_kernel_map",
    "fit_kernel_ranksvm",
    "kfold_ranksvm",
    "SOLVERS",
    "solve_ranksvm_newton",
    "check_loss_solver",
    "make_risk",
    "train_ranksvm",
    "run_newton",
    "PairwiseRankingLoss",
    "ranksvm_lambda_max",
    "grid_below",
]
