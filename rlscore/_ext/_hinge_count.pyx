# cython: language_level=3
"""Counting the margin-violating pairs of the pairwise hinge loss in O(m log m).

For predictions p and utilities y (pairs only inside a query; label ties are not
pairs), a pair (u, l) with y_u > y_l is *active* when its hinge 1 - p_u + p_l is
positive. For every example i (Airola, Pahikkala & Salakoski 2011, "Training linear
ranking SVMs in linearithmic time using red-black trees", eqs. 4.10-4.13 of Airola's
thesis)

    c_i = #{u : y_u > y_i, active(u, i)}   (i is the lower item of an active pair)
    d_i = #{l : y_l < y_i, active(i, l)}   (i is the upper item of an active pair)

and then the pairwise hinge loss is sum_i c_i (1 + p_i) - d_i p_i and a subgradient
with respect to w (p = X w) is X^T (c - d). Both engines evaluate the same
floating-point predicate, active(u, l) <=> p_u < fl(p_l + 1), so sum(c) == sum(d)
exactly; a pair exactly at margin 1 is inactive (its hinge is 0).

Two engines, identical counts, both O(m log m) per evaluation whatever the number of
distinct utilities or predictions, both starting from one sort of the predictions
(``gather_by_prediction``):

* ``ENGINE_RBTREE`` -- the paper's method: one sweep per query over the runs of equal
  utility, descending, with an order-statistic red-black tree (``_ostree.pxd``) of the
  predictions already swept. Before a run is stored, c_i = #stored below fl(p_i + 1);
  after it, #stored with fl(p + 1) > p_i gives d_i by complement (every example of the
  query lies somewhere in prediction order). The tree is keyed by the prediction ranks
  and the two bounds become ranks by a two-pointer pass, so the tree is a node pool
  indexed by rank: one insert and two rank queries per example, O(log n_q) each, walked
  in lockstep for a single-example run so that their cache misses overlap, while the
  cache lines around the next example's three keys are prefetched (in the in-order
  pool the last levels of a walk lie next to its key). Nodes take 8 bytes up to
  2**21 - 1 examples per query, 12 beyond (``ENGINE_RBTREE_WIDE`` forces 12, for tests).
* ``ENGINE_FENWICK`` (default): two sweeps per query in prediction order; a two-pointer
  margin window inserts each example's position in the utility order into a bit-packed
  Fenwick tree (``_fenwick.pxd``) and a rank query against the example's utility run
  gives c_i (d_i). The same O(log n) operations as the tree, but on 3n / 16 bytes that
  stay in cache instead of 8 n bytes of linked nodes: at m = 10^6 one loss and
  subgradient costs ~1.2 - 1.8x less than the tree's (benchmarks/bench_engines.py,
  docs/engines.rst).

Queries (and the two Fenwick sweeps of a query) are independent tasks; with
n_threads > 1 they run in parallel (OpenMP), one structure per thread. Everything runs
without the GIL and never reads out of bounds: ``RankingPairs`` builds and checks the
``PairIndex`` once, ``count_pairs`` checks the predictions.
"""

import numpy as np

from cython.parallel cimport parallel, prange, threadid
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset

from rlscore._ext._fenwick cimport (
    BitSet, bitset_clear, bitset_count_below, bitset_insert, bitset_words)
from rlscore._ext._ostree cimport (
    PACKED_MAX_CAPACITY, PackedTree, WideTree, ranktree_clear, ranktree_count_less,
    ranktree_free, ranktree_init, ranktree_insert, ranktree_insert_count2, tree_t)

cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__GNUC__) || defined(__clang__)
    #define RLS_PREFETCH(p) __builtin_prefetch((const void *) (p))
    #else
    #define RLS_PREFETCH(p) ((void) 0)
    #endif
    /* the cache line of p and the two lines on each side (a prefetch never faults) */
    #define RLS_PREFETCH_AROUND(p) do { \
        uintptr_t rls_a_ = (uintptr_t) (p); \
        RLS_PREFETCH(rls_a_ - 128); RLS_PREFETCH(rls_a_ - 64); RLS_PREFETCH(rls_a_); \
        RLS_PREFETCH(rls_a_ + 64); RLS_PREFETCH(rls_a_ + 128); } while (0)
    """
    void _prefetch "RLS_PREFETCH"(const void *p) noexcept nogil
    void _prefetch_around "RLS_PREFETCH_AROUND"(const void *p) noexcept nogil


cdef int check_finite(const double[::1] p) except -1:
    cdef Py_ssize_t i
    for i in range(p.shape[0]):
        if not isfinite(p[i]):
            raise ValueError("the predictions contain NaN or infinity")
    return 0


#: How many examples ahead ``gather_by_prediction`` prefetches (see there).
cdef enum:
    _GATHER_AHEAD = 16


cdef int gather_by_prediction(const PairIndex *ix, const double[::1] p, PredKey *keys,
                              Py_ssize_t *seg) except -1:
    """keys[k], seg[k]: the examples in prediction order, grouped by query (stable), so
    that query q occupies qstart[q] .. qstart[q + 1]. O(m log m) (one argsort).

    The reads of items[i] and p[i] in prediction order miss the cache; the slot they
    are written to, pos[q], depends on the previous write, so without help every miss
    waited for the one before it (a third of an evaluation at m = 10^6). Prefetching
    the example _GATHER_AHEAD places ahead overlaps them."""
    cdef Py_ssize_t m = ix.m, k, i, q, j
    cdef Py_ssize_t[::1] srt = np.argsort(np.asarray(p)).astype(np.intp, copy=False)
    cdef Py_ssize_t[::1] pos_v = np.array(
        <Py_ssize_t[:ix.n_queries]> <Py_ssize_t *> ix.qstart, dtype=np.intp)
    cdef Py_ssize_t *pos = &pos_v[0]
    cdef const PairItem *items = ix.items
    with nogil:
        for k in range(m):
            if k + _GATHER_AHEAD < m:
                j = srt[k + _GATHER_AHEAD]
                _prefetch(&items[j])
                _prefetch(&p[j])
            i = srt[k]
            q = items[i].q
            keys[pos[q]].p = p[i]
            keys[pos[q]].ypos = items[i].ypos
            keys[pos[q]].rstart = items[i].rstart
            keys[pos[q]].rend = items[i].rend
            seg[pos[q]] = i
            pos[q] += 1
    return 0


# ---------------------------------------------------------------------------------------
# the Fenwick engine: prediction order, positions in the utility order

cdef void _fenwick_lower(const PredKey *keys, Py_ssize_t a, Py_ssize_t b, BitSet *s,
                         int64_t *cs) noexcept nogil:
    # keys[a:b]: one query by ascending p. c = #{u : y_u > y_i, p_u < fl(p_i + 1)}
    cdef Py_ssize_t k, j = a
    cdef int64_t inserted = 0
    cdef double bound
    bitset_clear(s, b - a)
    for k in range(a, b):
        bound = keys[k].p + 1.0
        while j < b and keys[j].p < bound:
            bitset_insert(s, keys[j].ypos)
            inserted += 1
            j += 1
        cs[k] = inserted - bitset_count_below(s, keys[k].rend)


cdef void _fenwick_upper(const PredKey *keys, Py_ssize_t a, Py_ssize_t b, BitSet *s,
                         int64_t *ds) noexcept nogil:
    # d = #{l : y_l < y_i, fl(p_l + 1) > p_i}, visiting by descending p
    cdef Py_ssize_t k, j = b - 1
    bitset_clear(s, b - a)
    k = b - 1
    while k >= a:
        while j >= a and keys[j].p + 1.0 > keys[k].p:
            bitset_insert(s, keys[j].ypos)
            j -= 1
        ds[k] = bitset_count_below(s, keys[k].rstart)
        k -= 1


# ---------------------------------------------------------------------------------------
# the red-black-tree engine: utility order, the tree holds prediction ranks

cdef void _rbtree_query(const PredKey *keys, const Py_ssize_t *run_ptr, Py_ssize_t r0,
                        Py_ssize_t r1, Py_ssize_t a, Py_ssize_t b, tree_t *t,
                        RankBounds *bd, int64_t *cu, int64_t *du) noexcept nogil:
    # query with examples a .. b - 1 (both orders) and utility runs r0 .. r1 - 1;
    # cu, du, bd are indexed in utility order
    cdef Py_ssize_t n = b - a, k, j = a, jl = a, r, s, e
    cdef double pk, bound
    cdef int64_t below
    cdef RankBounds *slot
    # ranks and the two margin bounds as ranks (two pointers, p ascending), written to
    # the example's slot in utility order once
    for k in range(a, b):
        pk = keys[k].p
        bound = pk + 1.0
        while j < b and keys[j].p < bound:
            j += 1
        while jl < b and not (keys[jl].p + 1.0 > pk):
            jl += 1
        slot = &bd[a + keys[k].ypos]
        slot.rank = <int32_t> (k - a)
        slot.hi = <int32_t> (j - a)
        slot.lo = <int32_t> (jl - a)
    # sweep the runs by descending utility; the tree holds the higher utilities, and
    # d = #{all with rank >= lo} - #{utility >= y_i with rank >= lo}
    ranktree_clear(t)
    r = r1 - 1
    while r >= r0:
        s = run_ptr[r]
        e = run_ptr[r + 1]
        if e - s == 1:
            # a single example: inserting its rank (>= lo) does not change the count
            # below lo, so the insertion and both queries walk the tree in lockstep
            if s > a:
                # the last levels of the next example's three walks: in the in-order
                # pool the ancestors of key k within a few levels of the leaves lie a
                # few nodes from node k + 1, so five cache lines around it hold them
                _prefetch_around(&t.nodes[bd[s - 1].rank + 1])
                _prefetch_around(&t.nodes[bd[s - 1].hi])
                _prefetch_around(&t.nodes[bd[s - 1].lo + 1])
            ranktree_insert_count2(t, bd[s].rank, bd[s].hi, bd[s].lo, &cu[s], &below)
            du[s] = (n - bd[s].lo) - (t.size - below)
        else:
            for k in range(s, e):
                cu[k] = ranktree_count_less(t, bd[k].hi)
            for k in range(s, e):
                ranktree_insert(t, bd[k].rank)
            for k in range(s, e):
                du[k] = (n - bd[k].lo) - (t.size - ranktree_count_less(t, bd[k].lo))
        r -= 1


# ---------------------------------------------------------------------------------------
# the driver

cdef void _task(Py_ssize_t task, int engine, const PairIndex *ix, CountScratch *work,
                const PredKey *keys, RankBounds *bd, int64_t *c, int64_t *d) noexcept nogil:
    cdef Py_ssize_t q
    if engine == ENGINE_FENWICK:
        q = task >> 1           # task 2q: the c-sweep of query q, 2q + 1: its d-sweep
        if task & 1:
            _fenwick_upper(keys, ix.qstart[q], ix.qstart[q + 1], &work.bits, d)
        else:
            _fenwick_lower(keys, ix.qstart[q], ix.qstart[q + 1], &work.bits, c)
    elif work.ptree.nodes != NULL:
        q = task
        _rbtree_query(keys, ix.run_ptr, ix.qrun_ptr[q], ix.qrun_ptr[q + 1],
                      ix.qstart[q], ix.qstart[q + 1], &work.ptree, bd, c, d)
    else:
        q = task
        _rbtree_query(keys, ix.run_ptr, ix.qrun_ptr[q], ix.qrun_ptr[q + 1],
                      ix.qstart[q], ix.qstart[q + 1], &work.wtree, bd, c, d)


cdef void _scratch_free(CountWork *w) noexcept nogil:
    cdef Py_ssize_t i
    if w.scratch != NULL:
        for i in range(w.nt):
            ranktree_free(&w.scratch[i].ptree)
            ranktree_free(&w.scratch[i].wtree)
            free(w.scratch[i].bits.bits)
            free(w.scratch[i].bits.fen)
        free(w.scratch)
        w.scratch = NULL


cdef void work_free(CountWork *w) noexcept nogil:
    """Release a workspace (safe on a zeroed or partly allocated one)."""
    _scratch_free(w)
    free(w.keys)
    free(w.seg)
    free(w.bd)
    free(w.c)
    free(w.d)
    memset(w, 0, sizeof(CountWork))


cdef int work_reserve(CountWork *w, const PairIndex *ix, int engine,
                      int nt) except -1:
    """Make ``w`` hold the buffers of one evaluation of ``engine`` with ``nt`` threads
    on ``ix`` (kept when they already do: a workspace kept between evaluations saves
    allocating and page-faulting ~50 bytes per example each time). MemoryError when
    out of memory (``w`` is then freed)."""
    cdef Py_ssize_t m = ix.m, i
    cdef Py_ssize_t nwords = bitset_words(ix.max_query) + 1
    cdef bint fen = engine == ENGINE_FENWICK
    cdef int failed = 0
    if w.m != m or w.max_query != ix.max_query:
        work_free(w)
    if w.engine != engine or w.nt != nt:
        _scratch_free(w)
    w.m = m
    w.max_query = ix.max_query
    if w.keys == NULL:
        w.keys = <PredKey *> malloc(m * sizeof(PredKey))
        w.seg = <Py_ssize_t *> malloc(m * sizeof(Py_ssize_t))
        w.c = <int64_t *> malloc(m * sizeof(int64_t))
        w.d = <int64_t *> malloc(m * sizeof(int64_t))
    if not fen and w.bd == NULL:
        w.bd = <RankBounds *> malloc(m * sizeof(RankBounds))
        failed = w.bd == NULL
    if w.scratch == NULL:
        w.engine = engine
        w.nt = nt
        w.scratch = <CountScratch *> calloc(nt, sizeof(CountScratch))
        if w.scratch != NULL:
            for i in range(nt):
                if fen:
                    w.scratch[i].bits.bits = <uint64_t *> malloc(nwords * sizeof(uint64_t))
                    w.scratch[i].bits.fen = <int32_t *> malloc((nwords + 1) *
                                                               sizeof(int32_t))
                    if w.scratch[i].bits.bits == NULL or w.scratch[i].bits.fen == NULL:
                        failed = 1
                elif engine == ENGINE_RBTREE and ix.max_query <= PACKED_MAX_CAPACITY:
                    failed |= ranktree_init(&w.scratch[i].ptree, ix.max_query) != 0
                else:
                    failed |= ranktree_init(&w.scratch[i].wtree, ix.max_query) != 0
    if failed or w.keys == NULL or w.seg == NULL or w.c == NULL or w.d == NULL or \
            w.scratch == NULL:
        work_free(w)
        raise MemoryError("cannot allocate the counting structures")
    return 0


cdef int count_pairs(const PairIndex *ix, const double[::1] p, int engine, int n_threads,
                     int64_t *cc, int64_t *dd, const double *weights, double *coef,
                     double *loss, CountWork *keep=NULL) except -1:
    """c and d into cc, dd (example order, both may be NULL); with coef != NULL also the
    weighted loss (into *loss) and coef[i] = weights[q(i)] (c_i - d_i). ``keep``: a
    workspace reused between calls (see :func:`work_reserve`; one caller at a time),
    or NULL for buffers of this call only.

    O(m log m) time, O(m) memory plus one counting structure per thread.
    """
    cdef Py_ssize_t m = ix.m, nq = ix.n_queries
    cdef Py_ssize_t ntasks = 2 * nq if engine == ENGINE_FENWICK else nq
    cdef Py_ssize_t task, q, i, k, lo, hi
    cdef int tid, nt
    cdef CountWork local
    cdef CountWork *w = keep
    cdef CountScratch *work
    cdef PredKey *keys
    cdef RankBounds *bd
    cdef int64_t *c
    cdef int64_t *d
    cdef const Py_ssize_t *idx      # slot k -> example
    cdef double total = 0.0, part, wq, pk
    cdef int64_t diff
    cdef bint fen = engine == ENGINE_FENWICK
    check_finite(p)
    nt = n_threads
    if nt < 1:
        nt = 1
    if nt > ntasks:
        nt = <int> ntasks
    if w == NULL:
        memset(&local, 0, sizeof(CountWork))
        w = &local
    try:
        work_reserve(w, ix, engine, nt)
        work = w.scratch
        keys = w.keys
        bd = w.bd
        c = w.c
        d = w.d
        gather_by_prediction(ix, p, keys, w.seg)
        if nt == 1:
            with nogil:
                for task in range(ntasks):
                    _task(task, engine, ix, &work[0], keys, bd, c, d)
        else:
            with nogil, parallel(num_threads=nt):
                tid = threadid()
                for task in prange(ntasks, schedule="dynamic", chunksize=1):
                    _task(task, engine, ix, &work[tid], keys, bd, c, d)
        # c, d are in prediction order (Fenwick) or utility order (tree)
        idx = w.seg if fen else ix.order
        with nogil:
            if cc != NULL:
                for k in range(m):
                    cc[idx[k]] = c[k]
                    dd[idx[k]] = d[k]
            if coef != NULL:
                for q in range(nq):
                    wq = weights[q]
                    part = 0.0
                    lo = ix.qstart[q]
                    hi = ix.qstart[q + 1]
                    for k in range(lo, hi):
                        i = idx[k]
                        pk = keys[k].p if fen else p[i]
                        diff = c[k] - d[k]
                        part += c[k] + diff * pk
                        coef[i] = wq * diff
                    total += wq * part
        if loss != NULL:
            loss[0] = total
    finally:
        if w == &local:
            work_free(w)
    return 0
