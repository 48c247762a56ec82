"""Model selection over a regularization grid: the cross-validators of RLScore
(leave-one-out, K-fold, leave-pair-out) and the pair enumeration of LPO.

A cross-validator holds a model (``rls``: any object with ``solve(lambda)``, ``Y`` and
the shortcut it needs, returning 2-D arrays) and a ``measure`` (with ``iserror``);
``cv(lambda)`` returns ``(performance, predictions)`` for the model's current lambda.
"""

import numpy as np

# one implementation of the grid loop, shared with RLScore-style user code
from rlscore.utilities.cross_validation import grid_search

__all__ = ["DEFAULT_REGPARAMS", "LOOCV", "NfoldCV", "LPOCV", "grid_search",
           "lpo_pairs", "lpo_ranking_accuracy"]

DEFAULT_REGPARAMS = [2 ** x for x in range(-15, 16)]


def _undefined():
    from rlscore.measure.measure_utilities import UndefinedPerformance
    return UndefinedPerformance


class LOOCV:
    """Leave-one-out: performance = measure(Y, loo predictions). O(m^2) per lambda
    (dual, after the decomposition) or O(m r) (primal). ``prepare(grid)`` computes the
    predictions of a whole grid at once when the model can batch them
    (``leave_one_out_path``); ``cv`` then reads them."""

    def __init__(self, rls, measure):
        self.rls = rls
        self.measure = measure
        self._path = {}

    def prepare(self, grid):
        if hasattr(self.rls, "leave_one_out_path"):
            grid = list(grid)
            self._path = dict(zip(map(float, grid), self.rls.leave_one_out_path(grid)))

    def cv(self, regparam):
        P = self._path.pop(float(regparam), None)
        if P is None:
            P = self.rls.leave_one_out()
        return self.measure(self.rls.Y, P), P


class NfoldCV:
    """K-fold with given folds: the unweighted mean of the per-fold performances of
    the hold-out predictions; folds whose measure is undefined are skipped."""

    def __init__(self, rls, measure, folds):
        if measure is None:
            from rlscore.measure import sqerror
            measure = sqerror
        self.rls = rls
        self.measure = measure
        self.folds = [np.asarray(f) for f in folds]
        if len(self.folds) == 0:
            raise ValueError("folds is empty")

    def cv(self, regparam):
        UndefinedPerformance = _undefined()
        perfs, preds = [], []
        for fold in self.folds:
            P = self.rls.holdout(fold)
            preds.append(P)
            try:
                perfs.append(self.measure(self.rls.Y[fold], P))
            except UndefinedPerformance:
                pass
        if not perfs:
            raise UndefinedPerformance("the measure is undefined on every fold")
        return float(np.mean(perfs)), preds


def lpo_pairs(y):
    """All pairs i < j with y_i != y_j (as two index arrays). O(m^2) memory."""
    y = np.asarray(y).ravel()
    i, j = np.triu_indices(y.size, k=1)
    keep = y[i] != y[j]
    return np.ascontiguousarray(i[keep]), np.ascontiguousarray(j[keep])


def lpo_ranking_accuracy(y_start, y_end, p_start, p_end):
    """Fraction of held-out pairs ordered as their labels (ties in predictions: 1/2)."""
    dy = np.sign(y_start - y_end)
    dp = np.sign(p_start - p_end)
    return float(np.mean(np.where(dp == 0, 0.5, (dy == dp).astype(np.float64))))


class LPOCV:
    """Leave-pair-out ranking accuracy (c-index / AUC estimate), averaged over
    outputs; for each output every pair with different labels is held out. The pairs
    are enumerated once (O(m^2) memory), the leave-pair-out predictions per lambda."""

    def __init__(self, rls, measure=None):
        from rlscore.measure import cindex
        self.rls = rls
        self.measure = cindex
        self._pairs = [lpo_pairs(self.rls.Y[:, c]) for c in range(self.rls.Y.shape[1])]

    def cv(self, regparam):
        UndefinedPerformance = _undefined()
        Y = self.rls.Y
        perfs = []
        for c, (s, e) in enumerate(self._pairs):
            if s.size == 0:
                raise UndefinedPerformance(f"all labels of output {c} are equal: no pairs")
            ps, pe = self.rls.leave_pair_out(s, e)
            perfs.append(lpo_ranking_accuracy(Y[s, c], Y[e, c], ps[:, c], pe[:, c]))
        return float(np.mean(perfs)), None
