# cython: language_level=3
"""The pairwise hinge and squared hinge of the survival RankSVM over Harrell's comparable
pairs, in O(m log m) per evaluation, never listing the pairs.

Risk scores are "higher risk = earlier event". A pair (i, j) is comparable when row i
has an observed event and t_i < t_j, or t_i == t_j and row j is censored (the rule of
:func:`rlscore.measure.concordance_index_censored` and
:class:`rlscore.core.survival.ComparabilityGraph`); it wants p_i >= p_j + 1, and its
residual is r_ij = 1 - p_i + p_j. It is *active* when p_i < fl(p_j + 1) (the test of
the RankSVM engines, :mod:`rlscore._ext._hinge_count`).

Every row k needs, over its active partners,

* as the event (earlier) member: a_k = #{j}, S_k = sum_j p_j,
* as the later member: b_k = #{i}, T_k = sum_i p_i,

so that the hinge loss is sum_k a_k (1 - p_k) + S_k, its gradient with respect to p is
b_k - a_k, and for the squared hinge, with R_k = a_k (1 - p_k) + S_k (sum of r over
the pairs where k is the event) and R'_k = b_k (1 + p_k) - T_k (k the later member),
the loss is sum_k (1 - p_k) R_k + p_k R'_k and the gradient 2 (R'_k - R_k).

Method: sort the predictions once (positions ``pos`` in prediction order); the partners
of an event i are the rows in the tree whose fl(p_j + 1) > p_i -- a suffix of the
prediction order, found by binary search (``lo``) -- and those of a later row j are the
events with p_i < fl(p_j + 1), a prefix (``hi``). Two sweeps over the groups of tied
times with Fenwick trees (:mod:`rlscore._ext._fenwick`) of counts and of sums:

* latest to earliest: insert the group's censored rows, query its events, insert its
  events (partners of an event: every later row and the censored rows of its time);
* earliest to latest: query the group's events, insert them, query its censored rows
  (partners of a row: the earlier events, and for a censored row the events of its
  time).

The first sweep stores position m - 1 - pos so that every query is a prefix sum (no
total-minus-prefix cancellation). The generalized Hessian of the squared hinge with
respect to p, 2 Lap(active pairs), is applied to a vector z by replaying both sweeps
with the recorded ``lo``/``hi`` and a Fenwick tree of z: O(m log m), no sort.
"""

import numpy as np

from libc.math cimport isfinite
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free

from rlscore._ext._fenwick cimport fen_add, fen_prefix


cdef class SurvivalActiveSet:
    """The active comparable pairs at some predictions (from
    :meth:`SurvivalPairs.evaluate`): per row its position in the prediction order, the
    bounds of its partner windows and its active partner counts. :meth:`hessian_coef`
    applies 2 * scale * Lap(active pairs) to a vector in O(m log m).

    Memory: 40 bytes per row.
    """

    cdef readonly object pos, lo, hi, a, b, owner
    cdef readonly double scale

    def hessian_coef(self, z, out=None, int n_threads=1):
        """u = 2 scale Lap z for z (m,), Lap the Laplacian of the active pairs: the
        generalized Hessian of the squared hinge with respect to the predictions.
        ``n_threads`` is accepted for the RankSVM oracle's interface (one thread).
        O(m log m)."""
        cdef SurvivalPairs pr = self.owner
        cdef Py_ssize_t m = pr.m
        cdef double[::1] zv = np.ascontiguousarray(z, dtype=np.float64)
        if zv.shape[0] != m:
            raise ValueError(f"z must have shape ({m},)")
        res = np.empty(m) if out is None else out
        cdef double[::1] u = res
        cdef Py_ssize_t[::1] pos = self.pos, lo = self.lo, hi = self.hi
        cdef int64_t[::1] a = self.a, b = self.b
        cdef double *fen = <double *> calloc(m + 1, sizeof(double))
        cdef double sc = 2.0 * self.scale
        cdef Py_ssize_t g, k, r, gs, ge
        if fen == NULL:
            raise MemoryError()
        try:
            with nogil:
                for k in range(m):
                    u[k] = (a[k] + b[k]) * zv[k]
                # latest to earliest: events subtract the z of their later partners
                for g in range(pr.n_groups - 1, -1, -1):
                    gs = pr._gptr[g]
                    ge = pr._gptr[g + 1]
                    for k in range(gs, ge):
                        r = pr._order[k]
                        if not pr._event[r]:
                            fen_add(fen, m, m - 1 - pos[r], zv[r])
                    for k in range(gs, ge):
                        r = pr._order[k]
                        if pr._event[r]:
                            u[r] -= fen_prefix(fen, m - lo[r])
                    for k in range(gs, ge):
                        r = pr._order[k]
                        if pr._event[r]:
                            fen_add(fen, m, m - 1 - pos[r], zv[r])
                for k in range(m + 1):
                    fen[k] = 0.0
                # earliest to latest: every row subtracts the z of its earlier events
                for g in range(pr.n_groups):
                    gs = pr._gptr[g]
                    ge = pr._gptr[g + 1]
                    for k in range(gs, ge):
                        r = pr._order[k]
                        if pr._event[r]:
                            u[r] -= fen_prefix(fen, hi[r])
                    for k in range(gs, ge):
                        r = pr._order[k]
                        if pr._event[r]:
                            fen_add(fen, m, pos[r], zv[r])
                    for k in range(gs, ge):
                        r = pr._order[k]
                        if not pr._event[r]:
                            u[r] -= fen_prefix(fen, hi[r])
                for k in range(m):
                    u[k] *= sc
        finally:
            free(fen)
        return res


