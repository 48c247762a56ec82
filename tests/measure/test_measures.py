"""Example-based tests of rlscore.measure: the upstream test_measure cases (values of
the compatibility spec §15), error cases, multi-column rules and the new measures."""

import importlib

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import rlscore.measure as M
from rlscore.measure.accuracy_measure import accuracy
from rlscore.measure.auc_measure import auc
from rlscore.measure.cindex_measure import cindex
from rlscore.measure.fscore_measure import fscore
from rlscore.measure.measure_utilities import (
    UndefinedPerformance, aggregate, multitask, qids_to_splits)
from rlscore.measure.multi_accuracy_measure import ova_accuracy
from rlscore.measure.spearman_measure import spearman
from rlscore.measure.sq_mprank_measure import sqmprank
from rlscore.measure.sqerror_measure import sqerror


# ----------------------------------------------------------------------------- helpers

def slow_auc(y, p):
    pos = [i for i in range(len(y)) if y[i] > 0]
    neg = [i for i in range(len(y)) if y[i] < 0]
    s = sum(1.0 if p[i] > p[j] else 0.5 if p[i] == p[j] else 0.0 for i in pos for j in neg)
    return s / (len(pos) * len(neg))


@pytest.fixture
def ova_data():
    """The upstream abstract-measure fixture: 50 rows, 10 one-vs-all columns."""
    rng = np.random.RandomState(10)
    m, n = 50, 10
    P = 2 * rng.randn(m, n)
    Y = -np.ones((m, n))
    for i, j in enumerate(rng.randint(0, 10, m)):
        Y[i, j] = 1
    P = P + Y
    P[3, 0] = P[7, 0]
    P[10, 0] = P[7, 0]
    P[14, 0] = 0.0
    return Y, P


ALL_MEASURES = [M.accuracy, M.auc, M.cindex, M.fscore, M.sqerror, M.sqmprank,
                M.spearman, M.kendall_tau_b, M.ndcg, M.mean_average_precision]


def labels_for(f, Y):
    """-1/+1 labels, as 0/1 relevance grades for ndcg (which needs labels >= 0)."""
    return (np.asarray(Y) + 1) / 2 if f in (M.ndcg, M.query_ndcg) else Y


# ----------------------------------------------------------------------------- API

def test_exports_and_submodules():
    for name in ["accuracy", "auc", "cindex", "fscore", "ova_accuracy", "sqmprank",
                 "sqerror", "spearman", "kendall_tau_b", "ndcg", "mean_average_precision",
                 "UndefinedPerformance", "query_average", "query_cindex",
                 "query_ndcg", "query_mean_average_precision", "query_kendall_tau_b"]:
        assert hasattr(M, name), name
    stems = {"accuracy_measure": "accuracy", "auc_measure": "auc",
             "cindex_measure": "cindex", "fscore_measure": "fscore",
             "multi_accuracy_measure": "ova_accuracy", "sq_mprank_measure": "sqmprank",
             "sqerror_measure": "sqerror", "spearman_measure": "spearman",
             "kendall_measure": "kendall_tau_b"}
    for mod, fname in stems.items():
        module = importlib.import_module("rlscore.measure." + mod)
        assert getattr(module, fname) is getattr(M, fname)
    mu = importlib.import_module("rlscore.measure.measure_utilities")
    for name in ["UndefinedPerformance", "qids_to_splits", "aggregate", "multitask"]:
        assert hasattr(mu, name)


def test_iserror_attribute():
    for f in ALL_MEASURES + [M.ova_accuracy, M.query_cindex, M.query_ndcg,
                             M.query_mean_average_precision, M.query_kendall_tau_b]:
        assert isinstance(f.iserror, bool)
        assert f.iserror == (f in (M.sqerror, M.sqmprank))


def test_return_type_float64(ova_data):
    Y, P = ova_data
    for f in ALL_MEASURES:
        v = f(labels_for(f, Y), P)
        assert type(v) is np.float64, f.__name__
    assert type(M.ova_accuracy(Y, P)) is np.float64
    qids = np.arange(50) // 10
    for f in (M.query_cindex, M.query_ndcg, M.query_mean_average_precision,
              M.query_kendall_tau_b):
        assert type(f(labels_for(f, Y), P, qids)) is np.float64
    assert type(M.query_average(M.auc, Y, P, qids)) is np.float64


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_array_vs_matrix(ova_data):
    Y, P = ova_data
    for f in ALL_MEASURES + [M.ova_accuracy]:
        Yf = labels_for(f, Y)
        assert f(np.asmatrix(Yf), np.asmatrix(P)) == f(Yf, P)


