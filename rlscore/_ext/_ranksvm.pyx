# cython: language_level=3
"""Linear RankSVM kernels: an order-statistic red-black tree, the O(m log m) pass that
counts the margin-violating pairs of every example, explicit preference pairs, and the
small simplex QP of the bundle method.

Counting (Airola, Pahikkala & Salakoski 2011, thesis eqs. 4.10-4.13). For predictions
p and utilities y (pairs only inside a query, label ties are not pairs), a pair
(u, l) with y_u > y_l is *active* when its hinge 1 - p_u + p_l is positive. For every
example i

    c_i = #{u : y_u > y_i, active(u, i)}   (i is the lower item of an active pair)
    d_i = #{l : y_l < y_i, active(i, l)}   (i is the upper item of an active pair)

and then the pairwise hinge loss is sum_i c_i (1 + p_i) - d_i p_i and a subgradient
with respect to w (p = X w) is X^T (c - d). Every engine evaluates the same
floating-point predicate, active(u, l) <=> p_u < fl(p_l + 1), so sum(c) == sum(d)
exactly and the loss formula is consistent; a pair exactly at margin 1 is inactive (its
hinge is 0).

Two engines (:class:`RankingPairs`), both O(m log m) per evaluation with no dependence
on the number of distinct utilities:

* ``"rbtree"``, the method of the paper: the examples are sorted once by (query,
  utility); per evaluation a c-sweep over the runs of equal utility, descending, asks an
  order-statistic red-black tree keyed by the predictions for the number of stored
  p_u < p_i + 1 and then stores the run's p; a d-sweep, ascending, stores p_l + 1 and
  asks for the number of stored values > p_i.
* ``"fenwick"`` (default): the predictions are sorted; a two-pointer window in
  prediction order inserts each example's position in the utility order into a
  bit-packed Fenwick tree, and rank queries against the example's utility run give c_i
  and d_i. The same operations on an array of m / 8 bytes that stays in cache, instead
  of 32 m bytes of pointer-linked nodes: about 15 times faster at m = 10^6.

The two sweeps of a query, and different queries, can run in parallel (OpenMP), one
structure per thread.

Everything here runs without the GIL and never reads out of bounds: the ``def``
entry points and the classes validate their arguments once.
"""

import numpy as np

cimport cython
from cython.parallel cimport parallel, prange, threadid
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t, INT32_MAX
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset
from scipy.linalg.cython_lapack cimport dsysv, dsytrs

# ---------------------------------------------------------------------------------------
# order-statistic red-black tree (CLRS ch. 13-14, with left-subtree sizes)


cdef int ostree_init(OSTree *t, Py_ssize_t capacity, bint with_sums) noexcept nogil:
    if capacity < 1:
        capacity = 1
    if capacity > INT32_MAX - 2:
        capacity = INT32_MAX - 2
    t.nodes = NULL
    t.own = NULL
    t.ssum = NULL
    t.root = 0
    t.n_nodes = 0
    t.capacity = 0
    t.total = 0
    t.total_sum = 0.0
    t.nodes = <OSNode *> calloc(capacity + 1, sizeof(OSNode))
    if t.nodes == NULL:
        return -1
    if with_sums:
        t.own = <double *> calloc(capacity + 1, sizeof(double))
        t.ssum = <double *> calloc(capacity + 1, sizeof(double))
        if t.own == NULL or t.ssum == NULL:
            ostree_free(t)
            return -1
    t.capacity = <int32_t> capacity
    return 0


cdef void ostree_free(OSTree *t) noexcept nogil:
    free(t.nodes)
    free(t.own)
    free(t.ssum)
    t.nodes = NULL
    t.own = NULL
    t.ssum = NULL
    t.root = 0
    t.n_nodes = 0
    t.capacity = 0
    t.total = 0
    t.total_sum = 0.0


cdef void ostree_clear(OSTree *t) noexcept nogil:
    t.root = 0
    t.n_nodes = 0
    t.total = 0
    t.total_sum = 0.0


cdef int _grow(OSTree *t) noexcept nogil:
    cdef int64_t cap = <int64_t> t.capacity * 2 + 16
    cdef OSNode *nodes
    cdef double *own
    cdef double *ssum
    if cap > INT32_MAX - 2:
        cap = INT32_MAX - 2
    if cap <= t.capacity:
        return -1
    nodes = <OSNode *> realloc(t.nodes, (cap + 1) * sizeof(OSNode))
    if nodes == NULL:
        return -1
    t.nodes = nodes
    if t.own != NULL:
        own = <double *> realloc(t.own, (cap + 1) * sizeof(double))
        if own == NULL:
            return -1
        t.own = own
        ssum = <double *> realloc(t.ssum, (cap + 1) * sizeof(double))
        if ssum == NULL:
            return -1
        t.ssum = ssum
    t.capacity = <int32_t> cap
    return 0


cdef inline void _rotate_left(OSTree *t, int32_t x) noexcept nogil:
    cdef OSNode *n = t.nodes
    cdef int32_t y = n[x].right
    cdef int32_t xp = n[x].parent
    n[x].right = n[y].left
    if n[y].left != 0:
        n[n[y].left].parent = x
    n[y].parent = xp
    if xp == 0:
        t.root = y
    elif x == n[xp].left:
        n[xp].left = y
    else:
        n[xp].right = y
    n[y].left = x
    n[x].parent = y
    # y's left subtree is now x with x's left subtree
    n[y].lsize += n[x].lsize + n[x].count
    if t.ssum != NULL:
        t.ssum[y] = t.ssum[x]
        t.ssum[x] = t.ssum[n[x].left] + t.ssum[n[x].right] + t.own[x]


cdef inline void _rotate_right(OSTree *t, int32_t x) noexcept nogil:
    cdef OSNode *n = t.nodes
    cdef int32_t y = n[x].left
    cdef int32_t xp = n[x].parent
    # x's left subtree loses y and y's left subtree (integers: exact)
    n[x].lsize -= n[y].lsize + n[y].count
    n[x].left = n[y].right
    if n[y].right != 0:
        n[n[y].right].parent = x
    n[y].parent = xp
    if xp == 0:
        t.root = y
    elif x == n[xp].right:
        n[xp].right = y
    else:
        n[xp].left = y
    n[y].right = x
    n[x].parent = y
    if t.ssum != NULL:
        t.ssum[y] = t.ssum[x]
        t.ssum[x] = t.ssum[n[x].left] + t.ssum[n[x].right] + t.own[x]


