# cython: language_level=3
"""Concordant-pair counting for the pairwise measures (c-index, AUC, Kendall's tau-b):
one sort and one counting pass.

For every group (a query, or a column of a multi-output problem) and its items with
labels y and predictions p, the pairs are the unordered {i, j} with y_i != y_j; a pair
is concordant when the higher label has the higher prediction. ``pair_counts`` returns
per group the number of pairs, of concordant pairs, of pairs tied in the prediction
(different labels, equal predictions) and of all prediction-tied pairs.

Method (the merge-sort count of Knight 1966, "A computer method for calculating
Kendall's tau with ungrouped data", adapted to label ties):

1. Sort the items by (group, y): an LSD radix sort on order-preserving 64-bit keys of
   the labels (byte passes whose digit is the same for every item are skipped: small
   integer or tied labels cost two passes), then one stable counting-sort pass by
   group; inside every run of equal labels sort the predictions (insertion sort for
   short runs, the same radix sort for long ones).
2. In that order, a discordant pair is exactly a strict inversion of the predictions
   (within a label run the predictions ascend, so equal labels contribute none): a
   natural merge sort of the predictions of each group counts them (the label runs are
   already-sorted stretches, so tied labels need only log2(#labels) merge levels).
3. Pairs come from the label runs, (n^2 - sum run^2) / 2; prediction ties from the
   runs of equal predictions after step 2 (all of them) and step 1 (those with equal
   labels too); concordant = pairs - discordant - tied.

O(n) for the radix passes plus O(n log n) for the merges, O(n) memory; no quadratic
cost from ties of either kind. -0.0 and 0.0 are equal.
"""

import numpy as np

from libc.math cimport isfinite
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset


ctypedef struct _Rec:           # one item during the sort by (group, label)
    uint64_t y                  # order-preserving key of the label
    uint64_t p                  # order-preserving key of the prediction
    uint32_t g                  # group
    uint32_t pad

ctypedef fused _item_t:
    uint64_t
    _Rec


cdef inline uint64_t _key(double x) noexcept nogil:
    # order-preserving map of a finite double to uint64; -0.0 and 0.0 share a key
    cdef uint64_t u
    if x == 0.0:
        x = 0.0
    memcpy(&u, &x, sizeof(uint64_t))
    if u >> 63:
        return ~u
    return u | (<uint64_t> 1 << 63)


cdef inline unsigned int _digit(const _item_t *a, Py_ssize_t i, int b) noexcept nogil:
    # byte b (0 = least significant) of the sort key: the value itself, or the label
    # key of a record
    if _item_t is uint64_t:
        return (a[i] >> (8 * b)) & 0xFF
    else:
        return (a[i].y >> (8 * b)) & 0xFF


cdef void _radix_sort(_item_t *a, _item_t *buf, Py_ssize_t n, int nbytes) noexcept nogil:
    """Stable LSD radix sort of a[0:n] on its nbytes (<= 8) low key bytes; buf has room
    for n items. Passes whose byte is constant are skipped."""
    cdef Py_ssize_t count[8][256]
    cdef Py_ssize_t i, s, t
    cdef int b, d
    cdef _item_t *src = a
    cdef _item_t *dst = buf
    cdef _item_t *tmp
    memset(count, 0, sizeof(count))
    for i in range(n):
        for b in range(nbytes):
            count[b][_digit(a, i, b)] += 1
    for b in range(nbytes):
        if count[b][_digit(a, 0, b)] == n:
            continue
        s = 0
        for d in range(256):
            t = count[b][d]
            count[b][d] = s
            s += t
        for i in range(n):
            d = _digit(src, i, b)
            dst[count[b][d]] = src[i]
            count[b][d] += 1
        tmp = src
        src = dst
        dst = tmp
    if src != a:
        memcpy(a, src, n * sizeof(_item_t))


cdef void _group_sort(_Rec *a, _Rec *buf, Py_ssize_t *count, Py_ssize_t n,
                      Py_ssize_t n_groups) noexcept nogil:
    """Stable counting sort of a[0:n] by group (one pass; count has n_groups + 1
    entries)."""
    cdef Py_ssize_t i, g, s = 0, t
    memset(count, 0, (n_groups + 1) * sizeof(Py_ssize_t))
    for i in range(n):
        count[a[i].g] += 1
    for g in range(n_groups):
        t = count[g]
        count[g] = s
        s += t
    for i in range(n):
        buf[count[a[i].g]] = a[i]
        count[a[i].g] += 1
    memcpy(a, buf, n * sizeof(_Rec))


