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
equals ``l`` separate CG runs), stops each column at ``||b - S x|| <= rtol ||b||``, and
reports every iteration to an optional callback, which may stop the iteration.

References: Pahikkala et al., "An efficient algorithm for learning to rank from
preference graphs", Machine Learning 75 (2009), Sect. 4.3 (CG RankRLS in O(t m n_bar));
Airola (2011), thesis Sect. 4.1.2.
"""

import dataclasses

import numpy as np
import scipy.sparse as sp

from rlscore.core.optim import CGOptions, conjugate_gradient, jacobi_preconditioner
from rlscore._validation import (
    as_2d_labels, as_data_matrix, check_bias, check_regparam)

__all__ = ["DataOperator", "RLSOperator", "as_cg_data", "cg_data_and_labels", "cg_rls",
           "CGRLSOptions"]


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


def cg_data_and_labels(X, Y):
    """(:func:`as_cg_data` (X), Y as 2-D labels); ValueError when their lengths differ."""
    X = as_cg_data(X)
    Y = as_2d_labels(Y)
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but Y has {Y.shape[0]}: lengths must "
                         f"match")
    return X, Y


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


# ---------------------------------------------------------------------------------------
# driver


@dataclasses.dataclass(frozen=True)
class CGRLSOptions:
    """How :func:`cg_rls` sets up its system (the solver's own knobs are ``rtol``,
    ``maxiter`` and ``callback``).

    Parameters
    ----------
    form : "auto", "primal" or "dual", default "auto"
        The system solved: primal (d + 1 unknowns per output) or dual (m unknowns);
        "auto" takes the smaller. The solutions agree; the iterates (what a callback
        sees) differ.
    precondition : None or "jacobi", default None
        The preconditioner by name, resolved to the ``M`` of
        :func:`rlscore.core.optim.conjugate_gradient`
        (:func:`rlscore.core.optim.jacobi_preconditioner`).
    """

    form: str = "auto"
    precondition: str | None = None

    def __post_init__(self):
        if self.form not in ("auto", "primal", "dual"):
            raise ValueError(f"form must be 'auto', 'primal' or 'dual', got {self.form!r}")


def cg_rls(X, Y, regparam=1.0, bias=0.0, *, rtol=1e-6, maxiter=None, callback=None,
           options=None):
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
    rtol, maxiter : see :func:`rlscore.core.optim.conjugate_gradient`.
    callback : callable or None
        ``callback(k, x, op, residuals)`` after each iteration with the current iterate
        in the chosen form and the relative residual norms; a true return value stops.
    options : CGRLSOptions or None
        The system's form (primal, dual or auto) and preconditioner (None: defaults).

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
    sqrt(sigma_max^2 / lambda) log(1 / rtol) for a small lambda.
    """
    options = CGRLSOptions() if options is None else options
    X, Y = cg_data_and_labels(X, Y)
    m, d = X.shape
    regparam = check_regparam(regparam)
    bias = check_bias(bias)
    form = options.form
    if form == "auto":
        form = "dual" if m < d + (bias > 0) else "primal"
    op = RLSOperator(X, regparam, bias, form)
    cb = None if callback is None else (lambda k, x, r: callback(k, x, op, r))
    res = conjugate_gradient(op.matvec, op.rhs(Y), rtol=rtol, maxiter=maxiter,
                             M=jacobi_preconditioner(op, options.precondition), callback=cb,
                             options=CGOptions(desc="CG (RLS)"))
    W, b = op.primal_weights(res.solution)
    return W, b, res, op
