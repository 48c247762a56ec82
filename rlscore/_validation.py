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
=====================  ===============================  ==================================
"""

import math
import numbers
import os
import warnings

import numpy as np
import scipy.sparse as sp

# the peak-memory estimates live in rlscore._memory (re-exported here)
from rlscore._memory import PEAK_KRONECKER, PEAK_MATRICES, estimate_peak_bytes

__all__ = [
    "as_2d_labels", "as_data_matrix", "as_index_array", "IndexArrayError", "check_regparam",
    "check_memory", "available_memory", "warn_unused_kwargs", "check_real", "check_bias",
    "check_gamma", "check_coef0", "check_degree", "check_kernel_params", "check_tol",
    "check_positive_int", "check_no_overflow", "check_finite_result", "MAX_DEGREE",
    "MAX_ABS_VALUE", "MAX_REGPARAM", "ScaleError", "estimate_peak_bytes",
    "check_peak_memory", "PEAK_MATRICES", "PEAK_KRONECKER", "check_real_dtype",
    "check_index_folds", "fold_membership", "check_regparam_grid", "user_stacklevel",
    "check_survival", "as_row_blocks",
]

#: Largest polynomial degree accepted. A degree-d kernel spans the ratio (b_max/b_min)^d
#: between its entries for bases b = gamma <x, z> + coef0; float64 carries 53 bits of
#: relative precision and an exponent up to 2^1023, so beyond d = 64 a base ratio of 2
#: already spans more than 2^64 (every entry but the largest is lost in any sum with
#: it) and a base of 2^16 overflows. Scale the data or use the Gaussian kernel instead.
MAX_DEGREE = 64

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


class IndexArrayError(IndexError, ValueError):
    """An index outside its range, or a repeated one: an ``IndexError`` (RLScore's
    convention for ``holdout`` and the CV helpers) that is also a ``ValueError`` (the
    scikit-learn convention for bad input), so callers of either face catch it."""


def as_index_array(indices, m, name="indices", unique=True, *, allow_empty=False,
                   mask=False, dtype=np.intp):
    """The one checker of index arrays: ``indices`` as a 1-D array of integers in
    0 .. m-1.

    Parameters
    ----------
    indices : array-like
        Integers, or floats with integral values (``[0., 2.]`` is accepted).
    m : int
        Number of objects: valid indices are 0 .. m-1.
    name : str
        The argument's name, used in every message.
    unique : bool, default True
        Refuse repeated indices.
    allow_empty : bool, default False
        Accept an empty array.
    mask : bool, default False
        Also accept a boolean mask of length m (converted to the indices of its true
        entries); other booleans are refused either way.
    dtype : numpy integer dtype, default intp
        Of the result; ``m`` must fit it (ValueError otherwise).

    Returns
    -------
    ndarray of ``dtype`` (a new array unless ``indices`` already was one of ``dtype``)

    Raises
    ------
    ValueError
        Not 1-D, empty (unless ``allow_empty``), booleans, strings or other
        non-numbers, non-finite or non-integral values, or m beyond ``dtype``.
    IndexArrayError (an IndexError and a ValueError)
        An index < 0 or >= m, or a repeated index (with ``unique``).

    Notes
    -----
    O(k) for k indices, O(k log k) with ``unique``.
    """
    arr = np.asarray(indices)
    if mask and arr.dtype == np.bool_ and arr.shape == (m,):
        arr = np.flatnonzero(arr)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of indices, got shape {arr.shape}")
    if arr.size == 0:
        if not allow_empty:
            raise ValueError(f"{name} is empty: it must hold at least one index")
        arr = arr.astype(np.intp)     # an empty list has dtype float64
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number) or \
            np.issubdtype(arr.dtype, np.complexfloating):
        raise ValueError(f"{name} must hold integer indices, got dtype {arr.dtype}"
                         + (" (a boolean mask must have length m)" if mask else ""))
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{name} must hold integer indices, got non-integral values")
    if m > np.iinfo(dtype).max:
        raise ValueError(f"{name}: more than {np.iinfo(dtype).max} objects are not "
                         f"supported")
    if arr.size:
        lo, hi = arr.min(), arr.max()
        if lo < 0 or hi >= m:
            bad = lo if lo < 0 else hi
            raise IndexArrayError(f"{name} holds index {int(bad)}, outside 0..{m - 1}")
    arr = np.ascontiguousarray(arr, dtype=dtype)
    if unique and arr.size > 1 and np.unique(arr).size != arr.size:
        raise IndexArrayError(f"{name} holds repeated indices")
    return arr



def check_holdout_rows(indices, m):
    """The rows held out of a training set of ``m`` rows as a checked index array: in
    range, unique, and leaving at least one row to train on (O(h))."""
    H = as_index_array(indices, m, name="indices")
    if H.size >= m:
        raise ValueError("indices hold out every example; nothing is left to train on")
    return H

def check_index_folds(folds, n, name="folds", disjoint=True):
    """The one checker of folds of object indices (a K-fold over the n objects of one
    domain): a list of 1-D index arrays.

    Parameters
    ----------
    folds : sequence of index sequences, or 2-D integer array
        One entry per fold: a list, tuple or 1-D array of indices in 0 .. n-1 (each
        checked by :func:`as_index_array`: non-empty, no repeats). A 2-D array is read
        as one fold per row (equal-size folds).
    n : int
        Number of objects.
    name : str
        The argument's name, used in every message (``folds[k]`` for fold k).
    disjoint : bool, default True
        Refuse an index held by two folds (:func:`fold_membership`): a K-fold
        hold-out predicts each object once, from the model trained without its fold.
        False only for repeated splits scored one by one (folds may then overlap).

    Returns
    -------
    list of intp ndarrays

    Raises
    ------
    ValueError
        ``folds`` is not a sequence of folds (a string, a scalar, a 1-D array of
        numbers, a mapping) or holds no fold; a fold is empty or not 1-D; two folds
        share an index (``disjoint``).
    IndexArrayError (an IndexError and a ValueError)
        A fold holds an index outside 0 .. n-1 or a repeated index.

    Notes
    -----
    O(n + sum_k n_k log n_k) for folds of sizes n_k. Folds need not cover every
    object.
    """
    bad = (f"{name} must be a non-empty list of folds, each a list or 1-D array of "
           f"indices in 0..{n - 1}")
    if isinstance(folds, np.ndarray):
        if folds.ndim != 2:
            raise ValueError(f"{bad}; got an array of shape {folds.shape}")
    elif isinstance(folds, (str, bytes, dict)) or not hasattr(folds, "__iter__"):
        raise ValueError(f"{bad}; got {type(folds).__name__}")
    out = [as_index_array(fold, n, name=f"{name}[{k}]") for k, fold in enumerate(folds)]
    if not out:
        raise ValueError(f"{bad}; got no fold")
    if disjoint:
        fold_membership(out, n, name)
    return out


def fold_membership(folds, n, name="folds", cover=False, why="", describe=None):
    """The fold of each of n objects, refusing folds that overlap: the one check that
    every K-fold hold-out (the learners' K-fold selections, the Kronecker fold
    hold-outs, prediction intervals from fold models, pooled folds of queries) holds
    each object in at most one fold.

    Parameters
    ----------
    folds : sequence of 1-D intp arrays
        Already checked index arrays (:func:`check_index_folds`, :func:`as_index_array`).
    n : int
        Number of objects.
    name : str
        The argument's name in the messages (``folds[k]`` for fold k).
    cover : bool, default False
        Also refuse objects in no fold (every object must be held out once).
    why : str
        Appended to the messages (e.g. "; CV+ needs disjoint folds").
    describe : callable, optional
        ``describe(index) -> str`` names a shared index in the message (default
        "index i"; folds of pairs say "pair (i, j)").

    Returns
    -------
    ndarray of intp, shape (n,)
        The fold index of each object, -1 for an object in no fold.

    Raises
    ------
    ValueError
        Two folds hold the same index (the message names both folds and the index),
        or, with ``cover``, some object is in no fold.

    Notes
    -----
    O(n + sum_k n_k).
    """
    fold_of = np.full(n, -1, dtype=np.intp)
    for k, fold in enumerate(folds):
        fold = np.asarray(fold, dtype=np.intp)
        earlier = fold_of[fold]
        if np.any(earlier >= 0):
            j = int(np.argmax(earlier >= 0))
            what = (f"index {int(fold[j])}" if describe is None
                    else describe(int(fold[j])))
            raise ValueError(f"{name}[{int(earlier[j])}] and {name}[{k}] both hold {what}: "
                             f"the folds must be disjoint (a row in two folds would get "
                             f"two hold-out predictions){why}")
        fold_of[fold] = k
    if cover and np.any(fold_of < 0):
        raise ValueError(f"{name} leave {int(np.sum(fold_of < 0))} of the {n} rows in no "
                         f"fold: the folds must cover every row{why}")
    return fold_of


def _real(value, name):
    """float(value) for a real scalar (Python or NumPy number, 0-d array); TypeError for
    bools, strings, None, complex and containers."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    try:
        return float(value)
    except OverflowError:   # a Python int beyond the float64 range
        raise ValueError(f"{name} must be finite, got an integer of "
                         f"{int(value).bit_length()} bits") from None


