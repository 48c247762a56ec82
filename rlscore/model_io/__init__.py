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
Modules: ``_format`` (name, version, limits, the error), ``_write`` (saving),
``_schema`` (the metadata and single members), ``_read`` (each predictor kind, loading),
``_intervals`` (prediction-interval arrays, checked on both sides).
The constant :data:`FORMAT_VERSION` is the version written; files with a larger
version are refused.
"""

from rlscore.model_io._format import FORMAT_NAME, FORMAT_VERSION, ModelFileError
from rlscore.model_io._format import _digest  # noqa: F401  (tests checksum edited files)
from rlscore.model_io._read import load_model, read_metadata
from rlscore.model_io._write import save_model

__all__ = ["save_model", "load_model", "read_metadata",
           "ModelFileError"]
