"""Data matrices, labels and survival outcomes: dtype, shape, finiteness and the
float64 range."""

import numbers

import numpy as np
import scipy.sparse as sp

#: Largest magnitude accepted in a data matrix: squares of larger values, and sums of
#: many of them (Gram matrices X^T X and X X^T, squared norms and distances, and the
#: products the solvers form from those), approach the float64 range (1.8e308).
MAX_ABS_VALUE = 1e100


class ScaleError(ValueError):
    """Values so large (or a kernel so steep) that float64 arithmetic overflows."""


def _is_numeric_dtype(dtype):
    return np.issubdtype(dtype, np.number) and not np.issubdtype(dtype, np.bool_)


def _dense_array(A, name):
    """np.asarray(A), an object array converted to float64 (ValueError naming ``name``
    when its entries are not numbers); the caller checks the dtype."""
    A = np.asarray(A)
    if A.dtype == object:
        try:
            A = A.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numeric") from None
    return A


def check_real_dtype(A, name, what="numeric"):
    """Refuse an array whose dtype is not a real number type: ValueError
    ``"{name} must be {what}, got dtype ..."`` for booleans, strings, objects and other
    non-numbers, ``"{name} must be real-valued"`` for complex numbers. Returns ``A``.
    O(1) (the values are not read)."""
    if A.dtype == object or not _is_numeric_dtype(A.dtype):
        raise ValueError(f"{name} must be {what}, got dtype {A.dtype}")
    if np.iscomplexobj(A):
        raise ValueError(f"{name} must be real-valued")
    return A


def as_2d_labels(Y, name="Y"):
    """Convert labels to a 2-D float64 ndarray (m, p); a 1-D Y becomes (m, 1).

    Raises ValueError for non-numeric (bool included) data, NaN or infinity, more than
    two dimensions, or a sparse matrix.
    """
    if sp.issparse(Y):
        raise ValueError(f"{name} must be a dense array, got a sparse matrix")
    Y = check_real_dtype(_dense_array(Y, name), name)
    if Y.ndim == 0:
        Y = Y.reshape(1, 1)
    elif Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    elif Y.ndim > 2:
        raise ValueError(f"{name} must have at most 2 dimensions, got {Y.ndim}")
    Y = np.array(Y, dtype=np.float64, order="C")
    if not np.all(np.isfinite(Y)):
        raise ValueError(f"{name} contains NaN or infinity")
    return Y


def as_data_matrix(X, name="X", allow_sparse=True, dtype=np.float64):
    """Convert data to a 2-D float ndarray or a CSR matrix (sparse input stays sparse).

    ``numpy.matrix``, lists, and scipy sparse matrices or arrays of any format are
    accepted; a 1-D input is one column. Only stored values of sparse input are checked
    for NaN/inf. float32 input stays float32 when ``dtype`` is None.
    """
    if sp.issparse(X):
        if not allow_sparse:
            raise TypeError(f"{name} must be dense; sparse input is not supported here")
        X = sp.csr_matrix(X)
        if X.dtype not in (np.float32, np.float64):
            if not _is_numeric_dtype(X.dtype):
                raise ValueError(f"{name} must be numeric, got dtype {X.dtype}")
            X = X.astype(np.float64)
        elif dtype is not None:
            X = X.astype(dtype, copy=False)
        if not np.all(np.isfinite(X.data)):
            raise ValueError(f"{name} contains NaN or infinity")
        check_no_overflow(X, name)
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"{name} is empty (shape {X.shape})")
        if not X.has_canonical_format:
            # csr_matrix(X) may share arrays with the caller's matrix: never sort or
            # merge duplicates in place
            X = X.copy()
            X.sum_duplicates()
        return X
    X = _dense_array(X, name)
    if not _is_numeric_dtype(X.dtype) or np.iscomplexobj(X):
        raise ValueError(f"{name} must be real numeric, got dtype {X.dtype}")
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    elif X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got {X.ndim} dimensions")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {X.shape})")
    if dtype is None:
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    X = np.asarray(X, dtype=dtype)
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinity")
    check_no_overflow(X, name)
    return X