cdef int ostree_insert(OSTree *t, double key, int32_t count, double value) noexcept nogil:
    cdef OSNode *n
    cdef int32_t x, xp, z, zp, zpp, u
    cdef bint sums = t.ssum != NULL
    if count < 1:
        return -3
    if t.total + count >= INT32_MAX:
        return -2
    if t.n_nodes >= t.capacity:
        if _grow(t) != 0:
            return -1
    n = t.nodes
    t.total += count
    if sums:
        t.total_sum += value
    x = t.root
    xp = 0
    while x != 0:
        if sums:
            t.ssum[x] += value
        if key == n[x].key:
            n[x].count += count
            if sums:
                t.own[x] += value
            return 0
        xp = x
        if key < n[x].key:
            n[x].lsize += count
            x = n[x].left
        else:
            x = n[x].right
    t.n_nodes += 1
    z = t.n_nodes
    n[z].key = key
    n[z].lsize = 0
    n[z].count = count
    n[z].left = 0
    n[z].right = 0
    n[z].parent = xp
    n[z].red = 1
    if sums:
        t.own[z] = value
        t.ssum[z] = value
    if xp == 0:
        t.root = z
    elif key < n[xp].key:
        n[xp].left = z
    else:
        n[xp].right = z
    # CLRS RB-INSERT-FIXUP
    while n[n[z].parent].red:
        zp = n[z].parent
        zpp = n[zp].parent
        if zp == n[zpp].left:
            u = n[zpp].right
            if n[u].red:
                n[zp].red = 0
                n[u].red = 0
                n[zpp].red = 1
                z = zpp
            else:
                if z == n[zp].right:
                    z = zp
                    _rotate_left(t, z)
                    zp = n[z].parent
                    zpp = n[zp].parent
                n[zp].red = 0
                n[zpp].red = 1
                _rotate_right(t, zpp)
        else:
            u = n[zpp].left
            if n[u].red:
                n[zp].red = 0
                n[u].red = 0
                n[zpp].red = 1
                z = zpp
            else:
                if z == n[zp].left:
                    z = zp
                    _rotate_right(t, z)
                    zp = n[z].parent
                    zpp = n[zp].parent
                n[zp].red = 0
                n[zpp].red = 1
                _rotate_left(t, zpp)
    n[t.root].red = 0
    return 0


cdef int64_t ostree_count_less(const OSTree *t, double bound) noexcept nogil:
    cdef const OSNode *n = t.nodes
    cdef int32_t x = t.root
    cdef int64_t r = 0
    while x != 0:
        if n[x].key < bound:
            r += n[x].lsize + n[x].count
            x = n[x].right
        else:
            x = n[x].left
    return r


cdef int64_t ostree_count_leq(const OSTree *t, double bound) noexcept nogil:
    cdef const OSNode *n = t.nodes
    cdef int32_t x = t.root
    cdef int64_t r = 0
    while x != 0:
        if n[x].key <= bound:
            r += n[x].lsize + n[x].count
            x = n[x].right
        else:
            x = n[x].left
    return r


cdef int64_t ostree_count_less_sum(const OSTree *t, double bound,
                                   double *sum_out) noexcept nogil:
    cdef const OSNode *n = t.nodes
    cdef int32_t x = t.root
    cdef int64_t r = 0
    cdef double s = 0.0
    if t.ssum == NULL:
        return ostree_count_less(t, bound)
    while x != 0:
        if n[x].key < bound:
            r += n[x].lsize + n[x].count
            s += t.ssum[n[x].left] + t.own[x]
            x = n[x].right
        else:
            x = n[x].left
    sum_out[0] += s
    return r


cdef int64_t ostree_count_leq_sum(const OSTree *t, double bound,
                                  double *sum_out) noexcept nogil:
    cdef const OSNode *n = t.nodes
    cdef int32_t x = t.root
    cdef int64_t r = 0
    cdef double s = 0.0
    if t.ssum == NULL:
        return ostree_count_leq(t, bound)
    while x != 0:
        if n[x].key <= bound:
            r += n[x].lsize + n[x].count
            s += t.ssum[n[x].left] + t.own[x]
            x = n[x].right
        else:
            x = n[x].left
    sum_out[0] += s
    return r


cdef double ostree_select(const OSTree *t, int64_t k) noexcept nogil:
    cdef const OSNode *n = t.nodes
    cdef int32_t x = t.root
    while x != 0:
        if k < n[x].lsize:
            x = n[x].left
        elif k < n[x].lsize + n[x].count:
            return n[x].key
        else:
            k -= n[x].lsize + n[x].count
            x = n[x].right
    return 0.0


