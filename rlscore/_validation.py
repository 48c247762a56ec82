"""Input validation shared by every layer: arrays, labels, index lists, regparam and
memory estimates. Errors name the offending argument."""

import os
import warnings

import numpy as np
import scipy.sparse as sp

__all__ = [
    "as_2d_labels", "as_data_matrix", "as_index_array", "check_regparam",
    "check_memory", "available_memory", "warn_unused_kwargs",
]


def _is_numeric_dtype(dtype):
    return np.issubdtype(dtype, np.number) and not np.issubdtype(dtype, np.bool_)


def as_2d_labels(Y, name="Y"):
    """Convert labels to a 2-D float64 ndarray (m, p); a 1-D Y becomes (m, 1).

    Raises ValueError for non-numeric (bool included) data, NaN or infinity, more than
    two dimensions, or a sparse matrix.
    """
    if sp.issparse(Y):
        raise ValueError(f"{name} must be a dense array, got a sparse matrix")
    Y = np.asarray(Y)
    if Y.dtype == object:
        try:
            Y = Y.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numeric") from None
    if not _is_numeric_dtype(Y.dtype):
        raise ValueError(f"{name} must be numeric, got dtype {Y.dtype}")
    if np.iscomplexobj(Y):
        raise ValueError(f"{name} must be real-valued")
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
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"{name} is empty (shape {X.shape})")
        if not X.has_canonical_format:
            # csr_matrix(X) may share arrays with the caller's matrix: never sort or
            # merge duplicates in place
            X = X.copy()
            X.sum_duplicates()
        return X
    X = np.asarray(X)
    if X.dtype == object:
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numeric") from None
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
    return X


def as_index_array(indices, m, name="indices", unique=True):
    """Validate an index list against m examples (RLScore conventions).

    Not 1-D or empty: ValueError; non-integral values: ValueError; an index < 0 or >= m:
    IndexError; a repeated index (when ``unique``): IndexError. Returns an intp array.
    """
    arr = np.asarray(indices)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D list of indices, got {arr.ndim} dimensions")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.issubdtype(arr.dtype, np.integer):
        if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number):
            raise ValueError(f"{name} must hold integer indices, got dtype {arr.dtype}")
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{name} must hold integer indices, got non-integral values")
    arr = arr.astype(np.intp)
    if arr.min() < 0 or arr.max() >= m:
        bad = arr[(arr < 0) | (arr >= m)][0]
        raise IndexError(f"{name} holds index {bad}, outside 0..{m - 1}")
    if unique and np.unique(arr).size != arr.size:
        raise IndexError(f"{name} holds repeated indices")
    return arr


def check_regparam(regparam, name="regparam"):
    """Return regparam as a float; ValueError if it is negative, NaN or infinite."""
    try:
        value = float(regparam)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {regparam!r}") from None
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {regparam!r}")
    return value


def available_memory():
    """Bytes of memory available to this process (MemAvailable), or None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(n_bytes, what):
    """Refuse, before allocating, work whose dense arrays would not fit in memory.

    Raises MemoryError naming ``what`` and the estimate when ``n_bytes`` exceeds the
    memory currently available.
    """
    avail = available_memory()
    if avail is not None and n_bytes > avail:
        raise MemoryError(
            f"{what} needs about {n_bytes / 2**30:.1f} GiB but only "
            f"{avail / 2**30:.1f} GiB is available; use a linear kernel, basis vectors "
            f"(reduced set) or fewer examples")


def warn_unused_kwargs(kwargs, used, owner, stacklevel=3):
    """Emit one UserWarning naming the keyword arguments that ``owner`` ignores."""
    unused = sorted(k for k in kwargs if k not in used)
    if unused:
        warnings.warn(
            f"{owner} ignores the keyword argument(s) {', '.join(unused)}",
            UserWarning, stacklevel=stacklevel)
    return unused
