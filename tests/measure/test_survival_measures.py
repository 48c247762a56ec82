"""Harrell's and Uno's concordance for censored data against a pair-enumerating
reference, scikit-survival and lifelines (risk: higher = earlier event)."""

import numpy as np
import pytest

from rlscore.measure import concordance_index_censored, concordance_index_ipcw


def _pairs_reference(event, time, risk, w, tol):
    """Enumerate every ordered pair: Harrell's comparable pairs with scikit-survival's
    tie rules, O(m^2)."""
    num = den = 0.0
    con = dis = tie = ttime = 0
    m = len(time)
    for i in range(m):
        if not event[i]:
            continue
        for j in range(m):
            if j == i:
                continue
            if time[i] < time[j] or (time[i] == time[j] and not event[j]):
                ttime += time[i] == time[j]
                d = risk[j] - risk[i]
                if abs(d) <= tol:
                    tie += 1
                    num += 0.5 * w[i]
                elif risk[j] < risk[i]:
                    con += 1
                    num += w[i]
                else:
                    dis += 1
                den += w[i]
    return num / den, con, dis, tie, ttime


def _km_censoring_reference(event_tr, time_tr, t):
    """Reverse Kaplan-Meier G(t) by its product definition, O(m^2)."""
    g = 1.0
    for s in np.unique(time_tr):
        if s > t:
            break
        at_risk = np.sum(time_tr >= s) - np.sum((time_tr == s) & event_tr)
        cens = np.sum((time_tr == s) & ~event_tr)
        if at_risk > 0:
            g *= 1.0 - cens / at_risk
    return g


def _random(rng, m, n_times, n_risks, p_event=0.6):
    time = rng.integers(0, n_times, m).astype(float)
    event = rng.random(m) < p_event
    risk = rng.integers(0, n_risks, m) * 0.5 if n_risks else rng.standard_normal(m)
    return event, time, risk


@pytest.mark.parametrize("seed", range(12))
def test_harrell_matches_pair_enumeration_with_heavy_ties(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 60))
    event, time, risk = _random(rng, m, int(rng.integers(1, 8)),
                                int(rng.integers(0, 5)))
    event[0] = True
    time[0] = time.min() - 1 if time.min() > 0 else time[0]
    time[1] = time.max() + 1
    ref = _pairs_reference(event, time, risk, np.ones(m), 1e-8)
    got = concordance_index_censored(event, time, risk)
    assert got[1:] == ref[1:]
    assert got[0] == pytest.approx(ref[0], abs=1e-12)


def test_harrell_tolerance_decides_risk_ties_as_sksurv():
    # risks 1e-9 apart are tied under the default tolerance, not with tied_tol=0
    event = np.array([True, True, False, True])
    time = np.array([1.0, 2.0, 3.0, 4.0])
    risk = np.array([1.0, 1.0 + 1e-9, 0.5, 2.0])
    for tol in (1e-8, 0.0, 0.6):
        ref = _pairs_reference(event, time, risk, np.ones(4), tol)
        got = concordance_index_censored(event, time, risk, tied_tol=tol)
        assert got[1:] == ref[1:]
        assert got[0] == pytest.approx(ref[0], abs=1e-15)


def test_harrell_event_and_censoring_at_one_time_are_comparable():
    # the event at t=1 precedes the censoring at t=1; two events at t=2 are not a pair
    c, con, dis, tie, ttime = concordance_index_censored(
        [True, False, True, True], [1.0, 1.0, 2.0, 2.0], [3.0, 1.0, 2.0, 0.0])
    assert (con, dis, tie, ttime) == (3, 0, 0, 1)
    assert c == 1.0


