"""Arguments of structured learners: the square kernels and label matrices of the
Kronecker (pairwise) learners, and the utilities of the ranking learners."""

import numpy as np

from rlscore._validation._arrays import as_2d_labels, as_data_matrix, check_real_dtype
from rlscore._validation._resources import check_peak_memory


def check_square_kernel(K, name, n=None):
    """A symmetric square kernel matrix as C-contiguous float64 (ValueError otherwise:
    non-square, non-symmetric beyond rounding, NaN/inf, wrong size)."""
    K = as_data_matrix(K, name=name)
    if not isinstance(K, np.ndarray):
        K = K.toarray()
    K = np.ascontiguousarray(K, dtype=np.float64)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square kernel matrix, got shape {K.shape}")
    if n is not None and K.shape[0] != n:
        raise ValueError(f"{name} must be {n} x {n}, got {K.shape}")
    scale = max(np.abs(K).max(), 1e-300)
    gap = np.abs(K - K.T).max()
    if gap > 1e-8 * scale:
        raise ValueError(
            f"{name} must be a symmetric kernel matrix (largest |{name} - {name}^T| is "
            f"{gap:.3g}); symmetrize the similarity matrix of all objects, "
            f"({name} + {name}.T) / 2, and take the training and the test kernels from "
            f"it")
    return K


def check_pairwise_labels(Y, n1, n2, name="Y"):
    """The n1 x n2 label matrix from a vec_F vector (length n1 n2, or an (n1 n2, 1) or
    (1, n1 n2) array) or from the matrix itself. Anything else, including the
    transposed n2 x n1 matrix, is a ValueError naming the expected layout."""
    if hasattr(Y, "toarray"):
        raise ValueError(f"{name} must be dense")
    Y = check_real_dtype(np.asarray(Y), name)
    size = n1 * n2
    if Y.ndim == 1 or (Y.ndim == 2 and (Y.shape == (size, 1) or Y.shape == (1, size))):
        if Y.size != size:
            raise ValueError(
                f"{name} has {Y.size} labels but there are n1 * n2 = {n1} * {n2} = "
                f"{size} pairs; give vec_F of the n1 x n2 label matrix (pair (i, j) at "
                f"i + j * n1) or the matrix itself")
        Ym = Y.reshape((n1, n2), order="F")
    elif Y.ndim == 2:
        if Y.shape != (n1, n2):
            hint = (" (it looks transposed)" if Y.shape == (n2, n1) else "")
            raise ValueError(f"{name} must be the n1 x n2 = {n1} x {n2} label matrix or "
                             f"its vec_F vector, got shape {Y.shape}{hint}")
        Ym = Y
    else:
        raise ValueError(f"{name} must be 1-D or 2-D, got {Y.ndim} dimensions")
    Ym = np.array(Ym, dtype=np.float64, order="C")
    if np.any(np.isnan(Ym)):
        raise ValueError(
            f"{name} contains NaN: the complete-data solvers need every one of the "
            f"{n1} x {n2} pairs labelled. For incomplete data (NaN marking unlabelled "
            f"pairs) train rlscore.learner.CGKronRLS on the labelled pairs: rows, cols = "
            f"np.where(~np.isnan(Y)); CGKronRLS(K1=..., K2=..., Y=Y[rows, cols], "
            f"label_row_inds=rows, label_col_inds=cols, regparam=...)")
    if not np.all(np.isfinite(Ym)):
        raise ValueError(f"{name} contains NaN or infinity")
    return Ym


def check_complete_size(n1, n2, what="the complete-data Kronecker solver"):
    """Refuse (MemoryError) complete-data work whose estimated peak
    (:func:`rlscore._validation.estimate_peak_bytes`) would not fit, suggesting the
    iterative solver for sampled pairs."""
    check_peak_memory("kronecker", n1, n2,
                      what=f"{what} ({n1} x {n2} = {n1 * n2} labelled pairs)")


def check_utilities(Y, m=None, name="Y"):
    """Utilities as a 1-D float64 array: ValueError for NaN/inf, non-numeric data, more
    than one column or a length different from m."""
    Y = as_2d_labels(Y, name=name)
    if Y.shape[1] != 1:
        raise ValueError(f"{name} must hold one utility per example (shape (m,) or "
                         f"(m, 1)), got shape {Y.shape}; train one RankSVM per column")
    y = np.ascontiguousarray(Y[:, 0])
    if m is not None and y.shape[0] != m:
        raise ValueError(f"X has {m} rows but {name} has {y.shape[0]}: lengths must match")
    return y
