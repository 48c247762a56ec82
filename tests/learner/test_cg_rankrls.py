"""CGRankRLS and PCGRankRLS (RLSCORE_COMPAT.md section 10): the closed forms,
QueryRankRLS / GlobalRankRLS at matching regparams, the callback protocol and
EarlyStopCB with and without validation queries."""

import logging
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.learner.cg_rankrls import CGRankRLS, EarlyStopCB, Finished, PCGRankRLS


def _centering(codes):
    L = np.eye(len(codes))
    for g in np.unique(codes):
        idx = np.flatnonzero(np.asarray(codes) == g)
        L[np.ix_(idx, idx)] -= 1.0 / idx.size
    return L


@pytest.mark.parametrize("regparam", [1e-8, 1.0, 1e8])
def test_global_centering_closed_form(rng, regparam):
    # RLScore's test: d > m, L = I - 1 1^T / m, 5 decimals; the bias keyword is ignored
    m, n = 100, 300
    X = np.asmatrix(rng.random((m, n)))
    Y = np.asmatrix(rng.random((m, 1)))
    with pytest.warns(UserWarning, match="bias"):
        learner = CGRankRLS(X, Y, regparam, bias=1.0)
    Xa = np.asarray(X)
    # reference through the well-posed (m-1) x (m-1) dual: with L = B B^T (B an
    # orthonormal basis of the centred vectors), W = X^T B (B^T X X^T B + lam I)^-1 B^T y
    B = np.linalg.qr(np.eye(m) - np.ones((m, m)) / m)[0][:, : m - 1]
    XB = Xa.T @ B
    W = XB @ np.linalg.solve(XB.T @ XB + regparam * np.eye(m - 1), B.T @ np.asarray(Y))
    # default tol 1e-8; RLScore's test asks for 5 decimals (|W| ~ 0.1 here)
    np.testing.assert_allclose(learner.predictor.W, W[:, 0], rtol=1e-5,
                               atol=1e-7 * np.abs(W).max())
    assert learner.predictor.W.shape == (n,) and learner.predictor.b == 0
    assert learner.A.shape == (n, 1) and learner.b.shape == (1, 1) and learner.qids is None


def test_matches_query_and_global_rankrls(rng):
    qr = pytest.importorskip("rlscore.learner.query_rankrls")
    gr = pytest.importorskip("rlscore.learner.global_rankrls")
    X = rng.random((70, 25))
    y = X.sum(axis=1) + rng.normal(size=70)
    qids = np.repeat([3, 1, 4, 1, 5], 14)           # repeated ids group by value
    a = qr.QueryRankRLS(X, y, qids, regparam=0.5)
    b = CGRankRLS(X, y, 0.5, qids=list(qids), tol=1e-12)
    np.testing.assert_allclose(b.predictor.W, a.predictor.W, rtol=1e-8, atol=1e-12)
    assert b.qids == np.repeat([0, 1, 2, 1, 3], 14).tolist()
    g = gr.GlobalRankRLS(X, y, regparam=0.5 * 70)
    c = CGRankRLS(X, y, 0.5, tol=1e-12)
    np.testing.assert_allclose(c.predictor.W, g.predictor.W, rtol=1e-8, atol=1e-12)


