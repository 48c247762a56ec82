"""Every iterative solver of rlscore.core returns the one SolverResult with the same
shared fields, each checked against what the solver actually computed."""

import dataclasses
import inspect
import math
import pickle

import numpy as np
import pytest
from scipy.sparse.linalg import aslinearoperator

from rlscore.core.optim import BMRMResult, bmrm
from rlscore.core.optim import CGResult, conjugate_gradient
from rlscore.core.kronecker import KronMinres
from rlscore.core.ranksvm import (RankSVMOptions, RankSVMSolution, RankingRisk,
                                  SquaredRankingRisk,
                                  solve_ranksvm, solve_ranksvm_newton)
from rlscore.core.optim import SolverResult
from rlscore.core.optim import TRONResult, tron
from rlscore.core.optim import (BMRMOptions, CGOptions, MINRESOptions, TRONOptions,
                                minres)

SHARED = ("solver", "solution", "objective", "iterations", "converged", "message",
          "history", "extras")


class Quadratic:
    """f(w) = 1/2 w^T S w - b^T w, as a TRON oracle and (its gradient) a BMRM risk."""

    def __init__(self, S, b):
        self.S, self.b = S, b

    def evaluate(self, w, p=None):
        return 0.5 * w @ self.S @ w - self.b @ w, w

    def gradient(self, w):
        return self.S @ w - self.b

    def hessian_vector(self, w, v):
        return self.S @ v, None

    def advance(self, point, zs):
        return None


def _spd(rng, n):
    A = rng.standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


def _tron(rng):
    S, b = _spd(rng, 5), rng.standard_normal(5)
    return tron(Quadratic(S, b), np.zeros(5), rtol=1e-10), np.linalg.solve(S, b)


def _bmrm(rng):
    # 1/2 ||w||^2 + ||w - c||_1: per coordinate w + sign(w - c) = 0, so w = clip(c, -1, 1)
    c = rng.standard_normal(4) * 3

    def risk(w):
        return np.sum(np.abs(w - c)), np.sign(w - c)

    return bmrm(risk, 4, 1.0, atol=1e-10), np.clip(c, -1, 1)


def _cg(rng):
    S, B = _spd(rng, 6), rng.standard_normal((6, 2))
    return conjugate_gradient(lambda V: S @ V, B, rtol=1e-12), np.linalg.solve(S, B)


def _minres(rng):
    K = _spd(rng, 5)
    y = rng.standard_normal(5)
    res = KronMinres("dual", aslinearoperator(K), y, 0.5).solve(tol=1e-13, keep_best=True)
    return res, np.linalg.solve(K + 0.5 * np.eye(5), y)


def _ranksvm_data(rng):
    X = rng.standard_normal((40, 3))
    y = X @ rng.standard_normal(3) + 0.3 * rng.standard_normal(40)
    return X, y


def _ranksvm_bundle(rng):
    X, y = _ranksvm_data(rng)
    return solve_ranksvm(RankingRisk(X, y), 0.1, options=RankSVMOptions(rtol=1e-6)), None


def _ranksvm_newton(rng):
    X, y = _ranksvm_data(rng)
    return solve_ranksvm_newton(SquaredRankingRisk(X, y), 0.1,
                                options=RankSVMOptions(loss="squared_hinge",
                                                       rtol=1e-8)), None


