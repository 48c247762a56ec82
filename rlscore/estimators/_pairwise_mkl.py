"""Pairwise multiple-kernel RLS (learned weights of a sum of Kronecker kernels) as a
scikit-learn regressor. Samples are pairs of object indices, as in
:class:`rlscore.estimators.PairwiseRLS`."""

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from rlscore._validation import check_square_kernel
from rlscore.core.kronecker import fit_pairwise_mkl
from rlscore.estimators._base import (check_alpha,
                                      check_iteration_params, reports_progress,
                                      store_params, verbose_doc)
from rlscore.estimators._pairs import PairsRegressorMixin

__all__ = ["MultiKernelPairwiseRLS"]


def _kernels(Ks, name):
    if not isinstance(Ks, (list, tuple)) or len(Ks) == 0:
        raise ValueError(f"{name} must be a non-empty list of kernel matrices over all "
                         "objects (training and test)")
    out = [check_square_kernel(K, f"{name}[{i}]") for i, K in enumerate(Ks)]
    if any(K.shape != out[0].shape for K in out):
        raise ValueError(f"every kernel in {name} must describe the same objects "
                         f"(same size)")
    return out


class MultiKernelPairwiseRLS(PairsRegressorMixin, RegressorMixin, BaseEstimator):
    __doc__ = f"""Kronecker RLS on pairs with a learned nonnegative sum of pairwise kernels.

    The pairwise kernel of the pairs (a, b) and (c, d) is
    sum_{{i, j}} weights_[i, j] K1[i][a, c] K2[j][b, d], the weights chosen at ``fit`` by
    centred kernel alignment with the training labels (pairwiseMKL, Cichonska et al.,
    Bioinformatics 2018), then the model is trained with MINRES; see
    :class:`rlscore.learner.PairwiseMKL`, which this estimator adapts.

    Parameters
    ----------
    K1 : list of ndarray (n1, n1)
        Kernels over all objects of domain 1 (training and test), e.g. drugs.
    K2 : list of ndarray (n2, n2)
        Kernels over all objects of domain 2, e.g. targets.
    alpha : float >= 0, default=1.0
        Regularization parameter (RLScore's ``regparam``).
    max_iter : int or None, default=None
    tol : float in (0, 1), default=1e-10
{verbose_doc("kernel alignment, MINRES iterations")}

    Attributes
    ----------
    weights_ : ndarray (len(K1), len(K2))
    alignment_ : ndarray (len(K1), len(K2))
    dual_coef_ : ndarray (n_pairs,)
    n_iter_ : int
    objects1_, objects2_ : indices of the training objects of each domain
    n_features_in_ : 2

    Notes
    -----
    ``fit`` costs O(P^2 Q^2) vec-trick products over the training pairs for the weights
    plus one per active term and MINRES iteration; ``predict`` one per active term.
    """

    def __init__(self, K1=None, K2=None, *, alpha=1.0, max_iter=None, tol=1e-10,
                 verbose=False):
        store_params(self, locals())

    @reports_progress
    def fit(self, X, y):
        """Fit on the labelled pairs ``X`` (n_pairs, 2) with labels ``y``.

        Returns
        -------
        self
        """
        alpha = check_alpha(self.alpha)
        max_iter, tol = check_iteration_params(self)
        K1s, K2s = _kernels(self.K1, "K1"), _kernels(self.K2, "K2")
        y, o1, o2, rows, cols = self._training_pairs(X, y, K1s[0].shape[0],
                                                     K2s[0].shape[0])
        model = fit_pairwise_mkl([np.ascontiguousarray(K[np.ix_(o1, o1)]) for K in K1s],
                                 [np.ascontiguousarray(K[np.ix_(o2, o2)]) for K in K2s],
                                 y, (rows, cols), alpha, max_iter, tol)
        self._fitted_objects(model, o1, o2)
        self.weights_, self.alignment_ = model.weights, model.alignment
        self.dual_coef_, self.n_iter_ = model.A, model.iterations
        return self

    def _predict_pairs(self, X):
        K1s, K2s = _kernels(self.K1, "K1"), _kernels(self.K2, "K2")
        t1, t2, i, j = self._test_pairs(X, K1s[0].shape[0], K2s[0].shape[0])
        return self.model_.predict([K[np.ix_(t1, self.objects1_)] for K in K1s],
                                   [K[np.ix_(t2, self.objects2_)] for K in K2s], i, j)
