"""Model selection of the command: which cross-validation runs for a learner.

Every cross-validator and the grid loop are :mod:`rlscore.core.selection`'s; this
module only chooses among them and adapts the command's data to them:

* the learners' own selection classes (leave-one-out, leave-pair-out, K-fold without
  qids, QueryRankRLS's leave-query-out) where they apply (``LearnerSpec.cv``);
* on a file with qids, leave-one-out and leave-pair-out per query: the learner's
  leave-one-out predictions scored within each query
  (:class:`rlscore.core.selection.LOOCV` with groups), the pairs within each query
  held out (:class:`rlscore.core.selection.QueryLPOCV`), averaged over queries;
* :class:`rlscore.core.selection.PooledQueryCV` for ``--cv kfold`` on a file with qids
  and ``--cv lqo`` for learners without a leave-query-out class: folds of whole
  queries, the hold-out predictions pooled and the measure computed per query over all
  queries of the file, so a ranking measure is never pooled across queries;
* :class:`rlscore.core.selection.ValidationCV` for ``--valid FILE``: the measure of the
  validation file, per query when it has qids.

The hold-outs are exact shortcuts for learners with ``holdout(rows)`` (RLS, RankRLS);
other learners are retrained without each fold
(:class:`rlscore.core.selection.RefitModel`).
"""

import sys
import types

import numpy as np

from rlscore.cli._base import DataError, UsageError

CV_NAMES = {"loo": "leave-one-out", "kfold": "K-fold", "lpo": "leave-pair-out",
            "lqo": "leave-query-out"}


def _grid_search(cv, grid):
    import warnings

    from rlscore.core.selection import grid_search
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)       # NaN rows: shown as nan
        try:
            perfs, _, best = grid_search(cv, grid)
        except ValueError as exc:
            if "undefined (NaN)" not in str(exc):
                raise
            raise DataError("the measure is undefined at every regparam (e.g. no query "
                            "has two different labels)") from None
    model = cv.rls
    return types.SimpleNamespace(regparam=best, cv_performances=np.asarray(perfs),
                                 predictor=model.predictor, learner=model)


def _model(spec, data, grid, kernel, kp, basis, need):
    """A model with ``solve`` and the hold-out or prediction that ``need`` asks for:
    the learner itself where it has the shortcut, else a
    :class:`~rlscore.core.selection.RefitModel` retraining it (on the rows given, with
    their qids; Nystrom basis vectors stay the same vectors in every retraining)."""
    from rlscore.core.selection import RefitModel
    fast = spec.holdout if need == "holdout" else spec.solve
    if fast:
        return spec.train(data, grid[0], kernel, kp, basis)

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
    """Run the selection ``args`` asks for; returns an object with ``regparam``,
    ``cv_performances`` and ``predictor`` (and the chosen CV's name)."""
    valid = getattr(args, "valid", None)
    if valid is not None:
        from rlscore.cli._data import predict_projected, read_for_model
        from rlscore.core.selection import ValidationCV
        rows = read_for_model(valid, data.feature_indices, data.n_file_features,
                              data.zero_based, getattr(args, "ignore_extra_features", False),
                              getattr(args, "query_norm", None))
        model = _model(spec, data, grid, kernel, kp, basis, "solve")

        def predict(predictor, X):
            return predict_projected(predictor, X, rows.unseen, kernel, kp.get("gamma"))
        sel = _grid_search(ValidationCV(model, measure, rows.X, rows.y, rows.groups,
                                        predict), grid)
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
        from rlscore.measure import UndefinedPerformance
        try:
            if has_qids and cv in ("loo", "lpo"):
                sel = _grid_search(_per_query_cv(cv, spec, data, grid, kernel, kp, basis,
                                                 measure), grid)
            else:
                sel = spec.cv[cv](data, grid, kernel, kp, basis, measure, args)
        except UndefinedPerformance as exc:
            raise DataError(f"{args.train}: the {cv} estimate of {measure.name} is "
                            f"undefined ({exc.value}; e.g. folds or queries of a single "
                            f"example, or all labels equal)") from None
    else:
        if cv == "kfold":
            try:
                folds = data.groups.folds(args.folds, args.seed)
            except ValueError as exc:
                raise UsageError(f"--folds {args.folds}: {exc}") from None
        else:
            folds = data.groups.split()
        from rlscore.core.selection import PooledQueryCV
        model = _model(spec, data, grid, kernel, kp, basis, "holdout")
        sel = _grid_search(PooledQueryCV(model, measure, data.groups, folds, data.y),
                           grid)
    sel.cv_name = cv
    return sel


def _per_query_cv(cv, spec, data, grid, kernel, kp, basis, measure):
    """Leave-one-out or leave-pair-out of a learner trained without the file's qids,
    scored per query (:class:`rlscore.core.selection.LOOCV` with groups: each query's
    leave-one-out predictions scored within the query; :class:`~rlscore.core.selection.
    QueryLPOCV`: the pairs within each query held out), averaged over queries."""
    from rlscore.core.selection import LOOCV, QueryLPOCV
    model = spec.train(data, grid[0], kernel, kp, basis)
    if cv == "loo":
        return LOOCV(model, measure, data.groups)
    return QueryLPOCV(model, data.groups)


def example_folds(m, k, seed):
    """K random folds of examples (files without qids)."""
    from rlscore.utilities.cross_validation import random_folds
    if k > m:
        raise UsageError(f"--folds {k} is more than the {m} examples")
    return random_folds(m, k, seed=seed)


def note(text):
    """A one-line note on stderr (what the command chose for the user)."""
    print(f"rlscore: {text}", file=sys.stderr)
