"""Linear RLS and RankRLS by matrix-free conjugate gradient, as scikit-learn estimators
(thin adapters over :mod:`rlscore.core.rls`) for large sparse data."""

import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from rlscore._validation import check_bias
from rlscore.core.rankrls import cg_rankrls
from rlscore.core.rls import CGRLSOptions, cg_rls
from rlscore.core.structure import QueryGroups
from rlscore.estimators._base import (check_alpha, check_iteration_params, linear_coef,
                                      query_groups, ranking_score, reports_progress,
                                      store_params, validate_fit_data,
                                      validate_predict_data, verbose_doc)

__all__ = ["CGRLSRegressor", "CGRankRLSRanker"]


def _check_early_stopping(est):
    if not isinstance(est.early_stopping, (bool, np.bool_)):
        raise TypeError(f"early_stopping must be a bool, got {est.early_stopping!r}")
    if not est.early_stopping:
        return None
    frac = est.validation_fraction
    if isinstance(frac, (bool, np.bool_)) or not isinstance(frac, numbers.Real) \
            or not 0 < frac < 1:
        raise ValueError(f"validation_fraction must be in (0, 1), got {frac!r}")
    n = est.n_iter_no_change
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n_iter_no_change must be a positive integer, got {n!r}")
    return float(frac), int(n)


def _split(m, frac, random_state):
    rng = check_random_state(random_state)
    n_val = int(np.ceil(frac * m))
    if n_val < 1 or m - n_val < 1:
        raise ValueError(f"early_stopping needs at least 2 samples, got n_samples = {m}")
    perm = rng.permutation(m)
    return np.sort(perm[n_val:]), np.sort(perm[:n_val])


class _EarlyStop:
    """Callback: validation error of each iterate; keeps the best weights and stops
    after ``patience`` iterations without improvement."""

    def __init__(self, X_val, y_val, patience, weights, error):
        self.X_val, self.y_val = X_val, y_val
        self.patience = patience
        self.weights = weights      # iterate -> (W, b)
        self.error = error          # (y, P) -> float, smaller is better
        self.best = np.inf
        self.best_Wb = None
        self.best_iter = 0
        self.since = 0

    def __call__(self, k, x, op, residuals):
        W, b = self.weights(x, op)
        P = np.asarray(self.X_val @ W) + b
        err = self.error(self.y_val, P)
        if err < self.best:
            self.best, self.best_Wb = err, (W.copy(), b.copy())
            self.best_iter, self.since = k, 0
        else:
            self.since += 1
        return self.since >= self.patience


class _CGBase(RegressorMixin, BaseEstimator):

    def _check_solver_params(self):
        """(tol, max_iter, early stopping) checked; the parameters both share."""
        max_iter, tol = check_iteration_params(self)
        return tol, max_iter, _check_early_stopping(self)

    def _decision(self, X):
        check_is_fitted(self, "coef_")
        X = validate_predict_data(self, X)
        P = X @ self.coef_.T
        return np.asarray(P) + self.intercept_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        return tags


_COMMON_PARAMS = """\
    tol : float in (0, 1), default=1e-6
        Each output stops when its residual ``||b - S x||`` is at most ``tol ||b||``.
    max_iter : int > 0 or None, default=None
        Iteration limit (None: 10 times the system size; CG converges much sooner
        unless the problem is very ill-conditioned). A small ``max_iter`` regularizes by
        early stopping.
    precondition : {None, "jacobi"}, default=None
        Diagonal preconditioning (helps when the features have very different scales;
        the solution is the same).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the training samples, keep the iterate
        with the smallest validation error and stop after ``n_iter_no_change``
        iterations without improvement (the model is then trained on the rest).
    validation_fraction : float in (0, 1), default=0.1
    n_iter_no_change : int >= 1, default=10
    random_state : int, RandomState or None, default=None
        Seeds the validation split."""


