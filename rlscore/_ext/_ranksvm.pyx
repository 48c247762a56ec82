# cython: language_level=3
"""Pair structures of the linear RankSVM and their pairwise hinge loss.

:class:`RankingPairs` holds the pairs implied by utilities (and queries): the examples
sorted by (query, utility), the runs of equal utility and the exact pair counts, built
once in O(m log m). Its ``hinge`` assembles the loss and the subgradient coefficients
from the counts of :mod:`rlscore._ext._hinge_count` (two engines, see there), its
``squared_hinge`` delegates to :mod:`rlscore._ext._sqhinge`. :class:`PreferencePairs`
holds explicit preference pairs, O(l + m) per evaluation.

The classes validate their arguments once; the compiled loops then run without the GIL
and without bounds checks.
"""

import numpy as np

from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, INT32_MAX
from libc.string cimport memset

from rlscore._ext._hinge_count cimport (
    ENGINE_FENWICK, ENGINE_RBTREE, ENGINE_RBTREE_WIDE, CountWork, PairIndex, PairItem,
    count_pairs, work_free)
from rlscore._ext._sqhinge cimport squared_hinge

ENGINES = {"rbtree": ENGINE_RBTREE, "fenwick": ENGINE_FENWICK}
# "rbtree_wide": the tree engine with its 12-byte node layout at any query size (the
# layout it uses above 2**21 - 1 examples per query), so that tests reach it
_ENGINE_CODES = dict(ENGINES, rbtree_wide=ENGINE_RBTREE_WIDE)


