"""Training a reduced-set model from a stream, with the regularization chosen by exact
cross-validation: the driver the faces (``rlscore.learner.StreamedRLS``, the
command line) call, so no face holds a fold loop or a formula.
"""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from rlscore._blocks import working_memory
from rlscore._progress import stage
from rlscore._validation import as_data_matrix, check_regparam
from rlscore.core.nystrom._nystrom import select_basis
from rlscore.core.nystrom._memory_plan import (STREAMABLE_KERNELS, block_working_memory,
                                               plan_reduced_set)
from rlscore.core.nystrom._pcg import StreamedGramOperator, run_pcg
from rlscore.core.nystrom._pcg_factors import NystromFactors
from rlscore.core.nystrom._pcg_select import pcg_select
from rlscore.core.nystrom._plan import (ComputePlan, PlanError, StreamedSelection,
                                        Workload)
from rlscore.core.nystrom._representation import NystromFeatureMap
from rlscore.core.nystrom._streamed import StreamedReducedSet, fold_numbers
from rlscore.core.selection import grid_search
from rlscore.core.structure import as_source

__all__ = ["StreamedFit", "streamed_fit", "plan_streamed_fit"]


class StreamedFit:
    """The result of :func:`streamed_fit`: ``predictor``, ``regparam``, ``W`` (k, p),
    ``regparams`` and ``cv_performances`` (when a grid was searched),
    ``cv_predictions`` (m, L, p) or None, ``basis_indices``, ``model`` (the
    :class:`StreamedReducedSet`, or None for PCG), ``solver_result`` (PCG),
    ``selection`` (PCG with a grid: the :class:`rlscore.core.nystrom.PCGSelection`, with
    the CG iterations per lambda)."""


def plan_streamed_fit(source, n_basis, kernel="GaussianKernel", *, kind="rls",
                      select=None, plan=None):
    """The memory route of :func:`streamed_fit` on ``source``: the one decision of
    every face, :func:`rlscore.core.nystrom.plan_reduced_set` with ``stream=True`` (the
    data are read in blocks whatever the budget), sized by this source (m, d, p) and
    the cross-validation asked (``select``: leave-one-out, or K-fold with the b x b
    statistics of each fold kept, :meth:`StreamedSelection.intent`).

    Parameters
    ----------
    source : data source (or anything :func:`rlscore.core.structure.as_source` takes)
    n_basis : the number of basis vectors
    kernel, kind : as for :func:`streamed_fit`
    select : :class:`rlscore.core.nystrom.StreamedSelection` (default: one fit)
    plan : :class:`rlscore.core.nystrom.ComputePlan`: the budget ("auto", MiB bounding
        the peak resident set of the whole process, or None), the blocks and the
        solver; the estimate counts what the process holds when planned and the
        source's ``pass_bytes`` (a file's parser buffers), if it has that attribute

    Returns
    -------
    the route of :func:`plan_reduced_set`: ``path`` "streamed" or "pcg",
    ``peak_bytes``, ``budget_bytes``, ``block_size``, ``working_memory``,
    ``pcg_cache``

    Raises
    ------
    PlanError (a ValueError)
        Naming the budget, the estimates and the ways out when nothing fits. Before
        any pass.

    Notes
    -----
    O(1), O(m log m) for an (m,) array of fold numbers.
    """
    source = as_source(source)
    plan = ComputePlan() if plan is None else plan
    select = StreamedSelection() if select is None else select
    p = 1 if source.Y is None else source.Y.shape[1]
    work = Workload(source.m, int(n_basis), source.d, p, kind=kind,
                    streamable=kernel in STREAMABLE_KERNELS, stream=True,
                    pass_bytes=float(getattr(source, "pass_bytes", 0.0)))
    return plan_reduced_set(work, plan, select.intent(plan.solver))


