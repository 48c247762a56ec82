"""Index vectors, folds and held-out pairs of indices into m examples."""

import numbers

import numpy as np

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
