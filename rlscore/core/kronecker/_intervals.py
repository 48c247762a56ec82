"""Prediction intervals for pairs (jackknife+ / CV+ of Barber et al. 2021) from the
exact hold-out models of complete-data Kronecker RLS, without refitting.

The intervals themselves are :class:`rlscore.core.rls.IntervalModel`'s (one home of
the order statistics); this module supplies its two inputs for a Kronecker model
(kernel mode, K1 = V1 diag(e1) V1^T, K2 = V2 diag(e2) V2^T, G = (K2 kron K1 + l I)^{-1}):

* the signed hold-out residuals of the training pairs, from the shortcuts of
  :mod:`rlscore.core.kronecker._holdout`;
* a predictor whose columns at a test pair x are the full model's prediction f(x) and
  what the hold-out models need:

  - new pairs (setting A, leave-one-pair-out): the m = n1 n2 values (G k(x))_k, so
    that f_{-k}(x) = f(x) - (G k(x))_k r_k with r_k the leave-one-out residual (the
    RLS identity with the kernel K2 kron K1); O(n1 n2 (n1 + n2)) per test pair;
  - new rows (setting B, drugs) or columns (C, targets): the predictions of the model
    trained without each fold R of rows, whose dual coefficients come from the
    rotation of ``_holdout``: with Z = Y V2 and, per eigenvector b of K2,
    G_b = V1 diag(1 / (e1 e2_b + l)) V1^T and a_b = G_b z_b, the model without rows R
    is a_b - G_b[:, R] G_b[R, R]^{-1} a_R,b (zero on R), rotated back by V2^T.
    O(n2 n1^2 len(R) + n2 len(R)^3) per fold, then O(u1 n1 n2) per fold for the
    test pairs of u1 test rows.
"""

from dataclasses import dataclass

import numpy as np

from rlscore.core.kronecker._factor import make_factor
from rlscore.core.kronecker._holdout import kron_rows_holdout
from rlscore.core.kronecker._intervals_both import kron_both_fold_models, kron_pair_fold_models
from rlscore.core.rls import IntervalModel, METHODS

__all__ = ["kron_interval_model", "KronIntervalPredictor", "IntervalScheme"]


@dataclass(frozen=True)
class IntervalScheme:
    """Which hold-out models a Kronecker prediction interval is built from.

    Attributes
    ----------
    setting : {"pairs", "rows", "cols", "both"}, default "pairs"
        ``"pairs"``: leave-one-pair-out (the jackknife methods, new pairs of known
        objects), or with ``folds`` CV+ over folds of pairs; ``"rows"`` / ``"cols"``:
        folds of whole rows / columns (the cv methods, new objects; a jackknife
        method name is read as its cv counterpart with one fold per object);
        ``"both"``: one model per block of a row fold and a column fold (setting D,
        both objects new).
    folds : list of index arrays, (rowfolds, colfolds) for "both", or None
        Rows (columns) partitioned into folds, or folds of samples (positions in
        ``order``) for "pairs"; None: one fold per object (leave-one-pair-out for
        "pairs").
    method : str, default "jackknife+"
        One of :data:`rlscore.core.rls.METHODS`.
    """
    setting: str = "pairs"
    folds: object = None
    method: str = "jackknife+"


def _fold_duals(V1, e1, V2, e2, Y, folds, regparam):
    """(K, n1, n2): dual coefficients of the models trained without each row fold."""
    W = 1.0 / (np.multiply.outer(e1, e2) + regparam)
    Z = Y @ V2
    Arot = V1 @ ((V1.T @ Z) * W)            # column b: G_b z_b
    out = np.empty((len(folds),) + Y.shape)
    for k, R in enumerate(folds):
        GR = np.einsum("ia,ab,ra->bir", V1, W, V1[R], optimize=True)   # G_b[:, R]
        sol = np.linalg.solve(GR[:, R, :], Arot[R].T[:, :, None])[:, :, 0]
        A = Arot - np.einsum("bir,br->ib", GR, sol, optimize=True)
        A[R] = 0.0
        out[k] = A @ V2.T
    return out


class KronIntervalPredictor:
    """The columns an :class:`~rlscore.core.rls.IntervalModel` reads at test pairs:
    ``predict(X)`` for X an (u, 2) array of (row of D1, row of D2) returns (u, 1 + c):
    f(x), then c hold-out columns (see the module doc).

    Parameters
    ----------
    D1, D2 : (u1, n1), (u2, n2) kernels between the test objects and the training ones
    A : (n1, n2) dual coefficients of the full model
    kind : "pairs" (G k(x) columns, with factors ``V1, e1, V2, e2`` and ``regparam``)
        or "rows" / "cols" (``fold_duals`` (K, n1, n2), the models without each fold)
    """

    def __init__(self, D1, D2, A, kind, fold_duals=None, factors=None, regparam=None,
                 order=None):
        self.D1, self.D2, self.A, self.kind = D1, D2, A, kind
        self.fold_duals = fold_duals
        self.factors = factors
        self.regparam = regparam
        self.order = order                   # vec_F position of each training sample

    def predict(self, X):
        X = np.asarray(X, dtype=np.intp).reshape(-1, 2)
        i, j = X[:, 0], X[:, 1]
        D1, D2 = self.D1, self.D2
        f = np.einsum("ua,ab,ub->u", D1[i], self.A, D2[j], optimize=True)
        if self.kind == "pairs":
            V1, e1, V2, e2 = self.factors
            W = 1.0 / (np.multiply.outer(e1, e2) + self.regparam)
            U1, U2 = D1[i] @ V1, D2[j] @ V2
            cols = np.empty((X.shape[0], self.order.size))
            for k in range(X.shape[0]):
                G = V1 @ (np.outer(U1[k], U2[k]) * W) @ V2.T
                cols[k] = G.ravel(order="F")[self.order]
            return np.column_stack([f, cols])
        if self.kind == "rows":
            cols = np.stack([np.einsum("ua,ab,ub->u", D1[i], A, D2[j], optimize=True)
                             for A in self.fold_duals], axis=1)
        else:
            cols = np.stack([np.einsum("ua,ba,ub->u", D1[i], A, D2[j], optimize=True)
                             for A in self.fold_duals], axis=1)
        return np.column_stack([f, cols])


