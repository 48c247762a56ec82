"""Kendall's rank correlation, tau-b."""

import numpy as np

from rlscore.measure._pairs import grouped_pair_counts
from rlscore.measure.measure_utilities import (
    UndefinedPerformance, _combine, _finish, _query_cells)

__all__ = ["kendall_tau_b"]


def _kendall_cells(Y, P, groups):
    """Per (column, query) tau-b and validity.

    A cell is invalid (degenerate, dropped) when its labels are all tied: no pair to
    rank. A valid cell whose predictions are all tied has a zero denominator; that
    raises UndefinedPerformance, because dropping it would reward constant predictors.
    """
    counts, sizes, pties = grouped_pair_counts(Y, P, groups.codes, groups.n_groups,
                                               prediction_ties=True)
    pairs = counts[..., 0]                   # pairs untied in Y  (n0 - n2)
    concordant = counts[..., 1]
    tied_p = counts[..., 2]                  # untied in Y, tied in P
    discordant = pairs - concordant - tied_p
    n0 = sizes * (sizes - 1) // 2
    untied_p = n0 - pties                    # pairs untied in P (n0 - n1)
    valid = pairs > 0
    if np.any(valid & (untied_p == 0)):
        raise UndefinedPerformance(
            "kendall_tau_b is undefined: all predictions are tied where the labels are "
            "not (zero denominator)")
    with np.errstate(invalid="ignore", divide="ignore"):
        # one correctly rounded sqrt of the product: exact for perfect agreement
        denom = np.sqrt(untied_p.astype(np.float64) * pairs.astype(np.float64))
        values = np.clip((concordant - discordant).astype(np.float64) / denom, -1.0, 1.0)
    return values, valid


def kendall_tau_b(Y, P):
    """Kendall's tau-b rank correlation between labels and predictions.

    Per column, ``tau_b = (C - D) / sqrt((n0 - n1) (n0 - n2))`` over the unordered pairs
    of examples: C concordant and D discordant pairs, n0 = m (m - 1) / 2 pairs in all,
    n1 pairs tied in the predictions and n2 pairs tied in the labels. Pairs tied in
    either variable are neither concordant nor discordant. Agrees with
    ``scipy.stats.kendalltau(y, p, variant='b')``. The mean over columns is returned.

    %(yp_parameters)s

    Returns
    -------
    numpy.float64
        tau-b in [-1, 1], averaged over the columns whose labels are not all equal
        (a column with all labels tied is dropped, as in :func:`cindex`).

    Raises
    ------
    UndefinedPerformance
        If the shapes differ; if every column has all labels tied (or fewer than two
        rows); or if a column with untied labels has all predictions tied (the
        denominator is zero and tau-b is undefined; :func:`cindex` gives 0.5 there).
    %(value_error)s

    Notes
    -----
    O(m log m) time per column (a radix sort by label and a merge-sort count of the
    discordant and prediction-tied pairs), O(m) memory, exact integer counts.
    """
    return _combine(*_query_cells(Y, P, None, _kendall_cells),
                    "kendall_tau_b is undefined: all labels are tied")


_finish(kendall_tau_b, iserror=False)
