"""Prediction intervals for pairs of complete-data Kronecker RLS from hold-out models
that :mod:`._intervals` does not cover: both objects new (setting D) and folds of
pairs (setting A's CV+), without refitting the whole model per fold.

* Both new (D): for every row fold R and column fold C, the model trained on the
  complete sub-grid of the other objects (one eigendecomposition per fold of each
  domain, O(n1^3) / O(n2^3), then O(n1 n2 (n1 + n2)) per block); its dual
  coefficients, embedded with zeros on R and C, predict the test pairs, and the pairs
  R x C are its hold-out samples. The CV+ intervals of Barber et al. (2021) then use
  one model per block (leave-one-out: one row and one column per block, n1 n2
  models -- small data only).
* Folds of pairs (A): the model trained without the pairs S has the dual coefficients
  a - G[:, S] (G_SS)^-1 a_S, zero on S (a = G y, G = (K2 kron K1 + l I)^-1: the
  Schur complement of the inverse), where (G_SS)^-1 a_S = y_S - f_S is read from the
  exact hold-out predictions f_S (:func:`kron_pairs_holdout`) and G[:, S] x is one
  product with G, O(n1 n2 (n1 + n2)).

This module gives the hold-out models (full dual, fold duals, hold-out residuals and
each sample's fold); :func:`~rlscore.core.kronecker.kron_interval_model` (``setting=
"both"``, or ``"pairs"`` with folds) makes them the
:class:`rlscore.core.rls.IntervalModel` over a
:class:`~rlscore.core.kronecker.KronIntervalPredictor`.
"""

import numpy as np

from rlscore._validation import check_index_folds, fold_membership
from rlscore.core.kronecker._factor import make_factor
from rlscore.core.kronecker._holdout import kron_both_holdout, kron_pairs_holdout

__all__ = ["kron_both_fold_models", "kron_pair_fold_models", "INTERVAL_SETTINGS"]

#: the faces' names of what a test pair is new in -> ``kron_interval_model``'s setting
INTERVAL_SETTINGS = {"pairs": "pairs", "drugs": "rows", "rows": "rows",
                     "targets": "cols", "columns": "cols", "cols": "cols",
                     "both": "both"}

_MAX_DUAL_BYTES = 2 ** 31


def _check_size(n_models, n1, n2, what):
    if 8.0 * n_models * n1 * n2 > _MAX_DUAL_BYTES:
        raise ValueError(f"{what}: {n_models} hold-out models of {n1} x {n2} dual "
                         f"coefficients need {8.0 * n_models * n1 * n2 / 2**30:.1f} GiB; "
                         f"use fewer folds (n_folds)")


def _full_model(K1, K2, Y, regparam):
    f1, f2 = make_factor("kernel", K1, "K1"), make_factor("kernel", K2, "K2")
    W = 1.0 / (np.multiply.outer(f1.e, f2.e) + regparam)
    A = f1.V @ ((f1.V.T @ Y @ f2.V) * W) @ f2.V.T
    return f1, f2, W, A


