# cython: language_level=3
"""Fenwick (binary indexed) trees, header-only: one implementation for every counting
kernel of rlscore (Fenwick 1994, "A new data structure for cumulative frequency
tables").

``fen_add`` / ``fen_prefix`` work on any element type (fused ``fen_t``: int32 counts of
words, int64 counts, float64 sums). The tree array has n + 1 entries, entry 0 unused;
positions are 0-based. Both operations cost O(log n).

``BitSet`` is a set of positions 0 .. n - 1: a bitmap of 64-bit words plus an int32
Fenwick tree over the words' populations. Insert and "how many members are < pos" cost
O(log(n / 64)) and the structure takes n / 8 + n / 16 bytes, so it stays in cache (190
kB per million positions) -- the reason the RankSVM "fenwick" engine is fast.

Everything is ``noexcept nogil`` and unchecked: callers guarantee 0 <= pos < n (pos <= n
for the prefix queries).
"""

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memset

ctypedef fused fen_t:
    int32_t
    int64_t
    double


cdef inline void fen_add(fen_t *tree, Py_ssize_t n, Py_ssize_t pos,
                         fen_t v) noexcept nogil:
    """tree[pos] += v for a 0-based position pos < n."""
    cdef Py_ssize_t i = pos + 1
    while i <= n:
        tree[i] += v
        i += i & (-i)


cdef inline fen_t fen_prefix(const fen_t *tree, Py_ssize_t pos) noexcept nogil:
    """Sum of the values at positions < pos (0 <= pos <= n)."""
    cdef fen_t s = 0
    while pos > 0:
        s += tree[pos]
        pos -= pos & (-pos)
    return s


cdef inline int64_t popcount64(uint64_t x) noexcept nogil:
    x = x - ((x >> 1) & 0x5555555555555555ULL)
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL
    return <int64_t> ((x * 0x0101010101010101ULL) >> 56)


ctypedef struct BitSet:
    uint64_t *bits          # (n >> 6) + 1 words
    int32_t *fen            # (n >> 6) + 2 entries: Fenwick tree over the words
    Py_ssize_t nw           # number of words in use


cdef inline Py_ssize_t bitset_words(Py_ssize_t n) noexcept nogil:
    """Words needed for positions 0 .. n - 1 (allocate bits[nw], fen[nw + 1])."""
    return (n >> 6) + 1


cdef inline void bitset_clear(BitSet *s, Py_ssize_t n) noexcept nogil:
    """Empty the set and size it for positions 0 .. n - 1. O(n / 64)."""
    s.nw = bitset_words(n)
    memset(s.bits, 0, s.nw * sizeof(uint64_t))
    memset(s.fen, 0, (s.nw + 1) * sizeof(int32_t))


cdef inline void bitset_insert(BitSet *s, Py_ssize_t pos) noexcept nogil:
    """Add position pos (not yet a member). O(log(n / 64))."""
    s.bits[pos >> 6] |= (<uint64_t> 1) << (pos & 63)
    fen_add(s.fen, s.nw, pos >> 6, <int32_t> 1)


cdef inline int64_t bitset_count_below(const BitSet *s, Py_ssize_t pos) noexcept nogil:
    """Number of members < pos. O(log(n / 64))."""
    return (popcount64(s.bits[pos >> 6] & (((<uint64_t> 1) << (pos & 63)) - 1))
            + fen_prefix(s.fen, pos >> 6))
