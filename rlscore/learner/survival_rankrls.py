"""SurvivalRankRLS: RankRLS on right-censored outcomes, with RLScore's interface (a thin
adapter over :class:`rlscore.core.survival.SurvivalRankRLSModel`)."""

from rlscore.core.survival import SurvivalRankRLSModel
from rlscore.learner._common import (VERBOSE_DOC, SolveAdapter, exclusive,
                                     reports_progress, split_kernel_kwargs)
from rlscore.predictor import PredictorInterface

__all__ = ["SurvivalRankRLS"]


class SurvivalRankRLS(SolveAdapter, PredictorInterface):
    __doc__ = f"""RankRLS for right-censored survival data; trains in the constructor.
    Its predictions are risk scores: higher risk = earlier event.

    Every comparable pair of Harrell's C -- row i with an observed event and t_i < t_j,
    or t_i == t_j with j censored -- asks for f(x_i) - f(x_j) = 1 (or t_j - t_i with
    ``magnitudes=True``); the model minimizes the squared pair errors plus
    regparam ||f||^2 (preference-graph RankRLS, Pahikkala et al. 2009, on the
    comparability graph, whose O(m^2) pairs are never listed).

    Parameters
    ----------
    X : array-like or sparse (m, d); the kernel matrix for ``kernel="PrecomputedKernel"``
    time : (m,) event or censoring times (>= 0)
    event : (m,) bool or 0/1, True when the event was observed
    regparam : float >= 0, default 1.0
    kernel, basis_vectors : as for RLS
    magnitudes : bool, default False (unit pair targets)
    **kwargs : kernel parameters; other keywords are ignored with a UserWarning.
{VERBOSE_DOC}

    Attributes
    ----------
    predictor, regparam

    Notes
    -----
    O(m log m) for the graph; linear O(m d^2 + d^3), kernel O(m^3); ``solve`` for
    another regparam O(r^2) after one eigendecomposition. ``holdout`` and
    ``leave_one_out`` give exact hold-out risk scores with the held-out rows' pairs
    removed (:meth:`rlscore.core.survival.SurvivalRankRLSModel.holdout`).
    """

    @reports_progress
    def __init__(self, X, time, event, regparam=1.0, kernel="LinearKernel",
                 basis_vectors=None, magnitudes=False, **kwargs):
        params = split_kernel_kwargs(kwargs, kernel, type(self).__name__)
        self._model = SurvivalRankRLSModel(X, time, event, regparam, kernel, basis_vectors,
                                           magnitudes=magnitudes, **params)
        self._sync()


    @exclusive
    def holdout(self, folds, regparams=None):
        """Exact hold-out risk scores of every fold (list of arrays), the fold's rows
        and their pairs left out of training; see
        :meth:`rlscore.core.survival.SurvivalRankRLSModel.holdout`."""
        return self._model.holdout(folds, regparams)

    @exclusive
    def leave_one_out(self, regparams=None):
        """Exact leave-one-out risk scores, (m,) or (len(regparams), m)."""
        return self._model.leave_one_out(regparams)
