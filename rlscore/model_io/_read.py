"""Reading model files, part two: every array against the metadata per predictor
kind, then :func:`load_model` and :func:`read_metadata`."""

import os

import numpy as np

from rlscore._archive import ArchiveError, read_npz
from rlscore._validation import check_kernel_params
from rlscore.model_io._format import (_IV, _IV_ARRAYS, _KERNELS, _META, ModelFileError,
                                      _digest, _fail, _is_int)
from rlscore.model_io._intervals import _check_intervals
from rlscore.model_io._schema import (_array, _check_basis, _check_inds,
                                      _expected_members, _n_terms, _outputs,
                                      _parse_metadata)

__all__ = ["load_model", "read_metadata"]


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
        :meth:`rlscore.core.rls.IntervalModel.from_arrays`.

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
