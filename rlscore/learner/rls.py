"""RLS (kernel ridge regression) with RLScore's interface, and its model-selection
wrappers LeaveOneOutRLS, KfoldRLS and LeavePairOutRLS."""

import numpy as np

from rlscore._validation import NOT_GIVEN, miscoverage_argument
from rlscore.core.nystrom import CVIntent, fit_rls_model
from rlscore.core.hyper import learn_kernel, learning_options
from rlscore.core.selection import DEFAULT_REGPARAMS, LOOCV, LPOCV, NfoldCV
from rlscore.learner._common import (
    BASIS_KEYWORDS, MEMORY_DOC, MEMORY_KEYWORDS, VERBOSE_DOC, DataLabelsAdapter, exclusive,
    fit_core_model,
    learn_kernel_parameters, learns_kernel, regparam_grid, reports_progress,
    select_regparam, split_kernel_kwargs, squeeze)
from rlscore.predictor import PredictorInterface

__all__ = ["RLS", "LeaveOneOutRLS", "KfoldRLS", "LeavePairOutRLS", "LOOCV", "NfoldCV",
           "LPOCV"]


class RLS(DataLabelsAdapter, PredictorInterface):
    __doc__ = f"""Regularized least-squares (kernel ridge regression); trains in the constructor.

    Minimizes ``||Y - K A||^2 + regparam tr(A^T K A)``, so A = (K + regparam I)^{{-1}} Y.

    Parameters
    ----------
    X : array-like or sparse (m, d); the kernel matrix for ``kernel="PrecomputedKernel"``
    Y : array-like (m,) or (m, p)
    regparam : float >= 0, default 1.0
    kernel : "LinearKernel" (default), "GaussianKernel", "PolynomialKernel",
        "RsetKernel" or "PrecomputedKernel" (alias
        "precomputed")
    basis_vectors : basis rows for a reduced-set (Nystrom) model, or the basis kernel
        matrix with a precomputed kernel. The basis is then unknown to
        cross-validation: ``holdout``/``leave_one_out`` keep held-out basis vectors.
    basis_indices : keyword, indices into X of the basis vectors (with a precomputed
        kernel X is the m x m kernel and the predictor takes test-versus-training
        kernel rows); or
    n_basis, random_state : keywords, draw that many basis indices uniformly without
        replacement (Airola et al. 2011). With a known basis, ``holdout``,
        ``leave_one_out``, ``leave_pair_out`` and the wrappers (LeaveOneOutRLS,
        KfoldRLS, LeavePairOutRLS) remove the held-out basis vectors, i.e. equal
        retraining with the reduced basis; leave-pair-out pays one exact hold-out,
        O(b^2 p), for each pair holding a basis vector (the other pairs keep the
        O(p) pair formula);
    keep_basis_in_cv : keyword, default False; True keeps held-out basis vectors in
        every cross-validation (test examples then act as basis vectors: a biased
        estimate, pessimistic at small regparam).
{MEMORY_DOC}
    **kwargs : kernel parameters (bias, gamma, coef0, degree, ...); other keywords are
        ignored with a UserWarning
{VERBOSE_DOC}

    Attributes
    ----------
    predictor : LinearPredictor (linear or precomputed kernel) or KernelPredictor
    regparam, Y (2-D), A (dual coefficients)

    Notes
    -----
    Reduced set with b basis vectors: O(m b d + m b^2) (Cholesky Nystrom map, then
    primal); with basis removal ``holdout`` costs O(b^2 h + u b (p + h)) (u held-out
    rows, h held-out basis vectors) and ``leave_one_out`` O(b^3) once plus O(m b p).
    Linear kernel with d + 1 <= m: primal, O(m d^2); ``holdout`` of h rows then
    O(h^2 d + h^3), or for h > d a refit in the primal (O(h d^2 + d^3) once per fold,
    O(h d p) per regparam). Otherwise dual: O(m^2 d) for the
    kernel plus O(m^3/3) (Cholesky). ``solve`` for a second lambda eigendecomposes once
    (O(m^3)) and then costs O(m^2 p); ``holdout`` of h rows O(h^2 m + h^3) after that,
    ``leave_one_out`` O(m^2), ``leave_pair_out`` O(m^3) once plus O(p) per pair.
    """

    @classmethod
    def _fit_model(cls, data, regparam, kernel, basis_vectors, kwargs, path, cv):
        """The core model (:func:`rlscore.core.nystrom.fit_rls_model`) of ``data`` =
        (X, Y)."""
        X, Y = data
        params = split_kernel_kwargs(kwargs, kernel, cls.__name__,
                                     extra=MEMORY_KEYWORDS, basis=BASIS_KEYWORDS)
        return fit_core_model(fit_rls_model, kwargs, cv, X, Y, regparam, kernel,
                              basis_vectors, path, **params)

    @exclusive
    def solve(self, regparam=1.0):
        """Re-train with a new regparam, re-using the decomposition. O(m^2 p) dual,
        O(d^2 p) primal (after one O(m^3) / O(m d^2) decomposition)."""
        self._model.solve(regparam)
        self._sync()

    @exclusive
    def holdout(self, indices):
        """Predictions for ``indices`` from the model trained without them (exact).

        Raises IndexError for out-of-range or repeated indices, ValueError for an
        empty list or one that holds out every example.
        """
        return squeeze(self._model.holdout(indices))

    @exclusive
    def leave_one_out(self):
        """Exact leave-one-out predictions, shape (m,) or (m, p)."""
        return squeeze(self._model.leave_one_out())

    @exclusive
    def leave_pair_out(self, pairs_start_inds, pairs_end_inds):
        """Exact leave-pair-out: for each pair (s, e), the predictions for s and e from
        the model trained without both. Returns (P_start, P_end)."""
        ps, pe = self._model.leave_pair_out(pairs_start_inds, pairs_end_inds)
        return squeeze(ps), squeeze(pe)

    def predict_interval(self, X, miscoverage=0.1, method="jackknife+", folds=None,
                         groups=None, n_folds=None, seed=0, *, alpha=NOT_GIVEN):
        """Distribution-free prediction intervals from the exact hold-out models
        (Barber et al., Ann. Statist. 2021), without refitting.

        Parameters
        ----------
        X : test data, as for ``predict``
        miscoverage : float in (0, 1), default 0.1
            Miscoverage rate: 0.1 gives 90% intervals.
        method : {"jackknife+", "jackknife", "jackknife-minmax", "cv+", "cv",
            "cv-minmax"}, default "jackknife+"
        folds : list of index arrays partitioning the training rows (cv methods), or
        groups : one id per training row; each group (a query, a drug...) is held out
            whole: one fold per group, or ``n_folds`` folds of whole groups; or
        n_folds : alone, that many random folds of rows (``seed``)
        alpha : float in (0, 1)
            Deprecated alias of ``miscoverage`` (a FutureWarning; removed in the next
            release).

        Returns
        -------
        prediction, lower, upper : ndarrays (n,) or (n, p); the prediction is the
        model's own. Bounds are infinite when miscoverage is below 1 / (m + 1).

        Notes
        -----
        See :mod:`rlscore.core.rls`. The leave-one-out models cost O(m^3) once
        (dual; O(m d^2) primal, cached per regparam), then one GEMM
        (n x m) by (m x m) (dual; (n x d) by (d x m) primal) plus O(n m) selection.
        """
        alpha = miscoverage_argument(miscoverage, alpha)
        im = self.interval_model(method, folds, groups, n_folds, seed)
        return tuple(squeeze(a) for a in im.predict_interval(X, alpha, method))

    def interval_model(self, method="jackknife+", folds=None, groups=None, n_folds=None,
                       seed=0):
        """The hold-out models behind :meth:`predict_interval`, as a
        :class:`rlscore.core.rls.IntervalModel` (e.g. to store in a model file:
        ``rlscore.model_io.save_model(learner, path, intervals=...)``). Arguments as for
        :meth:`predict_interval`; the leave-one-out models are cached per regparam."""
        return self._model.interval_model(method, folds, groups, n_folds, seed)


