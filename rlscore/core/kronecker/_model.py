"""The Kronecker RLS model on complete pairwise data (every pair of the two domains
labelled): training, re-training for new regparams, and every exact hold-out.

:class:`KronRLSModel` is the one implementation; :class:`rlscore.learner.KronRLS` and
:class:`rlscore.estimators.PairwiseRLS` adapt it. It holds the two
:class:`~rlscore.core.kronecker.DomainFactor` decompositions (``factors``), so a
learner built on top (e.g. one combining several pairwise kernels) can re-solve for
new regparams at O(n1 n2 (n1 + n2)) each.
"""

import numpy as np

from rlscore.core.kronecker._kronecker import KronRLSSolver
from rlscore.core.kronecker._data import (check_complete_size, check_pairwise_kernel,
                                          check_pairwise_labels, centred_domain,
                                          resolve_domains, symmetrize_labels, vec_f)
from rlscore.core.kronecker._factor import make_factor
from rlscore.core.kronecker._indefinite import check_indefinite
from rlscore.core.kronecker._holdout import (kron_both_holdout, kron_leave_row_out,
                                             kron_pairs_holdout, kron_rows_holdout)
from rlscore.core.structure import as_pairs, check_order
from rlscore._validation import check_regparam
from rlscore.predictor.pairwise_predictor import (KernelPairwisePredictor,
                                                  LinearPairwisePredictor,
                                                  PairwisePredictorInterface)

__all__ = ["KronRLSModel"]


