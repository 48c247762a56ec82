"""Matrix-free conjugate-gradient solvers for large linear RLS and RankRLS.

Every problem here is a symmetric positive (semi)definite system ``S x = B`` whose
matrix is never formed: :class:`RLSOperator` (primal ``X_a^T X_a + lambda I`` or dual
``X_a X_a^T + lambda I`` with ``X_a = [X, sqrt(bias) 1]``), :class:`RankRLSOperator`
(``X^T L X + lambda I`` with ``L`` the per-query centering of QueryRankRLS, or the global
centering ``I - 1 1^T / m``, applied as ``u - mean_q(u)``; neither ``X^T X`` nor the
pairs are ever formed) and :class:`PreferenceRankRLSOperator` (``X^T C^T C X + lambda I``
with ``C`` the pair-incidence matrix of a preference list, applied through the sparse
graph Laplacian ``C^T C``). One product with any of them costs two passes over ``X``:
``O(nnz(X) l)`` for sparse and ``O(m d l)`` for dense data with ``l`` right-hand sides,
plus ``O(m l)`` (``O(n_pairs l)`` for preferences).

:func:`conjugate_gradient` solves all ``l`` right-hand sides at once (one product with
an ``n x l`` block per iteration; each column keeps its own step sizes, so the result
equals ``l`` separate CG runs), stops each column at ``||b - S x|| <= tol ||b||``, and
reports every iteration to an optional callback, which may stop the iteration.

References: Pahikkala et al., "An efficient algorithm for learning to rank from
preference graphs", Machine Learning 75 (2009), Sect. 4.3 (CG RankRLS in O(t m n_bar));
Airola (2011), thesis Sect. 4.1.2.
"""

import warnings

import numpy as np
import scipy.sparse as sp

from rlscore.core.groups import QueryGroups, as_query_groups
from rlscore._progress import Progress
from rlscore.core.solver_result import SolverResult
from rlscore._validation import (
    as_2d_labels, as_data_matrix, as_index_array, check_bias, check_positive_int,
    check_regparam, check_tol)

__all__ = [
    "CGStop", "CGResult", "conjugate_gradient", "RLSOperator", "RankRLSOperator",
    "PreferenceRankRLSOperator", "as_cg_data",
    "cg_rls", "cg_rankrls", "cg_preference_rankrls", "preference_matrix",
]


# ---------------------------------------------------------------------------------------
# argument checks


def as_cg_data(X, name="X", contiguous=True):
    """Data for the matrix-free solvers: a float64 ndarray (C-contiguous unless
    ``contiguous`` is False), or a CSR matrix with sorted indices, summed duplicates and
    no explicit zeros (the caller's matrix is not modified). ``numpy.matrix``, lists
    and every scipy sparse format are accepted.

    O(nnz) for sparse input (a copy only when it holds explicit zeros).
    """
    X = as_data_matrix(X, name=name)
    if sp.issparse(X):
        if X.nnz and np.any(X.data == 0):
            X = X.copy()
            X.eliminate_zeros()
        if not X.has_sorted_indices:
            X = X.copy()
            X.sort_indices()
        return X
    return np.ascontiguousarray(X, dtype=np.float64) if contiguous else \
        np.asarray(X, dtype=np.float64)


def _cg_data_and_labels(X, Y):
    """(:func:`as_cg_data` (X), Y as 2-D labels); ValueError when their lengths differ."""
    X = as_cg_data(X)
    Y = as_2d_labels(Y)
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but Y has {Y.shape[0]}: lengths must "
                         f"match")
    return X, Y


# ---------------------------------------------------------------------------------------
# the solver


class CGStop(Exception):
    """Base of the exceptions a learner's callback raises to end an iteration early
    (``rlscore.learner.cg_rls.Finished``, ``rlscore.learner.cg_rankrls.Finished``)."""


