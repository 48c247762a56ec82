"""The streamed reduced-set model behind the faces' automatic switch:
:class:`StreamedRLSModel` has the interface of :class:`rlscore.core.nystrom.RLSModel`
that training and selection use (``Y``, ``regparam``, ``predictor``, ``solve``,
``leave_one_out(_path)``, ``holdout(_path)``), over
:class:`rlscore.core.nystrom.StreamedReducedSet` (or Falkon's PCG), and
:func:`fit_rls_model` builds whichever of the two :func:`plan_reduced_set` chose."""

import numpy as np

from rlscore._blocks import working_memory
from rlscore._validation import as_2d_labels, check_regparam, fold_membership
from rlscore.core.nystrom._memory_plan import (MEMORY_BUDGET_DEFAULT, PCG_NAMES,
                                           check_memory_options, check_pcg_options,
                                           plan_reduced_set)
from rlscore.core.nystrom._model import RLSModel, n_rows
from rlscore.core.nystrom._nystrom import select_basis
from rlscore.core.nystrom._pcg import pcg_reduced_set
from rlscore.core.nystrom._representation import NystromFeatureMap
from rlscore.core.nystrom._streamed import StreamedReducedSet
from rlscore.core.structure import ArraySource

__all__ = ["StreamedRLSModel", "fit_rls_model", "plan_model", "StreamedHoldoutPath"]


class StreamedHoldoutPath:
    """K-fold hold-out over a regparam grid for the streamed reduced-set models
    (:class:`StreamedRLSModel`, :class:`rlscore.core.rankrls.StreamedRankModel`): one
    pass accumulates each fold's b x b statistics (kept for the next call with the
    same folds), one more predicts the held-out rows
    (:meth:`rlscore.core.nystrom.StreamedReducedSet.kfold_path`). The model provides
    ``source`` (the rows as streamed), ``fmap``, ``basis_indices`` (in the streamed
    order), ``block_size``, ``remove_basis``, ``_budget()``, ``_kind`` ("rls",
    "query", "global") and ``_order`` (the streamed order of the caller's rows, or
    None when they are streamed as given)."""

    _folds_key = _folds_model = None
    _kind, _order = "rls", None

    def holdout_path(self, folds, regparams):
        """For each lambda, the list of each fold's hold-out predictions (n_f, p): the
        model trained without the fold (its basis vectors removed when known and not
        kept). Rows in no fold form one more fold that is not reported ("query": the
        folds must hold whole queries). One pass to accumulate the folds' statistics,
        one for the predictions: O(m b (d + b + L p))."""
        self._direct("hold-out")
        folds = [np.asarray(f, dtype=np.intp).ravel() for f in folds]
        key = tuple(f.tobytes() for f in folds)
        if key != self._folds_key:
            m = self.source.m
            fold_of = fold_membership(folds, m)
            fold_of[fold_of < 0] = len(folds)
            if self._order is not None:
                fold_of = fold_of[self._order]
            with self._budget():
                self._folds_model = StreamedReducedSet(
                    self.source, self.fmap, self._kind,
                    basis_indices=self._streamed_basis(), folds=fold_of,
                    block_size=self.block_size, lambda_count=len(list(regparams)))
            self._folds_key = key
        with self._budget():
            # the rows in no fold are one more fold, whose model is never needed
            P = self._folds_model.kfold_path(list(regparams), self.remove_basis,
                                             folds=range(len(folds)))
        if self._order is not None:
            back = np.empty_like(self._order)
            back[self._order] = np.arange(self._order.size)
            P = P[back]
        return [[P[f, j, :] for f in folds] for j in range(P.shape[1])]

    def _streamed_basis(self):
        return self.basis_indices