cdef class OrderStatisticTree:
    """An order-statistic red-black tree of real keys with duplicates.

    Python face of the C tree used by the RankSVM counting pass (mainly for tests and
    experiments; the sweeps use the C functions directly).

    Parameters
    ----------
    capacity : int, default 16
        Distinct keys to allocate for; the arrays grow (doubling) when it is exceeded.
    with_sums : bool, default False
        Also keep the sum of a value attached to every inserted element, so that rank
        queries can return the sum of the values of the counted elements.

    Notes
    -----
    ``insert``, ``count_less``, ``count_leq``, ``count_greater``, ``count_geq`` and
    ``select`` cost O(log n) for n distinct keys (the red-black height is at most
    2 log2(n + 1)); ``clear`` is O(1). Memory: 32 bytes per distinct key (+16 with
    sums). Elements are never deleted (the counting sweeps only insert).
    """

    cdef OSTree tree

    def __cinit__(self, Py_ssize_t capacity=16, bint with_sums=False):
        if capacity < 1 or capacity > INT32_MAX - 2:
            raise ValueError(f"capacity must be in 1 .. {INT32_MAX - 2}, got {capacity}")
        if ostree_init(&self.tree, capacity, with_sums) != 0:
            raise MemoryError("cannot allocate the order-statistic tree")

    def __dealloc__(self):
        ostree_free(&self.tree)

    def __len__(self):
        return self.tree.total

    @property
    def n_nodes(self):
        """Number of distinct keys stored."""
        return self.tree.n_nodes

    @property
    def with_sums(self):
        return self.tree.ssum != NULL

    @property
    def total_sum(self):
        """Sum of all the values inserted (with_sums only, else 0)."""
        return self.tree.total_sum

    def clear(self):
        """Remove every element, keeping the memory. O(1)."""
        ostree_clear(&self.tree)

    def insert(self, double key, count=1, double value=0.0):
        """Insert ``count`` copies of ``key``, carrying the total ``value``. O(log n)."""
        cdef int32_t c
        cdef int status
        if key != key:
            raise ValueError("key must not be NaN")
        if count < 1 or count >= INT32_MAX:
            raise ValueError(f"count must be a positive int32, got {count}")
        c = <int32_t> count
        status = ostree_insert(&self.tree, key, c, value)
        if status == -1:
            raise MemoryError("cannot grow the order-statistic tree")
        if status == -2:
            raise OverflowError("the tree holds at most 2**31 - 1 elements")

    def _check_bound(self, double bound):
        if bound != bound:
            raise ValueError("bound must not be NaN")

    def count_less(self, double bound):
        """Number of elements with key < bound (and, with sums, their value sum)."""
        cdef double s = 0.0
        self._check_bound(bound)
        if self.tree.ssum != NULL:
            return ostree_count_less_sum(&self.tree, bound, &s), s
        return ostree_count_less(&self.tree, bound)

    def count_leq(self, double bound):
        """Number of elements with key <= bound (and, with sums, their value sum)."""
        cdef double s = 0.0
        self._check_bound(bound)
        if self.tree.ssum != NULL:
            return ostree_count_leq_sum(&self.tree, bound, &s), s
        return ostree_count_leq(&self.tree, bound)

    def count_greater(self, double bound):
        """Number of elements with key > bound."""
        self._check_bound(bound)
        return self.tree.total - ostree_count_leq(&self.tree, bound)

    def count_geq(self, double bound):
        """Number of elements with key >= bound."""
        self._check_bound(bound)
        return self.tree.total - ostree_count_less(&self.tree, bound)

    def select(self, k):
        """The k-th smallest element (0-based, duplicates counted). IndexError if out
        of range."""
        if k < 0 or k >= self.tree.total:
            raise IndexError(f"k = {k} is outside 0 .. {self.tree.total - 1}")
        return ostree_select(&self.tree, <int64_t> k)

    def _arrays(self):
        """The node arrays (for invariant checks): key, lsize, count, left, right,
        parent, red, own, ssum (the last two None without sums), and the root."""
        cdef Py_ssize_t n = self.tree.n_nodes + 1
        cdef Py_ssize_t i
        key = np.empty(n)
        cols = np.empty((n, 6), dtype=np.int64)
        for i in range(n):
            key[i] = self.tree.nodes[i].key
            cols[i, 0] = self.tree.nodes[i].lsize
            cols[i, 1] = self.tree.nodes[i].count
            cols[i, 2] = self.tree.nodes[i].left
            cols[i, 3] = self.tree.nodes[i].right
            cols[i, 4] = self.tree.nodes[i].parent
            cols[i, 5] = self.tree.nodes[i].red
        own = ssum = None
        if self.tree.ssum != NULL:
            own = np.array([self.tree.own[i] for i in range(n)])
            ssum = np.array([self.tree.ssum[i] for i in range(n)])
        return dict(key=key, lsize=cols[:, 0], count=cols[:, 1], left=cols[:, 2],
                    right=cols[:, 3], parent=cols[:, 4], red=cols[:, 5], own=own,
                    ssum=ssum, root=self.tree.root)


# ---------------------------------------------------------------------------------------
# the counting pass


cdef void _sweep_lower(OSTree *t, const double *p, const Py_ssize_t *order,
                       const Py_ssize_t *run_ptr, Py_ssize_t r0, Py_ssize_t r1,
                       int64_t *c) noexcept nogil:
    # runs r0 .. r1-1 of one query, utilities ascending; visit them descending
    cdef Py_ssize_t r, k, a, b
    ostree_clear(t)
    r = r1 - 1
    while r >= r0:
        a = run_ptr[r]
        b = run_ptr[r + 1]
        if t.total == 0:
            for k in range(a, b):
                c[order[k]] = 0
        else:
            for k in range(a, b):
                c[order[k]] = ostree_count_less(t, p[order[k]] + 1.0)
        if r > r0:
            for k in range(a, b):
                ostree_insert(t, p[order[k]], 1, 0.0)
        r -= 1


cdef void _sweep_upper(OSTree *t, const double *p, const Py_ssize_t *order,
                       const Py_ssize_t *run_ptr, Py_ssize_t r0, Py_ssize_t r1,
                       int64_t *d) noexcept nogil:
    cdef Py_ssize_t r, k, a, b
    ostree_clear(t)
    for r in range(r0, r1):
        a = run_ptr[r]
        b = run_ptr[r + 1]
        if t.total == 0:
            for k in range(a, b):
                d[order[k]] = 0
        else:
            for k in range(a, b):
                d[order[k]] = t.total - ostree_count_leq(t, p[order[k]])
        if r < r1 - 1:
            for k in range(a, b):
                ostree_insert(t, p[order[k]] + 1.0, 1, 0.0)


# Fenwick engine. The examples of a query are visited in prediction order and the
# order-statistic structure holds positions in the query's (utility) order: every example
# has a distinct position, its utility run [rstart, rend) tells which positions hold
# higher / lower utilities. The structure is a bitmap of the positions plus a Fenwick
# tree over 64-bit words: insert and prefix count are O(log(n / 64)) with n / 8 + n / 16
# bytes of memory, small enough to stay in cache (150 kB per million examples).

