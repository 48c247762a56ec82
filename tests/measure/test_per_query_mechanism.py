"""The measures' one per-query mechanism: every per-query value equals the measure of
that query's rows computed on its own (a loop written here), and every query-averaged
measure is the mean of those values under its documented rule."""

import warnings

import numpy as np
import pytest

import rlscore.measure as M
from rlscore.core.structure import QueryGroups
from rlscore.measure import UndefinedPerformance


def _loop(measure, Y, P, q):
    """The measure of each query on its own (first-appearance order), NaN where it is
    undefined."""
    out = []
    for g in dict.fromkeys(q.tolist()):
        rows = np.flatnonzero(q == g)
        try:
            out.append(float(measure(Y[rows], P[rows])))
        except UndefinedPerformance:
            out.append(np.nan)
    return np.array(out)


def _data(rng, m=60, l=1, binary=False):
    q = rng.integers(0, 9, size=m)
    Y = rng.integers(0, 3, size=(m, l)).astype(float)
    if binary:
        Y = np.where(Y > 0, 1.0, -1.0)
    P = np.round(rng.normal(size=(m, l)), 1)               # prediction ties
    Y[q == 2] = 1.0                                        # a query without pairs
    P[q == 4] = 0.0                                        # all predictions tied
    return (Y.ravel(), P.ravel(), q) if l == 1 else (Y, P, q)


@pytest.mark.parametrize("name", ["cindex", "auc", "sqerror", "kendall_tau_b"])
def test_query_values_equals_the_loop(rng, name):
    Y, P, q = _data(rng, binary=name == "auc")
    measure = getattr(M, name)
    expected = _loop(measure, Y, P, q)
    got = M.query_values(measure, Y, P, q)
    np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)
    assert np.isnan(got).any() or name == "sqerror"
    # QueryGroups and ids give the same
    np.testing.assert_array_equal(got, M.query_values(measure, Y, P,
                                                      QueryGroups.from_qids(q)))


def test_query_values_several_columns_is_the_mean_over_defined_columns(rng):
    Y, P, q = _data(rng, l=2)
    Y[q == 5, 1] = 2.0                                     # column 1 undefined there
    per_column = [_loop(M.cindex, Y[:, c], P[:, c], q) for c in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # query 2: no column defined
        expected = np.nanmean(np.vstack(per_column), axis=0)
    assert np.isnan(expected[list(dict.fromkeys(q.tolist())).index(2)])
    np.testing.assert_allclose(M.query_values(M.cindex, Y, P, q), expected, rtol=1e-12,
                               equal_nan=True)
    np.testing.assert_allclose(M.cindex_per_query(Y, P, q), expected, rtol=1e-12,
                               equal_nan=True)


@pytest.mark.parametrize("per_query, whole, single", [
    (lambda Y, P, q: M.ndcg_per_query(Y, P, q, k=3),
     lambda Y, P, q: M.ndcg(Y, P, q, k=3), lambda y, p: M.ndcg(y, p, k=3)),
    (lambda Y, P, q: M.precision_at_k_per_query(Y, P, q, k=2),
     lambda Y, P, q: M.precision_at_k(Y, P, q, k=2),
     lambda y, p: M.precision_at_k(y, p, k=2)),
    (M.average_precision_per_query, M.mean_average_precision, M.mean_average_precision),
    (M.cindex_per_query, M.cindex, M.cindex),
])
def test_per_query_functions_and_their_means(rng, per_query, whole, single):
    Y, P, q = _data(rng)
    values = per_query(Y, P, q)
    np.testing.assert_allclose(values, _loop(single, Y, P, q), rtol=1e-12,
                               equal_nan=True)
    # the whole measure is the mean over the queries where it is defined
    assert whole(Y, P, q) == pytest.approx(np.nanmean(values), rel=1e-12)


def test_query_average_skips_degenerate_queries_but_not_tied_predictions(rng):
    Y, P, q = _data(rng)
    with pytest.raises(UndefinedPerformance):               # query 4: P all tied
        M.query_average(M.kendall_tau_b, Y, P, q)
    assert M.query_average(M.cindex, Y, P, q) == pytest.approx(
        np.nanmean(_loop(M.cindex, Y, P, q)), rel=1e-12)
