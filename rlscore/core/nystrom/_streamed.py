"""Streamed reduced-set (Nystrom) RLS and RankRLS: the data are read in blocks of rows,
never more than a block of features in memory, with the exact cross-validation of the
in-memory path.

With the Nystrom features Phi = K(X, R) T (:class:`NystromFeatureMap`, T = C^{-T},
C C^T = K(R, R)) the models are primal ridge problems on r x r statistics, which are
sums over blocks of rows (:func:`block_statistics`; the distributed learners of
:mod:`rlscore.distributed` call the same function per partition):

* ``"rls"``: G = Phi^T Phi, b = Phi^T Y, W = (G + lambda I)^{-1} b;
* ``"query"`` (QueryRankRLS): G = (P Phi)^T (P Phi), b = (P Phi)^T Y with P the
  per-query centering, mu = lambda; a block holds whole queries (the tail query of a
  block is carried over, :func:`rlscore.core.structure.query_blocks`);
* ``"global"`` (GlobalRankRLS): the global centering from per-block moments of
  Phi - 1 c^T (c the mean of the basis vectors' features, so S - s s^T / m does not
  cancel): G = S - s s^T / m, b = t - s u^T / m, mu = lambda / m.

Passes
------
1. One pass accumulates the statistics (per fold too, when folds are given): O(m b d +
   m r^2) time. The lambda path then costs one r x r eigendecomposition, O(r^3), and
   O(r^2 p) per lambda.
2. Leave-one-out over the whole lambda path (``"rls"``): a second pass projects each
   block onto the eigenvectors, U_b = Phi_b V diag(s)^{-1}, and applies the in-memory
   formulas row by row (:func:`rlscore.core.rls.loo_rows`); the basis examples' rows
   are then replaced by those of the model without them as basis vectors
   (:func:`rlscore.core.nystrom.loo_removal_rows`; only the r basis rows are needed).
   K-fold (and leave-query-out with folds = queries): the training statistics of a
   fold are the sums over the other folds (no subtraction), one eigendecomposition
   per fold, the held-out basis vectors removed by the constraint N^T w = 0
   (:func:`rlscore.core.nystrom.constrained_solve`), and the second pass predicts the
   held-out rows.

Memory O(r^2 (2 + K) + block (r + d + L p) + m L p) for K folds and L lambdas: the
block is sized by the working-memory budget of :mod:`rlscore._blocks`.
"""

import time

import numpy as np
import scipy.linalg as la
from scipy.linalg import blas

from rlscore._progress import Progress, stage
from rlscore._memory import ReducedSetSizes, reduced_set_peak_bytes
from rlscore._validation import check_memory, check_regparam, format_bytes
from rlscore.core.optim import (SingularRegparamError, psd_eigh, regularized_cholesky,
                                symmetric_from_triangle)
from rlscore.core.nystrom._nystrom import (basis_positions, constrained_solve,
                                       loo_removal_rows, removal_directions_eigen)
from rlscore.core.rls import loo_rows
from rlscore.core.structure import (QueryGroups, as_source, contiguous_queries,
                                    query_blocks)
from rlscore.kernel import block_size_for

__all__ = ["block_statistics", "add_statistics", "gram_and_rhs", "effective_regparam",
           "fold_weights_from_statistics", "StreamedReducedSet", "KINDS", "fold_numbers"]

KINDS = ("rls", "query", "global")


