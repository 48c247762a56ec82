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


# ---------------------------------------------------------------------------------------
# Argument checks, once per call before the nogil loops: every array shape against m, p,
# r and the number of pairs, every pair index in 0..m-1 with s != e. O(n_pairs), cheap
# next to the O(n_pairs p) work; they make a wrong index from any caller a ValueError
# instead of a read outside an array.


cdef _check_call(Py_ssize_t m, tuple arrays, const Py_ssize_t[::1] starts,
                 const Py_ssize_t[::1] ends, double[:, ::1] out_s, double[:, ::1] out_e,
                 Py_ssize_t p):
    """The argument check of every leave-pair-out entry point. ``arrays`` holds
    ``(name, array, want)`` in the order they are checked, ``want`` the length of a
    vector or the (rows, cols) of a matrix; then ``ends`` must match ``starts``,
    ``out_s``/``out_e`` be (n_pairs, p) and every pair lie in 0..m-1 with s != e."""
    cdef Py_ssize_t n = starts.shape[0], k, s, e
    for name, a, want in arrays + (("ends", ends, n), ("out_s", out_s, (n, p)),
                                   ("out_e", out_e, (n, p))):
        got = tuple(a.shape)
        if isinstance(want, tuple):
            if got != want:
                raise ValueError(f"{name} has shape ({got[0]}, {got[1]}), expected "
                                 f"({want[0]}, {want[1]})")
        elif got[0] != want:
            raise ValueError(f"{name} has length {got[0]}, expected {want}")
    for k in range(n):
        s = starts[k]
        e = ends[k]
        if s < 0 or s >= m or e < 0 or e >= m:
            raise IndexError(f"pair {k} = ({s}, {e}) holds an index outside 0..{m - 1}")
        if s == e:
            raise ValueError(f"pair {k} holds out the same example twice ({s})")


cdef inline double _factor_dot(const double[:, ::1] U, const double[::1] w, Py_ssize_t s,
                               Py_ssize_t e) noexcept nogil:
    """sum_t U[s, t] U[e, t] w[t]: an off-diagonal entry of U diag(w) U^T. O(r)."""
    cdef Py_ssize_t t
    cdef double acc = 0.0
    for t in range(U.shape[1]):
        acc = acc + U[s, t] * U[e, t] * w[t]
    return acc


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
    """Leave-pair-out predictions from the dense symmetric m x m matrix M = lambda G,
    of which only the lower triangle (row >= column) is read. O(p) per pair."""
    cdef Py_ssize_t n = starts.shape[0]
    cdef Py_ssize_t k, s, e
    cdef double mse
    cdef Py_ssize_t m = M.shape[0], p = Y.shape[1]
    _check_call(m, (("M", M, (m, m)), ("bdiag", bdiag, m), ("R", R, (m, p)),
                    ("F", F, (m, p)), ("Y", Y, (m, p))), starts, ends, out_s, out_e, p)
    for k in prange(n, nogil=True, schedule="static"):
        s = starts[k]
        e = ends[k]
        if s > e:
            mse = M[s, e]
        else:
            mse = M[e, s]
        _solve_pair(M[s, s], mse, M[e, e], bdiag[s], bdiag[e], R, F, Y, s, e, k,
                    out_s, out_e)


def lpo_lowrank(const double[:, ::1] U, const double[::1] w, const double[::1] mdiag,
                const double[::1] bdiag, const double[:, ::1] R, const double[:, ::1] F,
                const double[:, ::1] Y,
                const Py_ssize_t[::1] starts, const Py_ssize_t[::1] ends,
                double[:, ::1] out_s, double[:, ::1] out_e):
    """Leave-pair-out predictions when M = lambda G has the off-diagonal entries
    -sum_t U[s,t] U[e,t] w[t] and the diagonal ``mdiag`` (computed by the caller in a
    cancellation-free form). O(r + p) per pair."""
    cdef Py_ssize_t k, s, e
    cdef Py_ssize_t m = U.shape[0], p = Y.shape[1]
    _check_call(m, (("w", w, U.shape[1]), ("mdiag", mdiag, m), ("bdiag", bdiag, m),
                    ("R", R, (m, p)), ("F", F, (m, p)), ("Y", Y, (m, p))),
                starts, ends, out_s, out_e, p)
    for k in prange(starts.shape[0], nogil=True, schedule="static"):
        s = starts[k]
        e = ends[k]
        _solve_pair(mdiag[s], -_factor_dot(U, w, s, e), mdiag[e], bdiag[s], bdiag[e],
                    R, F, Y, s, e, k, out_s, out_e)


# ---------------------------------------------------------------------------------------
# GlobalRankRLS leave-pair-out (Pahikkala et al. 2009, Sect. 3.4, eqs. 35-38, rewritten as
# in rlscore.core.rankrls).
#
# With the complement model's regularization mu' = lambda / (m - 2), M = mu' P G_c P (the
# lambda-scaled inverse of the centred problem), N = P - M (its hat matrix), R = P(Y - F)
# and F the predictions of the full model at mu', tau_i the offset sensitivity of row i,
# the predictions for the pair U = {s, e} of the model trained without it are
#     X = (M_UU)^{-1} R_U,    f_U = F_U - N_UU X - 1 (tau_s X_s + tau_e X_e).
# The off-diagonals satisfy M_se + N_se = offconst (= -1/m); the diagonals of both are
# passed in (computed by the caller without cancellation). O(p) per pair given the dense
# M, O(r + p) given a rank-r factor of N.


