"""Helpers shared by the performance measures.

Public (RLScore-compatible): :class:`UndefinedPerformance`, :func:`qids_to_splits`,
:func:`aggregate`, :func:`multitask`. The underscore helpers implement the common input
handling of every measure (labels through §0.4 of the compatibility spec, shape checks)
and the column/query averaging rule.
"""

import numpy as np

from rlscore._validation import as_2d_labels

__all__ = ["UndefinedPerformance", "qids_to_splits", "aggregate", "multitask"]


class UndefinedPerformance(Exception):
    """The performance measure is not defined for the given labels or predictions.

    Raised, for example, for labels and predictions of different shapes, labels outside
    the measure's domain (``auc`` on 0/1 labels), a single class, or no ranked pairs.

    Parameters
    ----------
    value : object
        Description of the problem; stored as ``.value``. ``str()`` gives ``repr(value)``.
    """

    def __init__(self, value):
        super().__init__(value)
        self.value = value

    def __str__(self):
        return repr(self.value)


def qids_to_splits(qids):
    """Group row indices by equal query id.

    Parameters
    ----------
    qids : sequence of hashable
        One id per row.

    Returns
    -------
    list of list of int
        One list of row indices per distinct id, the groups in order of first appearance
        of their id; e.g. ``['b', 'a', 'b', 3]`` gives ``[[0, 2], [1], [3]]``.

    Notes
    -----
    O(m) expected time.
    """
    if isinstance(qids, np.ndarray):
        qids = qids.tolist()
    splits = {}
    for i, q in enumerate(qids):
        splits.setdefault(q, []).append(i)
    return list(splits.values())


def aggregate(perfs):
    """Mean of the non-NaN entries of ``perfs``; nan if there are none.

    Returns
    -------
    numpy.float64
    """
    perfs = np.asarray(perfs, dtype=np.float64).ravel()
    perfs = perfs[~np.isnan(perfs)]
    if perfs.size == 0:
        return np.float64(np.nan)
    return np.float64(np.mean(perfs))


def multitask(Y, P, f):
    """Apply a single-column measure to every column.

    Parameters
    ----------
    Y, P : array-like, shape (m, l) or (m,)
    f : callable ``f(y, p)``

    Returns
    -------
    list
        ``[f(Y[:, c], P[:, c]) for c in range(l)]``.
    """
    Y = np.asarray(Y)
    P = np.asarray(P)
    if Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if P.ndim == 1:
        P = P.reshape(-1, 1)
    return [f(Y[:, c], P[:, c]) for c in range(Y.shape[1])]


# ---------------------------------------------------------------------------------------
# internal helpers


def _labels_and_predictions(Y, P):
    """Common input handling: both through as_2d_labels (ValueError for NaN/inf,
    non-numeric, bool, > 2 dimensions); UndefinedPerformance when the shapes differ."""
    Y = as_2d_labels(Y, "Y")
    P = as_2d_labels(P, "P")
    if Y.shape != P.shape:
        raise UndefinedPerformance(
            f"Y and P have different shapes {Y.shape} and {P.shape}")
    return Y, P


def _require_binary(Y, measure):
    """UndefinedPerformance unless every label is exactly -1 or +1."""
    if not np.all((Y == 1.0) | (Y == -1.0)):
        raise UndefinedPerformance(f"{measure} accepts only labels -1 and +1")


def _qid_codes(qids, m):
    """Integer codes 0..nq-1 (first-appearance order) of the query ids of m rows.

    Raises ValueError for a qids array that is not 1-D, has the wrong length, or holds
    NaN.
    """
    arr = np.asarray(qids) if not isinstance(qids, np.ndarray) else qids
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"qids must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != m:
        raise ValueError(f"qids has length {arr.shape[0]}, but Y has {m} rows")
    if m == 0:
        return np.zeros(0, dtype=np.intp), 0
    if np.issubdtype(arr.dtype, np.number) and not np.iscomplexobj(arr):
        if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
            raise ValueError("qids contains NaN or infinity")
        uniq, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
        # renumber by first appearance, as qids_to_splits does
        rank = np.empty(uniq.shape[0], dtype=np.intp)
        rank[np.argsort(first, kind="stable")] = np.arange(uniq.shape[0])
        return rank[inverse.ravel()].astype(np.intp, copy=False), uniq.shape[0]
    if isinstance(qids, np.ndarray):
        qids = qids.tolist()
    table = {}
    codes = np.fromiter((table.setdefault(q, len(table)) for q in qids),
                        dtype=np.intp, count=m)
    return codes, len(table)


def _combine(values, valid, what):
    """The averaging rule shared by every ranking measure.

    ``values`` and ``valid`` are (l, nq) arrays for l columns and nq queries. Per column,
    the mean over its valid queries; then the mean over the columns that have at least
    one valid query. UndefinedPerformance if no (column, query) cell is valid.
    """
    valid = np.asarray(valid, dtype=bool)
    counts = valid.sum(axis=1)
    keep = counts > 0
    if not np.any(keep):
        raise UndefinedPerformance(what)
    sums = np.where(valid, values, 0.0).sum(axis=1)
    return np.float64(np.mean(sums[keep] / counts[keep]))


def _finish(f, iserror=False):
    """Attach the ``iserror`` attribute to a measure function."""
    f.iserror = iserror
    return f
