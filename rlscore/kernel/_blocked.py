"""Blocked kernel products: K(X_b, R) one block of rows at a time.

The one place kernels are evaluated on many rows. For the linear, Gaussian and
polynomial kernels a block is one GEMM (``scipy.linalg.cython_blas.dgemm``) with the
elementwise part fused in a parallel nogil loop (:mod:`rlscore._ext._blocked`); other
kernel objects fall back to their ``getKM`` on the block. The block size comes from
the one memory budget, :mod:`rlscore._blocks` (``working_memory``), so the peak is
O(block (r + d)) whatever the number of rows; X may be an ndarray, an ``np.memmap``, a
scipy CSR matrix or anything with ``shape`` and row slicing (each block is read,
converted to float64 and checked for NaN/inf on its own).

``dtype=np.float32`` gives single-precision blocks (the many-centre PCG of
:mod:`rlscore.core.rls`): the Gaussian kernel from one SGEMM with a vectorized
exponential, the rows and the basis centred on the basis mean first (distances are
unchanged, the norms small, so the float32 difference nx + nz - 2 <x, z> keeps its
digits); about 4x faster than float64 and kernel values within about 1e-6 relative
(tested); other kernels are computed in float64 and rounded.
"""

import contextlib
import threading

import numpy as np
import scipy.sparse as sp

from rlscore._blocks import (batches, block_threads, cache_block_rows, get_working_memory,
                             map_blocks, rows_per_block)
from rlscore._lapack_threads import blas_threads
from rlscore._ext import _blocked
from rlscore._validation import (as_data_matrix, as_row_blocks, check_finite_result,
                                 check_float_dtype)
from rlscore.kernel._base import dot_dense, match_width, scale_columns, sq_norms

__all__ = ["kernel_block", "kernel_blocks", "map_kernel_blocks", "ThreadBuffers",
           "block_size_for", "read_block"]


def _kind(kernel):
    """"linear", "gaussian", "polynomial" for the kernel classes with a fused block
    (their own ``_block_kind``, not a subclass's), else None."""
    return type(kernel).__dict__.get("_block_kind")


# a sparse operand with at least this fraction of nonzeros is multiplied as a dense
# array: one GEMM instead of a sparse product that fills a dense result (measured 8x
# faster for a CSR block of 1380 x 20 against a CSR basis of 2000 x 20)
DENSE_ENOUGH = 0.25


def _dense_enough(Z):
    """Whether a sparse Z is dense enough to be multiplied as an array, and its dense
    form fits the working-memory budget. O(1)."""
    n, d = Z.shape
    return Z.nnz >= DENSE_ENOUGH * n * d and 8 * n * d <= get_working_memory() * 2**20


def _dense_basis(Z):
    if sp.issparse(Z):
        Z = Z.toarray()
    return np.ascontiguousarray(Z, dtype=np.float64)


def kernel_block(kernel, Xb, out=None, dtype=np.float64, num_threads=0):
    """K(X_b, R) (b, r) for a block X_b already validated and of the basis' width.

    Parameters
    ----------
    kernel : kernel object (``train_X`` = R)
    Xb : ndarray or CSR (b, d)
    out : ndarray (b, r) C-contiguous of ``dtype``, optional (reused buffer)
    dtype : np.float64 (default) or np.float32 (module docstring)
    num_threads : threads of the compiled elementwise loop (0: ``OMP_NUM_THREADS`` or
        the CPU count; 1 inside :func:`rlscore._blocks.map_blocks`, where the blocks
        are the unit of parallel work)

    Returns
    -------
    ndarray (b, r) of ``dtype``

    Notes
    -----
    O(b r d) (one DGEMM, or SGEMM) plus O(b r) for the fused elementwise part;
    memory O(b r).
    """
    if check_float_dtype(dtype) == np.float32:
        return _kernel_block_f32(kernel, Xb, out, num_threads)
    kind = _kind(kernel)
    if kind is None:
        return np.ascontiguousarray(kernel.getKM(Xb), dtype=np.float64)
    b, r = Xb.shape[0], kernel.train_X.shape[0]
    if out is None or out.shape != (b, r):
        out = np.empty((b, r))
    gamma = getattr(kernel, "gamma", None)
    basis = kernel.train_X
    if kind == "gaussian" and getattr(kernel, "_root", None) is not None:
        # per-feature widths: the isotropic kernel on columns scaled by sqrt(gamma_k)
        Xb, basis, gamma = scale_columns(Xb, kernel._root), kernel._scaled_X, 1.0
    if sp.issparse(Xb) and _dense_enough(Xb):
        Xb = Xb.toarray()
    dense = not sp.issparse(Xb) and (not sp.issparse(basis) or _dense_enough(basis))
    if dense:
        Xb = np.ascontiguousarray(Xb, dtype=np.float64)
        Z = kernel.__dict__.get("_dense_Z")
        if Z is None:
            Z = _dense_basis(basis)
            kernel.__dict__["_dense_Z"] = Z
    # K(R, R): mirror one triangle of the product so the matrix is exactly symmetric
    # (as numpy's X @ X.T, a SYRK, is); the factorizations of the callers rely on it
    same = dense and Xb.shape == Z.shape and (Xb is Z or np.array_equal(Xb, Z))
    if kind == "gaussian":
        nz = kernel._train_norms
        nx = sq_norms(Xb)
        if same:
            _gram(Xb, out, -2.0)
            _blocked.gaussian_from_products(out, nz.copy(), np.ascontiguousarray(nz),
                                            gamma, True, num_threads)
        elif dense:
            _blocked.gaussian_block(Xb, Z, nx, np.ascontiguousarray(nz), gamma, True, out,
                                    num_threads)
        else:
            out[...] = dot_dense(Xb, basis)
            out *= -2.0
            _blocked.gaussian_from_products(out, nx, np.ascontiguousarray(nz), gamma, True,
                                            num_threads)
        return out
    if same:
        _gram(Xb, out, 1.0)
    elif dense:
        _blocked.gemm_nt(Xb, Z, out, 1.0)
    else:
        out[...] = dot_dense(Xb, kernel.train_X)
    if kind == "linear":
        if kernel.bias != 0:
            out += kernel.bias
        return check_finite_result(out, "the linear kernel matrix")
    out *= kernel.gamma
    out += kernel.coef0
    if kernel.degree > 1:
        with np.errstate(over="ignore"):
            out **= kernel.degree
    return check_finite_result(out, f"the polynomial kernel matrix (degree "
                                    f"{kernel.degree})")