ctypedef struct _Item:          # per example: fixed by the utilities
    int32_t ypos                # position in the query's utility order
    int32_t rstart              # start of its run of equal utilities
    int32_t rend                # end of the run (exclusive)
    int32_t q                   # query code

ctypedef struct _Key:           # per example in prediction order (per evaluation)
    double p
    int32_t ypos
    int32_t rstart
    int32_t rend
    int32_t pad


cdef inline int64_t _popcount(uint64_t x) noexcept nogil:
    x = x - ((x >> 1) & 0x5555555555555555ULL)
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL
    return <int64_t> ((x * 0x0101010101010101ULL) >> 56)


cdef inline void _bits_insert(uint64_t *bits, int32_t *fen, Py_ssize_t nw,
                              Py_ssize_t pos) noexcept nogil:
    cdef Py_ssize_t i = (pos >> 6) + 1
    bits[pos >> 6] |= (<uint64_t> 1) << (pos & 63)
    while i <= nw:
        fen[i] += 1
        i += i & (-i)


cdef inline int64_t _bits_prefix(const uint64_t *bits, const int32_t *fen,
                                 Py_ssize_t pos) noexcept nogil:
    # number of inserted positions < pos
    cdef Py_ssize_t i = pos >> 6
    cdef int64_t s = _popcount(bits[i] & (((<uint64_t> 1) << (pos & 63)) - 1))
    while i > 0:
        s += fen[i]
        i -= i & (-i)
    return s


cdef void _bits_lower(const _Key *keys, Py_ssize_t a, Py_ssize_t b, uint64_t *bits,
                      int32_t *fen, int64_t *cs) noexcept nogil:
    # keys[a:b]: one query by ascending p. c = #{u : y_u > y_i, p_u < fl(p_i + 1)}
    cdef Py_ssize_t nw = ((b - a) >> 6) + 1
    cdef Py_ssize_t k, j = a
    cdef int64_t inserted = 0
    cdef double bound
    memset(bits, 0, nw * sizeof(uint64_t))
    memset(fen, 0, (nw + 1) * sizeof(int32_t))
    for k in range(a, b):
        bound = keys[k].p + 1.0
        while j < b and keys[j].p < bound:
            _bits_insert(bits, fen, nw, keys[j].ypos)
            inserted += 1
            j += 1
        cs[k] = inserted - _bits_prefix(bits, fen, keys[k].rend)


cdef void _bits_upper(const _Key *keys, Py_ssize_t a, Py_ssize_t b, uint64_t *bits,
                      int32_t *fen, int64_t *ds) noexcept nogil:
    # d = #{l : y_l < y_i, fl(p_l + 1) > p_i}, visiting by descending p
    cdef Py_ssize_t nw = ((b - a) >> 6) + 1
    cdef Py_ssize_t k, j = b - 1
    memset(bits, 0, nw * sizeof(uint64_t))
    memset(fen, 0, (nw + 1) * sizeof(int32_t))
    k = b - 1
    while k >= a:
        while j >= a and keys[j].p + 1.0 > keys[k].p:
            _bits_insert(bits, fen, nw, keys[j].ypos)
            j -= 1
        ds[k] = _bits_prefix(bits, fen, keys[k].rstart)
        k -= 1


# per-thread scratch, 128 bytes apart so that threads never share a cache line
ctypedef struct _Scratch:
    OSTree tree
    uint64_t *bits
    int32_t *fen
    char pad[128]


cdef enum:
    ENGINE_RBTREE = 0
    ENGINE_FENWICK = 1

