"""Survival rankers as scikit-learn estimators: ``fit(X, y)`` with ``y`` scikit-survival's
structured array (an event indicator and a time), ``predict(X)`` the risk scores
(higher risk = earlier event, as scikit-survival), ``score(X, y)`` Harrell's C.

:class:`SurvivalRankRLS` and :class:`SurvivalRankRLSCV` are thin adapters over
:class:`rlscore.core.survival.SurvivalRankRLSModel`, the CV estimator choosing alpha by
the exact K-fold or leave-one-out hold-out of :class:`rlscore.core.survival.SurvivalCV`
through the one grid search; :class:`SurvivalRankSVM` over
:func:`rlscore.core.survival.train_survival_ranksvm`. scikit-survival is not needed.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.ranksvm import NORMALIZATIONS, RankSVMOptions
from rlscore.core.nystrom import PlanError
from rlscore.core.survival import SurvivalCV, survival_rankrls_model, train_survival_ranksvm
from rlscore.measure import concordance_index_censored
from rlscore.measure.survival_measures import survival_outcomes
from rlscore.estimators._base import (PLAN_NAMES, KernelInputMixin, OneTargetRequiredMixin,
                                      check_alpha, clear_fitted, compute_plan_of,
                                      kernel_params,
                                      reports_progress, resolve_kernel, store_params,
                                      validate_predict_data, verbose_doc)
from rlscore.estimators._cv import _splits, search_alphas
from rlscore.estimators._rls import KernelRLSCV
from rlscore.predictor import LinearPredictor

__all__ = ["SurvivalRankRLS", "SurvivalRankRLSCV", "SurvivalRankSVM", "survival_target"]


def survival_target(y, m):
    """(event, time) of ``y``: a structured array with two fields -- the boolean one
    is the event indicator (any names; without a boolean field the first is the event,
    the second the time, scikit-survival's ``Surv.from_arrays`` layout) -- or an
    (m, 2) array of columns (event, time). ValueError naming ``y`` otherwise (NaN or
    negative times, events other than 0/1, another length than X). O(m)."""
    if sp.issparse(y):
        raise ValueError("y must be a structured array (event, time), got a sparse "
                         "matrix")
    arr = np.asarray(y)
    names = arr.dtype.names
    if names is not None and len(names) == 2:
        kinds = [arr.dtype[n].kind for n in names]
        if kinds.count("b") == 1:
            ev = names[kinds.index("b")]
            arr = (arr[ev], arr[names[1 - kinds.index("b")]])
    elif names is None:
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise ValueError(f"y must be a structured array with an event and a time "
                             f"field (sksurv.util.Surv.from_arrays) or an (n_samples, 2) "
                             f"array of columns (event, time), got shape {arr.shape}")
        arr = (arr[:, 0], arr[:, 1])
    event, time = survival_outcomes(arr, "y")
    if time.size != m:
        raise ValueError(f"y has {time.size} rows, but X has {m} samples")
    return event, time


def _fit_data(est, X, y):
    """(X validated as float64, event, time)."""
    X = validate_data(est, X, accept_sparse=est._accept_sparse(), dtype=np.float64)
    event, time = survival_target(y, X.shape[0])
    return X, event, time


class _SurvivalEstimator(OneTargetRequiredMixin, KernelInputMixin, BaseEstimator):
    """``predict`` (risk scores), ``score`` (Harrell's C) and the tags of the survival
    estimators (not public)."""

    def predict(self, X):
        """Risk scores: higher risk = earlier event (scikit-survival's convention).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for ``kernel="precomputed"`` the kernel between them and the
            training samples.

        Returns
        -------
        ndarray of shape (n_samples,)

        Notes
        -----
        O(n_samples n_features) linear; one kernel evaluation otherwise.
        """
        check_is_fitted(self, "predictor_")
        X = validate_predict_data(self, X, self._accept_sparse())
        P = np.asarray(self.predictor_.predict(X), dtype=np.float64)
        return np.ascontiguousarray(P.reshape(X.shape[0]))

    def score(self, X, y):
        """Harrell's concordance index of the risk scores
        (:func:`rlscore.measure.concordance_index_censored`, scikit-survival's rules:
        risks within 1e-8 tie and count 1/2).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : structured array (event, time) or (n_samples, 2) array, as in ``fit``

        Returns
        -------
        float

        Raises
        ------
        ValueError
            No comparable pair (every row censored, ...).

        Notes
        -----
        O(n log n) after the prediction.
        """
        P = self.predict(X)
        event, time = survival_target(y, P.shape[0])
        return float(concordance_index_censored(event, time, P)[0])


_Y_DOC = """\
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the kernel matrix for ``kernel="precomputed"``).
        y : structured array of shape (n_samples,), or array of shape (n_samples, 2)
            The outcomes: a boolean event indicator (True = the event was observed,
            False = censored at that time) and the time (>= 0), as
            ``sksurv.util.Surv.from_arrays(event, time)`` builds it (any field names;
            numpy alone: ``np.array(list(zip(event, time)), dtype=[("event", bool),
            ("time", float)])``), or the columns (event, time)."""

def _fit_doc(summary):
    """The docstring of a survival estimator's ``fit``."""
    return f"""{summary}

        Parameters
        ----------
{_Y_DOC}

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad parameters or data: NaN or negative times, events other than 0/1, no
            comparable pair (all censored).
        """


_RLS_PARAMS_DOC = """\
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
        The kernel (RLScore's names accepted too); the linear kernel has no bias: a
        constant does not change a ranking.
    gamma : float > 0 or None, default=None
        rbf / poly parameter; None means ``1 / n_features``.
    degree : int >= 1 or None, default=None
        poly degree (None: 3).
    coef0 : float, default=1
        poly constant.
    basis_vectors : array-like of shape (n_basis, n_features), default=None
        Nystrom basis vectors (rbf / poly): the reduced-set model, kept in every
        hold-out model.
    magnitudes : bool, default=False
        False: every comparable pair asks for a risk difference of 1; True: of the time
        difference (magnitude preserving)."""


class _SurvivalRankRLSBase(_SurvivalEstimator):

    def _kernel_spec(self, n_features):
        name = resolve_kernel(self.kernel)
        if name == "LinearKernel":
            return name, {"bias": 0.0}
        return name, kernel_params(name, n_features, self.gamma, self.degree,
                                   self.coef0)

    def _fit_model(self, X, event, time, alpha, plan=None):
        """The core model (``plan``: a ComputePlan whose solver is "pcg" for
        :class:`rlscore.core.survival.PCGSurvivalRankRLSModel`; else the direct one)."""
        if not isinstance(self.magnitudes, (bool, np.bool_)):
            raise TypeError(f"magnitudes must be True or False, got {self.magnitudes!r}")
        name, params = self._kernel_spec(X.shape[1])
        with PlanError.reworded(PLAN_NAMES):
            self.model_ = survival_rankrls_model(X, time, event, alpha, name,
                                                 self.basis_vectors, bool(self.magnitudes),
                                                 plan, **params)
        self._set_fitted_attributes()
        return self

    def _set_fitted_attributes(self):
        """Public coefficients from the core model's current predictor."""
        clear_fitted(self, "coef_", "dual_coef_", "X_fit_")
        pred = self.predictor_ = self.model_.predictor
        if isinstance(pred, LinearPredictor):
            W = np.asarray(pred.W, dtype=np.float64).ravel().copy()
            if resolve_kernel(self.kernel) == "LinearKernel":
                self.coef_ = W
            else:
                self.dual_coef_ = W
        else:
            self.dual_coef_ = np.asarray(pred.A, dtype=np.float64).ravel().copy()
            self.X_fit_ = pred.kernel.train_X

    def __getstate__(self):
        # the core model holds the training-time decomposition: not pickled
        state = dict(super().__getstate__())
        if state.get("model_") is not None:
            state["model_"] = None
        return state


class SurvivalRankRLS(_SurvivalRankRLSBase):
    __doc__ = f"""RankRLS on right-censored survival data (preference-graph RankRLS on
    Harrell's comparability graph); ``predict`` gives risk scores, higher risk =
    earlier event.

    Every comparable pair (i, j) -- i an observed event and t_i < t_j, or t_i == t_j
    with j censored -- asks for f(x_i) - f(x_j) = 1 (or t_j - t_i with
    ``magnitudes=True``); the model minimizes the squared pair errors plus alpha
    ||f||^2, the O(m^2) pairs never listed
    (:class:`rlscore.core.survival.SurvivalRankRLSModel`; the learner
    :class:`rlscore.learner.SurvivalRankRLS` with ``regparam = alpha``).

    Parameters
    ----------
    alpha : float >= 0, default=1.0
        Regularization parameter (RLScore's ``regparam``).
{_RLS_PARAMS_DOC}
    solver : {{"direct", "pcg"}}, default="direct"
        "pcg": the reduced-set model on ``basis_vectors`` by preconditioned CG, the
        kernel streamed by blocks, in memory O(r^2 + m + block r) instead of the
        m x r features of the direct solver (for 10^5 - 10^6 rows); the same model to
        PCG's tolerance, without exact hold-outs
        (:class:`rlscore.core.survival.PCGSurvivalRankRLSModel`). "auto" is "direct".
    pcg_tol : float in (0, 1) or None, default=None
        PCG's stopping tolerance on the relative residual (None: 1e-6). Refused, not
        ignored, with the direct solver.
    pcg_max_iter : int or None, default=None
        PCG's iteration cap (None: none; a ConvergenceWarning when it stops there).
        Refused, not ignored, with the direct solver.
{verbose_doc("kernel matrix, factorization")}

    Attributes
    ----------
    model_ : SurvivalRankRLSModel, PCGSurvivalRankRLSModel (rlscore.core.survival) or None
        The core model (the direct one: exact hold-outs, ``solve``); None after
        unpickling.
    predictor_ : LinearPredictor or KernelPredictor
    coef_ : ndarray of shape (n_features,)
        Weights (linear kernel): risk = ``X @ coef_``.
    dual_coef_ : ndarray of shape (n_fit,)
        Dual coefficients (other kernels).
    X_fit_ : training samples or basis vectors (rbf, poly)
    n_features_in_ : int

    Notes
    -----
    O(m log m) for the graph; linear O(m d^2 + d^3), kernel O(m^3), r basis vectors
    O(m r^2) (direct) or O(m r (d + 1)) per CG iteration (pcg).

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import SurvivalRankRLS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> time = rng.exponential(np.exp(-X[:, 0]))
    >>> y = np.array([(True, t) for t in time], dtype=[("event", bool), ("time", float)])
    >>> SurvivalRankRLS(alpha=1.0).fit(X, y).score(X, y) > 0.6
    True
    """

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=None, coef0=1,
                 basis_vectors=None, magnitudes=False, solver="direct", pcg_tol=None,
                 pcg_max_iter=None, verbose=False):
        store_params(self, locals())

    @reports_progress
    def fit(self, X, y):
        plan = compute_plan_of(self)
        X, event, time = _fit_data(self, X, y)
        return self._fit_model(X, event, time, check_alpha(self.alpha), plan)

    fit.__doc__ = _fit_doc("Fit the model.")


class SurvivalRankRLSCV(_SurvivalRankRLSBase):
    __doc__ = f"""Survival RankRLS with alpha chosen by exact cross-validation: the
    hold-out models are the models retrained without each fold and the fold's pairs
    (:meth:`rlscore.core.survival.SurvivalRankRLSModel.holdout`), computed for the
    whole grid at once, no refit.

    The estimate (:class:`rlscore.core.survival.SurvivalCV`, the rule of every face):
    K-fold -- the mean over the folds of each fold's Harrell's C on its own comparable
    pairs (folds without one skipped); ``cv="loo"`` -- Harrell's C of the pooled
    leave-one-out risk scores.

    Parameters
    ----------
    alphas : array-like of float >= 0, default=None
        The grid (None: 2^-15 ... 2^15, the library's default).
    cv : "loo", int, CV splitter or iterable of (train, test), default=5
        An int k: the test folds of ``KFold(k)``; every training set must be the
        complement of its test set.
    scoring : {{"cindex", "uno"}}, default="cindex"
        Harrell's C, or Uno's IPCW C (censoring distribution from all training rows).
{_RLS_PARAMS_DOC}
{verbose_doc("kernel matrix, factorization, the alpha grid")}

    Attributes
    ----------
    alpha_ : float
    best_index_ : int
    best_score_ : float
        The cross-validated C at ``alpha_``.
    cv_results_ : dict of ndarrays of shape (n_alphas,)
        ``"alphas"``, ``"cv_performances"``, ``"mean_test_score"``,
        ``"rank_test_score"``.
    model_, predictor_, coef_, dual_coef_, X_fit_, n_features_in_ : as
        :class:`SurvivalRankRLS`, at ``alpha_``.

    Notes
    -----
    One training, then the hold-out of every fold and alpha (see
    :meth:`rlscore.core.survival.SurvivalRankRLSModel.holdout`) and O(m log m) per
    alpha for the measure.
    """

    def __init__(self, alphas=None, *, cv=5, scoring="cindex", kernel="linear",
                 gamma=None, degree=None, coef0=1, basis_vectors=None, magnitudes=False,
                 verbose=False):
        store_params(self, locals())

    def _folds(self, X, event, m):
        cv = self.cv
        if isinstance(cv, str):
            if cv != "loo":
                raise ValueError(f"cv must be 'loo', an int >= 2, a CV splitter or an "
                                 f"iterable of (train, test) splits, got {cv!r}")
            return "loo"
        if isinstance(cv, (bool, np.bool_, float)):
            raise ValueError(f"cv must be 'loo', an int >= 2, a CV splitter or an "
                             f"iterable of (train, test) splits, got {cv!r}")
        splits = _splits(cv, X, event, None, m)
        if any(train.size + test.size != m for train, test in splits):
            raise ValueError("every training set of cv must be the complement of its "
                             "test set (the exact hold-out removes the test rows only)")
        return [test for _, test in splits]

    @reports_progress
    def fit(self, X, y):
        X, event, time = _fit_data(self, X, y)
        alphas = KernelRLSCV._check_alphas(self)
        folds = self._folds(X, event, X.shape[0])
        self._fit_model(X, event, time, alphas[0])
        return search_alphas(self, lambda: SurvivalCV(self.model_, folds, self.scoring),
                             alphas)

    fit.__doc__ = _fit_doc("Select alpha by exact cross-validation and fit the model "
                           "with it.")


class SurvivalRankSVM(_SurvivalEstimator):
    __doc__ = f"""Linear RankSVM on right-censored survival data; ``predict`` gives risk
    scores, higher risk = earlier event.

    Minimizes (alpha / 2) ||w||^2 + s sum_{{(i, j) comparable}} l(1 - w^T x_i + w^T x_j)
    over Harrell's comparable pairs, l the hinge (bundle method) or the squared hinge
    (trust-region Newton), s = 1 / N (``normalize="pairs"``) or 1 (``"none"``)
    (:func:`rlscore.core.survival.train_survival_ranksvm`; the learner
    :class:`rlscore.learner.SurvivalRankSVM` with ``regparam = alpha``).
    scikit-survival's ``FastSurvivalSVM(alpha=a, rank_ratio=1, fit_intercept=False)``
    is ``loss="squared_hinge", normalize="none", alpha=2 / a`` here (the same risk
    scores on distinct times).

    Parameters
    ----------
    alpha : float > 0, default=1.0
    loss : {{"hinge", "squared_hinge"}}, default="hinge"
    solver : {{"bundle", "newton"}} or None, default=None
    tol : float in (0, 1) or None, default=None
        The solver's tolerance (None: 1e-3 bundle, 1e-10 Newton).
    max_iter : int >= 1 or None, default=None
    normalize : {{"pairs", "none"}}, default="pairs"
    kernel : "linear", default="linear"
{verbose_doc("one line per solver iteration")}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    predictor_ : LinearPredictor
    n_iter_, objective_, converged_ : the solver's
    n_pairs_ : int, the comparable pairs
    n_features_in_ : int

    Notes
    -----
    O(m log m + nnz) per solver iteration.
    """

    def __init__(self, alpha=1.0, *, loss="hinge", solver=None, tol=None, max_iter=None,
                 normalize="pairs", kernel="linear", verbose=False):
        store_params(self, locals())

    @reports_progress
    def fit(self, X, y):
        if resolve_kernel(self.kernel) != "LinearKernel":
            raise ValueError(f"SurvivalRankSVM is linear: kernel must be 'linear', got "
                             f"{self.kernel!r}")
        X, event, time = _fit_data(self, X, y)
        alpha = check_alpha(self.alpha, positive=True)
        if self.normalize not in NORMALIZATIONS or self.normalize == "query":
            raise ValueError(f"normalize must be 'pairs' or 'none', got "
                             f"{self.normalize!r}")
        # the loss, optimizer and stopping rule checked once, in the estimator's words
        options = RankSVMOptions(loss=self.loss, optimizer=self.solver, rtol=self.tol,
                                 maxiter=self.max_iter, normalize=self.normalize,
                                 verbose=self.verbose)
        sol = train_survival_ranksvm(X, time, event, alpha, options=options)
        self.coef_ = np.asarray(sol.w, dtype=np.float64).ravel().copy()
        self.predictor_ = LinearPredictor(sol.w, 0.0)
        self.n_iter_ = sol.iterations
        self.objective_ = float(sol.objective)
        self.converged_ = bool(sol.converged)
        self.n_pairs_ = int(sol.n_pairs)
        return self

    fit.__doc__ = _fit_doc("Fit the model.")
