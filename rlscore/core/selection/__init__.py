"""TODO docstring."""

from rlscore.core.selection._lpo import (lpo_cindex)
from rlscore.core.selection._cv import (DEFAULT_REGPARAMS, grid_search, grid_search_params, query_score, LOOCV, NfoldCV, TrainTestCV, LPOCV, QueryLPOCV, LQOCV, lpo_pairs, lpo_ranking_accuracy, EdgeOfGridWarning)
from rlscore.core.selection._holdout import (PooledQueryCV, ValidationCV, RefitModel, RefitCV)

__all__ = [
    "lpo_cindex",
    "DEFAULT_REGPARAMS",
    "grid_search",
    "grid_search_params",
    "query_score",
    "LOOCV",
    "NfoldCV",
    "TrainTestCV",
    "LPOCV",
    "QueryLPOCV",
    "LQOCV",
    "lpo_pairs",
    "lpo_ranking_accuracy",
    "EdgeOfGridWarning",
    "PooledQueryCV",
    "ValidationCV",
    "RefitModel",
    "RefitCV",
]
