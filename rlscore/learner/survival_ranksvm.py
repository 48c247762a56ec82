"""SurvivalRankSVM: the linear RankSVM on right-censored outcomes, with RLScore's
interface (a thin adapter over :func:`rlscore.core.survival.train_survival_ranksvm`)."""

from rlscore.core.ranksvm import RankSVMOptions, solution_attributes
from rlscore.core.survival import train_survival_ranksvm
from rlscore._validation import warn_unused_kwargs
from rlscore.learner._common import VERBOSE_DOC, reports_progress
from rlscore.predictor import LinearPredictor, PredictorInterface

__all__ = ["SurvivalRankSVM"]


class SurvivalRankSVM(PredictorInterface):
    __doc__ = f"""Linear RankSVM for right-censored survival data; trains in the
    constructor. Its predictions are risk scores: higher risk = earlier event.

    Minimizes

        J(w) = (regparam / 2) ||w||^2 + s sum_{{(i, j) comparable}} l(1 - w^T x_i + w^T x_j)

    over Harrell's comparable pairs (i an observed event and t_i < t_j, or t_i == t_j
    with j censored; censored rows are only ever the later member), with l(r) =
    max(0, r) (``loss="hinge"``, bundle method) or max(0, r)^2
    (``loss="squared_hinge"``, trust-region Newton), s = 1 / N for N comparable pairs
    (``normalize="pairs"``) or 1 (``"none"``). The O(m^2) pairs are never listed.

    scikit-survival's ``FastSurvivalSVM(alpha, rank_ratio=1, fit_intercept=False)`` is
    the squared hinge with ``normalize="none"`` and ``regparam = 2 / alpha`` (its
    ``coef_`` is -w, its ``predict`` the same risk scores), on distinct times (it
    breaks tied times at random).

    Parameters
    ----------
    X : array-like or sparse (m, d)
    time : (m,) event or censoring times (>= 0)
    event : (m,) bool or 0/1, True when the event was observed
    regparam : float > 0, default 1.0
    loss : "hinge" (default) or "squared_hinge"
    solver : "bundle", "newton" or None (the loss's default)
    tol, max_iter : the solver's stopping rule, as for
        :class:`rlscore.learner.LinearRankSVM` (None: 1e-3 bundle, 1e-10 Newton)
    normalize : "pairs" (default) or "none"
    warm_start : "auto" (default) or None, as for :class:`rlscore.learner.LinearRankSVM`
    callback : optional, as for :class:`rlscore.learner.LinearRankSVM`
    **kwargs : ignored with a UserWarning.
{VERBOSE_DOC}

    Attributes
    ----------
    predictor : LinearPredictor (b = 0); solution, regparam, iterations, duality_gap,
    objective, converged, history; n_pairs : int, comparable pairs

    Notes
    -----
    O(m log m + nnz) per solver iteration (the loss over the comparable pairs by two
    Fenwick sweeps over the time order, :mod:`rlscore._ext._survsvm`).
    """

    @reports_progress
    def __init__(self, X, time, event, regparam=1.0, loss="hinge", solver=None,
                 tol=None, max_iter=None, normalize="pairs", warm_start="auto",
                 callback=None, verbose=False, **kwargs):
        warn_unused_kwargs(kwargs, (), type(self).__name__)
        options = RankSVMOptions(loss=loss, optimizer=solver, rtol=tol, maxiter=max_iter,
                                 normalize=normalize, warm_start=warm_start,
                                 verbose=verbose)
        self.loss, self.solver = options.loss, options.optimizer
        solution = train_survival_ranksvm(X, time, event, regparam, callback=callback,
                                          options=options)
        self.n_pairs = solution.n_pairs
        vars(self).update(solution_attributes(solution))
        self.predictor = LinearPredictor(solution.w, 0.0)
