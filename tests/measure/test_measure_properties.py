"""Hypothesis property tests: the fast measures against straightforward definitions.

Small integer-valued arrays make ties of labels and of predictions frequent."""

import functools
import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose
from scipy import stats

import rlscore.measure as M
from rlscore.measure import UndefinedPerformance

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def label_prediction_arrays(draw, max_m=9, max_l=3, labels=(0, 3), preds=(-2, 2),
                            binary=False):
    m = draw(st.integers(0, max_m))
    l = draw(st.integers(1, max_l))
    if binary:
        Y = draw(hnp.arrays(np.float64, (m, l), elements=st.sampled_from([-1.0, 1.0])))
    else:
        Y = draw(hnp.arrays(np.float64, (m, l),
                            elements=st.integers(*labels).map(float)))
    P = draw(hnp.arrays(np.float64, (m, l), elements=st.integers(*preds).map(float)))
    return Y, P


# ----------------------------------------------------------------------------- O(m^2) references

def defined(reference):
    """The (value, defined) form of a reference that gives None where undefined (the
    c-index by the pair definition, the ``cindex_by_hand`` fixture of conftest.py:
    label ties excluded, p ties 1/2)."""
    @functools.wraps(reference)
    def column(y, p):
        v = reference(y, p)
        return v, v is not None
    return column


def naive_kendall_column(y, p):
    """tau-b by the pair definition; (None, False) for tied labels; raise for tied p."""
    m = len(y)
    s = n1 = n2 = 0
    for i in range(m):
        for j in range(i + 1, m):
            s += np.sign(y[i] - y[j]) * np.sign(p[i] - p[j])
            n1 += p[i] == p[j]
            n2 += y[i] == y[j]
    n0 = m * (m - 1) // 2
    if n0 - n2 == 0:
        return None, False
    if n0 - n1 == 0:
        raise UndefinedPerformance("constant predictions")
    return s / math.sqrt((n0 - n1) * (n0 - n2)), True


def combine_columns(results, name="measure"):
    vals = [v for v, ok in results if ok]
    if not vals:
        raise UndefinedPerformance(name)
    return np.mean(vals)


def expected_or_raises(fn, *args):
    try:
        return fn(*args), None
    except UndefinedPerformance as e:
        return None, e


def check_against(fast, slow, *args, rtol=1e-12):
    expected, err = expected_or_raises(slow, *args)
    if err is not None:
        with pytest.raises(UndefinedPerformance):
            fast(*args)
    else:
        assert_allclose(fast(*args), expected, rtol=rtol, atol=1e-14)


def slow_cindex(cindex_by_hand, Y, P):
    column = defined(cindex_by_hand)
    return combine_columns([column(Y[:, c], P[:, c]) for c in range(Y.shape[1])])


def slow_auc(cindex_by_hand, Y, P):
    vals = []
    for c in range(Y.shape[1]):
        v, ok = defined(cindex_by_hand)(Y[:, c], P[:, c])
        if not ok:
            raise UndefinedPerformance("single class")
        vals.append(v)
    return np.mean(vals)


def slow_kendall(Y, P):
    return combine_columns([naive_kendall_column(Y[:, c], P[:, c])
                            for c in range(Y.shape[1])])


@SETTINGS
@given(label_prediction_arrays())
def test_cindex_matches_pair_definition(cindex_by_hand, YP):
    check_against(M.cindex, functools.partial(slow_cindex, cindex_by_hand), *YP)


@SETTINGS
@given(label_prediction_arrays(binary=True))
def test_auc_matches_pair_definition(cindex_by_hand, YP):
    check_against(M.auc, functools.partial(slow_auc, cindex_by_hand), *YP)


@SETTINGS
@given(label_prediction_arrays())
def test_kendall_matches_pair_definition(YP):
    check_against(M.kendall_tau_b, slow_kendall, *YP)


@SETTINGS
@given(label_prediction_arrays(max_l=1, max_m=12, preds=(-1, 1)))
def test_kendall_matches_scipy(YP):
    Y, P = YP
    y, p = Y[:, 0], P[:, 0]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")          # scipy warns on constant input
        ref = stats.kendalltau(y, p, variant="b").statistic
    if np.isnan(ref):
        with pytest.raises(UndefinedPerformance):
            M.kendall_tau_b(y, p)
    else:
        assert_allclose(M.kendall_tau_b(y, p), ref, rtol=1e-12, atol=1e-15)


