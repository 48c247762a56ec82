"""Weights of a sum of pairwise (Kronecker) kernels by centred kernel alignment.

Given kernels K1^1..K1^P on the row objects (drugs) and K2^1..K2^Q on the column objects
(targets) and labels y on s labelled pairs (r_h, c_h), the candidate pairwise kernels are
the P Q Kronecker terms restricted to the labelled pairs,

    K^(ij)[h, h'] = K1^i[r_h, r_h'] K2^j[c_h, c_h'],   term t = i Q + j.

pairwiseMKL (Cichonska et al., Bioinformatics 34:i509-i518, 2018, eqs. 11-16) chooses
nonnegative weights mu by the two-stage centred-alignment method of Cortes, Mohri and
Rostamizadeh (JMLR 13:795-828, 2012, Prop. 9):

    mu* = argmin_{mu >= 0}  mu^T M mu - 2 mu^T a,     then mu = mu* / sum(mu*),

    M[t, u] = < C K^t C, C K^u C >_F,     a[t] = < C K^t C, C y y^T C >_F,

with C = I - 1 1^T / s the centring of the labelled pairs. This module computes a and M
without forming any s x s matrix (C is idempotent, K symmetric):

    a[t]    = (C y)^T K^t (C y)                                      one vec trick
    M[t, u] = tr(K^t K^u) - (2/s) (K^t 1)^T (K^u 1) + (1^T K^t 1)(1^T K^u 1) / s^2,
    tr(K^t K^u) = 1^T [(K1^i o K1^k) (x) (K2^j o K2^l)]_SS 1          one vec trick

(o the elementwise product, (x) Kronecker, S the labelled pairs). Every product is the
generalized vec trick of :mod:`rlscore.core.structure`, O(s (n1 + n2)) or cheaper.

Differences from the pairwiseMKL code: that code centres the complete n1 n2 pair grid
(missing labels imputed by row means) and aligns with a response kernel built from a
density estimate of the labels; here only the labelled pairs enter, the response kernel
is the ideal kernel y y^T of the issue and of Cortes et al., and incomplete data need no
imputation. With complete data and the ideal kernel the two agree.
"""

import warnings

import numpy as np
from scipy.optimize import nnls

from rlscore.core.kronecker._cg import KronMinres
from rlscore._progress import stage
from rlscore.core.structure import PairwiseKernelOperator, sampled_kron_matvec
from rlscore.predictor.pairwise_predictor import KernelPairwisePredictor

__all__ = ["alignment_statistics", "alignment_weights", "centered_alignment",
           "PairwiseMKLModel", "fit_pairwise_mkl"]


def _quad_op(K1, K2, rows, cols, v):
    """[K1 (x) K2]_SS v for the labelled pairs S = (rows, cols)."""
    return sampled_kron_matvec(v, K1, K2, rows, cols, rows, cols)


