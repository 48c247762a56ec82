"""Shared input handling of the kernel classes."""

import numpy as np
import scipy.sparse as sp

from rlscore._validation import as_data_matrix


def as_kernel_input(X, name="X"):
    """Basis/test data as a 2-D float64 ndarray or CSR matrix; 1-D is one column."""
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.ndim == 1:
            X = X.reshape(-1, 1)
    return as_data_matrix(X, name=name)


def as_item_list(X, name, what):
    """The inputs of a structured-input kernel as a non-empty list; ``what`` names the
    items in error messages (e.g. "graphs")."""
    try:
        X = list(X)
    except TypeError:
        raise ValueError(f"{name} must be a list of {what}, got {type(X).__name__}") from None
    if not X:
        raise ValueError(f"{name} holds no {what}")
    return X


def match_width(X, d, name="X"):
    """Give test data the basis width d: sparse input is truncated or zero-padded
    (RLScore convention), dense input with another width is an error."""
    if X.shape[1] == d:
        return X
    if sp.issparse(X):
        if X.shape[1] > d:
            return X[:, :d]
        X = sp.csr_matrix(X, copy=True)
        X.resize((X.shape[0], d))
        return X
    raise ValueError(f"{name} has {X.shape[1]} features, the kernel's basis has {d}")


def dot_dense(X, Z):
    """X @ Z.T as a dense C-contiguous float64 ndarray, for any mix of dense/sparse."""
    if sp.issparse(X) or sp.issparse(Z):
        out = X @ Z.T
        out = out.toarray() if sp.issparse(out) else np.asarray(out)
        return np.ascontiguousarray(out, dtype=np.float64)
    return np.ascontiguousarray(X @ Z.T)


def sq_norms(X):
    """Squared Euclidean norm of each row."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def sq_distances(X, Z, nx=None, nz=None):
    """Squared Euclidean distances ||x_i - z_j||^2 as a dense (n_X, n_Z) float64 array,
    from ||x||^2 + ||z||^2 - 2 <x, z> built in place and clipped at 0 (rounding).
    ``nx``/``nz``: the squared row norms when the caller has them. O(n_X n_Z d)."""
    nx = sq_norms(X) if nx is None else nx
    nz = sq_norms(Z) if nz is None else nz
    D = dot_dense(X, Z)
    D *= -2.0
    D += nx[:, None]
    D += nz[None, :]
    np.maximum(D, 0.0, out=D)
    return D


def scale_columns(X, s):
    """X with column k multiplied by s[k] (dense or CSR, a new matrix). O(nnz)."""
    if sp.issparse(X):
        return sp.csr_matrix(X @ sp.diags(s))
    return X * s[None, :]


class KernelBase:
    """Common interface: a kernel object holds its basis data ``train_X`` and computes
    ``getKM(X)``, the (n_samples, n_basis) matrix of k(X[i], train_X[j])."""

    def _prepare(self, X):
        X = as_kernel_input(X)
        return match_width(X, self.train_X.shape[1])

    def getKM(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    def get_params(self):
        """The kernel's parameters as a dict (used for model files and estimators)."""
        return {}
