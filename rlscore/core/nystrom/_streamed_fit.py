"""Training a reduced-set model from a stream, with the regularization chosen by exact
cross-validation: the driver the faces (``rlscore.learner.StreamedRLS``, the
command line) call, so no face holds a fold loop or a formula.
"""

import numbers
from types import SimpleNamespace

import numpy as np

from rlscore._blocks import working_memory
from rlscore._progress import stage
from rlscore._validation import as_data_matrix, check_float_dtype, check_regparam
from rlscore.core.nystrom._nystrom import select_basis
from rlscore.core.nystrom._memory_plan import (MEMORY_BUDGET_DEFAULT, block_working_memory,
                                           check_memory_options, plan_reduced_set)
from rlscore.core.nystrom._pcg import StreamedGramOperator, pcg_solve
from rlscore.core.nystrom._pcg_factors import NystromFactors
from rlscore.core.nystrom._pcg_select import pcg_select
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
                      regparams=None, cv="loo", validation=None,
                      memory_budget=MEMORY_BUDGET_DEFAULT, solver="auto",
                      block_size=None, names=None, verbose=None):
    """The memory plan of :func:`streamed_fit` on ``source``: the one decision of
    every face, :func:`rlscore.core.nystrom.plan_reduced_set` with ``stream=True`` (the
    data are read in blocks whatever the budget), sized by this source (m, d, p) and
    the cross-validation asked (``regparams`` and ``cv``: leave-one-out, or K-fold
    with the b x b statistics of each fold kept).

    Parameters
    ----------
    source : data source (or anything :func:`rlscore.core.structure.as_source` takes)
    n_basis : the number of basis vectors
    kernel, kind, regparams, cv, validation, solver, block_size : as for
        :func:`streamed_fit`
    memory_budget : "auto" (the process's memory plus half the available memory),
        MiB bounding the peak resident set of the whole process, or None (no limit);
        the estimate counts what the process holds when planned and the source's
        ``pass_bytes`` (a file's parser buffers), if it has that attribute
    names, verbose : of :func:`plan_reduced_set` (how a refusal names the options;
        the report)

    Returns
    -------
    the plan of :func:`plan_reduced_set`: ``path`` "streamed" or "pcg",
    ``peak_bytes``, ``budget_bytes``, ``block_size``, ``working_memory``,
    ``pcg_cache``

    Raises
    ------
    ValueError
        Naming the budget, the estimates and the ways out when nothing fits; invalid
        ``memory_budget`` / ``solver`` / ``block_size``. Before any pass.

    Notes
    -----
    O(1), O(m log m) for an (m,) array of fold numbers.
    """
    source = as_source(source)
    check_memory_options(memory_budget, solver, block_size)
    cv_name, n_lambdas, n_folds = None, 1, 0
    if regparams is not None:
        n_lambdas = max(len(regparams), 1)
        if isinstance(cv, str) and cv == "loo" and not (solver == "pcg" or validation
                                                         is not None):
            cv_name = "loo"
        else:
            cv_name = "kfold"
            if validation is None and solver != "pcg":
                n_folds = _n_folds(cv)
    p = 1 if source.Y is None else source.Y.shape[1]
    return plan_reduced_set(source.m, int(n_basis), source.d, p,
                            memory_budget=memory_budget, solver=solver,
                            block_size=block_size, cv=cv_name, n_lambdas=n_lambdas,
                            n_folds=n_folds, kernel=kernel, stream=True, names=names,
                            verbose=verbose, kind=kind,
                            pass_bytes=float(getattr(source, "pass_bytes", 0.0)))


def _n_folds(cv):
    """The folds whose statistics a K-fold pass keeps: K, or the distinct fold
    numbers."""
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        return max(int(cv), 0)
    if isinstance(cv, str):
        return 0
    return int(np.unique(np.asarray(cv).ravel()).size)