def alignment_statistics(K1_list, K2_list, y, rows, cols):
    """The vector a and the matrix M of centred alignment (module docstring).

    Parameters
    ----------
    K1_list : list of P ndarray (n1, n1)
        Row-object (drug) kernels, symmetric, checked by the caller.
    K2_list : list of Q ndarray (n2, n2)
        Column-object (target) kernels.
    y : ndarray (s,)
        Labels of the labelled pairs.
    rows, cols : int ndarray (s,)
        Pair h is (rows[h], cols[h]).

    Returns
    -------
    a : ndarray (P Q,)
    M : ndarray (P Q, P Q), symmetric positive semidefinite
        Terms in row-major order: t = i Q + j for K1_list[i] (x) K2_list[j].

    Notes
    -----
    O(P^2 Q^2) sampled Kronecker products, each O(s min(n1, n2) + n1 n2)-ish (the vec
    trick chooses the cheaper order), plus O(P^2 n1^2 + Q^2 n2^2) for the elementwise
    products. Memory O(s + n1^2 + n2^2) beyond the kernels.
    """
    P, Q = len(K1_list), len(K2_list)
    T = P * Q
    s = y.shape[0]
    ones = np.ones(s)
    yc = y - y.mean()
    terms = [(i, j) for i in range(P) for j in range(Q)]
    a = np.empty(T)
    row_sums = np.empty((T, s))          # K^t 1
    for t, (i, j) in enumerate(terms):
        a[t] = yc @ _quad_op(K1_list[i], K2_list[j], rows, cols, yc)
        row_sums[t] = _quad_op(K1_list[i], K2_list[j], rows, cols, ones)
    totals = row_sums.sum(axis=1)        # 1^T K^t 1
    had1 = {}
    had2 = {}
    M = np.empty((T, T))
    for t, (i, j) in enumerate(terms):
        for u in range(t, T):
            k, l = terms[u]
            H1 = had1.setdefault((i, k), K1_list[i] * K1_list[k])
            H2 = had2.setdefault((j, l), K2_list[j] * K2_list[l])
            tr = _quad_op(H1, H2, rows, cols, ones).sum()
            M[t, u] = M[u, t] = (tr - 2.0 / s * (row_sums[t] @ row_sums[u])
                                 + totals[t] * totals[u] / s ** 2)
    return a, M


def alignment_weights(a, M):
    """Solve min_{mu >= 0} mu^T M mu - 2 mu^T a and normalize to sum(mu) = 1.

    Parameters
    ----------
    a : ndarray (T,)
    M : ndarray (T, T), symmetric positive semidefinite

    Returns
    -------
    mu : ndarray (T,), nonnegative, summing to 1
        Uniform weights, with a UserWarning, when no term aligns positively with the
        labels (the minimizer is mu = 0).

    Notes
    -----
    With M = U diag(e) U^T and R = diag(sqrt(e)) U^T over the positive eigenvalues, the
    objective is ||R mu - diag(e)^(-1/2) U^T a||^2 up to a constant, because a lies in
    the range of M (a null vector v of M gives sum_t v_t C K^t C = 0, hence v^T a = 0);
    scipy's NNLS (Lawson-Hanson active set) solves it exactly. O(T^3).
    """
    e, U = np.linalg.eigh(M)
    keep = e > max(e.max(), 0.0) * M.shape[0] * np.finfo(float).eps
    R = np.sqrt(e[keep])[:, None] * U[:, keep].T
    b = (U[:, keep].T @ a) / np.sqrt(e[keep])
    mu, _ = nnls(R, b)
    total = mu.sum()
    if not total > 0:
        warnings.warn("no Kronecker term aligns positively with the labels (every "
                      "centred alignment is <= 0): using uniform weights",
                      UserWarning, stacklevel=3)
        return np.full(a.shape[0], 1.0 / a.shape[0])
    return mu / total


def centered_alignment(a, M, y):
    """Centred alignment of each term with the ideal kernel y y^T:
    a[t] / (||C K^t C||_F ||C y y^T C||_F) = a[t] / (sqrt(M[t, t]) ||C y||^2), in [-1, 1];
    0 for a term whose centred kernel vanishes."""
    yc = y - y.mean()
    norm = np.sqrt(np.clip(np.diag(M), 0.0, None)) * (yc @ yc)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norm > 0, a / np.where(norm > 0, norm, 1.0), 0.0)