#: The result of :func:`conjugate_gradient` is a
#: :class:`rlscore.core.solver_result.SolverResult` (``solver="cg"``); the old name stays
#: importable.
CGResult = SolverResult


def conjugate_gradient(matvec, B, tol=1e-6, maxiter=None, precond=None, callback=None,
                       x0=None, verbose=None, desc="conjugate gradient"):
    """Solve ``S X = B`` for a symmetric positive (semi)definite ``S`` by conjugate
    gradients, all columns of ``B`` at once.

    Parameters
    ----------
    matvec : callable
        ``matvec(V)`` returns ``S V`` for an (n, k) array ``V`` (k <= l).
    B : ndarray (n,) or (n, l)
        Right-hand sides.
    tol : float in (0, 1), default 1e-6
        A column stops when its residual norm is at most ``tol`` times that of its
        right-hand side.
    maxiter : int > 0 or None
        Iteration limit; None means ``10 n`` (CG terminates in at most n steps in exact
        arithmetic).
    precond : ndarray (n,) or None
        Inverse diagonal (Jacobi) preconditioner: positive weights multiplying the
        residual.
    callback : callable or None
        ``callback(k, X, residuals)`` after iteration k (1-based) with the current
        iterate (n, l) and the relative residual norms (l,); a true return value stops
        the iteration.
    x0 : ndarray or None
        Starting point (default 0).
    verbose : bool or None
        Show one progress step per iteration (the largest relative residual) on stderr;
        None follows :func:`rlscore._progress.verbosity` (default off). The steps are
        logged either way (logger ``"rlscore"``, DEBUG).
    desc : str
        The name of the run in the progress report.

    Returns
    -------
    SolverResult
        ``solver="cg"``, ``solution`` (also ``x``) the last iterate (n, l) (or the one
        the callback stopped at), ``iterations`` the products with the operator (not
        counting the one for a nonzero start), ``converged`` whether every column
        reached the tolerance, ``objective`` nan; extras ``residuals`` (l,) the relative
        residual norms ``||b - S x|| / ||b||`` from the CG recursion (0 for a zero
        right-hand side), ``column_converged`` (l,) bool, ``stopped`` (the callback
        ended the iteration), ``info`` the scipy-style flag (0 if every column
        converged, else the iteration count).

    Notes
    -----
    Per iteration: one product with S on the columns that have not converged, plus
    O(n l) vector work. Memory O(n l) (iterate, residual, direction, product). A column
    whose curvature ``p^T S p`` is not positive (the problem is singular along the
    search direction) stops and is reported as not converged.
    """
    B = np.asarray(B, dtype=np.float64)
    one_d = B.ndim == 1
    if one_d:
        B = B[:, None]
    tol = check_tol(tol)
    maxiter = user_maxiter = check_positive_int(maxiter, "maxiter", allow_none=True)
    n, l = B.shape
    if maxiter is None:
        maxiter = max(10 * n, 10)
    X = np.zeros((n, l)) if x0 is None else np.array(
        np.reshape(x0, (n, l)), dtype=np.float64)
    bnorm = np.sqrt(np.einsum("ij,ij->j", B, B))
    R = B - matvec(X) if x0 is not None and np.any(X) else B.copy()
    rnorm = np.sqrt(np.einsum("ij,ij->j", R, R))
    safe_b = np.where(bnorm > 0, bnorm, 1.0)
    converged = rnorm <= tol * bnorm
    active = np.flatnonzero(~converged)
    Z = R if precond is None else R * precond[:, None]
    P = Z.copy()
    rz = np.einsum("ij,ij->j", R, Z)
    k = 0
    stopped = False
    report = Progress(desc, maxiter if user_maxiter else None, verbose)
    while active.size and k < maxiter:
        k += 1
        Pa = P[:, active] if active.size < l else P
        SP = np.asarray(matvec(Pa))
        pSp = np.einsum("ij,ij->j", Pa, SP)
        ok = pSp > 0
        alpha = np.where(ok, rz[active] / np.where(ok, pSp, 1.0), 0.0)
        if active.size < l:
            X[:, active] += Pa * alpha
            R[:, active] -= SP * alpha
            Ra = R[:, active]
        else:
            X += P * alpha
            R -= SP * alpha
            Ra = R
        rn = np.sqrt(np.einsum("ij,ij->j", Ra, Ra))
        rnorm[active] = rn
        done = rn <= tol * bnorm[active]
        converged[active] = done
        report.step(residual=float(np.max(rnorm / safe_b)))
        if callback is not None and callback(k, X, rnorm / safe_b):
            stopped = True
            break
        keep = ~done & ok
        if not np.all(keep):
            active = active[keep]
            Ra = R[:, active]
            if not active.size:
                break
        Za = Ra if precond is None else Ra * precond[:, None]
        rz_new = np.einsum("ij,ij->j", Ra, Za)
        beta = rz_new / rz[active]
        rz[active] = rz_new
        if active.size < l:
            P[:, active] = Za + P[:, active] * beta
        else:
            P = Za + P * beta
    report.close(iterations=k, residual=float(np.max(rnorm / safe_b, initial=0.0)),
                 converged=bool(np.all(converged)))
    done = bool(np.all(converged))
    message = ("converged: every column reached ||b - S x|| <= tol ||b||" if done else
               "stopped by the callback" if stopped else
               "max_iter reached" if k >= maxiter else
               "non-positive curvature p^T S p (singular system)")
    return SolverResult("cg", X, iterations=k, converged=done, message=message,
                        residuals=rnorm / safe_b, column_converged=converged,
                        stopped=stopped, info=0 if done else k)


