"""Grouped pair counting for the pairwise measures (c-index, AUC, Kendall tau-b).

Wraps the compiled kernel :func:`rlscore._ext._ordstat.pair_counts`; everything it is
given is built and checked here, so the kernel (compiled without bounds checks) can
never index out of range.
"""

import numpy as np

from rlscore._ext._ordstat import pair_counts as _pair_counts_kernel


def _dense_ranks(p):
    """Dense ranks 0..r-1 of the values of p (equal values share a rank) and r.

    -0.0 and 0.0 compare equal and so share a rank. O(n log n).
    """
    uniq, inverse = np.unique(p, return_inverse=True)
    return np.ascontiguousarray(inverse.ravel(), dtype=np.intp), uniq.shape[0]


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
    O(n log n) time for n = m*l entries, O(n) memory: one sort by (cell, label), one by
    prediction (dense ranks), then a Fenwick-tree sweep in the compiled kernel. Ties of
    either kind cost nothing extra.
    """
    m, l = Y.shape
    y, p, groups, G = _flatten_groups(Y, P, codes, nq)
    n = y.shape[0]
    sizes = np.bincount(groups, minlength=G).astype(np.int64)
    out = np.zeros((G, 3), dtype=np.int64)
    pties = np.zeros(G, dtype=np.int64)
    if n > 0:
        order = np.ascontiguousarray(np.lexsort((y, groups)), dtype=np.intp)
        group_ptr = np.zeros(G + 1, dtype=np.intp)
        np.cumsum(sizes, out=group_ptr[1:])
        prank, nranks = _dense_ranks(p)
        y = np.ascontiguousarray(y, dtype=np.float64)
        # boundary checks (cheap, O(n)): the kernel trusts these invariants
        if not (order.shape[0] == n == prank.shape[0] and group_ptr[-1] == n
                and out.shape == (group_ptr.shape[0] - 1, 3)
                and (n == 0 or (0 <= order.min() and order.max() < n
                                and 0 <= prank.min() and prank.max() < nranks))):
            raise RuntimeError("internal error: inconsistent pair-count arguments")
        _pair_counts_kernel(order, group_ptr, y, prank, nranks, out)
        if prediction_ties:
            key = groups.astype(np.int64) * nranks + prank
            ukey, gcount = np.unique(key, return_counts=True)
            gcount = gcount.astype(np.int64)
            np.add.at(pties, ukey // nranks, gcount * (gcount - 1) // 2)
    counts = out.reshape(l, nq, 3)
    if prediction_ties:
        return counts, sizes.reshape(l, nq), pties.reshape(l, nq)
    return counts, sizes.reshape(l, nq)
