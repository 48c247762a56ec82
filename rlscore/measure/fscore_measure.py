"""F1 score of binary predictions."""

import numpy as np

from rlscore.measure.measure_utilities import (
    UndefinedPerformance, _binary_labels_and_predictions, _finish)

__all__ = ["fscore"]


def fscore(Y, P):
    """F1 score (harmonic mean of precision and recall) of the positive class.

    A prediction is positive iff ``P > 0`` (``P == 0`` is negative). Per column,
    ``F1 = 2 * prec * rec / (prec + rec)`` with ``prec = TP / (TP + FP)`` and
    ``rec = TP / (TP + FN)``; then the mean over columns.

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Labels; every entry must be exactly -1 or +1.
    P : array-like, same shape as Y
        Real-valued predictions.

    Returns
    -------
    numpy.float64
        F1 of the positive class (+1), averaged over the columns.

    Raises
    ------
    UndefinedPerformance
        If the shapes differ, any label is not -1/+1, the input is empty, or a column
        has no true positive (TP = 0, including nothing predicted positive); upstream
        RLScore raised ZeroDivisionError there.
    %(value_error)s

    Notes
    -----
    O(m) time per column.
    """
    Y, P = _binary_labels_and_predictions(Y, P, "fscore")
    pos_pred = P > 0
    pos_true = Y > 0
    tp = np.sum(pos_pred & pos_true, axis=0).astype(np.float64)
    fp = np.sum(pos_pred & ~pos_true, axis=0).astype(np.float64)
    fn = np.sum(~pos_pred & pos_true, axis=0).astype(np.float64)
    if np.any(tp == 0):
        raise UndefinedPerformance("fscore is undefined: a column has no true positive")
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    per_column = 2.0 * precision * recall / (precision + recall)
    return np.float64(np.mean(per_column))


_finish(fscore, iserror=False)
