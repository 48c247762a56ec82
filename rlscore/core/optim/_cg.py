"""Conjugate gradients for a symmetric positive (semi)definite system ``S X = B`` whose
matrix is never formed, all columns of ``B`` at once (one product with an ``n x l``
block per iteration; each column keeps its own step sizes, so the result equals ``l``
separate CG runs), with an optional Jacobi preconditioner. The operators that supply
``S`` live with their families (:mod:`rlscore.core.rls`, :mod:`rlscore.core.rankrls`).

References: Hestenes & Stiefel (1952); Pahikkala et al., Machine Learning 75 (2009),
Sect. 4.3 (CG RankRLS).
"""

from dataclasses import dataclass

import numpy as np

from rlscore._progress import Progress
from rlscore.core.optim._result import SolverResult
from rlscore._validation import check_positive_int, check_tol

__all__ = ["CGStop", "CGResult", "CGOptions", "conjugate_gradient", "jacobi_preconditioner",
           "Preconditioner", "JacobiPreconditioner", "as_preconditioner"]


class Preconditioner:
    """The preconditioner protocol of :func:`conjugate_gradient`: ``apply(R)`` returns
    M^{-1} R for an (n, k) block R (k <= l columns), M symmetric positive definite and
    cheap to solve with. Subclass it or give any object with ``apply``."""

    def apply(self, R):  # pragma: no cover - abstract
        raise NotImplementedError


class JacobiPreconditioner(Preconditioner):
    """M^{-1} = diag(inv_diag): positive weights multiplying the residual. O(n k)."""

    def __init__(self, inv_diag):
        self.inv_diag = np.asarray(inv_diag, dtype=np.float64).ravel()
        if np.any(~np.isfinite(self.inv_diag)) or np.any(self.inv_diag <= 0):
            raise ValueError("a Jacobi preconditioner needs positive finite weights")

    def apply(self, R):
        return R * self.inv_diag[:, None]


def as_preconditioner(M, n):
    """None, a Preconditioner-like object (with ``apply``), or an ndarray (n,) of Jacobi
    weights (:class:`JacobiPreconditioner`). TypeError/ValueError otherwise."""
    if M is None or hasattr(M, "apply"):
        return M
    if isinstance(M, np.ndarray):
        if M.shape != (n,):
            raise ValueError(f"a Jacobi preconditioner must have shape ({n},), got "
                             f"{M.shape}")
        return JacobiPreconditioner(M)
    raise TypeError(f"M (the preconditioner) must be None, an ndarray of Jacobi weights "
                    f"or an object with apply(R), got {type(M).__name__}")


# ---------------------------------------------------------------------------------------
# the solver


class CGStop(Exception):
    """Base of the exceptions a learner's callback raises to end an iteration early
    (``rlscore.learner.cg_rls.Finished``, ``rlscore.learner.cg_rankrls.Finished``)."""


#: The result of :func:`conjugate_gradient` is a
#: :class:`rlscore.core.optim.SolverResult` (``solver="cg"``); the old name stays
#: importable.
CGResult = SolverResult


@dataclass(frozen=True)
class CGOptions:
    """The rarely changed knobs of :func:`conjugate_gradient` (SciPy's ``options``).

    Parameters
    ----------
    verbose : bool or None, default None
        Show one progress step per iteration (the largest relative residual) on stderr;
        None follows :func:`rlscore._progress.verbosity` (default off). The steps are
        logged either way (logger ``"rlscore"``, DEBUG).
    desc : str, default "conjugate gradient"
        The name of the run in the progress report.
    """

    verbose: bool | None = None
    desc: str = "conjugate gradient"


