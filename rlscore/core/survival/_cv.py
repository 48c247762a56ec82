"""Cross-validation of survival rankers: the one rule every face scores hold-out risk
scores by.

Risk scores are "higher risk = earlier event". :class:`SurvivalCV` is a
:class:`rlscore.core.selection.CrossValidator`: :func:`rlscore.core.selection.
grid_search` re-solves its model at each regparam and asks :meth:`SurvivalCV.cv` for
the estimate. The rule (the same in the learners, the estimators and the command line):

* **K-fold** (any list of folds): the mean over the folds of each fold's own estimate,
  the measure of the fold's hold-out risk scores on the fold's own comparable pairs;
  folds without a comparable pair are skipped (as :class:`rlscore.core.selection.
  NfoldCV` skips folds whose measure is undefined). Risk scores of different folds
  come from different models and are never compared with each other.
* **Leave-one-out**: one row has no pair, so the measure of the pooled leave-one-out
  risk scores of all rows (as :class:`rlscore.core.selection.LOOCV`).

Measures (:func:`survival_measure`): ``"cindex"`` Harrell's C
(:func:`rlscore.measure.concordance_index_censored`), ``"uno"`` Uno's IPCW C
(:func:`rlscore.measure.concordance_index_ipcw`) with the censoring distribution
estimated once on all rows (it does not depend on the features or the model).
"""

import dataclasses

import numpy as np

from rlscore._validation import check_index_folds
from rlscore.measure import (UndefinedPerformance, concordance_index_censored,
                             concordance_index_ipcw)
from rlscore.measure.survival_measures import survival_outcomes

__all__ = ["SurvivalMeasure", "SURVIVAL_MEASURES", "survival_measure", "SurvivalCV"]

#: the measure names of the survival faces and what they mean
SURVIVAL_MEASURES = {"cindex": "Harrell's C", "uno": "Uno's IPCW C"}


@dataclasses.dataclass(frozen=True)
class SurvivalMeasure:
    """A concordance measure of risk scores on right-censored outcomes (larger is
    better): ``measure(event, time, risk)``; Uno's C also takes the outcomes of the
    rows its censoring distribution is estimated on (``censoring=(event, time)``,
    default the scored rows). O(m log m)."""

    name: str
    iserror: bool = False

    @property
    def __name__(self):           # the grid search's progress names the measure
        return self.name

    def __call__(self, event, time, risk, censoring=None):
        if self.name == "cindex":
            return concordance_index_censored(event, time, risk)[0]
        train = (event, time) if censoring is None else censoring
        return concordance_index_ipcw(train, (event, time), risk)[0]


def survival_measure(measure):
    """The :class:`SurvivalMeasure` of a name of :data:`SURVIVAL_MEASURES` (or the
    measure itself); ValueError naming the choices otherwise."""
    if isinstance(measure, SurvivalMeasure):
        return measure
    if not isinstance(measure, str) or measure.strip().lower() not in SURVIVAL_MEASURES:
        raise ValueError(f"the survival measure must be one of "
                         f"{', '.join(SURVIVAL_MEASURES)} (Harrell's C, Uno's IPCW C), "
                         f"got {measure!r}")
    return SurvivalMeasure(measure.strip().lower())


def _comparable(event, time):
    """True when the outcomes hold a comparable pair. O(m log m)."""
    from rlscore.core.survival._graph import ComparabilityGraph
    return ComparabilityGraph(event, time).n_edges > 0


class SurvivalCV:
    """Exact K-fold or leave-one-out selection of a survival ranker (module docstring).

    Parameters
    ----------
    model : :class:`rlscore.core.survival.SurvivalRankRLSModel`, or any model with
        ``solve(regparam)`` and ``holdout(rows)`` / ``holdout_rows(rows)`` giving the
        risk scores of ``rows`` by the model trained without them (e.g.
        :class:`rlscore.core.selection.RefitModel`, then ``outcomes`` is needed).
    folds : "loo" (default) or a list of index arrays (folds may overlap; each is one
        hold-out set).
    measure : "cindex" (default), "uno" or a :class:`SurvivalMeasure`.
    outcomes : (event, time), or a structured array (event, time); default the
        model's ``Y``.

    Attributes
    ----------
    rls : the model (the grid search re-solves it).
    measure : SurvivalMeasure
    folds : list of intp arrays, or None for leave-one-out.

    Raises
    ------
    ValueError
        Bad folds; no fold holding a comparable pair (K-fold).

    Notes
    -----
    ``prepare(grid)`` computes the hold-out risk scores of the whole grid at once when
    the model offers it (survival RankRLS: ``holdout(folds, grid)`` /
    ``leave_one_out(grid)``, one pass for every fold and regparam); then O(m log m) per
    regparam for the measure.
    """

    def __init__(self, model, folds="loo", measure="cindex", outcomes=None):
        self.rls = model
        self.measure = survival_measure(measure)
        self.event, self.time = survival_outcomes(model.Y if outcomes is None
                                                  else outcomes, "outcomes")
        m = self.time.size
        if isinstance(folds, str):
            if folds != "loo":
                raise ValueError(f"folds must be 'loo' or a list of index arrays, got "
                                 f"{folds!r}")
            self.folds = None
        else:
            self.folds = check_index_folds(folds, m, "folds", disjoint=False)
            if len(self.folds) == 0:
                raise ValueError("folds is empty")
            self._scored = [_comparable(self.event[h], self.time[h]) for h in self.folds]
            if not any(self._scored):
                raise ValueError("no fold holds a comparable pair (an observed event "
                                 "before another time of the fold): the K-fold "
                                 "estimate is undefined; use fewer, larger folds")
        self._path = {}

    def prepare(self, grid):
        """The hold-out risk scores of every grid value at once, where the model
        batches them (survival RankRLS); :meth:`cv` then reads them."""
        self._path = {}
        grid = [float(v) for v in grid]
        if self.folds is None and hasattr(self.rls, "leave_one_out_path"):
            self._path = dict(zip(grid, self.rls.leave_one_out_path(grid)))
        elif self.folds is not None and hasattr(self.rls, "holdout_path"):
            self._path = dict(zip(grid, self.rls.holdout_path(self.folds, grid)))

    def predictions(self):
        """The hold-out risk scores at the model's current regparam: (m,) for
        leave-one-out, else a list with one (size(fold),) array per fold."""
        if self.folds is None:
            return np.ravel(self.rls.leave_one_out())
        holdout = getattr(self.rls, "holdout_rows", None) or self.rls.holdout
        return [np.ravel(holdout(h)) for h in self.folds]

    def _score(self, rows, risk):
        censoring = (self.event, self.time) if self.measure.name == "uno" else None
        ev, t = (self.event, self.time) if rows is None else (self.event[rows],
                                                               self.time[rows])
        return float(self.measure(ev, t, risk, censoring))

    def cv(self, regparam):
        """(estimate, hold-out risk scores) at ``regparam`` (the model solved
        there)."""
        preds = self._path.pop(float(regparam), None)
        if preds is None:
            preds = self.predictions()
        if self.folds is None:
            return self._score(None, preds), preds
        perfs = [self._score(h, p) for h, p, ok in zip(self.folds, preds, self._scored)
                 if ok]
        if not perfs:           # pragma: no cover - refused in __init__
            raise UndefinedPerformance("no fold holds a comparable pair")
        return float(np.mean(perfs)), preds
