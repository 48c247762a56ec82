# cython: language_level=3
"""Order-statistic red-black tree over integer keys 0 .. capacity - 1, header-only.

The RankSVM "rbtree" engine (Airola, Pahikkala & Salakoski 2011) keeps the predictions
of the examples already swept in an order-statistic tree and asks, for every example,
how many stored predictions lie below a bound. Here the keys are the ranks of the
predictions within their query (one sort per evaluation; the bounds become ranks by a
two-pointer pass), which makes the tree a pool of ``capacity + 1`` nodes indexed by int32
with **node x holding key x - 1**: no per-node allocation and no key field, and the
nodes a search visits near the leaves lie next to each other in memory.

Two node layouts, one algorithm (the functions take either tree through the fused type
``tree_t``):

* ``PackedTree`` (capacity <= PACKED_MAX_CAPACITY = 2**21 - 1): one 64-bit word per
  node, left child in bits 0-20, right child in bits 21-41, left-subtree size in bits
  42-62, colour in bit 63. 8 bytes per node: a cache line holds 8 nodes, so the last
  three levels of a search share the line of the searched key, and the whole tree of a
  million keys (8 MB) stays in the last-level cache.
* ``WideTree`` (any capacity < 2**31 - 1): int32 left, right and ``lsize | red << 31``,
  12 bytes per node.

The pool is aligned to 2 MB and marked for transparent huge pages where the OS offers
them (Linux ``madvise``): a walk of ~20 levels through a random part of the pool then
costs no TLB misses.

Red-black insertion follows CLRS ch. 13 top-down (iterative descent recording the path,
bottom-up fix-up on that path, so no parent pointers) with the order-statistic
augmentation of ch. 14 stored as the size of the *left* subtree: a rank query reads only
the nodes on one root-to-leaf path and adds ``lsize + 1`` without a branch where it
turns right (a data-dependent branch per level would mispredict half of the time).
Height <= 2 log2(n + 1), so insert and rank cost O(log n); clear is O(1). Keys must be
distinct (a rank is inserted at most once between clears). Everything is ``noexcept
nogil`` and unchecked: the callers guarantee 0 <= key < capacity and distinct keys.
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* zeroed memory; from 2 MB on aligned to 2 MB and marked for huge pages (Linux) */
    static void *rls_pool_alloc(size_t bytes) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        const size_t huge = (size_t) 1 << 21;
        if (bytes >= huge) {
            void *p = NULL;
            size_t rounded = (bytes + huge - 1) & ~(huge - 1);
            if (posix_memalign(&p, huge, rounded) != 0)
                return NULL;
            madvise(p, rounded, MADV_HUGEPAGE);
            memset(p, 0, rounded);
            return p;
        }
    #endif
        return calloc(bytes, 1);
    }
    """
    void *pool_alloc "rls_pool_alloc"(size_t bytes) noexcept nogil


cdef enum:
    PACKED_MAX_CAPACITY = 2097151       # 2**21 - 1: node indices fit 21 bits
    _M21 = 2097151


ctypedef struct WideNode:
    int32_t child[2]        # left, right (0 = the black NIL node)
    uint32_t lsred          # number of keys in the left subtree | red << 31


ctypedef struct PackedTree:
    uint64_t *nodes         # capacity + 1 nodes; nodes[0] is NIL, nodes[k + 1] key k
    int32_t root
    int32_t size            # keys stored
    Py_ssize_t capacity


ctypedef struct WideTree:
    WideNode *nodes
    int32_t root
    int32_t size
    Py_ssize_t capacity


ctypedef fused tree_t:
    PackedTree
    WideTree


# ---------------------------------------------------------------------------------------
# node fields

cdef inline int32_t _child(tree_t *t, int32_t x, int d) noexcept nogil:
    if tree_t is PackedTree:
        return <int32_t> ((t.nodes[x] >> (21 * d)) & (<uint64_t> _M21))
    else:
        return t.nodes[x].child[d]


