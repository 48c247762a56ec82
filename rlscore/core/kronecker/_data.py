"""The data of a complete-data Kronecker problem: the vec_F layout of pair labels,
the checks of kernels, feature matrices and label matrices, and the label and domain
transforms behind the symmetric / reciprocal pairwise kernels and conditional ranking.

The pair (i, j) of an n1 x n2 label matrix Y sits at position i + j * n1 of its label
vector vec_F(Y) (domain-1 index fastest); see :mod:`rlscore.core.kronecker` for the
conventions and :mod:`rlscore.core.structure` for the other flat order. Every function here
is O(size of its input).
"""

import numpy as np

from rlscore._validation import (as_data_matrix, check_complete_size, check_pairwise_labels,
                                 check_square_kernel)

__all__ = ["vec_f", "check_square_kernel", "check_pairwise_labels", "check_complete_size",
           "resolve_domains", "centred_domain", "symmetrize_labels", "PAIRWISE_KERNELS",
           "check_pairwise_kernel"]


def vec_f(Y):
    """Column-major flattening: entry (i, j) of an n1 x n2 matrix goes to i + j n1."""
    return np.asarray(Y).ravel(order="F")


def resolve_domains(K1=None, K2=None, X1=None, X2=None, one_domain=False):
    """Decide kernel or linear mode from the data arguments of a Kronecker learner.

    K1/K2 win over X1/X2 (RLScore's rule). With ``one_domain`` (symmetric or
    reciprocal pairwise kernels: both elements of a pair come from one set of
    objects) the second matrix may be omitted, and if given must equal the first.

    Returns
    -------
    (mode, D1, D2) with mode "kernel" (D = validated square symmetric kernels) or
    "linear" (D = feature matrices, dense or CSR).
    """
    if K1 is not None or K2 is not None:
        if K1 is None or (K2 is None and not one_domain):
            raise ValueError("give both K1 and K2 (kernel mode) or both X1 and X2 "
                             "(linear mode)")
        K1 = check_square_kernel(K1, "K1")
        if K2 is None:
            K2 = K1
        else:
            K2 = check_square_kernel(K2, "K2")
        if one_domain and (K2.shape != K1.shape or not np.allclose(K1, K2, rtol=1e-10,
                                                                     atol=0)):
            raise ValueError("symmetric and reciprocal pairwise kernels need one domain: "
                             "K2 must equal K1 (or be omitted)")
        return "kernel", K1, K2
    if X1 is not None or X2 is not None:
        if X1 is None or (X2 is None and not one_domain):
            raise ValueError("give both X1 and X2 (linear mode) or both K1 and K2 "
                             "(kernel mode)")
        X1 = as_data_matrix(X1, name="X1")
        X2 = X1 if X2 is None else as_data_matrix(X2, name="X2")
        return "linear", X1, X2
    raise ValueError("no data given: pass K1 and K2 (kernel mode) or X1 and X2 "
                     "(linear mode)")


def centred_domain(mode, D):
    """Domain data whose pairwise model is centred over the domain's objects:
    C K C for a kernel, X - mean(X) for features (C = I - 11^T/n)."""
    if mode == "kernel":
        Kc = D - D.mean(axis=0, keepdims=True)
        Kc -= Kc.mean(axis=1, keepdims=True)
        return 0.5 * (Kc + Kc.T)
    X = D.toarray() if not isinstance(D, np.ndarray) else D
    return X - X.mean(axis=0, keepdims=True)


def symmetrize_labels(Y, pairwise_kernel):
    """Labels for the symmetric (1/2 (Y + Y^T)) or reciprocal (1/2 (Y - Y^T))
    Kronecker kernel on complete one-domain data (Pahikkala et al. 2013, Prop. 4.7):
    ordinary Kronecker RLS on these labels gives the predictions of RLS with the
    symmetric / reciprocal pairwise kernel."""
    if pairwise_kernel == "kronecker":
        return Y
    if Y.shape[0] != Y.shape[1]:
        raise ValueError(f"the {pairwise_kernel} pairwise kernel needs a square label "
                         f"matrix (one domain), got {Y.shape}")
    if pairwise_kernel == "symmetric":
        return 0.5 * (Y + Y.T)
    return 0.5 * (Y - Y.T)


PAIRWISE_KERNELS = ("kronecker", "symmetric", "reciprocal")


def check_pairwise_kernel(name):
    if name not in PAIRWISE_KERNELS:
        raise ValueError(f"pairwise_kernel must be one of {PAIRWISE_KERNELS}, got {name!r}")
    return name
