"""Kernel RLS (kernel ridge regression) as scikit-learn regressors."""

import numpy as np

from rlscore._validation import check_regparam_grid
from rlscore.core.nystrom import CVIntent
from rlscore.core.hyper import LEARNABLE_KERNELS, learn_kernel, learning_options
from rlscore.core.selection import DEFAULT_REGPARAMS
from rlscore.estimators._base import (KERNEL_INPUT_ATTRS_DOC, RLSEstimatorBase,
                                      check_alpha, clear_fitted, fit_data_doc,
                                      kernel_sections_doc, learning_degree,
                                      query_groups, reports_progress, resolve_kernel,
                                      store_params)
from rlscore.estimators._cv import make_crossvalidator, resolve_scoring, search_alphas

__all__ = ["KernelRLS", "KernelRLSCV"]

_KERNEL_PARAMS_DOC = """\
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
        The kernel. The RLScore names ``"LinearKernel"``, ``"GaussianKernel"``,
        ``"PolynomialKernel"``, ``"PrecomputedKernel"`` (and ``"gaussian"``,
        ``"polynomial"``) are accepted too.

        * ``"linear"``: k(x, z) = <x, z> + bias;
        * ``"rbf"``: k(x, z) = exp(-gamma ||x - z||^2);
        * ``"poly"``: k(x, z) = (gamma <x, z> + coef0)^degree;
        * ``"precomputed"``: ``X`` is the kernel matrix itself, (n_samples, n_samples)
          in ``fit`` and (n_test, n_samples) in ``predict``.
    gamma : float > 0 or None, default=None
        Parameter of the rbf and poly kernels; None means ``1 / n_features`` (as in
        scikit-learn). Ignored by the other kernels.
    degree : int >= 1 or None, default=None
        Degree of the poly kernel; ignored by the others. None means 3 for a fixed poly kernel
        (scikit-learn's KernelRidge and SVR default) and 2 with ``gamma="learn"``
        (the fixed degree of kernel learning in every face: the learners, the CLI
        and :mod:`rlscore.core`, whose default it is).
    coef0 : float, default=1
        Constant of the poly kernel; ignored by the others.
    bias : float >= 0, default=1.0
        Constant added to the linear kernel, i.e. the constant feature ``sqrt(bias)``
        appended to every sample. Its weight is regularized like the others, so the
        intercept is shrunk towards 0 (unlike :class:`sklearn.linear_model.Ridge`);
        ``bias=0`` gives the model without intercept of
        ``KernelRidge(kernel="linear")``. Ignored by the other kernels.
"""

_STREAM_PARAMS_DOC = """\
    memory_budget : "auto", float (MiB) or None, default="auto"
        A reduced-set model (``n_basis`` / ``basis_indices`` / ``basis_vectors``) is
        fitted by streaming blocks of rows (:class:`rlscore.core.nystrom.StreamedRLSModel`
        over :class:`rlscore.core.nystrom.StreamedReducedSet`: the same model and
        cross-validation to rounding, O(b^2 + block b + m p) memory instead of the
        m x b arrays) when its in-memory arrays -- with cross-validation, also the
        leave-one-out / hold-out arrays -- would exceed this budget; "auto" is half the
        available memory, None never streams. The switch is reported once through
        :mod:`rlscore._progress`; when even streaming cannot fit, ``fit`` raises a
        ValueError naming the estimate and the ways out, before any work. The decision
        and the estimates: :func:`rlscore.core.nystrom.plan_reduced_set`.
    block_size : int or None, default=None
        Rows per block when streaming (default: from the budget).
    solver : {"auto", "direct", "pcg"}, default="auto"
        "direct": in memory or streamed, exact; "pcg": Falkon's preconditioned
        conjugate gradients (many basis vectors, one alpha; always streamed); "auto":
        direct, or PCG when only PCG fits the budget and no cross-validation follows.
"""

_PCG_PARAMS_DOC = """\
    pcg_tol : float in (0, 1) or None, default=None
        PCG's stopping tolerance on the relative residual (None: 1e-6). Refused, not
        ignored, when the model is trained by the direct solver.
    pcg_max_iter : int or None, default=None
        PCG's iteration cap (None: none; a ConvergenceWarning when it stops there).
        Refused, not ignored, when the model is trained by the direct solver.
"""

