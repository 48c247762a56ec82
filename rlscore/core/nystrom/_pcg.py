"""Reduced-set RLS with many centres by preconditioned conjugate gradients, the kernel
streamed by blocks: Falkon's Nystrom preconditioner (Rudi, Carratino & Rosasco,
"FALKON: An optimal large scale kernel method", NeurIPS 2017, Algorithm 1).

The problem is the one of :class:`rlscore.core.nystrom.StreamedReducedSet` ("rls"),

    (Phi^T Phi + lambda I) w = Phi^T Y,   Phi = K(X, R) T,  T = C^{-T},  C C^T = K_RR,

but Phi^T Phi (r x r) is never formed: each CG iteration streams
Phi^T (Phi V) = T^T sum_b K_b^T (K_b (T V)) over blocks K_b = K(X_b, R) (recomputed by
:func:`rlscore.kernel.kernel_block`, or cached when m r values fit the budget), T and
T^T applied by triangular solves (:class:`rlscore.core.nystrom.NystromFactors`, one r x r
array in all). O(m r (d + 2 t)) for t iterations when recomputed, O(2 m r t) when
cached; memory 8 r^2 bytes + O(threads block r) (plus m r when cached). The blocks are
computed side by side, one thread each, cut to the CPU cache (``threads``,
:func:`rlscore._blocks.map_blocks`).

The operator is written for a row operator L between the two kernel products,
Phi^T L Phi; here L = I, and :mod:`rlscore.core.rankrls` derives the centred (RankRLS)
operators from :class:`StreamedGramOperator` by overriding the per-block product, the
right-hand side and the preconditioner's centring terms. The blocks come from
:func:`rlscore.core.structure.query_blocks`, the block iteration of the streamed direct
path (a query's rows are never split: the tail query is carried over).

The preconditioner (Falkon, Sect. 3): for r centres drawn uniformly from the m rows,
K_MR^T K_MR ~ (m / r) K_RR^2, i.e. in the coordinates w = C^T b,
Phi^T Phi ~ (m / r) C^T C, and

    M = (m / r) C^T C + lambda I = A A^T

is applied by two triangular solves. Falkon's two factors are T (of K_MM) and A (of
T T^T / M + lambda I); here the first is the map's C, and only the lambda-dependent A
is refactored for a new lambda, O(2 r^3 / 3) (:class:`NystromPreconditioner`).
"""

import warnings

import numpy as np

from rlscore._blocks import block_threads, cache_block_rows, map_blocks
from rlscore._lapack_threads import blas_threads
from rlscore._validation import available_memory, check_float_dtype, check_regparam
from rlscore.core.optim import (CGOptions, ConvergenceWarning, Preconditioner,
                                conjugate_gradient)
from rlscore.core.nystrom._pcg_factors import NystromFactors
from rlscore.core.structure import as_source, query_blocks
from rlscore.kernel import ThreadBuffers, block_size_for

__all__ = ["NystromPreconditioner", "StreamedGramOperator", "pcg_solve",
           "pcg_reduced_set", "as_factors"]


def as_factors(fmap):
    """:class:`NystromFactors` of a map: itself, or those of a
    :class:`rlscore.core.nystrom.NystromFeatureMap` (its C copied, O(k^2))."""
    if isinstance(fmap, NystromFactors):
        return fmap
    if hasattr(fmap, "nmap") and hasattr(fmap, "kernel"):
        return NystromFactors.from_feature_map(fmap)
    raise TypeError(f"fmap must be a NystromFactors or NystromFeatureMap, got "
                    f"{type(fmap).__name__}")


class NystromPreconditioner(Preconditioner):
    """M^{-1} R for M = (m / k) (C^T C + centring terms) + mu I (module docstring;
    Rudi et al. 2017, Alg. 1), factored in the upper triangle of the operator's
    :class:`NystromFactors`.

    Parameters
    ----------
    operator : :class:`StreamedGramOperator` (its factors, its number of training rows
        m, its centring terms ``preconditioner_updates()`` and its
        ``effective_regparam``)
    regparam : float > 0 (lambda)

    Notes
    -----
    Construction O(2 k^3 / 3) (``lauum`` and ``potrf`` in place); ``apply`` O(k^2 l)
    for l columns. The factors hold one preconditioner at a time: a new one (another
    lambda, :meth:`with_regparam`) makes the old one stale (``apply`` then raises).
    """

    def __init__(self, operator, regparam):
        self.operator = operator
        self.factors = operator.factors
        self.regparam = check_regparam(regparam)
        mu = operator.effective_regparam(self.regparam)
        k = self.factors.n_features
        self.factors.factor_preconditioner(operator.m / k, mu,
                                           operator.preconditioner_updates())
        self._version = self.factors.version

    def with_regparam(self, regparam):
        """The preconditioner for another lambda (refactored in place, O(2 k^3 / 3))."""
        return NystromPreconditioner(self.operator, regparam)

    def apply(self, R):
        if self.factors.version != self._version:
            raise RuntimeError("this preconditioner is stale: the factors were "
                               "refactored for another regparam")
        return self.factors.precondition(R)


