"""RankRLS (regularized least-squares ranking) as scikit-learn estimators.

:class:`RankRLS` fits global RankRLS (one ranking over all samples) or, with query ids
given to ``fit``, query-structured RankRLS (pairs only within a query);
:class:`RankRLSCV` chooses alpha by exact leave-pair-out, leave-query-out or K-fold
cross-validation. Both are thin adapters over
:class:`rlscore.core.rankrls.GlobalRankRLSModel` and
:class:`rlscore.core.rankrls.QueryRankRLSModel`; the parameter checks, kernel names,
prediction, tags and pickling are those of :class:`rlscore.estimators.KernelRLS`
(:mod:`rlscore.estimators._base`). ``score`` is the c-index (query-averaged with query
ids), computed by :mod:`rlscore.measure`.
"""

import numbers

import numpy as np

from rlscore import measure as _measures
from rlscore.core.nystrom import ComputePlan, CVIntent, PlanError
from rlscore.core.rankrls import fit_rank_model
from rlscore.core.rankrls import RankLPOCV
from rlscore.core.hyper import learn_kernel_global, learn_kernel_lqo, learning_options
from rlscore.core.selection import LQOCV, NfoldCV, QueryLPOCV
from rlscore.estimators._base import (DEGREE_DOC, KERNEL_INPUT_ATTRS_DOC, PLAN_NAMES,
                                      RLSEstimatorBase,
                                      check_alpha, fit_data_doc, kernel_sections_doc,
                                      query_groups, ranking_score,
                                      reports_progress, resolve_kernel, store_params)
from rlscore.estimators._cv import (_splits, make_crossvalidator, resolve_scoring,
                                    search_alphas, split_crossvalidator)
from rlscore.estimators._rls import (_BASIS_PARAMS_DOC, _PCG_PARAMS_DOC,
                                     _STREAM_PARAMS_DOC, KernelRLSCV,
                                     fit_learned_kernel, learned_attrs_doc,
                                     learned_kernel_spec)

__all__ = ["RankRLS", "RankRLSCV"]

_CV_STRINGS = ("lpo", "lqo")


# ---------------------------------------------------------------------------------------
# checks


def _check_has_pairs(name, m, groups):
    """ValueError when the data cannot hold a pair to rank (the core refuses all-tied
    labels itself)."""
    if m < 2:
        raise ValueError(f"{name} needs at least 2 samples to learn a ranking, got 1 "
                         f"sample")
    if groups is not None and groups.sizes.max() < 2:
        raise ValueError("every query holds a single sample: there are no pairs to "
                         "learn from")


def _as_2d(P, n):
    return np.reshape(np.asarray(P, dtype=np.float64), (n, -1))


# ---------------------------------------------------------------------------------------
# estimators

_KERNEL_PARAMS_DOC = """\
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
        The kernel, as for :class:`rlscore.estimators.KernelRLS` (the RLScore names
        ``"LinearKernel"``, ``"GaussianKernel"``, ``"PolynomialKernel"``,
        ``"PrecomputedKernel"`` are accepted too). The linear kernel has no bias
        term: a constant feature does not change a ranking.
    gamma : float > 0 or None, default=None
        Parameter of the rbf and poly kernels; None means ``1 / n_features``.
"""
_KERNEL_PARAMS_DOC += DEGREE_DOC + """\
    coef0 : float, default=1
        Constant of the poly kernel.
"""

_KERNEL_PARAMS_DOC += _BASIS_PARAMS_DOC

_LEARN_PARAMS_DOC = """\
    ard : bool, default=False
        Used with ``gamma="learn"``, which (rbf and poly kernels, no reduced set, no
        alpha grid: ``alphas`` must be None) learns gamma -- for poly also coef0 > 0 --
        and alpha together by minimizing an exact cross-validation squared ranking
        error with its gradient: with query ids the leave-query-out error of query
        RankRLS (:func:`rlscore.core.hyper.learn_kernel_lqo`), without them the
        leave-one-out error of global RankRLS with the intercept refit
        (:func:`rlscore.core.hyper.learn_kernel_global`).
        ``cv`` and ``scoring`` then only score the learned model (``best_score_``).
        ``ard=True`` (rbf): one gamma per feature.
    penalty : float >= 0 or "bayes", default=0.0
        With ``gamma="learn"``: weight of Cawley & Talbot's penalty on the widths, or
        ``"bayes"``: their regularization with the weight integrated out (see
        :func:`rlscore.core.hyper.learn_kernel`)."""

