"""The model-file format: its name and version, the limits a reader enforces, the
error type, checksums, and the bridge from the index checker of every layer to
:class:`ModelFileError`."""

import hashlib
import math

import numpy as np

from rlscore._validation import as_index_array

FORMAT_NAME = "rlscore-model"
FORMAT_VERSION = 1
_META = "__metadata__"
_KERNELS = ("LinearKernel", "GaussianKernel", "PolynomialKernel")
_PREDICTORS = ("LinearPredictor", "KernelPredictor", "LinearPairwisePredictor",
               "KernelPairwisePredictor")
_IV = "intervals."
_IV_ARRAYS = {"coef", "intercept", "residuals", "fold_of", "corr_rows"}
_MAX_META_BYTES = 1 << 20
_MAX_TERMS = 1024
_INDEX_LIMIT = 2**31 - 1     # the Kronecker kernels index with int32
_INFO_DEPTH = 32


class ModelFileError(ValueError):
    """A model file is corrupt, of an unknown format, or from a newer version."""


def _digest(arr):
    arr = np.ascontiguousarray(arr)
    h = hashlib.sha256()
    h.update(f"{arr.dtype.str}{arr.shape}".encode())
    if arr.size:
        h.update(memoryview(arr.reshape(-1).view(np.uint8)))
    return h.hexdigest()


def _fail(src, where, reason):
    raise ModelFileError(f"{src}: {where}: {reason}")


def _check_index_member(src, name, v, bound, unique=False):
    """The index array ``v`` (member ``name``) in 0 .. bound-1, checked by
    :func:`rlscore._validation.as_index_array`; a ModelFileError naming the member.
    O(len(v)) (O(len(v) log len(v)) with ``unique``)."""
    try:
        as_index_array(v, bound, f"member {name!r}", unique=unique, allow_empty=True,
                       dtype=np.int64)
    except ValueError as exc:     # IndexArrayError is a ValueError too
        raise ModelFileError(f"{src}: {exc}") from None


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_real(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