# ---------------------------------------------------------------------------------------
# operators


def _matmul(X, V):
    out = X @ V
    return out.toarray() if sp.issparse(out) else np.asarray(out)


class DataOperator:
    """Products with X and X^T (X dense, or CSR; X^T is the zero-copy CSC view, whose
    product is as fast as that of a transposed CSR copy and costs no set-up)."""

    def __init__(self, X):
        self.X = X
        self.m, self.d = X.shape
        self._XT = X.T

    def X_dot(self, V):
        return _matmul(self.X, V)

    def XT_dot(self, U):
        return _matmul(self._XT, U)

    def column_sq_norms(self):
        if sp.issparse(self.X):
            return np.asarray(self.X.multiply(self.X).sum(axis=0)).ravel()
        return np.einsum("ij,ij->j", self.X, self.X)

    def row_sq_norms(self):
        if sp.issparse(self.X):
            return np.asarray(self.X.multiply(self.X).sum(axis=1)).ravel()
        return np.einsum("ij,ij->i", self.X, self.X)


class RLSOperator(DataOperator):
    """Linear RLS with the bias feature ``sqrt(bias)``, matrix-free.

    Primal: unknown ``w_a = [w; w_bias]`` (d + 1 rows when bias > 0),
    ``S = X_a^T X_a + lambda I``, right-hand side ``X_a^T Y``.
    Dual: unknown ``a`` (m rows), ``S = X_a X_a^T + lambda I = X X^T + bias 1 1^T +
    lambda I``, right-hand side ``Y``; then ``w_a = X_a^T a``.

    Parameters
    ----------
    X : ndarray or CSR (m, d), from :func:`as_cg_data`
    regparam : float >= 0
    bias : float >= 0
    form : "primal" or "dual"

    Notes
    -----
    One product costs O(nnz(X) l) (sparse) or O(m d l) (dense) plus O((m + d) l).
    """

    def __init__(self, X, regparam, bias=0.0, form="primal"):
        super().__init__(X)
        if form not in ("primal", "dual"):
            raise ValueError(f"form must be 'primal' or 'dual', got {form!r}")
        self.regparam = check_regparam(regparam)
        self.bias = check_bias(bias)
        self.sqrt_bias = np.sqrt(self.bias)
        self.form = form
        self.n = self.m if form == "dual" else self.d + (1 if self.bias > 0 else 0)

    # X_a products
    def Xa_dot(self, W):
        """X_a W for W with d (+1) rows."""
        if self.bias > 0:
            return self.X_dot(W[:-1]) + self.sqrt_bias * W[-1:]
        return self.X_dot(W)

    def XaT_dot(self, U):
        out = self.XT_dot(U)
        if self.bias > 0:
            out = np.vstack([out, self.sqrt_bias * U.sum(axis=0, keepdims=True)])
        return out

    def matvec(self, V):
        """S V, with V (n, k)."""
        if self.form == "primal":
            return self.XaT_dot(self.Xa_dot(V)) + self.regparam * V
        return self.Xa_dot(self.XaT_dot(V)) + self.regparam * V

    def rhs(self, Y):
        return self.XaT_dot(Y) if self.form == "primal" else np.array(Y, dtype=np.float64)

    def diagonal(self):
        """diag(S): O(nnz) / O(m d)."""
        if self.form == "primal":
            dg = self.column_sq_norms()
            if self.bias > 0:
                dg = np.append(dg, self.bias * self.m)
        else:
            dg = self.row_sq_norms() + self.bias
        return dg + self.regparam

    def primal_weights(self, x):
        """(W (d, l), b (l,)) of the predictor for a primal or dual iterate x."""
        Wa = x if self.form == "primal" else self.XaT_dot(x)
        if self.bias > 0:
            return Wa[:-1], self.sqrt_bias * Wa[-1]
        return Wa, np.zeros(Wa.shape[1])


