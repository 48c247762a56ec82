"""The survival learners of the command: right-censored data from a CSV/TSV file.

``--learner survival-rankrls`` (:class:`rlscore.core.survival.SurvivalRankRLSModel`,
linear or kernel, on ``--basis N`` Nystrom centres when given; ``fit --solver pcg``:
:class:`rlscore.core.survival.PCGSurvivalRankRLSModel`, the kernel streamed by blocks,
for 10^5 - 10^6 rows) and ``survival-ranksvm`` (the linear survival RankSVM,
:func:`rlscore.core.survival.train_survival_ranksvm`) train on a CSV/TSV file whose
``--time-column`` holds the event or censoring times (>= 0) and ``--event-column`` 1
for an observed event, 0 for a censoring (those two are the file's label columns; the
model file records them, so ``evaluate`` finds them by name). Predictions are risk
scores: higher risk = earlier event.

``--cv kfold`` (``--folds``, ``--seed``: the folds of every learner of the command) and
``--cv loo`` (survival RankRLS) run :class:`rlscore.core.survival.SurvivalCV` through
the one grid search: exact hold-outs for survival RankRLS (the held-out rows' pairs
removed, no refit), refits without each fold for the RankSVM. The estimate is the rule
of every face: K-fold the mean over the folds of each fold's own Harrell's C (folds
without a comparable pair skipped), leave-one-out the C of the pooled risk scores.
``--measure cindex`` (default, Harrell's C) or ``uno`` (Uno's IPCW C, the censoring
distribution estimated on the file's rows). ``evaluate`` reports them on a labelled
file.
"""

import dataclasses
import json
import os
import sys

import numpy as np

from rlscore.cli._apply import _cmd_evaluate, _model_and_rows
from rlscore.cli._base import (LEARNERS, DataError, LearnerSpec, Progress, UsageError,
                               _fmt, basis_vectors, register_learner)
from rlscore.cli._commands import (_basis, _check_plot, _cmd_cv, _cmd_fit, _kernel_args,
                                   _learner, _table, report_selection)
from rlscore.cli._options import _usage
from rlscore.cli._data import input_table, load_training_data, read_file, survival_columns
from rlscore.cli._select import CV_NAMES, _grid_search, chosen_model, example_folds, note
from rlscore.cli._stream import _streaming_options, compute_plan

__all__ = ["cmd_fit", "cmd_cv", "cmd_evaluate"]

#: the cross-validations of each survival learner
_CVS = {"survival-rankrls": ("kfold", "loo"), "survival-ranksvm": ("kfold",)}


@dataclasses.dataclass
class SurvivalData:
    """A survival training file: features (CSR, the used columns), outcomes."""
    X: object
    time: np.ndarray
    event: np.ndarray
    feature_indices: np.ndarray
    n_file_features: int
    table: object


def _outcomes(path, y, columns):
    """(event bool, time) of the (time, event) label columns; DataError naming the
    column for NaN or negative times or events other than 0/1."""
    from rlscore._validation import check_survival
    try:
        return check_survival(y[:, 1], y[:, 0], event_name=f"the event column "
                              f"{columns[1]!r}", time_name=f"the time column "
                              f"{columns[0]!r}")
    except ValueError as exc:
        raise DataError(f"{path}: {exc}") from None


def _load(args, table, columns):
    """The training file as :class:`SurvivalData`."""
    try:
        data = load_training_data(args.train, table=table)
    except DataError as exc:
        for role, name in zip(("--time-column", "--event-column"), columns):
            text = f"no column named {name!r} (label column)"
            if text in str(exc):
                raise DataError(str(exc).replace(text, f"no column named {name!r} "
                                                       f"({role})")) from None
        raise
    if data.groups is not None:
        raise DataError(f"{args.train}: the file has a qid column; the survival learners "
                        f"rank all rows together (drop it, or name the features with "
                        f"--feature-columns)")
    event, time = _outcomes(args.train, data.y, columns)
    return SurvivalData(data.X, time, event, data.feature_indices, data.n_file_features,
                        data.table)


