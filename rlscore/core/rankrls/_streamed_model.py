"""The RankRLS counterpart of :func:`rlscore.core.nystrom.fit_rls_model`: the model of the
RankRLS faces (the learners ``GlobalRankRLS`` / ``QueryRankRLS`` and the estimator
``RankRLS``) in memory (:class:`GlobalRankRLSModel`, :class:`QueryRankRLSModel`) or,
when :func:`rlscore.core.nystrom.plan_reduced_set` says so (a reduced set whose in-memory
arrays exceed ``memory_budget``, or ``solver="pcg"``), streamed
(:class:`StreamedRankModel` over :func:`streamed_rank_fit`): one decision for every
face, reported once and refused before any work when nothing fits."""

import numpy as np

from rlscore._blocks import working_memory
from rlscore._validation import as_2d_labels, check_regparam
from rlscore.core.rankrls._centered import _check_pairs_exist
from rlscore.core.rankrls._models import (GlobalRankRLSModel, QueryRankRLSModel,
                                          query_groups)
from rlscore.core.rankrls._pcg import streamed_rank_fit
from rlscore.core.nystrom import (CVIntent, ComputePlan, StreamedHoldoutPath,
                                  StreamedSelection, n_rows, plan_model, select_basis,
                                  split_basis_params)
from rlscore.core.structure import ArraySource, QueryGroups

__all__ = ["StreamedRankModel", "fit_rank_model"]


class StreamedRankModel(StreamedHoldoutPath):
    """Reduced-set global or query RankRLS trained from blocks of rows
    (:func:`streamed_rank_fit`, the direct r x r statistics or Falkon's PCG as the
    memory plan chose), with the training interface of :class:`GlobalRankRLSModel` /
    :class:`QueryRankRLSModel` that the faces use: ``Y``, ``regparam``,
    ``predictor``, ``solve``, ``m`` (and ``qids``, ``qidlist``, ``groups``), and
    the K-fold hold-out of a grid, ``holdout_path`` (direct; folds of whole queries
    for query RankRLS), that :class:`rlscore.core.selection.NfoldCV` uses. The same
    model and hold-out predictions to rounding (direct) or to the CG tolerance (PCG).

    Parameters
    ----------
    X : array-like or CSR (m, d)
    Y : (m,) or (m, p)
    qids : query ids (m,) or :class:`rlscore.core.structure.QueryGroups` for query
        RankRLS, None for global RankRLS; rows of a query need not be contiguous (they
        are streamed grouped by query, a stable order)
    regparam, kernel : as for the in-memory models
    route : the memory route (:func:`rlscore.core.nystrom.plan_reduced_set`; path
        "streamed" or "pcg", block size, working memory, PCG cache)
    plan : the :class:`rlscore.core.nystrom.ComputePlan` (PCG's options and precision)
    **params : ``basis_indices`` / ``n_basis``, ``random_state`` (the basis rows, drawn
        once), ``basis_vectors`` ((r, d) explicit basis rows instead: the hold-out then
        keeps them, as the in-memory models do), ``keep_basis_in_cv`` (default False:
        the hold-out removes held-out basis vectors) and the kernel's parameters
        (gamma, degree, coef0, bias)

    Attributes
    ----------
    Y (m, p), regparam, coef (k, p), predictor, basis_indices, plan (the route),
    streamed (the :class:`rlscore.core.nystrom.StreamedFit` of the last training)

    Notes
    -----
    Direct: one pass O(m b (d + b)), O(b^3) for the decomposition, then ``solve`` O(b^3)
    (a Cholesky of the r x r statistics) without reading the data again; K-fold over L
    lambdas two more passes O(m b (d + b + L p)). PCG: one CG run per ``solve``,
    O(m b (d + l)) per iteration recomputed. Memory O(b^2 (2 + K) + block b + m L p).
    ``leave_query_out`` (query RankRLS) is K-fold with one fold per query (O(q k^2)
    memory for the q queries' statistics); ``holdout``, ``leave_one_out`` and
    ``leave_pair_out`` are not available on a streamed model.
    """

    def __init__(self, X, Y, qids, regparam, kernel, route, plan=None, **params):
        basis_vectors = params.pop("basis_vectors", None)
        basis, kernel_params = split_basis_params(params)
        self.Y = as_2d_labels(Y)
        self.m = m = self.Y.shape[0]
        self._kind = "global" if qids is None else "query"
        self.groups = QueryGroups.single(m) if qids is None else query_groups(qids, m)
        _check_pairs_exist(self.groups, self.Y, qids is None, stacklevel=5)
        codes = None
        if qids is not None:
            self.qids = codes = self.groups.codes
            self.qidlist = self.groups.member_lists()
            if np.any(codes[1:] < codes[:-1]):
                # streamed grouped by query: the model does not depend on the order
                self._order = self.groups.order
        self.plan = route
        self.basis_indices = select_basis(m, basis["basis_indices"], basis["n_basis"],
                                          basis["random_state"])
        if self.basis_indices is not None and basis_vectors is not None:
            raise ValueError("give basis_vectors or basis_indices/n_basis, not both")
        self.basis_vectors = basis_vectors
        o = self._order
        self.source = ArraySource(X if o is None else X[o], self.Y if o is None else
                                  self.Y[o], qids=codes if o is None else codes[o])
        self.block_size = route.block_size
        self.remove_basis = not basis["keep_basis_in_cv"]
        self._kernel, self._kernel_params = kernel, kernel_params
        self._compute = ComputePlan() if plan is None else plan
        self.streamed = None
        self.solve(regparam)

    def _streamed_basis(self):
        if self._order is None or self.basis_indices is None:
            return self.basis_indices
        back = np.empty_like(self._order)
        back[self._order] = np.arange(self._order.size)
        return np.sort(back[self.basis_indices])

    def _budget(self):
        return working_memory(self.plan.working_memory)

    def _direct(self, what):
        if self.plan.path == "pcg":
            raise ValueError(f"{what} is not available with solver='pcg'; use "
                             f"solver='direct' or 'auto'")
        return self.streamed.model

    def solve(self, regparam):
        """Train for ``regparam``: O(b^3) on the kept statistics (direct), one PCG run
        otherwise."""
        self.regparam = check_regparam(regparam)
        if self.streamed is None or self.plan.path == "pcg":
            self.streamed = streamed_rank_fit(
                self.source, self._kernel, self._kernel_params, self._kind,
                select=StreamedSelection(regparam=self.regparam), plan=self._compute,
                route=self.plan, basis_indices=self._streamed_basis(),
                basis_vectors=self.basis_vectors)
            self.coef, self.predictor = self.streamed.W, self.streamed.predictor
            if self.streamed.model is not None:
                self.fmap = self.streamed.model.fmap
        else:
            model = self.streamed.model
            self.coef = model.solve(self.regparam)
            self.predictor = model.predictor(self.coef)
        return self

    @property
    def A(self):
        raise ValueError("a streamed model keeps no m x p dual coefficients; its "
                         "predictor's A holds the coefficients of the basis vectors")

    def _refuse(self, *args, **kwargs):
        raise ValueError("holdout, leave_one_out and leave_pair_out are not available "
                         "for a streamed RankRLS model (K-fold and leave-query-out are); "
                         "give a "
                         "larger memory_budget (or None) to keep the model in memory, or "
                         "select the regparam with rlscore.learner.StreamedRLS(kind=..., "
                         "regparams=..., cv=...)")

    holdout = holdout_rows = leave_one_out = leave_pair_out = _refuse

    def leave_query_out(self):
        """Query RankRLS: for each query (code order) the predictions (n_q, p) of the
        model trained without it (its basis vectors removed unless kept), at the
        current regparam: :meth:`holdout_path` with one fold per query (two passes;
        the folds' statistics are kept for the next regparam). Memory O(q k^2) for q
        queries."""
        if self._kind != "query":
            self._refuse()
        return self.holdout_path(self.groups.split(), [self.regparam])[0]


