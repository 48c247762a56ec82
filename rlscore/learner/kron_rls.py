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
    default criterion scores new pairs of known objects (setting A); for new drugs or
    targets it is optimistic: ``criterion="drugs"`` / ``"targets"`` / ``"both"``
    minimizes the exact leave-one-drug-out / leave-one-target-out / both-new error
    with its gradient (settings B-D). Cost per optimizer step: two
    eigendecompositions and O(n1^3 n2 + n1 n2^3) (B, C: O(n1^3 n2 + n1^2 n2^2)).
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

    def predict_interval(self, K1pred, K2pred, inds_K1pred=None, inds_K2pred=None,
                         miscoverage=0.1, method="jackknife+", setting="pairs",
                         folds=None):
        """Distribution-free prediction intervals (jackknife+ / CV+ of Barber et al.
        2021) for test pairs, from the exact hold-out models of the closed form (no
        refit; :func:`rlscore.core.kronecker.kron_interval_model`).

        Parameters
        ----------
        K1pred, K2pred : (u1, n1), (u2, n2) kernels between the test objects and the
            training objects (kernel mode)
        inds_K1pred, inds_K2pred : the test pairs (None: every pair of the test
            objects, in vec_F order as :meth:`predict`)
        miscoverage : float in (0, 1), default 0.1
            The miscoverage rate: 0.1 gives 90% intervals.
        method : one of :data:`rlscore.core.rls.METHODS`
        setting : {"pairs", "drugs", "rows", "targets", "columns", "cols", "both"}
            What the test pairs are new in: known objects (leave-one-pair-out, or
            CV+ over ``folds`` of flat vec_F pair indices), new domain-1 objects
            (``folds`` of rows), new domain-2 objects, or both (``folds`` = (row
            folds, column folds); None: one object per fold).
        folds : see ``setting``

        Returns
        -------
        y_pred, lower, upper : ndarrays of shape (n_pairs,)

        Notes
        -----
        Costs as in :meth:`rlscore.estimators.PairwiseRLS.predict_interval`.
        """
        import numpy as np
        from rlscore._validation import check_miscoverage
        from rlscore.core.kronecker import (INTERVAL_SETTINGS, IntervalScheme,
                                            kron_interval_model)
        miscoverage = check_miscoverage(miscoverage, "miscoverage")
        if not isinstance(setting, str) or setting not in INTERVAL_SETTINGS:
            raise ValueError(f"setting must be one of {sorted(INTERVAL_SETTINGS)}, got "
                             f"{setting!r}")
        if not self.kernelmode or self.pairwise_kernel != "kronecker" or \
                self.repairs is not None:
            raise ValueError("predict_interval needs kernel mode (K1, K2), the Kronecker "
                             "pairwise kernel and a positive semidefinite kernel (no "
                             "repair)")
        D1 = np.asarray(K1pred, dtype=np.float64)
        D2 = np.asarray(K2pred, dtype=np.float64)
        n1, n2 = self.Y.shape
        if D1.ndim != 2 or D2.ndim != 2 or D1.shape[1] != n1 or D2.shape[1] != n2:
            raise ValueError(f"K1pred and K2pred must be (u1, {n1}) and (u2, {n2}) test "
                             f"kernels, got {D1.shape} and {D2.shape}")
        if inds_K1pred is None and inds_K2pred is None:
            i = np.tile(np.arange(D1.shape[0]), D2.shape[0])
            j = np.repeat(np.arange(D2.shape[0]), D1.shape[0])
        else:
            from rlscore._vec_trick import as_index_vector
            i = as_index_vector(inds_K1pred, D1.shape[0], "inds_K1pred")
            j = as_index_vector(inds_K2pred, D2.shape[0], "inds_K2pred")
            if i.size != j.size:
                raise ValueError("inds_K1pred and inds_K2pred differ in length")
        im, method = kron_interval_model(self._D1, self._D2, self.Y,
                                         self._current_regparam(), D1, D2,
                                         IntervalScheme(INTERVAL_SETTINGS[setting], folds,
                                                        method))
        return tuple(np.ascontiguousarray(r[:, 0]) for r in
                     im.predict_interval(np.column_stack([i, j]), miscoverage, method))

    @exclusive
    def solve(self, regparam):
        """Re-train for a new regparam with the cached decompositions (refused with a
        RuntimeError while another thread runs it on this learner).
        O(n1 n2 (n1 + n2))."""
        return super().solve(regparam)
