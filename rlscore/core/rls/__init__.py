"""Regularized least squares: dual and primal solvers, their hold-out shortcuts, reduced
sets (Nystrom), hold-out models and prediction intervals.

What lives here
    :class:`KernelSolver` (dual: eigendecomposition O(m^3) once, then every lambda of a
    path, leave-one-out, K-fold and leave-pair-out in O(m^2) per lambda; Cholesky
    O(m^3/3) for one lambda) and :class:`LinearSolver` (primal in d or r features:
    O(m d^2 + d^3)) with the hold-out algebra of :class:`HoldoutShortcuts`;
    :class:`NystromMap` (pivoted-Cholesky reduced-set map and the exact removal of
    held-out basis vectors), :func:`build_representation` (linear / kernel / Nystrom
    feature map from the learner arguments), :class:`RLSModel` (the model every RLS face
    adapts), :class:`HoldoutModels` and :func:`interval_model` (jackknife+ / CV+ from the
    same hold-out formulas), matrix-free :func:`cg_rls` and greedy forward selection
    (:func:`greedy_forward_selection`, O(k m d) for k features). Kernel-parameter
    learning: the exact leave-one-out error as a function of log lambda and the kernel
    parameters with its adjoint gradient (:func:`loo_error_gradient`,
    :class:`LOOObjective`: ~2 m^3 flops per step, O(m^2) per parameter; reduced sets
    with a fixed basis: :class:`NystromLOOObjective`, O(m r^2)), the Gaussian-process
    evidence of the same model (:func:`evidence_gradient`, :class:`EvidenceObjective`:
    ~m^3 flops per step) and :func:`learn_kernel`, which minimizes either through
    :func:`rlscore.core.selection.minimize_criterion` (and the gamma x lambda grid it
    replaces, :func:`gaussian_grid_loo`: one eigendecomposition per gamma);
    for large m the streamed reduced-set learners (:class:`StreamedReducedSet`:
    statistics per block of rows, O(m b (d + b)) time and O(b^2 + block b) memory, exact
    LOO / K-fold / LQO in a second pass; :func:`streamed_fit` drives them) and Falkon's
    preconditioned CG (:func:`pcg_reduced_set`, :class:`NystromPreconditioner`; the
    r x r factors in one array, :class:`NystromFactors`, 8 r^2 bytes) with lambda chosen
    on a validation split or K-fold by warm-started CG along the grid
    (:func:`pcg_select`).
    The faces build their model through :func:`fit_rls_model`, which asks
    :func:`plan_reduced_set` (one decision from ``memory_budget``, reported once,
    refused before any work when nothing fits) whether a reduced-set model stays in
    memory (:class:`RLSModel`) or streams (:class:`StreamedRLSModel`, the same
    interface over :class:`StreamedReducedSet` or PCG).

Builds on
    ``structure``, ``optim``, ``selection``; ``rlscore.kernel`` for kernel evaluation.
    A new RLS-type learner (a new loss with a closed form, a new reduced-set map) goes
    here; ranking and pairwise learners build on it from above.

Module order
    ``_solvers`` -> ``_nystrom`` -> ``_representation`` -> ``_holdout_models`` ->
    ``_intervals`` -> ``_model``; ``_cg`` -> ``_greedy``; ``_loo_gradient`` ->
    ``_evidence_gradient``, ``_nystrom_gradient`` -> ``_kernel_learning``;
    ``_streamed`` and ``_pcg_factors`` -> ``_pcg`` (on ``_solvers``, ``_nystrom``) ->
    ``_pcg_select``; ``_memory_plan`` -> ``_streamed_fit`` (the plan of a streamed
    fit, :func:`plan_streamed_fit`) and ``_streamed_model`` (on ``_model``,
    ``_streamed``, ``_pcg``).
"""

from rlscore.core.rls._solvers import (HoldoutShortcuts, KernelSolver, LinearSolver,
                                       FoldCache, CheckedRows, prefer_primal_fold,
                                       primal_fold_parts, primal_fold_predictions,
                                       loo_combine, loo_rows)
from rlscore.core.rls._nystrom import (NystromMap, ReducedMap, NystromSolver,
                                       select_basis, basis_positions,
                                       held_out_directions, remove_basis_from_pairs,
                                       constrained_solve, removal_directions_eigen,
                                       loo_removal_rows)
from rlscore.core.rls._representation import (Representation, build_representation,
                                              kernel_param_names, NystromFeatureMap,
                                              nystrom_features)
