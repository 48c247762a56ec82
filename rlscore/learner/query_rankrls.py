"""QueryRankRLS (pairs only within a query) with RLScore's interface, its
leave-query-out model selection LeaveQueryOutRankRLS, the cross-validator LQOCV and
map_qids."""

import numpy as np

from rlscore.core import rankrls as _core
from rlscore.core.rankrls import QueryRankRLSModel
from rlscore.core.selection import grid_search
from rlscore.learner._common import (exclusive,
    pop_basis_kwargs, regparam_grid, split_kernel_kwargs, squeeze)
from rlscore.predictor import PredictorInterface

__all__ = ["QueryRankRLS", "LeaveQueryOutRankRLS", "LQOCV", "map_qids"]

RANK_REGPARAMS = [2 ** x for x in range(-15, 15)]


def map_qids(qids):
    """Number the query ids 0, 1, ... in order of first appearance.

    Rows are grouped by equal value (not by contiguity): ``map_qids(['b', 'a', 'b'])``
    is ``[0, 1, 0]``.

    Parameters
    ----------
    qids : sequence of hashable ids (ints, strings, numpy scalars)

    Returns
    -------
    list of int, one per row

    Raises
    ------
    ValueError for an empty, non 1-D, NaN or non-integral float qids; TypeError for
    unhashable ids.

    Notes
    -----
    O(m) (O(m log m) for numeric arrays).
    """
    codes, _ = _core.map_qids(qids)
    return codes.tolist()


class QueryRankRLS(PredictorInterface):
    """RankRLS for query-structured data: pairs are formed only within a query; trains
    in the constructor.

    Minimizes (Y - KA)^T L (Y - KA) + regparam A^T K A with the per-query centering
    L = I - sum_q 1_q 1_q^T / n_q (a pair of query q weighs 1/n_q; RLScore's
    convention), so A = (LK + regparam I)^{-1} L Y; linear W = (X^T L X + regparam I)^{-1}
    X^T L Y; reduced set (K_r^T L K_r + regparam K_rr)^{-1} K_r^T L Y.

    Parameters
    ----------
    X : array-like or sparse (m, d); the kernel matrix for ``kernel="PrecomputedKernel"``
    Y : array-like (m,) or (m, p)
    qids : sequence of length m of hashable query ids; rows with equal ids form a query
        (they need not be contiguous). A query of one item is allowed and contributes
        no pairs (if every query is a singleton the model is zero, with a warning).
    regparam, kernel, basis_vectors, **kwargs : as for
        :class:`~rlscore.learner.global_rankrls.GlobalRankRLS` (bias forced to 0),
        including the keywords ``basis_indices``, ``n_basis``, ``random_state`` and
        ``keep_basis_in_cv`` (sparse RankRLS; ``holdout`` and leave-query-out then
        remove the held-out basis vectors).

    Attributes
    ----------
    predictor, regparam, Y (2-D), A
    qids : list of int, the mapped query ids (:func:`map_qids`)
    qidlist : list of lists of int, the row indices of each query

    Raises
    ------
    ValueError
        qids of the wrong length, NaN or non-integral float ids; all labels tied
        within every query (no pairs to learn from).

    Notes
    -----
    Training as GlobalRankRLS: O(m^2) for the per-query Householder rotation plus one
    Cholesky (dual O(m^3/3), primal O(m d^2)). After the eigendecomposition: ``solve``
    O(m^2 p) / O(d^2 p); ``holdout`` O(m r p + h^2 r + h^3).
    """

    def __init__(self, X, Y, qids, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                 **kwargs):
        self._setup(X, Y, qids, regparam, kernel, basis_vectors, kwargs, path=False)

    def _setup(self, X, Y, qids, regparam, kernel, basis_vectors, kwargs, path):
        kwargs = dict(kwargs)
        basis = pop_basis_kwargs(kwargs)
        params = split_kernel_kwargs(kwargs, kernel, type(self).__name__,
                                     force={"bias": 0.0})
        params.update(basis)
        self._model = QueryRankRLSModel(X, Y, qids, regparam, kernel, basis_vectors,
                                        path=path, **params)
        self.qids = self._model.qids.tolist()
        self.qidlist = self._model.qidlist
        self._sync()

    def _sync(self):
        self.Y = self._model.Y
        self.regparam = self._model.regparam
        self.predictor = self._model.predictor

    @property
    def A(self):
        return self._model.A

    @exclusive
    def solve(self, regparam=1.0):
        """Re-train with a new regparam (O(m^2 p) / O(d^2 p) after one
        eigendecomposition)."""
        self._model.solve(regparam)
        self._sync()

    @exclusive
    def holdout(self, indices):
        """Predictions for ``indices`` from the model retrained without them.

        All indices must belong to one query (else IndexError). Holding out a whole
        query is leave-query-out; holding out part of a query retrains with the
        remaining members forming a smaller query (upstream RLScore returned a value
        matching no retraining in that case). The usual index checks apply
        (IndexError for out-of-range or repeated indices, ValueError for an empty list).
        """
        return squeeze(self._model.holdout(indices))


