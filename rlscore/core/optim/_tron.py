"""Trust-region Newton method (TRON) for smooth unconstrained convex problems whose
Hessian is available only through Hessian-vector products.

The method of Lin & More (1999) as used for linear SVMs by Lin, Weng & Keerthi ("Trust
region Newton method for large-scale logistic regression", JMLR 9, 2008, Algorithm 2)
and for the squared-hinge RankSVM by Lee & Lin ("Large-scale linear RankSVM", Neural
Computation 26(4), 2014): every outer step approximately solves the trust-region
subproblem

    min_s  g^T s + 1/2 s^T H s   subject to ||s|| <= delta

by conjugate gradients (Steihaug's truncated CG: stop when the residual is below
a forcing term times ||g|| or when the iterate reaches the boundary), then accepts the step when
the actual reduction is a fair fraction of the predicted one and updates the radius
delta with the rules of Lin & More (eq. 2.6 of Lin, Weng & Keerthi 2008).

The problem is given by an oracle object with

* ``evaluate(w, p=None)`` -> ``(f, point)``: the objective at w, and an opaque
  ``point`` holding what the gradient and the Hessian-vector products at w need
  (``p`` optionally passes the linear predictions X w when the caller has them);
* ``gradient(point)`` -> g;
* ``hessian_vector(point, v)`` -> ``(H v, z)`` with z any auxiliary vector that is
  linear in v (for RankSVM, the predictions X v), or None;
* ``advance(point, zs)`` -> the auxiliary vector of w + s given the combination zs of
  the z's of the CG directions (X (w + s) = X w + sum alpha_k X d_k: the next
  evaluation needs no matrix-vector product), or None.

Cost per outer step: one evaluation and one gradient, plus one Hessian-vector product
per CG iteration; O(dim) of vector algebra per CG iteration besides.
"""

import time
from dataclasses import dataclass

import numpy as np

from rlscore._progress import Progress
from rlscore.core.optim._result import SolverResult

__all__ = ["tron", "TRONResult", "TRONOptions"]

# Lin & More (1999) constants, as in Lin, Weng & Keerthi (2008)
_ETA0, _ETA1, _ETA2 = 1e-4, 0.25, 0.75
_SIGMA1, _SIGMA2, _SIGMA3 = 0.25, 0.5, 4.0
#: Reductions of f below _FLOOR |f| are round-off (LIBLINEAR's test for "actred and
#: prered too small"); there steps are judged by the gradient norm instead.
_FLOOR = 1e-12


#: The result of :func:`tron` is a :class:`rlscore.core.optim.SolverResult`
#: (``solver="newton"``); the old name stays importable.
TRONResult = SolverResult


def _boundary_step(s, d, delta):
    """tau >= 0 with ||s + tau d|| = delta (s inside the ball)."""
    sd = float(s @ d)
    dd = float(d @ d)
    ss = float(s @ s)
    rad = np.sqrt(max(sd * sd + dd * (delta * delta - ss), 0.0))
    # the root formula that avoids cancellation
    return (delta * delta - ss) / (sd + rad) if sd >= 0 else (rad - sd) / dd


def _trcg(oracle, point, g, delta, forcing, max_cg):
    """Steihaug CG on H s = -g inside ||s|| <= delta, to ||r|| <= forcing ||g||.

    Returns (s, r, zs, iterations): r = -g - H s, zs = the sum of the auxiliary vectors
    (None if the oracle gives none)."""
    s = np.zeros_like(g)
    r = -g
    d = r.copy()
    rr = float(r @ r)
    cgtol = forcing * np.sqrt(rr)
    zs = None
    it = 0
    while np.sqrt(rr) > cgtol and it < max_cg:
        Hd, z = oracle.hessian_vector(point, d)
        it += 1
        dHd = float(d @ Hd)
        if not dHd > 0:             # cannot happen for a positive definite H
            break
        alpha = rr / dHd
        s_new = s + alpha * d
        if float(s_new @ s_new) > delta * delta:
            alpha = _boundary_step(s, d, delta)
            s += alpha * d
            r -= alpha * Hd
            zs = _accumulate(zs, z, alpha)
            break
        s = s_new
        r -= alpha * Hd
        zs = _accumulate(zs, z, alpha)
        rr_new = float(r @ r)
        d *= rr_new / rr
        d += r
        rr = rr_new
    return s, r, zs, it


