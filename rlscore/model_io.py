"""Model files: save trained predictors to disk and load them back, safely.

A model file is one ``.npz`` archive (a zip of ``.npy`` arrays, written with
:func:`numpy.savez_compressed`). Besides the model's arrays it holds the entry
``__metadata__``, a UTF-8 JSON document stored as a ``uint8`` array. Loading uses
``numpy.load(..., allow_pickle=False)`` and :func:`json.loads` only: no pickle, no
``eval``, no import named by the file, so a model file cannot execute code. The format
is described on the documentation page *Model files* (``docs/model_format.rst``).

Files are hostile until checked. Reading is bounded (:mod:`rlscore._archive`: every
member's declared size and their total are checked against a budget before anything is
decompressed, and decompression streams with a cap); then the metadata is checked
against a schema and every array against the metadata -- dtype, number of dimensions,
shapes consistent with each other, CSR structure (``indptr`` starting at 0, monotone,
ending at nnz; column indices in range), finite values, kernel parameters in their
domain with the checker the kernel constructors use
(:func:`rlscore._validation.check_kernel_params`) -- before a predictor is built. Every
failure is a :class:`ModelFileError` naming the file, the member and the reason.
Writing is atomic (:func:`rlscore._io.atomic_write`): an interrupted save leaves the
previous file intact.

Public functions: :func:`save_model`, :func:`load_model`, :func:`read_metadata`.
The constant :data:`FORMAT_VERSION` is the version written; files with a larger
version are refused.
"""

import hashlib
import json
import math
import os

import numpy as np
import scipy.sparse as sp

from rlscore._archive import ArchiveError, read_npz
from rlscore._io import atomic_write
from rlscore._validation import check_kernel_params

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
    if arr.size:
        h.update(memoryview(arr.reshape(-1).view(np.uint8)))
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



# --------------------------------------------------------------------------- reading

_MAX_META_BYTES = 1 << 20
_MAX_TERMS = 1024
_INDEX_LIMIT = 2**31 - 1     # the Kronecker kernels index with int32
_INFO_DEPTH = 32


def _fail(src, where, reason):
    raise ModelFileError(f"{src}: {where}: {reason}")


def _refuse_constant(name):
    raise ValueError(f"the JSON constant {name} is not allowed")


