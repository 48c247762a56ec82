"""Model selection of the command: which cross-validation runs for a learner.

Every cross-validator and the grid loop are :mod:`rlscore.core.selection`'s; this
module only chooses among them and adapts the command's data to them:

* the learners' own selection classes (leave-one-out, leave-pair-out, K-fold without
  qids, QueryRankRLS's leave-query-out) where they apply (``LearnerSpec.cv``);
* on a file with qids, leave-one-out and leave-pair-out per query: the learner's
  leave-one-out predictions scored within each query
  (:class:`rlscore.core.selection.LOOCV` with groups), the pairs within each query
  held out (:class:`rlscore.core.selection.QueryLPOCV`), averaged over queries;
* ``--cv kfold`` on a file with qids: :class:`rlscore.core.selection.NfoldCV` over
  the folds of whole queries of ``QueryGroups.folds(--folds, --seed)``, each fold
  scored per query, the mean over the folds (K-fold by query as ``KfoldQueryRankRLS``
  and ``RankRLSCV(cv=k)`` compute it); ``--cv lqo`` for learners without a
  leave-query-out class: :class:`rlscore.core.selection.PooledQueryCV` with one fold
  per query (each query scored on the model trained without it, the mean over the
  queries), so a ranking measure is never pooled across queries;
* :class:`rlscore.core.selection.ValidationCV` for ``--valid FILE``: the measure of the
  validation file, per query when it has qids.

The hold-outs are exact shortcuts for learners with ``holdout(rows)`` (RLS, RankRLS);
other learners are retrained without each fold
(:class:`rlscore.core.selection.RefitModel`).
"""

import sys
import time
import types

import numpy as np

from rlscore.cli._base import DataError, Progress, UsageError

CV_NAMES = {"loo": "leave-one-out", "kfold": "K-fold", "lpo": "leave-pair-out",
            "lqo": "leave-query-out"}


_UNDEFINED = ("the measure is undefined at every regparam (e.g. no query has two "
              "different labels)")


def _grid_search(cv, grid, cv_name):
    """The one grid search (:func:`rlscore.core.selection.grid_search`) on the
    cross-validator ``cv``: its :class:`~rlscore.core.selection.SelectionResult`, named
    ``cv_name``; every grid value undefined is a DataError."""
    import warnings

    from rlscore.core.selection import grid_search
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)       # NaN rows: shown as nan
        try:
            return grid_search(cv, grid, cv_name=cv_name)
        except ValueError as exc:
            if "undefined (NaN)" not in str(exc):
                raise
            raise DataError(_UNDEFINED) from None


def chosen_model(selection):
    """The model a selection chose, trained on all rows at its regparam: the model
    re-solved by the grid search, or for a model retrained per fold
    (:class:`~rlscore.core.selection.RefitModel`) its training on all rows (what a
    model file records)."""
    from rlscore.core.selection import RefitModel
    model = selection.model
    return model.learner if isinstance(model, RefitModel) else model


def _model(spec, data, grid, kernel, kp, basis, need):
    """A model with ``solve`` and the hold-out or prediction that ``need`` asks for:
    the learner itself where it has the shortcut, else a
    :class:`~rlscore.core.selection.RefitModel` retraining it (on the rows given, with
    their qids; Nystrom basis vectors stay the same vectors in every retraining)."""
    from rlscore.core.selection import RefitModel
    fast = spec.holdout if need == "holdout" else spec.solve
    if fast:
        return spec.train(data, grid.checked[0], kernel, kp, basis)

    def train(rows, regparam):
        sub = data if rows is None else types.SimpleNamespace(
            X=data.X[rows], y=data.y[rows],
            qids=None if data.groups is None else data.groups.codes[rows])
        return spec.train(sub, regparam, kernel, kp, basis)
    return RefitModel(train, data.X, data.y)


def supported_cvs(spec, has_qids):
    names = set(spec.cv)
    if has_qids:
        names |= {"kfold", "lqo"}
    return sorted(names)


