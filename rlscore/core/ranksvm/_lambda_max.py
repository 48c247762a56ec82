"""The scale of the regularization parameter of the hinge RankSVM: lambda_max.

For the objective of :mod:`rlscore.core.ranksvm`,

    J(w) = (regparam / 2) ||w||^2 + R(w),    R the (normalized) pairwise hinge risk,

every pair has margin 0 < 1 at w = 0, so R is differentiable there with gradient
g = grad R(0) = -sum_q s_q sum_{(u, l) in q} (x_u - x_l). As in glmnet's ``lambda_max``
(Friedman, Hastie & Tibshirani, J. Stat. Softw. 33(1), 2010, section 2.5: the smallest
penalty at which the model is zero), the scale is the norm of that (sub)gradient:

    lambda_max = ||g||.

While every pair stays inside the margin the minimizer is w = -g / regparam, so for
regparam well above lambda_max the model only shrinks (the ranking no longer changes)
and, at the solver's tolerance, the bundle method returns w = 0: at w = 0 its duality
gap is ||g||^2 / (2 regparam). Regparam grids are therefore built down from lambda_max.
"""

import numpy as np

__all__ = ["ranksvm_lambda_max", "grid_below"]


def ranksvm_lambda_max(X, y, qids=None, normalize="pairs", loss="hinge"):
    """lambda_max = ||grad R(0)|| of the RankSVM risk on (X, y, qids).

    Parameters
    ----------
    X : array-like or sparse (m, d); for a kernel RankSVM, its empirical kernel map.
    y : array-like (m,), utilities.
    qids : sequence (m,) or None (one global ranking).
    normalize : "pairs", "query" or "none", as for the learner.
    loss : "hinge" or "squared_hinge". The squared hinge has twice the hinge's gradient
        at 0; its minimizer is never exactly 0, and lambda_max is the scale above which
        w is small.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        No pairs (all utilities equal within every query), bad input.

    Notes
    -----
    One evaluation of the risk: O(m log m + nnz).
    """
    from rlscore.core.ranksvm._ranksvm import make_risk
    risk = make_risk(X, y, qids, loss, normalize)
    _, g = risk(np.zeros(risk.dim))
    return float(np.linalg.norm(g))


def grid_below(lambda_max, n=21, step=1.0):
    """``lambda_max * 2^(-step k)`` for k = 0 .. n-1, from lambda_max down.

    Returns
    -------
    list of float, decreasing.
    """
    if not np.isfinite(lambda_max) or lambda_max <= 0:
        raise ValueError(f"lambda_max must be a positive finite number, got {lambda_max}")
    return [float(lambda_max * 2.0 ** (-step * k)) for k in range(int(n))]
