# cython: language_level=3
"""Sampled Kronecker products (the generalized vec trick), nogil and OpenMP-parallel.

The product computed by :mod:`rlscore.core.structure` is

    u[h] = sum_k A[rA[h], cA[k]] * B[rB[h], cB[k]] * v[k]

(u = R (B kron A) C^T v for the row/column sampling matrices R, C). It is split in two
phases through the intermediate T = A V (rows of A x columns of B), where V is the
sparse matrix with V[cA[k], cB[k]] += v[k]:

* scatter: T[:, cB[k]] += v[k] * A[:, cA[k]] for every k: O(rows(A) * len(v));
* gather:  u[h] = <T[rA[h], :], B[rB[h], :]>:              O(len(u) * cols(B)).

The caller picks which factor plays A (the cheaper order) and may replace either phase
by a dense BLAS product when the sampling is dense. The kernels here work on
transposed, C-contiguous layouts so that every inner loop is a contiguous AXPY or dot
product, blocked so that the block of the factor and of T stays in the L2 cache; the
inner loops are compiled for AVX-512, AVX2 and baseline x86-64 and the best one is
picked at load time (GCC on x86-64), or compiled once elsewhere.

Every function re-checks the shapes and the index ranges (an O(n) scan) before it
releases the GIL, so a wrong call raises instead of crashing the interpreter. Index
arrays are int32 (half the memory traffic of int64); the Python layer converts.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t

cdef extern from *:
    """
    /* omp.h only where the compiler has OpenMP (Apple clang has none; without this
       guard the module would not compile there, and elsewhere it would not import:
       omp_get_max_threads unresolved); serially one thread. */
    #ifdef _OPENMP
    #include <omp.h>
    #define rls_max_threads() omp_get_max_threads()
    #else
    #define rls_max_threads() 1
    #endif
    """
    int rls_max_threads() noexcept nogil

cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(_MSC_VER) && !defined(__clang__)
    #define restrict __restrict   /* MSVC spells C99's restrict this way */
    #endif
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define RLS_KRON_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
    #else
    #define RLS_KRON_CLONES
    #endif

    #if defined(__GNUC__)
    #define RLS_PREFETCH(p) __builtin_prefetch(p)
    #else
    #define RLS_PREFETCH(p) ((void)0)
    #endif
    #if defined(__GNUC__)
    typedef double rls_v8d __attribute__((vector_size(64)));
    #define RLS_LOAD8(dst, src) __builtin_memcpy(&(dst), (src), 64)
    #define RLS_STORE8(dst, src) __builtin_memcpy((dst), &(src), 64)
    static inline __attribute__((always_inline)) double rls_hsum8(rls_v8d a)
    {
        return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
    }
    #endif

    /* Tt[cB[k], 0:len] += v[k] * AT[cA[k], 0:len] for k = 0 .. nv-1 (the callers pass
       base pointers already offset to a column block, and the row strides).
       The k are sorted by cB, so a run of equal cB updates one row segment: four
       source rows are combined per pass over the segment. */
    RLS_KRON_CLONES
    static void rls_kron_scatter_block(const double *restrict AT, ptrdiff_t lda,
                                       const int32_t *restrict cA,
                                       const int32_t *restrict cB,
                                       const double *restrict v, ptrdiff_t nv,
                                       double *restrict Tt, ptrdiff_t ldt,
                                       ptrdiff_t len)
    {
        const ptrdiff_t i0 = 0;
        ptrdiff_t k = 0;
        while (k < nv) {
            const int32_t b = cB[k];
            ptrdiff_t e = k + 1;
            while (e < nv && cB[e] == b) e++;
            double *restrict y = Tt + (ptrdiff_t)b * ldt + i0;
            for (; k + 4 <= e; k += 4) {
                if (k + 8 < nv) {
                    RLS_PREFETCH(AT + (ptrdiff_t)cA[k + 4] * lda + i0);
                    RLS_PREFETCH(AT + (ptrdiff_t)cA[k + 5] * lda + i0);
                    RLS_PREFETCH(AT + (ptrdiff_t)cA[k + 6] * lda + i0);
                    RLS_PREFETCH(AT + (ptrdiff_t)cA[k + 7] * lda + i0);
                }
                const double a0 = v[k], a1 = v[k + 1], a2 = v[k + 2], a3 = v[k + 3];
                const double *restrict x0 = AT + (ptrdiff_t)cA[k] * lda + i0;
                const double *restrict x1 = AT + (ptrdiff_t)cA[k + 1] * lda + i0;
                const double *restrict x2 = AT + (ptrdiff_t)cA[k + 2] * lda + i0;
                const double *restrict x3 = AT + (ptrdiff_t)cA[k + 3] * lda + i0;
                ptrdiff_t i = 0;
    #if defined(__GNUC__)
                for (; i + 8 <= len; i += 8) {
                    rls_v8d yy, p0, p1, p2, p3;
                    RLS_LOAD8(yy, y + i);
                    RLS_LOAD8(p0, x0 + i);
                    RLS_LOAD8(p1, x1 + i);
                    RLS_LOAD8(p2, x2 + i);
                    RLS_LOAD8(p3, x3 + i);
                    yy += (a0 * p0 + a1 * p1) + (a2 * p2 + a3 * p3);
                    RLS_STORE8(y + i, yy);
                }
    #endif
                for (; i < len; i++)
                    y[i] += (a0 * x0[i] + a1 * x1[i]) + (a2 * x2[i] + a3 * x3[i]);
            }
            for (; k < e; k++) {
                const double a = v[k];
                const double *restrict x = AT + (ptrdiff_t)cA[k] * lda + i0;
                for (ptrdiff_t i = 0; i < len; i++) y[i] += a * x[i];
            }
        }
    }

    /* u[h] += <T[rA[h], 0:len], B[rB[h], 0:len]> for h = h0 .. h1-1 (base pointers
       offset to a column block by the callers).
       The h are sorted by rB: for a run of equal rB the segment of B is shared and
       four rows of T are dotted with it per pass. */
    RLS_KRON_CLONES
    static void rls_kron_gather_block(const double *restrict T, ptrdiff_t ldt,
                                      const int32_t *restrict rA,
                                      const double *restrict B, ptrdiff_t ldb,
                                      const int32_t *restrict rB,
                                      double *restrict u, ptrdiff_t h0, ptrdiff_t h1,
                                      ptrdiff_t len)
    {
        const ptrdiff_t j0 = 0;
        ptrdiff_t h = h0;
        while (h < h1) {
            const int32_t b = rB[h];
            ptrdiff_t e = h + 1;
            while (e < h1 && rB[e] == b) e++;
            const double *restrict y = B + (ptrdiff_t)b * ldb + j0;
            for (; h + 4 <= e; h += 4) {
                if (h + 8 < h1) {
                    RLS_PREFETCH(T + (ptrdiff_t)rA[h + 4] * ldt + j0);
                    RLS_PREFETCH(T + (ptrdiff_t)rA[h + 5] * ldt + j0);
                    RLS_PREFETCH(T + (ptrdiff_t)rA[h + 6] * ldt + j0);
                    RLS_PREFETCH(T + (ptrdiff_t)rA[h + 7] * ldt + j0);
                }
                const double *restrict x0 = T + (ptrdiff_t)rA[h] * ldt + j0;
                const double *restrict x1 = T + (ptrdiff_t)rA[h + 1] * ldt + j0;
                const double *restrict x2 = T + (ptrdiff_t)rA[h + 2] * ldt + j0;
                const double *restrict x3 = T + (ptrdiff_t)rA[h + 3] * ldt + j0;
                double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
                ptrdiff_t j = 0;
    #if defined(__GNUC__)
                rls_v8d c0 = {0, 0, 0, 0, 0, 0, 0, 0}, c1 = c0, c2 = c0, c3 = c0;
                for (; j + 8 <= len; j += 8) {
                    rls_v8d yy, p0, p1, p2, p3;
                    RLS_LOAD8(yy, y + j);
                    RLS_LOAD8(p0, x0 + j);
                    RLS_LOAD8(p1, x1 + j);
                    RLS_LOAD8(p2, x2 + j);
                    RLS_LOAD8(p3, x3 + j);
                    c0 += p0 * yy;
                    c1 += p1 * yy;
                    c2 += p2 * yy;
                    c3 += p3 * yy;
                }
                s0 = rls_hsum8(c0);
                s1 = rls_hsum8(c1);
                s2 = rls_hsum8(c2);
                s3 = rls_hsum8(c3);
    #endif
                for (; j < len; j++) {
                    s0 += x0[j] * y[j];
                    s1 += x1[j] * y[j];
                    s2 += x2[j] * y[j];
                    s3 += x3[j] * y[j];
                }
                u[h] += s0;
                u[h + 1] += s1;
                u[h + 2] += s2;
                u[h + 3] += s3;
            }
            for (; h < e; h++) {
                const double *restrict x = T + (ptrdiff_t)rA[h] * ldt + j0;
                double s = 0.0;
                for (ptrdiff_t j = 0; j < len; j++) s += x[j] * y[j];
                u[h] += s;
            }
        }
    }
    """
    void rls_kron_scatter_block(const double *AT, Py_ssize_t lda, const int32_t *cA,
                                const int32_t *cB, const double *v, Py_ssize_t nv,
                                double *Tt, Py_ssize_t ldt, Py_ssize_t len) noexcept nogil
    void rls_kron_gather_block(const double *T, Py_ssize_t ldt, const int32_t *rA,
                               const double *B, Py_ssize_t ldb, const int32_t *rB,
                               double *u, Py_ssize_t h0, Py_ssize_t h1,
                               Py_ssize_t len) noexcept nogil


