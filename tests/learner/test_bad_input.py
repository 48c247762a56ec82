"""Bad input gets a clear exception naming the argument; nothing crashes."""

import numpy as np
import pytest

from rlscore.kernel import GaussianKernel, LinearKernel, PolynomialKernel
from rlscore.learner import RLS, KfoldRLS, LeaveOneOutRLS


@pytest.fixture
def Xy(rng):
    return rng.random((20, 3)), rng.random(20)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_data_and_labels(Xy, bad):
    X, y = Xy
    Xb = X.copy()
    Xb[3, 1] = bad
    with pytest.raises(ValueError, match="X contains NaN"):
        RLS(Xb, y)
    yb = y.copy()
    yb[0] = bad
    with pytest.raises(ValueError, match="Y contains NaN"):
        RLS(X, yb)


def test_shapes_and_types(Xy):
    X, y = Xy
    with pytest.raises(ValueError, match="lengths must match"):
        RLS(X, y[:-1])
    with pytest.raises(ValueError, match="empty"):
        RLS(np.empty((0, 3)), np.empty(0))
    with pytest.raises(ValueError, match="Y must be numeric"):
        RLS(X, y > 0.5)
    with pytest.raises(ValueError, match="Y must be numeric"):
        RLS(X, ["a"] * 20)
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        RLS(X, np.zeros((20, 1, 1)))
    with pytest.raises(ValueError, match="basis_vectors has 2 features"):
        RLS(X, y, kernel="GaussianKernel", basis_vectors=X[:5, :2])


@pytest.mark.parametrize("regparam", [-1.0, np.nan, np.inf])
def test_bad_regparam(Xy, regparam):
    X, y = Xy
    with pytest.raises(ValueError, match="regparam"):
        RLS(X, y, regparam)
    learner = RLS(X, y)
    with pytest.raises(ValueError, match="regparam"):
        learner.solve(regparam)


def test_unknown_kernel_and_bad_kernel_parameters(Xy):
    X, y = Xy
    with pytest.raises(ValueError, match="unknown kernel 'Gausian'"):
        RLS(X, y, kernel="Gausian")
    with pytest.raises(ValueError, match="gamma"):
        RLS(X, y, kernel="GaussianKernel", gamma=0)
    with pytest.raises(ValueError, match="degree"):
        PolynomialKernel(X, degree=0)
    with pytest.raises(ValueError, match="features"):
        GaussianKernel(X).getKM(np.ones((2, 4)))


def test_precomputed_kernel_checks(Xy):
    X, y = Xy
    K = LinearKernel(X).getKM(X)
    with pytest.raises(ValueError, match="square"):
        RLS(K[:, :10], y, kernel="PrecomputedKernel")
    Kn = K.copy()
    Kn[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        RLS(Kn, y, kernel="PrecomputedKernel")
    with pytest.raises(ValueError, match="must match"):
        RLS(K[:, :4], y, kernel="PrecomputedKernel", basis_vectors=K[:5, :5])


def test_memory_is_estimated_before_allocating():
    X = np.zeros((2_000_000, 1))
    with pytest.raises(MemoryError, match="GiB"):
        RLS(X, np.zeros(2_000_000), kernel="GaussianKernel")


def test_indices_and_folds(Xy):
    X, y = Xy
    learner = RLS(X, y)
    with pytest.raises(ValueError, match="integer"):
        learner.holdout([0.5, 2])
    with pytest.raises(IndexError):
        learner.leave_pair_out([0, 25], [1, 2])
    with pytest.raises(ValueError, match="empty"):
        KfoldRLS(X, y, folds=[[0, 1], []], regparams=[1.0])
    with pytest.raises(ValueError, match="empty"):
        LeaveOneOutRLS(X, y, regparams=[])


def test_regparam_zero_singular_kernel_is_refused():
    X = np.ones((10, 2))                  # rank-one Gaussian kernel matrix
    with pytest.raises(ValueError, match="regparam"):
        RLS(X, np.arange(10.0), 0.0, kernel="GaussianKernel")


def test_indefinite_precomputed_kernel_refused_on_both_routes(rng):
    A = rng.standard_normal((8, 8))
    K = A + A.T                                  # symmetric, indefinite
    mu_min = np.linalg.eigvalsh(K).min()
    y = rng.standard_normal(8)
    learner = RLS(K, y, -mu_min + 1.0, kernel="PrecomputedKernel")     # K + lambda I is PD
    np.testing.assert_allclose(learner.predictor.W,
                               np.linalg.solve(K + (-mu_min + 1.0) * np.eye(8), y), rtol=1e-9)
    with pytest.raises(ValueError, match="positive definite"):
        RLS(K, y, 0.1, kernel="PrecomputedKernel")                      # Cholesky route
    with pytest.raises(ValueError, match="indefinite"):
        learner.solve(0.1)                                               # eigen route


def test_sparse_input_with_duplicates_is_not_modified(rng):
    import scipy.sparse as sp
    X = rng.random((12, 3))
    # each row stores every entry twice (two halves), columns unsorted
    indices = np.tile(np.array([2, 1, 0, 0, 1, 2]), 12)
    data = np.concatenate([np.r_[X[i, ::-1], X[i]] / 2 for i in range(12)])
    Xs = sp.csr_matrix((data, indices, np.arange(0, 73, 6)), shape=(12, 3))
    assert not Xs.has_canonical_format
    before = (Xs.data.copy(), Xs.indices.copy(), Xs.indptr.copy())
    y = rng.random(12)
    np.testing.assert_allclose(RLS(Xs, y).predictor.W, RLS(X, y).predictor.W, rtol=1e-10)
    for a, b in zip(before, (Xs.data, Xs.indices, Xs.indptr)):
        np.testing.assert_array_equal(a, b)
