"""Grouped pair counting for the pairwise measures (c-index, AUC, Kendall tau-b).

Wraps the compiled kernel :func:`rlscore._ext._concordance.pair_counts` (a sort by group
and label -- group by group when the groups are contiguous blocks, as query files are --
and one merge-sort count of the predictions; it checks its arguments).
"""

import numpy as np

from rlscore._ext._concordance import pair_counts as _pair_counts_kernel


def _flatten_groups(Y, P, codes, nq):
    """Flatten (m, l) Y and P column by column; group id = column * nq + query code."""
    m, l = Y.shape
    y = np.ascontiguousarray(Y.T).ravel()
    p = np.ascontiguousarray(P.T).ravel()
    if codes is None:
        codes = np.zeros(m, dtype=np.intp)
        nq = 1
    groups = (np.arange(l, dtype=np.intp)[:, None] * nq + codes[None, :]).ravel()
    return y, p, groups, l * nq


def grouped_pair_counts(Y, P, codes=None, nq=1, prediction_ties=False):
    """Count ranked pairs per (column, query) cell.

    Parameters
    ----------
    Y, P : ndarray (m, l), float64, finite (already validated)
    codes : ndarray (m,) of intp in 0..nq-1, or None (one query)
    nq : int, number of queries
    prediction_ties : bool
        Also return, per cell, the number of unordered pairs tied in the predictions
        (whatever their labels); Kendall's tau-b needs it.

    Returns
    -------
    counts : ndarray (l, nq, 3) of int64
        ``[..., 0]`` pairs (unordered pairs with different labels), ``[..., 1]``
        concordant pairs (the higher label has the higher prediction), ``[..., 2]``
        pairs with different labels but equal predictions.
    sizes : ndarray (l, nq) of int64
        Number of items in each cell.
    pties : ndarray (l, nq) of int64, only with ``prediction_ties``

    Notes
    -----
    O(n log n) time for n = m*l entries, O(n) memory: a sort by (cell, label) and a
    merge-sort count of the discordant pairs in the compiled kernel; with contiguous
    query blocks (nondecreasing codes) every cell is sorted on its own, in cache. Ties of
    either kind cost nothing extra.
    """
    m, l = Y.shape
    y, p, groups, G = _flatten_groups(Y, P, codes, nq)
    n = y.shape[0]
    sizes = np.bincount(groups, minlength=G).astype(np.int64)
    out = np.zeros((G, 3), dtype=np.int64)
    pties = np.zeros(G, dtype=np.int64)
    if n > 0:
        _pair_counts_kernel(y, p, groups if G > 1 else None, G, out, pties)
    counts = out.reshape(l, nq, 3)
    if prediction_ties:
        return counts, sizes.reshape(l, nq), pties.reshape(l, nq)
    return counts, sizes.reshape(l, nq)