class StreamedGramOperator:
    """V -> Phi^T (Phi V) + mu V, streamed over blocks of the data.

    Parameters
    ----------
    source : data source (:func:`rlscore.core.structure.as_source`)
    fmap : :class:`rlscore.core.nystrom.NystromFactors` (or a ``NystromFeatureMap``,
        converted by :func:`as_factors`)
    block_size : at most this many rows per block (default: the working-memory
        budget); recomputed blocks are further cut to about
        :data:`rlscore._blocks.CACHE_BLOCK_BYTES` (4 MiB: 52 rows at r = 20 000 in
        float32), the size at which a block's GEMM, exponential and two products stay
        in the CPU cache
    cache : "auto" (keep the kernel blocks when m r values take at most a quarter of
        the available memory), True or False
    dtype : np.float64 (default) or np.float32 for the kernel blocks (cached or
        recomputed; float32 Gaussian blocks come from one SGEMM with a vectorized
        exponential, about 4x faster than float64, kernel values within about 1e-6
        relative) and the block products (the sums over blocks accumulated in
        float64)
    rows : (m,) bool, the training rows (default all): the others are skipped (a
        validation split or the held-out fold of :func:`rlscore.core.rls.pcg_path`)
    threads : blocks computed side by side, each with one thread (default
        ``OMP_NUM_THREADS`` or the CPU count, :func:`rlscore._blocks.block_threads`).
        The sums over blocks are folded in block order, so the result does not depend
        on it. Measured at m = 10^5, r = 20 000, float32, two cores: 0.97 ns per
        kernel entry and product against 3.9 with one block at a time threaded inside
        (the GEMM of depth d and the products with the block do not thread well)

    Attributes
    ----------
    m : the number of training rows; regparam : mu of the last solve; passes

    Notes
    -----
    ``matvec`` O(m r l) (cached) or O(m r (d + l)) (recomputed) plus O(k^2 l) for T
    and T^T; ``rhs`` one pass. Memory: the factors, one block buffer per thread (the
    cache of m r values when cached).
    """

    def __init__(self, source, fmap, block_size=None, cache="auto", dtype=np.float64,
                 rows=None, threads=None):
        self.source = as_source(source)
        if self.source.Y is None:
            raise ValueError("Y is required")
        self.factors = as_factors(fmap)
        self.dtype = check_float_dtype(dtype)
        self.threads = block_threads(threads)
        self.rows = None
        self.m = self.source.m
        if rows is not None:
            rows = np.asarray(rows)
            if rows.dtype != bool or rows.shape != (self.source.m,):
                raise ValueError(f"rows must be a boolean mask of {self.source.m} rows")
            if not rows.any():
                raise ValueError("rows selects no training row")
            self.rows, self.m = rows, int(rows.sum())
        b = self.factors.n_basis
        self.block_size = block_size_for(self.source.m, b, self.source.d, 16 * 4,
                                         block_size, what="a kernel block")
        need = self.source.m * b * self.dtype.itemsize
        if cache == "auto":
            avail = available_memory()
            cache = avail is not None and need <= avail / 4
        elif not isinstance(cache, (bool, np.bool_)):
            raise ValueError(f"cache must be 'auto', True or False, got {cache!r}")
        self.cached = bool(cache)
        if not self.cached:
            # a recomputed block is used at once: cache-sized blocks, one per thread
            self.block_size = min(self.block_size,
                                  cache_block_rows(b * self.dtype.itemsize, self.source.m))
        self._cache = None
        self._B = None
        self.regparam = 0.0
        self.passes = 0

    #: the preconditioner of ``precondition="auto"`` (:func:`pcg_solve`)
    default_preconditioner = "nystrom"

    # -- blocks ------------------------------------------------------------------
    def _source_blocks(self):
        """(start, X_b) over every row of the source (queries whole), then a check
        that the source gave all its rows."""
        rows = 0
        for start, Xb in query_blocks(self.source, self.block_size):
            rows += Xb.shape[0]
            yield start, Xb
        if rows != self.source.m:
            raise ValueError(f"the data source gave {rows} rows, expected "
                             f"{self.source.m} (was the file changed or truncated?)")

    def _map(self, fn, rows=None):
        """fn(idx, K_b) for every block with rows in the mask ``rows`` (default the
        training rows), in block order: K_b the kernel rows of those rows, idx a slice
        or an index array into the source's rows. The blocks are computed by
        ``threads`` threads side by side (:func:`rlscore._blocks.map_blocks`), each
        block with one thread (its GEMM, exponential and products) in a reused buffer
        (:class:`rlscore.kernel.ThreadBuffers`); the first pass fills the cache when
        the blocks are cached. ``fn`` must not write shared state (the caller folds
        its results)."""
        mask = self.rows if rows is None else rows
        fill = self.cached and self._cache is None
        buffers = None if fill else ThreadBuffers(self.block_size, self.factors.n_basis,
                                                  self.dtype)

        def select(start, Kb):
            stop = start + Kb.shape[0]
            if mask is None:
                return slice(start, stop), Kb
            sel = np.flatnonzero(mask[start:stop])
            if sel.size == Kb.shape[0]:
                return slice(start, stop), Kb
            return (start + sel, Kb[sel]) if sel.size else (None, None)

        def compute(item):
            start, Xb = item
            out = None if buffers is None else buffers.get(Xb.shape[0])
            Kb = self.factors.kernel_rows(Xb, out=out, dtype=self.dtype, num_threads=1)
            idx, Ks = select(start, Kb)
            return (start, Kb) if fill else None, None if idx is None else fn(idx, Ks)

        def cached(item):
            idx, Ks = select(*item)
            return None, None if idx is None else fn(idx, Ks)

        keep = [] if fill else None
        items = self._cache if self._cache is not None else self._source_blocks()
        work = cached if self._cache is not None else compute
        with blas_threads(1):
            for block, res in map_blocks(work, items, self.threads):
                if keep is not None:
                    keep.append(block)
                if res is not None:
                    yield res
        if keep is not None:
            self._cache = keep

    # -- the row operator L (overridden by the centred operators of rankrls) ------
    def effective_regparam(self, regparam):
        """mu of the r x r problem for lambda."""
        return regparam

    def _block_rhs(self, idx, Kb):
        """K_b^T L_b Y_b (n_basis, p)."""
        return Kb.T @ self.source.Y[idx].astype(Kb.dtype)

    def _block_product(self, idx, Kb, TV):
        """K_b^T L_b K_b TV (n_basis, l)."""
        return Kb.T @ (Kb @ TV)

    def preconditioner_updates(self):
        """The centring terms (U, D) of the preconditioner (none for L = I)."""
        return ()

    def _begin_product(self, TV):
        """Called by :meth:`matvec` before the pass with T V (the centred operators
        compute the global mean of K T V here)."""

    # -- products ----------------------------------------------------------------
    def rhs(self):
        """Phi^T L Y (k, p): one pass. O(m r (d + p))."""
        acc = np.zeros((self.factors.n_basis, self.source.Y.shape[1]))
        for part in self._map(self._block_rhs):
            self._add_rhs(acc, part)
        self.passes += 1
        return self.factors.apply_Tt(acc)

    def _add_rhs(self, acc, part):
        """Folds one block's :meth:`_block_rhs` into ``acc`` (in block order)."""
        acc += part

    def matvec(self, V):
        V = np.asarray(V, dtype=np.float64)
        TV = self.factors.apply_T(V).astype(self.dtype)
        acc = np.zeros((self.factors.n_basis, V.shape[1]))
        self._begin_product(TV)
        for part in self._map(lambda idx, Kb: self._block_product(idx, Kb, TV)):
            acc += part
        self.passes += 1
        return self.factors.apply_Tt(acc) + self.regparam * V

    def predict_rows(self, Ws, rows):
        """Predictions K(X_rows, R) T W for each W of ``Ws`` (list of (k, p)) on the
        rows of the boolean mask ``rows``: (n_rows, len(Ws), p), one pass.
        O(m r d + n_rows r L p)."""
        TW = np.hstack([self.factors.apply_T(W) for W in Ws])
        p = TW.shape[1] // len(Ws)
        TWd = TW.astype(self.dtype)
        parts = list(self._map(lambda idx, Kb: Kb @ TWd, rows=np.asarray(rows, bool)))
        out = np.concatenate(parts) if parts else np.empty((0, TW.shape[1]))
        return out.reshape(out.shape[0], len(Ws), p).astype(np.float64, copy=False)


