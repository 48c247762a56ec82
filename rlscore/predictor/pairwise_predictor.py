"""Pairwise (Kronecker) predictors: dual :class:`KernelPairwisePredictor` and primal
:class:`LinearPairwisePredictor`.

A pair is (object of domain 1, object of domain 2). Predictions for the full grid of
n1 x n2 test pairs come in column-major (Fortran) order, P[i + j * n1] for the pair
(row i of the domain-1 test matrix, row j of the domain-2 test matrix); with index
vectors (inds_1, inds_2), P[h] is the prediction for (inds_1[h], inds_2[h]). All
products use the generalized vec trick (:mod:`rlscore._vec_trick`, public as :mod:`rlscore.core.structure`); the pairwise
kernel matrix is never formed.
"""

import numpy as np
import scipy.sparse as sp

from rlscore._validation import check_real_dtype
from rlscore._vec_trick import (PairwiseKernelOperator, SampledKronProduct, as_terms,
                                term_indices)

__all__ = ["PairwisePredictorInterface", "KernelPairwisePredictor",
           "LinearPairwisePredictor"]


class PairwisePredictorInterface:
    """Mixin of the pairwise learners: ``predict`` forwards to ``self.predictor``."""

    def predict(self, X1=None, X2=None, inds_X1pred=None, inds_X2pred=None, pko=None, *,
                objects=None):
        """Predictions for test pairs (see the predictor's ``predict``).

        Parameters
        ----------
        X1, X2 : test data of the two domains: feature matrices (linear models) or
            test-by-training kernel matrices (kernel models); a 1-D array is one
            object; lists of them for a sum of Kronecker terms
        inds_X1pred, inds_X2pred : index vectors selecting test pairs, or None for
            every pair in column-major order
        pko : a PairwiseKernelOperator to multiply the dual coefficients with instead
        objects : None, or (objects1, objects2): the training object each test row is
            (-1: new), for a model trained on a repaired indefinite kernel (see
            :meth:`KernelPairwisePredictor.predict`)

        Raises
        ------
        ValueError
            No model yet (a learner constructed without a regparam: call ``solve``).
        """
        if getattr(self, "predictor", None) is None:
            raise ValueError(f"{type(self).__name__} has no model yet: it was constructed "
                             f"without a regparam; call solve(regparam) first")
        if objects is not None:
            return self.predictor.predict(X1, X2, inds_X1pred, inds_X2pred, pko,
                                          objects=objects)
        return self.predictor.predict(X1, X2, inds_X1pred, inds_X2pred, pko)


def _dense(X, name):
    if X is None:
        raise ValueError(f"{name} is required")
    if sp.issparse(X):
        X = X.toarray()
    X = check_real_dtype(np.asarray(X), name, "a real numeric matrix")
    if X.ndim == 1:
        X = X.reshape(1, -1)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (a 1-D array is one object), got "
                         f"{X.ndim} dimensions")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinity")
    return X


