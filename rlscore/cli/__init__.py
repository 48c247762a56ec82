"""The ``rlscore`` command (console script and ``python -m rlscore``).

Subcommands
-----------
``rlscore fit TRAIN -o MODEL``
    Train a learner on an svmlight/LETOR file (``label [qid:ID] idx:val ...``), with one
    regparam or a grid chosen by exact cross-validation, and save a model file
    (:mod:`rlscore.model_io`).
``rlscore predict MODEL DATA [-o OUT]``
    One prediction per line (tab-separated when the model has several outputs).
``rlscore cv TRAIN [--regparams ...] [--cv ...] [--valid FILE]``
    The cross-validated (or validation-file) measure per regparam, as a table.
``rlscore evaluate MODEL DATA --measure ndcg@10,map,p@5,cindex [--per-query]``
    Measures of a saved model on a labelled file (per query when it has qids), as
    ``NAME VALUE`` lines or, with ``--format json``, one JSON object.
``rlscore demo``
    The main job on the Statlog heart sample shipped with the package.

Data files are svmlight/LETOR, or CSV/TSV with a header line (``.csv``, ``.tsv``, also
``.gz``/``.bz2``/``.xz``, or ``--input-format``): ``--label-column`` (default ``label``),
a ``qid`` column or ``--qid-column``, ``--id-column`` (kept for predict's output),
``--feature-columns`` (default every other column), ``--no-header``; the model file
records the feature columns and predict/evaluate map their file's columns by name
(:func:`rlscore.cli._data.input_table`).

Exit codes: 0 success, 1 bad data or model file, unreadable path, out of memory (a
one-line message on stderr, never a traceback), 2 usage error (bad options), 130
interrupted (Ctrl-C). Models and predictions are written atomically: an interrupted or
failed write leaves a previous file intact.

Extending
---------
Learners and kernels are looked up in the registries :data:`LEARNERS` and
:data:`KERNELS`; a new learner family plugs in with one :func:`register_learner` call
(see the built-in registrations in :mod:`rlscore.cli._learners`), a new kernel with one
:func:`register_kernel` call. Every grid loop is
:func:`rlscore.core.selection.grid_search`; see :mod:`rlscore.cli._select` for which
cross-validation runs (the learners' own selection classes where they apply, folds of
whole queries for files with qids).

Measures and grids
------------------
``--measure`` and ``--regparams`` are parsed by :mod:`rlscore.cli._options` (one parser
each, for every subcommand): ``ndcg@10``, ``ndcg@10:standard``, ``p@5``, ``map``,
``meanndcg``, ``cindex``, ``auc``, ``sqerror``; grids such as ``0.1,1,10``, ``2^-10``,
``2^-10..2^10`` or ``2^-10..2^10:2``. Files with qids are evaluated per query (LETOR 4.0
rules, :mod:`rlscore.measure.ranking_measures`).

Index base
----------
``--zero-based auto|yes|no`` (default auto, as scikit-learn's ``load_svmlight_file``:
0-based when some index is 0) chooses how the training file's feature indices are read;
the choice is stored in the model file (``info["zero_based"]``), and ``predict`` and
``evaluate`` read their files the same way.

Feature columns
---------------
Training keeps only the feature columns that occur (non-zero) in the training file, so
a file with gigantic feature indices stays sparse and the model stores one weight per
used feature plus the original column indices. At prediction time a feature that never
occurred in training contributes exactly what the full model would give it: nothing for
the linear and polynomial kernels (they depend on the data through dot products only),
the factor exp(-gamma ||x_unused||^2) for the Gaussian kernel. A data file with a
non-zero feature index larger than any index of the training file is refused (usually a
file from another feature set) unless ``--ignore-extra-features`` is given, in which case
such features are treated as unused features, as above.
"""


import argparse
import os
import sys

from rlscore.cli import _learners  # noqa: F401  (registers the built-in learners)
from rlscore.cli import _survival  # noqa: F401  (registers the survival learners)
from rlscore.cli._base import (KERNELS, LEARNERS, DataError, KernelSpec, LearnerSpec,
                               Progress, UsageError, register_kernel, register_learner)
