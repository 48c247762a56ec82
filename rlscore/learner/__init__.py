"""RLScore-compatible learners: the constructor trains, ``predict`` predicts."""

from rlscore.learner.rls import RLS, LeaveOneOutRLS, KfoldRLS, LeavePairOutRLS
from rlscore.learner.global_rankrls import GlobalRankRLS, KfoldRankRLS, LeavePairOutRankRLS
from rlscore.learner.query_rankrls import (QueryRankRLS, LeaveQueryOutRankRLS,
                                          KfoldQueryRankRLS)
from rlscore.learner.rankrls_with_pairwise_preferences import PPRankRLS
from rlscore.learner.survival_rankrls import (SurvivalRankRLS, LeaveOneOutSurvivalRankRLS,
                                              KfoldSurvivalRankRLS)
from rlscore.learner.survival_ranksvm import SurvivalRankSVM
from rlscore.learner.cg_rls import CGRLS
from rlscore.learner.cg_rankrls import CGRankRLS, PCGRankRLS
from rlscore.learner.greedy_rls import GreedyRLS, GreedyRankRLS
from rlscore.learner.kron_rls import KronRLS
from rlscore.learner.two_step_rls import TwoStepRLS
from rlscore.learner.cg_kron_rls import CGKronRLS
from rlscore.learner.kron_svm import KronSVM
from rlscore.learner.streamed_rls import StreamedRLS
from rlscore.learner.pairwise_mkl import PairwiseMKL
from rlscore.learner.ranksvm import (LinearRankSVM, PPLinearRankSVM, KernelRankSVM,
                                     KfoldLinearRankSVM)

__all__ = ["RLS", "LeaveOneOutRLS", "KfoldRLS", "LeavePairOutRLS", "GlobalRankRLS",
           "KfoldRankRLS", "LeavePairOutRankRLS", "QueryRankRLS", "LeaveQueryOutRankRLS",
           "KfoldQueryRankRLS",
           "PPRankRLS", "CGRLS", "CGRankRLS", "PCGRankRLS", "GreedyRLS", "GreedyRankRLS",
           "KronRLS", "TwoStepRLS", "CGKronRLS", "KronSVM", "LinearRankSVM",
           "PPLinearRankSVM", "KernelRankSVM", "KfoldLinearRankSVM", "PairwiseMKL",
           "StreamedRLS", "SurvivalRankRLS", "SurvivalRankSVM",
           "LeaveOneOutSurvivalRankRLS", "KfoldSurvivalRankRLS"]