class KronRLSModel(PairwisePredictorInterface):
    """Regularized least squares with the Kronecker product pairwise kernel, closed
    form for complete data (Pahikkala et al. 2013, Prop. 4.4 / Cor. 4.5).

    The core object behind :class:`rlscore.learner.KronRLS` (RLScore's keyword
    interface) and :class:`rlscore.estimators.PairwiseRLS` (closed-form solver).

    Parameters
    ----------
    K1, K2 : (n1, n1) and (n2, n2) symmetric kernel matrices of the two domains
        (kernel mode), or
    X1, X2 : (n1, d1) and (n2, d2) feature matrices, dense or sparse (linear mode).
        K1/K2 win when both are given.
    Y : labels of all n1 * n2 pairs: vec_F of the n1 x n2 label matrix (pair
        (X1[i], X2[j]) at position i + j * n1), an (n1 * n2, 1) column, or the
        n1 x n2 matrix itself. A wrong size or the transposed matrix is a ValueError.
    regparam : float >= 0 or None, default 1.0
        None decomposes the kernels without training: call :meth:`solve` (e.g. over
        a grid) before predicting.
    pairwise_kernel : "kronecker" (default), "symmetric" or "reciprocal"
        For one domain (K2 = K1, may be omitted): the symmetric kernel
        1/2 [k(a, c) k(b, d) + k(a, d) k(b, c)] or the reciprocal kernel (minus sign).
        On complete data their predictions equal Kronecker RLS on the labels
        1/2 (Y + Y^T) and 1/2 (Y - Y^T) (Pahikkala et al. 2013, Prop. 4.7), which is
        how they are trained.
    indefinite : "raise" (default), "clip" or "shift"
        What to do with a factor kernel that has negative eigenvalues (e.g. a
        normalized Smith-Waterman similarity): "raise" refuses a regparam that leaves
        K2 kron K1 + regparam I indefinite, naming the smallest eigenvalue and the
        smallest regparam that works; "clip" sets each factor's negative eigenvalues
        to 0, "shift" adds abs(smallest eigenvalue) I to each indefinite factor (both
        with a UserWarning). See :mod:`rlscore.core.kronecker`.
        The model keeps the repair and applies it to the test kernels at
        prediction ("shift": a row equal to a training object's row of K gets the
        shift on that object's own column; "clip": every row is projected as K was),
        so ``predict(K1, K2)`` gives the fitted values of the repaired model
        (attribute ``repairs``; the rule is in :mod:`rlscore.core.kronecker`).

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

    def __init__(self, Y=None, K1=None, K2=None, X1=None, X2=None, regparam=1.0,
                 pairwise_kernel="kronecker", indefinite="raise"):
        self.pairwise_kernel = check_pairwise_kernel(pairwise_kernel)
        one = self.pairwise_kernel != "kronecker"
        self._mode, D1, D2 = resolve_domains(K1, K2,
                                             X1, X2,
                                             one_domain=one)
        if Y is None:
            raise TypeError(f"{type(self).__name__} needs the labels Y")
        n1, n2 = D1.shape[0], D2.shape[0]
        check_complete_size(n1, n2)
        self.Y = check_pairwise_labels(Y, n1, n2)
        self.indefinite = check_indefinite(indefinite)
        self._f1 = make_factor(self._mode, D1, "K1" if self.kernelmode else "X1",
                               indefinite=self.indefinite)
        self._f2 = self._f1 if (one and D2 is D1) else make_factor(
            self._mode, D2, "K2" if self.kernelmode else "X2", indefinite=self.indefinite)
        self._D1, self._D2 = self._f1.data, self._f2.data
        self._solver = KronRLSSolver(self._f1, self._f2,
                                     symmetrize_labels(self.Y, self.pairwise_kernel))
        self._cr = None
        self._fold_factors = None       # decompositions of setting-D training parts
        self.predictor = None
        self.regparam = None
        if regparam is not None:
            self.solve(regparam)

    @property
    def factors(self):
        """The (domain-1, domain-2) :class:`~rlscore.core.kronecker.DomainFactor`."""
        return self._f1, self._f2

    @property
    def kernelmode(self):
        return self._mode == "kernel"

    @property
    def repairs(self):
        """(domain 1, domain 2) :class:`~rlscore.core.kronecker.KernelRepair` (None for
        a factor left as it is), or None when neither factor was repaired; ``predict``
        applies them to the test kernels."""
        r = (self._f1.repair, self._f2.repair)
        return None if r == (None, None) else r

    def _current_regparam(self):
        if self.regparam is None:
            raise ValueError("the model was constructed with regparam=None: call "
                             "solve(regparam) first")
        return self.regparam

    def _set_model(self, solver, regparam):
        n1, n2 = self.Y.shape
        if self.kernelmode:
            self.A = solver.dual(regparam)
            k = np.arange(n1 * n2, dtype=np.int64)
            self.predictor = KernelPairwisePredictor(
                self.A.ravel(), np.ascontiguousarray(k // n2, dtype=np.int32),
                np.ascontiguousarray(k % n2, dtype=np.int32), repairs=self.repairs)
        else:
            self.W = solver.primal(regparam)
            self.predictor = LinearPairwisePredictor(vec_f(self.W))

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
        return vec_f(self._solver.in_sample_loo(self._current_regparam()))

    # -- hold-outs (settings A-D), exact; see rlscore.core.kronecker ----------
    def _holdout_ready(self, what):
        if self.pairwise_kernel != "kronecker":
            raise ValueError(f"{what} is not available for the symmetric or reciprocal "
                             f"pairwise kernel")
        return self._current_regparam()

    def in_sample_kfoldcv(self, folds, order="F", maxiter=None):
        """Hold-out predictions for folds of pairs (setting A): each fold is a
        ``(row_inds, col_inds)`` pair of equal-length sequences or a 1-D array of flat
        pair indices in ``order`` ("F": i + j n1, default; "C": i n2 + j, row-major as
        in DeepDTA's folds). Its pairs are predicted by the model trained on all other
        pairs (exact). Returns the vec_F vector (pairs in no fold 0). Per fold
        O(len(S)^2 n1 n2) dense, or conjugate gradients at O(n1 n2 (n1 + n2)) per
        iteration for large folds (at most ``maxiter``)."""
        lam = self._holdout_ready("in_sample_kfoldcv")
        n1, n2 = self.Y.shape
        check_order(order)
        if not isinstance(folds, (list, tuple)) or len(folds) == 0:
            raise ValueError("folds must be a non-empty list of folds")
        pf = [as_pairs(f, (n1, n2), order, f"folds[{k}]") for k, f in enumerate(folds)]
        return vec_f(kron_pairs_holdout(self._f1, self._f2, self.Y, pf, lam,
                                        maxiter=maxiter))

    def leave_x1_out(self):
        """Leave-row-out (setting B, e.g. leave-drug-out): all pairs (i, .) predicted
        by the model trained without domain-1 object i. O(n1 n2 (n1 + n2))."""
        lam = self._holdout_ready("leave_x1_out")
        return vec_f(kron_leave_row_out(self._f1, self._f2, self.Y, lam))

    def leave_x2_out(self):
        """Leave-column-out (setting C, e.g. leave-target-out). O(n1 n2 (n1 + n2))."""
        lam = self._holdout_ready("leave_x2_out")
        return vec_f(kron_leave_row_out(self._f2, self._f1, self.Y.T, lam).T)

    def x1_kfold_cv(self, folds):
        """K-fold over domain-1 objects (setting B): ``folds`` is a list of disjoint
        row-index lists (ValueError for a row in two folds); rows of a fold are
        predicted by the model trained without them."""
        lam = self._holdout_ready("x1_kfold_cv")
        return vec_f(kron_rows_holdout(self._f1, self._f2, self.Y, folds, lam))

    def x2_kfold_cv(self, folds):
        """K-fold over domain-2 objects (setting C): column-index lists."""
        lam = self._holdout_ready("x2_kfold_cv")
        return vec_f(kron_rows_holdout(self._f2, self._f1, self.Y.T, folds, lam).T)

    def out_of_sample_kfold_cv(self, rowfolds, colfolds):
        """Setting D: for every row fold R and column fold C, the pairs R x C
        predicted by the model trained without rows R and columns C (one
        decomposition per fold of each domain, then O(n1 n2 (n1 + n2)) per fold
        pair). Entries outside the folds are 0."""
        lam = self._holdout_ready("out_of_sample_kfold_cv")
        if self._fold_factors is None:
            self._fold_factors = {}
        return vec_f(kron_both_holdout(self._f1, self._f2, self._mode, self.Y, rowfolds,
                                       colfolds, lam, cache=self._fold_factors))

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
