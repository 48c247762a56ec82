# cython: language_level=3
"""Basis-vector removal update of the decomposed Nystrom map (Airola, Pahikkala and
Salakoski 2011, Theorem 1), nogil, BLAS through scipy.linalg.cython_blas.

With Phi = K_MR C^{-T} (C C^T = K_RR) and the held-out basis positions H (kept: L), the
map of the reduced basis is a rank-|H| update of the kept columns,

    Phi_L = Phi[:, L] + (Phi[:, L] P D + Phi[:, H] S) P^T,

(P: |L| x |H|, D, S: |H| x |H|; see :func:`rlscore.core.nystrom.NystromMap.remove`).
The kernel makes one pass over the rows of Phi in blocks: gather the block's kept
columns into ``out``, form the block's |H| correction columns with two DGEMMs and add
them back with a third. O(m |L| |H|) time, O(block |H|) extra memory.
"""

from scipy.linalg.cython_blas cimport dgemm
from libc.stdlib cimport malloc, free

ctypedef Py_ssize_t intp


def removal_update(const double[:, ::1] Phi, const intp[::1] L, const intp[::1] H,
                   const double[:, ::1] PD, const double[:, ::1] S,
                   const double[:, ::1] Pt, double[:, ::1] out):
    """out = Phi[:, L] + (Phi[:, L] @ PD + Phi[:, H] @ S) @ Pt  (all C-contiguous).

    Shapes: Phi (m, r), L (l,), H (h,), PD (l, h), S (h, h), Pt (h, l), out (m, l).
    Raises ValueError on a shape mismatch or an index outside 0..r-1.
    """
    cdef intp m = Phi.shape[0], r = Phi.shape[1], l = L.shape[0], h = H.shape[0]
    cdef intp i, j, t, i0, nb, blk = 256
    if out.shape[0] != m or out.shape[1] != l:
        raise ValueError("out must have shape (m, |L|)")
    if PD.shape[0] != l or PD.shape[1] != h or S.shape[0] != h or S.shape[1] != h \
            or Pt.shape[0] != h or Pt.shape[1] != l:
        raise ValueError("PD, S, Pt have inconsistent shapes")
    for j in range(l):
        if L[j] < 0 or L[j] >= r:
            raise ValueError("L holds an index outside the columns of Phi")
    for j in range(h):
        if H[j] < 0 or H[j] >= r:
            raise ValueError("H holds an index outside the columns of Phi")
    if m == 0 or l == 0:
        return
    if h == 0:
        with nogil:
            for i in range(m):
                for j in range(l):
                    out[i, j] = Phi[i, L[j]]
        return
    cdef double *E = <double *> malloc(blk * h * sizeof(double))
    cdef double *XH = <double *> malloc(blk * h * sizeof(double))
    if E == NULL or XH == NULL:
        free(E)
        free(XH)
        raise MemoryError()
    cdef char tn = b'N'
    cdef int ih = <int> h, il = <int> l, inb
    cdef double one = 1.0, zero = 0.0
    with nogil:
        i0 = 0
        while i0 < m:
            nb = blk if m - i0 > blk else m - i0
            inb = <int> nb
            for i in range(nb):
                for j in range(l):
                    out[i0 + i, j] = Phi[i0 + i, L[j]]
                for t in range(h):
                    XH[i * h + t] = Phi[i0 + i, H[t]]
            # row-major E (nb, h) = out_blk (nb, l) @ PD (l, h) + XH (nb, h) @ S (h, h);
            # in column-major terms E^T = PD^T out_blk^T (+ S^T XH^T)
            dgemm(&tn, &tn, &ih, &inb, &il, &one, <double *> &PD[0, 0], &ih,
                  &out[i0, 0], &il, &zero, E, &ih)
            dgemm(&tn, &tn, &ih, &inb, &ih, &one, <double *> &S[0, 0], &ih,
                  XH, &ih, &one, E, &ih)
            # out_blk += E (nb, h) @ Pt (h, l):  out_blk^T += Pt^T E^T
            dgemm(&tn, &tn, &il, &inb, &ih, &one, <double *> &Pt[0, 0], &il,
                  E, &ih, &one, &out[i0, 0], &il)
            i0 += nb
    free(E)
    free(XH)
