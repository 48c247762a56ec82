# cython: language_level=3
"""C-level interface of the order-statistic red-black tree of :mod:`rlscore._ext._ranksvm`.

Another Cython module can ``from rlscore._ext._ranksvm cimport OSTree, ostree_init, ...``
and use the tree without the GIL (the functions are exported through the module's C
API). Every function is ``noexcept nogil``; the ones that can fail return a negative
status instead of raising.

Layout. Nodes live in one array (``nodes[0]`` is the black NIL sentinel, real nodes are
1 .. n_nodes), indices are int32. A node holds one *distinct* key and its multiplicity
``count`` (duplicate keys share a node), and the order-statistic augmentation is the
total multiplicity of its *left* subtree (``lsize``): a rank query then reads only the
nodes on its search path. Optional value sums (built with ``with_sums``) attach a real
value to every inserted element; ``own[x]`` is the sum of the values inserted with key
``nodes[x].key`` and ``ssum[x]`` the sum over the whole subtree of x (maintained by
additions only, so there is no cancellation drift). The squared-hinge RankSVM needs
exactly these sums (sum of the predictions of the counted items).
"""

from libc.stdint cimport int32_t, int64_t, uint8_t

ctypedef struct OSNode:
    double key
    int32_t lsize       # total multiplicity of the left subtree
    int32_t count       # multiplicity of this key (>= 1)
    int32_t left
    int32_t right
    int32_t parent
    uint8_t red

ctypedef struct OSTree:
    OSNode *nodes       # capacity + 1 entries; nodes[0] is the NIL sentinel
    double *own         # NULL, or capacity + 1 entries: values inserted with this key
    double *ssum        # NULL, or capacity + 1 entries: values in the subtree
    int32_t root
    int32_t n_nodes     # distinct keys stored
    int32_t capacity    # distinct keys that fit before the arrays grow
    int64_t total       # total multiplicity (< 2**31)
    double total_sum    # sum of all values (with_sums only)

# Life cycle. init returns 0, or -1 when out of memory (the tree is then empty and safe
# to free). clear empties the tree in O(1) and keeps the memory.
cdef int ostree_init(OSTree *t, Py_ssize_t capacity, bint with_sums) noexcept nogil
cdef void ostree_free(OSTree *t) noexcept nogil
cdef void ostree_clear(OSTree *t) noexcept nogil

# Insert ``count`` >= 1 copies of ``key`` (not NaN) carrying the total value ``value``
# (ignored without sums). O(log n). Returns 0, -1 out of memory (tree unchanged),
# -2 if the total multiplicity would reach 2**31, -3 for count < 1.
cdef int ostree_insert(OSTree *t, double key, int32_t count, double value) noexcept nogil

# Rank queries, O(log n): the number of stored elements (with multiplicity) whose key is
# < bound, <= bound. The *_sum forms also add the sum of their values to *sum_out.
cdef int64_t ostree_count_less(const OSTree *t, double bound) noexcept nogil
cdef int64_t ostree_count_leq(const OSTree *t, double bound) noexcept nogil
cdef int64_t ostree_count_less_sum(const OSTree *t, double bound,
                                   double *sum_out) noexcept nogil
cdef int64_t ostree_count_leq_sum(const OSTree *t, double bound,
                                  double *sum_out) noexcept nogil

# The k-th smallest stored key (0-based, with multiplicity), 0 <= k < total. O(log n).
cdef double ostree_select(const OSTree *t, int64_t k) noexcept nogil
