"""verbose=True on the learners and estimators (rlscore._progress): the stages and
iterations appear on stderr only when asked, the logging records of the logger
"rlscore" are emitted either way, the model does not change, and RLScore's callback
objects keep their calls beside it."""

import inspect
import io
import logging
import sys

import numpy as np
import pytest

from rlscore._progress import is_verbose, verbosity
from rlscore.learner import (CGRLS, RLS, LeaveOneOutRLS, LinearRankSVM, QueryRankRLS)


@pytest.fixture
def no_tqdm(monkeypatch):
    """Text lines instead of a tqdm bar, so that stderr can be compared line by line."""
    monkeypatch.setitem(sys.modules, "tqdm", None)


@pytest.fixture
def data(rng):
    X = rng.normal(size=(30, 4))
    y = X @ rng.normal(size=4) + 0.1 * rng.normal(size=30)
    return X, y


def _messages(caplog, level=None):
    return [r.getMessage() for r in caplog.records
            if r.name == "rlscore" and (level is None or r.levelno == level)]


def _fit_twice(capsys, caplog, make):
    """(model, stderr, log messages) with verbose=True, then with verbose=False."""
    out = {}
    for verbose in (True, False):
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="rlscore"):
            model = make(verbose)
        captured = capsys.readouterr()
        assert captured.out == ""
        out[verbose] = (model, captured.err, _messages(caplog))
    return out


# --------------------------------------------------------------------------- learners

@pytest.mark.filterwarnings("ignore:the selected regparam")
def test_closed_form_selection_reports_its_stages(data, capsys, caplog, no_tqdm):
    X, y = data
    grid = [0.1, 1.0, 10.0]
    runs = _fit_twice(capsys, caplog, lambda v: LeaveOneOutRLS(
        X, y, kernel="GaussianKernel", gamma=0.5, regparams=grid, verbose=v))
    (on, err, log_on), (off, quiet, log_off) = runs[True], runs[False]
    lines = err.splitlines()
    assert lines[:2] == ["kernel matrix: started",
                         lines[1]] and lines[1].startswith("kernel matrix: done in")
    assert "dual form (GaussianKernel, 30 x 30)" in lines[1]
    assert "eigendecomposition (30 x 30): started" in lines
    assert any(l.startswith("regparam grid: 1/3 (regparam=0.1, sqerror=") for l in lines)
    assert any(l.startswith("regparam grid: 3/3 (regparam=10,") for l in lines)
    assert lines[-1].startswith("regparam grid: done in")
    assert quiet == ""
    # the records are the same with and without verbose (the stream is the only change)
    strip = [m.split(" in ")[0] if " done in " in m else m for m in log_on]
    assert strip == [m.split(" in ")[0] if " done in " in m else m for m in log_off]
    assert "kernel matrix: started" in log_off
    steps = [m for m in log_off if m.startswith("regparam grid: step")]
    assert steps[0].startswith("regparam grid: step 1/3 (regparam=0.1, sqerror=")
    assert len(steps) == 3
    # the model is the same
    assert on.regparam == off.regparam
    assert np.array_equal(on.cv_performances, off.cv_performances)
    assert np.array_equal(on.predictor.A, off.predictor.A)
    assert np.array_equal(on.predict(X), off.predict(X))


def test_stage_levels_info_and_steps_debug(data, caplog):
    X, y = data
    with caplog.at_level(logging.DEBUG, logger="rlscore"):
        LeaveOneOutRLS(X, y, regparams=[1.0, 2.0])
    info = _messages(caplog, logging.INFO)
    debug = _messages(caplog, logging.DEBUG)
    assert "kernel matrix: started" in info
    assert any(m.startswith("eigendecomposition") and "done in" in m for m in info)
    assert debug and all(": step " in m for m in debug)


def test_query_rankrls_reports_the_factorization(data, capsys, caplog, no_tqdm):
    X, y = data
    qids = np.repeat(np.arange(6), 5)
    runs = _fit_twice(capsys, caplog, lambda v: QueryRankRLS(
        X, y, qids, regparam=0.5, kernel="GaussianKernel", verbose=v))
    assert "Cholesky factorization (30 x 30): started" in runs[True][1].splitlines()
    assert runs[False][1] == ""
    assert any(m.startswith("Cholesky factorization (30 x 30): done")
               for m in runs[False][2])
    assert np.array_equal(runs[True][0].predictor.A, runs[False][0].predictor.A)