class _SelectionWrapper(PredictorInterface):
    """Shared body of the wrappers: train on the grid's first lambda with a
    decomposition, run the cross-validator over the grid, keep the best model."""

    _base = RLS
    _default_grid = DEFAULT_REGPARAMS

    def _select(self, X, Y, kernel, basis_vectors, regparams, kwargs, make_cv):
        return select_regparam(self, self._base, (X, Y), (kernel, basis_vectors, kwargs),
                               regparams, self._default_grid, make_cv)

    def _kfold(self, X, Y, folds, kernel, basis_vectors, regparams, measure, kwargs):
        """K-fold selection with the given folds (KfoldRLS, KfoldRankRLS) over
        ``regparams`` (None: the class's ``_default_grid``); ``measure`` None is the
        class's ``_default_measure``."""
        regparams = regparam_grid(regparams, self._default_grid)
        self._cv_intent = CVIntent.kfold(len(regparams), len(folds))
        if measure is None:
            from rlscore import measure as _measures
            measure = getattr(_measures, self._default_measure)
        self.measure = measure
        preds = self._select(X, Y, kernel, basis_vectors, regparams, kwargs,
                             lambda model: NfoldCV(model, measure, folds, disjoint=True))
        self.cv_predictions = [[squeeze(p) for p in fold_preds] for fold_preds in preds]

    def _leave_pair_out(self, X, Y, kernel, basis_vectors, regparams, kwargs, cv):
        """Selection by the c-index of an exact leave-pair-out cross-validator ``cv``
        (LeavePairOutRLS: LPOCV, LeavePairOutRankRLS: RankLPOCV)."""
        from rlscore.measure import cindex
        self.measure = cindex
        self.cv_predictions = self._select(X, Y, kernel, basis_vectors, regparams, kwargs,
                                           cv)

    def predict_interval(self, X, miscoverage=0.1, method="jackknife+", folds=None,
                         groups=None, n_folds=None, seed=0, *, alpha=NOT_GIVEN):
        """Prediction intervals of the selected model, see :meth:`RLS.predict_interval`.
        The regparam was chosen on the same data, so the coverage guarantee of the
        methods holds only approximately."""
        alpha = miscoverage_argument(miscoverage, alpha)
        return self.learner.predict_interval(X, alpha, method, folds, groups, n_folds, seed)