cdef int64_t _sort_count(uint64_t *a, uint64_t *buf, Py_ssize_t *bounds,
                         Py_ssize_t n) noexcept nogil:
    """Sort a[0:n] ascending; return the number of strict inversions (i < j, a_i > a_j).

    Natural merge sort: the maximal ascending runs (extended to at least 32 items by
    insertion sort) are merged pairwise, level by level, so presorted stretches (the
    label runs of tied data) cost one pass per level and there are log2(#runs) levels.
    ``bounds`` has room for n // 32 + 2 run starts. O(n log n).
    """
    cdef Py_ssize_t i, j, e, k, lo, mid, hi, r, nr = 0, nk
    cdef int64_t inv = 0
    cdef uint64_t x
    cdef uint64_t *src = a
    cdef uint64_t *dst = buf
    cdef uint64_t *tmp
    i = 0
    while i < n:
        j = i + 1
        while j < n and a[j - 1] <= a[j]:
            j += 1
        if j - i < 32 and j < n:
            e = i + 32 if i + 32 < n else n
            while j < e:                    # insert a[j] into the sorted a[i:j]
                x = a[j]
                k = j
                while k > i and a[k - 1] > x:
                    a[k] = a[k - 1]
                    k -= 1
                a[k] = x
                inv += j - k
                j += 1
            while j < n and a[j - 1] <= a[j]:
                j += 1
        bounds[nr] = i
        nr += 1
        i = j
    bounds[nr] = n
    while nr > 1:
        nk = 0
        r = 0
        while r < nr:
            lo = bounds[r]
            if r + 1 == nr:                 # an odd run out: carried over
                memcpy(dst + lo, src + lo, (n - lo) * sizeof(uint64_t))
            else:
                mid = bounds[r + 1]
                hi = bounds[r + 2]
                if src[mid - 1] <= src[mid]:
                    memcpy(dst + lo, src + lo, (hi - lo) * sizeof(uint64_t))
                else:
                    i = lo
                    j = mid
                    k = lo
                    while i < mid and j < hi:
                        if src[i] <= src[j]:
                            dst[k] = src[i]
                            i += 1
                        else:
                            dst[k] = src[j]
                            j += 1
                            inv += mid - i  # src[i:mid] all exceed src[j]
                        k += 1
                    if i < mid:
                        memcpy(dst + k, src + i, (mid - i) * sizeof(uint64_t))
                    if j < hi:
                        memcpy(dst + k, src + j, (hi - j) * sizeof(uint64_t))
            bounds[nk] = lo
            nk += 1
            r += 2
        bounds[nk] = n
        nr = nk
        tmp = src
        src = dst
        dst = tmp
    if src != a:
        memcpy(a, src, n * sizeof(uint64_t))
    return inv


cdef inline int64_t _tied_pairs(const uint64_t *a, Py_ssize_t n) noexcept nogil:
    # pairs of equal values in the sorted a[0:n]
    cdef Py_ssize_t i = 0, j
    cdef int64_t t = 0
    while i < n:
        j = i + 1
        while j < n and a[j] == a[i]:
            j += 1
        t += <int64_t> (j - i) * (j - i - 1) // 2
        i = j
    return t