class StreamedRLSModel(StreamedHoldoutPath):
    """Reduced-set RLS trained from blocks of rows, with the training and selection
    interface of :class:`rlscore.core.nystrom.RLSModel` (the same model to rounding).

    Parameters
    ----------
    X, Y, regparam, kernel, basis_vectors : as for :class:`RLSModel`
    basis_indices, n_basis, random_state, keep_basis_in_cv : as for :class:`RLSModel`
    kernel_params : keywords, as for :class:`RLSModel`
    block_size : rows per block
    solver : "direct" (b x b statistics, exact cross-validation) or "pcg" (one
        regparam at a time, no cross-validation)
    lambda_count : regparams of the cross-validation to come (sizes the estimate)
    working_memory : MiB of temporaries per block (None: the current setting)
    cache : PCG keeps the kernel blocks between iterations ("auto", True, False; see
        :class:`rlscore.core.nystrom.StreamedGramOperator`)
    tol, maxiter : PCG's stopping tolerance on the relative residual (None:
        :data:`rlscore.core.nystrom.PCG_TOL`) and iteration cap (None: none)

    Attributes
    ----------
    Y (m, p), regparam, coef (k, p), predictor, basis_indices, remove_basis,
    streamed (the :class:`StreamedReducedSet`, or the PCG's SolverResult), fmap

    Notes
    -----
    Direct: one pass O(m b (d + b)) and O(b^3); leave-one-out over a grid one more
    pass O(m b (d + b + L p)); K-fold one pass to accumulate the fold statistics
    (once per set of folds) and one for the held-out predictions. Memory
    O(b^2 (2 + K) + block b + m L p). PCG: see :func:`pcg_reduced_set`.
    """

    def __init__(self, X, Y, regparam=1.0, kernel="GaussianKernel", basis_vectors=None,
                 basis_indices=None, n_basis=None, random_state=None,
                 keep_basis_in_cv=False, block_size=None, solver="direct",
                 lambda_count=1, working_memory=None, cache="auto", tol=None,
                 maxiter=None, **kernel_params):
        self.Y = as_2d_labels(Y)
        self.source = ArraySource(X, self.Y)
        idx = select_basis(self.source.m, basis_indices, n_basis, random_state)
        if idx is not None and basis_vectors is not None:
            raise ValueError("give basis_vectors or basis_indices/n_basis, not both")
        self.basis_indices = idx
        rows = basis_vectors if idx is None else self.source.rows(idx)
        self.fmap = NystromFeatureMap(kernel, rows, **kernel_params)
        self.remove_basis = idx is not None and not keep_basis_in_cv
        self.block_size, self.solver_name = block_size, solver
        self._wm, self._cache = working_memory, cache
        self._tol, self._maxiter = check_pcg_options(tol, maxiter, ("tol", "maxiter"))
        with self._budget():
            if solver == "pcg":
                self.streamed = None
            else:
                self.streamed = StreamedReducedSet(
                    self.source, self.fmap, basis_indices=idx, block_size=block_size,
                    lambda_count=lambda_count)
        self.solve(regparam)

    def _budget(self):
        return working_memory(self._wm)

    # -- training ----------------------------------------------------------------
    def solve(self, regparam):
        """Train for ``regparam``: O(b^2 p) after a decomposition (direct), one PCG
        run otherwise."""
        self.regparam = check_regparam(regparam)
        if self.solver_name == "pcg":
            with self._budget():
                res = pcg_reduced_set(self.source, self.fmap, self.regparam,
                                      block_size=self.block_size, cache=self._cache,
                                      tol=self._tol, maxiter=self._maxiter)
            self.streamed, self.coef = res, res.solution
        else:
            self.coef = self.streamed.solve(self.regparam)
        self.predictor = self.fmap.predictor(self.coef)
        return self

    @property
    def A(self):
        raise ValueError("a streamed model keeps no m x p dual coefficients; its "
                         "predictor's A holds the coefficients of the basis vectors")

    def _direct(self, what):
        if self.solver_name == "pcg":
            raise ValueError(f"{what} is not available with solver='pcg'; use "
                             f"solver='direct' or 'auto'")
        return self.streamed

    # -- cross-validation -----------------------------------------------------------
    def leave_one_out_path(self, regparams):
        """Leave-one-out predictions (m, p) for every lambda (a list), one pass."""
        st = self._direct("leave-one-out")
        with self._budget():
            P = st.leave_one_out_path(list(regparams), self.remove_basis)
        return [P[:, j, :] for j in range(P.shape[1])]

    def leave_one_out(self):
        """Leave-one-out predictions (m, p) at the current regparam, one pass."""
        return self.leave_one_out_path([self.regparam])[0]

    def holdout(self, indices):
        """Predictions for ``indices`` from the model trained without them (two passes
        over the data)."""
        idx = np.asarray(indices, dtype=np.intp).ravel()
        if idx.size == 0 or idx.size >= self.source.m:
            raise ValueError("hold out at least one row and leave at least one")
        return self.holdout_path([idx], [self.regparam])[0][0]

    def leave_pair_out(self, starts, ends):
        raise ValueError("leave-pair-out is not available for a streamed model; give a "
                         "larger memory_budget (or None) to keep the model in memory")

    def interval_model(self, *args, **kwargs):
        raise ValueError("prediction intervals are not available for a streamed model; "
                         "give a larger memory_budget (or None) to keep the model in "
                         "memory")