def conjugate_gradient(matvec, B, *, rtol=1e-6, maxiter=None, M=None, x0=None,
                       callback=None, options=None):
    """Solve ``S X = B`` for a symmetric positive (semi)definite ``S`` by conjugate
    gradients, all columns of ``B`` at once.

    Parameters
    ----------
    matvec : callable
        ``matvec(V)`` returns ``S V`` for an (n, k) array ``V`` (k <= l).
    B : ndarray (n,) or (n, l)
        Right-hand sides.
    rtol : float in (0, 1), default 1e-6
        A column stops when its residual norm is at most ``rtol`` times that of its
        right-hand side.
    maxiter : int > 0 or None
        Iteration limit; None means ``10 n`` (CG terminates in at most n steps in exact
        arithmetic).
    M : Preconditioner, ndarray (n,) or None
        An object with ``apply(R)`` -> M^{-1} R (:class:`Preconditioner`, e.g. the
        Nystrom preconditioner of :mod:`rlscore.core.rls`), or the inverse diagonal
        (Jacobi) as positive weights multiplying the residual.
    callback : callable or None
        ``callback(k, X, residuals)`` after iteration k (1-based) with the current
        iterate (n, l) and the relative residual norms (l,); a true return value stops
        the iteration.
    x0 : ndarray or None
        Starting point (default 0).
    options : CGOptions or None
        Progress reporting (``verbose``, ``desc``); None: :class:`CGOptions()`.

    Returns
    -------
    SolverResult
        ``solver="cg"``, ``solution`` (also ``x``) the last iterate (n, l) (or the one
        the callback stopped at), ``iterations`` the products with the operator (not
        counting the one for a nonzero start), ``converged`` whether every column
        reached the tolerance, ``objective`` nan; extras ``residuals`` (l,) the relative
        residual norms ``||b - S x|| / ||b||`` (0 for a zero right-hand side): the
        true residual, recomputed from ``b - S x`` before a column is declared
        converged (so ``converged`` means the same with or without a preconditioner;
        such a check is one extra product on the columns concerned and is counted in
        ``matvecs``, not ``iterations``), ``column_converged`` (l,) bool, ``stopped`` (the callback
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
    rtol = check_tol(rtol, "rtol")
    options = CGOptions() if options is None else options
    maxiter = user_maxiter = check_positive_int(maxiter, "maxiter", allow_none=True)
    n, l = B.shape
    if maxiter is None:
        maxiter = max(10 * n, 10)
    M = as_preconditioner(M, n)
    X = np.zeros((n, l)) if x0 is None else np.array(
        np.reshape(x0, (n, l)), dtype=np.float64)
    bnorm = np.sqrt(np.einsum("ij,ij->j", B, B))
    R = B - matvec(X) if x0 is not None and np.any(X) else B.copy()
    rnorm = np.sqrt(np.einsum("ij,ij->j", R, R))
    safe_b = np.where(bnorm > 0, bnorm, 1.0)
    converged = rnorm <= rtol * bnorm
    active = np.flatnonzero(~converged)
    Z = R if M is None else np.asarray(M.apply(R))
    P = Z.copy()
    matvecs = 1 if x0 is not None and np.any(X) else 0
    rz = np.einsum("ij,ij->j", R, Z)
    k = 0
    stopped = False
    report = Progress(options.desc, maxiter if user_maxiter else None, options.verbose)
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
        matvecs += 1
        rn = np.sqrt(np.einsum("ij,ij->j", Ra, Ra))
        done = rn <= rtol * bnorm[active]
        if np.any(done):
            # the recursion says converged: judge on the true residual b - S x, and
            # carry on from it (residual replacement) where it is not small enough
            cols = active[done]
            Rt = B[:, cols] - np.asarray(matvec(X[:, cols]))
            matvecs += 1
            R[:, cols] = Rt
            rn[done] = np.sqrt(np.einsum("ij,ij->j", Rt, Rt))
            done = rn <= rtol * bnorm[active]
            Ra = R[:, active] if active.size < l else R
        rnorm[active] = rn
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
        Za = Ra if M is None else np.asarray(M.apply(Ra))
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
                        stopped=stopped, info=0 if done else k, matvecs=matvecs)



def jacobi_preconditioner(op, precondition):
    """The Jacobi preconditioner of an operator with ``diagonal()``: 1 / diag(S) where
    diag(S) > 0 (1 elsewhere), or None for ``precondition`` in (None, False, "none").
    O(cost of ``op.diagonal()``)."""
    if precondition in (None, False, "none"):
        return None
    if precondition in (True, "jacobi"):
        dg = op.diagonal()
        return np.where(dg > 0, 1.0 / np.where(dg > 0, dg, 1.0), 1.0)
    raise ValueError(f"precondition must be None or 'jacobi', got {precondition!r}")
