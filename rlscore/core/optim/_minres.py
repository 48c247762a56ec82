"""MINRES (Paige & Saunders 1975) for symmetric, possibly singular systems, stopping on
the true relative residual ``||b - A x|| / ||b||`` (and, optionally, the least-squares
measure); the Kronecker learners' solver (:class:`rlscore.core.kronecker.KronMinres`)."""

from dataclasses import dataclass

import numpy as np

from rlscore._progress import Progress

__all__ = ["minres", "MINRESOptions"]


@dataclass(frozen=True)
class MINRESOptions:
    """The rarely changed knobs of :func:`minres` (SciPy's ``options``).

    Parameters
    ----------
    verbose : bool or None, default None
        Show one progress step per iteration on stderr; None follows
        :func:`rlscore._progress.verbosity` (default off).
    desc : str, default "MINRES"
        The name of the run in the progress report.
    """

    verbose: bool | None = None
    desc: str = "MINRES"


# Why not scipy.sparse.linalg.minres (measured): scipy stops on the backward-error test
# ||r|| / (||A|| ||x|| + ||b||) <= rtol and reports success (info 0). On a Kronecker
# system of Davis's size (68 x 442 RBF factor kernels, 80 % of the 30056 pairs sampled,
# rtol = tol = 1e-10) scipy returned relative residuals ||b - A x|| / ||b|| of 2.0e-6
# (lambda = 1), 2.2e-4 (lambda = 1e-2) and 1.1e-3 (lambda = 1e-4); this function, which
# stops on ||b - A x|| / ||b|| itself, returned 9.7e-11, 1.4e-10 and 7.0e-9. It also
# has the least-squares stop for singular systems (lambda = 0, early stopping).
def minres(matvec, b, *, x0=None, rtol=1e-10, maxiter=None, callback=None, lstsq=False,
           options=None):
    """MINRES (Paige & Saunders 1975) for a symmetric, possibly singular, system A x = b.

    Stops when the residual norm ||b - A x_k|| (which MINRES tracks for free) falls
    below ``rtol * ||b||`` (so a warm start ``x0`` near the solution saves
    iterations), or after ``maxiter`` iterations (default 5 n). With
    ``lstsq=True`` (a possibly singular, inconsistent system, whose residual cannot
    reach ``rtol``) it also stops when the least-squares measure
    ||A r_k|| / (||A|| ||r_k||) falls below ``rtol``; in any case it stops when the
    Krylov space runs into a null space (the next step would divide by ~0). Returns (x, info): info 0 on convergence, else the
    number of iterations done. ``callback(x_k)`` runs after every iteration.

    Progress: one step per iteration with the relative residual ||b - A x_k|| / ||b||,
    logged (logger ``"rlscore"``, DEBUG) and, with ``options.verbose`` (None: as
    :func:`rlscore._progress.verbosity`), shown on stderr under the name
    ``options.desc`` (:class:`MINRESOptions`).

    Each iteration: one product with A and O(n) vector work.
    """
    options = MINRESOptions() if options is None else options
    report = Progress(options.desc, maxiter, options.verbose)
    x, info = _minres(matvec, b, x0, rtol, maxiter, callback, lstsq, report)
    report.close(iterations=report.count, converged=info == 0)
    return x, info


def _minres(matvec, b, x0, rtol, maxiter, callback, lstsq, report):
    b = np.asarray(b, dtype=np.float64)
    n = b.size
    x = np.zeros(n) if x0 is None else np.array(x0, dtype=np.float64)
    if maxiter is None:
        maxiter = 5 * n
    r1 = b - matvec(x) if x0 is not None else b.copy()
    y = r1
    beta1 = float(np.sqrt(r1 @ r1))
    bnorm = float(np.sqrt(b @ b)) if x0 is not None else beta1
    if beta1 <= rtol * bnorm:
        return x, 0
    eps = np.finfo(np.float64).eps
    oldb, beta, dbar, epsln, phibar = 0.0, beta1, 0.0, 0.0, beta1
    cs, sn = -1.0, 0.0
    tnorm2 = 0.0
    w = np.zeros(n)
    w2 = np.zeros(n)
    r2 = r1
    for itn in range(1, maxiter + 1):
        v = y / beta
        y = np.asarray(matvec(v), dtype=np.float64).ravel()
        if itn >= 2:
            y = y - (beta / oldb) * r1
        alfa = float(v @ y)
        y = y - (alfa / beta) * r2
        r1 = r2
        r2 = y
        oldb = beta
        beta = float(np.sqrt(y @ y))
        tnorm2 += alfa * alfa + oldb * oldb + beta * beta
        oldeps = epsln
        delta = cs * dbar + sn * alfa
        gbar = sn * dbar - cs * alfa
        epsln = sn * beta
        dbar = -cs * beta
        root = float(np.hypot(gbar, dbar))
        anorm = np.sqrt(tnorm2)
        gamma = float(np.hypot(gbar, beta))
        if gamma <= 10 * eps * anorm:
            # the Krylov space is exhausted in a null direction of a singular system:
            # x is the minimum-residual (least-squares) solution already
            return x, 0
        cs = gbar / gamma
        sn = beta / gamma
        phi = cs * phibar
        phibar = sn * phibar
        w1 = w2
        w2 = w
        w = (v - oldeps * w1 - delta * w2) / gamma
        x = x + phi * w
        if callback is not None:
            callback(x)
        report.step(residual=phibar / bnorm)
        if phibar <= rtol * bnorm or beta == 0.0:
            return x, 0
        if lstsq and root <= rtol * anorm:
            return x, 0          # ||A r|| / (||A|| ||r||) small: least-squares solution
    return x, maxiter
