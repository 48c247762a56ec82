"""Reading model files, part one: the metadata schema and the checks of single
members (dtype, dimensions, finite values, CSR structure, index vectors), each failure a
:class:`~rlscore.model_io.ModelFileError` naming the member."""

import json

import numpy as np
import scipy.sparse as sp

from rlscore.model_io._format import (_INDEX_LIMIT, _INFO_DEPTH, _MAX_META_BYTES,
                                      _MAX_TERMS, _PREDICTORS, FORMAT_NAME,
                                      FORMAT_VERSION, ModelFileError, _fail, _is_int,
                                      _is_real, _check_index_member)


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
    _check_index_member(src, "basis.indices", indices, n_cols)
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
        _check_index_member(src, name, v, _INDEX_LIMIT)
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
