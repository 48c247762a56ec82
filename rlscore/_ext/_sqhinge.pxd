# cython: language_level=3
from rlscore._ext._hinge_count cimport PairIndex

cdef object squared_hinge(const PairIndex *ix, const double[::1] p, weights, coef,
                          int n_threads)
