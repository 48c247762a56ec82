"""Shared machinery of the scikit-learn estimators: storing and checking parameters,
validating the training data, the kernel names and parameters, the coefficients in the
layout of the training ``y``, the adapter from (X, y, kernel parameters) to
:class:`rlscore.core.nystrom.RLSModel`, prediction, tags and pickling (pairs of objects
as samples: :mod:`rlscore.estimators._pairs`).

Nothing here computes a model: the algebra lives in :mod:`rlscore.core`.
"""


import functools
import textwrap

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.structure import QueryGroups
from rlscore.core.nystrom import ComputePlan, PlanError, fit_rls_model
from rlscore.core.selection import defined_queries, query_score
from rlscore.measure import UndefinedPerformance
from rlscore._progress import verbosity
from rlscore._validation import (NOT_GIVEN, check_bias, check_coef0, check_degree,
                                 check_gamma, check_positive_int, check_regparam, check_tol,
                                 miscoverage_argument)
from rlscore.predictor import KernelPredictor, LinearPredictor

__all__ = ["KERNEL_NAMES", "resolve_kernel", "kernel_params", "learning_degree",
           "FIXED_POLY_DEGREE", "check_alpha",
           "store_params", "clear_fitted", "validate_fit_data", "validate_predict_data",
           "linear_coef",
           "query_groups", "ranking_score", "KernelInputMixin", "RLSEstimatorBase",
           "reports_progress", "verbose_doc", "fit_data_doc", "KERNEL_INPUT_ATTRS_DOC",
           "kernel_sections_doc", "check_iteration_params", "DEGREE_DOC",
           "OneTargetRequiredMixin"]

#: Accepted ``kernel`` values (scikit-learn names and RLScore names) and the RLScore
#: kernel each one means.
KERNEL_NAMES = {
    "linear": "LinearKernel",
    "LinearKernel": "LinearKernel",
    "rbf": "GaussianKernel",
    "gaussian": "GaussianKernel",
    "GaussianKernel": "GaussianKernel",
    "poly": "PolynomialKernel",
    "polynomial": "PolynomialKernel",
    "PolynomialKernel": "PolynomialKernel",
    "precomputed": "PrecomputedKernel",
    "PrecomputedKernel": "PrecomputedKernel",
}


def resolve_kernel(kernel):
    """The RLScore kernel name meant by ``kernel``; ValueError if there is none."""
    if isinstance(kernel, str) and kernel in KERNEL_NAMES:
        return KERNEL_NAMES[kernel]
    raise ValueError(
        f"kernel must be one of {sorted(KERNEL_NAMES)}, got {kernel!r}")


#: the degree of a fixed polynomial kernel when ``degree=None`` (scikit-learn's default)
FIXED_POLY_DEGREE = 3


def kernel_params(name, n_features, gamma, degree, coef0):
    """The checked keyword parameters of the RLScore kernel ``name`` (as given by
    :func:`resolve_kernel`) other than the linear kernel's bias: ``gamma`` (None means
    ``1 / n_features``, as in scikit-learn) for the Gaussian and polynomial kernels,
    ``degree`` (None means :data:`FIXED_POLY_DEGREE`, 3, as in scikit-learn) and
    ``coef0`` for the polynomial one; {} for the others."""
    if name not in ("GaussianKernel", "PolynomialKernel"):
        return {}
    params = {"gamma": 1.0 / n_features if gamma is None else check_gamma(gamma)}
    if name == "PolynomialKernel":
        params["degree"] = check_degree(FIXED_POLY_DEGREE if degree is None else degree)
        params["coef0"] = check_coef0(coef0)
    return params


