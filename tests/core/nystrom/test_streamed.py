"""Streamed reduced-set learning (rlscore.core.nystrom.StreamedReducedSet) equals the
in-memory path: fit, lambda path, leave-one-out (with basis removal), K-fold (with
basis removal), for block sizes 1, 7 and m, and for arrays, memmaps and CSR input."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore._blocks import working_memory
from rlscore.core.nystrom import NystromFeatureMap, RLSModel, StreamedReducedSet
from rlscore.core.structure import ArraySource

GRID = [1e-4, 1e-2, 1.0, 1e2]


def _data(m=37, d=4, p=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    Y = rng.standard_normal((m, p))
    return X, Y


def _both(X, Y, idx, block, kernel="GaussianKernel", folds=None, **kp):
    fmap = NystromFeatureMap(kernel, X[idx], **kp)
    st = StreamedReducedSet(ArraySource(X, Y), fmap, basis_indices=idx, folds=folds,
                            block_size=block)
    mem = RLSModel(X, Y, 1.0, kernel=kernel, basis_indices=idx, **kp)
    return st, mem


@pytest.mark.parametrize("block", [1, 7, None])
@pytest.mark.parametrize("kernel,kp", [("GaussianKernel", dict(gamma=0.2)),
                                       ("LinearKernel", dict(bias=1.0)),
                                       ("PolynomialKernel", dict(degree=2, coef0=1.0))])
def test_fit_path_loo_equal_in_memory(block, kernel, kp):
    X, Y = _data(p=2)
    idx = np.array([0, 3, 8, 9, 20, 30])
    st, mem = _both(X, Y, idx, block, kernel, **kp)
    ref_loo = mem.solver.leave_one_out_removing_path(GRID)
    keep_loo = mem.solver.leave_one_out_path(GRID)
    loo = st.leave_one_out_path(GRID)
    loo_keep = st.leave_one_out_path(GRID, remove_basis=False)
    Xt = _data(m=5, seed=3)[0]
    for j, lam in enumerate(GRID):
        np.testing.assert_allclose(st.solve(lam), mem.solver.solve(lam), rtol=1e-10,
                                   atol=1e-10)
        mem.solve(lam)
        np.testing.assert_allclose(st.predictor(st.solve(lam)).predict(Xt),
                                   np.asarray(mem.predictor.predict(Xt)).reshape(5, -1),
                                   rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(loo[:, j], ref_loo[j], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(loo_keep[:, j], keep_loo[j], rtol=1e-10, atol=1e-10)


def test_loo_removal_is_a_refit():
    """The basis example's LOO prediction is the model refitted without it as an
    example and as a basis vector (brute force)."""
    X, Y = _data()
    idx = np.array([2, 5, 11, 17])
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.3)
    st = StreamedReducedSet(ArraySource(X, Y), fmap, basis_indices=idx, block_size=7)
    loo = st.leave_one_out_path([0.5])
    i = 11
    rest = np.setdiff1d(np.arange(X.shape[0]), [i])
    sub = np.setdiff1d(idx, [i])
    refit = RLSModel(X[rest], Y[rest], 0.5, kernel="GaussianKernel",
                     basis_vectors=X[sub], gamma=0.3)
    np.testing.assert_allclose(loo[i, 0], refit.predictor.predict(X[i:i + 1]).ravel(),
                               rtol=1e-9)


@pytest.mark.parametrize("block", [1, 7, None])
@pytest.mark.parametrize("remove", [True, False])
def test_kfold_equal_in_memory(block, remove):
    X, Y = _data(p=2)
    idx = np.array([0, 3, 8, 9, 20, 30])
    folds = [np.arange(0, 37, 3), np.arange(1, 37, 3), np.arange(2, 37, 3)]
    st, mem = _both(X, Y, idx, block, folds=folds, gamma=0.2)
    P = st.kfold_path(GRID, remove_basis=remove)
    for j, lam in enumerate(GRID):
        for f in folds:
            ref = mem.solver.holdout_removing(lam, f) if remove else \
                mem.solver.holdout(lam, f)
            np.testing.assert_allclose(P[f, j], ref, rtol=1e-9, atol=1e-10)


def test_memmap_and_csr_inputs(tmp_path):
    X, Y = _data(m=30)
    X[np.abs(X) < 0.5] = 0.0
    idx = np.array([1, 4, 6, 22])
    mm = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    ref = None
    for Xin in (X, np.load(tmp_path / "x.npy", mmap_mode="r"), sp.csr_matrix(X)):
        fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.5)
        st = StreamedReducedSet(ArraySource(Xin, Y), fmap, basis_indices=idx,
                                block_size=7)
        out = st.leave_one_out_path(GRID)
        if ref is None:
            ref = out
        np.testing.assert_allclose(out, ref, rtol=1e-11, atol=1e-12)


def test_nan_in_late_block_gives_error():
    X, Y = _data(m=30)
    X[27, 0] = np.nan
    fmap = NystromFeatureMap("GaussianKernel", X[:3])
    with pytest.raises(ValueError, match="NaN"):
        StreamedReducedSet(ArraySource(X, Y), fmap, block_size=7)


def test_budget_too_small_is_refused():
    X, Y = _data(m=30)
    fmap = NystromFeatureMap("GaussianKernel", X[:3])
    with working_memory(1e-5):
        with pytest.raises(MemoryError, match="working memory budget"):
            StreamedReducedSet(ArraySource(X, Y), fmap)


def _qdata(m=40, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 3))
    Y = rng.standard_normal((m, 1))
    qids = np.repeat(np.arange(8), [3, 7, 2, 9, 4, 5, 6, 4])
    return X, Y, qids


@pytest.mark.parametrize("block", [1, 7, None])
@pytest.mark.parametrize("kind", ["query", "global"])
def test_rank_fit_equals_learner(block, kind):
    from rlscore.learner import GlobalRankRLS, QueryRankRLS
    X, Y, qids = _qdata()
    B = X[[0, 5, 12, 30]]
    fmap = NystromFeatureMap("GaussianKernel", B, gamma=0.4)
    st = StreamedReducedSet(ArraySource(X, Y, qids if kind == "query" else None), fmap,
                            kind=kind, block_size=block)
    Xt = _data(m=6, d=3, seed=4)[0]
    for lam in GRID:
        if kind == "query":
            ref = QueryRankRLS(X, Y.ravel(), qids, regparam=lam, kernel="GaussianKernel",
                               basis_vectors=B, gamma=0.4)
        else:
            ref = GlobalRankRLS(X, Y.ravel(), regparam=lam, kernel="GaussianKernel",
                                basis_vectors=B, gamma=0.4)
        got = st.predictor(st.solve(lam)).predict(Xt)
        np.testing.assert_allclose(np.ravel(got), np.ravel(ref.predict(Xt)), rtol=1e-9,
                                   atol=1e-10)


@pytest.mark.parametrize("block", [1, 7, None])
def test_leave_query_out_equals_refit(block):
    """Folds = queries (leave-query-out), queries crossing block boundaries: each
    held-out query predicted by the model refitted without it (basis kept)."""
    from rlscore.learner import QueryRankRLS
    X, Y, qids = _qdata()
    B = X[[0, 5, 12, 30]]
    fmap = NystromFeatureMap("GaussianKernel", B, gamma=0.4)
    st = StreamedReducedSet(ArraySource(X, Y, qids), fmap, kind="query", folds=qids,
                            block_size=block)
    P = st.kfold_path([0.1, 10.0])
    for j, lam in enumerate([0.1, 10.0]):
        for q in np.unique(qids):
            tr = qids != q
            ref = QueryRankRLS(X[tr], Y[tr].ravel(), qids[tr], regparam=lam,
                               kernel="GaussianKernel", basis_vectors=B, gamma=0.4)
            np.testing.assert_allclose(P[qids == q, j, 0], np.ravel(ref.predict(
                X[qids == q])), rtol=1e-9, atol=1e-10)


def test_global_kfold_equals_refit():
    from rlscore.learner import GlobalRankRLS
    X, Y, _ = _qdata()
    B = X[[0, 5, 12, 30]]
    folds = np.arange(40) % 4
    fmap = NystromFeatureMap("GaussianKernel", B, gamma=0.4)
    st = StreamedReducedSet(ArraySource(X, Y), fmap, kind="global", folds=folds,
                            block_size=7)
    P = st.kfold_path([1.0])
    for f in range(4):
        tr = folds != f
        ref = GlobalRankRLS(X[tr], Y[tr].ravel(), regparam=1.0, kernel="GaussianKernel",
                            basis_vectors=B, gamma=0.4)
        np.testing.assert_allclose(P[folds == f, 0, 0],
                                   np.ravel(ref.predict(X[folds == f])), rtol=1e-9)


def test_query_rows_must_be_contiguous():
    X, Y, qids = _qdata()
    fmap = NystromFeatureMap("GaussianKernel", X[:3])
    with pytest.raises(ValueError, match="contiguous"):
        StreamedReducedSet(ArraySource(X, Y, qids[::-1].copy()[np.argsort(
            np.arange(40) % 3, kind="stable")]), fmap, kind="query")


def test_dask_array_input():
    da = pytest.importorskip("dask.array")
    X, Y = _data(m=30)
    idx = np.array([1, 4, 6, 22])
    ref = StreamedReducedSet(ArraySource(X, Y), NystromFeatureMap(
        "GaussianKernel", X[idx], gamma=0.5), basis_indices=idx, block_size=7)
    dX = da.from_array(X, chunks=(11, 4))
    src = ArraySource(dX, Y)
    st = StreamedReducedSet(src, NystromFeatureMap(
        "GaussianKernel", src.rows(idx), gamma=0.5), basis_indices=idx, block_size=7)
    np.testing.assert_allclose(st.leave_one_out_path(GRID), ref.leave_one_out_path(GRID),
                               rtol=1e-12, atol=1e-13)


@pytest.mark.filterwarnings("ignore:the kernel matrix of the basis vectors")
@pytest.mark.parametrize("kind", ["rls", "global"])
@pytest.mark.parametrize("pert", [1e-5, 1e-6])
def test_near_duplicate_basis_rows_equal_in_memory(kind, pert):
    """Real data repeat records: near-duplicate basis rows make T = C^{-T} so large that
    the kernel-space sums T^T (K^T K) T lost 3 digits (1e-5) or the positive
    definiteness (1e-6, a ValueError); the features are then summed per block."""
    from rlscore.learner import GlobalRankRLS
    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 3))
    X[40:] = X[:40] + pert * rng.standard_normal((40, 3))
    Y = rng.standard_normal((80, 1))
    idx = np.sort(np.r_[np.arange(10), np.arange(40, 50)])
    Xt = rng.standard_normal((6, 3))
    fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=0.5)
    st = StreamedReducedSet(ArraySource(X, Y), fmap, kind=kind, basis_indices=idx,
                            block_size=7)
    if kind == "rls":
        mem = RLSModel(X, Y, 1.0, kernel="GaussianKernel", basis_indices=idx, gamma=0.5)
        ref_loo = mem.solver.leave_one_out_path([1e-2, 1.0])
        loo = st.leave_one_out_path([1e-2, 1.0], remove_basis=False)
    for j, lam in enumerate([1e-2, 1.0]):
        if kind == "rls":
            mem.solve(lam)
            ref = np.asarray(mem.predictor.predict(Xt)).ravel()
            np.testing.assert_allclose(loo[:, j], ref_loo[j], rtol=1e-7, atol=1e-7)
        else:
            ref = np.ravel(GlobalRankRLS(X, Y.ravel(), regparam=lam,
                                         kernel="GaussianKernel", basis_vectors=X[idx],
                                         gamma=0.5).predict(Xt))
        got = np.ravel(st.predictor(st.solve(lam)).predict(Xt))
        np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-7 * np.abs(ref).max())
    assert not st.kernel_space


def test_well_conditioned_basis_sums_in_kernel_space():
    X, Y = _data()
    fmap = NystromFeatureMap("GaussianKernel", X[[0, 3, 8, 9]], gamma=0.2)
    assert StreamedReducedSet(ArraySource(X, Y), fmap).kernel_space
