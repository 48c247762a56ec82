"""Reduced sets (Nystrom): the feature maps, exact removal of held-out basis vectors, the
model every RLS face adapts, and the large-data routes (streamed block statistics,
Falkon's preconditioned CG, one memory plan).

What lives here
    :class:`NystromMap` (pivoted-Cholesky reduced-set map and the exact removal of
    held-out basis vectors, O(h r^2) per fold), :func:`build_representation` (linear /
    kernel / Nystrom feature map from the learner arguments), :class:`RLSModel` (the
    model every RLS face adapts: a dense :class:`rlscore.core.rls.KernelSolver` /
    :class:`rlscore.core.rls.LinearSolver`, or :class:`NystromSolver` on a basis);
    for large m the streamed reduced-set learners (:class:`StreamedReducedSet`:
    statistics per block of rows, O(m b (d + b)) time and O(b^2 + block b) memory, exact
    LOO / K-fold / LQO in a second pass; :func:`streamed_fit` drives them) and Falkon's
    preconditioned CG (:func:`pcg_reduced_set`, :class:`NystromPreconditioner`; the
    r x r factors in one array, :class:`NystromFactors`, 8 r^2 bytes) with lambda chosen
    on a validation split or K-fold by warm-started CG along the grid
    (:func:`pcg_select`). The faces build their model through :func:`fit_rls_model`,
    which asks :func:`plan_reduced_set` (one decision from ``memory_budget``, reported
    once, refused before any work when nothing fits) whether a reduced-set model stays
    in memory (:class:`RLSModel`) or streams (:class:`StreamedRLSModel`, the same
    interface over :class:`StreamedReducedSet` or PCG).

Builds on
    ``structure``, ``optim``, ``selection``, ``rls`` (the dense solvers and their hold-out
    algebra); ``rlscore.kernel`` for kernel evaluation. Ranking and pairwise families
    build on it from above.

Module order
    ``_nystrom`` -> ``_representation`` -> ``_model``; ``_streamed`` and ``_pcg_factors``
    -> ``_pcg`` -> ``_pcg_select``; ``_memory_plan`` -> ``_streamed_fit`` (the plan of a
    streamed fit, :func:`plan_streamed_fit`) and ``_streamed_model`` (on ``_model``,
    ``_streamed``, ``_pcg``).
"""

from rlscore.core.nystrom._nystrom import (NystromMap, ReducedMap, NystromSolver, select_basis, basis_positions, held_out_directions, remove_basis_from_pairs, constrained_solve, removal_directions_eigen, loo_removal_rows)
from rlscore.core.nystrom._representation import (Representation, build_representation, kernel_param_names, NystromFeatureMap, nystrom_features)
from rlscore.core.nystrom._model import (RLSModel, make_solver, n_rows)
from rlscore.core.nystrom._streamed import (StreamedReducedSet, block_statistics, add_statistics, gram_and_rhs, effective_regparam, fold_numbers, fold_weights_from_statistics)
from rlscore.core.nystrom._streamed_fit import (StreamedFit, streamed_fit, plan_streamed_fit)
from rlscore.core.nystrom._streamed_model import (StreamedRLSModel, fit_rls_model, plan_model, StreamedHoldoutPath)
from rlscore.core.nystrom._pcg import (NystromPreconditioner, StreamedGramOperator, pcg_solve, pcg_reduced_set, as_factors, FLOAT32_TOL, pcg_tolerance)
from rlscore.core.nystrom._pcg_factors import (NystromFactors)
from rlscore.core.nystrom._pcg_select import (PCGSelection, pcg_select, validation_folds)
from rlscore.core.nystrom._memory_plan import (plan_reduced_set, check_memory_options, block_working_memory, process_bytes, MEMORY_BUDGET_DEFAULT, SOLVERS, STREAMABLE_KERNELS, PCG_TOL, PCG_NAMES, check_pcg_options)

__all__ = [
    "NystromMap",
    "select_basis",
    "Representation",
    "build_representation",
    "kernel_param_names",
    "NystromFeatureMap",
    "nystrom_features",
    "RLSModel",
    "StreamedReducedSet",
    "block_statistics",
    "add_statistics",
    "gram_and_rhs",
    "effective_regparam",
    "fold_weights_from_statistics",
    "streamed_fit",
    "plan_streamed_fit",
    "StreamedRLSModel",
    "fit_rls_model",
    "NystromPreconditioner",
    "pcg_reduced_set",
    "pcg_tolerance",
    "pcg_select",
    "check_memory_options",
    "block_working_memory",
    "check_pcg_options",
]
