"""TODO docstring."""

from rlscore.core.kronecker._indefinite import (INDEFINITE, check_indefinite, extreme_eigenvalues, kron_min_eigenvalue, check_kron_regparam, check_factor_regparam, repair_spectrum, repair_kernel)
from rlscore.core.kronecker._data import (vec_f, check_square_kernel, check_pairwise_labels, check_complete_size, resolve_domains, centred_domain, symmetrize_labels, PAIRWISE_KERNELS, check_pairwise_kernel)
from rlscore.core.kronecker._factor import (DomainFactor, make_factor, DomainRLS, rotate)
from rlscore.core.kronecker._two_step import (TwoStepSolver)
from rlscore.core.kronecker._kronecker import (KronRLSSolver)
from rlscore.core.kronecker._holdout import (kron_rows_holdout, kron_leave_row_out, kron_both_holdout, kron_pairs_holdout)
from rlscore.core.kronecker._model import (KronRLSModel)
from rlscore.core.kronecker._cg import (GroupCentering, KronMinres)
from rlscore.core.kronecker._sampled import (SampledKronRLSModel)
from rlscore.core.kronecker._mkl import (alignment_statistics, alignment_weights, centered_alignment, PairwiseMKLModel, fit_pairwise_mkl)

__all__ = [
    "INDEFINITE",
    "check_indefinite",
    "extreme_eigenvalues",
    "kron_min_eigenvalue",
    "check_kron_regparam",
    "check_factor_regparam",
    "repair_spectrum",
    "repair_kernel",
    "vec_f",
    "check_square_kernel",
    "check_pairwise_labels",
    "check_complete_size",
    "resolve_domains",
    "centred_domain",
    "symmetrize_labels",
    "PAIRWISE_KERNELS",
    "check_pairwise_kernel",
    "DomainFactor",
    "make_factor",
    "DomainRLS",
    "rotate",
    "TwoStepSolver",
    "KronRLSSolver",
    "kron_rows_holdout",
    "kron_leave_row_out",
    "kron_both_holdout",
    "kron_pairs_holdout",
    "KronRLSModel",
    "GroupCentering",
    "KronMinres",
    "SampledKronRLSModel",
    "alignment_statistics",
    "alignment_weights",
    "centered_alignment",
    "PairwiseMKLModel",
    "fit_pairwise_mkl",
]
