"""Shared pieces of the command: the progress display, the learner and kernel
registries, and the two error kinds (usage: exit 2; data: exit 1)."""

import dataclasses
import math
import sys

# --------------------------------------------------------------------------- progress


#: True / False from --progress / --no-progress; None: on when stderr is a terminal.
PROGRESS = None
#: True under -q / --quiet: no notes (what the command chose for the user), and no
#: progress unless --progress asks for it; warnings and errors are still printed.
QUIET = False
#: The stderr handler main() attaches to the ``rlscore`` logger when progress is on
#: (every stage and step as one line), or None.
LOG_HANDLER = None


def progress_enabled(stream=None):
    """Whether the command shows progress on ``stream`` (default stderr)."""
    stream = sys.stderr if stream is None else stream
    if PROGRESS is not None:
        return PROGRESS
    return not QUIET and bool(getattr(stream, "isatty", lambda: False)())


def Progress(label, total=None, stream=None, enabled=None):
    """One stage of the command, reported through the library's one progress
    mechanism (:mod:`rlscore._progress`: log records of the ``rlscore`` logger, and a
    bar or text lines on ``stream`` when enabled). Use as a context manager."""
    from rlscore._progress import Progress as _Progress
    stream = sys.stderr if stream is None else stream
    if enabled is None:      # lines through the log handler, or a bar of its own
        enabled = LOG_HANDLER is None and progress_enabled(stream)
    return _Progress(label, total, enabled, stream)


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


@dataclasses.dataclass(frozen=True)
class Basis:
    """The Nystrom basis of ``--basis N``: rows ``indices`` of the training file
    (``vectors`` = those rows). The exact-CV learners get the indices, so that a
    fold's model loses the basis rows the fold holds out (the rule of every face;
    ``--keep-basis-in-cv`` keeps them); retraining learners (RankSVM) keep the same
    vectors in every refit."""

    vectors: object
    indices: object
    keep_in_cv: bool = False

    def learner_keywords(self):
        """The keywords of the RLS / RankRLS learners for this basis."""
        return {"basis_indices": self.indices, "keep_basis_in_cv": self.keep_in_cv}


def basis_keywords(basis):
    """``basis.learner_keywords()``, or no keyword without a basis."""
    return {} if basis is None else basis.learner_keywords()


def basis_vectors(basis):
    """The basis vectors, or None without a basis."""
    return None if basis is None else basis.vectors


@dataclasses.dataclass
class LearnerSpec:
    """A learner family of the command line.

    Attributes
    ----------
    name : the ``--learner`` value
    help : one line for ``--help``
    train : callable(data, regparam, kernel, kernel_params, basis) -> trained learner
        with a ``predictor`` and ``predict`` (``basis``: the Nystrom basis vectors, rows
        of the training X, or None)
    cv : dict cv-name -> callable(data, grid, kernel, kernel_params, basis, measure,
        args) returning a selection object (``regparam``, ``cv_performances``,
        ``predictor``); each calls a selection class of :mod:`rlscore.learner`. These
        are the learner's own shortcuts; K-fold by query, leave-query-out and
        ``--valid`` are provided for every learner by
        :class:`rlscore.core.selection.PooledQueryCV` and
        :class:`~rlscore.core.selection.ValidationCV` (retraining through ``train`` in a
        :class:`~rlscore.core.selection.RefitModel` where ``holdout`` / ``solve`` say
        there is no shortcut).
    holdout : the trained learner has an exact hold-out of any set of rows
        (``holdout(rows)``, or ``holdout_rows(rows)`` where ``holdout`` takes one query:
        :func:`rlscore.core.selection.holdout_of`), so folds of whole queries need no
        refit
    solve : the trained learner has ``solve(regparam)`` reusing its decomposition
        (a validation file needs no refit)
    needs_qids : the training file must have ``qid:`` fields
    default_cv : the CV used when ``--regparams`` comes without ``--cv``
    default_measure : dict cv-name -> the CV measure when ``--measure`` is not given
    kernels : the ``--kernel`` values it accepts
    lambda_max : callable(data, kernel, kernel_params, basis) -> float, or None; the
        regparam above which the model is (numerically) zero; default grids go down
        from it
    tol : callable(tol or None) -> the solver tolerance in effect, or None when the
        learner has no iterative solver: ``--tol`` is then refused; otherwise ``train``
        and the ``cv`` callables take the keyword ``tol`` (see :meth:`with_tol`)
    given_tol : the ``--tol`` bound by :meth:`with_tol`, or None
    censored : a survival learner: the command runs it on right-censored data
        (``--time-column`` / ``--event-column``, :mod:`rlscore.cli._survival`)
    """

    name: str
    help: str
    train: object
    cv: dict
    holdout: bool = False
    solve: bool = False
    needs_qids: bool = False
    default_cv: str = "kfold"
    default_measure: dict = dataclasses.field(default_factory=dict)
    kernels: tuple = ("linear", "gaussian", "polynomial")
    lambda_max: object = None
    tol: object = None
    given_tol: object = None
    censored: bool = False

    def with_tol(self, tol):
        """This learner with ``tol`` passed to ``train`` and every ``cv`` callable
        (the same spec when ``tol`` is None: the solver's default)."""
        if tol is None:
            return self
        import functools
        return dataclasses.replace(
            self, train=functools.partial(self.train, tol=tol),
            cv={k: functools.partial(f, tol=tol) for k, f in self.cv.items()},
            given_tol=tol)

    def solver_tol(self):
        """The tolerance its solver runs with (given or default), None without one."""
        return None if self.tol is None else float(self.tol(self.given_tol))


LEARNERS = {}


def register_learner(spec):
    """Make ``--learner spec.name`` available to ``fit`` and ``cv``."""
    LEARNERS[spec.name] = spec


class UsageError(Exception):
    """A combination of options that cannot work (exit code 2)."""


class DataError(ValueError):
    """Bad input data (exit code 1)."""


# --------------------------------------------------------------------------- output


def _fmt(v):
    """A number as the command prints it: the shortest repr that reads back exactly."""
    return repr(float(v))


def _json_value(v):
    """A number for JSON output: None (null) for None, NaN and infinities."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None
