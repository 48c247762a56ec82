"""Concordance of risk scores with right-censored survival times: Harrell's C and Uno's
IPCW C, with scikit-survival's signatures, return values and tie rules.

A risk score is "higher risk = earlier event" throughout, as in scikit-survival: a
model is concordant on a pair when the row whose event comes first has the higher risk.

Comparable pairs (Harrell 1982; scikit-survival's rule for tied times): (i, j) with i
an observed event and either t_i < t_j, or t_i == t_j and j censored (an event at time
t happens before a censoring at t). Two censored rows, and two events at the same time,
are never comparable. The pairs with t_i == t_j are the "tied time" count.

Risk ties: a comparable pair with ``|r_j - r_i| <= tied_tol`` (floating-point
difference, as scikit-survival evaluates it) is tied in risk and counts 1/2;
otherwise it is concordant when r_i > r_j and discordant when r_i < r_j.

lifelines: ``lifelines.utils.concordance_index(event_times, predicted_scores,
event_observed)`` scores "higher = longer survival" -- pass ``-risk``. It has the same
comparable pairs (an event and a censoring at one time included) but ties risks only
when they are exactly equal: it equals this module with ``tied_tol=0`` (and with the
default whenever no two risks differ by 0 < abs(d) <= 1e-8).
"""

import numpy as np

from rlscore._ext import _survival
from rlscore._validation import check_real, check_survival

__all__ = ["concordance_index_censored", "concordance_index_ipcw", "survival_outcomes"]


def _estimate(estimate, m):
    e = np.asarray(estimate)
    if e.dtype == object or e.dtype == np.bool_ or not np.issubdtype(e.dtype, np.number) \
            or np.iscomplexobj(e):
        raise ValueError("estimate must be real numeric risk scores")
    if e.ndim == 2 and 1 in e.shape:
        e = e.ravel()
    if e.ndim != 1 or e.size != m:
        raise ValueError(f"estimate must be 1-D with one risk score per row ({m}), got "
                         f"shape {e.shape}")
    e = np.ascontiguousarray(e, dtype=np.float64)
    if not np.all(np.isfinite(e)):
        raise ValueError("estimate contains NaN or infinity")
    return e


def survival_outcomes(y, name="survival"):
    """(event, time) from a structured array whose first field is the event indicator
    and second the time (scikit-survival's ``Surv.from_arrays`` layout), or from a pair
    ``(event, time)``. ValueError naming ``name`` otherwise. O(m)."""
    arr = np.asarray(y) if not isinstance(y, (tuple, list)) else None
    if arr is not None and arr.dtype.names is not None:
        if len(arr.dtype.names) != 2:
            raise ValueError(f"{name} must be a structured array with two fields "
                             f"(event, time), got fields {arr.dtype.names}")
        ev, t = arr[arr.dtype.names[0]], arr[arr.dtype.names[1]]
    elif isinstance(y, (tuple, list)) and len(y) == 2:
        ev, t = y
    else:
        raise ValueError(f"{name} must be a structured array of (event, time) fields or "
                         f"a pair (event, time)")
    return check_survival(ev, t, event_name=f"{name}[event]", time_name=f"{name}[time]")


def _concordance(event, time, estimate, weights, tied_tol):
    """(numerator, denominator, concordant, discordant, tied_risk, tied_time): the
    weighted Harrell counts, O(m log m)."""
    tol = check_real(tied_tol, "tied_tol", minimum=0)
    order = np.argsort(time, kind="stable")
    uniq, rank = np.unique(estimate[order], return_inverse=True)
    return _survival.censored_concordance(
        np.ascontiguousarray(time[order]), event[order].view(np.uint8),
        np.ascontiguousarray(rank, dtype=np.intp), uniq,
        np.ascontiguousarray(weights[order], dtype=np.float64), tol)


def _result(counts):
    num, den, con, dis, tie, ttime = counts
    if con + dis + tie == 0:
        raise ValueError("the data have no comparable pairs (an event earlier than "
                         "another time, or at the time of a censoring): the "
                         "concordance index is undefined")
    if den == 0:
        raise ValueError("every comparable pair has weight 0 (no event before tau): "
                         "the concordance index is undefined")
    return float(num / den), con, dis, tie, ttime


