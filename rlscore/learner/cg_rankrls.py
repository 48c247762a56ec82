"""CGRankRLS and PCGRankRLS: linear RankRLS by conjugate gradient for large sparse data,
from scored (optionally query-structured) data or from preference pairs, with RLScore's
interface, and the early-stopping callback ``EarlyStopCB``."""

import numpy as np

from rlscore._validation import check_positive_int, check_tol
from rlscore.core.rankrls import cg_preference_rankrls, cg_rankrls
from rlscore.core.structure import QueryGroups
from rlscore.learner import cg_rls as _cg_rls
from rlscore._validation import as_2d_labels, warn_unused_kwargs
from rlscore.predictor import PredictorInterface
from rlscore.learner._common import reports_progress

__all__ = ["CGRankRLS", "PCGRankRLS", "EarlyStopCB", "Finished"]


class Finished(_cg_rls.Finished):
    """Raised by a callback to stop :class:`CGRankRLS`; ``.value`` holds the message.
    The learner keeps the primal weights that ``learner.A`` holds at that moment."""


class EarlyStopCB(_cg_rls.EarlyStopCB):
    """Early stopping for :class:`CGRankRLS` on a validation set.

    After each iteration the current model is evaluated on ``(X_valid, Y_valid)``: with
    ``qids_valid`` the performance is the mean over the validation queries of
    ``measure`` on each query (queries where it is undefined are skipped); without, it
    is ``measure`` on the whole set (RLScore crashed here; one global group is the
    documented intent). The best primal iterate is remembered (strict improvement, in
    the direction of ``measure.iserror``); after ``maxiter`` consecutive iterations
    without improvement (the patience) the learner's ``A`` is reset to it and :class:`Finished` is
    raised.

    Parameters
    ----------
    X_valid : array-like or sparse (n, d)
    Y_valid : array-like (n,) or (n, 1)
    qids_valid : sequence of length n or None
    measure : performance measure, default ``sqmprank``
    maxiter : int, default 10
        The patience (RLScore's keyword; not the learner's cap on CG iterations).

    Attributes
    ----------
    bestperf, bestA, iter, last_update, patience
    maxiter : RLScore's name of ``patience``

    Notes
    -----
    One prediction plus one evaluation per query per iteration: O(nnz(X_valid) +
    sum_q cost(measure, n_q)).
    """

    def __init__(self, X_valid, Y_valid, qids_valid=None, measure=None, maxiter=10):
        if measure is None:
            from rlscore.measure import sqmprank as measure
        self.X_valid = X_valid
        self.Y_valid = as_2d_labels(Y_valid, name="Y_valid")
        self.measure = measure
        self.patience = maxiter
        if qids_valid is None:
            self.qidlist = None
        else:
            self.qidlist = QueryGroups.from_qids(qids_valid, self.Y_valid.shape[0],
                                                 name="qids_valid").split()
        self.bestperf = None
        self.bestA = None
        self.iter = 0
        self.last_update = 0

    def _performance(self, P):
        from rlscore.measure import UndefinedPerformance
        P = np.reshape(P, self.Y_valid.shape)
        if self.qidlist is None:
            return self.measure(self.Y_valid, P)
        perfs = []
        for rows in self.qidlist:
            try:
                perfs.append(self.measure(self.Y_valid[rows], P[rows]))
            except UndefinedPerformance:
                pass
        if not perfs:
            raise UndefinedPerformance("the measure is undefined on every validation query")
        return np.mean(perfs)

    _finished = Finished


def _coefficients(A, op):
    """The predictor of CG RankRLS: the primal weights themselves, no bias."""
    return A.reshape(op.d, -1), 0.0


