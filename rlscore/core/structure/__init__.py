"""Structure of the data: who belongs to which query, and which pairs are labelled.

What lives here
    :class:`QueryGroups` (qids -> codes, sizes, folds by query, per-query centring; the
    one implementation is :mod:`rlscore._groups`, below the measures), the pair-index
    orders of relational data (``as_pairs``, row/column-major flat indices, ``vec`` /
    ``unvec``) and the generalized vec trick (:class:`PairwiseKernelOperator`: a product
    with a sum of sampled Kronecker products in O(q n + n1 n2) without forming them;
    implemented in :mod:`rlscore._vec_trick`).

Builds on
    ``rlscore._groups``, ``rlscore._vec_trick``, ``rlscore._validation``. Every other
    family may import it.

Module order
    ``_pairs``.
"""

from rlscore._groups import QueryGroups, as_query_groups
from rlscore._vec_trick import (PairwiseKernelOperator, SampledKronProduct, as_index_vector,
                                grid_indices, sampled_kron_matvec)
from rlscore.core.structure._pairs import (ORDERS, check_order, pairs_to_flat,
                                           flat_to_pairs, convert_flat, vec, unvec,
                                           as_pairs, check_fold_of_pairs,
                                           check_pair_folds)
from rlscore.core.structure._sources import (ArraySource, as_source, query_blocks,
                                             contiguous_queries)

__all__ = [
    "QueryGroups",
    "as_query_groups",
    "ORDERS",
    "check_order",
    "pairs_to_flat",
    "flat_to_pairs",
    "convert_flat",
    "vec",
    "unvec",
    "as_pairs",
    "check_fold_of_pairs",
    "as_source",
]