def _gram(A):
    """A^T A by SYRK on the Fortran view of a C-contiguous A. O(m d^2 / 2)."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    return symmetric_from_triangle(blas.dsyrk(1.0, A.T, trans=0, lower=0), lower=False)


def block_statistics(Phi, Y, kind="rls", shift=None, qids=None):
    """One block's contribution to the r x r statistics (summed over blocks by
    :func:`add_statistics`).

    Parameters
    ----------
    Phi : ndarray (b, r), the block's Nystrom features
    Y : ndarray (b, p)
    kind : "rls", "query" (``qids`` of the block's rows: whole queries) or "global"
        (``shift`` (r,), the centre c)

    Returns
    -------
    tuple: (Phi^T Phi, Phi^T Y) for "rls"; the same of P Phi for "query"; (S, t, s, u,
    m_b) for "global" (module docstring).

    Notes
    -----
    O(b r^2) time, O(b r + r^2) memory.
    """
    b, r = Phi.shape
    p = Y.shape[1]
    if b == 0:
        zeros = (np.zeros((r, r)), np.zeros((r, p)))
        return zeros + ((np.zeros(r), np.zeros(p), 0) if kind == "global" else ())
    if kind == "rls":
        return _gram(Phi), Phi.T @ Y
    if kind == "query":
        PhiP = np.ascontiguousarray(QueryGroups.from_qids(qids, b).center(Phi))
        return _gram(PhiP), PhiP.T @ Y
    Pc = np.ascontiguousarray(Phi - shift)
    return _gram(Pc), Pc.T @ Y, Pc.sum(axis=0), Y.sum(axis=0), b


# largest eps ||T||_F^2 max K(r, r) for which pass 1 sums K^T K and maps it by T
KERNEL_SPACE_TOL = 1e-8


def kernel_space_accurate(fmap):
    """Whether the statistics may be summed in kernel space and mapped by T at the end.

    T^T (K^T K) T carries a rounding error of about eps ||T||^2 ||K^T K|| where Phi^T
    Phi summed by SYRK carries eps ||Phi^T Phi||: with ||T||^2 = 1 / lambda_min of the
    basis kernel, near-duplicate basis rows (real data with repeated records) make the
    first exceed lambda and the r x r system indefinite. Kernel space (one SYRK of
    K_b per block) when eps ||T||_F^2 max diag K(R, R) <= ``KERNEL_SPACE_TOL``; else
    feature space (K_b T and a SYRK of Phi_b per block, about 3 times the flops of the
    pass). O(b k).
    """
    T = fmap.T
    C = fmap.nmap.C
    scale = float(np.max(np.einsum("ij,ij->i", C, C))) if C.size else 1.0  # diag K_RR
    return np.finfo(float).eps * float(np.sum(T * T)) * scale <= KERNEL_SPACE_TOL


def add_statistics(a, b):
    """Sum of two statistics tuples (None is the empty sum)."""
    if a is None:
        return b
    return tuple(x + y for x, y in zip(a, b))


def gram_and_rhs(stats, kind):
    """(G, b, m) of the ridge problem min ||.||^2 + mu ||W||^2 from summed
    statistics (m: rows, for the global kind's mu = lambda / m; else None). O(r^2 p)."""
    if kind == "global":
        S, t, s, u, m = stats
        G = S - np.outer(s, s) / m
        return 0.5 * (G + G.T), t - np.outer(s, u) / m, m
    return stats[0], stats[1], None


def effective_regparam(regparam, kind, m):
    """mu of the r x r problem: lambda / m for the global centering (the Laplacian
    m I - 1 1^T is m times the centering projection), lambda otherwise."""
    return regparam / m if kind == "global" else regparam


def fold_weights_from_statistics(train, kind, regparams, fmap, held_basis=None):
    """The weights (k, L p) of the model trained on the summed statistics ``train``
    (of the rows outside a fold) for every lambda of ``regparams``, with the basis
    vectors at positions ``held_basis`` (into the basis; the held-out fold's) removed:
    the constraint N^T w = 0 of :meth:`rlscore.core.nystrom.NystromMap.removal_directions`
    solved by :func:`rlscore.core.nystrom.constrained_solve` -- the K-fold rule of every
    face (the learners' ``keep_basis_in_cv=False``): the streamed learners per fold of
    rows, :mod:`rlscore.distributed` per fold of partitions.

    Parameters
    ----------
    train : statistics tuple (:func:`block_statistics` summed by
        :func:`add_statistics`)
    kind : "rls", "query" or "global"
    regparams : list of lambdas
    fmap : the :class:`rlscore.core.nystrom.NystromFeatureMap` of the statistics
    held_basis : (h,) int positions of the held-out basis vectors, or None / empty
        (the basis is kept: explicit basis vectors, or ``keep_basis_in_cv=True``)

    Returns
    -------
    ndarray (k, L p): the columns of lambda j are ``[:, j p:(j + 1) p]``.

    Raises
    ------
    ValueError
        The fold holds every basis vector (no basis would be left).

    Notes
    -----
    One eigendecomposition, O(k^3), then O(k^2 (p + h)) per lambda plus O(h^3).
    """
    G, b, mtrain = gram_and_rhs(train, kind)
    eig = _Eigen(G, b)
    N = None
    if held_basis is not None and np.size(held_basis):
        N = fmap.nmap.removal_directions(np.asarray(held_basis, dtype=np.intp))
        if N.shape[1] >= fmap.n_features:
            raise ValueError("a fold contains every basis vector: removing them leaves "
                             "no basis; use more basis vectors, other folds, or "
                             "keep_basis_in_cv=True")
        if N.shape[1] == 0:
            N = None
    cols = []
    for lam in regparams:
        mu = effective_regparam(check_regparam(lam, name="regparams"), kind, mtrain)
        if N is None:
            cols.append(eig.solve(mu))
        else:
            cols.append(constrained_solve(lambda x, mu=mu: eig.solve(mu, x), N, b))
    return np.hstack(cols)


class _Eigen:
    """(G + mu I)^{-1} from one eigendecomposition of G."""

    def __init__(self, G, b):
        self.s2, self.V = psd_eigh(G)
        self.Vtb = self.V.T @ b

    def weights(self, mu):
        denom = self.s2 + mu
        if np.any(denom <= 0):
            raise SingularRegparamError("regparam=0 with rank-deficient features: the "
                                        "problem has no unique solution")
        return 1.0 / denom

    def solve(self, mu, rhs=None):
        w = self.weights(mu)[:, None]
        if rhs is None:
            return self.V @ (self.Vtb * w)
        return self.V @ ((self.V.T @ rhs) * w)


class StreamedReducedSet:
    """A reduced-set model trained from a stream of row blocks.

    Parameters
    ----------
    source : a data source (:func:`rlscore.core.structure.as_source`): ``m``, ``Y``,
        ``qids``, ``blocks(size)``, ``rows(indices)``
    fmap : :class:`rlscore.core.nystrom.NystromFeatureMap` of the basis
    kind : "rls" (default), "query" or "global"
    basis_indices : (r,) rows of the source that are the basis vectors, optional; cross-
        validation then removes the held-out basis vectors (``remove_basis``)
    folds : (m,) int fold of each row, or a list of index arrays, optional: per-fold
        statistics are kept for :meth:`kfold_path` (for "query", whole queries)
    block_size : rows per block, default from the working-memory budget
    lambda_count : the number of lambdas the cross-validation passes will use (sizes
        the block and the memory estimate), default 13
    verbose : progress per pass on stderr (:mod:`rlscore._progress`)

    Attributes
    ----------
    stats : the summed statistics; fold_stats : per-fold statistics or None
    kernel_space : whether pass 1 summed K^T K and mapped it by T (else Phi^T Phi per
        block, for an ill-conditioned basis: :func:`kernel_space_accurate`)
    m, p, n_features (k), block_size, peak_bytes (the estimate checked before the run)

    Notes
    -----
    Pass 1: O(m b d + m r^2) time (b basis vectors, r = k features); memory
    O(r^2 (2 + K) + block (b + r + d)). See the module docstring for the passes of
    cross-validation.
    """

    def __init__(self, source, fmap, kind="rls", basis_indices=None, folds=None,
                 block_size=None, lambda_count=13, verbose=None):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        self.source = as_source(source)
        if self.source.Y is None:
            raise ValueError("Y is required")
        self.fmap, self.kind = fmap, kind
        self.m, self.p = self.source.m, self.source.Y.shape[1]
        self.n_features = k = fmap.n_features
        if kind == "query":
            if self.source.qids is None:
                raise ValueError("QueryRankRLS needs qids")
            contiguous_queries(self.source.qids)
        self.basis_indices = None if basis_indices is None else \
            np.asarray(basis_indices, dtype=np.intp)
        self.fold_of, self.n_folds = self._fold_array(folds)
        L = max(int(lambda_count), 1)
        extra = 8 * (2 * k + 2 * L * self.p + 2 * self.p)
        self.block_size = block_size_for(self.m, fmap.n_basis, self.source.d, extra,
                                         block_size, what="a block of Nystrom features")
        self.peak_bytes = self.estimate_bytes(L)
        check_memory(self.peak_bytes, f"streamed reduced-set learning (m={self.m}, "
                     f"{fmap.n_basis} basis vectors, blocks of {self.block_size} rows)",
                     "use a smaller block_size / working_memory, fewer basis vectors, "
                     "or solver='pcg'")
        # the estimate is reported before the first pass (progress / log)
        stage(self.describe(), verbose).close()
        self._shift = None
        if kind == "global":
            # the centre c = mean of the basis vectors' features, in kernel space
            # (Phi - 1 c^T = (K - 1 c_K^T) T with c_K the mean row of K_RR)
            self._shift = fmap.kernel_rows(fmap.kernel.train_X).mean(axis=0)
        # pass 1 in kernel space: K_b^T K_b and K_b^T Y (one SYRK per block, no
        # product with T), mapped to the features by T once at the end (O(b^2 k)) --
        # unless T is so ill-conditioned that the mapped sums lose the positive
        # definiteness (near-duplicate basis rows): then Phi_b = K_b T per block
        self.kernel_space = kernel_space_accurate(fmap)
        if kind == "global" and not self.kernel_space:
            self._shift = self._shift @ fmap.T
        raw, raw_folds = self._accumulate(verbose)
        to_features = self._to_features if self.kernel_space else (lambda st: st)
        self.stats = to_features(raw)
        self.fold_stats = None if raw_folds is None else \
            [None if st is None else to_features(st) for st in raw_folds]
        self.G, self.b, self._mtot = gram_and_rhs(self.stats, kind)
        self._eig = None
        self._verbose = verbose

    # -- memory ------------------------------------------------------------------
    def estimate_bytes(self, n_lambdas=13):
        """Estimated peak bytes: the r x r statistics, their eigendecomposition and the
        per-fold sums, one block's buffers, and the m x L x p held-out predictions
        (:func:`rlscore._memory.reduced_set_peak_bytes`, path "streamed"). O(1)."""
        sizes = ReducedSetSizes(self.m, self.fmap.n_basis, self.source.d, self.p,
                                self.kind, self.n_features)
        return reduced_set_peak_bytes("streamed", sizes, self.block_size, n_lambdas,
                                      self.n_folds)

    # -- pass 1 ------------------------------------------------------------------
    def _fold_array(self, folds):
        if folds is None:
            return None, 0
        if isinstance(folds, np.ndarray) and folds.ndim == 1 and folds.size == self.m \
                and np.issubdtype(folds.dtype, np.integer):
            fold_of = folds.astype(np.intp)
        else:
            from rlscore._validation import check_index_folds, fold_membership
            fold_of = fold_membership(check_index_folds(folds, self.m, disjoint=False),
                                      self.m)
        if np.any(fold_of < 0):
            raise ValueError("folds must cover every row")
        K = int(fold_of.max()) + 1
        if K < 2:
            raise ValueError("cross-validation needs at least 2 folds")
        if self.kind == "query":
            q = self.source.qids
            starts = np.concatenate([[True], q[1:] != q[:-1]])
            run = np.cumsum(starts) - 1
            first = fold_of[starts]
            if np.any(fold_of != first[run]):
                raise ValueError("a query's rows fall into two folds: folds must hold "
                                 "whole queries")
        return fold_of, K

    def _to_features(self, st):
        """Statistics of K = K(X, R) mapped to those of Phi = K T: T^T S T, T^T t,
        T^T s. O(b^2 k + b k^2)."""
        T = self.fmap.T
        out = (symmetric_from_triangle(np.triu(T.T @ st[0] @ T), lower=False),
               T.T @ st[1])
        return out + ((T.T @ st[2],) + tuple(st[3:]) if self.kind == "global" else ())

    def _blocks(self, desc, verbose, kernel_space=False):
        """(start, Phi_b) over the data (K_b = K(X_b, R) with ``kernel_space``), one
        progress step per block."""
        report = Progress(desc, self.m, verbose)
        buf = np.empty((self.block_size, self.fmap.n_basis)) if kernel_space else None
        for start, Xb in query_blocks(self.source, self.block_size):
            if kernel_space:
                # one buffer for every block (a block holding a long query may exceed
                # block_size: then a fresh one)
                out = buf[:Xb.shape[0]] if Xb.shape[0] <= buf.shape[0] else None
                Phi = self.fmap.kernel_rows(Xb, out=out)
            else:
                Phi = self.fmap.features(Xb)
            yield start, Phi
            secs = time.perf_counter() - report._t0
            rate = (start + Phi.shape[0]) / secs if secs > 0 else float("nan")
            report.step(Phi.shape[0], rows_per_s=rate,
                        eta_s=(self.m - start - Phi.shape[0]) / rate if rate > 0 else 0.0)
        if report.count != self.m:
            raise ValueError(f"{desc}: the data source gave {report.count} rows, "
                             f"expected {self.m} (was the file changed or truncated?)")
        report.close(f"{self.m} rows")

    def _block_stats(self, start, Phi, rows=None):
        """Statistics of the block's rows ``rows`` (indices into the block; all when
        None)."""
        if rows is None:
            idx = slice(start, start + Phi.shape[0])
        else:
            idx = start + rows
            Phi = np.ascontiguousarray(Phi[rows])
        q = None if self.kind != "query" else self.source.qids[idx]
        return block_statistics(Phi, self.source.Y[idx], self.kind, self._shift, q)

    def _accumulate(self, verbose):
        total, per_fold = None, None
        if self.n_folds:
            per_fold = [None] * self.n_folds
        for start, Phi in self._blocks("statistics pass", verbose,
                                       kernel_space=self.kernel_space):
            if not self.n_folds:
                total = add_statistics(total, self._block_stats(start, Phi))
                continue
            f = self.fold_of[start:start + Phi.shape[0]]
            for j in np.unique(f):
                st = self._block_stats(start, Phi, np.flatnonzero(f == j))
                per_fold[j] = add_statistics(per_fold[j], st)
                total = add_statistics(total, st)
        return total, per_fold

    # -- solutions ---------------------------------------------------------------
    def _mu(self, regparam, m=None):
        return effective_regparam(regparam, self.kind, self._mtot if m is None else m)

    def decompose(self):
        """Eigendecompose the r x r matrix once (O(r^3)); each lambda then O(r^2 p)."""
        if self._eig is None:          # psd_eigh reports the stage (once)
            self._eig = _Eigen(self.G, self.b)
        return self._eig

    def solve(self, regparam):
        """Weights W (k, p) of the features for ``regparam``: one Cholesky
        factorization (O(k^3 / 3)) until a path or cross-validation has
        eigendecomposed the r x r matrix, then O(k^2 p)."""
        mu = self._mu(check_regparam(regparam))
        if self._eig is not None:
            return self._eig.solve(mu)
        c = regularized_cholesky(self.G, mu, "Phi^T Phi", scaled=self.kind == "global")
        return la.cho_solve((c, True), self.b, check_finite=False)

    def predictor(self, W):
        return self.fmap.predictor(W)

    # -- leave-one-out -----------------------------------------------------------
    def leave_one_out_path(self, regparams, remove_basis=True):
        """Leave-one-out predictions (m, L, p) for every lambda of ``regparams`` ("rls"
        only), equal to :meth:`rlscore.core.rls.LinearSolver.leave_one_out_path`
        (``remove_basis`` and known basis indices: :meth:`rlscore.core.rls.
        NystromSolver.leave_one_out_removing_path`). One pass over the data,
        O(m b d + m k (k + L p)), plus O(r k p) per lambda for the basis rows."""
        if self.kind != "rls":
            raise ValueError("leave-one-out is defined for RLS; use K-fold or "
                             "leave-query-out for ranking")
        grid = np.asarray([check_regparam(lam, name="regparams") for lam in regparams])
        eig = self.decompose()
        s2, V = eig.s2, eig.V
        keep = s2 > 0
        Vk = np.ascontiguousarray(V[:, keep] / np.sqrt(s2[keep])[None, :])
        UtY = eig.Vtb[keep] / np.sqrt(s2[keep])[:, None]
        out = np.empty((self.m, grid.size, self.p))
        # U_b = Phi_b V diag(s)^{-1} = K_b (T V diag(s)^{-1}): one GEMM per block
        TVk = np.ascontiguousarray(self.fmap.T @ Vk)
        for start, Kb in self._blocks("leave-one-out pass", self._verbose,
                                      kernel_space=True):
            stop = start + Kb.shape[0]
            out[start:stop] = loo_rows(Kb @ TVk, self.source.Y[start:stop], s2[keep],
                                       UtY, grid)
        if remove_basis and self.basis_indices is not None:
            nmap = self.fmap.nmap
            xi = removal_directions_eigen(nmap, V)
            cols = xi[0]
            if cols.size:
                rows = self.basis_indices[nmap.order[cols]]
                Urows = self.fmap.kernel_rows(self.source.rows(rows)) @ TVk
                parts = (s2, V, eig.Vtb)
                for j, lam in enumerate(grid):
                    out[rows, j, :] = loo_removal_rows(parts, xi, Urows,
                                                       self.source.Y[rows], lam)
        return out

    # -- K-fold ------------------------------------------------------------------
    def fold_weights(self, regparams, remove_basis=True, folds=None):
        """Per fold, the weights (k, L p) of the model trained on the other folds for
        every lambda (the held-out basis vectors removed when known and
        ``remove_basis``); only for the fold numbers ``folds`` when given (None for the
        others). One eigendecomposition per fold, O(K r^3 + K L r^2 p)."""
        if not self.n_folds:
            raise ValueError("no folds were given when the statistics were accumulated")
        grid = [check_regparam(lam, name="regparams") for lam in regparams]
        wanted = set(range(self.n_folds)) if folds is None else {int(f) for f in folds}
        Ws = []
        for j in range(self.n_folds):
            if j not in wanted:
                Ws.append(None)
                continue
            train = None
            for i in range(self.n_folds):
                if i != j and self.fold_stats[i] is not None:
                    train = add_statistics(train, self.fold_stats[i])
            held = None
            if remove_basis and self.basis_indices is not None:
                held = basis_positions(self.basis_indices,
                                       np.flatnonzero(self.fold_of == j))
            Ws.append(fold_weights_from_statistics(train, self.kind, grid, self.fmap,
                                                   held))
        return Ws

    def kfold_path(self, regparams, remove_basis=True, folds=None):
        """Held-out predictions (m, L, p): each row predicted by the model trained
        without its fold, for every lambda (only the rows of the fold numbers ``folds``
        when given; NaN for the others). One pass over the data after
        :meth:`fold_weights`: O(m b d + m k K L p)."""
        grid = list(regparams)
        Ws = self.fold_weights(grid, remove_basis, folds)
        Lp = len(grid) * self.p
        # a fold left out gets zero weights (its rows are set to NaN below)
        Wall = np.hstack([np.zeros((self.n_features, Lp)) if W is None else W
                          for W in Ws])                      # (k, K L p)
        out = np.empty((self.m, len(grid), self.p))
        TW = np.ascontiguousarray(self.fmap.T @ Wall)        # K_b (T W) = Phi_b W
        for start, Kb in self._blocks("held-out pass", self._verbose, kernel_space=True):
            stop = start + Kb.shape[0]
            P = Kb @ TW
            f = self.fold_of[start:stop]
            for j in np.unique(f):
                rows = np.flatnonzero(f == j)
                out[start + rows] = np.nan if Ws[j] is None else \
                    P[rows, j * Lp:(j + 1) * Lp].reshape(rows.size, len(grid), self.p)
        return out

    def describe(self):
        return (f"streamed {self.kind} (m={self.m}, basis {self.fmap.n_basis}, blocks of "
                f"{self.block_size} rows, its arrays estimated at "
                f"{format_bytes(self.peak_bytes)})")


def fold_numbers(cv, source, kind, seed):
    """Fold number of each row: an (m,) array as given (qids are mapped to numbers), or
    K folds of rows (of whole queries for "query") drawn with ``seed``."""
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        K = int(cv)
        if K < 2:
            raise ValueError(f"cv must be 'loo', an int >= 2 or fold numbers, got {cv}")
        rng = np.random.default_rng(seed)
        if kind == "query":
            q = source.qids
            _, run = np.unique(q, return_inverse=True)
            n = int(run.max()) + 1
            if K > n:
                raise ValueError(f"cv={K} folds but only {n} queries")
            fold_of_query = rng.permutation(n) % K
            return fold_of_query[run].astype(np.intp)
        if K > source.m:
            raise ValueError(f"cv={K} folds but only {source.m} rows")
        return (rng.permutation(source.m) % K).astype(np.intp)
    f = np.asarray(cv).ravel()
    if f.size != source.m:
        raise ValueError(f"cv holds {f.size} fold numbers but there are {source.m} rows")
    _, codes = np.unique(f, return_inverse=True)
    return codes.astype(np.intp)
