"""Utilities: file readers and writers, cross-validation helpers, one-vs-all encoding,
array conversion and the pairwise (Kronecker) kernel operator.

Submodules: :mod:`~rlscore.utilities.reader`, :mod:`~rlscore.utilities.cross_validation`,
:mod:`~rlscore.utilities.multiclass`, :mod:`~rlscore.utilities.array_tools`,
:mod:`~rlscore.utilities.sampled_kronecker_products`,
:mod:`~rlscore.utilities.pairwise_kernel_operator`,
:mod:`~rlscore.utilities.pairs` (pair index orders).
"""

from rlscore.utilities import array_tools, cross_validation, multiclass, reader
from rlscore.utilities import pairs, pairwise_kernel_operator, sampled_kronecker_products
from rlscore.utilities.pairwise_kernel_operator import PairwiseKernelOperator

__all__ = ["reader", "cross_validation", "multiclass", "array_tools",
           "pairwise_kernel_operator", "sampled_kronecker_products", "pairs",
           "PairwiseKernelOperator"]
