"""Writing model files: :func:`save_model`."""

import json

import numpy as np
import scipy.sparse as sp

from rlscore._io import atomic_write
from rlscore.model_io._format import (_IV, _KERNELS, _META, FORMAT_NAME, FORMAT_VERSION,
                                      _digest)
from rlscore.model_io._intervals import _check_intervals

__all__ = ["save_model"]


def _jsonable(value, where):
    """Metadata values must be JSON: numbers, strings, bools, None, lists, dicts."""
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist(), where)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, where) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v, where) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"metadata {where!r} holds a {type(value).__name__}; only JSON "
                    f"values (numbers, strings, lists, dicts) can be stored")


def _store_matrix(arrays, prefix, X):
    """Dense X as one array; sparse X as its CSR arrays (no densification)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        arrays[prefix + ".data"] = np.asarray(X.data, dtype=np.float64)
        arrays[prefix + ".indices"] = np.asarray(X.indices, dtype=np.int64)
        arrays[prefix + ".indptr"] = np.asarray(X.indptr, dtype=np.int64)
        arrays[prefix + ".shape"] = np.asarray(X.shape, dtype=np.int64)
        return "csr"
    arrays[prefix] = np.asarray(X, dtype=np.float64)
    return "dense"


def _store_inds(arrays, prefix, inds):
    """Training index vectors: None, one vector, or a list of vectors (one per term)."""
    if inds is None:
        return None
    if isinstance(inds, (list, tuple)) and len(inds) > 0 and np.ndim(inds[0]) == 1:
        for t, v in enumerate(inds):
            arrays[f"{prefix}.{t}"] = np.asarray(v, dtype=np.int64)
        return len(inds)
    arrays[prefix] = np.asarray(inds, dtype=np.int64)
    return 0


def _predictor_of(obj):
    """(predictor, the learner or estimator it came from or None).

    A predictor is saved as it is; a learner of :mod:`rlscore.learner` through its
    ``predictor``; a fitted estimator of :mod:`rlscore.estimators` through its
    ``predictor_`` (the RLS and RankRLS families, RankSVM), its core model's
    ``predictor`` (the pairwise estimators: a pairwise predictor over the training
    objects) or, for the linear ones that keep only ``coef_`` and ``intercept_`` (the
    CG estimators, GreedyRLSSelector), the LinearPredictor of those."""
    from rlscore.predictor import (KernelPairwisePredictor, KernelPredictor,
                                   LinearPairwisePredictor, LinearPredictor)
    kinds = (LinearPredictor, KernelPredictor, LinearPairwisePredictor,
             KernelPairwisePredictor)
    if isinstance(obj, kinds):
        return obj, None
    for pred in (getattr(obj, "predictor", None), getattr(obj, "predictor_", None),
                 getattr(getattr(obj, "model_", None), "predictor", None)):
        if isinstance(pred, kinds):
            return pred, obj
    coef, intercept = getattr(obj, "coef_", None), getattr(obj, "intercept_", None)
    if coef is not None and intercept is not None:
        return LinearPredictor(np.asarray(coef, dtype=np.float64).T,
                               np.asarray(intercept, dtype=np.float64)), obj
    if hasattr(obj, "fit") and hasattr(obj, "get_params"):
        raise TypeError(f"cannot save an unfitted {type(obj).__name__}: call fit first "
                        f"(a fitted estimator is saved as its predictor)")
    raise TypeError(f"cannot save a {type(obj).__name__}: expected a LinearPredictor, "
                    f"KernelPredictor, LinearPairwisePredictor, KernelPairwisePredictor, "
                    f"a trained learner whose .predictor is one of them or a fitted "
                    f"estimator of rlscore.estimators")


def save_model(model, path, metadata=None, *, feature_indices=None, n_file_features=None,
               intervals=None):
    """Save a trained predictor (or a learner's ``.predictor``) to a model file.

    Parameters
    ----------
    model : predictor, learner or fitted estimator
        :class:`~rlscore.predictor.LinearPredictor`,
        :class:`~rlscore.predictor.KernelPredictor` (linear, Gaussian or polynomial
        kernel; basis vectors dense or sparse),
        :class:`~rlscore.predictor.LinearPairwisePredictor`,
        :class:`~rlscore.predictor.KernelPairwisePredictor`, any trained learner with
        such a ``predictor`` attribute (its class name and ``regparam`` are recorded),
        or a fitted estimator of :mod:`rlscore.estimators` (its class name is
        recorded). What is saved, and what :func:`load_model` gives back, is always the
        predictor: for an estimator its ``predictor_`` (``LinearPredictor(coef_.T,
        intercept_)`` for the CG estimators and GreedyRLSSelector), whose ``predict(X)``
        equals the estimator's ``predict(X)``; for the pairwise estimators the pairwise
        predictor of their core model, which takes the test objects' kernels (or
        features) against the training objects instead of pair indices.
    path : str or path-like
        Destination; written as an ``.npz`` archive whatever the suffix, atomically (a
        temporary file in the same folder, fsync, rename): if the write fails, a
        previous file at ``path`` is left intact.
    metadata : dict, optional
        Extra JSON-serialisable information (training file, measure, CV results...),
        stored under the key ``"info"`` of the metadata.
    feature_indices : array-like of int, optional
        For models trained on a subset of the columns of a file (the command line keeps
        the columns that occur in the training file): the 0-based file column of each
        model feature, increasing. Stored as the array ``feature_indices``.
    n_file_features : int, optional
        The number of feature columns of the training file (its largest index).
    intervals : rlscore.core.rls.IntervalModel, optional
        The hold-out models of a Linear/KernelPredictor model for prediction intervals
        (``learner.interval_model(...)``); stored as the arrays ``intervals.*`` (see
        the format page for their size: an m x m matrix for a kernel model trained on
        m examples).

    Returns
    -------
    dict
        The metadata written.

    Raises
    ------
    TypeError
        For an unsupported model or kernel, an unfitted estimator, or metadata that is
        not JSON.

    Notes
    -----
    Complexity: O(size of the model's arrays) time and memory (one SHA-256 pass and
    a deflate pass over them).
    """
    from rlscore import __version__

    predictor, learner = _predictor_of(model)
    kind = type(predictor).__name__
    arrays = {}
    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "rlscore_version": __version__,
        "predictor": kind,
        "learner": type(learner).__name__ if learner is not None else None,
        "regparam": (float(learner.regparam) if learner is not None
                     and np.ndim(getattr(learner, "regparam", None)) == 0
                     and getattr(learner, "regparam", None) is not None else None),
        "kernel": None,
        "n_features": None,
        "n_outputs": None,
        "layout": {},
    }
    if kind == "LinearPredictor":
        W = np.asarray(predictor.W, dtype=np.float64)
        arrays["W"] = W
        arrays["b"] = np.asarray(predictor.b, dtype=np.float64)
        meta["kernel"] = {"name": "LinearKernel", "params": {}}
        meta["n_features"] = int(W.shape[0])
        meta["n_outputs"] = 1 if W.ndim == 1 else int(W.shape[1])
    elif kind == "KernelPredictor":
        kernel = predictor.kernel
        kname = type(kernel).__name__
        if kname not in _KERNELS:
            raise TypeError(f"cannot save a KernelPredictor with a {kname}; model files "
                            f"support {', '.join(_KERNELS)}")
        A = np.asarray(predictor.A, dtype=np.float64)
        arrays["A"] = A
        meta["layout"]["basis"] = _store_matrix(arrays, "basis", kernel.train_X)
        meta["kernel"] = {"name": kname, "params": _jsonable(kernel.get_params(), "kernel")}
        meta["n_features"] = int(kernel.train_X.shape[1])
        meta["n_outputs"] = 1 if A.ndim == 1 else int(A.shape[1])
    elif kind == "KernelPairwisePredictor":
        if getattr(predictor, "repairs", None) is not None:
            raise ValueError(
                "cannot save a KernelPairwisePredictor trained on a repaired indefinite "
                "kernel (indefinite='shift' or 'clip'): model files do not hold the "
                "repair it applies to test kernels; repair the kernels before training "
                "(rlscore.core.kronecker.repair_kernel(K, how, rule=True) gives the "
                "rule for test rows)")
        arrays["A"] = np.asarray(predictor.A, dtype=np.float64)
        meta["layout"]["inds1"] = _store_inds(arrays, "inds1", predictor.inds_K1training)
        meta["layout"]["inds2"] = _store_inds(arrays, "inds2", predictor.inds_K2training)
        meta["n_outputs"] = 1
    else:  # LinearPairwisePredictor
        arrays["W"] = np.asarray(predictor.W, dtype=np.float64)
        meta["layout"]["inds1"] = _store_inds(arrays, "inds1", predictor.inds_X1training)
        meta["layout"]["inds2"] = _store_inds(arrays, "inds2", predictor.inds_X2training)
        meta["layout"]["shape2d"] = (list(predictor._shape2d) if predictor._shape2d
                                     else None)
        meta["n_outputs"] = 1
    if kind.endswith("PairwisePredictor") and predictor.weights is not None:
        arrays["weights"] = np.asarray(predictor.weights, dtype=np.float64)
    if feature_indices is not None:
        fi = np.asarray(feature_indices, dtype=np.int64).ravel()
        if meta["n_features"] is not None and fi.size != meta["n_features"]:
            raise ValueError(f"feature_indices has {fi.size} entries for a model of "
                             f"{meta['n_features']} features")
        if fi.size and (fi[0] < 0 or np.any(np.diff(fi) <= 0)):
            raise ValueError("feature_indices must be increasing non-negative integers")
        arrays["feature_indices"] = fi
    meta["n_file_features"] = None if n_file_features is None else int(n_file_features)
    if intervals is not None:
        if kind not in ("LinearPredictor", "KernelPredictor"):
            raise TypeError(f"prediction intervals can be stored for linear and kernel "
                            f"models only, not a {kind}")
        info, iv_arrays = intervals.to_arrays()
        info = _jsonable(info, "intervals")
        iv_arrays = {k: np.ascontiguousarray(v) for k, v in iv_arrays.items()}
        _check_intervals(info, iv_arrays, predictor, "the intervals to save")
        meta["intervals"] = info
        arrays.update({f"{_IV}{k}": v for k, v in iv_arrays.items()})
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
        meta["info"] = _jsonable(metadata, "metadata")
    meta["sha256"] = {k: _digest(v) for k, v in sorted(arrays.items())}
    blob = json.dumps(meta, indent=1, sort_keys=True, allow_nan=False).encode("utf-8")
    arrays[_META] = np.frombuffer(blob, dtype=np.uint8)
    with atomic_write(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    return meta
