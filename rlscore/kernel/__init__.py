"""Kernel functions. A kernel object is built on basis data (``train_X``) and computes
``getKM(X)``, the dense (n_samples, n_basis) kernel matrix; ``kernel_blocks`` walks over
many rows one block at a time and ``map_kernel_blocks`` computes cache-sized blocks side
by side, one thread each (the one home of blocked kernel products, sized by the
working-memory budget of :mod:`rlscore._blocks`).

Kernels on structured inputs (``AllPathsGraphKernel`` on graphs,
``ContextWeightedBowKernel`` on documents with a target position) set the class
attribute ``structured_input = True``: the learners then pass X and ``basis_vectors``
to them as given (lists of graphs or documents), and ``train_X`` holds the basis
features.

``"PrecomputedKernel"`` is a name the learners recognise (X is then a kernel matrix);
it is not a class. ``"precomputed"`` (scikit-learn's spelling) is accepted as an alias
(:func:`canonical_kernel_name`).
"""

import inspect

from rlscore.kernel.linear_kernel import LinearKernel
from rlscore.kernel.gaussian_kernel import GaussianKernel
from rlscore.kernel.polynomial_kernel import PolynomialKernel
from rlscore.kernel.rset_kernel import RsetKernel
from rlscore.kernel.graph_kernel import AllPathsGraphKernel, Graph, relation_graph
from rlscore.kernel.text_kernel import ContextWeightedBowKernel, ContextWeightedBowVectorizer
from rlscore.kernel._base import as_kernel_input
from rlscore.kernel._families import (GaussianFamily, PolynomialFamily, FixedFamily, SumFamily,
                                      median_heuristic_gamma)
from rlscore.kernel._blocked import (kernel_block, kernel_blocks, map_kernel_blocks,
                                     ThreadBuffers, block_size_for, read_block)

# the documented API (docs/api.rst); the blocked products (kernel_block, kernel_blocks,
# map_kernel_blocks, ThreadBuffers, block_size_for, read_block), kernel_parameter_names,
# canonical_kernel_name and as_kernel_input stay importable here for rlscore.core
__all__ = ["LinearKernel", "GaussianKernel", "PolynomialKernel", "RsetKernel",
           "AllPathsGraphKernel", "Graph", "relation_graph", "ContextWeightedBowKernel",
           "ContextWeightedBowVectorizer", "createKernelByModuleName", "KERNELS",
           "GaussianFamily", "PolynomialFamily", "FixedFamily", "SumFamily",
           "median_heuristic_gamma"]

#: kernel class name -> class: the kernels that the learners build by name
#: (``kernel="GaussianKernel"``); :func:`createKernelByModuleName` looks names up here.
KERNELS = {
    "LinearKernel": LinearKernel,
    "GaussianKernel": GaussianKernel,
    "PolynomialKernel": PolynomialKernel,
    "RsetKernel": RsetKernel,
    "AllPathsGraphKernel": AllPathsGraphKernel,
    "ContextWeightedBowKernel": ContextWeightedBowKernel,
}


#: other spellings of kernel names that the learners accept
KERNEL_ALIASES = {"precomputed": "PrecomputedKernel"}


def canonical_kernel_name(name):
    """The RLScore name of a kernel: ``"precomputed"`` (scikit-learn's spelling) means
    ``"PrecomputedKernel"``; every other name is returned as it is (unknown names are
    refused where the kernel is built). O(1)."""
    return KERNEL_ALIASES.get(name, name) if isinstance(name, str) else name


def kernel_parameter_names(name):
    """The keyword parameters (besides the data) of the kernel class ``name``."""
    if name not in KERNELS:
        raise ValueError(
            f"unknown kernel {name!r}; choose one of {sorted(KERNELS) + ['PrecomputedKernel']}")
    params = inspect.signature(KERNELS[name].__init__).parameters
    return [p for p in params if p not in ("self", "X")]


def createKernelByModuleName(**kwargs):
    """Build the kernel named ``kwargs['kernel']`` (RLScore's mechanism).

    The data argument is ``kwargs['basis_vectors']`` when present, else ``kwargs['X']``;
    every other keyword naming a parameter of the kernel class is passed on, the rest
    are dropped. An unknown kernel name raises ValueError.
    """
    name = kwargs.get("kernel", "LinearKernel")
    accepted = kernel_parameter_names(name)
    data = kwargs["basis_vectors"] if kwargs.get("basis_vectors") is not None else kwargs["X"]
    params = {k: kwargs[k] for k in accepted if k in kwargs}
    return KERNELS[name](X=data, **params)