def streamed_fit(source, kernel="GaussianKernel", kernel_params=None, kind="rls",
                 regparam=1.0, regparams=None, cv="loo", measure=None,
                 basis_indices=None, n_basis=None, random_state=None,
                 remove_basis=True, block_size=None, solver="auto", tol=1e-6,
                 maxiter=None, verbose=None, validation=None, operator_factory=None,
                 dtype=np.float64, memory_budget=MEMORY_BUDGET_DEFAULT, plan=None,
                 basis_vectors=None):
    """Reduced-set RLS / RankRLS from a data source, one pass (plus one for the
    cross-validation of a grid, plus one to read the basis rows).

    Parameters
    ----------
    source : data source (:func:`rlscore.core.structure.as_source`), e.g.
        ``ArraySource(X, Y)`` or ``rlscore.utilities.reader.SvmlightSource(path)``
    kernel, kernel_params : the kernel ("GaussianKernel", "LinearKernel",
        "PolynomialKernel") and its parameters
    kind : "rls", "query" or "global" (:class:`StreamedReducedSet`)
    regparam : the lambda when ``regparams`` is None
    regparams : grid of lambdas to choose from by cross-validation, optional
    cv : "loo" (RLS only) or an int K (K folds of rows; of whole queries for "query"),
        or an (m,) array of fold numbers (e.g. the qids for leave-query-out)
    measure : f(Y, P) with ``iserror``; default sqerror
    basis_indices / n_basis, random_state : the basis rows (drawn uniformly)
    basis_vectors : (r, d) explicit basis rows instead (not rows of the source: the
        cross-validation keeps them, and query RankRLS's PCG goes unpreconditioned or
        takes the uncentred preconditioner)
    remove_basis : cross-validation removes held-out basis vectors (default True)
    block_size : rows per block, default from ``memory_budget``
    solver : "auto" (default: direct, or PCG when only PCG fits ``memory_budget`` and
        no grid is searched; :func:`plan_streamed_fit`), "direct" (statistics +
        eigendecomposition; exact CV) or "pcg" (Falkon's preconditioned CG for many
        centres, the factors in one r x r array,
        :class:`rlscore.core.nystrom.NystromFactors`; a grid is searched on a validation
        split or K-fold with warm starts, :func:`rlscore.core.nystrom.pcg_select`; the
        held-out basis vectors are kept)
    tol, maxiter : of PCG
    validation : PCG with a grid: the fraction of rows (whole queries for "query")
        held out once, instead of ``cv`` folds
    dtype : PCG: np.float64 (default) or np.float32, the precision of the kernel
        blocks (:class:`rlscore.core.nystrom.StreamedGramOperator`: float32 about 4x
        faster, kernel values within about 1e-6 relative, so ``tol`` at most ~1e-5
        is attainable); the direct solver is always float64
    operator_factory : PCG: a function of (source, factors, basis_indices, block_size,
        rows, dtype, cache) returning the operator; default RLS's
        :class:`rlscore.core.nystrom.StreamedGramOperator` (the centred ones:
        :func:`rlscore.core.rankrls.streamed_rank_fit`)
    memory_budget : "auto" (default: the process's memory plus half the available
        memory), MiB bounding the peak resident set of the whole process, or None (no
        limit): the estimate (what the process holds, the path's arrays, a file's
        parser buffers) must fit it, and the blocks are sized from it
        (:func:`plan_streamed_fit`); refused before any pass otherwise
    plan : a plan already made for this fit (:func:`plan_streamed_fit` or
        :func:`rlscore.core.nystrom.plan_reduced_set`); then ``memory_budget``,
        ``solver`` and ``block_size`` are the plan's

    Returns
    -------
    StreamedFit, whose attribute ``plan`` is the memory plan it ran under

    Notes
    -----
    Direct: O(m b (d + b)) for the statistics, O(b^3) for the eigendecomposition,
    O(m b (d + b + L p)) for the cross-validation pass; memory O(b^2 (2 + K) +
    block b + m L p). PCG: O(m b (d + 2 t)) for t iterations (cached kernel blocks:
    O(m b) memory) or O(t m b d) recomputed.
    """
    source = as_source(source)
    kp = dict(kernel_params or {})
    idx = select_basis(source.m, basis_indices, n_basis, random_state)
    if idx is not None and basis_vectors is not None:
        raise ValueError("give basis_vectors or basis_indices/n_basis, not both")
    if idx is None and basis_vectors is None:
        raise ValueError("give basis_indices, n_basis or basis_vectors: streamed "
                         "learning is for reduced-set (Nystrom) models")
    basis = _Basis(source, idx, basis_vectors)
    if plan is None:
        plan = plan_streamed_fit(source, basis.size, kernel, kind=kind,
                                 regparams=regparams, cv=cv,
                                 validation=validation, memory_budget=memory_budget,
                                 solver=solver, block_size=block_size, verbose=verbose)
    fit = StreamedFit()
    fit.basis_indices, fit.regparams, fit.cv_performances = idx, None, None
    fit.cv_predictions, fit.solver_result, fit.model = None, None, None
    fit.selection, fit.plan = None, plan
    dtype = check_float_dtype(dtype)
    if dtype == np.float32 and plan.path != "pcg":
        raise ValueError("dtype=float32 applies to solver='pcg' (the kernel blocks of "
                         "its iterations); the direct solver computes in float64")
    wm = plan.working_memory if plan.working_memory is not None else \
        block_working_memory(plan.budget_bytes)
    with working_memory(wm):
        if plan.path == "pcg":
            return _pcg_fit(fit, source, kernel, kp, kind, regparam, regparams, cv,
                            validation, measure, basis, random_state, plan.block_size,
                            tol, maxiter, verbose, operator_factory, dtype,
                            plan.pcg_cache)
        return _direct_fit(fit, source, kernel, kp, kind, regparam, regparams, cv,
                           validation, measure, basis, random_state, remove_basis,
                           plan.block_size, verbose)