cdef inline void _rank_pair(double a, double b, double c, double ns, double ne, double nse,
                            const double[:, ::1] R, const double[:, ::1] F,
                            const double[::1] tau,
                            Py_ssize_t s, Py_ssize_t e, Py_ssize_t k,
                            double[:, ::1] out_s, double[:, ::1] out_e) noexcept nogil:
    # M_UU = [[a, b], [b, c]]; N_UU = [[ns, nse], [nse, ne]]
    cdef double det = a * c - b * b
    cdef double ts = tau[s]
    cdef double te = tau[e]
    cdef Py_ssize_t j
    cdef double rs, re, xs, xe, shift
    for j in range(R.shape[1]):
        rs = R[s, j]
        re = R[e, j]
        xs = (c * rs - b * re) / det
        xe = (a * re - b * rs) / det
        shift = ts * xs + te * xe
        out_s[k, j] = F[s, j] - ns * xs - nse * xe - shift
        out_e[k, j] = F[e, j] - nse * xs - ne * xe - shift


def rank_lpo_dense(const double[:, ::1] M, const double[::1] ndiag, double offconst,
                   const double[:, ::1] R, const double[:, ::1] F, const double[::1] tau,
                   const Py_ssize_t[::1] starts, const Py_ssize_t[::1] ends,
                   double[:, ::1] out_s, double[:, ::1] out_e):
    """GlobalRankRLS leave-pair-out from the dense symmetric m x m matrix M, of which
    only the upper triangle (i <= j) is read (N_se = offconst - M_se). O(p) per pair.
    Shapes and indices (0 <= s, e < m, s != e) are checked on entry."""
    cdef Py_ssize_t n = starts.shape[0]
    cdef Py_ssize_t k, s, e
    cdef double mse
    cdef Py_ssize_t m = M.shape[0], p = R.shape[1]
    _check_call(m, (("M", M, (m, m)), ("ndiag", ndiag, m), ("tau", tau, m),
                    ("R", R, (m, p)), ("F", F, (m, p))), starts, ends, out_s, out_e, p)
    for k in prange(n, nogil=True, schedule="static"):
        s = starts[k]
        e = ends[k]
        if s < e:
            mse = M[s, e]
        else:
            mse = M[e, s]
        _rank_pair(M[s, s], mse, M[e, e], ndiag[s], ndiag[e], offconst - mse,
                   R, F, tau, s, e, k, out_s, out_e)


def rank_lpo_lowrank(const double[:, ::1] U, const double[::1] omega,
                     const double[::1] mdiag, const double[::1] ndiag, double offconst,
                     const double[:, ::1] R, const double[:, ::1] F, const double[::1] tau,
                     const Py_ssize_t[::1] starts, const Py_ssize_t[::1] ends,
                     double[:, ::1] out_s, double[:, ::1] out_e):
    """GlobalRankRLS leave-pair-out from a rank-r factor: N_se = sum_t U[s,t] U[e,t]
    omega[t], M_se = offconst - N_se. O(r + p) per pair."""
    cdef Py_ssize_t k, s, e
    cdef double nse
    cdef Py_ssize_t m = U.shape[0], p = R.shape[1]
    _check_call(m, (("omega", omega, U.shape[1]), ("mdiag", mdiag, m), ("ndiag", ndiag, m),
                    ("tau", tau, m), ("R", R, (m, p)), ("F", F, (m, p))),
                starts, ends, out_s, out_e, p)
    for k in prange(starts.shape[0], nogil=True, schedule="static"):
        s = starts[k]
        e = ends[k]
        nse = _factor_dot(U, omega, s, e)
        _rank_pair(mdiag[s], offconst - nse, mdiag[e], ndiag[s], ndiag[e], nse,
                   R, F, tau, s, e, k, out_s, out_e)


def pair_concordance(const double[::1] y_start, const double[::1] y_end,
                     const double[::1] p_start, const double[::1] p_end):
    """Sum over pairs of 1 (predicted order agrees with the labels), 1/2 (predicted tie)
    or 0, and the number of pairs with different labels (pairs with tied labels are
    skipped). Returns (score_sum, n_pairs). O(n), nogil, OpenMP reduction.
    """
    cdef Py_ssize_t n = y_start.shape[0]
    cdef Py_ssize_t k
    cdef double total = 0.0
    cdef double count = 0.0
    cdef double dy, dp
    if y_end.shape[0] != n or p_start.shape[0] != n or p_end.shape[0] != n:
        raise ValueError("pair_concordance: the four vectors differ in length")
    for k in prange(n, nogil=True, schedule="static"):
        dy = y_start[k] - y_end[k]
        if dy != 0.0:
            dp = p_start[k] - p_end[k]
            count += 1.0
            if dp == 0.0:
                total += 0.5
            elif (dp > 0.0) == (dy > 0.0):
                total += 1.0
    return total, count
