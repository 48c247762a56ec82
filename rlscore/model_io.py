"""Model files: save trained predictors to disk and load them back, safely.

A model file is one ``.npz`` archive (a zip of ``.npy`` arrays, written with
:func:`numpy.savez_compressed`). Besides the model's arrays it holds the entry
``__metadata__``, a UTF-8 JSON document stored as a ``uint8`` array. Loading uses
``numpy.load(..., allow_pickle=False)`` and :func:`json.loads` only: no pickle, no
``eval``, no import named by the file, so a model file cannot execute code. The format
is described on the documentation page *Model files* (``docs/model_format.rst``).

Public functions: :func:`save_model`, :func:`load_model`, :func:`read_metadata`.
The constant :data:`FORMAT_VERSION` is the version written; files with a larger
version are refused.
"""

import hashlib
import json
import os
import zipfile
import zlib

import numpy as np
import scipy.sparse as sp

__all__ = ["save_model", "load_model", "read_metadata", "FORMAT_NAME", "FORMAT_VERSION",
           "ModelFileError"]

FORMAT_NAME = "rlscore-model"
FORMAT_VERSION = 1
_META = "__metadata__"
_KERNELS = ("LinearKernel", "GaussianKernel", "PolynomialKernel")
_PREDICTORS = ("LinearPredictor", "KernelPredictor", "LinearPairwisePredictor",
               "KernelPairwisePredictor")


class ModelFileError(ValueError):
    """A model file is corrupt, of an unknown format, or from a newer version."""


def _digest(arr):
    arr = np.ascontiguousarray(arr)
    h = hashlib.sha256()
    h.update(f"{arr.dtype.str}{arr.shape}".encode())
    h.update(arr.tobytes())
    return h.hexdigest()


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


def _load_matrix(arrays, prefix, layout):
    if layout == "csr":
        shape = tuple(int(s) for s in arrays[prefix + ".shape"])
        return sp.csr_matrix((arrays[prefix + ".data"], arrays[prefix + ".indices"],
                              arrays[prefix + ".indptr"]), shape=shape)
    if layout == "dense":
        return arrays[prefix]
    raise ModelFileError(f"unknown matrix layout {layout!r}")


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


def _load_inds(arrays, prefix, terms):
    if terms is None:
        return None
    if terms == 0:
        return arrays[prefix]
    return [arrays[f"{prefix}.{t}"] for t in range(int(terms))]


def _predictor_of(obj):
    from rlscore.predictor import (KernelPairwisePredictor, KernelPredictor,
                                   LinearPairwisePredictor, LinearPredictor)
    kinds = (LinearPredictor, KernelPredictor, LinearPairwisePredictor,
             KernelPairwisePredictor)
    if isinstance(obj, kinds):
        return obj, None
    pred = getattr(obj, "predictor", None)
    if isinstance(pred, kinds):
        return pred, obj
    raise TypeError(f"cannot save a {type(obj).__name__}: expected a LinearPredictor, "
                    f"KernelPredictor, LinearPairwisePredictor, KernelPairwisePredictor "
                    f"or a trained learner whose .predictor is one of them")


def save_model(model, path, metadata=None, *, feature_indices=None, n_file_features=None,
               intervals=None):
    """Save a trained predictor (or a learner's ``.predictor``) to a model file.

    Parameters
    ----------
    model : predictor or learner
        :class:`~rlscore.predictor.LinearPredictor`,
        :class:`~rlscore.predictor.KernelPredictor` (linear, Gaussian or polynomial
        kernel; basis vectors dense or sparse),
        :class:`~rlscore.predictor.LinearPairwisePredictor`,
        :class:`~rlscore.predictor.KernelPairwisePredictor`, or any trained learner with
        such a ``predictor`` attribute (its class name and ``regparam`` are recorded).
    path : str or path-like
        Destination; written as an ``.npz`` archive whatever the suffix.
    metadata : dict, optional
        Extra JSON-serialisable information (training file, measure, CV results...),
        stored under the key ``"info"`` of the metadata.
    feature_indices : array-like of int, optional
        For models trained on a subset of the columns of a file (the command line keeps
        the columns that occur in the training file): the 0-based file column of each
        model feature, increasing. Stored as the array ``feature_indices``.
    n_file_features : int, optional
        The number of feature columns of the training file (its largest index).
    intervals : rlscore.core.intervals.IntervalModel, optional
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
        For an unsupported model or kernel, or metadata that is not JSON.

    Notes
    -----
    Complexity: O(size of the model's arrays) time and memory (one SHA-256 pass and
    a deflate pass over them).
    """
    import rlscore

    predictor, learner = _predictor_of(model)
    kind = type(predictor).__name__
    arrays = {}
    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "rlscore_version": rlscore.__version__,
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
    with open(os.fspath(path), "wb") as fh:
        np.savez_compressed(fh, **arrays)
    return meta