@SETTINGS
@given(label_prediction_arrays(), st.integers(-3, 3), st.floats(0.1, 10))
def test_pairwise_measures_invariant_to_monotone_maps(YP, shift, scale):
    """cindex and tau-b depend only on the orders of Y and P."""
    Y, P = YP
    for f in (M.cindex, M.kendall_tau_b):
        base, err = expected_or_raises(f, Y, P)
        if err is None:
            assert_allclose(f(Y * scale + shift, np.exp(P) * 2.0), base, rtol=1e-12,
                            atol=1e-15)
            perm = np.random.RandomState(Y.shape[0]).permutation(Y.shape[0])
            assert_allclose(f(Y[perm], P[perm]), base, rtol=1e-12, atol=1e-15)


# ----------------------------------------------------------------------------- ndcg and AP
# ndcg(convention="standard") is the expected DCG over the orders of tied predictions
# (scikit-learn's ndcg_score: linear gain, 1/log2(1 + r)); the LETOR forms keep the
# input order of ties (a stable sort), discount 1 for ranks 1-2 and 1/log2(r) after.

def tie_orders(p):
    """All rankings by decreasing p, the tied items in every possible order."""
    levels = sorted(set(p.tolist()), reverse=True)
    groups = [[i for i in range(len(p)) if p[i] == v] for v in levels]
    for parts in itertools.product(*[itertools.permutations(g) for g in groups]):
        yield [i for part in parts for i in part]


def std_dcg_of(rel_in_order, k):
    rel = np.asarray(rel_in_order, dtype=float)
    if k is not None:
        rel = rel[:k]
    return sum(r / math.log2(i + 2) for i, r in enumerate(rel))


def letor_dcg_of(rel_in_order, k):
    rel = np.asarray(rel_in_order, dtype=float)
    if k is not None:
        rel = rel[:k]
    return sum((2.0 ** r - 1.0) * (1.0 if i < 2 else 1.0 / math.log2(i + 1))
               for i, r in enumerate(rel))


def naive_std_ndcg_column(y, p, k):
    idcg = std_dcg_of(sorted(y, reverse=True), k)
    if idcg == 0:
        return 0.0, True
    dcgs = [std_dcg_of(y[order], k) for order in tie_orders(p)]
    return np.mean(dcgs) / idcg, True


def stable_order(p):
    return sorted(range(len(p)), key=lambda i: -p[i])


def naive_letor_ndcg_column(y, p, k):
    if k is not None and len(y) < k:
        return 0.0, True
    idcg = letor_dcg_of(sorted(y, reverse=True), k)
    if idcg == 0:
        return 0.0, True
    return letor_dcg_of(y[stable_order(p)], k) / idcg, True


def ap_of(rel_in_order):
    rel = np.asarray(rel_in_order) > 0
    if not rel.any():
        return 0.0
    hits = np.cumsum(rel)
    return np.sum((hits / np.arange(1, len(rel) + 1))[rel]) / rel.sum()


def naive_ap_column(y, p):
    return ap_of(y[stable_order(p)]), True


def columns_or_empty(Y, fn):
    if Y.shape[0] == 0:
        raise UndefinedPerformance("empty")
    return combine_columns([fn(c) for c in range(Y.shape[1])])


@SETTINGS
@given(label_prediction_arrays(max_m=6, max_l=2, labels=(0, 3)),
       st.sampled_from([1, 2, 3, 10, None]))
def test_standard_ndcg_is_expected_dcg_over_tie_orders(YP, k):
    Y, P = YP
    slow = lambda Y, P: columns_or_empty(  # noqa: E731
        Y, lambda c: naive_std_ndcg_column(Y[:, c], P[:, c], k))
    check_against(lambda Y, P: M.ndcg(Y, P, k=k, convention="standard"), slow, Y, P)


@SETTINGS
@given(label_prediction_arrays(max_m=9, max_l=2, labels=(0, 3)),
       st.sampled_from([1, 2, 3, 10, None]))
