"""RLScore-compatible learners: the constructor trains, ``predict`` predicts."""

from rlscore.learner.rls import RLS, LeaveOneOutRLS, KfoldRLS, LeavePairOutRLS
from rlscore.learner.global_rankrls import GlobalRankRLS, KfoldRankRLS, LeavePairOutRankRLS
from rlscore.learner.query_rankrls import QueryRankRLS, LeaveQueryOutRankRLS
from rlscore.learner.rankrls_with_pairwise_preferences import PPRankRLS

__all__ = ["RLS", "LeaveOneOutRLS", "KfoldRLS", "LeavePairOutRLS", "GlobalRankRLS",
           "KfoldRankRLS", "LeavePairOutRankRLS", "QueryRankRLS", "LeaveQueryOutRankRLS",
           "PPRankRLS"]