def _accumulate(zs, z, alpha):
    if z is None:
        return None
    if zs is None:
        return alpha * z
    zs += alpha * z
    return zs


@dataclass(frozen=True)
class TRONOptions:
    """The rarely changed knobs of :func:`tron` (SciPy's ``options``).

    Parameters
    ----------
    eps_cg : float, default 0.1
        CG stops when ||r|| <= min(eps_cg, sqrt(||g|| / grad_norm0)) ||g|| (LIBLINEAR
        uses the constant 0.1; the second term makes the local rate superlinear,
        Eisenstat & Walker 1994).
    max_cg : int or None, default None
        CG iterations per step, None: 5 dim + 20. (In exact arithmetic CG ends within
        dim iterations; in floating point an ill-conditioned Hessian needs more: capped
        at dim + 20, the steps of a RankSVM with regparam 1e-6 on LETOR MQ2008 stayed
        inexact and TRON stalled at ||g|| / ||g0|| ~ 1e-8.)
    p0 : ndarray or None
        The auxiliary vector of ``x0`` (X x0), if known.
    verbose : bool or None, default None
        Show one progress step per outer step (objective, gradient norm) on stderr;
        None follows :func:`rlscore._progress.verbosity` (default off). The steps are
        logged either way (logger ``"rlscore"``, DEBUG).
    """

    eps_cg: float = 0.1
    max_cg: int | None = None
    p0: object = None
    verbose: bool | None = None