SOLVERS = {"tron": (_tron, "newton"), "bmrm": (_bmrm, "bundle"), "cg": (_cg, "cg"),
           "minres": (_minres, "minres"), "ranksvm_bundle": (_ranksvm_bundle, "bundle"),
           "ranksvm_newton": (_ranksvm_newton, "newton")}


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_every_solver_returns_the_one_result_type(rng, name):
    make, solver = SOLVERS[name]
    res, reference = make(rng)
    assert type(res) is SolverResult
    # the old names are the same type
    for alias in (TRONResult, BMRMResult, CGResult, RankSVMSolution):
        assert isinstance(res, alias)
    assert res.solver == solver
    assert res.converged is True and res.message.startswith("converged")
    assert isinstance(res.iterations, int) and res.iterations >= 1
    assert isinstance(res.history, list) and isinstance(res.extras, dict)
    assert res.w is res.solution and res.x is res.solution
    if reference is not None:
        # a gap of 1e-10 in a 1-strongly convex J bounds ||w - w*|| by sqrt(2e-10)
        np.testing.assert_allclose(res.solution, reference, rtol=1e-6,
                                   atol=2e-5 if solver == "bundle" else 1e-9)
    if solver == "cg":
        assert math.isnan(res.objective)
        assert res.column_converged.all() and res.info == 0 and not res.stopped
        assert np.all(res.residuals <= 1e-12)
    elif solver == "minres":
        assert res.info == 0
        assert np.isfinite(res.objective)      # keep_best: the objective is tracked
    else:
        assert np.isfinite(res.objective)
        assert len(res.history) == res.iterations
        last = res.history[-1]
        assert res.objective == pytest.approx(
            last["objective"] if solver == "newton" else last["best_objective"], rel=1e-12)
    if solver == "newton":
        assert res.grad_norm <= 1e-8 * res.grad_norm0 + 1e-300
    if solver == "bundle":
        assert 0 <= res.gap <= 1e-6 * max(1.0, abs(res.objective))
        assert res.objective - res.lower_bound == pytest.approx(res.gap)
    if name.startswith("ranksvm"):
        # both RankSVM methods carry the same extras
        for key in ("regparam", "loss", "duality_gap", "lower_bound", "risk", "bundle",
                    "grad_norm", "grad_norm0", "cg_iterations", "warm_start_iterations"):
            assert key in res.extras, key
        assert (solver == "newton") == math.isnan(res.duality_gap)


def test_objective_values_are_the_objective_at_the_solution(rng):
    S, b = _spd(rng, 5), rng.standard_normal(5)
    res = tron(Quadratic(S, b), np.zeros(5), rtol=1e-10)
    assert res.objective == pytest.approx(0.5 * res.w @ S @ res.w - b @ res.w, rel=1e-12)
    K = _spd(rng, 4)
    y = rng.standard_normal(4)
    s = KronMinres("dual", aslinearoperator(K), y, 0.5)
    res = s.solve(tol=1e-13, keep_best=True)
    assert res.objective == pytest.approx(s.objective(res.solution), rel=1e-12)
    assert math.isnan(s.solve(tol=1e-13).objective)


def test_stopping_reasons_are_reported(rng):
    S, B = _spd(rng, 8), rng.standard_normal((8, 1))
    capped = conjugate_gradient(lambda V: S @ V, B, rtol=1e-14, maxiter=2)
    assert not capped.converged and capped.message == "max_iter reached"
    assert capped.info == 2 and capped.iterations == 2
    stopped = conjugate_gradient(lambda V: S @ V, B, rtol=1e-14, callback=lambda *a: True)
    assert stopped.stopped and stopped.message == "stopped by the callback"
    oracle = Quadratic(S, B[:, 0])
    assert tron(oracle, np.zeros(8), rtol=1e-14, maxiter=1).message == "max_iter reached"
    assert tron(oracle, np.zeros(8), rtol=1e-14,
                callback=lambda info: True).message == "stopped by the callback"

    def risk(w):
        return np.sum(np.abs(w - 1.0)), np.sign(w - 1.0)

    assert bmrm(risk, 3, 1e-3, atol=1e-12, maxiter=2).message == "max_iter reached"
    K = _spd(rng, 6)
    res = KronMinres("dual", aslinearoperator(K), rng.standard_normal(6), 0.0).solve(
        maxiter=1, tol=1e-14)
    assert not res.converged and res.info > 0 and res.message == "maxiter reached"