class LeaveOneOutRLS(_SelectionWrapper):
    __doc__ = f"""RLS with regparam chosen by exact leave-one-out over a grid.

    Parameters
    ----------
    X, Y, kernel, basis_vectors, **kwargs : as for :class:`RLS`
    regparams : sequence, default 2^-15 ... 2^15 (31 values)
    measure : performance measure, default ``sqerror``
    gamma : float or ``"learn"``
        With ``kernel="GaussianKernel"`` or ``"PolynomialKernel"``, ``gamma="learn"``
        learns gamma (the polynomial kernel's coef0 > 0 too) and regparam together by
        minimizing the exact leave-one-out mean squared error with its gradient
        (:func:`rlscore.core.hyper.learn_kernel`; no grid: ``regparams`` must be None;
        with ``basis_vectors`` (Gaussian) the error of the Nystrom model on them, O(m
        r^2) per step). Keywords of that search: ``ard=True`` (Gaussian: one gamma per
        feature), ``penalty`` (Cawley & Talbot's penalty on the widths: a weight >= 0,
        or ``"bayes"`` with the weight integrated out), ``criterion`` (``"auto"``,
        default: ``"evidence"`` with ``ard=True`` unless a penalty or basis is given,
        else ``"loo"``; ``"evidence"`` is the Gaussian-process marginal likelihood of
        the same model, which does not over-fit many widths on few examples as the
        LOO error does; ``cv_performances`` is the LOO error at the learned point
        either way), ``restarts``, ``maxiter``.
{VERBOSE_DOC}

    Attributes
    ----------
    cv_performances : ndarray (grid,), cv_predictions : ndarray (grid, m[, p]),
    regparam : the chosen grid element, predictor : the model at that regparam
    gamma, coef0 : with ``gamma="learn"``, the learned values (gamma an ndarray (d,)
        with ``ard=True``)
    length_scales : with ``gamma="learn"`` and the Gaussian kernel, 1 / sqrt(2 gamma)
    cv_history : with ``gamma="learn"``, per optimizer step (of every start, in
        order) a dict of ``criterion`` (the minimized criterion), ``grad_norm``,
        ``regparam``, ``kernel_params`` and ``best`` (True for the one entry at the
        learned point; the last entry is the last step of the last start)
    kernel_learning : with ``gamma="learn"``, the whole
        :class:`rlscore.core.hyper.KernelLearningResult` (``kernel_learning.criterion``:
        the minimized criterion at the learned point, ``criterion_name`` which)

    Notes
    -----
    One eigendecomposition (O(m^3) dual, O(m d^2) primal) plus O(m^2 p) (dual) or
    O(m d p) (primal) per grid point. With ``gamma="learn"``, ~2 m^3 flops (one
    Cholesky factorization and inverse, one symmetric product) plus O(m^2 d) per
    optimizer step.
    """

    @reports_progress
    def __init__(self, X, Y, kernel="LinearKernel", basis_vectors=None, regparams=None,
                 measure=None, **kwargs):
        if measure is None:
            from rlscore.measure import sqerror as measure
        self.measure = measure
        if learns_kernel(kwargs):
            kwargs, regparams = learn_kernel_parameters(
                self, kernel, basis_vectors, regparams, kwargs,
                lambda **kw: learn_kernel(X, Y, **learning_options(kernel, **kw)))
        regparams = regparam_grid(regparams, self._default_grid)
        self._cv_intent = CVIntent("loo", len(regparams))
        preds = self._select(X, Y, kernel, basis_vectors, regparams, kwargs,
                             lambda model: LOOCV(model, measure))
        self.cv_predictions = np.array([squeeze(p) for p in preds])


