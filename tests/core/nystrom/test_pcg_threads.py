"""The PCG operators compute their blocks side by side (rlscore._blocks.map_blocks,
``threads=``): the products, the right-hand sides and the held-out predictions are
the same to the last bit whatever the number of threads (the sums are folded in block
order), equal the dense products, and an error in a late block still surfaces."""

import numpy as np
import pytest

from rlscore._blocks import CACHE_BLOCK_BYTES, block_threads, cache_block_rows, map_blocks
from rlscore.core.rankrls import CenteredGramOperator
from rlscore.core.nystrom import NystromFactors, StreamedGramOperator
from rlscore.core.structure import ArraySource
from rlscore.kernel import kernel_block


def _problem(m=403, r=30, seed=0, n_queries=40):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, 4))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1]]) + 0.1 * rng.standard_normal((m, 2))
    q = np.sort(rng.integers(0, n_queries, m))
    idx = np.sort(rng.choice(m, r, replace=False))
    return X, Y, q, idx


def _operator(kind, X, Y, q, idx, **options):
    f = NystromFactors("GaussianKernel", X[idx], gamma=0.3)
    if kind == "rls":
        return StreamedGramOperator(ArraySource(X, Y), f, **options)
    return CenteredGramOperator(ArraySource(X, Y, qids=q), f, kind,
                                basis_indices=idx, **options)


def _dense(kind, op, X, Y, q, rows):
    """Phi^T L Phi and Phi^T L Y on the training rows, from the whole kernel matrix
    (the r x r problem of each kind, rlscore.core.rankrls._pcg)."""
    f = op.factors
    K = kernel_block(f.kernel, X)
    T = f.apply_T(np.eye(f.n_features))             # (r, k)
    Phi = (K @ T)[rows]
    Yr, qr = Y[rows], q[rows]
    if kind == "rls":
        L = np.eye(rows.sum())
    elif kind == "global":                          # L = m P_c, divided by m
        n = rows.sum()
        L = np.eye(n) - np.ones((n, n)) / n
    else:
        same = qr[:, None] == qr[None, :]
        L = np.eye(rows.sum()) - same / same.sum(axis=1, keepdims=True)
    return Phi.T @ L @ Phi, Phi.T @ L @ Yr


@pytest.mark.parametrize("kind", ["rls", "query", "global"])
@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("held", [False, True])
def test_threads_change_no_bit_and_match_the_dense_products(kind, cache, held):
    X, Y, q, idx = _problem()
    rows = None
    if held:                                        # whole queries held out
        rows = ~np.isin(q, [3, 4, 17, 39])
    V = np.random.default_rng(1).standard_normal((idx.size, 3))
    out = {}
    for threads in (1, 2, 3):
        op = _operator(kind, X, Y, q, idx, block_size=7, cache=cache, rows=rows,
                       threads=threads)
        assert op.threads == threads
        B = op.rhs()
        S = op.matvec(V)
        S2 = op.matvec(V)                           # the second pass (cache filled)
        Ws = [V[:, :2], V[:, 1:]]
        mask = np.zeros(X.shape[0], bool)
        mask[::5] = True
        P = op.predict_rows(Ws, mask)
        out[threads] = (B, S, S2, P)
    for threads in (2, 3):
        for a, b in zip(out[1], out[threads]):
            np.testing.assert_array_equal(a, b)
    B, S, S2, P = out[1]
    np.testing.assert_array_equal(S, S2)
    rows_ = np.ones(X.shape[0], bool) if rows is None else rows
    G, R = _dense(kind, op, X, Y, q, rows_)
    mu = op.regparam
    np.testing.assert_allclose(B, R, rtol=1e-10, atol=1e-10 * np.abs(R).max())
    np.testing.assert_allclose(S, G @ V + mu * V, rtol=1e-9, atol=1e-9 * np.abs(G).max())
    K = kernel_block(op.factors.kernel, X[mask])
    T = op.factors.apply_T(np.eye(idx.size))
    for j, W in enumerate(Ws):
        np.testing.assert_allclose(P[:, j, :], K @ T @ W, rtol=1e-10, atol=1e-12)


def test_recomputed_blocks_are_cache_sized_and_cached_blocks_are_not():
    X, Y, q, idx = _problem(m=3000, r=600)
    rec = _operator("rls", X, Y, q, idx, cache=False)
    kept = _operator("rls", X, Y, q, idx, cache=True)
    assert rec.block_size == cache_block_rows(8 * 600, 3000) == CACHE_BLOCK_BYTES // 4800
    assert kept.block_size > rec.block_size
    f32 = _operator("rls", X, Y, q, idx, cache=False, dtype=np.float32)
    assert f32.block_size == CACHE_BLOCK_BYTES // 2400
    small = _operator("rls", X, Y, q, idx, cache=False, block_size=9)
    assert small.block_size == 9                    # a smaller block is kept


def test_a_bad_late_block_is_reported_with_threads():
    X, Y, q, idx = _problem(m=600)
    X[590, 2] = np.nan
    op = _operator("rls", X, Y, q, idx, block_size=5, cache=False, threads=2)
    with pytest.raises(ValueError, match="NaN|finite"):
        op.rhs()


@pytest.mark.parametrize("threads", [0, -2, 1.5, True, "2"])
def test_threads_is_checked(threads):
    X, Y, q, idx = _problem(m=50, r=5)
    with pytest.raises((TypeError, ValueError), match="threads"):
        _operator("rls", X, Y, q, idx, threads=threads)


def test_map_blocks_keeps_the_order_and_raises_the_first_error():
    import threading
    import time
    seen = set()

    def slow_square(i):
        seen.add(threading.get_ident())
        time.sleep(0.002 * ((7 * i) % 5))          # finish out of order
        return i * i
    assert list(map_blocks(slow_square, range(40), threads=3)) == \
        [i * i for i in range(40)]
    assert len(seen) > 1

    def fails(i):
        if i in (11, 25):
            raise ValueError(f"block {i}")
        time.sleep(0.001)
        return i
    got = []
    with pytest.raises(ValueError, match="block 11"):
        for v in map_blocks(fails, range(40), threads=3):
            got.append(v)
    assert got == list(range(11))
    # one thread: the plain loop, in the calling thread
    assert list(map_blocks(lambda i: threading.get_ident(), range(3), threads=1)) == \
        [threading.get_ident()] * 3


def test_block_threads_default_follows_omp_num_threads(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert block_threads() == 3
    assert block_threads(5) == 5


def test_kernel_block_with_one_thread_equals_the_threaded_block():
    rng = np.random.default_rng(2)
    X, Z = rng.standard_normal((300, 6)), rng.standard_normal((40, 6))
    f = NystromFactors("GaussianKernel", Z, gamma=0.4)
    for dtype in (np.float64, np.float32):
        a = kernel_block(f.kernel, X, dtype=dtype, num_threads=1)
        b = kernel_block(f.kernel, X, dtype=dtype, num_threads=0)
        np.testing.assert_array_equal(a, b)