def test_later_calls_follow_the_learners_flag(data, capsys, no_tqdm):
    X, y = data
    loud = RLS(X, y, kernel="GaussianKernel", verbose=True)
    quiet = RLS(X, y, kernel="GaussianKernel")
    capsys.readouterr()
    quiet.solve(2.0)              # a second regparam eigendecomposes
    assert capsys.readouterr().err == ""
    loud.solve(2.0)
    assert "eigendecomposition (30 x 30): started" in capsys.readouterr().err
    assert np.array_equal(loud.predict(X), quiet.predict(X))


class Recorder:
    """An RLScore callback object recording its calls."""

    def __init__(self):
        self.calls = []

    def callback(self, learner):
        self.calls.append(("callback", np.array(learner.A, copy=True)))

    def finished(self, learner):
        self.calls.append(("finished", None))


def test_iterative_learner_lines_and_callbacks(data, capsys, caplog, no_tqdm):
    X, y = data
    recorders = {True: Recorder(), False: Recorder()}
    runs = _fit_twice(capsys, caplog, lambda v: CGRLS(
        X, y, regparam=1.0, callbackfun=recorders[v], verbose=v))
    on, err, log_on = runs[True]
    off, quiet, log_off = runs[False]
    n = on.n_iter
    assert n >= 2
    lines = err.splitlines()
    assert lines[0] == "CG (RLS): started"
    assert lines[1].startswith("CG (RLS): 1 (residual=")
    assert lines[-2].startswith(f"CG (RLS): {n} (residual=")     # the last step
    assert lines[-1].startswith("CG (RLS): done in") and f"iterations={n}" in lines[-1]
    assert quiet == ""
    for log in (log_on, log_off):
        steps = [m for m in log if m.startswith("CG (RLS): step")]
        assert len(steps) == n
    # the callbacks: one per iteration, then finished, the same iterates either way
    for rec in recorders.values():
        assert [c[0] for c in rec.calls] == ["callback"] * n + ["finished"]
    for (_, a), (_, b) in zip(recorders[True].calls, recorders[False].calls):
        assert (a is None and b is None) or np.array_equal(a, b)
    assert np.array_equal(on.A, off.A) and np.array_equal(on.b, off.b)


@pytest.mark.parametrize("loss, solver, name, key", [
    ("hinge", "bundle", "BMRM", "gap="), ("squared_hinge", "newton", "TRON", "grad_norm=")])
def test_ranksvm_solver_lines(data, capsys, caplog, no_tqdm, loss, solver, name, key):
    X, y = data
    runs = _fit_twice(capsys, caplog, lambda v: LinearRankSVM(
        X, y, regparam=0.1, loss=loss, solver=solver, verbose=v))
    err = runs[True][1]
    assert f"{name}: started" in err and f"{name}: 1/" in err and key in err
    assert runs[False][1] == ""
    assert any(m.startswith(f"{name}: step 1/") and key in m for m in runs[False][2])
    assert np.array_equal(runs[True][0].predictor.W, runs[False][0].predictor.W)


def test_tqdm_bar_when_available(data, capsys):
    pytest.importorskip("tqdm")
    X, y = data
    CGRLS(X, y, regparam=1.0, verbose=True)
    err = capsys.readouterr().err
    assert "CG (RLS)" in err and "residual=" in err and "it/s" in err


def test_verbose_is_a_keyword_of_every_learner():
    import rlscore.learner as learners
    for name in learners.__all__:
        params = inspect.signature(getattr(learners, name)).parameters
        assert "verbose" in params and params["verbose"].default is False, name


def test_verbosity_restored_after_an_error(data):
    X, y = data
    with pytest.raises(ValueError):
        RLS(X, y[:5], verbose=True)
    assert is_verbose() is False
    with verbosity(True):
        assert is_verbose() and not is_verbose(False)
        with verbosity(None):
            assert is_verbose()
    assert not is_verbose()


