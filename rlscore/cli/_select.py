"""Model selection of the command: which cross-validation runs for a learner, and the
two cross-validators the learners do not have themselves.

Every grid loop is :func:`rlscore.core.selection.grid_search`; the learners' own
selection classes (leave-one-out, leave-pair-out, K-fold without qids, QueryRankRLS's
leave-query-out) are called where they apply (``LearnerSpec.cv``). What the command adds:

* :class:`PooledQueryCV`: folds of whole queries (``--cv kfold`` on a file with qids,
  ``--cv lqo`` for learners without a leave-query-out class). The hold-out predictions
  of every fold are pooled and the measure is computed per query over all queries of
  the file (each query predicted by the model trained without its fold), so a ranking
  measure is never pooled across queries.
* :class:`ValidationCV`: ``--valid FILE``, the measure of the validation file per query.

The hold-outs are exact shortcuts for learners with ``holdout(rows)`` (RLS, RankRLS);
other learners are retrained without each fold (:class:`RefitModel`).
"""

import sys
import types

import numpy as np

from rlscore.cli._base import DataError, UsageError

CV_NAMES = {"loo": "leave-one-out", "kfold": "K-fold", "lpo": "leave-pair-out",
            "lqo": "leave-query-out"}


def _undefined():
    from rlscore.measure import UndefinedPerformance
    return UndefinedPerformance


def _as_columns(P, n):
    P = np.asarray(P, dtype=np.float64)
    return P.reshape(n, -1)


class RefitModel:
    """``solve`` / ``holdout`` / ``predictor`` of a learner by retraining, for learners
    without an exact hold-out shortcut (RankSVM; QueryRankRLS on folds of several
    queries). ``holdout(rows)`` trains on the other rows at the current regparam.
    Nystrom basis vectors stay the same vectors in every retraining."""

    def __init__(self, spec, data, kernel, kp, basis):
        self.spec, self.data, self.kernel, self.kp, self.basis = spec, data, kernel, kp, basis
        self.Y = data.y
        self.regparam = None
        self._learner = None

    def solve(self, regparam):
        self.regparam = regparam
        self._learner = None

    @property
    def learner(self):
        if self._learner is None:
            self._learner = self.spec.train(self.data, self.regparam, self.kernel,
                                            self.kp, self.basis)
        return self._learner

    @property
    def predictor(self):
        return self.learner.predictor

    def holdout(self, rows):
        d = self.data
        keep = np.setdiff1d(np.arange(d.X.shape[0]), rows)
        sub = types.SimpleNamespace(
            X=d.X[keep], y=d.y[keep],
            qids=None if d.groups is None else d.groups.codes[keep])
        learner = self.spec.train(sub, self.regparam, self.kernel, self.kp, self.basis)
        return learner.predict(d.X[rows])


def _no_measure(Y, P):
    return 0.0


_no_measure.iserror = False


class PooledQueryCV:
    """Folds of whole queries, hold-out predictions pooled, the measure per query over
    every query (see the module docstring). RLScore's cross-validator protocol
    (``rls``, ``measure``, ``cv(regparam)``) for :func:`grid_search`.

    O(sum over folds of one hold-out) per regparam, plus the measure, O(m log m).
    """

    def __init__(self, model, measure, folds, y, groups):
        from rlscore.core.selection import NfoldCV
        self.rls = model
        self.measure = measure
        self.folds = [np.asarray(f, dtype=np.intp) for f in folds]
        self.y = y
        self.groups = groups
        # the fold loop is NfoldCV's; only its hold-out predictions are used here
        self._folds_cv = NfoldCV(model, _no_measure, self.folds)

    def cv(self, regparam):
        m = self.y.shape[0]
        _, preds = self._folds_cv.cv(regparam)
        P = None
        for fold, Pf in zip(self.folds, preds):
            Pf = _as_columns(Pf, fold.size)
            if P is None:
                P = np.zeros((m, Pf.shape[1]))
            P[fold] = Pf
        P = P[:, 0] if P.shape[1] == 1 else P
        try:
            return float(self.measure(self.y, P, self.groups)), P
        except _undefined():
            return np.nan, P


