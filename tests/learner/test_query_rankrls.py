"""QueryRankRLS, LeaveQueryOutRankRLS, LQOCV and map_qids: RLScore's contract and the
leave-query-out selection against explicit retraining."""

import numpy as np
import pytest

from rlscore.core.selection import grid_search
from rlscore.kernel import GaussianKernel
from rlscore.learner.query_rankrls import (
    LQOCV, LeaveQueryOutRankRLS, QueryRankRLS, map_qids)
from rlscore.measure import cindex, sqerror


def lap(qids):
    qids = np.asarray(qids)
    L = np.eye(qids.size)
    for q in np.unique(qids):
        idx = np.flatnonzero(qids == q)
        L[np.ix_(idx, idx)] -= 1.0 / idx.size
    return L


def close(a, b, rtol=1e-7):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-2 * np.abs(b).max())


def data(rng, nq=5, size=3, d=4, p=1):
    m = nq * size
    X = rng.random((m, d))
    Y = rng.random((m, p)) if p > 1 else rng.random(m)
    qids = np.repeat(np.arange(nq), size)
    return X, Y, qids


def test_closed_forms_and_qid_attributes(rng):
    X, Y, qids = data(rng, p=2)
    L = lap(qids)
    W = np.linalg.solve(X.T @ L @ X + 0.5 * np.eye(4), X.T @ L @ Y)
    for q in (qids, qids.tolist(), [f"q{v}" for v in qids]):
        learner = QueryRankRLS(np.asmatrix(X), np.asmatrix(Y), q, regparam=0.5, bias=4.0)
        close(learner.predictor.W, W)
        assert np.all(learner.predictor.b == 0)
        assert learner.qids == qids.tolist()
        assert learner.qidlist == [[3 * i, 3 * i + 1, 3 * i + 2] for i in range(5)]
    K = GaussianKernel(X, gamma=0.7).getKM(X)
    gau = QueryRankRLS(X, Y, qids, regparam=0.5, kernel="GaussianKernel", gamma=0.7)
    close(gau.predictor.A, np.linalg.solve(L @ K + 0.5 * np.eye(15), L @ Y), 1e-6)
    basis = [0, 4, 8, 12]
    K_r, K_rr = K[:, basis], K[np.ix_(basis, basis)]
    pre = QueryRankRLS(K_r, Y, qids, regparam=0.5, kernel="PrecomputedKernel",
                       basis_vectors=K_rr)
    close(pre.predictor.W,
          np.linalg.solve(K_r.T @ L @ K_r + 0.5 * K_rr, K_r.T @ L @ Y), 1e-6)


def test_groups_by_value_not_contiguity(rng):
    X, y, _ = data(rng)
    qids = ["b", "a", "b", 3, "a", 3, "b", 3, "a", "c", "c", "c", "b", "a", 3]
    learner = QueryRankRLS(X, y, qids)
    assert learner.qids == map_qids(qids) == [0, 1, 0, 2, 1, 2, 0, 2, 1, 3, 3, 3, 0, 1, 2]
    W = np.linalg.solve(X.T @ lap(learner.qids) @ X + np.eye(4),
                        X.T @ lap(learner.qids) @ y)
    close(learner.predictor.W, W)


@pytest.mark.parametrize("kernel,kw", [("LinearKernel", {}),
                                       ("GaussianKernel", {"gamma": 0.5})])
def test_holdout_equals_retraining(rng, kernel, kw):
    X, Y, qids = data(rng, nq=4, size=4, p=2)
    learner = QueryRankRLS(X, Y, qids, regparam=0.3, kernel=kernel, **kw)
    for H in ([4, 5, 6, 7],          # a whole query: leave-query-out
              [0, 2],                # part of a query: the rest form a smaller query
              [9]):
        rest = np.setdiff1d(np.arange(16), H)
        ref = QueryRankRLS(X[rest], Y[rest], qids[rest], regparam=0.3, kernel=kernel, **kw)
        close(learner.holdout(H), np.squeeze(ref.predict(X[H])), 1e-6)
    P = learner.holdout([0, 1, 2, 3])
    assert learner.predictor.predict(np.asmatrix(X[:4])).shape == np.squeeze(P).shape


