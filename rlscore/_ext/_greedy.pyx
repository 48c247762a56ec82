# cython: language_level=3
"""Greedy forward selection for RLS: the per-step pass over the candidate features
(nogil, OpenMP-parallel over candidates).

State (see :mod:`rlscore.core.rls`): for the selected set S, G = (X_S X_S^T +
lambda I)^{-1} (m x m, never formed), the cache CT = (G X)^T (d x m, row j is G x_j),
P[j] = x_j^T G x_j, T = X^T a with a = G Y (d x l), and either the leave-one-out parts
a, dg = diag(G), or the leave-query-out parts M_q = (G_qq)^{-1} and R_q = M_q a_q per
query (rows permuted so every query is contiguous).

Adding the selected feature b (v = x_b, u = G v = old CT[b], c = 1 + P[b]) is the rank-one
update G' = G - u u^T / c, so for every remaining candidate j, with s_j = CT[j] . v:

    CT[j] -= (s_j / c) u,   P[j] -= s_j^2 / c,   T[j] -= (s_j / c) T[b].

Scoring candidate j (u_j = CT[j], t_j = T[j], c_j = 1 + P[j]) without forming anything:

* leave-one-out: residual_i = (a_i - u_ji t_j / c_j) / (dg_i - u_ji^2 / c_j)
  (Pahikkala, Airola & Salakoski 2010);
* leave-query-out: with z = M_q u_q, w = u_q . z, g = u_q^T R_q,
  residual_q = R_q + z (g - t_j)^T / (c_j - w)   (Sherman-Morrison on the block G_qq).

The pass fuses the update of row j with its scoring, so a step reads the cache once:
O(m l) per candidate for leave-one-out, O(sum_q n_q^2 + m l) for leave-query-out.
"""

import os

import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport INFINITY, isfinite


def _num_threads(requested=0):
    """Threads for the parallel loops: ``requested`` when positive, else
    OMP_NUM_THREADS when set, else the CPU count."""
    if requested > 0:
        return int(requested)
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", "0").split(",")[0])
    except ValueError:
        n = 0
    return max(1, n if n > 0 else (os.cpu_count() or 1))


cdef inline double _dot(const double* x, const double* y, Py_ssize_t n) noexcept nogil:
    # four independent accumulators: the sum is latency-bound otherwise
    cdef double s0 = 0.0
    cdef double s1 = 0.0
    cdef double s2 = 0.0
    cdef double s3 = 0.0
    cdef Py_ssize_t i = 0
    while i + 4 <= n:
        s0 = s0 + x[i] * y[i]
        s1 = s1 + x[i + 1] * y[i + 1]
        s2 = s2 + x[i + 2] * y[i + 2]
        s3 = s3 + x[i + 3] * y[i + 3]
        i = i + 4
    while i < n:
        s0 = s0 + x[i] * y[i]
        i = i + 1
    return (s0 + s1) + (s2 + s3)


cdef inline void _update_row(double[:, ::1] CT, const double[::1] vb, const double[::1] u,
                             double inv_cb, double[:, ::1] T, const double[::1] tb,
                             double[::1] P, Py_ssize_t j) noexcept nogil:
    cdef Py_ssize_t m = CT.shape[1]
    cdef Py_ssize_t l = T.shape[1]
    cdef Py_ssize_t i, k
    cdef double* row = &CT[j, 0]
    cdef const double* up = &u[0]
    cdef double s = _dot(row, &vb[0], m)
    cdef double coef = s * inv_cb
    for i in range(m):
        row[i] = row[i] - coef * up[i]
    P[j] = P[j] - s * coef
    for k in range(l):
        T[j, k] = T[j, k] - coef * tb[k]


DEF _BLOCK = 256


cdef inline double _sumsq(const double* x, Py_ssize_t n) noexcept nogil:
    return _dot(x, x, n)


cdef inline void _loo_residuals(const double* up, const double* ap, const double* dp,
                                double t, double inv_c, double* out,
                                Py_ssize_t n) noexcept nogil:
    # element-wise (vectorizable): out_i = (a_i - u_i t) / (dg_i - u_i^2 / c)
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = (ap[i] - up[i] * t) / (dp[i] - up[i] * up[i] * inv_c)


cdef inline double _loo_score(const double[:, ::1] CT, const double[:, ::1] T,
                              const double[::1] P, const double[:, ::1] A,
                              const double[::1] dg, Py_ssize_t j) noexcept nogil:
    cdef Py_ssize_t m = CT.shape[1]
    cdef Py_ssize_t l = T.shape[1]
    cdef Py_ssize_t i, k, n
    cdef double inv_c = 1.0 / (1.0 + P[j])
    cdef const double* row = &CT[j, 0]
    cdef const double* ap = &A[0, 0]
    cdef const double* dp = &dg[0]
    cdef double acc = 0.0
    cdef double buf[_BLOCK]
    cdef double uij, inv_den, e
    if l == 1:
        i = 0
        while i < m:
            n = m - i if m - i < _BLOCK else _BLOCK
            _loo_residuals(row + i, ap + i, dp + i, T[j, 0] * inv_c, inv_c, buf, n)
            acc = acc + _sumsq(buf, n)
            i = i + n
    else:
        for i in range(m):
            uij = row[i]
            inv_den = 1.0 / (dp[i] - uij * uij * inv_c)
            for k in range(l):
                e = (ap[i * l + k] - uij * T[j, k] * inv_c) * inv_den
                acc = acc + e * e
    if not isfinite(acc):
        return INFINITY
    return acc


