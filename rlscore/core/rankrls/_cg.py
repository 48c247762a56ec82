"""Matrix-free conjugate-gradient RankRLS: :class:`RankRLSOperator` (``X^T L X + lambda I``
with ``L`` the per-query or the global centering, applied as ``u - mean_q(u)``) and
:class:`PreferenceRankRLSOperator` (``X^T C^T C X + lambda I`` through the sparse graph
Laplacian ``C^T C`` of a preference list). One product costs two passes over ``X`` plus
``O(m l)`` (``O(n_pairs l)`` for preferences); neither ``X^T X`` nor the pairs are formed.

References: Pahikkala et al., "An efficient algorithm for learning to rank from
preference graphs", Machine Learning 75 (2009), Sect. 4.3 (CG RankRLS in O(t m n_bar));
Airola (2011), thesis Sect. 4.1.2.
"""

import warnings

import numpy as np
import scipy.sparse as sp

from rlscore.core.rls import DataOperator, as_cg_data, cg_data_and_labels
from rlscore.core.optim import CGOptions, conjugate_gradient, jacobi_preconditioner
from rlscore.core.structure import QueryGroups, as_query_groups
from rlscore._validation import as_index_array, check_regparam

__all__ = ["RankRLSOperator", "PreferenceRankRLSOperator", "preference_matrix",
           "cg_rankrls", "cg_preference_rankrls"]


class RankRLSOperator(DataOperator):
    """Linear RankRLS ``S = X^T L X + lambda I``, right-hand side ``X^T L Y``, with L
    the per-query centering of QueryRankRLS (``groups``, a
    :class:`rlscore.core.structure.QueryGroups`) or the global centering ``I - 1 1^T / m``
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


def cg_rankrls(X, Y, regparam=1.0, qids=None, rtol=1e-6, maxiter=None,
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
    rtol, maxiter, precondition, callback : as for :func:`cg_rls` (the iterate is W).

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
    X, Y = cg_data_and_labels(X, Y)
    regparam = check_regparam(regparam)
    groups = as_query_groups(qids, X.shape[0])
    codes = None if groups is None else groups.codes
    op = RankRLSOperator(X, regparam, groups)
    cb = None if callback is None else (lambda k, x, r: callback(k, x, op, r))
    res = conjugate_gradient(op.matvec, op.rhs(Y), rtol=rtol, maxiter=maxiter,
                             M=jacobi_preconditioner(op, precondition), callback=cb,
                             options=CGOptions(desc="CG (RankRLS)"))
    return res.solution, res, op, codes


def cg_preference_rankrls(X, pairs, regparam=1.0, rtol=1e-6, maxiter=None,
                          precondition=None, callback=None):
    """Linear RankRLS from preference pairs by matrix-free conjugate gradients:
    ``w = (X^T C^T C X + lambda I)^{-1} X^T C^T 1`` (pair (a, b): a above b).

    Parameters
    ----------
    X : array-like or sparse (m, d)
    pairs : integer array-like (n_pairs, 2)
    regparam : float >= 0
    rtol, maxiter, precondition, callback : as for :func:`cg_rls`.

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
    res = conjugate_gradient(op.matvec, op.rhs(), rtol=rtol, maxiter=maxiter,
                             M=jacobi_preconditioner(op, precondition), callback=cb,
                             options=CGOptions(desc="CG (preference RankRLS)"))
    return res.solution, res, op
