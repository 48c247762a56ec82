"""The ``rlscore`` command (console script and ``python -m rlscore``).

Subcommands
-----------
``rlscore fit TRAIN -o MODEL``
    Train a learner on an svmlight/LETOR file (``label [qid:ID] idx:val ...``), with one
    regparam or a grid chosen by exact cross-validation, and save a model file
    (:mod:`rlscore.model_io`).
``rlscore predict MODEL DATA [-o OUT]``
    One prediction per line (tab-separated when the model has several outputs).
``rlscore cv TRAIN --regparams ...``
    The cross-validated measure per regparam, as a table.
``rlscore demo``
    The main job on the Statlog heart sample shipped with the package.

Exit codes: 0 success, 1 bad data or model file, unreadable path, out of memory (a
one-line message on stderr, never a traceback), 2 usage error (bad options), 130
interrupted (Ctrl-C). Models and predictions are written atomically: an interrupted or
failed write leaves a previous file intact.

Extending
---------
Learners and kernels are looked up in the registries :data:`LEARNERS` and
:data:`KERNELS`; a new learner family plugs in with one :func:`register_learner` call
(see the built-in registrations at the end of this module), a new kernel with one
:func:`register_kernel` call. The command never implements cross-validation itself: each
``cv`` entry of a :class:`LearnerSpec` calls the learner's own selection class.

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
import dataclasses
import functools
import os
import sys
import threading
import time

import numpy as np

# --------------------------------------------------------------------------- progress


class Progress:
    """A one-line progress display on a terminal; silent when ``stream`` is not a TTY.

    With ``total`` it draws a bar advanced by :meth:`step`; without, it shows a spinner
    and the elapsed time, refreshed by a background thread. Use as a context manager.
    """

    def __init__(self, label, total=None, stream=None, enabled=None):
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.label = label
        self.total = total
        self.done = 0
        self._t0 = time.perf_counter()
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        if self.enabled:
            self._thread = threading.Thread(target=self._spin, daemon=True)
            self._thread.start()
        return self

    def _spin(self):
        while not self._stop.wait(0.2):
            self._draw()

    def step(self, n=1):
        self.done += n
        if self.enabled:
            self._draw()

    def _draw(self):
        elapsed = time.perf_counter() - self._t0
        if self.total:
            frac = min(1.0, self.done / self.total)
            bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
            text = f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.1f} s"
        else:
            spin = "|/-\\"[int(elapsed * 5) % 4]
            text = f"\r{self.label} {spin} {elapsed:5.1f} s"
        self.stream.write(text)
        self.stream.flush()

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self.stream.write("\r" + " " * 79 + "\r")
            self.stream.flush()
        return False


class _CountingMeasure:
    """Wraps a measure so that each evaluation advances a progress bar."""

    def __init__(self, measure, progress):
        self.measure = measure
        self.progress = progress
        self.iserror = measure.iserror
        self.__name__ = getattr(measure, "__name__", "measure")

    def __call__(self, Y, P):
        try:
            return self.measure(Y, P)
        finally:
            self.progress.step()


# --------------------------------------------------------------------------- registries


@dataclasses.dataclass
class KernelSpec:
    """A kernel of the command line: the rlscore kernel name and the options it takes."""

    name: str
    rlscore_name: str
    params: tuple
    help: str = ""


KERNELS = {}


def register_kernel(spec):
    """Make ``--kernel spec.name`` available (its ``params`` are option names among
    gamma, degree, coef0, bias)."""
    KERNELS[spec.name] = spec


@dataclasses.dataclass
class LearnerSpec:
    """A learner family of the command line.

    Attributes
    ----------
    name : the ``--learner`` value
    help : one line for ``--help``
    train : callable(X, y, qids, regparam, kernel, kernel_params) -> trained learner
        with a ``predictor``
    cv : dict cv-name -> callable(data, grid, kernel, kernel_params, measure, args,
        progress) returning the selection object (``regparam``, ``cv_performances``,
        ``predictor``); each calls a selection class of :mod:`rlscore.learner`
    needs_qids : the training file must have ``qid:`` fields
    default_measure : dict cv-name -> measure name
    kernels : the ``--kernel`` values it accepts
    """

    name: str
    help: str
    train: object
    cv: dict
    needs_qids: bool = False
    default_measure: dict = dataclasses.field(default_factory=dict)
    kernels: tuple = ("linear", "gaussian", "polynomial")


LEARNERS = {}


def register_learner(spec):
    """Make ``--learner spec.name`` available to ``fit`` and ``cv``."""
    LEARNERS[spec.name] = spec


def _measures():
    from rlscore import measure as M
    return {"sqerror": M.sqerror, "cindex": M.cindex, "auc": M.auc,
            "spearman": M.spearman, "kendall": M.kendall_tau_b, "ndcg": M.ndcg,
            "map": M.mean_average_precision}


MEASURE_NAMES = ("sqerror", "cindex", "auc", "spearman", "kendall", "ndcg", "map")


class UsageError(Exception):
    """A combination of options that cannot work (exit code 2)."""


class DataError(ValueError):
    """Bad input data (exit code 1)."""


# --------------------------------------------------------------------------- data


@dataclasses.dataclass
class TrainingData:
    X: object          # CSR, only the used columns
    y: np.ndarray      # (n,) or (n, L)
    qids: object       # list of str or None
    feature_indices: np.ndarray   # 0-based original column of each kept column
    n_file_features: int


def read_data_file(path):
    """read_svmlight with the failures of a damaged file as one-line DataErrors naming
    it: not text, or a corrupt or truncated .gz/.bz2/.xz file."""
    import lzma
    import zlib
    from rlscore.utilities.reader import read_svmlight
    try:
        return read_svmlight(path)
    except UnicodeDecodeError:
        raise DataError(f"{path}: not a text file in svmlight format") from None
    except (EOFError, zlib.error, lzma.LZMAError) as exc:
        raise DataError(f"{path}: corrupt or truncated compressed file ({exc})") from None
    except OSError as exc:
        if exc.filename is not None or isinstance(exc, (FileNotFoundError,
                                                        PermissionError)):
            raise
        # gzip.BadGzipFile, bz2 "Invalid data stream": damaged content, not a path
        raise DataError(f"{path}: corrupt or truncated compressed file ({exc})") from None


def _read(path):
    X, Y, qids = read_data_file(path)
    if not np.all(np.isfinite(X.data)) or not np.all(np.isfinite(Y)):
        raise DataError(f"{path}: the file contains NaN or infinite values")
    from rlscore._validation import check_no_overflow
    check_no_overflow(X, name=str(path))
    X.sum_duplicates()
    X.eliminate_zeros()
    y = Y[:, 0].copy() if Y.shape[1] == 1 else Y
    return X, y, qids


def load_training_data(path):
    """Read a training file and keep the feature columns that occur in it.

    O(file size) time; memory O(nnz + number of used features), whatever the largest
    feature index.
    """
    X, y, qids = _read(path)
    used = np.unique(X.indices).astype(np.int64)
    if used.size == 0:
        raise DataError(f"{path}: every feature value is zero")
    remap = np.searchsorted(used, X.indices)
    import scipy.sparse as sp
    Xc = sp.csr_matrix((X.data, remap, X.indptr), shape=(X.shape[0], used.size))
    return TrainingData(Xc, y, qids, used, int(X.shape[1]))


def project_features(X, feature_indices, n_model_features, path, ignore_extra):
    """Columns of X (CSR, original indexing) in the model's compact order, and the
    squared norm of each row over the features the model never saw.

    O(nnz log(number of model features)).
    """
    import scipy.sparse as sp
    cols = X.indices.astype(np.int64)
    if not ignore_extra and cols.size and cols.max() >= n_model_features:
        bad = int(cols.max()) + 1
        raise DataError(
            f"{path}: feature {bad} is non-zero, but the model was trained on features "
            f"1..{n_model_features} (use --ignore-extra-features to predict anyway)")
    pos = np.searchsorted(feature_indices, cols)
    pos_c = np.minimum(pos, feature_indices.size - 1)
    known = feature_indices[pos_c] == cols
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    Xc = sp.csr_matrix((X.data[known], (rows[known], pos_c[known])),
                       shape=(X.shape[0], feature_indices.size))
    unseen = np.bincount(rows[~known], weights=X.data[~known] ** 2, minlength=X.shape[0])
    return Xc, unseen


def query_folds(qids, k, seed):
    """K folds of whole queries (random assignment of the queries)."""
    from rlscore.utilities.cross_validation import qid_folds
    groups = qid_folds(qids)
    if k > len(groups):
        raise UsageError(f"--folds {k} is more than the {len(groups)} queries")
    order = np.random.default_rng(seed).permutation(len(groups))
    folds = [[] for _ in range(k)]
    for r, g in enumerate(order):
        folds[r % k].extend(groups[g])
    return [sorted(f) for f in folds]


def example_folds(m, k, seed):
    from rlscore.utilities.cross_validation import random_folds
    if k > m:
        raise UsageError(f"--folds {k} is more than the {m} examples")
    return random_folds(m, k, seed=seed)


def _folds(data, args):
    if args.folds < 2:
        raise UsageError(f"--folds must be at least 2, got {args.folds}")
    m = data.X.shape[0]
    if data.qids is not None:
        return query_folds(data.qids, args.folds, args.seed)
    return example_folds(m, args.folds, args.seed)


# --------------------------------------------------------------------------- learners


def _progress_measure(measure, progress, calls_per_lambda):
    progress.total = calls_per_lambda * progress.total if progress.total else None
    return _CountingMeasure(measure, progress)


def _rls_train(data, regparam, kernel, kp):
    from rlscore.learner import RLS
    return RLS(data.X, data.y, regparam=regparam, kernel=kernel, **kp)


def _rls_loo(data, grid, kernel, kp, measure, args, progress):
    from rlscore.learner import LeaveOneOutRLS
    return LeaveOneOutRLS(data.X, data.y, kernel=kernel, regparams=grid,
                          measure=_progress_measure(measure, progress, 1), **kp)


def _rls_kfold(data, grid, kernel, kp, measure, args, progress):
    from rlscore.learner import KfoldRLS
    folds = _folds(data, args)
    return KfoldRLS(data.X, data.y, folds, kernel=kernel, regparams=grid,
                    measure=_progress_measure(measure, progress, len(folds)), **kp)


def _rls_lpo(data, grid, kernel, kp, measure, args, progress):
    from rlscore.learner import LeavePairOutRLS
    progress.total = None
    return LeavePairOutRLS(data.X, data.y, kernel=kernel, regparams=grid, **kp)


def _grank_train(data, regparam, kernel, kp):
    from rlscore.learner import GlobalRankRLS
    return GlobalRankRLS(data.X, data.y, regparam=regparam, kernel=kernel, **kp)


def _grank_kfold(data, grid, kernel, kp, measure, args, progress):
    from rlscore.learner import KfoldRankRLS
    folds = _folds(data, args)
    return KfoldRankRLS(data.X, data.y, folds, kernel=kernel, regparams=grid,
                        measure=_progress_measure(measure, progress, len(folds)), **kp)


def _grank_lpo(data, grid, kernel, kp, measure, args, progress):
    from rlscore.learner import LeavePairOutRankRLS
    progress.total = None
    return LeavePairOutRankRLS(data.X, data.y, kernel=kernel, regparams=grid, **kp)


def _qrank_train(data, regparam, kernel, kp):
    from rlscore.learner import QueryRankRLS
    return QueryRankRLS(data.X, data.y, data.qids, regparam=regparam, kernel=kernel, **kp)


def _qrank_lqo(data, grid, kernel, kp, measure, args, progress):
    from rlscore.learner import LeaveQueryOutRankRLS
    progress.total = None   # the per-query c-index has a batched path: no wrapper
    return LeaveQueryOutRankRLS(data.X, data.y, data.qids, kernel=kernel, regparams=grid,
                                measure=measure, **kp)


def _ranksvm_train(data, regparam, kernel, kp, loss="hinge"):
    from rlscore.learner import KernelRankSVM, LinearRankSVM
    if kernel == "LinearKernel":
        return LinearRankSVM(data.X, data.y, data.qids, regparam=regparam, loss=loss)
    return KernelRankSVM(data.X, data.y, data.qids, regparam=regparam, kernel=kernel,
                         loss=loss, **kp)


def _ranksvm_kfold(data, grid, kernel, kp, measure, args, progress, loss="hinge"):
    from rlscore.learner import KfoldLinearRankSVM
    if kernel != "LinearKernel":
        raise UsageError("cross-validation of ranksvm supports --kernel linear only")
    progress.total = None
    folds = _folds(data, args)
    return KfoldLinearRankSVM(data.X, data.y, data.qids, folds=folds, regparams=grid,
                              measure=None if args.measure is None else measure,
                              loss=loss)


# --------------------------------------------------------------------------- commands


def _kernel_args(args, spec):
    ks = KERNELS[args.kernel]
    if args.kernel not in spec.kernels:
        raise UsageError(f"--learner {spec.name} does not support --kernel {args.kernel} "
                         f"(choose {', '.join(spec.kernels)})")
    kp = {}
    for p in ks.params:
        v = getattr(args, p, None)
        if v is not None:
            kp[p] = v
    for p in ("gamma", "degree", "coef0", "bias"):
        if getattr(args, p, None) is not None and p not in ks.params:
            raise UsageError(f"--{p} does not apply to --kernel {args.kernel}")
    from rlscore._validation import check_kernel_params
    try:
        kp = check_kernel_params(ks.rlscore_name, kp)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--{str(exc)}") from None
    return ks.rlscore_name, kp


def _parse_grid(text):
    try:
        vals = [float(v) for v in text.replace(",", " ").split()]
    except ValueError:
        raise UsageError(f"--regparams {text!r}: expected numbers separated by commas, "
                         f"e.g. 0.01,0.1,1,10") from None
    if not vals or any(not np.isfinite(v) or v <= 0 for v in vals):
        raise UsageError(f"--regparams {text!r}: expected positive numbers")
    return vals


def _select(args, data, spec):
    """Run the learner's selection class over the grid; returns (selector, measure name)."""
    if args.cv not in spec.cv:
        raise UsageError(f"--learner {spec.name} supports --cv "
                         f"{', '.join(sorted(spec.cv))}, not {args.cv}")
    if args.cv == "lqo" and data.qids is None:
        raise DataError(f"{args.train}: --cv lqo needs qid: fields in the training file")
    kernel, kp = _kernel_args(args, spec)
    grid = _parse_grid(args.regparams)
    mname = args.measure or spec.default_measure.get(args.cv, "sqerror")
    if args.cv == "lpo" and mname not in ("cindex", "auc"):
        raise UsageError("--cv lpo estimates the AUC / c-index; --measure must be auc or "
                         "cindex")
    measure = _measures()[mname]
    with Progress(f"cross-validating {len(grid)} regparams ({args.cv})",
                  total=len(grid)) as progress:
        sel = spec.cv[args.cv](data, grid, kernel, kp, measure, args, progress)
    perfs = np.asarray(sel.cv_performances, dtype=np.float64)
    return sel, grid, perfs, mname, measure