def as_row_blocks(X):
    """Data read later in row blocks (``X[rows]``), converted once so that every block
    read works: a scipy sparse matrix or array of any format (COO, CSC, LIL, DOK, DIA,
    BSR, ...) becomes a CSR matrix (O(nnz), no copy for a CSR matrix), ``np.matrix``
    and lists become ndarrays; ndarrays, ``np.memmap`` and dask arrays are returned as
    they are (a memmap is never loaded whole). The values are checked per block by the
    reader (:func:`rlscore.kernel.read_block`)."""
    if sp.issparse(X):
        return X if isinstance(X, sp.csr_matrix) else sp.csr_matrix(X)
    if isinstance(X, np.matrix) or not hasattr(X, "shape"):
        return np.asarray(X)
    return X


def check_no_overflow(X, name="X"):
    """ScaleError when a finite dense or sparse X has an entry beyond
    :data:`MAX_ABS_VALUE` in magnitude (its squares overflow float64). O(size)."""
    vals = X.data if sp.issparse(X) else X
    if vals.size == 0:
        return
    big = float(np.max(np.abs(vals)))
    if big > MAX_ABS_VALUE:
        raise ScaleError(
            f"{name} has values up to {big:.3g} in magnitude: their squares overflow "
            f"float64 (limit {MAX_ABS_VALUE:g}); scale the data (e.g. divide by the "
            f"largest value or standardise each feature)")


def check_finite_result(values, what):
    """ScaleError when a computed array (a kernel matrix, model coefficients) holds
    NaN or infinity: float64 overflowed on finite input. O(size)."""
    arr = values.data if sp.issparse(values) else np.asarray(values)
    if not np.all(np.isfinite(arr)):
        raise ScaleError(
            f"{what} overflowed float64 (NaN or infinite values) although the input is "
            f"finite; scale the data (e.g. to unit norm or standardised features) or "
            f"use smaller kernel parameters")
    return values


def check_survival(event, time, m=None, event_name="event", time_name="time"):
    """Right-censored outcomes: (event, time) as a C-contiguous bool array (True = the
    event was observed, False = censored) and a float64 array of one length.

    ``event`` must be 1-D booleans or numbers that are all 0 or 1; ``time`` 1-D finite
    real numbers >= 0. With ``m``, both must have length m. ValueError naming the
    argument otherwise (a sparse matrix, NaN, a negative time, an event of 2, ...).
    O(m).
    """
    out = []
    for v, name in ((event, event_name), (time, time_name)):
        if sp.issparse(v):
            raise ValueError(f"{name} must be a dense 1-D array, got a sparse matrix")
        a = _dense_array(v, name)
        if a.ndim == 2 and 1 in a.shape:
            a = a.ravel()
        if a.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {a.shape}")
        out.append(a)
    e, t = out
    if e.dtype != np.bool_:
        check_real_dtype(e, event_name, "boolean or 0/1")
        if not np.all((e == 0) | (e == 1)):
            raise ValueError(f"{event_name} must hold booleans or 0/1 values (1 = event "
                             f"observed, 0 = censored)")
    check_real_dtype(t, time_name)
    t = np.ascontiguousarray(t, dtype=np.float64)
    if not np.all(np.isfinite(t)):
        raise ValueError(f"{time_name} contains NaN or infinity")
    if np.any(t < 0):
        raise ValueError(f"{time_name} must be >= 0 (survival or censoring times)")
    if e.shape != t.shape:
        raise ValueError(f"{event_name} and {time_name} differ in length ({e.size} vs "
                         f"{t.size})")
    if m is not None and t.size != m:
        raise ValueError(f"{event_name} and {time_name} must have length {m}, got "
                         f"{t.size}")
    return np.ascontiguousarray(e, dtype=bool), t