def kron_both_fold_models(K1, K2, Y, regparam, folds=None, order=None):
    """The hold-out models of complete-data Kronecker RLS for pairs whose two objects
    are both new (setting D): one per block of a row fold and a column fold.

    Parameters
    ----------
    K1, K2 : (n1, n1), (n2, n2) training kernels
    Y : (n1, n2) labels
    regparam : float > 0
    folds : (rowfolds, colfolds) or None
        Lists of index arrays partitioning the rows and the columns; None (or a None
        entry): one object per fold.
    order : (m,) vec_F position of each training sample (default vec_F)

    Returns
    -------
    A : (n1, n2) the full model's dual coefficients
    duals : (k, n1, n2) each block model's dual coefficients (zero on its rows and
        columns)
    residuals : (m,) each sample's hold-out residual, in ``order``
    fold_of : (m,) each sample's block

    Notes
    -----
    One eigendecomposition per fold of each domain and O(n1 n2 (n1 + n2)) per block
    (k1 k2 blocks); the duals take 8 k1 k2 n1 n2 bytes (refused above 2 GiB).
    """
    n1, n2 = Y.shape
    rowfolds, colfolds = (None, None) if folds is None else folds
    rowfolds = [np.array([i]) for i in range(n1)] if rowfolds is None else rowfolds
    colfolds = [np.array([j]) for j in range(n2)] if colfolds is None else colfolds
    rowfolds = check_index_folds(rowfolds, n1, "rowfolds")
    colfolds = check_index_folds(colfolds, n2, "colfolds")
    if min(len(rowfolds), len(colfolds)) < 2:
        raise ValueError("setting D needs at least two folds of each domain")
    _check_size(len(rowfolds) * len(colfolds), n1, n2, "intervals for both new")
    order = np.arange(n1 * n2) if order is None else np.asarray(order, dtype=np.intp)
    f1, f2, _, A = _full_model(K1, K2, Y, regparam)
    cache = {}
    P = kron_both_holdout(f1, f2, "kernel", Y, rowfolds, colfolds, regparam, cache=cache)
    duals = np.zeros((len(rowfolds) * len(colfolds), n1, n2))
    block = np.empty((n1, n2), dtype=np.intp)
    for r, R in enumerate(rowfolds):
        T1, g1 = cache[(f1.name, n1, R.tobytes())]       # the hold-out's decompositions
        for c, C in enumerate(colfolds):
            T2, g2 = cache[(f2.name, n2, C.tobytes())]
            W = 1.0 / (np.multiply.outer(g1.e, g2.e) + regparam)
            k = r * len(colfolds) + c
            duals[k][np.ix_(T1, T2)] = g1.V @ ((g1.V.T @ Y[np.ix_(T1, T2)] @ g2.V) * W) \
                @ g2.V.T
            block[np.ix_(R, C)] = k
    res = (Y - P).ravel(order="F")[order]
    return A, duals, res, block.ravel(order="F")[order]


def kron_pair_fold_models(K1, K2, Y, regparam, folds, order=None):
    """The hold-out models of complete-data Kronecker RLS without each of K folds of
    pairs (setting A's CV+).

    Parameters
    ----------
    K1, K2, Y, regparam, order : as in :func:`kron_both_fold_models`
    folds : list of arrays of sample indices (positions in ``order``) partitioning
        the training samples

    Returns
    -------
    A, duals, residuals, fold_of : as in :func:`kron_both_fold_models`

    Notes
    -----
    Two eigendecompositions, the exact hold-out of each fold
    (:func:`kron_pairs_holdout`: O(s^2 n1 n2) for a fold of s pairs, or conjugate
    gradients) and one product with G per fold, O(n1 n2 (n1 + n2)).
    """
    n1, n2 = Y.shape
    m = n1 * n2
    order = np.arange(m) if order is None else np.asarray(order, dtype=np.intp)
    if not isinstance(folds, (list, tuple)) or len(folds) < 2:
        raise ValueError("folds must be a list of at least two folds of samples")
    folds = check_index_folds(folds, m, "folds")
    fold_of = fold_membership(folds, m, "folds", cover=True,
                              why="; CV+ needs every training pair in one fold")
    _check_size(len(folds), n1, n2, "CV+ over folds of pairs")
    f1, f2, W, A = _full_model(K1, K2, Y, regparam)
    pos = [order[f] for f in folds]                       # vec_F positions
    pf = [(p % n1, p // n1) for p in pos]
    P = kron_pairs_holdout(f1, f2, Y, pf, regparam)
    duals = np.empty((len(folds), n1, n2))
    for k, (r, c) in enumerate(pf):
        X = np.zeros((n1, n2))
        X[r, c] = Y[r, c] - P[r, c]                       # (G_SS)^-1 a_S
        Ak = A - f1.V @ ((f1.V.T @ X @ f2.V) * W) @ f2.V.T
        Ak[r, c] = 0.0
        duals[k] = Ak
    res = (Y - P).ravel(order="F")[order]
    return A, duals, res, fold_of