def test_undefined_performance_exception():
    e = UndefinedPerformance("no pairs")
    assert isinstance(e, Exception)
    assert e.value == "no pairs"
    assert str(e) == repr("no pairs")


def test_qids_to_splits():
    assert qids_to_splits(["b", "a", "b", 3]) == [[0, 2], [1], [3]]
    assert qids_to_splits(np.array([5, 5, 1, 5, 1])) == [[0, 1, 3], [2, 4]]
    assert qids_to_splits([]) == []


def test_aggregate_and_multitask():
    assert aggregate([1.0, np.nan, 3.0]) == 2.0
    assert np.isnan(aggregate([np.nan, np.nan]))
    assert np.isnan(aggregate([]))
    Y = np.array([[1, 2], [2, 1], [3, 3]])
    P = np.array([[1, 1], [2, 2], [3, 3]])
    perfs = multitask(Y, P, cindex)
    assert perfs == [cindex(Y[:, 0], P[:, 0]), cindex(Y[:, 1], P[:, 1])]


# ----------------------------------------------------------------------------- input handling

@pytest.mark.parametrize("f", ALL_MEASURES)
def test_common_input_handling(f):
    y = labels_for(f, np.array([1.0, -1.0, 1.0, -1.0, 1.0]))
    p = np.array([0.5, -0.2, 0.1, 0.3, 2.0])
    # (m,) and (m, 1) are compatible
    assert f(y, p) == f(y[:, None], p) == f(y, p[:, None])
    with pytest.raises(UndefinedPerformance):
        f(y, p[:4])
    with pytest.raises(UndefinedPerformance):
        f(np.c_[y, y], np.c_[p, p, p])
    with pytest.raises(ValueError):
        f(y, np.where(p > 1, np.nan, p))
    with pytest.raises(ValueError):
        f(y, np.where(p > 1, np.inf, p))
    with pytest.raises(ValueError):
        f(y, p > 0)                      # bool is not numeric
    with pytest.raises(ValueError):
        f(y.astype(str), p)
    with pytest.raises(ValueError):
        f(y.reshape(5, 1, 1), p.reshape(5, 1, 1))
    # lists work
    assert f(list(y), list(p)) == f(y, p)


# ----------------------------------------------------------------------------- cindex

def test_cindex_spec_values():
    y = np.array([1, 2, 3, 3, 4])
    assert cindex(y, np.array([-4, 1, 5, 5, 7])) == 1.0
    assert cindex(y, np.array([-4, 1, 8, 5, 7])) == pytest.approx(8.0 / 9.0, abs=1e-15)
    assert cindex(y, np.array([-4, 1, 8, 7, 7])) == pytest.approx(7.5 / 9.0, abs=1e-15)
    assert cindex(y, np.array([10, 9, 8, 7, 6])) == 0.0
    p = np.array([10, 10, 10, 10, 10])
    assert cindex(y, p) == 0.5
    with pytest.raises(UndefinedPerformance):
        cindex(p, p)


def test_cindex_random_and_constant(cindex_by_hand):
    rng = np.random.RandomState(0)
    y, p = rng.rand(100), rng.rand(100)
    assert_allclose(cindex(y, p), cindex_by_hand(y, p), rtol=1e-14)
    assert cindex(rng.rand(10000), np.ones(10000)) == 0.5


def test_cindex_multicolumn_average_and_dropping(cindex_by_hand):
    rng = np.random.RandomState(1)
    Y = rng.randint(0, 4, size=(30, 3)).astype(float)
    P = rng.randint(0, 3, size=(30, 3)).astype(float)
    expected = np.mean([cindex_by_hand(Y[:, c], P[:, c]) for c in range(3)])
    assert_allclose(cindex(Y, P), expected, rtol=1e-14)
    # a column with all labels tied has no pairs: dropped from the average
    Y[:, 1] = 2.0
    assert cindex_by_hand(Y[:, 1], P[:, 1]) is None
    expected = np.mean([cindex_by_hand(Y[:, c], P[:, c]) for c in (0, 2)])
    assert_allclose(cindex(Y, P), expected, rtol=1e-14)
    # every column dropped: undefined
    with pytest.raises(UndefinedPerformance):
        cindex(np.ones((30, 3)), P)
    with pytest.raises(UndefinedPerformance):
        cindex(np.ones(1), np.ones(1))
    with pytest.raises(UndefinedPerformance):
        cindex(np.zeros(0), np.zeros(0))


