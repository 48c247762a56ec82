"""Area under the ROC curve (Wilcoxon-Mann-Whitney statistic)."""

import numpy as np

from rlscore.measure._pairs import grouped_pair_counts
from rlscore.measure.measure_utilities import (
    UndefinedPerformance, _finish, _labels_and_predictions, _require_binary)

__all__ = ["auc"]


def auc(Y, P):
    """Area under the ROC curve.

    For each column: the fraction of (positive, negative) pairs whose positive example
    has the higher prediction, a prediction tie counting 1/2 (so all-equal predictions
    score exactly 0.5). This is the c-index of -1/+1 labels.

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Labels; every entry must be exactly -1 or +1.
    P : array-like, same shape as Y
        Predicted scores.

    Returns
    -------
    numpy.float64
        The AUC, averaged over the columns.

    Raises
    ------
    UndefinedPerformance
        If the shapes differ, any label is not -1/+1 (0/1 labels raise), or any column
        lacks one of the classes (such a column is not skipped).
    ValueError
        For non-numeric (bool included), NaN or infinite input.

    Notes
    -----
    O(m log m) time per column (merge-sort pair counting), O(m) memory.
    """
    Y, P = _labels_and_predictions(Y, P)
    _require_binary(Y, "auc")
    if Y.shape[0] == 0 or Y.shape[1] == 0:
        raise UndefinedPerformance("auc is undefined for empty input")
    counts, _ = grouped_pair_counts(Y, P)
    pairs = counts[:, 0, 0]
    if np.any(pairs == 0):
        raise UndefinedPerformance("auc is undefined: a column has only one class")
    values = (counts[:, 0, 1] + 0.5 * counts[:, 0, 2]) / pairs
    return np.float64(np.mean(values))


_finish(auc, iserror=False)