def pair_counts(const double[::1] y, const double[::1] p, groups, Py_ssize_t n_groups,
                long long[:, ::1] out, long long[::1] pties):
    """Count ranked pairs per group.

    Parameters
    ----------
    y, p : (n,) float64, finite labels and predictions.
    groups : (n,) intp group codes in 0 .. n_groups - 1, or None (one group).
    n_groups : int, at least 1 (and 1 without groups), below 2**32.
    out : (n_groups, 3) int64, filled with (pairs, concordant, prediction ties) per
        group: pairs are unordered with different labels, concordant means the higher
        label has the higher prediction, prediction ties have different labels and
        equal predictions.
    pties : (n_groups,) int64, filled with the number of unordered pairs with equal
        predictions (whatever their labels).

    Notes
    -----
    O(n log n) time (radix sort by group and label, a merge-sort inversion count of the
    predictions), O(n) memory. Raises ValueError on inconsistent arguments.
    """
    cdef Py_ssize_t n = y.shape[0], i, a, b, r, s, g
    cdef const Py_ssize_t[::1] gv
    cdef bint grouped = groups is not None
    cdef _Rec *rec = NULL
    cdef _Rec *rbuf = NULL
    cdef uint64_t *pk = NULL
    cdef uint64_t *pbuf = NULL
    cdef Py_ssize_t *bounds = NULL
    cdef Py_ssize_t *gcount = NULL
    cdef int64_t pairs, sumsq, inv, tsame, tall
    if p.shape[0] != n:
        raise ValueError(f"y and p differ in length ({n} and {p.shape[0]})")
    if n_groups < 1 or n_groups >= (<Py_ssize_t> 1 << 32) or (not grouped and n_groups != 1):
        raise ValueError(f"n_groups must be 1 .. 2**32 - 1 (1 without groups), got "
                         f"{n_groups}")
    if out.shape[0] != n_groups or out.shape[1] != 3 or pties.shape[0] != n_groups:
        raise ValueError(f"out must have shape ({n_groups}, 3) and pties ({n_groups},)")
    gv = np.ascontiguousarray(groups if grouped else np.zeros(n, dtype=np.intp),
                              dtype=np.intp)
    if grouped:
        if gv.shape[0] != n:
            raise ValueError(f"groups must have length {n}, got {gv.shape[0]}")
    for i in range(n):
        if not (isfinite(y[i]) and isfinite(p[i])):
            raise ValueError("y and p must be finite")
        if grouped and not (0 <= gv[i] < n_groups):
            raise ValueError(f"group codes must lie in 0 .. {n_groups - 1}")
    out[:, :] = 0
    pties[:] = 0
    if n == 0:
        return
    try:
        rec = <_Rec *> malloc(n * sizeof(_Rec))
        rbuf = <_Rec *> malloc(n * sizeof(_Rec))
        pk = <uint64_t *> malloc(n * sizeof(uint64_t))
        pbuf = <uint64_t *> malloc(n * sizeof(uint64_t))
        bounds = <Py_ssize_t *> malloc((n // 32 + 2) * sizeof(Py_ssize_t))
        gcount = <Py_ssize_t *> malloc((n_groups + 1) * sizeof(Py_ssize_t))
        if (rec == NULL or rbuf == NULL or pk == NULL or pbuf == NULL or bounds == NULL
                or gcount == NULL):
            raise MemoryError()
        with nogil:
            for i in range(n):
                rec[i].y = _key(y[i])
                rec[i].p = _key(p[i])
                rec[i].g = <uint32_t> gv[i]
            _radix_sort(rec, rbuf, n, 8)
            if grouped:
                _group_sort(rec, rbuf, gcount, n, n_groups)
            for i in range(n):
                pk[i] = rec[i].p
            a = 0
            while a < n:
                g = rec[a].g
                b = a + 1
                while b < n and rec[b].g == g:
                    b += 1
                # label runs of the group: pair count, predictions sorted inside
                sumsq = 0
                tsame = 0
                r = a
                while r < b:
                    s = r + 1
                    while s < b and rec[s].y == rec[r].y:
                        s += 1
                    sumsq += <int64_t> (s - r) * (s - r)
                    if s - r > 1:
                        if s - r > 64:
                            _radix_sort(pk + r, pbuf, s - r, 8)
                        else:
                            _sort_count(pk + r, pbuf, bounds, s - r)
                        tsame += _tied_pairs(pk + r, s - r)
                    r = s
                pairs = (<int64_t> (b - a) * (b - a) - sumsq) // 2
                inv = _sort_count(pk + a, pbuf, bounds, b - a)
                tall = _tied_pairs(pk + a, b - a)
                out[g, 0] = pairs
                out[g, 1] = pairs - inv - (tall - tsame)
                out[g, 2] = tall - tsame
                pties[g] = tall
                a = b
    finally:
        free(rec)
        free(rbuf)
        free(pk)
        free(pbuf)
        free(bounds)
        free(gcount)
