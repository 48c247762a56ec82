"""The exact leave-query-out squared ranking error of query RankRLS and its gradient
with respect to log regparam and the kernel parameters (adjoint form, one
factorization per step).

Derivation
----------
Query RankRLS minimizes ||P (y - K a)||^2 + lambda a' K a with P the block
query-centring projection (P = P' = P^2, block q: I - 1 1' / n_q). Its solution is
a = P b with b the RLS solution of the centred kernel and labels,

    K~ = P K P,   y~ = P y,   b = (K~ + lambda I)^-1 y~,

(the optimality condition P (y - K a) = lambda a puts a in range(P)). Holding out query
q, the model trained on the other queries predicts f_q = K_{q,-q} a_{-q}, and since P
is block diagonal its centred residual on q is

    P_q (y_q - f_q) = y~_q - K~_{q,-q} b_{-q},

the hold-out residual of RLS on (K~, y~) with block q held out. With G = (K~ +
lambda I)^-1, A = G y~ and B_q = G_qq (n_q x n_q), the block hold-out formula gives

    R_q = B_q^-1 A_q,                                                             (1)

and the criterion is E = (1/N) sum_q ||R_q||^2 (N = m t), the mean over examples of the
per-query squared ranking error ||P_q (y_q - f_q)||^2 = (1/(2 n_q)) sum_{i,j in q}
((y_i - y_j) - (f_i - f_j))^2.

Gradient. With dG = -G dK~ G, dA = -G dK~ A, dB_q = -(G dK~ G)_qq,
dR_q = B_q^-1 (dA_q - dB_q R_q). Put U_q = B_q^-1 R_q and let W be block diagonal
with blocks W_q = U_q R_q' (summed over the t outputs). Then

    dE = (2/N) sum_q U_q' (dA_q - dB_q R_q)
       = (2/N) [ -<dK~, G U A'> + <dK~, G W G> ],

so dE = <dK~, M~> with M~ = (2/N) (G sym(W) G - sym(G U A')). For one-example
queries (n_q = 1, P = 0) this is the RLS leave-one-out adjoint. Finally dK~ = P dK P,
so dE = <dK, M> with M = P M~ P, and dE/dlog lambda = lambda trace(M~) (lambda is
added to K~, not through P).

Cost: one Cholesky factorization and inverse of K~ + lambda I (m^3 flops), the block
inverses (sum_q n_q^3), G sym(W) G (2 m^3 flops, two products with a block-diagonal
middle), and O(m^2) for the centrings; O(m^2) per kernel parameter after that.

Nystrom model with a fixed basis. With Phi = K(X, B) the model f = Phi beta minimizes
||P (y - Phi beta)||^2 + lambda beta' K_BB beta: reduced-set RLS on (P Phi, P y). Held-out
query q leaves the centring of the other queries unchanged, so its centred residual is
the block hold-out residual of that reduced-set model, (I - H_qq)^-1 e_q
(:func:`rlscore.core.hyper.nystrom_loo_error_gradient` with ``blocks`` = the queries,
O(m r^2) per step). Its adjoint M~_Phi pulls back through dPhi~ = P dPhi to
M_Phi = P M~_Phi.
"""

import numpy as np

from rlscore._validation import as_2d_labels
from rlscore.core.hyper._kernel_learning import learn_kernel
from rlscore.core.hyper._loo_gradient import check_criterion_inputs, regularized_inverse
from rlscore.core.hyper._nystrom_gradient import nystrom_loo_error_gradient
from rlscore.core.structure import as_query_groups

__all__ = ["lqo_error_gradient", "LQOObjective", "NystromLQOObjective", "learn_kernel_lqo"]


def _center_both(groups, K):
    """P K P for the block-centring projection P (K symmetric). O(m^2)."""
    return groups.center(groups.center(K).T).T


def lqo_error_gradient(K, Y, qids, regparam, mean=True, gradient=True):
    """Exact leave-query-out squared ranking error of query RankRLS and its adjoint.

    Parameters
    ----------
    K : ndarray (m, m), symmetric PSD kernel of the training rows
    Y : ndarray (m,) or (m, t)
    qids : array-like (m,) of query ids, or a QueryGroups
    regparam : float > 0
    mean : bool, default True (divide by m t)
    gradient : bool, default True

    Returns
    -------
    value : float
    M : ndarray (m, m) or None, with dE = <dK, M> for every symmetric dK
    d_log_regparam : float or None
    residuals : ndarray (m, t), the centred held-out residuals R of (1)

    Notes
    -----
    O(m^3) once (Cholesky factor and inverse, two products) plus sum_q n_q^3; see the
    module docstring for the derivation.
    """
    Y, regparam = check_criterion_inputs(K, Y, regparam, "leave-query-out")
    m, t = Y.shape
    groups = as_query_groups(qids, m)
    Kc = _center_both(groups, K)
    Yc = groups.center(Y)
    G = regularized_inverse(Kc, regparam)
    A = G @ Yc
    R = np.empty_like(A)
    U = np.empty_like(A)
    W = np.zeros((m, m)) if gradient else None
    for idx in groups.split():
        B = G[np.ix_(idx, idx)]
        R[idx] = np.linalg.solve(B, A[idx])
        if gradient:
            U[idx] = np.linalg.solve(B, R[idx])
            Wq = U[idx] @ R[idx].T
            W[np.ix_(idx, idx)] = 0.5 * (Wq + Wq.T)
    N = m * t if mean else 1
    value = float(np.sum(R * R)) / N
    if not gradient:
        return value, None, None, R
    Mt = G @ W @ G
    C = (G @ U) @ A.T
    Mt -= 0.5 * (C + C.T)
    Mt *= 2.0 / N
    d_log = regparam * float(np.trace(Mt))
    return value, _center_both(groups, Mt), d_log, R


