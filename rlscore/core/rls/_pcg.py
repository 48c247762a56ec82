"""Reduced-set RLS with many centres by preconditioned conjugate gradients, the kernel
streamed by blocks: Falkon's Nystrom preconditioner (Rudi, Carratino & Rosasco,
"FALKON: An optimal large scale kernel method", NeurIPS 2017, Algorithm 1).

The problem is the one of :class:`rlscore.core.rls.StreamedReducedSet` ("rls"),

    (Phi^T Phi + lambda I) w = Phi^T Y,   Phi = K(X, R) T,  T = C^{-T},  C C^T = K_RR,

but Phi^T Phi (r x r) is never formed: each CG iteration streams
Phi^T (Phi V) = T^T sum_b K_b^T (K_b (T V)) over blocks K_b = K(X_b, R) (recomputed by
:func:`rlscore.kernel.kernel_blocks`, or cached when m r values fit the budget).
O(m r (d + 2 t)) for t iterations when recomputed, O(2 m r t) when cached; memory
O(r^2 + block r) (plus m r when cached).

The preconditioner. For r centres drawn uniformly from the m rows,
K_MR^T K_MR ~ (m / r) K_RR^2 (Falkon, Sect. 3), i.e. in the coordinates w = C^T b,
Phi^T Phi ~ (m / r) C^T C, and

    M = (m / r) C^T C + lambda I = A A^T      (A: the second r x r Cholesky factor)

is solved by two triangular solves per application. Falkon's two factors are T (of
K_MM) and A (of T T^T / M + lambda I); here the first is the decomposed Nystrom map's
C (:class:`rlscore.core.rls.NystromMap`, pivoted when K_RR is singular) and only the
lambda-dependent A is refactored for a new lambda (:meth:`NystromPreconditioner.
with_regparam`), O(r^3 / 3).
"""

import numpy as np
import scipy.linalg as la

from rlscore._validation import available_memory, check_regparam
from rlscore.core.optim import Preconditioner, conjugate_gradient
from rlscore.core.structure import as_source
from rlscore.kernel import block_size_for, kernel_block

__all__ = ["NystromPreconditioner", "StreamedGramOperator", "pcg_reduced_set"]


class NystromPreconditioner(Preconditioner):
    """M^{-1} R with M = (m / r) C^T C + lambda I (module docstring; Rudi et al. 2017,
    Alg. 1).

    Parameters
    ----------
    C : ndarray (k, k), lower Cholesky factor of the basis kernel (``NystromMap.C``)
    m : number of training rows
    regparam : float > 0

    Notes
    -----
    Construction O(k^3) (C^T C and one Cholesky); ``apply`` O(k^2 l) for l columns;
    ``with_regparam`` O(k^3 / 3), C^T C kept.
    """

    def __init__(self, C, m, regparam):
        C = np.asarray(C, dtype=np.float64)
        self.k, self.m = C.shape[0], int(m)
        self._CtC = (C.T @ C) * (self.m / self.k)
        self._factor(regparam)

    def _factor(self, regparam):
        self.regparam = check_regparam(regparam)
        Mx = self._CtC.copy()
        Mx.flat[:: self.k + 1] += self.regparam
        try:
            self._A = la.cho_factor(Mx, lower=True, check_finite=False)
        except la.LinAlgError:
            raise ValueError("the Nystrom preconditioner is singular; use "
                             "regparam > 0") from None

    def with_regparam(self, regparam):
        """The preconditioner for another lambda (C^T C reused). O(k^3 / 3)."""
        new = object.__new__(NystromPreconditioner)
        new.k, new.m, new._CtC = self.k, self.m, self._CtC
        new._factor(regparam)
        return new

    def apply(self, R):
        return la.cho_solve(self._A, R, check_finite=False)