class LQOCV:
    """Leave-query-out cross-validator (RLScore protocol: attributes ``rls`` and
    ``measure``, method ``cv(regparam)``).

    For each query, the hold-out predictions of the model trained without it (all
    queries at once, batched); performance = the mean over queries of
    ``measure(Y[query], P[query])``, skipping queries where the measure is undefined
    (e.g. all labels of the query tied). Predictions: a list (one per query) of 2-D
    arrays.

    Parameters
    ----------
    learner : QueryRankRLS (or its core model)
    measure : default ``cindex``
    """

    def __init__(self, learner, measure=None):
        if measure is None:
            from rlscore.measure import cindex as measure
        self.rls = learner
        self.measure = measure

    def _model(self):
        return getattr(self.rls, "_model", self.rls)

    def cv(self, regparam):
        from rlscore.measure import cindex
        from rlscore.measure.measure_utilities import UndefinedPerformance
        model = self._model()
        preds = model.leave_query_out()
        Y = model.Y
        members = model.qidlist
        if self.measure is cindex:
            perf = _mean_query_cindex(Y, preds, model)
            if perf is not None:
                return perf, preds
        perfs = []
        for rows, P in zip(members, preds):
            try:
                perfs.append(self.measure(Y[rows], P))
            except UndefinedPerformance:
                pass
        if not perfs:
            raise UndefinedPerformance("the measure is undefined on every query")
        return float(np.mean(perfs)), preds


def _mean_query_cindex(Y, preds, model):
    """Mean over queries of the per-query c-index (each the mean over its columns with
    a pair; queries without pairs skipped), computed in one grouped O(m log m) pass.
    None when the grouped helper is unavailable."""
    try:
        from rlscore.measure.cindex_measure import _cindex_cells
    except ImportError:
        return None
    from rlscore.measure.measure_utilities import UndefinedPerformance
    gr = model.groups
    P = np.empty_like(Y)
    for rows, Pq in zip(gr.members, preds):
        P[rows] = Pq
    try:
        values, valid = _cindex_cells(Y, P, gr.codes, gr.g)     # (p, g)
    except TypeError:
        return None
    counts = valid.sum(axis=0)
    keep = counts > 0
    if not np.any(keep):
        raise UndefinedPerformance("the measure is undefined on every query")
    per_query = np.where(valid, values, 0.0).sum(axis=0)[keep] / counts[keep]
    return float(np.mean(per_query))


class LeaveQueryOutRankRLS(PredictorInterface):
    """QueryRankRLS with regparam chosen by exact leave-query-out cross-validation.

    Parameters
    ----------
    X, Y, qids, kernel, basis_vectors, **kwargs : as for :class:`QueryRankRLS`
    regparams : sequence, default 2^-15 ... 2^14 (30 values)
    measure : default ``cindex`` (upstream RLScore crashed without a measure)

    Attributes
    ----------
    cv_performances : ndarray (grid,), the mean per-query performance
    cv_predictions : list (per regparam) of lists (per query) of hold-out arrays
    regparam, predictor, measure

    Notes
    -----
    One eigendecomposition (O(m^3) dual, O(m d^2) primal), then per regparam all
    queries in O(m r p + sum_q (n_q^2 r + n_q^3)): O(m^2 |q|) dual, O(m |q| d) primal,
    batched over queries of equal size.
    """

    def __init__(self, X, Y, qids, kernel="LinearKernel", basis_vectors=None,
                 regparams=None, measure=None, **kwargs):
        if measure is None:
            from rlscore.measure import cindex as measure
        self.measure = measure
        grid = regparam_grid(regparams, RANK_REGPARAMS)
        if not grid:
            raise ValueError("regparams is empty")
        learner = QueryRankRLS.__new__(QueryRankRLS)
        learner._setup(X, Y, qids, grid[0], kernel, basis_vectors, kwargs, path=True)
        cv = LQOCV(learner._model, measure)
        perfs, preds, best = grid_search(cv, grid)
        learner.solve(best)
        self.learner = learner
        self.cv_performances = perfs
        self.regparam = best
        self.predictor = learner.predictor
        self.cv_predictions = [[squeeze(p) for p in fold] for fold in preds]
