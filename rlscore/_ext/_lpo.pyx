# cython: language_level=3
"""Leave-pair-out per-pair loops (nogil, OpenMP-parallel over pairs).

For a hold-out set U = {s, e} of the RLS family, with G = (K + lambda I)^{-1},
M = lambda G, B = K G = I - M (the hat matrix), R = lambda G Y and F = B Y, the
predictions of the model retrained without U are equivalently

    f_U = Y_U - (M_UU)^{-1} R_U                (Airola 2011 thesis, Proposition 1)
    f_U = (M_UU)^{-1} (F_U - B_UU Y_U)         (Pahikkala et al., Theorem 1)

The first loses digits to cancellation when lambda is large (f_U small against Y_U),
the second when lambda is small (B_UU near the identity), so each pair uses the first
when the mean of B_ss and B_ee is at least 1/2, the second otherwise. B_UU has the
off-diagonal -M_se and its own diagonal (passed in, computed without cancellation).
Only the 2x2 block is needed: O(p) per pair given a dense M, O(r + p) given a rank-r
factor.
"""

from cython.parallel cimport prange


cdef inline void _solve_pair(double a, double b, double c, double bs, double be,
                             const double[:, ::1] R, const double[:, ::1] F,
                             const double[:, ::1] Y,
                             Py_ssize_t s, Py_ssize_t e, Py_ssize_t k,
                             double[:, ::1] out_s, double[:, ::1] out_e) noexcept nogil:
    # M_UU = [[a, b], [b, c]]; B_UU = [[bs, -b], [-b, be]]
    cdef double det = a * c - b * b
    cdef Py_ssize_t j
    cdef double rs, re
    cdef bint theorem1 = (bs + be) < 1.0
    for j in range(Y.shape[1]):
        if theorem1:
            rs = F[s, j] - bs * Y[s, j] + b * Y[e, j]
            re = F[e, j] - be * Y[e, j] + b * Y[s, j]
            out_s[k, j] = (c * rs - b * re) / det
            out_e[k, j] = (a * re - b * rs) / det
        else:
            rs = R[s, j]
            re = R[e, j]
            out_s[k, j] = Y[s, j] - (c * rs - b * re) / det
            out_e[k, j] = Y[e, j] - (a * re - b * rs) / det


def lpo_dense(const double[:, ::1] M, const double[::1] bdiag,
              const double[:, ::1] R, const double[:, ::1] F, const double[:, ::1] Y,
              const Py_ssize_t[::1] starts, const Py_ssize_t[::1] ends,
              double[:, ::1] out_s, double[:, ::1] out_e):
    """Leave-pair-out predictions from the dense m x m matrix M = lambda G.
    O(p) per pair."""
    cdef Py_ssize_t n = starts.shape[0]
    cdef Py_ssize_t k, s, e
    for k in prange(n, nogil=True, schedule="static"):
        s = starts[k]
        e = ends[k]
        _solve_pair(M[s, s], M[s, e], M[e, e], bdiag[s], bdiag[e], R, F, Y, s, e, k,
                    out_s, out_e)


def lpo_lowrank(const double[:, ::1] U, const double[::1] w, const double[::1] mdiag,
                const double[::1] bdiag, const double[:, ::1] R, const double[:, ::1] F,
                const double[:, ::1] Y,
                const Py_ssize_t[::1] starts, const Py_ssize_t[::1] ends,
                double[:, ::1] out_s, double[:, ::1] out_e):
    """Leave-pair-out predictions when M = lambda G has the off-diagonal entries
    -sum_t U[s,t] U[e,t] w[t] and the diagonal ``mdiag`` (computed by the caller in a
    cancellation-free form). O(r + p) per pair."""
    cdef Py_ssize_t n = starts.shape[0]
    cdef Py_ssize_t r = U.shape[1]
    cdef Py_ssize_t k, s, e, t
    cdef double off
    for k in prange(n, nogil=True, schedule="static"):
        s = starts[k]
        e = ends[k]
        off = 0.0
        for t in range(r):
            off = off - U[s, t] * U[e, t] * w[t]
        _solve_pair(mdiag[s], off, mdiag[e], bdiag[s], bdiag[e], R, F, Y, s, e, k,
                    out_s, out_e)