class RankRLSOperator(DataOperator):
    """Linear RankRLS ``S = X^T L X + lambda I``, right-hand side ``X^T L Y``, with L
    the per-query centering of QueryRankRLS (``groups``, a
    :class:`rlscore.core.groups.QueryGroups`) or the global centering ``I - 1 1^T / m``
    (``groups`` None; this is GlobalRankRLS's Laplacian divided by m).

    Notes
    -----
    One product costs two passes over X plus O(m l): the centering subtracts the query
    means of X w, so neither X^T X nor any pair is formed.
    """

    def __init__(self, X, regparam, groups=None):
        super().__init__(X)
        self.regparam = float(regparam)
        self.groups = QueryGroups.single(self.m) if groups is None else \
            as_query_groups(groups, self.m)
        self.n = self.d

    def matvec(self, V):
        return self.XT_dot(self.groups.center(self.X_dot(V))) + self.regparam * V

    def rhs(self, Y):
        return self.XT_dot(self.groups.center(Y))

    def diagonal(self):
        """diag(X^T L X) + lambda = column norms minus n_q * (query column means)^2."""
        sums = self.groups.sum(self.X)
        if sp.issparse(sums):
            sq = np.asarray(sums.multiply(sums).T @ (1.0 / self.groups.sizes)).ravel()
        else:
            sq = (sums * sums / self.groups.sizes[:, None]).sum(axis=0)
        return np.maximum(self.column_sq_norms() - sq, 0.0) + self.regparam


def preference_matrix(pairs, m, name="train_preferences"):
    """The pair-incidence matrix C (n_pairs x m, CSR): +1 at (k, a_k), -1 at (k, b_k)
    for the preference ``a_k`` over ``b_k``.

    ``pairs`` is an (n_pairs, 2) integer array-like. Raises ValueError for a wrong
    shape or an empty list, IndexError for an index outside 0..m-1. A self-pair
    (a, a) gives a zero row (it does not affect the model) and a UserWarning.
    O(n_pairs).
    """
    P = np.asarray(pairs)
    if P.ndim != 2 or P.shape[1] != 2:
        raise ValueError(f"{name} must be an (n_pairs, 2) array of indices, got shape "
                         f"{P.shape}")
    if P.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    a = as_index_array(P[:, 0], m, name=f"{name}[:, 0]", unique=False)
    b = as_index_array(P[:, 1], m, name=f"{name}[:, 1]", unique=False)
    if np.any(a == b):
        # a self-pair adds the constant 1 to the loss and nothing to the solution (its
        # row of C is zero); RLScore accepted them silently
        warnings.warn(f"{name} holds {int(np.sum(a == b))} self-pair(s) (an example "
                      f"preferred over itself); they do not affect the model",
                      UserWarning, stacklevel=4)
    n = a.size
    rows = np.concatenate([np.arange(n), np.arange(n)])
    return sp.csr_matrix((np.concatenate([np.ones(n), -np.ones(n)]),
                          (rows, np.concatenate([a, b]))), shape=(n, m))