#: the options of a fit by preconditioned CG (survival RankRLS on --basis centres)
_PCG_OPTIONS = ("--solver pcg", "--block-size", "--float32", "--pcg-tol", "--pcg-maxiter")


def _refuse(args, spec, command):
    """The options of fit / cv that the survival learner ``spec`` does not take:
    survival RankRLS takes ``--basis`` (Nystrom centres, kept in every hold-out model:
    with ``--cv`` / ``--regparams`` say so with ``--keep-basis-in-cv``) and, in ``fit``
    at one ``--regparam``, the PCG options (:data:`_PCG_OPTIONS`)."""
    nystrom = spec.name == "survival-rankrls"
    selecting = args.cv is not None or getattr(args, "regparams", None) is not None
    given = [("--gamma learn", getattr(args, "gamma", None) == "learn"),
             ("--valid", getattr(args, "valid", None) is not None),
             ("--query-norm", getattr(args, "query_norm", None) is not None),
             ("--intervals", getattr(args, "intervals", None) is not None)]
    if not nystrom:
        given += [("--basis", getattr(args, "basis", None) is not None),
                  ("--basis-seed", getattr(args, "basis_seed", None) is not None),
                  ("--keep-basis-in-cv", getattr(args, "keep_basis_in_cv", False))]
    streaming = _streaming_options(args) if command == "fit" else []
    given += [(opt, True) for opt in streaming
              if not (nystrom and opt in _PCG_OPTIONS)]
    bad = [opt for opt, on in given if on]
    if bad:
        raise UsageError(f"{', '.join(bad)}: not an option of --learner {args.learner} "
                         f"(survival learners read the whole file; select regparam "
                         f"with --cv kfold or loo)")
    if not nystrom:
        return
    pcg = [opt for opt in streaming if opt in _PCG_OPTIONS]
    if pcg and getattr(args, "solver", None) != "pcg":
        raise UsageError(f"{' / '.join(pcg)} applies to --solver pcg")
    if pcg and getattr(args, "basis", None) is None:
        raise UsageError("--solver pcg trains survival RankRLS on Nystrom centres: add "
                         "--basis N")
    if pcg and selecting:
        raise UsageError("--solver pcg trains one --regparam without exact hold-outs "
                         "(no --regparams / --cv): select regparam with the direct "
                         "solver")
    if getattr(args, "basis", None) is not None and selecting and \
            not getattr(args, "keep_basis_in_cv", False):
        raise UsageError("survival cross-validation keeps the --basis vectors in every "
                         "hold-out model (the held-out rows' pairs leave, their centres "
                         "stay): add --keep-basis-in-cv to say so")


def _measure(text):
    """The selection measure of ``--measure`` (default Harrell's C)."""
    from rlscore.core.survival import survival_measure
    if text is None:
        return survival_measure("cindex")
    names = [s for s in text.split(",") if s.strip()]
    if len(names) != 1:
        raise UsageError("selection uses one --measure: cindex (Harrell's C) or uno "
                         "(Uno's IPCW C)")
    try:
        return survival_measure(names[0])
    except ValueError as exc:
        raise UsageError(f"--measure: {exc}") from None


def _selection(args, spec, data, kernel, kp, basis=None):
    """(SelectionResult, grid, measure) of ``--cv`` through the one grid search."""
    from rlscore.cli._options import parse_grid
    cv = args.cv
    if cv is None:
        cv = args.cv = "kfold"
        note(f"--cv not given: {CV_NAMES[cv]} ({cv}), the default of --learner "
             f"{spec.name}")
    if cv not in _CVS[spec.name]:
        raise UsageError(f"--learner {spec.name} supports --cv "
                         f"{', '.join(_CVS[spec.name])}, not {cv}")
    measure = _measure(args.measure)
    if args.regparams is not None:
        grid = _usage(parse_grid, args.regparams)
    else:
        note("--regparams not given: 2^-10..2^10 (21 values)")
        grid = _usage(parse_grid, "2^-10..2^10")
    try:
        with Progress(f"selecting among {len(grid)} regparams ({cv})"):
            crossvalidator = spec.cv[cv](data, grid, kernel, kp, basis, measure, args)
            return _grid_search(crossvalidator, grid, cv), grid, measure
    except (ValueError, ArithmeticError) as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(f"{args.train}: {exc}") from None


