"""QueryRankRLS (pairs only within a query) with RLScore's interface, its
leave-query-out model selection LeaveQueryOutRankRLS, its K-fold-by-query selection
KfoldQueryRankRLS (new), the cross-validator LQOCV and map_qids."""

import numbers

from rlscore.core.nystrom import CVIntent
from rlscore.core.structure import QueryGroups
from rlscore.core.selection import LQOCV as _CoreLQOCV, NfoldCV
from rlscore.learner._common import (
    RANK_MEMORY_DOC, VERBOSE_DOC, CoreModelAdapter, exclusive, fit_rank_learner,
    learn_kernel_parameters, learns_kernel, regparam_grid, reports_progress,
    select_regparam, squeeze)
from rlscore.predictor import PredictorInterface

__all__ = ["QueryRankRLS", "LeaveQueryOutRankRLS", "KfoldQueryRankRLS", "LQOCV",
           "map_qids"]

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
    return QueryGroups.from_qids(qids).codes.tolist()


class QueryRankRLS(CoreModelAdapter, PredictorInterface):
    __doc__ = f"""RankRLS for query-structured data: pairs are formed only within a query; trains
    in the constructor.

    Minimizes (Y - KA)^T L (Y - KA) + regparam A^T K A with the per-query centering
    L = I - sum_q 1_q 1_q^T / n_q (a pair of query q weighs 1/n_q; RLScore's
    convention), so A = (LK + regparam I)^{{-1}} L Y; linear W = (X^T L X + regparam I)^{{-1}}
    X^T L Y; reduced set (K_r^T L K_r + regparam K_rr)^{{-1}} K_r^T L Y.

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
{RANK_MEMORY_DOC}
{VERBOSE_DOC}

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

    @reports_progress
    def __init__(self, X, Y, qids, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
                 **kwargs):
        self._adopt(self._fit_model((X, Y, qids), regparam, kernel, basis_vectors,
                                    kwargs, path=False, cv=None))

    @classmethod
    def _fit_model(cls, data, regparam, kernel, basis_vectors, kwargs, path, cv):
        """The core model (:func:`rlscore.core.rankrls.fit_rank_model`, per query) of
        ``data`` = (X, Y, qids)."""
        return fit_rank_learner(cls.__name__, data, regparam, kernel, basis_vectors,
                                kwargs, path, cv)

    def _adopt(self, model):
        self._model = model
        self.qids = model.qids.tolist()
        self.qidlist = model.qidlist
        self._sync()

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

    @exclusive
    def holdout_rows(self, indices):
        """Predictions for any rows ``indices`` -- several whole queries (a fold of
        K-fold cross-validation by query), parts of queries, or both -- from the model
        retrained without them (new: ``holdout`` takes rows of one query, as upstream's
        did). Exact, without retraining
        (:meth:`rlscore.core.rankrls.QueryRankRLSModel.holdout_rows`; with basis
        removal the basis vectors among the rows are removed too). O(m r p + h^2 r +
        h^3) per call, or O(h k p) for primal / Nystrom models with large folds
        after a once-per-fold O((h + t) k^2 + k^3) refit (t touched queries)."""
        return squeeze(self._model.holdout_rows(indices))


class LeaveQueryOutRankRLS(PredictorInterface):

    __doc__ = f"""QueryRankRLS with regparam chosen by exact leave-query-out cross-validation.

    Parameters
    ----------
    X, Y, qids, kernel, basis_vectors, **kwargs : as for :class:`QueryRankRLS`
    regparams : sequence, default 2^-15 ... 2^14 (30 values)
    measure : default ``cindex`` (upstream RLScore crashed without a measure)
    gamma : float or ``"learn"``
        ``gamma="learn"`` (Gaussian or polynomial kernel) learns gamma (polynomial: and
        coef0) and regparam by minimizing the exact leave-query-out squared ranking
        error with its gradient (:func:`rlscore.core.hyper.learn_kernel_lqo`);
        ``regparams`` must be None; keywords ``ard=True`` (one gamma per feature),
        ``penalty``, ``restarts`` and ``maxiter``. With ``basis_vectors`` (Gaussian
        kernel) the criterion is that of the Nystrom model on those rows
        (:class:`rlscore.core.hyper.NystromLQOObjective`, O(m r^2) per step). The learned values are the attributes ``gamma``,
        ``length_scales`` / ``coef0``, ``cv_history`` (per optimizer step) and
        ``kernel_learning``.
{VERBOSE_DOC}

    Attributes
    ----------
    cv_performances : ndarray (grid,), the mean per-query performance
    cv_predictions : list (per regparam) of lists (per query) of hold-out arrays
    regparam, predictor, measure

    Notes
    -----
    One eigendecomposition (O(m^3) dual, O(m d^2) primal), then per regparam all
    queries in O(m r p + sum_q (n_q^2 r + n_q^3)): ``O(m^2 |q|)`` dual, ``O(m |q| d)`` primal,
    batched over queries of equal size. With ``gamma="learn"``: O(m^3) per optimizer
    step (one Cholesky factorization and inverse, two products) plus O(m^2 d); with r
    basis vectors O(m r^2 + r^3 + m r d).
    """

    @reports_progress
    def __init__(self, X, Y, qids, kernel="LinearKernel", basis_vectors=None,
                 regparams=None, measure=None, **kwargs):
        if measure is None:
            from rlscore.measure import cindex as measure
        self.measure = measure
        if learns_kernel(kwargs):
            from rlscore.core.hyper import learn_kernel_lqo, learning_options
            kwargs, regparams = learn_kernel_parameters(
                self, kernel, basis_vectors, regparams, kwargs,
                lambda **kw: learn_kernel_lqo(X, Y, qids, **learning_options(kernel, **kw)))
        # streams when the model does (memory_budget): one fold per query
        regparams = regparam_grid(regparams, RANK_REGPARAMS)
        self._cv_intent = CVIntent("lqo", len(regparams))
        preds = select_regparam(self, QueryRankRLS, (X, Y, qids),
                                (kernel, basis_vectors, kwargs), regparams,
                                RANK_REGPARAMS, lambda model: _CoreLQOCV(model, measure))
        # ndarray.squeeze: RLScore's squeeze for the core's arrays, without its
        # per-call overhead (one call per query and regparam)
        self.cv_predictions = [[p.squeeze() for p in fold] for fold in preds]


class KfoldQueryRankRLS(PredictorInterface):

    """QueryRankRLS with regparam chosen by K-fold cross-validation over folds of whole
    queries, every fold from the exact hold-out of its queries (no retraining; new, not
    in upstream RLScore).

    Parameters
    ----------
    X, Y, qids, kernel, basis_vectors, **kwargs : as for :class:`QueryRankRLS`
        (with ``basis_indices`` / ``n_basis`` the basis vectors of a fold's queries are
        removed from its model, unless ``keep_basis_in_cv=True``)
    folds : int K or list of index lists
        K: K random folds of whole queries (:meth:`QueryGroups.folds` with
        ``seed``); or the folds themselves, each an index list that should hold whole
        queries (a query split between folds is held out in part: exact, the rest of
        it stays in training); no row may be in two folds (ValueError).
    regparams : sequence, default 2^-15 ... 2^14 (30 values)
    measure : default ``cindex``; applied per query within a fold and averaged over
        the fold's queries (:func:`rlscore.core.selection.query_score`), queries where
        it is undefined skipped
    seed : int, default 0, the seed of ``folds=K``
    verbose : bool, default False (keyword)
        Show the progress on stderr; it is logged either way (logger ``"rlscore"``).

    Attributes
    ----------
    cv_performances : ndarray (grid,), the unweighted mean over folds of the per-fold
        query-averaged performance (:class:`rlscore.core.selection.NfoldCV`; folds
        without a query where the measure is defined skipped): K-fold by query as
        ``rlscore cv --cv kfold --folds K --seed SEED`` and
        ``rlscore.estimators.RankRLSCV(cv=K)`` (seed 0) compute it, on the same folds
    cv_predictions : list (per regparam) of lists (per fold) of hold-out arrays
    folds : list of index arrays
    regparam, predictor, measure

    Raises
    ------
    ValueError
        folds < 2 or more than the queries, bad fold indices, or a fold holding every
        row (or, with basis removal, every basis vector).

    Notes
    -----
    One eigendecomposition (O(m^3) dual, O(m d^2) primal), then per regparam and fold
    of h rows O(m r p + h^2 r + h^3) (dual: r ~ m), or for primal / Nystrom models with
    large folds (or basis removal) O(h k p) after O((h + t) k^2 + k^3) once per fold,
    t the touched queries (:meth:`QueryRankRLS.holdout_rows`).
    """

    @reports_progress
    def __init__(self, X, Y, qids, folds, kernel="LinearKernel", basis_vectors=None,
                 regparams=None, measure=None, seed=0, **kwargs):
        if measure is None:
            from rlscore.measure import cindex as measure
        self.measure = measure
        state = {}
        # K-fold streams when the model does (memory_budget): the folds' statistics
        n_folds = folds if isinstance(folds, numbers.Integral) and not isinstance(
            folds, bool) else len(folds) if isinstance(folds, (list, tuple)) else 0
        regparams = regparam_grid(regparams, RANK_REGPARAMS)
        self._cv_intent = CVIntent.kfold(len(regparams), int(n_folds))

        def make_cv(model):
            groups = model.groups
            if isinstance(folds, numbers.Integral) and not isinstance(folds, bool):
                chosen = groups.folds(int(folds), seed)
            elif isinstance(folds, (bool, numbers.Number, str)) or folds is None:
                raise TypeError(f"folds must be an int or a list of index lists, got "
                                f"{folds!r}")
            else:
                chosen = folds
            cv = NfoldCV(model, measure, chosen, groups, disjoint=True)
            state["folds"] = cv.folds
            return cv
        preds = select_regparam(self, QueryRankRLS, (X, Y, qids),
                                (kernel, basis_vectors, kwargs), regparams,
                                RANK_REGPARAMS, make_cv)
        self.folds = state["folds"]
        self.cv_predictions = [[squeeze(p) for p in fold] for fold in preds]


class LQOCV(_CoreLQOCV):
    """RLScore's leave-query-out cross-validator of a :class:`QueryRankRLS` learner,
    for :func:`rlscore.utilities.cross_validation.grid_search`: ``LQOCV(learner,
    measure=None)``. The grid search re-solves the learner (``rls``); the hold-outs
    are those of its core model (:class:`rlscore.core.selection.LQOCV`, whose
    docstring states the cost). A core model is accepted as well."""

    def __init__(self, learner, measure=None):
        super().__init__(learner, measure)
        if isinstance(learner, QueryRankRLS):
            self.model = learner._model
