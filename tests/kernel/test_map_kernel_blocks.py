"""Kernel blocks computed side by side (rlscore.kernel.map_kernel_blocks): every row
once, in order, the blocks those of the whole kernel matrix, whatever the input type
and the number of threads; the kernel predictors predict through it."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore._blocks import CACHE_BLOCK_BYTES, working_memory
from rlscore.kernel import GaussianKernel, LinearKernel, PolynomialKernel, map_kernel_blocks
from rlscore.predictor import KernelPredictor

KERNELS = [(GaussianKernel, {"gamma": 0.3}), (LinearKernel, {"bias": 1.0}),
           (PolynomialKernel, {"gamma": 0.5, "coef0": 1.0, "degree": 2})]


def _data(m=5003, r=300, d=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, d)), rng.standard_normal((r, d))


@pytest.mark.parametrize("cls,params", KERNELS)
@pytest.mark.parametrize("kind", ["array", "csr", "memmap"])
def test_blocks_cover_the_rows_in_order_and_equal_the_kernel(cls, params, kind, tmp_path):
    X, Z = _data()
    k = cls(Z, **params)
    full = k.getKM(X)
    if kind == "csr":
        Xin = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
        full = k.getKM(Xin)
    elif kind == "memmap":
        Xin = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", shape=X.shape)
        Xin[:] = X
    else:
        Xin = X
    got = {}
    for threads in (1, 2, 3):
        parts = list(map_kernel_blocks(k, Xin, lambda rows, Kb: Kb.copy(),
                                       threads=threads))
        assert len(parts) > 1                       # several blocks, so threads run
        assert parts[0][0].start == 0 and parts[-1][0].stop == X.shape[0]
        for (a, _), (b, _) in zip(parts, parts[1:]):
            assert a.stop == b.start
        got[threads] = np.vstack([Kb for _, Kb in parts])
    np.testing.assert_allclose(got[1], full, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got[1], got[2])
    np.testing.assert_array_equal(got[1], got[3])


def test_blocks_are_cache_sized_and_within_the_budget():
    X, Z = _data(m=20000, r=2000)
    k = GaussianKernel(Z, gamma=0.1)
    sizes = [rows.stop - rows.start for rows, _ in
             map_kernel_blocks(k, X, lambda rows, Kb: None, threads=2)]
    assert max(sizes) == CACHE_BLOCK_BYTES // (8 * 2000 + 8 * 6)
    with working_memory(1):                         # 1 MiB: fewer rows than the cache
        sizes = [rows.stop - rows.start for rows, _ in
                 map_kernel_blocks(k, X, lambda rows, Kb: None, threads=2)]
    assert max(sizes) == 2**20 // (8 * 2000 + 8 * 6)


def test_nan_in_a_late_block_names_its_rows_with_threads():
    X, Z = _data(m=6000)
    X[5990, 1] = np.nan
    with pytest.raises(ValueError, match="5990|rows"):
        for _ in map_kernel_blocks(GaussianKernel(Z), X, lambda rows, Kb: 0, threads=2):
            pass


@pytest.mark.parametrize("p", [1, 3])
def test_kernel_predictor_equals_the_dense_product(p, monkeypatch):
    X, Z = _data(m=7001, r=250)
    A = np.random.default_rng(3).standard_normal((250, p) if p > 1 else 250)
    k = GaussianKernel(Z, gamma=0.2)
    pred = KernelPredictor(A, k)
    ref = np.squeeze(k.getKM(X) @ A)
    for threads in ("1", "3"):
        monkeypatch.setenv("OMP_NUM_THREADS", threads)
        np.testing.assert_allclose(pred.predict(X), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.int64, "float16"])
def test_the_block_precision_is_checked(dtype):
    X, Z = _data(m=10, r=4)
    with pytest.raises(ValueError, match="dtype must be float64 or float32"):
        list(map_kernel_blocks(GaussianKernel(Z), X, lambda rows, Kb: 0, dtype=dtype))
