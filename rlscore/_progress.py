"""One progress mechanism for every learner and the command line.

Long work (a lambda grid, folds, solver iterations, a factorization, parsing a file)
reports through a :class:`Progress` object:

* always as ``logging`` records of the logger ``"rlscore"`` (level DEBUG for each step,
  INFO for stages), so an application routes them like any other log;
* with ``verbose=True`` (learners, estimators) or on a terminal / ``--progress`` (CLI)
  also on stderr: a bar drawn by ``tqdm`` when it is installed
  (``pip install rlscore[progress]``), one line per stage otherwise.

Nothing is printed by default in the library. A face (a learner or an estimator) runs
its work inside ``with verbosity(verbose):``; every :class:`Progress` created below it
without an explicit ``enabled`` (the stages of :mod:`rlscore.core`: kernel matrix,
factorization, lambda grid, solver iterations) then draws on stderr or stays silent
accordingly, so the flag need not be passed through every layer. RLScore's
``callback(learner)`` objects keep working beside it: they are the learners' business,
this is the user's view.
"""

import contextlib
import contextvars
import logging
import sys
import time

__all__ = ["Progress", "logger", "progress", "stage", "verbosity", "is_verbose",
           "as_verbose_flag"]

logger = logging.getLogger("rlscore")

_VERBOSE = contextvars.ContextVar("rlscore_verbose", default=False)


def as_verbose_flag(verbose, name="verbose"):
    """``verbose`` as a bool: True/False (numpy bools too) or the integers 0/1; any
    other value (a string such as "no", 2, a float) is refused with a TypeError
    rather than read as true."""
    import numpy as np
    if isinstance(verbose, (bool, np.bool_)):
        return bool(verbose)
    if isinstance(verbose, (int, np.integer)) and verbose in (0, 1):
        return bool(verbose)
    raise TypeError(f"{name} must be True or False, got {verbose!r}")


@contextlib.contextmanager
def verbosity(verbose):
    """Within the block, progress reports without an explicit ``enabled`` draw on
    stderr when ``verbose`` is true and stay silent (log records only) otherwise.

    Per thread and per asyncio task (a :class:`contextvars.ContextVar`); blocks nest,
    the innermost wins. ``verbose=None`` keeps the enclosing setting.
    """
    if verbose is None:
        yield
        return
    token = _VERBOSE.set(as_verbose_flag(verbose))
    try:
        yield
    finally:
        _VERBOSE.reset(token)


def is_verbose(verbose=None):
    """``verbose`` as a bool: the enclosing :func:`verbosity` when it is None."""
    return _VERBOSE.get() if verbose is None else as_verbose_flag(verbose)


def _format(info):
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in info.items())


class Progress:
    """Reporter of one piece of long work.

    Parameters
    ----------
    desc : str
        What is running ("lambda grid", "MINRES", "reading train.txt").
    total : int or None
        Number of steps when known (grid points, folds, maximum iterations).
    enabled : bool or None
        Draw on ``stream`` (a tqdm bar when available, else text lines); log records are
        emitted either way. None: as the enclosing :func:`verbosity` (default off).
    stream : file object, default sys.stderr
    bar : bool, default True
        False for a stage without steps (a factorization), or for one text line per
        step: never a bar.
    interval : float, default 0.5
        Least time in seconds between two text lines of steps (0: every step).

    Notes
    -----
    ``step`` costs one logging call (cheap when the logger is not enabled for DEBUG) and,
    when enabled, one bar update; text lines are throttled to one per ``interval``
    seconds (the first and the last step always show).
    """

    def __init__(self, desc, total=None, enabled=None, stream=None, bar=True,
                 interval=0.5):
        self.desc, self.total, self.enabled = desc, total, is_verbose(enabled)
        self.stream = sys.stderr if stream is None else stream
        self.count = 0
        self._bar = None
        self._last = 0.0
        self._pending = None
        self._interval = float(interval)
        self.closed = False
        self._t0 = time.perf_counter()
        logger.info("%s: started%s", desc, "" if total is None else f" ({total} steps)")
        if self.enabled:
            tqdm = None
            if bar:
                try:
                    from tqdm import tqdm
                except ImportError:
                    tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, desc=desc, file=self.stream, leave=False,
                                 dynamic_ncols=True, mininterval=0, miniters=1)
            else:
                self._write(f"{desc}: started")

    def _write(self, text):
        self.stream.write(text + "\n")
        self.stream.flush()

    def step(self, n=1, **info):
        """``n`` steps done; ``info`` (e.g. ``residual=1e-4``, ``regparam=0.5``) is shown
        beside the count and logged."""
        self.count += n
        if not self.enabled and not logger.isEnabledFor(logging.DEBUG):
            return
        detail = _format(info)
        logger.debug("%s: step %d%s%s", self.desc, self.count,
                     "" if self.total is None else f"/{self.total}",
                     f" ({detail})" if detail else "")
        if not self.enabled:
            return
        if self._bar is not None:
            if detail:
                self._bar.set_postfix_str(detail, refresh=False)
            self._bar.update(n)
            return
        of = "" if self.total is None else f"/{self.total}"
        line = f"{self.desc}: {self.count}{of}" + (f" ({detail})" if detail else "")
        now = time.perf_counter()
        if (self.count == n or now - self._last >= self._interval
                or (self.total is not None and self.count >= self.total)):
            self._last = now
            self._pending = None
            self._write(line)
        else:
            self._pending = line

    def close(self, message=None, **info):
        """The work is done; ``message`` (e.g. the chosen lambda) and ``info`` (e.g.
        ``iterations=12, residual=3e-9``) are logged and shown. Only the first call
        reports."""
        if self.closed:
            return
        self.closed = True
        secs = time.perf_counter() - self._t0
        parts = [p for p in (message, _format(info)) if p]
        text = f"{self.desc}: done in {secs:.2f} s" + ("".join(", " + p for p in parts))
        logger.info("%s", text)
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self.enabled:
            if self._pending is not None:      # the last throttled step
                self._write(self._pending)
                self._pending = None
            self._write(text)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        elif self._bar is not None:
            self._bar.close()
            self._bar = None
        self.closed = True
        return False


def progress(desc, total=None, verbose=None, stream=None):
    """A :class:`Progress` (context manager): ``with progress("grid", 31, verbose) as p:
    ... p.step(regparam=lam)``. ``verbose=None`` follows the enclosing
    :func:`verbosity`."""
    return Progress(desc, total, verbose, stream)


def stage(desc, verbose=None, stream=None):
    """One stage without steps (kernel matrix, eigendecomposition, ...), as a context
    manager: a log record and, when verbose, a line at its start and at its end;
    ``with stage("eigendecomposition (500 x 500)") as s: ...; s.close("rank 480")``
    adds a note to the end line."""
    return Progress(desc, None, verbose, stream, bar=False)
