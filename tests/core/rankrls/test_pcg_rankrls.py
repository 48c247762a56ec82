"""Preconditioned CG for reduced-set query and global RankRLS (rlscore.core.rankrls._pcg)
converges to the direct (statistics + solve) solution of the streamed path; the centred
preconditioner is the explicit (m / k) (C - G)^T (C - G) + mu I; the one-array factors
(rlscore.core.nystrom.NystromFactors) equal the explicit map."""

import numpy as np
import pytest

from rlscore.core.rankrls import CenteredGramOperator, pcg_rankrls
from rlscore.core.nystrom import NystromFactors, NystromFeatureMap, StreamedReducedSet, pcg_reduced_set
from rlscore.core.nystrom import PCGOptions
from rlscore.core.structure import ArraySource
from rlscore.kernel import kernel_block


def _ranking(m=230, r=30, n_queries=37, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 4))
    sizes = rng.multinomial(m - n_queries, np.ones(n_queries) / n_queries) + 1
    q = np.repeat(np.arange(n_queries) * 3 + 5, sizes)
    Y = np.sin(X[:, :2]) + 0.3 * q[:, None] + 0.1 * rng.standard_normal((m, 2))
    idx = np.sort(rng.choice(m, r, replace=False))
    return X, Y, q, idx


@pytest.mark.parametrize("kind", ["query", "global"])
@pytest.mark.parametrize("block_size", [1, 7, None])
@pytest.mark.parametrize("lam", [1e-2, 3.0])
@pytest.mark.parametrize("precondition", ["auto", "nystrom", None])
def test_pcg_rankrls_matches_direct(kind, block_size, lam, precondition):
    X, Y, q, idx = _ranking()
    m = X.shape[0]
    bs = m if block_size is None else block_size
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    src = ArraySource(X, Y, qids=q)
    direct = StreamedReducedSet(src, fmap, kind=kind, block_size=13).solve(lam)
    res = pcg_rankrls(src, fmap, lam, kind, basis_indices=idx, block_size=bs,
                      cache=False, pcg=PCGOptions(rtol=1e-12, maxiter=2000,
                                                  precondition=precondition))
    assert res.converged
    err = np.linalg.norm(res.solution - direct) / np.linalg.norm(direct)
    assert err <= 1e-6


def test_blocks_hold_whole_queries():
    """Block size 7 splits queries in the source; the operator's blocks never do."""
    X, Y, q, idx = _ranking()
    op = CenteredGramOperator(ArraySource(X, Y, qids=q), NystromFeatureMap(
        "GaussianKernel", X[idx], gamma=0.3), "query", block_size=7, cache=False)
    every = np.ones(X.shape[0], dtype=bool)
    ends = [idx.stop for idx in op._map(lambda idx, Kb: idx, rows=every)]
    assert ends[-1] == X.shape[0]
    for e in ends[:-1]:
        assert q[e - 1] != q[e]
    # 7 cuts the queries of the source somewhere (the test covers a carry-over)
    assert any(q[e - 1] == q[e] for e in range(7, X.shape[0], 7))


# a fixed small number of iterations is the point here: PCG warns that it stopped short
@pytest.mark.filterwarnings("ignore::rlscore.core.optim.ConvergenceWarning")
@pytest.mark.parametrize("kind", ["query", "global"])
def test_centred_preconditioner_is_the_explicit_matrix(kind):
    X, Y, q, idx = _ranking(m=120, r=20, n_queries=15)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    op = CenteredGramOperator(ArraySource(X, Y, qids=q), fmap, kind, basis_indices=idx,
                              block_size=9)
    res = pcg_rankrls(None, fmap, 0.7, operator=op,
                      pcg=PCGOptions(rtol=1e-3, maxiter=5, precondition="nystrom"))
    Phi = kernel_block(fmap.kernel, X) @ fmap.T
    if kind == "global":
        G = np.tile(Phi.mean(axis=0), (idx.size, 1))
        mu = 0.7 / X.shape[0]
    else:
        G = np.array([Phi[q == q[i]].mean(axis=0) for i in idx])
        mu = 0.7
    B = fmap.nmap.C - G
    M = X.shape[0] / idx.size * B.T @ B + mu * np.eye(idx.size)
    R = np.random.default_rng(3).standard_normal((idx.size, 2))
    got = res.extras["preconditioner"].apply(R)
    np.testing.assert_allclose(got, np.linalg.solve(M, R), rtol=1e-8, atol=1e-12)


def test_rows_mask_equals_subset():
    """Training on a boolean mask of whole queries = training on those rows alone."""
    X, Y, q, idx = _ranking()
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    keep = np.isin(q, np.unique(q)[::3], invert=True)
    for kind in ("query", "global"):
        sub = StreamedReducedSet(ArraySource(X[keep], Y[keep], qids=q[keep]), fmap,
                                 kind=kind).solve(0.5)
        res = pcg_rankrls(ArraySource(X, Y, qids=q), fmap, 0.5, kind,
                          pcg=PCGOptions(rtol=1e-12, maxiter=2000), block_size=11,
                          rows=keep)
        assert np.linalg.norm(res.solution - sub) <= 1e-6 * np.linalg.norm(sub)
    with pytest.raises(ValueError, match="whole queries"):
        CenteredGramOperator(ArraySource(X, Y, qids=q), fmap, "query",
                             rows=np.arange(X.shape[0]) % 2 == 0)