ENGINES = {"rbtree": ENGINE_RBTREE, "fenwick": ENGINE_FENWICK}


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
    Construction sorts by (query, utility): O(m log m) once. Two counting engines give
    identical counts:

    * ``"rbtree"`` (the method of the paper): two sweeps over the runs of equal
      utility (descending for c, ascending for d) with an order-statistic red-black
      tree keyed by the real predictions; m inserts and m rank queries per sweep, no
      sort of the predictions;
    * ``"fenwick"`` (default): the predictions are sorted once per evaluation
      (O(m log m)); two sweeps in prediction order with a two-pointer margin window
      insert the examples' positions in the utility order into a bit-packed Fenwick
      tree. The same O(log m) operations, but on n / 8 bytes instead of 32 n bytes of
      pointer-linked nodes: the structure stays in cache and there is no pointer
      chasing, which makes it an order of magnitude faster at m = 10^6.

    Every evaluation costs O(m log m) time and O(max query size) memory per thread.
    With n_threads > 1 the two sweeps of a query, and different queries, run in
    parallel (OpenMP).
    """

    cdef readonly Py_ssize_t m, n_queries, n_runs, max_query
    cdef readonly int64_t n_pairs
    cdef Py_ssize_t[::1] _order, _run_ptr, _qrun_ptr, _qcodes, _qstart
    cdef int32_t[:, ::1] _items
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

    def _check_p(self, p):
        p = np.ascontiguousarray(p, dtype=np.float64)
        if p.shape != (self.m,):
            raise ValueError(f"p must have shape ({self.m},), got {p.shape}")
        return p

    @staticmethod
    def _engine(engine):
        try:
            return ENGINES[engine]
        except (KeyError, TypeError):
            raise ValueError(f"engine must be one of {sorted(ENGINES)}, got "
                             f"{engine!r}") from None

    cdef int _count(self, const double[::1] p, int64_t *cc, int64_t *dd,
                    int n_threads, int engine, const double *weights, double *coef,
                    double *loss) except -1:
        # c, d into cc, dd (example order); with coef != NULL also the weighted loss
        # (into *loss) and coef[i] = weights[q(i)] (c_i - d_i). The Fenwick engine then
        # needs no cc, dd (NULL allowed) and works in prediction order throughout.
        cdef Py_ssize_t m = self.m, nq = self.n_queries
        cdef Py_ssize_t ntasks = 2 * nq
        cdef Py_ssize_t task, q, i, k
        cdef Py_ssize_t nwords = (self.max_query >> 6) + 2
        cdef int tid, nt, failed = 0
        cdef _Scratch *work = NULL
        cdef _Key *keys = NULL
        cdef Py_ssize_t *seg = NULL
        cdef int64_t *cs = NULL
        cdef int64_t *ds = NULL
        cdef Py_ssize_t[::1] pos_v, sorted_v
        cdef Py_ssize_t *pos
        cdef const Py_ssize_t *srt
        cdef const _Item *items = <const _Item *> &self._items[0, 0]
        cdef const Py_ssize_t *order = &self._order[0]
        cdef const Py_ssize_t *run_ptr = &self._run_ptr[0]
        cdef const Py_ssize_t *qrun = &self._qrun_ptr[0]
        cdef const Py_ssize_t *qstart = &self._qstart[0]
        cdef const double *pp = &p[0]
        cdef double total = 0.0, part, wq
        cdef int64_t diff
        for i in range(m):
            if not isfinite(pp[i]):
                raise ValueError("the predictions contain NaN or infinity")
        nt = n_threads
        if nt < 1:
            nt = 1
        if nt > ntasks:
            nt = <int> ntasks
        try:
            if engine == ENGINE_FENWICK:
                sorted_v = np.argsort(np.asarray(p)).astype(np.intp, copy=False)
                pos_v = np.array(self._qstart[:nq], dtype=np.intp)
                srt = &sorted_v[0]
                pos = &pos_v[0]
                keys = <_Key *> malloc(m * sizeof(_Key))
                seg = <Py_ssize_t *> malloc(m * sizeof(Py_ssize_t))
                cs = <int64_t *> malloc(m * sizeof(int64_t))
                ds = <int64_t *> malloc(m * sizeof(int64_t))
                if keys == NULL or seg == NULL or cs == NULL or ds == NULL:
                    raise MemoryError()
                with nogil:
                    # prediction order, grouped by query (stable), gathered once
                    for k in range(m):
                        i = srt[k]
                        q = items[i].q
                        keys[pos[q]].p = pp[i]
                        keys[pos[q]].ypos = items[i].ypos
                        keys[pos[q]].rstart = items[i].rstart
                        keys[pos[q]].rend = items[i].rend
                        seg[pos[q]] = i
                        pos[q] += 1
            work = <_Scratch *> calloc(nt, sizeof(_Scratch))
            if work == NULL:
                raise MemoryError()
            for i in range(nt):
                if engine == ENGINE_FENWICK:
                    work[i].bits = <uint64_t *> malloc(nwords * sizeof(uint64_t))
                    work[i].fen = <int32_t *> malloc((nwords + 1) * sizeof(int32_t))
                    if work[i].bits == NULL or work[i].fen == NULL:
                        failed = 1
                elif ostree_init(&work[i].tree, self.max_query, False) != 0:
                    failed = 1
            if failed:
                raise MemoryError("cannot allocate the counting structures")
            if nt == 1:
                with nogil:
                    for task in range(ntasks):
                        _count_task(task, engine, &work[0], pp, order, run_ptr, qrun,
                                    qstart, keys, cs, ds, cc, dd)
            else:
                with nogil, parallel(num_threads=nt):
                    tid = threadid()
                    for task in prange(ntasks, schedule="dynamic", chunksize=1):
                        _count_task(task, engine, &work[tid], pp, order, run_ptr, qrun,
                                    qstart, keys, cs, ds, cc, dd)
            if engine == ENGINE_FENWICK:
                with nogil:
                    if cc != NULL:
                        for k in range(m):
                            cc[seg[k]] = cs[k]
                            dd[seg[k]] = ds[k]
                    if coef != NULL:
                        for q in range(nq):
                            wq = weights[q]
                            part = 0.0
                            for k in range(qstart[q], qstart[q + 1]):
                                diff = cs[k] - ds[k]
                                part += cs[k] + diff * keys[k].p
                                coef[seg[k]] = wq * diff
                            total += wq * part
            elif coef != NULL:
                with nogil:
                    for q in range(nq):
                        wq = weights[q]
                        part = 0.0
                        for k in range(run_ptr[qrun[q]], run_ptr[qrun[q + 1]]):
                            i = order[k]
                            diff = cc[i] - dd[i]
                            part += cc[i] + diff * pp[i]
                            coef[i] = wq * diff
                        total += wq * part
            if loss != NULL:
                loss[0] = total
        finally:
            if work != NULL:
                for i in range(nt):
                    ostree_free(&work[i].tree)
                    free(work[i].bits)
                    free(work[i].fen)
                free(work)
            free(keys)
            free(seg)
            free(cs)
            free(ds)
        return 0

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
        self._count(pv, &cv[0], &dv[0], n_threads, eng, NULL, NULL, NULL)
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
        cdef int64_t[::1] c, d
        cdef double total = 0.0
        if w.shape[0] != self.n_queries:
            raise ValueError(f"weights must have shape ({self.n_queries},)")
        if out.shape[0] != self.m:
            raise ValueError(f"coef must have shape ({self.m},)")
        if eng == ENGINE_FENWICK:
            self._count(pv, NULL, NULL, n_threads, eng, &w[0], &out[0], &total)
        else:
            c = np.empty(self.m, dtype=np.int64)
            d = np.empty(self.m, dtype=np.int64)
            self._count(pv, &c[0], &d[0], n_threads, eng, &w[0], &out[0], &total)
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
        by the position in the utility order. A pair is active when
        p_u < fl(p_l + 1), as for the hinge.
        """
        return _sq_evaluate(self, self._check_p(p), weights, coef, n_threads)

cdef void _count_task(Py_ssize_t task, int engine, _Scratch *work, const double *pp,
                      const Py_ssize_t *order, const Py_ssize_t *run_ptr,
                      const Py_ssize_t *qrun, const Py_ssize_t *qstart, const _Key *keys,
                      int64_t *cs, int64_t *ds, int64_t *cc, int64_t *dd) noexcept nogil:
    # task 2q: the c-sweep of query q, task 2q + 1: its d-sweep
    cdef Py_ssize_t q = task >> 1
    if engine == ENGINE_FENWICK:
        if task & 1:
            _bits_upper(keys, qstart[q], qstart[q + 1], work.bits, work.fen, ds)
        else:
            _bits_lower(keys, qstart[q], qstart[q + 1], work.bits, work.fen, cs)
    elif task & 1:
        _sweep_upper(&work.tree, pp, order, run_ptr, qrun[q], qrun[q + 1], dd)
    else:
        _sweep_lower(&work.tree, pp, order, run_ptr, qrun[q], qrun[q + 1], cc)


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


