"""PCGSurvivalRankRLSModel, the model the faces train with solver="pcg": the direct
reduced-set model to PCG's tolerance, ``solve`` from the previous solution equal to a
fresh training, bounded memory without the kernel cache (the small-m twin of the
benchmark's 10^6 rows), and its refusals."""

import tracemalloc

import numpy as np
import pytest

from rlscore.core.nystrom import ComputePlan, PCGOptions
from rlscore.core.optim import ConvergenceWarning
from rlscore.core.survival import PCGSurvivalRankRLSModel, SurvivalRankRLSModel


def _data(seed=5, m=200, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    time = np.round(np.exp(-X[:, 0] + 0.5 * rng.normal(size=m)), 2) + 0.01
    event = rng.uniform(size=m) < 0.6
    return X, time, event


def _plan(rtol=1e-12, maxiter=3000, **kw):
    return ComputePlan(solver="pcg", pcg=PCGOptions(rtol=rtol, maxiter=maxiter), **kw)


@pytest.mark.parametrize("magnitudes", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pcg_model_is_the_direct_reduced_set_model(magnitudes, dtype):
    X, time, event = _data()
    B = X[::10]
    direct = SurvivalRankRLSModel(X, time, event, 0.5, "GaussianKernel", B,
                                  magnitudes=magnitudes, gamma=0.3)
    pcg = PCGSurvivalRankRLSModel(X, time, event, 0.5, "GaussianKernel", B, magnitudes,
                                  _plan(rtol=1e-12 if dtype == np.float64 else 1e-5,
                                        dtype=dtype, block_size=17), gamma=0.3)
    ref = np.ravel(direct.predictor.predict(X))
    tol = 1e-9 if dtype == np.float64 else 1e-3
    np.testing.assert_allclose(np.ravel(pcg.predict(X)), ref, atol=tol * np.abs(ref).max())
    assert pcg.solver_result.converged
    np.testing.assert_array_equal(pcg.Y["time"], direct.Y["time"])
    np.testing.assert_array_equal(pcg.Y["event"], direct.Y["event"])


def test_solve_restarts_from_the_previous_solution():
    X, time, event = _data()
    B = X[::10]
    model = PCGSurvivalRankRLSModel(X, time, event, 10.0, "GaussianKernel", B,
                                    plan=_plan(), gamma=0.3)
    model.solve(0.2)
    fresh = PCGSurvivalRankRLSModel(X, time, event, 0.2, "GaussianKernel", B,
                                    plan=_plan(), gamma=0.3)
    assert model.regparam == 0.2
    np.testing.assert_allclose(np.ravel(model.predict(X)), np.ravel(fresh.predict(X)),
                               rtol=1e-8, atol=1e-10)


def test_uncached_fit_never_holds_the_m_by_r_features(monkeypatch):
    """m = 20,000 rows, r = 100 centres: the m x r float64 features take 16 MB; with
    too little memory available to keep the kernel blocks, the fit's traced peak stays
    below a quarter of that (blocks of 500 rows)."""
    import rlscore.core.nystrom._pcg as streamed
    monkeypatch.setattr(streamed, "available_memory", lambda: 2**20)
    rng = np.random.default_rng(0)
    m, r = 20_000, 100
    X = rng.normal(size=(m, 3))
    time = np.exp(-X[:, 0] + 0.3 * rng.normal(size=m))
    event = rng.uniform(size=m) < 0.5
    B = X[:r].copy()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        model = PCGSurvivalRankRLSModel(X, time, event, 1.0, "GaussianKernel", B,
                                        plan=_plan(rtol=1e-6, maxiter=200,
                                                   block_size=500),
                                        gamma=0.5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert model.solver_result.converged and not model.operator.cached
    assert peak < m * r * 8 / 4, peak


def test_refusals_and_the_iteration_cap():
    X, time, event = _data(m=60)
    with pytest.raises(ValueError, match="give basis_vectors"):
        PCGSurvivalRankRLSModel(X, time, event, 1.0, "GaussianKernel")
    with pytest.raises(ValueError, match="precomputed kernel"):
        PCGSurvivalRankRLSModel(X @ X.T, time, event, 1.0, "PrecomputedKernel", X[:5])
    with pytest.raises(ValueError, match="regparam > 0"):
        PCGSurvivalRankRLSModel(X, time, event, 0.0, "GaussianKernel", X[:5])
    with pytest.raises(ValueError, match="regparam"):
        PCGSurvivalRankRLSModel(X, time, event, -1.0, "GaussianKernel", X[:5])
    with pytest.raises(ValueError, match="no comparable pair"):
        PCGSurvivalRankRLSModel(X, time, np.zeros(60, bool), 1.0, "GaussianKernel",
                                X[:5])
    with pytest.raises(TypeError, match="magnitudes"):
        PCGSurvivalRankRLSModel(X, time, event, 1.0, "GaussianKernel", X[:5], "yes")
    with pytest.warns(ConvergenceWarning):
        model = PCGSurvivalRankRLSModel(X, time, event, 1e-4, "GaussianKernel", X[:20],
                                        plan=_plan(rtol=1e-14, maxiter=1), gamma=0.3)
    assert not model.solver_result.converged


def test_the_plan_chooses_the_model_and_refuses_unused_pcg_fields():
    """survival_rankrls_model, the faces' one road: PCG for solver="pcg", the direct
    model otherwise ("auto" included), PCG's fields with the direct solver refused by
    the plan's names (which the faces reword)."""
    from rlscore.core.nystrom import PlanError
    from rlscore.core.survival import survival_rankrls_model
    X, time, event = _data(m=80)
    B = X[::8]
    assert isinstance(survival_rankrls_model(X, time, event, 0.5, "GaussianKernel", B,
                                             plan=_plan(), gamma=0.3),
                      PCGSurvivalRankRLSModel)
    for plan in (None, ComputePlan(), ComputePlan(solver="direct")):
        assert isinstance(survival_rankrls_model(X, time, event, 0.5, "GaussianKernel", B,
                                                 plan=plan, gamma=0.3),
                          SurvivalRankRLSModel)
    for plan, text in [
            (ComputePlan(pcg=PCGOptions(rtol=1e-3)), "^rtol applies to solver='pcg'$"),
            (ComputePlan(solver="direct", block_size=5, pcg=PCGOptions(maxiter=3)),
             "^maxiter, block_size apply to solver='pcg'$"),
            (ComputePlan(dtype=np.float32), "^dtype applies to solver='pcg'$")]:
        with pytest.raises(PlanError, match=text):
            survival_rankrls_model(X, time, event, 0.5, "GaussianKernel", B, plan=plan,
                                   gamma=0.3)
    with pytest.raises(PlanError, match="^pcg_max_iter applies"):
        with PlanError.reworded({"maxiter": "pcg_max_iter"}):
            survival_rankrls_model(X, time, event, 0.5, plan=ComputePlan(
                pcg=PCGOptions(maxiter=3)))