def test_holdout_across_queries_and_bad_qids(rng):
    X, y, qids = data(rng)
    learner = QueryRankRLS(X, y, qids)
    with pytest.raises(IndexError):
        learner.holdout([0, 4, 8])
    for bad in ([0, 3, 100], [-1, 0, 2], [1, 1, 2]):
        with pytest.raises(IndexError):
            learner.holdout(bad)
    with pytest.raises(ValueError, match="length"):
        QueryRankRLS(X, y, qids[:-1])
    with pytest.raises(ValueError):
        QueryRankRLS(X, y, qids + 0.5)
    with pytest.raises(TypeError):
        QueryRankRLS(X, y, [{"q": 1}] * 15)
    with pytest.raises(ValueError, match="tied"):
        QueryRankRLS(X, qids.astype(float), qids)


def test_single_item_queries_contribute_nothing(rng):
    X, y, qids = data(rng)
    qids = qids.copy()
    qids[[2, 5]] = [10, 11]                # two singleton queries
    learner = QueryRankRLS(X, y, qids)
    keep = np.setdiff1d(np.arange(15), [2, 5])
    ref = QueryRankRLS(X[keep], y[keep], qids[keep])
    close(learner.predictor.W, ref.predictor.W)
    close(learner.holdout([5]), ref.predict(X[5]))


def test_leave_query_out_rankrls_matches_retraining(rng):
    X, y, qids = data(rng, nq=6, size=4, d=3)
    grid = [0.01, 1.0, 100.0]
    sel = LeaveQueryOutRankRLS(X, y, qids, regparams=grid)
    assert sel.measure is cindex
    assert len(sel.cv_predictions) == 3 and len(sel.cv_predictions[0]) == 6
    for g, lam in enumerate(grid):
        perfs = []
        for q in range(6):
            rows = np.flatnonzero(qids == q)
            rest = np.setdiff1d(np.arange(24), rows)
            P = QueryRankRLS(X[rest], y[rest], qids[rest], regparam=lam).predict(X[rows])
            close(sel.cv_predictions[g][q], P, 1e-6)
            perfs.append(cindex(y[rows], P))
        assert sel.cv_performances[g] == pytest.approx(np.mean(perfs))
    assert sel.regparam == grid[int(np.argmax(sel.cv_performances))]
    close(sel.predict(X), QueryRankRLS(X, y, qids, regparam=sel.regparam).predict(X), 1e-6)


def test_leave_query_out_measures_and_skipped_queries(rng):
    X, Y, qids = data(rng, nq=6, size=4, d=3, p=2)
    Y[qids == 2] = 1.0                          # a query without pairs: skipped
    grid = [0.1, 10.0]
    sel = LeaveQueryOutRankRLS(X, Y, qids, regparams=grid, kernel="GaussianKernel")
    for g in range(2):
        perfs = [cindex(Y[qids == q], sel.cv_predictions[g][q]) for q in range(6) if q != 2]
        assert sel.cv_performances[g] == pytest.approx(np.mean(perfs))
    err = LeaveQueryOutRankRLS(X, Y, qids, regparams=grid, measure=sqerror)
    perfs = [sqerror(Y[qids == q], err.cv_predictions[0][q]) for q in range(6)]
    assert err.cv_performances[0] == pytest.approx(np.mean(perfs))
    assert err.regparam == grid[int(np.argmin(err.cv_performances))]
    assert LeaveQueryOutRankRLS(X, Y, qids).cv_performances.shape == (30,)


def test_lqocv_protocol(rng):
    X, y, qids = data(rng)
    learner = QueryRankRLS(X, y, qids)
    cv = LQOCV(learner, None)
    assert cv.measure is cindex and cv.rls is learner
    perfs, preds, best = grid_search(cv, [0.5, 2.0])
    assert learner.regparam == best and len(preds[0]) == 5
    assert preds[0][1].shape == (3, 1)


def test_map_qids():
    assert map_qids(["b", "a", "b", 3]) == [0, 1, 0, 2]
    assert map_qids(np.array([5, 5, 1, 5])) == [0, 0, 1, 0]
    assert isinstance(map_qids([1, 2])[0], int)
    with pytest.raises(ValueError):
        map_qids([])
