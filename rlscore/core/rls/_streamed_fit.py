"""Training a reduced-set model from a stream, with the regularization chosen by exact
cross-validation: the driver the faces (``rlscore.learner.StreamedRLS``, the
command line) call, so no face holds a fold loop or a formula.
"""

from types import SimpleNamespace

import numpy as np

from rlscore._progress import stage
from rlscore._validation import check_regparam
from rlscore.core.rls._nystrom import select_basis
from rlscore.core.rls._pcg import pcg_reduced_set
from rlscore.core.rls._representation import NystromFeatureMap
from rlscore.core.rls._streamed import StreamedReducedSet, fold_numbers
from rlscore.core.selection import grid_search
from rlscore.core.structure import as_source

__all__ = ["StreamedFit", "streamed_fit"]


class StreamedFit:
    """The result of :func:`streamed_fit`: ``predictor``, ``regparam``, ``W`` (k, p),
    ``regparams`` and ``cv_performances`` (when a grid was searched),
    ``cv_predictions`` (m, L, p) or None, ``basis_indices``, ``model`` (the
    :class:`StreamedReducedSet`, or None for PCG), ``solver_result`` (PCG)."""


def streamed_fit(source, kernel="GaussianKernel", kernel_params=None, kind="rls",
                 regparam=1.0, regparams=None, cv="loo", measure=None,
                 basis_indices=None, n_basis=None, random_state=None,
                 remove_basis=True, block_size=None, solver="direct", tol=1e-6,
                 maxiter=None, verbose=None):
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
    remove_basis : cross-validation removes held-out basis vectors (default True)
    block_size : rows per block, default from the working-memory budget
    solver : "direct" (statistics + eigendecomposition; exact CV) or "pcg" (Falkon's
        preconditioned CG for many centres; one lambda, no CV)
    tol, maxiter : of PCG

    Returns
    -------
    StreamedFit

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
    if idx is None:
        raise ValueError("give basis_indices or n_basis: streamed learning is for "
                         "reduced-set (Nystrom) models")
    with stage(f"basis: reading {idx.size} rows"):
        fmap = NystromFeatureMap(kernel, source.rows(idx), **kp)
    fit = StreamedFit()
    fit.basis_indices, fit.regparams, fit.cv_performances = idx, None, None
    fit.cv_predictions, fit.solver_result, fit.model = None, None, None
    if solver == "pcg":
        if kind != "rls" or regparams is not None:
            raise ValueError("solver='pcg' trains RLS for one regparam; use "
                             "solver='direct' for ranking or a regparam grid")
        res = pcg_reduced_set(source, fmap, check_regparam(regparam), tol=tol,
                              maxiter=maxiter, block_size=block_size, verbose=verbose)
        fit.solver_result, fit.regparam, fit.W = res, float(regparam), res.solution
        fit.predictor = fmap.predictor(res.solution)
        return fit
    if solver != "direct":
        raise ValueError(f"solver must be 'direct' or 'pcg', got {solver!r}")
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