def test_extras_are_attributes_and_unknown_names_fail(rng):
    res, _ = _tron(rng)
    assert res.grad_norm == res.extras["grad_norm"]
    res.note = 3                      # a non-shared name goes to the extras
    assert res.extras["note"] == 3 and "note" in dir(res)
    with pytest.raises(AttributeError, match="no attribute 'gap'"):
        res.gap
    back = pickle.loads(pickle.dumps(_cg(rng)[0]))
    assert back.solver == "cg" and back.residuals.shape == (2,)
    assert "SolverResult(solver='newton'" in repr(res)


# ---------------------------------------------------------------------------------------
# one spelling for the four iterative solvers (SciPy's): maxiter, x0, callback, rtol or
# atol, M, options; checked on the signatures and on what the solvers do with them

FOUR = {"tron": (tron, TRONOptions), "bmrm": (bmrm, BMRMOptions),
        "conjugate_gradient": (conjugate_gradient, CGOptions),
        "minres": (minres, MINRESOptions)}
NOT_SCIPY = {"max_iter", "w0", "tol", "precond", "precondition", "verbose", "desc"}


@pytest.mark.parametrize("name", sorted(FOUR))
def test_the_four_solvers_share_one_spelling(name):
    solver, options_type = FOUR[name]
    params = inspect.signature(solver).parameters
    assert {"maxiter", "x0", "callback", "options"} <= set(params)
    assert len({"rtol", "atol"} & set(params)) == 1
    assert not NOT_SCIPY & set(params)
    assert len(params) <= 8
    for p in ("maxiter", "callback", "options", "rtol", "atol", "M"):
        if p in params:
            assert params[p].kind is inspect.Parameter.KEYWORD_ONLY, p
    assert params["options"].default is None
    assert dataclasses.is_dataclass(options_type)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options_type().verbose = True
    if name == "conjugate_gradient":
        assert "M" in params


def _four_calls(S, b):
    """Each solver on min 1/2 x^T S x - b^T x, called with the shared spelling."""
    n = b.size

    def bmrm_risk(w):            # R(w) = J(w) - 1/2 ||w||^2 at regparam 1
        return 0.5 * w @ (S - np.eye(n)) @ w - b @ w, (S - np.eye(n)) @ w - b

    return {
        "conjugate_gradient": lambda **kw: conjugate_gradient(
            lambda V: S @ V, b, rtol=1e-12, **kw),
        "minres": lambda **kw: minres(lambda v: S @ v, b, rtol=1e-12, **kw),
        "tron": lambda x0=None, **kw: tron(
            Quadratic(S, b), np.zeros(n) if x0 is None else x0, rtol=1e-12,
            grad_norm0=float(np.linalg.norm(b)), **kw),
        "bmrm": lambda **kw: bmrm(bmrm_risk, n, 1.0, atol=1e-12, **kw),
    }


@pytest.mark.parametrize("name", sorted(FOUR))
def test_the_shared_keywords_mean_the_same_in_every_solver(rng, name):
    S, b = _spd(rng, 5), rng.standard_normal(5)
    x_star = np.linalg.solve(S, b)
    call = _four_calls(S, b)[name]
    seen = []
    capped = call(maxiter=1, callback=lambda *a: seen.append(1))
    assert len(seen) == 1                               # callback after each iteration
    if name == "minres":
        x, info = capped
        assert info == 1
        x, info = call(x0=x_star)
        np.testing.assert_allclose(x, x_star, rtol=1e-12)   # started at the solution
        assert info == 0
        return
    assert capped.iterations == 1 and not capped.converged
    warm = call(x0=x_star)
    if name == "bmrm":
        # the first cutting plane is taken at x0: its objective is J(x*)
        J = 0.5 * x_star @ S @ x_star - b @ x_star
        assert warm.history[0]["objective"] == pytest.approx(J, rel=1e-12)
    else:
        assert warm.iterations == 0 and warm.converged
        np.testing.assert_allclose(np.ravel(warm.solution), x_star, rtol=1e-12)