def test_letor_ndcg_keeps_tie_order(YP, k):
    Y, P = YP
    slow = lambda Y, P: columns_or_empty(  # noqa: E731
        Y, lambda c: naive_letor_ndcg_column(Y[:, c], P[:, c], k))
    check_against(lambda Y, P: M.ndcg(Y, P, k=k), slow, Y, P)


@SETTINGS
@given(label_prediction_arrays(max_m=9, max_l=2, labels=(-1, 2)))
def test_average_precision_keeps_tie_order(YP):
    Y, P = YP
    slow = lambda Y, P: columns_or_empty(  # noqa: E731
        Y, lambda c: naive_ap_column(Y[:, c], P[:, c]))
    check_against(M.mean_average_precision, slow, Y, P)


# ----------------------------------------------------------------------------- query forms

@st.composite
def query_data(draw, binary=False, labels=(0, 3)):
    Y, P = draw(label_prediction_arrays(max_m=14, max_l=2, labels=labels, binary=binary))
    m = Y.shape[0]
    qids = draw(hnp.arrays(np.int64, m, elements=st.integers(0, 3)))
    return Y, P, qids


def slow_query(column_fn, Y, P, qids):
    """Python loop: per column the mean over non-degenerate queries, then over columns."""
    col_means = []
    for c in range(Y.shape[1]):
        vals = []
        for q in np.unique(qids):
            rows = qids == q
            v, ok = column_fn(Y[rows, c], P[rows, c])
            if ok:
                vals.append(v)
        if vals:
            col_means.append(np.mean(vals))
    if not col_means:
        raise UndefinedPerformance("every query is degenerate")
    return np.mean(col_means)


@SETTINGS
@given(query_data())
def test_query_cindex_matches_loop(cindex_by_hand, data):
    Y, P, qids = data
    slow = functools.partial(slow_query, defined(cindex_by_hand))
    check_against(M.query_cindex, slow, Y, P, qids)
    check_against(lambda Y, P, q: M.query_average(M.cindex, Y, P, q), slow, Y, P, qids)


@SETTINGS
@given(query_data())
def test_query_kendall_matches_loop(data):
    Y, P, qids = data
    slow = lambda Y, P, q: slow_query(naive_kendall_column, Y, P, q)  # noqa: E731
    check_against(M.query_kendall_tau_b, slow, Y, P, qids)
    check_against(lambda Y, P, q: M.query_average(M.kendall_tau_b, Y, P, q), slow,
                  Y, P, qids)


def slow_all_queries(column_fn, Y, P, qids):
    """LETOR averaging: every query counts (no degenerate queries)."""
    if Y.shape[0] == 0:
        raise UndefinedPerformance("empty")
    return np.mean([np.mean([column_fn(Y[qids == q, c], P[qids == q, c])[0]
                             for q in np.unique(qids)]) for c in range(Y.shape[1])])


@SETTINGS
@given(query_data(), st.sampled_from([1, 3, None]))
def test_query_ndcg_matches_loop(data, k):
    Y, P, qids = data
    slow = lambda Y, P, q: slow_all_queries(  # noqa: E731
        lambda y, p: naive_letor_ndcg_column(y, p, k), Y, P, q)
    check_against(lambda Y, P, q: M.ndcg(Y, P, q, k=k), slow, Y, P, qids)
    check_against(lambda Y, P, q: M.query_ndcg(Y, P, q, k=k), slow, Y, P, qids)


@SETTINGS
@given(query_data(labels=(-1, 1)))
def test_query_map_matches_loop(data):
    Y, P, qids = data
    slow = lambda Y, P, q: slow_all_queries(naive_ap_column, Y, P, q)  # noqa: E731
    check_against(lambda Y, P, q: M.mean_average_precision(Y, P, q), slow, Y, P, qids)
    check_against(M.query_mean_average_precision, slow, Y, P, qids)


@SETTINGS
@given(query_data(binary=True))
def test_query_average_auc_matches_loop(cindex_by_hand, data):
    Y, P, qids = data
    check_against(lambda Y, P, q: M.query_average(M.auc, Y, P, q),
                  functools.partial(slow_query, defined(cindex_by_hand)), Y, P, qids)
