"""The training subcommands: fit and cv (predict and evaluate: :mod:`rlscore.cli._apply`;
demo: :mod:`rlscore.cli._demo`)."""

import functools
import json
import os
import sys

import numpy as np

from rlscore._validation import check_regparam_grid
from rlscore.cli._base import (KERNELS, LEARNERS, Basis, DataError, Progress, UsageError,
                               _json_value)
from rlscore.cli._data import ZERO_BASED_CHOICES, input_table, load_training_data
from rlscore.cli._options import (_usage, parse_grid, parse_measures, parse_regparam,
                                  parse_tol)
from rlscore.cli._select import (CV_NAMES, check_qids, chosen_model, example_folds, note,
                                 select)


def _kernel_args(args, spec):
    ks = KERNELS[args.kernel]
    if args.kernel not in spec.kernels:
        raise UsageError(f"--learner {spec.name} does not support --kernel {args.kernel} "
                         f"(choose {', '.join(spec.kernels)})")
    kp = {}
    for p in ks.params:
        v = getattr(args, p, None)
        if v is not None and not (p == "gamma" and v == "learn"):
            kp[p] = v
    for p in ("gamma", "degree", "coef0", "bias"):
        if getattr(args, p, None) is not None and p not in ks.params:
            raise UsageError(f"--{p} does not apply to --kernel {args.kernel}")
    from rlscore._validation import check_kernel_params
    try:
        kp = check_kernel_params(ks.rlscore_name, kp)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--{exc}") from None
    return ks.rlscore_name, kp


def _basis(args, data, kernel):
    """The Nystrom basis of ``--basis N`` (rows drawn with ``--basis-seed``) as a
    :class:`rlscore.cli._base.Basis`, and its row indices."""
    n = getattr(args, "basis", None)
    keep = bool(getattr(args, "keep_basis_in_cv", False))
    if n is None:
        if getattr(args, "basis_seed", None) is not None:
            raise UsageError("--basis-seed needs --basis N")
        if keep:
            raise UsageError("--keep-basis-in-cv needs --basis N")
        return None, None
    if kernel == "LinearKernel":
        raise UsageError("--basis (Nystrom basis vectors) applies to --kernel gaussian "
                         "or polynomial")
    m = data.X.shape[0]
    if not 1 <= n <= m:
        raise UsageError(f"--basis {n}: choose between 1 and the {m} training examples")
    from rlscore.core.nystrom import select_basis
    # the draw of every face (rlscore.learner.RLS(n_basis=N, random_state=S) takes the
    # same rows); the command's default seed is 0, so that a command line is repeatable
    seed = 0 if args.basis_seed is None else args.basis_seed
    idx = select_basis(m, n_basis=n, random_state=seed)
    return Basis(data.X[idx], idx, keep), idx


def _learner(args):
    """The ``--learner`` spec (rls when the option is not given, recorded in
    ``args.learner_default`` for the note of :func:`rlscore.cli._select.check_qids`),
    with ``--tol`` bound to its training (a usage error for a learner without an
    iterative solver, or a value outside (0, 1))."""
    args.learner_default = args.learner is None
    if args.learner is None:
        args.learner = "rls"
    spec = LEARNERS[args.learner]
    text = getattr(args, "tol", None)
    if text is None:
        return spec
    tol = _usage(parse_tol, text)
    if spec.tol is None:
        takes = ", ".join(n for n, s in LEARNERS.items() if s.tol is not None)
        raise UsageError(f"--tol applies to the iterative solvers of --learner {takes}; "
                         f"--learner {spec.name} is solved exactly")
    return spec.with_tol(tol)


def _measure(args, spec, cv, y):
    """The selection measure: ``--measure`` or the learner's default for ``cv``. The
    AUC is the c-index of binary labels: with other labels a default AUC is named
    cindex, an explicit ``--measure auc`` refused."""
    from rlscore.measure import UndefinedPerformance
    if args.measure is None:
        measure = parse_measures(spec.default_measure.get(cv, "sqerror"))[0]
    else:
        measure = args.measure_specs[0]         # parsed by _check_training_options
    if measure.kind == "auc":
        try:
            measure(y, y)           # UndefinedPerformance unless binary labels
        except UndefinedPerformance:
            if args.measure is None:
                return parse_measures("cindex")[0]
            raise UsageError(f"--measure auc needs binary labels (-1/+1 or 0/1, both "
                             f"classes) in {args.train}; for other labels use --measure "
                             f"cindex (the AUC is the c-index of binary labels)") from None
    return measure