def test_harrell_no_comparable_pair_and_bad_input():
    with pytest.raises(ValueError, match="censored"):
        concordance_index_censored([0, 0, 0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="no comparable pairs"):
        concordance_index_censored([False, True, True], [1.0, 2.0, 2.0], [1, 2, 3])
    with pytest.raises(ValueError, match="no comparable pairs"):
        concordance_index_censored([True], [1.0], [1.0])
    with pytest.raises(ValueError, match="event_indicator"):
        concordance_index_censored([0, 2, 1], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="event_time"):
        concordance_index_censored([0, 1, 1], [1.0, -2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="event_time"):
        concordance_index_censored([0, 1, 1], [1.0, np.nan, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="estimate"):
        concordance_index_censored([0, 1, 1], [1.0, 2.0, 3.0], [1.0, np.nan, 3.0])
    with pytest.raises(ValueError, match="estimate"):
        concordance_index_censored([0, 1, 1], [1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="differ in length"):
        concordance_index_censored([0, 1], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="tied_tol"):
        concordance_index_censored([0, 1, 1], [1.0, 2.0, 3.0], [1, 2, 3], tied_tol=-1)


@pytest.mark.parametrize("seed", range(8))
def test_ipcw_matches_pair_enumeration_with_km_weights(seed):
    rng = np.random.default_rng(100 + seed)
    m_tr, m = int(rng.integers(5, 40)), int(rng.integers(3, 40))
    ev_tr, t_tr, _ = _random(rng, m_tr, 6, 3)
    ev, t, risk = _random(rng, m, 6, 3)
    t_tr[0], ev_tr[0] = t_tr.max() + 1, False     # G > 0 up to the last test time
    t[0], ev[0] = t.min(), True
    t[1] = t.max() + 0.5
    t = np.minimum(t, t_tr.max())
    tau = None if seed % 2 else float(np.median(t)) + 0.5
    w = np.array([1.0 / _km_censoring_reference(ev_tr, t_tr, s) ** 2 for s in t])
    if tau is not None:
        w[t >= tau] = 0.0
    ref = _pairs_reference(ev, t, risk, w, 1e-8)
    got = concordance_index_ipcw((ev_tr, t_tr), (ev, t), risk, tau=tau)
    assert got[1:] == ref[1:]
    assert got[0] == pytest.approx(ref[0], abs=1e-12)


def test_ipcw_refuses_times_beyond_training_and_empty_weights():
    train = (np.array([True, False, True]), np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="beyond the largest time"):
        concordance_index_ipcw(train, (np.array([True, True]), np.array([1.0, 5.0])),
                               [1, 0])
    with pytest.raises(ValueError, match="zero"):       # G(2) = 0: the last is censored
        concordance_index_ipcw((np.array([True, False]), np.array([1.0, 2.0])),
                               (np.array([True, True]), np.array([1.0, 2.0])), [1, 0])
    with pytest.raises(ValueError, match="weight 0"):
        concordance_index_ipcw(train, (np.array([True, False]), np.array([1.0, 2.0])),
                               [1.0, 0.0], tau=0.5)
    with pytest.raises(ValueError, match="survival_test"):
        concordance_index_ipcw(train, np.array([1.0, 2.0]), [1.0, 0.0])


SKSURV_SETS = ["load_whas500", "load_gbsg2", "load_veterans_lung_cancer", "load_aids",
               "load_breast_cancer",
               pytest.param("load_flchain", marks=pytest.mark.slow)]


@pytest.mark.parametrize("loader", SKSURV_SETS)
def test_harrell_and_uno_equal_sksurv_on_its_datasets(loader):
    ds = pytest.importorskip("sksurv.datasets")
    metrics = pytest.importorskip("sksurv.metrics")
    X, y = getattr(ds, loader)()
    Xn = X.select_dtypes("number").fillna(0).to_numpy(dtype=float)
    names = y.dtype.names
    ev, t = y[names[0]].astype(bool), y[names[1]].astype(float)
    rng = np.random.default_rng(0)
    risks = [Xn[:, 0], np.round(Xn @ rng.standard_normal(Xn.shape[1]), 1),
             rng.integers(0, 3, t.size).astype(float)]
    for risk in risks:
        ref = metrics.concordance_index_censored(ev, t, risk)
        got = concordance_index_censored(ev, t, risk)
        assert got[1:] == tuple(int(v) for v in ref[1:])
        assert got[0] == pytest.approx(ref[0], abs=1e-12)
        for tau in (None, float(np.percentile(t[ev], 75))):
            try:
                ref = metrics.concordance_index_ipcw(y, y, risk, tau=tau)
            except ValueError as err:        # G = 0 at an event time: both refuse
                with pytest.raises(ValueError, match="zero"):
                    concordance_index_ipcw(y, y, risk, tau=tau)
                assert "zero" in str(err)
                continue
            got = concordance_index_ipcw(y, y, risk, tau=tau)
            assert got[1:] == tuple(int(v) for v in ref[1:])
            assert got[0] == pytest.approx(ref[0], abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_harrell_equals_sksurv_and_lifelines_on_random_ties(seed):
    metrics = pytest.importorskip("sksurv.metrics")
    lu = pytest.importorskip("lifelines.utils")
    rng = np.random.default_rng(seed)
    event, time, risk = _random(rng, 300, 20, 6)
    ref = metrics.concordance_index_censored(event, time, risk)
    got = concordance_index_censored(event, time, risk)
    assert got[1:] == tuple(int(v) for v in ref[1:])
    assert got[0] == pytest.approx(ref[0], abs=1e-12)
    # lifelines: higher score = longer survival (pass -risk), the same comparable pairs
    # (tied times included); risks tie only when exactly equal (tied_tol=0 here)
    assert got[0] == pytest.approx(lu.concordance_index(time, -risk, event), abs=1e-12)
    near = risk + rng.integers(0, 2, 300) * 1e-9
    assert concordance_index_censored(event, time, near, tied_tol=0)[0] == pytest.approx(
        lu.concordance_index(time, -near, event), abs=1e-12)
