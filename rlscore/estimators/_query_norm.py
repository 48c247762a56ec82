"""Per-query feature normalization as a scikit-learn transformer."""

from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore._groups import QueryGroups
from rlscore.estimators._base import query_groups

__all__ = ["QueryNormalizer"]


class QueryNormalizer(TransformerMixin, BaseEstimator):
    """Normalize every feature within each query: LETOR's QueryLevelNorm and RankLib's
    ``-norm linear|zscore|sum``, through
    :meth:`rlscore.core.structure.QueryGroups.normalize`.

    The statistics are those of the query the rows belong to, so a new query is
    normalized by its own rows: ``transform`` needs the query ids of the rows it
    transforms (``qid`` or ``groups``) and nothing is learned in ``fit``. In a
    :class:`~sklearn.pipeline.Pipeline` pass them with scikit-learn's metadata routing
    (``sklearn.set_config(enable_metadata_routing=True)``, then
    ``QueryNormalizer().set_transform_request(qid=True)`` and
    ``RankRLS().set_fit_request(qid=True)``; ``pipe.fit(X, y, qid=q)``,
    ``pipe.predict(X_test, qid=q_test)``).

    Parameters
    ----------
    method : {"linear", "zscore", "sum"}, default="linear"
        "linear": (x - min) / (max - min) over the query (LETOR's QueryLevelNorm);
        "zscore": (x - mean) / std (ddof = 0); "sum": x / sum abs(x); a feature constant in
        a query (sum 0 for "sum") becomes 0 there.

    Notes
    -----
    O(m d) time and memory; sparse input is densified.
    """

    def __init__(self, method="linear"):
        self.method = method

    def _check_method(self):
        if self.method not in QueryGroups.NORMALIZATIONS:
            raise ValueError(f"method must be one of "
                             f"{', '.join(QueryGroups.NORMALIZATIONS)}, got "
                             f"{self.method!r}")

    def fit(self, X, y=None):
        """Check the parameters and the data; nothing is learned (see the class)."""
        self._check_method()
        validate_data(self, X, accept_sparse="csr", reset=True)
        return self

    def transform(self, X, qid=None, groups=None):
        """X with every feature normalized within each query; without query ids the
        rows are one query.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self, "n_features_in_")
        self._check_method()
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        g = query_groups(qid, groups, X.shape[0]) or QueryGroups.single(X.shape[0])
        return g.normalize(X, self.method)

    def fit_transform(self, X, y=None, qid=None, groups=None):
        return self.fit(X, y).transform(X, qid=qid, groups=groups)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.requires_fit = True
        return tags
