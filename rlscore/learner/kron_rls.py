"""Kronecker RLS on complete pairwise data (every pair of the two domains labelled)."""

import numpy as np

from rlscore.core.kronecker import (KronRLSSolver, check_complete_size,
                                    check_pairwise_kernel, check_pairwise_labels,
                                    centred_domain, make_factor, resolve_domains,
                                    symmetrize_labels, vec_f)
from rlscore._validation import check_regparam, warn_unused_kwargs
from rlscore.learner._common import exclusive
from rlscore.predictor.pairwise_predictor import (KernelPairwisePredictor,
                                                  LinearPairwisePredictor,
                                                  PairwisePredictorInterface)

__all__ = ["KronRLS"]

_KEYS = {"X1", "X2", "K1", "K2", "Y", "regparam", "pairwise_kernel"}


class KronRLS(PairwisePredictorInterface):
    """Regularized least squares with the Kronecker product pairwise kernel, closed
    form for complete data (Pahikkala et al. 2013, Prop. 4.4 / Cor. 4.5).

    Keyword arguments only (positional arguments raise TypeError).

    Parameters
    ----------
    K1, K2 : (n1, n1) and (n2, n2) symmetric kernel matrices of the two domains
        (kernel mode), or
    X1, X2 : (n1, d1) and (n2, d2) feature matrices, dense or sparse (linear mode).
        K1/K2 win when both are given.
    Y : labels of all n1 * n2 pairs: vec_F of the n1 x n2 label matrix (pair
        (X1[i], X2[j]) at position i + j * n1), an (n1 * n2, 1) column, or the
        n1 x n2 matrix itself. A wrong size or the transposed matrix is a ValueError.
    regparam : float >= 0, default 1.0
    pairwise_kernel : "kronecker" (default), "symmetric" or "reciprocal"
        For one domain (K2 = K1, may be omitted): the symmetric kernel
        1/2 [k(a, c) k(b, d) + k(a, d) k(b, c)] or the reciprocal kernel (minus sign).
        On complete data their predictions equal Kronecker RLS on the labels
        1/2 (Y + Y^T) and 1/2 (Y - Y^T) (Pahikkala et al. 2013, Prop. 4.7), which is
        how they are trained.
    **kwargs : other keywords are ignored with a UserWarning

    Attributes
    ----------
    predictor : KernelPairwisePredictor (kernel mode) or LinearPairwisePredictor
    regparam : the last regparam solved for
    Y : (n1, n2) label matrix
    A : (n1, n2) dual coefficients, (K2 kron K1 + regparam I) vec_F(A) = vec_F(Y)
        (kernel mode; all eigenvalues are kept, so this is exact also for singular
        kernels with regparam > 0)
    W : (d1, d2) primal weights minimizing ||X1 W X2^T - Y||_F^2 + regparam ||W||_F^2
        (linear mode)

    Notes
    -----
    Training: two eigendecompositions, O(n1^3 + n2^3) (linear mode: the smaller of
    O(n d^2 + d^3) and O(n^2 d + n^3) per domain), plus O(n1 n2 (n1 + n2)) for the
    products. ``solve``: O(n1 n2 (n1 + n2)). ``in_sample_loo``: O(n1 n2 (n1 + n2)).
    Memory: about six n1 x n2 arrays and three n x n per domain; larger problems are
    refused before allocating (use :class:`CGKronRLS` on sampled pairs).
    """

    def __init__(self, **kwargs):
        warn_unused_kwargs(kwargs, _KEYS, "KronRLS")
        self.pairwise_kernel = check_pairwise_kernel(kwargs.get("pairwise_kernel",
                                                                "kronecker"))
        one = self.pairwise_kernel != "kronecker"
        self._mode, D1, D2 = resolve_domains(kwargs.get("K1"), kwargs.get("K2"),
                                             kwargs.get("X1"), kwargs.get("X2"),
                                             one_domain=one)
        if "Y" not in kwargs:
            raise TypeError("KronRLS needs the labels Y")
        n1, n2 = D1.shape[0], D2.shape[0]
        check_complete_size(n1, n2)
        self.Y = check_pairwise_labels(kwargs["Y"], n1, n2)
        self._D1, self._D2 = D1, D2
        self._f1 = make_factor(self._mode, D1)
        self._f2 = self._f1 if (one and D2 is D1) else make_factor(self._mode, D2)
        self._solver = KronRLSSolver(self._f1, self._f2,
                                     symmetrize_labels(self.Y, self.pairwise_kernel))
        self._cr = None
        self.solve(kwargs.get("regparam", 1.0))

    @property
    def kernelmode(self):
        return self._mode == "kernel"

    def _set_model(self, solver, regparam):
        n1, n2 = self.Y.shape
        if self.kernelmode:
            self.A = solver.dual(regparam)
            k = np.arange(n1 * n2, dtype=np.int64)
            self.predictor = KernelPairwisePredictor(
                self.A.ravel(), np.ascontiguousarray(k // n2, dtype=np.int32),
                np.ascontiguousarray(k % n2, dtype=np.int32))
        else:
            self.W = solver.primal(regparam)
            self.predictor = LinearPairwisePredictor(vec_f(self.W))

    @exclusive
    def solve(self, regparam):
        """Re-train for a new regparam with the cached decompositions.
        O(n1 n2 (n1 + n2))."""
        self.regparam = check_regparam(regparam)
        self._set_model(self._solver, self.regparam)

    def in_sample_loo(self):
        """Leave-one-pair-out predictions: entry (i, j) from the model trained on all
        other entries of Y (equal to RLS leave-one-out with the kernel K2 kron K1).
        Returns the length n1 * n2 vector in vec_F order. O(n1 n2 (n1 + n2)).

        Not available for the symmetric / reciprocal pairwise kernels (leaving one
        pair out breaks the label symmetrization); use TwoStepRLS's symmetric
        shortcuts or retraining."""
        if self.pairwise_kernel != "kronecker":
            raise ValueError("in_sample_loo is not available for the symmetric or "
                             "reciprocal pairwise kernel")
        return vec_f(self._solver.in_sample_loo(self.regparam))

    def solve_conditional_ranking(self, regparam):
        """Re-train for the conditional ranking loss: each domain-1 object is a query
        over the domain-2 objects, and the loss is the per-query centred squared
        error ||(F - Y) C||_F^2, C = I - 11^T / n2 (equal to QueryRankRLS with
        kernel K2 kron K1 and qids = domain-1 index). Works in both modes; replaces
        ``predictor`` (and ``A`` or ``W``). Predictions are meaningful up to a
        per-query constant. First call O(n2^3 + n1 n2 (n1 + n2)), then
        O(n1 n2 (n1 + n2)) per regparam."""
        if self.pairwise_kernel != "kronecker":
            raise ValueError("conditional ranking has no closed form with the symmetric "
                             "or reciprocal pairwise kernel; use CGKronRLS with "
                             "conditional_ranking=True")
        regparam = check_regparam(regparam)
        if self._cr is None:
            f2c = make_factor(self._mode, centred_domain(self._mode, self._D2))
            Yc = self.Y - self.Y.mean(axis=1, keepdims=True)
            self._cr = KronRLSSolver(self._f1, f2c, Yc)
        self.regparam = regparam
        self._set_model(self._cr, regparam)

    def solve_linear_conditional_ranking(self, regparam):
        """Linear mode: re-train W to minimize ||(X1 W X2^T - Y) C||_F^2 +
        regparam ||W||_F^2, C = I - 11^T / n2 (see :meth:`solve_conditional_ranking`,
        which also works with kernels)."""
        if self.kernelmode:
            raise ValueError("solve_linear_conditional_ranking needs linear mode (X1, X2); "
                             "use solve_conditional_ranking with kernels")
        self.solve_conditional_ranking(regparam)
