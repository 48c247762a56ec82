"""Products with sampled Kronecker matrices (the generalized vec trick), in RLScore's
interface. The implementation is :mod:`rlscore.core.structure` (compiled loops in
:mod:`rlscore._ext._kron`)."""

import numpy as np

from rlscore._vec_trick import SampledKronProduct

__all__ = ["sampled_vec_trick"]


def sampled_vec_trick(v, M, N, row_inds_M=None, row_inds_N=None, col_inds_M=None,
                      col_inds_N=None, temp=None, x_after=None):
    """u = R (M kron N) C^T v without forming the Kronecker product:

        u[h] = sum_k M[row_inds_M[h], col_inds_M[k]] * N[row_inds_N[h], col_inds_N[k]] * v[k]

    Parameters
    ----------
    v : array-like (n_cols,)
    M, N : 2-D arrays (any float layout; a 1-D array is one row)
    row_inds_M, row_inds_N : equal-length integer index vectors, or both None for all
        rows of M kron N in column-major order (N's row index fastest)
    col_inds_M, col_inds_N : the same for the columns; len(v) = len(col_inds_N), or
        M.shape[1] * N.shape[1] when None
    temp : ignored (upstream's work buffer)
    x_after : optional output buffer of length n_rows; it is overwritten and returned

    Returns
    -------
    ndarray (n_rows,)

    Raises
    ------
    ValueError for mismatched lengths or shapes, IndexError for indices out of range.

    Notes
    -----
    The cheaper of the two multiplication orders is used: O(min(rN len(v) +
    cM len(u), rM len(v) + cN len(u))), with dense BLAS products for unsampled sides.
    Repeated indices are allowed on both sides.
    """
    u = SampledKronProduct(M, N, row_inds_M, row_inds_N, col_inds_M, col_inds_N).matvec(v)
    if x_after is not None:
        if not isinstance(x_after, np.ndarray) or x_after.shape[0] != u.shape[0]:
            raise ValueError(f"x_after must be an ndarray of length {u.shape[0]}")
        x_after[...] = u.reshape(x_after.shape)
        return x_after
    return u
