"""One progress mechanism for every learner and the command line.

Long work (a lambda grid, folds, solver iterations, parsing a file) reports through a
:class:`Progress` object:

* always as ``logging`` records of the logger ``"rlscore"`` (level DEBUG for each step,
  INFO for stages), so an application routes them like any other log;
* with ``verbose=True`` (learners) or on a terminal / ``--progress`` (CLI) also on
  stderr: a bar drawn by ``tqdm`` when it is installed (``pip install rlscore[progress]``),
  one line per stage otherwise.

Nothing is printed by default in the library. RLScore's ``callback(learner)`` objects keep
working beside it: they are the learners' business, this is the user's view.
"""

import logging
import sys
import time

__all__ = ["Progress", "logger", "progress"]

logger = logging.getLogger("rlscore")


class Progress:
    """Reporter of one piece of long work.

    Parameters
    ----------
    desc : str
        What is running ("lambda grid", "MINRES", "reading train.txt").
    total : int or None
        Number of steps when known (grid points, folds, maximum iterations).
    enabled : bool
        Draw on ``stream`` (a tqdm bar when available, else text lines); log records are
        emitted either way.
    stream : file object, default sys.stderr

    Notes
    -----
    ``step`` costs one logging call (cheap when the logger is not enabled for DEBUG) and,
    when enabled, one bar update; text lines are throttled to one per 0.5 s.
    """

    def __init__(self, desc, total=None, enabled=False, stream=None):
        self.desc, self.total, self.enabled = desc, total, bool(enabled)
        self.stream = sys.stderr if stream is None else stream
        self.count = 0
        self._bar = None
        self._last = 0.0
        self._t0 = time.perf_counter()
        logger.info("%s: started%s", desc, "" if total is None else f" ({total} steps)")
        if self.enabled:
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
        print(text, file=self.stream, flush=True)

    def step(self, n=1, **info):
        """``n`` steps done; ``info`` (e.g. ``residual=1e-4``, ``regparam=0.5``) is shown
        beside the count and logged."""
        self.count += n
        detail = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in info.items())
        logger.debug("%s: step %d%s%s", self.desc, self.count,
                     "" if self.total is None else f"/{self.total}",
                     f" ({detail})" if detail else "")
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            if detail:
                self._bar.set_postfix_str(detail, refresh=False)
            return
        now = time.perf_counter()
        if now - self._last >= 0.5 or (self.total is not None and self.count >= self.total):
            self._last = now
            of = "" if self.total is None else f"/{self.total}"
            self._write(f"{self.desc}: {self.count}{of}" + (f" ({detail})" if detail else ""))

    def close(self, message=None):
        """The work is done; ``message`` (e.g. the chosen lambda) is logged and shown."""
        secs = time.perf_counter() - self._t0
        text = f"{self.desc}: done in {secs:.2f} s" + (f", {message}" if message else "")
        logger.info("%s", text)
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self.enabled:
            self._write(text)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        elif self._bar is not None:
            self._bar.close()
            self._bar = None
        return False


def progress(desc, total=None, verbose=False, stream=None):
    """A :class:`Progress` (context manager): ``with progress("grid", 31, verbose) as p:
    ... p.step(regparam=lam)``."""
    return Progress(desc, total, verbose, stream)
