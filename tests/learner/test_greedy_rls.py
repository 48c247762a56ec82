"""GreedyRLS and GreedyRankRLS (RLSCORE_COMPAT.md section 11): selection and LOO
errors against brute force, the final model against RLS / QueryRankRLS on the selected
columns, RLScore's attributes and shapes, callbacks and legacy keywords."""

import logging
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.learner import RLS
from rlscore.learner.greedy_rls import (
    GREEDYRLS_LOO_PERFORMANCES, GREEDYRLS_TEST_PERFORMANCES, SELECTED_FEATURES,
    DefaultCallback, GreedyRankRLS, GreedyRLS)


def _brute_force(X, Y, k, lam, bias):
    """RLScore's reference: at each step, for every candidate, LOO by retraining the
    dual model without each example; the summed per-example mean error decides."""
    m, d = X.shape
    Xb = np.hstack([X, np.full((m, 1), np.sqrt(bias))])
    selected = []
    for _ in range(k):
        best, best_j = np.inf, None
        for j in range(d):
            if j in selected:
                continue
            F = Xb[:, selected + [d, j]]
            K = F @ F.T
            err = 0.0
            for i in range(m):
                tr = np.delete(np.arange(m), i)
                p = K[i, tr] @ np.linalg.solve(K[np.ix_(tr, tr)] + lam * np.eye(m - 1), Y[tr])
                err += np.mean((p - Y[i]) ** 2)
            if err < best:
                best, best_j = err, j
        selected.append(best_j)
    F = Xb[:, selected + [d]]
    A = F.T @ np.linalg.solve(F @ F.T + lam * np.eye(m), Y)
    return selected, A


def test_selection_and_model_equal_brute_force(rng):
    X = rng.random((10, 30))
    Y = np.asmatrix(rng.random((10, 2)))
    selected, A = _brute_force(X, np.asarray(Y), 5, 1.0, 2.0)
    calls = []

    class CB:
        def callback(self, learner):
            calls.append(list(learner.selected))

        def finished(self, learner):
            calls.append("finished")

    with pytest.warns(UserWarning, match="callback"):
        learner = GreedyRLS(X=X, Y=Y, subsetsize=5, regparam=1.0, bias=2.0, callback=CB())
    assert calls == []                          # callback= is not the callback
    assert learner.selected == selected and all(type(j) is int for j in learner.selected)
    np.testing.assert_allclose(learner.A[selected], A[:-1])
    np.testing.assert_allclose(learner.b, np.asmatrix(np.sqrt(2.0) * A[-1]))
    assert learner.A.shape == (30, 2) and learner.b.shape == (1, 2)
    learner = GreedyRLS(X, Y, 5, 1.0, 2.0, callbackfun=CB())
    assert calls == [selected[:k] for k in range(1, 6)] + ["finished"]


@pytest.mark.parametrize("l", [1, 5])
@pytest.mark.parametrize("d", [20, 40])
def test_final_model_is_rls_on_selected_columns(rng, l, d):
    X = rng.random((30, d))
    Y = rng.normal(size=30) if l == 1 else rng.normal(size=(30, l))
    g = GreedyRLS(X, Y, subsetsize=10, regparam=12, bias=0.0)
    rest = sorted(set(range(d)) - set(g.selected))
    r = RLS(X[:, g.selected], Y, regparam=12.0, bias=0.0)
    np.testing.assert_allclose(g.predictor.W[g.selected], r.predictor.W)
    np.testing.assert_array_equal(g.predictor.W[rest], 0)
    np.testing.assert_array_equal(g.predictor.b, 0)
    g = GreedyRLS(X, Y, subsetsize=10, regparam=12, bias=2.0)
    r = RLS(X[:, g.selected], Y, regparam=12.0, bias=2.0)
    np.testing.assert_allclose(g.predictor.W[g.selected], r.predictor.W)
    np.testing.assert_allclose(g.predictor.b, r.predictor.b)
    np.testing.assert_allclose(g.predict(X[:3]), r.predict(X[:3, g.selected]))
    assert g.predictor.W.shape == ((d,) if l == 1 else (d, l))


def test_performances_are_loo_errors_and_attributes(rng):
    X = rng.random((25, 12))
    y = rng.normal(size=25)
    g = GreedyRLS(X, y, 4, regparam=0.5, bias=1.0)
    for k in range(4):
        loo = RLS(X[:, g.selected[: k + 1]], y, 0.5, bias=1.0).leave_one_out()
        assert g.performances[k] == pytest.approx(np.mean((loo - y) ** 2), rel=1e-9)
    assert g.bestlooperf == g.performances[-1]
    assert g.looperf.shape == (1, 12)
    assert np.all(np.isinf(g.looperf[0, g.selected[:-1]]))
    assert g.looperf[0, g.selected[-1]] == pytest.approx(g.bestlooperf)
    assert g.results == {SELECTED_FEATURES: g.selected,
                         GREEDYRLS_LOO_PERFORMANCES: g.performances}
    assert not hasattr(g, "solve")
    assert g.regparam == 0.5 and g.bias == 1.0


