"""Kernels against their elementwise definitions, for dense, np.matrix and sparse data."""

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.kernel import (GaussianKernel, LinearKernel, PolynomialKernel,
                            createKernelByModuleName)


def elementwise(kernel, A, B):
    return np.array([[kernel(a, b) for b in B] for a in A])


CASES = [
    (LinearKernel, {"bias": 0.0}, lambda p: lambda a, b: a @ b + p["bias"]),
    (LinearKernel, {"bias": 3.0}, lambda p: lambda a, b: a @ b + p["bias"]),
    (GaussianKernel, {"gamma": 1.0}, lambda p: lambda a, b: np.exp(-p["gamma"] * np.sum((a - b) ** 2))),
    (GaussianKernel, {"gamma": 100.0}, lambda p: lambda a, b: np.exp(-p["gamma"] * np.sum((a - b) ** 2))),
    (GaussianKernel, {"gamma": 1e-4}, lambda p: lambda a, b: np.exp(-p["gamma"] * np.sum((a - b) ** 2))),
    (PolynomialKernel, {"gamma": 2.0, "coef0": 1.0, "degree": 3},
     lambda p: lambda a, b: (p["gamma"] * (a @ b) + p["coef0"]) ** p["degree"]),
    (PolynomialKernel, {"gamma": 10.0, "coef0": 3.0, "degree": 2},
     lambda p: lambda a, b: (p["gamma"] * (a @ b) + p["coef0"]) ** p["degree"]),
]


@pytest.mark.parametrize("cls,params,ref", CASES)
@pytest.mark.parametrize("shape", [(7, 30), (30, 7)])
def test_against_definition_and_data_types(rng, cls, params, ref, shape):
    X = rng.random(shape)
    T = rng.random((5, shape[1]))
    expected = elementwise(ref(params), T, X)
    for conv in (np.asarray, np.asmatrix, sp.csr_matrix, sp.csc_matrix):
        K = cls(X=conv(X), **params).getKM(conv(T))
        assert type(K) is np.ndarray
        np.testing.assert_allclose(K, expected, rtol=1e-10, atol=1e-12)


def test_sparse_test_data_is_resized_to_the_basis_width(rng):
    X = rng.random((4, 5))
    k = LinearKernel(X, bias=0)
    wide = sp.csr_matrix(np.hstack([X, np.ones((4, 2))]))
    np.testing.assert_allclose(k.getKM(wide), X @ X.T)
    narrow = sp.csr_matrix(X[:, :3])
    np.testing.assert_allclose(k.getKM(narrow), X[:, :3] @ X[:, :3].T)


def test_create_kernel_by_module_name(rng):
    X, B = rng.random((6, 3)), rng.random((2, 3))
    k = createKernelByModuleName(kernel="GaussianKernel", X=X, basis_vectors=B, gamma=2.0,
                                 bias=7, degree=2)
    assert k.gamma == 2.0 and k.train_X.shape == (2, 3)
    with pytest.raises(ValueError, match="unknown kernel"):
        createKernelByModuleName(kernel="NoSuchKernel", X=X)
