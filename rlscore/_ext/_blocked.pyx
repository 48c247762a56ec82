# cython: language_level=3
"""One block of a kernel matrix, K(X_b, Z), from one DGEMM (scipy.linalg.cython_blas)
with the elementwise part fused in a parallel nogil loop (OpenMP ``prange``); in single
precision from one SGEMM with a branch-free exponential the compiler vectorizes.

Used by :mod:`rlscore.kernel._blocked`, the one home of blocked kernel products;
every function checks its shapes at the Python boundary and then runs without the GIL.
"""

from cython cimport floating
from cython.parallel cimport prange
from scipy.linalg.cython_blas cimport dgemm, sgemm

from rlscore._ext._greedy import _num_threads

ctypedef Py_ssize_t intp


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    static inline int32_t rls_fbits(float x) { int32_t b; memcpy(&b, &x, sizeof b); return b; }
    static inline float rls_bitsf(int32_t b) { float x; memcpy(&x, &b, sizeof x); return x; }
    /* exp(-y) for y >= 0 without a floating-point branch, so that a loop over it
       vectorizes (gcc does not if-convert a float compare under the default
       -ftrapping-math, and cannot vectorize a double -> int64 conversion before
       AVX-512; the clamps compare the bits of y >= 0 as integers, which order like
       the floats, and n comes from the bits of the rounding sum). -y = n ln2 + t with
       n = round(-y / ln2) (the 1.5 * 2^(p-1) rounding trick), ln2 split in two (Cody &
       Waite 1980) so that t is exact, |t| <= ln2 / 2; e^t by its Taylor polynomial
       (degree 7 in single precision, truncation < 5e-9 relative; degree 13 in double,
       < 2e-16), times 2^n built in the exponent bits. Beyond the smallest normal
       (y > 87 in single, y > 708 in double) the result is 0, never a denormal.
       Measured against numpy: 1e-7 relative (single), 1 ulp (double). */
    static inline float rls_exp_neg_f32(float y) {
        const float magic = 12582912.0f;              /* 1.5 * 2^23 */
        const int32_t lim = 0x42ae0000;               /* the bits of 87.0f */
        float x, n, nm, t, p;
        int32_t yb = rls_fbits(y), keep = -(int32_t) (yb < lim), ni;
        x = -rls_bitsf(yb < lim ? yb : lim);
        nm = x * 1.44269504088896341f + magic;
        ni = rls_fbits(nm) - rls_fbits(magic);
        n = nm - magic;
        t = x - n * 0.693359375f;
        t = t - n * -2.12194440e-4f;
        p = 1.0f / 5040.0f;
        p = p * t + 1.0f / 720.0f;
        p = p * t + 1.0f / 120.0f;
        p = p * t + 1.0f / 24.0f;
        p = p * t + 1.0f / 6.0f;
        p = p * t + 0.5f;
        p = p * t + 1.0f;
        p = p * t + 1.0f;
        return rls_bitsf(rls_fbits(p * rls_bitsf((ni + 127) << 23)) & keep);
    }
    static inline int64_t rls_dbits(double x) { int64_t b; memcpy(&b, &x, sizeof b); return b; }
    static inline double rls_bitsd(int64_t b) { double x; memcpy(&x, &b, sizeof x); return x; }
    static inline double rls_exp_neg_f64(double y) {
        const double magic = 6755399441055744.0;      /* 1.5 * 2^52 */
        const int64_t lim = 0x4086200000000000LL;     /* the bits of 708.0 */
        double x, n, nm, t, p;
        int64_t yb = rls_dbits(y), keep = -(int64_t) (yb < lim), ni;
        x = -rls_bitsd(yb < lim ? yb : lim);
        nm = x * 1.4426950408889634074 + magic;
        ni = rls_dbits(nm) - rls_dbits(magic);
        n = nm - magic;
        t = x - n * 6.93147180369123816490e-01;
        t = t - n * 1.90821492927058770002e-10;
        p = 1.0 / 6227020800.0;
        p = p * t + 1.0 / 479001600.0;
        p = p * t + 1.0 / 39916800.0;
        p = p * t + 1.0 / 3628800.0;
        p = p * t + 1.0 / 362880.0;
        p = p * t + 1.0 / 40320.0;
        p = p * t + 1.0 / 5040.0;
        p = p * t + 1.0 / 720.0;
        p = p * t + 1.0 / 120.0;
        p = p * t + 1.0 / 24.0;
        p = p * t + 1.0 / 6.0;
        p = p * t + 0.5;
        p = p * t + 1.0;
        p = p * t + 1.0;
        return rls_bitsd(rls_dbits(p * rls_bitsd((ni + 1023) << 52)) & keep);
    }
    /* one row of a Gaussian block in place: row_j (holding -2 <x, z_j>) becomes
       exp(-gamma max(nx + nz_j - 2 <x, z_j>, 0)); in double precision, the squared
       distance is set to 0 when ``snap`` and it is within the rounding error
       8 eps (nx + nz_j) (points float64 cannot tell apart get k = 1). Plain C loops
       over restrict pointers (gcc -O3 vectorizes them), the max and the snap on the
       bits. With gcc on x86-64 Linux each is compiled twice, for the baseline (SSE2)
       and for x86-64-v3 (AVX2, about 3.5x faster measured), chosen at load time. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define RLS_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
    #else
    #define RLS_CLONES
    #endif
    RLS_CLONES static void rls_gaussian_row_f32(float *restrict row, const float *restrict nz,
                                                float nx, float gamma, Py_ssize_t r) {
        Py_ssize_t j;
        for (j = 0; j < r; j++) {
            int32_t sb = rls_fbits(row[j] + nx + nz[j]);
            sb &= ~(sb >> 31);                        /* a negative s becomes +0 */
            row[j] = rls_exp_neg_f32(gamma * rls_bitsf(sb));
        }
    }
    RLS_CLONES static void rls_gaussian_row_f64(double *restrict row,
                                                const double *restrict nz, double nx,
                                                double gamma, int snap, Py_ssize_t r) {
        const double eps8 = 8.0 * 2.220446049250313e-16;
        const int64_t nosnap = snap ? 0 : -1;
        Py_ssize_t j;
        for (j = 0; j < r; j++) {
            int64_t sb = rls_dbits(row[j] + nx + nz[j]);
            int64_t tb = rls_dbits(eps8 * (nx + nz[j]));
            sb &= ~(sb >> 63);                        /* a negative s becomes +0 */
            sb &= -(int64_t) (sb > tb) | nosnap;      /* s <= tol becomes 0 */
            row[j] = rls_exp_neg_f64(gamma * rls_bitsd(sb));
        }
    }
    """
    float rls_exp_neg_f32(float y) noexcept nogil
    double rls_exp_neg_f64(double y) noexcept nogil
    void rls_gaussian_row_f32(float *row, const float *nz, float nx, float gamma,
                              Py_ssize_t r) noexcept nogil
    void rls_gaussian_row_f64(double *row, const double *nz, double nx, double gamma,
                              int snap, Py_ssize_t r) noexcept nogil


cdef void _gemm_nt(const floating[:, ::1] X, const floating[:, ::1] Z,
                   floating[:, ::1] out, floating alpha) noexcept nogil:
    # row-major out (b, r) = alpha X Z^T is column-major out^T (r, b) = alpha Z X^T:
    # A = Z viewed column-major (d, r) transposed, B = X viewed column-major (d, b);
    # DGEMM for float64, SGEMM for float32
    cdef int b = <int> X.shape[0], r = <int> Z.shape[0], d = <int> X.shape[1]
    cdef char ta = b'T', tb = b'N'
    cdef floating beta = 0.0
    cdef int ld = d if d > 0 else 1
    cdef intp i, j
    if b == 0 or r == 0:
        return
    if d == 0:
        for i in range(b):
            for j in range(r):
                out[i, j] = 0.0
        return
    if floating is double:
        dgemm(&ta, &tb, &r, &b, &d, &alpha, <double *> &Z[0, 0], &ld,
              <double *> &X[0, 0], &ld, &beta, &out[0, 0], &r)
    else:
        sgemm(&ta, &tb, &r, &b, &d, &alpha, <float *> &Z[0, 0], &ld,
              <float *> &X[0, 0], &ld, &beta, &out[0, 0], &r)


def _check(X, Z, out):
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X has {X.shape[1]} columns but Z has {Z.shape[1]}")
    if out.shape[0] != X.shape[0] or out.shape[1] != Z.shape[0]:
        raise ValueError(f"out must have shape ({X.shape[0]}, {Z.shape[0]}), got "
                         f"({out.shape[0]}, {out.shape[1]})")


def gemm_nt(const double[:, ::1] X, const double[:, ::1] Z, double[:, ::1] out,
            double alpha=1.0):
    """out = alpha X Z^T (all C-contiguous float64), one DGEMM. O(b r d)."""
    _check(X, Z, out)
    with nogil:
        _gemm_nt(X, Z, out, alpha)


def gaussian_from_products(double[:, ::1] out, const double[::1] nx,
                           const double[::1] nz, double gamma, bint snap,
                           int num_threads=0):
    """In place: out[i, j] (holding -2 <x_i, z_j>) becomes
    exp(-gamma max(nx_i + nz_j - 2 <x_i, z_j>, 0)), the distance set to 0 when ``snap``
    and it is within the rounding error 8 eps (nx_i + nz_j) (points float64 cannot tell
    apart get k = 1); the exponential is the vectorized one of this module (1 ulp).
    Parallel over rows. O(b r)."""
    cdef intp b = out.shape[0], r = out.shape[1], i
    cdef int nt = _num_threads(num_threads)
    if nx.shape[0] != b or nz.shape[0] != r:
        raise ValueError("nx, nz must match the rows and columns of out")
    if b == 0 or r == 0:
        return
    with nogil:
        for i in prange(b, schedule="static", num_threads=nt):
            rls_gaussian_row_f64(&out[i, 0], &nz[0], nx[i], gamma, snap, r)


def gaussian_block(const double[:, ::1] X, const double[:, ::1] Z,
                   const double[::1] nx, const double[::1] nz, double gamma, bint snap,
                   double[:, ::1] out, int num_threads=0):
    """out = K(X, Z) of the Gaussian kernel: DGEMM (-2 X Z^T) then the fused
    exponential of :func:`gaussian_from_products`. O(b r d)."""
    _check(X, Z, out)
    with nogil:
        _gemm_nt(X, Z, out, -2.0)
    gaussian_from_products(out, nx, nz, gamma, snap, num_threads)


def exp_neg(const floating[::1] y, floating[::1] out):
    """out = exp(-y) for y >= 0 by the exponential of the Gaussian blocks: float64
    within 1 ulp, 0 for y > 708; float32 within about 1e-7 relative, 0 for y > 87.
    Exposed for its test. O(n)."""
    cdef intp n = y.shape[0], i
    if out.shape[0] != n:
        raise ValueError("out must have the length of y")
    with nogil:
        for i in range(n):
            if floating is double:
                out[i] = rls_exp_neg_f64(y[i] if y[i] > 0.0 else 0.0)
            else:
                out[i] = rls_exp_neg_f32(y[i] if y[i] > 0.0 else 0.0)


def gaussian_block_f32(const float[:, ::1] X, const float[:, ::1] Z,
                       const float[::1] nx, const float[::1] nz, float gamma,
                       float[:, ::1] out, int num_threads=0):
    """out = K(X, Z) of the Gaussian kernel in single precision: SGEMM (-2 X Z^T),
    then exp(-gamma max(nx_i + nz_j - 2 <x_i, z_j>, 0)) by the vectorized exponential,
    parallel over rows. The caller centres X and Z on a common point first (the
    distances are unchanged, the norms small, so the float32 difference loses little).
    O(b r d) plus O(b r)."""
    cdef intp b = out.shape[0], r = out.shape[1], i
    cdef int nt = _num_threads(num_threads)
    _check(X, Z, out)
    if nx.shape[0] != b or nz.shape[0] != r:
        raise ValueError("nx, nz must match the rows and columns of out")
    if b == 0 or r == 0:
        return
    with nogil:
        _gemm_nt(X, Z, out, <float> -2.0)
        for i in prange(b, schedule="static", num_threads=nt):
            rls_gaussian_row_f32(&out[i, 0], &nz[0], nx[i], gamma, r)