class StreamedGramOperator:
    """V -> Phi^T (Phi V) + lambda V, streamed over blocks of the data.

    Parameters
    ----------
    source : data source (:func:`rlscore.core.structure.as_source`)
    fmap : :class:`rlscore.core.rls.NystromFeatureMap`
    block_size : rows per block (default: the working-memory budget)
    cache : "auto" (keep the kernel blocks when m b values take at most a quarter of
        the available memory), True or False
    dtype : np.float64 (default) or np.float32 for the cached kernel blocks and the
        block products (the sums are accumulated in float64)

    Notes
    -----
    ``matvec`` O(m b l) (cached) or O(m b (d + l)) (recomputed); ``rhs`` one pass.
    """

    def __init__(self, source, fmap, block_size=None, cache="auto", dtype=np.float64):
        self.source = as_source(source)
        self.fmap = fmap
        self.T = np.ascontiguousarray(fmap.T)
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
        b = fmap.n_basis
        self.block_size = block_size_for(self.source.m, b, self.source.d, 16 * 4,
                                         block_size, what="a kernel block")
        need = self.source.m * b * self.dtype.itemsize
        if cache == "auto":
            avail = available_memory()
            cache = avail is not None and need <= avail / 4
        elif not isinstance(cache, (bool, np.bool_)):
            raise ValueError(f"cache must be 'auto', True or False, got {cache!r}")
        self.cached = bool(cache)
        self._cache = None
        self.regparam = 0.0
        self.passes = 0

    def _kernel_blocks(self):
        if self._cache is not None:
            yield from self._cache
            return
        keep = [] if self.cached else None
        rows = 0
        for start, Xb in self.source.blocks(self.block_size):
            Kb = kernel_block(self.fmap.kernel, Xb)
            if self.dtype != np.float64:
                Kb = Kb.astype(self.dtype)
            if keep is not None:
                keep.append((start, Kb))
            rows += Kb.shape[0]
            yield start, Kb
        if rows != self.source.m:
            raise ValueError(f"the data source gave {rows} rows, expected "
                             f"{self.source.m} (was the file changed or truncated?)")
        if keep is not None:
            self._cache = keep

    def rhs(self):
        """Phi^T Y (k, p): one pass. O(m b (d + p))."""
        Y = self.source.Y
        acc = np.zeros((self.fmap.n_basis, Y.shape[1]))
        for start, Kb in self._kernel_blocks():
            acc += Kb.T @ Y[start:start + Kb.shape[0]].astype(Kb.dtype)
        self.passes += 1
        return self.T.T @ acc

    def matvec(self, V):
        V = np.asarray(V, dtype=np.float64)
        TV = (self.T @ V).astype(self.dtype)
        acc = np.zeros((self.fmap.n_basis, V.shape[1]))
        for _, Kb in self._kernel_blocks():
            acc += Kb.T @ (Kb @ TV)
        self.passes += 1
        return self.T.T @ acc + self.regparam * V


def pcg_reduced_set(source, fmap, regparam, *, tol=1e-6, maxiter=None, x0=None,
                    precondition="nystrom", operator=None, callback=None, verbose=None,
                    **operator_options):
    """Weights W (k, p) of reduced-set RLS by preconditioned CG (module docstring).

    Parameters
    ----------
    source, fmap : the data and the Nystrom map (basis drawn uniformly from the rows
        for the preconditioner's approximation to hold)
    regparam : float > 0
    tol, maxiter, x0, callback, verbose : of :func:`rlscore.core.optim.
        conjugate_gradient` (stop at ||b - S w|| <= tol ||b|| on the true residual)
    precondition : "nystrom" (Falkon) or None
    operator : a :class:`StreamedGramOperator` to reuse (its kernel cache, and its
        right-hand side) across lambdas; else one is built from ``operator_options``
        (block_size, cache, dtype)

    Returns
    -------
    SolverResult of the CG (``solution`` W), extras ``operator`` and
    ``preconditioner``.

    Notes
    -----
    O(k^3) for the preconditioner, then per iteration one streamed product:
    O(m b l) with cached kernel blocks, O(m b (d + l)) recomputed.
    """
    regparam = check_regparam(regparam)
    op = operator if operator is not None else StreamedGramOperator(
        source, fmap, **operator_options)
    if getattr(op, "_B", None) is None:
        op._B = op.rhs()
    op.regparam = regparam
    M = None
    if precondition == "nystrom":
        M = NystromPreconditioner(fmap.nmap.C, op.source.m, regparam)
    elif precondition not in (None, "none"):
        raise ValueError(f"precondition must be 'nystrom' or None, got {precondition!r}")
    res = conjugate_gradient(op.matvec, op._B, tol=tol, maxiter=maxiter, precond=M,
                             callback=callback, x0=x0, verbose=verbose,
                             desc="preconditioned CG (Nystrom)")
    res.extras["operator"] = op
    res.extras["preconditioner"] = M
    return res