cdef inline void _set_child(tree_t *t, int32_t x, int d, int32_t v) noexcept nogil:
    if tree_t is PackedTree:
        t.nodes[x] = ((t.nodes[x] & ~((<uint64_t> _M21) << (21 * d)))
                      | ((<uint64_t> v) << (21 * d)))
    else:
        t.nodes[x].child[d] = v


cdef inline uint32_t _lsize(tree_t *t, int32_t x) noexcept nogil:
    if tree_t is PackedTree:
        return <uint32_t> ((t.nodes[x] >> 42) & (<uint64_t> _M21))
    else:
        return t.nodes[x].lsred & 0x7FFFFFFFu


cdef inline void _add_lsize(tree_t *t, int32_t x, int32_t v) noexcept nogil:
    # modular addition; the field stays in range, so nothing carries into the colour
    if tree_t is PackedTree:
        t.nodes[x] += (<uint64_t> <int64_t> v) << 42
    else:
        t.nodes[x].lsred += <uint32_t> v


cdef inline int _red(tree_t *t, int32_t x) noexcept nogil:
    if tree_t is PackedTree:
        return <int> (t.nodes[x] >> 63)
    else:
        return <int> (t.nodes[x].lsred >> 31)


cdef inline void _set_red(tree_t *t, int32_t x, int v) noexcept nogil:
    if tree_t is PackedTree:
        t.nodes[x] = (t.nodes[x] & ~((<uint64_t> 1) << 63)) | ((<uint64_t> v) << 63)
    else:
        t.nodes[x].lsred = (t.nodes[x].lsred & 0x7FFFFFFFu) | ((<uint32_t> v) << 31)


cdef inline void _new_leaf(tree_t *t, int32_t z, int v) noexcept nogil:
    # no children, empty left subtree, colour v
    if tree_t is PackedTree:
        t.nodes[z] = (<uint64_t> v) << 63
    else:
        t.nodes[z].child[0] = 0
        t.nodes[z].child[1] = 0
        t.nodes[z].lsred = (<uint32_t> v) << 31


# ---------------------------------------------------------------------------------------
# the tree

cdef inline int ranktree_init(tree_t *t, Py_ssize_t capacity) noexcept nogil:
    """Allocate for keys 0 .. capacity - 1 (capacity < 2**31 - 1, and <=
    PACKED_MAX_CAPACITY for a PackedTree). 0, or -1 if out of memory (the tree is then
    safe to free)."""
    t.root = 0
    t.size = 0
    t.capacity = capacity
    if tree_t is PackedTree:
        t.nodes = <uint64_t *> pool_alloc((capacity + 1) * sizeof(uint64_t))
    else:
        t.nodes = <WideNode *> pool_alloc((capacity + 1) * sizeof(WideNode))
    return 0 if t.nodes != NULL else -1


cdef inline void ranktree_free(tree_t *t) noexcept nogil:
    free(t.nodes)
    t.nodes = NULL
    t.root = 0
    t.size = 0
    t.capacity = 0


cdef inline void ranktree_clear(tree_t *t) noexcept nogil:
    """Remove every key in O(1) (inserted nodes are re-initialized)."""
    t.root = 0
    t.size = 0


cdef inline void _rotate(tree_t *t, int32_t x, int32_t xp, int d) noexcept nogil:
    # d = 0: rotate left at x (its right child rises); d = 1: rotate right. xp is x's
    # parent (0 for the root).
    cdef int32_t y = _child(t, x, 1 - d)
    _set_child(t, x, 1 - d, _child(t, y, d))
    _set_child(t, y, d, x)
    if d == 0:      # x and its left subtree join y's left subtree
        _add_lsize(t, y, <int32_t> _lsize(t, x) + 1)
    else:           # y and its left subtree leave x's left subtree
        _add_lsize(t, x, -(<int32_t> _lsize(t, y) + 1))
    if xp == 0:
        t.root = y
    else:
        _set_child(t, xp, _child(t, xp, 1) == x, y)