def _prepare(args, spec, command):
    """Checks and data of a survival fit / cv: (data, kernel, kernel params, basis,
    plan) -- ``basis`` the ``--basis`` centres or None, ``plan`` the ComputePlan of
    ``--solver pcg`` or None."""
    _refuse(args, spec, command)
    if args.folds < 2:
        raise UsageError(f"--folds must be at least 2, got {args.folds}")
    columns = survival_columns(args)
    if columns is None:
        raise UsageError(f"--learner {spec.name} trains on censored data: give "
                         f"--time-column NAME and --event-column NAME (a CSV/TSV file)")
    table = input_table(args, args.train)
    kernel, kp = _kernel_args(args, spec)
    if "bias" in kp:
        kp = {**kp, "bias": 0.0}       # no effect on a ranking (the RankRLS rule)
    data = _load(args, table, columns)
    basis, _ = _basis(args, data, kernel)
    plan = compute_plan(args) if getattr(args, "solver", None) == "pcg" else None
    return data, kernel, kp, basis, plan


def _survival_spec(args):
    """The survival learner ``--learner`` names (its ``--tol`` bound), or None for
    another learner (then UsageError for ``--time-column`` / ``--event-column``, which
    only the survival learners take)."""
    spec = LEARNERS.get(args.learner) if args.learner is not None else None
    if spec is None or not spec.censored:
        if survival_columns(args) is not None:
            raise UsageError(f"--time-column and --event-column are the outcome of "
                             f"the survival learners (--learner survival-rankrls or "
                             f"survival-ranksvm), not of --learner "
                             f"{args.learner or 'rls'}")
        return None
    return _learner(args)


def _survival_or_general(command, general):
    """``rlscore COMMAND``: a survival learner here (``_fit`` / ``_cv`` of this module),
    every other by ``general`` (:mod:`rlscore.cli._commands`)."""
    def run(args):
        spec = _survival_spec(args)
        if spec is None:
            return general(args)
        own = _fit if command == "fit" else _cv
        return own(args, spec, *_prepare(args, spec, command))
    run.__doc__ = (f"``rlscore {command}``: a survival learner here, every other in "
                   f":func:`rlscore.cli._commands.{general.__name__}`.")
    return run


cmd_fit = _survival_or_general("fit", _cmd_fit)
cmd_cv = _survival_or_general("cv", _cmd_cv)


def cmd_evaluate(args):
    """``rlscore evaluate``: a survival model or ``--predictions`` with survival
    columns here (:func:`survival_evaluate`), everything else in
    :func:`rlscore.cli._apply._cmd_evaluate`."""
    done = survival_evaluate(args)
    return _cmd_evaluate(args) if done is None else done


def _fit(args, spec, data, kernel, kp, basis, plan):
    from rlscore.cli._options import parse_regparam
    from rlscore.model_io import save_model
    info = {"train_file": os.path.basename(args.train),
            "n_examples": int(data.X.shape[0]),
            "n_used_features": int(data.feature_indices.size), "n_queries": None,
            "learner_option": spec.name, "kernel_option": args.kernel,
            "zero_based": False, "input": data.table.to_info(),
            "survival": {"time_column": data.table.layout.label_columns[0],
                         "event_column": data.table.layout.label_columns[1],
                         "n_events": int(data.event.sum())}}
    if args.regparams is not None or args.cv is not None:
        if args.regparam is not None:
            raise UsageError("give --regparam or --regparams, not both")
        sel, grid, measure = _selection(args, spec, data, kernel, kp, basis)
        learner = chosen_model(sel)
        info.update({"cv": sel.cv_name, "measure": measure.name,
                     "regparams": [float(g) for g in grid],
                     "cv_performances": sel.performances.tolist()})
        regparam = float(sel.best)
        if not args.quiet:
            print(_table(grid, sel.performances, measure.name, sel.best))
    else:
        regparam = 1.0 if args.regparam is None else _usage(parse_regparam, args.regparam)
        with Progress(f"training {spec.name}"):
            learner = _train(spec, data, regparam, (kernel, kp, basis, plan), args.train)
    info["regparam"] = regparam
    if basis is not None:
        info.update({"n_basis": int(args.basis),
                     "basis_seed": 0 if args.basis_seed is None else int(args.basis_seed),
                     "keep_basis_in_cv": bool(args.keep_basis_in_cv)})
    if plan is not None:
        info.update({"solver": "pcg", "float32": bool(getattr(args, "float32", False)),
                     "pcg_tol": plan.pcg_options.tol,
                     "pcg_maxiter": plan.pcg_options.maxiter,
                     "pcg_iterations": int(learner.solver_result.iterations)})
    if spec.tol is not None:
        info["tol"] = spec.solver_tol()
    save_model(learner, args.output, info, feature_indices=data.feature_indices,
               n_file_features=data.n_file_features)
    if not args.quiet:
        print(f"{spec.name} trained on {data.X.shape[0]} examples "
              f"({int(data.event.sum())} events), {data.feature_indices.size} features, "
              f"regparam {regparam:g}; model saved to {args.output}")
    return 0


