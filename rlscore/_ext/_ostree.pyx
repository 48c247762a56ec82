# cython: language_level=3
"""Python face of the order-statistic red-black tree of ``_ostree.pxd`` (for tests and
experiments; the RankSVM engine uses the inline C functions directly)."""

import numpy as np

from libc.stdint cimport int32_t, INT32_MAX

# the tree itself (struct RankTree and the ranktree_* functions) comes from _ostree.pxd,
# which Cython includes automatically

cdef class OrderStatisticTree:
    """A set of distinct integer keys 0 .. capacity - 1 with rank queries.

    Parameters
    ----------
    capacity : int
        Keys range over 0 .. capacity - 1.

    Notes
    -----
    ``insert`` and ``count_less`` cost O(log n) for n stored keys (red-black height
    <= 2 log2(n + 1)); ``clear`` is O(1). Memory: 16 bytes per possible key.
    """

    cdef RankTree tree
    cdef object _present

    def __cinit__(self, Py_ssize_t capacity):
        if capacity < 1 or capacity >= INT32_MAX - 1:
            raise ValueError(f"capacity must be in 1 .. {INT32_MAX - 2}, got {capacity}")
        if ranktree_init(&self.tree, capacity) != 0:
            raise MemoryError("cannot allocate the order-statistic tree")
        self._present = np.zeros(capacity, dtype=bool)

    def __dealloc__(self):
        ranktree_free(&self.tree)

    def __len__(self):
        return self.tree.size

    @property
    def capacity(self):
        return self.tree.capacity

    def _check(self, key, Py_ssize_t hi):
        if not isinstance(key, (int, np.integer)) or isinstance(key, bool):
            raise TypeError(f"key must be an int, got {type(key).__name__}")
        if key < 0 or key > hi:
            raise ValueError(f"key must lie in 0 .. {hi}, got {key}")

    def clear(self):
        """Remove every key. O(1) (plus O(capacity) for the membership record)."""
        ranktree_clear(&self.tree)
        self._present[:] = False

    def insert(self, key):
        """Insert a key that is not stored yet. O(log n)."""
        self._check(key, self.tree.capacity - 1)
        if self._present[key]:
            raise ValueError(f"key {key} is already stored")
        self._present[key] = True
        ranktree_insert(&self.tree, <int32_t> key)

    def count_less(self, key):
        """Number of stored keys < key, for 0 <= key <= capacity. O(log n)."""
        self._check(key, self.tree.capacity)
        return ranktree_count_less(&self.tree, <int32_t> key)

    def _arrays(self):
        """The node arrays for invariant checks: dict of left, right, lsize, red (node
        x holds key x - 1, node 0 is NIL) and root."""
        cdef Py_ssize_t n = self.tree.capacity + 1, i
        cols = np.zeros((n, 4), dtype=np.int64)
        for i in range(n):
            cols[i, 0] = self.tree.nodes[i].child[0]
            cols[i, 1] = self.tree.nodes[i].child[1]
            cols[i, 2] = self.tree.nodes[i].lsize
            cols[i, 3] = self.tree.nodes[i].red
        return dict(left=cols[:, 0], right=cols[:, 1], lsize=cols[:, 2], red=cols[:, 3],
                    root=self.tree.root)
