"""The guard of the large dense factorizations (rlscore._lapack_threads): scipy's
32-bit OpenBLAS segfaults with several threads from n ~ 16 000 (measured), so those
calls run with one BLAS thread; smaller ones keep every thread."""

import numpy as np
import pytest

threadpoolctl = pytest.importorskip("threadpoolctl")

from rlscore._lapack_threads import SAFE_N, lapack_threads, needs_one_thread  # noqa: E402


def _blas_threads():
    return [i["num_threads"] for i in threadpoolctl.threadpool_info()
            if i["user_api"] == "blas"]


def test_threshold_below_the_measured_crash():
    # 8 n^2 bytes below 2^30: half the offset at which the threaded drivers crashed
    assert 8 * SAFE_N ** 2 < 2 ** 30 <= 8 * (SAFE_N + 1) ** 2
    assert not needs_one_thread(SAFE_N) and needs_one_thread(SAFE_N + 1)
    assert needs_one_thread(16_000)


def test_large_n_runs_with_one_blas_thread_and_restores():
    import scipy.linalg  # noqa: F401  (load scipy's BLAS so that threadpoolctl sees it)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        with lapack_threads(SAFE_N + 1):
            assert all(t == 1 for t in _blas_threads())
        assert _blas_threads() == before
        with lapack_threads(100):
            assert _blas_threads() == before


def test_factors_call_lapack_under_the_guard(monkeypatch):
    """NystromFactors' dense factorizations all go through the guard with their
    order (a spy records n), and give the same factors as before."""
    import rlscore.core.nystrom._pcg_factors as pf
    from rlscore.core.nystrom import NystromFactors
    seen = []
    real = pf.lapack_threads

    def spy(n):
        seen.append(int(n))
        return real(n)
    monkeypatch.setattr(pf, "lapack_threads", spy)
    rng = np.random.default_rng(0)
    f = NystromFactors("GaussianKernel", rng.standard_normal((30, 3)), gamma=0.5)
    f.factor_preconditioner(2.0, 0.1)
    f.apply_T(np.ones((30, 1)))
    assert seen and set(seen) == {30} and len(seen) >= 4