from rlscore.core.rls._holdout_models import (influence_coefficients, apply_influence,
                                              loo_models, fold_models, HoldoutModels)
from rlscore.core.rls._intervals import (METHODS, conformal_ranks, check_miscoverage,
                                         IntervalModel, interval_model,
                                         folds_from_groups)
from rlscore.core.rls._streamed import (StreamedReducedSet, block_statistics,
                                        add_statistics, gram_and_rhs, effective_regparam,
                                        fold_numbers, fold_weights_from_statistics)
from rlscore.core.rls._pcg_factors import NystromFactors
from rlscore.core.rls._pcg import (NystromPreconditioner, StreamedGramOperator,
                                   pcg_solve, pcg_reduced_set, as_factors, FLOAT32_TOL,
                                   pcg_tolerance)
from rlscore.core.rls._pcg_select import PCGSelection, pcg_select, validation_folds
from rlscore.core.rls._streamed_fit import (StreamedFit, streamed_fit,
                                            plan_streamed_fit)
from rlscore.core.rls._memory_plan import (plan_reduced_set, check_memory_options,
                                           block_working_memory, process_bytes,
                                           MEMORY_BUDGET_DEFAULT, SOLVERS,
                                           STREAMABLE_KERNELS, PCG_TOL, PCG_NAMES,
                                           check_pcg_options)
from rlscore.core.rls._model import (RLSModel, make_solver, n_rows)
from rlscore.core.rls._streamed_model import (StreamedRLSModel, fit_rls_model,
                                              plan_model, StreamedHoldoutPath)
from rlscore.core.rls._cg import (DataOperator, RLSOperator, as_cg_data, cg_data_and_labels,
                                  cg_rls)
from rlscore.core.rls._greedy import (GreedyRLSState, greedy_forward_selection,
                                      check_subsetsize)
from rlscore.core.rls._loo_gradient import (check_criterion_inputs, regularized_inverse,
                                            loo_error_gradient, LOOObjective, LOOGradient)
from rlscore.core.rls._evidence_gradient import (evidence_gradient, EvidenceObjective,
                                                 EvidenceGradient)
from rlscore.core.rls._nystrom_gradient import (NystromLOOObjective,
                                                nystrom_loo_error_gradient)
from rlscore.core.rls._kernel_learning import (learn_kernel, KernelLearningResult,
                                               LEARNABLE_KERNELS, gaussian_grid_loo,
                                               GridLOOResult, GRID_GAMMA_FACTORS,
                                               GRID_REGPARAMS)

__all__ = [
    "check_criterion_inputs",
    "HoldoutShortcuts",
    "KernelSolver",
    "LinearSolver",
    "FoldCache",
    "CheckedRows",
    "prefer_primal_fold",
    "primal_fold_parts",
    "primal_fold_predictions",
    "loo_combine",
    "loo_rows",
    "constrained_solve",
    "removal_directions_eigen",
    "loo_removal_rows",
    "NystromMap",
    "ReducedMap",
    "NystromSolver",
    "select_basis",
    "basis_positions",
    "held_out_directions",
    "remove_basis_from_pairs",
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
    "fold_weights_from_statistics",
    "NystromPreconditioner",
    "StreamedGramOperator",
    "pcg_reduced_set",
    "pcg_solve",
    "as_factors",
    "NystromFactors",
    "PCGSelection",
    "pcg_select",
    "validation_folds",
    "fold_numbers",
    "StreamedFit",
    "streamed_fit",
    "plan_streamed_fit",
    "plan_reduced_set",
    "check_memory_options",
    "block_working_memory",
    "process_bytes",
    "MEMORY_BUDGET_DEFAULT",
    "SOLVERS",
    "STREAMABLE_KERNELS",
    "PCG_TOL",
    "FLOAT32_TOL",
    "pcg_tolerance",
    "PCG_NAMES",
    "check_pcg_options",
    "StreamedRLSModel",
    "fit_rls_model",
    "plan_model",
    "StreamedHoldoutPath",
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
    "regularized_inverse",
    "loo_error_gradient",
    "LOOObjective",
    "LOOGradient",
    "NystromLOOObjective",
    "nystrom_loo_error_gradient",
    "learn_kernel",
    "evidence_gradient",
    "EvidenceObjective",
    "EvidenceGradient",
    "gaussian_grid_loo",
    "GridLOOResult",
    "GRID_GAMMA_FACTORS",
    "GRID_REGPARAMS",
    "KernelLearningResult",
    "LEARNABLE_KERNELS",
]