class PairwiseMKLModel:
    """A trained pairwise multiple-kernel model (the result of :func:`fit_pairwise_mkl`).

    Attributes
    ----------
    weights : ndarray (P, Q)
        weights[i, j] multiplies K1[i] (x) K2[j]; nonnegative, summing to 1.
    alignment : ndarray (P, Q)
        Centred alignment of each term with y y^T (:func:`centered_alignment`).
    active : list of (i, j)
        The terms with a positive weight, in row-major order; only they are trained on
        and evaluated at prediction.
    A : ndarray (s,)
        Dual coefficients: f(pair) = sum_h A[h] sum_(i,j) weights[i, j]
        K1[i][row, rows[h]] K2[j][col, cols[h]].
    rows, cols : int32 ndarray (s,), the training pairs
    convergence_info : int, 0 when MINRES reached ``tol``, > 0 when ``maxiter`` stopped it
    iterations : int
    predictor : KernelPairwisePredictor over the active terms
    """

    def __init__(self, weights, alignment, A, rows, cols, convergence_info, iterations):
        P, Q = weights.shape
        self.weights, self.alignment = weights, alignment
        self.active = [(i, j) for i in range(P) for j in range(Q) if weights[i, j] > 0]
        self.A, self.rows, self.cols = A, rows, cols
        self.convergence_info, self.iterations = convergence_info, iterations
        T = len(self.active)
        self.predictor = KernelPairwisePredictor(
            A, [rows] * T, [cols] * T, [weights[i, j] for i, j in self.active])

    def predict(self, K1pred, K2pred, inds_K1pred=None, inds_K2pred=None):
        """Predictions from P test-by-training kernels ``K1pred`` and Q ``K2pred``
        (lists in the training order) for the pairs (inds_K1pred[h], inds_K2pred[h]),
        or for all pairs in column-major order when both are None. One vec-trick
        product per active term."""
        P, Q = self.weights.shape
        if len(K1pred) != P or len(K2pred) != Q:
            raise ValueError(f"the model has {P} row-object and {Q} column-object "
                             f"kernels; got {len(K1pred)} and {len(K2pred)} test kernels")
        T = len(self.active)
        i1 = None if inds_K1pred is None else [inds_K1pred] * T
        i2 = None if inds_K2pred is None else [inds_K2pred] * T
        return self.predictor.predict([K1pred[i] for i, _ in self.active],
                                      [K2pred[j] for _, j in self.active], i1, i2)


def fit_pairwise_mkl(K1_list, K2_list, y, pairs, regparam, maxiter=None, tol=1e-10,
                     callback=None):
    """Learn the term weights by centred alignment, then solve the weighted Kronecker
    RLS system (sum_t mu_t K^t + regparam I) A = y with MINRES.

    Parameters
    ----------
    K1_list, K2_list, y : as in :func:`alignment_statistics` (checked by the caller)
    pairs : (rows, cols)
        The ``rows`` and ``cols`` index arrays of :func:`alignment_statistics`: the
        pair of training object indices of each label.
    regparam : float >= 0
    maxiter, tol : MINRES limits (see :class:`rlscore.core.kronecker.KronMinres`)
    callback : callable(A) after every iteration, or None

    Returns
    -------
    PairwiseMKLModel

    Notes
    -----
    The weights cost what :func:`alignment_statistics` costs; each MINRES iteration one
    vec-trick product per active term. The pairwise kernel matrix is never formed.
    """
    rows, cols = pairs
    P, Q = len(K1_list), len(K2_list)
    with stage(f"kernel alignment ({P} x {Q} terms)"):
        a, M = alignment_statistics(K1_list, K2_list, y, rows, cols)
    weights = alignment_weights(a, M).reshape(P, Q)
    alignment = centered_alignment(a, M, y).reshape(P, Q)
    active = [(i, j) for i in range(P) for j in range(Q) if weights[i, j] > 0]
    T = len(active)
    op = PairwiseKernelOperator([K1_list[i] for i, _ in active],
                                [K2_list[j] for _, j in active],
                                [rows] * T, [cols] * T, [rows] * T, [cols] * T,
                                [weights[i, j] for i, j in active])
    count = [0]

    def cb(x):
        count[0] += 1
        if callback is not None:
            callback(x)

    res = KronMinres("dual", op, y, regparam).solve(maxiter, tol, cb)
    return PairwiseMKLModel(weights, alignment, res.solution, rows, cols, res.info,
                            res.iterations)