_BASIS_PARAMS_DOC = """\
    basis_vectors : {array-like, sparse matrix} of shape (n_basis, n_features), \
default=None
        Reduced-set (Nystrom) model: the predictor is a combination of the kernel
        functions of these rows only, trained on all samples. With
        ``kernel="precomputed"``, ``X`` is then the (n_samples, n_basis) kernel between
        the samples and the basis vectors and ``basis_vectors`` the (n_basis, n_basis)
        kernel of the basis vectors.
    n_basis : int or None, default=None
        Reduced-set model with this many basis vectors drawn uniformly without
        replacement from the training samples (``random_state`` seeds the draw).
    basis_indices : array-like of int or None, default=None
        Reduced-set model with the training samples at these indices as basis vectors
        (with ``kernel="precomputed"``, ``X`` is the full (n_samples, n_samples) kernel
        and ``predict`` takes the (n_test, n_samples) kernel). With ``n_basis`` or
        ``basis_indices`` the basis is known, and every cross-validation (the
        ``model_`` shortcuts ``holdout``, ``leave_one_out``, ``leave_pair_out``; the
        CV estimators with any ``cv``, "lpo" included) removes the held-out basis
        vectors: the estimate equals retraining with the reduced basis (Airola et al.
        2011). With ``basis_vectors`` the basis is kept.
    random_state : int, numpy Generator or RandomState, or None, default=None
        Seed of the basis draw of ``n_basis``.
    keep_basis_in_cv : bool, default=False
        Keep held-out basis vectors in every cross-validation (the held-out samples
        then act as basis vectors, which biases the estimate: pessimistic at small
        alpha on grouped data). Only with ``n_basis`` / ``basis_indices``."""

_KERNEL_PARAMS_DOC += _BASIS_PARAMS_DOC

_FITTED_ATTRS_DOC = """\
    model_ : rlscore.core.nystrom.RLSModel or None
        The core model after ``fit``, with its exact shortcuts (``solve(alpha)``,
        ``holdout(indices)``, ``leave_one_out()``, ``leave_pair_out(starts, ends)``;
        2-D outputs). It keeps the training-time factorization, so it is not pickled:
        after unpickling it is None (prediction does not need it).
    predictor_ : rlscore.predictor.LinearPredictor or KernelPredictor
        The trained predictor.
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Weights (linear kernel only).
    intercept_ : float or ndarray of shape (n_targets,)
        ``sqrt(bias)`` times the weight of the bias feature (linear kernel only).
    dual_coef_ : ndarray of shape (n_basis,) or (n_basis, n_targets)
        Dual coefficients (kernels other than linear): the predictions are
        ``k(X, X_fit_) @ dual_coef_``; n_basis is n_samples, or the number of basis
        vectors.
"""
_FITTED_ATTRS_DOC += KERNEL_INPUT_ATTRS_DOC