class PreferenceRankRLSOperator(DataOperator):
    """RankRLS from preference pairs: ``S = X^T C^T C X + lambda I``, right-hand side
    ``X^T C^T 1`` (C from :func:`preference_matrix`; repeated pairs count repeatedly).

    Notes
    -----
    ``C^T C`` is the (multi)graph Laplacian, a sparse m x m matrix with at most
    m + 2 n_pairs entries, built once in O(n_pairs); a product costs two passes over
    X plus O((m + n_pairs) l).
    """

    def __init__(self, X, regparam, C):
        super().__init__(X)
        self.regparam = float(regparam)
        self.C = C
        self.Lap = (C.T @ C).tocsr()
        self.n = self.d

    def matvec(self, V):
        return self.XT_dot(np.asarray(self.Lap @ self.X_dot(V))) + self.regparam * V

    def rhs(self, Y=None):
        g = np.asarray(self.C.sum(axis=0)).reshape(-1, 1)   # C^T 1
        return self.XT_dot(g)

    def diagonal(self):
        if sp.issparse(self.X):
            dg = np.asarray(self.X.multiply(self.Lap @ self.X).sum(axis=0)).ravel()
        else:
            dg = np.einsum("ij,ij->j", self.X, np.asarray(self.Lap @ self.X))
        return np.maximum(dg, 0.0) + self.regparam


# ---------------------------------------------------------------------------------------
# drivers


def _jacobi(op, precondition):
    if precondition in (None, False, "none"):
        return None
    if precondition in (True, "jacobi"):
        dg = op.diagonal()
        return np.where(dg > 0, 1.0 / np.where(dg > 0, dg, 1.0), 1.0)
    raise ValueError(f"precondition must be None or 'jacobi', got {precondition!r}")


def cg_rls(X, Y, regparam=1.0, bias=0.0, form="auto", tol=1e-6, maxiter=None,
           precondition=None, callback=None):
    """Linear RLS by matrix-free conjugate gradients.

    Solves ``min ||Y - X W - 1 b^T||^2 + lambda (||W||^2 + ||b||^2 / bias)``, i.e. RLS
    with the constant feature ``sqrt(bias)`` (its weight regularized like the others),
    for every column of Y.

    Parameters
    ----------
    X : array-like or sparse (m, d)
    Y : array-like (m,) or (m, l)
    regparam : float >= 0
    bias : float >= 0
    form : "auto", "primal" or "dual"
        The system solved: primal (d + 1 unknowns per output) or dual (m unknowns);
        "auto" takes the smaller. The solutions agree; the iterates (what a callback
        sees) differ.
    tol, maxiter, precondition : see :func:`conjugate_gradient` (``precondition``:
        None or "jacobi").
    callback : callable or None
        ``callback(k, x, op, residuals)`` after each iteration with the current iterate
        in the chosen form and the relative residual norms; a true return value stops.

    Returns
    -------
    W : ndarray (d, l)
    b : ndarray (l,)
    result : SolverResult (``result.solution`` is the final iterate in the chosen form)
    op : RLSOperator

    Notes
    -----
    Never forms X^T X or X X^T: O(t (nnz(X) + m + d) l) time for t iterations, O(nnz(X)
    + (m + d) l) memory. t depends on the conditioning: roughly
    sqrt(sigma_max^2 / lambda) log(1 / tol) for a small lambda.
    """
    X, Y = _cg_data_and_labels(X, Y)
    m, d = X.shape
    regparam = check_regparam(regparam)
    bias = check_bias(bias)
    if form == "auto":
        form = "dual" if m < d + (bias > 0) else "primal"
    op = RLSOperator(X, regparam, bias, form)
    cb = None if callback is None else (lambda k, x, r: callback(k, x, op, r))
    res = conjugate_gradient(op.matvec, op.rhs(Y), tol=tol, maxiter=maxiter,
                             precond=_jacobi(op, precondition), callback=cb,
                             desc="CG (RLS)")
    W, b = op.primal_weights(res.solution)
    return W, b, res, op


