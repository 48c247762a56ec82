"""Distribution-free prediction intervals from the exact hold-out models: jackknife,
jackknife+, jackknife-minmax, CV, CV+ and CV-minmax (Barber, Candes, Ramdas and
Tibshirani, "Predictive inference with the jackknife+", Ann. Statist. 49(1), 2021).

The n hold-out models f_{-i} (n = m training rows; for CV the model without the fold
of row i) are never refitted: :mod:`rlscore.core.rls` gives their coefficients
from the same shortcuts the model selection uses, so predicting all of them at a test
point costs one row of a GEMM. With R_i = abs(y_i - f_{-i}(x_i)) (hold-out residuals) and
the order statistics of the paper,

    q+{v_i} = the ceil((1 - alpha)(n + 1))-th smallest of v_1..v_n  (+inf if > n),
    q-{v_i} = the floor(alpha (n + 1))-th smallest = -q+{-v_i}       (-inf if < 1),

the intervals are (Sect. 1.1-1.2 and 3 of the paper)

* jackknife / CV:   f(x) -+ q+{R_i};
* jackknife+ / CV+: [q-{f_{-i}(x) - R_i}, q+{f_{-i}(x) + R_i}];
* minmax:           [min_i f_{-i}(x) - q+{R_i}, max_i f_{-i}(x) + q+{R_i}].

Jackknife+ covers with probability >= 1 - 2 alpha, minmax >= 1 - alpha, CV+ >= 1 - 2
alpha - min(2(1 - 1/K)/(n/K + 1), (1 - K/n)/(K + 1)) for K folds of n/K rows
(Theorems 1, 2, 4), when training and test points are exchangeable and the model is
fixed beforehand (a regparam chosen on the same data by cross-validation makes the
guarantee approximate). The order statistic per test point is found by selection
(``numpy.partition``, O(n)), not by sorting; test points are processed in chunks
so that memory stays below ``max_bytes``.
"""

from fractions import Fraction

import numpy as np

from rlscore._validation import check_miscoverage
from rlscore.core.rls._holdout_models import fold_models, loo_models

__all__ = ["METHODS", "conformal_ranks", "check_miscoverage", "IntervalModel",
           "interval_model", "folds_from_groups"]

#: method -> kind of hold-out models it needs
METHODS = {"jackknife": "loo", "jackknife+": "loo", "jackknife-minmax": "loo",
           "cv": "folds", "cv+": "folds", "cv-minmax": "folds"}

_DEFAULT_BYTES = 1 << 27


