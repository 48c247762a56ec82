"""The one result type of the iterative solvers in :mod:`rlscore.core`.

Every iterative solver (trust-region Newton :func:`rlscore.core.optim.tron`, the bundle
method :func:`rlscore.core.optim.bmrm`, block conjugate gradients
:func:`rlscore.core.optim.conjugate_gradient`, MINRES on Kronecker systems
:meth:`rlscore.core.kronecker.KronMinres.solve`, and the RankSVM drivers
:func:`rlscore.core.ranksvm.solve_ranksvm` / :func:`rlscore.core.ranksvm.run_newton`)
returns a :class:`SolverResult`. The shared fields have one name and one meaning
everywhere; what only one method has lives in :attr:`SolverResult.extras` and is
readable as an attribute too.
"""

import math

import numpy as np

__all__ = ["ConvergenceWarning", "SolverResult"]

_SHARED = ("solver", "solution", "objective", "iterations", "converged", "message",
           "history", "extras")


class SolverResult:
    """Outcome of an iterative solver.

    Parameters / attributes (shared by every solver)
    ------------------------------------------------
    solver : str
        Which method produced it: ``"newton"`` (TRON), ``"bundle"`` (BMRM), ``"cg"``
        (block conjugate gradients) or ``"minres"``.
    solution : ndarray
        The returned iterate (the weights ``w`` of TRON/BMRM/RankSVM, the block ``X``
        of CG, the coefficients of MINRES), the counterpart of the ``x0`` every solver
        starts from. Also readable as ``x`` (SciPy's ``OptimizeResult.x``) and ``w``
        (the weights, as the RankSVM faces name them); these two are the only aliases.
    objective : float
        The objective at ``solution`` where the solver tracks one; ``nan`` otherwise
        (CG, and MINRES unless asked to keep the best iterate).
    iterations : int
        Outer iterations: Newton steps (TRON), oracle calls (BMRM), products with the
        operator (CG), MINRES iterations.
    converged : bool
        Whether the solver's stopping test was met (for block CG: by every column).
    message : str
        Why the iteration stopped, in words.
    history : list of dict
        Per-iteration records (empty for solvers that keep none); the keys are the
        solver's (see its docstring).
    extras : dict
        Solver-specific values, each also readable as an attribute
        (``result.grad_norm`` is ``result.extras["grad_norm"]``):

        - newton (TRON): ``grad_norm``, ``grad_norm0``, ``cg_iterations``,
          ``evaluations``, ``point``
        - bundle (BMRM): ``risk``, ``lower_bound``, ``gap``, ``bundle``
        - cg: ``residuals`` (relative, per column), ``column_converged`` (per
          column), ``stopped`` (the callback ended it); ``info`` is the scipy-style
          flag (0 when every column converged, else the iteration count)
        - minres: ``info`` (0 converged, > 0 stopped by ``maxiter``)
        - RankSVM drivers add ``regparam``, ``loss``, ``duality_gap``,
          ``warm_start_iterations`` and give both methods the same extras (nan or
          None where a method has no such value).

    Notes
    -----
    Assigning a name that is not a shared field stores it in ``extras`` (assigning
    ``w`` or ``x`` sets ``solution``). Constructing one costs O(1).
    """

    def __init__(self, solver, solution, *, objective=float("nan"), iterations=0,
                 converged=False, message="", history=None, **extras):
        object.__setattr__(self, "solver", str(solver))
        object.__setattr__(self, "solution", solution)
        object.__setattr__(self, "objective", float(objective))
        object.__setattr__(self, "iterations", int(iterations))
        object.__setattr__(self, "converged", bool(converged))
        object.__setattr__(self, "message", str(message))
        object.__setattr__(self, "history", [] if history is None else history)
        object.__setattr__(self, "extras", dict(extras))

    # two read-only aliases of ``solution``: SciPy's ``x`` and the weights ``w``
    @property
    def w(self):
        """The solution as weights (the RankSVM faces' and RLScore's name)."""
        return self.solution

    @property
    def x(self):
        """The solution, SciPy's name (``OptimizeResult.x``; the solvers' start is
        ``x0``)."""
        return self.solution

    def __getattr__(self, name):
        # only called when normal lookup fails: the solver-specific extras
        extras = self.__dict__.get("extras")
        if extras is not None and name in extras:
            return extras[name]
        raise AttributeError(f"{type(self).__name__} from solver {self.__dict__.get('solver')!r} "
                             f"has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name in _SHARED:
            object.__setattr__(self, name, value)
        elif name in ("w", "x"):
            object.__setattr__(self, "solution", value)
        else:
            self.extras[name] = value

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.extras))

    def __repr__(self):
        obj = "nan" if math.isnan(self.objective) else f"{self.objective:.6g}"
        shown = "".join(f", {k}={_short(v)}" for k, v in self.extras.items()
                        if k in ("grad_norm", "gap", "cg_iterations", "stopped"))
        if "residuals" in self.extras:
            shown += f", max_residual={_short(np.max(self.extras['residuals'], initial=0.0))}"
        return (f"SolverResult(solver={self.solver!r}, objective={obj}, "
                f"iterations={self.iterations}, converged={self.converged}{shown}, "
                f"message={self.message!r})")


def _short(v):
    return f"{float(v):.3g}" if isinstance(v, (float, np.floating)) else repr(v)


class ConvergenceWarning(UserWarning):
    """An iterative solver (bundle method, Newton, CG, MINRES) stopped at its iteration
    limit before reaching its tolerance."""