def _check_training_options(args):
    """Values of ``fit`` / ``cv`` options refused before the data is read, also when
    the command does not use them (``fit`` without a grid ignores ``--measure`` and
    ``--folds``): a typo is a usage error, never silently dropped."""
    # parsed once here, read by the rest of the command
    args.measure_specs = None
    if args.measure is not None:
        args.measure_specs = _usage(parse_measures, args.measure)
        if len(args.measure_specs) > 1:
            raise UsageError("selection uses one --measure; give one (rlscore evaluate "
                             "reports several)")
    if args.folds < 2:
        raise UsageError(f"--folds must be at least 2, got {args.folds}")
    args.grid = None
    if args.regparams is not None:
        args.grid = _usage(parse_grid, args.regparams)
    if getattr(args, "regparam", None) is not None:
        _usage(parse_regparam, args.regparam)


def _lambda_max(spec, data, kernel, kp, basis):
    if spec.lambda_max is None:
        return None
    try:
        return spec.lambda_max(data, kernel, kp, basis)
    except ValueError:
        return None


def _grid(args, spec, data, kernel, kp, basis):
    if args.grid is not None:
        return args.grid                        # parsed by _check_training_options
    lmax = _lambda_max(spec, data, kernel, kp, basis)
    if lmax is not None and lmax > 0:
        from rlscore.core.ranksvm import grid_below
        note(f"--regparams not given: 21 values from lambda_max = {lmax:.6g} down to "
             f"lambda_max * 2^-20")
        return check_regparam_grid(grid_below(lmax, 21))
    note("--regparams not given: 2^-10..2^10 (21 values)")
    return _usage(parse_grid, "2^-10..2^10")


def _run_selection(args, data, spec):
    kernel, kp = _kernel_args(args, spec)
    basis, _ = _basis(args, data, kernel)
    default_cv = None
    if getattr(args, "valid", None) is not None:
        if args.cv is not None:
            raise UsageError("give --cv or --valid, not both")
        cv = "valid"
    else:
        cv = args.cv
        if cv is None:
            cv = default_cv = spec.default_cv
            if cv == "lqo" and data.qids is None:
                cv = default_cv = "kfold"
            args.cv = cv
    if cv == "lqo" and data.qids is None:
        raise UsageError(f"--cv lqo needs qid: fields in the training file {args.train}")
    measure = _measure(args, spec, cv, data.y)
    if default_cv is not None:
        note(f"--cv not given: {CV_NAMES[cv]} ({cv}), the default of --learner "
             f"{spec.name}")
    grid = _grid(args, spec, data, kernel, kp, basis)
    with Progress(f"selecting among {len(grid)} regparams ({cv})"):
        sel = select(args, data, spec, measure, grid, kernel, kp, basis)
    perfs = np.asarray(sel.performances, dtype=np.float64)
    return sel, grid, perfs, measure, (kernel, kp, basis)


def _table(grid, perfs, mname, best):
    lines = [f"{'regparam':>12}  {mname:>12}"]
    for lam, p in zip(grid, perfs):
        mark = "  <- best" if lam == best else ""
        lines.append(f"{lam:12.6g}  {p:12.6f}{mark}")
    return "\n".join(lines)


def _warn_zero(spec, learner, data, kparams):
    from rlscore.cli._learners import is_zero_model
    if not is_zero_model(learner.predictor):
        return
    lmax = _lambda_max(spec, data, *kparams)
    msg = f"warning: the trained model is identically zero (regparam {learner.regparam:g})"
    if lmax is not None and learner.regparam < 1e-6 * lmax:
        msg += (f"; lambda_max = {lmax:.6g} for this data, and a regparam this far below "
                f"it leaves the solver without float64 precision: choose a regparam "
                f"closer to lambda_max (e.g. lambda_max / 1000)")
    elif lmax is not None:
        msg += (f"; lambda_max = {lmax:.6g} for this data (the norm of the loss "
                f"subgradient at w = 0): regparams far above it give w = 0 within the "
                f"solver's tolerance, choose one below it")
    print(f"rlscore: {msg}", file=sys.stderr)


def _zero_based(args):
    return ZERO_BASED_CHOICES[args.zero_based]