_LEARN_ATTRS_DOC = learned_attrs_doc(
    "the mean squared ranking error of the leave-query-out or leave-one-out models") + "\n"

_RANK_STREAM_DOC = "\n" + _STREAM_PARAMS_DOC.rstrip("\n") + """
        With query ids the samples are streamed grouped by query (the model does
        not depend on their order), and "pcg" solves the centred problem of global
        or query RankRLS (:func:`rlscore.core.rankrls.pcg_rankrls`). RankRLS streams
        with ``n_basis`` / ``basis_indices`` or ``basis_vectors`` (then the
        cross-validation keeps the basis, as in memory); the decision
        is :func:`rlscore.core.rankrls.fit_rank_model`, the same as the RankRLS
        learners' (``rlscore.learner.GlobalRankRLS`` / ``QueryRankRLS``)."""

_RANK_STREAM_PCG_DOC = _RANK_STREAM_DOC + "\n" + _PCG_PARAMS_DOC

_QID_DOC = """\
        qid : array-like of shape (n_samples,), default=None
            Query ids (any hashable values, e.g. ints or strings; rows with equal ids
            form a query, they need not be contiguous). With query ids, pairs are
            formed only within a query (query-structured RankRLS); without, over all
            samples (global RankRLS). A query of one sample is allowed and contributes
            no pairs; non-integral float ids are refused.
        groups : array-like of shape (n_samples,), default=None
            Alias of ``qid`` (the name scikit-learn uses, e.g. for ``GroupKFold`` and
            metadata routing); give at most one of the two."""

_FITTED_ATTRS_DOC = """\
    model_ : rlscore.core.rankrls.GlobalRankRLSModel or QueryRankRLSModel or None
        The core model after ``fit``, with its exact shortcuts (``solve(alpha)``,
        ``holdout(indices)``, ``leave_pair_out`` (global), ``leave_query_out``
        (queries); 2-D outputs). Not pickled: None after unpickling.
    predictor_ : rlscore.predictor.LinearPredictor or KernelPredictor
        The trained predictor.
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Weights (linear kernel only).
    intercept_ : float or ndarray of shape (n_targets,)
        Always 0 (linear kernel only): ranking scores are shift invariant.
    dual_coef_ : ndarray of shape (n_basis,) or (n_basis, n_targets)
        Dual coefficients (kernels other than linear): the scores are
        ``k(X, X_fit_) @ dual_coef_``.
"""
_FITTED_ATTRS_DOC += KERNEL_INPUT_ATTRS_DOC


class _RankRLSBase(RLSEstimatorBase):
    """Common base of :class:`RankRLS` and :class:`RankRLSCV` (not public)."""

    def _kernel_spec(self, n_features):
        if resolve_kernel(self.kernel) == "LinearKernel":
            return "LinearKernel", {"bias": 0.0}     # no effect on a ranking
        return super()._kernel_spec(n_features)

    def _build(self, X, Y, groups, alpha, path):
        """The core model for validated data (no fitted attributes set): in memory, or
        streamed when :func:`rlscore.core.rankrls.fit_rank_model` (the one memory
        decision of the RankRLS faces) says so. Cross-validation (``path``) keeps it
        in memory: its pairwise and per-query estimates need the in-memory
        formulas."""
        name, params = self._kernel_spec(X.shape[1])
        params.update(self._basis_params())
        plan = self._compute_plan(default=ComputePlan(memory_budget=None))
        with PlanError.reworded(PLAN_NAMES):
            return fit_rank_model(X, Y, groups, alpha, name, path, plan=plan,
                                  cv=CVIntent("rank") if path else None,
                                  basis_vectors=self.basis_vectors, **params)

    def _fit_model(self, X, y, alpha, path, groups=None):
        """Train the core model (global without ``groups``, query-structured with) and
        set the fitted attributes."""
        _check_has_pairs(type(self).__name__, X.shape[0], groups)
        self._y_1d = y.ndim == 1
        self.model_ = self._build(X, y, groups, alpha, path)
        self._set_fitted_attributes()
        return self

    def score(self, X, y, qid=None, groups=None):
        """Concordance index (c-index) of the predicted scores.

        Over the pairs with different labels (label ties are not pairs), the fraction
        the scores order as the labels, prediction ties counting 1/2
        (:func:`rlscore.measure.cindex`). With query ids only pairs within a query count
        and the c-index of each query is averaged over the queries that have a pair
        (:func:`rlscore.core.selection.query_score`; queries of one sample or with all
        labels tied are skipped). Several targets: averaged over targets.

        Parameters
        ----------
        X : {{array-like, sparse matrix}} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
{qid}

        Returns
        -------
        float

        Raises
        ------
        rlscore.measure.UndefinedPerformance
            No pair with different labels (within a query). In a scikit-learn search
            over held-out queries, :class:`rlscore.estimators.QuerySplitter` keeps
            such queries out of the test sets, as the library's cross-validation
            skips them.

        Notes
        -----
        O(n log n) after the prediction.
        """
        return ranking_score(self.predict(X), y, qid, groups)

    score.__doc__ = score.__doc__.format(qid=_QID_DOC)


