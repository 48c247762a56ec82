# cython: language_level=3
"""Python face of the order-statistic red-black tree of ``_ostree.pxd`` (for tests and
experiments; the RankSVM engine uses the inline C functions directly)."""

import numpy as np

from libc.stdint cimport int32_t, uint32_t, uint64_t, INT32_MAX

# the tree itself (PackedTree, WideTree and the ranktree_* functions) comes from
# _ostree.pxd, which Cython includes automatically

cdef class OrderStatisticTree:
    """A set of distinct integer keys 0 .. capacity - 1 with rank queries.

    Parameters
    ----------
    capacity : int
        Keys range over 0 .. capacity - 1.
    layout : {"auto", "packed", "wide"}
        Node layout: "packed" (8 bytes per node, capacity <= 2**21 - 1), "wide" (12
        bytes, any capacity), "auto" packed where it fits (what the RankSVM engine
        uses).

    Notes
    -----
    ``insert`` and ``count_less`` cost O(log n) for n stored keys (red-black height
    <= 2 log2(n + 1)); ``clear`` is O(1). Memory: 8 or 12 bytes per possible key.
    """

    cdef PackedTree ptree
    cdef WideTree wtree
    cdef readonly bint packed
    cdef object _present

    def __cinit__(self, Py_ssize_t capacity, layout="auto"):
        if capacity < 1 or capacity >= INT32_MAX - 1:
            raise ValueError(f"capacity must be in 1 .. {INT32_MAX - 2}, got {capacity}")
        if layout not in ("auto", "packed", "wide"):
            raise ValueError(f"layout must be 'auto', 'packed' or 'wide', got {layout!r}")
        if layout == "packed" and capacity > PACKED_MAX_CAPACITY:
            raise ValueError(f"the packed layout holds at most {PACKED_MAX_CAPACITY} "
                             f"keys, got capacity {capacity}")
        self.packed = layout == "packed" or (layout == "auto"
                                             and capacity <= PACKED_MAX_CAPACITY)
        if self.packed:
            failed = ranktree_init(&self.ptree, capacity)
        else:
            failed = ranktree_init(&self.wtree, capacity)
        if failed:
            raise MemoryError("cannot allocate the order-statistic tree")
        self._present = np.zeros(capacity, dtype=bool)

    def __dealloc__(self):
        ranktree_free(&self.ptree)
        ranktree_free(&self.wtree)

    def __len__(self):
        return self.ptree.size if self.packed else self.wtree.size

    @property
    def capacity(self):
        return self.ptree.capacity if self.packed else self.wtree.capacity

    def _check(self, key, Py_ssize_t hi):
        if not isinstance(key, (int, np.integer)) or isinstance(key, bool):
            raise TypeError(f"key must be an int, got {type(key).__name__}")
        if key < 0 or key > hi:
            raise ValueError(f"key must lie in 0 .. {hi}, got {key}")

    def clear(self):
        """Remove every key. O(1) (plus O(capacity) for the membership record)."""
        ranktree_clear(&self.ptree)
        ranktree_clear(&self.wtree)
        self._present[:] = False

    def insert(self, key):
        """Insert a key that is not stored yet. O(log n)."""
        self._check(key, self.capacity - 1)
        if self._present[key]:
            raise ValueError(f"key {key} is already stored")
        self._present[key] = True
        if self.packed:
            ranktree_insert(&self.ptree, <int32_t> key)
        else:
            ranktree_insert(&self.wtree, <int32_t> key)

    def count_less(self, key):
        """Number of stored keys < key, for 0 <= key <= capacity. O(log n)."""
        self._check(key, self.capacity)
        if self.packed:
            return ranktree_count_less(&self.ptree, <int32_t> key)
        return ranktree_count_less(&self.wtree, <int32_t> key)

    def _arrays(self):
        """The node fields for invariant checks: dict of left, right, lsize, red (node
        x holds key x - 1, node 0 is NIL) and root."""
        cdef Py_ssize_t n = self.capacity + 1
        if self.packed:
            words = np.array(<uint64_t[:n]> self.ptree.nodes, dtype=np.uint64)
            mask = np.uint64(PACKED_MAX_CAPACITY)
            fields = [(words >> np.uint64(shift)) & mask for shift in (0, 21, 42)]
            fields.append(words >> np.uint64(63))
            root = self.ptree.root
        else:
            cols = np.array(<uint32_t[:n, :3]> <uint32_t *> self.wtree.nodes)
            fields = [cols[:, 0], cols[:, 1], cols[:, 2] & np.uint32(0x7FFFFFFF),
                      cols[:, 2] >> np.uint32(31)]
            root = self.wtree.root
        left, right, lsize, red = (f.astype(np.int64) for f in fields)
        return dict(left=left, right=right, lsize=lsize, red=red, root=root)
