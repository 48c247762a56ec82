"""Linear RankSVM: pairwise hinge and squared-hinge risks counted in O(m log m) per
evaluation, minimized by the bundle method or truncated Newton.

What lives here
    :class:`RankingRisk` / :class:`SquaredRankingRisk` / :class:`PairRisk` (loss and
    subgradient from order-statistic trees or Fenwick counts, Airola et al. 2011),
    :class:`SurvivalRankingRisk` / :class:`SquaredSurvivalRankingRisk` (the same
    losses over Harrell's comparable pairs of censored outcomes, O(m log m)),
    :class:`RankSVMOptions` (loss, normalization, optimizer and stopping rule, built
    once by a face; the core spells the optimizer ``optimizer``, ``rtol`` and
    ``maxiter`` where the faces say ``solver``, ``tol`` and ``max_iter``),
    :func:`solve_ranksvm` (bundle method) and :func:`solve_ranksvm_newton` (TRON),
    :func:`kfold_ranksvm` (selection by refits), :func:`solution_attributes` (the one copy
    of a result onto learner attributes), the explicit-pair losses and
    :func:`ranksvm_lambda_max`.

Builds on
    ``structure``, ``optim`` (TRON, bundle method, SolverResult), ``selection``, ``rls``
    (representations). It never imports ``rankrls`` or ``kronecker``.

Module order
    ``_risk`` -> ``_options`` -> ``_survival_risk``, ``_ranksvm`` -> ``_pairwise_loss``,
    ``_lambda_max``.
"""

from rlscore.core.ranksvm._risk import (NORMALIZATIONS, LOSSES, check_utilities,
                                        pair_structure, pair_weights, RankingRisk,
                                        SquaredRankingRisk, PairRisk)
from rlscore.core.ranksvm._options import (RankSVMOptions, OPTIMIZERS, DEFAULT_RTOL,
                                           check_loss_solver, ranksvm_tol)
from rlscore.core.ranksvm._ranksvm import (ConvergenceWarning, RankSVMSolution,
                                           ranksvm_result, solution_attributes,
                                           SOLUTION_ATTRIBUTES, ranksvm_regparam,
                                           solve_ranksvm, fit_linear_ranksvm,
                                           fit_pairwise_ranksvm, empirical_kernel_map,
                                           fit_kernel_ranksvm,
                                           solve_ranksvm_newton,
                                           make_risk, train_ranksvm, run_newton)
from rlscore.core.ranksvm._survival_risk import (SURVIVAL_NORMALIZATIONS,
                                                 SurvivalRankingRisk,
                                                 SquaredSurvivalRankingRisk)
from rlscore.core.ranksvm._pairwise_loss import PairwiseRankingLoss
from rlscore.core.ranksvm._model import RankSVMModel
from rlscore.core.ranksvm._kfold import kfold_ranksvm, ranksvm_kfold_cv
from rlscore.core.ranksvm._lambda_max import (ranksvm_lambda_max, grid_below)

__all__ = [
    "NORMALIZATIONS",
    "LOSSES",
    "pair_structure",
    "pair_weights",
    "RankingRisk",
    "SquaredRankingRisk",
    "solution_attributes",
    "ranksvm_regparam",
    "solve_ranksvm",
    "fit_linear_ranksvm",
    "fit_pairwise_ranksvm",
    "empirical_kernel_map",
    "fit_kernel_ranksvm",
    "kfold_ranksvm",
    "ranksvm_kfold_cv",
    "RankSVMModel",
    "RankSVMOptions",
    "solve_ranksvm_newton",
    "check_loss_solver",
    "run_newton",
    "ranksvm_tol",
    "SurvivalRankingRisk",
    "SquaredSurvivalRankingRisk",
    "PairwiseRankingLoss",
    "ranksvm_lambda_max",
    "grid_below",
]