class RankRLS(_RankRLSBase):
    __doc__ = f"""Regularized least-squares ranking (RankRLS).

    Learns scoring functions f that preserve the differences of the targets over
    pairs of samples (the magnitude-preserving pairwise squared loss), through the
    Laplacian of the preference graph without forming the pairs (Pahikkala et al.,
    Machine Learning 75, 2009). Without query ids (global RankRLS) it minimizes

        sum_{{i<j}} ((y_i - y_j) - (f_i - f_j))^2 + alpha ||f||^2

    over all pairs (:class:`rlscore.core.rankrls.GlobalRankRLSModel`); with query ids
    (``qid`` or ``groups`` in ``fit``, query-structured RankRLS) only pairs within a
    query count, a pair of query q weighted 1 / n_q (RLScore's convention):

        sum_q (1 / n_q) sum_{{i<j in q}} ((y_i - y_j) - (f_i - f_j))^2 + alpha ||f||^2

    (:class:`rlscore.core.rankrls.QueryRankRLSModel`). ``alpha`` is RLScore's
    ``regparam``: the model equals :class:`rlscore.learner.GlobalRankRLS` /
    :class:`rlscore.learner.QueryRankRLS` at ``regparam=alpha``. (One query holding
    every sample is global RankRLS at ``alpha * n_samples``.) Several targets are
    ranked separately. ``predict`` returns ranking scores (defined up to a shift);
    ``score`` is the c-index, query-averaged with query ids.

    Parameters
    ----------
    alpha : float >= 0, default=1.0
        Regularization parameter.
{kernel_sections_doc(_KERNEL_PARAMS_DOC + _RANK_STREAM_PCG_DOC,
                     "kernel matrix, factorization")}
{_FITTED_ATTRS_DOC}

    See Also
    --------
    RankRLSCV : alpha chosen by exact leave-pair-out, leave-query-out or K-fold
        cross-validation.
    rlscore.learner.GlobalRankRLS, rlscore.learner.QueryRankRLS : the RLScore
        interfaces.

    Notes
    -----
    Training costs what RLS costs: the kernel (O(m^2 d)), O(m^2) for the Householder
    rotation that removes the (per-query) all-ones directions and one Cholesky
    factorization (O(m^3 / 3), O(m^2) memory); linear kernel with d < m: O(m d^2 + d^3).
    With b basis vectors: O(m b d + m b^2 + b^3). ``predict`` costs O(n d p) (linear)
    or O(n m (d + p)) (kernels).

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import RankRLS
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3)); y = X @ [1.0, -2.0, 0.5]
    >>> qid = np.repeat(np.arange(8), 5)
    >>> model = RankRLS(alpha=1e-3).fit(X, y, qid=qid)
    >>> round(model.score(X, y, qid=qid), 3)
    1.0
    """

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=None, coef0=1,
                 basis_vectors=None,
                 n_basis=None, basis_indices=None, random_state=None,
                 keep_basis_in_cv=False, memory_budget="auto", block_size=None,
                 solver="auto", pcg_tol=None, pcg_max_iter=None, verbose=False):
        store_params(self, locals())

    @reports_progress
    def fit(self, X, y, qid=None, groups=None):
        """Fit the ranker.

        Parameters
        ----------
{data}

        Returns
        -------
        self : RankRLS

        Raises
        ------
        ValueError
            Invalid parameter values or data; query ids of the wrong length or
            non-integral floats; fewer than 2 samples, every query a single sample, or
            all labels tied (within every query): no pair to learn from.
        TypeError
            Parameters of the wrong type.

        Notes
        -----
        One factorization: see the class notes for the cost.
        """
        alpha = check_alpha(self.alpha)
        X, y = self._validate_fit_data(X, y)
        gr = query_groups(qid, groups, X.shape[0])
        return self._fit_model(X, y, alpha, path=False, groups=gr)

    fit.__doc__ = fit.__doc__.format(
        data=fit_data_doc("Relevance scores (any real values).") + "\n" + _QID_DOC)


