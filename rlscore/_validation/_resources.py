"""Refusing work before allocating it (memory estimates against what is available), and
warnings pointed at the user's call."""

import os
import sys
import warnings

from rlscore._memory import estimate_peak_bytes

def available_memory():
    """Bytes of memory available to this process (MemAvailable), or None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(n_bytes, what, remedy=None):
    """Refuse, before allocating, work whose dense arrays would not fit in memory.

    Raises MemoryError naming ``what``, the estimate and the way out (``remedy``, by
    default the Nystrom / conjugate-gradient advice) when ``n_bytes`` exceeds the
    memory currently available.
    """
    # looked up on the package, so that replacing rlscore._validation.available_memory
    # (as the memory-refusal tests do) reaches every checker
    avail = sys.modules["rlscore._validation"].available_memory()
    if avail is not None and n_bytes > avail:
        raise MemoryError(
            f"{what} needs about {format_bytes(n_bytes)} (estimated peak) but only "
            f"{format_bytes(avail)} is available; {remedy or _DEFAULT_REMEDY}")


def format_bytes(n):
    """``n`` bytes as GiB (one GiB or more) or MiB, two decimals."""
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.2f} MiB"


def user_stacklevel():
    """The ``stacklevel`` that points a warning issued by the caller of this function
    at the first frame outside the rlscore package (the user's call), so that Python's
    default filter shows it once per line of the user's code."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("rlscore"):
        frame, level = frame.f_back, level + 1
    return level


def warn_unused_kwargs(kwargs, used, owner, stacklevel=3):
    """Emit one UserWarning naming the keyword arguments that ``owner`` ignores."""
    unused = sorted(k for k in kwargs if k not in used)
    if unused:
        warnings.warn(
            f"{owner} ignores the keyword argument(s) {', '.join(unused)}",
            UserWarning, stacklevel=stacklevel)
    return unused


_REMEDY = {
    "kronecker": "train on a sample of the pairs with CGKronRLS (label_row_inds / "
                 "label_col_inds), which never forms n1 x n2 arrays",
}


_DEFAULT_REMEDY = ("use a Nystrom / reduced-set model (basis_vectors=..., or n_basis= "
                   "in the estimators), the conjugate-gradient learners (CGRLS, "
                   "CGRankRLS) or a linear kernel, which never form m x m matrices")


def check_peak_memory(path, m, n2=None, what=None):
    """Refuse (MemoryError), before allocating, a dense path whose estimated peak
    (:func:`estimate_peak_bytes`) exceeds the available memory; the message gives the
    estimate and the way out (Nystrom basis vectors, conjugate gradient)."""
    if what is None:
        what = (f"the {m} x {n2} complete-data Kronecker solver" if path == "kronecker"
                else f"{path.replace('_', ' ')} on {m} examples")
    check_memory(estimate_peak_bytes(path, m, n2), what,
                 _REMEDY.get(path, _DEFAULT_REMEDY))
