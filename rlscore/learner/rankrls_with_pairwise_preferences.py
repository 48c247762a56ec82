"""PPRankRLS: RankRLS from explicit pairwise preferences, with RLScore's interface."""

from rlscore.core.rankrls import PairCosts, PPRankRLSModel
from rlscore.learner._common import (VERBOSE_DOC, SolveAdapter, reports_progress,
                                     split_kernel_kwargs)
from rlscore.predictor import PredictorInterface

__all__ = ["PPRankRLS"]


class PPRankRLS(SolveAdapter, PredictorInterface):
    __doc__ = f"""RankRLS learned from preference pairs; trains in the constructor.

    Pair k says that example ``pairs_start_inds[k]`` should be ranked above
    ``pairs_end_inds[k]``. With the defaults the model minimizes
    sum_k (1 - (f(x_{{s_k}}) - f(x_{{e_k}})))^2 + regparam ||f||^2, i.e. with C the
    n_pairs x m incidence matrix (+1 at (k, s_k), -1 at (k, e_k)) and L = C^T C,
    A = (LK + regparam I)^{{-1}} C^T 1 (reduced set: (K_r^T L K_r + regparam K_rr)^{{-1}}
    K_r^T C^T 1).

    Parameters
    ----------
    X : array-like or sparse (m, d); the kernel matrix for ``kernel="PrecomputedKernel"``
    pairs_start_inds, pairs_end_inds : int sequences of equal length (>= 1): the
        preferred and the less preferred example of each pair. A pair given several
        times counts several times (as a weight). Self-pairs raise ValueError,
        out-of-range indices IndexError, an empty list ValueError.
    regparam : float >= 0, default 1.0
    kernel, basis_vectors : as for RLS. ``bias`` is accepted (default 1.0) but cannot
        influence the fit: L 1 = 0, so ``predictor.b`` is 0.
    weights : optional (n_pairs,) nonnegative edge weights multiplying each pair's
        squared error (default 1).
    magnitudes : optional (n_pairs,) nonnegative preference magnitudes y_k (default 1).
    cost : the cost function of Pahikkala et al. (2009), Sect. 2.4:

        - ``"magnitude"`` (default, eq. 21): target y_k, weight w_k -- magnitude
          preserving; a tie (y_k = 0) is kept as a pair with target 0;
        - ``"unit"`` (eq. 20): target 1, weight w_k -- ignores magnitudes, except that
          ties (y_k = 0) are not preferences and are dropped;
        - ``"inverse"`` (eq. 22): target y_k, weight w_k / y_k^2 -- upper-bounds the
          disagreement error; undefined for ties, which are dropped.

        Without ``magnitudes`` all three give the same model.
    **kwargs : kernel parameters; other keywords are ignored with a UserWarning.
{VERBOSE_DOC}

    Attributes
    ----------
    pairs : (n_pairs, 2) int array of the given pairs
    predictor, regparam

    Notes
    -----
    L and C^T(c z) are assembled from a sparse incidence matrix in O(n_pairs). Primal
    (linear kernel with d <= m, or basis vectors): O(nnz(L) d + m d^2 + d^3/3). Dual:
    one eigendecomposition of K and the symmetric system Z^T L Z, Z = V Lambda^{{1/2}}
    (O(m^3)). ``solve`` for a second regparam costs one more eigendecomposition of the
    small system, then O(r^2) per regparam.
    """

    @reports_progress
    def __init__(self, X, pairs_start_inds, pairs_end_inds, regparam=1.0,
                 kernel="LinearKernel", basis_vectors=None, weights=None, magnitudes=None,
                 cost="magnitude", **kwargs):
        params = split_kernel_kwargs(kwargs, kernel, type(self).__name__)
        self._model = PPRankRLSModel(X, pairs_start_inds, pairs_end_inds, regparam,
                                     kernel, basis_vectors,
                                     PairCosts(weights, magnitudes, cost), **params)
        self.pairs = self._model.pairs
        self._sync()


