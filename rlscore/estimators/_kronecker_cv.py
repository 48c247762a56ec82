"""Pairwise (Kronecker) RLS with alpha chosen by the exact hold-outs of settings A-D."""

import numbers

import numpy as np
from sklearn.model_selection import GroupKFold, KFold

from rlscore.core.kronecker import KronSettingHoldout
from rlscore.core.selection import LOOCV, NfoldCV
from rlscore.estimators._base import reports_progress, store_params
from rlscore.estimators._cv import resolve_scoring, search_alphas
from rlscore.estimators._kronecker import PairwiseRLS
from rlscore.estimators._rls import KernelRLSCV

__all__ = ["PairwiseRLSCV"]

#: the user's names of the settings -> Pahikkala et al.'s letters
_SETTINGS = {"pairs": "A", "drugs": "B", "rows": "B", "targets": "C", "columns": "C",
             "both": "D"}


class PairwiseRLSCV(PairwiseRLS):
    """Kronecker-kernel RLS on pairs with alpha chosen by exact cross-validation in
    the setting the model will be used in: new pairs, new drugs, new targets, or both
    new.

    The model is decomposed once (two eigendecompositions); every alpha of the grid
    then costs O(n1 n2 (n1 + n2)) plus the hold-out of the chosen setting, computed
    with the exact shortcuts of :class:`rlscore.core.kronecker.KronRLSModel` (no
    refit: :class:`rlscore.core.kronecker.KronSettingHoldout` under the library's
    one selection driver, :func:`rlscore.core.selection.grid_search`). The estimates
    equal refitting without the held-out pairs, drugs or targets (up to rounding).
    The final model is trained on all pairs with the best alpha.

    The training pairs must form a complete grid of their objects, each pair once
    (the closed form); for sampled pairs use ``GridSearchCV(PairwiseRLS(...))``.

    Parameters
    ----------
    X1, X2, kernel, gamma, degree, coef0, indefinite, verbose
        As in :class:`PairwiseRLS` (``gamma="learn"`` is not available here).
    alphas : array-like of float >= 0, default=None
        The grid, searched in the given order (the first best wins); None means
        ``2**-15, ..., 2**15``.
    cv : {"pairs", "drugs", "rows", "targets", "columns", "both"}, default="pairs"
        The setting (Pahikkala et al. 2014): ``"pairs"`` (A) new pairs of known
        objects; ``"drugs"`` / ``"rows"`` (B) new domain-1 objects, all their pairs
        held out together; ``"targets"`` / ``"columns"`` (C) new domain-2 objects;
        ``"both"`` (D) new objects of both domains: the pairs of drugs R and targets C
        predicted by the model trained without any pair of R or of C.
    n_folds : int >= 2 or None, default=None
        None: leave one out (one pair, drug, target, or drug and target at a time).
        An int k: k folds, the ones scikit-learn's splitters give on the same data --
        ``KFold(k)`` over the pairs for ``"pairs"``, ``GroupKFold(k)`` with the drug
        (target) of each pair as its group for ``"drugs"`` (``"targets"``), and both
        of these for ``"both"`` (every fold of drugs with every fold of targets).
    scoring : None, str or callable, default=None
        An rlscore measure or measure name, as in :class:`KernelRLSCV`; None means the
        mean squared error. Each fold (each pair, drug, target or block of them) is
        scored on its own and the estimate is the mean over folds, as
        scikit-learn's ``GridSearchCV`` does; leave-one-pair-out scores all pairs
        at once (the same for the mean squared error).

    Attributes
    ----------
    alpha_ : float, the selected alpha
    best_score_ : float, its score (larger is better: error measures negated)
    best_index_ : int
    cv_results_ : dict, ``"alphas"``, ``"cv_performances"``, ``"mean_test_score"``,
        ``"rank_test_score"`` as in :class:`KernelRLSCV`
    model_, objects1_, objects2_, coef_, dual_coef_, solver_, n_features_in_
        As in :class:`PairwiseRLS`.

    Notes
    -----
    Two eigendecompositions, O(n1^3 + n2^3), then per alpha O(n1 n2 (n1 + n2)) for
    the model plus the setting's hold-out: pairs O(n1 n2 (n1 + n2)) (leave-one-out)
    or O(s^2 n1 n2) per fold of s pairs; drugs / targets O(n1 n2 (n1 + n2))
    (leave-one-out) or O(n2 (r^2 n1 + r^3)) per fold of r objects; both: one
    decomposition per fold of each domain (kept across alphas) and O(n1 n2 (n1 + n2))
    per pair of folds -- n1 n2 of them for leave-one-out, so prefer ``n_folds`` there.

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import PairwiseRLSCV
    >>> rng = np.random.default_rng(0)
    >>> drugs, targets = rng.normal(size=(10, 3)), rng.normal(size=(8, 4))
    >>> pairs = np.array([(i, j) for j in range(8) for i in range(10)])
    >>> y = drugs[pairs[:, 0], 0] * targets[pairs[:, 1], 1] + rng.normal(size=80)
    >>> model = PairwiseRLSCV(drugs, targets, cv="drugs").fit(pairs, y)
    >>> model.cv_results_["mean_test_score"].shape     # the default grid 2**-15..2**15
    (31,)
    """

    _check_alphas = KernelRLSCV._check_alphas

    def __init__(self, X1=None, X2=None, *, alphas=None, cv="pairs", n_folds=None,
                 scoring=None, kernel="linear", gamma=None, degree=None, coef0=1,
                 indefinite="raise", verbose=False):
        store_params(self, locals())

    # PairwiseRLS's options that this estimator fixes
    pairwise_kernel = "kronecker"
    loss = "squared"
    solver = "closed_form"
    max_iter = None
    tol = 1e-10
    ard = False
    criterion = "loo"

    def _setting(self):
        if not isinstance(self.cv, str) or self.cv not in _SETTINGS:
            raise ValueError(f"cv must be one of {sorted(_SETTINGS)}, got {self.cv!r}")
        k = self.n_folds
        if k is not None and (isinstance(k, (bool, np.bool_)) or
                              not isinstance(k, numbers.Integral) or k < 2):
            raise ValueError(f"n_folds must be None (leave one out) or an int >= 2, got "
                             f"{k!r}")
        return _SETTINGS[self.cv]

    def _holdout(self, setting, X, y):
        """The core's hold-out view of ``model_`` for the setting and folds."""
        k = self.n_folds
        rows, cols = np.asarray(X)[:, 0], np.asarray(X)[:, 1]
        pairfolds = rowfolds = colfolds = None
        pos1 = np.searchsorted(self.objects1_, rows)
        pos2 = np.searchsorted(self.objects2_, cols)

        def object_folds(groups, pos, n):
            if k > n:
                raise ValueError(f"n_folds={k} is more than the {n} objects held out "
                                 f"by cv={self.cv!r}")
            return [np.unique(pos[test]) for _, test in
                    GroupKFold(k).split(X, y, groups=groups)]
        if k is not None:
            if setting == "A":
                if k > len(y):
                    raise ValueError(f"n_folds={k} is more than the {len(y)} pairs")
                pairfolds = [test for _, test in KFold(k).split(X)]
            if setting in ("B", "D"):
                rowfolds = object_folds(rows, pos1, self.objects1_.size)
            if setting in ("C", "D"):
                colfolds = object_folds(cols, pos2, self.objects2_.size)
        return KronSettingHoldout(self.model_, setting, self._pair_index, pairfolds,
                                  rowfolds, colfolds)

    def _interval_by(self, by):
        return self.cv if by is None else by

    @reports_progress
    def fit(self, X, y):
        """Select alpha by the setting's exact cross-validation and fit with it.

        Parameters
        ----------
        X : array of int, shape (n_pairs, 2)
            The labelled pairs (indices into X1 and X2): a complete grid of their
            objects, each pair once.
        y : array of shape (n_pairs,)

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For invalid parameters, data that is not a complete grid, fewer than two
            objects held out in a setting that needs them, or a measure undefined for
            every alpha.
        """
        setting = self._setting()
        if isinstance(self.gamma, str) and self.gamma == "learn":
            raise ValueError("PairwiseRLSCV selects alpha on a grid; for learned kernel "
                             "parameters use PairwiseRLS(gamma='learn')")
        alphas = self._check_alphas()
        measure = resolve_scoring(self.scoring, None)
        tol = self._check_options()
        if self.X2 is None:
            raise ValueError("PairwiseRLSCV needs two domains: give X2")
        self._fit(X, y, alphas[0], tol, closed_form=True)
        X = np.asarray(X)
        view = self._holdout(setting, X, y)
        n1, n2 = self.objects1_.size, self.objects2_.size
        if (setting in ("B", "D") and n1 < 2) or (setting in ("C", "D") and n2 < 2):
            raise ValueError(f"cv={self.cv!r} holds out objects of a domain with only "
                             f"one training object")

        def crossvalidator():
            if setting == "A" and self.n_folds is None:
                return LOOCV(view, measure)
            return NfoldCV(view, measure, view.sample_folds())
        return search_alphas(self, crossvalidator, alphas)