class LQOObjective:
    """The leave-query-out criterion of query RankRLS as a function of z = [log
    regparam, theta] with its gradient, for
    :func:`rlscore.core.selection.minimize_criterion`.

    Parameters
    ----------
    family : a kernel family of :mod:`rlscore.kernel`
    Y : ndarray (m,) or (m, t)
    qids : array-like (m,) or QueryGroups

    Notes
    -----
    Per call: the kernel, one :func:`lqo_error_gradient` (O(m^3)) and the family's
    contractions (O(m^2) per parameter).
    """

    def __init__(self, family, Y, qids):
        self.family = family
        self.Y = as_2d_labels(Y)
        self.groups = as_query_groups(qids, self.Y.shape[0])
        self.groups.require_several("the leave-query-out criterion")
        self.n_params = 1 + family.n_params
        self.names = ["log_regparam"] + list(family.names)

    def __call__(self, z):
        z = np.asarray(z, dtype=np.float64)
        K, state = self.family.evaluate(z[1:])
        value, M, d_log, _ = lqo_error_gradient(K, self.Y, self.groups, float(np.exp(z[0])))
        return value, np.concatenate([[d_log], self.family.contract(z[1:], state, M)])

    def value(self, z):
        z = np.asarray(z, dtype=np.float64)
        K, _ = self.family.evaluate(z[1:])
        return lqo_error_gradient(K, self.Y, self.groups, float(np.exp(z[0])),
                                  gradient=False)[0]


class NystromLQOObjective:
    """The leave-query-out criterion of query RankRLS on fixed Nystrom basis rows (the
    basis stays when a query is held out) as a function of z = [log regparam, theta],
    with its gradient.

    Parameters
    ----------
    family : kernel family on the training rows with ``block``/``contract_block``
        (:class:`rlscore.kernel.GaussianFamily`)
    basis_family : the same kind of family on the basis rows B (its ``X``)
    Y : ndarray (m,) or (m, t)
    qids : array-like (m,) or QueryGroups

    Notes
    -----
    Per call O(m r d) for K(X, B) and its contractions, O(r^2 d) for K(B, B), and
    O(m r^2 + r^3 + sum_q n_q^2 r) for the criterion: no m x m array.
    """

    def __init__(self, family, basis_family, Y, qids):
        self.family, self.basis_family = family, basis_family
        self.Y = as_2d_labels(Y)
        self.groups = as_query_groups(qids, self.Y.shape[0])
        self.groups.require_several("the leave-query-out criterion")
        self.Yc = self.groups.center(self.Y)
        self.blocks = self.groups.split()
        self.n_params = 1 + family.n_params

    def _criterion(self, z, gradient):
        theta = np.asarray(z[1:], dtype=np.float64)
        Phi, st = self.family.block(theta, self.basis_family.X)
        Krr, st_rr = self.basis_family.evaluate(theta)
        out = nystrom_loo_error_gradient(self.groups.center(Phi), Krr, self.Yc,
                                         float(np.exp(z[0])), gradient=gradient,
                                         blocks=self.blocks)
        return theta, st, st_rr, out

    def __call__(self, z):
        z = np.asarray(z, dtype=np.float64)
        theta, st, st_rr, (value, M_phi, M_rr, d_log) = self._criterion(z, True)
        grad = (self.family.contract_block(theta, st, self.groups.center(M_phi))
                + self.basis_family.contract(theta, st_rr, M_rr))
        return value, np.concatenate([[d_log], grad])

    def value(self, z):
        return self._criterion(np.asarray(z, dtype=np.float64), False)[3][0]


def learn_kernel_lqo(X, Y, qids, kernel="GaussianKernel", **kwargs):
    """Regparam and kernel parameters of query RankRLS minimizing the exact
    leave-query-out squared ranking error: :func:`rlscore.core.hyper.learn_kernel` with
    :class:`LQOObjective`, or with ``basis_vectors`` (Gaussian kernel)
    :class:`NystromLQOObjective` (same keywords: ``ard``, ``degree``, ranges,
    ``restarts``, ``penalty``, ``basis_vectors``, ...).

    Notes
    -----
    O(m^3) per optimizer step (one Cholesky factorization and inverse, two products)
    plus O(m^2 d) for the kernel and its ARD gradient; with r basis vectors
    O(m r^2 + r^3 + m r d).
    """
    groups = as_query_groups(qids, as_2d_labels(Y).shape[0])

    def objective(fam, Yc, basis_family=None):
        if basis_family is None:
            return LQOObjective(fam, Yc, groups)
        return NystromLQOObjective(fam, basis_family, Yc, groups)
    return learn_kernel(X, Y, kernel, objective=objective, **kwargs)