def _table(grid, perfs, mname, best):
    lines = [f"{'regparam':>12}  {mname:>12}"]
    for lam, p in zip(grid, perfs):
        mark = "  <- best" if lam == best else ""
        lines.append(f"{lam:12.6g}  {p:12.6f}{mark}")
    return "\n".join(lines)


def _check_qids(args, data, spec):
    if spec.needs_qids and data.qids is None:
        raise DataError(f"{args.train}: --learner {spec.name} needs qid: fields (query "
                        f"ids) in the training file")


def _cmd_fit(args):
    from rlscore.model_io import save_model
    spec = LEARNERS[args.learner]
    data = load_training_data(args.train)
    _check_qids(args, data, spec)
    info = {"train_file": os.path.basename(args.train), "n_examples": int(data.X.shape[0]),
            "n_used_features": int(data.feature_indices.size),
            "n_queries": None if data.qids is None else len(set(data.qids)),
            "learner_option": spec.name, "kernel_option": args.kernel}
    if args.regparams is not None:
        if args.regparam is not None:
            raise UsageError("give --regparam or --regparams, not both")
        sel, grid, perfs, mname, _ = _select(args, data, spec)
        learner = sel
        info.update({"cv": args.cv, "measure": mname, "regparams": grid,
                     "cv_performances": perfs.tolist()})
        if not args.quiet:
            print(_table(grid, perfs, mname, sel.regparam))
    else:
        if args.cv is not None:
            raise UsageError("--cv needs a grid: --regparams 0.01,0.1,1,10")
        kernel, kp = _kernel_args(args, spec)
        from rlscore._validation import check_regparam
        try:
            regparam = check_regparam(1.0 if args.regparam is None else args.regparam,
                                      name="regparam")
        except ValueError as exc:
            raise UsageError(f"--{exc}") from None
        with Progress(f"training {spec.name}"):
            learner = spec.train(data, regparam, kernel, kp)
    info["regparam"] = float(learner.regparam)
    save_model(learner, args.output, info, feature_indices=data.feature_indices,
               n_file_features=data.n_file_features)
    if not args.quiet:
        print(f"{spec.name} trained on {data.X.shape[0]} examples, "
              f"{data.feature_indices.size} features, regparam {learner.regparam:g}; "
              f"model saved to {args.output}")
    return 0


