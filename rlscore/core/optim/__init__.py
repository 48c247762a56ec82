"""TODO docstring."""

from rlscore.core.optim._result import (ConvergenceWarning, SolverResult)
from rlscore.core.optim._dense import (psd_eigh, regularized_cholesky, symmetric_from_triangle)
from rlscore.core.optim._cg import (CGStop, CGResult, conjugate_gradient, jacobi_preconditioner)
from rlscore.core.optim._minres import (minres)
from rlscore.core.optim._tron import (tron, TRONResult)
from rlscore.core.optim._bmrm import (bmrm, BMRMResult, Bundle)

__all__ = [
    "ConvergenceWarning",
    "SolverResult",
    "psd_eigh",
    "regularized_cholesky",
    "symmetric_from_triangle",
    "CGStop",
    "CGResult",
    "conjugate_gradient",
    "jacobi_preconditioner",
    "minres",
    "tron",
    "TRONResult",
    "bmrm",
    "BMRMResult",
    "Bundle",
]