class KernelPairwisePredictor:
    """Dual pairwise model: P = (sampled K2pred kron K1pred) A.

    Parameters
    ----------
    A : array-like (n_train_pairs,)
        Dual coefficients. A[k] belongs to the training pair
        (inds_K1training[k], inds_K2training[k]); without training indices the
        training pairs are the complete grid in column-major order (k = a + b * n1).
    inds_K1training, inds_K2training : index vectors (lists of them for a sum of
        Kronecker terms), or None
    weights : term weights for a sum of Kronecker terms (default all ones)
    repairs : None, or a pair (domain 1, domain 2) of callables (lists of them, one
        per term, for a sum of Kronecker terms; None entries for no change) that map a
        test-by-training kernel to the kernel the model was trained with: a model
        trained on a repaired indefinite kernel (``indefinite="shift"`` or ``"clip"``,
        :class:`rlscore.core.kronecker.KernelRepair`) applies its repair to the test
        kernels it is given, so that predicting the training pairs gives its fitted
        values

    Attributes
    ----------
    A, inds_K1training, inds_K2training, weights, repairs

    Notes
    -----
    ``predict`` costs, per term, O(min(n1t q + n2 u, n2t q + n1 u)) with q training
    pairs and u predicted pairs (the vec trick), or dense products when either set
    of pairs is a complete grid.
    """

    def __init__(self, A, inds_K1training=None, inds_K2training=None, weights=None,
                 repairs=None):
        A = np.asarray(A, dtype=np.float64)
        if A.ndim == 2 and 1 in A.shape:
            A = A.ravel()
        if A.ndim != 1:
            raise ValueError(f"A must be a vector of dual coefficients, got shape {A.shape}")
        self.A = A
        self.inds_K1training = inds_K1training
        self.inds_K2training = inds_K2training
        self.weights = weights
        self.repairs = repairs

    def _repaired(self, Ks, side, objects):
        """The test kernels of one domain after the model's repairs (if any)."""
        if self.repairs is None:
            return Ks
        reps = self.repairs[side]
        if not isinstance(reps, (list, tuple)):
            reps = [reps] * len(Ks)
        own = None if objects is None else objects[side]
        return [K if r is None else r(K) if own is None else r(K, own)
                for K, r in zip(Ks, reps)]

    def predict(self, K1pred=None, K2pred=None, inds_K1pred=None, inds_K2pred=None,
                pko=None, *, objects=None):
        """Predictions for test pairs.

        Parameters
        ----------
        K1pred : (n1_test, n1_train) test-by-training kernel of domain 1 (1-D: one
            test object), or a list of them for several Kronecker terms
        K2pred : (n2_test, n2_train), likewise for domain 2
        inds_K1pred, inds_K2pred : test pairs (inds_K1pred[h], inds_K2pred[h]); both
            None for all n1_test * n2_test pairs in column-major order
        pko : PairwiseKernelOperator; if given, the result is ``pko.matvec(A)`` and the
            other arguments are ignored (its kernels are taken as they are: ``repairs``
            is not applied)
        objects : None or (objects1, objects2), for each row of K1pred / K2pred the
            training object it is (-1: a new object), for ``repairs`` that depend on
            object identity (``indefinite="shift"``); None matches rows instead

        Returns
        -------
        ndarray (n_pairs,)
        """
        if pko is not None:
            return np.asarray(pko.matvec(self.A)).ravel()
        K1s, K2s, (i1, i2, c1, c2), w = as_terms(
            K1pred, K2pred, [(inds_K1pred, "inds_K1pred"), (inds_K2pred, "inds_K2pred"),
                             (self.inds_K1training, "inds_K1training"),
                             (self.inds_K2training, "inds_K2training")],
            self.weights, names=("K1pred", "K2pred"))
        T = len(K1s)
        K1s = self._repaired([_dense(K, "K1pred") for K in K1s], 0, objects)
        K2s = self._repaired([_dense(K, "K2pred") for K in K2s], 1, objects)
        i1 = term_indices(i1, [K.shape[0] for K in K1s], "inds_K1pred")
        i2 = term_indices(i2, [K.shape[0] for K in K2s], "inds_K2pred")
        for t in range(T):
            _check_training_columns(K1s[t], c1[t], "K1pred", 1, t, T)
            _check_training_columns(K2s[t], c2[t], "K2pred", 2, t, T)
            if c1[t] is None and K1s[t].shape[1] * K2s[t].shape[1] != self.A.size:
                raise ValueError(
                    f"the model has {self.A.size} dual coefficients but the test kernels "
                    f"have {K1s[t].shape[1]} x {K2s[t].shape[1]} training columns")
        op = PairwiseKernelOperator(K1s if T > 1 else K1s[0], K2s if T > 1 else K2s[0],
                                    i1 if T > 1 else i1[0], i2 if T > 1 else i2[0],
                                    c1 if T > 1 else c1[0], c2 if T > 1 else c2[0], w)
        if op.shape[1] != self.A.size:
            raise ValueError(f"the model has {self.A.size} dual coefficients but the "
                             f"training indices describe {op.shape[1]} pairs")
        return op.matvec(self.A)