class CGRLSRegressor(_CGBase):
    __doc__ = f"""Linear regularized least squares (ridge regression) solved by matrix-free
    conjugate gradient, for large sparse data.

    Minimizes ``||y - X w - b||^2 + alpha (||w||^2 + (b / sqrt(bias))^2)``: the
    intercept is the weight of a constant feature ``sqrt(bias)``, regularized like the
    others (``bias=0``: no intercept). Neither ``X^T X`` nor ``X X^T`` is ever formed;
    one iteration costs two passes over X. The same model as
    :class:`rlscore.estimators.KernelRLS` with the linear kernel (exactly, up to
    ``tol``).

    Parameters
    ----------
    alpha : float >= 0, default=1.0
        Regularization parameter (RLScore's ``regparam``).
    bias : float >= 0, default=1.0
    solver : {{"auto", "primal", "dual"}}, default="auto"
        Which system CG solves: primal (n_features + 1 unknowns per target) or dual
        (n_samples unknowns); "auto" takes the smaller.
{_COMMON_PARAMS}
{verbose_doc("one line per CG iteration with the residual")}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
    intercept_ : float or ndarray of shape (n_targets,)
    n_iter_ : int
        Iterations performed.
    converged_ : bool
        Whether every target reached ``tol`` (False after early stopping).
    n_features_in_ : int
    feature_names_in_ : ndarray

    See Also
    --------
    rlscore.learner.CGRLS : the RLScore-compatible learner.
    sklearn.linear_model.Ridge : ``solver="sparse_cg"`` is the same idea (with an
        unpenalized, centred intercept).

    Notes
    -----
    O(t (nnz(X) + n_samples + n_features) n_targets) time for t iterations and
    O(nnz(X) + (n_samples + n_features) n_targets) memory.
    """

    def __init__(self, alpha=1.0, *, bias=1.0, solver="auto", tol=1e-6, max_iter=None,
                 precondition=None, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, random_state=None, verbose=False):
        store_params(self, locals())

    @reports_progress
    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self : CGRLSRegressor

        Notes
        -----
        See the class notes for the cost.
        """
        alpha = check_alpha(self.alpha)
        bias = check_bias(self.bias)
        if self.solver not in ("auto", "primal", "dual"):
            raise ValueError(f"solver must be 'auto', 'primal' or 'dual', got "
                             f"{self.solver!r}")
        tol, max_iter, es = self._check_solver_params()
        X, y = validate_fit_data(self, X, y)
        y_1d = y.ndim == 1
        Y = y.reshape(-1, 1) if y_1d else y
        callback = stopper = None
        if es is not None:
            tr, va = _split(X.shape[0], es[0], self.random_state)
            stopper = _EarlyStop(X[va], Y[va], es[1],
                                 lambda x, op: op.primal_weights(x),
                                 lambda yv, P: float(np.mean((yv - P) ** 2)))
            callback = stopper
            X, Y = X[tr], Y[tr]
        W, b, res, op = cg_rls(X, Y, alpha, bias, rtol=tol, maxiter=max_iter,
                               callback=callback,
                               options=CGRLSOptions(form=self.solver,
                                                    precondition=self.precondition))
        if stopper is not None and stopper.best_Wb is not None:
            W, b = stopper.best_Wb
        self.n_iter_ = res.iterations
        self.converged_ = res.converged and not res.stopped
        self.coef_, self.intercept_ = linear_coef(W, b, y_1d)
        return self

    def predict(self, X):
        """Predict: ``X @ coef_.T + intercept_``. O(nnz(X) n_targets)."""
        return self._decision(X)


class CGRankRLSRanker(_CGBase):
    __doc__ = f"""Linear RankRLS solved by matrix-free conjugate gradient, for large sparse
    (query-structured) ranking data.

    Minimizes the magnitude-preserving pairwise squared loss
    ``sum_q (1 / n_q) sum_{{i<j in q}} ((y_i - y_j) - (f_i - f_j))^2 + alpha ||w||^2``
    over the pairs inside each query (with ``qid``/``groups`` in ``fit``), or
    ``(1 / m) sum_{{i<j}} (...)^2 + alpha ||w||^2`` over all pairs (without), by CG on
    ``(X^T L X + alpha I) w = X^T L y`` with L the per-query centering. The centering
    subtracts query means of m-vectors, so neither ``X^T X`` nor any pair is formed.
    There is no intercept (ranking scores are shift invariant). The model of
    :class:`rlscore.learner.QueryRankRLS` (with queries) and of
    :class:`rlscore.learner.GlobalRankRLS` at ``alpha * m`` (without).

    ``score`` is the c-index (query-averaged with query ids).

    Parameters
    ----------
    alpha : float >= 0, default=1.0
{_COMMON_PARAMS}
        With early stopping and queries, whole queries are held out and the
        validation error is the query-centred squared error.
{verbose_doc("one line per CG iteration with the residual")}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
    intercept_ : 0.0 or zeros of shape (n_targets,)
    n_iter_, converged_, n_features_in_, feature_names_in_

    See Also
    --------
    rlscore.learner.CGRankRLS : the RLScore-compatible learner.

    Notes
    -----
    O(t (nnz(X) + n_samples + n_features) n_targets) time for t iterations.
    """

    def __init__(self, alpha=1.0, *, tol=1e-6, max_iter=None, precondition=None,
                 early_stopping=False, validation_fraction=0.1, n_iter_no_change=10,
                 random_state=None, verbose=False):
        store_params(self, locals())

    @reports_progress
    def fit(self, X, y, qid=None, groups=None):
        """Fit the ranker.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Relevance scores.
        qid, groups : array-like of shape (n_samples,), optional
            Query ids (at most one of the two); pairs are formed inside queries only.

        Returns
        -------
        self : CGRankRLSRanker
        """
        alpha = check_alpha(self.alpha)
        tol, max_iter, es = self._check_solver_params()
        X, y = validate_fit_data(self, X, y)
        gr = query_groups(qid, groups, X.shape[0])
        codes = None if gr is None else gr.codes
        y_1d = y.ndim == 1
        Y = y.reshape(-1, 1) if y_1d else y
        callback = stopper = None
        if es is not None:
            if gr is None:
                tr, va = _split(X.shape[0], es[0], self.random_state)
                vgr = QueryGroups.single(va.size)
            else:
                if gr.n_groups < 2:
                    raise ValueError("early_stopping with query ids needs at least 2 "
                                     "queries")
                qtr, qva = _split(gr.n_groups, es[0], self.random_state)
                in_va = np.isin(gr.codes, qva)
                tr, va = np.flatnonzero(~in_va), np.flatnonzero(in_va)
                vgr = gr.subset(va)

            def centred_error(yv, P, vg=vgr):
                return float(np.mean(vg.center(yv - P) ** 2))

            stopper = _EarlyStop(X[va], Y[va], es[1],
                                 lambda x, op: (x, np.zeros(x.shape[1])), centred_error)
            callback = stopper
            X, Y = X[tr], Y[tr]
            codes = None if gr is None else gr.codes[tr]
        W, res, op, _ = cg_rankrls(X, Y, alpha, qids=codes, rtol=tol, maxiter=max_iter,
                                   precondition=self.precondition, callback=callback)
        if stopper is not None and stopper.best_Wb is not None:
            W = stopper.best_Wb[0]
        self.n_iter_ = res.iterations
        self.converged_ = res.converged and not res.stopped
        self.coef_, self.intercept_ = linear_coef(W, np.zeros(W.shape[1]), y_1d)
        return self

    def predict(self, X):
        """Ranking scores ``X @ coef_.T``. O(nnz(X) n_targets)."""
        return self._decision(X)

    def score(self, X, y, qid=None, groups=None):
        """C-index of the predictions (query-averaged with query ids; label ties are not
        pairs, prediction ties count 1/2; averaged over targets).

        Returns
        -------
        float
        """
        return ranking_score(self.predict(X), np.asarray(y, dtype=np.float64), qid,
                             groups)