def cg_rankrls(X, Y, regparam=1.0, qids=None, tol=1e-6, maxiter=None,
               precondition=None, callback=None):
    """Linear RankRLS by matrix-free conjugate gradients in the primal:
    ``W = (X^T L X + lambda I)^{-1} X^T L Y``.

    Parameters
    ----------
    X : array-like or sparse (m, d)
    Y : array-like (m,) or (m, l)
    regparam : float >= 0
    qids : sequence of length m, QueryGroups or None
        Query ids (grouped by equal value): L is QueryRankRLS's per-query centering
        ``I - sum_q 1_q 1_q^T / n_q``. None: the global centering ``I - 1 1^T / m``
        (GlobalRankRLS's Laplacian divided by m, so the solution equals GlobalRankRLS
        at ``m * regparam``).
    tol, maxiter, precondition, callback : as for :func:`cg_rls` (the iterate is W).

    Returns
    -------
    W : ndarray (d, l)
    result : SolverResult
    op : RankRLSOperator
    codes : ndarray of int (m,) or None
        The 0-based query number of each row (first-appearance order).

    Notes
    -----
    O(t (nnz(X) + m + d) l) time for t iterations; O(nnz(X) + (m + d) l) memory.
    """
    X, Y = _cg_data_and_labels(X, Y)
    regparam = check_regparam(regparam)
    groups = as_query_groups(qids, X.shape[0])
    codes = None if groups is None else groups.codes
    op = RankRLSOperator(X, regparam, groups)
    cb = None if callback is None else (lambda k, x, r: callback(k, x, op, r))
    res = conjugate_gradient(op.matvec, op.rhs(Y), tol=tol, maxiter=maxiter,
                             precond=_jacobi(op, precondition), callback=cb,
                             desc="CG (RankRLS)")
    return res.solution, res, op, codes


def cg_preference_rankrls(X, pairs, regparam=1.0, tol=1e-6, maxiter=None,
                          precondition=None, callback=None):
    """Linear RankRLS from preference pairs by matrix-free conjugate gradients:
    ``w = (X^T C^T C X + lambda I)^{-1} X^T C^T 1`` (pair (a, b): a above b).

    Parameters
    ----------
    X : array-like or sparse (m, d)
    pairs : integer array-like (n_pairs, 2)
    regparam : float >= 0
    tol, maxiter, precondition, callback : as for :func:`cg_rls`.

    Returns
    -------
    W : ndarray (d, 1)
    result : SolverResult
    op : PreferenceRankRLSOperator

    Notes
    -----
    O(n_pairs) setup; O(t (nnz(X) + m + n_pairs)) time for t iterations.
    """
    X = as_cg_data(X)
    regparam = check_regparam(regparam)
    C = preference_matrix(pairs, X.shape[0])
    op = PreferenceRankRLSOperator(X, regparam, C)
    cb = None if callback is None else (lambda k, x, r: callback(k, x, op, r))
    res = conjugate_gradient(op.matvec, op.rhs(), tol=tol, maxiter=maxiter,
                             precond=_jacobi(op, precondition), callback=cb,
                             desc="CG (preference RankRLS)")
    return res.solution, res, op
