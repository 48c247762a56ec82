"""SurvivalRankRLS: RankRLS on right-censored outcomes, with RLScore's interface (a thin
adapter over :class:`rlscore.core.survival.SurvivalRankRLSModel`, or
:class:`~rlscore.core.survival.PCGSurvivalRankRLSModel` with ``solver="pcg"``)."""

from rlscore.core.selection import DEFAULT_REGPARAMS, grid_search
from rlscore.core.nystrom import PlanError
from rlscore.core.survival import (PCGSurvivalRankRLSModel, SurvivalCV,
                                  survival_rankrls_model)
from rlscore.learner._common import (PLAN_NAMES, VERBOSE_DOC, SolveAdapter, compute_plan,
                                     exclusive, regparam_grid, reports_progress,
                                     split_kernel_kwargs)
from rlscore.predictor import PredictorInterface

__all__ = ["SurvivalRankRLS", "LeaveOneOutSurvivalRankRLS", "KfoldSurvivalRankRLS"]

#: The keywords of the PCG path (:class:`rlscore.core.survival.PCGSurvivalRankRLSModel`)
PCG_KEYWORDS = ("solver", "pcg_tol", "pcg_maxiter", "block_size")


class SurvivalRankRLS(SolveAdapter, PredictorInterface):
    __doc__ = f"""RankRLS for right-censored survival data; trains in the constructor.
    Its predictions are risk scores: higher risk = earlier event.

    Every comparable pair of Harrell's C -- row i with an observed event and t_i < t_j,
    or t_i == t_j with j censored -- asks for f(x_i) - f(x_j) = 1 (or t_j - t_i with
    ``magnitudes=True``); the model minimizes the squared pair errors plus
    regparam ||f||^2 (preference-graph RankRLS, Pahikkala et al. 2009, on the
    comparability graph, whose O(m^2) pairs are never listed).

    Parameters
    ----------
    X : array-like or sparse (m, d); the kernel matrix for ``kernel="PrecomputedKernel"``
    time : (m,) event or censoring times (>= 0)
    event : (m,) bool or 0/1, True when the event was observed
    regparam : float >= 0, default 1.0
    kernel, basis_vectors : as for RLS
    magnitudes : bool, default False (unit pair targets)
    solver : "direct" (default; "auto" is the same) or "pcg" (keyword)
        "pcg": the reduced-set model on ``basis_vectors`` by preconditioned CG with the
        kernel streamed by blocks (:class:`rlscore.core.survival.PCGSurvivalRankRLSModel`),
        in memory O(r^2 + m + block r) instead of the m x r features of the direct
        solver: for 10^5 - 10^6 rows. The same model to PCG's tolerance; ``solve``
        re-runs CG from the previous solution; no exact ``holdout`` (select regparam
        with the direct solver on a subsample, or by refits).
    pcg_tol, pcg_maxiter, block_size : PCG's tolerance and iteration cap (as for
        :class:`rlscore.learner.RLS`; a ConvergenceWarning at the cap) and the rows per
        kernel block (keywords; solver="pcg" only)
    **kwargs : kernel parameters; other keywords are ignored with a UserWarning.
{VERBOSE_DOC}

    Attributes
    ----------
    predictor, regparam

    Notes
    -----
    O(m log m) for the graph; linear O(m d^2 + d^3), kernel O(m^3); ``solve`` for
    another regparam O(r^2) after one eigendecomposition. ``holdout`` and
    ``leave_one_out`` give exact hold-out risk scores with the held-out rows' pairs
    removed (:meth:`rlscore.core.survival.SurvivalRankRLSModel.holdout`).
    """

    @reports_progress
    def __init__(self, X, time, event, regparam=1.0, kernel="LinearKernel",
                 basis_vectors=None, magnitudes=False, **kwargs):
        params = split_kernel_kwargs(kwargs, kernel, type(self).__name__,
                                     extra=PCG_KEYWORDS)
        plan = compute_plan({k: kwargs[k] for k in PCG_KEYWORDS if k in kwargs})
        with PlanError.reworded(PLAN_NAMES):
            self._model = survival_rankrls_model(X, time, event, regparam, kernel,
                                                 basis_vectors, magnitudes, plan, **params)
        self._sync()

    def _exact(self):
        if isinstance(self._model, PCGSurvivalRankRLSModel):
            raise ValueError("solver='pcg' has no exact hold-out: train with "
                             "solver='direct' to cross-validate")

    @exclusive
    def holdout(self, folds, regparams=None):
        """Exact hold-out risk scores of every fold (list of arrays), the fold's rows
        and their pairs left out of training; see
        :meth:`rlscore.core.survival.SurvivalRankRLSModel.holdout`."""
        self._exact()
        return self._model.holdout(folds, regparams)

    @exclusive
    def leave_one_out(self, regparams=None):
        """Exact leave-one-out risk scores, (m,) or (len(regparams), m)."""
        self._exact()
        return self._model.leave_one_out(regparams)