#: the smallest relative residual PCG is asked for with float32 kernel blocks (their
#: values carry about 1e-7 relative error; a smaller tol makes CG iterate on rounding)
FLOAT32_TOL = 1e-5


def pcg_tolerance(tol, dtype):
    """The tolerance PCG runs at when asked for ``tol`` with kernel blocks of ``dtype``:
    ``tol``, or at least :data:`FLOAT32_TOL` for float32 blocks (below the operator's
    precision the residual stalls and CG drifts; measured: query RankRLS at tol 1e-6
    ran to predictions of 1e10). O(1)."""
    return max(tol, FLOAT32_TOL) if np.dtype(dtype) == np.float32 else tol


def pcg_solve(op, regparam, *, tol=1e-6, maxiter=None, x0=None, precondition="auto",
              callback=None, verbose=None):
    """Weights W (k, p) of (Phi^T L Phi + mu I) W = Phi^T L Y by preconditioned CG on
    the operator ``op`` (:class:`StreamedGramOperator` or a centred one of
    :mod:`rlscore.core.rankrls`); its right-hand side is computed once and kept.

    Parameters
    ----------
    op : the operator
    regparam : float > 0, lambda (mu = ``op.effective_regparam(lambda)``)
    tol, maxiter, x0, callback, verbose : of :func:`rlscore.core.optim.
        conjugate_gradient` (stop at ||b - S w|| <= tol ||b|| on the true residual;
        with float32 kernel blocks at least :data:`FLOAT32_TOL`, the accuracy the
        single-precision operator attains: :func:`pcg_tolerance`)
    precondition : "auto" (the operator's ``default_preconditioner``: "nystrom" for
        RLS and global RankRLS, None for query RankRLS, where it was measured to cost
        iterations), "nystrom" (Falkon, :class:`NystromPreconditioner`) or None

    Returns
    -------
    SolverResult of the CG (``solution`` W), extras ``operator`` and
    ``preconditioner``; a :class:`rlscore.core.optim.ConvergenceWarning` when it
    stopped short of ``tol`` (at ``maxiter``, or on a breakdown) and no callback
    ended it.

    Notes
    -----
    O(2 k^3 / 3) for the preconditioner, then one streamed product per iteration.
    """
    lam = check_regparam(regparam)
    tol = pcg_tolerance(tol, op.dtype)
    if op._B is None:
        op._B = op.rhs()
    op.regparam = op.effective_regparam(lam)
    M = None
    if isinstance(precondition, str) and precondition == "auto":
        precondition = op.default_preconditioner
    if precondition == "nystrom":
        M = NystromPreconditioner(op, lam)
    elif precondition not in (None, "none"):
        raise ValueError(f"precondition must be 'auto', 'nystrom' or None, got "
                         f"{precondition!r}")
    res = conjugate_gradient(op.matvec, op._B, rtol=tol, maxiter=maxiter, M=M,
                             callback=callback, x0=x0,
                             options=CGOptions(verbose=verbose,
                                               desc="preconditioned CG (Nystrom)"))
    res.extras["operator"] = op
    res.extras["preconditioner"] = M
    if not res.converged and not res.stopped:
        warnings.warn(f"preconditioned CG stopped after {res.iterations} iterations at "
                      f"a relative residual of {float(np.max(res.residuals)):.3g}, above "
                      f"tol={tol:g}: the weights are not the solution to that accuracy; "
                      f"raise the iteration cap or the tolerance", ConvergenceWarning,
                      stacklevel=2)
    return res


