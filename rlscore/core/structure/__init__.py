"""TODO docstring."""

from rlscore._groups import QueryGroups, as_query_groups
from rlscore._vec_trick import (PairwiseKernelOperator, SampledKronProduct, as_index_vector,
                                grid_indices, sampled_kron_matvec)
from rlscore.core.structure._pairs import (ORDERS, check_order, pairs_to_flat, flat_to_pairs, convert_flat, vec, unvec, as_pairs, check_fold_of_pairs)

__all__ = [
    "QueryGroups",
    "as_query_groups",
    "PairwiseKernelOperator",
    "SampledKronProduct",
    "as_index_vector",
    "grid_indices",
    "sampled_kron_matvec",
    "ORDERS",
    "check_order",
    "pairs_to_flat",
    "flat_to_pairs",
    "convert_flat",
    "vec",
    "unvec",
    "as_pairs",
    "check_fold_of_pairs",
]