def concordance_index_censored(event_indicator, event_time, estimate, tied_tol=1e-8):
    """Harrell's concordance index for right-censored data, scikit-survival's
    ``sksurv.metrics.concordance_index_censored``.

    Higher risk = earlier event: a comparable pair (i, j), i an observed event with
    t_i < t_j (or t_i == t_j and j censored), is concordant when the risk of i is
    higher than that of j, tied when the two risks differ by at most ``tied_tol``
    (counts 1/2), discordant otherwise.

    Parameters
    ----------
    event_indicator : (m,) bool or 0/1
        True (1) when the event was observed, False (0) when the time is a censoring.
    event_time : (m,) float >= 0
        Time of the event or of censoring.
    estimate : (m,) float
        Risk scores, higher risk = earlier event.
    tied_tol : float >= 0, default 1e-8
        Risks whose difference is at most this are tied.

    Returns
    -------
    cindex : float
        (concordant + tied_risk / 2) / comparable pairs.
    concordant, discordant, tied_risk, tied_time : int
        Comparable pairs ordered as the times, ordered against them, tied in risk;
        tied_time counts the comparable pairs with equal times (an event and a
        censoring at one time).

    Raises
    ------
    ValueError
        Bad input (the message names it) or no comparable pair (all rows censored, or
        no event before another time); scikit-survival raises its
        ``NoComparablePairException``, a ValueError, in the same cases, and returns NaN
        where its comparable set is non-empty but holds no pair (events tied only with
        events at the last time).

    Notes
    -----
    O(m log m) time, O(m) memory: one sort by time, then a Fenwick tree over the risk
    ranks, walking the times from the latest (:mod:`rlscore._ext._survival`);
    scikit-survival's own loop is O(m x events). Equal to scikit-survival to rounding
    (the counts exactly); to lifelines' ``concordance_index(time, -estimate, event)``
    with ``tied_tol=0`` (see the module docstring).
    """
    event, time = check_survival(event_indicator, event_time,
                                 event_name="event_indicator", time_name="event_time")
    est = _estimate(estimate, time.size)
    if not event.any():
        raise ValueError("all samples are censored: the concordance index is undefined")
    return _result(_concordance(event, time, est, np.ones(time.size), tied_tol))


def _censoring_survival(event, time):
    """The Kaplan-Meier estimate of the censoring distribution ("reverse" KM: a
    censoring is the event, and events at a time t leave the risk set before the
    censorings at t), as scikit-survival's ``CensoringDistributionEstimator``:
    (times, G) with a leading (-inf, 1) unless every row is an event (then G = 1).
    O(m log m)."""
    uniq, inv, n_at = np.unique(time, return_inverse=True, return_counts=True)
    if event.all():
        return uniq, np.ones(uniq.size)
    n_event = np.bincount(inv, weights=event, minlength=uniq.size)
    n_cens = n_at - n_event
    at_risk = np.cumsum(n_at[::-1])[::-1] - n_event     # at risk after the events at t
    ratio = np.divide(n_cens, at_risk, out=np.zeros(uniq.size), where=at_risk != 0)
    return np.r_[-np.inf, uniq], np.r_[1.0, np.cumprod(1.0 - ratio)]


def _censoring_at(times, G, t):
    """G at the times t (a step function, right-continuous: the value at the last
    knot <= t; a knot within machine epsilon of t counts as equal, as in
    scikit-survival). ValueError beyond the last knot when G is positive there."""
    extends = t > times[-1]
    if G[-1] > 0 and extends.any():
        raise ValueError(f"survival_test has event times beyond the largest time of "
                         f"survival_train ({times[-1]}): the censoring distribution is "
                         f"not estimated there")
    out = np.zeros(t.size)
    tv = t[~extends]
    idx = np.searchsorted(times, tv)
    exact = np.abs(times[idx] - tv) < np.finfo(np.float64).eps
    idx[~exact] -= 1
    out[~extends] = G[idx]
    return out


def concordance_index_ipcw(survival_train, survival_test, estimate, tau=None,
                           tied_tol=1e-8):
    """Uno's concordance index with inverse probability of censoring weights,
    scikit-survival's ``sksurv.metrics.concordance_index_ipcw``.

    Higher risk = earlier event. Harrell's comparable pairs of the test data (see
    :func:`concordance_index_censored`), each weighted by 1 / G(t_i)^2, G the
    Kaplan-Meier estimate of the censoring distribution on the training data at the
    time of the pair's event i; with ``tau``, pairs whose event time is >= tau get
    weight 0 (the C truncated at tau).

    Parameters
    ----------
    survival_train, survival_test : structured arrays (event, time), or pairs
        ``(event, time)`` -- event bool or 0/1, time >= 0 (scikit-survival's
        ``Surv.from_arrays`` layout: the first field is the event indicator).
    estimate : (m_test,) float
        Risk scores of the test rows, higher risk = earlier event.
    tau : float, optional
        Truncation time.
    tied_tol : float >= 0, default 1e-8

    Returns
    -------
    cindex : float
        sum_i w_i (concordant_i + tied_i / 2) / sum_i w_i comparable_i.
    concordant, discordant, tied_risk, tied_time : int
        The unweighted counts over all comparable test pairs (tau does not change
        them), as scikit-survival returns them.

    Raises
    ------
    ValueError
        Bad input; no comparable pair; no event before tau (scikit-survival returns
        NaN there); a test event time beyond the last training time where the
        censoring estimate is still positive, or where it is 0 (as scikit-survival).

    Notes
    -----
    O((m_train + m_test) log(m_train + m_test)). Equal to scikit-survival to rounding.
    """
    ev_tr, t_tr = survival_outcomes(survival_train, "survival_train")
    ev, t = survival_outcomes(survival_test, "survival_test")
    est = _estimate(estimate, t.size)
    if not ev.any():
        raise ValueError("all samples of survival_test are censored: the concordance "
                         "index is undefined")
    use = ev.copy()
    if tau is not None:
        use &= t < check_real(tau, "tau")
    times, G = _censoring_survival(ev_tr, t_tr)
    g = _censoring_at(times, G, t[use])
    if np.any(g == 0.0):
        raise ValueError("the censoring survival function of survival_train is zero at "
                         "one or more event times of survival_test")
    w = np.zeros(t.size)
    w[use] = np.square(1.0 / g)
    return _result(_concordance(ev, t, est, w, tied_tol))
