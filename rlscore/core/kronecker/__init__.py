"""Pairwise (relational) learning: Kronecker RLS on complete and sampled data, two-step
RLS, pairwise multiple kernel learning, and the indefinite-kernel policy.

What lives here
    the domain factors (eigendecomposition of each side's kernel: O(n1^3 + n2^3)) and
    :class:`TwoStepSolver`; :class:`KronRLSModel` with the in-sample, leave-row-out,
    leave-column-out and leave-both-out shortcuts of Pahikkala et al. (2014) and Stock
    et al. (2018) in O(n1 n2 (n1 + n2)); :class:`SampledKronRLSModel` (MINRES on sampled
    pairs through the generalized vec trick, O(t q (n1 + n2)) for t iterations);
    :class:`SampledKronSVMModel` (the squared-hinge Kronecker SVM of RLScore's KronSVM,
    Newton steps of CG through the vec trick); :class:`PairwiseMKLModel`;
    :func:`repair_kernel` and the policy for indefinite kernels, with
    :class:`KernelRepair`, the rule a model applies to test kernels; pairwise kernels
    and label checks (``_data``). Kernel learning on
    complete data is :mod:`rlscore.core.hyper` (:func:`rlscore.core.hyper.learn_kron_kernel`).

Builds on
    ``structure`` (pairs, vec trick), ``optim`` (MINRES, dense algebra), ``selection``,
    ``rls`` (the hold-out algebra of one domain). It never imports ``rankrls`` or
    ``ranksvm``. A new pairwise learner goes here.

Module order
    ``_indefinite`` -> ``_data`` -> ``_factor`` -> ``_two_step`` -> ``_kronecker`` ->
    ``_holdout`` -> ``_model`` -> ``_settings``, ``_intervals_both`` -> ``_intervals``; ``_cg`` -> ``_sampled``, ``_svm``, ``_mkl``.
"""

from rlscore.core.kronecker._indefinite import (INDEFINITE, check_indefinite,
                                                extreme_eigenvalues, kron_min_eigenvalue,
                                                check_kron_regparam, check_factor_regparam,
                                                repair_spectrum, repair_kernel, KernelRepair,
                                                repaired_factor)
from rlscore.core.kronecker._data import (vec_f, check_square_kernel, check_pairwise_labels,
                                          check_complete_size, resolve_domains,
                                          centred_domain, symmetrize_labels,
                                          PAIRWISE_KERNELS, check_pairwise_kernel)
from rlscore.core.kronecker._factor import (DomainFactor, make_factor, DomainRLS, rotate)
from rlscore.core.kronecker._two_step import TwoStepSolver
from rlscore.core.kronecker._kronecker import KronRLSSolver
from rlscore.core.kronecker._holdout import (kron_rows_holdout, kron_leave_row_out,
                                             kron_both_holdout, kron_pairs_holdout)
from rlscore.core.kronecker._model import KronRLSModel
from rlscore.core.kronecker._settings import KRON_SETTINGS, KronSettingHoldout
from rlscore.core.kronecker._intervals_both import (kron_both_fold_models,
                                                    kron_pair_fold_models,
                                                    INTERVAL_SETTINGS)
from rlscore.core.kronecker._intervals import (kron_interval_model, KronIntervalPredictor,
                                               IntervalScheme)
from rlscore.core.kronecker._cg import (GroupCentering, KronMinres)
from rlscore.core.kronecker._sampled import (SampledKronRLSModel, SampledKronRLSOptions,
                                             sampled_kron_arguments)
from rlscore.core.kronecker._svm import (KronSVMOptions, SampledKronSVMModel,
                                        exact_line_search, svm_labels)
from rlscore.core.kronecker._mkl import (alignment_statistics, alignment_weights,
                                         centered_alignment, PairwiseMKLModel,
                                         fit_pairwise_mkl)

__all__ = [
    "KronSettingHoldout",
    "kron_interval_model",
    "IntervalScheme",
    "INTERVAL_SETTINGS",
    "kron_both_fold_models",
    "kron_pair_fold_models",
    "extreme_eigenvalues",
    "check_kron_regparam",
    "repair_kernel",
    "KernelRepair",
    "vec_f",
    "resolve_domains",
    "make_factor",
    "TwoStepSolver",
    "KronRLSModel",
    "KronMinres",
    "SampledKronRLSModel",
    "SampledKronRLSOptions",
    "sampled_kron_arguments",
    "SampledKronSVMModel",
    "KronSVMOptions",
    "alignment_statistics",
    "alignment_weights",
    "centered_alignment",
    "PairwiseMKLModel",
    "fit_pairwise_mkl",
]
