"""Input validation shared by every layer: arrays, labels, index lists, regparam,
kernel hyper-parameters, tolerances and counts, overflow of the data, and memory
estimates. One checker per kind of argument, with one meaning everywhere; errors name
the offending argument.

Kinds of argument and their checker
-----------------------------------
=====================  ===============================  ==================================
argument               checker                          accepted
=====================  ===============================  ==================================
regparam, alpha        :func:`check_regparam`           finite real >= 0
grids of regparams     :func:`check_regparam_grid`      non-empty, each a regparam, no
                                                        value repeated
bias (linear kernel)   :func:`check_bias`               finite real >= 0
gamma                  :func:`check_gamma`              finite real > 0
coef0                  :func:`check_coef0`              finite real
degree                 :func:`check_degree`             integer 1 .. :data:`MAX_DEGREE`
kernel parameters      :func:`check_kernel_params`      the above, by kernel name
tolerance              :func:`check_tol`                finite real in (0, 1)
counts (maxiter...)    :func:`check_positive_int`       integer >= minimum (bools refused)
index vectors          :func:`as_index_array`           1-D integral values in 0 .. m-1
                                                        (options: unique, empty, mask)
data matrices          :func:`as_data_matrix`           finite, dense or sparse alike
labels                 :func:`as_2d_labels`             finite, at most 2-D
survival outcomes      :func:`check_survival`           event bool or 0/1, time finite
                                                        >= 0, one length
miscoverage (alpha of  :func:`check_miscoverage`        real in (0, 1)
  an interval)
Kronecker kernels      :func:`check_square_kernel`      symmetric square, finite
Kronecker labels       :func:`check_pairwise_labels`    n1 x n2 matrix or its vec_F
ranking utilities      :func:`check_utilities`          one finite column of length m
=====================  ===============================  ==================================

The checkers live in private modules by job (``_arrays``: data and labels; ``_indices``:
index vectors, folds, pairs; ``_scalars``: scalars and options; ``_resources``: memory
refusals and warnings; ``_structured``: Kronecker and ranking arguments); import them
from ``rlscore._validation``.
"""

# the peak-memory estimates live in rlscore._memory (re-exported here)
from rlscore._memory import PEAK_KRONECKER, PEAK_MATRICES, estimate_peak_bytes
from rlscore._validation._arrays import (MAX_ABS_VALUE, ScaleError, as_2d_labels,
                                         as_data_matrix, as_row_blocks, check_finite_result,
                                         check_no_overflow, check_real_dtype, check_survival)
from rlscore._validation._indices import (IndexArrayError, as_index_array, check_holdout_rows,
                                          check_index_folds, check_index_pairs,
                                          fold_membership)
from rlscore._validation._scalars import (INDEFINITE, MAX_DEGREE, MAX_REGPARAM, check_bias,
                                          check_coef0, check_degree, check_float_dtype,
                                          check_gamma, check_gaussian_gamma,
                                          check_indefinite, check_kernel_params,
                                          check_miscoverage, check_positive_int, check_real,
                                          miscoverage_argument, NOT_GIVEN,
                                          check_regparam, check_regparam_grid, check_tol,
                                          Regparam, RegparamGrid)
from rlscore._validation._resources import (available_memory, check_memory,
                                            check_peak_memory, format_bytes,
                                            user_stacklevel, warn_unused_kwargs)
from rlscore._validation._structured import (check_complete_size, check_pairwise_labels,
                                             check_square_kernel, check_utilities)

__all__ = [
    "as_2d_labels", "as_data_matrix", "as_index_array", "IndexArrayError", "check_regparam",
    "Regparam", "RegparamGrid",
    "check_memory", "available_memory", "warn_unused_kwargs", "check_real", "check_bias",
    "check_gamma", "check_coef0", "check_degree", "check_kernel_params", "check_tol",
    "check_positive_int", "check_no_overflow", "check_finite_result", "MAX_DEGREE",
    "MAX_ABS_VALUE", "MAX_REGPARAM", "ScaleError", "estimate_peak_bytes",
    "check_peak_memory", "PEAK_MATRICES", "PEAK_KRONECKER", "check_real_dtype",
    "check_index_folds", "fold_membership", "check_regparam_grid", "user_stacklevel",
    "check_survival", "as_row_blocks", "check_holdout_rows", "check_index_pairs",
    "check_gaussian_gamma", "check_float_dtype", "format_bytes", "check_miscoverage",
    "INDEFINITE", "check_indefinite", "check_square_kernel", "check_pairwise_labels",
    "check_complete_size", "check_utilities", "miscoverage_argument", "NOT_GIVEN",
]