def test_an_application_routes_the_records(data, capsys):
    X, y = data
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("rlscore")
    logger.addHandler(handler)
    old = logger.level
    logger.setLevel(logging.INFO)
    try:
        RLS(X, y, kernel="GaussianKernel")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    assert capsys.readouterr().err == ""
    text = stream.getvalue()
    assert "INFO kernel matrix: started" in text
    assert "INFO Cholesky factorization (30 x 30): done in" in text
    assert "DEBUG" not in text


# --------------------------------------------------------------------------- estimators

def test_estimator_verbose_parameter(data, capsys, caplog, no_tqdm):
    pytest.importorskip("sklearn")
    from sklearn.base import clone
    from rlscore.estimators import KernelRLSCV
    X, y = data
    est = KernelRLSCV(alphas=[0.1, 1.0], kernel="rbf", gamma=0.5, verbose=True)
    assert est.get_params()["verbose"] is True
    assert clone(est).verbose is True
    runs = _fit_twice(capsys, caplog, lambda v: clone(est).set_params(verbose=v).fit(X, y))
    err = runs[True][1].splitlines()
    assert "kernel matrix: started" in err
    assert "eigendecomposition (30 x 30): started" in err
    assert any(l.startswith("regparam grid: 2/2 (regparam=1,") for l in err)
    assert runs[False][1] == ""
    assert "kernel matrix: started" in runs[False][2]
    assert runs[True][0].alpha_ == runs[False][0].alpha_
    assert np.array_equal(runs[True][0].dual_coef_, runs[False][0].dual_coef_)
    assert np.array_equal(runs[True][0].predict(X), runs[False][0].predict(X))


@pytest.mark.parametrize("name, desc", [
    ("CGRLSRegressor", "CG (RLS)"), ("RankSVM", "BMRM"),
    ("GreedyRLSSelector", "greedy selection")])
def test_iterative_estimators(data, capsys, caplog, no_tqdm, name, desc):
    pytest.importorskip("sklearn")
    import rlscore.estimators as estimators
    X, y = data
    cls = getattr(estimators, name)
    extra = {"n_features_to_select": 2} if name == "GreedyRLSSelector" else {}
    runs = _fit_twice(capsys, caplog, lambda v: cls(verbose=v, **extra).fit(X, y))
    assert f"{desc}: 1" in runs[True][1] and f"{desc}: done in" in runs[True][1]
    assert runs[False][1] == ""
    assert any(m.startswith(f"{desc}: step 1") for m in runs[False][2])
    a, b = runs[True][0], runs[False][0]
    out = (lambda e: e.transform(X)) if name == "GreedyRLSSelector" else \
        (lambda e: e.predict(X))
    assert np.array_equal(out(a), out(b))


def test_every_estimator_has_verbose():
    pytest.importorskip("sklearn")
    import rlscore.estimators as estimators
    learners = [name for name in estimators.__all__
                if hasattr(getattr(estimators, name), "predict")]
    # the splitter and the O(m d) transformer are not learners: they report nothing
    assert {"QuerySplitter", "QueryNormalizer"} <= set(estimators.__all__) - set(learners)
    for name in learners:
        est = getattr(estimators, name)()
        assert est.get_params()["verbose"] is False, name


@pytest.mark.parametrize("bad", ["no", "yes", 2, 0.5, [True]])
def test_verbose_refuses_values_that_are_not_flags(bad):
    """``verbose="no"`` must not switch progress on (bool("no") is True)."""
    import numpy as np
    from rlscore.estimators import KernelRLS
    from rlscore.learner import RLS
    X = np.random.default_rng(0).normal(size=(12, 3))
    y = X[:, 0]
    with pytest.raises(TypeError, match="verbose must be True or False"):
        RLS(X, y, verbose=bad)
    with pytest.raises(TypeError, match="verbose must be True or False"):
        KernelRLS(verbose=bad).fit(X, y)
    RLS(X, y, verbose=np.bool_(False))
    KernelRLS(verbose=0).fit(X, y)
