"""What the kernel-learning drivers take besides the data: the kernel family to learn
(:class:`LearnableKernel`), the search's knobs
(:class:`rlscore.core.selection.SearchOptions`) and the penalty
(:class:`rlscore.core.selection.Penalty`), and :func:`learning_options`, which builds
them from the faces' flat keywords (``ard=``, ``restarts=``, ``penalty_kind=``, ...)."""

from dataclasses import dataclass

import numpy as np

from rlscore.core.selection import Penalty, SearchOptions

__all__ = ["LearnableKernel", "as_learnable_kernel", "learning_options",
           "kron_learning_options", "SEARCH_KEYWORDS"]

#: the faces' flat keywords that are fields of SearchOptions
SEARCH_KEYWORDS = ("restarts", "maxiter", "rtol", "patience", "blas_threads", "verbose",
                   "regparam_range", "width_range")


@dataclass(frozen=True)
class LearnableKernel:
    """A kernel whose parameters a driver learns: the kernel's name and the fixed
    parameters that choose the family.

    Attributes
    ----------
    name : str, default "GaussianKernel"
        ``"GaussianKernel"``, ``"PolynomialKernel"`` (or, for one side of
        :func:`rlscore.core.hyper.learn_kron_kernel`, ``"LinearKernel"``, kept fixed).
    ard : bool, default False
        Gaussian kernel: one width per feature (automatic relevance determination).
    degree : int, default 2
        Polynomial kernel: the degree (kept fixed; gamma and coef0 are learned).
    """
    name: str = "GaussianKernel"
    ard: bool = False
    degree: int = 2

    def __post_init__(self):
        if not isinstance(self.ard, (bool, np.bool_)):
            raise TypeError(f"ard must be True or False, got {self.ard!r}")


def as_learnable_kernel(kernel, name="kernel"):
    """A :class:`LearnableKernel` from one or from a kernel name (its defaults: no ARD,
    degree 2). O(1)."""
    if isinstance(kernel, LearnableKernel):
        return kernel
    if not isinstance(kernel, str):
        raise TypeError(f"{name} must be a kernel name or a LearnableKernel, got "
                        f"{type(kernel).__name__}")
    return LearnableKernel(kernel)


def learning_options(kernel="GaussianKernel", **keywords):
    """The keyword arguments of :func:`rlscore.core.hyper.learn_kernel` from the flat
    keywords the faces take: ``ard`` and ``degree`` go into the
    :class:`LearnableKernel` ``kernel``, :data:`SEARCH_KEYWORDS` into ``search``
    (:class:`~rlscore.core.selection.SearchOptions`), ``penalty`` and
    ``penalty_kind`` into ``penalty`` (:class:`~rlscore.core.selection.Penalty`); the
    others (``objective``, ``basis_vectors``, ``criterion``) pass through. O(1).

    Examples
    --------
    >>> opts = learning_options("GaussianKernel", ard=True, restarts=0, penalty=0.1)
    >>> opts["kernel"].ard, opts["search"].restarts, opts["penalty"].weight
    (True, 0, 0.1)
    """
    return _grouped({"kernel": kernel}, keywords)


def kron_learning_options(kernel1="GaussianKernel", kernel2="GaussianKernel", **keywords):
    """:func:`learning_options` for :func:`rlscore.core.hyper.learn_kron_kernel`: ``ard``
    and ``degree`` go into both sides' :class:`LearnableKernel` (``kernel1``,
    ``kernel2``). O(1)."""
    return _grouped({"kernel1": kernel1, "kernel2": kernel2}, keywords)


def _grouped(kernels, keywords):
    kw = dict(keywords)
    ard, degree = kw.pop("ard", False), kw.pop("degree", 2)
    out = {key: LearnableKernel(name, ard=ard, degree=degree)
           for key, name in kernels.items()}
    out["search"] = SearchOptions(**{k: kw.pop(k) for k in SEARCH_KEYWORDS if k in kw})
    out["penalty"] = Penalty(kw.pop("penalty", 0.0), kw.pop("penalty_kind", "scale"))
    out.update(kw)
    return out
