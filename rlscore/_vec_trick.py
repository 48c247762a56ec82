"""The generalized vec trick: products with sampled Kronecker matrices.

For matrices M (rM x cM) and N (rN x cN), index vectors and a vector v, the product

    u[h] = sum_k M[row_inds_M[h], col_inds_M[k]] * N[row_inds_N[h], col_inds_N[k]] * v[k]

is u = R (M kron N) C^T v, where R and C select rows and columns of the Kronecker
product: row h of R picks row row_inds_M[h] * rN + row_inds_N[h] of M kron N. The
product is computed without forming M kron N (Airola & Pahikkala, "Fast Kronecker
product kernel methods via generalized vec trick", 2018): with V the cN x cM matrix
holding v[k] at (col_inds_N[k], col_inds_M[k]) (repeated positions add up),

    u[h] = (N V M^T)[row_inds_N[h], row_inds_M[h]],

and the two possible orders cost
    N first:  rN * len(v) + cM * len(u)
    M first:  rM * len(v) + cN * len(u)
multiply-adds (instead of len(u) * len(v) for the explicit sampled matrix). An index
pair given as None means "all", in column-major (Fortran) order with N's index varying
fastest: h = i_N + i_M * rN (rows) and k = j_N + j_M * cN (columns); a full side is
handled by dense BLAS products.

:class:`SampledKronProduct` validates once, picks the cheaper order (and, per phase,
sparse loops or a dense BLAS product when the sampling is dense), caches the
transposed factors and locality orders, and then applies the product many times, as
the iterative Kronecker solvers do. :func:`sampled_kron_matvec` is the one-shot form.
The loops are in :mod:`rlscore._ext._kron` (nogil, OpenMP).
"""

import numpy as np
from scipy.sparse.linalg import LinearOperator

from rlscore._ext import _kron
from rlscore._validation import as_index_array, check_memory, check_real_dtype

__all__ = ["SampledKronProduct", "sampled_kron_matvec", "as_index_vector",
           "grid_indices", "PairwiseKernelOperator", "as_terms", "term_indices"]

#: cost of one multiply-add of the compiled sparse loops relative to one of a BLAS
#: matrix product (the sparse loops touch memory at random and are not blocked as
#: well as GEMM); the order and per-phase method with the least weighted cost wins
_SPARSE_WEIGHT = 6.0


def as_index_vector(inds, bound, name):
    """An index vector against ``bound`` objects as int32 (repeats and empty allowed):
    :func:`rlscore._validation.as_index_array`, the one index checker, with those
    options. O(len(inds))."""
    return as_index_array(inds, bound, name, unique=False, allow_empty=True,
                          dtype=np.int32)