cdef class RankingPairs:
    """The pair structure of scored (optionally query-structured) ranking data, and
    the O(m log m) evaluation of the pairwise hinge loss on it.

    Parameters
    ----------
    y : ndarray of float64, shape (m,)
        Utilities (finite). Pairs are (u, l) with y_u > y_l in the same query.
    qcodes : ndarray of intp, shape (m,), or None
        Query of every example, codes 0 .. n_queries - 1; None for one global ranking.
    n_queries : int
        Number of queries (1 without qcodes).

    Notes
    -----
    Construction sorts by (query, utility): O(m log m) once. Every evaluation sorts the
    predictions once and counts with one of two engines (identical counts, see
    :mod:`rlscore._ext._hinge_count`):

    * ``"rbtree"`` (the method of Airola, Pahikkala & Salakoski 2011): one sweep per
      query over the runs of equal utility with an order-statistic red-black tree of
      the prediction ranks (8-byte nodes in a pool indexed by rank): one insert and two
      rank queries per example;
    * ``"fenwick"`` (default): two sweeps per query in prediction order inserting the
      positions in the utility order into a bit-packed Fenwick tree. The same
      O(log m) operations on a structure of n / 8 bytes that stays in cache.

    Every evaluation costs O(m log m) time and O(m) memory plus O(max query size) per
    thread. With n_threads > 1 queries (and the two Fenwick sweeps of a query) run in
    parallel (OpenMP).
    """

    cdef readonly Py_ssize_t m, n_queries, n_runs, max_query
    cdef readonly int64_t n_pairs
    cdef Py_ssize_t[::1] _order, _run_ptr, _qrun_ptr, _qcodes, _qstart
    cdef int32_t[:, ::1] _items
    cdef PairIndex _ix
    # the counting buffers kept between evaluations (not allocated and page-faulted
    # anew each time: ~20 ms of an evaluation at m = 10^6); _busy while one runs, so
    # that a second caller (another thread) gets buffers of its own
    cdef CountWork _work
    cdef bint _busy
    cdef readonly object order, run_ptr, query_run_ptr, query_pairs, query_sizes, qcodes

    def __init__(self, y, qcodes=None, n_queries=None):
        y = np.ascontiguousarray(y, dtype=np.float64)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {y.shape}")
        m = y.shape[0]
        if m == 0:
            raise ValueError("y is empty")
        if m >= INT32_MAX:
            raise ValueError(f"at most {INT32_MAX - 1} examples are supported, got {m}")
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity")
        if qcodes is None:
            q = np.zeros(m, dtype=np.intp)
            nq = 1
        else:
            q = np.ascontiguousarray(qcodes, dtype=np.intp)
            if q.shape != (m,):
                raise ValueError(f"qcodes must have shape ({m},), got {q.shape}")
            nq = int(n_queries) if n_queries is not None else int(q.max()) + 1
            if nq < 1 or q.min() < 0 or q.max() >= nq:
                raise ValueError(f"qcodes must lie in 0 .. {nq - 1}")
        order = np.lexsort((y, q)).astype(np.intp)
        ys = y[order]
        qs = q[order]
        new_run = np.empty(m, dtype=bool)
        new_run[0] = True
        new_run[1:] = (ys[1:] != ys[:m - 1]) | (qs[1:] != qs[:m - 1])
        run_start = np.flatnonzero(new_run)
        run_ptr = np.append(run_start, m).astype(np.intp)
        run_q = qs[run_start]
        qrun_ptr = np.searchsorted(run_q, np.arange(nq + 1)).astype(np.intp)
        sizes = np.bincount(q, minlength=nq).astype(np.int64)
        qstart = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
        run_sizes = np.diff(run_ptr).astype(np.int64)
        # exact integer pair counts: (n_q^2 - sum of run sizes^2) / 2
        run_sq = np.zeros(nq, dtype=np.int64)
        np.add.at(run_sq, run_q, run_sizes * run_sizes)
        qpairs = (sizes * sizes - run_sq) // 2
        # positions in the utility order, relative to the query start
        run_id = np.cumsum(new_run) - 1
        base = qstart[qs]
        items = np.empty((m, 4), dtype=np.int32)
        items[order, 0] = np.arange(m) - base
        items[order, 1] = run_ptr[run_id] - base
        items[order, 2] = run_ptr[run_id + 1] - base
        items[:, 3] = q
        self.m = m
        self.n_queries = nq
        self.n_runs = run_start.shape[0]
        self.max_query = int(sizes.max())
        self.n_pairs = int(qpairs.sum())
        self.order = order
        self.run_ptr = run_ptr
        self.query_run_ptr = qrun_ptr
        self.query_pairs = qpairs
        self.query_sizes = sizes
        self.qcodes = q
        self._order = order
        self._run_ptr = run_ptr
        self._qrun_ptr = qrun_ptr
        self._qcodes = q
        self._qstart = qstart
        self._items = items
        self._ix.m = m
        self._ix.n_queries = nq
        self._ix.max_query = self.max_query
        self._ix.items = <const PairItem *> &self._items[0, 0]
        self._ix.order = &self._order[0]
        self._ix.run_ptr = &self._run_ptr[0]
        self._ix.qrun_ptr = &self._qrun_ptr[0]
        self._ix.qstart = &self._qstart[0]

    def __dealloc__(self):
        work_free(&self._work)

    cdef int _count(self, const double[::1] pv, int eng, int n_threads, int64_t *cc,
                    int64_t *dd, const double *weights, double *coef,
                    double *loss) except -1:
        if self._busy:
            return count_pairs(&self._ix, pv, eng, n_threads, cc, dd, weights, coef, loss)
        self._busy = True
        try:
            count_pairs(&self._ix, pv, eng, n_threads, cc, dd, weights, coef, loss,
                        &self._work)
        finally:
            self._busy = False
        return 0

    def _check_p(self, p):
        p = np.ascontiguousarray(p, dtype=np.float64)
        if p.shape != (self.m,):
            raise ValueError(f"p must have shape ({self.m},), got {p.shape}")
        return p

    @staticmethod
    def _engine(engine):
        try:
            return _ENGINE_CODES[engine]
        except (KeyError, TypeError):
            raise ValueError(f"engine must be one of {sorted(ENGINES)}, got "
                             f"{engine!r}") from None

    def counts(self, p, int n_threads=1, engine="fenwick"):
        """c and d (int64, shape (m,)) for the predictions p.

        c[i] is the number of pairs where i is the lower item and 1 - p_u + p_i > 0,
        d[i] the number where i is the upper item and 1 - p_i + p_l > 0 (evaluated as
        p_upper < fl(p_lower + 1)). O(m log m) time.
        """
        cdef int eng = RankingPairs._engine(engine)
        cdef double[::1] pv = self._check_p(p)
        c = np.empty(self.m, dtype=np.int64)
        d = np.empty(self.m, dtype=np.int64)
        cdef int64_t[::1] cv = c
        cdef int64_t[::1] dv = d
        self._count(pv, eng, n_threads, &cv[0], &dv[0], NULL, NULL, NULL)
        return c, d

    def hinge(self, p, weights, coef, int n_threads=1, engine="fenwick"):
        """The weighted pairwise hinge loss and its coefficient vector.

        Parameters
        ----------
        p : ndarray (m,), predictions
        weights : ndarray (n_queries,), the weight of every pair of each query
        coef : ndarray (m,) float64, output: coef[i] = weight_q(i) (c_i - d_i), so that
            X^T coef is a subgradient of the loss with respect to w (p = X w).
        n_threads : int, threads for the counting pass
        engine : "fenwick" (default) or "rbtree", see the class notes

        Returns
        -------
        float : sum over queries of weight_q * sum of the hinges of its pairs, computed
            as sum_i weight (c_i (1 + p_i) - d_i p_i).

        Notes
        -----
        O(m log m) (the counting pass) plus O(m).
        """
        cdef int eng = RankingPairs._engine(engine)
        cdef double[::1] pv = self._check_p(p)
        cdef double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
        cdef double[::1] out = coef
        cdef double total = 0.0
        if w.shape[0] != self.n_queries:
            raise ValueError(f"weights must have shape ({self.n_queries},)")
        if out.shape[0] != self.m:
            raise ValueError(f"coef must have shape ({self.m},)")
        self._count(pv, eng, n_threads, NULL, NULL, &w[0], &out[0], &total)
        return total

    def squared_hinge(self, p, weights, coef, int n_threads=1):
        """The weighted squared pairwise hinge, its gradient and its active set.

        Parameters
        ----------
        p : ndarray (m,), predictions (finite)
        weights : ndarray (n_queries,), the weight s_q of every pair of query q
        coef : ndarray (m,) float64, output: the gradient of the loss with respect to
            p, so that X^T coef is its gradient with respect to w (p = X w)
        n_threads : int, threads for the sweeps (OpenMP over the two sweeps of every
            query)

        Returns
        -------
        loss : float, sum_q s_q sum_{(u, l) in q, y_u > y_l} max(0, 1 - p_u + p_l)^2
        active : SquaredHingeActiveSet, the active pairs at p (for Hessian-vector
            products with the active set fixed)

        Notes
        -----
        O(m log m): one sort of p, then per query two sweeps in prediction order that
        insert every example into a bit-packed Fenwick tree (counts c_i, d_i) and a
        Fenwick tree of doubles (the sums of the partners' predictions), both indexed
        by the position in the utility order (:mod:`rlscore._ext._sqhinge`). A pair is
        active when p_u < fl(p_l + 1), as for the hinge.
        """
        return squared_hinge(&self._ix, self._check_p(p), weights, coef, n_threads)