def _train(spec, data, regparam, setup, path):
    """One training at ``regparam``; ``setup`` the (kernel, kernel params, basis, plan)
    of the command (``plan`` not None: survival RankRLS by PCG)."""
    kernel, kp, basis, plan = setup
    try:
        if plan is not None:
            from rlscore.core.survival import survival_rankrls_model
            return survival_rankrls_model(data.X, data.time, data.event, regparam,
                                          kernel, basis_vectors(basis), plan=plan, **kp)
        return spec.train(data, regparam, kernel, kp, basis)
    except ValueError as exc:
        raise DataError(f"{path}: {exc}") from None


def _cv(args, spec, data, kernel, kp, basis, plan):
    _check_plot(args)
    sel, _, measure = _selection(args, spec, data, kernel, kp, basis)
    return report_selection(
        args, spec, sel, measure, False,
        f"{spec.name}, {args.kernel} kernel, {sel.cv_name} cross-validation on "
        f"{data.X.shape[0]} examples ({int(data.event.sum())} events), "
        f"{measure.name} (higher is better)")


# ------------------------------------------------------------------------ evaluate

def survival_evaluate(args):
    """``rlscore evaluate`` of a survival model (its file records the time and event
    columns) or of ``--predictions`` with ``--time-column`` / ``--event-column``:
    Harrell's C (``cindex``, the default) and Uno's IPCW C (``uno``, the censoring
    distribution estimated on the evaluated rows), text or JSON. Returns the exit
    status, or None when the evaluation is not of survival data."""
    if args.predictions is None:
        if args.data is None:
            return None
        from rlscore.model_io import load_model
        _, meta = load_model(args.model, return_metadata=True)
        info = meta.get("info") or {}
        if "survival" not in info:
            if survival_columns(args) is not None:
                raise UsageError(f"{args.model} is not a survival model: "
                                 f"--time-column / --event-column do not apply")
            return None
        columns = survival_columns(args) or (info["survival"]["time_column"],
                                             info["survival"]["event_column"])
        P, rows = _model_and_rows(args)
        y = rows.y
    else:
        columns = survival_columns(args)
        if columns is None:
            return None
        P, y = _prediction_file(args)
    if args.per_query:
        raise UsageError("--per-query: survival data have no queries")
    from rlscore.core.survival import survival_measure
    names = [s for s in (args.measure or "cindex").split(",") if s.strip()]
    try:
        measures = list(dict.fromkeys(survival_measure(n) for n in names))
    except ValueError as exc:
        raise UsageError(f"--measure: {exc}") from None
    if not measures:
        raise UsageError("--measure is empty")
    event, time = _outcomes(args.data, np.asarray(y).reshape(-1, 2), columns)
    result = {}
    for s in measures:
        try:
            result[s.name] = float(s(event, time, np.ravel(P)))
        except ValueError as exc:
            raise DataError(f"{args.data}: {exc}") from None
    if args.format == "json":
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write("".join(f"{k} {_fmt(v)}\n" for k, v in result.items()))
    return 0


