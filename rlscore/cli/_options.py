"""Parsers of the command line's values: ``--measure`` and the regparam grids.

One parser per kind of value, used by every subcommand that takes it.

``--measure``: a comma-separated list of names from the library's one table of measure
names (:func:`rlscore.measure.measure_by_name`, the names the estimators' ``scoring``
takes too): ``ndcg@K`` (LETOR 4.0 rules; ``ndcg`` is ``ndcg@10``), ``ndcg@K:standard``
(scikit-learn's ``ndcg_score``), ``p@K``, ``map``, ``meanndcg``, ``cindex``, ``auc``
(pairwise ranking accuracy, pairs inside a query when there are qids), ``sqerror``,
``spearman``, ``kendall`` and the others of the table, with their aliases
(``mean_average_precision``, ``precision_at_k``, ``kendall_tau_b``, ``roc_auc``, ...).
The per-query measures are computed per query (then averaged over queries) when the
file has ``qid:`` fields; ``sqerror``, ``spearman``, ``kendall`` and the classification
measures over the whole file.

Grids (``--regparams``) are comma-separated items, each a number (``0.01``, ``1e-3``), a
power (``2^-10``) or a range of powers ``B^LO..B^HI[:STEP]`` (``2^-10..2^10`` is
2^-10, 2^-9, ..., 2^10; ``2^-10..2^10:2`` steps the exponent by 2). ``--regparam``
takes one number or power.
"""

import re

import numpy as np

from rlscore.cli._base import UsageError
from rlscore.measure import MEASURE_NAMES, measure_by_name

__all__ = ["parse_measures", "parse_measure", "parse_grid", "parse_regparam",
           "parse_memory_budget", "parse_tol", "OptionError", "MEASURE_HELP"]


class OptionError(ValueError):
    """A malformed option value (the caller turns it into a usage error)."""


#: The names ``--measure`` takes (the library's table, :data:`rlscore.measure.MEASURE_NAMES`).
MEASURE_HELP = MEASURE_NAMES


def parse_measure(text):
    """One ``--measure`` item -> :class:`rlscore.measure.Measure`; OptionError when
    malformed."""
    try:
        return measure_by_name(text, "--measure")
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def parse_measures(text):
    """A comma-separated ``--measure`` list -> list of
    :class:`rlscore.measure.Measure` (duplicates removed, order kept)."""
    items = [s for s in text.split(",") if s.strip()]
    if not items:
        raise OptionError("--measure is empty")
    out = []
    for s in items:
        spec = parse_measure(s)
        if spec not in out:
            out.append(spec)
    return out


_NUM = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_POWER = re.compile(rf"({_NUM})\^({_NUM})", re.ASCII)
_RANGE = re.compile(rf"({_NUM})\^({_NUM})\.\.({_NUM})\^({_NUM})(?::({_NUM}))?", re.ASCII)
_PLAIN = re.compile(_NUM, re.ASCII)


def _value(text, option, check=True):
    t = text.strip()
    m = _POWER.fullmatch(t)
    if m:
        try:
            v = float(m.group(1)) ** float(m.group(2))
        except OverflowError:
            raise OptionError(f"{option} {text!r}: the power overflows a float64 "
                              f"(at most about 1.8e308)") from None
    elif _PLAIN.fullmatch(t):
        v = float(t)
    else:
        raise OptionError(f"{option} {text!r}: expected a number such as 0.01 or a power "
                          f"such as 2^-10")
    if not check:               # a grid value: checked with its grid, once
        return v
    from rlscore._validation import check_regparam
    try:        # the library's one regparam check: [0, MAX_REGPARAM], as every face
        check_regparam(v, name=f"{option} {text!r}")
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    return v


def parse_regparam(text, option="--regparam"):
    """One regularization parameter: ``0.5``, ``1e-3`` or ``2^-10``."""
    return _value(text, option)


def parse_grid(text, option="--regparams"):
    """A grid: comma-separated numbers, powers and ranges of powers (see the module
    docstring), in the order given; a value given twice is refused
    (:func:`rlscore._validation.check_regparam_grid`, the check of every face's grid).
    At most 10000 values."""
    values = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        m = _RANGE.fullmatch(item)
        if m is None:
            values.append(_value(item, option, check=False))
            continue
        b1, lo, b2, hi, step = m.groups()
        if float(b1) != float(b2):
            raise OptionError(f"{option} {item!r}: both ends of a range need the same "
                              f"base")
        base, lo, hi = float(b1), float(lo), float(hi)
        step = 1.0 if step is None else float(step)
        if not base > 0 or base == 1 or step <= 0:
            raise OptionError(f"{option} {item!r}: needs a positive base other than 1 "
                              f"and a positive step")
        if hi < lo:
            raise OptionError(f"{option} {item!r}: the range must increase "
                              f"(write {b1}^{hi:g}..{b1}^{lo:g})")
        n = int(np.floor((hi - lo) / step + 1e-9)) + 1
        if n > 10000:
            raise OptionError(f"{option} {item!r}: more than 10000 values")
        for e in lo + step * np.arange(n):
            values.append(_value(f"{base!r}^{float(e)!r}", option, check=False))
    if not values:
        raise OptionError(f"{option} {text!r}: expected numbers separated by commas, "
                          f"e.g. 0.01,0.1,1 or 2^-10..2^10")
    from rlscore._validation import check_regparam_grid
    try:
        return check_regparam_grid(values, option)
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def parse_tol(text, option="--tol"):
    """A solver tolerance: a finite number in (0, 1), checked by the library's one
    check (:func:`rlscore._validation.check_tol`); OptionError otherwise."""
    if not _PLAIN.fullmatch(text.strip()):
        raise OptionError(f"{option} {text!r}: expected a number in (0, 1), e.g. 1e-6")
    from rlscore._validation import check_tol
    try:
        return check_tol(float(text), option)
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def parse_memory_budget(text, option="--memory-budget"):
    """``--memory-budget``: a number of MiB bounding the peak resident set of the
    whole process, ``auto`` (the process's memory plus half the available memory;
    also when the option is not given, ``text`` None) or ``none``
    (no limit) -> the ``memory_budget`` of the library's faces, checked by their one
    check (:class:`rlscore.core.nystrom.ComputePlan`)."""
    if text is None:
        return "auto"
    t = text.strip().lower()
    if t in ("auto", "none"):
        return None if t == "none" else "auto"
    if not _PLAIN.fullmatch(t):
        raise OptionError(f"{option} {text!r}: expected a number of MiB for the whole "
                          f"process (e.g. 2048), auto or none")
    from rlscore.core.nystrom import ComputePlan
    try:
        ComputePlan(memory_budget=float(t))
    except ValueError as exc:
        raise OptionError(f"{option} {text!r}: {exc}") from None
    return float(t)


def _usage(fn, *a):
    """``fn(*a)``, an :class:`OptionError` turned into the command's usage error."""
    try:
        return fn(*a)
    except OptionError as exc:
        raise UsageError(str(exc)) from None
