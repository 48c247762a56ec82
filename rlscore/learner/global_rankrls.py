"""GlobalRankRLS (one ranking over all examples) with RLScore's interface, and its
model-selection wrappers KfoldRankRLS and LeavePairOutRankRLS."""

from rlscore.core.nystrom import CVIntent
from rlscore.core.rankrls import RankLPOCV
from rlscore.learner._common import (RANK_MEMORY_DOC, VERBOSE_DOC, DataLabelsAdapter,
                                     exclusive, fit_rank_learner,
                                     reports_progress, squeeze)
from rlscore.learner.rls import _SelectionWrapper
from rlscore.predictor import PredictorInterface

__all__ = ["GlobalRankRLS", "KfoldRankRLS", "LeavePairOutRankRLS"]

RANK_REGPARAMS = [2 ** x for x in range(-15, 15)]


class GlobalRankRLS(DataLabelsAdapter, PredictorInterface):
    __doc__ = f"""RankRLS over all pairs (magnitude-preserving pairwise least squares); trains in
    the constructor.

    Minimizes (Y - KA)^T L (Y - KA) + regparam A^T K A with L = m I - 1 1^T, i.e.
    sum_{{i<j}} ((y_i - y_j) - (f_i - f_j))^2 + regparam ||f||^2, so
    A = (LK + regparam I)^{{-1}} L Y; linear W = (X^T L X + regparam I)^{{-1}} X^T L Y;
    reduced set A_B = (K_r^T L K_r + regparam K_rr)^{{-1}} K_r^T L Y.

    Parameters
    ----------
    X : array-like or sparse (m, d); the kernel matrix for ``kernel="PrecomputedKernel"``
    Y : array-like (m,) or (m, p); each column is a separate ranking task
    regparam : float >= 0, default 1.0
    kernel : "LinearKernel" (default), "GaussianKernel", "PolynomialKernel",
        "RsetKernel" or "PrecomputedKernel" (alias
        "precomputed")
    basis_vectors : basis rows for a reduced-set model (or the basis kernel matrix)
    basis_indices, n_basis, random_state, keep_basis_in_cv : keywords, a reduced-set
        (sparse RankRLS) model with the basis given as indices into X or drawn, as
        for :class:`~rlscore.learner.rls.RLS`: O(m b^2) training, O(b^2 p) per
        regparam; ``holdout``, ``leave_one_out``, ``leave_pair_out`` (and
        leave-query-out) remove the held-out basis vectors unless
        keep_basis_in_cv=True (one O(b^3) retraining in the map's coordinates per fold
        or pair holding basis vectors; pairs without one keep the O(p) pair formula).
        With ``basis_vectors`` the basis is always kept.
{RANK_MEMORY_DOC}
    **kwargs : kernel parameters (gamma, coef0, degree, ...). ``bias`` is forced to 0:
        a constant feature has no effect on a ranking. Other keywords are ignored with
        a UserWarning.
{VERBOSE_DOC}

    Attributes
    ----------
    predictor : LinearPredictor (b = 0) or KernelPredictor
    regparam, Y (2-D), A (dual coefficients)

    Raises
    ------
    ValueError
        All labels tied in every column (no pairs to learn from), mismatched lengths,
        NaN/inf, negative regparam.

    Notes
    -----
    Training costs what RLS costs: the kernel, O(m^2) for a Householder rotation that
    removes the all-ones direction, and one Cholesky (O(m^3/3); primal O(m d^2)).
    ``solve`` for a second regparam eigendecomposes once (O(m^3) / O(d^3)) and then
    costs O(m^2 p) / O(d^2 p). After that: ``holdout`` O(m r p + h^2 r + h^3),
    ``leave_one_out`` O(m r p), ``leave_pair_out`` O(m^3) (dual, one SYRK per regparam)
    or O(m d) (primal) plus O(p) / O(d + p) per pair. Without an eigendecomposition,
    ``leave_pair_out`` uses one Cholesky and its inverse (O(m^3)).
    """

    @classmethod
    def _fit_model(cls, data, regparam, kernel, basis_vectors, kwargs, path, cv):
        """The core model (:func:`rlscore.core.rankrls.fit_rank_model`, global) of
        ``data`` = (X, Y)."""
        return fit_rank_learner(cls.__name__, data, regparam, kernel, basis_vectors,
                                kwargs, path, cv)

    @exclusive
    def solve(self, regparam=1.0):
        """Re-train with a new regparam, re-using the decomposition: O(m^2 p) dual,
        O(d^2 p) primal after one eigendecomposition."""
        self._model.solve(regparam)
        self._sync()

    @exclusive
    def holdout(self, indices):
        """Predictions for ``indices`` from the model retrained without them, exactly
        (the complement's Laplacian has size m - h).

        Raises IndexError for out-of-range or repeated indices, ValueError for an empty
        list or one that holds out every example. Shape (h,) / (h, p), squeezed.
        """
        return squeeze(self._model.holdout(indices))

    @exclusive
    def leave_one_out(self):
        """Exact leave-one-out predictions, shape (m,) or (m, p). O(m r p) after the
        eigendecomposition. (Upstream RLScore raised AttributeError here.)"""
        return squeeze(self._model.leave_one_out())

    @exclusive
    def leave_pair_out(self, pairs_start_inds, pairs_end_inds):
        """Exact leave-pair-out: for each pair (s, e), the predictions for s and e from
        the model trained without both. Returns (P_start, P_end), each squeezed from
        (n_pairs, p). Self-pairs and mismatched lengths raise ValueError, out-of-range
        indices IndexError."""
        ps, pe = self._model.leave_pair_out(pairs_start_inds, pairs_end_inds)
        return squeeze(ps), squeeze(pe)


