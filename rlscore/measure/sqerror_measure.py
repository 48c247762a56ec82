"""Mean squared error."""

import numpy as np

from rlscore.measure.measure_utilities import _finish, _labels_and_predictions

__all__ = ["sqerror"]


def sqerror(Y, P):
    """Mean squared error.

    Per column the mean over rows of ``(Y - P)**2``, then the mean over columns (equal to
    the overall MSE). Smaller is better (``sqerror.iserror`` is True).

    %(yp_parameters)s

    Returns
    -------
    numpy.float64
        The mean squared error, >= 0.

    %(plain_raises)s

    Notes
    -----
    O(m l) time.
    """
    Y, P = _labels_and_predictions(Y, P)
    return np.float64(np.mean(np.mean((Y - P) ** 2, axis=0)))


_finish(sqerror, iserror=True)