cdef inline void _attach(tree_t *t, int32_t z, int32_t *path, int h) noexcept nogil:
    # link the new node z below path[h - 1] (or as the root) and restore the red-black
    # properties: RB-INSERT-FIXUP (CLRS 13.3) on the recorded path
    cdef int32_t zp, zpp, u
    cdef int d
    if h == 0:
        _new_leaf(t, z, 0)
        t.root = z
        return
    _new_leaf(t, z, 1)
    zp = path[h - 1]
    _set_child(t, zp, z > zp, z)
    while h >= 2:
        zp = path[h - 1]
        if not _red(t, zp):
            break
        zpp = path[h - 2]                   # exists: a red node is not the root
        d = _child(t, zpp, 1) == zp         # side of zp under zpp
        u = _child(t, zpp, 1 - d)
        if _red(t, u):                      # case 1: recolour, continue two levels up
            _set_red(t, zp, 0)
            _set_red(t, u, 0)
            _set_red(t, zpp, 1)
            z = zpp
            h -= 2
            continue
        if _child(t, zp, 1 - d) == z:       # case 2: z is an inner child, rotate it out
            _rotate(t, zp, zpp, d)
            zp = z
        _set_red(t, zp, 0)                  # case 3
        _set_red(t, zpp, 1)
        _rotate(t, zpp, path[h - 3] if h >= 3 else 0, 1 - d)
        break
    _set_red(t, t.root, 0)


cdef inline int _descend(tree_t *t, int32_t z, int32_t x, int32_t *path,
                         int h) noexcept nogil:
    # the insertion walk of node z from x down to a leaf: record the path after its
    # first h entries, count z in the left size of every node it passes to the left of;
    # returns the path length
    cdef int d
    while x != 0:
        path[h] = x
        h += 1
        d = z > x
        _add_lsize(t, x, 1 - d)
        x = _child(t, x, d)
    return h


cdef inline void ranktree_insert(tree_t *t, int32_t key) noexcept nogil:
    """Insert key (not stored yet). O(log n)."""
    cdef int32_t path[72]                   # root .. parent; height <= 2 log2(2**31)
    cdef int32_t z = key + 1
    t.size += 1
    _attach(t, z, path, _descend(t, z, t.root, path, 0))


cdef inline uint32_t _step_count(tree_t *t, int32_t *x, int32_t zq) noexcept nogil:
    # one level of a rank query for keys < zq - 1: the count to add (lsize + 1 where the
    # walk turns right, else 0, without a branch) and the step down
    cdef uint32_t g = x[0] < zq
    cdef uint32_t add = (_lsize(t, x[0]) + 1) & (0u - g)
    x[0] = _child(t, x[0], g)
    return add


cdef inline void ranktree_insert_count2(tree_t *t, int32_t key, int32_t a, int32_t b,
                                        int64_t *ra, int64_t *rb) noexcept nogil:
    """Insert key and return the number of keys < a and < b stored *before* the
    insertion. The three root-to-leaf walks advance in lockstep (each query reads a
    node before the insertion updates it), so their cache misses overlap. O(log n)."""
    cdef int32_t path[72]
    cdef int h = 0, d
    cdef int32_t z = key + 1, za = a + 1, zb = b + 1
    cdef int32_t x = t.root, u = t.root, v = t.root
    cdef uint32_t sa = 0, sb = 0            # counts < 2**31
    t.size += 1
    while x != 0 and u != 0 and v != 0:
        sa += _step_count(t, &u, za)
        sb += _step_count(t, &v, zb)
        path[h] = x
        h += 1
        d = z > x
        _add_lsize(t, x, 1 - d)
        x = _child(t, x, d)
    while u != 0:
        sa += _step_count(t, &u, za)
    while v != 0:
        sb += _step_count(t, &v, zb)
    h = _descend(t, z, x, path, h)
    ra[0] = sa
    rb[0] = sb
    _attach(t, z, path, h)


cdef inline int64_t ranktree_count_less(tree_t *t, int32_t key) noexcept nogil:
    """Number of stored keys < key (any 0 <= key <= capacity). O(log n)."""
    cdef int32_t x = t.root
    cdef uint32_t r = 0
    while x != 0:
        r += _step_count(t, &x, key + 1)
    return r
