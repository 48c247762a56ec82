"""Preconditioned CG with Falkon's Nystrom preconditioner (rlscore.core.nystrom._pcg)
converges to the direct reduced-set solution; the preconditioner protocol of
conjugate_gradient."""

import numpy as np
import pytest

from rlscore.core.optim import JacobiPreconditioner, conjugate_gradient
from rlscore.core.nystrom import NystromFeatureMap, NystromPreconditioner, StreamedGramOperator, StreamedReducedSet, pcg_reduced_set
from rlscore.core.structure import ArraySource


def _problem(m=300, r=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 5))
    Y = np.sin(X[:, :1]) + 0.1 * rng.standard_normal((m, 1))
    idx = np.sort(rng.choice(m, r, replace=False))
    return X, Y, idx


@pytest.mark.parametrize("cache", [True, False])
@pytest.mark.parametrize("lam", [1e-3, 1.0, 100.0])
def test_pcg_matches_direct(cache, lam):
    X, Y, idx = _problem()
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.2)
    direct = StreamedReducedSet(ArraySource(X, Y), fmap, block_size=64).solve(lam)
    res = pcg_reduced_set(ArraySource(X, Y), fmap, lam, tol=1e-10, maxiter=500,
                          block_size=37, cache=cache)
    assert res.converged
    W = res.solution
    assert np.linalg.norm(W - direct) <= 1e-6 * np.linalg.norm(direct)


def test_preconditioner_cuts_iterations_and_warm_start():
    # Falkon's regime: lambda / m of the order of 1 / r or larger
    X, Y, idx = _problem(m=2000, r=200)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.1)
    op = StreamedGramOperator(ArraySource(X, Y), fmap, cache=True)
    plain = pcg_reduced_set(None, fmap, 1.0, tol=1e-8, maxiter=2000, operator=op,
                            precondition=None)
    pre = pcg_reduced_set(None, fmap, 1.0, tol=1e-8, maxiter=2000, operator=op)
    assert pre.converged and plain.converged
    assert pre.iterations < 0.8 * plain.iterations
    warm = pcg_reduced_set(None, fmap, 1.2, tol=1e-8, maxiter=2000, operator=op,
                           x0=pre.solution)
    cold = pcg_reduced_set(None, fmap, 1.2, tol=1e-8, maxiter=2000, operator=op)
    assert warm.iterations <= cold.iterations


def test_with_regparam_equals_new_and_explicit_matrix():
    X, Y, idx = _problem(m=120, r=15)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    op = StreamedGramOperator(ArraySource(X, Y), fmap)
    R = np.random.default_rng(1).standard_normal((15, 2))
    pre = NystromPreconditioner(op, 0.5)
    a = pre.with_regparam(3.0).apply(R)
    with pytest.raises(RuntimeError, match="stale"):
        pre.apply(R)
    b = NystromPreconditioner(op, 3.0).apply(R)
    np.testing.assert_allclose(a, b, rtol=1e-12)
    C = fmap.nmap.C
    M = 120 / 15 * C.T @ C + 3.0 * np.eye(15)
    np.testing.assert_allclose(b, np.linalg.solve(M, R), rtol=1e-9)


def test_cg_true_residual_and_protocol():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((30, 30))
    S = A @ A.T + np.eye(30)
    B = rng.standard_normal((30, 2))
    d = 1.0 / np.diag(S)
    for pre in (None, d, JacobiPreconditioner(d)):
        res = conjugate_gradient(lambda V: S @ V, B, rtol=1e-10, maxiter=500, M=pre)
        assert res.converged
        true = np.linalg.norm(B - S @ res.solution, axis=0) / np.linalg.norm(B, axis=0)
        np.testing.assert_allclose(res.residuals, true, rtol=1e-3)
        assert np.all(true <= 1e-10)
    with pytest.raises(TypeError, match="precond"):
        conjugate_gradient(lambda V: S @ V, B, M="jacobi")


def test_float32_kernel_blocks():
    """float32 kernel blocks: the solution within float32 accuracy of the direct one."""
    X, Y, idx = _problem()
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.2)
    direct = StreamedReducedSet(ArraySource(X, Y), fmap).solve(1.0)
    res = pcg_reduced_set(ArraySource(X, Y), fmap, 1.0, tol=1e-5, maxiter=200,
                          dtype=np.float32, cache=True)
    assert np.linalg.norm(res.solution - direct) <= 1e-4 * np.linalg.norm(direct)


@pytest.mark.parametrize("kind", ["rls", "query", "global"])
def test_streamed_fit_float32_blocks_near_float64(kind):
    """streamed_rank_fit(solver="pcg", dtype=float32): recomputed single-precision
    kernel blocks (one SGEMM + the vectorized exponential) give the float64 PCG
    predictions to float32 accuracy for every kind; dtype is refused for the direct
    solver and for other types."""
    from rlscore.core.rankrls import streamed_rank_fit
    rng = np.random.default_rng(5)
    X = rng.standard_normal((300, 4))
    Y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(300)
    qids = np.repeat(np.arange(30), 10)
    src = ArraySource(X, Y, qids if kind == "query" else None)
    opts = dict(kind=kind, n_basis=40, random_state=0, solver="pcg", tol=1e-5,
                maxiter=300, block_size=17, regparam=0.5)
    fits = [streamed_rank_fit(src, "GaussianKernel", {"gamma": 0.3}, dtype=dt, **opts)
            for dt in (np.float64, np.float32)]
    p64, p32 = (f.predictor.predict(X) for f in fits)
    assert np.linalg.norm(p32 - p64) <= 1e-4 * np.linalg.norm(p64)
    assert np.any(p32 != p64)       # the single-precision blocks were used
    # a tol below float32's reach is raised to FLOAT32_TOL (below it CG drifted:
    # query RankRLS at tol 1e-6 reached predictions of 1e10)
    tight = streamed_rank_fit(src, "GaussianKernel", {"gamma": 0.3}, dtype=np.float32,
                              **dict(opts, tol=1e-12, maxiter=2000))
    p_tight = tight.predictor.predict(X)
    assert np.linalg.norm(p_tight - p64) <= 1e-4 * np.linalg.norm(p64)
    with pytest.raises(ValueError, match="applies to solver='pcg'"):
        streamed_rank_fit(src, "GaussianKernel", {"gamma": 0.3}, dtype=np.float32,
                          **dict(opts, solver="direct"))
    with pytest.raises(ValueError, match="dtype must be"):
        streamed_rank_fit(src, "GaussianKernel", {"gamma": 0.3}, dtype="int8", **opts)