def test_cindex_signed_zero_is_a_tie():
    assert cindex([1.0, 2.0], [0.0, -0.0]) == 0.5
    assert M.auc([1.0, -1.0], [-0.0, 0.0]) == 0.5


# ----------------------------------------------------------------------------- auc

def test_auc_vs_slow_and_multicolumn(ova_data):
    Y, P = ova_data
    assert_allclose(auc(Y[:, 0], P[:, 0]), slow_auc(Y[:, 0], P[:, 0]), rtol=1e-14)
    expected = np.mean([slow_auc(Y[:, c], P[:, c]) for c in range(Y.shape[1])])
    assert_allclose(auc(Y, P), expected, rtol=1e-14)
    assert auc(Y, np.zeros_like(P)) == 0.5
    assert auc(Y[:, 0], np.zeros(50)) == 0.5


def test_auc_errors():
    # RLScore's contract (test_measure/test_auc.py): labels other than -1/+1 raise,
    # the message saying how to pass 0/1 labels; zero_one=True accepts them (issue 23)
    for y01 in ([1, 0, 0], np.array([1, 0, 0]), np.array([True, False, False])):
        with pytest.raises(UndefinedPerformance, match="zero_one=True"):
            auc(y01, [1.0, 0.0, 0.0])
    assert auc(np.array([1, 0, 0]), np.array([1.0, 0.5, 0.2]), zero_one=True) == 1.0
    assert auc([True, False, False], [1.0, 0.5, 0.2], zero_one=True) == 1.0
    with pytest.raises(UndefinedPerformance):
        auc(np.array([1, 0, -1]), np.array([1.0, 0.5, 0.2]), zero_one=True)  # 0 and -1
    with pytest.raises(UndefinedPerformance):
        auc(np.array([1, -1, -1]), np.array([1.0, 0.5]))        # length mismatch
    with pytest.raises(UndefinedPerformance):
        auc(np.array([1, 1, 1]), np.array([1.0, 0.5, 0.2]))     # single class
    Y = np.array([[1, 1], [-1, 1], [1, 1]])
    with pytest.raises(UndefinedPerformance):                   # not skipped
        auc(Y, np.ones((3, 2)))
    # a non +-1 label anywhere in Y raises
    Y = np.array([[1, -1], [-1, 1], [1, 2]])
    with pytest.raises(UndefinedPerformance):
        auc(Y, np.ones((3, 2)))


# ----------------------------------------------------------------------------- accuracy, fscore

def test_accuracy():
    y = np.array([1, -1, 1, -1])
    assert accuracy(y, np.array([1.0, -2.0, -1.0, 0.0])) == (1 + 1 + 0 + 0.5) / 4
    assert accuracy(y, np.zeros(4)) == 0.5
    Y = np.c_[y, -y]
    P = np.c_[[1.0, -2.0, -1.0, 0.0], [1.0, 1.0, 1.0, 1.0]]
    assert accuracy(Y, P) == (0.625 + 0.5) / 2
    with pytest.raises(UndefinedPerformance):
        accuracy(np.array([1, 0, 0]), np.array([1.0, 0.0, 0.0]))
    with pytest.raises(UndefinedPerformance):
        accuracy(np.array([1, -1, 1]), np.array([1.0, 0.0]))


def test_fscore():
    y = np.array([1, 1, 1, -1, -1, -1])
    p = np.array([1.0, 1.0, -1.0, 1.0, -1.0, 0.0])    # P = 0 is negative
    tp, fp, fn = 2, 1, 1
    prec, rec = tp / (tp + fp), tp / (tp + fn)
    assert_allclose(fscore(y, p), 2 * prec * rec / (prec + rec), rtol=1e-15)
    assert_allclose(fscore(np.c_[y, y], np.c_[p, y]), (2 * prec * rec / (prec + rec) + 1) / 2)
    with pytest.raises(UndefinedPerformance):
        fscore(y, np.zeros(6))                         # nothing predicted positive
    with pytest.raises(UndefinedPerformance):
        fscore(y, -y.astype(float))                    # TP = 0
    with pytest.raises(UndefinedPerformance):
        fscore(np.array([1, 0, 1]), np.ones(3))