class LinearPairwisePredictor:
    """Primal pairwise model: P[h] = X1pred[r1[h]] W X2pred[r2[h]]^T.

    Parameters
    ----------
    W : array-like (d1 * d2,)
        vec_F of the d1 x d2 weight matrix (entry (a, b) at a + b * d1). A 2-D W of
        shape (d1, d2) is flattened in that order.
    inds_X1training, inds_X2training : stored, not used
    weights : term weights when predicting with lists of test matrices (all terms
        share W)

    Notes
    -----
    ``predict`` costs O(n1t d1 d2 + u d2) (or the other order) for u pairs, O(n1t d1 d2
    + n1t d2 n2t) for the full grid.
    """

    def __init__(self, W, inds_X1training=None, inds_X2training=None, weights=None):
        W = np.asarray(W, dtype=np.float64)
        self._shape2d = None
        if W.ndim == 2 and 1 not in W.shape:
            self._shape2d = W.shape
            W = W.ravel(order="F")
        elif W.ndim == 2:
            W = W.ravel()
        if W.ndim != 1:
            raise ValueError(f"W must be vec_F of the d1 x d2 weight matrix, got shape "
                             f"{W.shape}")
        self.W = W
        self.inds_X1training = inds_X1training
        self.inds_X2training = inds_X2training
        self.weights = weights

    def predict(self, X1pred=None, X2pred=None, inds_X1pred=None, inds_X2pred=None,
                pko=None):
        """Predictions for test pairs (see :meth:`KernelPairwisePredictor.predict`;
        here X1pred, X2pred are feature matrices with d1 and d2 columns).

        Returns
        -------
        ndarray (n_pairs,)
        """
        if pko is not None:
            return np.asarray(pko.matvec(self.W)).ravel()
        X1s, X2s, (i1, i2), w = as_terms(
            X1pred, X2pred, [(inds_X1pred, "inds_X1pred"), (inds_X2pred, "inds_X2pred")],
            self.weights, names=("X1pred", "X2pred"))
        X1s = [_dense(X, "X1pred") for X in X1s]
        X2s = [_dense(X, "X2pred") for X in X2s]
        i1 = term_indices(i1, [X.shape[0] for X in X1s], "inds_X1pred")
        i2 = term_indices(i2, [X.shape[0] for X in X2s], "inds_X2pred")
        out = None
        for t, (X1, X2) in enumerate(zip(X1s, X2s)):
            d1, d2 = X1.shape[1], X2.shape[1]
            if d1 * d2 != self.W.size:
                raise ValueError(f"W has {self.W.size} entries but the test features give "
                                 f"d1 * d2 = {d1} * {d2} = {d1 * d2}")
            prod = SampledKronProduct(X2, X1, i2[t], i1[t], None, None)
            P = w[t] * prod.matvec(self.W)
            out = P if out is None else out + P
        return out


def _check_training_columns(K, inds, name, domain, t, T):
    """ValueError unless the test kernel ``K`` has a column for every training object
    of its domain that the model's training pairs ``inds`` refer to (the message names
    the kernel's columns and the model's object count, not an index vector deep inside
    the pairwise operator). O(len(inds))."""
    if inds is None:
        return
    inds = np.asarray(inds)
    if inds.size == 0 or not np.issubdtype(inds.dtype, np.integer):
        return              # the operator's own checks name such index vectors
    n_objects = int(inds.max()) + 1
    if K.shape[1] < n_objects:
        term = f" (term {t})" if T > 1 else ""
        raise ValueError(
            f"{name}{term} has {K.shape[1]} columns, but the model was trained on "
            f"{n_objects} objects of domain {domain} (its training pairs refer to object "
            f"{n_objects - 1}): {name} must be the test-by-training kernel, one column "
            f"per training object")