class CGRankRLS(PredictorInterface):
    """Linear RankRLS solved by conjugate gradient in the primal (large sparse data);
    trains in the constructor.

    Solves ``(X^T L X + regparam I) w = X^T L Y`` from 0, where L is

    * with ``qids``: the per-query centering ``I - sum_q 1_q 1_q^T / n_q`` of
      :class:`rlscore.learner.QueryRankRLS` (the same model at the same regparam);
    * without: the global centering ``I - 1 1^T / m``, i.e. GlobalRankRLS's Laplacian
      divided by m, so ``CGRankRLS(regparam)`` equals ``GlobalRankRLS(m * regparam)``.

    L is applied as "subtract the query means", so neither X^T X nor any of the pairs
    is formed. There is no intercept (``predictor.b`` = 0).

    Parameters
    ----------
    X : array-like or sparse (m, d)
    Y : array-like (m,) or (m, 1)
        One column (several raise ValueError, as in RLScore).
    regparam : float >= 0, default 1.0
    qids : sequence of length m or None
        Query ids, grouped by equal value.
    callbackfun : object with ``callback(learner)`` (and optionally ``finished``)
        ``callback`` runs after every iteration with ``learner.A`` the current primal
        iterate (d x 1), ``learner.b`` zeros (1 x 1) and ``learner.predictor`` its
        model; raising :class:`Finished` stops with whatever ``learner.A`` then holds.
        ``finished`` (never called by RLScore here) runs once at the end.
    tol : float in (0, 1), default 1e-8
        Relative residual at which CG stops (RLScore used 1e-5).
    maxiter : int > 0 or None
    verbose : bool, default False
        Show the relative residual after every iteration on stderr (the steps are
        logged either way, logger ``"rlscore"``; see :mod:`rlscore._progress`).
    **kwargs
        Ignored with a UserWarning (``bias``, for example, has no effect on ranking).

    Attributes
    ----------
    predictor : LinearPredictor
    A : ndarray (d, 1)
    b : ndarray (1, 1), zeros
    regparam
    qids : list of int or None
        The 0-based query number of each row.
    n_iter, converged

    Notes
    -----
    O(t (nnz(X) + m + d)) time for t iterations and O(nnz(X) + m + d) memory.
    """

    @reports_progress
    def __init__(self, X, Y, regparam=1.0, qids=None, callbackfun=None, tol=1e-8,
                 maxiter=None, verbose=False, **kwargs):
        kernel = kwargs.get("kernel", "LinearKernel")
        warn_unused_kwargs(kwargs, {"kernel"} if kernel == "LinearKernel" else set(),
                           "CGRankRLS")
        Y2 = as_2d_labels(Y)
        if Y2.shape[1] != 1:
            raise ValueError(f"CGRankRLS supports a single output; Y has {Y2.shape[1]} "
                             f"columns")
        tol = check_tol(tol)
        maxiter = check_positive_int(maxiter, "maxiter", allow_none=True)
        self.regparam = regparam
        self.qids = None

        def solve(cb):
            W, res, op, codes = cg_rankrls(X, Y2, regparam, qids=qids, rtol=tol,
                                           maxiter=maxiter, callback=cb)
            self.qids = None if codes is None else codes.tolist()
            self.regparam = op.regparam
            return W, res, op

        _cg_rls.run_cg(self, solve, callbackfun, tol, maxiter, "CGRankRLS", _coefficients)


class PCGRankRLS(PredictorInterface):
    """Linear RankRLS from pairwise preferences, solved by conjugate gradient; trains
    in the constructor.

    Solves ``(X^T C^T C X + regparam I) w = X^T C^T 1``, the minimizer of
    ``sum_k (1 - (f(x_a_k) - f(x_b_k)))^2 + regparam ||w||^2`` over the preferences
    (a_k above b_k); ``C^T C`` is the sparse Laplacian of the preference (multi)graph.

    Parameters
    ----------
    X : array-like or sparse (m, d)
    train_preferences : integer array-like (n_pairs, 2)
        Row [a, b]: example a is preferred to (ranked above) example b. Repeated pairs
        count repeatedly; self-pairs are ignored with a UserWarning, indices outside
        0..m-1 raise.
    regparam : float >= 0, default 1.0
    callbackfun, tol, maxiter, verbose : as for :class:`CGRankRLS` (an extension:
        RLScore's PCGRankRLS had no callbacks).
    **kwargs
        Ignored with a UserWarning.

    Attributes
    ----------
    predictor : LinearPredictor (b = 0)
    A : ndarray (d, 1); b : zeros (1, 1); regparam; pairs : ndarray (n_pairs, 2)
    n_iter, converged

    Notes
    -----
    O(n_pairs) to build the Laplacian, then O(t (nnz(X) + m + n_pairs)) time for t
    iterations.
    """

    @reports_progress
    def __init__(self, X, train_preferences, regparam=1.0, callbackfun=None, tol=1e-8,
                 maxiter=None, verbose=False, **kwargs):
        kernel = kwargs.get("kernel", "LinearKernel")
        warn_unused_kwargs(kwargs, {"kernel"} if kernel == "LinearKernel" else set(),
                           "PCGRankRLS")
        tol = check_tol(tol)
        maxiter = check_positive_int(maxiter, "maxiter", allow_none=True)
        self.regparam = regparam
        self.pairs = np.asarray(train_preferences)

        def solve(cb):
            W, res, op = cg_preference_rankrls(X, train_preferences, regparam, rtol=tol,
                                               maxiter=maxiter, callback=cb)
            self.regparam = op.regparam
            return W, res, op

        _cg_rls.run_cg(self, solve, callbackfun, tol, maxiter, "PCGRankRLS", _coefficients)