# below this many multiply-adds a loop runs on one thread (thread start-up and the
# barrier cost more than they save, especially on a loaded machine)
cdef Py_ssize_t _PARALLEL_MIN_WORK = 200000


cdef int _check_range(const int32_t[::1] idx, Py_ssize_t bound, str name) except -1:
    """IndexError unless 0 <= idx[k] < bound for every k (an O(n) scan)."""
    cdef Py_ssize_t k, n = idx.shape[0]
    cdef int32_t lo = 0, hi = -1, x
    if n == 0:
        return 0
    lo = idx[0]
    hi = idx[0]
    with nogil:
        for k in range(1, n):
            x = idx[k]
            if x < lo:
                lo = x
            elif x > hi:
                hi = x
    if lo < 0 or hi >= bound:
        raise IndexError(f"{name} holds index {lo if lo < 0 else hi}, outside 0..{bound - 1}")
    return 0


cdef int _check_indices(str fn, str what, Py_ssize_t n,
                        const int32_t[::1] first, Py_ssize_t bound1, str name1,
                        const int32_t[::1] second, Py_ssize_t bound2, str name2) except -1:
    """The argument check of every entry point: both index vectors of length n (that of
    ``what``), each inside its bound (:func:`_check_range`)."""
    if first.shape[0] != n or second.shape[0] != n:
        raise ValueError(f"{fn}: the index vectors and {what} differ in length")
    _check_range(first, bound1, name1)
    _check_range(second, bound2, name2)
    return 0


