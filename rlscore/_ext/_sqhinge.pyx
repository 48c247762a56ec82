# cython: language_level=3
"""The squared pairwise hinge of the linear RankSVM: loss, gradient and the generalized
Hessian on the active pairs, in O(m log m).

For the squared hinge sum_{(u, l) active} r_ul^2, r_ul = 1 - p_u + p_l (Lee & Lin 2014,
"Large-scale linear RankSVM"), every example i needs, besides c_i and d_i, the
sums of the partners' predictions:

    S^c_i = sum_{u : y_u > y_i, active(u, i)} p_u,   S^d_i = sum_{l : y_l < y_i,
    active(i, l)} p_l,

because the derivative of the loss with respect to p_i is
    2 [L_i - U_i],  L_i = c_i (1 + p_i) - S^c_i  (sum of r over pairs with i lower),
                    U_i = d_i (1 - p_i) + S^d_i  (sum of r over pairs with i upper),
and the loss itself is sum_pairs r (1 - p_u + p_l) = sum_i L_i + sum_i p_i (L_i - U_i).
With the active set fixed (the generalized Hessian of one Newton step), the Hessian of
the loss with respect to p is 2 times the Laplacian of the active-pair graph:
    (2 Lap z)_i = 2 [(c_i + d_i) z_i - T^c_i - T^d_i],
T^c_i, T^d_i the sums of z over the same partners. The sweeps are those of the Fenwick
counting engine (prediction order, positions in the utility order) with a Fenwick tree
of doubles beside the bit-packed one; the c-sweep stores position n - 1 - ypos so that
"utility above the run" is a prefix (no total-minus-prefix cancellation). The pointer
of each margin window is recorded at the gradient evaluation, so a Hessian-vector
product replays the same insertion schedule without comparing predictions: its cost is
the m inserts and m prefix sums per sweep, and no sort.
"""

import numpy as np

from cython.parallel cimport parallel, prange, threadid
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset

from rlscore._ext._fenwick cimport (
    BitSet, bitset_clear, bitset_count_below, bitset_insert, bitset_words, fen_add,
    fen_prefix)
from rlscore._ext._hinge_count cimport (
    PairIndex, PredKey, check_finite, gather_by_prediction)


cdef void _sq_lower(const PredKey *keys, const double *val, Py_ssize_t a, Py_ssize_t b,
                    BitSet *bits, double *dfen, bint record, int32_t *jc, int64_t *cnt,
                    double *sums) noexcept nogil:
    # i as the lower item: partners u with y_u > y_i (position >= rend_i) and
    # p_u < fl(p_i + 1). record: find the window by comparing predictions (and store
    # its end in jc, count the partners); else replay jc.
    cdef Py_ssize_t n = b - a
    cdef Py_ssize_t k, j = a, end
    cdef int64_t inserted = 0
    cdef double bound
    memset(dfen, 0, (n + 1) * sizeof(double))
    if record:
        bitset_clear(bits, n)
    for k in range(a, b):
        if record:
            bound = keys[k].p + 1.0
            while j < b and keys[j].p < bound:
                bitset_insert(bits, keys[j].ypos)
                fen_add(dfen, n, n - 1 - keys[j].ypos, val[j])
                inserted += 1
                j += 1
            jc[k] = <int32_t> (j - a)
            cnt[k] = inserted - bitset_count_below(bits, keys[k].rend)
        else:
            end = a + jc[k]
            while j < end:
                fen_add(dfen, n, n - 1 - keys[j].ypos, val[j])
                j += 1
        sums[k] = fen_prefix(dfen, n - keys[k].rend)


cdef void _sq_upper(const PredKey *keys, const double *val, Py_ssize_t a, Py_ssize_t b,
                    BitSet *bits, double *dfen, bint record, int32_t *jd, int64_t *cnt,
                    double *sums) noexcept nogil:
    # i as the upper item: partners l with y_l < y_i (position < rstart_i) and
    # fl(p_l + 1) > p_i, visiting by descending p
    cdef Py_ssize_t n = b - a
    cdef Py_ssize_t k, j = b - 1, end
    memset(dfen, 0, (n + 1) * sizeof(double))
    if record:
        bitset_clear(bits, n)
    k = b - 1
    while k >= a:
        if record:
            while j >= a and keys[j].p + 1.0 > keys[k].p:
                bitset_insert(bits, keys[j].ypos)
                fen_add(dfen, n, keys[j].ypos, val[j])
                j -= 1
            jd[k] = <int32_t> (j - a)
            cnt[k] = bitset_count_below(bits, keys[k].rstart)
        else:
            end = a + jd[k]
            while j > end:
                fen_add(dfen, n, keys[j].ypos, val[j])
                j -= 1
        sums[k] = fen_prefix(dfen, keys[k].rstart)
        k -= 1


ctypedef struct _SqScratch:
    BitSet bits
    double *dfen
    char pad[128]