def test_callback_sees_current_model(rng):
    X = rng.random((20, 8))
    y = rng.normal(size=20)

    class CB:
        def callback(self, learner):
            k = len(learner.selected)
            assert len(learner.performances) == k and learner.bestlooperf is not None
            r = RLS(X[:, learner.selected], y, 1.0, bias=1.0)
            np.testing.assert_allclose(learner.predict(X), r.predict(X[:, learner.selected]))

    GreedyRLS(X, y, 4, callbackfun=CB())


def test_sparse_subsetsize_zero_and_bad_input(rng):
    X = rng.random((15, 6))
    X[X < 0.5] = 0
    y = rng.normal(size=15)
    a = GreedyRLS(X, y, 3)
    b = GreedyRLS(sp.csr_matrix(X), y, 3)
    c = GreedyRLS(sp.csc_array(X), list(y), 3)
    assert a.selected == b.selected == c.selected
    np.testing.assert_allclose(a.predictor.W, b.predictor.W, rtol=1e-12)
    z = GreedyRLS(X, y, 0, bias=1.0)
    assert z.selected == [] and np.all(z.predictor.W == 0) and z.A.shape == (6, 1)
    np.testing.assert_allclose(z.predictor.b, RLS(np.zeros((15, 1)), y, bias=1.0).predictor.b)
    with pytest.raises(ValueError):
        GreedyRLS(X, y, 7)
    with pytest.raises(ValueError):
        GreedyRLS(X, y, -1)
    with pytest.raises(ValueError):
        GreedyRLS(X, y, 2, regparam=0.0)
    Xz = X.copy()
    Xz[:, 2] = 0.0
    with pytest.warns(UserWarning, match="skipped"):
        g = GreedyRLS(Xz, y, 3)
    assert g.skipped_features == [2] and 2 not in g.selected


def test_default_callback_prints(rng, capsys):
    X = rng.random((15, 6))
    y = rng.normal(size=15)
    g = GreedyRLS(X, y, 2, use_default_callback=True, test_features=X[:5],
                  test_labels=y[:5], test_measure="sqerror")
    out = capsys.readouterr().out
    assert out.count("LOO error") == 2 and out.count("test performance") == 2
    assert len(g.results[GREEDYRLS_TEST_PERFORMANCES]) == 2
    DefaultCallback().callback(g)
    assert "LOO error" in capsys.readouterr().out
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GreedyRLS(X, y, 1)           # nothing printed, nothing warned by default
    assert capsys.readouterr().out == ""


def test_greedy_rankrls_against_query_rankrls(rng):
    qr = pytest.importorskip("rlscore.learner.query_rankrls")
    X = rng.random((40, 10))
    y = X[:, 3] - X[:, 6] + 0.1 * rng.normal(size=40)
    qids = np.repeat(np.arange(8), 5)
    g = GreedyRankRLS(X, y, qids, 3, regparam=0.5)
    assert g.selected[:2] in ([3, 6], [6, 3])
    r = qr.QueryRankRLS(X[:, g.selected], y, qids, regparam=0.5)
    np.testing.assert_allclose(g.predictor.W[g.selected], r.predictor.W, rtol=1e-9)
    assert np.all(g.b == 0)
    # the criterion is the leave-query-out error: retrain without each query
    err = 0.0
    for q in range(8):
        te, tr = qids == q, qids != q
        p = qr.QueryRankRLS(X[tr][:, g.selected], y[tr], qids[tr], regparam=0.5).predict(
            X[te][:, g.selected])
        res = y[te] - p
        err += np.sum((res - res.mean()) ** 2)
    assert g.performances[-1] == pytest.approx(err / 40, rel=1e-9)
    with pytest.raises(ValueError):
        GreedyRankRLS(X, y, None, 2)


def test_verbose(rng, capsys, caplog):
    with caplog.at_level(logging.DEBUG, logger="rlscore"):
        g = GreedyRLS(rng.random((12, 5)), rng.normal(size=12), 3, verbose=True)
    out, err = capsys.readouterr()
    assert out == "" and "greedy selection" in err and "criterion=" in err
    steps = [r.getMessage() for r in caplog.records if ": step " in r.getMessage()]
    assert [f"feature={j}," in msg for j, msg in zip(g.selected, steps)] == [True] * 3