# ---------------------------------------------------------------------------------------
# simplex QP of the bundle method


@cython.cdivision(True)
def simplex_qp(const double[:, ::1] Q, const double[::1] b, double[::1] alpha,
               double tol, Py_ssize_t max_iter):
    """Minimize 1/2 a^T Q a - b^T a over the simplex {a >= 0, sum a = 1}.

    Sequential minimal optimization with the second-order working-set selection of
    Fan, Chen & Lin (2005), warm-started from ``alpha`` (feasible on entry, updated in
    place). Stops when the KKT violation max{g_i : a_i > 0} - min g is <= tol, which
    bounds the suboptimality of the objective by tol.

    Returns (iterations, violation). O(t) per iteration, O(t^2) to start.
    """
    cdef Py_ssize_t t = b.shape[0]
    cdef Py_ssize_t i, j, k, it = 0
    cdef double gmax, gmin, curv, gain, best, delta, diff, tau = 1e-12
    cdef double scale
    if Q.shape[0] != t or Q.shape[1] != t or alpha.shape[0] != t:
        raise ValueError("Q, b and alpha sizes differ")
    if t == 0:
        raise ValueError("empty QP")
    g = np.empty(t)
    cdef double[::1] gv = g
    with nogil:
        scale = 0.0
        for i in range(t):
            if Q[i, i] > scale:
                scale = Q[i, i]
        tau = 1e-15 * scale + 1e-300
        for i in range(t):
            gv[i] = -b[i]
            for k in range(t):
                gv[i] += Q[i, k] * alpha[k]
        while True:
            # i: largest gradient among the support; gmin: smallest gradient overall
            i = -1
            gmax = 0.0
            gmin = gv[0]
            for k in range(t):
                if alpha[k] > 0.0 and (i < 0 or gv[k] > gmax):
                    i = k
                    gmax = gv[k]
                if gv[k] < gmin:
                    gmin = gv[k]
            if i < 0 or gmax - gmin <= tol or it >= max_iter:
                break
            # j: the partner with the best second-order decrease
            j = -1
            best = 0.0
            for k in range(t):
                diff = gmax - gv[k]
                if diff > 0.0:
                    curv = Q[i, i] + Q[k, k] - 2.0 * Q[i, k]
                    if curv < tau:
                        curv = tau
                    gain = diff * diff / curv
                    if gain > best:
                        best = gain
                        j = k
            if j < 0:
                break
            diff = gmax - gv[j]
            curv = Q[i, i] + Q[j, j] - 2.0 * Q[i, j]
            if curv <= tau:
                delta = alpha[i]
            else:
                delta = diff / curv
                if delta > alpha[i]:
                    delta = alpha[i]
            alpha[i] -= delta
            alpha[j] += delta
            if alpha[i] < 1e-300:
                alpha[i] = 0.0
            for k in range(t):
                gv[k] += delta * (Q[k, j] - Q[k, i])
            it += 1
            if it % 64 == 0:
                # refresh the gradient against drift
                for k in range(t):
                    gv[k] = -b[k]
                    for i in range(t):
                        gv[k] += Q[k, i] * alpha[i]
    return it, gmax - gmin


cdef inline double fabs_(double x) noexcept nogil:
    return x if x >= 0 else -x