def store_params(est, params):
    """Store the constructor arguments as attributes of the same names, unchanged
    (scikit-learn's rule: ``__init__`` neither checks nor converts; ``fit`` does).
    Called first in ``__init__`` as ``store_params(self, locals())``, so that the
    signature alone lists the parameters."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(est, name, value)


def clear_fitted(est, *names):
    """Remove the fitted attributes ``names`` left by an earlier ``fit`` (those the new
    fit may not set: ``coef_`` after a linear fit, then a kernel one...)."""
    for name in names:
        est.__dict__.pop(name, None)


def _no_matrix(X):
    """np.matrix as an ndarray (scikit-learn's ``validate_data`` refuses np.matrix;
    rlscore takes it everywhere, as RLScore did). O(1), no copy."""
    return np.asarray(X) if isinstance(X, np.matrix) else X


def validate_fit_data(est, X, y, accept_sparse="csr"):
    """``X`` and ``y`` of ``fit`` by scikit-learn's ``validate_data`` (which sets
    ``n_features_in_``): float64, ``y`` one or several numeric outputs (dense); X may
    be np.matrix or scipy sparse of any format (converted to CSR)."""
    X, y = validate_data(est, _no_matrix(X), _no_matrix(y), accept_sparse=accept_sparse,
                         dtype=np.float64, multi_output=True, y_numeric=True)
    y = np.asarray(y.toarray() if sp.issparse(y) else y, dtype=np.float64)
    if y.ndim == 2 and y.shape[1] == 0:
        raise ValueError("y has no columns (shape %s)" % (y.shape,))
    return X, y


def validate_predict_data(est, X, accept_sparse="csr"):
    """``X`` of ``predict`` checked against the fitted estimator by ``validate_data``:
    float64 ndarray or CSR; np.matrix and scipy sparse matrices or arrays of any format
    (COO, CSC, LIL, DOK, DIA, BSR, ...) accepted where sparse input is. O(size of X)."""
    return validate_data(est, _no_matrix(X), reset=False, accept_sparse=accept_sparse,
                         dtype=np.float64)


def linear_coef(W, b, y_1d):
    """``(coef_, intercept_)`` of a linear model with weights ``W`` (n_features,
    n_targets) and intercepts ``b`` (n_targets,): 1-D and a float for a 1-D training
    ``y``, (n_targets, n_features) and an array otherwise (scikit-learn's layout)."""
    W = np.asarray(W)
    b = np.asarray(b, dtype=np.float64).ravel()
    if y_1d:
        return W[:, 0].copy(), float(b[0])
    return np.ascontiguousarray(W.T), b.copy()


def query_groups(qid, groups, m):
    """The :class:`rlscore.core.structure.QueryGroups` of ``qid`` or ``groups`` (one
    meaning in every estimator: the query -- or group -- id of each sample), or None
    when neither is given. Built once per ``fit``/``score`` and passed down.

    Raises
    ------
    ValueError
        Both given; a length other than m; NaN or non-integral float ids.
    TypeError
        Unhashable ids.
    """
    if qid is not None and groups is not None:
        raise ValueError("give the query ids as qid or as groups (its alias), not both")
    name = "qid" if qid is not None else "groups"
    q = qid if qid is not None else groups
    if q is None:
        return None
    if not sp.issparse(q) and not isinstance(q, (str, bytes)) \
            and hasattr(q, "__len__") and np.ndim(q) == 1 and len(q) != m:
        raise ValueError(f"{name} has length {len(q)}, but X has {m} samples: give one "
                         f"query id per sample")
    return QueryGroups.from_qids(q, m, name=name)


def ranking_score(P, y, qid=None, groups=None):
    """The ranking estimators' ``score``: the c-index of the scores ``P`` against
    ``y``, per query (the mean over the queries that have a pair,
    :func:`rlscore.core.selection.query_score`) when ``qid`` or ``groups`` is given.
    O(n log n)."""
    from rlscore.measure import cindex
    m = np.shape(P)[0]
    if sp.issparse(y):
        y = y.toarray()
    if np.shape(y)[:1] != (m,):
        raise ValueError(f"y has {np.shape(y)[0] if np.ndim(y) else 0} rows, but X "
                         f"has {m} samples")
    gr = query_groups(qid, groups, m)
    if gr is None:
        return float(cindex(y, P))
    try:
        return query_score(cindex, y, P, gr)
    except UndefinedPerformance:
        if defined_queries(cindex, y, gr).any():
            raise
        which = "their query has" if gr.n_groups == 1 else \
            f"none of their {gr.n_groups} queries has"
        raise UndefinedPerformance(
            f"the c-index is undefined on these {m} samples: {which} two different "
            f"labels (one sample, or all labels tied), so there is no pair to rank. "
            f"The library's cross-validation skips such queries; a scikit-learn "
            f"search scores such a split NaN (and then every candidate's mean): give "
            f"it cv=rlscore.estimators.QuerySplitter(splitter), which leaves these "
            f"queries out of the test sets") from None


# -- docstring fragments shared by the estimators -----------------------------------------

def verbose_doc(stages):
    """The ``verbose`` entry of an estimator's Parameters section (numpydoc, indented as
    in a class docstring): ``fit`` shows ``stages`` on stderr."""
    text = (f"Show the progress of ``fit`` on stderr ({stages}); it is logged either "
            f'way (logger ``"rlscore"``, see :mod:`rlscore._progress`).')
    return "    verbose : bool, default=False\n" + textwrap.fill(
        text, 88, initial_indent=" " * 8, subsequent_indent=" " * 8)


#: The last entries of the Attributes of the kernel estimators (RLS, RankRLS)
KERNEL_INPUT_ATTRS_DOC = """\
    X_fit_ : ndarray or sparse matrix of shape (n_basis, n_features)
        Training samples or basis vectors (rbf and poly kernels only).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of the features, when ``X`` has string column names."""


def kernel_sections_doc(kernel_params, stages):
    """The end of the Parameters of a kernel estimator -- its ``kernel_params`` entries
    and :func:`verbose_doc` of ``stages`` -- and the Attributes header."""
    return f"{kernel_params}\n{verbose_doc(stages)}\n\n    Attributes\n    ----------"


def fit_data_doc(y_doc, y_shape="(n_samples,) or (n_samples, n_targets)"):
    """The ``X`` and ``y`` entries of ``fit``'s Parameters (indented as in a method
    docstring) for an estimator with a ``kernel`` parameter; ``y_doc`` says what y
    holds."""
    return ("        X : {array-like, sparse matrix} of shape (n_samples, n_features)\n"
            '            Training data (the kernel matrix for ``kernel="precomputed"``).\n'
            f"        y : array-like of shape {y_shape}\n"
            f"            {y_doc}")


def reports_progress(fit):
    """Run an estimator's ``fit`` inside :func:`rlscore._progress.verbosity` of its
    ``verbose`` parameter: with ``verbose=True`` the stages (kernel matrix,
    factorizations, the alpha grid) and solver iterations are shown on stderr,
    otherwise they are only logged (logger ``"rlscore"``)."""
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        with verbosity(getattr(self, "verbose", False)):
            return fit(self, *args, **kwargs)
    return wrapper


def check_iteration_params(est, allow_none=True):
    """``(max_iter, tol)`` of an iterative estimator, checked: ``max_iter`` a positive
    int (or None with ``allow_none``), ``tol`` in (0, 1)."""
    return (check_positive_int(est.max_iter, "max_iter", allow_none=allow_none),
            check_tol(est.tol))


def learning_degree(degree):
    """The ``degree`` keyword for a kernel-learning search of :mod:`rlscore.core`
    (``gamma="learn"``): none for ``degree=None``, so that the core's default (2, the
    same as the learners' and the CLI's) applies; else the checked degree."""
    return {} if degree is None else {"degree": check_degree(degree)}


def check_alpha(alpha, name="alpha", positive=False):
    """``alpha`` (the regparam under its scikit-learn name), checked by
    :func:`rlscore._validation.check_regparam`; ``positive``: 0 refused too."""
    value = check_regparam(alpha, name=name)
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {alpha!r}")
    return value


#: How the estimators spell the fields of :class:`rlscore.core.nystrom.ComputePlan` that
#: they name differently (a refusal of the core names the estimator's parameter;
#: ``pcg_max_iter`` after scikit-learn's ``max_iter``).
PLAN_NAMES = {"rtol": "pcg_tol", "maxiter": "pcg_max_iter"}


def compute_plan_of(est, default=None):
    """The memory parameters an estimator takes (``memory_budget``, ``block_size``,
    ``solver``, PCG's ``pcg_tol`` and ``pcg_max_iter``, those it has) as one
    :class:`rlscore.core.nystrom.ComputePlan`, validated once (errors name the
    estimator's parameters); ``default`` (a ComputePlan, or None: the core's default
    plan) for an estimator without them. O(1)."""
    names = [k for k in ("memory_budget", "block_size", "solver") if hasattr(est, k)]
    if not names and not hasattr(est, "pcg_max_iter"):
        return default
    options = {k: getattr(est, k) for k in names}
    if hasattr(est, "pcg_max_iter"):
        options.update(rtol=est.pcg_tol, maxiter=est.pcg_max_iter)
    with PlanError.reworded(PLAN_NAMES):
        return ComputePlan.from_options(**options)


class KernelInputMixin:
    """``X`` of an estimator with a ``kernel`` parameter: a data matrix (sparse CSR
    accepted) or, for ``kernel="precomputed"``, a dense kernel matrix (scikit-learn's
    ``pairwise`` tag)."""

    def _is_precomputed(self):
        return isinstance(self.kernel, str) and \
            KERNEL_NAMES.get(self.kernel) == "PrecomputedKernel"

    def _accept_sparse(self):
        return False if self._is_precomputed() else "csr"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        precomputed = self._is_precomputed()
        tags.input_tags.sparse = not precomputed
        tags.input_tags.pairwise = precomputed
        return tags


#: The ``degree`` parameter of the estimators with a poly kernel (one wording, one
#: default rule).
DEGREE_DOC = """\
    degree : int >= 1 or None, default=None
        Degree of the poly kernel. None means 3 for a fixed poly kernel
        (scikit-learn's KernelRidge and SVR default) and 2 with ``gamma="learn"``
        (the fixed degree of kernel learning in every face: the learners, the CLI
        and :mod:`rlscore.core`, whose default it is).
"""


class OneTargetRequiredMixin:
    """scikit-learn's tags of an estimator whose ``fit`` needs one target column (the
    rankers' scores, the survival outcomes): ``y`` required, single output only."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        target = tags.target_tags
        target.required = target.single_output = True
        target.multi_output = False
        return tags


class RLSEstimatorBase(KernelInputMixin, RegressorMixin, BaseEstimator):
    """Common base of :class:`KernelRLS` and :class:`KernelRLSCV` (not public).

    Subclasses define the constructor parameters ``kernel, gamma, degree, coef0, bias,
    basis_vectors`` and call :meth:`_fit_model` from ``fit``.
    """

    # -- parameters ----------------------------------------------------------------
    def _kernel_spec(self, n_features):
        """(RLScore kernel name, kernel keyword parameters) after validation."""
        name = resolve_kernel(self.kernel)
        if name == "LinearKernel":
            return name, {"bias": check_bias(self.bias)}
        return name, kernel_params(name, n_features, self.gamma, self.degree,
                                   self.coef0)

    def _basis_params(self, cv=True):
        """The reduced-set keywords of the core model: ``basis_indices`` or
        ``n_basis`` (+ ``random_state``), and ``keep_basis_in_cv`` when ``cv``."""
        if getattr(self, "basis_indices", None) is None and \
                getattr(self, "n_basis", None) is None:
            return {}
        params = {"basis_indices": self.basis_indices, "n_basis": self.n_basis,
                  "random_state": self.random_state}
        if cv:
            params["keep_basis_in_cv"] = bool(self.keep_basis_in_cv)
        return params

    # -- fitting ---------------------------------------------------------------------
    def _validate_fit_data(self, X, y):
        return validate_fit_data(self, X, y, self._accept_sparse())

    def _compute_plan(self, default=None):
        """:func:`compute_plan_of` this estimator."""
        return compute_plan_of(self, default)

    def _fit_model(self, X, y, alpha, path, cv=None):
        """Train the core model (``X``, ``y`` already validated) and set the fitted
        attributes. ``path=True`` eigendecomposes at once (cross-validation follows:
        ``cv``, a :class:`rlscore.core.nystrom.CVIntent`). A reduced-set model streams
        when :func:`rlscore.core.nystrom.fit_rls_model` finds its in-memory arrays
        above ``memory_budget`` (said once; refused before any work when nothing
        fits)."""
        name, params = self._kernel_spec(X.shape[1])
        plan = self._compute_plan()
        with PlanError.reworded(PLAN_NAMES):
            model = fit_rls_model(X, y, alpha, name, self.basis_vectors, path=path,
                                  plan=plan, cv=cv, **self._basis_params(), **params)
        self._y_1d = y.ndim == 1
        self.model_ = model
        self._set_fitted_attributes()
        return self

    def _set_fitted_attributes(self):
        """Public coefficients from the core model's current predictor."""
        clear_fitted(self, "coef_", "intercept_", "dual_coef_", "X_fit_")
        model = self.model_
        p = model.Y.shape[1]
        predictor = model.predictor
        self.predictor_ = predictor
        self._n_targets = p
        if isinstance(predictor, LinearPredictor):
            W = np.reshape(predictor.W, (-1, p))
            b = np.broadcast_to(np.asarray(predictor.b, dtype=np.float64), (p,))
            if resolve_kernel(self.kernel) == "LinearKernel":
                self.coef_, self.intercept_ = linear_coef(W, b, self._y_1d)
            else:       # precomputed kernel: coefficients of the kernel's columns
                self.dual_coef_ = W[:, 0].copy() if self._y_1d else W.copy()
        elif isinstance(predictor, KernelPredictor):
            A = np.reshape(predictor.A, (-1, p))
            self.dual_coef_ = A[:, 0].copy() if self._y_1d else A.copy()
            self.X_fit_ = predictor.kernel.train_X
        else:  # pragma: no cover - every representation gives one of the two
            raise TypeError(f"unexpected predictor {type(predictor).__name__}")

    # -- prediction -------------------------------------------------------------------
    def predict(self, X):
        """Predict with the fitted model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples; for ``kernel="precomputed"`` the kernel matrix between the samples
            and the training samples (or the basis vectors), shape (n_samples, n_fit).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
            The same layout as the ``y`` given to ``fit``.

        Notes
        -----
        O(n_samples n_features n_targets) for the linear kernel; O(n_samples n_basis
        (n_features + n_targets)) otherwise, n_basis being the number of training
        samples or basis vectors.
        """
        check_is_fitted(self)
        X = validate_predict_data(self, X, self._accept_sparse())
        P = np.reshape(np.asarray(self.predictor_.predict(X), dtype=np.float64),
                       (X.shape[0], self._n_targets))
        return np.ascontiguousarray(P[:, 0]) if self._y_1d else P

    def predict_interval(self, X, miscoverage=0.1, method="jackknife+", *, cv=None,
                         groups=None, alpha=NOT_GIVEN):
        """Distribution-free prediction intervals (jackknife+, CV+ and variants of
        Barber et al., Ann. Statist. 2021) from the exact hold-out models of the
        fitted model: no refitting.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples, as for ``predict``.
        miscoverage : float in (0, 1), default=0.1
            Miscoverage rate: 0.1 gives 90% intervals.
        method : {"jackknife+", "jackknife", "jackknife-minmax", "cv+", "cv", \
"cv-minmax"}, default="jackknife+"
            The jackknife methods use the leave-one-out models, the cv methods the
            models trained without each fold.
        cv : int, CV splitter or iterable of (train, test), default=None
            The folds of the cv methods: their test sets must partition the training
            samples (int k: the test folds of ``KFold(k)``; ``GroupKFold`` with
            ``groups``...).
        groups : array-like of shape (n_fit_samples,), default=None
            Group labels of the training samples. Without ``cv``, each group is held
            out whole (one fold per group: whole queries, drugs...); with a splitter
            they are passed to its ``split``.
        alpha : float in (0, 1)
            Deprecated alias of ``miscoverage`` (a FutureWarning; removed in the next
            release): ``alpha`` is the regularization in the constructors.

        Returns
        -------
        y_pred, lower, upper : ndarrays of shape (n_samples,) or (n_samples, n_targets)
            The model's predictions and the interval bounds, in the layout of ``y``;
            infinite bounds when miscoverage < 1 / (n_fit_samples + 1).

        Raises
        ------
        ValueError
            For an invalid miscoverage or method, folds that do not partition the training
            samples, or an estimator restored from a pickle (refit it: the hold-out
            models need the training-time factorization).

        Notes
        -----
        The leave-one-out models cost O(m^3) once (kernels; O(m d^2) linear), then
        one GEMM (n_samples x m) by (m x m) plus O(n_samples m) selection. See
        :mod:`rlscore.core.rls`.
        """
        from rlscore.core.rls import METHODS
        check_is_fitted(self)
        alpha = miscoverage_argument(miscoverage, alpha)
        if getattr(self, "model_", None) is None:
            raise ValueError(f"this {type(self).__name__} was restored from a pickle; "
                             f"predict_interval needs the fitted core model: refit it")
        X = validate_predict_data(self, X, self._accept_sparse())
        kind = METHODS.get(method) if isinstance(method, str) else None
        if kind is None:
            raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
        model = self.model_
        if kind == "loo":
            if cv is not None or groups is not None:
                raise ValueError(f"method={method!r} holds out one sample at a time; cv "
                                 f"and groups apply to the cv methods")
            im = model.interval_model(method)
        elif cv is None:
            if groups is None:
                raise ValueError(f"method={method!r} needs cv (folds) or groups")
            im = model.interval_model(method, groups=groups)
        else:
            from rlscore.estimators._cv import _splits
            m = model.Y.shape[0]
            splits = _splits(cv, np.zeros((m, 1)), model.Y[:, 0], groups, m)
            im = model.interval_model(method, folds=[test for _, test in splits])
        res = im.predict_interval(X, alpha, method)
        return tuple(np.ascontiguousarray(r[:, 0]) if self._y_1d else r for r in res)

    # -- scikit-learn protocol -------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        return tags

    def __getstate__(self):
        # The core model holds the training-time decomposition (an m x m kernel matrix
        # and its eigenvectors or Cholesky factor); a pickle keeps only what prediction
        # needs (predictor_ and the coefficients), so model_ is None after unpickling.
        state = super().__getstate__()
        if state.get("model_") is not None:
            state = dict(state)
            state["model_"] = None
        return state
