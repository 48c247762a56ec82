"""Greedy forward feature selection by the exact leave-one-out error of RLS, as a
scikit-learn feature selector (a thin adapter over :mod:`rlscore.core.rls`)."""

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from rlscore._validation import check_bias
from rlscore.core.rls import greedy_forward_selection
from rlscore.estimators._base import (check_alpha, linear_coef, query_groups,
                                      reports_progress, store_params, validate_fit_data,
                                      verbose_doc)

__all__ = ["GreedyRLSSelector"]


class GreedyRLSSelector(SelectorMixin, BaseEstimator):
    __doc__ = f"""Greedy forward feature selection for linear RLS (ridge regression) by the exact
    leave-one-out error, in O(k m d) time.

    Each step adds the feature that gives the smallest leave-one-out mean squared error
    of RLS (ridge regression with ``alpha`` and an intercept feature ``sqrt(bias)``)
    on the features selected so far plus that one; several targets are selected for
    jointly. The leave-one-out errors are exact, computed with rank-one updates
    (Pahikkala, Airola and Salakoski 2010) instead of retraining, so selecting k of d
    features costs about k passes over an m x d array -- the price of k ridge fits,
    where a cross-validated wrapper (``SequentialFeatureSelector``) pays for
    k d n_folds of them.

    With query ids passed to ``fit`` (``qid`` or ``groups``) the criterion is the exact
    leave-query-out error of per-query RankRLS (Greedy RankRLS): every query is
    predicted by the model trained without it and scored by its squared query-centred
    residuals.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features to select; a float in (0, 1] is a fraction of the features;
        None selects half of them (at least one). At most the number of usable
        features is selected (an int larger than that selects them all).
    alpha : float > 0, default=1.0
        Regularization parameter (RLScore's ``regparam``).
    bias : float >= 0, default=1.0
        Constant feature ``sqrt(bias)`` always in the model (its weight regularized);
        ignored with query ids (ranking models have no intercept).
{verbose_doc("one line per selected feature")}

    Attributes
    ----------
    support_ : ndarray of bool, shape (n_features,)
        The selected features (``get_support()``).
    selected_features_ : ndarray of int
        The selected features in selection order.
    performances_ : ndarray of float
        The winning criterion after each step (leave-one-out MSE, or the
        leave-query-out error).
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Weights of the RLS model on the selected features (zero elsewhere).
    intercept_ : float or ndarray of shape (n_targets,)
        Its intercept (0 with query ids).
    skipped_features_ : ndarray of int
        Features never considered: all-zero columns, constant columns when
        ``bias > 0``, columns constant within every query with query ids.
    n_features_in_ : int
    feature_names_in_ : ndarray
        When ``X`` has string column names.

    See Also
    --------
    rlscore.learner.GreedyRLS, rlscore.learner.greedy_rls.GreedyRankRLS : the
        RLScore-compatible learners.
    sklearn.feature_selection.SequentialFeatureSelector : the same search with K-fold
        cross-validation by retraining.

    Notes
    -----
    O(k m d l) time and O(m d) memory (one dense d x m cache; sparse X is not
    densified otherwise) for k selected features, m samples, d features and l targets;
    with query ids O(k d (sum_q n_q^2 + m l)). Ties go to the lowest feature index.

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import GreedyRLSSelector
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 20)); y = X[:, 3] - 2 * X[:, 7]
    >>> sel = GreedyRLSSelector(n_features_to_select=2, alpha=1e-3).fit(X, y)
    >>> sel.selected_features_
    array([7, 3])
    """

    def __init__(self, n_features_to_select=None, *, alpha=1.0, bias=1.0, verbose=False):
        store_params(self, locals())

    def _n_select(self, d):
        k = self.n_features_to_select
        if k is None:
            return max(1, d // 2)
        if isinstance(k, (bool, np.bool_)):
            raise TypeError(f"n_features_to_select must be an int, a float or None, "
                            f"got {k!r}")
        if isinstance(k, numbers.Integral):
            if k < 1:
                raise ValueError(f"n_features_to_select must be >= 1, got {k}")
            return int(min(k, d))
        if isinstance(k, numbers.Real):
            if not 0 < k <= 1:
                raise ValueError(f"a float n_features_to_select must be in (0, 1], "
                                 f"got {k!r}")
            return max(1, int(k * d))
        raise TypeError(f"n_features_to_select must be an int, a float or None, got {k!r}")

    @reports_progress
    def fit(self, X, y, qid=None, groups=None):
        """Select the features.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        qid, groups : array-like of shape (n_samples,), optional
            Query ids (give at most one of the two): select by leave-query-out.

        Returns
        -------
        self : GreedyRLSSelector

        Raises
        ------
        ValueError
            Invalid parameters, fewer than two samples, no usable feature, bad query
            ids.

        Notes
        -----
        O(k m d l); see the class notes.
        """
        alpha = check_alpha(self.alpha, positive=True)
        bias = check_bias(self.bias)
        X, y = validate_fit_data(self, X, y)
        if X.shape[0] < 2:
            raise ValueError(f"GreedyRLSSelector needs at least 2 samples, got "
                             f"n_samples = {X.shape[0]} (1 sample)")
        qids = query_groups(qid, groups, X.shape[0])
        d = X.shape[1]
        k = self._n_select(d)
        state = greedy_forward_selection(X, y, 0, alpha, bias, qids=qids,
                                         warn_skipped=False)
        if state.skipped.size:
            warnings.warn(f"{state.skipped.size} constant or all-zero feature(s) are "
                          f"skipped: {state.skipped[:20].tolist()}", UserWarning,
                          stacklevel=2)
        if state.n_candidates == 0:
            raise ValueError(f"no usable feature: all {d} are constant or all-zero")
        k = min(k, state.n_candidates)
        state.run(k)
        W, b = state.weights()
        self.selected_features_ = np.asarray(state.selected, dtype=np.intp)
        self.performances_ = np.asarray(state.performances)
        self.skipped_features_ = state.skipped
        support = np.zeros(d, dtype=bool)
        support[self.selected_features_] = True
        self.support_ = support
        self.coef_, self.intercept_ = linear_coef(W, b, y.ndim == 1)
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        return tags