class _SurvivalSelection(PredictorInterface):
    """Train on the grid's first regparam, select by :class:`rlscore.core.survival.
    SurvivalCV` through the one grid search, keep the best model."""

    def _select(self, X, time, event, folds, regparams, measure, kwargs):
        """``kwargs``: the keywords of :class:`SurvivalRankRLS` (kernel, ...)."""
        if kwargs.get("solver") == "pcg":
            raise ValueError("solver='pcg' trains one regparam without exact hold-outs: "
                             "select regparam with solver='direct'")
        grid = regparam_grid(regparams, DEFAULT_REGPARAMS)
        if not grid:
            raise ValueError("regparams is empty")
        learner = SurvivalRankRLS(X, time, event, grid[0],
                                  verbose=getattr(self, "_verbose", False), **kwargs)
        cv = SurvivalCV(learner._model, folds, measure)
        result = grid_search(cv, grid, cv_name="loo" if folds == "loo" else "kfold")
        learner._sync()                    # the grid search re-solved at the best value
        self.learner = learner
        self.measure = cv.measure
        self.cv_performances = result.performances
        self.cv_predictions = result.predictions
        self.regparam = result.best
        self.predictor = learner.predictor


class LeaveOneOutSurvivalRankRLS(_SurvivalSelection):
    __doc__ = f"""Survival RankRLS with regparam chosen by exact leave-one-out (each row
    held out with its pairs, no refit): the estimate is the Harrell's C (or Uno's C) of
    the pooled leave-one-out risk scores (:class:`rlscore.core.survival.SurvivalCV`,
    the rule of every face).

    Parameters
    ----------
    X, time, event, kernel : as for :class:`SurvivalRankRLS`
    regparams : sequence of floats, default 2^-15 ... 2^15
    measure : "cindex" (default, Harrell's C) or "uno" (Uno's IPCW C)
    **kwargs : ``basis_vectors``, ``magnitudes`` and the kernel parameters of
        :class:`SurvivalRankRLS`
{VERBOSE_DOC}

    Attributes
    ----------
    learner : the SurvivalRankRLS at the chosen regparam; regparam, predictor;
    cv_performances : (len(regparams),); cv_predictions : one (m,) array per regparam

    Notes
    -----
    One training, one leave-one-out pass for the whole grid
    (:meth:`rlscore.core.survival.SurvivalRankRLSModel.leave_one_out`), O(m log m)
    per regparam for the measure.
    """

    @reports_progress
    def __init__(self, X, time, event, regparams=None, measure="cindex",
                 kernel="LinearKernel", **kwargs):
        self._select(X, time, event, "loo", regparams, measure,
                     dict(kwargs, kernel=kernel))


class KfoldSurvivalRankRLS(_SurvivalSelection):
    __doc__ = f"""Survival RankRLS with regparam chosen by exact K-fold cross-validation
    with the given folds (each fold held out with its pairs, no refit): the estimate is
    the mean over the folds of each fold's Harrell's C (or Uno's C) on its own
    comparable pairs, folds without one skipped (:class:`rlscore.core.survival.
    SurvivalCV`, the rule of every face).

    Parameters
    ----------
    X, time, event, kernel, **kwargs : as for :class:`LeaveOneOutSurvivalRankRLS`
    folds : list of index lists
    regparams : sequence of floats, default 2^-15 ... 2^15
    measure : "cindex" (default) or "uno"
{VERBOSE_DOC}

    Attributes
    ----------
    learner, regparam, predictor, cv_performances; cv_predictions : per regparam, one
    array per fold; folds

    Notes
    -----
    One training, then the hold-out of every fold and regparam at once
    (:meth:`rlscore.core.survival.SurvivalRankRLSModel.holdout`).
    """

    @reports_progress
    def __init__(self, X, time, event, folds, regparams=None, measure="cindex",
                 kernel="LinearKernel", **kwargs):
        self._select(X, time, event, folds, regparams, measure,
                     dict(kwargs, kernel=kernel))
        self.folds = folds