def tron(oracle, x0, *, rtol=1e-3, maxiter=100, callback=None, grad_norm0=None,
         options=None):
    """Minimize a smooth convex function with the trust-region Newton method.

    Parameters
    ----------
    oracle : object with ``evaluate``, ``gradient``, ``hessian_vector``, ``advance``
        (see the module docstring).
    x0 : ndarray (dim,), the starting point (not modified).
    rtol : float, stop when ||grad f(w)|| <= rtol * grad_norm0.
    maxiter : int, outer steps.
    callback : f(info) called after every outer step; returning True stops.
    grad_norm0 : float, the reference gradient norm; default ||grad f(x0)||. For the
        rule of Lee & Lin (2014), pass ||grad f(0)|| whatever the start.
    options : TRONOptions or None
        ``eps_cg``, ``max_cg``, ``p0``, ``verbose`` (:class:`TRONOptions`).

    Returns
    -------
    SolverResult
        ``solver="newton"``, ``solution`` (also ``w``) the final iterate, ``objective``
        f(w), ``iterations`` the outer steps (accepted or not), ``converged`` whether
        ||grad f(w)|| <= rtol * grad_norm0; extras ``grad_norm``, ``grad_norm0``,
        ``cg_iterations`` (Hessian-vector products in total), ``evaluations``,
        ``point`` (the oracle's point at w, for warm starts); ``history`` holds dicts
        (iteration, objective, grad_norm, delta, cg_iterations, accepted, time).

    Notes
    -----
    Superlinear local convergence for twice differentiable f (Lin & More 1999); for the
    squared hinge (piecewise quadratic, generalized Hessian) the observed behaviour is
    the same. Each outer step costs one evaluation, one gradient and the CG iterations.
    """
    t0 = time.perf_counter()
    options = TRONOptions() if options is None else options
    eps_cg = options.eps_cg
    w = np.array(x0, dtype=np.float64)
    dim = w.shape[0]
    max_cg = 5 * dim + 20 if options.max_cg is None else options.max_cg
    f, point = oracle.evaluate(w, options.p0)
    g = oracle.gradient(point)
    gnorm = float(np.linalg.norm(g))
    if grad_norm0 is None:
        grad_norm0 = gnorm
    target = rtol * grad_norm0
    delta = gnorm
    evaluations = 1
    total_cg = 0
    history = []
    it = 0
    stalled = False
    converged = gnorm <= target
    report = Progress("TRON", maxiter, options.verbose)
    while not converged and it < maxiter:
        it += 1
        # forcing term min(eps_cg, sqrt(||g|| / ||g0||)) (Eisenstat & Walker 1994):
        # LIBLINEAR's constant 0.1 far from the solution, a superlinear rate near it
        forcing = min(eps_cg, np.sqrt(gnorm / grad_norm0)) if grad_norm0 > 0 else eps_cg
        s, r, zs, ncg = _trcg(oracle, point, g, delta, forcing, max_cg)
        total_cg += ncg
        w_new = w + s
        gs = float(g @ s)
        prered = -0.5 * (gs - float(s @ r))
        p_new = oracle.advance(point, zs)
        f_new, point_new = oracle.evaluate(w_new, p_new)
        evaluations += 1
        actred = f - f_new
        snorm = float(np.linalg.norm(s))
        if it == 1:
            delta = min(delta, snorm)
        # below _FLOOR |f| the reductions are round-off: f cannot judge the step, its
        # gradient can (near the minimizer of a convex function the quadratic model is
        # accurate, and a step that lowers ||grad f|| moves towards the minimizer)
        at_floor = 0 < prered <= _FLOOR * abs(f) and abs(actred) <= _FLOOR * abs(f)
        g_new = None
        if at_floor:
            g_new = oracle.gradient(point_new)
            accepted = float(np.linalg.norm(g_new)) < gnorm
            delta = max(delta, snorm) if accepted else \
                min(_SIGMA1 * snorm, _SIGMA2 * delta)
        else:
            denom = f_new - f - gs
            alpha = _SIGMA3 if denom <= 0 else max(_SIGMA1, -0.5 * (gs / denom))
            if actred < _ETA0 * prered:
                delta = min(max(alpha, _SIGMA1) * snorm, _SIGMA2 * delta)
            elif actred < _ETA1 * prered:
                delta = max(_SIGMA1 * delta, min(alpha * snorm, _SIGMA2 * delta))
            elif actred < _ETA2 * prered:
                delta = max(_SIGMA1 * delta, min(alpha * snorm, _SIGMA3 * delta))
            else:
                delta = max(delta, min(alpha * snorm, _SIGMA3 * delta))
            accepted = actred > _ETA0 * prered
        if accepted:
            w, f, point = w_new, f_new, point_new
            g = oracle.gradient(point) if g_new is None else g_new
            gnorm = float(np.linalg.norm(g))
            converged = gnorm <= target
        info = dict(iteration=it, objective=f, grad_norm=gnorm, delta=delta,
                    cg_iterations=ncg, accepted=accepted,
                    time=time.perf_counter() - t0)
        history.append(info)
        report.step(objective=float(f), grad_norm=gnorm, target=float(target),
                    cg=ncg, accepted=accepted)
        if callback is not None and callback(dict(info, w=w)):
            break
        if converged:
            break
        # no further progress is possible in floating point: the model predicts no
        # reduction, or neither f nor the gradient improves at round-off level
        stalled = prered <= 0 or (at_floor and not accepted)
        if stalled:
            break
    report.close(iterations=it, objective=float(f), grad_norm=gnorm,
                 converged=bool(converged))
    if converged:
        message = "converged: ||grad f|| <= tol * ||grad f(w0)||"
    elif it >= maxiter:
        message = "max_iter reached"
    elif stalled:
        message = "no further progress possible in floating point"
    else:
        message = "stopped by the callback"
    return SolverResult("newton", w, objective=f, iterations=it, converged=converged,
                        message=message, history=history, grad_norm=gnorm,
                        grad_norm0=grad_norm0, cg_iterations=total_cg,
                        evaluations=evaluations, point=point)