cdef class SquaredHingeActiveSet:
    """The active pairs of the squared pairwise hinge at one point, in the form a
    Newton step needs: created by :meth:`RankingPairs.squared_hinge`.

    Holds the examples in prediction order per query, the two margin windows of every
    example, its number of active partners and its query weight. :meth:`hessian_coef`
    then applies the generalized Hessian of the loss with respect to the predictions,
    2 sum_q s_q Lap_q (Lap_q the Laplacian of the active-pair graph of query q), to a
    vector in O(m log(max query size)) without sorting: one Fenwick tree of doubles per
    sweep, replaying the recorded windows.

    Memory: 40 bytes per example plus (max query size) doubles per thread.
    """

    cdef PredKey *keys
    cdef Py_ssize_t *seg
    cdef int32_t *jc
    cdef int32_t *jd
    cdef int32_t *npart         # c_i + d_i, slot order
    cdef double *wslot          # 2 s_q, slot order
    cdef Py_ssize_t[::1] _qstart
    cdef readonly Py_ssize_t m, n_queries, max_query
    cdef readonly int64_t n_active

    def __cinit__(self):
        self.keys = NULL
        self.seg = NULL
        self.jc = NULL
        self.jd = NULL
        self.npart = NULL
        self.wslot = NULL

    def __dealloc__(self):
        free(self.keys)
        free(self.seg)
        free(self.jc)
        free(self.jd)
        free(self.npart)
        free(self.wslot)

    cdef int _alloc(self, Py_ssize_t m) except -1:
        self.m = m
        self.keys = <PredKey *> malloc(m * sizeof(PredKey))
        self.seg = <Py_ssize_t *> malloc(m * sizeof(Py_ssize_t))
        self.jc = <int32_t *> malloc(m * sizeof(int32_t))
        self.jd = <int32_t *> malloc(m * sizeof(int32_t))
        self.npart = <int32_t *> malloc(m * sizeof(int32_t))
        self.wslot = <double *> malloc(m * sizeof(double))
        if self.keys == NULL or self.seg == NULL or self.jc == NULL or \
                self.jd == NULL or self.npart == NULL or self.wslot == NULL:
            raise MemoryError("cannot allocate the active set")
        return 0

    def degrees(self):
        """Number of active partners of every example (example order), int64."""
        out = np.empty(self.m, dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef Py_ssize_t k
        if self.keys == NULL:
            return out
        for k in range(self.m):
            o[self.seg[k]] = self.npart[k]
        return out

    def hessian_coef(self, z, out=None, int n_threads=1):
        """u = 2 sum_q s_q Lap_q z for z (m,): the generalized Hessian of the loss with
        respect to the predictions, applied to z; with z = X v, X^T u is the loss part
        of the Hessian-vector product H v. Returns u (``out`` if given).

        O(m log(max query size)): two sweeps per query replaying the recorded margin
        windows over a Fenwick tree of doubles; with n_threads > 1 the sweeps (and
        queries) run in parallel.
        """
        if self.keys == NULL:
            raise ValueError("an empty active set: SquaredHingeActiveSet objects come "
                             "from RankingPairs.squared_hinge")
        cdef double[::1] zv = np.ascontiguousarray(z, dtype=np.float64)
        if zv.shape[0] != self.m:
            raise ValueError(f"z must have shape ({self.m},)")
        if out is None:
            out = np.empty(self.m)
        cdef double[::1] ov = out
        if ov.shape[0] != self.m:
            raise ValueError(f"out must have shape ({self.m},)")
        cdef Py_ssize_t m = self.m, k
        zs_a = np.empty(m)
        tc_a = np.empty(m)
        td_a = np.empty(m)
        cdef double[::1] zs = zs_a, tc = tc_a, td = td_a
        with nogil:
            for k in range(m):
                zs[k] = zv[self.seg[k]]
        _sq_run(self.keys, &zs[0], self.n_queries, &self._qstart[0], self.max_query,
                n_threads, False, self.jc, self.jd, NULL, NULL, &tc[0], &td[0])
        with nogil:
            for k in range(m):
                ov[self.seg[k]] = self.wslot[k] * (self.npart[k] * zs[k] - tc[k] - td[k])
        return out


# Below this many examples the sweeps run on one thread whatever n_threads says: they
# take well under a millisecond, less than waking an OpenMP team on a busy machine.
cdef enum:
    SQ_PARALLEL_MIN = 50000


cdef int _sq_run(const PredKey *keys, const double *val, Py_ssize_t nq,
                 const Py_ssize_t *qstart, Py_ssize_t max_query, int n_threads,
                 bint record, int32_t *jc, int32_t *jd, int64_t *cc, int64_t *dd,
                 double *sc, double *sd) except -1:
    # both sweeps of every query (2 nq tasks), OpenMP over the tasks
    cdef Py_ssize_t ntasks = 2 * nq, task, q, i
    cdef Py_ssize_t nwords = bitset_words(max_query) + 1
    cdef int nt = n_threads, tid, failed = 0
    cdef _SqScratch *work = NULL
    if nt < 1 or qstart[nq] < SQ_PARALLEL_MIN:
        nt = 1
    if nt > ntasks:
        nt = <int> ntasks
    try:
        work = <_SqScratch *> calloc(nt, sizeof(_SqScratch))
        if work == NULL:
            raise MemoryError()
        for i in range(nt):
            work[i].dfen = <double *> malloc((max_query + 2) * sizeof(double))
            if record:
                work[i].bits.bits = <uint64_t *> malloc(nwords * sizeof(uint64_t))
                work[i].bits.fen = <int32_t *> malloc((nwords + 1) * sizeof(int32_t))
                if work[i].bits.bits == NULL or work[i].bits.fen == NULL:
                    failed = 1
            if work[i].dfen == NULL:
                failed = 1
        if failed:
            raise MemoryError("cannot allocate the Fenwick trees")
        if nt == 1:
            with nogil:
                for task in range(ntasks):
                    _sq_task(task, keys, val, qstart, &work[0], record, jc, jd, cc, dd,
                             sc, sd)
        else:
            with nogil, parallel(num_threads=nt):
                tid = threadid()
                for task in prange(ntasks, schedule="dynamic", chunksize=1):
                    _sq_task(task, keys, val, qstart, &work[tid], record, jc, jd, cc,
                             dd, sc, sd)
    finally:
        if work != NULL:
            for i in range(nt):
                free(work[i].bits.bits)
                free(work[i].bits.fen)
                free(work[i].dfen)
            free(work)
    return 0


cdef void _sq_task(Py_ssize_t task, const PredKey *keys, const double *val,
                   const Py_ssize_t *qstart, _SqScratch *work, bint record, int32_t *jc,
                   int32_t *jd, int64_t *cc, int64_t *dd, double *sc,
                   double *sd) noexcept nogil:
    cdef Py_ssize_t q = task >> 1
    if task & 1:
        _sq_upper(keys, val, qstart[q], qstart[q + 1], &work.bits, work.dfen, record,
                  jd, dd, sd)
    else:
        _sq_lower(keys, val, qstart[q], qstart[q + 1], &work.bits, work.dfen, record,
                  jc, cc, sc)


cdef object squared_hinge(const PairIndex *ix, const double[::1] p, weights, coef,
                          int n_threads):
    """(loss, SquaredHingeActiveSet) at p; coef (m,) receives the gradient of the loss
    with respect to p. See :meth:`RankingPairs.squared_hinge`. O(m log m)."""
    cdef Py_ssize_t m = ix.m, nq = ix.n_queries, k, q
    cdef double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef double[::1] out = coef
    cdef const Py_ssize_t *qstart = ix.qstart
    cdef double total = 0.0, part, wq, L, U, pk
    cdef int64_t n_active = 0
    if w.shape[0] != nq:
        raise ValueError(f"weights must have shape ({nq},)")
    if out.shape[0] != m:
        raise ValueError(f"coef must have shape ({m},)")
    check_finite(p)
    cdef SquaredHingeActiveSet st = SquaredHingeActiveSet.__new__(SquaredHingeActiveSet)
    st._alloc(m)
    st.n_queries = nq
    st.max_query = ix.max_query
    st._qstart = np.array(<Py_ssize_t[:nq + 1]> <Py_ssize_t *> ix.qstart, dtype=np.intp)
    gather_by_prediction(ix, p, st.keys, st.seg)
    ps_a = np.empty(m)
    sc_a = np.empty(m)
    sd_a = np.empty(m)
    cc_a = np.empty(m, dtype=np.int64)
    dd_a = np.empty(m, dtype=np.int64)
    cdef double[::1] ps = ps_a, sc = sc_a, sd = sd_a
    cdef int64_t[::1] cc = cc_a, dd = dd_a
    with nogil:
        for k in range(m):
            ps[k] = st.keys[k].p
    _sq_run(st.keys, &ps[0], nq, qstart, ix.max_query, n_threads, True, st.jc, st.jd,
            &cc[0], &dd[0], &sc[0], &sd[0])
    with nogil:
        for q in range(nq):
            wq = w[q]
            part = 0.0
            for k in range(qstart[q], qstart[q + 1]):
                pk = ps[k]
                L = cc[k] * (1.0 + pk) - sc[k]      # sum of r, pairs with k lower
                U = dd[k] * (1.0 - pk) + sd[k]      # sum of r, pairs with k upper
                part += L + pk * (L - U)
                out[st.seg[k]] = 2.0 * wq * (L - U)
                st.npart[k] = <int32_t> (cc[k] + dd[k])
                st.wslot[k] = 2.0 * wq
                n_active += cc[k]
            total += wq * part
    st.n_active = n_active
    return total, st
