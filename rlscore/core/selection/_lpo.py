"""The leave-pair-out ranking score: held-out pair predictions scored as a c-index."""

import numpy as np

from rlscore._ext import _lpo
from rlscore._validation import check_index_pairs

__all__ = ["lpo_cindex"]


def lpo_cindex(y, starts, ends, p_start, p_end):
    """Leave-pair-out ranking accuracy from pair predictions (Cython, O(n)).

    Over the pairs with y_start != y_end: 1 when the held-out predictions order the
    pair as its labels, 1/2 on a predicted tie, 0 otherwise; the mean. Equals the
    LPO estimate of the c-index (of the AUC for +-1 labels and positive-negative pairs).

    Raises ValueError when no pair has different labels.
    """
    y = np.ascontiguousarray(np.asarray(y, dtype=np.float64).ravel())
    s, e = check_index_pairs(starts, ends, y.size)
    ps = np.ascontiguousarray(np.asarray(p_start, dtype=np.float64).ravel())
    pe = np.ascontiguousarray(np.asarray(p_end, dtype=np.float64).ravel())
    if ps.size != s.size or pe.size != s.size:
        raise ValueError("one prediction per pair is needed for p_start and p_end")
    total, count = _lpo.pair_concordance(np.ascontiguousarray(y[s]),
                                         np.ascontiguousarray(y[e]), ps, pe)
    if count == 0:
        raise ValueError("no pair has different labels")
    return total / count