def _cmd_cv(args):
    spec = LEARNERS[args.learner]
    data = load_training_data(args.train)
    _check_qids(args, data, spec)
    sel, grid, perfs, mname, measure = _select(args, data, spec)
    print(f"{spec.name}, {args.kernel} kernel, {args.cv} cross-validation on "
          f"{data.X.shape[0]} examples ({'lower' if measure.iserror else 'higher'} "
          f"is better)")
    print(_table(grid, perfs, mname, sel.regparam))
    return 0


def _fmt(v):
    return repr(float(v))


def _cmd_predict(args):
    from rlscore.model_io import load_model
    pred, meta = load_model(args.model, return_metadata=True)
    if meta["predictor"] not in ("LinearPredictor", "KernelPredictor"):
        raise DataError(f"{args.model}: a {meta['predictor']} predicts for pairs of "
                        f"objects; use the Python API (rlscore.model_io.load_model)")
    X, _, _ = read_data_file(args.data)
    if not np.all(np.isfinite(X.data)):
        raise DataError(f"{args.data}: the file contains NaN or infinite values")
    from rlscore._validation import check_no_overflow
    check_no_overflow(X, name=str(args.data))
    X.sum_duplicates()
    X.eliminate_zeros()
    fi = meta.get("feature_indices")
    if fi is None:
        fi = np.arange(meta["n_features"])
    n_model = int(meta.get("n_file_features") or meta["n_features"])
    Xc, unseen = project_features(X, fi, n_model, args.data, args.ignore_extra_features)
    P = np.asarray(pred.predict(Xc), dtype=np.float64)
    if P.ndim == 0:
        P = P.reshape(1)
    if P.ndim == 1 and X.shape[0] == 1 and meta.get("n_outputs", 1) > 1:
        P = P.reshape(1, -1)
    kernel = (meta.get("kernel") or {}).get("name")
    if kernel == "GaussianKernel" and np.any(unseen > 0):
        # exp(-g||x - b||^2) = exp(-g||x_used - b||^2) exp(-g||x_unseen||^2)
        factor = np.exp(-float(meta["kernel"]["params"]["gamma"]) * unseen)
        P = P * (factor if P.ndim == 1 else factor[:, None])
    if P.ndim == 1:
        lines = [_fmt(v) for v in P]
    else:
        lines = ["\t".join(_fmt(v) for v in row) for row in P]
    text = "\n".join(lines) + "\n"
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        from rlscore._io import atomic_write
        with atomic_write(args.output, "w") as fh:
            fh.write(text)
    return 0


