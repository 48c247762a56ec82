"""Pairs of objects as the samples of the pairwise estimators (PairwiseRLS,
PairwiseSVM, MultiKernelPairwiseRLS): ``X`` an integer array (n_pairs, 2) of object
indices into the two domains, checked and mapped to the training objects."""

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["check_object_pairs", "index_objects", "PairsRegressorMixin"]


def check_object_pairs(X, n1, n2):
    """``X`` of the pair estimators: an integer array (n_pairs, 2) of object indices,
    column 0 into the n1 objects of domain 1, column 1 into the n2 of domain 2, as
    int64. ValueError for another shape, no pairs or non-integers, IndexError for an
    index outside its domain. O(n_pairs)."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must be an integer array of index pairs with shape "
                         f"(n_pairs, 2), got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError("X holds no pairs")
    if not np.issubdtype(X.dtype, np.integer):
        if X.dtype == np.bool_ or not np.issubdtype(X.dtype, np.number) or \
                not np.all(np.isfinite(X)) or np.any(X != np.round(X)):
            raise ValueError("X must hold integer indices of objects in X1 and X2")
    X = X.astype(np.int64)
    for col, n, name in ((0, n1, "X1"), (1, n2, "X2")):
        lo, hi = X[:, col].min(), X[:, col].max()
        if lo < 0 or hi >= n:
            raise IndexError(f"X[:, {col}] holds index {lo if lo < 0 else hi}, outside "
                             f"the {n} objects of {name}")
    return X


def _check_pair_labels(y, n_pairs):
    """``y`` of ``fit``: one finite number per pair (a column vector is accepted), as
    float64."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1 or y.shape[0] != n_pairs:
        raise ValueError(f"y must hold one label per pair ({n_pairs}), got "
                         f"shape {y.shape}")
    if not np.issubdtype(y.dtype, np.number) or np.issubdtype(y.dtype, np.bool_):
        raise ValueError("y must be numeric")
    y = y.astype(np.float64)
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinity")
    return y


def index_objects(pairs, one_domain=False):
    """``(objects1, objects2, rows, cols)``: the sorted distinct objects of each
    domain that ``pairs`` (n_pairs, 2) refers to, and each pair's position in them
    (int32). With ``one_domain`` both columns index the same objects, so the two
    object lists are one. O(n_pairs log n_pairs)."""
    if one_domain:
        o1 = o2 = np.unique(pairs)
    else:
        o1, o2 = np.unique(pairs[:, 0]), np.unique(pairs[:, 1])
    rows = np.searchsorted(o1, pairs[:, 0]).astype(np.int32)
    cols = np.searchsorted(o2, pairs[:, 1]).astype(np.int32)
    return o1, o2, rows, cols


class PairsRegressorMixin:
    """The sample format of the pair estimators (:class:`PairwiseRLS`,
    :class:`MultiKernelPairwiseRLS`): ``X`` is an (n_pairs, 2) array of object indices
    into the domains given at construction; the preambles of ``fit`` and ``predict`` and
    the tags. ``_one_domain``: both columns index the objects of domain 1."""

    _one_domain = False

    def _training_pairs(self, X, y, n1, n2):
        """(y as float64, objects1, objects2, rows, cols) of ``fit``'s labelled pairs
        over n1 and n2 objects: the training objects of each domain and each pair's
        position in them (:func:`index_objects`)."""
        pairs = check_object_pairs(X, n1, n2)
        y = _check_pair_labels(y, pairs.shape[0])
        return (y,) + index_objects(pairs, self._one_domain)

    def _fitted_objects(self, model, o1, o2):
        """Store the trained core model and its training objects."""
        self.model_ = model
        self.objects1_, self.objects2_ = o1, o2
        self.n_features_in_ = 2

    def _test_pairs(self, X, n1, n2):
        """(test objects1, test objects2, rows, cols) of ``predict``'s pairs."""
        return index_objects(check_object_pairs(X, n1, n2), self._one_domain)

    def predict(self, X):
        """Predictions for the pairs ``X`` (n_pairs, 2) of objects of the two domains.

        Returns
        -------
        ndarray of shape (n_pairs,)
        """
        check_is_fitted(self, "model_")
        return self._predict_pairs(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = False
        tags.non_deterministic = False
        return tags
