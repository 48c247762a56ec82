"""Magnitude-preserving ranking error."""

import numpy as np

from rlscore.measure.measure_utilities import _finish, _labels_and_predictions

__all__ = ["sqmprank"]


def sqmprank(Y, P):
    """Magnitude-preserving pairwise ranking error.

    Per column, the mean over unordered pairs i < j of
    ``((Y[i] - Y[j]) - (P[i] - P[j]))**2``, which equals
    ``(m * sum(d**2) - sum(d)**2) / (m (m - 1) / 2)`` with ``d = Y - P``; then the mean
    over columns. Smaller is better (``sqmprank.iserror`` is True).

    %(yp_parameters)s

    Returns
    -------
    numpy.float64
        nan when m < 2 (no pairs; no exception).

    %(plain_raises)s

    Notes
    -----
    O(m) time per column, computed as ``2 m sum((d - mean(d))**2) / (m (m - 1))``, which
    is algebraically identical and avoids cancellation.
    """
    Y, P = _labels_and_predictions(Y, P)
    m = Y.shape[0]
    D = Y - P
    D = D - D.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_column = 2.0 * m * np.sum(D * D, axis=0) / (m * (m - 1.0))
    return np.float64(np.mean(per_column))


_finish(sqmprank, iserror=True)
