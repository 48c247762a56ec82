"""Blocked kernel products (rlscore.kernel._blocked) and the memory budget
(rlscore._blocks): every block size gives the dense kernel."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore._blocks import batches, get_working_memory, rows_per_block, working_memory
from rlscore.kernel import GaussianKernel, LinearKernel, PolynomialKernel
from rlscore.kernel._blocked import kernel_block, kernel_blocks


def _dense_reference(name, X, B, **params):
    """The kernel matrix from its formula, one entry at a time (numpy only)."""
    if name == "linear":
        return X @ B.T + params.get("bias", 1.0)
    if name == "gaussian":
        d2 = ((X[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)
        return np.exp(-params["gamma"] * d2)
    return (params["gamma"] * (X @ B.T) + params["coef0"]) ** params["degree"]


KERNELS = [("linear", LinearKernel, dict(bias=0.5)),
           ("gaussian", GaussianKernel, dict(gamma=0.3)),
           ("polynomial", PolynomialKernel, dict(degree=3, gamma=0.2, coef0=1.0))]


@pytest.mark.parametrize("name,cls,params", KERNELS)
@pytest.mark.parametrize("block", [1, 7, None, 40])
@pytest.mark.parametrize("sparse", [False, True])
def test_blocks_equal_dense(name, cls, params, block, sparse):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    B = rng.standard_normal((9, 5))
    if sparse:
        X[rng.random(X.shape) < 0.5] = 0
    ref = _dense_reference(name, X, B, **params)
    kern = cls(B, **params)
    Xin = sp.csr_matrix(X) if sparse else X
    out = np.empty_like(ref)
    seen = []
    for rows, Kb in kernel_blocks(kern, Xin, block_size=block):
        out[rows] = Kb
        seen.append(rows)
    assert seen[0].start == 0 and seen[-1].stop == 40
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kern.getKM(Xin), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,cls,params", KERNELS)
@pytest.mark.parametrize("zeros", [0.0, 0.5, 0.9])
def test_sparse_basis_and_rows_dense_or_sparse_product(name, cls, params, zeros):
    """CSR rows against a CSR basis: multiplied as arrays when dense enough (a file of
    dense rows read as CSR), as sparse products when not -- the same kernel."""
    from rlscore.kernel._blocked import DENSE_ENOUGH, _dense_enough
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 6))
    B = rng.standard_normal((8, 6))
    X[rng.random(X.shape) < zeros] = 0
    B[rng.random(B.shape) < zeros] = 0
    ref = _dense_reference(name, X, B, **params)
    kern = cls(sp.csr_matrix(B), **params)
    assert _dense_enough(sp.csr_matrix(X)) == (np.count_nonzero(X) >= DENSE_ENOUGH * X.size)
    out = np.empty_like(ref)
    for rows, Kb in kernel_blocks(kern, sp.csr_matrix(X), block_size=7):
        out[rows] = Kb
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


def test_memmap_input(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((23, 4))
    mm = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    kern = GaussianKernel(X[:5], gamma=0.7)
    got = np.vstack([Kb.copy() for _, Kb in kernel_blocks(
        kern, np.load(tmp_path / "x.npy", mmap_mode="r"), block_size=7)])
    np.testing.assert_allclose(got, _dense_reference("gaussian", X, X[:5], gamma=0.7),
                               rtol=1e-12)


def test_nan_in_late_block_names_rows():
    X = np.ones((30, 3))
    X[25, 1] = np.nan
    kern = LinearKernel(X[:3])
    gen = kernel_blocks(kern, X, block_size=7)
    next(gen)
    with pytest.raises(ValueError, match="NaN.*rows 21..27"):
        list(gen)


def test_budget_sets_block_size(monkeypatch):
    assert rows_per_block(1024, 10**9, budget=1) == 1024
    assert rows_per_block(1024, 10, budget=1) == 10
    with working_memory(2):
        assert get_working_memory() == 2
        assert rows_per_block(1024, 10**9) == 2048
        with working_memory(None):
            assert get_working_memory() == 2
    monkeypatch.setenv("RLSCORE_WORKING_MEMORY", "3")
    assert get_working_memory() == 3
    monkeypatch.setenv("RLSCORE_WORKING_MEMORY", "lots")
    with pytest.raises(TypeError, match="RLSCORE_WORKING_MEMORY"):
        get_working_memory()


def test_budget_too_small_is_refused():
    with pytest.raises(MemoryError, match="working memory budget"):
        rows_per_block(2 * 2**20, 100, budget=1)
    with pytest.raises(ValueError, match="working_memory"):
        with working_memory(-1):
            pass
    kern = GaussianKernel(np.ones((3, 2)))
    with working_memory(1e-5):
        with pytest.raises(MemoryError):
            next(kernel_blocks(kern, np.ones((10, 2))))


def test_batches_cover_range():
    assert [(s.start, s.stop) for s in batches(10, 4)] == [(0, 4), (4, 8), (8, 10)]
    assert list(batches(0, 3)) == []
    with pytest.raises(ValueError):
        list(batches(5, 0))


def test_vectorized_exponentials_against_numpy():
    """The branch-free exp(-y) of the Gaussian blocks: double within 1 ulp of numpy
    on [0, 708), single within 3e-7 relative of float64 numpy on [0, 87) (every
    exponent range); exactly 1 at 0, exactly 0 beyond (never a denormal, inf or NaN)."""
    from rlscore._ext import _blocked
    y = np.concatenate([np.linspace(0.0, 707.99, 400_001), np.logspace(-15, 2.84, 2000)])
    out = np.empty_like(y)
    _blocked.exp_neg(y, out)
    ref = np.exp(-y)
    assert np.max(np.abs(out - ref) / np.spacing(ref)) <= 1.0
    y32 = np.concatenate([np.linspace(0.0, 86.99, 400_001),
                          np.logspace(-12, 1.93, 2000)]).astype(np.float32)
    out32 = np.empty_like(y32)
    _blocked.exp_neg(y32, out32)
    np.testing.assert_allclose(out32, np.exp(-y32.astype(np.float64)), rtol=3e-7, atol=0)
    for dt, big in ((np.float64, 708.0), (np.float32, 87.0)):
        y = np.array([0.0, big, big * 1.01, 1e30, np.inf], dtype=dt)
        out = np.empty_like(y)
        _blocked.exp_neg(y, out)
        assert out[0] == 1.0 and np.all(out[1:] == 0.0), out


@pytest.mark.parametrize("ard", [False, True])
@pytest.mark.parametrize("shift", [0.0, 50.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_float32_gaussian_blocks_near_float64(ard, shift, sparse):
    """float32 Gaussian blocks (one SGEMM + the vectorized exponential, rows and basis
    centred on the basis mean) within 2e-6 of the formula, also for data far from the
    origin (shift 50: without the centring the float32 difference of norms ~ 5e4 would
    lose every digit of distances ~ 10), per-feature widths and CSR rows; the buffer
    given is filled."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((37, 6)) + shift
    B = rng.standard_normal((11, 6)) + shift
    if sparse:
        X[rng.random(X.shape) < 0.3] = 0
    gamma = rng.uniform(0.05, 0.5, 6) if ard else 0.2
    d2 = (((X[:, None, :] - B[None, :, :]) ** 2) * gamma).sum(axis=2)
    ref = np.exp(-d2)
    kern = GaussianKernel(B, gamma=gamma)
    Xin = sp.csr_matrix(X) if sparse else X
    out = np.empty((37, 11), dtype=np.float32)
    got = kernel_block(kern, Xin, out=out, dtype=np.float32)
    assert got is out and got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=0, atol=2e-6)
    assert np.abs(got - ref).max() <= 2e-6 * max(ref.max(), 1e-30)
    # the float64 block of the same kernel is unchanged by the float32 cache
    np.testing.assert_allclose(kernel_block(kern, X), ref, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("name,cls,params", KERNELS[::2])
def test_float32_other_kernels_are_rounded_float64(name, cls, params):
    rng = np.random.default_rng(4)
    X, B = rng.standard_normal((9, 4)), rng.standard_normal((5, 4))
    kern = cls(B, **params)
    got = kernel_block(kern, X, dtype=np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, kernel_block(kern, X).astype(np.float32))


def test_kernel_block_dtype_and_buffer_checked():
    kern = GaussianKernel(np.ones((3, 2)), gamma=1.0)
    with pytest.raises(ValueError, match="dtype"):
        kernel_block(kern, np.ones((2, 2)), dtype=np.float16)
    with pytest.raises(ValueError, match="float32"):
        kernel_block(kern, np.ones((2, 2)), out=np.empty((2, 3)), dtype=np.float32)
