"""The generalized vec trick (rlscore.core.structure, rlscore._ext._kron) against
explicit sampled Kronecker products: repeated indices, both multiplication orders,
sparse loops and dense BLAS phases, full-grid sides, adjoints, and bad input."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rlscore._ext import _kron
from rlscore.core.structure import (PairwiseKernelOperator, SampledKronProduct,
                                    as_index_vector, grid_indices, sampled_kron_matvec)

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)


def explicit(M, N, rM, rN, cM, cN):
    """The sampled matrix R (M kron N) C^T, formed entry by entry."""
    if rM is None:
        rN, rM = grid_indices(N.shape[0], M.shape[0])
    if cM is None:
        cN, cM = grid_indices(N.shape[1], M.shape[1])
    return M[np.ix_(rM, cM)] * N[np.ix_(rN, cN)]


ORDERS = ["N-first", "M-first"]
METHODS = ["sparse", "dense"]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("rows_full", [False, True])
@pytest.mark.parametrize("cols_full", [False, True])
def test_all_paths_match_explicit_product(rng, order, method, rows_full, cols_full):
    M = rng.standard_normal((7, 5))
    N = rng.standard_normal((4, 6))
    nu, nv = 23, 31
    # repeated indices on both sides
    rM, rN = (None, None) if rows_full else (rng.integers(0, 7, nu), rng.integers(0, 4, nu))
    cM, cN = (None, None) if cols_full else (rng.integers(0, 5, nv), rng.integers(0, 6, nv))
    P = SampledKronProduct(M, N, rM, rN, cM, cN, order=order, method=method)
    assert P.order == order
    E = explicit(M, N, rM, rN, cM, cN)
    assert P.shape == E.shape
    v = rng.standard_normal(E.shape[1])
    np.testing.assert_allclose(P.matvec(v), E @ v, rtol=1e-12, atol=1e-12)
    u = rng.standard_normal(E.shape[0])
    np.testing.assert_allclose(P.rmatvec(u), E.T @ u, rtol=1e-12, atol=1e-12)
    # repeated application reuses the cached plan
    v2 = rng.standard_normal(E.shape[1])
    np.testing.assert_allclose(P.matvec(v2), E @ v2, rtol=1e-12, atol=1e-12)


def test_repeated_columns_add_up(rng):
    M = rng.standard_normal((3, 3))
    N = rng.standard_normal((2, 2))
    cM = np.array([1, 1, 1, 0])
    cN = np.array([0, 0, 0, 1])
    v = np.array([1.0, 2.0, -0.5, 3.0])
    u = sampled_kron_matvec(v, M, N, None, None, cM, cN)
    # the same as one column with the summed coefficient
    u2 = sampled_kron_matvec(np.array([2.5, 3.0]), M, N, None, None, [1, 0], [0, 1])
    np.testing.assert_allclose(u, u2, rtol=1e-14)


def test_full_grid_is_column_major(rng):
    M = rng.standard_normal((3, 4))
    N = rng.standard_normal((5, 2))
    V = rng.standard_normal((2, 4))            # cN x cM
    u = sampled_kron_matvec(V.ravel(order="F"), M, N)
    np.testing.assert_allclose(u, (N @ V @ M.T).ravel(order="F"), rtol=1e-12)
    np.testing.assert_allclose(u, np.kron(M, N) @ V.ravel(order="F"), rtol=1e-12)


def test_cost_model_picks_cheaper_order(rng):
    # tall N, small M: N-first costs rN * len(v) = 400 * nv, M-first rM * len(v) = 3 nv
    M = rng.standard_normal((3, 50))
    N = rng.standard_normal((400, 4))
    r = (rng.integers(0, 3, 10), rng.integers(0, 400, 10))
    c = (rng.integers(0, 50, 30), rng.integers(0, 4, 30))
    P = SampledKronProduct(M, N, *r, *c)
    assert P.order == "M-first"
    P2 = SampledKronProduct(N, M, r[1], r[0], c[1], c[0])
    assert P2.order == "N-first"
    v = rng.standard_normal(30)
    np.testing.assert_allclose(P.matvec(v), explicit(M, N, *r, *c) @ v, rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6), st.integers(1, 6),
       st.integers(0, 12), st.integers(0, 12), st.integers(0, 2 ** 31 - 1))
def test_property_random_shapes(rM_, cM_, rN_, cN_, nu, nv, seed):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((rM_, cM_))
    N = rng.standard_normal((rN_, cN_))
    rM, rN = rng.integers(0, rM_, nu), rng.integers(0, rN_, nu)
    cM, cN = rng.integers(0, cM_, nv), rng.integers(0, cN_, nv)
    v = rng.standard_normal(nv)
    E = explicit(M, N, rM, rN, cM, cN)
    for order in ORDERS:
        for method in METHODS:
            u = SampledKronProduct(M, N, rM, rN, cM, cN, order=order, method=method).matvec(v)
            np.testing.assert_allclose(u, E @ v, rtol=1e-11, atol=1e-11)


def test_larger_problem_uses_parallel_loops(rng):
    # big enough for several column blocks and h chunks in the compiled loops
    M = rng.standard_normal((300, 250))
    N = rng.standard_normal((260, 240))
    nu, nv = 20000, 15000
    r = (rng.integers(0, 300, nu), rng.integers(0, 260, nu))
    c = (rng.integers(0, 250, nv), rng.integers(0, 240, nv))
    v = rng.standard_normal(nv)
    idx = rng.integers(0, nu, 50)
    ref = (M[np.ix_(r[0][idx], c[0])] * N[np.ix_(r[1][idx], c[1])]) @ v
    for order in ORDERS:
        u = SampledKronProduct(M, N, *r, *c, order=order, method="sparse").matvec(v)
        np.testing.assert_allclose(u[idx], ref, rtol=1e-10)


def test_validation_errors(rng):
    M = rng.standard_normal((3, 4))
    N = rng.standard_normal((5, 2))
    with pytest.raises(IndexError):
        SampledKronProduct(M, N, [0, 3], [0, 1], None, None)
    with pytest.raises(IndexError):
        SampledKronProduct(M, N, [0, 1], [0, -1], None, None)
    with pytest.raises(IndexError):
        SampledKronProduct(M, N, None, None, [0, 4], [0, 1])
    with pytest.raises(ValueError, match="together"):
        SampledKronProduct(M, N, [0, 1], None, None, None)
    with pytest.raises(ValueError, match="differ in length"):
        SampledKronProduct(M, N, [0, 1], [0], None, None)
    with pytest.raises(ValueError, match="integer"):
        SampledKronProduct(M, N, [0.5, 1.0], [0, 1], None, None)
    with pytest.raises(ValueError):
        SampledKronProduct(M, N, None, None, [[0]], [[1]])
    P = SampledKronProduct(M, N, [0, 1], [2, 3], [0, 1, 2], [0, 1, 1])
    with pytest.raises(ValueError, match="length 3"):
        P.matvec(np.ones(4))
    with pytest.raises(ValueError):
        SampledKronProduct(M, N, order="diagonal")
    # integral floats and any integer dtype are fine
    u = SampledKronProduct(M, N, np.array([0.0, 2.0]), np.array([1, 4], dtype=np.uint8),
                           None, None).matvec(np.ones(8))
    assert u.shape == (2,)


def test_empty_sides(rng):
    M = rng.standard_normal((3, 4))
    N = rng.standard_normal((5, 2))
    assert SampledKronProduct(M, N, [], [], None, None).matvec(np.ones(8)).shape == (0,)
    np.testing.assert_array_equal(
        SampledKronProduct(M, N, [0, 1], [0, 1], [], []).matvec(np.ones(0)), np.zeros(2))


def test_compiled_kernels_refuse_bad_indices_instead_of_crashing():
    AT = np.ones((3, 4))
    ATb = np.ones((2, 3, 2))                   # AT in two blocks of two columns
    Tt = np.zeros((2, 4))
    v = np.ones(2)
    u = np.zeros(2)
    ok = np.array([0, 1], dtype=np.int32)
    with pytest.raises(IndexError):
        _kron.scatter_blocked(ATb, np.array([0, 3], dtype=np.int32), ok, v, Tt)
    with pytest.raises(IndexError):
        _kron.scatter_blocked(ATb, ok, np.array([0, 2], dtype=np.int32), v, Tt)
    with pytest.raises(ValueError, match="length"):
        _kron.scatter_blocked(ATb, ok, ok, np.ones(3), Tt)
    with pytest.raises(ValueError, match="blocks"):
        _kron.scatter_blocked(ATb, ok, ok, v, np.zeros((2, 5)))
    with pytest.raises(ValueError, match="blocks"):
        _kron.scatter_blocked(ATb, ok, ok, v, np.zeros((2, 2)))
    with pytest.raises((TypeError, ValueError)):
        _kron.scatter_blocked(ATb, ok.astype(np.int64), ok, v, Tt)
    with pytest.raises(IndexError):
        _kron.gather_blocked(ATb, np.array([-1, 0], dtype=np.int32), AT, ok, u)
    with pytest.raises(IndexError):
        _kron.gather_blocked(ATb, np.array([0, 3], dtype=np.int32), AT, ok, u)
    with pytest.raises(IndexError):
        _kron.gather_blocked(ATb, ok, AT, np.array([0, 7], dtype=np.int32), u)
    with pytest.raises(ValueError, match="blocks"):
        _kron.gather_blocked(ATb, ok, np.ones((3, 9)), ok, u)
    with pytest.raises(IndexError):
        _kron.scatter_add(ok, np.array([0, 9], dtype=np.int32), v, np.zeros((2, 2)))
    with pytest.raises(IndexError):
        _kron.gather_entries(np.zeros((2, 2)), ok, np.array([0, 2], dtype=np.int32), u)
    with pytest.raises(IndexError):
        _kron.counting_order(np.array([0, 5], dtype=np.int32), 3, np.empty(2, dtype=np.intp))


@pytest.mark.parametrize("block", [8, 16, 29, 64])
def test_blocked_kernels_match_explicit_sums(rng, block):
    from rlscore._vec_trick import _blocked
    A = rng.standard_normal((37, 29))          # AT: 37 x 29
    cA = rng.integers(0, 37, 500).astype(np.int32)
    cB = np.sort(rng.integers(0, 11, 500)).astype(np.int32)
    v = rng.standard_normal(500)
    T = np.zeros((11, 29))
    _kron.scatter_blocked(_blocked(A, block), cA, cB, v, T)
    ref = np.zeros((11, 29))
    np.add.at(ref, cB, v[:, None] * A[cA])
    np.testing.assert_allclose(T, ref, rtol=1e-12, atol=1e-12)
    B = rng.standard_normal((13, 29))
    rA = rng.integers(0, 11, 300).astype(np.int32)
    rB = np.sort(rng.integers(0, 13, 300)).astype(np.int32)
    u = np.empty(300)
    _kron.gather_blocked(_blocked(ref, block), rA, B, rB, u)
    np.testing.assert_allclose(u, (ref[rA] * B[rB]).sum(1), rtol=1e-12)


def test_counting_order_is_stable_sort():
    keys = np.array([3, 1, 3, 0, 1, 1], dtype=np.int32)
    order = np.empty(6, dtype=np.intp)
    _kron.counting_order(keys, 4, order)
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))


def test_as_index_vector():
    np.testing.assert_array_equal(as_index_vector([0, 2, 2], 3, "i"), [0, 2, 2])
    assert as_index_vector(np.array([1]), 2, "i").dtype == np.int32
    with pytest.raises(IndexError, match="outside 0..2"):
        as_index_vector([3], 3, "i")
    with pytest.raises(ValueError):
        as_index_vector([True, False], 3, "i")
    with pytest.raises(ValueError):
        as_index_vector(np.zeros((2, 2), dtype=int), 3, "i")


# -- PairwiseKernelOperator ----------------------------------------------------------

def test_operator_single_term_matches_explicit(rng):
    K1 = rng.standard_normal((6, 5))
    K2 = rng.standard_normal((4, 7))
    r1, r2 = rng.integers(0, 6, 11), rng.integers(0, 4, 11)
    c1, c2 = rng.integers(0, 5, 13), rng.integers(0, 7, 13)
    op = PairwiseKernelOperator(K1, K2, r1, r2, c1, c2)
    E = K1[np.ix_(r1, c1)] * K2[np.ix_(r2, c2)]
    v = rng.standard_normal(13)
    np.testing.assert_allclose(op.matvec(v), E @ v, rtol=1e-12)
    np.testing.assert_allclose(op @ v, E @ v, rtol=1e-12)
    assert op.matvec(v.reshape(-1, 1)).shape == (11, 1)
    u = rng.standard_normal(11)
    np.testing.assert_allclose(op.rmatvec(u), E.T @ u, rtol=1e-12)
    np.testing.assert_allclose(op.T @ u, E.T @ u, rtol=1e-12)
    np.testing.assert_allclose(op @ np.eye(13), E, rtol=1e-12, atol=1e-14)
    assert op.original_row_inds_K1 is r1 and op.original_col_inds_K2 is c2
    assert op.dtype == np.float64


def test_operator_full_grids_are_column_major_with_K1_fastest(rng):
    K1 = rng.standard_normal((3, 3))
    K2 = rng.standard_normal((4, 4))
    op = PairwiseKernelOperator(K1, K2)
    np.testing.assert_allclose(op @ np.eye(12), np.kron(K2, K1), rtol=1e-12)
    r, c = grid_indices(3, 4)
    op2 = PairwiseKernelOperator(K1, K2, r, c, r, c)
    np.testing.assert_allclose(op2 @ np.eye(12), np.kron(K2, K1), rtol=1e-12)


def test_operator_weighted_sum_of_terms(rng):
    A = rng.standard_normal((5, 5))
    B = rng.standard_normal((4, 4))
    r, c = rng.integers(0, 5, 9), rng.integers(0, 4, 9)
    op = PairwiseKernelOperator([A, A, B], [A, B, B], [r, r, c], [r, c, c], [r, r, c],
                                [r, c, c], [1.0, 2.0, -0.5])
    E = (A[np.ix_(r, r)] * A[np.ix_(r, r)] + 2 * A[np.ix_(r, r)] * B[np.ix_(c, c)]
         - 0.5 * B[np.ix_(c, c)] * B[np.ix_(c, c)])
    np.testing.assert_allclose(op @ np.eye(9), E, rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(op.weights, [1.0, 2.0, -0.5])


def test_operator_errors(rng):
    K1 = rng.standard_normal((3, 3))
    K2 = rng.standard_normal((4, 4))
    with pytest.raises(IndexError):
        PairwiseKernelOperator(K1, K2, [0, 3], [0, 0], [0], [0])
    with pytest.raises(ValueError):
        PairwiseKernelOperator([K1, K1], K2)
    with pytest.raises(ValueError, match="weights"):
        PairwiseKernelOperator([K1, K1], [K2, K2], weights=[1.0])
    with pytest.raises(ValueError, match="different shapes"):
        PairwiseKernelOperator([K1, K1], [K2, K2], [None, [0, 1]], [None, [0, 0]])
    with pytest.raises(ValueError):
        PairwiseKernelOperator([], [])


def test_operator_and_predictor_share_the_per_term_index_conventions(rng):
    """One home (rlscore._vec_trick.as_terms / term_indices) for the index arguments of
    a sum of terms: the operator and the pairwise predictor accept the same forms (a
    list or a 2-D array of T index vectors; for one term also a list of one vector) and
    name a bad entry alike, ``name[t]``."""
    from rlscore.predictor import KernelPairwisePredictor
    K1, K2 = rng.standard_normal((5, 5)), rng.standard_normal((4, 4))
    r, c = rng.integers(0, 5, 7), rng.integers(0, 4, 7)
    A = rng.standard_normal(7)
    ref = PairwiseKernelOperator([K1, K1], [K2, K2], [r, r], [c, c], [r, r], [c, c])
    stacked = PairwiseKernelOperator([K1, K1], [K2, K2], np.vstack([r, r]),
                                     np.vstack([c, c]), np.vstack([r, r]),
                                     np.vstack([c, c]))
    np.testing.assert_allclose(stacked @ A, ref @ A, rtol=1e-13)
    one = PairwiseKernelOperator(K1, K2, [r], [c], r[None, :], c[None, :])
    np.testing.assert_allclose(2 * (one @ A), ref @ A, rtol=1e-13)
    pred = KernelPairwisePredictor(A, np.vstack([r, r]), np.vstack([c, c]))
    np.testing.assert_allclose(pred.predict([K1, K1], [K2, K2], [r, r], [c, c]), ref @ A,
                               rtol=1e-13)
    bad = r.copy()
    bad[2] = 5
    with pytest.raises(IndexError, match=r"row_inds_K1\[1\]"):
        PairwiseKernelOperator([K1, K1], [K2, K2], [r, bad], [c, c], [r, r], [c, c])
    with pytest.raises(IndexError, match=r"inds_K1pred\[1\]"):
        pred.predict([K1, K1], [K2, K2], [r, bad], [c, c])
    with pytest.raises(IndexError, match="inds_K1pred"):
        KernelPairwisePredictor(A, r, c).predict(K1, K2, bad, c)
    with pytest.raises(ValueError, match="list of 2 index vectors"):
        PairwiseKernelOperator([K1, K1], [K2, K2], [r], [c])
    with pytest.raises(ValueError, match="list of 2 index vectors"):
        KernelPairwisePredictor(A, [r], [c]).predict([K1, K1], [K2, K2], [r, r], [c, c])
