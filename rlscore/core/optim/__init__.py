"""Solvers shared by several families: one result type, iterative methods and dense
symmetric algebra.

What lives here
    :class:`SolverResult` (solver, solution, objective, iterations, converged, message,
    history; extras as attributes), :class:`ConvergenceWarning` and
    :class:`SingularRegparamError` (the one error of a regularized system that is
    singular at its regparam);
    :func:`conjugate_gradient` (block CG with per-column step sizes, optional Jacobi
    preconditioner: one operator product per iteration), :func:`minres` (Paige & Saunders,
    stopping on the true relative residual), :func:`tron` (trust-region Newton,
    Lin & More 1999) and :func:`bmrm` (bundle method, Teo et al. 2010);
    :func:`psd_eigh` (O(n^3) eigendecomposition with the null-space rule),
    :func:`regularized_cholesky` (O(n^3/3) factor of M + lambda I) and
    :func:`symmetric_from_triangle` (O(n^2), in place).

One spelling per concept (SciPy's)
    Every solver here is called ``solver(problem, ..., *, <tolerance>, maxiter, x0,
    callback, options)``: ``maxiter`` caps the iterations, ``x0`` is the start,
    ``callback`` runs after every iteration, ``M`` is a preconditioner (CG), and the
    rarely changed knobs (progress reporting, inner-solver limits, warm-start state)
    sit in one frozen options object per solver (:class:`CGOptions`,
    :class:`MINRESOptions`, :class:`TRONOptions`, :class:`BMRMOptions`), as SciPy's
    ``minimize(..., options=)``. Tolerances: ``rtol`` is a relative tolerance (the
    stopping quantity over its reference: ``||b||`` for CG and MINRES,
    ``grad_norm0`` for TRON), ``atol`` an absolute one (BMRM's duality gap, in the units
    of the objective); no solver takes a bare ``tol``. The faces keep their own
    spellings (``tol``, ``max_iter``, RLScore's ``maxiter``; docs/names.rst) and map
    them at their boundary. A named preconditioner *choice* of a family driver
    (``CGRLSOptions(precondition="jacobi")`` of :func:`rlscore.core.rls.cg_rls`) resolves to an ``M``.

Builds on
    numpy, scipy, ``rlscore._progress`` and ``rlscore._validation``; nothing else of core. The operators a solver runs on live with the families
    that own the model (RLS in :mod:`rlscore.core.rls`, RankRLS in
    :mod:`rlscore.core.rankrls`, Kronecker in :mod:`rlscore.core.kronecker`).

Module order
    ``_result``, ``_errors`` -> ``_dense`` -> ``_cg``, ``_minres``, ``_tron``, ``_bmrm``.
"""

from rlscore.core.optim._result import (ConvergenceWarning, SolverResult)
from rlscore.core.optim._errors import SingularRegparamError
from rlscore.core.optim._dense import (psd_eigh, regularized_cholesky,
                                       symmetric_from_triangle)
from rlscore.core.optim._cg import (CGStop, CGResult, CGOptions, conjugate_gradient,
                                    jacobi_preconditioner, Preconditioner,
                                    JacobiPreconditioner, as_preconditioner)
from rlscore.core.optim._minres import (minres, MINRESOptions)
from rlscore.core.optim._tron import (tron, TRONResult, TRONOptions)
from rlscore.core.optim._bmrm import (bmrm, BMRMResult, BMRMOptions, Bundle)

__all__ = [
    "ConvergenceWarning",
    "SolverResult",
    "SingularRegparamError",
    "psd_eigh",
    "CGStop",
    "CGOptions",
    "conjugate_gradient",
    "minres",
    "MINRESOptions",
    "tron",
    "TRONOptions",
    "bmrm",
    "BMRMOptions",
]
