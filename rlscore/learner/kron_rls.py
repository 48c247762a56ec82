"""Kronecker RLS on complete pairwise data (every pair of the two domains labelled):
RLScore's keyword interface over :class:`rlscore.core.kronecker.KronRLSModel`."""

from rlscore.core.kronecker import KronRLSModel
from rlscore.core.hyper import LearnableKernel, learn_kron_kernel
from rlscore._validation import check_pairwise_labels, warn_unused_kwargs
from rlscore.learner._common import adapted_doc, exclusive, learns_kernel, reports_progress

__all__ = ["KronRLS"]

_KEYS = ("X1", "X2", "K1", "K2", "Y", "regparam", "pairwise_kernel", "indefinite")
#: keywords of ``gamma="learn"`` (ignored with a warning otherwise)
_LEARN_KEYS = ("gamma", "kernel", "ard", "penalty", "degree", "criterion")

_LEARN_DOC = """
    Kernel learning (this face only): ``KronRLS(X1=, X2=, Y=, gamma="learn")``
    learns one Gaussian gamma per domain (``kernel="PolynomialKernel"``: gamma and
    coef0 of each domain; ``ard=True``: one gamma per feature) together with regparam
    by minimizing the exact in-sample leave-one-pair-out squared error with its
    gradient (:func:`rlscore.core.hyper.learn_kron_kernel`; ``criterion="evidence"``
    minimizes the Gaussian-process evidence instead; ``penalty`` as in
    features (not linear-kernel data), ``regparam`` must not be given, and the model is
    trained on the kernel matrices at the learned values. Attributes: ``regparam``,
    ``gamma1``, ``gamma2``, ``kernel1``, ``kernel2`` (kernel objects; test kernels for
    ``predict`` are ``kernel1.getKM(X1_test)``, ``kernel2.getKM(X2_test)``),
    ``cv_history`` (per optimizer step) and ``kernel_learning`` (the core result). The
    criterion scores new pairs of known objects (setting A); for new drugs or targets
    (settings B-D) it is optimistic. Cost per optimizer step: two eigendecompositions
    and O(n1^3 n2 + n1 n2^3).
"""


class KronRLS(KronRLSModel):
    __doc__ = adapted_doc(
        KronRLSModel.__doc__,
        "    The core object behind :class:`rlscore.learner.KronRLS` (RLScore's keyword\n"
        "    interface) and :class:`rlscore.estimators.PairwiseRLS` (closed-form solver).\n",
        "    Keyword arguments only (positional arguments raise TypeError); other\n"
        "    keywords are ignored with a UserWarning, except ``label_row_inds`` /\n"
        "    ``label_col_inds`` (a ValueError: sampled pairs are CGKronRLS's). NaN in Y\n"
        "    is a ValueError that points to CGKronRLS. The implementation is\n"
        "    :class:`rlscore.core.kronecker.KronRLSModel`.\n" + _LEARN_DOC)

    @reports_progress
    def __init__(self, **kwargs):
        learn = learns_kernel(kwargs)
        sampled = [k for k in ("label_row_inds", "label_col_inds") if k in kwargs]
        if sampled:
            raise ValueError(
                f"KronRLS trains on complete data (every pair of the two domains "
                f"labelled) and takes no {' / '.join(sampled)}; for a sample of "
                f"labelled pairs use rlscore.learner.CGKronRLS(K1=..., K2=..., Y=..., "
                f"label_row_inds=..., label_col_inds=...)")
        warn_unused_kwargs(kwargs, set(_KEYS) | (set(_LEARN_KEYS) if learn else set()),
                           "KronRLS")
        args = {k: kwargs[k] for k in _KEYS if k in kwargs}
        if learn:
            args = self._learn(args, kwargs)
        super().__init__(**args)

    def _learn(self, args, kwargs):
        """gamma='learn': the core search, then the keywords of the model at its
        result."""
        if "K1" in args or "K2" in args or "X1" not in args or "X2" not in args:
            raise ValueError("gamma='learn' needs the objects' features X1 and X2 (not "
                             "the kernel matrices K1, K2)")
        if args.get("pairwise_kernel", "kronecker") != "kronecker":
            raise ValueError("gamma='learn' needs pairwise_kernel='kronecker'")
        if "regparam" in args:
            raise ValueError("gamma='learn' learns regparam too: do not give regparam")
        if "Y" not in args:
            raise TypeError("KronRLS needs the labels Y")
        kernel = kwargs.get("kernel", "GaussianKernel")
        if kernel not in ("GaussianKernel", "PolynomialKernel"):
            raise ValueError(f"gamma='learn' needs kernel='GaussianKernel' or "
                             f"'PolynomialKernel', got kernel={kernel!r}")
        X1, X2 = args["X1"], args["X2"]
        n1, n2 = (X.shape[0] if hasattr(X, "shape") else len(X) for X in (X1, X2))
        Y = check_pairwise_labels(args["Y"], n1, n2)
        side = LearnableKernel(kernel, ard=kwargs.get("ard", False),
                               degree=kwargs.get("degree", 2))
        res = learn_kron_kernel(X1, X2, Y, side, side, penalty=kwargs.get("penalty", 0.0),
                                criterion=kwargs.get("criterion", "loo"))
        self.kernel_learning = res
        self.cv_history = res.history
        self.gamma1 = res.kernel_params1["gamma"]
        self.gamma2 = res.kernel_params2["gamma"]
        self.kernel1, self.kernel2 = res.kernel1(), res.kernel2()
        K1, K2 = res.kernel_matrices()
        out = {k: v for k, v in args.items() if k not in ("X1", "X2")}
        out.update(K1=K1, K2=K2, Y=Y, regparam=res.regparam)
        return out

    @exclusive
    def solve(self, regparam):
        """Re-train for a new regparam with the cached decompositions (refused with a
        RuntimeError while another thread runs it on this learner).
        O(n1 n2 (n1 + n2))."""
        return super().solve(regparam)
