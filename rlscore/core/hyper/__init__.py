"""Kernel-parameter learning: exact hold-out criteria as functions of the kernel
parameters and log lambda, their adjoint gradients, and the drivers that minimize them.

What lives here
    RLS: the exact leave-one-out error with its gradient (:func:`loo_error_gradient`,
    :class:`LOOObjective`: ~2 m^3 flops per step, O(m^2) per parameter; reduced sets
    with a fixed basis: :class:`NystromLOOObjective`, O(m r^2)), the Gaussian-process
    evidence of the same model (:func:`evidence_gradient`, :class:`EvidenceObjective`:
    ~m^3 flops per step) and :func:`learn_kernel` (and the gamma x lambda grid it
    replaces, :func:`gaussian_grid_loo`: one eigendecomposition per gamma). RankRLS: the
    exact leave-query-out error of query RankRLS (:func:`lqo_error_gradient`,
    :func:`learn_kernel_lqo`; on fixed Nystrom basis rows :class:`NystromLQOObjective`,
    O(m r^2) per step) and the leave-one-out error of global RankRLS
    (:func:`global_loo_error_gradient`, :func:`learn_kernel_global`), O(m^3) per step.
    Kronecker RLS: the in-sample leave-one-pair-out error and the evidence of complete
    data with their gradients for both domains' parameters
    (:func:`kron_loo_error_gradient`, :func:`kron_evidence_gradient`, O(n1^3 n2 + n1
    n2^3) per step), the hold-out errors for new rows, columns or both (settings B-D:
    :func:`kron_leave_row_out_gradient`, :func:`kron_fold_error_gradient`) and
    :func:`learn_kron_kernel`; on sampled pairs (incomplete data)
    :func:`learn_sampled_kron_kernel`. Every driver minimizes through
    :func:`rlscore.core.selection.minimize_criterion`.

Builds on
    ``structure``, ``optim``, ``selection`` (the minimizer, the grid search),
    ``rls``, ``nystrom`` (:class:`rlscore.core.nystrom.RLSModel`), ``kronecker``;
    ``rlscore.kernel``'s parameter families. A new learnable criterion goes here.

Module order
    ``_options``; ``_loo_gradient`` -> ``_evidence_gradient``, ``_nystrom_gradient`` ->
    ``_kernel_learning`` -> ``_lqo_gradient``, ``_global_loo_gradient``;
    ``_kron_loo_gradient`` -> ``_kron_setting_criteria`` -> ``_kron_kernel_learning``;
    ``_kron_sampled_learning``.
"""

from rlscore.core.hyper._loo_gradient import (check_criterion_inputs, regularized_inverse, loo_error_gradient, LOOObjective, LOOGradient)
from rlscore.core.hyper._evidence_gradient import (evidence_gradient, EvidenceObjective, EvidenceGradient)
from rlscore.core.hyper._nystrom_gradient import (NystromLOOObjective, nystrom_loo_error_gradient)
from rlscore.core.hyper._options import (LearnableKernel, learning_options,
                                         kron_learning_options)
from rlscore.core.hyper._kernel_learning import (learn_kernel, KernelLearningResult, LEARNABLE_KERNELS, gaussian_grid_loo, GridLOOResult, GRID_GAMMA_FACTORS, GRID_REGPARAMS)
from rlscore.core.hyper._kron_loo_gradient import (kron_loo_error_gradient, KronLOOGradient, KronLOOObjective, kron_evidence_gradient, KronEvidenceObjective)
from rlscore.core.hyper._kron_setting_criteria import (KRON_SETTING_CRITERIA, KronHoldoutCriterion, kron_setting_criterion, kron_leave_row_out_gradient, kron_fold_error_gradient, KronSettingObjective)
from rlscore.core.hyper._kron_sampled_learning import (SampledKernelSearch, learn_sampled_kron_kernel, sampled_holdout_error)
from rlscore.core.hyper._kron_kernel_learning import (learn_kron_kernel, KronKernelLearningResult, KRON_LEARNABLE_KERNELS, similarity_features)
from rlscore.core.hyper._global_loo_gradient import (global_loo_error_gradient, GlobalLOOObjective, learn_kernel_global)
from rlscore.core.hyper._lqo_gradient import (lqo_error_gradient, LQOObjective, NystromLQOObjective, learn_kernel_lqo)

__all__ = [
    "LearnableKernel",
    "learning_options",
    "kron_learning_options",
    "regularized_inverse",
    "loo_error_gradient",
    "LOOObjective",
    "evidence_gradient",
    "EvidenceObjective",
    "NystromLOOObjective",
    "nystrom_loo_error_gradient",
    "learn_kernel",
    "KernelLearningResult",
    "LEARNABLE_KERNELS",
    "gaussian_grid_loo",
    "GridLOOResult",
    "kron_loo_error_gradient",
    "KronLOOObjective",
    "kron_evidence_gradient",
    "KronHoldoutCriterion",
    "kron_setting_criterion",
    "kron_leave_row_out_gradient",
    "kron_fold_error_gradient",
    "KronSettingObjective",
    "learn_kron_kernel",
    "SampledKernelSearch",
    "learn_sampled_kron_kernel",
    "KronKernelLearningResult",
    "similarity_features",
    "global_loo_error_gradient",
    "GlobalLOOObjective",
    "learn_kernel_global",
    "lqo_error_gradient",
    "LQOObjective",
    "learn_kernel_lqo",
]