_IV = "intervals."
_IV_ARRAYS = {"coef", "intercept", "residuals", "fold_of", "corr_rows"}


def _check_intervals(info, arrays, predictor, src):
    """The prediction-interval arrays against the predictor: shapes, finite values,
    indices in range. Raises ModelFileError naming ``src``."""
    def bad(msg):
        raise ModelFileError(f"{src}: invalid prediction-interval data ({msg})")

    if not isinstance(info, dict) or info.get("kind") not in ("loo", "folds"):
        bad("unknown kind")
    if set(arrays) - _IV_ARRAYS:
        bad(f"unexpected arrays {sorted(set(arrays) - _IV_ARRAYS)}")
    for name in ("coef", "residuals"):
        if name not in arrays:
            bad(f"no {name!r} array")
    for name, v in arrays.items():
        want = np.int64 if name in ("fold_of", "corr_rows") else np.float64
        if v.dtype != want:
            bad(f"{name!r} has dtype {v.dtype}, expected {np.dtype(want)}")
        if want == np.float64 and not np.all(np.isfinite(v)):
            bad(f"{name!r} contains NaN or infinity")
    coef, res = arrays["coef"], arrays["residuals"]
    linear = hasattr(predictor, "W")
    own = np.asarray(predictor.W if linear else predictor.A)
    rows = own.shape[0]
    p = 1 if own.ndim == 1 else own.shape[1]
    m = info.get("n_train")
    if not isinstance(m, int) or isinstance(m, bool) or m < 2:
        bad(f"n_train must be an integer >= 2, got {m!r}")
    if coef.ndim != 2 or coef.shape[0] != rows:
        bad(f"'coef' has shape {coef.shape}, the model has {rows} coefficient rows")
    if res.shape != (m, p):
        bad(f"'residuals' has shape {res.shape}, expected ({m}, {p})")
    if linear != ("intercept" in arrays):
        bad("'intercept' goes with linear models only, and they need it")
    if linear and arrays["intercept"].shape != (coef.shape[1],):
        bad(f"'intercept' has shape {arrays['intercept'].shape}, expected "
            f"({coef.shape[1]},)")
    if info["kind"] == "loo":
        if "fold_of" in arrays:
            bad("'fold_of' belongs to fold models")
        rows_c = arrays.get("corr_rows", np.zeros(0, dtype=np.int64))
        if rows_c.ndim != 1 or (rows_c.size and (rows_c.min() < 0 or rows_c.max() >= m)) \
                or np.unique(rows_c).size != rows_c.size:
            bad("'corr_rows' must be distinct indices of training rows")
        if coef.shape[1] != m + rows_c.size * p:
            bad(f"'coef' has {coef.shape[1]} columns, expected {m + rows_c.size * p}")
    else:
        K = info.get("n_folds")
        f = arrays.get("fold_of")
        if not isinstance(K, int) or isinstance(K, bool) or K < 2 or f is None:
            bad("fold models need n_folds >= 2 and 'fold_of'")
        if "corr_rows" in arrays:
            bad("'corr_rows' belongs to leave-one-out models")
        if f.shape != (m,) or f.min() < 0 or f.max() >= K or \
                np.unique(f).size != K:
            bad(f"'fold_of' must give each of the {m} rows a fold 0..{K - 1}, every "
                f"fold non-empty")
        if coef.shape[1] != K * p:
            bad(f"'coef' has {coef.shape[1]} columns, expected {K * p}")


