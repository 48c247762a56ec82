# cython: language_level=3
"""The small quadratic program of the bundle method (rlscore.core.optim): minimize
1/2 a^T Q a - b^T a over the probability simplex, by SMO (``simplex_qp``) or exactly by
a primal active-set method (``simplex_qp_active``)."""

import numpy as np

cimport cython
from scipy.linalg.cython_lapack cimport dsysv, dsytrs


@cython.cdivision(True)
def simplex_qp(const double[:, ::1] Q, const double[::1] b, double[::1] alpha,
               double tol, Py_ssize_t max_iter):
    """Minimize 1/2 a^T Q a - b^T a over the simplex {a >= 0, sum a = 1}.

    Sequential minimal optimization with the second-order working-set selection of
    Fan, Chen & Lin (2005), warm-started from ``alpha`` (feasible on entry, updated in
    place). Stops when the KKT violation max{g_i : a_i > 0} - min g is <= tol, which
    bounds the suboptimality of the objective by tol.

    Returns (iterations, violation). O(t) per iteration, O(t^2) to start.
    """
    cdef Py_ssize_t t = b.shape[0]
    cdef Py_ssize_t i, j, k, it = 0
    cdef double gmax, gmin, curv, gain, best, delta, diff, tau = 1e-12
    cdef double scale
    if Q.shape[0] != t or Q.shape[1] != t or alpha.shape[0] != t:
        raise ValueError("Q, b and alpha sizes differ")
    if t == 0:
        raise ValueError("empty QP")
    g = np.empty(t)
    cdef double[::1] gv = g
    with nogil:
        scale = 0.0
        for i in range(t):
            if Q[i, i] > scale:
                scale = Q[i, i]
        tau = 1e-15 * scale + 1e-300
        for i in range(t):
            gv[i] = -b[i]
            for k in range(t):
                gv[i] += Q[i, k] * alpha[k]
        while True:
            # i: largest gradient among the support; gmin: smallest gradient overall
            i = -1
            gmax = 0.0
            gmin = gv[0]
            for k in range(t):
                if alpha[k] > 0.0 and (i < 0 or gv[k] > gmax):
                    i = k
                    gmax = gv[k]
                if gv[k] < gmin:
                    gmin = gv[k]
            if i < 0 or gmax - gmin <= tol or it >= max_iter:
                break
            # j: the partner with the best second-order decrease
            j = -1
            best = 0.0
            for k in range(t):
                diff = gmax - gv[k]
                if diff > 0.0:
                    curv = Q[i, i] + Q[k, k] - 2.0 * Q[i, k]
                    if curv < tau:
                        curv = tau
                    gain = diff * diff / curv
                    if gain > best:
                        best = gain
                        j = k
            if j < 0:
                break
            diff = gmax - gv[j]
            curv = Q[i, i] + Q[j, j] - 2.0 * Q[i, j]
            if curv <= tau:
                delta = alpha[i]
            else:
                delta = diff / curv
                if delta > alpha[i]:
                    delta = alpha[i]
            alpha[i] -= delta
            alpha[j] += delta
            if alpha[i] < 1e-300:
                alpha[i] = 0.0
            for k in range(t):
                gv[k] += delta * (Q[k, j] - Q[k, i])
            it += 1
            if it % 64 == 0:
                # refresh the gradient against drift
                for k in range(t):
                    gv[k] = -b[k]
                    for i in range(t):
                        gv[k] += Q[k, i] * alpha[i]
    return it, gmax - gmin


cdef inline double fabs_(double x) noexcept nogil:
    return x if x >= 0 else -x