def _cmd_fit(args):
    from rlscore.model_io import save_model
    spec = _learner(args)
    _check_training_options(args)
    if args.gamma != "learn" and (args.ard or args.kernel_penalty is not None
                                  or args.learn_criterion is not None):
        raise UsageError("--ard, --kernel-penalty and --learn-criterion apply to "
                         "--gamma learn")
    from rlscore.cli._stream import _streaming_options, fit_streamed, wants_stream
    if args.query_norm is not None and _streaming_options(args):
        raise UsageError(f"--query-norm normalizes each query with all its rows, which "
                         f"a streamed fit never holds together: drop "
                         f"{' and '.join(_streaming_options(args))} (fit in memory)")
    args.table = input_table(args, args.train)
    if args.query_norm is None and wants_stream(args):
        learner, info, width = fit_streamed(
            args, _kernel_args(args, spec),
            lambda: args.grid or _usage(parse_grid, "2^-10..2^10"),
            _zero_based(args))
        save_model(learner, args.output, info, feature_indices=np.arange(width),
                   n_file_features=width)
        if not args.quiet and "regparams" in info:
            print(_table(info["regparams"], info["cv_performances"], info["measure"],
                         learner.regparam))
        if not args.quiet:
            print(f"{args.learner} (streamed, {info['solver']}) trained on "
                  f"{info['n_examples']} examples, regparam {learner.regparam:g}; model "
                  f"saved to {args.output}")
        return 0
    data = load_training_data(args.train, _zero_based(args), args.query_norm,
                              args.table)
    check_qids(args, data.qids is not None, spec)
    info = {"train_file": os.path.basename(args.train), "n_examples": int(data.X.shape[0]),
            "n_used_features": int(data.feature_indices.size),
            "n_queries": None if data.groups is None else int(data.groups.n_groups),
            "learner_option": spec.name, "kernel_option": args.kernel,
            "zero_based": bool(data.zero_based)}
    if data.table is not None:
        info["input"] = data.table.to_info()
    if args.query_norm is not None:
        info["query_norm"] = args.query_norm
    selecting = (args.regparams is not None or args.cv is not None
                 or args.valid is not None)
    if args.gamma == "learn":
        learner, kparams = _learn_kernel(args, data, spec)
        res = learner.kernel_learning
        cv, criterion = _KERNEL_LEARNING[spec.name]
        evidence = getattr(res, "criterion_name", cv) == "evidence"
        if evidence:
            criterion = "the Gaussian-process negative log marginal likelihood per example"
        info.update({"cv": cv, "measure": "sqerror", "kernel_learning": {
            "method": f"L-BFGS-B on {criterion}",
            "criterion_name": "evidence" if evidence else cv,
            "ard": bool(args.ard), "penalty": (0.0 if args.kernel_penalty is None
                                               else args.kernel_penalty),
            "criterion": res.criterion, "regparam": res.regparam,
            "kernel_params": {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                              for k, v in res.kernel_params.items()},
            "criterion_per_step": [h["criterion"] for h in res.history]}})
        if not args.quiet:
            kp_text = ", ".join(
                f"{k} {v:.6g}" if np.ndim(v) == 0 else
                f"{k} [{', '.join(f'{x:.3g}' for x in v)}]"
                for k, v in res.kernel_params.items())
            name = {"loo": "leave-one-out", "lqo": "leave-query-out"}[cv]
            what, value = (("evidence", "negative log evidence per example")
                           if evidence else (name, f"{name} MSE"))
            print(f"learned by {what} gradient: regparam {res.regparam:.6g}, "
                  f"{kp_text}; {value} {res.criterion:.6g} "
                  f"({len(res.history)} steps)")
    elif selecting:
        if args.regparam is not None:
            raise UsageError("give --regparam or --regparams, not both")
        sel, grid, perfs, measure, kparams = _run_selection(args, data, spec)
        learner = chosen_model(sel)     # re-solved (or retrained) at the chosen regparam
        info.update({"cv": sel.cv_name, "measure": measure.name,
                     "regparams": [float(g) for g in grid],
                     "cv_performances": perfs.tolist()})
        if args.valid is not None:
            info["valid_file"] = os.path.basename(args.valid)
        if not args.quiet:
            print(_table(grid, perfs, measure.name, sel.best))
    else:
        kernel, kp = _kernel_args(args, spec)
        basis, _ = _basis(args, data, kernel)
        kparams = (kernel, kp, basis)
        regparam = 1.0 if args.regparam is None else _usage(parse_regparam, args.regparam)
        with Progress(f"training {spec.name}"):
            learner = spec.train(data, regparam, kernel, kp, basis)
        learner.regparam = regparam
    if args.basis is not None:
        info.update({"n_basis": int(args.basis),
                     "basis_seed": 0 if args.basis_seed is None else int(args.basis_seed),
                     "keep_basis_in_cv": bool(args.keep_basis_in_cv)})
    info["regparam"] = float(learner.regparam)
    if spec.tol is not None:        # the solver's stopping tolerance, given or default
        info["tol"] = spec.solver_tol()
    _warn_zero(spec, learner, data, kparams)
    intervals = _interval_data(args, data, spec, learner)
    save_model(learner, args.output, info, feature_indices=data.feature_indices,
               n_file_features=data.n_file_features, intervals=intervals)
    if not args.quiet:
        print(f"{spec.name} trained on {data.X.shape[0]} examples, "
              f"{data.feature_indices.size} features, regparam {learner.regparam:g}; "
              f"model saved to {args.output}")
    return 0


