"""PairwiseMKL: Kronecker RLS on a learned nonnegative sum of pairwise kernels."""

import numpy as np

from rlscore._validation import (check_positive_int, check_regparam, check_tol,
                                 warn_unused_kwargs)
from rlscore._validation import check_square_kernel
from rlscore._vec_trick import as_index_vector
from rlscore.core.kronecker import fit_pairwise_mkl
from rlscore.learner._common import VERBOSE_DOC, reports_progress

__all__ = ["PairwiseMKL"]

_KEYS = {"K1", "K2", "Y", "label_row_inds", "label_col_inds", "regparam", "maxiter",
         "tol", "callback", "callbackfun"}


def _kernel_list(Ks, name):
    if not isinstance(Ks, (list, tuple)):
        Ks = [Ks]
    if len(Ks) == 0:
        raise ValueError(f"{name} must hold at least one kernel matrix")
    out = [check_square_kernel(K, f"{name}[{i}]") for i, K in enumerate(Ks)]
    n = out[0].shape[0]
    for i, K in enumerate(out):
        if K.shape[0] != n:
            raise ValueError(f"{name}[{i}] is {K.shape[0]} x {K.shape[0]} but {name}[0] "
                             f"is {n} x {n}: every kernel of one side describes the same "
                             "objects")
    return out


class PairwiseMKL:
    __doc__ = f"""Kronecker RLS with the weights of a sum of pairwise kernels learned from data.

    Given P kernels on the row objects (drugs) and Q on the column objects (targets),
    the model's pairwise kernel is

        K = sum_{{i, j}} weights[i, j] (K1[i] (x) K2[j])   restricted to the labelled pairs,

    with nonnegative weights summing to 1 chosen by centred kernel alignment with the
    ideal kernel y y^T (pairwiseMKL, Cichonska et al., Bioinformatics 2018; Cortes et
    al., JMLR 2012; see :mod:`rlscore.core.kronecker`), after which the Kronecker RLS
    model is trained with MINRES, as :class:`CGKronRLS` with those weights. No
    pairwise kernel matrix is formed. Keyword arguments only.

    Parameters
    ----------
    K1 : list of P ndarray (n1, n1)
        Symmetric kernels of the row objects (one matrix is a list of one).
    K2 : list of Q ndarray (n2, n2)
        Symmetric kernels of the column objects.
    Y : (s,) labels of the labelled pairs
    label_row_inds, label_col_inds : (s,) label h belongs to the pair
        (label_row_inds[h], label_col_inds[h]); shared by every kernel term.
    regparam : float >= 0, default 1.0
    maxiter, tol, callback : as in :class:`CGKronRLS`
{VERBOSE_DOC}

    Attributes
    ----------
    weights : ndarray (P, Q)
        weights[i, j] multiplies K1[i] (x) K2[j]; nonnegative, summing to 1.
    alignment : ndarray (P, Q)
        Centred alignment of each term with y y^T, in [-1, 1].
    A : (s,) dual coefficients of the trained model
    predictor : KernelPairwisePredictor over the terms with a positive weight
    convergence_info : 0 when MINRES reached ``tol``, > 0 when ``maxiter`` stopped it
    iterations : MINRES iterations
    model : rlscore.core.kronecker.PairwiseMKLModel

    Notes
    -----
    Weights: O(P^2 Q^2) generalized vec-trick products over the s labelled pairs (each
    O(s min(n1, n2)) or cheaper) and an O((PQ)^3) NNLS. Training: per MINRES iteration
    one vec-trick product per term with a positive weight.
    """

    @reports_progress
    def __init__(self, **kwargs):
        warn_unused_kwargs(kwargs, _KEYS, "PairwiseMKL")
        for key in ("K1", "K2", "Y", "label_row_inds", "label_col_inds"):
            if kwargs.get(key) is None:
                raise TypeError(f"PairwiseMKL needs {key}")
        self.regparam = check_regparam(kwargs.get("regparam", 1.0))
        K1s = _kernel_list(kwargs["K1"], "K1")
        K2s = _kernel_list(kwargs["K2"], "K2")
        y = np.asarray(kwargs["Y"])
        if y.ndim == 2 and 1 in y.shape:
            y = y.ravel()
        if y.ndim != 1 or y.dtype == object or y.dtype == np.bool_ \
                or not np.issubdtype(y.dtype, np.number):
            raise ValueError("Y must be a 1-D numeric vector, one label per labelled pair")
        y = y.astype(np.float64)
        if y.size == 0 or not np.all(np.isfinite(y)):
            raise ValueError("Y must be non-empty and finite")
        rows = as_index_vector(kwargs["label_row_inds"], K1s[0].shape[0], "label_row_inds")
        cols = as_index_vector(kwargs["label_col_inds"], K2s[0].shape[0], "label_col_inds")
        if rows.size != y.size or cols.size != y.size:
            raise ValueError(f"label_row_inds ({rows.size}), label_col_inds ({cols.size}) "
                             f"and Y ({y.size}) must have the same length")
        maxiter = check_positive_int(kwargs.get("maxiter"), "maxiter", allow_none=True)
        tol = check_tol(kwargs.get("tol", 1e-10))
        cb_obj = kwargs.get("callback", kwargs.get("callbackfun"))

        def report(x):
            self.A = np.array(x, copy=True)
            cb_obj.callback(self)

        self.model = fit_pairwise_mkl(K1s, K2s, y, (rows, cols), self.regparam, maxiter,
                                      tol, None if cb_obj is None else report)
        self.Y = y
        self.weights, self.alignment = self.model.weights, self.model.alignment
        self.A, self.predictor = self.model.A, self.model.predictor
        self.convergence_info = self.model.convergence_info
        self.iterations = self.model.iterations
        if cb_obj is not None and hasattr(cb_obj, "finished"):
            cb_obj.finished(self)

    def predict(self, K1pred, K2pred, inds_K1pred=None, inds_K2pred=None):
        """Predictions for test pairs.

        Parameters
        ----------
        K1pred : list of P ndarray (n1_test, n1)
            Test-by-training kernels, in the order of ``K1`` at training.
        K2pred : list of Q ndarray (n2_test, n2)
        inds_K1pred, inds_K2pred : (u,) index vectors of the test pairs, or both None
            for all n1_test * n2_test pairs in column-major order (RLScore's).

        Returns
        -------
        ndarray (u,)

        Notes
        -----
        One vec-trick product per term with a positive weight.
        """
        K1pred = K1pred if isinstance(K1pred, (list, tuple)) else [K1pred]
        K2pred = K2pred if isinstance(K2pred, (list, tuple)) else [K2pred]
        return self.model.predict(K1pred, K2pred, inds_K1pred, inds_K2pred)
