"""Spearman rank correlation."""

import warnings

import numpy as np

from rlscore.measure.measure_utilities import _finish, _labels_and_predictions

__all__ = ["spearman"]


def spearman(Y, P):
    """Spearman's rank correlation coefficient.

    Per column ``scipy.stats.spearmanr(Y[:, c], P[:, c])[0]`` (the Pearson correlation of
    the ranks; ties get average ranks), then the mean over columns.

    %(yp_parameters)s

    Returns
    -------
    numpy.float64
        nan when a column of Y or P is constant (no exception; the nan propagates to the
        mean).

    %(plain_raises)s

    Notes
    -----
    O(m log m) time per column. scipy.stats is imported on first use (it costs ~0.5 s
    to import, which ``import rlscore.measure`` should not pay).
    """
    from scipy import stats

    Y, P = _labels_and_predictions(Y, P)
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        for c in range(Y.shape[1]):
            if Y.shape[0] < 2:
                values.append(np.nan)
            else:
                values.append(stats.spearmanr(Y[:, c], P[:, c])[0])
    if not values:
        return np.float64(np.nan)
    return np.float64(np.mean(values))


_finish(spearman, iserror=False)