cdef int _check_blocks(str fn, str matrix, str blocks, Py_ssize_t width, Py_ssize_t nb,
                       Py_ssize_t b) except -1:
    """ValueError unless ``width`` columns fill exactly ``nb`` blocks of ``b``."""
    if width > nb * b or (nb > 0 and width <= (nb - 1) * b):
        raise ValueError(f"{fn}: {matrix}'s columns do not match the blocks of {blocks}")
    return 0


def scatter_blocked(const double[:, :, ::1] ATb, const int32_t[::1] cA,
                    const int32_t[::1] cB, const double[::1] v, double[:, ::1] Tt):
    """Tt[cB[k], :] += v[k] * AT[cA[k], :] for every k (the scatter phase, transposed:
    Tt = T^T), with AT = A^T in column blocks: ATb[blk] (cols(A) x b) holds the columns
    blk*b .. blk*b + b - 1 of AT (zero padded), contiguous, so the block touched at
    random stays in few memory pages (TLB) and in the L2 cache. Tt has cols(B) rows
    and at most nblk * b columns; k should be sorted by cB (a run of equal cB updates
    one row of Tt). Parallel over the blocks. O(rows(A) * len(v))."""
    cdef Py_ssize_t nv = v.shape[0]
    cdef Py_ssize_t nb = ATb.shape[0], b = ATb.shape[2]
    cdef Py_ssize_t width = Tt.shape[1]
    _check_indices("scatter_blocked", "v", nv,
                   cA, ATb.shape[1], "column indices of the first factor",
                   cB, Tt.shape[0], "column indices of the second factor")
    _check_blocks("scatter_blocked", "Tt", "ATb", width, nb, b)
    if nv == 0 or width == 0:
        return
    cdef Py_ssize_t blk, i0, ln
    cdef Py_ssize_t ldt = Tt.shape[1]
    cdef const double *pa = &ATb[0, 0, 0]
    cdef Py_ssize_t slab = ATb.shape[1] * b
    cdef double *pt = &Tt[0, 0]
    cdef const int32_t *pca = &cA[0]
    cdef const int32_t *pcb = &cB[0]
    cdef const double *pv = &v[0]
    if nv * width < _PARALLEL_MIN_WORK or nb == 1:
        with nogil:
            for blk in range(nb):
                i0 = blk * b
                ln = width - i0
                if ln > b:
                    ln = b
                rls_kron_scatter_block(pa + blk * slab, b, pca, pcb, pv, nv, pt + i0, ldt,
                                       ln)
        return
    for blk in prange(nb, nogil=True, schedule="dynamic"):
        i0 = blk * b
        ln = width - i0
        if ln > b:
            ln = b
        rls_kron_scatter_block(pa + blk * slab, b, pca, pcb, pv, nv, pt + i0, ldt, ln)


cdef Py_ssize_t _chunk(Py_ssize_t n):
    """h per parallel task: a few contiguous ranges per thread."""
    cdef int nthreads = rls_max_threads()
    cdef Py_ssize_t chunk = (n + 2 * nthreads - 1) // (2 * nthreads)
    return chunk if chunk > 4096 else 4096


