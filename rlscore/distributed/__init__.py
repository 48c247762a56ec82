"""Train the scalable learners on a Dask cluster (optional extra ``rlscore[dask]``).

The data are a :class:`dask.array.Array` (rows of X, Y and qids in the same row chunks)
or a :class:`dask.dataframe.DataFrame`; queries spread over partitions are regrouped
once into partitions of whole queries (:class:`RegroupWarning`). Each pass over the
data is one Dask task per partition that calls the same
code as the single-machine learner (the Cython order-statistics kernel of RankSVM, the
operators of :mod:`rlscore.core.rls`, the Nystrom map of
:mod:`rlscore.core.rls`); the client sums the per-partition results in
partition order (a fixed order, so a run is reproducible) and runs the small solver
(the bundle QP, the CG recursion, the r x r eigendecomposition for r basis vectors)
itself.

* :class:`LinearRankSVM` -- hinge (bundle method) or squared hinge (trust-region
  Newton); with whole queries per partition, the loss, gradient and Hessian products
  per partition; for a global ranking (pairs across partitions) the partitions send
  their predictions and receive the loss coefficients, O(m) numbers per pass, and the
  single machine's counting kernel runs once on all predictions (exact).
* :class:`CGRLS`, :class:`CGRankRLS` -- conjugate gradients; per partition the product
  with X_p^T L_p X_p.
* :class:`RLS`, :class:`QueryRankRLS`, :class:`GlobalRankRLS` -- reduced-set (Nystrom)
  models; per partition Phi_p^T L_p Phi_p and Phi_p^T L_p Y_p; regularization path and
  K-fold cross-validation over partitions.
* :mod:`rlscore.distributed.measure` -- exact c-index and AUC over all rows across
  partitions (merge-based counting, no gather), per-query c-index / NDCG@k / MAP.

Data stay out of core when ``persist=False`` (the default): every pass reads each chunk
from its source (e.g. a zarr store or a memory-mapped ``.npy`` file) and converts it to
float64 inside the task. Tasks are pure functions of (partition, current iterate), so a
worker lost during training only makes Dask recompute its tasks: the result does not
change.
"""

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as exc:         # pragma: no cover - exercised without dask
    raise ImportError(
        "rlscore.distributed needs dask and distributed: pip install 'rlscore[dask]'"
    ) from exc

from rlscore.distributed._data import PartitionedData, RegroupWarning, query_chunks
from rlscore.distributed.cg import CGRankRLS, CGRLS
from rlscore.distributed.ranksvm import DistributedRankingRisk, LinearRankSVM
from rlscore.distributed.reduced_set import GlobalRankRLS, QueryRankRLS, RLS

__all__ = ["PartitionedData", "RegroupWarning", "query_chunks", "DistributedRankingRisk",
           "LinearRankSVM", "CGRLS", "CGRankRLS",
           "RLS", "QueryRankRLS", "GlobalRankRLS"]