def check_real(value, name, *, minimum=None, open_minimum=False, maximum=None,
               why=""):
    """A finite real number as a float, optionally ``>= minimum`` (``> minimum`` with
    ``open_minimum``) and ``<= maximum`` (``why`` explains the maximum). TypeError for
    non-numbers (bools included), ValueError for NaN, infinity or a value out of
    range."""
    v = _real(value, name)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if minimum is not None and (v < minimum or (open_minimum and v == minimum)):
        op = ">" if open_minimum else ">="
        raise ValueError(f"{name} must be a finite number {op} {minimum:g}, got {value!r}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name} must be at most {maximum:g}{why}, got {value!r}")
    return v


#: Largest regparam: the solvers square it (lambda^2 in CG residuals and eigenvalue
#: shifts), and a model regularized beyond it is zero to float64 precision.
MAX_REGPARAM = 1e150


def check_regparam(regparam, name="regparam"):
    """Return regparam as a float; TypeError unless a real number, ValueError if it is
    negative, NaN, infinite or above :data:`MAX_REGPARAM`."""
    return check_real(regparam, name, minimum=0, maximum=MAX_REGPARAM,
                      why=" (its square must stay within float64)")


def check_regparam_grid(values, name="regparams"):
    """A grid of regularization parameters as a list (the values as given): non-empty,
    each value through :func:`check_regparam`, no value given twice (a repeated value
    would be scored twice and tie with itself as the best). ValueError naming ``name``
    and the repeated value. O(n)."""
    values = list(values)
    if not values:
        raise ValueError(f"{name} is empty")
    seen = {}
    for i, v in enumerate(check_regparam(v, name) for v in values):
        if v in seen:
            raise ValueError(f"{name} gives the value {v:g} twice (positions "
                             f"{seen[v] + 1} and {i + 1}): give each value once")
        seen[v] = i
    return values


