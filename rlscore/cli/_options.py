"""Parsers of the command line's values: ``--measure`` and the regparam grids.

One parser per kind of value, used by every subcommand that takes it.

``--measure``: a comma-separated list of

=====================  ==================================================================
``ndcg@K``             NDCG@K, LETOR 4.0 rules (:func:`rlscore.measure.ndcg`); ``ndcg``
                       is ``ndcg@10``
``ndcg@K:standard``    NDCG@K as scikit-learn's ``ndcg_score`` (``convention="standard"``)
``p@K``                precision at K, LETOR 4.0 rules
``map``                mean average precision, LETOR 4.0 rules
``meanndcg``           LETOR 4.0 MeanNDCG (mean of NDCG@1..n per query)
``cindex``, ``auc``    pairwise ranking accuracy (pairs inside a query when there are qids)
``sqerror``            mean squared error (qids ignored)
``spearman``,          rank correlations over the whole file (qids ignored)
``kendall``
=====================  ==================================================================

Every measure is computed per query (then averaged over queries) when the file has
``qid:`` fields, except the last three.

Grids (``--regparams``) are comma-separated items, each a number (``0.01``, ``1e-3``), a
power (``2^-10``) or a range of powers ``B^LO..B^HI[:STEP]`` (``2^-10..2^10`` is
2^-10, 2^-9, ..., 2^10; ``2^-10..2^10:2`` steps the exponent by 2). ``--regparam``
takes one number or power.
"""

import dataclasses
import re

import numpy as np

__all__ = ["MeasureSpec", "parse_measures", "parse_measure", "parse_grid",
           "parse_regparam", "OptionError"]


class OptionError(ValueError):
    """A malformed option value (the caller turns it into a usage error)."""


@dataclasses.dataclass(frozen=True)
class MeasureSpec:
    """One ``--measure`` item.

    Attributes
    ----------
    name : canonical text, e.g. ``"ndcg@10"``
    kind : "ndcg", "p", "map", "meanndcg", "cindex", "auc", "sqerror", "spearman",
        "kendall"
    k : cutoff or None
    convention : "letor" or "standard" (ndcg only)
    """

    name: str
    kind: str
    k: object = None
    convention: str = "letor"

    @property
    def iserror(self):
        return self.kind == "sqerror"

    @property
    def per_query(self):
        """True when the measure is computed per query for files with qids."""
        return self.kind not in ("sqerror", "spearman", "kendall")

    @property
    def pairwise(self):
        return self.kind in ("cindex", "auc")

    def _functions(self):
        """(the library's measure f(y, p[, qids], **kw), its vectorised per-query
        function or None, kw)."""
        from rlscore import measure as M
        whole = {
            "ndcg": M.ndcg, "p": M.precision_at_k, "map": M.mean_average_precision,
            "meanndcg": M.mean_ndcg, "cindex": M.cindex, "auc": M.auc,
            "sqerror": M.sqerror, "spearman": M.spearman, "kendall": M.kendall_tau_b,
        }[self.kind]
        per_query = M.PER_QUERY.get(self.kind)
        kw = {"ndcg": {"k": self.k, "convention": self.convention},
              "p": {"k": self.k}}.get(self.kind, {})
        return whole, per_query, kw

    def __call__(self, y, p, qids=None):
        """The measure of predictions p for labels y (qids: QueryGroups, ids or None;
        ignored by the measures that are not per query)."""
        whole, _, kw = self._functions()
        if not self.per_query:
            return whole(y, p)
        return whole(y, p, qids, **kw)

    def per_query_values(self, y, p, groups):
        """Array (n_groups,) of the measure of each query (nan where it is undefined,
        e.g. the c-index of a query whose labels are all equal), from the per-query
        functions of :mod:`rlscore.measure`: O(m log m) for the IR measures and the
        c-index, a loop over queries (:func:`rlscore.measure.query_values`) for the
        others."""
        from rlscore import measure as M
        _, per_query, kw = self._functions()
        if per_query is None:
            return M.query_values(self, y, p, groups)
        return per_query(y, p, groups, **kw)


_SIMPLE = {"map": "map", "meanndcg": "meanndcg", "cindex": "cindex", "auc": "auc",
           "sqerror": "sqerror", "spearman": "spearman", "kendall": "kendall"}
_CUTOFF = re.compile(r"(ndcg|p)(?:@([0-9]+))?(?::(letor|standard))?", re.ASCII)

MEASURE_HELP = ("ndcg@K, ndcg@K:standard, p@K, map, meanndcg, cindex, auc, sqerror, "
                "spearman, kendall")


def parse_measure(text):
    """One ``--measure`` item -> :class:`MeasureSpec`; OptionError when malformed."""
    t = text.strip().lower()
    if t in _SIMPLE:
        return MeasureSpec(t, _SIMPLE[t])
    m = _CUTOFF.fullmatch(t)
    if m is None:
        raise OptionError(f"--measure {text!r}: unknown measure (choose from "
                          f"{MEASURE_HELP})")
    kind, k, conv = m.group(1), m.group(2), m.group(3)
    if kind == "p" and conv is not None:
        raise OptionError(f"--measure {text!r}: only ndcg takes a convention")
    k = 10 if k is None else int(k)
    if k < 1:
        raise OptionError(f"--measure {text!r}: the cutoff must be at least 1")
    name = f"{kind}@{k}" + (":standard" if conv == "standard" else "")
    return MeasureSpec(name, kind, k, conv or "letor")


def parse_measures(text):
    """A comma-separated ``--measure`` list -> list of :class:`MeasureSpec` (duplicates
    removed, order kept)."""
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


def _value(text, option):
    t = text.strip()
    m = _POWER.fullmatch(t)
    if m:
        v = float(m.group(1)) ** float(m.group(2))
    elif _PLAIN.fullmatch(t):
        v = float(t)
    else:
        raise OptionError(f"{option} {text!r}: expected a number such as 0.01 or a power "
                          f"such as 2^-10")
    if not np.isfinite(v) or v <= 0:
        raise OptionError(f"{option} {text!r}: expected a positive finite number")
    from rlscore._validation import check_regparam
    try:
        check_regparam(v, name=option)
    except ValueError as exc:
        raise OptionError(str(exc)) from None
    return v


def parse_regparam(text, option="--regparam"):
    """One regularization parameter: ``0.5``, ``1e-3`` or ``2^-10``."""
    return _value(text, option)


def parse_grid(text, option="--regparams"):
    """A grid: comma-separated numbers, powers and ranges of powers (see the module
    docstring); duplicates are kept in the order given. At most 10000 values."""
    values = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        m = _RANGE.fullmatch(item)
        if m is None:
            values.append(_value(item, option))
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
            values.append(_value(f"{base!r}^{float(e)!r}", option))
    if not values:
        raise OptionError(f"{option} {text!r}: expected numbers separated by commas, "
                          f"e.g. 0.01,0.1,1 or 2^-10..2^10")
    return values