from rlscore.cli._apply import _cmd_evaluate, _cmd_predict
from rlscore.cli._commands import _cmd_cv, _cmd_fit
from rlscore.cli._demo import _demo
from rlscore.cli._data import load_training_data, project_features
from rlscore.cli._options import MEASURE_HELP

__all__ = ["main", "LearnerSpec", "KernelSpec", "register_learner", "register_kernel"]


# --------------------------------------------------------------------------- parser

_EPILOG = """\
examples:
  rlscore demo
      train on the bundled heart sample and print cross-validated performance
  rlscore fit train.txt -o model.npz --learner query-rankrls --regparam 1
      rank within queries (svmlight file with qid: fields)
  rlscore fit train.txt -o model.npz --kernel gaussian --gamma learn
      gamma and regparam learned by the gradient of the exact leave-one-out error
      (--learner query-rankrls: leave-query-out; rankrls: global leave-one-out)
  rlscore fit train.txt -o model.npz --learner rls --kernel gaussian --gamma 0.1 \\
          --regparams 0.01,0.1,1,10,100 --cv loo
      choose regparam by exact leave-one-out, then save the model
  rlscore cv train.txt --learner query-rankrls --regparams 0.1,1,10 --cv lqo
      print the leave-query-out c-index per regparam
  rlscore fit train.txt -o model.npz --learner ranksvm --regparams 2^-10..2^0 \\
          --valid vali.txt --measure ndcg@10
      choose regparam on a validation file's per-query NDCG@10 (LETOR 4.0 rules)
  rlscore cv train.txt --learner query-rankrls --cv kfold --measure map
      5-fold cross-validation over whole queries, MAP per query
  rlscore predict model.npz test.txt -o predictions.txt
      one prediction per line, in the order of test.txt
  rlscore evaluate model.npz test.txt --measure ndcg@10,map,p@5 --format json
      measures of a saved model on a labelled file, per query

exit status:
  0  success
  1  bad data or model file, unreadable path, out of memory (one line on stderr)
  2  usage error (unknown option, bad option value, missing argument)
  130 interrupted
"""