#: ``fit --gamma learn``: per learner, the cross-validation criterion minimized, its
#: --cv name and the way the learner is trained with it
_KERNEL_LEARNING = {
    "rls": ("loo", "the exact leave-one-out mean squared error"),
    "query-rankrls": ("lqo", "the exact leave-query-out mean squared ranking error"),
    "rankrls": ("loo", "the exact leave-one-out squared ranking error of global RankRLS "
                "(intercept refit)"),
}


def _learn_kernel(args, data, spec):
    """``fit --gamma learn``: the core model trained at the kernel parameters and
    regparam learned by the gradient of its exact cross-validation criterion
    (:data:`_KERNEL_LEARNING`; :func:`rlscore.core.hyper.learn_kernel`,
    ``learn_kernel_lqo``, ``learn_kernel_global``); the model carries the core result
    as ``kernel_learning``."""
    if spec.name not in _KERNEL_LEARNING:
        raise UsageError(f"--gamma learn needs --learner {', '.join(_KERNEL_LEARNING)} "
                         f"(it minimizes their exact cross-validation error), got "
                         f"--learner {spec.name}")
    if args.kernel not in ("gaussian", "polynomial"):
        raise UsageError("--gamma learn needs --kernel gaussian or polynomial")
    cv = _KERNEL_LEARNING[spec.name][0]
    for opt, given in (("--regparam", args.regparam), ("--regparams", args.regparams),
                       ("--valid", args.valid), ("--basis", args.basis)):
        if given is not None:
            raise UsageError(f"--gamma learn learns regparam by cross-validation: drop "
                             f"{opt}")
    if args.cv not in (None, cv):
        raise UsageError(f"--gamma learn with --learner {spec.name} uses --cv {cv}, got "
                         f"--cv {args.cv}")
    if args.ard and args.kernel != "gaussian":
        raise UsageError("--ard needs --kernel gaussian")
    if args.learn_criterion == "evidence" and spec.name != "rls":
        raise UsageError("--learn-criterion evidence needs --learner rls")
    search = {"ard": bool(args.ard),
              "penalty": 0.0 if args.kernel_penalty is None else args.kernel_penalty}
    kernel, kp = _kernel_args(args, spec)
    with Progress(f"learning the kernel parameters ({cv} gradient)"):
        try:
            from rlscore.core.hyper import (learn_kernel, learn_kernel_global,
                                            learn_kernel_lqo, learning_options)
            from rlscore.core.nystrom import CVIntent
            from rlscore.cli._learners import _rank_model, _rls_model
            options = learning_options(kernel, degree=kp.get("degree", 2), **search)
            # the final model is solved on the decomposition of the criterion's path,
            # as the selection learners (LeaveOneOutRLS, LeaveQueryOutRankRLS) solve
            # it at the learned regparam
            if spec.name == "rls":
                res = learn_kernel(data.X, data.y,
                                   criterion=args.learn_criterion or "auto", **options)
                train = functools.partial(_rls_model, path=True, cv=CVIntent("loo"))
            elif spec.name == "query-rankrls":
                res = learn_kernel_lqo(data.X, data.y, data.groups, **options)
                train = functools.partial(_rank_model, path=True, cv=CVIntent("lqo"),
                                          query=True)
            else:
                res = learn_kernel_global(data.X, data.y, **options)
                train = spec.train
            kp = {**kp, **{k: v for k, v in res.kernel_params.items() if k != "degree"}}
            learner = train(data, res.regparam, kernel, kp, None)
            learner.kernel_learning = res
            learner.regparam = res.regparam
            learner.gamma = res.kernel_params["gamma"]
        except ValueError as exc:
            raise DataError(f"{args.train}: {exc}") from None
    return learner, (kernel, {**kp, "gamma": learner.gamma}, None)


