"""Area under the ROC curve (Wilcoxon-Mann-Whitney statistic)."""

import numpy as np

from rlscore.measure.cindex_measure import _cindex_cells
from rlscore.measure.measure_utilities import (
    UndefinedPerformance, _combine, _finish, _query_cells, _require_binary)

__all__ = ["auc"]


def auc(Y, P, qids=None, zero_one=False):
    """Area under the ROC curve.

    For each column: the fraction of (positive, negative) pairs whose positive example
    has the higher prediction, a prediction tie counting 1/2 (so all-equal predictions
    score exactly 0.5). This is the c-index of binary labels and equals scikit-learn's
    ``roc_auc_score``.

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Binary labels -1/+1 (RLScore's contract); with ``zero_one=True`` also 0/1 or
        booleans. The positive class is +1 (1, True); the negative class is -1 or 0
        (not both in one input).
    P : array-like, same shape as Y
        Predicted scores.
    qids : sequence of length m or QueryGroups, optional
        Query id of each row: the AUC of each query that has both classes, averaged
        over those queries (queries with one class are skipped).
    zero_one : bool, default False
        Accept 0/1 and boolean labels too (scikit-learn's convention; the estimators'
        ``scoring="auc"`` / ``"roc_auc"`` and the command line's ``--measure auc`` pass
        it). False keeps RLScore's contract: labels other than -1/+1 raise.

    Returns
    -------
    numpy.float64
        The AUC, averaged over the columns.

    Raises
    ------
    UndefinedPerformance
        If the shapes differ, the input is empty, the labels are not -1/+1 (0/1 or
        booleans without ``zero_one=True``; the message says how to pass them), or
        (without qids) a column lacks one of the classes (such a column is not skipped);
        with qids, if no query has both classes.
    ValueError
        For non-numeric, NaN or infinite input (boolean P included).

    Notes
    -----
    O(m log m) time per column (merge-sort pair counting), O(m) memory.
    """
    def cells(Y, P, groups):
        _require_binary(Y, "auc", zero_one=zero_one)
        return _cindex_cells(Y, P, groups)      # the AUC is the c-index of binary labels
    values, valid = _query_cells(Y, P, qids, cells)
    if qids is not None:
        return _combine(values, valid, "auc is undefined: no query has both classes")
    if not valid.all():
        raise UndefinedPerformance("auc is undefined: a column has only one class")
    return np.float64(np.mean(values))


_finish(auc, iserror=False)
