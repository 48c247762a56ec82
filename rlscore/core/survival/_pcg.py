"""Survival RankRLS with many Nystrom centres by preconditioned CG, the kernel streamed
by blocks (the machinery of :mod:`rlscore.core.rls`'s Falkon path).

Risk scores are "higher risk = earlier event". The problem is the reduced-set form of
:class:`rlscore.core.survival.SurvivalRankRLSModel`,

    (Phi^T L Phi + lambda I) w = Phi^T b,   Phi = K(X, R) T,

L the Laplacian of the comparability graph and b its pair targets. L couples rows
across blocks (every neighbourhood is a prefix or a suffix in the time order), so a
product takes two streamed passes: U = Phi V block by block (m x l values, l the
number of right-hand sides -- one for CG), then L U in O(m l) from the time order
(:class:`ComparabilityGraph`), then Phi^T (L U) block by block. Memory: the factors
(8 r^2 bytes), one kernel block per thread and O(m l); never the m x r features nor a
pair list.

The system is solved divided by the mean degree dbar, Phi^T (L / dbar) Phi +
(lambda / dbar) I (same solution), so that Falkon's preconditioner (m / r) C^T C +
mu I, which approximates Phi^T Phi, is available (``precondition="nystrom"``) where
the degree term D of L = D - A dominates. The default ("auto") is no preconditioner:
measured at m = 10^5, r = 200 centres (Gaussian kernel, times rounded to 10^-3, 60 %
events, lambda = 1, tol 1e-6), plain CG took 45 iterations and the Nystrom-
preconditioned one 86 (the adjacency part of L is not small on features correlated
with the time order).
"""

import numpy as np

from rlscore._validation import check_regparam
from rlscore.core.nystrom import (ComputePlan, NystromFeatureMap, PlanError,
                                  StreamedGramOperator, run_pcg)
from rlscore.core.structure import as_source
from rlscore.core.survival._graph import ComparabilityGraph
from rlscore.core.survival._model import SurvivalRankRLSModel

__all__ = ["ComparabilityGramOperator", "pcg_survival_rankrls", "PCGSurvivalRankRLSModel",
           "survival_rankrls_model"]


class ComparabilityGramOperator(StreamedGramOperator):
    """V -> Phi^T (L / dbar) Phi V + mu V for the comparability graph of (time,
    event), streamed (module docstring).

    Parameters
    ----------
    X : data (m, d) or a data source without labels
    time, event : (m,) outcomes (event True = observed)
    fmap : :class:`rlscore.core.nystrom.NystromFactors` or ``NystromFeatureMap``
    magnitudes : bool, unit (default) or time-difference pair targets
    options : block_size, cache, dtype, threads of
        :class:`rlscore.core.nystrom.StreamedGramOperator` (not ``rows``)

    Notes
    -----
    ``matvec`` two streamed passes: O(m r l) cached or O(m r (d + l)) recomputed, plus
    O(m l) for L. Construction O(m log m) (the sort by time).
    """

    #: "auto" is plain CG (module docstring: measured fewer iterations)
    default_preconditioner = None

    def __init__(self, X, time, event, fmap, magnitudes=False, **options):
        if options.get("rows") is not None:
            raise ValueError("rows is not supported: hold rows out by building the "
                             "operator on the training rows (their graph differs)")
        self.graph = ComparabilityGraph(event, time)
        if self.graph.n_edges == 0:
            raise ValueError("the outcomes have no comparable pair: nothing to rank")
        self.mean_degree = 2.0 * self.graph.n_edges / self.graph.m
        b = self.graph.targets(magnitudes)[:, None] / self.mean_degree
        if hasattr(X, "blocks") and hasattr(X, "m"):
            raise ValueError("give X as an array: the pair targets are the labels")
        super().__init__(as_source(X, b), fmap, **options)
        if self.source.m != self.graph.m:
            raise ValueError(f"time and event must have one entry per row of X "
                             f"({self.source.m}), got {self.graph.m}")

    def effective_regparam(self, regparam):
        """lambda / dbar (the system is divided by the mean degree)."""
        return regparam / self.mean_degree

    def matvec(self, V):
        V = np.asarray(V, dtype=np.float64)
        TV = self.factors.apply_T(V).astype(self.dtype)
        U = np.empty((self.source.m, V.shape[1]))
        for idx, Ub in self._map(lambda idx, Kb: (idx, Kb @ TV)):
            U[idx] = Ub
        LU = (self.graph.apply(U) / self.mean_degree).astype(self.dtype)
        acc = np.zeros((self.factors.n_basis, V.shape[1]))
        for part in self._map(lambda idx, Kb: Kb.T @ LU[idx]):
            acc += part
        self.passes += 2
        return self.factors.apply_Tt(acc) + self.regparam * V


