"""Bounded reading of ``.npz`` archives (zip files of ``.npy`` members) from untrusted
sources: the one reader behind :func:`rlscore.model_io.load_model`.

Nothing is decompressed before every member's declared size and the total have been
checked against the budget; each member is then decompressed in chunks into a buffer of
exactly the size its ``.npy`` header declares (never more: a member that inflates beyond
its declaration, a zip bomb, is cut off after one chunk). Only plain numeric dtypes are
accepted (no object arrays, so no pickle), only stored or deflated members, no
encryption, no duplicate names.

Every failure is an :class:`ArchiveError` naming the member and the reason.
"""

import os
import zipfile
import zlib

import numpy as np

__all__ = ["ArchiveError", "read_npz", "default_budget", "ALLOWED_DTYPES"]

#: dtypes a member may have (kind, itemsize); byte order little or big endian.
ALLOWED_DTYPES = {("f", 8), ("i", 8), ("u", 1)}
_MAX_MEMBERS = 4096
_MAX_HEADER = 10000
_CHUNK = 1 << 20
#: floor and expansion ratio of the default budget (see :func:`default_budget`)
BUDGET_FLOOR = 32 << 20
BUDGET_RATIO = 32


class ArchiveError(ValueError):
    """A malformed, oversized or hostile archive member."""


def default_budget(file_size, available=None):
    """Bytes of arrays a model file of ``file_size`` bytes may declare by default:
    ``max(32 MiB, 32 x file_size)``, capped at half the available memory. Deflate
    reaches ratios of about 1000:1 on constant data, so the ratio cap is what stops
    a small file from claiming gigabytes; real model arrays (floating-point weights and
    basis vectors) compress by 1-5x."""
    budget = max(BUDGET_FLOOR, BUDGET_RATIO * int(file_size))
    if available is not None:
        budget = min(budget, max(available // 2, BUDGET_FLOOR))
    return budget


def _header(fp, name):
    """(shape, fortran_order, dtype, header_length) of a .npy stream, without reading
    the data. The header is a Python literal parsed by numpy with ``ast.literal_eval``
    (no code execution), at most 10000 bytes."""
    try:
        major, minor = np.lib.format.read_magic(fp)
        if (major, minor) == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(
                fp, max_header_size=_MAX_HEADER)
        elif (major, minor) in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(
                fp, max_header_size=_MAX_HEADER)
        else:
            raise ArchiveError(f"member {name!r}: unsupported .npy version {major}.{minor}")
    except ArchiveError:
        raise
    except (ValueError, TypeError, SyntaxError, EOFError, OSError, zlib.error,
            zipfile.BadZipFile, RecursionError, MemoryError) as exc:
        raise ArchiveError(f"member {name!r}: not a valid .npy array "
                           f"({type(exc).__name__}: {exc})") from None
    if not isinstance(dtype, np.dtype) or dtype.hasobject or dtype.fields is not None \
            or dtype.subdtype is not None or (dtype.kind, dtype.itemsize) not in ALLOWED_DTYPES:
        raise ArchiveError(f"member {name!r}: dtype {dtype} is not allowed (only float64, "
                           f"int64 and uint8)")
    if not isinstance(shape, tuple) or len(shape) > 8 or any(
            not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in shape):
        raise ArchiveError(f"member {name!r}: invalid shape {shape!r}")
    return shape, bool(fortran), dtype


def _read_exact(fp, buf, name):
    """Fill the bytes view ``buf`` from ``fp`` in chunks; the stream must end there."""
    view = memoryview(buf.reshape(-1).view(np.uint8))
    pos, n = 0, len(view)
    while pos < n:
        chunk = fp.read(min(_CHUNK, n - pos))
        if not chunk:
            raise ArchiveError(f"member {name!r}: truncated ({pos} of {n} data bytes)")
        view[pos:pos + len(chunk)] = chunk
        pos += len(chunk)
    if fp.read(1):
        raise ArchiveError(f"member {name!r}: more data than its header declares")


def read_npz(path, max_bytes=None):
    """Read the arrays of an ``.npz`` file within a memory budget.

    Parameters
    ----------
    path : str or path-like
    max_bytes : int, optional
        Budget for the sum of the members' declared sizes; default
        :func:`default_budget` of the file size.

    Returns
    -------
    dict of str -> ndarray
        Member name (without ``.npy``) to array, native byte order.

    Raises
    ------
    FileNotFoundError, IsADirectoryError, PermissionError
        The file cannot be opened.
    ArchiveError
        Anything wrong with the content.

    Notes
    -----
    O(file size + declared array bytes) time; peak memory the arrays themselves plus one
    chunk of 1 MiB.
    """
    src = os.fspath(path)
    file_size = os.stat(src).st_size
    if max_bytes is None:
        from rlscore._validation import available_memory
        max_bytes = default_budget(file_size, available_memory())
    try:
        zf = zipfile.ZipFile(src)
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError,
            RecursionError) as exc:
        raise ArchiveError(f"not a zip archive ({type(exc).__name__}: {exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > _MAX_MEMBERS:
            raise ArchiveError(f"{len(infos)} members (at most {_MAX_MEMBERS})")
        names = [i.filename for i in infos]
        if len(set(names)) != len(names):
            raise ArchiveError("duplicate member names")
        total = 0
        for info in infos:
            if not info.filename.endswith(".npy") or "/" in info.filename:
                raise ArchiveError(f"member {info.filename!r}: not a top-level .npy member")
            if info.flag_bits & 0x1:
                raise ArchiveError(f"member {info.filename!r}: encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise ArchiveError(f"member {info.filename!r}: compression method "
                                   f"{info.compress_type} is not supported")
            if info.file_size < 0 or info.compress_size < 0 \
                    or info.compress_size > file_size:
                raise ArchiveError(f"member {info.filename!r}: invalid sizes in the zip "
                                   f"directory")
            total += info.file_size
            if info.file_size > max_bytes or total > max_bytes:
                raise ArchiveError(
                    f"member {info.filename!r}: the members declare {total} bytes, more "
                    f"than the budget of {max_bytes} bytes for a file of {file_size} "
                    f"bytes (pass max_bytes= to load a larger trusted file)")
        arrays = {}
        for info in infos:
            name = info.filename[:-4]
            try:
                with zf.open(info) as fp:
                    shape, fortran, dtype = _header(fp, name)
                    count = 1
                    for s in shape:
                        count *= s
                    nbytes = count * dtype.itemsize
                    if nbytes > info.file_size:
                        raise ArchiveError(
                            f"member {name!r}: the header declares shape {shape} "
                            f"({nbytes} bytes), more than the member's {info.file_size} "
                            f"bytes")
                    arr = np.empty(shape[::-1] if fortran else shape, dtype=dtype)
                    _read_exact(fp, arr, name)
            except ArchiveError:
                raise
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
                    NotImplementedError, RuntimeError) as exc:
                # BadZipFile: CRC mismatch, bad local header; zlib.error: corrupt stream
                raise ArchiveError(f"member {name!r}: corrupt ({type(exc).__name__}: "
                                   f"{exc})") from None
            if fortran:
                arr = arr.T
            if not dtype.isnative:
                arr = arr.astype(dtype.newbyteorder("="))
            arrays[name] = arr
    return arrays