def select(args, data, spec, measure, grid, kernel, kp, basis):
    """Run the selection ``args`` asks for through the one grid search; returns its
    :class:`rlscore.core.selection.SelectionResult` (``best``, ``performances``,
    ``model`` re-solved at the best value, ``cv_name``)."""
    valid = getattr(args, "valid", None)
    if valid is not None:
        from rlscore.cli._data import predict_projected, read_for_model
        from rlscore.core.selection import ValidationCV
        rows = read_for_model(valid, data.feature_indices, data.n_file_features,
                              data.zero_based, getattr(args, "ignore_extra_features", False),
                              getattr(args, "query_norm", None),
                              None if data.table is None else data.table.for_model_file())
        model = _model(spec, data, grid, kernel, kp, basis, "solve")

        def predict(predictor, X):
            return predict_projected(predictor, X, rows.unseen, kernel, kp.get("gamma"))
        return _grid_search(ValidationCV(model, measure, rows.X, rows.y, rows.groups,
                                         predict), grid, "valid")
    cv = args.cv                 # checked by the command (lqo needs qids: a UsageError)
    has_qids = data.groups is not None
    if cv not in supported_cvs(spec, has_qids):
        extra = "" if has_qids else " (K-fold by query and lqo need qid: fields)"
        raise UsageError(f"--learner {spec.name} supports --cv "
                         f"{', '.join(supported_cvs(spec, has_qids))}, not {cv}{extra}")
    if cv == "lpo" and measure.kind not in ("cindex", "auc"):
        raise UsageError("--cv lpo estimates the AUC / c-index; --measure must be auc or "
                         "cindex")
    from rlscore.measure import UndefinedPerformance
    if cv in spec.cv and not (cv == "kfold" and has_qids):
        try:
            if has_qids and cv in ("loo", "lpo"):
                crossvalidator = _per_query_cv(cv, spec, data, grid, kernel, kp, basis,
                                               measure)
            else:
                crossvalidator = spec.cv[cv](data, grid, kernel, kp, basis, measure, args)
            return _grid_search(crossvalidator, grid, cv)
        except UndefinedPerformance as exc:
            raise DataError(f"{args.train}: the {cv} estimate of {measure.name} is "
                            f"undefined ({exc.value}; e.g. folds or queries of a single "
                            f"example, or all labels equal)") from None
    crossvalidator = _query_cv(cv, args, spec, data, grid, (kernel, kp, basis), measure)
    try:
        return _grid_search(crossvalidator, grid, cv)
    except UndefinedPerformance:       # no fold has a query with a defined measure
        raise DataError(_UNDEFINED) from None


def _query_cv(cv, args, spec, data, grid, setup, measure):
    """``--cv kfold`` or ``lqo`` on a file with qids: K-fold by query as every face
    computes it (:class:`rlscore.core.selection.NfoldCV` over
    ``QueryGroups.folds(--folds, --seed)``: the mean over the folds of each fold's
    per-query mean, a fold without a scored query skipped), or one fold per query
    (:class:`rlscore.core.selection.PooledQueryCV`: the mean over the queries).
    ``setup`` is the (kernel, kernel parameters, basis) of the command."""
    from rlscore.core.selection import NfoldCV, PooledQueryCV
    if cv == "lqo":
        model = _model(spec, data, grid, *setup, "holdout")
        _report_refits(model, spec, cv, data.groups.n_groups, grid)
        return PooledQueryCV(model, measure, data.groups, None, data.y)
    try:
        folds = data.groups.folds(args.folds, args.seed)
    except ValueError as exc:
        raise UsageError(f"--folds {args.folds}: {exc}") from None
    model = _model(spec, data, grid, *setup, "holdout")
    _report_refits(model, spec, cv, len(folds), grid)
    return NfoldCV(model, measure, folds, data.groups)