class KernelRLS(RLSEstimatorBase):
    __doc__ = f"""Regularized least-squares (kernel ridge) regression.

    Minimizes ``||y - K a||^2 + alpha a^T K a`` over the dual coefficients ``a``
    (equivalently ``||y - X w||^2 + alpha ||w||^2`` for the linear kernel), for one or
    several outputs at once. A thin adapter over :class:`rlscore.core.nystrom.RLSModel`.

    Parameters
    ----------
    alpha : float >= 0, default=1.0
        Regularization parameter (RLScore's ``regparam``).
{kernel_sections_doc(_KERNEL_PARAMS_DOC + _STREAM_PARAMS_DOC + _PCG_PARAMS_DOC,
                     "kernel matrix, factorization")}
{_FITTED_ATTRS_DOC}

    See Also
    --------
    KernelRLSCV : the same model with alpha chosen by exact fast cross-validation.
    rlscore.learner.RLS : the RLScore-compatible interface.
    sklearn.kernel_ridge.KernelRidge : the same model for ``bias=0`` (linear) and the
        rbf and poly kernels.

    Notes
    -----
    Training costs, for m samples, d features and p outputs:

    * linear kernel with d + 1 <= m: O(m d^2 + d^3) (primal, Cholesky of X^T X),
      or O(nnz d + d^3) for sparse X; with d + 1 > m the dual O(m^2 d + m^3 / 3);
    * rbf, poly and precomputed kernels: O(m^2 d) for the kernel matrix and
      O(m^3 / 3) for its Cholesky factorization; O(m^2) memory;
    * with b basis vectors: O(m b d + m b^2 + b^3).

    ``predict`` costs O(n d p) (linear) or O(n m d + n m p) (kernels), m replaced by b
    for a reduced-set model.

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import KernelRLS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3)); y = X @ [1.0, -2.0, 0.5]
    >>> model = KernelRLS(alpha=1e-3).fit(X, y)
    >>> model.coef_.round(2)
    array([ 1. , -2. ,  0.5])
    """

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=None, coef0=1,
                 bias=1.0, basis_vectors=None,
                 n_basis=None, basis_indices=None, random_state=None,
                 keep_basis_in_cv=False, memory_budget="auto", block_size=None,
                 solver="auto", pcg_tol=None, pcg_max_iter=None, verbose=False):
        store_params(self, locals())

    @reports_progress
    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
{data}

        Returns
        -------
        self : KernelRLS

        Raises
        ------
        ValueError
            For an invalid parameter value (negative or non-finite alpha, unknown
            kernel, ...) or invalid data.
        TypeError
            For a parameter of the wrong type.

        Notes
        -----
        One factorization: see the class notes for the cost.
        """
        alpha = check_alpha(self.alpha)
        X, y = self._validate_fit_data(X, y)
        return self._fit_model(X, y, alpha, path=False)

    fit.__doc__ = fit.__doc__.format(data=fit_data_doc("Targets."))


_LEARN_PARAMS_DOC = """
    ard : bool, default=False
        Used with ``gamma="learn"``, which (rbf and poly kernels, ``cv="loo"``, no
        reduced set) learns gamma -- for poly also coef0 > 0 -- and alpha with it by
        minimizing a selection criterion with its gradient (``criterion``: by default
        the exact leave-one-out mean squared error, with ``ard=True`` the evidence;
        :func:`rlscore.core.hyper.learn_kernel`; no grid, ``alphas`` must be None).
        ``ard=True`` (rbf): one gamma per feature (automatic relevance
        determination); ``gamma_`` is then an array and ``length_scales_`` shows
        which features matter (an irrelevant one goes to the upper bound).
    penalty : float >= 0 or "bayes", default=0.0
        With ``gamma="learn"``: weight of Cawley & Talbot's penalty on the widths
        (against over-fitting the criterion with many ARD widths), or ``"bayes"``:
        their regularization with the weight integrated out (no weight to choose; see
        :func:`rlscore.core.hyper.learn_kernel`).
    criterion : {"auto", "loo", "evidence"}, default="auto"
        With ``gamma="learn"``: what the gradient search minimizes, the exact
        leave-one-out error or the Gaussian-process evidence (marginal likelihood) of
        the same model. ``"auto"``: the evidence with ``ard=True`` (unless a
        ``penalty`` is given), the leave-one-out error with one gamma. With many
        widths on few examples the leave-one-out error is fitted below its
        expectation and the widths over-fit it (on 80 rows of Friedman #1 with 10
        widths its test error was 1.5-2.1 times a Gaussian process's); the evidence charges
        the model's complexity through log det(K + alpha I) and stays with the
        Gaussian process (:func:`rlscore.core.hyper.learn_kernel`).
        ``best_score_`` is the leave-one-out score at the learned point either way."""


#: fitted attributes of ``gamma="learn"`` (removed at the start of every ``fit``)
LEARNED_ATTRS = ("gamma_", "coef0_", "length_scales_", "learning_history_", "criterion_")


def learned_kernel_spec(est):
    """``(name, params)`` of the kernel an estimator with ``gamma="learn"`` learned in
    this ``fit``, or None (then ``gamma`` and ``ard`` are checked: a string other than
    "learn", a non-bool ``ard`` or ``ard=True`` without learning are refused)."""
    learned = getattr(est, "_learned_params", None)
    if est._learns() and learned is not None:
        return resolve_kernel(est.kernel), dict(learned)
    if isinstance(est.gamma, str):
        raise ValueError(f"gamma must be a number > 0, None or 'learn', got "
                         f"{est.gamma!r}")
    if not isinstance(est.ard, (bool, np.bool_)):
        raise TypeError(f"ard must be True or False, got {est.ard!r}")
    if est.ard:
        raise ValueError("ard=True needs gamma='learn'")
    return None


def fit_learned_kernel(est, search, check=None):
    """``gamma="learn"`` of a CV estimator (KernelRLSCV, RankRLSCV): refuse the
    combinations it excludes (other kernels, an ``alphas`` grid, reduced-set models;
    ``check()`` for the estimator's own), run the core ``search(name, ard=, degree=,
    penalty=[, criterion=])`` (a :class:`rlscore.core.hyper.KernelLearningResult`;
    ``criterion`` when the estimator has one), set
    ``gamma_``, ``length_scales_`` or ``coef0_``, ``learning_history_`` and
    ``criterion_``, and return the learned alpha. O(1) beyond the search."""
    name = resolve_kernel(est.kernel)
    if name not in LEARNABLE_KERNELS:
        raise ValueError(f"gamma='learn' needs kernel='rbf' or 'poly', got "
                         f"kernel={est.kernel!r}")
    if check is not None:
        check()
    if est.alphas is not None:
        raise ValueError("gamma='learn' learns alpha too: alphas must be None")
    if (est.basis_vectors is not None or est.n_basis is not None
            or est.basis_indices is not None):
        raise ValueError("gamma='learn' is not available for reduced-set models "
                         "(basis_vectors, n_basis, basis_indices)")
    if not isinstance(est.ard, (bool, np.bool_)):
        raise TypeError(f"ard must be True or False, got {est.ard!r}")
    extra = {} if getattr(est, "criterion", None) is None else {
        "criterion": est.criterion}
    res = search(name, ard=bool(est.ard), penalty=est.penalty,
                 **learning_degree(est.degree), **extra)
    est._learned_params = dict(res.kernel_params)
    est.gamma_ = res.kernel_params["gamma"]
    if name == "GaussianKernel":
        est.length_scales_ = res.length_scales if est.ard else float(res.length_scales)
    else:
        est.coef0_ = res.kernel_params["coef0"]
    est.learning_history_ = res.history
    est.criterion_ = float(res.criterion)
    return res.regparam


def learned_attrs_doc(criterion):
    """The fitted-attribute entries of ``gamma="learn"`` (docstring fragment), the
    minimized ``criterion`` named."""
    return f"""\
    gamma_ : float or ndarray of shape (n_features,)
        With ``gamma="learn"``: the learned gamma (per feature with ``ard=True``).
    coef0_ : float
        With ``gamma="learn"`` and the poly kernel: the learned coef0.
    length_scales_ : float or ndarray of shape (n_features,)
        With ``gamma="learn"`` and the rbf kernel: ``1 / sqrt(2 gamma_)``.
    learning_history_ : list of dict
        With ``gamma="learn"``: per optimizer step (of every start, in order) its
        ``criterion`` ({criterion}), ``grad_norm``, ``regparam`` (alpha),
        ``kernel_params`` and ``best`` (True for the one entry at the learned point;
        the last entry is the last step of the last start, not the optimum).
    criterion_ : float
        With ``gamma="learn"``: the minimized criterion at the learned point (the
        lowest over the starts; the ``best`` entry of ``learning_history_``)."""


#: what ``criterion_`` / ``learning_history_`` of KernelRLSCV hold
_LEARN_CRITERION_DOC = ("the LOO mean squared error, or with the evidence the negative "
                        "log marginal likelihood per example")


class KernelRLSCV(RLSEstimatorBase):
    __doc__ = f"""Regularized least-squares (kernel ridge) regression with alpha chosen
    by exact fast cross-validation.

    The model is decomposed once; every alpha of the grid then costs a fraction of a
    training and every cross-validation estimate is computed with the exact hold-out
    shortcuts of :class:`rlscore.core.nystrom.RLSModel` -- no model is ever retrained. The
    result equals retraining on every split (up to rounding). The final model is the
    one trained on all the data with the best alpha.

    Parameters
    ----------
    alphas : array-like of float >= 0, default=None
        The grid of regularization parameters, searched in the given order (the first
        best wins; a value given twice is refused); None means ``2**-15, 2**-14, ...,
        2**15``.
    cv : "loo", "lpo", int, CV splitter or iterable of (train, test), default="loo"
        * ``"loo"``: leave-one-out (:class:`rlscore.core.selection.LOOCV`);
        * ``"lpo"``: leave-pair-out: every pair of samples with different targets is
          held out in turn and the estimate is the fraction of them the model orders
          correctly (the c-index / AUC estimate of Airola et al. 2011),
          :class:`rlscore.core.selection.LPOCV`; averaged over outputs;
        * int k: the test folds of ``sklearn.model_selection.KFold(k)`` (not
          shuffled), :class:`rlscore.core.selection.NfoldCV`;
        * a scikit-learn splitter (``KFold(shuffle=True)``, ``GroupKFold`` with
          ``groups`` given to ``fit``, ...) or an iterable of (train, test) index
          arrays. When a training set is not the complement of its test set (e.g.
          ``TimeSeriesSplit``) every row outside it is held out at once and the
          measure is taken on the test rows.

        For K-fold and splitters the estimate is the unweighted mean of the per-fold
        performances.
    scoring : None, str or callable, default=None
        The rlscore measure (a function ``f(Y, P)`` with a boolean attribute
        ``iserror``, e.g. :func:`rlscore.measure.sqerror`, or a name of the library's
        one table of measure names, :func:`rlscore.measure.measure_by_name`, such as
        ``"sqerror"`` / ``"neg_mean_squared_error"``, ``"cindex"``, ``"auc"`` /
        ``"roc_auc"`` (0/1 labels too), ``"spearman"``, ``"p@5"``). None means the mean
        squared error for ``"loo"`` and K-fold and the LPO ranking accuracy for
        ``"lpo"``, which accepts only None, ``"cindex"`` and ``"auc"``. An error
        measure (``iserror`` True) is negated in ``mean_test_score`` and
        ``best_score_`` so that larger is always better.
{kernel_sections_doc(_KERNEL_PARAMS_DOC + _LEARN_PARAMS_DOC + _STREAM_PARAMS_DOC, "kernel matrix, factorization, the alpha grid, the optimizer's steps")}
    alpha_ : float
        The selected alpha.
{learned_attrs_doc(_LEARN_CRITERION_DOC)}
    best_score_ : float
        The cross-validation score of ``alpha_``, larger is better: the negated mean
        squared error by default for ``"loo"`` and K-fold, the LPO ranking accuracy
        for ``"lpo"``.
    best_index_ : int
        Index of ``alpha_`` in ``cv_results_["alphas"]``.
    cv_results_ : dict of ndarrays of shape (n_alphas,)
        ``"alphas"``: the grid; ``"cv_performances"``: the measure's value for each
        alpha (as RLScore reports it, e.g. the MSE); ``"mean_test_score"``: the same,
        negated for error measures (larger is better); ``"rank_test_score"``: rank of
        each alpha (1 is best).
{_FITTED_ATTRS_DOC}

    See Also
    --------
    KernelRLS : a single alpha.
    rlscore.learner.LeaveOneOutRLS, rlscore.learner.KfoldRLS,
    rlscore.learner.LeavePairOutRLS : the RLScore-compatible interfaces.
    sklearn.linear_model.RidgeCV : efficient leave-one-out for linear ridge.

    Notes
    -----
    For m samples, d features, p outputs and a grid of n_alphas values: one
    eigendecomposition, O(m^2 d + m^3) for a kernel (O(m^2) memory) or
    O(m d^2 + d^3) for the linear kernel with d + 1 <= m (r = rank(X) <= d + 1).
    Then per alpha:

    * ``"loo"``: O(m^2 p) (kernel) or O(m r p) (linear);
    * K-fold with k folds: O(m^3 / k + m^2 p) (kernel), plus O(m (m / k)^2) for the
      fold systems; linear with folds larger than r: O(m r^2 + k r^3) once (each
      fold refitted in the primal from a downdate of X^T X), then O(m r p);
    * ``"lpo"``: O(m^3) for the inverse of the regularized kernel matrix (O(m r) for
      the linear kernel) plus O(p) per pair, with up to m (m - 1) / 2 pairs
      (O(m^2) memory for the pair list); with ``basis_indices``/``n_basis`` (b basis
      vectors, removed unless ``keep_basis_in_cv``) one exact hold-out, O(b^2 p),
      for each pair holding a basis vector.

    With ``gamma="learn"``: per optimizer step one Cholesky factorization and
    inverse and, for the leave-one-out error, one symmetric rank-m product (~2 m^3
    flops; the evidence ~m^3) plus O(m^2 d) for the kernel and its gradient;
    typically 10-50 steps per start, 3 starts; with one BLAS thread up to 1000
    examples (:func:`rlscore._lapack_threads.loop_threads`).

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import KernelRLSCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4)); y = X[:, 0] + 0.1 * rng.normal(size=60)
    >>> KernelRLSCV(kernel="rbf", gamma="learn", ard=True).fit(X, y).length_scales_.argmin()
    np.int64(0)
    >>> model = KernelRLSCV(cv=5).fit(X, y)
    >>> model.best_score_ < 0   # the negated mean squared error
    True
    """

    def __init__(self, alphas=None, *, cv="loo", scoring=None, kernel="linear",
                 gamma=None, degree=None, coef0=1, bias=1.0, basis_vectors=None,
                 n_basis=None, basis_indices=None, random_state=None,
                 keep_basis_in_cv=False, ard=False, penalty=0.0, criterion="auto",
                 memory_budget="auto", block_size=None, solver="auto", verbose=False):
        store_params(self, locals())

    def _learns(self):
        return isinstance(self.gamma, str) and self.gamma == "learn"

    def _kernel_spec(self, n_features):
        return learned_kernel_spec(self) or super()._kernel_spec(n_features)

    def _fit_learned(self, X, y):
        """gamma='learn': the core's gradient search, then the model at its result."""
        def check_cv():
            if not (isinstance(self.cv, str) and self.cv == "loo"):
                raise ValueError(f"gamma='learn' minimizes the leave-one-out error: it "
                                 f"needs cv='loo', got cv={self.cv!r}")
        return fit_learned_kernel(self, lambda name, **kw: learn_kernel(X, y, **learning_options(name, **kw)),
                                  check_cv)

    def _start_fit(self):
        """(whether gamma is learned, the checked alphas -- None when learned), the
        fitted attributes of a previous fit cleared."""
        self._learned_params = None
        clear_fitted(self, *LEARNED_ATTRS)
        learn = self._learns()
        return learn, (None if learn else self._check_alphas())

    def _check_alphas(self):
        if self.alphas is None:
            return [float(a) for a in DEFAULT_REGPARAMS]
        if isinstance(self.alphas, str):
            raise TypeError(f"alphas must be an array of numbers, got {self.alphas!r}")
        alphas = np.asarray(self.alphas, dtype=object)
        if alphas.ndim == 0:
            alphas = alphas.reshape(1)
        if alphas.ndim != 1 or alphas.size == 0:
            raise ValueError(f"alphas must be a non-empty 1-D array of numbers, got "
                             f"shape {alphas.shape}")
        return check_regparam_grid(
            [check_alpha(a.item() if isinstance(a, np.generic) else a, "alphas")
             for a in alphas], "alphas")

    @reports_progress
    def fit(self, X, y, groups=None, qid=None):
        """Select alpha by cross-validation and fit the model with it.

        Parameters
        ----------
{data}
        groups : array-like of shape (n_samples,), default=None
            Group (query) ids: passed to the ``split`` method of a CV splitter (e.g.
            ``GroupKFold``); with ``cv="loo"`` or ``"lpo"`` the estimate is per query,
            as in every face (a per-query ``scoring`` such as ``"cindex"`` scores each
            query's held-out predictions and averages over the queries, regression
            measures pool them; ``"lpo"`` holds out the pairs within each query).
        qid : array-like of shape (n_samples,), default=None
            Alias of ``groups`` (the ranking estimators' name); at most one of the
            two.

        Returns
        -------
        self : KernelRLSCV

        Raises
        ------
        ValueError
            For invalid parameter values or data, fewer than 2 samples, or a measure
            that is undefined on the data for every alpha (e.g. ``cv="lpo"`` with all
            targets equal).
        TypeError
            For parameters of the wrong type.

        Notes
        -----
        See the class notes for the cost.
        """
        learn, alphas = self._start_fit()
        measure = resolve_scoring(self.scoring, self.cv)
        X, y = self._validate_fit_data(X, y)
        if X.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 samples for "
                             f"cross-validation, got 1 sample")
        if learn:
            alphas = [self._fit_learned(X, y)]
        if query_groups(qid, groups, X.shape[0]) is not None and groups is None:
            groups = qid
        self._fit_model(X, y, alphas[0], path=True,
                        cv=_cv_intent(self.cv, len(alphas), X, y, groups))
        return search_alphas(
            self, lambda: make_crossvalidator(self.cv, self.model_, measure, X, y, groups),
            alphas)

    fit.__doc__ = fit.__doc__.format(data=fit_data_doc("Targets."))


def _cv_intent(cv, n_values, X, y, groups):
    """The cross-validation of ``cv`` over ``n_values`` alphas for the memory plan
    (:class:`rlscore.core.nystrom.CVIntent`): "loo", "lpo" (kept in memory) or
    "kfold" (an int, a splitter or splits: its folds, unknown before splitting for
    e.g. a generator of splits)."""
    if isinstance(cv, str):
        return CVIntent(cv, n_values)
    if isinstance(cv, (int, np.integer)):
        return CVIntent.kfold(n_values, int(cv))
    n = getattr(cv, "get_n_splits", None)
    try:
        k = int(n(X, y, groups)) if n is not None else len(cv)
    except (TypeError, ValueError):
        return CVIntent("kfold", n_values)
    return CVIntent.kfold(n_values, k)
