"""``rlscore fit --stream``: reduced-set RLS, global RankRLS (``--learner rankrls``) or
query RankRLS (``--learner query-rankrls``, the file's queries contiguous) trained from
the file in passes (the file is never held in memory), through
:func:`rlscore.core.rankrls.streamed_rank_fit`; ``--solver pcg`` (Falkon's
preconditioned CG, one --regparam) always streams. The selection
follows the in-memory command's conventions (the basis rows a fold holds out leave that
fold's model unless ``--keep-basis-in-cv``; K-fold uses the same random folds), so
``--stream`` changes the memory, not the model."""

import os

import numpy as np

from rlscore.cli._base import LEARNERS, DataError, UsageError
from rlscore.cli._data import _file_errors
from rlscore.cli._select import check_qids, note

#: files at least this large are streamed without --stream when --basis is given
AUTO_STREAM_BYTES = 256 << 20

#: the learners --stream trains, and their kind (rlscore.core.nystrom.StreamedReducedSet)
STREAM_KINDS = {"rls": "rls", "rankrls": "global", "query-rankrls": "query"}

#: how a refusal of the core (a rlscore.core.nystrom.PlanError) names the command's
#: options
_OPTION_NAMES = {"memory_budget": "--memory-budget",
                 "block_size": "--block-size", "use_pcg": "--solver pcg",
                 "n_basis": "--basis", "more_memory": "a larger --memory-budget",
                 "rtol": "--pcg-tol", "maxiter": "--pcg-maxiter"}


def compute_plan(args):
    """The command's memory and solver options as one
    :class:`rlscore.core.nystrom.ComputePlan` (``--memory-budget``, ``--block-size``,
    ``--solver``, ``--float32``, ``--pcg-tol``, ``--pcg-maxiter``), validated once; a
    refusal is a usage error naming the option. O(1)."""
    from rlscore.cli._options import OptionError, parse_memory_budget
    from rlscore.core.nystrom import ComputePlan, PlanError
    try:
        budget = parse_memory_budget(args.memory_budget)
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    if args.block_size is not None and args.block_size < 1:
        raise UsageError(f"--block-size must be a positive number of rows, got "
                         f"{args.block_size}")
    try:
        with PlanError.reworded(_OPTION_NAMES):
            return ComputePlan.from_options(
                budget, args.block_size, args.solver,
                np.float32 if getattr(args, "float32", False) else np.float64,
                rtol=getattr(args, "pcg_tol", None),
                maxiter=getattr(args, "pcg_maxiter", None))
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None


def _streaming_options(args):
    """The options given that only a streamed fit uses (``--stream`` itself, ``--solver
    pcg``, ``--block-size``, ``--memory-budget``, ``--float32``, ``--pcg-tol``,
    ``--pcg-maxiter``): giving one asks for streaming, so that no option is silently
    ignored."""
    given = (("--stream", getattr(args, "stream", False)),
             ("--solver pcg", getattr(args, "solver", "direct") == "pcg"),
             ("--block-size", getattr(args, "block_size", None) is not None),
             ("--memory-budget", getattr(args, "memory_budget", None) is not None),
             ("--float32", getattr(args, "float32", False)),
             ("--pcg-tol", getattr(args, "pcg_tol", None) is not None),
             ("--pcg-maxiter", getattr(args, "pcg_maxiter", None) is not None))
    return [name for name, on in given if on]


def wants_stream(args):
    """True when the command should stream: one of the streaming options (``--stream``,
    ``--solver pcg``, ``--block-size``, ``--memory-budget``), or an RLS reduced-set fit
    on a file of at least :data:`AUTO_STREAM_BYTES` (a note says so)."""
    if _streaming_options(args):
        return True
    if args.basis is None or args.learner != "rls" or args.valid is not None \
            or args.intervals is not None or args.cv not in (None, "loo", "kfold"):
        return False
    try:
        big = os.path.getsize(args.train) >= AUTO_STREAM_BYTES
    except OSError:
        return False
    if big:
        note(f"{args.train} is {os.path.getsize(args.train) >> 20} MiB: streaming it in "
             f"passes (--stream); the rows are never all in memory")
    return big