def kron_interval_model(K1, K2, Y, regparam, D1, D2, scheme=None, order=None):
    """The :class:`~rlscore.core.rls.IntervalModel` of complete-data Kronecker RLS for
    test pairs between the test objects of ``D1`` / ``D2``.

    Parameters
    ----------
    K1, K2 : (n1, n1), (n2, n2) training kernels (their eigendecompositions are made
        here, O(n1^3 + n2^3))
    Y : (n1, n2) labels
    regparam : float > 0
    D1, D2 : (u1, n1), (u2, n2) test kernels (test objects x training objects)
    scheme : IntervalScheme or None
        The setting, its folds and the method (None: leave-one-pair-out,
        jackknife+). Settings: "pairs" (leave-one-pair-out: the jackknife methods;
        with folds, CV+ over folds of pairs: positions in ``order``), "rows" or
        "cols" (folds of whole rows / columns: the cv methods; a jackknife method name
        is read as its cv counterpart with one fold per object), or "both" (setting
        D: one model per block of a row fold and a column fold, trained without both;
        folds = (rowfolds, colfolds), None for one object per fold;
        :mod:`._intervals_both`).
    order : (m,) vec_F position (i + j n1) of each training sample; the residuals are
        in this order (default: vec_F)

    Returns
    -------
    (IntervalModel, method) -- the method as the IntervalModel names it
    """
    scheme = IntervalScheme() if scheme is None else scheme
    setting, folds, method = scheme.setting, scheme.folds, scheme.method
    if METHODS.get(method if isinstance(method, str) else None) is None:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    if setting == "both" or (setting == "pairs" and folds is not None):
        # setting D, and CV+ over folds of pairs: one model per block / fold
        build = kron_both_fold_models if setting == "both" else kron_pair_fold_models
        A, duals, res, fold_of = build(K1, K2, Y, regparam, folds, order)
        pred = KronIntervalPredictor(D1, D2, A, "rows", fold_duals=duals)
        return IntervalModel(pred, 1, "folds", res[:, None], fold_of=fold_of), \
            method.replace("jackknife", "cv")
    n1, n2 = Y.shape
    order = np.arange(n1 * n2) if order is None else np.asarray(order, dtype=np.intp)
    f1, f2 = make_factor("kernel", K1, "K1"), make_factor("kernel", K2, "K2")
    V1, e1, V2, e2 = f1.V, f1.e, f2.V, f2.e
    W = 1.0 / (np.multiply.outer(e1, e2) + regparam)
    A = V1 @ ((V1.T @ Y @ V2) * W) @ V2.T
    y = Y.ravel(order="F")[order]
    if setting == "pairs":
        if METHODS[method] != "loo":
            raise ValueError("intervals for new pairs without folds use the "
                             "leave-one-pair-out models: method 'jackknife', "
                             "'jackknife+' or 'jackknife-minmax' (the cv methods need "
                             "folds of pairs)")
        # leave-one-pair-out residual a_k / G_kk, G_kk = sum (V1^2 W V2^2^T)
        Gd = (V1 ** 2) @ W @ (V2 ** 2).T
        res = (A / Gd).ravel(order="F")[order]
        pred = KronIntervalPredictor(D1, D2, A, "pairs", factors=(V1, e1, V2, e2),
                                     regparam=regparam, order=order)
        return IntervalModel(pred, 1, "loo", res[:, None]), method
    if setting not in ("rows", "cols"):
        raise ValueError(f"setting must be 'pairs', 'rows', 'cols' or 'both', got "
                         f"{setting!r}")
    rows = setting == "rows"
    n = n1 if rows else n2
    folds = [np.array([o]) for o in range(n)] if folds is None else \
        [np.asarray(F, dtype=np.intp) for F in folds]
    if rows:
        P = kron_rows_holdout(f1, f2, Y, folds, regparam)
        duals = _fold_duals(V1, e1, V2, e2, Y, folds, regparam)
    else:
        P = kron_rows_holdout(f2, f1, Y.T, folds, regparam).T
        duals = _fold_duals(V2, e2, V1, e1, Y.T, folds, regparam)
    fold_of = np.empty(n, dtype=np.intp)
    for k, F in enumerate(folds):
        fold_of[F] = k
    obj = (order % n1) if rows else (order // n1)
    res = y - P.ravel(order="F")[order]
    pred = KronIntervalPredictor(D1, D2, A, setting, fold_duals=duals)
    cv_method = method.replace("jackknife", "cv")
    return IntervalModel(pred, 1, "folds", res[:, None], fold_of=fold_of[obj]), cv_method
