"""RankRLS: least-squares ranking with global, per-query or preference-pair centring.

What lives here
    :class:`GlobalRankRLSModel` and :class:`QueryRankRLSModel` (dual or primal, the
    centred Gram matrix rotated once: O(m^3) or O(m d^2 + d^3), then a lambda path,
    leave-pair-out and leave-query-out from the same decomposition, Pahikkala et al.
    2009; ``QueryRankRLSModel.holdout_rows`` holds out several queries at once, a fold
    of K-fold by query, O(h^2 r + h^3) or, refitted in the primal, O(h k p) per
    lambda),
    :class:`PPRankRLSModel` (preference pairs) with :class:`RankLPOCV`;
    :func:`laplacian_system`, the r x r system of RankRLS on any graph Laplacian
    given as an operator (the comparability graph of :mod:`rlscore.core.survival`);
    and the
    matrix-free :func:`cg_rankrls` / :func:`cg_preference_rankrls` (O(t nnz(X)) for t
    iterations); for many centres, Falkon's preconditioned CG on the streamed kernel
    blocks with the query or global centring (:func:`pcg_rankrls`,
    :class:`CenteredGramOperator`: O(m r (d + l)) per iteration, 8 r^2 bytes for the
    factors); :func:`fit_rank_model` builds the model of the faces in memory or
    streamed (:class:`StreamedRankModel`) from one memory decision. Kernel-parameter learning for RankRLS is :mod:`rlscore.core.hyper`.

Builds on
    ``structure``, ``optim``, ``selection``, ``rls`` (solvers), ``nystrom`` (Nystrom maps,
    representations, the memory plan). It never imports ``ranksvm`` or ``kronecker``.

Module order
    ``_solver`` -> ``_centered`` -> ``_models`` -> ``_pairs``;
    ``_cg``; ``_pcg`` (on ``rls``'s streamed operator) -> ``_streamed_model`` (on
    ``_models``: :func:`fit_rank_model`, the memory decision of the RankRLS faces,
    :class:`StreamedRankModel`).
"""

from rlscore.core.rankrls._solver import (RotatedSolver, gram_matrix, symmetrize)
from rlscore.core.rankrls._centered import CenteredRankModel
from rlscore.core.rankrls._models import (GlobalRankRLSModel, QueryRankRLSModel,
                                          query_groups)
from rlscore.core.rankrls._pairs import (PPRankRLSModel, PairCosts, RankLPOCV, preference_pairs, COSTS,
                                         LaplacianSystem, laplacian_system)
from rlscore.core.rankrls._cg import (RankRLSOperator, PreferenceRankRLSOperator,
                                      preference_matrix, cg_rankrls, cg_preference_rankrls)
from rlscore.core.rankrls._pcg import (CenteredGramOperator, pcg_rankrls,
                                       pcg_select_rankrls, streamed_rank_fit,
                                       CENTRED_KINDS)
from rlscore.core.rankrls._streamed_model import StreamedRankModel, fit_rank_model

__all__ = [
    "fit_rank_model",
    "streamed_rank_fit",
    "GlobalRankRLSModel",
    "QueryRankRLSModel",
    "query_groups",
    "PPRankRLSModel",
    "PairCosts",
    "RankLPOCV",
    "LaplacianSystem",
    "laplacian_system",
    "RankRLSOperator",
    "cg_rankrls",
    "cg_preference_rankrls",
]
