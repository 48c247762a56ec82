"""CGRLS (RLSCORE_COMPAT.md section 9): agreement with RLS, RLScore's attributes and
shapes, the callback protocol (dual iterates, Finished, finished()), EarlyStopCB."""

import logging
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.learner import RLS
from rlscore.learner.cg_rls import CGRLS, EarlyStopCB, Finished
from rlscore.measure import sqerror
from rlscore.predictor import LinearPredictor


@pytest.mark.parametrize("regparam", [1e-8, 1.0, 1e8])
def test_agrees_with_rls_on_matrix_input(rng, regparam):
    # RLScore's test: m=100, d=300, bias 2, np.matrix X and Y, 5 decimals
    X = np.asmatrix(rng.random((100, 300)))
    Y = np.asmatrix(rng.random((100, 1)))
    rls = RLS(X, Y, regparam, bias=2.0)
    cg = CGRLS(X, Y, regparam, bias=2.0)
    assert isinstance(cg.predictor, LinearPredictor)
    assert cg.predictor.W.shape == rls.predictor.W.shape == (300,)
    np.testing.assert_allclose(cg.predictor.W, rls.predictor.W, rtol=1e-6,
                               atol=1e-8 * np.abs(rls.predictor.W).max())
    np.testing.assert_allclose(cg.predictor.b, rls.predictor.b, rtol=1e-6, atol=1e-9)
    assert cg.A.shape == (300, 1) and cg.b.shape == (1, 1)
    assert cg.converged and cg.n_iter > 0


@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_sparse_and_multi_output(rng, bias):
    X = sp.random(80, 40, density=0.2, format="csc", random_state=np.random.RandomState(3))
    Y = rng.normal(size=(80, 3))
    cg = CGRLS(X, Y, 0.5, bias=bias)
    rls = RLS(X, Y, 0.5, bias=bias)
    np.testing.assert_allclose(cg.predict(X), rls.predict(X), rtol=1e-6, atol=1e-8)
    assert cg.A.shape == (40, 3) and cg.b.shape == (1, 3)
    if not bias:
        assert np.all(cg.b == 0)


def test_callback_sees_dual_iterates_and_updated_predictor(rng):
    X = rng.normal(size=(30, 10))
    y = rng.normal(size=30)
    Xa = np.hstack([X, np.ones((30, 1))])
    calls = []

    class CB:
        def callback(self, learner):
            assert learner.A.shape == (30, 1)               # dual iterate
            W = Xa.T @ learner.A
            np.testing.assert_allclose(learner.predictor.W, W[:-1, 0], atol=1e-12)
            calls.append(learner.predict(X[:2]))

        def finished(self, learner):
            calls.append("finished")
            assert learner.A.shape == (30, 1)               # still dual

    cg = CGRLS(X, y, 1.0, callbackfun=CB())
    assert calls[-1] == "finished" and len(calls) == cg.n_iter + 1
    assert cg.A.shape == (10, 1)                           # primal after training


def test_finished_exception_stops_with_learner_A(rng):
    X = rng.normal(size=(40, 15))
    y = rng.normal(size=40)
    first = {}

    class StopAt3:
        n = 0

        def callback(self, learner):
            self.n += 1
            if self.n == 1:
                first["A"] = learner.A.copy()
            if self.n == 3:
                learner.A = first["A"]              # roll back, as EarlyStopCB does
                raise Finished("stop")

    cg = CGRLS(X, y, 1.0, bias=0.0, callbackfun=StopAt3())
    assert cg.n_iter == 3 and not cg.converged
    np.testing.assert_allclose(cg.A, X.T @ first["A"], rtol=1e-12)
    assert str(Finished("x")) == "'x'" and Finished("x").value == "x"


def test_early_stop_callback_keeps_the_best_iterate(rng):
    m, d = 60, 200
    w = np.zeros(d)
    w[:5] = 1.0
    X = rng.normal(size=(m, d))
    y = X @ w + 2.0 * rng.normal(size=m)
    Xv = rng.normal(size=(200, d))
    yv = Xv @ w + 2.0 * rng.normal(size=200)
    cb = EarlyStopCB(Xv, yv, maxiter=3)
    cg = CGRLS(X, y, 1e-6, bias=0.0, callbackfun=cb)
    assert cb.bestA is not None and cb.iter - cb.last_update == 3
    np.testing.assert_allclose(cg.A, X.T @ cb.bestA, rtol=1e-12)
    assert sqerror(yv, cg.predict(Xv)) == pytest.approx(cb.bestperf, rel=1e-10)
    full = CGRLS(X, y, 1e-6, bias=0.0)
    assert cg.n_iter < full.n_iter
    assert sqerror(yv, cg.predict(Xv)) <= sqerror(yv, full.predict(Xv))
    for attr in ("bestperf", "bestA", "iter", "last_update", "maxiter"):
        assert hasattr(cb, attr)


def test_keywords_and_bad_input(rng):
    X = rng.normal(size=(20, 5))
    y = rng.normal(size=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CGRLS(X, y, kernel="LinearKernel")          # accepted silently
    with pytest.warns(UserWarning, match="gamma"):
        CGRLS(X, y, gamma=2.0)
    with pytest.raises(ValueError):
        CGRLS(X, y, maxiter=0)
    with pytest.raises(ValueError):
        CGRLS(X, y, regparam=-1.0)
    with pytest.raises(ValueError):
        CGRLS(X, y[:10])
    cg = CGRLS(X, y, 1e-12, maxiter=1)
    assert cg.n_iter == 1 and not cg.converged
    assert CGRLS(list(map(list, X)), list(y), 1.0).predictor.W.shape == (5,)


def test_verbose_prints_progress_and_default_is_silent(rng, capsys, caplog):
    X = rng.normal(size=(20, 5))
    y = rng.normal(size=20)
    with caplog.at_level(logging.DEBUG, logger="rlscore"):
        cg = CGRLS(X, y, 1.0, verbose=True)
    out, err = capsys.readouterr()
    assert out == "" and "CG (RLS)" in err and "residual=" in err
    assert len([r for r in caplog.records if ": step " in r.getMessage()]) == cg.n_iter
    CGRLS(X, y, 1.0)
    assert capsys.readouterr() == ("", "")