# ----------------------------------------------------------------------------- ova_accuracy

@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_ova_accuracy():
    classes = np.array([0, 2, 1, 2, 0])
    Y = -np.ones((5, 3))
    Y[np.arange(5), classes] = 1
    P = np.array([[0.9, 0.1, 0.2],
                  [0.0, 0.5, 0.4],     # wrong
                  [0.1, 0.3, 0.3],     # tie: first max (1) wins -> right
                  [0.0, 0.0, 1.0],
                  [0.5, 0.5, 0.1]])    # tie: first max (0) wins -> right
    assert ova_accuracy(Y, P) == 0.8
    assert ova_accuracy(np.asmatrix(Y), np.asmatrix(P)) == 0.8
    with pytest.raises(UndefinedPerformance):
        ova_accuracy(Y, P[:4])
    with pytest.raises(ValueError):
        ova_accuracy(classes, classes)


# ----------------------------------------------------------------------------- regression measures

def test_sqerror():
    rng = np.random.RandomState(2)
    y, p = rng.randn(20), rng.randn(20)
    assert_allclose(sqerror(y, p), np.mean((y - p) ** 2), rtol=1e-14)
    Y, P = rng.randn(20, 3), rng.randn(20, 3)
    assert_allclose(sqerror(Y, P), np.mean([np.mean((Y[:, c] - P[:, c]) ** 2)
                                            for c in range(3)]), rtol=1e-14)
    with pytest.raises(UndefinedPerformance, match="empty"):      # was nan (issue 18)
        sqerror(np.zeros(0), np.zeros(0))


def test_sqmprank():
    rng = np.random.RandomState(3)
    Y, P = rng.randn(15, 2), rng.randn(15, 2)

    def pairs(y, p):
        return np.mean([((y[i] - y[j]) - (p[i] - p[j])) ** 2
                        for i in range(len(y)) for j in range(i + 1, len(y))])
    assert_allclose(sqmprank(Y[:, 0], P[:, 0]), pairs(Y[:, 0], P[:, 0]), rtol=1e-12)
    assert_allclose(sqmprank(Y, P), np.mean([pairs(Y[:, c], P[:, c]) for c in range(2)]),
                    rtol=1e-12)
    assert np.isnan(sqmprank(np.ones(1), np.zeros(1)))
    # shift invariance
    assert_allclose(sqmprank(Y, P + 100.0), sqmprank(Y, P), rtol=1e-9)


def test_spearman():
    rng = np.random.RandomState(4)
    Y = rng.randint(0, 4, size=(25, 2)).astype(float)
    P = rng.randn(25, 2)
    expected = np.mean([stats.spearmanr(Y[:, c], P[:, c])[0] for c in range(2)])
    assert_allclose(spearman(Y, P), expected, rtol=1e-14)
    assert np.isnan(spearman(np.ones(5), np.arange(5.0)))


# ----------------------------------------------------------------------------- kendall

def test_kendall_tau_b_vs_scipy():
    y = np.array([1, 2, 3, 3, 4])
    for p in ([-4, 1, 5, 5, 7], [-4, 1, 8, 5, 7], [-4, 1, 8, 7, 7], [10, 9, 8, 7, 6]):
        assert_allclose(M.kendall_tau_b(y, p),
                        stats.kendalltau(y, p, variant="b").statistic, rtol=1e-14)
    rng = np.random.RandomState(5)
    Y = rng.randint(0, 3, size=(40, 3)).astype(float)
    P = rng.randint(0, 4, size=(40, 3)).astype(float)
    expected = np.mean([stats.kendalltau(Y[:, c], P[:, c]).statistic for c in range(3)])
    assert_allclose(M.kendall_tau_b(Y, P), expected, rtol=1e-13)