def _prediction_file(args):
    """``evaluate DATA_FILE --predictions FILE --time-column T --event-column E``:
    (risk scores, the (time, event) columns)."""
    if args.data is not None:
        raise UsageError("evaluate takes MODEL_FILE DATA_FILE or DATA_FILE --predictions "
                         "FILE, not both a model and --predictions")
    args.data = args.model
    _, y, _, _ = read_file(args.data, table=input_table(args, args.data))
    try:
        with open(args.predictions) as fh:
            P = np.loadtxt(fh, dtype=np.float64, ndmin=1)
    except ValueError as exc:
        raise DataError(f"{args.predictions}: not a file of numbers ({exc})") from None
    if P.ndim != 1 or P.shape[0] != y.shape[0]:
        raise DataError(f"{args.predictions}: expected one risk score per line for the "
                        f"{y.shape[0]} rows of {args.data}, got shape {P.shape}")
    if not np.all(np.isfinite(P)):
        raise DataError(f"{args.predictions}: NaN or infinite predictions")
    return P, y


# ------------------------------------------------------------------- the learners

def _rankrls_train(data, regparam, kernel, kp, basis):
    from rlscore.core.survival import SurvivalRankRLSModel
    return SurvivalRankRLSModel(data.X, data.time, data.event, regparam, kernel,
                                basis_vectors(basis), **kp)


def _rankrls_cv(data, grid, kernel, kp, basis, measure, args):
    """Exact K-fold / leave-one-out of survival RankRLS (no refit)."""
    from rlscore.core.survival import SurvivalCV
    model = _rankrls_train(data, grid.checked[0], kernel, kp, basis)
    folds = "loo" if args.cv == "loo" else example_folds(data.X.shape[0], args.folds,
                                                         args.seed)
    return SurvivalCV(model, folds, measure)


def _ranksvm_train(data, regparam, kernel, kp, basis, tol=None):
    from rlscore.core.ranksvm import RankSVMModel, RankSVMOptions
    from rlscore.core.survival import train_survival_ranksvm
    from rlscore.predictor import LinearPredictor
    options = RankSVMOptions(rtol=tol)
    solution = train_survival_ranksvm(data.X, data.time, data.event, regparam,
                                      options=options)
    return RankSVMModel(LinearPredictor(solution.w, 0.0), solution, regparam, options)


def _ranksvm_kfold(data, grid, kernel, kp, basis, measure, args, tol=None):
    """K-fold of the survival RankSVM: retrained without each fold (its pairs leave
    with it) at every regparam."""
    from rlscore.core.selection import RefitModel
    from rlscore.core.survival import SurvivalCV

    def train(rows, regparam):
        sub = data if rows is None else dataclasses.replace(
            data, X=data.X[rows], time=data.time[rows], event=data.event[rows])
        return _ranksvm_train(sub, regparam, kernel, kp, basis, tol)
    model = RefitModel(train, data.X, np.column_stack([data.time, data.event]))
    folds = example_folds(data.X.shape[0], args.folds, args.seed)
    return SurvivalCV(model, folds, measure, outcomes=(data.event, data.time))


def _ranksvm_tol(tol):
    from rlscore.core.ranksvm import check_loss_solver, ranksvm_tol
    return ranksvm_tol(tol, check_loss_solver("hinge")[1], "--tol")


register_learner(LearnerSpec(
    "survival-rankrls", "RankRLS on right-censored data (CSV/TSV with --time-column "
    "and --event-column; predictions are risk scores)",
    _rankrls_train, {"kfold": _rankrls_cv, "loo": _rankrls_cv}, holdout=True,
    solve=True, default_measure={"kfold": "cindex", "loo": "cindex"}, censored=True))
register_learner(LearnerSpec(
    "survival-ranksvm", "linear RankSVM (hinge) on right-censored data (CSV/TSV with "
    "--time-column and --event-column)", _ranksvm_train, {"kfold": _ranksvm_kfold},
    default_measure={"kfold": "cindex"}, kernels=("linear",), tol=_ranksvm_tol,
    censored=True))
