"""A trained RankSVM as one object (:class:`RankSVMModel`): what the command line's
RankSVM rows train, select over and save, without a learner class around it."""

import numpy as np

from rlscore.core.ranksvm._options import RankSVMOptions
from rlscore.core.ranksvm._ranksvm import (fit_kernel_ranksvm, fit_linear_ranksvm,
                                           ranksvm_regparam)
from rlscore.predictor import LinearPredictor

__all__ = ["RankSVMModel"]


class RankSVMModel:
    """A trained RankSVM: its predictor, the solver's outcome and the regparam.

    Made by :meth:`fit` (scored or query-structured data, linear or a kernel through
    the empirical kernel map), or from the solution of any RankSVM solver of this
    family (e.g. :func:`rlscore.core.survival.train_survival_ranksvm`) with the
    constructor. It is what :class:`rlscore.core.selection.RefitModel` retrains
    without each fold, and what a model file records.

    Parameters
    ----------
    predictor : LinearPredictor or KernelPredictor
    solution : rlscore.core.optim.SolverResult (``w``, iterations, converged, history)
    regparam : float > 0, the regparam it was trained at
    options : RankSVMOptions, the options it was trained with

    Attributes
    ----------
    predictor, solution, regparam, options : as given
    """

    def __init__(self, predictor, solution, regparam, options):
        self.predictor = predictor
        self.solution = solution
        self.regparam = float(regparam)
        self.options = options

    @classmethod
    def fit(cls, X, y, qids=None, regparam=1.0, kernel="LinearKernel", basis_vectors=None,
            *, options=None, **kernel_params):
        """Train at ``regparam``: :func:`fit_linear_ranksvm` for the linear kernel
        without basis vectors (its parameters are not used: a bias cancels in every
        pair), :func:`fit_kernel_ranksvm` through the empirical kernel map otherwise
        (``basis_vectors``: the Nystrom basis, None for the full kernel).

        Raises
        ------
        ValueError, TypeError
            As the two training functions (a bad regparam, labels, qids or options).

        Notes
        -----
        Linear: O(iterations (m log m + nnz)). Kernel: the map's O(m b d + m b^2)
        (b basis vectors; b = m for the full kernel, then O(m^3 / 3)) plus
        O(iterations (m b + m log m)).
        """
        options = RankSVMOptions() if options is None else options
        regparam = ranksvm_regparam(regparam)
        if kernel == "LinearKernel" and basis_vectors is None:
            solution, _ = fit_linear_ranksvm(X, y, qids, regparam, options=options)
            predictor = LinearPredictor(solution.w, 0.0)
        else:
            solution, predictor = fit_kernel_ranksvm(X, y, qids, regparam, kernel,
                                                     basis_vectors, options=options,
                                                     **kernel_params)
        return cls(predictor, solution, regparam, options)

    def predict(self, X):
        """Predictions (higher = ranked first) for the rows of X. Linear O(nnz(X)),
        kernel O(n b d)."""
        return np.asarray(self.predictor.predict(X))
