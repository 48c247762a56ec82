"""Area under the ROC curve (Wilcoxon-Mann-Whitney statistic)."""

import numpy as np

from rlscore.measure._pairs import grouped_pair_counts
from rlscore.measure.measure_utilities import (
    UndefinedPerformance, _combine, _finish, _groups, _labels_and_predictions,
    _require_binary)

__all__ = ["auc"]


def auc(Y, P, qids=None):
    """Area under the ROC curve.

    For each column: the fraction of (positive, negative) pairs whose positive example
    has the higher prediction, a prediction tie counting 1/2 (so all-equal predictions
    score exactly 0.5). This is the c-index of binary labels and equals scikit-learn's
    ``roc_auc_score``.

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Binary labels: -1/+1, 0/1 or booleans. The positive class is +1 (1, True); the
        negative class is -1 or 0 (not both in one input).
    P : array-like, same shape as Y
        Predicted scores.
    qids : sequence of length m or QueryGroups, optional
        Query id of each row: the AUC of each query that has both classes, averaged
        over those queries (queries with one class are skipped).

    Returns
    -------
    numpy.float64
        The AUC, averaged over the columns.

    Raises
    ------
    UndefinedPerformance
        If the shapes differ, the input is empty, the labels are not binary, or
        (without qids) a column lacks one of the classes (such a column is not skipped);
        with qids, if no query has both classes.
    ValueError
        For non-numeric, NaN or infinite input (boolean P included).

    Notes
    -----
    O(m log m) time per column (merge-sort pair counting), O(m) memory.
    """
    Y, P = _labels_and_predictions(Y, P)
    _require_binary(Y, "auc", zero_one=True)
    if qids is not None:
        g = _groups(qids, Y.shape[0])
        counts, _ = grouped_pair_counts(Y, P, g.codes, g.n_groups)
        pairs = counts[..., 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            values = (counts[..., 1] + 0.5 * counts[..., 2]) / pairs
        return _combine(values, pairs > 0, "auc is undefined: no query has both classes")
    counts, _ = grouped_pair_counts(Y, P)
    pairs = counts[:, 0, 0]
    if np.any(pairs == 0):
        raise UndefinedPerformance("auc is undefined: a column has only one class")
    values = (counts[:, 0, 1] + 0.5 * counts[:, 0, 2]) / pairs
    return np.float64(np.mean(values))


_finish(auc, iserror=False)