def _depth(value, limit):
    """Nesting depth of a JSON value, stopping at ``limit`` + 1 (no recursion)."""
    stack = [(value, 1)]
    deepest = 0
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_real(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _parse_metadata(src, raw):
    if raw.dtype != np.uint8 or raw.ndim != 1:
        _fail(src, "member '__metadata__'", "must be a 1-D uint8 array")
    if raw.size > _MAX_META_BYTES:
        _fail(src, "member '__metadata__'", f"{raw.size} bytes (at most {_MAX_META_BYTES})")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        _fail(src, "member '__metadata__'", f"not valid JSON ({type(exc).__name__}: "
                                            f"{str(exc)[:200]})")
    if not isinstance(meta, dict):
        _fail(src, "metadata", "must be a JSON object")
    if _depth(meta, _INFO_DEPTH) > _INFO_DEPTH:
        _fail(src, "metadata", f"nested deeper than {_INFO_DEPTH} levels")
    if meta.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{src}: unknown file format (expected {FORMAT_NAME!r})")
    version = meta.get("format_version")
    if not _is_int(version) or version < 1:
        _fail(src, "metadata 'format_version'", f"invalid value {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{src}: model file format version {version} was written by a newer rlscore "
            f"({meta.get('rlscore_version', 'unknown')!s:.40}); this rlscore reads "
            f"versions up to {FORMAT_VERSION}: upgrade rlscore")
    kind = meta.get("predictor")
    if kind not in _PREDICTORS:
        raise ModelFileError(f"{src}: unknown predictor type {str(kind)[:80]!r}")
    for key in ("n_features", "n_outputs", "n_file_features"):
        v = meta.get(key)
        if v is not None and (not _is_int(v) or v < 1 or v > 2**62):
            _fail(src, f"metadata {key!r}", f"must be a positive integer, got {v!r:.80}")
    for key in ("learner", "rlscore_version"):
        v = meta.get(key)
        if v is not None and not isinstance(v, str):
            _fail(src, f"metadata {key!r}", "must be a string")
    if meta.get("regparam") is not None and not _is_real(meta["regparam"]):
        _fail(src, "metadata 'regparam'", "must be a finite number")
    layout = meta.get("layout")
    if layout is None:
        meta["layout"] = {}
    elif not isinstance(layout, dict):
        _fail(src, "metadata 'layout'", "must be an object")
    sums = meta.get("sha256")
    if not isinstance(sums, dict) or not all(isinstance(v, str) for v in sums.values()):
        _fail(src, "metadata 'sha256'", "must map array names to checksums")
    return meta


def _array(src, arrays, name, kind, ndims, n=None):
    """The member ``name``: dtype kind ('f' float64 or 'i' int64), ndim in ``ndims``,
    finite (floats); ``n`` its required first dimension."""
    if name not in arrays:
        _fail(src, f"member {name!r}", "missing")
    a = arrays[name]
    if a.dtype.kind != kind or a.dtype.itemsize != 8:
        want = "float64" if kind == "f" else "int64"
        _fail(src, f"member {name!r}", f"dtype {a.dtype}, expected {want}")
    if a.ndim not in ndims:
        _fail(src, f"member {name!r}", f"{a.ndim} dimensions, expected "
                                      f"{' or '.join(map(str, ndims))}")
    if n is not None and (a.ndim == 0 or a.shape[0] != n):
        _fail(src, f"member {name!r}", f"shape {a.shape}, expected {n} rows")
    if kind == "f" and not np.all(np.isfinite(a)):
        _fail(src, f"member {name!r}", "holds NaN or infinite values")
    return a


def _outputs(src, name, a, meta):
    n_out = 1 if a.ndim == 1 else a.shape[1]
    if a.ndim == 2 and n_out == 0:
        _fail(src, f"member {name!r}", f"shape {a.shape} has no outputs")
    if meta.get("n_outputs") is not None and meta["n_outputs"] != n_out:
        _fail(src, f"member {name!r}", f"{n_out} outputs, the metadata says "
                                      f"{meta['n_outputs']}")
    meta["n_outputs"] = n_out
    return n_out


def _check_basis(src, arrays, layout, meta):
    kind = layout.get("basis")
    if kind == "dense":
        B = _array(src, arrays, "basis", "f", (2,))
        if B.shape[0] == 0 or B.shape[1] == 0:
            _fail(src, "member 'basis'", f"empty shape {B.shape}")
        return B
    if kind != "csr":
        _fail(src, "metadata 'layout.basis'", f"must be 'dense' or 'csr', got {kind!r:.40}")
    shape = _array(src, arrays, "basis.shape", "i", (1,))
    if shape.shape != (2,) or shape.min() < 1 or shape.max() > _INDEX_LIMIT:
        _fail(src, "member 'basis.shape'", f"must hold two sizes in 1..{_INDEX_LIMIT}")
    n_rows, n_cols = int(shape[0]), int(shape[1])
    indptr = _array(src, arrays, "basis.indptr", "i", (1,), n_rows + 1)
    data = _array(src, arrays, "basis.data", "f", (1,))
    indices = _array(src, arrays, "basis.indices", "i", (1,), data.size)
    if indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != data.size:
        _fail(src, "member 'basis.indptr'", f"not a CSR row pointer (must start at 0, "
                                           f"never decrease and end at nnz = {data.size})")
    if indices.size and (indices.min() < 0 or indices.max() >= n_cols):
        _fail(src, "member 'basis.indices'", f"column index outside 0..{n_cols - 1}")
    return sp.csr_matrix((data, indices.astype(np.int32 if n_cols < 2**31 else np.int64),
                          indptr), shape=(n_rows, n_cols))


def _check_inds(src, arrays, prefix, terms, n_coef):
    """Training index vectors: None, one vector (terms == 0) or ``terms`` vectors."""
    if terms is None:
        return None
    if not _is_int(terms) or not 0 <= terms <= _MAX_TERMS:
        _fail(src, f"metadata 'layout.{prefix}'", f"must be null or an integer in "
                                                 f"0..{_MAX_TERMS}")
    names = [prefix] if terms == 0 else [f"{prefix}.{t}" for t in range(terms)]
    out = []
    for name in names:
        v = _array(src, arrays, name, "i", (1,), n_coef)
        if v.size and (v.min() < 0 or v.max() >= _INDEX_LIMIT):
            _fail(src, f"member {name!r}", f"index outside 0..{_INDEX_LIMIT - 1}")
        out.append(v)
    return out[0] if terms == 0 else out


def _n_terms(src, layout):
    t = [layout.get(k) for k in ("inds1", "inds2")]
    if (t[0] is None) != (t[1] is None):
        _fail(src, "metadata 'layout'", "inds1 and inds2 must both be present or absent")
    if t[0] is not None and t[0] != t[1]:
        _fail(src, "metadata 'layout'", "inds1 and inds2 have different numbers of terms")
    return 1 if t[0] is None or t[0] == 0 else t[0]


def _expected_members(kind, layout, has):
    names = set()
    if kind == "LinearPredictor":
        names |= {"W", "b"}
    elif kind == "KernelPredictor":
        names.add("A")
        if layout.get("basis") == "csr":
            names |= {"basis.data", "basis.indices", "basis.indptr", "basis.shape"}
        else:
            names.add("basis")
    else:
        names.add("A" if kind == "KernelPairwisePredictor" else "W")
        for prefix in ("inds1", "inds2"):
            t = layout.get(prefix)
            if t == 0:
                names.add(prefix)
            elif _is_int(t) and 0 < t <= _MAX_TERMS:
                names |= {f"{prefix}.{i}" for i in range(t)}
        if "weights" in has:
            names.add("weights")
    if "feature_indices" in has:
        names.add("feature_indices")
    return names


def _validate(src, meta, arrays):
    """Check every array against the metadata; returns the predictor's constructor
    arguments. Nothing here trusts a value it has not checked."""
    from rlscore.kernel import KERNELS
    from rlscore.predictor import (KernelPairwisePredictor, KernelPredictor,
                                   LinearPairwisePredictor, LinearPredictor)
    kind, layout = meta["predictor"], meta["layout"]
    expected = _expected_members(kind, layout, arrays)
    if "intervals" in meta and kind in ("LinearPredictor", "KernelPredictor"):
        # prediction-interval arrays, checked against the predictor by _check_intervals
        expected |= {k for k in arrays if k.startswith(_IV) and k[len(_IV):] in _IV_ARRAYS}
    extra, missing = set(arrays) - expected, expected - set(arrays)
    if extra or missing:
        what = (f"unexpected member {sorted(extra)[0]!r:.80}" if extra
                else f"missing member {sorted(missing)[0]!r}")
        _fail(src, "archive", f"{what} for a {kind}")
    if set(meta["sha256"]) != set(arrays):
        raise ModelFileError(f"{src}: corrupt model file (the arrays do not match the "
                             f"metadata)")
    for k, v in arrays.items():
        if _digest(v) != meta["sha256"][k]:
            raise ModelFileError(f"{src}: corrupt model file (checksum of {k!r} differs)")
    n_features = meta.get("n_features")
    if kind != "KernelPredictor":
        kern = meta.get("kernel")
        if kern is not None and not (isinstance(kern, dict) and kern.get("name") ==
                                     "LinearKernel" and kind == "LinearPredictor"):
            _fail(src, "metadata 'kernel'", f"must be null or the LinearKernel for a {kind}")
    if kind == "LinearPredictor":
        W = _array(src, arrays, "W", "f", (1, 2), n_features)
        if W.shape[0] == 0:
            _fail(src, "member 'W'", "empty")
        n_out = _outputs(src, "W", W, meta)
        b = _array(src, arrays, "b", "f", (0, 1))
        if b.size != 1 and b.shape != (n_out,):
            _fail(src, "member 'b'", f"shape {b.shape}, expected a scalar or ({n_out},)")
        n_features = W.shape[0]
        build = lambda: LinearPredictor(W, b)  # noqa: E731
    elif kind == "KernelPredictor":
        kern = meta.get("kernel")
        if not isinstance(kern, dict) or not isinstance(kern.get("params"), dict):
            _fail(src, "metadata 'kernel'", "must be {\"name\": ..., \"params\": {...}}")
        kname = kern.get("name")
        if kname not in _KERNELS:
            raise ModelFileError(f"{src}: unknown kernel {str(kname)[:80]!r}")
        try:
            params = check_kernel_params(kname, kern["params"])
        except (TypeError, ValueError) as exc:
            _fail(src, "metadata 'kernel.params'", str(exc))
        basis = _check_basis(src, arrays, layout, meta)
        if n_features is not None and basis.shape[1] != n_features:
            _fail(src, "basis", f"{basis.shape[1]} columns, the metadata says "
                                f"{n_features} features")
        n_features = basis.shape[1]
        A = _array(src, arrays, "A", "f", (1, 2), basis.shape[0])
        _outputs(src, "A", A, meta)
        build = lambda: KernelPredictor(A, KERNELS[kname](basis, **params))  # noqa: E731
    else:
        T = _n_terms(src, layout)
        name = "A" if kind == "KernelPairwisePredictor" else "W"
        coef = _array(src, arrays, name, "f", (1,))
        if coef.size == 0:
            _fail(src, f"member {name!r}", "empty")
        n_idx = coef.size if kind == "KernelPairwisePredictor" else None
        i1 = _check_inds(src, arrays, "inds1", layout.get("inds1"), n_idx)
        i2 = _check_inds(src, arrays, "inds2", layout.get("inds2"), n_idx)
        weights = None
        if "weights" in arrays:
            weights = _array(src, arrays, "weights", "f", (1,), T)
        if kind == "KernelPairwisePredictor":
            build = lambda: KernelPairwisePredictor(coef, i1, i2, weights)  # noqa: E731
        else:
            shape2d = layout.get("shape2d")
            if shape2d is not None:
                if not (isinstance(shape2d, list) and len(shape2d) == 2
                        and all(_is_int(s) and s >= 1 for s in shape2d)
                        and shape2d[0] * shape2d[1] == coef.size):
                    _fail(src, "metadata 'layout.shape2d'", f"must be [d1, d2] with "
                                                            f"d1 * d2 = {coef.size}")
                coef = coef.reshape(tuple(shape2d), order="F")
            build = lambda: LinearPairwisePredictor(coef, i1, i2, weights)  # noqa: E731
    if "feature_indices" in arrays:
        fi = _array(src, arrays, "feature_indices", "i", (1,), n_features)
        n_file = meta.get("n_file_features")
        if fi.size and (fi[0] < 0 or np.any(np.diff(fi) <= 0)
                        or (n_file is not None and fi[-1] >= n_file)):
            _fail(src, "member 'feature_indices'", "must increase and lie in "
                                                  "0..n_file_features-1")
    if meta.get("n_file_features") is not None and n_features is not None \
            and meta["n_file_features"] < n_features:
        _fail(src, "metadata 'n_file_features'", "smaller than n_features")
    meta["n_features"] = n_features
    return build


def _read(path, max_bytes=None):
    """(metadata, arrays, predictor factory) after every check."""
    src = os.fspath(path)
    try:
        arrays = read_npz(src, max_bytes=max_bytes)
    except ArchiveError as exc:
        raise ModelFileError(f"{src}: not a readable rlscore model file ({exc})") from None
    if _META not in arrays:
        raise ModelFileError(f"{src}: not an rlscore model file (no metadata entry)")
    meta = _parse_metadata(src, arrays.pop(_META))
    build = _validate(src, meta, arrays)
    return meta, arrays, build


def read_metadata(path, max_bytes=None):
    """The metadata dict of a model file (after the same checks as :func:`load_model`).

    Notes
    -----
    Complexity: reads, checks and checksums the whole file, O(file size).
    """
    return _read(path, max_bytes)[0]


def load_model(path, return_metadata=False, max_bytes=None):
    """Load a model file written by :func:`save_model`.

    Parameters
    ----------
    path : str or path-like
    return_metadata : bool, default False
        Also return the metadata dict.
    max_bytes : int, optional
        Budget for the arrays the file declares, checked before anything is
        decompressed. Default: ``max(32 MiB, 32 x file size)``, at most half the
        available memory; pass a larger value to load a larger file you trust.

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
    FileNotFoundError, IsADirectoryError, PermissionError
        The file cannot be opened.
    ModelFileError (a ValueError)
        Naming the member and the reason: not an npz archive, truncated or altered
        (zip CRC, checksums), over the memory budget, unknown format, predictor or
        kernel, newer format version, an array of the wrong dtype, dimensions or shape,
        a broken CSR structure, an index out of range, NaN or infinite values, a kernel
        parameter out of its domain.

    Notes
    -----
    No code is executed: members are plain numeric ``.npy`` arrays (no pickle) and the
    metadata is JSON. Complexity: O(file size + array bytes); peak memory the arrays
    plus O(1 MiB).
    """
    meta, arrays, build = _read(path, max_bytes)
    try:
        pred = build()
    except (TypeError, ValueError, IndexError) as exc:
        raise ModelFileError(f"{os.fspath(path)}: inconsistent model file "
                             f"({type(exc).__name__}: {exc})") from None
    if meta["predictor"] == "KernelPredictor":   # the parameters in effect, defaults included
        meta["kernel"]["params"] = pred.kernel.get_params()
    if "feature_indices" in arrays:
        meta["feature_indices"] = arrays["feature_indices"]
    iv = {k[len(_IV):]: v for k, v in arrays.items() if k.startswith(_IV)}
    src, kind = os.fspath(path), meta["predictor"]
    if iv or "intervals" in meta:
        if kind not in ("LinearPredictor", "KernelPredictor"):
            raise ModelFileError(f"{src}: prediction-interval data on a {kind}")
        _check_intervals(meta.get("intervals"), iv, pred, src)
        meta["interval_arrays"] = iv
    return (pred, meta) if return_metadata else pred