def _per_query_cv(cv, spec, data, grid, kernel, kp, basis, measure):
    """Leave-one-out or leave-pair-out of a learner trained without the file's qids,
    scored per query (:class:`rlscore.core.selection.LOOCV` with groups: each query's
    leave-one-out predictions scored within the query; :class:`~rlscore.core.selection.
    QueryLPOCV`: the pairs within each query held out), averaged over queries."""
    from rlscore.core.selection import LOOCV, QueryLPOCV
    model = spec.train(data, grid.checked[0], kernel, kp, basis)
    if cv == "loo":
        return LOOCV(model, measure, data.groups)
    return QueryLPOCV(model, data.groups)


def _report_refits(model, spec, cv, n_folds, grid):
    """A learner without an exact hold-out shortcut is retrained without each fold
    (:class:`rlscore.core.selection.RefitModel`): a note on the cost before the work
    starts (the number of refits, then their projected time from the first), and a
    progress count of the folds left out at each regparam
    ("regparam 0.5 (1 of 21): queries left out: 7/300"; shown on a terminal or with
    --progress)."""
    from rlscore.core.selection import RefitModel
    if not isinstance(model, RefitModel):
        return
    unit, units = ("query", "queries") if cv == "lqo" else ("fold", "folds")
    g = len(grid)
    note(f"--learner {spec.name} has no exact hold-out shortcut: --cv {cv} retrains it "
         f"without each of the {n_folds} {units} at each of the {g} regparams, "
         f"{n_folds * g} refits (then one on all rows)")
    train = model.train
    state = {"calls": 0, "progress": None}

    def counted(rows, regparam):
        if rows is None:                      # the model on all rows: not a hold-out
            return train(rows, regparam)
        if state["calls"] % n_folds == 0:
            j = state["calls"] // n_folds + 1
            state["progress"] = Progress(f"regparam {regparam:g} ({j} of {g}): {units} "
                                         f"left out", n_folds)
        t0 = time.perf_counter()
        out = train(rows, regparam)
        state["calls"] += 1
        if state["calls"] == 1 and n_folds * g > 1:
            secs = time.perf_counter() - t0
            note(f"the first refit took {_duration(secs)}: the {n_folds * g} take about "
                 f"{_duration(secs * n_folds * g)}")
        state["progress"].step()
        if state["calls"] % n_folds == 0:
            state["progress"].close()
        return out
    model.train = counted


def _duration(secs):
    """A duration for a note: seconds, minutes, hours or days, 2 significant digits."""
    for unit, size in (("days", 86400.0), ("hours", 3600.0), ("min", 60.0)):
        if secs >= size:
            return f"{secs / size:.2g} {unit}"
    return f"{secs:.2g} s"


def example_folds(m, k, seed):
    """K random folds of examples (files without qids)."""
    from rlscore.utilities.cross_validation import random_folds
    if k > m:
        raise UsageError(f"--folds {k} is more than the {m} examples")
    return random_folds(m, k, seed=seed)


def note(text):
    """A one-line note on stderr (what the command chose for the user); none under
    ``-q`` (:data:`rlscore.cli._base.QUIET`)."""
    from rlscore.cli import _base
    if not _base.QUIET:
        print(f"rlscore: {text}", file=sys.stderr)


def check_qids(args, has_qids, spec):
    """Refuse a file without qids for a learner that needs them; on a file with qids
    and the default learner (``args.learner_default``), a note that rls trains
    pointwise regression and which learners rank."""
    if spec.needs_qids and not has_qids:
        raise DataError(f"{args.train}: --learner {spec.name} needs qid: fields (query "
                        f"ids) in the training file")
    if has_qids and getattr(args, "learner_default", False):
        note(f"{args.train} has qid: fields, and --learner rls (the default) trains "
             f"pointwise regression of the labels, the queries only grouping the "
             f"cross-validation folds and the per-query measures; to rank within "
             f"queries choose --learner query-rankrls, ranksvm or ranksvm-squared")
