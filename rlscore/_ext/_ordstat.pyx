# cython: language_level=3
"""Order-statistic counting of concordant pairs.

A Fenwick (binary indexed) tree over the dense ranks of the predictions is the
order-statistic structure: inserting an element and counting the inserted elements
whose prediction rank is below a bound both cost O(log r), r = number of distinct
predictions. Processing the examples in increasing label order, group by group of
equal labels, counts for every ordered pair (i, j) with y_i > y_j whether p_i > p_j
or p_i == p_j in O(m log m) overall, with no quadratic blow-up on ties of either
kind. Label ties are never pairs.
"""

from libc.stdlib cimport calloc, free


cdef inline void _fen_add(long long *tree, Py_ssize_t n, Py_ssize_t i, long long v) noexcept nogil:
    # position i is 0-based; the tree is 1-based internally
    i += 1
    while i <= n:
        tree[i] += v
        i += i & (-i)


cdef inline long long _fen_prefix(long long *tree, Py_ssize_t i) noexcept nogil:
    # number of inserted elements with rank < i (ranks 0 .. i-1)
    cdef long long s = 0
    while i > 0:
        s += tree[i]
        i -= i & (-i)
    return s


def pair_counts(const Py_ssize_t[::1] order, const Py_ssize_t[::1] group_ptr,
                const double[::1] y, const Py_ssize_t[::1] prank, Py_ssize_t nranks,
                long long[:, ::1] out):
    """Count ranked pairs per group.

    Parameters
    ----------
    order : indices of the examples, sorted by label (ascending) within each group;
        group g occupies ``order[group_ptr[g]:group_ptr[g+1]]``.
    group_ptr : (n_groups + 1,) offsets into ``order``.
    y : labels.
    prank : dense rank (0 .. nranks-1) of each example's prediction.
    out : (n_groups, 3) int64, filled with (pairs, concordant, prediction ties), where a
        pair is an ordered (i, j) of the same group with y_i > y_j, concordant means
        p_i > p_j.

    Complexity O(m log r) time, O(r) extra memory. Shapes, the group offsets (from 0,
    non-decreasing, within ``order``), every entry of ``order`` (in 0..m-1) and every rank
    (in 0..nranks-1) are checked on entry, in O(m + n_groups): a wrong index is a
    ValueError/IndexError, never a read outside an array.
    """
    cdef Py_ssize_t n_groups = group_ptr.shape[0] - 1
    cdef Py_ssize_t g, a, b, k, start, end, idx, r
    cdef long long inserted, less, leq
    cdef Py_ssize_t m = y.shape[0], n = order.shape[0]
    if n_groups < 0:
        raise ValueError("group_ptr must hold at least one offset")
    if prank.shape[0] != m:
        raise ValueError(f"prank has length {prank.shape[0]}, y has {m}")
    if out.shape[0] != n_groups or out.shape[1] != 3:
        raise ValueError(f"out must have shape ({n_groups}, 3)")
    if nranks < 0:
        raise ValueError("nranks must be >= 0")
    if group_ptr[0] != 0 or group_ptr[n_groups] > n:
        raise ValueError("group_ptr must start at 0 and end within order")
    for g in range(n_groups):
        if group_ptr[g + 1] < group_ptr[g]:
            raise ValueError("group_ptr must be non-decreasing")
    for k in range(group_ptr[n_groups]):
        if order[k] < 0 or order[k] >= m:
            raise IndexError(f"order[{k}] = {order[k]} is outside 0..{m - 1}")
        r = prank[order[k]]
        if r < 0 or r >= nranks:
            raise IndexError(f"prank[{order[k]}] = {r} is outside 0..{nranks - 1}")
    cdef long long *tree = <long long *> calloc(nranks + 1, sizeof(long long))
    if tree == NULL:
        raise MemoryError()
    try:
        with nogil:
            for g in range(n_groups):
                start = group_ptr[g]
                end = group_ptr[g + 1]
                out[g, 0] = 0
                out[g, 1] = 0
                out[g, 2] = 0
                inserted = 0
                a = start
                while a < end:
                    # [a, b) is a run of equal labels
                    b = a + 1
                    while b < end and y[order[b]] == y[order[a]]:
                        b += 1
                    for k in range(a, b):
                        r = prank[order[k]]
                        less = _fen_prefix(tree, r)
                        leq = _fen_prefix(tree, r + 1)
                        out[g, 0] += inserted
                        out[g, 1] += less
                        out[g, 2] += leq - less
                    for k in range(a, b):
                        _fen_add(tree, nranks, prank[order[k]], 1)
                    inserted += b - a
                    a = b
                # empty the tree for the next group in O(n_g log r)
                for k in range(start, end):
                    _fen_add(tree, nranks, prank[order[k]], -1)
    finally:
        free(tree)
