"""Binary classification accuracy."""

import numpy as np

from rlscore.measure.measure_utilities import (
    _binary_labels_and_predictions, _finish)

__all__ = ["accuracy"]


def accuracy(Y, P):
    """Binary classification accuracy.

    Per column, ``mean((sign(Y * P) + 1) / 2)``: a prediction with the sign of the label
    scores 1, the wrong sign 0, and a zero prediction 1/2 (so all-zero predictions score
    exactly 0.5).

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Labels; every entry must be exactly -1 or +1.
    P : array-like, same shape as Y
        Real-valued predictions; their sign is the predicted class.

    Returns
    -------
    numpy.float64
        The accuracy, averaged over the columns.

    Raises
    ------
    UndefinedPerformance
        If the shapes differ, any label is not -1/+1, or the input is empty.
    %(value_error)s

    Notes
    -----
    O(m) time per column.
    """
    Y, P = _binary_labels_and_predictions(Y, P, "accuracy")
    per_column = np.mean((np.sign(Y * P) + 1.0) / 2.0, axis=0)
    return np.float64(np.mean(per_column))


_finish(accuracy, iserror=False)