def _f32_basis(kernel):
    """(mu, Z32, nz32) of a Gaussian kernel, cached on it: the basis' mean (float64),
    the basis centred on it in float32 and its squared norms. O(r d) once."""
    cached = kernel.__dict__.get("_f32_basis")
    if cached is None:
        Z = _dense_basis(kernel._scaled_X)
        mu = Z.mean(axis=0)
        Zc = Z - mu
        cached = (mu, np.ascontiguousarray(Zc, dtype=np.float32),
                  sq_norms(Zc).astype(np.float32))
        kernel.__dict__["_f32_basis"] = cached
    return cached


def _kernel_block_f32(kernel, Xb, out, num_threads=0):
    """:func:`kernel_block` in single precision (module docstring). O(b r d)."""
    b, r = Xb.shape[0], kernel.train_X.shape[0]
    if out is None or out.shape != (b, r):
        out = np.empty((b, r), dtype=np.float32)
    elif out.dtype != np.float32 or not out.flags.c_contiguous:
        raise ValueError("out must be a C-contiguous float32 array")
    if _kind(kernel) != "gaussian":
        out[...] = kernel_block(kernel, Xb)
        return out
    if sp.issparse(Xb):
        Xb = Xb.toarray()
    Xb = np.asarray(Xb, dtype=np.float64)
    gamma = kernel.gamma
    if getattr(kernel, "_root", None) is not None:
        Xb, gamma = scale_columns(Xb, kernel._root), 1.0
    mu, Z32, nz32 = _f32_basis(kernel)
    Xc = Xb - mu
    _blocked.gaussian_block_f32(np.ascontiguousarray(Xc, dtype=np.float32), Z32,
                                sq_norms(Xc).astype(np.float32), nz32, float(gamma), out,
                                num_threads)
    return out


def _gram(X, out, alpha):
    """out = alpha X X^T, exactly symmetric: numpy's X @ X.T (a SYRK for one operand
    viewed twice, the kernel values the dense kernels always had). O(n^2 d / 2)."""
    np.matmul(X, X.T, out=out)
    if alpha != 1.0:
        out *= alpha


def block_size_for(n, r, d, extra_row_bytes=0, block_size=None, what="a kernel block"):
    """Rows per block: ``block_size`` when given (checked), else as many rows as the
    working-memory budget holds at 8 (r + d) + ``extra_row_bytes`` bytes a row (the
    kernel block, the dense copy of the rows, the caller's own per-row buffers). O(1).
    """
    if block_size is not None:
        if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) \
                or block_size < 1:
            raise ValueError(f"block_size must be a positive int, got {block_size!r}")
        return int(min(block_size, max(n, 1)))
    return rows_per_block(8 * (r + d) + int(extra_row_bytes), n, what=what)