cdef class SurvivalPairs:
    """Harrell's comparable pairs of right-censored outcomes, and the O(m log m)
    evaluation of the pairwise hinge and squared hinge on them.

    Parameters
    ----------
    time : ndarray float64 (m,), finite, >= 0
    event : ndarray bool (m,), True for an observed event

    Attributes
    ----------
    m, n_groups : int; n_pairs : int, the number of comparable pairs
    out_degree, in_degree : (m,) int64, pairs where a row is the event / later member

    Notes
    -----
    Construction: one stable sort by time, O(m log m). Each evaluation sorts the
    predictions once and runs two Fenwick sweeps: O(m log m) time, O(m) memory.
    """

    cdef readonly Py_ssize_t m, n_groups
    cdef readonly int64_t n_pairs
    cdef Py_ssize_t[::1] _order, _gptr
    cdef unsigned char[::1] _event
    cdef readonly object order, group_ptr, event, out_degree, in_degree

    def __init__(self, time, event):
        t = np.ascontiguousarray(time, dtype=np.float64)
        e = np.ascontiguousarray(event, dtype=bool)
        if t.ndim != 1 or e.shape != t.shape:
            raise ValueError("time and event must be 1-D arrays of one length")
        m = t.shape[0]
        if m == 0:
            raise ValueError("time is empty")
        if not np.all(np.isfinite(t)):
            raise ValueError("time contains NaN or infinity")
        order = np.argsort(t, kind="stable").astype(np.intp)
        ts = t[order]
        es = e[order]
        new = np.ones(m, dtype=bool)
        new[1:] = ts[1:] != ts[:-1]
        starts = np.flatnonzero(new)
        gptr = np.append(starts, m).astype(np.intp)
        ne = np.add.reduceat(es.astype(np.int64), starts)
        nc = np.diff(gptr) - ne
        gid = np.cumsum(new) - 1
        ev_before = np.concatenate(([0], np.cumsum(ne)[:-1]))
        out_deg = np.where(es, (m - gptr[1:])[gid] + nc[gid], 0).astype(np.int64)
        in_deg = (ev_before[gid] + np.where(es, 0, ne[gid])).astype(np.int64)
        self.out_degree = np.empty(m, dtype=np.int64)
        self.in_degree = np.empty(m, dtype=np.int64)
        self.out_degree[order] = out_deg
        self.in_degree[order] = in_deg
        self.m = m
        self.n_groups = starts.shape[0]
        self.n_pairs = int(out_deg.sum())
        self.order = order
        self.group_ptr = gptr
        self.event = e.view(np.uint8)
        self._order = order
        self._gptr = gptr
        self._event = self.event

    def evaluate(self, p, double scale, coef, bint squared=False):
        """The loss scale * sum over comparable pairs of l(1 - p_i + p_j), l the hinge
        (``squared`` False) or the squared hinge, and its gradient with respect to p.

        Parameters
        ----------
        p : ndarray (m,), finite risk scores
        scale : float > 0, the weight of every pair
        coef : ndarray (m,) float64, output: the gradient of the loss with respect to p
        squared : bool

        Returns
        -------
        (loss, active) : float and the :class:`SurvivalActiveSet` at p

        Notes
        -----
        O(m log m): one sort of p, m binary searches, two sweeps of Fenwick updates and
        prefix sums.
        """
        cdef Py_ssize_t m = self.m
        cdef Py_ssize_t g, k, r, gs, ge
        cdef double[::1] pv = np.ascontiguousarray(p, dtype=np.float64)
        cdef double[::1] out = coef
        if pv.shape[0] != m or out.shape[0] != m:
            raise ValueError(f"p and coef must have shape ({m},)")
        for k in range(m):
            if not isfinite(pv[k]):
                raise ValueError("the predictions contain NaN or infinity")
        p_arr = np.asarray(pv)
        porder = np.argsort(p_arr, kind="stable").astype(np.intp)
        ps_arr = np.ascontiguousarray(p_arr[porder])
        pos_arr = np.empty(m, dtype=np.intp)
        pos_arr[porder] = np.arange(m, dtype=np.intp)
        # lo: first position whose fl(p + 1) > p_i; hi: first position >= fl(p_j + 1)
        lo_arr = np.searchsorted(ps_arr + 1.0, p_arr, side="right").astype(np.intp)
        hi_arr = np.searchsorted(ps_arr, p_arr + 1.0, side="left").astype(np.intp)
        a_arr = np.zeros(m, dtype=np.int64)
        b_arr = np.zeros(m, dtype=np.int64)
        cdef Py_ssize_t[::1] pos = pos_arr, lo = lo_arr, hi = hi_arr
        cdef int64_t[::1] a = a_arr, b = b_arr
        cdef int64_t *cfen = <int64_t *> calloc(m + 1, sizeof(int64_t))
        cdef double *sfen = <double *> calloc(m + 1, sizeof(double))
        cdef double loss = 0.0, sc = scale, S, T, R, R2, pk
        cdef bint sq = squared
        if cfen == NULL or sfen == NULL:
            free(cfen)
            free(sfen)
            raise MemoryError()
        try:
            with nogil:
                for k in range(m):
                    out[k] = 0.0
                # latest to earliest: every event's later active partners
                for g in range(self.n_groups - 1, -1, -1):
                    gs = self._gptr[g]
                    ge = self._gptr[g + 1]
                    for k in range(gs, ge):
                        r = self._order[k]
                        if not self._event[r]:
                            fen_add(cfen, m, m - 1 - pos[r], <int64_t> 1)
                            fen_add(sfen, m, m - 1 - pos[r], pv[r])
                    for k in range(gs, ge):
                        r = self._order[k]
                        if self._event[r]:
                            a[r] = fen_prefix(cfen, m - lo[r])
                            S = fen_prefix(sfen, m - lo[r])
                            pk = pv[r]
                            R = a[r] * (1.0 - pk) + S
                            if sq:
                                loss += (1.0 - pk) * R
                                out[r] -= 2.0 * R
                            else:
                                loss += R
                                out[r] -= a[r]
                    for k in range(gs, ge):
                        r = self._order[k]
                        if self._event[r]:
                            fen_add(cfen, m, m - 1 - pos[r], <int64_t> 1)
                            fen_add(sfen, m, m - 1 - pos[r], pv[r])
                for k in range(m + 1):
                    cfen[k] = 0
                    sfen[k] = 0.0
                # earliest to latest: every row's earlier active events
                for g in range(self.n_groups):
                    gs = self._gptr[g]
                    ge = self._gptr[g + 1]
                    for k in range(gs, ge):
                        r = self._order[k]
                        if self._event[r]:
                            b[r] = fen_prefix(cfen, hi[r])
                            T = fen_prefix(sfen, hi[r])
                            if sq:
                                R2 = b[r] * (1.0 + pv[r]) - T
                                loss += pv[r] * R2
                                out[r] += 2.0 * R2
                            else:
                                out[r] += b[r]
                    for k in range(gs, ge):
                        r = self._order[k]
                        if self._event[r]:
                            fen_add(cfen, m, pos[r], <int64_t> 1)
                            fen_add(sfen, m, pos[r], pv[r])
                    for k in range(gs, ge):
                        r = self._order[k]
                        if not self._event[r]:
                            b[r] = fen_prefix(cfen, hi[r])
                            T = fen_prefix(sfen, hi[r])
                            if sq:
                                R2 = b[r] * (1.0 + pv[r]) - T
                                loss += pv[r] * R2
                                out[r] += 2.0 * R2
                            else:
                                out[r] += b[r]
                for k in range(m):
                    out[k] *= sc
        finally:
            free(cfen)
            free(sfen)
        cdef SurvivalActiveSet act = SurvivalActiveSet.__new__(SurvivalActiveSet)
        act.pos = pos_arr
        act.lo = lo_arr
        act.hi = hi_arr
        act.a = a_arr
        act.b = b_arr
        act.owner = self
        act.scale = scale
        return sc * loss, act