@cython.cdivision(True)
def simplex_qp_active(const double[:, ::1] Q, const double[::1] b, double[::1] alpha,
                      Py_ssize_t max_iter):
    """Minimize 1/2 a^T Q a - b^T a over the simplex exactly with the primal active-set
    method, for a positive definite Q (add a tiny ridge to a semidefinite one).

    ``alpha`` is a feasible warm start, overwritten with the solution. Every step solves
    the KKT system of the free set F, [[Q_FF, 1], [1^T, 0]] [x; nu] = [b_F; 1], by a
    symmetric indefinite (Bunch-Kaufman, LAPACK dsysv) factorization, O(k^3 / 3) for k
    free variables, plus one step of iterative refinement. The bordered system keeps
    sum(x) = 1 to rounding even when Q_FF is nearly singular (planes that outnumber the
    dimension), where eliminating nu through Q_FF^{-1} would cancel. A step that leaves
    the simplex stops at the first variable reaching 0 (removed from F); at a feasible
    step the variable with the most negative reduced gradient enters F, or the KKT
    conditions hold and it returns.

    Returns 0 on success, 1 when max_iter steps did not suffice, 2 when the KKT matrix
    was singular (alpha is then feasible but not optimal).
    """
    cdef Py_ssize_t t = b.shape[0]
    cdef Py_ssize_t i, j, k, it, nf, jmin, blocking
    cdef int n, nrhs = 1, info = 0, lwork
    cdef char uplo = b'L'
    cdef double nu, step, r, gmin, gi, scale = 0.0, ssum
    if Q.shape[0] != t or Q.shape[1] != t or alpha.shape[0] != t or t == 0:
        raise ValueError("Q, b and alpha sizes differ or are empty")
    lwork = <int> (64 * (t + 1))
    M = np.empty((t + 1) * (t + 1))
    R = np.empty(t + 1)
    E = np.empty(t + 1)
    W = np.empty(lwork)
    piv_a = np.empty(t + 1, dtype=np.intc)
    idx_a = np.empty(t, dtype=np.intp)
    free_a = np.zeros(t, dtype=np.uint8)
    cdef double[::1] Mv = M, Rv = R, Ev = E, Wv = W
    cdef int[::1] piv = piv_a
    cdef Py_ssize_t[::1] idx = idx_a
    cdef unsigned char[::1] free = free_a
    with nogil:
        for i in range(t):
            if fabs_(Q[i, i]) > scale:
                scale = fabs_(Q[i, i])
            if fabs_(b[i]) > scale:
                scale = fabs_(b[i])
            free[i] = alpha[i] > 0.0
        for it in range(max_iter):
            nf = 0
            for i in range(t):
                if free[i]:
                    idx[nf] = i
                    nf += 1
            if nf == 0:
                info = 3
                break
            # M = [[Q_FF, 1], [1^T, 0]] (symmetric: row-major = column-major)
            n = <int> (nf + 1)
            for j in range(nf):
                for k in range(nf):
                    Mv[j * n + k] = Q[idx[j], idx[k]]
                Mv[j * n + nf] = 1.0
                Mv[nf * n + j] = 1.0
                Rv[j] = b[idx[j]]
            Mv[nf * n + nf] = 0.0
            Rv[nf] = 1.0
            dsysv(&uplo, &n, &nrhs, &Mv[0], &n, &piv[0], &Rv[0], &n, &Wv[0], &lwork,
                  &info)
            if info != 0:
                info = 2
                break
            # one step of iterative refinement against the unfactored system
            ssum = 0.0
            for j in range(nf):
                Ev[j] = b[idx[j]] - Rv[nf]
                for k in range(nf):
                    Ev[j] -= Q[idx[j], idx[k]] * Rv[k]
                ssum += Rv[j]
            Ev[nf] = 1.0 - ssum
            dsytrs(&uplo, &n, &nrhs, &Mv[0], &n, &piv[0], &Ev[0], &n, &info)
            for j in range(nf + 1):
                Rv[j] += Ev[j]
            nu = Rv[nf]             # Q_FF x - b_F = -nu 1
            # feasible?  else step towards x until the first variable reaches 0
            step = 1.0
            blocking = -1
            for j in range(nf):
                if Rv[j] < 0.0:
                    r = alpha[idx[j]] / (alpha[idx[j]] - Rv[j])
                    if r < step:
                        step = r
                        blocking = j
            if blocking >= 0:
                ssum = 0.0
                for j in range(nf):
                    alpha[idx[j]] += step * (Rv[j] - alpha[idx[j]])
                    if alpha[idx[j]] < 0.0 or j == blocking:
                        alpha[idx[j]] = 0.0
                    ssum += alpha[idx[j]]
                for j in range(nf):
                    alpha[idx[j]] /= ssum
                    if alpha[idx[j]] <= 0.0:
                        free[idx[j]] = 0
                continue
            for i in range(t):
                alpha[i] = 0.0
            for j in range(nf):
                alpha[idx[j]] = Rv[j]
            # reduced gradients of the variables at 0: g_i - g_F, g_F = -nu
            jmin = -1
            gmin = -1e-12 * scale
            for i in range(t):
                if not free[i]:
                    gi = -b[i] + nu
                    for j in range(nf):
                        gi += Q[i, idx[j]] * Rv[j]
                    if gi < gmin:
                        gmin = gi
                        jmin = i
            if jmin < 0:
                info = 0
                break
            free[jmin] = 1
        else:
            info = 1
    return info