def fit_rank_model(X, Y, qids=None, regparam=1.0, kernel="LinearKernel", path=False,
                   *, plan=None, cv=None, **params):
    """The RankRLS model of a face: global without ``qids``, query-structured with
    (``qids`` the query ids or a :class:`rlscore.core.structure.QueryGroups`; a face
    whose model needs queries checks they are given by
    :func:`rlscore.core.rankrls.query_groups`).

    :class:`GlobalRankRLSModel` / :class:`QueryRankRLSModel` in memory, or
    :class:`StreamedRankModel` when the model is a reduced set (``basis_indices`` /
    ``n_basis`` or ``basis_vectors``) whose in-memory arrays would exceed the plan's
    ``memory_budget``, or ``solver="pcg"`` -- the decision of
    :func:`rlscore.core.nystrom.plan_model` (the same as the RLS faces': reported once,
    refused before any work when nothing fits).

    Parameters
    ----------
    X, Y, qids, regparam, kernel, path, **params : of the in-memory models
        (``basis_vectors``, ``basis_indices``, ``n_basis``, ``random_state``,
        ``keep_basis_in_cv``, kernel parameters)
    plan : :class:`rlscore.core.nystrom.ComputePlan` (default ``ComputePlan()``): the
        budget, blocks, solver and PCG's options (refused when the route is not PCG)
    cv : :class:`rlscore.core.nystrom.CVIntent` or None: the cross-validation that will
        follow: "kfold" (:meth:`StreamedRankModel.holdout_path` streams it), "lqo"
        (query RankRLS: K-fold with one fold per query, :meth:`CVIntent.per_query`)
        or another kind that keeps the model in memory (leave-pair-out needs the
        in-memory formulas)

    Returns
    -------
    GlobalRankRLSModel, QueryRankRLSModel or StreamedRankModel (attribute ``plan``:
    the route, or None when the model is not a reduced set; ``compute_plan``: the
    ComputePlan)

    Notes
    -----
    O(1) for the decision (O(m) to group the queries once); the cost of the chosen
    model.
    """
    plan = ComputePlan() if plan is None else plan
    cv = CVIntent() if cv is None else cv
    groups = None if qids is None else query_groups(qids, n_rows(X))
    if cv.kind == "lqo":
        # leave-query-out streams as K-fold with one fold per query
        cv = cv.per_query(groups.n_groups) if groups is not None else \
            CVIntent("rank", cv.n_values)
    basis_vectors = params.pop("basis_vectors", None)
    route = plan_model(X, Y, basis_vectors, params, kernel=kernel, plan=plan, cv=cv,
                       kind="global" if groups is None else "query")
    if route is None or route.path == "memory":
        if groups is None:
            model = GlobalRankRLSModel(X, Y, regparam, kernel, basis_vectors, decompose_now=path,
                                       **params)
        else:
            model = QueryRankRLSModel(X, Y, groups, regparam, kernel, basis_vectors,
                                      decompose_now=path, **params)
    else:
        model = StreamedRankModel(X, Y, groups, regparam, kernel, route, plan,
                                  basis_vectors=basis_vectors, **params)
    model.plan, model.compute_plan = route, plan
    return model
