# cython: language_level=3
"""One block of a kernel matrix, K(X_b, Z), from one DGEMM (scipy.linalg.cython_blas)
with the elementwise part fused in a parallel nogil loop (OpenMP ``prange``).

Used by :mod:`rlscore.kernel._blocked`, the one home of blocked kernel products;
every function checks its shapes at the Python boundary and then runs without the GIL.
"""

from cython.parallel cimport prange
from libc.math cimport exp
from scipy.linalg.cython_blas cimport dgemm

from rlscore._ext._greedy import _num_threads

ctypedef Py_ssize_t intp


cdef void _gemm_nt(const double[:, ::1] X, const double[:, ::1] Z, double[:, ::1] out,
                   double alpha) noexcept nogil:
    # row-major out (b, r) = alpha X Z^T is column-major out^T (r, b) = alpha Z X^T:
    # A = Z viewed column-major (d, r) transposed, B = X viewed column-major (d, b)
    cdef int b = <int> X.shape[0], r = <int> Z.shape[0], d = <int> X.shape[1]
    cdef char ta = b'T', tb = b'N'
    cdef double beta = 0.0
    cdef int ld = d if d > 0 else 1
    cdef intp i, j
    if b == 0 or r == 0:
        return
    if d == 0:
        for i in range(b):
            for j in range(r):
                out[i, j] = 0.0
        return
    dgemm(&ta, &tb, &r, &b, &d, &alpha, <double *> &Z[0, 0], &ld, <double *> &X[0, 0], &ld, &beta,
          &out[0, 0], &r)


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
    apart get k = 1). Parallel over rows. O(b r)."""
    cdef intp b = out.shape[0], r = out.shape[1], i, j
    cdef double s, tol, eps8 = 8.0 * 2.220446049250313e-16
    cdef int nt = _num_threads(num_threads)
    if nx.shape[0] != b or nz.shape[0] != r:
        raise ValueError("nx, nz must match the rows and columns of out")
    with nogil:
        for i in prange(b, schedule="static", num_threads=nt):
            for j in range(r):
                s = out[i, j] + nx[i] + nz[j]
                if s < 0.0:
                    s = 0.0
                if snap:
                    tol = eps8 * (nx[i] + nz[j])
                    if s <= tol:
                        s = 0.0
                out[i, j] = exp(-gamma * s)


def gaussian_block(const double[:, ::1] X, const double[:, ::1] Z,
                   const double[::1] nx, const double[::1] nz, double gamma, bint snap,
                   double[:, ::1] out, int num_threads=0):
    """out = K(X, Z) of the Gaussian kernel: DGEMM (-2 X Z^T) then the fused
    exponential of :func:`gaussian_from_products`. O(b r d)."""
    _check(X, Z, out)
    with nogil:
        _gemm_nt(X, Z, out, -2.0)
    gaussian_from_products(out, nx, nz, gamma, snap, num_threads)
