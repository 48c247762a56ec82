"""scikit-learn estimators for regularized least squares.

:class:`KernelRLS` fits kernel RLS (kernel ridge regression) for one alpha;
:class:`KernelRLSCV` chooses alpha by exact leave-one-out, leave-pair-out or K-fold
cross-validation computed with the hold-out shortcuts of :mod:`rlscore.core` (no
retraining). :class:`RankRLS` fits RankRLS (global or query-structured ranking, ``qid``
passed to ``fit``) and :class:`RankRLSCV` chooses its alpha by exact leave-pair-out,
leave-query-out or K-fold cross-validation. :class:`QuerySplitter` gives scikit-learn's
own search the library's splits of whole queries. :class:`SurvivalRankRLS`,
:class:`SurvivalRankRLSCV` and :class:`SurvivalRankSVM` rank right-censored survival
data (``y`` scikit-survival's structured array, ``predict`` risk scores, ``score``
Harrell's C). All are thin adapters over
:mod:`rlscore.core` and pass ``sklearn.utils.estimator_checks.check_estimator``.

This module needs scikit-learn >= 1.6 (``pip install "rlscore[sklearn]"``); the rest of
rlscore does not.
"""

_HINT = ('rlscore.estimators needs scikit-learn >= 1.6; install it with '
         '"pip install rlscore[sklearn]" (or "pip install scikit-learn")')

try:
    from sklearn.utils.validation import validate_data  # noqa: F401  (added in 1.6)
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(_HINT) from exc

from rlscore.estimators._rls import KernelRLS, KernelRLSCV  # noqa: E402
from rlscore.estimators._rankrls import RankRLS, RankRLSCV  # noqa: E402
from rlscore.estimators._cg import CGRLSRegressor, CGRankRLSRanker  # noqa: E402
from rlscore.estimators._greedy import GreedyRLSSelector  # noqa: E402
from rlscore.estimators._kronecker import PairwiseRLS  # noqa: E402
from rlscore.estimators._kronecker_cv import PairwiseRLSCV  # noqa: E402
from rlscore.estimators._kronecker_svm import PairwiseSVM  # noqa: E402
from rlscore.estimators._ranksvm import RankSVM  # noqa: E402
from rlscore.estimators._pairwise_mkl import MultiKernelPairwiseRLS  # noqa: E402
from rlscore.estimators._query_norm import QueryNormalizer  # noqa: E402
from rlscore.estimators._cv import QuerySplitter  # noqa: E402
from rlscore.estimators._survival import (SurvivalRankRLS, SurvivalRankRLSCV,  # noqa: E402
                                          SurvivalRankSVM)

__all__ = ["KernelRLS", "KernelRLSCV", "RankRLS", "RankRLSCV", "CGRLSRegressor",
           "CGRankRLSRanker", "GreedyRLSSelector", "PairwiseRLS", "PairwiseRLSCV",
           "PairwiseSVM", "RankSVM",
           "MultiKernelPairwiseRLS", "QueryNormalizer", "QuerySplitter",
           "SurvivalRankRLS", "SurvivalRankRLSCV", "SurvivalRankSVM"]