def pcg_survival_rankrls(X, time, event, fmap, regparam, *, pcg=None, x0=None,
                         operator=None, **operator_options):
    """Weights W (r, 1) of reduced-set survival RankRLS by preconditioned CG.

    Parameters
    ----------
    X, time, event, fmap : of :class:`ComparabilityGramOperator`
    regparam : float > 0
    pcg : :class:`rlscore.core.nystrom.PCGOptions` (``rtol``, ``maxiter``,
        ``precondition``, ``callback`` of :func:`rlscore.core.nystrom.pcg_solve`;
        default: PCG's defaults, unpreconditioned)
    x0 : the starting point (warm start), optional
    operator : a :class:`ComparabilityGramOperator` to reuse across lambdas (X, time
        and event are then ignored and may be None); else one is built from
        ``operator_options`` (``magnitudes``, block_size, dtype...)

    Returns
    -------
    SolverResult (``solution`` W; ``extras["operator"].factors.predictor(W)`` the
    model, whose predictions are risk scores: higher risk = earlier event).

    Notes
    -----
    O(m log m) for the graph, O(2 r^3 / 3) for the preconditioner, then two streamed
    passes per iteration, O(m r (d + 1)) recomputed; memory O(r^2 + m + block r).
    """
    op = operator if operator is not None else ComparabilityGramOperator(
        X, time, event, fmap, **operator_options)
    return run_pcg(op, regparam, pcg, x0)