def read_block(X, sl, name="X"):
    """Rows ``sl`` of X (ndarray, memmap, CSR, dask array) as a checked float64 block
    (C-contiguous ndarray or CSR); NaN/inf raise ValueError naming the rows. O(b d)."""
    part = X[sl]
    if hasattr(part, "compute") and not sp.issparse(part):
        part = part.compute()
    if not sp.issparse(part):
        part = np.asarray(part)
    try:
        return as_data_matrix(part, name=name)
    except ValueError as exc:
        raise ValueError(f"{exc} (in rows {sl.start}..{sl.stop - 1})") from None


def kernel_blocks(kernel, X, block_size=None, extra_row_bytes=0, name="X"):
    """Yield (rows, K(X[rows], R)) over the blocks of X; the kernel buffer is reused,
    so each yielded block is valid until the next one (copy it to keep it).

    Parameters
    ----------
    kernel : kernel object (basis R = ``kernel.train_X``)
    X : ndarray, np.memmap, scipy sparse (any format; converted to CSR once),
        np.matrix or dask array (m, d)
    block_size : rows per block, default from :func:`rlscore._blocks.working_memory`
    extra_row_bytes : bytes per row the caller keeps beside the kernel block

    Notes
    -----
    O(m r d) time; peak memory O(block (r + d)), i.e. about the working-memory budget.
    """
    X = as_row_blocks(X)
    m, d = X.shape
    r = kernel.train_X.shape[0]
    size = block_size_for(m, r, d, extra_row_bytes, block_size)
    buf = np.empty((size, r))
    for sl in batches(m, size):
        Xb = match_width(read_block(X, sl, name), kernel.train_X.shape[1], name)
        yield sl, kernel_block(kernel, Xb, out=buf[: sl.stop - sl.start])


class ThreadBuffers:
    """One reused (rows, r) kernel-block buffer per thread, for blocks computed side by
    side (:func:`map_kernel_blocks`, the PCG operators of :mod:`rlscore.core.rls`).
    Memory rows r itemsize bytes per thread that asks."""

    def __init__(self, rows, r, dtype=np.float64):
        self.rows, self.r, self.dtype = int(rows), int(r), np.dtype(dtype)
        self._local = threading.local()

    def get(self, n):
        """An (n, r) view of the calling thread's buffer, or None when n exceeds its
        rows (a longer block gets its own array). O(1) after the first call."""
        if n > self.rows:
            return None
        buf = getattr(self._local, "buf", None)
        if buf is None:
            buf = self._local.buf = np.empty((self.rows, self.r), dtype=self.dtype)
        return buf[:n]


def map_kernel_blocks(kernel, X, fn, threads=None, dtype=np.float64, extra_row_bytes=0,
                      name="X"):
    """Yield (rows, fn(rows, K(X[rows], R))) over the blocks of X, in order: blocks of
    about :data:`rlscore._blocks.CACHE_BLOCK_BYTES` (at most the working-memory budget),
    computed side by side by ``threads`` threads (:func:`rlscore._blocks.
    block_threads`), one thread each, in reused buffers -- ``fn`` must not keep the
    block (return what it computes from it).

    Parameters
    ----------
    kernel : kernel object (basis R = ``kernel.train_X``)
    X : ndarray, np.memmap, scipy sparse (any format; converted to CSR once),
        np.matrix or dask array (m, d)
    fn : callable (rows, K_b) -> result; runs in the worker threads
    threads, dtype : the threads (default ``OMP_NUM_THREADS`` or the CPU count) and
        the precision of the blocks (:func:`kernel_block`)
    extra_row_bytes : bytes per row ``fn`` allocates beside the block

    Notes
    -----
    O(m r d) plus ``fn``; memory O(threads block (r + d)). Several blocks give the
    same values to the last bit whatever ``threads`` (each block is computed with one
    thread); a single block runs in the calling thread with the threads inside its
    GEMM and exponential.
    """
    X = as_row_blocks(X)
    m, d = X.shape
    r = kernel.train_X.shape[0]
    dt = check_float_dtype(dtype)
    size = cache_block_rows(r * dt.itemsize + 8 * d + int(extra_row_bytes), m,
                            what="a kernel block")
    threads = block_threads(threads)
    buffers = ThreadBuffers(size, r, dt)
    # several blocks: side by side, one thread each (the result does not depend on the
    # number of threads); a single block: the threads inside its loops
    inner, threads = (1, threads) if m > size else (threads, 1)

    def work(sl):
        Xb = match_width(read_block(X, sl, name), kernel.train_X.shape[1], name)
        Kb = kernel_block(kernel, Xb, out=buffers.get(sl.stop - sl.start), dtype=dt,
                          num_threads=inner)
        return sl, fn(sl, Kb)
    with blas_threads(1) if inner == 1 else contextlib.nullcontext():
        yield from map_blocks(work, batches(m, size), threads)
