"""The generalized vec trick (public name): see :mod:`rlscore._vec_trick`, where the one
implementation lives so that the pairwise predictors below :mod:`rlscore.core` can use
it too."""

from rlscore._vec_trick import (PairwiseKernelOperator, SampledKronProduct, as_index_vector,
                                grid_indices, sampled_kron_matvec)

__all__ = ["PairwiseKernelOperator", "SampledKronProduct", "as_index_vector",
           "grid_indices", "sampled_kron_matvec"]