def plan_model(X, Y, basis_vectors=None, params=None, *, kernel="LinearKernel",
               memory_budget=MEMORY_BUDGET_DEFAULT, block_size=None, solver="auto",
               cv=None, n_lambdas=1, n_folds=0, streamable=True, verbose=None,
               kind="rls", pcg_tol=None, pcg_maxiter=None, pcg_names=PCG_NAMES):
    """The memory plan of a face's model on in-memory data (RLS here, RankRLS in
    :func:`rlscore.core.rankrls.fit_rank_model`): None when the model is not a reduced
    set (no ``basis_vectors``, ``basis_indices`` or ``n_basis`` in ``params``), else
    :func:`plan_reduced_set` for its sizes -- reported once, refused before any work
    when nothing fits. ``streamable=False``: the model cannot stream (it stays in
    memory whatever the budget). ``kind``: "rls", or "query" / "global" for RankRLS
    (its streamed estimate). Checks the three keywords (and refuses
    ``solver="pcg"`` with cross-validation or without a reduced set) and PCG's two,
    ``pcg_tol`` and ``pcg_maxiter`` (named ``pcg_names`` in the face's messages):
    given (not None) when the plan is not PCG -- ``solver="direct"``, or ``"auto"``
    choosing the direct solver -- they are refused rather than ignored. O(1)."""
    check_memory_options(memory_budget, solver, block_size)
    check_pcg_options(pcg_tol, pcg_maxiter, pcg_names)
    plan = _plan_model(X, Y, basis_vectors, params, kernel, memory_budget, block_size,
                       solver, cv, n_lambdas, n_folds, streamable, verbose, kind)
    given = [n for n, v in zip(pcg_names, (pcg_tol, pcg_maxiter)) if v is not None]
    if given and (plan is None or plan.path != "pcg"):
        why = ("the model is not a reduced set" if plan is None else
               "solver='direct'" if solver == "direct" else
               "the exact cross-validation that follows needs it" if cv is not None else
               "solver='auto' chose it: the direct solver fits the memory budget")
        names = " and ".join(given)
        raise ValueError(f"{names} {'apply' if len(given) > 1 else 'applies'} to the "
                         f"PCG solver, but this model is trained by the direct solver "
                         f"({why}); give solver='pcg' or drop {names}")
    return plan