def _demo(args):
    from rlscore.datasets import load_heart
    from rlscore.learner import LeaveOneOutRLS, LeavePairOutRLS
    from rlscore.measure import auc
    from rlscore.utilities.cross_validation import random_folds

    X, y = load_heart()
    m, d = X.shape
    print(f"Statlog heart sample: {m} patients, {d} features, "
          f"{int(np.sum(y > 0))} with heart disease (+1), {int(np.sum(y < 0))} without (-1)")
    grid = [2.0 ** k for k in range(-10, 11)]

    t0 = time.perf_counter()
    lin = LeaveOneOutRLS(X, y, regparams=grid)
    t_lin = time.perf_counter() - t0
    print(f"\nLinear RLS, regparam chosen by exact leave-one-out over {len(grid)} values "
          f"({t_lin * 1000:.0f} ms): regparam = {lin.regparam:g}, "
          f"LOO mean squared error = {lin.cv_performances.min():.4f}")
    loo = lin.cv_predictions[int(np.argmin(lin.cv_performances))]
    print(f"  AUC of the leave-one-out predictions: {auc(y, loo):.4f}")
    W = np.asarray(lin.predictor.W)
    order = np.argsort(-np.abs(W))[:5]
    print("  largest weights: " + ", ".join(f"feature {i + 1}: {W[i]:+.3f}" for i in order))

    gamma = 1.0 / d
    t0 = time.perf_counter()
    gau = LeavePairOutRLS(X, y, kernel="GaussianKernel", gamma=gamma, regparams=grid)
    t_gau = time.perf_counter() - t0
    n_pairs = int(np.sum(y > 0)) * int(np.sum(y < 0))
    print(f"\nGaussian-kernel RLS (gamma = 1/{d}), regparam chosen by exact leave-pair-out "
          f"AUC over all {n_pairs} positive-negative pairs and {len(grid)} values "
          f"({t_gau * 1000:.0f} ms):")
    print(f"  regparam = {gau.regparam:g}, leave-pair-out AUC = {gau.cv_performances.max():.4f}")

    folds = random_folds(m, 10, seed=args.seed)
    P = np.empty(m)
    for fold in folds:
        P[fold] = gau.learner.holdout(fold)
    print(f"  pooled 10-fold AUC at that regparam (exact hold-out shortcut): {auc(y, P):.4f}")
    print("\nEvery estimate above is exact: it equals retraining without the held-out "
          "examples, computed without retraining.")
    return 0