def _interval_data(args, data, spec, learner):
    """The hold-out models ``--intervals`` asks to store: leave-one-out (jackknife) or
    the models without each of the K-fold folds (cv; whole queries with qids)."""
    if getattr(args, "intervals", None) is None:
        return None
    if spec.name != "rls":
        raise UsageError("--intervals needs --learner rls")
    rls = learner                # the core model (re-solved at the chosen regparam)
    with Progress(f"hold-out models for --intervals {args.intervals}"):
        if args.intervals == "jackknife":
            return rls.interval_model("jackknife+")
        if data.groups is not None:
            try:
                folds = data.groups.folds(args.folds, args.seed)
            except ValueError as exc:
                raise UsageError(f"--folds {args.folds}: {exc}") from None
        else:
            folds = example_folds(data.X.shape[0], args.folds, args.seed)
        return rls.interval_model("cv+", folds=folds)


def _cmd_cv(args):
    spec = _learner(args)
    if args.gamma == "learn":
        raise UsageError("--gamma learn is an option of 'rlscore fit' (it learns gamma "
                         "and regparam together); 'rlscore cv' needs a number")
    _check_training_options(args)
    _check_plot(args, args.grid)
    data = load_training_data(args.train, _zero_based(args), args.query_norm,
                              input_table(args, args.train))
    check_qids(args, data.qids is not None, spec)
    sel, grid, perfs, measure, _ = _run_selection(args, data, spec)
    how = ("validation-file" if sel.cv_name == "valid"
           else f"{sel.cv_name} cross-validation")
    per_query = " per query" if data.groups is not None and measure.per_query else ""
    return report_selection(
        args, spec, sel, measure, bool(per_query),
        f"{spec.name}, {args.kernel} kernel, {how} on {data.X.shape[0]} examples, "
        f"{measure.name}{per_query} ({'lower' if measure.iserror else 'higher'} "
        f"is better)")


def report_selection(args, spec, sel, measure, per_query, header):
    """The result of ``rlscore cv``: with ``--format json`` one JSON object (learner,
    kernel, cv, measure, per_query, higher_is_better, regparams, cv_performances,
    regparam), else ``header`` and the table; then ``--plot``. Returns the exit
    status 0."""
    grid, perfs = sel.grid, sel.performances
    if getattr(args, "format", "text") == "json":
        sys.stdout.write(json.dumps({
            "learner": spec.name, "kernel": args.kernel, "cv": sel.cv_name,
            "measure": measure.name, "per_query": per_query,
            "higher_is_better": not measure.iserror,
            "regparams": [float(g) for g in grid],
            "cv_performances": [_json_value(v) for v in perfs],
            "regparam": float(sel.best)}) + "\n")
    else:
        print(header)
        print(_table(grid, perfs, measure.name, sel.best))
    if getattr(args, "plot", None):
        _plot(args.plot, grid, perfs, measure.name, sel.best)
    return 0


def _check_plot(args, grid=None):
    """``--plot FILE``: matplotlib present, a suffix naming a format it writes, and
    (once the grid is known) a grid without 0 for the log axis; usage errors before
    any work."""
    path = getattr(args, "plot", None)
    if not path:
        return
    try:
        from rlscore.plot import figure_format
        figure_format(path)
    except ImportError:
        raise UsageError('--plot needs matplotlib: pip install "rlscore[plot]"') from None
    except ValueError as exc:
        raise UsageError(f"--plot {exc}") from None
    if grid is not None and min(grid) <= 0:
        raise UsageError("--plot draws regparam on a log axis: drop 0 from --regparams")


def _plot(path, grid, perfs, mname, best):
    """``--plot``: the CV measure against regparam, the choice marked (the same numbers
    as the table), in the format the file name's suffix says. The edge-of-grid warning
    was already given by the selection."""
    from rlscore.plot import cv_curve, savefig_by_suffix
    import matplotlib.pyplot as plt
    i = int(np.flatnonzero(np.asarray(grid) == best)[0])
    fig = cv_curve(grid, perfs, chosen=(float(best), float(perfs[i])), measure=mname,
                   warn=False)
    try:
        savefig_by_suffix(fig, path)
    finally:
        plt.close(fig)