def check_bias(bias, name="bias"):
    """The linear kernel's bias, the squared value of a constant feature: finite, >= 0
    and at most ``MAX_ABS_VALUE ** 2`` (the constant feature obeys the bound of every
    data value)."""
    return check_real(bias, name, minimum=0, maximum=MAX_ABS_VALUE ** 2,
                      why=" (sqrt(bias) is a feature value: scale the data instead)")


def check_gamma(gamma, name="gamma"):
    """The Gaussian/polynomial kernel's gamma: finite > 0."""
    return check_real(gamma, name, minimum=0, open_minimum=True)


def check_gaussian_gamma(gamma, name="gamma"):
    """The Gaussian kernel's gamma: one finite value > 0, or (automatic relevance
    determination) a 1-D sequence of them, one per feature, returned as a float64
    ndarray. A string (``"learn"``) is a TypeError here: the learners resolve it before
    a kernel is built."""
    if isinstance(gamma, (list, tuple)) or (isinstance(gamma, np.ndarray)
                                             and gamma.ndim > 0):
        g = np.asarray(gamma)
        if g.ndim != 1 or g.size == 0:
            raise ValueError(f"{name} must be a number or a non-empty 1-D sequence (one "
                             f"value per feature), got shape {g.shape}")
        if not _is_numeric_dtype(g.dtype) or g.dtype == bool:
            raise TypeError(f"{name} must hold real numbers, got dtype {g.dtype}")
        g = g.astype(np.float64)
        if not (np.all(np.isfinite(g)) and np.all(g > 0)):
            raise ValueError(f"every {name} must be a finite number > 0, got {gamma!r}")
        return g
    return check_gamma(gamma, name)


def check_coef0(coef0, name="coef0"):
    """The polynomial kernel's coef0: finite."""
    return check_real(coef0, name)


def check_degree(degree, name="degree"):
    """The polynomial degree: an integer in 1 .. :data:`MAX_DEGREE` (integral floats
    accepted)."""
    if isinstance(degree, np.ndarray) and degree.ndim == 0:
        degree = degree[()]
    if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, numbers.Real):
        raise TypeError(f"{name} must be a positive integer, got {degree!r}")
    if not math.isfinite(_real(degree, name)) or int(degree) != degree:
        raise ValueError(f"{name} must be a positive integer, got {degree!r}")
    d = int(degree)
    if not 1 <= d <= MAX_DEGREE:
        raise ValueError(f"{name} must be an integer in 1..{MAX_DEGREE} (higher degrees "
                         f"exceed what float64 carries), got {degree!r}")
    return d


_KERNEL_CHECKERS = {
    "LinearKernel": {"bias": check_bias},
    "GaussianKernel": {"gamma": check_gaussian_gamma},
    "PolynomialKernel": {"degree": check_degree, "gamma": check_gamma,
                         "coef0": check_coef0},
}


