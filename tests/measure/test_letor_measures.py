"""The IR ranking measures against the LETOR 4.0 evaluation rules (a reference written
here from the rules of Eval-Score-4.0.pl, loop by loop), hand-computed cases with ties,
short queries and queries without relevant documents, scikit-learn's ndcg_score for
convention="standard", and the binary label forms of auc / cindex (issue 23)."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import rlscore.measure as M
from rlscore._groups import QueryGroups
from rlscore.measure import UndefinedPerformance

sklearn_metrics = pytest.importorskip("sklearn.metrics")


# the reference of the LETOR 4.0 rules is the ``letor_by_hand`` fixture (tests/conftest.py)


# ------------------------------------------------------------------ hand-computed case

# query A: 3 documents, two tied predictions (file order decides: doc 0 before doc 1);
# query B: no relevant document; query C: 5 documents, no ties.
LABELS = np.array([2, 0, 1, 0, 0, 0, 0, 0, 1, 0, 2, 1], dtype=float)
SCORES = np.array([.5, .5, .9, 1, 2, 3, 4, 5, 4, 3, 2, 1], dtype=float)
QIDS = ["A"] * 3 + ["B"] * 4 + ["C"] * 5


def test_hand_computed_letor_values():
    # A ranked: labels [1, 2, 0] -> NDCG@1 = 1/3, NDCG@2 = NDCG@3 = (1+3)/(3+1) = 1
    # C ranked: labels [0, 1, 0, 2, 1]; ideal [2, 1, 1, 0, 0]
    idcg3_c = 3 + 1 + 1 / math.log2(3)
    ndcg3 = (1.0 + 0.0 + 1.0 / idcg3_c) / 3
    assert_allclose(M.ndcg(LABELS, SCORES, QIDS, k=3), ndcg3, rtol=1e-14)
    # at k = 4 query A (3 documents) scores 0; C: (1 + 3/log2 4) / idcg@4
    assert_allclose(M.ndcg(LABELS, SCORES, QIDS, k=4), (2.5 / idcg3_c) / 3, rtol=1e-14)
    assert_allclose(M.ndcg(LABELS, SCORES, QIDS, k=1), (1 / 3 + 0 + 0) / 3, rtol=1e-14)
    # P@3: A 2/3, B 0, C 1/3; P@5 counts A's missing positions as irrelevant
    assert_allclose(M.precision_at_k(LABELS, SCORES, QIDS, k=3), (2 / 3 + 1 / 3) / 3)
    assert_allclose(M.precision_at_k(LABELS, SCORES, QIDS, k=5), (2 / 5 + 3 / 5) / 3)
    # AP: A (1/1 + 2/2)/2 = 1, B 0 (no relevant document, still counted), C (1/2+2/4+3/5)/3
    assert_allclose(M.mean_average_precision(LABELS, SCORES, QIDS),
                    (1.0 + 0.0 + 1.6 / 3) / 3, rtol=1e-14)
    # ties keep file order: swapping the two tied rows of A changes the value
    swapped = LABELS.copy()
    swapped[[0, 1]] = swapped[[1, 0]]
    assert M.ndcg(swapped, SCORES, QIDS, k=2) < M.ndcg(LABELS, SCORES, QIDS, k=2)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 10])
def test_hand_case_equals_reference(k, letor_by_hand):
    nd, pk, ap, mn = letor_by_hand(LABELS.tolist(), SCORES.tolist(), QIDS, k)
    assert_allclose(M.ndcg(LABELS, SCORES, QIDS, k=k), nd, rtol=1e-13, atol=1e-15)
    assert_allclose(M.precision_at_k(LABELS, SCORES, QIDS, k=k), pk, rtol=1e-13)
    assert_allclose(M.mean_average_precision(LABELS, SCORES, QIDS), ap, rtol=1e-13)
    assert_allclose(M.mean_ndcg(LABELS, SCORES, QIDS), mn, rtol=1e-13)


@pytest.mark.parametrize("seed", range(6))
def test_random_queries_equal_reference(seed, letor_by_hand):
    rng = np.random.default_rng(seed)
    m = 80
    qids = rng.integers(0, 12, m)                       # not contiguous; sizes vary
    labels = rng.choice([0, 0, 0, 1, 2], m).astype(float)
    scores = rng.integers(0, 5, m).astype(float)        # many ties
    for k in (1, 3, 5, 10):
        nd, pk, ap, mn = letor_by_hand(labels.tolist(), scores.tolist(), qids.tolist(), k)
        assert_allclose(M.ndcg(labels, scores, qids, k=k), nd, rtol=1e-12, atol=1e-15)
        assert_allclose(M.precision_at_k(labels, scores, qids, k=k), pk, rtol=1e-12)
    assert_allclose(M.mean_average_precision(labels, scores, qids), ap, rtol=1e-12)
    assert_allclose(M.mean_ndcg(labels, scores, qids), mn, rtol=1e-12)
    # a QueryGroups is accepted in place of the ids
    g = QueryGroups.from_qids(qids)
    assert M.ndcg(labels, scores, g) == M.ndcg(labels, scores, qids)


def test_k_none_uses_every_rank(letor_by_hand):
    rel = [0, 2, 1]
    assert_allclose(M.ndcg(rel, [3, 2, 1], k=None),
                    letor_by_hand(rel, [3, 2, 1], [0, 0, 0], 3)[0])


def test_binary_label_forms_agree():
    rng = np.random.default_rng(3)
    y01 = rng.integers(0, 2, 40)
    p = rng.normal(size=40)
    q = np.repeat(np.arange(8), 5)
    for f in (M.ndcg, M.mean_ndcg, M.precision_at_k, M.mean_average_precision,
              M.cindex):
        a = f(y01.astype(float), p, q)
        assert f(2.0 * y01 - 1, p, q) == a, f.__name__
        assert f(y01.astype(bool), p, q) == a, f.__name__


# ------------------------------------------------------------------ standard = sklearn

@pytest.mark.parametrize("seed", range(5))
def test_standard_equals_sklearn_ndcg_score(seed):
    rng = np.random.default_rng(seed)
    n = 12
    y = rng.integers(0, 4, n).astype(float)
    p = rng.integers(0, 3, n).astype(float)             # ties: sklearn averages them
    for k in (None, 1, 3, 5, 20):
        expected = sklearn_metrics.ndcg_score([y], [p], k=k)
        assert_allclose(M.ndcg(y, p, k=k, convention="standard"), expected, rtol=1e-12)
    # several queries of equal length: the sklearn mean over samples
    Y = rng.integers(0, 3, (6, n)).astype(float)
    Y[2] = 0                                            # all irrelevant: 0, counted
    P = rng.normal(size=(6, n))
    q = np.repeat(np.arange(6), n)
    assert_allclose(M.ndcg(Y.ravel(), P.ravel(), q, k=5, convention="standard"),
                    sklearn_metrics.ndcg_score(Y, P, k=5), rtol=1e-12)


def test_conventions_differ_and_bad_arguments():
    y = np.array([0, 1, 2, 0, 1.0])
    p = np.array([1, 2, 3, 4, 5.0])
    assert M.ndcg(y, p, k=5) != M.ndcg(y, p, k=5, convention="standard")
    with pytest.raises(ValueError, match="convention"):
        M.ndcg(y, p, convention="trec")
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="k must"):
            M.ndcg(y, p, k=bad)
    with pytest.raises(ValueError, match="k must"):
        M.precision_at_k(y, p, k=None)
    with pytest.raises(TypeError, match="k=5"):
        M.ndcg(y, p, 5)                                  # cutoff given as qids
    with pytest.raises(UndefinedPerformance, match=">= 0"):
        M.ndcg(np.array([0, -2, 1.0]), p[:3])
    with pytest.raises(ValueError, match="qids"):
        M.ndcg(y, p, [0, 0, 1])


# ------------------------------------------------------------------ LETOR 3.0 (issue 34)

def test_letor3_hand_computed_short_query():
    # P@5: query A has 3 documents; 4.0 counts A's missing positions as irrelevant
    # (2/5), 3.0's loop stops at A's last document and sums the undefined P@5 as 0
    assert_allclose(M.precision_at_k(LABELS, SCORES, QIDS, k=5, convention="letor3"),
                    (0 + 0 + 3 / 5) / 3, rtol=1e-14)
    assert_allclose(M.precision_at_k(LABELS, SCORES, QIDS, k=3, convention="letor3"),
                    M.precision_at_k(LABELS, SCORES, QIDS, k=3), rtol=0)
    for k in (1, 3, 4, 5, 10):                     # NDCG and MAP: the same in 3.0
        assert M.ndcg(LABELS, SCORES, QIDS, k=k, convention="letor3") == \
            M.ndcg(LABELS, SCORES, QIDS, k=k)
    assert M.mean_average_precision(LABELS, SCORES, QIDS, convention="letor3") == \
        M.mean_average_precision(LABELS, SCORES, QIDS)
    assert M.precision_at_k(LABELS, SCORES, QIDS, k=5, convention="letor4") == \
        M.precision_at_k(LABELS, SCORES, QIDS, k=5)


@pytest.mark.parametrize("seed", range(6))
def test_letor3_random_queries_equal_reference(seed, letor_by_hand):
    rng = np.random.default_rng(seed)
    m = 90
    qids = rng.integers(0, 12, m)                       # sizes vary: 1 to ~15
    labels = rng.choice([0, 0, 0, 1, 2], m).astype(float)
    scores = rng.integers(0, 5, m).astype(float)        # many ties
    for k in (1, 2, 3, 5, 10, 16):
        nd, pk, ap, mn = letor_by_hand(labels.tolist(), scores.tolist(), qids.tolist(), k,
                                       convention="letor3")
        assert mn is None
        assert_allclose(M.ndcg(labels, scores, qids, k=k, convention="letor3"), nd,
                        rtol=1e-12, atol=1e-15)
        assert_allclose(M.precision_at_k(labels, scores, qids, k=k, convention="letor3"),
                        pk, rtol=1e-12, atol=1e-15)
        assert_allclose(M.mean_average_precision(labels, scores, qids,
                                                 convention="letor3"), ap, rtol=1e-12)
        per_q = M.precision_at_k_per_query(labels, scores, qids, k=k, convention="letor3")
        assert_allclose(per_q.mean(), pk, rtol=1e-12, atol=1e-15)


def test_letor_convention_errors():
    y, p = np.array([0, 1, 2.0]), np.array([1, 2, 3.0])
    for f in (M.precision_at_k, M.mean_average_precision):
        with pytest.raises(ValueError, match="convention"):
            f(y, p, convention="standard")      # no scikit-learn form of these
        with pytest.raises(ValueError, match="convention"):
            f(y, p, convention="letor5")
    assert M.ndcg(y, p, convention="letor3") == M.ndcg(y, p, convention="letor4")


# ------------------------------------------------------------------ auc / cindex labels

@pytest.mark.parametrize("seed", range(4))
def test_auc_zero_one_equals_plus_minus_one_and_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 50)
    y[:2] = [0, 1]
    p = rng.integers(0, 6, 50).astype(float)
    expected = sklearn_metrics.roc_auc_score(y, p)
    # 0/1 and booleans with zero_one=True (scikit-learn's convention) or by the name
    # "auc" / "roc_auc" of the measure table (what the CLI and the estimators take)
    assert_allclose(M.auc(y.astype(float), p, zero_one=True), expected, rtol=1e-14)
    assert M.auc(2.0 * y - 1, p) == M.auc(y.astype(float), p, zero_one=True)
    assert M.auc(y.astype(bool), p, zero_one=True) == M.auc(2.0 * y - 1, p)
    for name in ("auc", "roc_auc", "AUC"):
        assert M.measure_by_name(name)(y.astype(bool), p) == M.auc(2.0 * y - 1, p)
        assert M.measure_by_name(name)(y, p) == M.auc(2.0 * y - 1, p)
    assert_allclose(M.cindex(y.astype(bool), p), expected, rtol=1e-14)
    # RLScore's contract: rlscore.measure.auc itself takes -1/+1 only
    for labels in (y, y.astype(bool)):
        with pytest.raises(UndefinedPerformance, match="zero_one=True"):
            M.auc(labels, p)


def test_auc_per_query_and_label_errors():
    y = np.array([1, 0, 0, 1, 1, 1, 0, 1.0])
    p = np.array([3, 1, 2, 0, 5, 6, 1, 0.0])
    q = [0, 0, 0, 0, 1, 1, 2, 2]                         # query 1 has one class: skipped
    a0 = sklearn_metrics.roc_auc_score(y[:4], p[:4])
    a2 = sklearn_metrics.roc_auc_score(y[6:], p[6:])
    assert_allclose(M.auc(y, p, q, zero_one=True), (a0 + a2) / 2, rtol=1e-14)
    assert M.measure_by_name("auc")(y, p, q) == M.auc(2 * y - 1, p, q)
    with pytest.raises(UndefinedPerformance, match="binary"):
        M.auc(np.array([-1, 0, 1.0]), np.arange(3.0), zero_one=True)   # -1 and 0 both
    with pytest.raises(UndefinedPerformance, match="binary"):
        M.auc(np.array([0, 2, 1.0]), np.arange(3.0), zero_one=True)
    with pytest.raises(UndefinedPerformance, match="-1 and \\+1"):
        M.auc(np.array([0, 2, 1.0]), np.arange(3.0))
    with pytest.raises(UndefinedPerformance, match="-1 and \\+1"):
        M.accuracy(np.array([0, 1.0]), np.arange(2.0))  # thresholds at 0: -1/+1 only


# ------------------------------------------------------------------ empty input (issue 18)

@pytest.mark.parametrize("f", [M.sqerror, M.sqmprank, M.spearman, M.ndcg, M.mean_ndcg,
                               M.precision_at_k, M.mean_average_precision, M.cindex,
                               M.auc])
def test_empty_input_is_refused(f):
    with pytest.raises(UndefinedPerformance, match="empty"):
        f(np.zeros(0), np.zeros(0))


def test_cindex_per_query_equals_a_pair_count_per_query():
    from rlscore.measure import cindex_per_query
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 60).astype(float)
    p = rng.integers(0, 4, 60).astype(float)
    q = rng.integers(0, 9, 60)
    got = cindex_per_query(y, p, q)
    order = list(dict.fromkeys(q.tolist()))
    for g, qq in enumerate(order):
        rows = np.flatnonzero(q == qq)
        score = pairs = 0.0
        for i in rows:
            for j in rows:
                if y[i] > y[j]:
                    pairs += 1
                    score += 1.0 if p[i] > p[j] else 0.5 if p[i] == p[j] else 0.0
        if pairs:
            assert got[g] == pytest.approx(score / pairs)
        else:
            assert np.isnan(got[g])


# ------------------------------------------------------------------ labels of any size

def _ndcg_exact(labels, scores, qids, k, convention="letor", at=None):
    """NDCG@k (or, with ``at="mean"``, MeanNDCG) in exact arithmetic: the gains as
    Python integers (2**label - 1, LETOR) or Fractions of the labels (standard), the
    discounts as the Fractions of their float64 values, the ratio and the mean as
    Fractions. No overflow whatever the label."""
    from fractions import Fraction
    queries = {}
    for i, q in enumerate(qids):
        queries.setdefault(q, []).append(i)

    def disc(r):
        if convention == "standard":
            return Fraction(1.0 / math.log2(1 + r))
        return Fraction(1) if r <= 2 else Fraction(1.0 / math.log2(r))

    def gain(x):
        return Fraction(x) if convention == "standard" else Fraction(2 ** int(x) - 1)

    def at_k(ranked, ideal, kk):
        if kk is not None and len(ranked) < kk and convention != "standard":
            return Fraction(0)
        n = len(ranked) if kk is None else min(kk, len(ranked))
        dcg = sum(gain(ranked[j]) * disc(j + 1) for j in range(n))
        idcg = sum(gain(ideal[j]) * disc(j + 1) for j in range(n))
        return dcg / idcg if idcg else Fraction(0)

    values = []
    for rows in queries.values():
        ranked = [labels[i] for i in sorted(rows, key=lambda i: -scores[i])]
        ideal = sorted(ranked, reverse=True)
        if at == "mean":
            n = len(ranked)
            values.append(sum(at_k(ranked, ideal, j) for j in range(1, n + 1)) / n)
        else:
            values.append(at_k(ranked, ideal, k))
    return float(sum(values) / len(values))


@pytest.mark.filterwarnings("ignore::rlscore.measure.ShortQueryWarning")
def test_ndcg_of_labels_whose_gain_overflows_float64_is_exact():
    # issue 44.7: 2**2000 is inf in float64; ndcg([2000, 0, 1], ...) was NaN
    y, p = [2000.0, 0.0, 1.0], [0.1, 0.3, 0.2]
    assert_allclose(M.ndcg(y, p, k=None), _ndcg_exact(y, p, [0] * 3, None),
                    rtol=1e-15)
    assert_allclose(M.ndcg(y, p, k=3), _ndcg_exact(y, p, [0] * 3, 3), rtol=1e-15)
    rng = np.random.default_rng(7)
    m = 60
    qids = rng.integers(0, 6, m).tolist()
    labels = rng.choice([0, 1, 2, 1022, 1023, 1024, 1500, 2000, 5000], m).astype(float)
    scores = rng.normal(size=m)
    lab, sc = labels.tolist(), scores.tolist()
    for k in (1, 3, 5, None):
        got = M.ndcg(labels, scores, qids, k=k)
        assert np.isfinite(got)
        assert_allclose(got, _ndcg_exact(lab, sc, qids, k), rtol=1e-14)
        assert_allclose(M.ndcg(labels, scores, qids, k=k, convention="letor3"),
                        _ndcg_exact(lab, sc, qids, k), rtol=1e-14)
    assert_allclose(M.mean_ndcg(labels, scores, qids),
                    _ndcg_exact(lab, sc, qids, None, at="mean"), rtol=1e-13)
    per_query = M.ndcg_per_query(labels, scores, qids, k=3)
    assert np.all(np.isfinite(per_query))


def test_standard_ndcg_of_labels_near_the_float64_limit_is_exact():
    # linear gains: a sum of labels near 1.8e308 overflowed to inf, and inf / inf is NaN
    y = [1.7e308, 0.0, 1.5e308, 9e307]
    p = [0.4, 0.3, 0.2, 0.1]
    for k in (2, None):
        got = M.ndcg(y, p, k=k, convention="standard")
        assert_allclose(got, _ndcg_exact(y, p, [0] * 4, k, "standard"), rtol=1e-14)


@pytest.mark.filterwarnings("ignore::rlscore.measure.ShortQueryWarning")
@pytest.mark.parametrize("seed", range(3))
def test_letor_sized_labels_agree_with_exact_arithmetic(seed):
    # the per-query scaling by a power of two is exact: LETOR-sized labels keep the
    # agreement with the exact values (and with the LETOR scripts) to 1e-15
    rng = np.random.default_rng(seed)
    m = 200
    qids = rng.integers(0, 20, m)
    labels = rng.choice([0, 0, 1, 2, 3, 4], m).astype(float)
    ties = rng.integers(0, 6, m).astype(float)
    distinct = rng.normal(size=m)          # the standard convention averages ties
    lab, q = labels.tolist(), qids.tolist()
    for k in (1, 5, 10, None):
        assert_allclose(M.ndcg(labels, ties, qids, k=k),
                        _ndcg_exact(lab, ties.tolist(), q, k), rtol=1e-15, atol=1e-16)
        assert_allclose(M.ndcg(labels, distinct, qids, k=k, convention="standard"),
                        _ndcg_exact(lab, distinct.tolist(), q, k, "standard"),
                        rtol=1e-15, atol=1e-16)
