# cython: language_level=3
"""Shared layout of the pairwise-hinge counting kernels (see ``_hinge_count.pyx``)."""

from libc.stdint cimport int32_t, int64_t

from rlscore._ext._fenwick cimport BitSet
from rlscore._ext._ostree cimport PackedTree, WideTree


ctypedef struct PairItem:       # per example, fixed by the utilities
    int32_t ypos                # position in its query's utility order
    int32_t rstart              # start of its run of equal utilities (same frame)
    int32_t rend                # end of the run (exclusive)
    int32_t q                   # query code


ctypedef struct PredKey:        # per example in prediction order (per evaluation)
    double p
    int32_t ypos
    int32_t rstart
    int32_t rend
    int32_t pad


ctypedef struct PairIndex:      # the pair structure, built by RankingPairs
    Py_ssize_t m
    Py_ssize_t n_queries
    Py_ssize_t max_query
    const PairItem *items       # (m,) example order
    const Py_ssize_t *order     # (m,) examples sorted by (query, utility)
    const Py_ssize_t *run_ptr   # (n_runs + 1,) runs of equal utility in that order
    const Py_ssize_t *qrun_ptr  # (n_queries + 1,) the runs of each query
    const Py_ssize_t *qstart    # (n_queries + 1,) the examples of each query


cdef enum:
    ENGINE_RBTREE = 0
    ENGINE_FENWICK = 1
    ENGINE_RBTREE_WIDE = 2      # the tree engine, 12-byte nodes at any size (for tests)


cdef int check_finite(const double[::1] p) except -1

cdef int gather_by_prediction(const PairIndex *ix, const double[::1] p, PredKey *keys,
                              Py_ssize_t *seg) except -1

ctypedef struct RankBounds:     # per example in utility order (the tree engine)
    int32_t rank                # its rank in prediction order within the query
    int32_t hi                  # first rank whose prediction is >= fl(p_i + 1)
    int32_t lo                  # first rank whose fl(p + 1) > p_i


ctypedef struct CountScratch:   # per thread, 128 bytes apart (no shared cache line)
    PackedTree ptree            # the tree for queries of <= PACKED_MAX_CAPACITY examples
    WideTree wtree              # the tree for larger ones (or ENGINE_RBTREE_WIDE)
    BitSet bits
    char pad[128]


ctypedef struct CountWork:      # the buffers of one evaluation, reusable (zeroed: empty)
    Py_ssize_t m                # the sizes they were allocated for
    Py_ssize_t max_query
    int engine                  # the engine and threads of ``scratch``
    int nt
    PredKey *keys               # (m,)
    Py_ssize_t *seg             # (m,)
    RankBounds *bd              # (m,), tree engine only
    int64_t *c                  # (m,)
    int64_t *d                  # (m,)
    CountScratch *scratch       # (nt,)


cdef void work_free(CountWork *w) noexcept nogil

cdef int work_reserve(CountWork *w, const PairIndex *ix, int engine, int nt) except -1

cdef int count_pairs(const PairIndex *ix, const double[::1] p, int engine, int n_threads,
                     int64_t *cc, int64_t *dd, const double *weights, double *coef,
                     double *loss, CountWork *keep=*) except -1
