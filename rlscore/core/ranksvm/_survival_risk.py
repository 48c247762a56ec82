"""The pairwise hinge and squared-hinge risks of the survival RankSVM: the RankSVM losses
restricted to Harrell's comparable pairs of right-censored outcomes, in O(m log m + nnz)
per evaluation (:class:`rlscore._ext._survsvm.SurvivalPairs`), never listing the pairs.

Risk scores are "higher risk = earlier event": a comparable pair (i, j) -- i an observed
event and t_i < t_j, or t_i == t_j with j censored (the rule of
:func:`rlscore.measure.concordance_index_censored`) -- wants w^T x_i >= w^T x_j + 1.
Censored rows only ever appear as the later member of a pair.
"""

import numpy as np

from rlscore._ext._survsvm import SurvivalPairs
from rlscore._validation import check_survival
from rlscore.core.ranksvm._risk import (_as_features, _LinearPairRisk,
                                        _SquaredHingeObjective)

__all__ = ["SURVIVAL_NORMALIZATIONS", "SurvivalRankingRisk", "SquaredSurvivalRankingRisk"]

SURVIVAL_NORMALIZATIONS = ("pairs", "none")


class SurvivalRankingRisk(_LinearPairRisk):
    """The pairwise hinge risk over Harrell's comparable pairs,

        R(w) = s sum_{(i, j) comparable} max(0, 1 - w^T x_i + w^T x_j),

    with s = 1 / N (N comparable pairs, ``normalize="pairs"``) or s = 1
    (``normalize="none"``); a bundle-method oracle (R and a subgradient).

    Parameters
    ----------
    X : array-like or sparse (m, d); converted once (dense C order or CSR).
    time : (m,) event or censoring times (>= 0).
    event : (m,) bool or 0/1, True when the event was observed.
    normalize : "pairs" (default) or "none".

    Attributes
    ----------
    n_pairs : int, the number of comparable pairs; scale : float, R(0) = s N.

    Raises
    ------
    ValueError
        Bad shapes or values, or no comparable pair (no event before another time).

    Notes
    -----
    Construction O(nnz + m log m) (one sort by time); ``__call__`` O(m log m + nnz).
    """

    n_threads = 1

    def __init__(self, X, time, event, normalize="pairs"):
        self.X = _as_features(X)
        m = self.X.shape[0]
        self.event, self.time = check_survival(event, time, m)
        if normalize not in SURVIVAL_NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {SURVIVAL_NORMALIZATIONS}, got "
                             f"{normalize!r}")
        self.normalize = normalize
        self.pairs = SurvivalPairs(self.time, self.event)
        self.n_pairs = int(self.pairs.n_pairs)
        if self.n_pairs == 0:
            raise ValueError("there are no comparable pairs: no observed event precedes "
                             "another time (every row censored, or all times tied)")
        self.s = 1.0 / self.n_pairs if normalize == "pairs" else 1.0
        self.scale = self.s * self.n_pairs
        self.dim = self.X.shape[1]
        self._coef = np.empty(m)

    def _loss(self, p, coef):
        return self.pairs.evaluate(p, self.s, coef, False)[0]

    def subsample(self, fraction, seed=0):
        """The same risk on a random ``fraction`` of the rows, for the solvers' warm
        start: (risk, factor), factor the scaling of regparam that makes the subset's
        objective estimate this one (N_sub / N for ``normalize="none"``, else 1), or
        None when the subset has no comparable pair. O(m + nnz of the subset)."""
        rng = np.random.default_rng(seed)
        k = max(2, int(round(fraction * self.m)))
        idx = np.sort(rng.choice(self.m, k, replace=False))
        try:
            sub = type(self)(self.X[idx], self.time[idx], self.event[idx],
                             normalize=self.normalize)
        except ValueError:
            return None
        factor = sub.n_pairs / self.n_pairs if self.normalize == "none" else 1.0
        return sub, factor


class SquaredSurvivalRankingRisk(SurvivalRankingRisk):
    """The squared pairwise hinge risk over Harrell's comparable pairs,

        R(w) = s sum_{(i, j) comparable} max(0, 1 - w^T x_i + w^T x_j)^2

    (parameters as :class:`SurvivalRankingRisk`), with the trust-region Newton oracle
    of J(w) = regparam / 2 ||w||^2 + R(w) (:meth:`newton_oracle`).

    Notes
    -----
    ``__call__`` O(m log m + nnz); a Hessian-vector product replays the sweeps of the
    last evaluation on X v, O(m log m + nnz) without sorting.
    """

    def _loss(self, p, coef):
        return self.pairs.evaluate(p, self.s, coef, True)[0]

    def evaluate_predictions(self, p):
        """(loss, coef, active) at predictions p: coef the gradient with respect to p,
        ``active`` the :class:`~rlscore._ext._survsvm.SurvivalActiveSet`. O(m log m)."""
        coef = np.empty(self.m)
        loss, active = self.pairs.evaluate(p, self.s, coef, True)
        return loss, coef, active

    def zero_gradient(self):
        """The gradient of R at w = 0: every pair active with r = 1, so
        dR/dp_k = 2 s (in_degree_k - out_degree_k). O(m + nnz)."""
        coef = 2.0 * self.s * (self.pairs.in_degree - self.pairs.out_degree)
        return np.asarray(self.X.T @ coef.astype(np.float64)).ravel()

    def newton_oracle(self, regparam):
        """The :func:`rlscore.core.optim.tron` oracle of
        J(w) = regparam / 2 ||w||^2 + R(w)."""
        return _SquaredHingeObjective(self, regparam)
