# cython: language_level=3
"""Order-statistic red-black tree over integer keys 0 .. capacity - 1, header-only.

The RankSVM "rbtree" engine (Airola, Pahikkala & Salakoski 2011) keeps the predictions
of the examples already swept in an order-statistic tree and asks, for every example,
how many stored predictions lie below a bound. Here the keys are the ranks of the
predictions within their query (one sort per evaluation; the bounds become ranks by a
two-pointer pass), which makes the tree a pool of ``capacity + 1`` nodes indexed by int32
with **node x holding key x - 1**: no per-node allocation, no key field, 16-byte nodes,
and the nodes a search visits near the leaves lie next to each other in memory.

Red-black insertion follows CLRS ch. 13 top-down (iterative descent recording the path,
bottom-up fix-up on that path, so no parent pointers) with the order-statistic
augmentation of ch. 14 stored as the size of the *left* subtree: a rank query reads only
the nodes on one root-to-leaf path. Height <= 2 log2(n + 1), so insert and rank cost
O(log n); clear is O(1). Keys must be distinct (a rank is inserted at most once between
clears). Everything is ``noexcept nogil`` and unchecked: the callers guarantee
0 <= key < capacity and distinct keys.
"""

from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free

ctypedef struct RBNode:
    int32_t child[2]        # left, right (0 = the black NIL node)
    int32_t lsize           # number of keys in the left subtree
    int32_t red

ctypedef struct RankTree:
    RBNode *nodes           # capacity + 1 nodes; nodes[0] is NIL, nodes[k + 1] key k
    int32_t root
    int32_t size            # keys stored
    Py_ssize_t capacity


cdef inline int ranktree_init(RankTree *t, Py_ssize_t capacity) noexcept nogil:
    """Allocate for keys 0 .. capacity - 1 (capacity < 2**31 - 1). 0, or -1 if out of
    memory (the tree is then safe to free)."""
    t.root = 0
    t.size = 0
    t.capacity = capacity
    t.nodes = <RBNode *> calloc(capacity + 1, sizeof(RBNode))
    return 0 if t.nodes != NULL else -1


cdef inline void ranktree_free(RankTree *t) noexcept nogil:
    free(t.nodes)
    t.nodes = NULL
    t.root = 0
    t.size = 0
    t.capacity = 0


cdef inline void ranktree_clear(RankTree *t) noexcept nogil:
    """Remove every key in O(1) (inserted nodes are re-initialized)."""
    t.root = 0
    t.size = 0


cdef inline void _rotate(RankTree *t, int32_t x, int32_t xp, int d) noexcept nogil:
    # d = 0: rotate left at x (its right child rises); d = 1: rotate right. xp is x's
    # parent (0 for the root).
    cdef RBNode *n = t.nodes
    cdef int32_t y = n[x].child[1 - d]
    n[x].child[1 - d] = n[y].child[d]
    n[y].child[d] = x
    if d == 0:
        n[y].lsize += n[x].lsize + 1        # x and its left subtree join y's left
    else:
        n[x].lsize -= n[y].lsize + 1        # y and its left subtree leave x's left
    if xp == 0:
        t.root = y
    else:
        n[xp].child[n[xp].child[1] == x] = y


cdef inline void _attach(RankTree *t, int32_t z, int32_t *path, int h) noexcept nogil:
    # link the new node z below path[h - 1] (or as the root) and restore the red-black
    # properties: RB-INSERT-FIXUP (CLRS 13.3) on the recorded path
    cdef RBNode *n = t.nodes
    cdef int32_t zp, zpp, u
    cdef int d
    n[z].child[0] = 0
    n[z].child[1] = 0
    n[z].lsize = 0
    if h == 0:
        n[z].red = 0
        t.root = z
        return
    n[z].red = 1
    zp = path[h - 1]
    n[zp].child[z > zp] = z
    while h >= 2:
        zp = path[h - 1]
        if not n[zp].red:
            break
        zpp = path[h - 2]                   # exists: a red node is not the root
        d = n[zpp].child[1] == zp           # side of zp under zpp
        u = n[zpp].child[1 - d]
        if n[u].red:                        # case 1: recolour, continue two levels up
            n[zp].red = 0
            n[u].red = 0
            n[zpp].red = 1
            z = zpp
            h -= 2
            continue
        if n[zp].child[1 - d] == z:         # case 2: z is an inner child, rotate it out
            _rotate(t, zp, zpp, d)
            zp = z
        n[zp].red = 0                       # case 3
        n[zpp].red = 1
        _rotate(t, zpp, path[h - 3] if h >= 3 else 0, 1 - d)
        break
    n[t.root].red = 0


cdef inline void ranktree_insert(RankTree *t, int32_t key) noexcept nogil:
    """Insert key (not stored yet). O(log n)."""
    cdef RBNode *n = t.nodes
    cdef int32_t path[72]                   # root .. parent; height <= 2 log2(2**31)
    cdef int h = 0, d
    cdef int32_t z = key + 1
    cdef int32_t x = t.root
    t.size += 1
    while x != 0:
        path[h] = x
        h += 1
        d = z > x
        n[x].lsize += 1 - d
        x = n[x].child[d]
    _attach(t, z, path, h)


cdef inline void ranktree_insert_count2(RankTree *t, int32_t key, int32_t a, int32_t b,
                                        int64_t *ra, int64_t *rb) noexcept nogil:
    """Insert key and return the number of keys < a and < b stored *before* the
    insertion. The three root-to-leaf walks advance in lockstep (each query reads a
    node before the insertion updates it), so their cache misses overlap. O(log n)."""
    cdef RBNode *n = t.nodes
    cdef int32_t path[72]
    cdef int h = 0, d, ga, gb
    cdef int32_t z = key + 1, za = a + 1, zb = b + 1
    cdef int32_t x = t.root, u = t.root, v = t.root
    cdef int64_t sa = 0, sb = 0
    t.size += 1
    while x != 0 and u != 0 and v != 0:
        ga = u < za
        gb = v < zb
        if ga:
            sa += n[u].lsize + 1
        if gb:
            sb += n[v].lsize + 1
        u = n[u].child[ga]
        v = n[v].child[gb]
        path[h] = x
        h += 1
        d = z > x
        n[x].lsize += 1 - d
        x = n[x].child[d]
    while u != 0:
        ga = u < za
        if ga:
            sa += n[u].lsize + 1
        u = n[u].child[ga]
    while v != 0:
        gb = v < zb
        if gb:
            sb += n[v].lsize + 1
        v = n[v].child[gb]
    while x != 0:
        path[h] = x
        h += 1
        d = z > x
        n[x].lsize += 1 - d
        x = n[x].child[d]
    ra[0] = sa
    rb[0] = sb
    _attach(t, z, path, h)


cdef inline int64_t ranktree_count_less(const RankTree *t, int32_t key) noexcept nogil:
    """Number of stored keys < key (any 0 <= key <= capacity). O(log n)."""
    cdef const RBNode *n = t.nodes
    cdef int32_t z = key + 1
    cdef int32_t x = t.root
    cdef int64_t r = 0
    cdef int g
    while x != 0:
        g = x < z
        if g:
            r += n[x].lsize + 1
        x = n[x].child[g]
    return r