@cython.cdivision(True)
def simplex_qp_active(const double[:, ::1] Q, const double[::1] b, double[::1] alpha,
                      Py_ssize_t max_iter):
    """Minimize 1/2 a^T Q a - b^T a over the simplex exactly with the primal active-set
    method, for a positive definite Q (add a tiny ridge to a semidefinite one).

    ``alpha`` is a feasible warm start, overwritten with the solution. Every step solves
    the KKT system of the free set F, [[Q_FF, 1], [1^T, 0]] [x; nu] = [b_F; 1], by a
    symmetric indefinite (Bunch-Kaufman, LAPACK dsysv) factorization, O(k^3 / 3) for k
    free variables, plus one step of iterative refinement. The bordered system keeps
    sum(x) = 1 to rounding even when Q_FF is nearly singular (planes that outnumber the
    dimension), where eliminating nu through Q_FF^{-1} would cancel. A step that leaves
    the simplex stops at the first variable reaching 0 (removed from F); at a feasible
    step the variable with the most negative reduced gradient enters F, or the KKT
    conditions hold and it returns.

    Returns 0 on success, 1 when max_iter steps did not suffice, 2 when the KKT matrix
    was singular (alpha is then feasible but not optimal).
    """
    cdef Py_ssize_t t = b.shape[0]
    cdef Py_ssize_t i, j, k, it, nf, jmin, blocking
    cdef int n, nrhs = 1, info = 0, lwork
    cdef char uplo = b'L'
    cdef double nu, step, r, gmin, gi, scale = 0.0, ssum
    if Q.shape[0] != t or Q.shape[1] != t or alpha.shape[0] != t or t == 0:
        raise ValueError("Q, b and alpha sizes differ or are empty")
    lwork = <int> (64 * (t + 1))
    M = np.empty((t + 1) * (t + 1))
    R = np.empty(t + 1)
    E = np.empty(t + 1)
    W = np.empty(lwork)
    piv_a = np.empty(t + 1, dtype=np.intc)
    idx_a = np.empty(t, dtype=np.intp)
    free_a = np.zeros(t, dtype=np.uint8)
    cdef double[::1] Mv = M, Rv = R, Ev = E, Wv = W
    cdef int[::1] piv = piv_a
    cdef Py_ssize_t[::1] idx = idx_a
    cdef unsigned char[::1] free = free_a
    with nogil:
        for i in range(t):
            if fabs_(Q[i, i]) > scale:
                scale = fabs_(Q[i, i])
            if fabs_(b[i]) > scale:
                scale = fabs_(b[i])
            free[i] = alpha[i] > 0.0
        for it in range(max_iter):
            nf = 0
            for i in range(t):
                if free[i]:
                    idx[nf] = i
                    nf += 1
            if nf == 0:
                info = 3
                break
            # M = [[Q_FF, 1], [1^T, 0]] (symmetric: row-major = column-major)
            n = <int> (nf + 1)
            for j in range(nf):
                for k in range(nf):
                    Mv[j * n + k] = Q[idx[j], idx[k]]
                Mv[j * n + nf] = 1.0
                Mv[nf * n + j] = 1.0
                Rv[j] = b[idx[j]]
            Mv[nf * n + nf] = 0.0
            Rv[nf] = 1.0
            dsysv(&uplo, &n, &nrhs, &Mv[0], &n, &piv[0], &Rv[0], &n, &Wv[0], &lwork,
                  &info)
            if info != 0:
                info = 2
                break
            # one step of iterative refinement against the unfactored system
            ssum = 0.0
            for j in range(nf):
                Ev[j] = b[idx[j]] - Rv[nf]
                for k in range(nf):
                    Ev[j] -= Q[idx[j], idx[k]] * Rv[k]
                ssum += Rv[j]
            Ev[nf] = 1.0 - ssum
            dsytrs(&uplo, &n, &nrhs, &Mv[0], &n, &piv[0], &Ev[0], &n, &info)
            for j in range(nf + 1):
                Rv[j] += Ev[j]
            nu = Rv[nf]             # Q_FF x - b_F = -nu 1
            # feasible?  else step towards x until the first variable reaches 0
            step = 1.0
            blocking = -1
            for j in range(nf):
                if Rv[j] < 0.0:
                    r = alpha[idx[j]] / (alpha[idx[j]] - Rv[j])
                    if r < step:
                        step = r
                        blocking = j
            if blocking >= 0:
                ssum = 0.0
                for j in range(nf):
                    alpha[idx[j]] += step * (Rv[j] - alpha[idx[j]])
                    if alpha[idx[j]] < 0.0 or j == blocking:
                        alpha[idx[j]] = 0.0
                    ssum += alpha[idx[j]]
                for j in range(nf):
                    alpha[idx[j]] /= ssum
                    if alpha[idx[j]] <= 0.0:
                        free[idx[j]] = 0
                continue
            for i in range(t):
                alpha[i] = 0.0
            for j in range(nf):
                alpha[idx[j]] = Rv[j]
            # reduced gradients of the variables at 0: g_i - g_F, g_F = -nu
            jmin = -1
            gmin = -1e-12 * scale
            for i in range(t):
                if not free[i]:
                    gi = -b[i] + nu
                    for j in range(nf):
                        gi += Q[i, idx[j]] * Rv[j]
                    if gi < gmin:
                        gmin = gi
                        jmin = i
            if jmin < 0:
                info = 0
                break
            free[jmin] = 1
        else:
            info = 1
    return info


# ---------------------------------------------------------------------------------------
# squared pairwise hinge: counts and sums over the active pairs
#
# For the squared hinge sum_{(u, l) active} r_ul^2, r_ul = 1 - p_u + p_l (Lee & Lin 2014,
# "Large-scale linear RankSVM"), every example i needs, besides c_i and d_i, the
# sums of the partners' predictions:
#
#     S^c_i = sum_{u : y_u > y_i, active(u, i)} p_u,   S^d_i = sum_{l : y_l < y_i,
#     active(i, l)} p_l,
#
# because the derivative of the loss with respect to p_i is
#     2 [L_i - U_i],  L_i = c_i (1 + p_i) - S^c_i  (sum of r over pairs with i lower),
#                     U_i = d_i (1 - p_i) + S^d_i  (sum of r over pairs with i upper),
# and the loss itself is sum_pairs r (1 - p_u + p_l) = sum_i L_i + sum_i p_i (L_i - U_i).
# With the active set fixed (the generalized Hessian of one Newton step), the Hessian of
# the loss with respect to p is 2 times the Laplacian of the active-pair graph:
#     (2 Lap z)_i = 2 [(c_i + d_i) z_i - T^c_i - T^d_i],
# T^c_i, T^d_i the sums of z over the same partners. The sweeps are those of the Fenwick
# counting engine (prediction order, positions in the utility order) with a Fenwick tree
# of doubles beside the bit-packed one; the c-sweep stores position n - 1 - ypos so that
# "utility above the run" is a prefix (no total-minus-prefix cancellation). The pointer
# of each margin window is recorded at the gradient evaluation, so a Hessian-vector
# product replays the same insertion schedule without comparing predictions: its cost is
# the m inserts and m prefix sums per sweep, and no sort.


cdef inline void _dfen_add(double *fen, Py_ssize_t n, Py_ssize_t pos,
                           double v) noexcept nogil:
    cdef Py_ssize_t i = pos + 1
    while i <= n:
        fen[i] += v
        i += i & (-i)


cdef inline double _dfen_prefix(const double *fen, Py_ssize_t pos) noexcept nogil:
    # sum of the values stored at positions < pos
    cdef double s = 0.0
    while pos > 0:
        s += fen[pos]
        pos -= pos & (-pos)
    return s


cdef void _sq_lower(const _Key *keys, const double *val, Py_ssize_t a, Py_ssize_t b,
                    uint64_t *bits, int32_t *fen, double *dfen, bint record,
                    int32_t *jc, int64_t *cnt, double *sums) noexcept nogil:
    # i as the lower item: partners u with y_u > y_i (position >= rend_i) and
    # p_u < fl(p_i + 1). record: find the window by comparing predictions (and store
    # its end in jc, count the partners); else replay jc.
    cdef Py_ssize_t n = b - a
    cdef Py_ssize_t nw = (n >> 6) + 1
    cdef Py_ssize_t k, j = a, end
    cdef int64_t inserted = 0
    cdef double bound
    memset(dfen, 0, (n + 1) * sizeof(double))
    if record:
        memset(bits, 0, nw * sizeof(uint64_t))
        memset(fen, 0, (nw + 1) * sizeof(int32_t))
    for k in range(a, b):
        if record:
            bound = keys[k].p + 1.0
            while j < b and keys[j].p < bound:
                _bits_insert(bits, fen, nw, keys[j].ypos)
                _dfen_add(dfen, n, n - 1 - keys[j].ypos, val[j])
                inserted += 1
                j += 1
            jc[k] = <int32_t> (j - a)
            cnt[k] = inserted - _bits_prefix(bits, fen, keys[k].rend)
        else:
            end = a + jc[k]
            while j < end:
                _dfen_add(dfen, n, n - 1 - keys[j].ypos, val[j])
                j += 1
        sums[k] = _dfen_prefix(dfen, n - keys[k].rend)


