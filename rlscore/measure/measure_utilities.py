"""Helpers shared by the performance measures.

Public (RLScore-compatible): :class:`UndefinedPerformance`, :func:`qids_to_splits`,
:func:`aggregate`, :func:`multitask`. The underscore helpers implement the common input
handling of every measure (labels through §0.4 of the compatibility spec, shape checks)
and the one per-query mechanism: :func:`_query_cells` scores every (column, query)
cell, :func:`_combine` averages the cells into one number and :func:`_by_query` into
one value per query.
"""

import numbers

import numpy as np
import scipy.sparse as sp

from rlscore._groups import QueryGroups, as_query_groups
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
    O(m log m) time; a thin call to :class:`rlscore._groups.QueryGroups`.
    """
    if len(qids) == 0:
        return []
    return [g.tolist() for g in QueryGroups.from_qids(qids).split()]


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
    non-numeric, > 2 dimensions); boolean labels Y become 0/1 (booleans are refused in
    P); UndefinedPerformance when the shapes differ or the input is empty."""
    if not sp.issparse(Y):
        Ya = np.asarray(Y)
        if Ya.dtype == np.bool_:
            Y = Ya.astype(np.float64)
    Y = as_2d_labels(Y, "Y")
    P = as_2d_labels(P, "P")
    if Y.shape != P.shape:
        raise UndefinedPerformance(
            f"Y and P have different shapes {Y.shape} and {P.shape}")
    if Y.size == 0:
        raise UndefinedPerformance(f"the measure is undefined for empty input (shape "
                                   f"{Y.shape})")
    return Y, P


def _binary_labels_and_predictions(Y, P, measure):
    """:func:`_labels_and_predictions` for a measure of -1/+1 labels (accuracy, fscore):
    UndefinedPerformance unless every label is -1 or +1 (:func:`_require_binary`)."""
    Y, P = _labels_and_predictions(Y, P)
    _require_binary(Y, measure)
    return Y, P


def _require_binary(Y, measure, zero_one=False):
    """UndefinedPerformance unless the labels are binary: -1/+1, or with ``zero_one``
    also 0/1 and booleans (already 0/1 here). +1 (True) is the positive class; the
    negative class is -1 or 0, not both. RLScore's auc, accuracy and fscore keep -1/+1
    only (accuracy and fscore threshold predictions at 0)."""
    pos = Y == 1.0
    if np.all(pos | (Y == -1.0)) or (zero_one and np.all(pos | (Y == 0.0))):
        return
    if zero_one:
        raise UndefinedPerformance(f"{measure} needs binary labels: -1/+1, 0/1 or "
                                   f"booleans (+1 / 1 / True is the positive class)")
    if measure == "auc" and np.all(pos | (Y == 0.0)):
        raise UndefinedPerformance("auc accepts only labels -1 and +1 (RLScore's "
                                   "convention); for 0/1 or boolean labels pass "
                                   "zero_one=True, or give 2 * y - 1")
    raise UndefinedPerformance(f"{measure} accepts only labels -1 and +1")


def _groups(qids, m):
    """QueryGroups of m rows from qids (None: one query); ValueError/TypeError for bad
    ids. A bare integer is refused with a hint (it is usually a cutoff given
    positionally)."""
    if qids is None:
        return QueryGroups.single(m)
    if isinstance(qids, (numbers.Integral, float)):
        raise TypeError(f"qids must be a sequence of query ids, got {qids!r} (give the "
                        f"rank cutoff as k={qids!r})")
    return as_query_groups(qids, m, "qids")


# ---------------------------------------------------------------------------------------
# the one per-query mechanism of the measures: cells, then one of two reductions


def _query_cells(Y, P, qids, cells):
    """The measure of every (label column, query) cell.

    Checks Y and P (:func:`_labels_and_predictions`), builds the
    :class:`~rlscore._groups.QueryGroups` of ``qids`` (None: one query holding every
    row) and returns ``cells(Y, P, groups)``: ``(values, valid)``, both (l, n_queries),
    the value of each cell and whether the measure is defined on it. Every measure that
    scores queries goes through here, then through :func:`_combine` (one number) or
    :func:`_by_query` (one value per query).
    """
    Y, P = _labels_and_predictions(Y, P)
    return cells(Y, P, _groups(qids, Y.shape[0]))


def _column_cells(column):
    """``cells`` for a measure defined on every query: ``column(y, p, groups)`` gives the
    (n_queries,) values of one label column."""
    def cells(Y, P, groups):
        values = np.stack([column(Y[:, c], P[:, c], groups) for c in range(Y.shape[1])])
        return values, np.ones(values.shape, dtype=bool)
    return cells


def _by_query(values, valid):
    """(n_queries,): per query the mean over the label columns whose cell is defined;
    NaN for a query without one."""
    if valid.all():
        return values.mean(axis=0)
    n = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(valid, values, 0.0).sum(axis=0) / n, np.nan)


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


#: docstring sections the measures share: a measure's docstring names one as
#: ``%(name)s`` on a line of its own and :func:`_finish` writes it in (one wording)
_DOC_SECTIONS = {
    "yp_parameters": """Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
    P : array-like, same shape as Y""",
    "value_error": """ValueError
        For non-numeric (bool included), NaN or infinite input.""",
}
_DOC_SECTIONS["plain_raises"] = """Raises
    ------
    UndefinedPerformance
        If the shapes differ or the input is empty.
    """ + _DOC_SECTIONS["value_error"]


def _finish(f, iserror=False):
    """Attach the ``iserror`` attribute to a measure function and write the shared
    docstring sections (:data:`_DOC_SECTIONS`) into its docstring."""
    f.iserror = iserror
    if f.__doc__ and "%(" in f.__doc__:
        f.__doc__ = f.__doc__ % _DOC_SECTIONS
    return f
