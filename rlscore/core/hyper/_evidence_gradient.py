"""The Gaussian-process evidence (log marginal likelihood) of the RLS model, with the
signal amplitude profiled out, and its gradient in the same adjoint form as the
leave-one-out criterion (:mod:`._loo_gradient`): a second selection criterion for
``learn_kernel(..., criterion="evidence")``.

Derivation
----------
RLS with kernel K and regparam lambda has the predictions of the zero-mean Gaussian
process with covariance s K (amplitude s > 0) and noise variance s lambda: the
predictive mean k(x)' (K + lambda I)^-1 y does not depend on s. With
C = K + lambda I, G = C^-1 and a = G y, the negative log marginal likelihood of one
output y (m values) is

    -log p(y) = (m/2) log(2 pi) + (m/2) log s + (1/2) log det C + y' a / (2 s),

minimized over s at s* = y' a / m. Profiled, and per example (so the value stays
O(1) in m):

    E = (1/2) (log(2 pi) + 1) + (1/2) log(y' a / m) + (1/(2m)) log det C.        (1)

With t outputs (independent processes sharing K and lambda, each with its own
amplitude) the middle term is the mean over outputs. This is the marginal likelihood
scikit-learn's GaussianProcessRegressor maximizes for ConstantKernel * RBF +
WhiteKernel at amplitude s* and noise level s* lambda (tested).

Gradient. d log det C = <dK, G>, d(y' a) = -a' dK a, so for symmetric dK

    dE = <dK, M>,   M = G / (2m) - (1/(2t)) sum_j a_j a_j' / (y_j' a_j),          (2)

and dE/dlog lambda = lambda trace(M). A step costs one Cholesky factorization and its
inverse (m^3 flops: no symmetric rank-m product, unlike the leave-one-out criterion)
and O(m^2 t) for M, then the kernel family's contractions.

Unlike the leave-one-out error, (1) charges the model's complexity through log det C,
which is why it over-fits less with many kernel parameters on few examples (Rasmussen
& Williams 2006, sec. 5.4; Cawley & Talbot, JMLR 8, 2007).
"""

import numpy as np

from rlscore.core.hyper._loo_gradient import (LOOObjective, check_criterion_inputs,
                                            regularized_inverse)

__all__ = ["evidence_gradient", "EvidenceObjective", "EvidenceGradient"]

_CONST = 0.5 * (np.log(2.0 * np.pi) + 1.0)


class EvidenceGradient:
    """The criterion at one point: ``value`` (E of (1)), ``M`` (the adjoint (2)),
    ``d_log_regparam``, ``dual`` (a = G Y) and ``amplitude`` (s* per output)."""

    __slots__ = ("value", "M", "d_log_regparam", "dual", "amplitude")

    def __init__(self, value, M, d_log_regparam, dual, amplitude):
        self.value, self.M, self.d_log_regparam = value, M, d_log_regparam
        self.dual, self.amplitude = dual, amplitude


def evidence_gradient(K, Y, regparam, gradient=True):
    """The profiled negative log marginal likelihood per example (1) and its adjoint.

    Parameters
    ----------
    K : ndarray (m, m), symmetric PSD kernel of the training rows
    Y : ndarray (m,) or (m, t), real labels (none of its columns all zero)
    regparam : float > 0
    gradient : bool, default True

    Returns
    -------
    EvidenceGradient
        ``value`` = E, ``M`` with dE = <dK, M> (equation (2) of the module docstring),
        ``d_log_regparam`` = regparam trace(M).

    Notes
    -----
    One Cholesky factorization and inverse (m^3 flops) and O(m^2 t).
    """
    Y, regparam = check_criterion_inputs(K, Y, regparam, "evidence")
    m, t = Y.shape
    G, logdet = regularized_inverse(K, regparam, logdet=True)
    A = G @ Y
    q = np.einsum("ij,ij->j", Y, A)                  # y_j' a_j > 0 for y_j != 0
    if not np.all(q > 0):
        raise ValueError("Y has an all-zero column: its evidence is undefined")
    value = _CONST + 0.5 * float(np.mean(np.log(q / m))) + logdet / (2.0 * m)
    if not gradient:
        return EvidenceGradient(value, None, None, A, q / m)
    M = G * (1.0 / (2.0 * m))
    M -= (A / q) @ A.T * (1.0 / (2.0 * t))
    return EvidenceGradient(value, M, regparam * float(np.trace(M)), A, q / m)


class EvidenceObjective(LOOObjective):
    """The evidence criterion (1) as a function of z = [log regparam, theta], with its
    gradient: a drop-in for :class:`rlscore.core.hyper.LOOObjective` in
    :func:`rlscore.core.selection.minimize_criterion`.

    Parameters
    ----------
    family : a kernel family of :mod:`rlscore.kernel`
    Y : ndarray (m,) or (m, t)

    Notes
    -----
    A call costs one kernel evaluation, one :func:`evidence_gradient` (~m^3 flops) and
    the family's contractions (O(m^2) per parameter, O(m^2 d) for ARD). The value is a
    negative log-likelihood per example, on a log scale: ``log_scale = True`` tells the
    optimizer's stop rule to compare absolute decreases.
    """

    log_scale = True

    def __init__(self, family, Y):
        super().__init__(family, Y)

    def _criterion(self, K, regparam, gradient=True):
        """The evidence's result (value, M, d_log_regparam) at the kernel matrix K."""
        return evidence_gradient(K, self.Y, regparam, gradient=gradient)