def streamed_fit(source, kernel="GaussianKernel", kernel_params=None, kind="rls", *,
                 select=None, plan=None, route=None, operator_factory=None, **basis):
    """Reduced-set RLS / RankRLS from a data source, one pass (plus one for the
    cross-validation of a grid, plus one to read the basis rows).

    Parameters
    ----------
    source : data source (:func:`rlscore.core.structure.as_source`), e.g.
        ``ArraySource(X, Y)`` or ``rlscore.utilities.reader.SvmlightSource(path)``
    kernel, kernel_params : the kernel ("GaussianKernel", "LinearKernel",
        "PolynomialKernel") and its parameters
    kind : "rls", "query" or "global" (:class:`StreamedReducedSet`)
    select : :class:`rlscore.core.nystrom.StreamedSelection`: ``regparam`` (when no
        grid), ``regparams`` (a grid to choose from by cross-validation), ``cv``
        ("loo", the default, RLS only; an int K, K folds of rows, of whole queries for
        "query"; or (m,) fold numbers, e.g. the qids for leave-query-out), ``measure``
        (f(Y, P) with ``iserror``; default sqerror), ``validation`` (PCG with a grid:
        the fraction of rows, whole queries for "query", held out once instead of
        folds), ``random_state`` (the folds' and the split's seed)
    plan : :class:`rlscore.core.nystrom.ComputePlan`: ``memory_budget`` (the estimate
        -- what the process holds, the path's arrays, a file's parser buffers -- must
        fit it, and the blocks are sized from it, :func:`plan_streamed_fit`; refused
        before any pass otherwise), ``block_size``, ``solver`` ("auto": direct, or PCG
        when only PCG fits and no grid is searched; "direct": statistics +
        eigendecomposition, exact CV; "pcg": Falkon's preconditioned CG for many
        centres, the factors in one r x r array,
        :class:`rlscore.core.nystrom.NystromFactors`, a grid searched on a validation
        split or K-fold with warm starts, :func:`rlscore.core.nystrom.pcg_select`, the
        held-out basis vectors kept), ``dtype`` (PCG: np.float32 kernel blocks,
        :class:`rlscore.core.nystrom.StreamedGramOperator`, about 4x faster, kernel
        values within about 1e-6 relative, so a tolerance at most ~1e-5 is
        attainable; the direct solver is always float64) and ``pcg`` (PCG's
        :class:`rlscore.core.nystrom.PCGOptions`)
    route : a route already decided for this fit (:func:`plan_streamed_fit` or
        :func:`rlscore.core.nystrom.plan_reduced_set`); then the plan's budget,
        solver and block size are not weighed again
    operator_factory : callable or None
        PCG: ``f(source, factors, basis_indices, block_size, rows, dtype, cache)``
        -> the operator; default RLS's
        :class:`rlscore.core.nystrom.StreamedGramOperator` (the centred ones:
        :func:`rlscore.core.rankrls.streamed_rank_fit`)
    **basis : keywords
        ``basis_indices`` / ``n_basis`` and ``random_state`` (the basis rows,
        drawn uniformly), or ``basis_vectors`` ((r, d) explicit basis rows, not rows
        of the source: the cross-validation keeps them, and query RankRLS's PCG goes
        unpreconditioned or takes the uncentred preconditioner); ``remove_basis``
        (default True: cross-validation removes held-out basis vectors)

    Returns
    -------
    StreamedFit (attribute ``plan``: the route it ran under)

    Notes
    -----
    Direct: O(m b (d + b)) for the statistics, O(b^3) for the eigendecomposition,
    O(m b (d + b + L p)) for the cross-validation pass; memory O(b^2 (2 + K) +
    block b + m L p). PCG: O(m b (d + 2 t)) for t iterations (cached kernel blocks:
    O(m b) memory) or O(t m b d) recomputed.
    """
    source = as_source(source)
    plan = ComputePlan() if plan is None else plan
    select = StreamedSelection() if select is None else select
    if select.cv is None:
        select = replace(select, cv="loo")
    basis = _Basis(source, kernel, kernel_params, **basis)
    if route is None:
        route = plan_streamed_fit(source, basis.size, kernel, kind=kind, select=select,
                                  plan=plan)
    fit = StreamedFit()
    fit.basis_indices, fit.regparams, fit.cv_performances = basis.idx, None, None
    fit.cv_predictions, fit.solver_result, fit.model = None, None, None
    fit.selection, fit.plan, fit.compute_plan = None, route, plan
    if plan.dtype == np.float32 and route.path != "pcg":
        raise PlanError("{dtype}=float32 applies to solver='pcg' (the kernel blocks of "
                        "its iterations); the direct solver computes in float64")
    wm = route.working_memory if route.working_memory is not None else \
        block_working_memory(route.budget_bytes)
    with working_memory(wm):
        if route.path == "pcg":
            return _pcg_fit(fit, source, kind, basis, select, route, plan,
                            operator_factory)
        return _direct_fit(fit, source, kind, basis, select, route)


class _Basis:
    """The basis of :func:`streamed_fit`: rows ``idx`` of the source (``basis_indices``
    or ``n_basis`` drawn by ``random_state``), or explicit ``vectors``; ``rows()``
    reads them (one pass over a file for indices), ``feature_map(cls)`` maps them
    with the kernel. O(r d)."""

    def __init__(self, source, kernel, kernel_params, basis_indices=None, n_basis=None,
                 random_state=None, basis_vectors=None, remove_basis=True):
        idx = select_basis(source.m, basis_indices, n_basis, random_state)
        if idx is not None and basis_vectors is not None:
            raise ValueError("give basis_vectors or basis_indices/n_basis, not both")
        if idx is None and basis_vectors is None:
            raise ValueError("give basis_indices, n_basis or basis_vectors: streamed "
                             "learning is for reduced-set (Nystrom) models")
        self.source, self.idx, self.vectors = source, idx, basis_vectors
        self.kernel, self.kernel_params = kernel, dict(kernel_params or {})
        self.remove = remove_basis
        if basis_vectors is not None:
            self.vectors = as_data_matrix(basis_vectors, name="basis_vectors")
            if self.vectors.shape[0] == 0:
                raise ValueError("basis_vectors is empty")
            if self.vectors.shape[1] != source.d:
                raise ValueError(f"basis_vectors has {self.vectors.shape[1]} features "
                                 f"but the data have {source.d}")
        self.size = idx.size if idx is not None else self.vectors.shape[0]

    def describe(self):
        return f"reading {self.size} rows" if self.idx is not None else \
            f"{self.size} given basis vectors"

    def rows(self):
        return self.source.rows(self.idx) if self.idx is not None else self.vectors

    def feature_map(self, cls):
        """``cls(kernel, rows, **kernel_params)``: NystromFeatureMap (direct) or
        NystromFactors (PCG)."""
        return cls(self.kernel, self.rows(), **self.kernel_params)