cdef _check_step(str name, const double[:, ::1] CT, const double[::1] vb,
                 const double[::1] u, const double[:, ::1] T, const double[::1] tb,
                 const double[::1] P, const unsigned char[::1] candidate,
                 const double[::1] scores, bint consistent):
    """The shape check shared by the greedy steps (``consistent``: the caller's own
    arrays fit): d candidate rows of CT (d x m), T (d x l), P, candidate, scores."""
    cdef Py_ssize_t d = CT.shape[0]
    cdef Py_ssize_t m = CT.shape[1]
    if (not consistent or vb.shape[0] != m or u.shape[0] != m or T.shape[0] != d
            or tb.shape[0] != T.shape[1] or P.shape[0] != d or candidate.shape[0] != d
            or scores.shape[0] != d):
        raise ValueError(f"{name}: inconsistent array shapes")


cdef inline bint _candidate_row(double[:, ::1] CT, const double[::1] vb,
                                const double[::1] u, double inv_cb, bint do_update,
                                double[:, ::1] T, const double[::1] tb, double[::1] P,
                                const unsigned char[::1] candidate, double[::1] scores,
                                Py_ssize_t j) noexcept nogil:
    """Row j of a greedy step: +inf and False for a non-candidate, else the pending
    rank-one update (``do_update``) applied and True (its score is to be computed)."""
    if candidate[j] == 0:
        scores[j] = INFINITY
        return False
    if do_update:
        _update_row(CT, vb, u, inv_cb, T, tb, P, j)
    return True


def loo_pass(double[:, ::1] CT, const double[::1] vb, const double[::1] u, double inv_cb,
             bint do_update, double[:, ::1] T, const double[::1] tb, double[::1] P,
             const double[:, ::1] A, const double[::1] dg,
             const unsigned char[::1] candidate, double[::1] scores, int num_threads=0):
    """One greedy step with the leave-one-out criterion, in place.

    For every candidate row j (``candidate[j]`` nonzero): if ``do_update``, apply the
    rank-one update of the feature just selected (``vb`` its column, ``u`` the old row
    of CT, ``inv_cb`` = 1 / c_b, ``tb`` the old row of T) to CT[j], P[j], T[j]; then
    store the sum of squared LOO residuals of adding j in ``scores[j]``. Other rows are
    left alone and get +inf. ``A`` and ``dg`` must already hold the updated a and
    diag(G). O(m l) per candidate; parallel over candidates (``num_threads`` threads,
    0: see :func:`_num_threads`).
    """
    cdef Py_ssize_t m = CT.shape[1]
    _check_step("loo_pass", CT, vb, u, T, tb, P, candidate, scores,
                A.shape[0] == m and A.shape[1] == T.shape[1] and dg.shape[0] == m)
    cdef Py_ssize_t j
    cdef int nt = _num_threads(num_threads)
    with nogil:
        for j in prange(CT.shape[0], schedule="guided", num_threads=nt):
            if _candidate_row(CT, vb, u, inv_cb, do_update, T, tb, P, candidate, scores,
                              j):
                scores[j] = _loo_score(CT, T, P, A, dg, j)


cdef inline double _lqo_score(const double[:, ::1] CT, const double[:, ::1] T,
                              const double[::1] P, const Py_ssize_t[::1] qptr,
                              const double[::1] Mflat, const Py_ssize_t[::1] mptr,
                              const double[:, ::1] R, Py_ssize_t j,
                              double* z) noexcept nogil:
    cdef Py_ssize_t nq = qptr.shape[0] - 1
    cdef Py_ssize_t l = T.shape[1]
    cdef Py_ssize_t q, o, n, a, b, k, base
    cdef double c = 1.0 + P[j]
    cdef double acc = 0.0
    cdef double w, g, zi, kappa, e, denom
    for q in range(nq):
        o = qptr[q]
        n = qptr[q + 1] - o
        base = mptr[q]
        w = 0.0
        for a in range(n):
            zi = 0.0
            for b in range(n):
                zi = zi + Mflat[base + a * n + b] * CT[j, o + b]
            z[a] = zi
            w = w + CT[j, o + a] * zi
        denom = c - w
        for k in range(l):
            g = 0.0
            for a in range(n):
                g = g + CT[j, o + a] * R[o + a, k]
            kappa = (g - T[j, k]) / denom
            for a in range(n):
                e = R[o + a, k] + z[a] * kappa
                acc = acc + e * e
    if not isfinite(acc):
        return INFINITY
    return acc


