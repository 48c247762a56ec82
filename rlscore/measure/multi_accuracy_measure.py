"""Multi-class (one-vs-all) accuracy."""

import numpy as np

from rlscore.measure.measure_utilities import UndefinedPerformance, _finish

__all__ = ["ova_accuracy"]


def ova_accuracy(Y, P):
    """Accuracy of one-vs-all multi-class predictions.

    The fraction of rows where ``argmax(Y[i])`` equals ``argmax(P[i])``; ties go to the
    first maximum (``numpy.argmax``). Y is typically a one-vs-all coding (+1 for the
    class, -1 elsewhere, see ``rlscore.utilities.multiclass.to_one_vs_all``).

    Parameters
    ----------
    Y : array-like, shape (n, C)
    P : array-like, shape (n, C)

    Returns
    -------
    numpy.float64
        nan for n = 0.

    Raises
    ------
    ValueError
        If Y or P is not 2-D.
    UndefinedPerformance
        If the shapes differ.

    Notes
    -----
    No label validation and no NaN check (as upstream). O(n C) time.
    """
    Y = np.asarray(Y)
    P = np.asarray(P)
    if Y.ndim != 2 or P.ndim != 2:
        raise ValueError(
            f"ova_accuracy needs 2-D Y and P (one column per class), got {Y.ndim}-D "
            f"and {P.ndim}-D")
    if Y.shape != P.shape:
        raise UndefinedPerformance(
            f"Y and P have different shapes {Y.shape} and {P.shape}")
    if Y.shape[0] == 0:
        return np.float64(np.nan)
    if Y.shape[1] == 0:
        raise ValueError("ova_accuracy needs at least one class column")
    return np.float64(np.mean(np.argmax(Y, axis=1) == np.argmax(P, axis=1)))


_finish(ova_accuracy, iserror=False)