class RankRLSCV(_RankRLSBase):
    __doc__ = f"""RankRLS with alpha chosen by exact fast cross-validation.

    The model of :class:`RankRLS` (global without query ids, query-structured with
    ``qid``/``groups`` in ``fit``). The core model is eigendecomposed once; each alpha
    then costs a fraction of a training, and the leave-pair-out, leave-query-out and
    (global) K-fold estimates use the exact hold-out shortcuts of the core model -- the
    same numbers as retraining on every split, up to rounding. The final model is
    trained on all the data with the best alpha.

    Parameters
    ----------
    alphas : array-like of float >= 0, default=None
        The grid, searched in the given order (the first best wins; a value given twice
        is refused); None means ``2**-15, 2**-14, ..., 2**15``.
    cv : "lpo", "lqo", int, CV splitter or iterable of (train, test), default="lpo"
        * ``"lpo"``: exact leave-pair-out (Airola et al. 2011). Without query ids every
          pair of samples with different labels is held out in turn
          (:class:`rlscore.core.rankrls.RankLPOCV`) and the estimate is the fraction
          of them the held-out model orders correctly (ties 1/2): the LPO estimate of
          the c-index (of the AUC for +-1 labels). With query ids, every pair with
          different labels *within a query* is held out (the rest of its query stays
          in training as a smaller query); per query the fraction of its pairs
          ordered correctly, and the estimate is the mean over the queries
          (:class:`rlscore.core.selection.QueryLPOCV`: every query weighs the same,
          as in every per-query estimate of the library).
        * ``"lqo"``: exact leave-query-out (needs query ids): every query is held out
          in turn (one fold per query) and the measure is query-averaged over the
          held-out predictions.
        * int k: K-fold. Without query ids the test folds of
          ``sklearn.model_selection.KFold(k)`` with the exact hold-out shortcut of the
          global model (:class:`rlscore.core.selection.NfoldCV`; no retraining); with
          query ids the library's k folds of whole queries,
          :meth:`rlscore.core.structure.QueryGroups.folds` ``(k, seed=0)``: the folds
          of ``rlscore.learner.KfoldQueryRankRLS(folds=k)`` and of ``rlscore cv --cv
          kfold --folds k`` (at their default seed 0), and of
          :class:`rlscore.estimators.QuerySplitter` ``(k)`` for scikit-learn's
          ``GridSearchCV``. Other folds: pass a splitter (``GroupKFold(k)``, ...).
        * a scikit-learn splitter or an iterable of (train, test) index arrays;
          splitters receive the query ids as ``groups``.

        For K-fold and splitters the estimate is the unweighted mean of the per-split
        performances; with query ids the performance of a split is query-averaged
        (the mean over its queries on which the measure is defined), and a split
        without such a query is skipped -- every face's K-fold by query, and what
        ``GridSearchCV`` computes over :class:`rlscore.estimators.QuerySplitter`.
        Query-structured K-fold and splitters hold out the rows outside each training
        set with the exact multi-query hold-out of the core model
        (:meth:`rlscore.core.rankrls.QueryRankRLSModel.holdout_rows`: no retraining;
        with ``n_basis`` / ``basis_indices`` the basis vectors among them are removed
        unless ``keep_basis_in_cv``).
    scoring : None, str or callable, default=None
        The rlscore measure: a function ``f(Y, P)`` with a boolean ``iserror``
        attribute, or a name of the library's one table of measure names
        (:func:`rlscore.measure.measure_by_name`, the names the command line's
        ``--measure`` takes): ``"cindex"``, ``"auc"`` / ``"roc_auc"`` (0/1 labels
        too), ``"ndcg@5"``, ``"ndcg@5:standard"``, ``"p@5"``, ``"map"``,
        ``"kendall"``, ``"sqmprank"``, and the function names (``"ndcg"`` is
        ``"ndcg@10"``, ``"precision_at_k"`` ``"p@10"``, ``"mean_average_precision"``,
        ``"kendall_tau_b"``). None means the c-index. With query ids
        the measure is applied to each query and averaged over the queries where it
        is defined (:func:`rlscore.measure.query_average`). ``"lpo"`` accepts only
        None, ``"cindex"`` and ``"auc"`` (one estimate: the pairwise ranking accuracy).
        An error measure is negated in ``mean_test_score`` and ``best_score_``.
{kernel_sections_doc(_KERNEL_PARAMS_DOC + _LEARN_PARAMS_DOC,
                         "kernel matrix, factorization, the alpha grid")}
    alpha_ : float
        The selected alpha.
    best_score_ : float
        The cross-validation score of ``alpha_`` (larger is better).
    best_index_ : int
        Index of ``alpha_`` in ``cv_results_["alphas"]``.
    cv_results_ : dict of ndarrays of shape (n_alphas,)
        ``"alphas"``; ``"cv_performances"`` (the measure's value per alpha);
        ``"mean_test_score"`` (the same, negated for error measures);
        ``"rank_test_score"`` (1 is best).
{_LEARN_ATTRS_DOC}{_FITTED_ATTRS_DOC}

    See Also
    --------
    RankRLS : a single alpha.
    rlscore.learner.LeavePairOutRankRLS, rlscore.learner.LeaveQueryOutRankRLS,
    rlscore.learner.KfoldRankRLS : the RLScore interfaces.

    Notes
    -----
    For m samples, p targets, r = rank of the centred kernel (<= m, or <= d for the
    linear kernel with d < m) and n_alphas values: one eigendecomposition (O(m^3), or
    O(m d^2 + d^3) linear), then per alpha

    * ``"lpo"`` global: O(m^3) for the hold-out matrix (one SYRK; O(m r) linear) plus
      O(p) per pair, up to m (m - 1) / 2 pairs (O(m^2) memory);
    * ``"lpo"`` with queries: O(m r p) plus O(r + p) and a Python call per
      within-query pair (sum_q n_q (n_q - 1) / 2 pairs);
    * ``"lqo"``: O(m r p + sum_q (n_q^2 r + n_q^3)), batched over queries;
    * K-fold global: ``O(m r p + sum_f (|f|^2 r + |f|^3))``; with queries the same on
      the hold-out side, or for primal / Nystrom models with large folds (k features)
      ``O(|f| k p)`` per fold and alpha after ``O(|f| k^2 + k^3)`` once per fold (also
      with basis removal).

    With ``gamma="learn"``: per optimizer step one Cholesky factorization and inverse
    of the centred kernel (O(m^3)), O(m^2) per kernel parameter (O(m^2 d) for ARD).

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import RankRLSCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4)); y = X[:, 0] + 0.1 * rng.normal(size=60)
    >>> qid = np.repeat(np.arange(12), 5)
    >>> model = RankRLSCV(cv="lqo").fit(X, y, qid=qid)
    >>> model.best_score_ > 0.9
    True
    """

    def __init__(self, alphas=None, *, cv="lpo", scoring=None, kernel="linear",
                 gamma=None, degree=None, coef0=1, basis_vectors=None,
                 n_basis=None, basis_indices=None, random_state=None,
                 keep_basis_in_cv=False, ard=False, penalty=0.0, verbose=False):
        store_params(self, locals())

    # the same alphas semantics and checks as KernelRLSCV
    _check_alphas = KernelRLSCV._check_alphas
    _learns = KernelRLSCV._learns
    _start_fit = KernelRLSCV._start_fit

    def _kernel_spec(self, n_features):
        return learned_kernel_spec(self) or super()._kernel_spec(n_features)

    def _fit_learned(self, X, y, groups):
        """gamma='learn': the core's gradient search (leave-query-out with query ids,
        global leave-one-out without); returns the learned alpha."""
        return fit_learned_kernel(
            self, lambda name, **kw: (
                learn_kernel_global(X, y, **learning_options(name, **kw)) if groups is None
                else learn_kernel_lqo(X, y, groups, **learning_options(name, **kw))))

    def _check_cv(self):
        cv = self.cv
        bad = (cv not in _CV_STRINGS) if isinstance(cv, str) else (
            isinstance(cv, (bool, np.bool_))
            or (isinstance(cv, numbers.Real) and not isinstance(cv, numbers.Integral)))
        if bad:
            raise ValueError(f"cv must be 'lpo', 'lqo', an int >= 2, a CV splitter or "
                             f"an iterable of (train, test) splits, got {cv!r}")
        return cv

    def _crossvalidator(self, cv, measure, X, y, groups, qids):
        """The cross-validator of :mod:`rlscore.core.selection` for ``cv``."""
        model = self.model_
        m = X.shape[0]
        if isinstance(cv, str) and cv == "lpo":
            if m < 3:
                raise ValueError(f"cv='lpo' needs at least 3 samples, got {m}")
            return RankLPOCV(model) if groups is None else QueryLPOCV(model)
        if isinstance(cv, str):            # "lqo", with query ids (checked in fit)
            if groups.n_groups < 2:
                raise ValueError("cv='lqo' needs at least 2 queries, got 1")
            return LQOCV(model, measure)
        if groups is None:
            return make_crossvalidator(cv, model, measure, X, y, None)
        if isinstance(cv, numbers.Integral):
            # the library's K folds of whole queries, those of KfoldQueryRankRLS and
            # of the command line at their default seed 0
            try:
                folds = groups.folds(int(cv), 0)
            except ValueError as exc:
                raise ValueError(f"cv={cv}: {exc}") from None
            return NfoldCV(model, measure, folds, groups)
        # the splitter gets the ids as given, so that its splits are the ones the
        # user gets from it (GroupKFold, for one, breaks ties by the id values); every
        # split is held out with the exact shortcut of the core model (several queries
        # at once, the basis vectors among them removed unless keep_basis_in_cv)
        return split_crossvalidator(model, measure, _splits(cv, X, y, qids, m), groups)

    @reports_progress
    def fit(self, X, y, qid=None, groups=None):
        """Select alpha by cross-validation and fit the model with it.

        Parameters
        ----------
{data}
            The query ids are also the ``groups`` of a CV splitter.

        Returns
        -------
        self : RankRLSCV

        Raises
        ------
        ValueError
            Invalid parameter values or data; query ids of the wrong length;
            ``cv="lqo"`` without query ids (or with a single query); no pair to learn
            from (all labels tied, or every query a single sample); a measure that is
            undefined for every alpha (e.g. ``cv="lpo"`` with an output whose labels
            are all tied).
        TypeError
            Parameters of the wrong type.

        Notes
        -----
        See the class notes for the cost.
        """
        learn, alphas = self._start_fit()
        cv = self._check_cv()
        measure = _measures.cindex if self.scoring is None else \
            resolve_scoring(self.scoring, cv)
        X, y = self._validate_fit_data(X, y)
        gr = query_groups(qid, groups, X.shape[0])
        if isinstance(cv, str) and cv == "lqo" and gr is None:
            raise ValueError("cv='lqo' (leave-query-out) needs query ids: pass qid (or "
                             "groups) to fit")
        if learn:
            _check_has_pairs(type(self).__name__, X.shape[0], gr)
            alphas = [self._fit_learned(X, y, gr)]
        self._fit_model(X, y, alphas[0], path=True, groups=gr)
        return search_alphas(
            self, lambda: self._crossvalidator(cv, measure, X, y, gr,
                                               qid if qid is not None else groups),
            alphas)

    fit.__doc__ = fit.__doc__.format(data=fit_data_doc("Relevance scores.") + "\n" + _QID_DOC)