def test_kendall_tau_b_undefined():
    y = np.array([1.0, 2.0, 3.0])
    with pytest.raises(UndefinedPerformance):
        M.kendall_tau_b(y, np.ones(3))            # predictions constant
    with pytest.raises(UndefinedPerformance):
        M.kendall_tau_b(np.ones(3), y)            # labels constant
    # a column with constant labels is dropped, like in cindex
    Y = np.c_[y, np.ones(3)]
    P = np.c_[y, y]
    assert M.kendall_tau_b(Y, P) == 1.0
    # constant predictions in a column with untied labels: raise, not drop
    with pytest.raises(UndefinedPerformance):
        M.kendall_tau_b(np.c_[y, y], np.c_[y, np.ones(3)])


# ----------------------------------------------------------------------------- ndcg, MAP
# (the LETOR 4.0 rules in detail: tests/measure/test_letor_measures.py)

def test_ndcg_hand_computed():
    rel = np.array([3, 2, 0, 1])
    p = np.array([4.0, 1.0, 3.0, 2.0])          # ranking: 3, 0, 1, 2 (relevances)
    # LETOR 4.0: ranks 1 and 2 undiscounted, rank r >= 3 by 1/log2(r)
    dcg = 7 + 0 + 1 / np.log2(3) + 3 / np.log2(4)
    idcg = 7 + 3 + 1 / np.log2(3)
    assert_allclose(M.ndcg(rel, p, k=4), dcg / idcg, rtol=1e-14)
    assert_allclose(M.ndcg(rel, p, k=None), dcg / idcg, rtol=1e-14)
    assert M.ndcg(rel, p) == 0.0                 # 4 documents < k = 10
    assert_allclose(M.ndcg(rel, p, k=2), 7 / 10, rtol=1e-14)
    assert M.ndcg(rel, rel, k=4) == 1.0
    # tied predictions keep the input order
    p = np.array([1.0, 1.0, 0.0, 0.0])
    assert_allclose(M.ndcg(rel, p, k=4), (7 + 3 + 0 + 1 / 2) / idcg, rtol=1e-14)


def test_ndcg_standard_matches_sklearn_with_ties():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.RandomState(6)
    for k in (1, 3, 10, None):
        rel = rng.randint(0, 5, size=30).astype(float)
        p = rng.randint(0, 6, size=30).astype(float)        # many ties
        expected = sklearn_metrics.ndcg_score([rel], [p], k=k)
        assert_allclose(M.ndcg(rel, p, k=k, convention="standard"), expected,
                        rtol=1e-12)


def test_ndcg_errors():
    assert M.ndcg(np.zeros(4), np.arange(4.0), k=4) == 0.0   # IDCG = 0 scores 0
    with pytest.raises(UndefinedPerformance):
        M.ndcg(np.array([1, -2, 0]), np.arange(3.0))        # negative relevance
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError):
            M.ndcg(np.array([1, 0, 2]), np.arange(3.0), k=bad)
    # several columns are averaged; an all-zero column scores 0
    Y = np.c_[[0, 0, 0], [1, 0, 2]]
    P = np.c_[[1.0, 2, 3], [0.0, 1, 2]]
    assert M.ndcg(Y, P, k=3) == M.ndcg(Y[:, 1], P[:, 1], k=3) / 2


def test_mean_average_precision():
    y = np.array([1, 0, 1, 0, 1])
    p = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    assert_allclose(M.mean_average_precision(y, p), (1 / 1 + 2 / 3 + 3 / 5) / 3, rtol=1e-15)
    # +-1 and graded labels: > 0 is relevant
    assert M.mean_average_precision(2 * y - 1, p) == M.mean_average_precision(y, p)
    assert M.mean_average_precision(3 * y, p) == M.mean_average_precision(y, p)
    # ties keep the input order (LETOR)
    assert M.mean_average_precision(np.array([1, 0]), np.array([1.0, 1.0])) == 1.0
    assert M.mean_average_precision(np.array([0, 1]), np.array([1.0, 1.0])) == 0.5
    # no relevant item: AP = 0
    assert M.mean_average_precision(np.zeros(3), np.arange(3.0)) == 0.0
    assert M.mean_average_precision(-np.ones(3), np.arange(3.0)) == 0.0


# ----------------------------------------------------------------------------- query forms

