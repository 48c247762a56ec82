"""Two-step kernel RLS on complete pairwise data, with cross-validation shortcuts for
the four prediction settings (Pahikkala et al. 2014; Stock et al. 2018)."""

from rlscore.core.kronecker import TwoStepSolver, make_factor, resolve_domains, vec_f
from rlscore.core.structure import as_pairs, check_order
from rlscore._validation import (check_complete_size, check_indefinite, check_pairwise_labels,
                                 check_regparam, warn_unused_kwargs)
from rlscore.learner._common import VERBOSE_DOC, exclusive, reports_progress
from rlscore.predictor.pairwise_predictor import (KernelPairwisePredictor,
                                                  LinearPairwisePredictor,
                                                  PairwisePredictorInterface)

__all__ = ["TwoStepRLS"]

_KEYS = {"X1", "X2", "K1", "K2", "Y", "regparam1", "regparam2", "indefinite"}


class TwoStepRLS(PairwisePredictorInterface):
    __doc__ = f"""Two-step RLS: ridge regression over domain 2 for every domain-1 object, then over
    domain 1 on those predictions. Keyword arguments only.

    Parameters
    ----------
    K1, K2 : (n1, n1), (n2, n2) symmetric kernel matrices (kernel mode), or
    X1, X2 : (n1, d1), (n2, d2) feature matrices (linear mode); K1/K2 win.
    Y : labels of all n1 * n2 pairs, vec_F order (pair (i, j) at i + j * n1), an
        (n1 * n2, 1) column, or the n1 x n2 matrix
    regparam1, regparam2 : float >= 0 (or both None / omitted: the kernels are
        decomposed without training; call :meth:`solve` before predicting)
    indefinite : "raise" (default), "clip" or "shift"
        Factor kernels with negative eigenvalues: "raise" refuses a regparam that
        leaves K + regparam I indefinite (naming the smallest eigenvalue and the
        smallest regparam that works); "clip" / "shift" repair each factor with a
        UserWarning (see :mod:`rlscore.core.kronecker`; the same policy as KronRLS
        and CGKronRLS); the repair is applied to the test kernels at prediction.
    **kwargs : other keywords are ignored with a UserWarning
{VERBOSE_DOC}

    Attributes
    ----------
    predictor, regparam1, regparam2, Y (n1 x n2);
    A : (n1, n2) = (K1 + regparam1 I)^{{-1}} Y (K2 + regparam2 I)^{{-1}} (kernel mode);
        ``predictor = KernelPairwisePredictor(vec_F(A))``
    W : (d1, d2) = (X1^T X1 + l1 I)^{{-1}} X1^T Y X2 (X2^T X2 + l2 I)^{{-1}} (linear mode)

    Notes
    -----
    The model is ordinary RLS (regparam 1) with the pairwise kernel
    G = [l1 l2 (K2^-1 kron K1^-1) + l1 (I kron K1^-1) + l2 (K2^-1 kron I)]^-1, whose
    hat matrix is H2 kron H1 with H = K (K + l I)^{{-1}}; the cross-validation methods
    below are exact (equal to retraining). Training: two eigendecompositions,
    O(n1^3 + n2^3); ``solve`` and every leave-one-out method O(n1 n2 (n1 + n2)).
    All CV methods return a vector of length n1 * n2 in vec_F order; entries not
    covered by any fold are 0.
    """

    @reports_progress
    def __init__(self, **kwargs):
        warn_unused_kwargs(kwargs, _KEYS, "TwoStepRLS")
        l1, l2 = kwargs.get("regparam1"), kwargs.get("regparam2")
        if (l1 is None) != (l2 is None):
            raise TypeError("TwoStepRLS needs both regparam1 and regparam2 (or neither, "
                            "to decompose now and solve later)")
        if "Y" not in kwargs:
            raise TypeError("TwoStepRLS needs the labels Y")
        self._mode, D1, D2 = resolve_domains(kwargs.get("K1"), kwargs.get("K2"),
                                             kwargs.get("X1"), kwargs.get("X2"))
        n1, n2 = D1.shape[0], D2.shape[0]
        check_complete_size(n1, n2)
        self.Y = check_pairwise_labels(kwargs["Y"], n1, n2)
        self.indefinite = check_indefinite(kwargs.get("indefinite", "raise"))
        kern = self._mode == "kernel"
        self._f1 = make_factor(self._mode, D1, "K1" if kern else "X1", "regparam1",
                               self.indefinite)
        self._f2 = make_factor(self._mode, D2, "K2" if kern else "X2", "regparam2",
                               self.indefinite)
        self._solver = TwoStepSolver(self._f1, self._f2, self.Y)
        self.predictor = None
        self.regparam1 = self.regparam2 = None
        if l1 is not None:
            self.solve(l1, l2)

    @property
    def kernelmode(self):
        return self._mode == "kernel"

    def _lams(self):
        if self.regparam1 is None:
            raise ValueError("TwoStepRLS was constructed without regparams: call "
                             "solve(regparam1, regparam2) first")
        return self.regparam1, self.regparam2

    @exclusive
    def solve(self, regparam1, regparam2):
        """Re-train for new regparams with the cached decompositions.
        O(n1 n2 (n1 + n2))."""
        l1 = check_regparam(regparam1, "regparam1")
        l2 = check_regparam(regparam2, "regparam2")
        if self.kernelmode:
            A = self._solver.dual(l1, l2)
            reps = (self._f1.repair, self._f2.repair)
            predictor = KernelPairwisePredictor(
                vec_f(A), repairs=None if reps == (None, None) else reps)
            self.A = A
        else:
            W = self._solver.primal(l1, l2)
            predictor = LinearPairwisePredictor(vec_f(W))
            self.W = W
        self.regparam1, self.regparam2 = l1, l2
        self.predictor = predictor

    # -- setting A: pairs of known objects ---------------------------------------------
    def in_sample_loo(self):
        """Each pair left out alone (the others of its row and column stay in
        training): LOO_ij = (F_ij - h_ij Y_ij) / (1 - h_ij), h_ij = H1_ii H2_jj.
        O(n1 n2 (n1 + n2))."""
        return vec_f(self._solver.in_sample_loo(*self._lams()))

    def in_sample_kfoldcv(self, folds, maxiter=None, order="F"):
        """Hold-out predictions for folds of pairs: ``folds`` is a list of
        ``(row_inds, col_inds)`` pairs of equal-length index sequences, or of 1-D
        arrays of flat pair indices in ``order`` ("F": i + j n1, RLScore's default;
        "C": i n2 + j, row-major as in DeepDTA's folds); the pairs of a
        fold are predicted by the model trained on all other pairs (RLS with the
        two-step kernel G). Each fold costs a len(S) x len(S) dense solve, or MINRES with
        the vec trick (at most ``maxiter`` iterations) for folds of more than 2500
        pairs."""
        n1, n2 = self.Y.shape
        folds = [as_pairs(f, (n1, n2), check_order(order), f"folds[{k}]")
                 for k, f in enumerate(folds)]
        return vec_f(self._solver.in_sample_kfold(folds, *self._lams(),
                                                  maxiter=maxiter))

    # -- settings B and C: new objects of one domain ------------------------------------
    def leave_x1_out(self):
        """Leave-row-out: all pairs (i, .) predicted by the model trained without
        domain-1 object i. O(n1 n2 (n1 + n2))."""
        return vec_f(self._solver.leave_x1_out(*self._lams()))

    def x1_kfold_cv(self, folds):
        """K-fold over domain-1 objects: ``folds`` is a list of disjoint row-index
        lists (ValueError for a row in two folds)."""
        return vec_f(self._solver.x1_kfold(folds, *self._lams()))

    def leave_x2_out(self):
        """Leave-column-out: all pairs (., j) predicted by the model trained without
        domain-2 object j. O(n1 n2 (n1 + n2))."""
        return vec_f(self._solver.leave_x2_out(*self._lams()))

    def x2_kfold_cv(self, folds):
        """K-fold over domain-2 objects: ``folds`` is a list of disjoint column-index
        lists."""
        return vec_f(self._solver.x2_kfold(folds, *self._lams()))

    # -- setting D: both objects new ----------------------------------------------------
    def out_of_sample_loo(self):
        """Pair (i, j) predicted by the model trained without row i and column j.
        O(n1 n2 (n1 + n2))."""
        return vec_f(self._solver.out_of_sample_loo(*self._lams()))

    def out_of_sample_kfold_cv(self, rowfolds, colfolds):
        """For every row fold R and column fold C, the pairs R x C predicted by the
        model trained without rows R and columns C."""
        return vec_f(self._solver.out_of_sample_kfold(rowfolds, colfolds,
                                                      *self._lams()))

    # -- one domain (K1 = K2): only K1 and regparam1 are used ---------------------------
    def in_sample_loo_symmetric(self):
        """Symmetric (Y = Y^T) or antisymmetric (Y = -Y^T) labels on one domain: the
        pairs (a, b) and (b, a) left out together, with h = H_aa H_bb, g = H_ab^2 and
        s = +-1: (F_ab - h Y_ab - s g Y_ab) / (1 - h - s g). Other labels raise
        ValueError. O(n^3).

        The diagonal: (a, a) is its own transpose, so it is one entry and is left out
        alone, LOO_aa = (F_aa - H_aa^2 Y_aa) / (1 - H_aa^2), the prediction of the
        model trained without that single entry. RLScore applied the pair formula to
        it too (g = H_aa^2), i.e. it removed the entry twice, which matches no
        retraining, so diagonal values differ from RLScore's. Off the diagonal,
        antisymmetric labels also differ: RLScore used -g Y_ab in the numerator for
        both signs (see the migration guide)."""
        return vec_f(self._solver.in_sample_loo_symmetric(self._lams()[0]))

    def out_of_sample_loo_symmetric(self):
        """One domain: pair (a, b) predicted by the model trained without every pair
        that involves a or b; diagonal entries 0. O(n^3) + O(1) per pair."""
        return vec_f(self._solver.out_of_sample_loo_symmetric(self._lams()[0]))

    def leave_vertex_out(self):
        """One domain: pair (a, b) predicted by the model trained without vertex a
        (every pair that involves a removed), for all b including a. For symmetric
        labels this is also that model's prediction for (b, a). O(n^3)."""
        return vec_f(self._solver.leave_vertex_out(self._lams()[0]))