def _plan_model(X, Y, basis_vectors, params, kernel, memory_budget, block_size, solver,
                cv, n_lambdas, n_folds, streamable, verbose, kind):
    """:func:`plan_model` without PCG's two keywords."""
    if solver == "pcg" and cv is not None:
        raise ValueError("solver='pcg' trains one regparam here, without the exact "
                         "cross-validation; use solver='direct' or 'auto' to select it "
                         "(or rlscore.learner.StreamedRLS, whose PCG selects on a "
                         "validation split or K-fold)")
    b = _n_basis(basis_vectors, params or {})
    if b is None:
        if solver == "pcg":
            raise ValueError("solver='pcg' needs a reduced-set model (basis_vectors, "
                             "n_basis or basis_indices)")
        return None
    dense = isinstance(X, np.ndarray) or hasattr(X, "tocsr") or hasattr(X, "compute")
    d = X.shape[1] if dense and len(getattr(X, "shape", ())) == 2 else 0
    p = as_2d_labels(Y).shape[1]
    return plan_reduced_set(n_rows(X), b, d, p, memory_budget=memory_budget,
                            solver=solver, block_size=block_size, cv=cv,
                            n_lambdas=n_lambdas, n_folds=n_folds, kernel=kernel,
                            streamable=bool(d) and streamable, verbose=verbose,
                            kind=kind)


def fit_rls_model(X, Y, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                  path=False, *, memory_budget=MEMORY_BUDGET_DEFAULT, block_size=None,
                  solver="auto", cv=None, n_lambdas=1, n_folds=0, verbose=None,
                  pcg_tol=None, pcg_maxiter=None, pcg_names=PCG_NAMES, **params):
    """The RLS model of a face: :class:`RLSModel`, or :class:`StreamedRLSModel` when
    the model is a reduced set whose in-memory arrays would exceed ``memory_budget``
    (or ``solver="pcg"``), as :func:`plan_reduced_set` decides (and reports, and
    refuses before any work when nothing fits; :func:`plan_model`).

    Parameters
    ----------
    X, Y, regparam, kernel, basis_vectors, path, **params : of :class:`RLSModel`
        (``basis_indices``, ``n_basis``, ``random_state``, ``keep_basis_in_cv``,
        kernel parameters)
    memory_budget, block_size, solver : of :func:`plan_reduced_set`
    cv, n_lambdas, n_folds : the cross-validation that will follow (None, "loo",
        "kfold", or another name that keeps the model in memory)
    pcg_tol, pcg_maxiter, pcg_names : PCG's stopping tolerance and iteration cap
        (None: :data:`PCG_TOL`, no cap), refused when the plan is not PCG (of
        :func:`plan_model`)

    Returns
    -------
    RLSModel or StreamedRLSModel (attribute ``plan``: the decision, or None when the
    model is not a reduced set)
    """
    plan = plan_model(X, Y, basis_vectors, params, kernel=kernel,
                      memory_budget=memory_budget, block_size=block_size, solver=solver,
                      cv=cv, n_lambdas=n_lambdas, n_folds=n_folds, verbose=verbose,
                      pcg_tol=pcg_tol, pcg_maxiter=pcg_maxiter, pcg_names=pcg_names)
    if plan is None or plan.path == "memory":
        model = RLSModel(X, Y, regparam, kernel, basis_vectors, path=path, **params)
    else:
        model = StreamedRLSModel(X, as_2d_labels(Y), regparam, kernel, basis_vectors,
                                 block_size=plan.block_size,
                                 solver="pcg" if plan.path == "pcg" else "direct",
                                 lambda_count=n_lambdas, working_memory=plan.working_memory,
                                 cache=plan.pcg_cache, tol=pcg_tol,
                                 maxiter=pcg_maxiter, **params)
    model.plan = plan
    return model


def _n_basis(basis_vectors, params):
    """The number of basis vectors of a reduced-set model, or None."""
    if basis_vectors is not None:
        shape = getattr(basis_vectors, "shape", None)
        return int(shape[0]) if shape is not None else len(basis_vectors)
    if params.get("basis_indices") is not None:
        return int(np.size(params["basis_indices"]))
    if params.get("n_basis") is not None:
        return int(params["n_basis"])
    return None