def _check_blocks(const Py_ssize_t[::1] qptr, const Py_ssize_t[::1] mptr,
                  Py_ssize_t mflat_size, Py_ssize_t m):
    cdef Py_ssize_t nq = qptr.shape[0] - 1
    cdef Py_ssize_t q, n, maxn = 0
    if nq < 1 or mptr.shape[0] != nq or qptr[0] != 0 or qptr[nq] != m:
        raise ValueError("inconsistent query blocks")
    for q in range(nq):
        n = qptr[q + 1] - qptr[q]
        if n < 1 or mptr[q] < 0 or mptr[q] + n * n > mflat_size:
            raise ValueError("inconsistent query blocks")
        if n > maxn:
            maxn = n
    return maxn


def lqo_pass(double[:, ::1] CT, const double[::1] vb, const double[::1] u, double inv_cb,
             bint do_update, double[:, ::1] T, const double[::1] tb, double[::1] P,
             const Py_ssize_t[::1] qptr, const double[::1] Mflat,
             const Py_ssize_t[::1] mptr, const double[:, ::1] R,
             const unsigned char[::1] candidate, double[::1] scores, int num_threads=0):
    """One greedy step with the leave-query-out criterion, in place.

    As :func:`loo_pass`, with the queries given as contiguous row blocks
    ``qptr[q]:qptr[q+1]``, ``M_q`` stored row-major at ``Mflat[mptr[q]:]`` and the
    current leave-query-out residuals in ``R`` (m x l). O(sum_q n_q^2 + m l) per
    candidate; parallel over candidates.
    """
    cdef Py_ssize_t m = CT.shape[1]
    _check_step("lqo_pass", CT, vb, u, T, tb, P, candidate, scores,
                R.shape[0] == m and R.shape[1] == T.shape[1])
    cdef Py_ssize_t maxn = _check_blocks(qptr, mptr, Mflat.shape[0], m)
    cdef int nt = _num_threads(num_threads)
    cdef double[:, ::1] work = np.empty((nt, maxn))
    cdef Py_ssize_t j
    with nogil:
        for j in prange(CT.shape[0], schedule="guided", num_threads=nt):
            if _candidate_row(CT, vb, u, inv_cb, do_update, T, tb, P, candidate, scores,
                              j):
                scores[j] = _lqo_score(CT, T, P, qptr, Mflat, mptr, R, j,
                                       &work[threadid(), 0])


def lqo_update(const double[::1] u, double cb, const double[::1] tb,
               const Py_ssize_t[::1] qptr, double[::1] Mflat, const Py_ssize_t[::1] mptr,
               double[:, ::1] R, int num_threads=0):
    """Add the selected feature to the leave-query-out parts, in place: for each query,
    z = M_q u_q, w = u_q . z, R_q += z (u_q^T R_q - tb)^T / (cb - w) and
    M_q += z z^T / (cb - w). O(sum_q n_q^2 + m l); parallel over queries."""
    cdef Py_ssize_t m = u.shape[0]
    cdef Py_ssize_t l = R.shape[1]
    if R.shape[0] != m or tb.shape[0] != l:
        raise ValueError("lqo_update: inconsistent array shapes")
    cdef Py_ssize_t maxn = _check_blocks(qptr, mptr, Mflat.shape[0], m)
    cdef Py_ssize_t nq = qptr.shape[0] - 1
    cdef int nt = _num_threads(num_threads)
    cdef double[:, ::1] work = np.empty((nt, maxn))
    cdef Py_ssize_t q
    with nogil:
        for q in prange(nq, schedule="guided", num_threads=nt):
            _lqo_update_block(u, cb, tb, qptr, Mflat, mptr, R, q, &work[threadid(), 0])


cdef inline void _lqo_update_block(const double[::1] u, double cb, const double[::1] tb,
                                   const Py_ssize_t[::1] qptr, double[::1] Mflat,
                                   const Py_ssize_t[::1] mptr, double[:, ::1] R,
                                   Py_ssize_t q, double* z) noexcept nogil:
    cdef Py_ssize_t l = R.shape[1]
    cdef Py_ssize_t o = qptr[q]
    cdef Py_ssize_t n = qptr[q + 1] - o
    cdef Py_ssize_t base = mptr[q]
    cdef Py_ssize_t a, b, k
    cdef double w = 0.0
    cdef double g, zi, kappa, denom
    for a in range(n):
        zi = 0.0
        for b in range(n):
            zi = zi + Mflat[base + a * n + b] * u[o + b]
        z[a] = zi
        w = w + u[o + a] * zi
    denom = cb - w
    for k in range(l):
        g = 0.0
        for a in range(n):
            g = g + u[o + a] * R[o + a, k]
        kappa = (g - tb[k]) / denom
        for a in range(n):
            R[o + a, k] = R[o + a, k] + z[a] * kappa
    for a in range(n):
        for b in range(n):
            Mflat[base + a * n + b] = Mflat[base + a * n + b] + z[a] * z[b] / denom
