"""The one table of measure names, taken by every face that names a measure by a string
(the command line's ``--measure``, the estimators' ``scoring``).

* ``ndcg@K`` (alias ``ndcg`` = ``ndcg@10``; ``ndcg@K:letor`` the same),
  ``ndcg@K:standard`` (scikit-learn's ``ndcg_score``), ``ndcg@K:lightgbm``,
  ``ndcg@K:xgboost`` and ``ndcg@K:xgboost-`` (the NDCG printed by LightGBM and by
  XGBoost's ``ndcg@K`` / ``ndcg@K-``): :func:`ndcg`, per query;
* ``p@K`` (alias ``precision_at_k`` = ``p@10``): :func:`precision_at_k`, per query;
* ``map`` (alias ``mean_average_precision``) and ``map@K`` (trec_eval's
  ``map_cut_K``): :func:`mean_average_precision`, per query;
* ``mrr`` (alias ``rr``, ``mean_reciprocal_rank``) and ``rr@K``:
  :func:`reciprocal_rank`, per query;
* ``err@K`` (alias ``err`` = ``err@10``): :func:`expected_reciprocal_rank` with the
  largest label of the input as the top grade, per query;
* ``meanndcg`` (alias ``mean_ndcg``): :func:`mean_ndcg`, per query;
* ``cindex``: :func:`cindex`, per query;
* ``auc`` (alias ``roc_auc``): :func:`auc` with 0/1 and boolean labels accepted, per
  query;
* ``sqerror`` (alias ``neg_mean_squared_error``), ``sqmprank``, ``spearman``, ``rm2``,
  ``kendall`` (alias ``kendall_tau_b``), ``accuracy``, ``fscore`` (alias ``f1``),
  ``ova_accuracy``: the functions of those names, over all rows (qids ignored).

Names are case-insensitive; ``K`` is a cutoff >= 1. The per-query measures score each
query on its own when given query ids (LETOR 4.0 rules for the IR measures, see
:mod:`rlscore.measure.ranking_measures`). ``auc`` by name follows scikit-learn's
convention (0/1 and booleans accepted besides -1/+1); the function
:func:`rlscore.measure.auc` keeps RLScore's -1/+1 contract unless ``zero_one=True``.
"""

import dataclasses
import re

__all__ = ["Measure", "measure_by_name", "MEASURE_NAMES"]

# kind -> (function name in rlscore.measure, per query, extra keywords of the function,
#          aliases naming the kind with its default parameters)
_KINDS = {
    "ndcg": ("ndcg", True, {}, ("ndcg",)),
    "p": ("precision_at_k", True, {}, ("precision_at_k",)),
    "map": ("mean_average_precision", True, {}, ("map", "mean_average_precision")),
    "rr": ("reciprocal_rank", True, {}, ("rr", "mrr", "mean_reciprocal_rank")),
    "err": ("expected_reciprocal_rank", True, {}, ("err",)),
    "meanndcg": ("mean_ndcg", True, {}, ("meanndcg", "mean_ndcg")),
    "cindex": ("cindex", True, {}, ("cindex",)),
    "auc": ("auc", True, {"zero_one": True}, ("auc", "roc_auc")),
    "sqerror": ("sqerror", False, {}, ("sqerror", "neg_mean_squared_error")),
    "sqmprank": ("sqmprank", False, {}, ("sqmprank",)),
    "spearman": ("spearman", False, {}, ("spearman",)),
    "rm2": ("rm2", False, {}, ("rm2",)),
    "kendall": ("kendall_tau_b", False, {}, ("kendall", "kendall_tau_b")),
    "accuracy": ("accuracy", False, {}, ("accuracy",)),
    "fscore": ("fscore", False, {}, ("fscore", "f1")),
    "ova_accuracy": ("ova_accuracy", False, {}, ("ova_accuracy",)),
}
_CUTOFF_KINDS = ("ndcg", "p", "err")      # a cutoff, 10 by default
_OPTIONAL_CUTOFF_KINDS = ("map", "rr")     # every rank unless named with a cutoff
_DEFAULT_K = 10
_ALIASES = {alias: kind for kind, (_, _, _, aliases) in _KINDS.items() for alias in aliases}
_NDCG_CONVENTIONS = "letor|standard|lightgbm|xgboost-|xgboost"
_CUTOFF = re.compile(rf"(ndcg|p|err|rr|map)@([0-9]+)(?::({_NDCG_CONVENTIONS}))?"
                     rf"|ndcg:({_NDCG_CONVENTIONS})", re.ASCII)

#: The names, as a help text.
MEASURE_NAMES = ("ndcg@K, ndcg@K:standard, ndcg@K:lightgbm, ndcg@K:xgboost, "
                 "ndcg@K:xgboost-, p@K, map, map@K, mrr, rr@K, err@K, meanndcg, cindex, "
                 "auc, sqerror, sqmprank, spearman, rm2, kendall, accuracy, fscore, "
                 "ova_accuracy (aliases: ndcg, precision_at_k, mean_average_precision, "
                 "rr, mean_reciprocal_rank, err, mean_ndcg, roc_auc, "
                 "neg_mean_squared_error, kendall_tau_b, f1)")