def pcg_reduced_set(source, fmap, regparam, *, tol=1e-6, maxiter=None, x0=None,
                    precondition="nystrom", operator=None, callback=None, verbose=None,
                    **operator_options):
    """Weights W (k, p) of reduced-set RLS by preconditioned CG (module docstring).

    Parameters
    ----------
    source, fmap : the data and the map (:class:`rlscore.core.nystrom.NystromFactors` or
        ``NystromFeatureMap``; basis drawn uniformly from the rows for the
        preconditioner's approximation to hold)
    regparam : float > 0
    tol, maxiter, x0, callback, verbose, precondition : of :func:`pcg_solve`
    operator : a :class:`StreamedGramOperator` to reuse (its kernel cache, and its
        right-hand side) across lambdas; else one is built from ``operator_options``
        (block_size, cache, dtype, rows, threads)

    Returns
    -------
    SolverResult of the CG (``solution`` W; ``extras["operator"].factors.predictor(W)``
    the model).

    Notes
    -----
    O(2 k^3 / 3) for the preconditioner, then per iteration one streamed product:
    O(m r l) with cached kernel blocks, O(m r (d + l)) recomputed.
    """
    op = operator if operator is not None else StreamedGramOperator(
        source, fmap, **operator_options)
    return pcg_solve(op, regparam, tol=tol, maxiter=maxiter, x0=x0,
                     precondition=precondition, callback=callback, verbose=verbose)
