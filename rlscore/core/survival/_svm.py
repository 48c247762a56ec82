"""Survival RankSVM: the linear RankSVM restricted to Harrell's comparable pairs.

Risk scores are "higher risk = earlier event". Every comparable pair (i, j) -- i an
observed event and t_i < t_j, or t_i == t_j with j censored -- wants
w^T x_i >= w^T x_j + 1; the objective is

    J(w) = (regparam / 2) ||w||^2 + s sum_{(i, j) comparable} l(1 - w^T x_i + w^T x_j)

with l(r) = max(0, r) (``loss="hinge"``, the bundle method) or max(0, r)^2
(``loss="squared_hinge"``, trust-region Newton), s = 1 / N for N comparable pairs
(``normalize="pairs"``) or 1 (``"none"``). The losses and their derivatives cost
O(m log m + nnz) per evaluation (:class:`rlscore.core.ranksvm.SurvivalRankingRisk`).

Relation to scikit-survival's ``FastSurvivalSVM(rank_ratio=1, fit_intercept=False)``,
which minimizes 1/2 ||v||^2 + alpha / 2 sum_pairs max(0, 1 - v^T x_j + v^T x_i)^2 and
predicts -v^T x (``coef_`` = v, higher v^T x = longer survival): with
``loss="squared_hinge"`` the minimizers are w = -v for ``regparam = 2 / alpha``
(``normalize="none"``) or ``regparam = 2 / (alpha N)`` (``normalize="pairs"``), and the
predictions (risk scores) agree. scikit-survival breaks tied times at random, so the
pair sets (and the models) coincide when the times are distinct.
"""

from rlscore.core.ranksvm import (RankSVMOptions, SquaredSurvivalRankingRisk,
                                  SurvivalRankingRisk, ranksvm_regparam, train_ranksvm)

__all__ = ["make_survival_risk", "train_survival_ranksvm"]


def make_survival_risk(X, time, event, loss="hinge", normalize="pairs"):
    """The risk oracle of a loss: :class:`~rlscore.core.ranksvm.SurvivalRankingRisk`
    (hinge) or :class:`~rlscore.core.ranksvm.SquaredSurvivalRankingRisk`. O(nnz +
    m log m)."""
    cls = SquaredSurvivalRankingRisk if loss == "squared_hinge" else SurvivalRankingRisk
    return cls(X, time, event, normalize=normalize)


def train_survival_ranksvm(X, time, event, regparam=1.0, *, x0=None, callback=None,
                           options=None):
    """Train the linear survival RankSVM (module docstring).

    Parameters
    ----------
    X : array-like or sparse (m, d)
    time : (m,) event or censoring times (>= 0)
    event : (m,) bool or 0/1, True when the event was observed
    regparam : float > 0, default 1.0
    x0 : optional start
    callback : passed to the optimizer
    options : :class:`rlscore.core.ranksvm.RankSVMOptions` or None (the defaults):
        ``loss`` "hinge" (default) or "squared_hinge"; ``optimizer`` "bundle",
        "newton" or None (the loss's default: bundle for the hinge, Newton for the
        squared hinge); ``rtol``, ``maxiter`` (None:
        :data:`rlscore.core.ranksvm.DEFAULT_RTOL`, 1000 bundle iterations or 100 Newton
        steps); ``normalize`` "pairs" (default, the mean pair loss) or "none" (the
        sum); ``warm_start`` "auto" (start from the solution on a random tenth of the
        rows for large m) or None; ``verbose``.

    Returns
    -------
    SolverResult
        ``w`` the weights (risk scores X w), ``n_pairs`` the number of comparable
        pairs, plus the extras of :func:`rlscore.core.ranksvm.ranksvm_result`.

    Raises
    ------
    ValueError
        Bad arguments, or no comparable pair.

    Notes
    -----
    O(m log m) to sort the times; each solver iteration O(m log m + nnz) (the bundle
    method's evaluations, or Newton's evaluation and Hessian-vector products).
    """
    options = RankSVMOptions() if options is None else options
    regparam = ranksvm_regparam(regparam)
    risk = make_survival_risk(X, time, event, options.loss, options.normalize)
    sol = train_ranksvm(risk, regparam, options, x0=x0, callback=callback)
    sol.n_pairs = risk.n_pairs
    return sol