def gather_blocked(const double[:, :, ::1] Tb, const int32_t[::1] rA,
                   const double[:, ::1] B, const int32_t[::1] rB, double[::1] u):
    """u[h] = <T[rA[h], :], B[rB[h], :]> for every h (u is overwritten), with T in
    column blocks: Tb[blk] (rows(T) x b) holds the columns blk*b .. blk*b + b - 1 of T
    (zero padded), contiguous (few memory pages and L2-resident while the h sweep uses
    it). B is C-contiguous with at most nblk * b columns; h should be sorted by rB (the
    row of B is then shared by a run of h). Parallel over ranges of h.
    O(len(u) * cols(B))."""
    cdef Py_ssize_t nu = u.shape[0]
    cdef Py_ssize_t nb = Tb.shape[0], b = Tb.shape[2]
    cdef Py_ssize_t width = B.shape[1]
    _check_indices("gather_blocked", "u", nu,
                   rA, Tb.shape[1], "row indices of the first factor",
                   rB, B.shape[0], "row indices of the second factor")
    _check_blocks("gather_blocked", "B", "Tb", width, nb, b)
    cdef Py_ssize_t h
    with nogil:
        for h in range(nu):
            u[h] = 0.0
    if nu == 0 or width == 0:
        return
    cdef Py_ssize_t slab = Tb.shape[1] * b
    cdef Py_ssize_t chunk = _chunk(nu)
    cdef Py_ssize_t nch = (nu + chunk - 1) // chunk
    cdef Py_ssize_t ch, h0, h1, blk, ln
    cdef Py_ssize_t ldb = B.shape[1]
    cdef const double *pt = &Tb[0, 0, 0]
    cdef const double *pb = &B[0, 0]
    cdef const int32_t *pra = &rA[0]
    cdef const int32_t *prb = &rB[0]
    cdef double *pu = &u[0]
    if nu * width < _PARALLEL_MIN_WORK or nch == 1:
        with nogil:
            for blk in range(nb):
                ln = width - blk * b
                if ln > b:
                    ln = b
                rls_kron_gather_block(pt + blk * slab, b, pra, pb + blk * b, ldb, prb, pu,
                                      0, nu, ln)
        return
    for ch in prange(nch, nogil=True, schedule="dynamic"):
        h0 = ch * chunk
        h1 = h0 + chunk
        if h1 > nu:
            h1 = nu
        for blk in range(nb):
            ln = width - blk * b
            if ln > b:
                ln = b
            rls_kron_gather_block(pt + blk * slab, b, pra, pb + blk * b, ldb, prb, pu, h0,
                                  h1, ln)


def scatter_add(const int32_t[::1] rows, const int32_t[::1] cols, const double[::1] v,
                double[:, ::1] V):
    """V[rows[k], cols[k]] += v[k] (repeated positions add up). Serial, O(len(v))."""
    cdef Py_ssize_t n = v.shape[0], k
    _check_indices("scatter_add", "v", n, rows, V.shape[0], "row indices",
                   cols, V.shape[1], "column indices")
    with nogil:
        for k in range(n):
            V[rows[k], cols[k]] += v[k]


def gather_entries(const double[:, ::1] T, const int32_t[::1] rows,
                   const int32_t[::1] cols, double[::1] u):
    """u[h] = T[rows[h], cols[h]]. Parallel, O(len(u))."""
    cdef Py_ssize_t n = u.shape[0], h
    _check_indices("gather_entries", "u", n, rows, T.shape[0], "row indices",
                   cols, T.shape[1], "column indices")
    if n < _PARALLEL_MIN_WORK:
        with nogil:
            for h in range(n):
                u[h] = T[rows[h], cols[h]]
        return
    for h in prange(n, nogil=True, schedule="static"):
        u[h] = T[rows[h], cols[h]]


def counting_order(const int32_t[::1] keys, Py_ssize_t nkeys, Py_ssize_t[::1] order):
    """Stable counting sort: ``order`` receives the permutation that sorts ``keys``
    (values in 0 .. nkeys-1). O(len(keys) + nkeys)."""
    cdef Py_ssize_t n = keys.shape[0], k, acc, c
    if order.shape[0] != n:
        raise ValueError("counting_order: order and keys differ in length")
    _check_range(keys, nkeys, "keys")
    cdef Py_ssize_t[::1] start = None
    import numpy as np
    start = np.zeros(nkeys + 1, dtype=np.intp)
    with nogil:
        for k in range(n):
            start[keys[k] + 1] += 1
        acc = 0
        for c in range(nkeys + 1):
            acc = acc + start[c]
            start[c] = acc
        for k in range(n):
            order[start[keys[k]]] = k
            start[keys[k]] += 1
