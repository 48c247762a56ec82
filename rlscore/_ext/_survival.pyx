# cython: language_level=3
"""Harrell's concordance counts for right-censored survival data in O(m log m).

A risk score is "higher risk = earlier event". Rows are given sorted by time. A pair
(i, j) is comparable (Harrell; scikit-survival's rule for tied times) when row i has an
event and either t_i < t_j, or t_i == t_j and row j is censored. For every comparable
pair, with d = fl(r_j - r_i) the floating-point difference of the risks:

* concordant when d < -tol (the earlier event has the clearly higher risk),
* tied in risk when -tol <= d <= tol,
* discordant when d > tol,

exactly the tests ``|r_j - r_i| <= tol`` and ``r_j < r_i`` of scikit-survival (fl(a - b)
is monotone in a and has the sign of a - b, so each class is a contiguous range of the
sorted distinct risks, found by binary search on the same floating-point predicate).

Method: walk the groups of equal time from the latest to the earliest with a Fenwick
tree (:mod:`rlscore._ext._fenwick`) of the risk ranks of the rows seen so far. For a
group, first insert its censored rows, then query every event of the group (its
comparable partners are exactly the rows in the tree), then insert the group's events.
O(m log m) time, O(m) memory, whatever the ties.
"""

from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free

from rlscore._ext._fenwick cimport fen_add, fen_prefix


cdef inline Py_ssize_t _first_not_below(const double *u, Py_ssize_t lo, Py_ssize_t hi,
                                        double e, double tol) noexcept nogil:
    # smallest k in [lo, hi] with fl(u[k] - e) >= -tol (u ascending)
    cdef Py_ssize_t mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if u[mid] - e < -tol:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline Py_ssize_t _first_above(const double *u, Py_ssize_t lo, Py_ssize_t hi,
                                    double e, double tol) noexcept nogil:
    # smallest k in [lo, hi] with fl(u[k] - e) > tol (u ascending)
    cdef Py_ssize_t mid
    while lo < hi:
        mid = lo + (hi - lo) // 2
        if u[mid] - e > tol:
            hi = mid
        else:
            lo = mid + 1
    return lo


def censored_concordance(const double[::1] time, const unsigned char[::1] event,
                         const Py_ssize_t[::1] rank, const double[::1] uniq,
                         const double[::1] weight, double tol):
    """Harrell's concordance counts of time-sorted rows.

    Parameters
    ----------
    time : (m,) float64, nondecreasing.
    event : (m,) uint8, 1 for an observed event, 0 for censored.
    rank : (m,) intp, the index of each row's risk in ``uniq``.
    uniq : (u,) float64, the distinct risks, ascending.
    weight : (m,) float64, the weight of each row as the event of a pair.
    tol : float >= 0, the risk tie tolerance.

    Returns
    -------
    (numerator, denominator, concordant, discordant, tied_risk, tied_time)
        numerator = sum over events i of w_i (concordant_i + tied_i / 2), denominator =
        sum of w_i comparable_i; the counts are Python ints. tied_time counts the
        comparable pairs with equal times (an event and a censored row).

    Notes
    -----
    O(m log m) time, O(u) extra memory.
    """
    cdef Py_ssize_t m = time.shape[0], nu = uniq.shape[0]
    cdef Py_ssize_t gs, ge, k, r, lo, hi
    cdef int64_t *tree
    cdef int64_t tot = 0, c, t, con = 0, tie = 0, comp = 0, ttime = 0, ne, nc
    cdef double num = 0.0, den = 0.0, w, e
    if (event.shape[0] != m or rank.shape[0] != m or weight.shape[0] != m):
        raise ValueError("time, event, rank and weight must have the same length")
    if not tol >= 0:
        raise ValueError("tol must be >= 0")
    for k in range(m):
        if not (0 <= rank[k] < nu):
            raise ValueError("rank out of range")
    tree = <int64_t *> calloc(nu + 1, sizeof(int64_t))
    if tree == NULL:
        raise MemoryError()
    try:
        with nogil:
            ge = m
            while ge > 0:
                gs = ge - 1
                while gs > 0 and time[gs - 1] == time[ge - 1]:
                    gs -= 1
                ne = 0
                nc = 0
                for k in range(gs, ge):
                    if not event[k]:
                        fen_add(tree, nu, rank[k], <int64_t> 1)
                        tot += 1
                        nc += 1
                for k in range(gs, ge):
                    if event[k]:
                        ne += 1
                        r = rank[k]
                        e = uniq[r]
                        lo = _first_not_below(&uniq[0], 0, r, e, tol)
                        hi = _first_above(&uniq[0], r, nu, e, tol)
                        c = fen_prefix(tree, lo)
                        t = fen_prefix(tree, hi) - c
                        con += c
                        tie += t
                        comp += tot
                        w = weight[k]
                        num += w * c + 0.5 * w * t
                        den += w * tot
                ttime += ne * nc
                for k in range(gs, ge):
                    if event[k]:
                        fen_add(tree, nu, rank[k], <int64_t> 1)
                        tot += 1
                ge = gs
    finally:
        free(tree)
    return num, den, int(con), int(comp - con - tie), int(tie), int(ttime)