def conformal_ranks(n, alpha):
    """The ranks (1-based) of the order statistics of Barber et al. (2021):
    ``(floor(alpha (n + 1)), ceil((1 - alpha)(n + 1)))``.

    A rank below 1 means a lower bound of -inf, above n an upper bound of +inf. alpha
    is read as the shortest decimal that rounds to it (``0.3`` is 3/10), so the ranks
    are exact integers: with ``alpha=0.3`` and n = 9, (1 - alpha)(n + 1) = 7 exactly
    and the upper rank is 7 (floating point would give 7.000000000000001 and 8). The
    two ranks always sum to n + 1, so q- {v} = -q+ {-v}.
    """
    alpha = check_miscoverage(alpha)
    a = Fraction(repr(alpha))
    upper = -((-(1 - a) * (n + 1)) // 1)          # ceil, exact
    return int(n + 1 - upper), int(upper)


def _kth(V, k):
    """The k-th smallest (1-based) of each row of V, in O(row length) per row by
    selection (V is overwritten)."""
    V.partition(k - 1, axis=1)
    return V[:, k - 1].copy()


def folds_from_groups(groups, m, n_folds=None, seed=0):
    """Folds of whole groups: one fold per group (``n_folds=None``), or ``n_folds``
    folds of whole groups dealt at random (:meth:`rlscore._groups.QueryGroups.folds`)."""
    from rlscore._groups import as_query_groups
    qg = as_query_groups(groups, m, name="groups")
    if n_folds is None:
        if qg.n_groups < 2:
            raise ValueError("groups holds a single group: CV+ needs at least 2")
        return qg.split()
    return qg.folds(n_folds, seed=seed)


class IntervalModel:
    """The full model and its hold-out models, ready to predict intervals.

    The predictions of the full model and of every hold-out model at X come from one
    predictor (:class:`rlscore.predictor.LinearPredictor` or
    :class:`~rlscore.predictor.KernelPredictor`) whose coefficient matrix is the full
    model's p columns followed by the ``extra`` columns of
    :class:`rlscore.core.rls.HoldoutModels`, so the kernel (or the features)
    of a test point is evaluated once.

    Parameters
    ----------
    predictor : predictor with the p + c columns
    n_outputs : p
    kind : "loo" or "folds"
    residuals : (m, p) signed hold-out residuals
    fold_of : (m,) fold of each training row (kind "folds")
    corr_rows : (n_corr,) rows with a basis-removal correction (kind "loo")
    """

    def __init__(self, predictor, n_outputs, kind, residuals, fold_of=None,
                 corr_rows=None):
        if kind not in ("loo", "folds"):
            raise ValueError(f"kind must be 'loo' or 'folds', got {kind!r}")
        self.predictor = predictor
        self.n_outputs = int(n_outputs)
        self.kind = kind
        self.residuals = np.ascontiguousarray(residuals, dtype=np.float64)
        self.m = self.residuals.shape[0]
        self.fold_of = None if fold_of is None else np.asarray(fold_of, dtype=np.intp)
        self.n_folds = None if fold_of is None else int(self.fold_of.max()) + 1
        self.corr_rows = (np.zeros(0, dtype=np.intp) if corr_rows is None
                          else np.asarray(corr_rows, dtype=np.intp))

    @property
    def n_columns(self):
        """Number of predictor columns: p + m + n_corr p (loo) or p + K p (folds)."""
        p = self.n_outputs
        if self.kind == "loo":
            return p + self.m + self.corr_rows.size * p
        return p + self.n_folds * p

    @classmethod
    def from_rls(cls, model, folds=None):
        """From a trained :class:`rlscore.core.nystrom.RLSModel`: the leave-one-out models
        (``folds=None``) or the models without each fold (a partition of the rows)."""
        hm = loo_models(model) if folds is None else fold_models(model, folds)
        predictor = model.representation.predictor(np.hstack([hm.coef, hm.extra]))
        return cls(predictor, hm.coef.shape[1], hm.kind, hm.residuals,
                   fold_of=hm.fold_of, corr_rows=hm.corr_rows)

    # -- prediction ----------------------------------------------------------------
    def outputs(self, X):
        """Predictor outputs (n, p + c) for the rows of X."""
        P = np.asarray(self.predictor.predict(X), dtype=np.float64)
        return P.reshape(-1, self.n_columns)

    def holdout_predictions(self, X, output=0):
        """Predictions (n, m) of the m hold-out models at the rows of X for one output:
        column i is f_{-i} (loo) or the model without the fold of row i (folds).
        O(n m) after :meth:`outputs`; for tests and small n (no chunking)."""
        return self._holdout_from_outputs(self.outputs(X), output)

    def _holdout_from_outputs(self, P, j):
        p = self.n_outputs
        if self.kind == "folds":
            models = P[:, p:].reshape(P.shape[0], self.n_folds, p)[:, :, j]
            return models[:, self.fold_of]
        m = self.m
        mu = P[:, j:j + 1] - P[:, p:p + m] * self.residuals[:, j]
        if self.corr_rows.size:
            corr = P[:, p + m:].reshape(P.shape[0], self.corr_rows.size, p)[:, :, j]
            mu[:, self.corr_rows] -= corr
        return mu

    def intervals_from_outputs(self, P, alpha, method):
        """(prediction, lower, upper), each (n, p), from :meth:`outputs` of n points."""
        kind = METHODS.get(method) if isinstance(method, str) else None
        if kind is None:
            raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
        if kind != self.kind:
            have = "leave-one-out" if self.kind == "loo" else "fold"
            raise ValueError(
                f"method={method!r} needs the {'leave-one-out' if kind == 'loo' else 'fold'}"
                f" models, but this model holds the {have} models; use "
                f"{sorted(k for k, v in METHODS.items() if v == self.kind)}")
        k_lo, k_hi = conformal_ranks(self.m, alpha)
        p = self.n_outputs
        n = P.shape[0]
        pred = np.ascontiguousarray(P[:, :p])
        lower = np.empty((n, p))
        upper = np.empty((n, p))
        for j in range(p):
            R = np.abs(self.residuals[:, j])
            if method in ("jackknife", "cv", "jackknife-minmax", "cv-minmax"):
                qR = np.inf if k_hi > self.m else _kth(R[None, :].copy(), k_hi)[0]
                if method in ("jackknife", "cv"):
                    lower[:, j] = pred[:, j] - qR
                    upper[:, j] = pred[:, j] + qR
                else:
                    mu = self._holdout_from_outputs(P, j)
                    lower[:, j] = mu.min(axis=1) - qR
                    upper[:, j] = mu.max(axis=1) + qR
                continue
            mu = self._holdout_from_outputs(P, j)
            if k_hi > self.m:
                lower[:, j], upper[:, j] = -np.inf, np.inf
                continue
            lower[:, j] = _kth(mu - R, k_lo)
            mu += R
            upper[:, j] = _kth(mu, k_hi)
        return pred, lower, upper

    def chunk_rows(self, max_bytes=_DEFAULT_BYTES):
        """Test points per chunk so that the outputs, the hold-out predictions and the
        selection buffer (about 3 (p + c) floats per point) stay below ``max_bytes``."""
        per_row = 8 * 3 * (self.n_columns + self.m)
        return max(1, int(max_bytes // per_row))

    def predict_interval(self, X, alpha=0.1, method="jackknife+", max_bytes=_DEFAULT_BYTES):
        """Prediction intervals at the rows of X.

        Parameters
        ----------
        X : test data, as for the model's ``predict``
        alpha : float in (0, 1), miscoverage (0.1: 90% intervals)
        method : "jackknife", "jackknife+", "jackknife-minmax" (leave-one-out models)
            or "cv", "cv+", "cv-minmax" (fold models)
        max_bytes : memory bound of one chunk of test points

        Returns
        -------
        prediction, lower, upper : ndarrays (n, p); the prediction is the full
        model's. A bound is infinite when alpha is too small for m (the rank exceeds m).

        Notes
        -----
        O(n m dim) for the hold-out predictions (one GEMM per chunk; dim = m dual, d
        primal, basis size Nystrom; K p instead of m columns for folds) plus O(n m p)
        for the order statistics.
        """
        alpha = check_miscoverage(alpha)
        if METHODS.get(method if isinstance(method, str) else None) is None:
            raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
        n = _n_rows(X)
        step = self.chunk_rows(max_bytes)
        out = [np.empty((n, self.n_outputs)) for _ in range(3)]
        for s in range(0, n, step):
            rows = slice(s, min(n, s + step))
            res = self.intervals_from_outputs(self.outputs(_rows(X, rows)), alpha, method)
            for o, r in zip(out, res):
                o[rows] = r
        return tuple(out)

    # -- storage ---------------------------------------------------------------------
    def to_arrays(self):
        """(info, arrays) for :func:`rlscore.model_io.save_model`: the extra predictor
        columns in the predictor's own coordinates and the residuals, fold ids or
        corrected rows."""
        p = self.n_outputs
        pr = self.predictor
        arrays = {"residuals": self.residuals}
        if hasattr(pr, "A"):
            arrays["coef"] = np.ascontiguousarray(np.reshape(pr.A, (-1, self.n_columns))[:, p:])
        else:
            W = np.reshape(pr.W, (-1, self.n_columns))
            arrays["coef"] = np.ascontiguousarray(W[:, p:])
            arrays["intercept"] = np.ascontiguousarray(
                np.broadcast_to(pr.b, (self.n_columns,))[p:])
        if self.kind == "folds":
            arrays["fold_of"] = self.fold_of.astype(np.int64)
        elif self.corr_rows.size:
            arrays["corr_rows"] = self.corr_rows.astype(np.int64)
        info = {"kind": self.kind, "n_train": self.m, "n_folds": self.n_folds}
        return info, arrays

    @classmethod
    def from_arrays(cls, predictor, info, arrays):
        """Rebuild from a loaded predictor and the arrays of :meth:`to_arrays` (as
        validated by :func:`rlscore.model_io.load_model`)."""
        from rlscore.predictor import KernelPredictor, LinearPredictor
        coef = arrays["coef"]
        if isinstance(predictor, KernelPredictor):
            A = np.reshape(predictor.A, (coef.shape[0], -1))
            combined = KernelPredictor(np.hstack([A, coef]), predictor.kernel)
            p = A.shape[1]
        else:
            W = np.reshape(predictor.W, (coef.shape[0], -1))
            p = W.shape[1]
            b = np.broadcast_to(np.asarray(predictor.b, dtype=np.float64), (p,))
            combined = LinearPredictor(np.hstack([W, coef]),
                                       np.concatenate([b, arrays["intercept"]]))
        return cls(combined, p, info["kind"], arrays["residuals"],
                   fold_of=arrays.get("fold_of"), corr_rows=arrays.get("corr_rows"))


def _n_rows(X):
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return shape[0] if len(shape) > 1 else 1
    return len(X)


def _rows(X, rows):
    """Rows of X (array, sparse matrix or list); a 1-D X is one sample."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 1:
        return X
    return X[rows]


def interval_model(model, method="jackknife+", folds=None, groups=None, n_folds=None,
                   seed=0):
    """The :class:`IntervalModel` a method needs from a trained
    :class:`rlscore.core.nystrom.RLSModel`.

    Parameters
    ----------
    method : see :data:`METHODS`; the jackknife methods use the leave-one-out models,
        the cv methods the fold models
    folds : list of index arrays partitioning the training rows (cv methods), or
    groups : one group id per training row: each group is held out whole (one fold per
        group, or ``n_folds`` folds of whole groups); or
    n_folds : alone, that many random folds of single rows (``seed``)
    """
    kind = METHODS.get(method) if isinstance(method, str) else None
    if kind is None:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    m = model.Y.shape[0]
    if kind == "loo":
        if folds is not None or groups is not None or n_folds is not None:
            raise ValueError(f"method={method!r} holds out one row at a time; folds, "
                             f"groups and n_folds apply to the cv methods")
        return IntervalModel.from_rls(model)
    if folds is not None:
        if groups is not None or n_folds is not None:
            raise ValueError("give folds, or groups (with optional n_folds), not both")
    elif groups is not None:
        folds = folds_from_groups(groups, m, n_folds, seed)
    elif n_folds is not None:
        folds = folds_from_groups(np.arange(m), m, n_folds, seed)
    else:
        raise ValueError(f"method={method!r} needs folds, groups or n_folds")
    return IntervalModel.from_rls(model, folds)
