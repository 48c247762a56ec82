"""RLScore's utilities for sampled Kronecker products: ``sampled_vec_trick`` and
``PairwiseKernelOperator`` in the way upstream code uses them (F-order conventions,
row/column pairs given or None, sizes up to 400 x 600)."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.utilities import PairwiseKernelOperator, sampled_kronecker_products
from rlscore.utilities.pairwise_kernel_operator import create_ind_vecs


def sampled(rows, columns, rng, fraction=5):
    """Random distinct positions of a rows x columns grid as (row, col) index vectors,
    and the 0/1 sampling matrix over the F-order vectorization."""
    n = rows * columns // fraction
    inc = rng.choice(rows * columns, n, replace=False)
    r, c = create_ind_vecs(rows, columns)
    r, c = r[inc], c[inc]
    S = sp.csr_matrix((np.ones(n), (np.arange(n), c.astype(np.int64) * rows + r)),
                      shape=(n, rows * columns))
    return r, c, S


@pytest.mark.parametrize("shape", [(30, 500, 400, 60), (300, 50, 40, 600)])
def test_upstream_style_products(rng, shape):
    M_rows, M_cols, N_rows, N_cols = shape
    M = rng.random((M_rows, M_cols))
    N = rng.random((N_rows, N_cols))
    # v: known entries of a N_cols x M_cols matrix V (rows index N's columns)
    vr, vc, C = sampled(N_cols, M_cols, rng)
    v = rng.random(vr.size)
    ur, uc, R = sampled(N_rows, M_rows, rng)
    V = (C.T @ v).reshape(N_cols, M_cols, order="F")
    full = (N @ V @ M.T).ravel(order="F")
    # both sampled
    res = sampled_kronecker_products.sampled_vec_trick(v, M, N, uc, ur, vc, vr)
    np.testing.assert_allclose(res, R @ full, rtol=1e-10)
    # the same through the operator: K1 = N (fast index), K2 = M
    pko = PairwiseKernelOperator(N, M, ur, uc, vr, vc)
    np.testing.assert_allclose(pko.matvec(v), R @ full, rtol=1e-10)
    # rows None: the full grid
    res = sampled_kronecker_products.sampled_vec_trick(v, M, N, None, None, vc, vr)
    np.testing.assert_allclose(res, full, rtol=1e-10)
    np.testing.assert_allclose(PairwiseKernelOperator(N, M, None, None, vr, vc).matvec(v),
                               full, rtol=1e-10)
    # columns None: a full vector
    v_full = rng.random(M_cols * N_cols)
    full2 = (N @ v_full.reshape(N_cols, M_cols, order="F") @ M.T).ravel(order="F")
    res = sampled_kronecker_products.sampled_vec_trick(v_full, M, N, uc, ur, None, None)
    np.testing.assert_allclose(res, R @ full2, rtol=1e-10)
    np.testing.assert_allclose(PairwiseKernelOperator(N, M, ur, uc).matvec(v_full),
                               R @ full2, rtol=1e-10)
    # neither
    res = sampled_kronecker_products.sampled_vec_trick(v_full, M, N)
    np.testing.assert_allclose(res, full2, rtol=1e-10)


def test_upstream_strict_types_are_accepted_and_so_is_anything_else(rng):
    M = np.asfortranarray(rng.random((5, 4)))
    N = rng.random((6, 3)).astype(np.float32)
    r = [0, 4, 4]
    s = np.array([5, 0, 5], dtype=np.int64)
    c = (np.array([1, 2], dtype=np.int32), np.array([0, 2], dtype=np.int32))
    v = [1.0, -2.0]
    expl = M[np.ix_(r, c[0])] * N.astype(np.float64)[np.ix_(s, c[1])]
    out = np.empty(3)
    res = sampled_kronecker_products.sampled_vec_trick(v, M, N, r, s, c[0], c[1],
                                                       x_after=out)
    assert res is out
    np.testing.assert_allclose(out, expl @ np.asarray(v), rtol=1e-6)
    with pytest.raises(IndexError):
        sampled_kronecker_products.sampled_vec_trick(v, M, N, r, [6, 0, 0], c[0], c[1])
    with pytest.raises(ValueError):
        sampled_kronecker_products.sampled_vec_trick(v, M, N, r, [0, 0], c[0], c[1])


def test_create_ind_vecs():
    r, c = create_ind_vecs(3, 2)
    np.testing.assert_array_equal(r, [0, 1, 2, 0, 1, 2])
    np.testing.assert_array_equal(c, [0, 0, 0, 1, 1, 1])
    assert r.dtype == np.int32 and c.dtype == np.int32
    assert create_ind_vecs(0, 5)[0].size == 0


def test_module_exports():
    import rlscore.utilities as u
    from rlscore.utilities import pairwise_kernel_operator as pkm
    assert u.PairwiseKernelOperator is pkm.PairwiseKernelOperator
    assert hasattr(pkm, "create_ind_vecs")
    assert hasattr(u.sampled_kronecker_products, "sampled_vec_trick")
