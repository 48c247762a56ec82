"""The exact leave-one-out squared error of global RankRLS and its gradient (adjoint
form, one factorization per step).

Derivation
----------
Global RankRLS minimizes ||P (y - K a)||^2 + lambda a' K a with P = I - 1 1'/m (the
learner's Laplacian form (y - K a)'(n I - 1 1')(y - K a) + r a' K a on n examples is
this with lambda = r / n; every leave-one-out model here uses the same lambda). It is
RLS with an unregularized intercept b: minimizing ||y - K a - b 1||^2 + lambda a' K a
over b gives b = mean(y - K a) and the RankRLS objective. A ranker's scores are defined
up to an offset; the criterion here scores the model trained without example i,
completed with its least-squares intercept b_{-i} (the mean residual on the m - 1
training examples), on example i:

    r_i = y_i - f_{-i}(x_i) - b_{-i}.

With K~ = P K P, G = (K~ + lambda I)^-1 and A = G P y, the fitted values of the
intercept model are yhat = K~ G P y + mean(y) 1, so the hat matrix is
H = I - lambda G + 1 1'/m (G 1 = 1/lambda since K~ 1 = 0), the residuals are
y - yhat = lambda A and 1 - H_ii = lambda G_ii - 1/m. Hence

    r_i = A_i / d~_i,   d~_i = G_ii - 1 / (lambda m),                            (1)

and E = (1/N) sum r_i^2 (N = m t). This is the RLS leave-one-out form with d~ for
diag(G), so with u = r / d~ and w = sum_t r^2 / d~,

    dE = <dK~, M~> - (2 / (N lambda^2 m)) sum_i w_i dlambda,
    M~ = (2/N) (G diag(w) G - sym(G u A')),

and, with dK~ = P dK P, dE/dtheta_j = <dK/dtheta_j, P M~ P>, dE/dlog lambda =
lambda trace(M~) - (2 / (N lambda m)) sum_i w_i.

Cost as for RLS: one Cholesky factorization and inverse and one symmetric rank-m
product (~2 m^3 flops), O(m^2) for the centrings and per kernel parameter.
"""

import dataclasses

import numpy as np

from rlscore._validation import as_2d_labels
from rlscore.core.hyper._kernel_learning import learn_kernel
from rlscore.core.hyper._loo_gradient import check_criterion_inputs, regularized_inverse

__all__ = ["global_loo_error_gradient", "GlobalLOOObjective", "learn_kernel_global"]


def _center_both(K):
    """P K P for the global centring P = I - 1 1'/m. O(m^2)."""
    Kc = K - K.mean(axis=0)[None, :]
    return Kc - Kc.mean(axis=1)[:, None]


def global_loo_error_gradient(K, Y, regparam, mean=True, gradient=True):
    """Exact leave-one-out squared error of global RankRLS with the intercept refit on
    each training set (equation (1) of the module docstring), and its adjoint.

    Parameters
    ----------
    K : ndarray (m, m), symmetric PSD
    Y : ndarray (m,) or (m, t)
    regparam : float > 0
    mean, gradient : bool, default True

    Returns
    -------
    value : float
    M : ndarray (m, m) or None, dE = <dK, M> for symmetric dK
    d_log_regparam : float or None
    residuals : ndarray (m, t)

    Notes
    -----
    ~2 m^3 flops (Cholesky factor and inverse, one syrk) plus O(m^2 t).
    """
    Y, regparam = check_criterion_inputs(K, Y, regparam, "leave-one-out")
    m, t = Y.shape
    if m < 3:
        raise ValueError(f"global RankRLS leave-one-out needs at least 3 examples, got {m}")
    G = regularized_inverse(_center_both(K), regparam)
    A = G @ (Y - Y.mean(axis=0))
    d = np.diagonal(G) - 1.0 / (regparam * m)
    R = A / d[:, None]
    N = m * t if mean else 1
    value = float(np.sum(R * R)) / N
    if not gradient:
        return value, None, None, R
    U = R / d[:, None]
    w = np.sum(R * R, axis=1) / d
    # w can be negative only if d~ is (1 - H_ii < 0 does not happen for a smoother
    # with 0 <= H_ii <= 1); the product G diag(w) G is formed without square roots
    Mt = (G * w[None, :]) @ G
    C = (G @ U) @ A.T
    Mt -= 0.5 * (C + C.T)
    Mt *= 2.0 / N
    d_log = regparam * float(np.trace(Mt)) - 2.0 / (N * regparam * m) * float(w.sum())
    return value, _center_both(Mt), d_log, R


class GlobalLOOObjective:
    """The leave-one-out criterion of global RankRLS as a function of z = [log
    regparam, theta], with its gradient (for
    :func:`rlscore.core.selection.minimize_criterion`).

    Notes
    -----
    Per call: the kernel, one :func:`global_loo_error_gradient` (O(m^3)) and the
    family's contractions (O(m^2) per parameter).
    """

    def __init__(self, family, Y):
        self.family = family
        self.Y = as_2d_labels(Y)
        self.n_params = 1 + family.n_params

    def __call__(self, z):
        z = np.asarray(z, dtype=np.float64)
        K, state = self.family.evaluate(z[1:])
        value, M, d_log, _ = global_loo_error_gradient(K, self.Y, float(np.exp(z[0])))
        return value, np.concatenate([[d_log], self.family.contract(z[1:], state, M)])

    def value(self, z):
        z = np.asarray(z, dtype=np.float64)
        K, _ = self.family.evaluate(z[1:])
        return global_loo_error_gradient(K, self.Y, float(np.exp(z[0])),
                                         gradient=False)[0]


def learn_kernel_global(X, Y, kernel="GaussianKernel", **kwargs):
    """Regparam and kernel parameters of global RankRLS minimizing its exact
    leave-one-out squared ranking error (intercept refit): :func:`rlscore.core.rls.
    learn_kernel` with :class:`GlobalLOOObjective` (same keywords).

    The criterion's lambda is the regparam of the centred form; the returned
    ``regparam`` (and each history entry's) is the one of
    :class:`GlobalRankRLSModel` and the learners, regparam = m lambda (module docstring).
    ``search`` keeps the optimizer's own (log lambda) coordinates.

    Notes
    -----
    O(m^3) per optimizer step plus O(m^2 d) for the kernel and its ARD gradient.
    """
    res = learn_kernel(X, Y, kernel, objective=GlobalLOOObjective, **kwargs)
    m = as_2d_labels(Y).shape[0]
    history = [dict(h, regparam=h["regparam"] * m) for h in res.history]
    return dataclasses.replace(res, regparam=res.regparam * m, history=history)
