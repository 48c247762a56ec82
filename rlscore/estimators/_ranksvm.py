"""RankSVM as a scikit-learn estimator: ``fit(X, y, qid=None)``, ``predict(X)`` (scores),
``score(X, y, qid=None)`` (c-index).

A thin adapter over :mod:`rlscore.core.ranksvm` (the bundle method over the pairwise
hinge loss, or the trust-region Newton method over the squared hinge; both
evaluated in O(m log m + nnz) per iteration).
"""


import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.ranksvm import (NORMALIZATIONS, RankSVMOptions, fit_kernel_ranksvm,
                                  fit_linear_ranksvm)
from rlscore._validation import check_positive_int
from rlscore.estimators._base import (KernelInputMixin, OneTargetRequiredMixin,
                                      check_alpha, clear_fitted, fit_data_doc,
                                      kernel_params, query_groups, ranking_score,
                                      reports_progress, resolve_kernel, store_params,
                                      validate_predict_data, verbose_doc)
from rlscore.predictor import LinearPredictor

__all__ = ["RankSVM"]


class RankSVM(OneTargetRequiredMixin, KernelInputMixin, BaseEstimator):
    __doc__ = f"""Ranking SVM (pairwise hinge or squared hinge loss).

    Minimizes

        (alpha / 2) ||w||^2 + (1 / N) sum_{{(i, j): y_i > y_j, same query}}
                                   l(1 - f(x_i) + f(x_j))

    with l(r) = max(0, r) (``loss="hinge"``, bundle method) or l(r) = max(0, r)^2
    (``loss="squared_hinge"``, trust-region Newton method by default; LIBLINEAR's
    RankSVM with ``C = 1 / (alpha N)``),
    over linear f(x) = w^T x (or f in the kernel's space), N the number of pairs: pairs
    are formed only inside a query (``qid`` given to ``fit``) and tied targets are not
    pairs. Each iteration costs O(m log m + nnz) for m samples, whatever the number of
    distinct target values (Airola, Pahikkala & Salakoski 2011).

    Relation to other software: SVMrank's ``-c C`` (with n queries) gives the same model
    for ``alpha = n / (C N)``; ``LinearSVC(loss="hinge", C=C, fit_intercept=False)`` on
    the pair differences x_i - x_j for ``alpha = 1 / (C N)``.

    Parameters
    ----------
    alpha : float > 0, default=1.0
        Regularization parameter (RLScore's ``regparam``).
    tol : float in (0, 1) or None, default=None
        Bundle method: stop when the duality gap, an upper bound of the objective's
        suboptimality, is at most ``tol`` times the loss of the zero model (which is 1
        unless ``normalize="none"``); None means 1e-3. Newton method
        (``solver="newton"``): stop when ||grad J(w)|| <= ``tol`` ||grad J(0)||; None
        means 1e-10, tight enough that the model does not depend on dense or sparse
        input or on the start (``rlscore.core.ranksvm.DEFAULT_RTOL``).
    max_iter : int >= 1, default=1000
        Maximum number of bundle iterations (loss evaluations) or Newton steps; a
        ``rlscore.core.ranksvm.ConvergenceWarning`` is emitted when it is reached.
    loss : {{"hinge", "squared_hinge"}}, default="hinge"
    solver : {{"bundle", "newton"}} or None, default=None
        None: "bundle" for the hinge, "newton" for the squared hinge. "newton" with
        the hinge raises a ValueError (the hinge has no Hessian).
    normalize : {{"pairs", "query", "none"}}, default="pairs"
        Weight of the pairs: the mean over all pairs, the mean over queries of the mean
        inside each query, or the plain sum.
    kernel : {{"linear", "rbf", "poly", "precomputed"}}, default="linear"
        Non-linear kernels are trained through the empirical kernel map (Cholesky
        factor of the kernel matrix, O(m^3 / 3) time and O(m^2) memory, or the Nystrom
        features of ``basis_vectors``).
    gamma : float > 0 or None, default=None
        rbf / poly parameter; None means 1 / n_features.
    degree : int >= 1 or None, default=None
        poly degree. None means 3 for a fixed poly kernel
        (scikit-learn's KernelRidge and SVR default) and 2 with ``gamma="learn"``
        (the fixed degree of kernel learning in every face: the learners, the CLI
        and :mod:`rlscore.core`, whose default it is).
    coef0 : float, default=1
        poly constant.
    basis_vectors : array-like of shape (n_basis, n_features), default=None
        Reduced-set (Nystrom) model for the non-linear kernels.
    n_basis : int or None, default=None
        Reduced-set model with this many basis vectors drawn uniformly without
        replacement (seeded by ``random_state``): kernel RankSVM on the decomposed
        Nystrom map, O(m b^2) for the map, O(m b + m log m) per iteration.
    basis_indices : array-like of int or None, default=None
        The training samples at these indices are the basis vectors (with
        ``kernel="precomputed"`` ``X`` is the full kernel and ``predict`` takes the
        (n_test, n_samples) kernel).
    random_state : int, numpy Generator or RandomState, or None, default=None
        Seed of the basis draw of ``n_basis``.
{verbose_doc("kernel matrix, one line per solver iteration with the objective and gap")}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Weights (linear kernel).
    dual_coef_ : ndarray of shape (n_basis,)
        Dual coefficients (other kernels): scores are ``k(X, X_fit_) @ dual_coef_``.
    X_fit_ : ndarray of shape (n_basis, n_features)
        Training samples or basis vectors (rbf and poly kernels).
    n_iter_ : int
        Bundle iterations or Newton steps used.
    duality_gap_ : float
        Final duality gap (nan for the Newton method).
    objective_ : float
        Final value of the objective.
    converged_ : bool
    predictor_ : rlscore.predictor.LinearPredictor or KernelPredictor
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)

    See Also
    --------
    rlscore.learner.LinearRankSVM : the RLScore-compatible interface.
    rlscore.estimators.KernelRLS : least-squares regression.

    Notes
    -----
    Linear kernel: O(1 / (alpha tol)) iterations at worst, each O(m log m + nnz).
    ``predict`` costs O(n_samples n_features) (linear) or one kernel evaluation.

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import RankSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = X @ [1.0, -1.0, 0.0]
    >>> model = RankSVM(alpha=1e-3).fit(X, y)
    >>> model.score(X, y) > 0.95
    True
    """

    def __init__(self, alpha=1.0, *, tol=None, max_iter=1000, normalize="pairs",
                 kernel="linear", gamma=None, degree=None, coef0=1, basis_vectors=None,
                 n_basis=None, basis_indices=None, random_state=None, verbose=False,
                 loss="hinge", solver=None):
        store_params(self, locals())

    # -- parameters ---------------------------------------------------------------------
    def _check_params(self, n_features):
        alpha = check_alpha(self.alpha, positive=True)
        check_positive_int(self.max_iter, "max_iter")
        if self.normalize not in NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {NORMALIZATIONS}, got "
                             f"{self.normalize!r}")
        options = RankSVMOptions(loss=self.loss, optimizer=self.solver, rtol=self.tol,
                                 maxiter=int(self.max_iter), normalize=self.normalize,
                                 verbose=self.verbose)
        name = resolve_kernel(self.kernel)
        params = kernel_params(name, n_features, self.gamma, self.degree, self.coef0)
        return alpha, options, name, params

    # -- fitting ------------------------------------------------------------------------
    @reports_progress
    def fit(self, X, y, qid=None, groups=None):
        """Fit the ranking model.

        Parameters
        ----------
{data}
        qid : array-like of shape (n_samples,), default=None
            Query id of each sample (any hashable values; rows with equal ids form a
            query, they need not be contiguous): pairs are formed only within a query.
        groups : array-like of shape (n_samples,), default=None
            Alias of ``qid`` (scikit-learn's name, e.g. for ``GroupKFold`` and metadata
            routing); give at most one of the two.

        Returns
        -------
        self : RankSVM

        Raises
        ------
        ValueError
            Invalid parameters, NaN/inf, fewer than 2 samples, qid of the wrong length,
            or no pair to learn from (all targets equal within every query).
        """
        X, y = validate_data(self, X, y, accept_sparse=self._accept_sparse(),
                             dtype=np.float64, y_numeric=True)
        alpha, options, name, params = self._check_params(X.shape[1])
        if X.shape[0] < 2:
            raise ValueError(f"RankSVM needs at least 2 samples to form a pair, got "
                             f"{X.shape[0]} sample (n_samples = 1)")
        qid = query_groups(qid, groups, X.shape[0])
        clear_fitted(self, "coef_", "dual_coef_", "X_fit_")
        indexed = self.basis_indices is not None or self.n_basis is not None
        if indexed:
            params = dict(params, basis_indices=self.basis_indices, n_basis=self.n_basis,
                          random_state=self.random_state)
        if name == "LinearKernel" and self.basis_vectors is None and not indexed:
            sol, _ = fit_linear_ranksvm(X, y, qid, alpha, options=options)
            self.coef_ = sol.w.copy()
            self.predictor_ = LinearPredictor(sol.w, 0.0)
        else:
            sol, predictor = fit_kernel_ranksvm(
                X, y, qid, alpha, name, self.basis_vectors, options=options, **params)
            self.predictor_ = predictor
            if isinstance(predictor, LinearPredictor):
                if name == "LinearKernel":
                    self.coef_ = np.asarray(predictor.W, dtype=np.float64).ravel().copy()
                else:
                    self.dual_coef_ = np.asarray(predictor.W,
                                                 dtype=np.float64).ravel().copy()
            else:
                self.dual_coef_ = np.asarray(predictor.A, dtype=np.float64).ravel().copy()
                self.X_fit_ = predictor.kernel.train_X
        self.n_iter_ = sol.iterations
        self.duality_gap_ = float(sol.duality_gap)
        self.objective_ = float(sol.objective)
        self.converged_ = bool(sol.converged)
        return self

    fit.__doc__ = fit.__doc__.format(data=fit_data_doc(
        "Real-valued relevance of each sample (any number of distinct values).",
        "(n_samples,)"))

    # -- prediction ---------------------------------------------------------------------
    def predict(self, X):
        """Ranking scores (larger means ranked higher).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for ``kernel="precomputed"`` the kernel between them and the
            training samples (or basis vectors).

        Returns
        -------
        ndarray of shape (n_samples,)

        Notes
        -----
        O(n_samples n_features) for the linear kernel; one kernel evaluation otherwise.
        """
        check_is_fitted(self)
        X = validate_predict_data(self, X, self._accept_sparse())
        P = np.asarray(self.predictor_.predict(X), dtype=np.float64)
        return np.ascontiguousarray(P.reshape(X.shape[0]))

    decision_function = predict

    def score(self, X, y, qid=None, groups=None):
        """C-index of the scores; with ``qid`` (or its alias ``groups``) the mean of
        the per-query c-indices over the queries that have a pair (queries of one
        sample or with all labels tied are skipped) -- the number to select on with
        ``GridSearchCV`` for query-structured data. Label ties are not pairs,
        prediction ties count 1/2. UndefinedPerformance when no pair is left.
        O(n log n) after the prediction (:func:`rlscore.estimators._base.ranking_score`).

        Returns
        -------
        float
        """
        y = np.asarray(y.toarray() if sp.issparse(y) else y, dtype=np.float64).ravel()
        return ranking_score(self.predict(X), y, qid, groups)