@dataclasses.dataclass(frozen=True)
class Measure:
    """A measure named in the table: callable ``measure(Y, P, qids=None)``.

    Attributes
    ----------
    name : str
        Canonical name, e.g. ``"ndcg@10"``, ``"p@5"``, ``"cindex"``.
    kind : str
        The table's key: "ndcg", "p", "map", "rr", "err", "meanndcg", "cindex", "auc",
        "sqerror", "sqmprank", "spearman", "rm2", "kendall", "accuracy", "fscore",
        "ova_accuracy".
    k : int or None
        The cutoff of "ndcg", "p" and "err"; of "map" and "rr" when named with one.
    convention : "letor" (= "letor4"), "letor3" (ndcg, p, map), or for ndcg
        "standard", "lightgbm", "xgboost", "xgboost-"
    """

    name: str
    kind: str
    k: object = None
    convention: str = "letor"

    @property
    def __name__(self):             # progress reports name the measure
        return self.name

    @property
    def function(self):
        """The library's function of this measure (:mod:`rlscore.measure`)."""
        from rlscore import measure as M
        return getattr(M, _KINDS[self.kind][0])

    @property
    def iserror(self):
        """True when smaller is better."""
        return bool(self.function.iserror)

    @property
    def per_query(self):
        """True when the measure scores each query on its own given query ids (the
        others ignore ``qids``)."""
        return _KINDS[self.kind][1]

    @property
    def pairwise(self):
        """True for the pairwise ranking accuracies (c-index, AUC)."""
        return self.kind in ("cindex", "auc")

    def keywords(self):
        """The keywords this name passes to :attr:`function`."""
        kw = dict(_KINDS[self.kind][2])
        if self.kind in ("ndcg", "p"):
            kw.update(k=self.k, convention=self.convention)
        elif self.kind == "map":
            kw.update(convention=self.convention, k=self.k)
        elif self.kind in ("rr", "err"):
            kw["k"] = self.k
        return kw

    def under(self, convention):
        """This measure under the LETOR ``convention`` ("letor4" or "letor3", e.g.
        ``rlscore evaluate --convention``): ndcg (not ``:standard``), p and map take it,
        the others are returned unchanged. ValueError for meanndcg under "letor3" (a
        LETOR 4.0 measure)."""
        if convention in (None, "letor", "letor4"):
            return self
        if self.kind == "meanndcg":
            raise ValueError(f"{self.name} is a LETOR 4.0 measure; the {convention} "
                             f"rules have none")
        if self.kind in ("p", "map") or (self.kind == "ndcg" and self.convention
                                         in ("letor", "letor4", "letor3")):
            return dataclasses.replace(self, convention=convention)
        return self

    def __call__(self, Y, P, qids=None):
        """The measure of predictions P for labels Y; per query (then the mean over
        queries) with ``qids`` (ids or QueryGroups) when :attr:`per_query`, else
        ``qids`` is ignored. Costs of the function."""
        if not self.per_query:
            return self.function(Y, P)
        return self.function(Y, P, qids, **self.keywords())

    def per_query_values(self, Y, P, groups):
        """Array (n_queries,) of the measure of each query (nan where it is undefined,
        e.g. the c-index of a query whose labels are all tied): the vectorised
        ``*_per_query`` functions (O(m log m)) for the IR measures and the c-index, a
        loop over queries (:func:`rlscore.measure.query_values`) for the others."""
        from rlscore import measure as M
        fast = M.PER_QUERY.get(self.kind)
        if fast is None:
            return M.query_values(self.function, Y, P, groups, **_KINDS[self.kind][2])
        kw = {k: v for k, v in self.keywords().items() if k in ("k", "convention")}
        return fast(Y, P, groups, **kw)


def measure_by_name(name, what="measure"):
    """The :class:`Measure` of a name of the table (case-insensitive).

    Parameters
    ----------
    name : str
        ``"ndcg@5"``, ``"ndcg@5:standard"``, ``"ndcg@10:lightgbm"``, ``"p@5"``,
        ``"map"``, ``"map@10"``, ``"mrr"``, ``"err@10"``, ``"cindex"``, ...
    what : str
        How the caller calls the argument (e.g. ``"scoring"``, ``"--measure"``), in
        the error message.

    Raises
    ------
    TypeError
        ``name`` is not a string.
    ValueError
        An unknown name or a cutoff below 1 (the message lists the names).
    """
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a measure name (str), got {name!r}")
    t = name.strip().lower()
    kind = _ALIASES.get(t)
    if kind is not None:
        k = _DEFAULT_K if kind in _CUTOFF_KINDS else None
        return Measure(_canonical(kind, k, "letor"), kind, k)
    m = _CUTOFF.fullmatch(t)
    if m is None:
        raise ValueError(f"{what} {name!r}: unknown measure (choose from "
                         f"{MEASURE_NAMES})")
    if m.group(4) is not None:                      # "ndcg:standard"
        kind, k, conv = "ndcg", _DEFAULT_K, m.group(4)
    else:
        kind, k, conv = m.group(1), int(m.group(2)), m.group(3) or "letor"
    if kind != "ndcg" and m.group(3) is not None:
        raise ValueError(f"{what} {name!r}: only ndcg takes a convention")
    if k < 1:
        raise ValueError(f"{what} {name!r}: the cutoff must be at least 1")
    return Measure(_canonical(kind, k, conv), kind, k, conv)


def _canonical(kind, k, convention):
    if kind == "rr" and k is None:
        return "mrr"
    if k is None:
        return kind
    return f"{kind}@{k}" + ("" if convention in ("letor", "letor4") else f":{convention}")
