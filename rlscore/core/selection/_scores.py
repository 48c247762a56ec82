"""Per-query scoring: the one rule of every per-query estimate of the library."""

import inspect
import warnings

import numpy as np

__all__ = ["query_score", "defined_queries"]


def _undefined():
    from rlscore.measure.measure_utilities import UndefinedPerformance
    return UndefinedPerformance



def _takes_qids(measure):
    try:
        params = inspect.signature(measure).parameters
    except (TypeError, ValueError):
        return False
    return "qids" in params or "qid" in params


def query_score(measure, Y, P, groups):
    """``measure`` applied per query and averaged over queries.

    The rule for every per-query estimate of the library: the c-index through
    :func:`rlscore.measure.query_cindex` (one grouped O(m log m) pass); a measure that
    takes query ids itself (a parameter ``qids``) is called with them and follows its
    own documented convention; any other measure through
    :func:`rlscore.measure.query_average` (each query scored on its own, queries where
    the measure is undefined whatever the predictions -- e.g. without a pair --
    skipped, every other query weighted equally).

    Parameters
    ----------
    measure : f(Y, P) with ``iserror``
    Y, P : (m,) or (m, p)
    groups : QueryGroups, or query ids of length m

    Raises
    ------
    UndefinedPerformance
        The measure is undefined on every query.
    """
    from rlscore import measure as _measures
    # a QueryGroups goes down whole: the measures take it as their qids (not encoded
    # again at every grid point)
    if measure is _measures.cindex:
        return float(_measures.query_cindex(Y, P, groups))
    if _takes_qids(measure):
        return float(measure(Y, P, qids=groups))
    return float(_measures.query_average(measure, Y, P, groups))


def defined_queries(measure, Y, groups):
    """Which queries :func:`query_score` scores: a boolean per query, False where it
    skips the query because ``measure`` is undefined on it whatever the predictions
    (one document, or all labels tied, for the c-index).

    The rule is :func:`query_score`'s own: a query is defined when ``query_score``
    gives it a value alone, with its labels as the predictions (a measure that is
    undefined on a query with these predictions is undefined with any). Every face
    that holds queries out skips the same queries: the cross-validators here through
    ``query_score``, a scikit-learn search through
    :class:`rlscore.estimators.QuerySplitter`.

    Parameters
    ----------
    measure : f(Y, P) with ``iserror``, as for :func:`query_score`
    Y : (m,) or (m, p) labels
    groups : QueryGroups, or query ids of length m

    Returns
    -------
    ndarray of bool, shape (n_groups,), in the order of the query codes

    Notes
    -----
    One ``query_score`` call per query: O(m log m) in all for the c-index, plus a
    Python call per query.
    """
    from rlscore._groups import as_query_groups
    Y = np.asarray(Y)
    groups = as_query_groups(groups, Y.shape[0], "groups")
    UndefinedPerformance = _undefined()
    defined = np.zeros(groups.n_groups, dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # a probe: e.g. NDCG@k's short-query note
        for q, rows in enumerate(groups.split()):
            try:
                query_score(measure, Y[rows], Y[rows].astype(np.float64),
                            np.zeros(rows.size, dtype=np.intp))
            except UndefinedPerformance:
                continue
            defined[q] = True
    return defined


def _score(measure, Y, P, groups):
    """Per query when ``groups`` is given, else the measure itself."""
    if groups is None:
        return measure(Y, P)
    return query_score(measure, Y, P, groups)


def groups_of(groups, m):
    """The QueryGroups of ``m`` rows (None stays None): encoded once, when a
    cross-validator is built, never per grid value. O(m log m)."""
    from rlscore._groups import as_query_groups
    return as_query_groups(groups, m, "groups")


def subset_groups(groups, rows_list):
    """The QueryGroups of each row subset (a fold, a test set), built once: the codes
    of the rows, encoded per subset. None for every subset without groups."""
    from rlscore._groups import QueryGroups
    if groups is None:
        return [None] * len(rows_list)
    return [QueryGroups.from_qids(groups.codes[np.asarray(rows)]) for rows in rows_list]


def _mean_of_defined(perfs, what):
    if not perfs:
        raise _undefined()(f"the measure is undefined on every {what}")
    return float(np.mean(perfs))


