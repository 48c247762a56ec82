"""The r_m^2 index of drug-target affinity tables (Roy et al.), with DeepDTA's variant."""

import numpy as np

from rlscore.measure.measure_utilities import (UndefinedPerformance, _finish,
                                               _labels_and_predictions)

__all__ = ["rm2"]

_VARIANTS = ("roy", "deepdta")


def _rm2_column(y, p, variant):
    yc, pc = y - y.mean(), p - p.mean()
    syy, spp = float(yc @ yc), float(pc @ pc)
    if syy == 0 or spp == 0 or float(p @ p) == 0:
        raise UndefinedPerformance("r_m^2 is undefined when the labels or the "
                                   "predictions are constant (or the predictions are 0)")
    r2 = float(yc @ pc) ** 2 / (syy * spp)
    k = float(y @ p) / float(p @ p)          # slope of y on p through the origin
    e = y - k * p
    r02 = 1.0 - float(e @ e) / syy
    gap = abs(r2 - r02) if variant == "roy" else abs(r2 * r2 - r02 * r02)
    return r2 * (1.0 - np.sqrt(gap))


def rm2(Y, P, variant="roy"):
    """The modified squared correlation r_m^2 = r^2 (1 - sqrt(abs(r^2 - r0^2))) of the
    drug-target affinity tables (DeepDTA, GraphDTA and their successors report it beside
    the c-index and the MSE).

    r^2 is the squared Pearson correlation of labels and predictions; r0^2 is the
    coefficient of determination of the labels regressed on the predictions *through
    the origin*, 1 - sum (y - k p)^2 / sum (y - mean y)^2 with k = sum y p / sum p^2
    (Roy et al., "Some case studies on application of r_m^2 metrics", 2013; Pratim Roy
    et al. 2009).

    Parameters
    ----------
    Y : array-like, shape (m,) or (m, l)
        Observed values (e.g. pKd).
    P : array-like, same shape as Y
        Predictions.
    variant : {"roy", "deepdta"}, default "roy"
        "roy" is the published definition, sqrt(abs(r^2 - r0^2)). "deepdta" is what
        DeepDTA's evaluation code (``emetrics.get_rm2``, copied by GraphDTA and many
        later papers) computes: sqrt(abs(r^2 r^2 - r0^2 r0^2)), the difference of the
        *squares* of r^2 and r0^2, which is (r^2 + r0^2) times the published gap: its
        values are smaller when r^2 + r0^2 > 1 and larger when it is < 1 (for
        r^2 = 0.8, r0^2 = 0.7: 0.8 (1 - sqrt(0.15)) = 0.490 against
        0.8 (1 - sqrt(0.1)) = 0.547 for "roy"). Use "deepdta" only to compare with
        numbers from those tables.

    Returns
    -------
    numpy.float64
        Larger is better (``rm2.iserror`` is False); the mean over columns of 2-D input.

    Raises
    ------
    UndefinedPerformance
        If the labels or the predictions of a column are constant, the predictions are
        all 0, the shapes differ or the input is empty.
    ValueError
        For an unknown ``variant``, non-numeric, NaN or infinite input.

    Notes
    -----
    O(m l) time.
    """
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be 'roy' or 'deepdta', got {variant!r}")
    Y, P = _labels_and_predictions(Y, P)
    return np.float64(np.mean([_rm2_column(Y[:, c], P[:, c], variant)
                               for c in range(Y.shape[1])]))


_finish(rm2)
