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

1. Sort the items by (group, y). When the group codes are nondecreasing (every group
   one contiguous block, as in query files, or a single group), each group is sorted
   by label on its own in buffers the size of the largest group: insertion sort up to
   16 items per key byte that varies in the group (32 for small integer labels), else
   an LSD radix sort on order-preserving 64-bit keys of the labels (byte passes whose
   digit is the same for every item are skipped: small integer or tied labels cost
   two passes). Otherwise all items are radix-sorted by label, then
   by group in one stable counting-sort pass. The order inside a run of equal labels
   is irrelevant: inside every such run sort the predictions (insertion sort for
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


cdef inline uint64_t _sortkey(const _item_t *a, Py_ssize_t i) noexcept nogil:
    # the sort key: the value itself, or the label key of a record
    if _item_t is uint64_t:
        return a[i]
    else:
        return a[i].y


cdef void _radix_sort(_item_t *a, _item_t *buf, Py_ssize_t n, int nbytes) noexcept nogil:
    """Stable LSD radix sort of a[0:n] on its nbytes (<= 8) low key bytes; buf has room
    for n items. Only the bytes that differ between the keys get a histogram and a
    pass (small integer or tied labels: two)."""
    cdef Py_ssize_t count[8][256]
    cdef int shift[8]
    cdef Py_ssize_t i, s, t
    cdef int b, d, v, nv = 0
    cdef uint64_t k, k0, diff = 0
    cdef _item_t *src = a
    cdef _item_t *dst = buf
    cdef _item_t *tmp
    if n < 2:
        return
    k0 = _sortkey(a, 0)
    for i in range(1, n):
        diff |= _sortkey(a, i) ^ k0
    for b in range(nbytes):
        if (diff >> (8 * b)) & 0xFF:
            shift[nv] = 8 * b
            nv += 1
    if nv == 0:
        return
    memset(count, 0, nv * sizeof(count[0]))
    for i in range(n):
        k = _sortkey(a, i)
        for v in range(nv):
            count[v][(k >> shift[v]) & 0xFF] += 1
    for v in range(nv):
        s = 0
        for d in range(256):
            t = count[v][d]
            count[v][d] = s
            s += t
        for i in range(n):
            d = (_sortkey(src, i) >> shift[v]) & 0xFF
            dst[count[v][d]] = src[i]
            count[v][d] += 1
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


cdef void _insertion_sort_y(_Rec *a, Py_ssize_t n) noexcept nogil:
    """Sort a[0:n] by label key (insertion sort, for short groups; not stable in the
    predictions, which are sorted inside every label run afterwards)."""
    cdef Py_ssize_t i, k
    cdef _Rec x
    for i in range(1, n):
        if a[i - 1].y <= a[i].y:
            continue
        x = a[i]
        k = i
        while k > 0 and a[k - 1].y > x.y:
            a[k] = a[k - 1]
            k -= 1
        a[k] = x


cdef enum:
    # a group of n items whose label keys differ in nv bytes is radix-sorted when
    # n > _RADIX_PER_BYTE * nv (nv passes of n) and insertion-sorted otherwise (about
    # n^2 / 4 moves); measured crossovers: ~35 items for small integer labels (2 bytes
    # vary), ~130 for continuous ones (8 bytes)
    _RADIX_PER_BYTE = 16


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


cdef void _count_group(const _Rec *rec, uint64_t *pk, uint64_t *pbuf, Py_ssize_t *bounds,
                       Py_ssize_t n, int64_t *row, int64_t *ptie) noexcept nogil:
    """Counts of one group whose records rec[0:n] are sorted by label (in any order
    inside a label run); pk[0:n] holds their prediction keys in that order and is
    sorted on return. row[0:3] receives (pairs, concordant, prediction ties) and *ptie
    the number of all prediction-tied pairs (the group's entries of pair_counts'
    ``out`` and ``pties``)."""
    cdef Py_ssize_t r = 0, s
    cdef int64_t sumsq = 0, tsame = 0, pairs, inv, tall
    # label runs: pair count; predictions sorted inside every run
    while r < n:
        s = r + 1
        while s < n and rec[s].y == rec[r].y:
            s += 1
        sumsq += <int64_t> (s - r) * (s - r)
        if s - r > 1:
            if s - r > 64:
                _radix_sort(pk + r, pbuf, s - r, 8)
            else:
                _sort_count(pk + r, pbuf, bounds, s - r)
            tsame += _tied_pairs(pk + r, s - r)
        r = s
    pairs = (<int64_t> n * n - sumsq) // 2
    inv = _sort_count(pk, pbuf, bounds, n)
    tall = _tied_pairs(pk, n)
    row[0] = pairs
    row[1] = pairs - inv - (tall - tsame)
    row[2] = tall - tsame
    ptie[0] = tall


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
    O(n log n) time, O(n) memory. When the group codes are nondecreasing (every
    group one contiguous block, the usual layout of query files) each group is sorted
    by label on its own, in buffers the size of the largest group (cache-resident for
    per-query data); otherwise all items are radix-sorted by label, then stably by
    group. Then a merge-sort inversion count of the predictions per group. Raises
    ValueError on inconsistent arguments.
    """
    cdef Py_ssize_t n = y.shape[0], i, a, b, g, ng, maxg, run = 0
    cdef const Py_ssize_t[::1] gv
    cdef bint grouped = groups is not None
    cdef bint local = True          # nondecreasing codes: sort each group on its own
    cdef _Rec *rec = NULL
    cdef _Rec *rbuf = NULL
    cdef uint64_t *pk = NULL
    cdef uint64_t *pbuf = NULL
    cdef Py_ssize_t *bounds = NULL
    cdef Py_ssize_t *gcount = NULL
    cdef uint64_t diff
    cdef int nv
    if p.shape[0] != n:
        raise ValueError(f"y and p differ in length ({n} and {p.shape[0]})")
    if n_groups < 1 or n_groups >= (<Py_ssize_t> 1 << 32) or (not grouped and n_groups != 1):
        raise ValueError(f"n_groups must be 1 .. 2**32 - 1 (1 without groups), got "
                         f"{n_groups}")
    if out.shape[0] != n_groups or out.shape[1] != 3 or pties.shape[0] != n_groups:
        raise ValueError(f"out must have shape ({n_groups}, 3) and pties ({n_groups},)")
    if grouped:
        gv = np.ascontiguousarray(groups, dtype=np.intp)
        if gv.shape[0] != n:
            raise ValueError(f"groups must have length {n}, got {gv.shape[0]}")
    maxg = n
    if grouped:
        maxg = 0
    for i in range(n):
        if not (isfinite(y[i]) and isfinite(p[i])):
            raise ValueError("y and p must be finite")
        if grouped:
            if not (0 <= gv[i] < n_groups):
                raise ValueError(f"group codes must lie in 0 .. {n_groups - 1}")
            if i > 0 and gv[i] != gv[i - 1]:
                if gv[i] < gv[i - 1]:
                    local = False
                run = 0
            run += 1
            if run > maxg:
                maxg = run
    out[:, :] = 0
    pties[:] = 0
    if n == 0:
        return
    if not local:
        maxg = n
    try:
        rec = <_Rec *> malloc(maxg * sizeof(_Rec))
        rbuf = <_Rec *> malloc(maxg * sizeof(_Rec))
        pk = <uint64_t *> malloc(maxg * sizeof(uint64_t))
        pbuf = <uint64_t *> malloc(maxg * sizeof(uint64_t))
        bounds = <Py_ssize_t *> malloc((maxg // 32 + 2) * sizeof(Py_ssize_t))
        gcount = <Py_ssize_t *> malloc((n_groups + 1) * sizeof(Py_ssize_t))
        if (rec == NULL or rbuf == NULL or pk == NULL or pbuf == NULL or bounds == NULL
                or gcount == NULL):
            raise MemoryError()
        with nogil:
            if local:
                a = 0
                while a < n:
                    b = n
                    g = 0
                    if grouped:
                        g = gv[a]
                        b = a + 1
                        while b < n and gv[b] == g:
                            b += 1
                    ng = b - a
                    diff = 0
                    for i in range(ng):
                        rec[i].y = _key(y[a + i])
                        rec[i].p = _key(p[a + i])
                        diff |= rec[i].y ^ rec[0].y
                    nv = 0
                    while diff:
                        nv += (diff & 0xFF) != 0
                        diff >>= 8
                    if ng > _RADIX_PER_BYTE * nv:
                        if nv:                  # else all labels are equal
                            _radix_sort(rec, rbuf, ng, 8)
                    else:
                        _insertion_sort_y(rec, ng)
                    for i in range(ng):
                        pk[i] = rec[i].p
                    _count_group(rec, pk, pbuf, bounds, ng, <int64_t *> &out[g, 0],
                                 <int64_t *> &pties[g])
                    a = b
            else:
                for i in range(n):
                    rec[i].y = _key(y[i])
                    rec[i].p = _key(p[i])
                    rec[i].g = <uint32_t> gv[i]
                _radix_sort(rec, rbuf, n, 8)
                _group_sort(rec, rbuf, gcount, n, n_groups)
                for i in range(n):
                    pk[i] = rec[i].p
                a = 0
                while a < n:
                    g = rec[a].g
                    b = a + 1
                    while b < n and rec[b].g == g:
                        b += 1
                    _count_group(rec + a, pk + a, pbuf, bounds, b - a,
                                 <int64_t *> &out[g, 0], <int64_t *> &pties[g])
                    a = b
    finally:
        free(rec)
        free(rbuf)
        free(pk)
        free(pbuf)
        free(bounds)
        free(gcount)