def fit_streamed(args, kernel_args, grid_of, zero_based):
    """Train and return (learner, info) for ``rlscore fit --stream``: the memory plan
    of :func:`rlscore.core.nystrom.plan_streamed_fit` from ``--memory-budget`` (the
    budget of the whole run, as in every face; a refusal is a usage error), then
    :func:`rlscore.core.rankrls.streamed_rank_fit` under that plan (the
    :class:`rlscore.core.nystrom.StreamedFit` is the learner the model file records)."""
    from rlscore._blocks import working_memory
    from rlscore._validation import format_bytes
    from rlscore.core.nystrom import (PlanError, StreamedSelection, budget_bytes,
                                      block_working_memory, pcg_tolerance,
                                      plan_streamed_fit)
    from rlscore.core.rankrls import streamed_rank_fit
    from rlscore.utilities.reader import CsvSource, SvmlightSource
    if args.learner not in STREAM_KINDS:
        asked = " / ".join(_streaming_options(args)) or "--stream"
        raise UsageError(f"{asked} (a streamed fit) trains --learner "
                         f"{', '.join(STREAM_KINDS)}")
    kind = STREAM_KINDS[args.learner]
    if args.basis is None:
        asked = " / ".join(_streaming_options(args)) or "--stream"
        raise UsageError(f"{asked} streams a reduced-set model: add --basis N (N Nystrom "
                         f"basis vectors), or drop {asked}")
    if args.kernel == "linear":
        raise UsageError("--basis (Nystrom basis vectors) applies to --kernel gaussian "
                         "or polynomial")
    for opt in ("valid", "intervals"):
        if getattr(args, opt, None) is not None:
            raise UsageError(f"--{opt} cannot be combined with --stream")
    if args.cv not in (None, "loo", "kfold"):
        raise UsageError("--stream selects the regparam by --cv loo or kfold")
    if args.measure not in (None, "sqerror"):
        raise UsageError("--stream selects by --measure sqerror")
    kernel, kp = kernel_args
    compute = compute_plan(args)
    # the scan of the file reads chunks of the blocks' working memory too
    with working_memory(block_working_memory(budget_bytes(compute))):
        try:
            with _file_errors(args.train):
                table = getattr(args, "table", None)
                src = (SvmlightSource(args.train, zero_based=zero_based) if table is None
                       else CsvSource(args.train, table.layout))
        except ValueError as exc:
            raise DataError(str(exc)) from None
        zb = src.zero_based
        check_qids(args, src.qids is not None, LEARNERS[args.learner])
        if not 1 <= args.basis <= src.m:
            raise UsageError(f"--basis {args.basis}: choose between 1 and the {src.m} "
                             f"training examples")
        selecting = args.regparams is not None or args.cv is not None
        if selecting and kind != "rls":
            raise UsageError(f"--stream with --learner {args.learner} trains one "
                             f"--regparam (no --regparams / --cv)")
        grid = grid_of() if selecting else None
        cv = "loo"
        if args.cv == "kfold":
            # the folds of the in-memory command (RLScore's random_folds)
            from rlscore.cli._select import example_folds
            cv = np.empty(src.m, dtype=np.intp)
            for k, f in enumerate(example_folds(src.m, args.folds, args.seed)):
                cv[np.asarray(f, dtype=np.intp)] = k
        regparam = 1.0 if args.regparam is None else args.regparam
        seed = 0 if args.basis_seed is None else args.basis_seed
        # before the run: the peak estimate, or the refusal with the ways out -- the
        # plan the fit runs under, made from the budget (resolved once, so that "auto"
        # gives the same decision)
        try:
            with PlanError.reworded(_OPTION_NAMES):
                select = StreamedSelection(float(regparam), grid, cv, random_state=seed)
                plan = plan_streamed_fit(src, args.basis, kernel, kind=kind,
                                         select=select, plan=compute)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        solver = "pcg" if plan.path == "pcg" else "direct"
        pcg_only = [name for name in _streaming_options(args)
                    if name in ("--float32", "--pcg-tol", "--pcg-maxiter")]
        if pcg_only and solver != "pcg":
            given = " / ".join(pcg_only)
            raise UsageError(f"{given} applies to the PCG solver, and this fit uses the "
                             f"direct one: add --solver pcg, or drop {given}")
        tol, maxiter = compute.pcg_options.tol, compute.pcg_options.maxiter
        limit = "no budget" if not np.isfinite(plan.budget_bytes) else \
            f"budget {format_bytes(plan.budget_bytes)}"
        note(f"streaming {src.m} rows in blocks of {plan.block_size}; estimated peak "
             f"{format_bytes(plan.peak_bytes)} of the process, "
             f"{format_bytes(plan.baseline_bytes)} of it held before the run ({limit}; "
             f"solver {solver})")
        dtype = compute.dtype
        try:
            with PlanError.reworded(_OPTION_NAMES):
                learner = streamed_rank_fit(
                    src, kernel, kp, kind, select=select, plan=compute, route=plan,
                    n_basis=args.basis, random_state=seed,
                    remove_basis=not getattr(args, "keep_basis_in_cv", False))
        except ValueError as exc:
            raise DataError(f"{args.train}: {exc}") from None
    info = {"train_file": os.path.basename(args.train), "n_examples": int(src.m),
            "n_used_features": int(src.d), "learner_option": args.learner,
            "solver": solver, "float32": bool(getattr(args, "float32", False)),
            **({"pcg_tol": pcg_tolerance(tol, dtype), "pcg_maxiter": maxiter}
               if solver == "pcg" else {}),
            "kernel_option": args.kernel, "zero_based": bool(zb), "streamed": True,
            "n_basis": int(args.basis),
            "basis_seed": 0 if args.basis_seed is None else int(args.basis_seed),
            "keep_basis_in_cv": bool(getattr(args, "keep_basis_in_cv", False)),
            "regparam": float(learner.regparam)}
    if getattr(args, "table", None) is not None:
        args.table.feature_names = list(src.feature_names)
        args.table.qid_column = None if src.qids is None else \
            (args.table.layout.qid_column or "qid")
        info["input"] = args.table.to_info()
    if grid is not None:
        info.update({"cv": args.cv or "loo", "measure": "sqerror",
                     "regparams": [float(g) for g in grid],
                     "cv_performances": np.asarray(learner.cv_performances).tolist()})
    return learner, info, src.d
