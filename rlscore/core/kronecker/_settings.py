"""The exact hold-outs of settings A-D of a complete-data Kronecker model, seen as a
model over its labelled pairs, for the cross-validators of :mod:`rlscore.core.selection`.

A face lists its training pairs in its own order (``pair_index``: each sample's flat
position i + j n1 in vec_F order). :class:`KronSettingHoldout` gives the selection
protocol on those samples -- ``Y``, ``solve(regparam)``, ``leave_one_out()`` and
``holdout(fold)`` -- so that :class:`~rlscore.core.selection.LOOCV` and
:class:`~rlscore.core.selection.NfoldCV` (the library's one fold loop) and
:func:`~rlscore.core.selection.grid_search` select the regularization of a Kronecker
model as they do for RLS. Every prediction comes from the shortcuts of
:class:`~rlscore.core.kronecker.KronRLSModel` (``_holdout``), computed once per
regparam for all folds and then read fold by fold.

Settings (Pahikkala et al. 2014, Stock et al. 2018):

* ``"A"`` new pairs of known objects: leave-one-pair-out (``in_sample_loo``) or folds
  of pairs (``in_sample_kfoldcv``);
* ``"B"`` new domain-1 objects (drugs): each fold of rows predicted by the model
  trained without those rows (``leave_x1_out`` / ``x1_kfold_cv``);
* ``"C"`` new domain-2 objects (targets): the same for columns;
* ``"D"`` both new: the pairs R x C predicted by the model trained without rows R and
  columns C, for every row fold R and column fold C (``out_of_sample_kfold_cv``).
"""

import numpy as np

__all__ = ["KRON_SETTINGS", "KronSettingHoldout"]

KRON_SETTINGS = ("A", "B", "C", "D")


def _object_folds(folds, n, name):
    """None (one object per fold) or the given folds, as index arrays."""
    if folds is None:
        return [np.array([i]) for i in range(n)]
    return [np.asarray(f, dtype=np.intp) for f in folds]


class KronSettingHoldout:
    """A :class:`~rlscore.core.kronecker.KronRLSModel` (complete data, Kronecker
    pairwise kernel) as a model over its labelled pairs for the cross-validators of
    :mod:`rlscore.core.selection`, holding out by one of the settings A-D.

    Parameters
    ----------
    model : KronRLSModel
        Trained on complete data (every pair labelled once).
    setting : {"A", "B", "C", "D"}
    pair_index : array of int, shape (m,)
        The flat vec_F position (i + j n1) of each sample; a permutation of
        range(n1 n2).
    pairfolds : list of arrays of sample indices, or None
        Setting A: folds of samples (None: leave-one-pair-out).
    rowfolds, colfolds : lists of arrays of object positions, or None
        Settings B and D (rows), C and D (columns): folds of objects (None: one object
        per fold).

    Attributes
    ----------
    Y : ndarray (m,), the samples' labels
    rls : the model (for ``solve``)

    Notes
    -----
    Per regparam, after the model's decompositions: A, leave-one-out
    O(n1 n2 (n1 + n2)), folds of s pairs O(s^2 n1 n2) each; B / C, leave-one-out
    O(n1 n2 (n1 + n2)), a fold of r objects O(n2 (r^2 n1 + r^3)); D, one
    decomposition per fold of each domain (kept across regparams) and
    O(n1 n2 (n1 + n2)) per pair of folds (leave-one-out: n1 n2 pairs of folds).
    """

    def __init__(self, model, setting, pair_index, pairfolds=None, rowfolds=None,
                 colfolds=None):
        if setting not in KRON_SETTINGS:
            raise ValueError(f"setting must be one of {KRON_SETTINGS}, got {setting!r}")
        if model.pairwise_kernel != "kronecker":
            raise ValueError("the hold-outs of settings A-D need the Kronecker pairwise "
                             "kernel")
        n1, n2 = model.Y.shape
        pair_index = np.asarray(pair_index, dtype=np.intp)
        if pair_index.ndim != 1 or pair_index.size != n1 * n2 or \
                not np.array_equal(np.sort(pair_index), np.arange(n1 * n2)):
            raise ValueError("pair_index must list every pair of the complete data once")
        self.rls = model
        self.setting = setting
        self.pair_index = pair_index
        self.rows, self.cols = pair_index % n1, pair_index // n1
        self.Y = model.Y.ravel(order="F")[pair_index]
        self.pairfolds = None if pairfolds is None else \
            [np.asarray(f, dtype=np.intp) for f in pairfolds]
        self.rowfolds = None if setting in ("A", "C") else \
            _object_folds(rowfolds, n1, "rowfolds")
        self.colfolds = None if setting in ("A", "B") else \
            _object_folds(colfolds, n2, "colfolds")
        self._cache = None

    def solve(self, regparam):
        self.rls.solve(regparam)
        self._cache = None

    def _all(self):
        """The hold-out prediction of every pair (vec_F), at the current regparam."""
        if self._cache is None:
            m, s = self.rls, self.setting
            if s == "A":
                self._cache = m.in_sample_loo() if self.pairfolds is None else \
                    m.in_sample_kfoldcv([self.pair_index[f] for f in self.pairfolds])
            elif s == "B":
                self._cache = m.x1_kfold_cv(self.rowfolds)
            elif s == "C":
                self._cache = m.x2_kfold_cv(self.colfolds)
            else:
                self._cache = m.out_of_sample_kfold_cv(self.rowfolds, self.colfolds)
        return self._cache

    def leave_one_out(self):
        """Every sample's hold-out prediction (the whole partition of the setting)."""
        return self._all()[self.pair_index]

    def holdout(self, fold):
        """The hold-out predictions of the samples ``fold`` (which must be a fold of
        the setting: see :meth:`sample_folds`)."""
        return self._all()[self.pair_index[np.asarray(fold, dtype=np.intp)]]

    def sample_folds(self):
        """The folds as sample indices: the pair folds (A), the samples of each row
        fold (B) or column fold (C), or of each block R x C (D)."""
        if self.setting == "A":
            if self.pairfolds is None:
                return [np.array([k]) for k in range(self.Y.size)]
            return list(self.pairfolds)
        if self.setting == "B":
            return [np.flatnonzero(np.isin(self.rows, R)) for R in self.rowfolds]
        if self.setting == "C":
            return [np.flatnonzero(np.isin(self.cols, C)) for C in self.colfolds]
        return [np.flatnonzero(np.isin(self.rows, R) & np.isin(self.cols, C))
                for R in self.rowfolds for C in self.colfolds]
