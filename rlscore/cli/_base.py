"""Shared pieces of the command: the progress display, the learner and kernel
registries, and the two error kinds (usage: exit 2; data: exit 1)."""

import dataclasses
import sys
import threading
import time

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
    train : callable(data, regparam, kernel, kernel_params, basis) -> trained learner
        with a ``predictor`` (``basis``: row indices of Nystrom basis vectors or None)
    cv : dict cv-name -> callable(data, grid, kernel, kernel_params, basis, measure,
        args) returning a selection object (``regparam``, ``cv_performances``,
        ``predictor``); each calls a selection class of :mod:`rlscore.learner`. These
        are the learner's own shortcuts; K-fold by query and leave-query-out without a
        shortcut are provided for every learner by :mod:`rlscore.cli._select`.
    holdout : the trained learner has an exact ``holdout(rows)`` for any set of rows
        (folds of whole queries need no refit)
    solve : the trained learner has ``solve(regparam)`` reusing its decomposition
        (a validation file needs no refit)
    needs_qids : the training file must have ``qid:`` fields
    default_cv : the CV used when ``--regparams`` comes without ``--cv``
    default_measure : dict cv-name -> the CV measure when ``--measure`` is not given
    kernels : the ``--kernel`` values it accepts
    lambda_max : callable(data, kernel, kernel_params, basis) -> float, or None; the
        regparam above which the model is (numerically) zero; default grids go down
        from it
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


LEARNERS = {}


def register_learner(spec):
    """Make ``--learner spec.name`` available to ``fit`` and ``cv``."""
    LEARNERS[spec.name] = spec


class UsageError(Exception):
    """A combination of options that cannot work (exit code 2)."""


class DataError(ValueError):
    """Bad input data (exit code 1)."""