def _seed(text):
    """argparse type of the seeds: an integer >= 0 (numpy's generators refuse negative
    seeds), refused as a usage error naming the option."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") \
            from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def _kernel_penalty(text):
    """argparse type of --kernel-penalty: a number >= 0 or 'bayes'."""
    if text == "bayes":
        return text
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number >= 0 or 'bayes', got "
                                         f"{text!r}")
    return value


def _gamma(text):
    """argparse type of --gamma: a number, or 'learn' (fit: gamma and regparam learned
    by the gradient of the exact leave-one-out error)."""
    if text == "learn":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0 or 'learn', got "
                                         f"{text!r}") from None


def _learner_help():
    return "; ".join(f"{n}: {s.help}" for n, s in LEARNERS.items())


def _add_zero_based(p):
    p.add_argument("--zero-based", choices=["auto", "yes", "no"], default="auto",
                   help="feature indices start at 0 (yes) or 1 (no); auto (default): "
                        "0-based when some index is 0, as scikit-learn's loader. "
                        "Stored in the model file; predict and evaluate follow it")


def _add_input_options(p, training):
    """The options of CSV/TSV data files (every command that reads data)."""
    g = p.add_argument_group("CSV/TSV data files (a header line names the columns)")
    g.add_argument("--input-format", choices=["svmlight", "csv", "tsv"], default=None,
                   help="format of the data files (default: csv for names ending .csv "
                        "or .csv.gz, tsv for .tsv or .tsv.gz, else svmlight)")
    g.add_argument("--label-column", metavar="NAME", help="the label column (several: "
                   "NAME,NAME for several outputs; default 'label', with --no-header "
                   "column 0%s)" % ("" if training else "; predict/evaluate: the "
                                     "model's"))
    g.add_argument("--qid-column", metavar="NAME", help="the query id column (default: "
                   "the column named 'qid' if there is one%s)" % (
                       "" if training else "; evaluate: the model's"))
    g.add_argument("--id-column", metavar="NAME", help="a row id column, not a feature"
                   + ("" if training else "; predict writes 'ID<TAB>prediction' lines"))
    if training:
        g.add_argument("--feature-columns", metavar="NAMES", help="the feature columns, "
                       "comma-separated (default: every other column); stored in the "
                       "model file, predict maps its file's columns by name")
    g.add_argument("--no-header", action="store_true", help="the file has no header "
                   "line: columns are named by their 0-based position (0, 1, ...)")
    g.add_argument("--time-column", metavar="NAME", help="censored survival data: "
                   "the column of event or censoring times (>= 0), with "
                   "--event-column; for --learner survival-rankrls / survival-ranksvm"
                   + ("" if training else "; evaluate: the model's"))
    g.add_argument("--event-column", metavar="NAME", help="censored survival data: "
                   "the column holding 1 for an observed event, 0 for a censoring")


def _add_training_options(p, need_output):
    p.add_argument("train", metavar="TRAIN_FILE",
                   help="svmlight/LETOR file: 'label [qid:ID] index:value ...', or a "
                        "CSV/TSV file with a header (see the CSV/TSV options)")
    if need_output:
        p.add_argument("-o", "--output", required=True, metavar="MODEL_FILE",
                       help="where to write the model (.npz)")
    p.add_argument("--learner", choices=list(LEARNERS), default=None,
                   help=_learner_help() + " (default: rls; on a file with qid: a note "
                   "says that it is pointwise regression)")
    p.add_argument("--kernel", choices=list(KERNELS), default="linear",
                   help="kernel (default: linear)")
    p.add_argument("--gamma", type=_gamma, help="gaussian: exp(-gamma |x-z|^2); "
                   "polynomial: (gamma x.z + coef0)^degree; 'learn' (fit, --learner "
                   "rls, query-rankrls or rankrls): gamma (polynomial: and coef0) and "
                   "regparam learned together by minimizing the exact leave-one-out "
                   "(query-rankrls: leave-query-out) error with its gradient, written "
                   "into the model file")
    if need_output:
        p.add_argument("--ard", action="store_true", help="with --gamma learn and "
                       "--kernel gaussian: one gamma per feature (automatic relevance "
                       "determination)")
        p.add_argument("--kernel-penalty", type=_kernel_penalty, metavar="XI",
                       help="with --gamma learn: Cawley & Talbot's penalty on the widths, "
                            "a weight >= 0 (units of y^2) or 'bayes' (the weight "
                            "integrated out; default 0: none)")
        p.add_argument("--learn-criterion", choices=["auto", "loo", "evidence"],
                       default=None,
                       help="with --gamma learn: minimize the exact leave-one-out error "
                            "(loo) or the Gaussian-process evidence (marginal "
                            "likelihood) of the same model, which does not over-fit "
                            "many --ard widths on few examples; auto (default): "
                            "evidence with --ard and no --kernel-penalty, else loo")
    p.add_argument("--degree", type=int, help="polynomial degree")
    p.add_argument("--coef0", type=float, help="polynomial offset")
    p.add_argument("--bias", type=float, help="linear kernel: constant feature (RLS)")
    p.add_argument("--basis", type=int, metavar="N", help="train the kernel learner on "
                   "N Nystrom basis vectors (training rows drawn at random)")
    p.add_argument("--basis-seed", type=_seed, metavar="S", help="seed of the basis "
                   "draw (default 0)")
    p.add_argument("--keep-basis-in-cv", action="store_true",
                   help="with --basis: keep the basis rows a fold holds out in that "
                        "fold's model (default: remove them, so a fold's estimate is "
                        "that of the model retrained without the fold, as in every "
                        "face; ranksvm's refits always keep them; survival-rankrls "
                        "keeps them and asks for this option)")
    if need_output:
        p.add_argument("--regparam", metavar="VALUE", help="one regularization "
                       "parameter, e.g. 0.5 or 2^-10 (default 1)")
    p.add_argument("--regparams", metavar="GRID",
                   help="grid: comma-separated numbers, powers and ranges, e.g. "
                        "0.01,0.1,1 or 2^-10..2^10 or 2^-10..2^10:2 (default: 21 values "
                        "down from lambda_max for ranksvm, else 2^-10..2^10)")
    p.add_argument("--cv", choices=["loo", "kfold", "lpo", "lqo"], default=None,
                   help="leave-one-out, K-fold (whole queries when the file has qids, "
                        "measured per query), leave-pair-out (AUC / c-index), "
                        "leave-query-out (default: the learner's own, named on stderr)")
    p.add_argument("--valid", metavar="FILE", help="choose regparam on this validation "
                   "file's measure (per query when it has qids) instead of --cv")
    p.add_argument("--ignore-extra-features", action="store_true",
                   help="--valid: allow features the training file does not have")
    p.add_argument("--folds", type=int, default=5, metavar="K", help="K for --cv kfold "
                   "(default 5)")
    p.add_argument("--tol", metavar="TOL", help="ranksvm, ranksvm-squared: the "
                   "solver's stopping tolerance in (0, 1) (SVMrank's -e): the duality gap "
                   "relative to the loss of w = 0 (ranksvm, default 1e-3) or the "
                   "gradient norm relative to its value at w = 0 (ranksvm-squared, "
                   "default 1e-10); recorded in the model file")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the K-fold split")
    p.add_argument("--measure", metavar="MEASURE",
                   help=f"selection measure: {MEASURE_HELP} (default: sqerror for rls, "
                        f"cindex for ranking; auc for rls --cv lpo; survival learners: "
                        f"cindex, Harrell's C (default), or uno, Uno's IPCW C)")
    _add_zero_based(p)
    p.add_argument("--query-norm", choices=["linear", "zscore", "sum"], default=None,
                   help="normalize every feature within each query (needs qid: "
                        "fields): linear (x - min) / (max - min), LETOR's "
                        "QueryLevelNorm; zscore (x - mean) / std; sum x / sum |x| "
                        "(RankLib's -norm). Stored in the model file: predict and "
                        "evaluate normalize each file by its own queries")
    _add_input_options(p, training=True)
    if need_output:
        p.add_argument("--intervals", choices=["jackknife", "cv"],
                       help="rls: store the hold-out models for 'predict --interval' "
                            "(jackknife: the m leave-one-out models, an m x m matrix for a "
                            "kernel model; cv: the --folds K fold models, whole queries "
                            "when the file has qids)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success: "
                   "no summary, no notes, no progress unless --progress (warnings and "
                   "errors are still printed)")
    _add_progress(p)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="rlscore",
        description="Regularized least-squares learners with exact fast cross-validation, "
                    "on svmlight/LETOR or CSV/TSV files.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    from rlscore import __version__
    parser.add_argument("--version", action="version", version=__version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    fit = sub.add_parser("fit", help="train and save a model", epilog=_EPILOG,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_training_options(fit, need_output=True)
    fit.add_argument("--stream", action="store_true",
                     help="rls with --basis: read the file in passes, never all of it in "
                          "memory (automatic for files of 256 MiB or more)")
    fit.add_argument("--block-size", type=int, metavar="ROWS",
                     help="rows per block of a streamed fit (implies --stream; default: "
                          "from --memory-budget)")
    fit.add_argument("--memory-budget", metavar="MIB",
                     help="bound on the peak resident memory (RSS) of the whole "
                          "process in MiB -- the interpreter, the imported modules and "
                          "the labels already read count too -- auto (that plus half "
                          "the available memory) or none (implies --stream; default "
                          "auto): the run's peak estimate must fit it, else it is "
                          "refused before any work; the blocks are sized from what "
                          "is left")
    fit.add_argument("--solver", choices=["auto", "direct", "pcg"], default="auto",
                     help="with --basis: direct (exact CV; streamed with --stream), "
                          "pcg (Falkon's preconditioned CG, one --regparam, always "
                          "streamed; rls, rankrls, query-rankrls, survival-rankrls) or "
                          "auto (default: "
                          "direct, or pcg when only pcg fits --memory-budget and one "
                          "--regparam is trained)")
    fit.add_argument("--float32", action="store_true",
                     help="with --solver pcg: the kernel blocks of its iterations in "
                          "single precision (about 4x faster, kernel values within "
                          "about 1e-6 relative)")
    fit.add_argument("--pcg-tol", type=float, metavar="TOL",
                     help="with --solver pcg: stop at a relative residual of TOL "
                          "(default 1e-6; with --float32 at least 1e-5)")
    fit.add_argument("--pcg-maxiter", type=int, metavar="N",
                     help="with --solver pcg: at most N iterations (default: no cap; "
                          "a warning when it stops there)")
    fit.set_defaults(func=_survival.cmd_fit)      # _cmd_fit unless censored data

    cv = sub.add_parser("cv", help="cross-validated measure per regparam",
                        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_training_options(cv, need_output=False)
    cv.add_argument("--plot", metavar="PNG", help="also draw the CV measure against "
                    "regparam (log axis, the choice marked, a note when it lies on an "
                    "edge of the grid) into this PNG file (needs matplotlib)")
    cv.add_argument("--format", choices=["text", "json"], default="text",
                    help="text: a table (6 decimals); json: one object with the grid, "
                         "the measure per regparam at full precision and the choice")
    cv.set_defaults(func=_survival.cmd_cv)      # _cmd_cv unless censored data

    pr = sub.add_parser("predict", help="predict with a saved model", epilog=_EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    pr.add_argument("model", metavar="MODEL_FILE")
    pr.add_argument("data", metavar="DATA_FILE", help="svmlight or CSV/TSV file (labels "
                    "and qids are ignored)")
    pr.add_argument("-o", "--output", metavar="OUT", help="output file (default stdout)")
    pr.add_argument("--format", choices=["scores", "trec"], default="scores",
                    help="scores (default): one prediction per line, in the file's "
                         "order; trec: a TREC run 'qid Q0 docid rank score tag', each "
                         "query's documents by decreasing score (ties in file order), "
                         "docids from the file's '#docid = ...' comments (else the row "
                         "number), for trec_eval and ir-measures")
    pr.add_argument("--run-tag", default="rlscore", metavar="TAG",
                    help="--format trec: the run's name, the last column (default "
                         "rlscore)")
    pr.add_argument("--ignore-extra-features", action="store_true",
                    help="allow non-zero features beyond the training file's largest "
                         "index (they are treated as unseen features)")
    pr.add_argument("--interval", type=float, metavar="LEVEL",
                    help="write 'prediction lower upper' per line: a distribution-free "
                         "interval of coverage LEVEL (e.g. 0.9), for models fitted with "
                         "--intervals")
    pr.add_argument("--interval-method", choices=["jackknife+", "jackknife",
                                                  "jackknife-minmax", "cv+", "cv",
                                                  "cv-minmax"],
                    help="default: jackknife+ (--intervals jackknife) or cv+ (--intervals cv)")
    _add_input_options(pr, training=False)
    _add_progress(pr)
    pr.set_defaults(func=_cmd_predict)

    ev = sub.add_parser("evaluate", help="measures of a saved model on a labelled file",
                        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("model", metavar="MODEL_FILE", help="saved model (or, with "
                    "--predictions, the labelled DATA_FILE)")
    ev.add_argument("data", metavar="DATA_FILE", nargs="?", help="labelled svmlight/"
                    "LETOR file (read with the model's index base) or CSV/TSV file")
    ev.add_argument("--predictions", metavar="FILE", help="evaluate the scores in FILE "
                    "(one number per line, in the rows' order: another program's "
                    "predictions) instead of a model: rlscore evaluate DATA_FILE "
                    "--predictions FILE")
    ev.add_argument("--convention", choices=["letor4", "letor3"], default="letor4",
                    help="rules of ndcg@K, p@K and map: the LETOR 4.0 evaluation script "
                         "(default) or LETOR 3.0's, which scores P@K of a query with "
                         "fewer than K documents 0 (the published OHSUMED tables)")
    ev.add_argument("--measure", metavar="LIST", help=f"comma-separated: {MEASURE_HELP} "
                    f"(default ndcg@10,map,cindex); per query when the file has qids; "
                    f"survival models: cindex (Harrell's C, default), uno (Uno's IPCW C)")
    ev.add_argument("--per-query", action="store_true", help="also the value of every "
                    "query (a table; nan where a measure is undefined for the query)")
    ev.add_argument("--format", choices=["text", "json"], default="text",
                    help="text: one 'NAME VALUE' line per measure; json: one object")
    ev.add_argument("--ignore-extra-features", action="store_true",
                    help="allow non-zero features beyond the training file's largest "
                         "index (they are treated as unseen features)")
    _add_input_options(ev, training=False)
    _add_progress(ev)
    ev.set_defaults(func=_survival.cmd_evaluate)      # _cmd_evaluate unless censored data

    demo = sub.add_parser("demo", help="run the main job on the bundled heart sample")
    demo.add_argument("--seed", type=_seed, default=0, help="seed of the 10-fold split")
    demo.set_defaults(func=_demo)
    return parser


def _one_line(exc):
    text = str(exc).strip()
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    first = text.splitlines()[0] if text else type(exc).__name__
    return first if len(first) <= 500 else first[:497] + "..."


def _data_errors():
    """Exceptions that mean a bad data or model file (exit 1): ValueError (ModelFileError,
    DataError, parse errors), OSError (unreadable paths, corrupt gzip), what the
    decompressors raise on corrupt or truncated .gz/.bz2/.xz files, and a measure
    undefined on the data (UndefinedPerformance)."""
    import lzma
    import zlib

    from rlscore.measure import UndefinedPerformance
    return (ValueError, OSError, ArithmeticError, EOFError, zlib.error, lzma.LZMAError,
            IndexError, KeyError, TypeError, UnicodeError, RecursionError,
            UndefinedPerformance)


def _add_progress(p):
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="report every stage and step (reading, selection grid, "
                        "solver iterations) on stderr, also when it is not a terminal")
    g.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress reports (default: on when stderr is a terminal)")


def _start_progress(args):
    """Attach a one-line-per-record stderr handler to the ``rlscore`` logger when the
    command reports progress; returns it (or None) so main can remove it."""
    import logging
    from rlscore.cli import _base
    _base.PROGRESS = getattr(args, "progress", None)
    _base.QUIET = bool(getattr(args, "quiet", False))
    if not _base.progress_enabled():
        return None
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("rlscore: %(message)s"))
    logger = logging.getLogger("rlscore")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    _base.LOG_HANDLER = handler
    return handler


def _stop_progress(handler):
    import logging
    from rlscore.cli import _base
    if handler is not None:
        logger = logging.getLogger("rlscore")
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
    _base.LOG_HANDLER = None
    _base.PROGRESS = None
    _base.QUIET = False


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Library warnings (an edge-of-grid choice, a zero model) as one line each."""
    print(f"rlscore: warning: {message}", file=sys.stderr)


def main(argv=None):
    """Entry point; returns the exit status: 0 success, 1 bad data or model file (one
    line on stderr), 2 usage, 130 interrupted. No exception escapes as a traceback."""
    import warnings
    parser = build_parser()
    args = parser.parse_args(argv)   # usage errors: argparse prints usage, exits 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    handler = _start_progress(args)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return args.func(args)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        print(f"rlscore: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:
        msg = _one_line(exc) if str(exc) else "out of memory"
        print(f"rlscore: error: {msg}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("rlscore: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:       # e.g. `rlscore predict ... | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 1
    except _data_errors() as exc:
        print(f"rlscore: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    finally:
        _stop_progress(handler)


if __name__ == "__main__":
    sys.exit(main())