# ---------------------------------------------------------------------------------------
# explicit preference pairs


cdef class PreferencePairs:
    """Explicit preferences (starts[k] preferred over ends[k]) with weights.

    Parameters
    ----------
    starts, ends : int arrays (l,), indices in 0 .. m - 1, starts[k] != ends[k]
    m : int, number of examples
    weights : float array (l,) of positive finite weights, or None (all 1)

    Notes
    -----
    ``hinge`` costs O(l + m).
    """

    cdef readonly Py_ssize_t m, n_pairs
    cdef Py_ssize_t[::1] _s, _e
    cdef double[::1] _w
    cdef readonly object starts, ends, weights

    def __init__(self, starts, ends, Py_ssize_t m, weights=None):
        s = np.ascontiguousarray(starts, dtype=np.intp)
        e = np.ascontiguousarray(ends, dtype=np.intp)
        if s.ndim != 1 or s.shape != e.shape:
            raise ValueError("starts and ends must be 1-D arrays of equal length")
        if s.shape[0] == 0:
            raise ValueError("there are no preference pairs")
        if m < 1:
            raise ValueError("m must be positive")
        if s.min() < 0 or e.min() < 0 or s.max() >= m or e.max() >= m:
            raise IndexError(f"pair indices must lie in 0 .. {m - 1}")
        if np.any(s == e):
            raise ValueError("a preference pair joins an example with itself")
        if weights is None:
            w = np.ones(s.shape[0])
        else:
            w = np.ascontiguousarray(weights, dtype=np.float64)
            if w.shape != s.shape:
                raise ValueError("weights must have one value per pair")
            if not np.all(np.isfinite(w)) or np.any(w <= 0):
                raise ValueError("pair weights must be positive and finite")
        self.m = m
        self.n_pairs = s.shape[0]
        self.starts, self.ends, self.weights = s, e, w
        self._s, self._e, self._w = s, e, w

    def hinge(self, p, scale, coef):
        """Loss scale * sum_k w_k max(0, 1 - p_s + p_e); coef (output, (m,)) gets
        scale * sum over active pairs of w_k (e_{e_k} - e_{s_k})."""
        cdef double[::1] pv = np.ascontiguousarray(p, dtype=np.float64)
        cdef double[::1] out = coef
        cdef double sc = scale, total = 0.0, h
        cdef Py_ssize_t k, u, l, i
        if pv.shape[0] != self.m or out.shape[0] != self.m:
            raise ValueError(f"p and coef must have shape ({self.m},)")
        for i in range(self.m):
            if not isfinite(pv[i]):
                raise ValueError("the predictions contain NaN or infinity")
        with nogil:
            memset(&out[0], 0, self.m * sizeof(double))
            for k in range(self.n_pairs):
                u = self._s[k]
                l = self._e[k]
                if pv[u] < pv[l] + 1.0:
                    h = 1.0 - pv[u] + pv[l]
                    total += self._w[k] * h
                    out[l] += sc * self._w[k]
                    out[u] -= sc * self._w[k]
        return sc * total