def check_kernel_params(kernel, params):
    """The parameters of the kernel named ``kernel`` ("LinearKernel", "GaussianKernel",
    "PolynomialKernel") checked with the checkers above; returns a new dict. Unknown
    parameter names are a ValueError; kernels without numeric parameters pass through.
    The kernel classes and the model-file reader both call it."""
    if not isinstance(params, dict):
        raise TypeError(f"kernel parameters must be a dict, got {type(params).__name__}")
    checkers = _KERNEL_CHECKERS.get(kernel)
    if checkers is None:
        return dict(params)
    out = {}
    for key, value in params.items():
        if key not in checkers:
            raise ValueError(f"{kernel} has no parameter {key!r} (it has "
                             f"{', '.join(sorted(checkers))})")
        out[key] = checkers[key](value)
    return out


def check_tol(tol, name="tol"):
    """A relative tolerance: a finite real number in (0, 1)."""
    v = _real(tol, name)
    if not (math.isfinite(v) and 0 < v < 1):
        raise ValueError(f"{name} must be in (0, 1), got {tol!r}")
    return v


def check_float_dtype(dtype, name="dtype"):
    """np.dtype float64 or float32 (the precisions of the kernel blocks), given as a
    dtype, a type or its name; anything else is a ValueError naming ``name``. O(1)."""
    try:
        dt = None if dtype is None else np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in (np.float64, np.float32):
        raise ValueError(f"{name} must be float64 or float32, got {dtype!r}")
    return dt


def check_positive_int(value, name, minimum=1, allow_none=False):
    """An integer count ``>= minimum`` (Python or NumPy integer; bools, floats and
    strings are a TypeError), or None when ``allow_none``."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        extra = " or None" if allow_none else ""
        raise TypeError(f"{name} must be an integer{extra}, got {value!r}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return v


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


def check_memory(n_bytes, what, remedy=None):
    """Refuse, before allocating, work whose dense arrays would not fit in memory.

    Raises MemoryError naming ``what``, the estimate and the way out (``remedy``, by
    default the Nystrom / conjugate-gradient advice) when ``n_bytes`` exceeds the
    memory currently available.
    """
    avail = available_memory()
    if avail is not None and n_bytes > avail:
        raise MemoryError(
            f"{what} needs about {format_bytes(n_bytes)} (estimated peak) but only "
            f"{format_bytes(avail)} is available; {remedy or _DEFAULT_REMEDY}")


def format_bytes(n):
    """``n`` bytes as GiB (one GiB or more) or MiB, two decimals."""
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.2f} MiB"


def user_stacklevel():
    """The ``stacklevel`` that points a warning issued by the caller of this function
    at the first frame outside the rlscore package (the user's call), so that Python's
    default filter shows it once per line of the user's code."""
    import sys
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("rlscore"):
        frame, level = frame.f_back, level + 1
    return level


def warn_unused_kwargs(kwargs, used, owner, stacklevel=3):
    """Emit one UserWarning naming the keyword arguments that ``owner`` ignores."""
    unused = sorted(k for k in kwargs if k not in used)
    if unused:
        warnings.warn(
            f"{owner} ignores the keyword argument(s) {', '.join(unused)}",
            UserWarning, stacklevel=stacklevel)
    return unused



_REMEDY = {
    "kronecker": "train on a sample of the pairs with CGKronRLS (label_row_inds / "
                 "label_col_inds), which never forms n1 x n2 arrays",
}
_DEFAULT_REMEDY = ("use a Nystrom / reduced-set model (basis_vectors=..., or n_basis= "
                   "in the estimators), the conjugate-gradient learners (CGRLS, "
                   "CGRankRLS) or a linear kernel, which never form m x m matrices")


def check_peak_memory(path, m, n2=None, what=None):
    """Refuse (MemoryError), before allocating, a dense path whose estimated peak
    (:func:`estimate_peak_bytes`) exceeds the available memory; the message gives the
    estimate and the way out (Nystrom basis vectors, conjugate gradient)."""
    if what is None:
        what = (f"the {m} x {n2} complete-data Kronecker solver" if path == "kronecker"
                else f"{path.replace('_', ' ')} on {m} examples")
    check_memory(estimate_peak_bytes(path, m, n2), what,
                 _REMEDY.get(path, _DEFAULT_REMEDY))


def check_index_pairs(starts, ends, m):
    """Held-out pairs (start, end) of indices into m examples, as two C-contiguous index
    arrays of one length; no pair may hold out one example twice. O(n_pairs)."""
    s = as_index_array(starts, m, name="pairs_start_inds", unique=False)
    e = as_index_array(ends, m, name="pairs_end_inds", unique=False)
    if s.shape != e.shape:
        raise ValueError(
            f"pairs_start_inds and pairs_end_inds differ in length ({s.size} vs {e.size})")
    if np.any(s == e):
        k = int(np.flatnonzero(s == e)[0])
        raise ValueError(f"pair {k} holds out the same example twice (index {s[k]})")
    return np.ascontiguousarray(s), np.ascontiguousarray(e)


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
