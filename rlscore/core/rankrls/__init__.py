"""TODO docstring."""

from rlscore.core.rankrls._solver import (RotatedSolver, gram_matrix, symmetrize)
from rlscore.core.rankrls._centered import (CenteredRankModel)
from rlscore.core.rankrls._models import (GlobalRankRLSModel, QueryRankRLSModel)
from rlscore.core.rankrls._pairs import (PPRankRLSModel, RankLPOCV, preference_pairs, COSTS)
from rlscore.core.rankrls._cg import (RankRLSOperator, PreferenceRankRLSOperator, preference_matrix, cg_rankrls, cg_preference_rankrls)

__all__ = [
    "RotatedSolver",
    "gram_matrix",
    "symmetrize",
    "CenteredRankModel",
    "GlobalRankRLSModel",
    "QueryRankRLSModel",
    "PPRankRLSModel",
    "RankLPOCV",
    "preference_pairs",
    "COSTS",
    "RankRLSOperator",
    "PreferenceRankRLSOperator",
    "preference_matrix",
    "cg_rankrls",
    "cg_preference_rankrls",
]