class ValidationCV:
    """The measure of a validation file (per query when it has qids) for the model at
    each regparam. O(one prediction of the file) per regparam, after ``solve``."""

    def __init__(self, model, measure, rows, kernel_name, gamma):
        self.rls = model
        self.measure = measure
        self.rows = rows
        self.kernel_name, self.gamma = kernel_name, gamma

    def cv(self, regparam):
        from rlscore.cli._data import predict_projected
        P = predict_projected(self.rls.predictor, self.rows.X, self.rows.unseen,
                              self.kernel_name, self.gamma)
        try:
            return float(self.measure(self.rows.y, P, self.rows.groups)), P
        except _undefined():
            return np.nan, P


def _grid_search(cv, grid):
    from rlscore.core.selection import grid_search
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)       # NaN rows: reported below
        perfs, _, best = grid_search(cv, grid)
    if np.all(np.isnan(perfs)):
        raise DataError("the measure is undefined at every regparam (e.g. no query has "
                        "two different labels)")
    model = cv.rls
    return types.SimpleNamespace(regparam=best, cv_performances=np.asarray(perfs),
                                 predictor=model.predictor, learner=model)


def _model(spec, data, grid, kernel, kp, basis, need):
    """A model with ``solve`` and the hold-out or prediction that ``need`` asks for."""
    fast = spec.holdout if need == "holdout" else spec.solve
    if fast:
        return spec.train(data, grid[0], kernel, kp, basis)
    return RefitModel(spec, data, kernel, kp, basis)


def supported_cvs(spec, has_qids):
    names = set(spec.cv)
    if has_qids:
        names |= {"kfold", "lqo"}
    return sorted(names)


def select(args, data, spec, measure, grid, kernel, kp, basis):
    """Run the selection ``args`` asks for; returns an object with ``regparam``,
    ``cv_performances`` and ``predictor`` (and the chosen CV's name)."""
    valid = getattr(args, "valid", None)
    if valid is not None:
        from rlscore.cli._data import read_for_model
        rows = read_for_model(valid, data.feature_indices, data.n_file_features,
                              data.zero_based, getattr(args, "ignore_extra_features", False))
        model = _model(spec, data, grid, kernel, kp, basis, "solve")
        sel = _grid_search(ValidationCV(model, measure, rows, kernel, kp.get("gamma")),
                           grid)
        sel.cv_name = "valid"
        return sel
    cv = args.cv
    has_qids = data.groups is not None
    if cv == "lqo" and not has_qids:
        raise DataError(f"{args.train}: --cv lqo needs qid: fields in the training file")
    if cv not in supported_cvs(spec, has_qids):
        extra = "" if has_qids else " (K-fold by query and lqo need qid: fields)"
        raise UsageError(f"--learner {spec.name} supports --cv "
                         f"{', '.join(supported_cvs(spec, has_qids))}, not {cv}{extra}")
    if cv == "lpo" and measure.kind not in ("cindex", "auc"):
        raise UsageError("--cv lpo estimates the AUC / c-index; --measure must be auc or "
                         "cindex")
    if cv in spec.cv and not (cv == "kfold" and has_qids):
        sel = spec.cv[cv](data, grid, kernel, kp, basis, measure, args)
    else:
        if cv == "kfold":
            try:
                folds = data.groups.folds(args.folds, args.seed)
            except ValueError as exc:
                raise UsageError(f"--folds {args.folds}: {exc}") from None
        else:
            folds = data.groups.split()
        model = _model(spec, data, grid, kernel, kp, basis, "holdout")
        sel = _grid_search(PooledQueryCV(model, measure, folds, data.y, data.groups),
                           grid)
    sel.cv_name = cv
    return sel


def example_folds(m, k, seed):
    """K random folds of examples (files without qids)."""
    from rlscore.utilities.cross_validation import random_folds
    if k > m:
        raise UsageError(f"--folds {k} is more than the {m} examples")
    return random_folds(m, k, seed=seed)


def note(text):
    """A one-line note on stderr (what the command chose for the user)."""
    print(f"rlscore: {text}", file=sys.stderr)
