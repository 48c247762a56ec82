"""The pairwise (Kronecker) kernel matrix as a linear operator.

:class:`PairwiseKernelOperator` represents a sum of sampled Kronecker kernel matrices,

    P[h, k] = sum_t w_t K1_t[row_inds_K1_t[h], col_inds_K1_t[k]]
                        * K2_t[row_inds_K2_t[h], col_inds_K2_t[k]],

as a :class:`scipy.sparse.linalg.LinearOperator` (``matvec``, ``rmatvec``, ``@``,
``shape``), multiplying with the generalized vec trick. Pass the same label index
vectors as row and column indices for the training kernel (as :class:`CGKronRLS`
does), or test kernels with test row indices and training column indices to predict.
"""

import numpy as np

from rlscore._vec_trick import PairwiseKernelOperator, grid_indices

__all__ = ["PairwiseKernelOperator", "create_ind_vecs"]


def create_ind_vecs(rows, columns):
    """The two int32 index vectors (i, j) of the full rows x columns grid in
    column-major order: position h holds (h % rows, h // rows).

    O(rows * columns).
    """
    rows, columns = int(rows), int(columns)
    if rows < 0 or columns < 0:
        raise ValueError(f"rows and columns must be >= 0, got {rows}, {columns}")
    return grid_indices(rows, columns)