# --------------------------------------------------------------------------- parser

_EPILOG = """\
examples:
  rlscore demo
      train on the bundled heart sample and print cross-validated performance
  rlscore fit train.txt -o model.npz --learner query-rankrls --regparam 1
      rank within queries (svmlight file with qid: fields)
  rlscore fit train.txt -o model.npz --learner rls --kernel gaussian --gamma 0.1 \\
          --regparams 0.01,0.1,1,10,100 --cv loo
      choose regparam by exact leave-one-out, then save the model
  rlscore cv train.txt --learner query-rankrls --regparams 0.1,1,10 --cv lqo
      print the leave-query-out c-index per regparam
  rlscore predict model.npz test.txt -o predictions.txt
      one prediction per line, in the order of test.txt

exit status:
  0  success
  1  bad data or model file, unreadable path, out of memory (one line on stderr)
  2  usage error (unknown option, bad option value, missing argument)
  130 interrupted
"""


def _learner_help():
    return "; ".join(f"{n}: {s.help}" for n, s in LEARNERS.items())


def _add_training_options(p, need_output):
    p.add_argument("train", metavar="TRAIN_FILE",
                   help="svmlight/LETOR file: 'label [qid:ID] index:value ...'")
    if need_output:
        p.add_argument("-o", "--output", required=True, metavar="MODEL_FILE",
                       help="where to write the model (.npz)")
    p.add_argument("--learner", choices=list(LEARNERS), default="rls",
                   help=_learner_help() + " (default: rls)")
    p.add_argument("--kernel", choices=list(KERNELS), default="linear",
                   help="kernel (default: linear)")
    p.add_argument("--gamma", type=float, help="gaussian: exp(-gamma |x-z|^2); "
                   "polynomial: (gamma x.z + coef0)^degree")
    p.add_argument("--degree", type=int, help="polynomial degree")
    p.add_argument("--coef0", type=float, help="polynomial offset")
    p.add_argument("--bias", type=float, help="linear kernel: constant feature (RLS)")
    if need_output:
        p.add_argument("--regparam", type=float, help="one regularization parameter "
                       "(default 1)")
    p.add_argument("--regparams", required=not need_output, metavar="GRID",
                   help="comma-separated grid, e.g. 0.001,0.01,0.1,1,10")
    p.add_argument("--cv", choices=["loo", "kfold", "lpo", "lqo"],
                   default=None if need_output else "loo",
                   help="leave-one-out, K-fold (whole queries when the file has qids), "
                        "leave-pair-out (AUC / c-index), leave-query-out")
    p.add_argument("--folds", type=int, default=5, metavar="K", help="K for --cv kfold "
                   "(default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the K-fold split")
    p.add_argument("--measure", choices=MEASURE_NAMES,
                   help="CV measure (default: sqerror for rls, cindex for ranking)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="rlscore",
        description="Regularized least-squares learners with exact fast cross-validation, "
                    "on svmlight/LETOR files.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    import rlscore
    parser.add_argument("--version", action="version", version=rlscore.__version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    fit = sub.add_parser("fit", help="train and save a model", epilog=_EPILOG,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_training_options(fit, need_output=True)
    fit.set_defaults(func=_cmd_fit)

    cv = sub.add_parser("cv", help="cross-validated measure per regparam",
                        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_training_options(cv, need_output=False)
    cv.set_defaults(func=_cmd_cv)

    pr = sub.add_parser("predict", help="predict with a saved model", epilog=_EPILOG,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    pr.add_argument("model", metavar="MODEL_FILE")
    pr.add_argument("data", metavar="DATA_FILE", help="svmlight file (labels and qids "
                    "are read and ignored)")
    pr.add_argument("-o", "--output", metavar="OUT", help="output file (default stdout)")
    pr.add_argument("--ignore-extra-features", action="store_true",
                    help="allow non-zero features beyond the training file's largest "
                         "index (they are treated as unseen features)")
    pr.set_defaults(func=_cmd_predict)

    demo = sub.add_parser("demo", help="run the main job on the bundled heart sample")
    demo.add_argument("--seed", type=int, default=0, help="seed of the 10-fold split")
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
    DataError, parse errors), OSError (unreadable paths, corrupt gzip), and what the
    decompressors raise on corrupt or truncated .gz/.bz2/.xz files."""
    import lzma
    import zlib
    return (ValueError, OSError, ArithmeticError, EOFError, zlib.error, lzma.LZMAError,
            IndexError, KeyError, TypeError, UnicodeError, RecursionError)


def main(argv=None):
    """Entry point; returns the exit status: 0 success, 1 bad data or model file (one
    line on stderr), 2 usage, 130 interrupted. No exception escapes as a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)   # usage errors: argparse prints usage, exits 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
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


# --------------------------------------------------------------------------- built-ins

register_kernel(KernelSpec("linear", "LinearKernel", ("bias",)))
register_kernel(KernelSpec("gaussian", "GaussianKernel", ("gamma",)))
register_kernel(KernelSpec("polynomial", "PolynomialKernel", ("gamma", "degree", "coef0")))

register_learner(LearnerSpec(
    "rls", "regularized least squares (regression, classification with +-1 labels)",
    _rls_train, {"loo": _rls_loo, "kfold": _rls_kfold, "lpo": _rls_lpo},
    default_measure={"loo": "sqerror", "kfold": "sqerror", "lpo": "auc"}))
register_learner(LearnerSpec(
    "rankrls", "RankRLS over all pairs of the file (qids ignored)",
    _grank_train, {"kfold": _grank_kfold, "lpo": _grank_lpo},
    default_measure={"kfold": "cindex", "lpo": "cindex"}))
register_learner(LearnerSpec(
    "query-rankrls", "RankRLS within queries (needs qid:)",
    _qrank_train, {"lqo": _qrank_lqo}, needs_qids=True,
    default_measure={"lqo": "cindex"}))
register_learner(LearnerSpec(
    "ranksvm", "RankSVM, hinge loss on the pairs of each query (or all pairs without "
    "qid:)", _ranksvm_train, {"kfold": _ranksvm_kfold},
    default_measure={"kfold": "cindex"}))
register_learner(LearnerSpec(
    "ranksvm-squared", "RankSVM with the squared pairwise hinge, trust-region Newton "
    "solver (fast on large global rankings)",
    functools.partial(_ranksvm_train, loss="squared_hinge"),
    {"kfold": functools.partial(_ranksvm_kfold, loss="squared_hinge")},
    default_measure={"kfold": "cindex"}))


if __name__ == "__main__":
    sys.exit(main())