def test_query_forms_examples():
    Y = np.array([1, 2, 3, 1, 2, 2, 5, 5])
    P = np.array([1, 2, 3, 3, 2, 1, 0, 1])
    qids = ["a", "a", "a", "b", "b", "b", "c", "c"]       # query c is degenerate
    qa = cindex(Y[:3], P[:3])
    qb = cindex(Y[3:6], P[3:6])
    assert_allclose(M.query_cindex(Y, P, qids), (qa + qb) / 2, rtol=1e-15)
    assert M.query_average(cindex, Y, P, qids) == M.query_cindex(Y, P, qids)
    # non-contiguous and mixed-type ids
    qids2 = [1, "x", 1, "x", 1, "x", "y", "y"]
    rows1, rowsx = [0, 2, 4], [1, 3, 5]
    expected = (cindex(Y[rows1], P[rows1]) + cindex(Y[rowsx], P[rowsx])) / 2
    assert_allclose(M.query_cindex(Y, P, qids2), expected, rtol=1e-15)
    assert_allclose(M.query_cindex(Y, P, np.array([0, 0, 0, 1, 1, 1, 2, 2])),
                    (qa + qb) / 2, rtol=1e-15)


def test_query_forms_errors():
    Y = np.array([1.0, 1.0, 2.0, 2.0])
    P = np.array([1.0, 2.0, 3.0, 4.0])
    qids = [0, 0, 1, 1]
    for f in (M.query_cindex, M.query_kendall_tau_b):
        with pytest.raises(UndefinedPerformance):
            f(Y, P, qids)                                  # every query all-tied
    # no relevant document in any query: 0 under the LETOR rules (was an error)
    assert M.query_ndcg(np.zeros(4), P, qids) == 0.0
    assert M.query_mean_average_precision(np.zeros(4), P, qids) == 0.0
    with pytest.raises(UndefinedPerformance):
        M.query_average(cindex, Y, P, qids)
    with pytest.raises(ValueError):
        M.query_cindex(Y, P, [0, 0, 1])                    # qids length
    with pytest.raises(ValueError):
        M.query_cindex(Y, P, [0.0, np.nan, 1.0, 1.0])
    with pytest.raises(UndefinedPerformance):
        M.query_cindex(Y, P[:3], qids)                     # shape mismatch


def test_query_kendall_constant_predictions_raise():
    Y = np.array([1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 4.0, 4.0])
    P = np.array([1.0, 2.0, 3.0, 7.0, 7.0, 7.0, 1.0, 2.0])
    qids = [0, 0, 0, 1, 1, 1, 2, 2]
    # query 1 has untied labels and constant predictions: undefined, not skipped
    with pytest.raises(UndefinedPerformance):
        M.query_kendall_tau_b(Y, P, qids)
    with pytest.raises(UndefinedPerformance):
        M.query_average(M.kendall_tau_b, Y, P, qids)
    # query 2 (tied labels) is skipped; query 1 scores 0.5 under the c-index
    assert M.query_cindex(Y, P, qids) == (1.0 + 0.5) / 2


def test_query_average_kwargs_and_auc():
    rng = np.random.RandomState(7)
    Y = rng.randint(0, 3, size=40).astype(float)
    P = rng.randn(40)
    qids = rng.randint(0, 6, size=40)
    assert_allclose(M.query_average(M.ndcg, Y, P, qids, k=3), M.query_ndcg(Y, P, qids, k=3),
                    rtol=1e-14)
    Yb = np.where(Y > 0, 1.0, -1.0)
    expected = []
    for q in np.unique(qids):
        yq, pq = Yb[qids == q], P[qids == q]
        if len(np.unique(yq)) == 2:
            expected.append(slow_auc(yq, pq))
    assert_allclose(M.query_average(M.auc, Yb, P, qids), np.mean(expected), rtol=1e-14)


@pytest.mark.parametrize("shape", [(0,), (0, 2), (5, 0)])
def test_empty_inputs(shape):
    # every measure refuses empty input (sqerror, sqmprank, spearman returned nan)
    Y, P = np.ones(shape), np.ones(shape)
    for f in ALL_MEASURES:
        with pytest.raises(UndefinedPerformance):
            f(Y, P)
    if shape[0] == 0:
        for f in (M.query_cindex, M.query_ndcg, M.query_mean_average_precision,
                  M.query_kendall_tau_b):
            with pytest.raises(UndefinedPerformance):
                f(Y, P, np.zeros(shape[0]))