def _read(path):
    """Open the archive and return (metadata, arrays) after every integrity check."""
    src = os.fspath(path)
    try:
        with np.load(src, allow_pickle=False) as npz:
            if _META not in npz.files:
                raise ModelFileError(f"{src}: not an rlscore model file (no metadata "
                                     f"entry)")
            raw = npz[_META]
            arrays = {k: npz[k] for k in npz.files if k != _META}
    except ModelFileError:
        raise
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError) as exc:
        # np.load raises ValueError (e.g. pickled data refused) or OSError for files that
        # are not an npz; zipfile/zlib for truncated or altered archives
        raise ModelFileError(f"{src}: not a readable rlscore model file "
                             f"({type(exc).__name__}: {exc})") from None
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelFileError(f"{src}: corrupt metadata entry")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{src}: corrupt metadata ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{src}: unknown file format (expected {FORMAT_NAME!r})")
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ModelFileError(f"{src}: invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{src}: model file format version {version} was written by a newer rlscore "
            f"({meta.get('rlscore_version', 'unknown')}); this rlscore reads versions up "
            f"to {FORMAT_VERSION}: upgrade rlscore")
    sums = meta.get("sha256")
    if not isinstance(sums, dict) or set(sums) != set(arrays):
        raise ModelFileError(f"{src}: corrupt model file (the arrays do not match the "
                             f"metadata)")
    for k, v in arrays.items():
        if _digest(v) != sums[k]:
            raise ModelFileError(f"{src}: corrupt model file (checksum of {k!r} differs)")
    if meta.get("predictor") not in _PREDICTORS:
        raise ModelFileError(f"{src}: unknown predictor type {meta.get('predictor')!r}")
    return meta, arrays


def read_metadata(path):
    """The metadata dict of a model file (after the same checks as :func:`load_model`).

    Notes
    -----
    Complexity: reads and checksums the whole file, O(file size).
    """
    return _read(path)[0]


def load_model(path, return_metadata=False):
    """Load a model file written by :func:`save_model`.

    Parameters
    ----------
    path : str or path-like
    return_metadata : bool, default False
        Also return the metadata dict.

    Returns
    -------
    predictor : LinearPredictor, KernelPredictor, LinearPairwisePredictor or
        KernelPairwisePredictor
    metadata : dict
        Only with ``return_metadata=True``: the JSON metadata, plus the array
        ``"feature_indices"`` when the file has one, and ``"interval_arrays"`` (a dict
        of arrays, validated against the predictor) when it stores prediction-interval
        data (``metadata["intervals"]``): see
        :meth:`rlscore.core.intervals.IntervalModel.from_arrays`.

    Raises
    ------
    FileNotFoundError
        No such file.
    ModelFileError (a ValueError)
        The file is not an npz archive, is truncated or altered (checksums), has an
        unknown format or predictor type, or was written by a newer format version.

    Notes
    -----
    No code is executed: arrays are read with ``allow_pickle=False`` and the metadata
    is JSON. Complexity: O(file size).
    """
    from rlscore.kernel import KERNELS
    from rlscore.predictor import (KernelPairwisePredictor, KernelPredictor,
                                   LinearPairwisePredictor, LinearPredictor)

    meta, arrays = _read(path)
    kind = meta["predictor"]
    layout = meta.get("layout") or {}
    src = os.fspath(path)
    try:
        if kind == "LinearPredictor":
            pred = LinearPredictor(arrays["W"], arrays["b"])
        elif kind == "KernelPredictor":
            kname = meta["kernel"]["name"]
            if kname not in _KERNELS:
                raise ModelFileError(f"{src}: unknown kernel {kname!r}")
            basis = _load_matrix(arrays, "basis", layout.get("basis"))
            kernel = KERNELS[kname](basis, **meta["kernel"]["params"])
            pred = KernelPredictor(arrays["A"], kernel)
        elif kind == "KernelPairwisePredictor":
            pred = KernelPairwisePredictor(
                arrays["A"], _load_inds(arrays, "inds1", layout.get("inds1")),
                _load_inds(arrays, "inds2", layout.get("inds2")), arrays.get("weights"))
        else:
            W = arrays["W"]
            if layout.get("shape2d"):
                W = W.reshape(tuple(layout["shape2d"]), order="F")
            pred = LinearPairwisePredictor(
                W, _load_inds(arrays, "inds1", layout.get("inds1")),
                _load_inds(arrays, "inds2", layout.get("inds2")), arrays.get("weights"))
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelFileError(f"{src}: inconsistent model file ({type(exc).__name__}: "
                             f"{exc})") from None
    if "feature_indices" in arrays:
        meta["feature_indices"] = arrays["feature_indices"]
    iv = {k[len(_IV):]: v for k, v in arrays.items() if k.startswith(_IV)}
    if iv or "intervals" in meta:
        if kind not in ("LinearPredictor", "KernelPredictor"):
            raise ModelFileError(f"{src}: prediction-interval data on a {kind}")
        _check_intervals(meta.get("intervals"), iv, pred, src)
        meta["interval_arrays"] = iv
    return (pred, meta) if return_metadata else pred