class _RankSelectionWrapper(_SelectionWrapper):
    _base = GlobalRankRLS
    # leave-pair-out needs the in-memory hold-out formulas (KfoldRankRLS streams)
    _cv_intent = CVIntent("rank")


class KfoldRankRLS(_RankSelectionWrapper):
    __doc__ = f"""GlobalRankRLS with regparam chosen by K-fold cross-validation over the given
    folds (exact hold-out shortcut per fold, no retraining).

    Parameters
    ----------
    X, Y, kernel, basis_vectors, **kwargs : as for :class:`GlobalRankRLS`
    folds : list of index lists, disjoint (a ValueError names a row in two folds); they
        need not cover every example
    regparams : sequence, default 2^-15 ... 2^14 (30 values)
    measure : default ``cindex`` (upstream RLScore selected by sqerror when no measure
        was given, by accident); save_predictions : accepted and ignored
{VERBOSE_DOC}

    Attributes
    ----------
    cv_performances, cv_predictions (list per regparam of lists per fold), regparam,
    predictor, measure

    Notes
    -----
    One eigendecomposition plus ``O(m r p + sum_f |f|^2 r + |f|^3)`` per grid point.
    """

    _default_measure = "cindex"
    _default_grid = RANK_REGPARAMS

    @reports_progress
    def __init__(self, X, Y, folds, kernel="LinearKernel", basis_vectors=None,
                 regparams=None, measure=None, save_predictions=False, **kwargs):
        self._kfold(X, Y, folds, kernel, basis_vectors, regparams, measure, kwargs)


class LeavePairOutRankRLS(_RankSelectionWrapper):
    __doc__ = f"""GlobalRankRLS with regparam chosen by exact leave-pair-out ranking accuracy over
    all pairs with different labels (the LPO estimate of the c-index; of the AUC for
    +-1 labels).

    Parameters
    ----------
    X, Y, kernel, basis_vectors, **kwargs : as for :class:`GlobalRankRLS`
    regparams : sequence, default 2^-15 ... 2^15 (31 values)
{VERBOSE_DOC}

    Attributes
    ----------
    cv_performances, cv_predictions (a list of None), regparam, predictor, measure

    Raises
    ------
    UndefinedPerformance
        When a column of Y has all labels equal.

    Notes
    -----
    Dual: one eigendecomposition, then per grid point one O(m^3) SYRK and O(p) per pair;
    primal: O(m d) per grid point and O(d + p) per pair.
    """

    @reports_progress
    def __init__(self, X, Y, kernel="LinearKernel", basis_vectors=None, regparams=None,
                 **kwargs):
        self._leave_pair_out(X, Y, kernel, basis_vectors, regparams, kwargs, RankLPOCV)
