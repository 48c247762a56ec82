"""Pair index orders: (row, col) pairs, flat indices in column-major ("F") or
row-major ("C") order, and the n1 x n2 matrix they index.

An n1 x n2 label matrix Y (rows: domain-1 objects such as drugs, columns: domain-2
objects such as targets) is flattened two ways:

* column-major, ``order="F"`` (RLScore's vec_F, the default everywhere in rlscore):
  the pair (i, j) sits at ``i + j * n1``, i.e. ``Y.ravel(order="F")``;
* row-major, ``order="C"`` (NumPy's default and most published splits, e.g.
  DeepDTA's folds): the pair (i, j) sits at ``i * n2 + j``, i.e. ``Y.ravel()``.

Every function here is O(number of indices) (O(n1 n2) for the matrix helpers) and
checks its arguments (ValueError / IndexError naming the argument).
"""

import numpy as np

from rlscore._validation import as_index_array, fold_membership

__all__ = ["ORDERS", "check_order", "pairs_to_flat", "flat_to_pairs", "convert_flat",
           "vec", "unvec", "as_pairs", "check_fold_of_pairs", "check_pair_folds"]

ORDERS = ("F", "C")


def check_order(order, name="order"):
    """``order`` as "F" or "C" (ValueError otherwise)."""
    if not isinstance(order, str) or order not in ORDERS:
        raise ValueError(f"{name} must be 'F' (column-major, pair (i, j) at i + j * n1) "
                         f"or 'C' (row-major, pair (i, j) at i * n2 + j), got {order!r}")
    return order


def _shape(shape):
    try:
        n1, n2 = (int(s) for s in shape)
    except (TypeError, ValueError):
        raise ValueError(f"shape must be a pair (n1, n2), got {shape!r}") from None
    if n1 < 1 or n2 < 1:
        raise ValueError(f"shape must hold two positive sizes, got {shape!r}")
    return n1, n2


def pairs_to_flat(rows, cols, shape, order="F"):
    """Flat indices of the pairs (rows[k], cols[k]) in an n1 x n2 matrix.

    Parameters
    ----------
    rows, cols : equal-length integer sequences, 0 <= rows < n1, 0 <= cols < n2
    shape : (n1, n2)
    order : "F" (i + j n1, default) or "C" (i n2 + j)

    Returns
    -------
    ndarray of int64
    """
    n1, n2 = _shape(shape)
    check_order(order)
    r = as_index_array(rows, n1, name="rows", unique=False, dtype=np.int64)
    c = as_index_array(cols, n2, name="cols", unique=False, dtype=np.int64)
    if r.size != c.size:
        raise ValueError(f"rows and cols differ in length ({r.size} vs {c.size})")
    return r + c * n1 if order == "F" else r * n2 + c


def flat_to_pairs(inds, shape, order="F"):
    """(rows, cols) of flat indices into an n1 x n2 matrix (inverse of
    :func:`pairs_to_flat`)."""
    n1, n2 = _shape(shape)
    check_order(order)
    k = as_index_array(inds, n1 * n2, name="inds", unique=False, dtype=np.int64)
    if order == "F":
        return k % n1, k // n1
    return k // n2, k % n2


def convert_flat(inds, shape, from_order, to_order):
    """Flat indices re-expressed in another order (e.g. DeepDTA's row-major fold
    indices as rlscore's column-major ones)."""
    r, c = flat_to_pairs(inds, shape, check_order(from_order, "from_order"))
    return pairs_to_flat(r, c, shape, check_order(to_order, "to_order"))


def vec(Y, order="F"):
    """The flat vector of a matrix in the given order."""
    Y = np.asarray(Y)
    if Y.ndim != 2:
        raise ValueError(f"Y must be a 2-D matrix, got {Y.ndim} dimensions")
    return Y.ravel(order=check_order(order))


def unvec(v, shape, order="F"):
    """The n1 x n2 matrix of a flat vector of length n1 n2 in the given order."""
    n1, n2 = _shape(shape)
    v = np.asarray(v)
    if v.ndim != 1 or v.size != n1 * n2:
        raise ValueError(f"v must be a vector of length n1 * n2 = {n1 * n2}, got shape "
                         f"{v.shape}")
    return v.reshape((n1, n2), order=check_order(order))


def as_pairs(fold, shape, order="F", name="fold"):
    """(rows, cols) of a fold of pairs given either as a ``(row_inds, col_inds)``
    pair of sequences or as a 1-D array of flat indices in ``order``."""
    n1, n2 = _shape(shape)
    if isinstance(fold, (tuple, list)) and len(fold) == 2 and np.ndim(fold[0]) == 1 \
            and np.ndim(fold[1]) == 1 and not np.isscalar(fold[0]):
        r = as_index_array(fold[0], n1, name=f"{name} row indices", unique=False)
        c = as_index_array(fold[1], n2, name=f"{name} column indices", unique=False)
        if r.size != c.size:
            raise ValueError(f"{name}: row and column index sequences differ in length "
                             f"({r.size} vs {c.size})")
        return r.astype(np.int64), c.astype(np.int64)
    arr = np.asarray(fold)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a (row_inds, col_inds) pair or a 1-D array of "
                         f"flat indices, got shape {arr.shape}")
    try:
        return flat_to_pairs(arr, (n1, n2), order)
    except (ValueError, IndexError, TypeError) as exc:
        raise type(exc)(f"{name}: {exc}") from None


def check_fold_of_pairs(rows, cols, shape, name="fold"):
    """Refuse a hold-out fold of pairs (validated ``rows``, ``cols``, e.g. from
    :func:`as_pairs`) that holds a pair twice (IndexError) or every pair of the
    n1 x n2 matrix (ValueError: nothing is left to train on). O(len(rows) log
    len(rows))."""
    n1, n2 = _shape(shape)
    lin = np.asarray(rows, dtype=np.int64) + n1 * np.asarray(cols, dtype=np.int64)
    if np.unique(lin).size != lin.size:
        raise IndexError(f"{name} holds a pair twice")
    if lin.size >= n1 * n2:
        raise ValueError(f"{name} holds out every pair")


def check_pair_folds(folds, shape, name="folds"):
    """Refuse hold-out folds of pairs (a list of validated ``(rows, cols)``, e.g. from
    :func:`as_pairs`) of which one holds a pair twice or every pair
    (:func:`check_fold_of_pairs`), or two hold the same pair: each pair is predicted
    once, by the model trained without its fold (the one overlap check of every
    K-fold, :func:`rlscore._validation.fold_membership`). O(n1 n2 + sum of the fold
    sizes)."""
    n1, n2 = _shape(shape)
    flat = []
    for k, (r, c) in enumerate(folds):
        check_fold_of_pairs(r, c, (n1, n2), f"{name}[{k}]")
        flat.append(np.asarray(r, dtype=np.int64) + n1 * np.asarray(c, dtype=np.int64))
    fold_membership(flat, n1 * n2, name,
                    describe=lambda i: f"the pair (row {i % n1}, column {i // n1})")