class _Basis:
    """The basis of :func:`streamed_fit`: rows ``idx`` of the source, or explicit
    ``vectors``; ``rows()`` reads them (one pass over a file for indices). O(r d)."""

    def __init__(self, source, idx, vectors):
        self.source, self.idx, self.vectors = source, idx, vectors
        if vectors is not None:
            self.vectors = as_data_matrix(vectors, name="basis_vectors")
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


def _direct_fit(fit, source, kernel, kp, kind, regparam, regparams, cv, validation,
                measure, basis, random_state, remove_basis, block_size, verbose):
    """The direct branch of :func:`streamed_fit`: the statistics, their
    eigendecomposition and the exact cross-validation of a grid."""
    idx = basis.idx
    with stage(f"basis: {basis.describe()}"):
        fmap = NystromFeatureMap(kernel, basis.rows(), **kp)
    if validation is not None:
        raise ValueError("validation applies to solver='pcg'; the direct solver "
                         "cross-validates exactly (cv)")
    folds = None
    if regparams is not None and not (isinstance(cv, str) and cv == "loo"):
        folds = fold_numbers(cv, source, kind, random_state)
    grid = None if regparams is None else [check_regparam(r, name="regparams")
                                           for r in regparams]
    model = StreamedReducedSet(source, fmap, kind, basis_indices=idx, folds=folds,
                               block_size=block_size,
                               lambda_count=1 if grid is None else len(grid),
                               verbose=verbose)
    fit.model = model
    if grid is not None:
        if isinstance(cv, str) and cv == "loo":
            P = model.leave_one_out_path(grid, remove_basis)
        else:
            P = model.kfold_path(grid, remove_basis)
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


def _pcg_fit(fit, source, kernel, kp, kind, regparam, regparams, cv, validation,
             measure, basis, seed, block_size, tol, maxiter, verbose, operator_factory,
             dtype=np.float64, cache="auto"):
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
        factors = NystromFactors(kernel, basis.rows(), **kp)

    def make_operator(rows):
        return operator_factory(source, factors, idx, block_size, rows, dtype, cache)
    if regparams is None:
        if validation is not None:
            raise ValueError("validation needs a regparams grid")
        res = pcg_solve(make_operator(None), check_regparam(regparam), tol=tol,
                        maxiter=maxiter, verbose=verbose)
        fit.solver_result, fit.regparam, fit.W = res, float(regparam), res.solution
        fit.predictor = factors.predictor(res.solution)
        return fit
    if validation is None and isinstance(cv, str):
        raise ValueError(f"solver='pcg' selects the regparam on a validation split "
                         f"(validation=0.2) or by K-fold (cv=K), not cv={cv!r}; exact "
                         f"leave-one-out needs solver='direct'")
    sel = pcg_select(source, factors, regparams, make_operator=make_operator, kind=kind,
                     validation=validation, cv=None if validation is not None else cv,
                     measure=measure, random_state=seed, tol=tol, maxiter=maxiter,
                     verbose=verbose)
    fit.selection, fit.solver_result = sel, sel.solver_result
    fit.regparams, fit.cv_performances = sel.regparams, sel.performances
    fit.cv_predictions, fit.regparam, fit.W = sel.predictions, sel.regparam, sel.W
    fit.predictor = sel.predictor
    return fit
