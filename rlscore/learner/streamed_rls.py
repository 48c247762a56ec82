"""Reduced-set RLS and RankRLS trained from a stream of row blocks (arrays, memmaps,
CSR, dask arrays or an svmlight file), RLScore-style: the constructor trains."""

import numpy as np

from rlscore._progress import verbosity
from rlscore.core.nystrom import ComputePlan, PlanError, StreamedSelection
from rlscore.core.rankrls import streamed_rank_fit
from rlscore.core.structure import as_source
from rlscore.learner._common import squeeze
from rlscore.predictor import PredictorInterface

__all__ = ["StreamedRLS"]

#: How StreamedRLS spells the fields of :class:`rlscore.core.nystrom.ComputePlan` that
#: it names differently (PCG's tolerance is its ``tol``).
_PLAN_NAMES = {"rtol": "tol"}


class StreamedRLS(PredictorInterface):
    """Reduced-set (Nystrom) RLS / RankRLS whose memory does not grow with the number
    of rows beyond O(m p): the data are read block by block
    (:class:`rlscore.core.nystrom.StreamedReducedSet`), the regularization is chosen by
    exact leave-one-out or K-fold cross-validation over a grid (held-out basis vectors
    removed), or the model is trained by Falkon's preconditioned CG (``solver="pcg"``).
    Equals :class:`rlscore.learner.RLS` / :class:`rlscore.learner.LeaveOneOutRLS` /
    :class:`rlscore.learner.KfoldRLS` with the same basis to rounding.

    Parameters
    ----------
    X : array-like (m, d), ``np.memmap``, CSR, dask array, or a data source
        (``rlscore.utilities.reader.SvmlightSource(path)``; then Y and qids are None)
    Y : labels (m,) or (m, p)
    regparam : float, default 1.0 (used when ``regparams`` is None)
    kernel : "GaussianKernel" (default), "PolynomialKernel" or "LinearKernel"
    basis_indices : rows of X used as basis vectors; or
    n_basis, random_state : that many drawn uniformly (one of the two is required)
    regparams : grid of regparams to select from, optional
    cv : "loo" (default; RLS) or an int K, or (m,) fold numbers (qids for
        leave-query-out)
    measure : f(Y, P) with ``iserror``, default sqerror
    kind : "rls" (default), "query" (QueryRankRLS, needs qids) or "global"
        (GlobalRankRLS)
    qids : query ids (m,) for kind="query"
    memory_budget : "auto" (default), MiB, or None
        The bound on the peak resident set of the whole process, as in every face
        (:class:`rlscore.learner.RLS`, the estimators, ``rlscore fit
        --memory-budget``): what the process holds when the run is planned (the
        interpreter, the imported modules, the data in memory) plus the peak
        estimate of the run (:mod:`rlscore._memory`: the b x b statistics, one
        block, the m x L x p held-out predictions; PCG's factors and kernel blocks;
        a file's parser buffers) must fit it, and the blocks are sized from what is
        left (at most a quarter of it per block). "auto" is the process's memory
        plus half the available memory, None no limit. When nothing fits, a
        ValueError names the estimates and the ways out (a smaller ``block_size``,
        ``solver="pcg"``, fewer basis vectors), before any pass. The decision:
        :func:`rlscore.core.nystrom.plan_streamed_fit`.
    plan : a route of :func:`rlscore.core.nystrom.plan_streamed_fit` already decided for
        this source (then ``memory_budget``, ``solver`` and ``block_size`` are not
        weighed again), optional
    block_size : rows per block (default: from the budget)
    solver : "auto" (default), "direct" or "pcg"
        "direct": r x r statistics, exact CV; "pcg": many centres, Falkon's
        preconditioned CG, for every kind (a ``regparams`` grid is searched on a
        ``validation`` split or by K-fold ``cv`` with warm starts, the basis vectors
        kept); "auto": direct, or PCG when only PCG fits the budget and no grid is
        searched
    validation : with solver="pcg" and a grid, the fraction of the rows (whole
        queries for "query") held out once; else ``cv`` must be K or fold numbers
    keep_basis_in_cv : bool, default False
    tol, maxiter : PCG's stopping tolerance on the relative residual (None: 1e-6) and
        iteration cap (None: none)
    dtype : np.float64 (default) or "float32": with PCG, the precision of the kernel
        blocks of its iterations (one SGEMM and a vectorized exponential, about 4x
        faster, kernel values within about 1e-6 relative: keep ``tol`` >= 1e-5);
        refused for the direct solver
    verbose : show the passes (rows/s) and stages on stderr
    **kernel_params : gamma, degree, coef0, bias

    Attributes
    ----------
    predictor, regparam, regparams, cv_performances, cv_predictions (L, m, p) or
    None: each row's held-out prediction per lambda, grid first as
    ``LeaveOneOutRLS.cv_predictions`` (singleton axes squeezed, RLScore's rule: (L, m)
    for one output; rows in data order for K-fold too, where ``KfoldRLS`` lists them
    per fold; PCG: NaN on rows never held out), basis_indices, plan (the memory plan:
    ``path`` "streamed" or "pcg", ``block_size``, ``peak_bytes``, ``baseline_bytes``,
    ``budget_bytes``), peak_bytes (the plan's estimate of the process's peak resident
    set, checked before the run: ``plan.baseline_bytes`` held before it plus the
    run's arrays and buffers), solver_result and
    cg_iterations (PCG: the CG iterations of the final fit, and per fold and lambda
    when a grid was searched), compute_plan (the
    :class:`rlscore.core.nystrom.ComputePlan` of the keywords)

    Notes
    -----
    Direct: O(m b (d + b)) time for the statistics, O(b^3) for the r x r
    eigendecomposition, one more pass O(m b (d + b + L p)) for the cross-validation;
    memory O(b^2 (2 + K) + block (b + d) + m L p). PCG: O(m b (d + l)) per iteration
    with the kernel blocks recomputed, O(2 b^3 / 3) per lambda for the
    preconditioner; memory 8 b^2 bytes (one b x b array) + O(block b + m L p).
    """

    def __init__(self, X, Y=None, regparam=1.0, kernel="GaussianKernel",
                 basis_indices=None, n_basis=None, random_state=None, regparams=None,
                 cv="loo", measure=None, kind="rls", qids=None, memory_budget="auto",
                 block_size=None, solver="auto", keep_basis_in_cv=False, tol=None,
                 maxiter=None, verbose=False, validation=None, dtype=np.float64,
                 plan=None, **kernel_params):
        source = as_source(X, Y, qids)
        with PlanError.reworded(_PLAN_NAMES):
            compute = ComputePlan.from_options(memory_budget, block_size, solver, dtype,
                                               rtol=tol, maxiter=maxiter)
        select = StreamedSelection(regparam, regparams, cv, measure, validation,
                                   random_state)
        with verbosity(verbose), PlanError.reworded(_PLAN_NAMES):
            fit = streamed_rank_fit(
                source, kernel, kernel_params, kind, select=select, plan=compute,
                route=plan, basis_indices=basis_indices, n_basis=n_basis,
                random_state=random_state, remove_basis=not keep_basis_in_cv)
        self.compute_plan = compute
        self.predictor = fit.predictor
        self.regparam = fit.regparam
        self.regparams = fit.regparams
        self.cv_performances = fit.cv_performances
        # grid first, as LeaveOneOutRLS.cv_predictions (RLScore's (grid, m[, p]))
        self.cv_predictions = None if fit.cv_predictions is None else \
            squeeze(np.moveaxis(fit.cv_predictions, 1, 0))
        self.basis_indices = fit.basis_indices
        self.plan = fit.plan
        self.peak_bytes = fit.plan.peak_bytes
        self.solver_result = fit.solver_result
        self.cg_iterations = None
        if fit.selection is not None:
            self.cg_iterations = fit.selection.iterations
        elif fit.solver_result is not None:
            self.cg_iterations = fit.solver_result.iterations

    def predict(self, X):
        """Predictions for X (n, d), streamed by blocks. O(n b (d + p))."""
        return self.predictor.predict(X)