class KfoldRLS(_SelectionWrapper):
    __doc__ = f"""RLS with regparam chosen by K-fold cross-validation with the given folds
    (exact hold-out shortcut per fold, no retraining).

    Parameters
    ----------
    folds : list of index lists, disjoint (a ValueError names a row in two folds); they
        need not cover every example
    measure : default ``sqerror``; save_predictions : accepted and ignored
{VERBOSE_DOC}

    Notes
    -----
    One decomposition plus O(sum_f n_f^2 m) per grid point (n_f: size of fold f).
    """

    _default_measure = "sqerror"

    @reports_progress
    def __init__(self, X, Y, folds, kernel="LinearKernel", basis_vectors=None,
                 regparams=None, measure=None, save_predictions=False, **kwargs):
        self._kfold(X, Y, folds, kernel, basis_vectors, regparams, measure, kwargs)
        self.folds = folds

    def predict_interval(self, X, miscoverage=0.1, method="jackknife+", folds=None,
                         groups=None, n_folds=None, seed=0, *, alpha=NOT_GIVEN):
        """Prediction intervals of the selected model, see :meth:`RLS.predict_interval`;
        the cv methods (``method="cv+"``...) use the selection's ``folds`` (which must
        then partition the training rows) unless other folds or groups are given."""
        from rlscore.core.rls import METHODS
        if METHODS.get(method) == "folds" and folds is None and groups is None \
                and n_folds is None:
            folds = self.folds
        alpha = miscoverage_argument(miscoverage, alpha)
        return self.learner.predict_interval(X, alpha, method, folds, groups, n_folds, seed)


class LeavePairOutRLS(_SelectionWrapper):
    __doc__ = f"""RLS with regparam chosen by exact leave-pair-out ranking accuracy (the LPO
    estimate of AUC for +-1 labels, of the c-index otherwise) over all pairs with
    different labels.

    Parameters
    ----------
    X, Y, kernel, basis_vectors, regparams, **kwargs : as for :class:`LeaveOneOutRLS`
{VERBOSE_DOC}

    Notes
    -----
    Dual: one eigendecomposition, then per grid point one O(m^3) SYRK for the inverse
    and O(p) per pair; primal: O(r) per pair.
    """

    @reports_progress
    def __init__(self, X, Y, kernel="LinearKernel", basis_vectors=None, regparams=None,
                 **kwargs):
        # leave-pair-out keeps the model in memory
        self._cv_intent = CVIntent("lpo")
        self._leave_pair_out(X, Y, kernel, basis_vectors, regparams, kwargs, LPOCV)