def test_query_closed_form_sparse(rng):
    X = sp.random(50, 30, density=0.2, format="csr", random_state=np.random.RandomState(1))
    y = rng.normal(size=50)
    q = rng.integers(0, 5, 50)
    learner = CGRankRLS(X, y, 0.3, qids=q, tol=1e-12)
    L = _centering(q)
    Xd = X.toarray()
    W = np.linalg.solve(Xd.T @ L @ Xd + 0.3 * np.eye(30), Xd.T @ L @ y)
    np.testing.assert_allclose(learner.predictor.W, W, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("regparam", [1e-4, 1.0, 1e8])
def test_preferences_closed_form(rng, regparam):
    m, n = 60, 20
    X = rng.random((m, n))
    y = rng.random(m)
    a, b = rng.integers(0, m, 400), rng.integers(0, m, 400)
    pairs = np.where((y[a] > y[b])[:, None], np.c_[a, b], np.c_[b, a])
    with pytest.warns(UserWarning):               # self-pairs (a == b) and 'bias'
        learner = PCGRankRLS(X, train_preferences=pairs, regparam=regparam, bias=1.0)
    C = np.zeros((len(pairs), m))
    C[np.arange(len(pairs)), pairs[:, 0]] += 1
    C[np.arange(len(pairs)), pairs[:, 1]] -= 1
    W = np.linalg.solve(X.T @ C.T @ C @ X + regparam * np.eye(n),
                        X.T @ C.T @ np.ones(len(pairs)))
    np.testing.assert_allclose(learner.predictor.W, W, rtol=1e-6,
                               atol=1e-9 * np.abs(W).max())
    assert learner.pairs.shape == pairs.shape and learner.predictor.b == 0


def test_single_output_only_and_bad_input(rng):
    X = rng.random((20, 4))
    with pytest.raises(ValueError, match="single output"):
        CGRankRLS(X, rng.random((20, 2)))
    with pytest.raises(ValueError):
        CGRankRLS(X, rng.random(20), qids=[0] * 19)
    with pytest.raises(ValueError):
        CGRankRLS(X, rng.random(20), maxiter=-3)
    with pytest.raises(IndexError):
        PCGRankRLS(X, [[0, 20]])
    with pytest.raises(ValueError):
        PCGRankRLS(X, [0, 1])


def test_callback_protocol_and_finished(rng):
    X = rng.random((40, 12))
    y = rng.random(40)
    log = []

    class CB:
        def callback(self, learner):
            assert learner.A.shape == (12, 1) and np.all(learner.b == 0)
            assert learner.b.shape == (1, 1)
            np.testing.assert_array_equal(learner.predictor.W, learner.A[:, 0])
            log.append("it")
            if len(log) == 4:
                raise Finished("enough")

        def finished(self, learner):
            log.append("finished")

    learner = CGRankRLS(X, y, 1e-3, callbackfun=CB())
    assert log == ["it"] * 4 + ["finished"] and learner.n_iter == 4
    assert not learner.converged


@pytest.mark.parametrize("with_qids", [False, True])
def test_early_stop_callback(rng, with_qids):
    m, d = 80, 150
    w = np.zeros(d)
    w[:4] = 1.0
    X = rng.normal(size=(m, d))
    y = X @ w + rng.normal(size=m)
    Xv = rng.normal(size=(120, d))
    yv = Xv @ w + rng.normal(size=120)
    qv = np.repeat(np.arange(12), 10) if with_qids else None
    cb = EarlyStopCB(Xv, yv, qids_valid=qv, maxiter=2)
    learner = CGRankRLS(X, y, 1e-6, qids=np.repeat(np.arange(8), 10), callbackfun=cb)
    np.testing.assert_allclose(learner.A, cb.bestA, rtol=0)
    assert cb.iter - cb.last_update == 2
    perf = cb._performance(learner.predict(Xv))
    assert perf == pytest.approx(cb.bestperf, rel=1e-12)


def test_no_warning_for_linear_kernel_keyword(rng):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CGRankRLS(rng.random((10, 3)), rng.random(10), kernel="LinearKernel")


def test_verbose(rng, capsys, caplog):
    with caplog.at_level(logging.DEBUG, logger="rlscore"):
        learner = PCGRankRLS(rng.random((10, 3)), [[0, 1], [2, 3], [4, 1]], verbose=True)
    out, err = capsys.readouterr()
    assert out == "" and "CG (preference RankRLS)" in err and "residual=" in err
    steps = [r for r in caplog.records if ": step " in r.getMessage()]
    assert len(steps) == learner.n_iter