cdef void _sq_upper(const _Key *keys, const double *val, Py_ssize_t a, Py_ssize_t b,
                    uint64_t *bits, int32_t *fen, double *dfen, bint record,
                    int32_t *jd, int64_t *cnt, double *sums) noexcept nogil:
    # i as the upper item: partners l with y_l < y_i (position < rstart_i) and
    # fl(p_l + 1) > p_i, visiting by descending p
    cdef Py_ssize_t n = b - a
    cdef Py_ssize_t nw = (n >> 6) + 1
    cdef Py_ssize_t k, j = b - 1, end
    memset(dfen, 0, (n + 1) * sizeof(double))
    if record:
        memset(bits, 0, nw * sizeof(uint64_t))
        memset(fen, 0, (nw + 1) * sizeof(int32_t))
    k = b - 1
    while k >= a:
        if record:
            while j >= a and keys[j].p + 1.0 > keys[k].p:
                _bits_insert(bits, fen, nw, keys[j].ypos)
                _dfen_add(dfen, n, keys[j].ypos, val[j])
                j -= 1
            jd[k] = <int32_t> (j - a)
            cnt[k] = _bits_prefix(bits, fen, keys[k].rstart)
        else:
            end = a + jd[k]
            while j > end:
                _dfen_add(dfen, n, keys[j].ypos, val[j])
                j -= 1
        sums[k] = _dfen_prefix(dfen, keys[k].rstart)
        k -= 1


ctypedef struct _SqScratch:
    uint64_t *bits
    int32_t *fen
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

    cdef _Key *keys
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
        self.keys = <_Key *> malloc(m * sizeof(_Key))
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


cdef int _sq_run(const _Key *keys, const double *val, Py_ssize_t nq,
                 const Py_ssize_t *qstart, Py_ssize_t max_query, int n_threads,
                 bint record, int32_t *jc, int32_t *jd, int64_t *cc, int64_t *dd,
                 double *sc, double *sd) except -1:
    # both sweeps of every query (2 nq tasks), OpenMP over the tasks
    cdef Py_ssize_t ntasks = 2 * nq, task, q, i
    cdef Py_ssize_t nwords = (max_query >> 6) + 2
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
                work[i].bits = <uint64_t *> malloc(nwords * sizeof(uint64_t))
                work[i].fen = <int32_t *> malloc((nwords + 1) * sizeof(int32_t))
                if work[i].bits == NULL or work[i].fen == NULL:
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
                free(work[i].bits)
                free(work[i].fen)
                free(work[i].dfen)
            free(work)
    return 0


cdef void _sq_task(Py_ssize_t task, const _Key *keys, const double *val,
                   const Py_ssize_t *qstart, _SqScratch *work, bint record, int32_t *jc,
                   int32_t *jd, int64_t *cc, int64_t *dd, double *sc,
                   double *sd) noexcept nogil:
    cdef Py_ssize_t q = task >> 1
    if task & 1:
        _sq_upper(keys, val, qstart[q], qstart[q + 1], work.bits, work.fen, work.dfen,
                  record, jd, dd, sd)
    else:
        _sq_lower(keys, val, qstart[q], qstart[q + 1], work.bits, work.fen, work.dfen,
                  record, jc, cc, sc)


cdef object _sq_evaluate(RankingPairs rp, const double[::1] p, weights, coef,
                         int n_threads):
    cdef Py_ssize_t m = rp.m, nq = rp.n_queries, i, k, q
    cdef double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef double[::1] out = coef
    cdef const double *pp = &p[0]
    cdef const _Item *items = <const _Item *> &rp._items[0, 0]
    cdef const Py_ssize_t *qstart = &rp._qstart[0]
    cdef double total = 0.0, part, wq, L, U, pk
    cdef int64_t n_active = 0
    if w.shape[0] != nq:
        raise ValueError(f"weights must have shape ({nq},)")
    if out.shape[0] != m:
        raise ValueError(f"coef must have shape ({m},)")
    for i in range(m):
        if not isfinite(pp[i]):
            raise ValueError("the predictions contain NaN or infinity")
    cdef SquaredHingeActiveSet st = SquaredHingeActiveSet.__new__(SquaredHingeActiveSet)
    st._alloc(m)
    st.n_queries = nq
    st.max_query = rp.max_query
    st._qstart = rp._qstart
    cdef Py_ssize_t[::1] srt = np.argsort(np.asarray(p)).astype(np.intp, copy=False)
    cdef Py_ssize_t[::1] pos = np.array(rp._qstart[:nq], dtype=np.intp)
    ps_a = np.empty(m)
    sc_a = np.empty(m)
    sd_a = np.empty(m)
    cc_a = np.empty(m, dtype=np.int64)
    dd_a = np.empty(m, dtype=np.int64)
    cdef double[::1] ps = ps_a, sc = sc_a, sd = sd_a
    cdef int64_t[::1] cc = cc_a, dd = dd_a
    with nogil:
        # prediction order, grouped by query (stable)
        for k in range(m):
            i = srt[k]
            q = items[i].q
            st.keys[pos[q]].p = pp[i]
            st.keys[pos[q]].ypos = items[i].ypos
            st.keys[pos[q]].rstart = items[i].rstart
            st.keys[pos[q]].rend = items[i].rend
            st.seg[pos[q]] = i
            ps[pos[q]] = pp[i]
            pos[q] += 1
    _sq_run(st.keys, &ps[0], nq, qstart, rp.max_query, n_threads, True, st.jc, st.jd,
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
