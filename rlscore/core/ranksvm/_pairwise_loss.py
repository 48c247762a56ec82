"""The pairwise ranking losses of RankSVM as functions of the predictions alone.

:class:`rlscore.core.ranksvm.RankingRisk` and :class:`~rlscore.core.ranksvm.SquaredRankingRisk`
hold the features X and evaluate R(w) = loss(X w). When X is split over machines (see
:mod:`rlscore.distributed`) the products X w and X^T coef are computed where the rows
live, and only the loss in prediction space is needed in one place: for predictions p
(m,) the weighted pairwise (squared) hinge, its gradient coef with respect to p, and,
for the squared hinge, the generalized Hessian with respect to p applied to a vector
(2 sum_q s_q Lap_q z, Lap_q the Laplacian of the active-pair graph of query q; Lee &
Lin, Neural Computation 26(4), 2014). This module is that object; it runs the same
pair structure and compiled counting kernel as the single-machine risks, so its
numbers are theirs bit for bit on the same p.
"""

import numpy as np

from rlscore.core.ranksvm._risk import (LOSSES, NORMALIZATIONS, pair_structure,
                                        check_utilities, pair_weights)

__all__ = ["PairwiseRankingLoss"]


class PairwiseRankingLoss:
    """The normalized pairwise hinge or squared hinge of scored (query-structured)
    data as a function of the predictions.

    Parameters
    ----------
    y : array-like (m,), utilities
    qids : sequence (m,) of query ids, or None for one global ranking
    normalize : "pairs", "query" or "none" (see :mod:`rlscore.core.ranksvm`)
    loss : "hinge" or "squared_hinge"
    n_threads : threads of the counting pass

    Attributes
    ----------
    m, n_pairs, query_pairs, weights, scale (R(0)), n_ranked (queries with pairs)

    Raises
    ------
    ValueError
        No pairs, bad utilities, ids or names.

    Notes
    -----
    Construction O(m log m) (one sort by (query, utility)); :meth:`evaluate` O(m log m)
    (a sort of p and the Fenwick sweeps); :meth:`hessian_coef` O(m log m) without a
    sort. Memory O(m) (about 60 bytes per example, plus 40 for an active set).
    """

    def __init__(self, y, qids=None, normalize="pairs", loss="hinge", n_threads=1):
        if normalize not in NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {NORMALIZATIONS}, got "
                             f"{normalize!r}")
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
        self.y = check_utilities(y)
        self.m = self.y.shape[0]
        self.normalize, self.loss, self.n_threads = normalize, loss, int(n_threads)
        _, _, self.pairs = pair_structure(self.y, qids, self.m)
        self.n_pairs = int(self.pairs.n_pairs)
        self.query_pairs = np.asarray(self.pairs.query_pairs)
        self.n_ranked = int(np.count_nonzero(self.query_pairs))
        self.weights = pair_weights(self.query_pairs, normalize)
        self.scale = float(self.weights @ self.query_pairs.astype(np.float64))

    def _p(self, p):
        p = np.ascontiguousarray(p, dtype=np.float64).ravel()
        if p.shape[0] != self.m:
            raise ValueError(f"p must have {self.m} entries, got {p.shape[0]}")
        return p

    def evaluate(self, p):
        """(loss, coef, active) at predictions p: coef = d loss / d p (a fresh array);
        ``active`` is the squared hinge's active set for :meth:`hessian_coef` (None for
        the hinge, whose coef is a subgradient). O(m log m)."""
        p = self._p(p)
        coef = np.empty(self.m)
        if self.loss == "hinge":
            loss = self.pairs.hinge(p, self.weights, coef, self.n_threads)
            return float(loss), coef, None
        loss, active = self.pairs.squared_hinge(p, self.weights, coef, self.n_threads)
        return float(loss), coef, active

    def hessian_coef(self, active, z):
        """2 sum_q s_q Lap_q z for the active set of an :meth:`evaluate` of the squared
        hinge. O(m log m)."""
        return active.hessian_coef(self._p(z), None, self.n_threads)