def _direct_fit(fit, source, kind, basis, select, route):
    """The direct branch of :func:`streamed_fit`: the statistics, their
    eigendecomposition and the exact cross-validation of a grid."""
    idx = basis.idx
    with stage(f"basis: {basis.describe()}"):
        fmap = basis.feature_map(NystromFeatureMap)
    if select.validation is not None:
        raise ValueError("validation applies to solver='pcg'; the direct solver "
                         "cross-validates exactly (cv)")
    cv, regparams = select.cv, select.regparams
    folds = None
    if regparams is not None and not (isinstance(cv, str) and cv == "loo"):
        folds = fold_numbers(cv, source, kind, select.random_state)
    grid = None if regparams is None else [check_regparam(r, name="regparams")
                                           for r in regparams]
    model = StreamedReducedSet(source, fmap, kind, basis_indices=idx, folds=folds,
                               block_size=route.block_size,
                               lambda_count=1 if grid is None else len(grid))
    fit.model = model
    regparam = select.regparam
    if grid is not None:
        if isinstance(cv, str) and cv == "loo":
            P = model.leave_one_out_path(grid, basis.remove)
        else:
            P = model.kfold_path(grid, basis.remove)
        measure = select.measure
        if measure is None:
            from rlscore.measure import sqerror as measure
        Y = source.Y
        perfs = {}
        for j, lam in enumerate(grid):
            Pj = P[:, j, :]
            perfs[lam] = measure(Y[:, 0], Pj[:, 0]) if Y.shape[1] == 1 else \
                measure(Y, Pj)
        table = SimpleNamespace(rls=None, measure=measure,
                                cv=lambda lam: (perfs[lam], None))
        mean, _, regparam = grid_search(table, grid)
        fit.regparams, fit.cv_performances = np.asarray(grid), np.asarray(mean)
        fit.cv_predictions = P
    fit.regparam = float(regparam)
    fit.W = model.solve(fit.regparam)
    fit.predictor = fmap.predictor(fit.W)
    return fit


def _rls_operator(source, factors, basis_indices, block_size, rows, dtype=np.float64,
                  cache="auto"):
    return StreamedGramOperator(source, factors, block_size=block_size, rows=rows,
                                dtype=dtype, cache=cache)


def _pcg_fit(fit, source, kind, basis, select, route, plan, operator_factory):
    """The PCG branch of :func:`streamed_fit`: one lambda, or the grid by
    :func:`pcg_select`."""
    if operator_factory is None:
        if kind != "rls":
            raise ValueError("solver='pcg' for RankRLS: use rlscore.core.rankrls."
                             "streamed_rank_fit (the centred operators)")
        operator_factory = _rls_operator
    idx = basis.idx
    with stage(f"basis: {basis.describe()}, factoring K_RR in one "
               f"{basis.size} x {basis.size} array"):
        factors = basis.feature_map(NystromFactors)
    dtype, pcg = plan.dtype, plan.pcg_options

    def make_operator(rows):
        return operator_factory(source, factors, idx, route.block_size, rows, dtype,
                                route.pcg_cache)
    if select.regparams is None:
        if select.validation is not None:
            raise ValueError("validation needs a regparams grid")
        res = run_pcg(make_operator(None), check_regparam(select.regparam), pcg)
        fit.solver_result, fit.regparam, fit.W = res, float(select.regparam), \
            res.solution
        fit.predictor = factors.predictor(res.solution)
        return fit
    if select.validation is None and isinstance(select.cv, str):
        raise ValueError(f"solver='pcg' selects the regparam on a validation split "
                         f"(validation=0.2) or by K-fold (cv=K), not cv={select.cv!r}; "
                         f"exact leave-one-out needs solver='direct'")
    if select.validation is not None:
        select = replace(select, cv=None)
    sel = pcg_select(source, factors, select.regparams, make_operator=make_operator,
                     kind=kind, select=select, pcg=pcg)
    fit.selection, fit.solver_result = sel, sel.solver_result
    fit.regparams, fit.cv_performances = sel.regparams, sel.performances
    fit.cv_predictions, fit.regparam, fit.W = sel.predictions, sel.regparam, sel.W
    fit.predictor = sel.predictor
    return fit
