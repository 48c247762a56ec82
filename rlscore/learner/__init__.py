"""RLScore-compatible learners: the constructor trains, ``predict`` predicts."""

from rlscore.learner.rls import RLS, LeaveOneOutRLS, KfoldRLS, LeavePairOutRLS

__all__ = ["RLS", "LeaveOneOutRLS", "KfoldRLS", "LeavePairOutRLS"]