class PCGSurvivalRankRLSModel:
    """Reduced-set survival RankRLS at one regparam by preconditioned CG: the model the
    faces train with ``solver="pcg"`` (risk scores: higher risk = earlier event).

    The same minimizer as :class:`rlscore.core.survival.SurvivalRankRLSModel` on the
    same basis vectors (to PCG's tolerance), in memory O(r^2 + m + block r): the kernel
    is streamed by blocks and the m x r features are never held (module docstring),
    except that the kernel blocks are kept between CG iterations when their m r values
    take at most a quarter of the available memory (the rule of
    :class:`rlscore.core.nystrom.StreamedGramOperator`).
    There is no exact hold-out: select regparam with the direct model, or by refits.

    Parameters
    ----------
    X : (m, d) data
    time, event : (m,) outcomes
    regparam : float > 0
    kernel, basis_vectors, kernel_params : the Nystrom basis (basis_vectors required;
        :class:`rlscore.core.nystrom.NystromFeatureMap`)
    magnitudes : bool, default False (unit pair targets)
    plan : :class:`rlscore.core.nystrom.ComputePlan` or None: its ``block_size``,
        ``dtype`` (float32 kernel blocks) and ``pcg`` options (``rtol``, ``maxiter``,
        ``precondition``); None: the defaults

    Attributes
    ----------
    predictor : the reduced-set predictor (of the last :meth:`solve`)
    regparam : float
    solver_result : rlscore.core.optim.SolverResult (iterations, converged, residual)
    graph : ComparabilityGraph of the training outcomes
    operator : the :class:`ComparabilityGramOperator` (``block_size``, ``cached``,
        ``passes``), reused by :meth:`solve`

    Raises
    ------
    ValueError
        No basis vectors, a precomputed kernel, no comparable pair, outcomes not one
        per row, or a bad regparam.

    Notes
    -----
    O(m log m) for the graph, O(r^3) for the factors, then per CG iteration two
    streamed passes, O(m r (d + 1)) recomputed or O(m r) cached; a
    :class:`rlscore.core.optim.ConvergenceWarning` when PCG stops at ``maxiter``.
    """

    def __init__(self, X, time, event, regparam=1.0, kernel="GaussianKernel",
                 basis_vectors=None, magnitudes=False, plan=None, **kernel_params):
        if basis_vectors is None:
            raise ValueError("solver='pcg' trains the reduced-set model: give "
                             "basis_vectors (the Nystrom centres)")
        if kernel == "PrecomputedKernel":
            raise ValueError("solver='pcg' evaluates the kernel by blocks: a precomputed "
                             "kernel needs solver='direct'")
        if not isinstance(magnitudes, (bool, np.bool_)):
            raise TypeError(f"magnitudes must be True or False, got {magnitudes!r}")
        plan = ComputePlan(solver="pcg") if plan is None else plan
        self._pcg = plan.pcg_options
        regparam = self._checked(regparam)
        self.operator = ComparabilityGramOperator(
            X, time, event, NystromFeatureMap(kernel, basis_vectors, **kernel_params),
            magnitudes=bool(magnitudes), block_size=plan.block_size, dtype=plan.dtype)
        self.graph = self.operator.graph
        self.solver_result = None
        self.solve(regparam)

    @staticmethod
    def _checked(regparam):
        regparam = check_regparam(regparam)
        if regparam == 0:
            raise ValueError("solver='pcg' needs regparam > 0 (CG on a singular system)")
        return regparam

    def solve(self, regparam):
        """Train at ``regparam`` (> 0): PCG on the same operator, started from the
        previous solution. The cost of the constructor's CG, without the graph and the
        factors."""
        self.regparam = self._checked(regparam)
        x0 = None if self.solver_result is None else self.solver_result.solution
        self.solver_result = run_pcg(self.operator, self.regparam, self._pcg, x0)
        self.predictor = self.operator.factors.predictor(self.solver_result.solution)
        return self

    @property
    def Y(self):
        """The training outcomes (fields ``event``, ``time``), as
        :attr:`SurvivalRankRLSModel.Y`. O(m)."""
        Y = np.empty(self.graph.m, dtype=[("event", bool), ("time", np.float64)])
        Y["event"], Y["time"] = self.graph.event, self.graph.time
        return Y

    def predict(self, X):
        """Risk scores of the rows of X (higher = earlier event). O(n r d)."""
        return self.predictor.predict(X)


def survival_rankrls_model(X, time, event, regparam=1.0, kernel="LinearKernel",
                           basis_vectors=None, magnitudes=False, plan=None,
                           **kernel_params):
    """The survival RankRLS model ``plan`` asks for: :class:`PCGSurvivalRankRLSModel`
    for ``plan.solver == "pcg"``, else the direct
    :class:`rlscore.core.survival.SurvivalRankRLSModel` ("auto" is the direct solver:
    survival RankRLS has no memory plan). The faces' one road to either.

    Raises
    ------
    PlanError (a ValueError)
        PCG's fields given with the direct solver (``{rtol}``, ``{maxiter}``,
        ``{block_size}``, ``{dtype}`` float32): refused rather than ignored, named by
        the plan's fields, which a face rewords.
    ValueError, TypeError
        As the model's constructor.

    Notes
    -----
    The cost of the model trained; O(1) for the choice.
    """
    if plan is not None and plan.solver == "pcg":
        return PCGSurvivalRankRLSModel(X, time, event, regparam, kernel, basis_vectors,
                                       magnitudes, plan, **kernel_params)
    if plan is not None:
        given = [] if plan.pcg is None else plan.pcg.given()
        given += [f for f, on in (("block_size", plan.block_size is not None),
                                  ("dtype", plan.dtype != np.float64)) if on]
        if given:
            raise PlanError(f"{', '.join('{' + f + '}' for f in given)} "
                            f"appl{'y' if len(given) > 1 else 'ies'} to solver='pcg'")
    return SurvivalRankRLSModel(X, time, event, regparam, kernel, basis_vectors,
                                magnitudes=magnitudes, **kernel_params)