# a fixed small number of iterations is the point here: PCG warns that it stopped short
@pytest.mark.filterwarnings("ignore::rlscore.core.optim.ConvergenceWarning")
def test_auto_preconditioner():
    X, Y, q, idx = _ranking(m=60, r=10, n_queries=6)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    src = ArraySource(X, Y, qids=q)
    pre = {kind: pcg_rankrls(src, fmap, 1.0, kind, basis_indices=idx,
                             pcg=PCGOptions(maxiter=3))
           .extras["preconditioner"] for kind in ("query", "global")}
    assert pre["query"] is None and pre["global"] is not None
    with pytest.raises(ValueError, match="precondition"):
        pcg_rankrls(src, fmap, 1.0, "query", pcg=PCGOptions(precondition="jacobi"))


def test_bad_arguments():
    X, Y, q, idx = _ranking(m=60, r=10, n_queries=6)
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    with pytest.raises(ValueError, match="qids"):
        CenteredGramOperator(ArraySource(X, Y), fmap, "query")
    with pytest.raises(ValueError, match="kind"):
        CenteredGramOperator(ArraySource(X, Y, qids=q), fmap, "pairs")
    with pytest.raises(ValueError, match="contiguous"):
        CenteredGramOperator(ArraySource(X, Y, qids=np.arange(60) % 6), fmap, "query")
    with pytest.raises(ValueError, match="basis_indices"):
        CenteredGramOperator(ArraySource(X, Y, qids=q), fmap, "query",
                             basis_indices=idx[:3])
    with pytest.raises(ValueError, match="regparam"):
        pcg_rankrls(ArraySource(X, Y, qids=q), fmap, -1.0, "global")


@pytest.mark.filterwarnings("ignore:the kernel matrix of the basis vectors")
def test_factors_equal_explicit_map_and_predictor():
    """NystromFactors built from the basis (one array): T V, T^T V and the predictor
    equal the explicit NystromFeatureMap's; the RLS solution through them equals the
    direct one."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((150, 3))
    Y = rng.standard_normal((150, 1))
    idx = np.arange(0, 150, 6)
    for kernel, kp in (("GaussianKernel", {"gamma": 0.4}), ("LinearKernel", {}),
                       ("PolynomialKernel", {"degree": 2})):
        fmap = NystromFeatureMap(kernel, X[idx], **kp)
        fac = NystromFactors(kernel, X[idx], **kp)
        assert fac.n_features == fmap.n_features
        V = rng.standard_normal((fac.n_features, 2))
        np.testing.assert_allclose(fac.apply_T(V), fmap.T @ V, rtol=1e-9, atol=1e-12)
        A = rng.standard_normal((idx.size, 2))
        np.testing.assert_allclose(fac.apply_Tt(A), fmap.T.T @ A, rtol=1e-9, atol=1e-12)
        direct = StreamedReducedSet(ArraySource(X, Y), fmap).solve(0.3)
        res = pcg_reduced_set(ArraySource(X, Y), fac, 0.3,
                              pcg=PCGOptions(rtol=1e-12, maxiter=1000))
        Xt = rng.standard_normal((20, 3))
        np.testing.assert_allclose(np.ravel(fac.predictor(res.solution).predict(Xt)),
                                   np.ravel(fmap.predictor(direct).predict(Xt)),
                                   rtol=1e-6, atol=1e-9)


def test_factors_of_a_singular_basis():
    """Duplicated basis rows: the pivoted factor (effective rank), as NystromMap."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 3))
    B = np.vstack([X[:10], X[:4]])
    with pytest.warns(UserWarning, match="effective rank"):
        fac = NystromFactors("GaussianKernel", B, gamma=0.5)
    with pytest.warns(UserWarning, match="effective rank"):
        fmap = NystromFeatureMap("GaussianKernel", B, gamma=0.5)
    assert fac.n_features == fmap.n_features == 10
    V = rng.standard_normal((10, 1))
    np.testing.assert_allclose(fac.apply_T(V), fmap.T @ V, rtol=1e-9, atol=1e-12)


def test_factors_hold_one_r_by_r_array():
    """Construction, the preconditioner (with a centring update) and the solves hold
    one r x r float64 array (8 r^2 bytes) plus O(r) -- not the five of the explicit
    layout (K_RR, C, T, C^T C, A)."""
    import tracemalloc
    rng = np.random.default_rng(6)
    r = 400
    B = rng.standard_normal((r, 5))
    # once untraced first: lazy imports and caches of the first call are not the factors
    NystromFactors("GaussianKernel", B[:8], gamma=0.1).factor_preconditioner(10.0, 1.0)
    tracemalloc.start()
    try:
        fac = NystromFactors("GaussianKernel", B, gamma=0.1)
        U = rng.standard_normal((r, 2))
        fac.factor_preconditioner(10.0, 1.0, [(U * 1e-3, np.eye(2))])
        V = rng.standard_normal((r, 1))
        fac.precondition(fac.apply_Tt(fac.apply_T(V)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fac.nbytes() == 8 * r * r
    assert peak <= 1.25 * 8 * r * r