def grid_indices(n_fast, n_slow):
    """The two int32 index vectors (i, j) of the full n_fast x n_slow grid in
    column-major order: position h holds (h % n_fast, h // n_fast)."""
    h = np.arange(n_fast * n_slow, dtype=np.int64)
    return (np.ascontiguousarray(h % n_fast, dtype=np.int32),
            np.ascontiguousarray(h // n_fast, dtype=np.int32))


def _as_factor(X, name):
    X = check_real_dtype(np.asarray(X), name, "a real numeric matrix")
    if X.ndim == 1:
        X = X.reshape(1, -1)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got {X.ndim} dimensions")
    return np.ascontiguousarray(X, dtype=np.float64)


def _pair(inds_M, inds_N, n_M, n_N, what):
    if (inds_M is None) != (inds_N is None):
        raise ValueError(f"the {what} index vectors must be given together (both or none)")
    if inds_M is None:
        return None, None, n_M * n_N
    iM = as_index_vector(inds_M, n_M, f"{what}_inds_M")
    iN = as_index_vector(inds_N, n_N, f"{what}_inds_N")
    if iM.size != iN.size:
        raise ValueError(f"the {what} index vectors differ in length "
                         f"({iM.size} vs {iN.size})")
    return iM, iN, iM.size


def _block(width, depth, target=1 << 20):
    """Block width (a multiple of 8, >= 16) so that depth x block doubles take about
    ``target`` bytes, at most ``width``."""
    b = max(16, (target // (8 * max(depth, 1))) // 8 * 8)
    return max(1, min(b, width))


def _blocked(M, b, transposed=False):
    """Contiguous column blocks of M (d x W): out[k] = M[:, k b : (k + 1) b] (zero
    padded), shape (ceil(W / b), d, b). With ``transposed`` M is given as its
    transpose (W x d), whose row blocks are copied transposed."""
    if transposed:
        W, d = M.shape
    else:
        d, W = M.shape
    nb = -(-W // b) if W else 0
    out = np.empty((max(nb, 1), d, b))
    for k in range(nb):
        j0, j1 = k * b, min((k + 1) * b, W)
        out[k, :, : j1 - j0] = M[j0:j1].T if transposed else M[:, j0:j1]
        if j1 - j0 < b:
            out[k, :, j1 - j0:] = 0.0
    if nb == 0:
        out.fill(0.0)
    return out


class _Order:
    """One multiplication order: u[h] = sum_k A[rA[h], cA[k]] B[rB[h], cB[k]] v[k],
    through T = A V (rows(A) x cols(B)) with V[cA[k], cB[k]] += v[k]."""

    def __init__(self, A, B, rows, cols, a_is_N, dense, shape):
        """rows = (rA, rB), cols = (cA, cB), dense = (phase 1, phase 2) as dense GEMMs,
        shape = (len(u), len(v))."""
        self.A, self.B = A, B
        (self.rA, self.rB), (self.cA, self.cB) = rows, cols
        self.a_is_N = a_is_N
        self.dense1, self.dense2 = dense   # phase 1 (T = A V), phase 2 (gather) dense
        self.nu, self.nv = shape
        self._ATb = None
        self._scatter_order = None
        self._gather_order = None

    # -- phase 1 ----------------------------------------------------------------
    def _phase1(self, v):
        """T (rows(A) x cols(B)), or its transpose flagged by the second value."""
        A, B = self.A, self.B
        if self.cA is None:
            cN = A.shape[1] if self.a_is_N else B.shape[1]
            cM = B.shape[1] if self.a_is_N else A.shape[1]
            if self.a_is_N:
                V = v.reshape((cN, cM), order="F")
            else:
                V = v.reshape((cM, cN))
            return A @ V, False
        if self.dense1:
            V = np.zeros((A.shape[1], B.shape[1]))
            _kron.scatter_add(self.cA, self.cB, v, V)
            return A @ V, False
        if self._ATb is None:
            self._prepare_scatter()
        Tt = np.zeros((B.shape[1], A.shape[0]))
        vs = np.ascontiguousarray(v[self._scatter_order])
        _kron.scatter_blocked(self._ATb, self._cA_sorted, self._cB_sorted, vs, Tt)
        return Tt, True

    def _prepare_scatter(self):
        """A^T in contiguous column blocks (each ~1 MiB: the block hit at random stays
        in the L2 cache and in few memory pages), and k sorted by cB (a run of equal
        cB updates one row of Tt, reused from L1)."""
        A, B = self.A, self.B
        W, depth = A.shape[0], A.shape[1]
        self._ATb = _blocked(A.T, _block(W, depth))
        order = np.empty(self.cB.size, dtype=np.intp)
        _kron.counting_order(self.cB, B.shape[1], order)
        self._scatter_order = order
        self._cA_sorted = np.ascontiguousarray(self.cA[order])
        self._cB_sorted = np.ascontiguousarray(self.cB[order])

    # -- phase 2 ----------------------------------------------------------------
    def apply(self, v, out=None):
        T, transposed = self._phase1(v)
        A, B = self.A, self.B
        if self.rA is None:
            # full grid of rows: u = vec_F(N V M^T)
            if self.a_is_N:
                # T = N V (rN x cM): u = (T M^T) in F order = (M T^T) in C order
                P = (B @ T if transposed else B @ T.T)
                u = P.ravel(order="C")
            else:
                # T = M V^T (rM x cN): u = (N T^T) in F order
                P = (B @ T if transposed else B @ T.T)
                u = P.ravel(order="F")
            if out is not None:
                out[...] = u
                return out
            return np.ascontiguousarray(u)
        u = out if out is not None else np.empty(self.nu)
        if self.dense2:
            T = np.ascontiguousarray(T.T if transposed else T)
            P = np.ascontiguousarray(T @ B.T)
            _kron.gather_entries(P, self.rA, self.rB, u)
            return u
        # T (rows(A) x cols(B)) in contiguous column blocks for the random row access
        rows = A.shape[0]
        Tb = _blocked(T.T if not transposed else T, _block(B.shape[1], rows),
                      transposed=True)
        if self._gather_order is None:
            # h sorted by rB: a run of equal rB shares one row of B (from L1)
            order = np.empty(self.rB.size, dtype=np.intp)
            _kron.counting_order(self.rB, B.shape[0], order)
            self._gather_order = order
            self._rA_sorted = np.ascontiguousarray(self.rA[order])
            self._rB_sorted = np.ascontiguousarray(self.rB[order])
        us = np.empty(self.nu)
        _kron.gather_blocked(Tb, self._rA_sorted, B, self._rB_sorted, us)
        u[self._gather_order] = us
        return u


class SampledKronProduct:
    """The linear map v -> u = R (M kron N) C^T v, prepared for repeated application.

    Parameters
    ----------
    M : array-like (rM, cM)
    N : array-like (rN, cN)
        The factors; a 1-D array is one row. Converted to C-contiguous float64.
    row_inds_M, row_inds_N : int vectors of equal length, or both None (all rM * rN
        rows in column-major order, N's index fastest)
    col_inds_M, col_inds_N : int vectors of equal length, or both None (all cM * cN
        columns, same order)
    order : "auto" (default), "N-first" or "M-first"
        Force a multiplication order (tests and benchmarks); "auto" takes the cheaper.
    method : "auto" (default), "sparse" or "dense"
        Force the compiled sparse loops or dense BLAS products for the sampled
        phases; "auto" decides per phase from the cost model.

    Attributes
    ----------
    shape : (len(u), len(v))
    order : "N-first" or "M-first", the multiplication order chosen.

    Notes
    -----
    Preparation O(len(u) + len(v) + rM + rN + cM + cN) plus, on the first product, the
    transposed factor O(size of the factor). Each product: O(min(rN len(v) + cM len(u),
    rM len(v) + cN len(u))) with the sparse loops; a side given as None uses a GEMM,
    e.g. O(rN cN cM + rN cM rM) when neither side is sampled. Repeated indices are
    allowed on both sides. Intermediates that would not fit are refused (MemoryError)
    before they are allocated.
    """

    def __init__(self, M, N, row_inds_M=None, row_inds_N=None, col_inds_M=None,
                 col_inds_N=None, order="auto", method="auto"):
        if order not in ("auto", "N-first", "M-first"):
            raise ValueError(f"order must be 'auto', 'N-first' or 'M-first', got {order!r}")
        if method not in ("auto", "sparse", "dense"):
            raise ValueError(f"method must be 'auto', 'sparse' or 'dense', got {method!r}")
        M = _as_factor(M, "M")
        N = _as_factor(N, "N")
        self.M, self.N = M, N
        rM, cM = M.shape
        rN, cN = N.shape
        self.row_inds_M, self.row_inds_N, nu = _pair(row_inds_M, row_inds_N, rM, rN, "row")
        self.col_inds_M, self.col_inds_N, nv = _pair(col_inds_M, col_inds_N, cM, cN, "col")
        self.shape = (nu, nv)
        rows_full = self.row_inds_M is None
        cols_full = self.col_inds_M is None

        # (A, B) = (N, M) or (M, N); cost of each phase, sparse or dense, in BLAS units
        def plan(a_is_N):
            A, B = (N, M) if a_is_N else (M, N)
            rA, cA = A.shape
            rB, cB = B.shape
            if cols_full:
                c1, dense1 = float(rA) * cA * cB, True
            else:
                sparse1 = _SPARSE_WEIGHT * rA * nv + cB * rA
                dense1_cost = float(rA) * cA * cB + nv + cA * cB
                dense1 = (dense1_cost < sparse1) if method == "auto" else method == "dense"
                c1 = dense1_cost if dense1 else sparse1
            if rows_full:
                c2, dense2 = float(rA) * cB * rB, True
            else:
                sparse2 = _SPARSE_WEIGHT * nu * cB + rA * cB
                dense2_cost = float(rA) * cB * rB + nu
                dense2 = (dense2_cost < sparse2) if method == "auto" else method == "dense"
                c2 = dense2_cost if dense2 else sparse2
            mem = 8.0 * (rA * cB + (cA * cB if (dense1 and not cols_full) else 0)
                         + (rA * rB if (dense2 and not rows_full) else 0)
                         + (A.size if not dense1 else 0))
            return c1 + c2, dense1, dense2, mem

        cost_n, d1n, d2n, mem_n = plan(True)
        cost_m, d1m, d2m, mem_m = plan(False)
        a_is_N = cost_n <= cost_m if order == "auto" else order == "N-first"
        if a_is_N:
            dense1, dense2, mem = d1n, d2n, mem_n
            A, B = N, M
            rA, rB, cA, cB = (self.row_inds_N, self.row_inds_M,
                              self.col_inds_N, self.col_inds_M)
        else:
            dense1, dense2, mem = d1m, d2m, mem_m
            A, B = M, N
            rA, rB, cA, cB = (self.row_inds_M, self.row_inds_N,
                              self.col_inds_M, self.col_inds_N)
        check_memory(mem, "the sampled Kronecker product's intermediate matrices")
        self.order = "N-first" if a_is_N else "M-first"
        self._impl = _Order(A, B, (rA, rB), (cA, cB), a_is_N, (dense1, dense2), (nu, nv))
        self._adjoint = None

    def matvec(self, v):
        """u = R (M kron N) C^T v for a vector v of length shape[1]."""
        v = np.asarray(v, dtype=np.float64)
        if v.ndim == 2 and v.shape[1] == 1:
            v = v[:, 0]
        if v.ndim != 1 or v.shape[0] != self.shape[1]:
            raise ValueError(f"v must have length {self.shape[1]}, got shape {v.shape}")
        if self.shape[0] == 0:
            return np.zeros(0)
        if self.shape[1] == 0:
            return np.zeros(self.shape[0])
        return self._impl.apply(np.ascontiguousarray(v))

    def adjoint(self):
        """The transposed product v -> C (M^T kron N^T) R^T v (cached)."""
        if self._adjoint is None:
            self._adjoint = SampledKronProduct(
                self.M.T, self.N.T, self.col_inds_M, self.col_inds_N,
                self.row_inds_M, self.row_inds_N)
        return self._adjoint

    def rmatvec(self, u):
        return self.adjoint().matvec(u)


def sampled_kron_matvec(v, M, N, row_inds_M=None, row_inds_N=None, col_inds_M=None,
                        col_inds_N=None):
    """u[h] = sum_k M[row_inds_M[h], col_inds_M[k]] N[row_inds_N[h], col_inds_N[k]] v[k].

    One-shot form of :class:`SampledKronProduct` (see there for the conventions and
    the cost).
    """
    return SampledKronProduct(M, N, row_inds_M, row_inds_N, col_inds_M,
                              col_inds_N).matvec(v)


def _is_multi(x):
    return isinstance(x, (list, tuple))


def as_terms(first, second, index_args, weights=None, names=("K1", "K2")):
    """The arguments of a sum of T sampled Kronecker terms as per-term lists: the one
    home of the single-or-several-terms convention (:class:`PairwiseKernelOperator`
    and the pairwise predictors).

    Parameters
    ----------
    first, second : a matrix each (one term), or lists of T matrices each
    index_args : sequence of (inds, name): per index argument None (every index),
        one index vector (one term; also as a list of one vector or a 1 x n array), or
        T index vectors (a list, or a 2-D array with T rows)
    weights : None (all ones) or T finite term weights
    names : the names of ``first`` and ``second`` for the messages

    Returns
    -------
    (firsts, seconds, per_term, w): two lists of T matrices, a list with one list of T
    index arguments (None or a vector, unchecked: see :func:`term_indices`) per
    ``index_args`` entry, and the (T,) float64 weights. O(T).
    """
    multi = _is_multi(first)
    a, b = names
    if multi != _is_multi(second):
        raise ValueError(f"{a} and {b} must both be matrices or both be lists of matrices")
    firsts = list(first) if multi else [first]
    seconds = list(second) if multi else [second]
    T = len(firsts)
    if T == 0 or len(seconds) != T:
        raise ValueError(f"{a} and {b} must hold the same (positive) number of terms, "
                         f"got {len(firsts)} and {len(seconds)}")

    def per_term(inds, name):
        if inds is None:
            return [None] * T
        stacked = isinstance(inds, np.ndarray) and inds.ndim == 2
        if multi:
            if stacked and inds.shape[0] == T:
                return list(inds)
            if not _is_multi(inds) or len(inds) != T or \
                    (inds[0] is not None and np.ndim(inds[0]) == 0):
                raise ValueError(f"{name} must be a list of {T} index vectors (one per "
                                 f"term) or None")
            return list(inds)
        if (stacked and inds.shape[0] == 1) or \
                (_is_multi(inds) and len(inds) == 1 and np.ndim(inds[0]) == 1):
            return [inds[0]]
        return [inds]

    per = [per_term(inds, name) for inds, name in index_args]
    if weights is None:
        w = np.ones(T)
    else:
        w = np.asarray(weights, dtype=np.float64).ravel()
        if w.size != T:
            raise ValueError(f"weights must have one entry per term ({T}), got {w.size}")
        if not np.all(np.isfinite(w)):
            raise ValueError("weights contain NaN or infinity")
    return firsts, seconds, per, w


def term_indices(per_term, bounds, name):
    """The index arguments of T terms (a list from :func:`as_terms`) checked against
    the ``bounds`` (one per term) by :func:`as_index_vector`, each named ``name`` or,
    with several terms, ``name[t]``; None stays None. O(total length)."""
    T = len(per_term)
    return [None if inds is None else
            as_index_vector(inds, bound, name + (f"[{t}]" if T > 1 else ""))
            for t, (inds, bound) in enumerate(zip(per_term, bounds))]


def _factor_shape(X):
    """(rows, cols) of a Kronecker factor (a 1-D array is one row)."""
    shape = np.shape(X)
    return (1,) + shape if len(shape) == 1 else shape


class PairwiseKernelOperator(LinearOperator):
    """Sum of sampled Kronecker kernel matrices as a scipy LinearOperator.

    Represents the n_rows x n_cols matrix

        P[h, k] = sum_t w_t K1_t[row_inds_K1_t[h], col_inds_K1_t[k]]
                            * K2_t[row_inds_K2_t[h], col_inds_K2_t[k]].

    Parameters
    ----------
    K1, K2 : 2-D arrays (a 1-D array is one row), or equal-length lists/tuples of them
        (one Kronecker term per position)
    row_inds_K1, row_inds_K2 : index vectors (lists of them for several terms), both
        None for the full grid of K1 rows x K2 rows in column-major order
        (h = i + j * K1.shape[0]); an entry of a list may also be None
    col_inds_K1, col_inds_K2 : the same for the columns (k = i + j * K1.shape[1])
    weights : sequence of floats, default all ones

    Attributes
    ----------
    original_row_inds_K1, original_row_inds_K2, original_col_inds_K1,
    original_col_inds_K2 : the index arguments exactly as passed
    weights : ndarray (n_terms,)
    shape, dtype

    Notes
    -----
    ``matvec`` costs the sum over the terms of the vec-trick cost of
    :class:`SampledKronProduct` (O(min(n_K1 len(v) + ..., ...)) each, see there);
    the terms are prepared once (validation, transposed factors, locality orders) and
    reused by every product, so iterative solvers pay the preparation once. Invalid
    indices raise IndexError, inconsistent lengths or shapes ValueError.
    """

    def __init__(self, K1, K2, row_inds_K1=None, row_inds_K2=None, col_inds_K1=None,
                 col_inds_K2=None, weights=None):
        self.original_row_inds_K1 = row_inds_K1
        self.original_row_inds_K2 = row_inds_K2
        self.original_col_inds_K1 = col_inds_K1
        self.original_col_inds_K2 = col_inds_K2
        K1s, K2s, (r1, r2, c1, c2), w = as_terms(
            K1, K2, [(row_inds_K1, "row_inds_K1"), (row_inds_K2, "row_inds_K2"),
                     (col_inds_K1, "col_inds_K1"), (col_inds_K2, "col_inds_K2")],
            weights, names=("K1", "K2"))
        self.weights = w
        s1 = [_factor_shape(K) for K in K1s]
        s2 = [_factor_shape(K) for K in K2s]
        if any(len(s) != 2 for s in s1 + s2):
            raise ValueError("K1 and K2 must be matrices (2-D; a 1-D array is one row)")
        r1 = term_indices(r1, [s[0] for s in s1], "row_inds_K1")
        r2 = term_indices(r2, [s[0] for s in s2], "row_inds_K2")
        c1 = term_indices(c1, [s[1] for s in s1], "col_inds_K1")
        c2 = term_indices(c2, [s[1] for s in s2], "col_inds_K2")
        self.terms = []
        for t in range(len(K1s)):
            try:
                term = SampledKronProduct(K2s[t], K1s[t], r2[t], r1[t], c2[t], c1[t])
            except (ValueError, IndexError) as exc:
                raise type(exc)(f"term {t}: {exc}") from None
            self.terms.append(term)
        shapes = {term.shape for term in self.terms}
        if len(shapes) != 1:
            raise ValueError(f"the terms have different shapes {sorted(shapes)}")
        super().__init__(dtype=np.dtype(np.float64), shape=self.terms[0].shape)

    def _matvec(self, v):
        v = np.asarray(v, dtype=np.float64).ravel()
        out = self.weights[0] * self.terms[0].matvec(v)
        for wt, term in zip(self.weights[1:], self.terms[1:]):
            out += wt * term.matvec(v)
        return out

    def _rmatvec(self, u):
        u = np.asarray(u, dtype=np.float64).ravel()
        out = self.weights[0] * self.terms[0].rmatvec(u)
        for wt, term in zip(self.weights[1:], self.terms[1:]):
            out += wt * term.rmatvec(u)
        return out

    def _matmat(self, X):
        X = np.asarray(X, dtype=np.float64)
        return np.column_stack([self._matvec(X[:, j]) for j in range(X.shape[1])]) \
            if X.shape[1] else np.zeros((self.shape[0], 0))

    def _adjoint(self):
        return _AdjointPKO(self)


class _AdjointPKO(LinearOperator):
    def __init__(self, op):
        self.op = op
        super().__init__(dtype=op.dtype, shape=(op.shape[1], op.shape[0]))

    def _matvec(self, u):
        return self.op._rmatvec(u)

    def _rmatvec(self, v):
        return self.op._matvec(v)
